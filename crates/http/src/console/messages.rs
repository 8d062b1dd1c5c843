//! The message browser (`/topics/{topic}/messages`): one partition read from an offset, from a
//! timestamp (ListOffsets by time) or its newest N records, filtered by key, value or header and
//! shown as text, JSON or hex; a produce form (`POST /topics/{topic}/produce`: one record with
//! key, value, headers and partition, acks=all, to the partition's leader); and the live tail's
//! JSON (`/topics/{topic}/tail`), which the page's script polls.

use std::collections::BTreeMap;
use std::fmt::Write;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery};
use axum::http::StatusCode;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use strand_protocol::messages::ProduceRequest;
use strand_protocol::messages::metadata_response::MetadataResponseTopic;
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::records::{Header, NewRecord, RecordBatchBuilder};

use super::form::Params;
use super::html::{Part, Text, page, see_other, table};
use super::records::{Fetched, Filter, Format, RECORDS_SHOWN_MAX, VALUE_BYTES_SHOWN_MAX, lossy, read, show};
use super::topics::{EARLIEST, LATEST, form_params, offsets, one_topic};
use super::{Failed, View, ask};
use crate::gateway::{RestError, check_kafka as check, iso_timestamp, parse_timestamp};

const SECTION: &str = "/topics";

/// Records a page shows unless asked for another number.
const RECORDS_SHOWN_DEFAULT: usize = 50;

/// The most records one tail poll returns.
pub const TAIL_RECORDS_MAX: usize = 100;

/// How long a produce may wait for its replicas (Kafka's `request.timeout.ms` default).
const PRODUCE_TIMEOUT_MS: i32 = 30_000;

/// Where a browse starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    Newest(usize),
    Offset(i64),
    Timestamp(i64),
}

/// A browse request, read from the query.
struct Browse {
    partition: i32,
    start: Start,
    limit: usize,
    filter: Filter,
    format: Format,
}

fn browse_params(params: &Params, topic: &MetadataResponseTopic) -> Result<Browse, String> {
    let partition = params.int("partition")?.unwrap_or(0);
    let partition = i32::try_from(partition).ok().filter(|p| topic.partitions.iter().any(|q| q.partition_index == *p));
    let partition = partition.ok_or_else(|| "no such partition".to_owned())?;
    let limit = params.int("limit")?.map_or(RECORDS_SHOWN_DEFAULT, |n| n.clamp(1, RECORDS_SHOWN_MAX as i64) as usize);
    let offset = params.int("offset")?;
    let time = params.trimmed("timestamp");
    let implied = if offset.is_some() {
        "offset"
    } else if time.is_some() {
        "timestamp"
    } else {
        "newest"
    };
    let start = match params.get("from").unwrap_or(implied) {
        "offset" => Start::Offset(offset.ok_or("give an offset to start from")?.max(0)),
        "timestamp" => {
            let time = time.ok_or("give a time to start from")?;
            Start::Timestamp(parse_time(time).ok_or_else(|| format!("'{time}' is not a date and time"))?)
        }
        _ => Start::Newest(limit),
    };
    let filter = Filter {
        key: params.get("key").map(str::to_owned),
        value: params.get("value").map(str::to_owned),
        header: params.trimmed("header").map(str::to_owned),
    };
    Ok(Browse { partition, start, limit, filter, format: Format::parse(params.get("format")) })
}

/// A date and time as the browser's inputs write it (`2026-12-04T16:40`, seconds and a fraction
/// optional), in UTC unless it names a zone (`Z`, `+01:00`); or milliseconds since the epoch.
pub fn parse_time(text: &str) -> Option<i64> {
    let text = text.trim();
    if let Ok(ms) = text.parse::<i64>() {
        return Some(ms);
    }
    let mut time = text.replace(' ', "T");
    if time.len() == 16 {
        time.push_str(":00");
    }
    let zoned = time.get(19..).is_some_and(|rest| rest.ends_with(['Z', 'z']) || rest.contains(['+', '-']));
    if !zoned {
        time.push('Z');
    }
    parse_timestamp(&time)
}

/// `GET /topics/{topic}/messages`.
pub async fn browse(view: View, Path(name): Path<String>, RawQuery(query): RawQuery) -> Result<Response, Failed> {
    let params = Params::parse(query.as_deref().unwrap_or_default());
    let topic = one_topic(&view, &name).await.map_err(Failed::in_section(SECTION))?;
    let browse = browse_params(&params, &topic).map_err(|e| Failed::bad(SECTION, e))?;
    let mut body = format!(
        "<p class=\"facts\"><a href=\"/topics/{}\">Partitions and configs of {}</a></p>\n",
        Part(&name),
        Text(&name)
    );
    if let Some(offset) = params.int("produced").ok().flatten() {
        let _ = writeln!(
            body,
            "<p class=\"notice\" id=\"produced\">Produced at offset {offset} of partition {}.</p>",
            browse.partition
        );
    }
    body.push_str(&browse_form(&name, &topic, &browse, &params));
    let leader = topic.partitions.iter().find(|p| p.partition_index == browse.partition).map_or(-1, |p| p.leader_id.0);
    let found = records(&view, &name, &topic, &browse, leader).await;
    match found {
        Ok((records, start, next, high_watermark)) => {
            let _ = writeln!(
                body,
                "<p class=\"facts\" id=\"range\">Partition {} · from offset {start} · high watermark {high_watermark} · {} record(s) shown</p>",
                browse.partition,
                records.len()
            );
            body.push_str(&records_table(&records, browse.format));
            if next < high_watermark && !matches!(browse.start, Start::Newest(_)) {
                let mut more = params.query_without(&["from", "offset", "timestamp", "produced"]);
                let _ = write!(more, "&from=offset&offset={next}");
                let _ = writeln!(
                    body,
                    "<p><a id=\"next-page\" href=\"/topics/{}/messages?{more}\">Next records from offset {next}</a></p>",
                    Part(&name)
                );
            }
        }
        Err(e) => {
            let _ = writeln!(body, "<p class=\"error\" role=\"alert\">{}</p>", Text(&e.message));
        }
    }
    body.push_str(&produce_form(&name, &topic));
    let _ = write!(
        body,
        "<h2>Live tail</h2>\n<section id=\"tail\" data-topic=\"{}\" data-max-rows=\"200\">\
         <p><button type=\"button\" id=\"tail-toggle\">Start</button> <span id=\"tail-status\" class=\"none\">stopped</span></p>\
         {}</section>\n",
        Text(&name),
        table("records tail", &["Partition", "Offset", "Timestamp", "Key", "Value", "Headers"], &[]),
    );
    Ok(page(StatusCode::OK, SECTION, &format!("Messages of {name}"), &body))
}

/// The records a browse finds: them, the offset read from, the next offset, the high watermark.
async fn records(
    view: &View,
    name: &str,
    topic: &MetadataResponseTopic,
    browse: &Browse,
    leader: i32,
) -> Result<(Vec<Fetched>, i64, i64, i64), RestError> {
    if leader < 0 {
        return Err(RestError::internal(format!("Partition {} has no leader", browse.partition)));
    }
    let partition: Vec<_> =
        topic.partitions.iter().filter(|p| p.partition_index == browse.partition).cloned().collect();
    let offset_at = |answer: BTreeMap<i32, Result<i64, String>>| -> Result<i64, RestError> {
        match answer.into_values().next() {
            Some(Ok(offset)) => Ok(offset),
            Some(Err(e)) => Err(RestError::internal(e)),
            None => Err(RestError::internal("no offset answer")),
        }
    };
    let start = match browse.start {
        Start::Offset(offset) => offset,
        Start::Newest(n) => {
            let earliest = offset_at(offsets(view, name, &partition, EARLIEST).await)?;
            let latest = offset_at(offsets(view, name, &partition, LATEST).await)?;
            (latest - n as i64).max(earliest)
        }
        Start::Timestamp(ms) => match offset_at(offsets(view, name, &partition, ms).await)? {
            -1 => offset_at(offsets(view, name, &partition, LATEST).await)?,
            offset => offset,
        },
    };
    let found = read(view, name, browse.partition, leader, start, browse.limit, &browse.filter).await?;
    Ok((found.records, start, found.next_offset, found.high_watermark))
}

fn browse_form(name: &str, topic: &MetadataResponseTopic, browse: &Browse, params: &Params) -> String {
    let mut out =
        format!("<form method=\"get\" action=\"/topics/{}/messages\" class=\"grid\" id=\"browse\">", Part(name));
    out.push_str("<label>Partition <select name=\"partition\">");
    for p in &topic.partitions {
        let i = p.partition_index;
        let selected = if i == browse.partition { " selected" } else { "" };
        let _ = write!(out, "<option value=\"{i}\"{selected}>{i}</option>");
    }
    out.push_str("</select></label><label>Start <select name=\"from\">");
    let mode = match browse.start {
        Start::Newest(_) => "newest",
        Start::Offset(_) => "offset",
        Start::Timestamp(_) => "timestamp",
    };
    for (value, label) in [("newest", "the newest records"), ("offset", "an offset"), ("timestamp", "a time (UTC)")] {
        let selected = if value == mode { " selected" } else { "" };
        let _ = write!(out, "<option value=\"{value}\"{selected}>{label}</option>");
    }
    let field = |field: &str| Text(params.get(field).unwrap_or_default()).to_string();
    let _ = write!(
        out,
        "</select></label>\
         <label>Offset <input name=\"offset\" type=\"number\" min=\"0\" value=\"{}\"></label>\
         <label>Time (UTC) <input name=\"timestamp\" type=\"datetime-local\" step=\"1\" value=\"{}\"></label>\
         <label>Records <input name=\"limit\" type=\"number\" min=\"1\" max=\"{RECORDS_SHOWN_MAX}\" value=\"{}\"></label>\
         <label>Key contains <input name=\"key\" value=\"{}\"></label>\
         <label>Value contains <input name=\"value\" value=\"{}\"></label>\
         <label>Header <input name=\"header\" placeholder=\"name or name=value\" value=\"{}\"></label>\
         <label>Show as <select name=\"format\">",
        field("offset"),
        field("timestamp"),
        browse.limit,
        field("key"),
        field("value"),
        field("header"),
    );
    for format in [Format::Text, Format::Json, Format::Hex] {
        let selected = if format == browse.format { " selected" } else { "" };
        let _ = write!(out, "<option value=\"{0}\"{selected}>{0}</option>", format.name());
    }
    out.push_str("</select></label><button type=\"submit\">Browse</button></form>\n");
    out
}

/// A cell for a key, value or header value.
fn cell(data: Option<&[u8]>, format: Format) -> String {
    match show(data, format) {
        None => "<span class=\"none\">null</span>".to_owned(),
        Some((text, cut)) => {
            let more = if cut {
                format!("<span class=\"cut\">… (first {VALUE_BYTES_SHOWN_MAX} bytes)</span>")
            } else {
                String::new()
            };
            format!("<pre>{}</pre>{more}", Text(&text))
        }
    }
}

fn records_table(records: &[Fetched], format: Format) -> String {
    let rows: Vec<Vec<String>> = records
        .iter()
        .map(|r| {
            let headers: Vec<String> = r
                .headers
                .iter()
                .map(|(key, value)| {
                    format!("<div class=\"header\"><b>{}</b>{}</div>", Text(key), cell(value.as_deref(), format))
                })
                .collect();
            vec![
                r.partition.to_string(),
                r.offset.to_string(),
                iso_timestamp(r.timestamp_ms),
                cell(r.key.as_deref(), format),
                cell(r.value.as_deref(), format),
                headers.join(""),
            ]
        })
        .collect();
    table("records", &["Partition", "Offset", "Timestamp", "Key", "Value", "Headers"], &rows)
}

fn produce_form(name: &str, topic: &MetadataResponseTopic) -> String {
    let mut out = format!(
        "<h2>Produce a record</h2>\n<form method=\"post\" action=\"/topics/{}/produce\" class=\"grid\" id=\"produce\">\
         <label>Partition <select name=\"partition\"><option value=\"\">by key (or any)</option>",
        Part(name)
    );
    for p in &topic.partitions {
        let _ = write!(out, "<option value=\"{0}\">{0}</option>", p.partition_index);
    }
    out.push_str(
        "</select></label><label>Key <input name=\"key\"></label>\
         <label class=\"wide\">Value <textarea name=\"value\" rows=\"3\"></textarea></label>\
         <label class=\"wide\"><span>Headers, one <code>name: value</code> a line</span><textarea name=\"headers\" rows=\"2\"></textarea></label>\
         <button type=\"submit\">Produce</button></form>\n",
    );
    out
}

/// `POST /topics/{topic}/produce` with `partition`, `key`, `value`, `headers` (`name: value`
/// lines): one record, acks=all, then the browser at its offset.
pub async fn produce(view: View, Path(name): Path<String>, body: Bytes) -> Result<Response, Failed> {
    let params = form_params(&body)?;
    let topic = one_topic(&view, &name).await.map_err(Failed::in_section(SECTION))?;
    let key = params.get("key").map(str::as_bytes);
    let partition = match params.int("partition").map_err(|e| Failed::bad(SECTION, e))? {
        Some(p) => i32::try_from(p).ok().filter(|p| topic.partitions.iter().any(|q| q.partition_index == *p)),
        None => pick_partition(&view, &topic, key),
    };
    let partition = partition.ok_or_else(|| Failed::bad(SECTION, "No such partition"))?;
    let mut headers = Vec::new();
    for line in params.get("headers").unwrap_or_default().lines().filter(|l| !l.trim().is_empty()) {
        let (header, value) =
            line.split_once(':').ok_or_else(|| Failed::bad(SECTION, format!("'{line}' is not name: value")))?;
        headers.push((header.trim().to_owned(), value.trim().as_bytes().to_vec()));
    }
    let leader = topic.partitions.iter().find(|p| p.partition_index == partition).map_or(-1, |p| p.leader_id.0);
    let value = params.get("value").unwrap_or_default().as_bytes().to_vec();
    let offset =
        append(&view, &name, partition, leader, key, &value, &headers).await.map_err(Failed::in_section(SECTION))?;
    Ok(see_other(format!(
        "/topics/{}/messages?partition={partition}&from=offset&offset={offset}&produced={offset}",
        Part(&name)
    )))
}

/// Where a record without a partition goes: its key's partition as Kafka's default partitioner
/// (murmur2) picks it, else the first partition this node leads, else the first.
fn pick_partition(view: &View, topic: &MetadataResponseTopic, key: Option<&[u8]>) -> Option<i32> {
    let count = topic.partitions.len();
    if count == 0 {
        return None;
    }
    if let Some(key) = key {
        let index = (strand_client::producer::murmur2(key) & 0x7fff_ffff) as usize % count;
        return topic.partitions.get(index).map(|p| p.partition_index);
    }
    let led = topic.partitions.iter().find(|p| p.leader_id.0 == view.node_id());
    led.or(topic.partitions.first()).map(|p| p.partition_index)
}

/// Appends one record to the partition's leader (acks=all); its offset.
async fn append(
    view: &View,
    topic: &str,
    partition: i32,
    leader: i32,
    key: Option<&[u8]>,
    value: &[u8],
    headers: &[(String, Vec<u8>)],
) -> Result<i64, RestError> {
    if leader < 0 {
        return Err(RestError::internal(format!("Partition {partition} has no leader")));
    }
    let headers: Vec<Header<'_>> = headers.iter().map(|(key, value)| Header { key, value: Some(value) }).collect();
    let mut builder = RecordBatchBuilder::new();
    let record = NewRecord { timestamp_ms: view.now_ms(), key, value: Some(value), headers: &headers };
    let bad = |e: strand_protocol::records::RecordsError| RestError::bad_request(e.to_string());
    builder.append(&record).map_err(bad)?;
    let records = builder.build().map_err(bad)?;
    let request = ProduceRequest {
        acks: -1,
        timeout_ms: PRODUCE_TIMEOUT_MS,
        topic_data: vec![TopicProduceData {
            name: topic.to_owned(),
            partition_data: vec![PartitionProduceData {
                index: partition,
                records: Some(records),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let answer = ask!(view, leader, Produce, request, 11);
    let result = answer.responses.into_iter().flat_map(|t| t.partition_responses).next();
    let result = result.ok_or_else(|| RestError::internal("the Produce had no answer"))?;
    check(result.error_code, result.error_message.as_deref())?;
    Ok(result.base_offset)
}

/// `GET /topics/{topic}/tail?from=P:O,P:O`: the records from those offsets (at most
/// [`TAIL_RECORDS_MAX`]) and the offsets to ask from next. Without `from`, no records and the
/// partitions' latest offsets: the tail starts at the end.
pub async fn tail(view: View, Path(name): Path<String>, RawQuery(query): RawQuery) -> Response {
    match tail_json(&view, &name, query.as_deref().unwrap_or_default()).await {
        Ok(body) => {
            ([(CONTENT_TYPE, "application/json"), (CACHE_CONTROL, "no-store")], body.to_string()).into_response()
        }
        Err(e) => e.into_response(),
    }
}

async fn tail_json(view: &View, name: &str, query: &str) -> Result<Value, RestError> {
    let topic = one_topic(view, name).await?;
    let params = Params::parse(query);
    let mut from: BTreeMap<i32, i64> = BTreeMap::new();
    match params.get("from") {
        None => {
            for (partition, offset) in offsets(view, name, &topic.partitions, LATEST).await {
                from.insert(partition, offset.map_err(RestError::internal)?);
            }
        }
        Some(text) => {
            for pair in text.split(',').filter(|p| !p.is_empty()) {
                let parsed =
                    pair.split_once(':').and_then(|(p, o)| Some((p.parse::<i32>().ok()?, o.parse::<i64>().ok()?)));
                let (partition, offset) =
                    parsed.ok_or_else(|| RestError::bad_request(format!("'{pair}' is not partition:offset")))?;
                if topic.partitions.iter().any(|p| p.partition_index == partition) {
                    from.insert(partition, offset.max(0));
                }
            }
        }
    }
    let mut records = Vec::new();
    if params.get("from").is_some() {
        for p in &topic.partitions {
            let Some(offset) = from.get(&p.partition_index).copied() else { continue };
            if records.len() >= TAIL_RECORDS_MAX || p.leader_id.0 < 0 {
                continue;
            }
            let found = read(
                view,
                name,
                p.partition_index,
                p.leader_id.0,
                offset,
                TAIL_RECORDS_MAX - records.len(),
                &Filter::default(),
            )
            .await?;
            from.insert(p.partition_index, found.next_offset);
            records.extend(found.records.iter().map(record_json));
        }
    }
    let next: Vec<String> = from.iter().map(|(p, o)| format!("{p}:{o}")).collect();
    Ok(json!({ "from": next.join(","), "records": records }))
}

/// A record for the tail: key, value and header values as text, cut at
/// [`VALUE_BYTES_SHOWN_MAX`] bytes.
fn record_json(record: &Fetched) -> Value {
    let text = |data: Option<&[u8]>| data.map(|d| lossy(&d[..d.len().min(VALUE_BYTES_SHOWN_MAX)]));
    let headers: Vec<Value> = record.headers.iter().map(|(key, value)| json!([key, text(value.as_deref())])).collect();
    json!({
        "partition": record.partition,
        "offset": record.offset,
        "timestamp": iso_timestamp(record.timestamp_ms),
        "key": text(record.key.as_deref()),
        "value": text(record.value.as_deref()),
        "headers": headers,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The browser's date-time inputs are read as UTC unless they name a zone.
    #[test]
    fn times_read_as_browsers_write_them() {
        assert_eq!(parse_time("2021-02-05T19:14"), Some(1_612_552_440_000));
        assert_eq!(parse_time("2021-02-05T19:14:42"), Some(1_612_552_482_000));
        assert_eq!(parse_time("2021-02-05 19:14:42.5"), Some(1_612_552_482_500));
        assert_eq!(parse_time("2021-02-05T20:14:42+01:00"), Some(1_612_552_482_000));
        assert_eq!(parse_time("1612552482000"), Some(1_612_552_482_000));
        assert_eq!(parse_time("yesterday"), None);
    }
}
