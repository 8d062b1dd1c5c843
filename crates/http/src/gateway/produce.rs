//! `POST /v3/clusters/{cluster_id}/topics/{topic_name}/records`: Confluent's v3 produce. The body
//! is one record or several concatenated (`{...}{...}`), sent at once or streamed
//! (`Transfer-Encoding: chunked`) for as long as the connection stays open; the answer is one
//! delivery report per record, in order, each with its own `error_code` (200 for success), with
//! HTTP 200 once the topic is known. Keys and values are `BINARY` (base64), `JSON` (its text)
//! or `STRING`; a record may name its partition, headers (base64 values) and timestamp.
//!
//! Records already read when a batch goes out go together: one magic-2 batch per partition in
//! one Produce request (`acks=all`) to the node's own handlers, as a producer's batch would, and,
//! as a connection pipelines, the next batch is appended while earlier ones wait for their
//! replicas. Without a partition, a keyed record goes where Kafka's default partitioner sends its
//! key (murmur2), the others stick to one partition per request, round-robin over the partitions
//! this node leads (the gateway writes through this node's handlers: a keyed or numbered record
//! whose partition another node leads gets Kafka's NOT_LEADER_OR_FOLLOWER, 500/50003, until the
//! gateway forwards). Memory is bounded: a record's JSON by [`RECORD_JSON_BYTES_MAX`], a Produce
//! by [`BATCH_RECORDS_MAX`] records, those waiting for replicas by [`PRODUCES_IN_FLIGHT_MAX`],
//! and reports waiting for a slow reader by [`REPORT_BYTES_QUEUED_MAX`] (then the gateway stops
//! reading records).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Semaphore;

use axum::body::{Body, Bytes};
use axum::extract::Path;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use futures::stream::FuturesOrdered;
use futures::{FutureExt, Stream, StreamExt};
use serde_json::{Map, Value, json};
use strand_broker::BoxFuture;
use strand_protocol::messages::ProduceRequest;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::records::{Header, NewRecord, RecordBatchBuilder};

use super::json::{check_json_type, iso_timestamp, parse_timestamp};
use super::topics::one_topic;
use super::{Ctx, RestError};

/// The most bytes one record's JSON may take (Kafka's default `message.max.bytes` is 1 MiB; a
/// base64 value is a third larger).
pub const RECORD_JSON_BYTES_MAX: usize = 4 * 1024 * 1024;

/// The most records one Produce request made from a body holds.
pub const BATCH_RECORDS_MAX: usize = 500;

/// The most bytes of delivery reports (about 200 bytes each) waiting for the client to read them
/// before the gateway stops reading its records: a client that sends a whole body before reading
/// the answer (most do) gets about 150,000 records through; a streaming client reads as it sends.
pub const REPORT_BYTES_QUEUED_MAX: usize = 32 << 20;

/// The most Produce requests of one HTTP request waiting for their replicas at once.
pub const PRODUCES_IN_FLIGHT_MAX: usize = 4;

/// How long a Produce may wait for its replicas (Kafka's `request.timeout.ms` default).
const PRODUCE_TIMEOUT_MS: i32 = 30_000;

/// The Produce version sent: topics by name, KIP-951 leader hints.
const PRODUCE_VERSION: i16 = 11;

/// A record read from the body, ready to append.
struct Prepared {
    partition: Option<i32>,
    key: Option<(Vec<u8>, &'static str)>,
    value: Option<(Vec<u8>, &'static str)>,
    headers: Vec<(String, Option<Vec<u8>>)>,
    timestamp_ms: i64,
}

/// The `type` names Strand's gateway takes (no Schema Registry types).
fn data_type(name: &str) -> Option<&'static str> {
    match name.to_ascii_uppercase().as_str() {
        "BINARY" => Some("BINARY"),
        "JSON" => Some("JSON"),
        "STRING" => Some("STRING"),
        _ => None,
    }
}

/// A key or value: `{"type": ..., "data": ...}` as bytes and its type; `None` for no data.
fn record_data(field: Option<&Value>, name: &str) -> Result<Option<(Vec<u8>, &'static str)>, RestError> {
    let object = match field {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(object)) => object,
        Some(_) => return Err(RestError::bad_request(format!("Bad Request: {name} must be an object"))),
    };
    let Some(kind) = object.get("type").and_then(Value::as_str).and_then(data_type) else {
        return Err(RestError::bad_request(format!(
            "Bad Request: {name}.type must be BINARY, JSON or STRING (Schema Registry formats are not supported)"
        )));
    };
    let bytes = match (kind, object.get("data")) {
        (_, None) => return Ok(None),
        (_, Some(Value::Null)) if kind != "JSON" => return Ok(None),
        ("BINARY", Some(Value::String(text))) => STANDARD
            .decode(text)
            .map_err(|_| RestError::bad_request(format!("Bad Request: data={text} is not a base64 string.")))?,
        ("BINARY", Some(other)) => {
            return Err(RestError::bad_request(format!("Bad Request: data={other} is not a base64 string.")));
        }
        ("STRING", Some(Value::String(text))) => text.as_bytes().to_vec(),
        ("STRING", Some(other)) => {
            return Err(RestError::bad_request(format!("Bad Request: data={other} is not a string.")));
        }
        (_, Some(data)) => serde_json::to_vec(data).map_err(|e| RestError::bad_request(e.to_string()))?,
    };
    Ok(Some((bytes, kind)))
}

/// One record of the body, checked.
fn prepare(record: &Map<String, Value>, now_ms: i64, partitions: &[i32]) -> Result<Prepared, RestError> {
    let partition = match record.get("partition_id") {
        None | Some(Value::Null) => None,
        Some(value) => {
            let id = value.as_i64().and_then(|v| i32::try_from(v).ok());
            let id = id.ok_or_else(|| RestError::bad_request("Bad Request: partition_id must be an integer"))?;
            if !partitions.contains(&id) {
                return Err(RestError::kafka(3, None).unwrap_or_else(|| RestError::internal("no partition")));
            }
            Some(id)
        }
    };
    let mut headers = Vec::new();
    if let Some(list) = record.get("headers").filter(|h| !h.is_null()) {
        let list = list.as_array().ok_or_else(|| RestError::bad_request("Bad Request: headers must be an array"))?;
        for header in list {
            let name = header.get("name").and_then(Value::as_str);
            let name = name.ok_or_else(|| RestError::bad_request("Bad Request: each header needs a name"))?;
            let value = match header.get("value") {
                None | Some(Value::Null) => None,
                Some(Value::String(text)) => Some(STANDARD.decode(text).map_err(|_| {
                    RestError::bad_request(format!("Bad Request: header {name}'s value {text} is not a base64 string."))
                })?),
                Some(_) => return Err(RestError::bad_request("Bad Request: a header's value must be a base64 string")),
            };
            headers.push((name.to_owned(), value));
        }
    }
    let timestamp_ms = match record.get("timestamp") {
        None | Some(Value::Null) => now_ms,
        Some(Value::String(text)) => parse_timestamp(text).ok_or_else(|| {
            RestError::bad_request(format!("Bad Request: timestamp {text} is not an ISO-8601 date-time"))
        })?,
        Some(_) => return Err(RestError::bad_request("Bad Request: timestamp must be an ISO-8601 string")),
    };
    Ok(Prepared {
        partition,
        key: record_data(record.get("key"), "key")?,
        value: record_data(record.get("value"), "value")?,
        headers,
        timestamp_ms,
    })
}

/// Reads concatenated JSON values from a body as they arrive.
struct RecordReader<S> {
    chunks: S,
    buffer: Vec<u8>,
    done: bool,
}

impl<S, E> RecordReader<S>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: std::fmt::Display,
{
    /// The next value; `None` at the end of the body. An error ends the reading.
    async fn next(&mut self) -> Option<Result<Value, RestError>> {
        loop {
            if self.done {
                return None;
            }
            let start = self.buffer.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(self.buffer.len());
            self.buffer.drain(..start);
            if !self.buffer.is_empty() {
                let mut values = serde_json::Deserializer::from_slice(&self.buffer).into_iter::<Value>();
                match values.next() {
                    Some(Ok(value)) => {
                        let used = values.byte_offset();
                        self.buffer.drain(..used);
                        return Some(Ok(value));
                    }
                    Some(Err(e)) if !e.is_eof() => {
                        self.done = true;
                        return Some(Err(RestError::bad_request(format!("Cannot read a record as JSON: {e}"))));
                    }
                    _ => {}
                }
            }
            if self.buffer.len() > RECORD_JSON_BYTES_MAX {
                self.done = true;
                return Some(Err(RestError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    413,
                    format!("A record's JSON is over {RECORD_JSON_BYTES_MAX} bytes"),
                )));
            }
            match self.chunks.next().await {
                Some(Ok(chunk)) => self.buffer.extend_from_slice(&chunk),
                Some(Err(e)) => {
                    self.done = true;
                    return Some(Err(RestError::bad_request(format!("The request body broke off: {e}"))));
                }
                None => {
                    self.done = true;
                    if self.buffer.is_empty() {
                        return None;
                    }
                    return Some(Err(RestError::bad_request("The request body ends inside a record's JSON")));
                }
            }
        }
    }
}

/// The topic's partitions and where key-less records go next.
struct Target {
    topic: String,
    partitions: Vec<i32>,
    /// The partitions key-less records go to, in turn: those led by this node (all, if none).
    led: Vec<i32>,
    sticky: AtomicUsize,
}

/// `POST /v3/clusters/{cluster_id}/topics/{topic_name}/records`.
pub async fn produce(
    ctx: Ctx,
    Path((cluster, topic)): Path<(String, String)>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    check_json_type(&headers)?;
    let described = one_topic(&ctx, &topic).await?;
    let mut partitions: Vec<i32> = described.partitions.iter().map(|p| p.partition_index).collect();
    partitions.sort_unstable();
    // Key-less records stick to partitions this node leads, when it leads any: the gateway
    // writes through this node's handlers.
    let node = ctx.node_id();
    let mut led: Vec<i32> =
        described.partitions.iter().filter(|p| p.leader_id.0 == node).map(|p| p.partition_index).collect();
    led.sort_unstable();
    if led.is_empty() {
        led.clone_from(&partitions);
    }
    let mut reader = RecordReader { chunks: body.into_data_stream(), buffer: Vec::new(), done: false };
    let first = match reader.next().await {
        None => {
            return Err(RestError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                422,
                "Payload error. Request body is empty. Data is required.",
            ));
        }
        Some(Err(e)) => return Err(e),
        Some(Ok(first)) => first,
    };
    let (sender, receiver) = tokio::sync::mpsc::unbounded_channel::<Bytes>();
    let queued = Arc::new(Semaphore::new(REPORT_BYTES_QUEUED_MAX));
    let reports = Reports { sender, queued: queued.clone() };
    let target = Arc::new(Target { topic, partitions, led, sticky: AtomicUsize::new(0) });
    tokio::spawn(produce_all(ctx, target, reader, first, reports));
    let queue = ReportQueue { receiver, queued };
    let stream = futures::stream::unfold(queue, |mut queue| async move {
        let bytes = queue.receiver.recv().await?;
        queue.queued.add_permits(bytes.len().min(REPORT_BYTES_QUEUED_MAX));
        Some((Ok::<_, std::convert::Infallible>(bytes), queue))
    });
    Ok(([(CONTENT_TYPE, "application/json")], Body::from_stream(stream)).into_response())
}

/// The answer's end of the reports: dropped with the answer (the client gone), it closes the
/// queue, so a producing task waiting for room stops.
struct ReportQueue {
    receiver: tokio::sync::mpsc::UnboundedReceiver<Bytes>,
    queued: Arc<Semaphore>,
}

impl Drop for ReportQueue {
    fn drop(&mut self) {
        self.queued.close();
    }
}

/// Where delivery reports go: the answer's body, at most [`REPORT_BYTES_QUEUED_MAX`] bytes
/// ahead of the client.
struct Reports {
    sender: tokio::sync::mpsc::UnboundedSender<Bytes>,
    /// Permits for the bytes not queued; the answer's body gives them back as it sends.
    queued: Arc<Semaphore>,
}

impl Reports {
    /// Queues `text`, waiting while too much is queued; false once the client is gone.
    async fn send(&self, text: Bytes) -> bool {
        let wanted = u32::try_from(text.len().min(REPORT_BYTES_QUEUED_MAX)).unwrap_or(u32::MAX);
        match self.queued.acquire_many(wanted).await {
            Ok(permits) => permits.forget(),
            Err(_) => return false,
        }
        self.sender.send(text).is_ok()
    }
}

/// Produces the body's records in batches of those already read, sending their reports in order,
/// until the body ends, a record cannot be read, or the client stops listening. Like a
/// connection, it pipelines: a batch is appended before the next is read, and up to
/// [`PRODUCES_IN_FLIGHT_MAX`] wait for their replicas at once.
async fn produce_all<S, E>(ctx: Ctx, target: Arc<Target>, mut reader: RecordReader<S>, first: Value, reports: Reports)
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: std::fmt::Display,
{
    let mut in_flight = FuturesOrdered::new();
    let mut next = Some(Ok(first));
    let mut ended = false;
    loop {
        if let Some(record) = next.take() {
            let mut batch = vec![record];
            while batch.len() < BATCH_RECORDS_MAX {
                match reader.next().now_or_never() {
                    Some(Some(record)) => batch.push(record),
                    Some(None) => {
                        ended = true;
                        break;
                    }
                    None => break,
                }
            }
            in_flight.push_back(start_batch(&ctx, &target, batch).await);
        }
        if ended && in_flight.is_empty() {
            return;
        }
        tokio::select! {
            biased;
            Some(out) = in_flight.next(), if !in_flight.is_empty() => {
                if !reports.send(report_text(out)).await {
                    return;
                }
            }
            // Cancel safe: what the reader holds stays in its buffer.
            record = reader.next(), if !ended && in_flight.len() < PRODUCES_IN_FLIGHT_MAX => match record {
                Some(record) => next = Some(record),
                None => ended = true,
            },
        }
    }
}

/// Reports as the answer's text: one JSON object a line.
fn report_text(out: Vec<Value>) -> Bytes {
    let mut text = String::new();
    for report in out {
        text.push_str(&report.to_string());
        text.push('\n');
    }
    Bytes::from(text)
}

/// Appends one batch of read records (one Produce request) and returns the wait for their
/// reports, in order.
async fn start_batch(
    ctx: &Ctx,
    target: &Target,
    batch: Vec<Result<Value, RestError>>,
) -> BoxFuture<'static, Vec<Value>> {
    let now_ms = ctx.now_ms();
    let prepared: Vec<Result<Prepared, RestError>> = batch
        .into_iter()
        .map(|record| match record? {
            Value::Object(object) => prepare(&object, now_ms, &target.partitions),
            _ => Err(RestError::bad_request("Bad Request: a record must be a JSON object")),
        })
        .collect();
    let count = target.partitions.len().max(1);
    let turn = target.sticky.fetch_add(1, Ordering::Relaxed) % target.led.len().max(1);
    let sticky = target.led.get(turn).copied().unwrap_or(0);
    let partition_of = |p: &Prepared| match (p.partition, &p.key) {
        (Some(partition), _) => partition,
        (None, Some((key, _))) => {
            let index = (strand_client::producer::murmur2(key) & 0x7fff_ffff) as usize % count;
            target.partitions.get(index).copied().unwrap_or(0)
        }
        (None, None) => sticky,
    };
    // Each record's partition and position in its partition's batch.
    let mut by_partition: BTreeMap<i32, RecordBatchBuilder> = BTreeMap::new();
    let mut placed: Vec<Result<(i32, i64), RestError>> = Vec::with_capacity(prepared.len());
    for record in &prepared {
        let Ok(record) = record else {
            placed.push(Err(RestError::internal("unused")));
            continue;
        };
        let partition = partition_of(record);
        let builder = by_partition.entry(partition).or_default();
        let position = i64::from(builder.record_count());
        let headers: Vec<Header<'_>> =
            record.headers.iter().map(|(key, value)| Header { key, value: value.as_deref() }).collect();
        let new = NewRecord {
            timestamp_ms: record.timestamp_ms,
            key: record.key.as_ref().map(|(bytes, _)| bytes.as_slice()),
            value: record.value.as_ref().map(|(bytes, _)| bytes.as_slice()),
            headers: &headers,
        };
        placed.push(match builder.append(&new) {
            Ok(()) => Ok((partition, position)),
            Err(e) => Err(RestError::bad_request(format!("Bad Request: {e}"))),
        });
    }
    let results = send(ctx, target, by_partition).await;
    let (cluster_id, topic) = (ctx.cluster_id.clone(), target.topic.clone());
    Box::pin(async move {
        let results = results.await;
        prepared
            .iter()
            .zip(placed)
            .map(|(record, place)| {
                let (record, (partition, position)) = match (record, place) {
                    (Err(e), _) => return e.to_json(),
                    (Ok(_), Err(e)) => return e.to_json(),
                    (Ok(record), Ok(place)) => (record, place),
                };
                match results.get(&partition) {
                    Some(Ok((base_offset, append_time))) => {
                        let timestamp = if *append_time >= 0 { *append_time } else { record.timestamp_ms };
                        let mut report = json!({
                            "error_code": 200,
                            "cluster_id": cluster_id,
                            "topic_name": topic,
                            "partition_id": partition,
                            "offset": base_offset + position,
                            "timestamp": iso_timestamp(timestamp),
                        });
                        for (field, data) in [("key", &record.key), ("value", &record.value)] {
                            if let Some((bytes, kind)) = data {
                                report[field] = json!({ "type": kind, "size": bytes.len() });
                            }
                        }
                        report
                    }
                    Some(Err(e)) => e.to_json(),
                    None => RestError::internal("the partition had no answer").to_json(),
                }
            })
            .collect()
    })
}

/// Each partition's base offset and log append time, or its error.
type Results = BTreeMap<i32, Result<(i64, i64), RestError>>;

/// Appends one Produce request with a batch per partition; the wait for its results.
async fn send(ctx: &Ctx, target: &Target, batches: BTreeMap<i32, RecordBatchBuilder>) -> BoxFuture<'static, Results> {
    let mut results = BTreeMap::new();
    let mut partition_data = Vec::new();
    for (partition, builder) in batches {
        match builder.build() {
            Ok(records) => partition_data.push(PartitionProduceData {
                index: partition,
                records: Some(records),
                ..Default::default()
            }),
            Err(e) => {
                results.insert(partition, Err(RestError::bad_request(format!("Bad Request: {e}"))));
            }
        }
    }
    if partition_data.is_empty() {
        return Box::pin(std::future::ready(results));
    }
    let indexes: Vec<i32> = partition_data.iter().map(|p| p.index).collect();
    let request = ProduceRequest {
        acks: -1,
        timeout_ms: PRODUCE_TIMEOUT_MS,
        topic_data: vec![TopicProduceData { name: target.topic.clone(), partition_data, ..Default::default() }],
        ..Default::default()
    };
    let started = ctx.start(RequestBody::Produce(request), PRODUCE_VERSION).await;
    Box::pin(async move {
        let answered = match started {
            Ok(wait) => wait.await,
            Err(e) => Err(e),
        };
        match answered {
            Ok(ResponseBody::Produce(response)) => {
                for p in response.responses.into_iter().flat_map(|t| t.partition_responses) {
                    let result = match RestError::kafka(p.error_code, p.error_message.as_deref()) {
                        None => Ok((p.base_offset, p.log_append_time_ms)),
                        Some(e) => Err(e),
                    };
                    results.insert(p.index, result);
                }
            }
            other => {
                let e = other.err().unwrap_or_else(|| RestError::internal("Produce had another answer"));
                for index in indexes {
                    results.insert(index, Err(e.clone()));
                }
            }
        }
        results
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys and values of each type become the bytes Confluent's proxy would write.
    #[test]
    fn record_data_reads_each_type() {
        let read = |v: Value| record_data(Some(&v), "value");
        assert_eq!(read(json!({"type": "BINARY", "data": "Zm9vYmFy"})), Ok(Some((b"foobar".to_vec(), "BINARY"))));
        assert_eq!(
            read(json!({"type": "JSON", "data": {"foo": "bar"}})),
            Ok(Some((br#"{"foo":"bar"}"#.to_vec(), "JSON")))
        );
        assert_eq!(read(json!({"type": "STRING", "data": "My message"})), Ok(Some((b"My message".to_vec(), "STRING"))));
        assert_eq!(read(json!({"type": "STRING"})), Ok(None));
        assert_eq!(record_data(None, "key"), Ok(None));
        let bad = read(json!({"type": "BINARY", "data": 1})).map_err(|e| (e.error_code, e.message));
        assert_eq!(bad, Err((400, "Bad Request: data=1 is not a base64 string.".into())));
        assert!(read(json!({"type": "AVRO", "data": "x"})).is_err());
        assert!(read(json!({"data": "x"})).is_err());
    }

    /// Concatenated records are read one by one, across chunk boundaries.
    #[tokio::test]
    async fn concatenated_records_are_read_across_chunks() {
        let chunks =
            [r#"{"a":1} {"b""#, r#":2}"#, "\n{\"c\":3}\n"].map(|c| Ok::<_, std::convert::Infallible>(Bytes::from(c)));
        let mut reader = RecordReader { chunks: futures::stream::iter(chunks), buffer: Vec::new(), done: false };
        for expected in [json!({"a": 1}), json!({"b": 2}), json!({"c": 3})] {
            assert_eq!(reader.next().await, Some(Ok(expected)));
        }
        assert_eq!(reader.next().await, None);
        let chunks = [Ok::<_, std::convert::Infallible>(Bytes::from(r#"{"a":1}{"b":"#))];
        let mut broken = RecordReader { chunks: futures::stream::iter(chunks), buffer: Vec::new(), done: false };
        assert!(matches!(broken.next().await, Some(Ok(_))));
        assert!(matches!(broken.next().await, Some(Err(e)) if e.error_code == 400));
        assert_eq!(broken.next().await, None);
    }
}
