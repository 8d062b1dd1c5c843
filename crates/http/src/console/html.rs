//! Writing the console's HTML: [`Text`] escapes whatever comes from data (topic names, keys,
//! values, headers, group ids, error messages) wherever it is printed, [`Part`] percent-encodes it
//! inside a URL path or query, and [`page`] wraps a page's body in the shared layout (navigation,
//! stylesheet, script). Everything else in a page is a literal written here.

use std::fmt::{self, Display, Write};

use axum::http::StatusCode;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};

/// Text from data, HTML-escaped when displayed (`&`, `<`, `>`, `"`, `'`): safe in element content
/// and in quoted attribute values.
pub struct Text<'a>(pub &'a str);

impl Display for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(['&', '<', '>', '"', '\'']) {
            f.write_str(&rest[..at])?;
            f.write_str(match rest.as_bytes()[at] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&#39;",
            })?;
            rest = &rest[at + 1..];
        }
        f.write_str(rest)
    }
}

/// Data as one URL path segment or query value: every byte but RFC 3986's unreserved characters
/// percent-encoded (so the result needs no HTML escaping either).
pub struct Part<'a>(pub &'a str);

impl Display for Part<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in self.0.bytes() {
            if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
                f.write_char(char::from(byte))?;
            } else {
                write!(f, "%{byte:02X}")?;
            }
        }
        Ok(())
    }
}

/// The console's sections, in the navigation's order: (path, label).
const SECTIONS: [(&str, &str); 4] =
    [("/", "Overview"), ("/topics", "Topics"), ("/groups", "Consumer groups"), ("/charts", "Metrics")];

/// A whole page: `title` (data, escaped), the navigation with `section` marked, then `body`
/// (HTML written by the caller, data in it escaped).
pub fn page(status: StatusCode, section: &str, title: &str, body: &str) -> Response {
    let mut out = String::with_capacity(body.len() + 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{} · Strand</title><link rel=\"stylesheet\" href=\"/console/console.css\">\
         <script src=\"/console/console.js\" defer></script></head>\n<body><header><a class=\"brand\" href=\"/\">Strand</a><nav>",
        Text(title)
    );
    for (path, label) in SECTIONS {
        let current = if path == section { " aria-current=\"page\"" } else { "" };
        let _ = write!(out, "<a href=\"{path}\"{current}>{label}</a>");
    }
    let _ = write!(out, "</nav></header>\n<main>\n<h1>{}</h1>\n{body}</main></body></html>\n", Text(title));
    let headers = [(CONTENT_TYPE, "text/html; charset=utf-8"), (CACHE_CONTROL, "no-store")];
    (status, headers, out).into_response()
}

/// A page saying why a request failed, with its HTTP status.
pub fn error_page(status: StatusCode, section: &str, message: &str) -> Response {
    let body = format!("<p class=\"error\" role=\"alert\">{}</p>\n", Text(message));
    page(status, section, &format!("Error {}", status.as_u16()), &body)
}

/// A 303 to `location` (after a form that changed something, so a reload does not repeat it).
pub fn see_other(location: String) -> Response {
    (StatusCode::SEE_OTHER, [(axum::http::header::LOCATION, location)]).into_response()
}

/// A table: `head` cells (literals), then `rows` of cells already written as HTML.
pub fn table(class: &str, head: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = format!("<table class=\"{class}\"><thead><tr>");
    for cell in head {
        let _ = write!(out, "<th>{cell}</th>");
    }
    out.push_str("</tr></thead><tbody>");
    if rows.is_empty() {
        let _ = write!(out, "<tr><td colspan=\"{}\" class=\"none\">None</td></tr>", head.len().max(1));
    }
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            let _ = write!(out, "<td>{cell}</td>");
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>\n");
    out
}

/// A list of broker ids, `1, 2, 3`.
pub fn ids(ids: &[i32]) -> String {
    ids.iter().map(i32::to_string).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Markup in data is printed as text, never as markup; URL parts carry no reserved character.
    #[test]
    fn data_is_escaped() {
        assert_eq!(
            Text("<script>alert('x')</script> & \"q\"").to_string(),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
        assert_eq!(Text("plain").to_string(), "plain");
        assert_eq!(Part("a b/c?d=<e>&é").to_string(), "a%20b%2Fc%3Fd%3D%3Ce%3E%26%C3%A9");
        assert_eq!(Part("my-topic_1.x~").to_string(), "my-topic_1.x~");
    }
}
