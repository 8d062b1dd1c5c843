//! The HTTP surface's settings, Strand's own (design §10; served by `strand-http`, started by the
//! CLI beside the node):
//! - `http.listeners`: a comma-separated list of `http://host:port` or `https://host:port` (an
//!   empty host is every interface, `[::1]` an IPv6 literal); empty, Kafka-style, is no HTTP
//!   listener. On at `http://localhost:8080` in the embedded one-node defaults, off unless set
//!   in a file. `https://` serves the node's `ssl.keystore.*` (and `ssl.truststore.*`,
//!   `ssl.client.auth`, ...), each overridable as `listener.name.http.ssl.*`, as a Kafka SSL
//!   listener's.
//! - `http.anonymous.allowed`: requests without credentials are served, as `User:ANONYMOUS` on
//!   the first PLAINTEXT broker listener. Default: whether there is such a listener. `true` on a
//!   node whose broker listeners all authenticate their clients refuses the start; `false` on a
//!   node with no SASL broker listener to check credentials against too.
//! - `http.metrics.anonymous.allowed`: `/metrics` is served without credentials even when the
//!   rest of HTTP requires them (Prometheus scrapes rarely authenticate). Default `false`.
//! - `http.metrics.topics.max`: the most topics with series of their own in `/metrics` (default
//!   1000); traffic of further topics counts only in the all-topics series.

use std::fmt;

use super::reader::Reader;
use super::{ConfigError, invalid};

/// One `http.listeners` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpEndpoint {
    /// As written, without brackets; empty is every interface.
    pub host: String,
    pub port: u16,
    /// `https://`.
    pub tls: bool,
}

impl fmt::Display for HttpEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = if self.tls { "https" } else { "http" };
        if self.host.contains(':') {
            write!(f, "{scheme}://[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{scheme}://{}:{}", self.host, self.port)
        }
    }
}

/// The HTTP surface's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpSettings {
    /// `http.listeners`; empty is none.
    pub listeners: Vec<HttpEndpoint>,
    /// `http.metrics.topics.max`.
    pub metrics_topics_max: usize,
    /// `http.anonymous.allowed`; `None` when not set (then: whether a broker listener is
    /// PLAINTEXT).
    pub anonymous_allowed: Option<bool>,
    /// `http.metrics.anonymous.allowed`.
    pub metrics_anonymous_allowed: bool,
}

const LISTENERS: &str = "http.listeners";
const METRICS_TOPICS_MAX: &str = "http.metrics.topics.max";
pub const ANONYMOUS_ALLOWED: &str = "http.anonymous.allowed";
pub const METRICS_ANONYMOUS_ALLOWED: &str = "http.metrics.anonymous.allowed";

/// Reads the HTTP settings; the error names the key and the entry at fault.
pub(super) fn read(read: &Reader<'_>) -> Result<HttpSettings, ConfigError> {
    let text = read.text(LISTENERS).unwrap_or_default();
    let listeners = text
        .split(',')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .map(|entry| parse_endpoint(entry).map_err(|reason| invalid(LISTENERS, text, reason)))
        .collect::<Result<Vec<_>, _>>()?;
    let metrics_topics_max = usize::try_from(read.int(METRICS_TOPICS_MAX)?).unwrap_or(0);
    let anonymous_allowed = if read.is_set(ANONYMOUS_ALLOWED) { Some(read.bool(ANONYMOUS_ALLOWED)?) } else { None };
    let metrics_anonymous_allowed = read.bool(METRICS_ANONYMOUS_ALLOWED)?;
    Ok(HttpSettings { listeners, metrics_topics_max, anonymous_allowed, metrics_anonymous_allowed })
}

fn parse_endpoint(entry: &str) -> Result<HttpEndpoint, String> {
    let scheme_of = |scheme: &str| entry.get(..scheme.len()).filter(|s| s.eq_ignore_ascii_case(scheme)).is_some();
    let (tls, address) = if scheme_of("https://") {
        (true, &entry[8..])
    } else if scheme_of("http://") {
        (false, &entry[7..])
    } else {
        return Err(format!("{entry}: expected http://host:port or https://host:port"));
    };
    let (host, port) = match address.strip_prefix('[') {
        Some(bracketed) => bracketed.split_once("]:").ok_or_else(|| format!("{entry}: expected http://[ipv6]:port"))?,
        None => address.rsplit_once(':').ok_or_else(|| format!("{entry}: expected http://host:port"))?,
    };
    let port = port.parse::<u16>().map_err(|_| format!("{entry}: {port:?} is not a port (0 to 65535)"))?;
    if host.contains(['/', ' ']) || (host.contains(':') && !address.starts_with('[')) {
        return Err(format!("{entry}: expected http://host:port"));
    }
    Ok(HttpEndpoint { host: host.to_owned(), port, tls })
}

#[cfg(test)]
mod tests {
    use super::{HttpEndpoint, parse_endpoint};

    fn check(entry: &str, expected: Result<(&str, u16), &str>) {
        let parsed = parse_endpoint(entry).map(|e| (e.host, e.port));
        match expected {
            Ok((host, port)) => assert_eq!(parsed, Ok((host.to_owned(), port)), "{entry}"),
            Err(part) => assert!(parsed.as_ref().is_err_and(|e| e.contains(part)), "{entry}: {parsed:?}"),
        }
    }

    /// `http.listeners` entries: hosts, ports, IPv6, and what is refused, with why.
    #[test]
    fn listener_entries_parse_or_say_why_not() {
        check("http://localhost:8080", Ok(("localhost", 8080)));
        check("HTTP://0.0.0.0:0", Ok(("0.0.0.0", 0)));
        check("http://:9090", Ok(("", 9090)));
        check("http://[::1]:8080", Ok(("::1", 8080)));
        check("https://localhost:8443", Ok(("localhost", 8443)));
        assert_eq!(parse_endpoint("HTTPS://:1").map(|e| e.tls), Ok(true));
        assert_eq!(parse_endpoint("http://:1").map(|e| e.tls), Ok(false));
        check("localhost:8080", Err("expected http://host:port"));
        check("http://localhost", Err("expected http://host:port"));
        check("http://localhost:99999", Err("is not a port"));
        check("http://::1:8080", Err("expected http://host:port"));
        check("http://a/b:80", Err("expected http://host:port"));
    }

    /// An endpoint prints as it is written in `http.listeners`.
    #[test]
    fn endpoints_print_as_urls() {
        assert_eq!(HttpEndpoint { host: "::1".into(), port: 80, tls: false }.to_string(), "http://[::1]:80");
        let secure = HttpEndpoint { host: "localhost".into(), port: 8443, tls: true };
        assert_eq!(secure.to_string(), "https://localhost:8443");
    }
}
