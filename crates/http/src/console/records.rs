//! Reading a partition's records for the browser and the tail: Fetch from the partition's leader
//! (read uncommitted, up to the high watermark, as a consumer reads), from an offset, through the
//! batches a Fetch returns, keeping the records a [`Filter`] lets through; and showing a key,
//! value or header as text, pretty-printed JSON or hex, cut at [`VALUE_BYTES_SHOWN_MAX`].

use std::fmt::Write;

use bytes::Bytes;
use strand_protocol::messages::FetchRequest;
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use strand_protocol::records::RecordBatches;

use super::{View, ask};
use crate::gateway::RestError;
use crate::gateway::check_kafka as check;

/// The most records a page or a tail poll shows.
pub const RECORDS_SHOWN_MAX: usize = 500;

/// The most bytes of a key, value or header value shown; the rest is cut, and said so.
pub const VALUE_BYTES_SHOWN_MAX: usize = 4096;

/// The most headers of a record shown.
pub const HEADERS_SHOWN_MAX: usize = 64;

/// The most record bytes one read goes through looking for records a filter lets through.
pub const SCAN_BYTES_MAX: i32 = 16 << 20;

/// The bytes one Fetch asks for.
const FETCH_BYTES_MAX: i32 = 1 << 20;

/// The Fetch version sent: topics by name, flexible.
const FETCH_VERSION: i16 = 12;

/// One record as fetched.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub partition: i32,
    pub offset: i64,
    pub timestamp_ms: i64,
    pub key: Option<Bytes>,
    pub value: Option<Bytes>,
    pub headers: Vec<(String, Option<Bytes>)>,
}

/// Which records to keep: substrings of the key, of the value, and a header (`name` or
/// `name=value`), each compared with the bytes as text.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    pub key: Option<String>,
    pub value: Option<String>,
    pub header: Option<String>,
}

impl Filter {
    /// Whether a record with this key, value and headers is kept.
    fn keeps<'a>(
        &self,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        mut headers: impl Iterator<Item = (&'a str, Option<&'a [u8]>)>,
    ) -> bool {
        let contains =
            |data: Option<&[u8]>, wanted: &str| data.is_some_and(|d| String::from_utf8_lossy(d).contains(wanted));
        if self.key.as_deref().is_some_and(|k| !contains(key, k)) {
            return false;
        }
        if self.value.as_deref().is_some_and(|v| !contains(value, v)) {
            return false;
        }
        match self.header.as_deref() {
            None => true,
            Some(wanted) => {
                let (name, value) = match wanted.split_once('=') {
                    Some((name, value)) => (name, Some(value)),
                    None => (wanted, None),
                };
                headers.any(|(key, data)| key == name && value.is_none_or(|v| data == Some(v.as_bytes())))
            }
        }
    }
}

/// A copy of a key, value or header value to show: at most one byte more than
/// [`VALUE_BYTES_SHOWN_MAX`] (so that [`show`] knows it was cut).
fn shown_copy(data: &[u8]) -> Bytes {
    Bytes::copy_from_slice(&data[..data.len().min(VALUE_BYTES_SHOWN_MAX + 1)])
}

/// What a read found: the records kept, where the next read would start, and the partition's
/// high watermark.
#[derive(Debug, Default)]
pub struct Read {
    pub records: Vec<Fetched>,
    pub next_offset: i64,
    pub high_watermark: i64,
}

/// Reads `topic`'s `partition` from its `leader`, from `offset`, keeping up to `limit` records
/// `filter` lets through, stopping at the high watermark or after [`SCAN_BYTES_MAX`] bytes.
pub async fn read(
    view: &View,
    topic: &str,
    partition: i32,
    leader: i32,
    offset: i64,
    limit: usize,
    filter: &Filter,
) -> Result<Read, RestError> {
    let mut read = Read { next_offset: offset, ..Read::default() };
    let mut scanned: i64 = 0;
    while read.records.len() < limit && scanned < i64::from(SCAN_BYTES_MAX) {
        let request = FetchRequest {
            max_wait_ms: 0,
            min_bytes: 0,
            max_bytes: FETCH_BYTES_MAX,
            topics: vec![FetchTopic {
                topic: topic.to_owned(),
                partitions: vec![FetchPartition {
                    partition,
                    fetch_offset: read.next_offset,
                    partition_max_bytes: FETCH_BYTES_MAX,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let response = ask!(view, leader, Fetch, request, FETCH_VERSION);
        check(response.error_code, None)?;
        let data = response.responses.into_iter().flat_map(|t| t.partitions).find(|p| p.partition_index == partition);
        let data = data.ok_or_else(|| RestError::internal("the Fetch had no answer for the partition"))?;
        check(data.error_code, None)?;
        read.high_watermark = data.high_watermark;
        let bytes = data.records.as_ref().and_then(|r| r.as_bytes()).cloned().unwrap_or_default();
        if bytes.is_empty() {
            break;
        }
        scanned += bytes.len() as i64;
        let before = read.next_offset;
        collect(bytes, partition, limit, filter, &mut read)?;
        if read.next_offset <= before || read.next_offset >= read.high_watermark {
            break;
        }
    }
    Ok(read)
}

/// The records of one Fetch's record set, from `read.next_offset` on, into `read`.
fn collect(bytes: Bytes, partition: i32, limit: usize, filter: &Filter, read: &mut Read) -> Result<(), RestError> {
    let unreadable =
        |e: strand_protocol::records::RecordsError| RestError::internal(format!("unreadable records: {e}"));
    for batch in RecordBatches::new(bytes) {
        let batch = batch.map_err(unreadable)?;
        if batch.attributes().is_control() {
            read.next_offset = read.next_offset.max(batch.next_offset());
            continue;
        }
        let records = batch.records().map_err(unreadable)?;
        for record in records.iter() {
            let record = record.map_err(unreadable)?;
            let offset = batch.record_offset(&record);
            if offset < read.next_offset {
                continue;
            }
            if read.records.len() >= limit {
                return Ok(());
            }
            read.next_offset = offset + 1;
            if !filter.keeps(record.key(), record.value(), record.headers().map(|h| (h.key, h.value))) {
                continue;
            }
            read.records.push(Fetched {
                partition,
                offset,
                timestamp_ms: batch.record_timestamp(&record),
                key: record.key().map(shown_copy),
                value: record.value().map(shown_copy),
                headers: record
                    .headers()
                    .take(HEADERS_SHOWN_MAX)
                    .map(|h| (h.key.chars().take(VALUE_BYTES_SHOWN_MAX).collect(), h.value.map(shown_copy)))
                    .collect(),
            });
        }
        read.next_offset = read.next_offset.max(batch.next_offset());
    }
    Ok(())
}

/// How the browser shows keys, values and headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// UTF-8 text (invalid bytes replaced).
    Text,
    /// Pretty-printed JSON when the bytes are JSON, else text.
    Json,
    /// Hex, sixteen bytes a line.
    Hex,
}

impl Format {
    pub fn parse(name: Option<&str>) -> Format {
        match name {
            Some("json") => Format::Json,
            Some("hex") => Format::Hex,
            _ => Format::Text,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Hex => "hex",
        }
    }
}

/// `data` shown in `format` (not yet HTML-escaped) and whether it was cut; `None` for null.
pub fn show(data: Option<&[u8]>, format: Format) -> Option<(String, bool)> {
    let data = data?;
    let cut = data.len() > VALUE_BYTES_SHOWN_MAX;
    let shown = &data[..data.len().min(VALUE_BYTES_SHOWN_MAX)];
    let text = match format {
        Format::Hex => hex(shown),
        Format::Json if !cut => match serde_json::from_slice::<serde::de::IgnoredAny>(shown) {
            Ok(_) => pretty_json(&lossy(shown)),
            Err(_) => lossy(shown),
        },
        Format::Json | Format::Text => lossy(shown),
    };
    Some((text, cut))
}

/// Valid JSON text laid out two spaces an indent, a member or element a line, keeping the
/// text's own order of members and spelling of numbers and strings (a parsed and printed value
/// would sort the members and round big numbers).
fn pretty_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.extend(std::iter::repeat_n("  ", depth));
    };
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                // An empty object or array stays on its line.
                while chars.peek().is_some_and(|n| n.is_whitespace()) {
                    chars.next();
                }
                if chars.peek().is_some_and(|n| matches!(n, '}' | ']')) {
                    continue;
                }
                depth += 1;
                newline(&mut out, depth);
            }
            '}' | ']' => {
                if !out.ends_with(['{', '[']) {
                    depth = depth.saturating_sub(1);
                    newline(&mut out, depth);
                }
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

/// Bytes as text: invalid UTF-8 replaced.
pub fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Bytes as hex pairs, sixteen a line.
fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 3);
    for (i, byte) in bytes.iter().enumerate() {
        if i > 0 {
            out.push(if i % 16 == 0 { '\n' } else { ' ' });
        }
        let _ = write!(out, "{byte:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(key: &str, value: &str, headers: &[(&str, &str)]) -> Fetched {
        Fetched {
            partition: 0,
            offset: 0,
            timestamp_ms: 0,
            key: Some(Bytes::from(key.to_owned())),
            value: Some(Bytes::from(value.to_owned())),
            headers: headers.iter().map(|(k, v)| ((*k).to_owned(), Some(Bytes::from((*v).to_owned())))).collect(),
        }
    }

    /// Each filter keeps what it names and nothing else.
    #[test]
    fn filters_keep_what_they_name() {
        let r = record("user-42", "{\"total\": 7}", &[("trace", "abc")]);
        let keeps = |key: Option<&str>, value: Option<&str>, header: Option<&str>| {
            let filter = Filter {
                key: key.map(str::to_owned),
                value: value.map(str::to_owned),
                header: header.map(str::to_owned),
            };
            filter.keeps(
                r.key.as_deref(),
                r.value.as_deref(),
                r.headers.iter().map(|(k, v)| (k.as_str(), v.as_deref())),
            )
        };
        assert!(keeps(None, None, None));
        assert!(keeps(Some("42"), None, None));
        assert!(!keeps(Some("43"), None, None));
        assert!(keeps(None, Some("total"), None));
        assert!(!keeps(None, Some("sum"), None));
        assert!(keeps(None, None, Some("trace")));
        assert!(keeps(None, None, Some("trace=abc")));
        assert!(!keeps(None, None, Some("trace=abd")));
        assert!(!keeps(None, None, Some("span")));
        assert!(!keeps(Some("42"), Some("sum"), None));
    }

    /// Text, JSON and hex, and a long value cut.
    #[test]
    fn values_show_in_each_format() {
        assert_eq!(show(None, Format::Text), None);
        assert_eq!(
            show(Some(b"{\"a\":[1,2]}"), Format::Json),
            Some(("{\n  \"a\": [\n    1,\n    2\n  ]\n}".into(), false))
        );
        assert_eq!(show(Some(b"not json"), Format::Json), Some(("not json".into(), false)));
        let kept = show(
            Some(br#"{"z": 12345678901234567890123, "a": {}, "s": "x,{\"y\": [1]}", "l": [[], [1, 2]]}"#),
            Format::Json,
        );
        let expected = "{\n  \"z\": 12345678901234567890123,\n  \"a\": {},\n  \"s\": \"x,{\\\"y\\\": [1]}\",\n  \"l\": [\n    [],\n    [\n      1,\n      2\n    ]\n  ]\n}";
        assert_eq!(kept, Some((expected.into(), false)), "members in their order, numbers and strings as written");
        assert_eq!(show(Some(b"\x00\xffA"), Format::Hex), Some(("00 ff 41".into(), false)));
        let long = vec![b'x'; VALUE_BYTES_SHOWN_MAX + 10];
        let (text, cut) = show(Some(&long), Format::Text).expect("shown");
        assert!(cut);
        assert_eq!(text.len(), VALUE_BYTES_SHOWN_MAX);
        assert_eq!(hex(&[0u8; 17]).lines().count(), 2);
    }
}
