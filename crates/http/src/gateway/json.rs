//! The pieces every v3 resource is made of: `kind`, `metadata` (`self`, `resource_name` as a
//! Confluent resource name `crn:///kafka=...`), `related` links, collections, and ISO-8601
//! timestamps (`2021-02-05T19:14:42.000Z`), plus reading a JSON request body.

use axum::http::HeaderMap;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::RestError;

/// A resource: `kind`, `metadata {self, resource_name}`, then `fields` in order.
pub fn resource(kind: &str, url: &str, crn: &str, fields: Value) -> Value {
    let mut out = Map::new();
    out.insert("kind".into(), kind.into());
    out.insert("metadata".into(), json!({ "self": url, "resource_name": crn }));
    if let Value::Object(fields) = fields {
        out.extend(fields);
    }
    Value::Object(out)
}

/// A collection: `kind`, `metadata {self, next: null}`, `data`.
pub fn collection(kind: &str, url: &str, data: Vec<Value>) -> Value {
    json!({ "kind": kind, "metadata": { "self": url, "next": null }, "data": data })
}

/// A relationship: `{"related": url}`.
pub fn related(url: String) -> Value {
    json!({ "related": url })
}

/// A JSON answer with status 200.
pub fn ok(body: Value) -> Response {
    with_status(axum::http::StatusCode::OK, body)
}

pub fn with_status(status: axum::http::StatusCode, body: Value) -> Response {
    (status, [(CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// Refuses a body that is not JSON by its content type (415, as Confluent answers); no content
/// type is taken as JSON.
pub fn check_json_type(headers: &HeaderMap) -> Result<(), RestError> {
    let Some(kind) = headers.get(CONTENT_TYPE) else { return Ok(()) };
    let kind = kind.to_str().unwrap_or_default().to_ascii_lowercase();
    let essence = kind.split(';').next().unwrap_or_default().trim();
    if essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json")) {
        Ok(())
    } else {
        Err(RestError::new(axum::http::StatusCode::UNSUPPORTED_MEDIA_TYPE, 415, "HTTP 415 Unsupported Media Type"))
    }
}

/// A request body as one JSON object.
pub fn body_object(headers: &HeaderMap, body: &[u8]) -> Result<Map<String, Value>, RestError> {
    check_json_type(headers)?;
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(RestError::bad_request("The request body must be a JSON object")),
        Err(e) => Err(RestError::bad_request(format!("Cannot read the request body as JSON: {e}"))),
    }
}

/// A string field that must be there.
pub fn required_str<'a>(object: &'a Map<String, Value>, name: &str) -> Result<&'a str, RestError> {
    match object.get(name) {
        Some(Value::String(text)) => Ok(text),
        Some(_) => Err(RestError::bad_request(format!("{name} must be a string"))),
        None => Err(RestError::bad_request(format!("{name} is required"))),
    }
}

/// An optional integer field within `min..=max`.
pub fn optional_int(object: &Map<String, Value>, name: &str, min: i64, max: i64) -> Result<Option<i64>, RestError> {
    match object.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_i64()
            .filter(|v| (min..=max).contains(v))
            .map(Some)
            .ok_or_else(|| RestError::bad_request(format!("{name} must be an integer from {min} to {max}"))),
    }
}

/// An optional boolean field (absent is false).
pub fn flag(object: &Map<String, Value>, name: &str) -> Result<bool, RestError> {
    match object.get(name) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(RestError::bad_request(format!("{name} must be true or false"))),
    }
}

/// Milliseconds since the epoch as ISO-8601 in UTC with milliseconds: `2021-02-05T19:14:42.000Z`.
pub fn iso_timestamp(ms: i64) -> String {
    let (days, in_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (year, month, day) = civil_from_days(days);
    let (secs, millis) = (in_day / 1000, in_day % 1000);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z", secs / 3600, secs / 60 % 60, secs % 60)
}

/// Reads an ISO-8601 date-time (`2021-02-05T19:14:42Z`, with optional fraction and a `Z` or
/// `±hh:mm` offset) as milliseconds since the epoch.
pub fn parse_timestamp(text: &str) -> Option<i64> {
    let bytes = text.as_bytes();
    let number = |from: usize, len: usize| -> Option<i64> {
        let part = text.get(from..from + len)?;
        part.bytes().all(|b| b.is_ascii_digit()).then(|| part.parse().ok())?
    };
    let separators = [(4, b'-'), (7, b'-'), (13, b':'), (16, b':')];
    if bytes.len() < 20 || separators.iter().any(|&(at, c)| bytes[at] != c) || !matches!(bytes[10], b'T' | b't') {
        return None;
    }
    let (year, month, day) = (number(0, 4)?, number(5, 2)?, number(8, 2)?);
    let (hour, minute, second) = (number(11, 2)?, number(14, 2)?, number(17, 2)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut rest = &text[19..];
    let mut millis = 0;
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let padded = format!("{:0<3}", &fraction[..digits.min(3)]);
        millis = padded.parse::<i64>().ok()?;
        rest = &fraction[digits..];
    }
    let offset_minutes = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && rest.as_bytes()[3] == b':' => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let (h, m) = (rest[1..3].parse::<i64>().ok()?, rest[4..6].parse::<i64>().ok()?);
            sign * (h * 60 + m)
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    Some(((days * 24 + hour) * 60 + minute - offset_minutes) * 60_000 + second * 1000 + millis)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date of a day since 1970-01-01 (the inverse of [`days_from_civil`]).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (year_of_era + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Timestamps print and read as ISO-8601, offsets and fractions included.
    #[test]
    fn timestamps_round_trip() {
        assert_eq!(iso_timestamp(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_timestamp(1_612_552_482_000), "2021-02-05T19:14:42.000Z");
        assert_eq!(parse_timestamp("2021-02-05T19:14:42Z"), Some(1_612_552_482_000));
        assert_eq!(parse_timestamp("2021-02-05T19:14:42.5Z"), Some(1_612_552_482_500));
        assert_eq!(parse_timestamp("2021-02-05T20:14:42.123+01:00"), Some(1_612_552_482_123));
        assert_eq!(
            parse_timestamp("2024-02-29T00:00:00Z").map(iso_timestamp).as_deref(),
            Some("2024-02-29T00:00:00.000Z")
        );
        for bad in [
            "",
            "2021-02-05",
            "2021-02-05 19:14:42Z",
            "2021-13-05T19:14:42Z",
            "2021-02-05T19:14:42",
            "x021-02-05T19:14:42Z",
        ] {
            assert_eq!(parse_timestamp(bad), None, "{bad}");
        }
        for ms in [1, 999, 86_399_999, 951_782_400_000, 4_102_444_800_000] {
            assert_eq!(parse_timestamp(&iso_timestamp(ms)), Some(ms));
        }
    }
}
