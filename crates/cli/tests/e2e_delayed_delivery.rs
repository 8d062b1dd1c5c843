//! Delayed delivery end to end (ARCHITECTURE.md, "Delayed delivery"), over loopback against a
//! real `strand server`: records marked with `strand.delay.ms` or `strand.deliver.at`, or on a
//! topic with `delivery.delay.ms`, are not in the topic until due, then appear once each, in due
//! order, with their key, headers and value; a `kill -9` while they are pending loses none and
//! delivers none twice; what cannot be served is refused with INVALID_RECORD.

mod common;

use std::time::Duration;

use strand_base::{Clock, SystemClock};

use bytes::Bytes;
use common::{Client, Server, produce};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::{CreatableTopic, CreatableTopicConfig};
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use strand_protocol::messages::{CreateTopicsRequest, FetchRequest};
use strand_protocol::records::{Header, NewRecord, RecordBatchBuilder, RecordBatches, TimestampType};

/// How late a record may appear here: far above the target (the delivery pass wakes at the due
/// time), as the debug build on two busy cores is slow; a record held back wrongly never appears.
const LATE_MAX: Duration = Duration::from_secs(5);

fn now_ms() -> i64 {
    SystemClock.now_ms()
}

/// The time `seconds` from now, in epoch milliseconds.
fn after(seconds: i64) -> i64 {
    now_ms() + seconds * 1000
}

/// One batch: (value, header name, header value) per record, key `k-<value>`.
fn batch(records: &[(&str, Option<(&str, String)>)]) -> Bytes {
    let mut builder = RecordBatchBuilder::new();
    for (value, header) in records {
        let key = format!("k-{value}");
        let headers: Vec<Header<'_>> =
            header.iter().map(|(name, v)| Header { key: name, value: Some(v.as_bytes()) }).collect();
        let record = NewRecord {
            timestamp_ms: now_ms(),
            key: Some(key.as_bytes()),
            value: Some(value.as_bytes()),
            headers: &headers,
        };
        builder.append(&record).expect("record");
    }
    builder.build().expect("batch")
}

fn create(client: &mut Client, name: &str, configs: &[(&str, &str)]) {
    let request = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: name.into(),
            num_partitions: 1,
            replication_factor: 1,
            configs: configs
                .iter()
                .map(|(k, v)| CreatableTopicConfig {
                    name: (*k).into(),
                    value: Some((*v).into()),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }],
        timeout_ms: 10_000,
        ..Default::default()
    };
    let ResponseBody::CreateTopics(response) = client.call(RequestBody::CreateTopics(request), 7) else { panic!() };
    assert_eq!(response.topics[0].error_code, 0, "{:?}", response.topics[0]);
}

/// A record a consumer sees: offset, key, value, header count.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    offset: i64,
    key: String,
    value: String,
    headers: usize,
    /// The record's timestamp as a consumer reads it, and whether it is a LogAppendTime.
    timestamp: i64,
    log_append_time: bool,
}

/// The data records from `offset` on (control batches skipped, as every client does), waiting
/// up to `wait_ms` for some; the next offset to fetch.
fn fetch(client: &mut Client, topic: &str, offset: i64, wait_ms: i32) -> (Vec<Seen>, i64) {
    let request = FetchRequest {
        max_wait_ms: wait_ms,
        min_bytes: 1,
        max_bytes: 50 << 20,
        topics: vec![FetchTopic {
            topic: topic.into(),
            partitions: vec![FetchPartition {
                partition: 0,
                fetch_offset: offset,
                partition_max_bytes: 50 << 20,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::Fetch(response) = client.call(RequestBody::Fetch(request), 12) else { panic!() };
    let partition = &response.responses[0].partitions[0];
    assert_eq!(partition.error_code, 0);
    let bytes = partition.records.as_ref().and_then(|r| r.as_bytes()).cloned().unwrap_or_default();
    let (mut seen, mut next) = (Vec::new(), offset);
    for batch in RecordBatches::new(bytes) {
        let batch = batch.expect("whole batch");
        next = batch.next_offset();
        if batch.attributes().is_control() {
            continue;
        }
        for record in batch.records().expect("records").iter() {
            let record = record.expect("record");
            let text = |b: Option<&[u8]>| String::from_utf8_lossy(b.unwrap_or_default()).into_owned();
            seen.push(Seen {
                offset: batch.record_offset(&record),
                key: text(record.key()),
                value: text(record.value()),
                headers: record.headers().count(),
                timestamp: match batch.attributes().timestamp_type() {
                    TimestampType::LogAppendTime => batch.max_timestamp(),
                    TimestampType::CreateTime => batch.base_timestamp() + record.timestamp_delta(),
                },
                log_append_time: batch.attributes().timestamp_type() == TimestampType::LogAppendTime,
            });
        }
    }
    (seen, next)
}

/// Consumes until `count` records were seen or `deadline` passed: each with the time it was seen.
fn consume(client: &mut Client, topic: &str, from: i64, count: usize, deadline_ms: i64) -> Vec<(Seen, i64)> {
    let (mut all, mut offset) = (Vec::new(), from);
    while all.len() < count && now_ms() < deadline_ms {
        let (seen, next) = fetch(client, topic, offset, 200);
        let at = now_ms();
        all.extend(seen.into_iter().map(|s| (s, at)));
        offset = next;
    }
    all
}

#[test]
fn delayed_records_appear_once_due_in_due_order() {
    let _serial = common::serial();
    let server = Server::start();
    let mut client = server.connect();
    create(&mut client, "later", &[]);
    let t0 = now_ms();
    let delay = |ms: i64| Some(("strand.delay.ms", ms.to_string()));
    let at = |ms: i64| Some(("strand.deliver.at", (t0 + ms).to_string()));
    let records = [("late", delay(2_000)), ("soon", delay(600)), ("tie-a", at(1_200)), ("tie-b", at(1_200))];
    let (code, base) = produce(&mut client, "later", -1, batch(&records));
    assert_eq!((code, base), (0, 0), "acknowledged with the offsets the pending batch took");
    let (code, base) = produce(&mut client, "later", -1, batch(&[("now", None)]));
    assert_eq!((code, base), (0, 4));
    let (seen, _) = fetch(&mut client, "later", 0, 0);
    assert_eq!(seen.iter().map(|s| s.value.as_str()).collect::<Vec<_>>(), ["now"], "nothing delayed is visible yet");

    let arrived = consume(&mut client, "later", 0, 5, after(30));
    let values: Vec<&str> = arrived.iter().map(|(s, _)| s.value.as_str()).collect();
    assert_eq!(values, ["now", "soon", "tie-a", "tie-b", "late"], "each once, in due order");
    let due = [t0, t0 + 600, t0 + 1_200, t0 + 1_200, t0 + 2_000];
    for ((seen, at), due) in arrived.iter().zip(due) {
        assert!(*at >= due, "{} seen at {at}, before it was due at {due}", seen.value);
        assert!(*at - due <= LATE_MAX.as_millis() as i64, "{} seen {} ms late", seen.value, *at - due);
        assert_eq!(seen.key, format!("k-{}", seen.value), "the key is kept");
    }
    assert_eq!(arrived[1].0.headers, 1, "the headers are kept");
    let offsets: Vec<i64> = arrived.iter().map(|(s, _)| s.offset).collect();
    assert!(offsets.windows(2).all(|w| w[0] < w[1]), "offsets increase: {offsets:?}");
    // Nothing more comes.
    let (more, _) = fetch(&mut client, "later", arrived.last().map_or(0, |(s, _)| s.offset + 1), 500);
    assert!(more.is_empty(), "delivered twice: {more:?}");
}

#[test]
fn pending_records_survive_kill_9_and_are_delivered_once() {
    let _serial = common::serial();
    let server = Server::start();
    let mut client = server.connect();
    create(&mut client, "durable-later", &[]);
    let values: Vec<String> = (0..200).map(|i| format!("r{i}")).collect();
    for chunk in values.chunks(20) {
        let records: Vec<(&str, Option<(&str, String)>)> =
            chunk.iter().map(|v| (v.as_str(), Some(("strand.delay.ms", "1500".to_string())))).collect();
        assert_eq!(produce(&mut client, "durable-later", -1, batch(&records)).0, 0);
    }
    drop(client);
    let data = server.kill();

    let server = Server::start_in(data);
    let mut client = server.connect();
    let arrived = consume(&mut client, "durable-later", 0, 200, after(60));
    let got: Vec<String> = arrived.iter().map(|(s, _)| s.value.clone()).collect();
    assert_eq!(got, values, "every acknowledged delayed record, once, in order");
    drop(client);

    // Delivered records are not delivered again after another kill.
    let data = server.kill();
    let server = Server::start_in(data);
    let mut client = server.connect();
    let again = consume(&mut client, "durable-later", 0, 201, after(3));
    assert_eq!(again.len(), 200, "nothing delivered twice after a restart");
}

#[test]
fn topic_delays_and_refusals() {
    let _serial = common::serial();
    let server = Server::start();
    let mut client = server.connect();
    let configs = [("delivery.delay.ms", "700"), ("delivery.delay.max.ms", "60000")];
    create(&mut client, "topic-delay", &configs);
    // Under LogAppendTime the delivered copy is stamped when it is appended, as a produced
    // record is: at least the delay after the send (under CreateTime it keeps the producer's).
    create(&mut client, "append-time-delay", &[configs[0], ("message.timestamp.type", "LogAppendTime")]);
    let sent = now_ms();
    assert_eq!(produce(&mut client, "topic-delay", -1, batch(&[("plain", None)])).0, 0);
    assert_eq!(produce(&mut client, "append-time-delay", -1, batch(&[("stamped", None)])).0, 0);
    let (seen, _) = fetch(&mut client, "topic-delay", 0, 0);
    assert!(seen.is_empty(), "the topic's delay holds every record back");
    let arrived = consume(&mut client, "topic-delay", 0, 1, after(30));
    assert_eq!(arrived.len(), 1);
    assert!(arrived[0].1 >= sent + 700);
    assert!(!arrived[0].0.log_append_time && arrived[0].0.timestamp < sent + 700, "CreateTime: the producer's time");
    let stamped = consume(&mut client, "append-time-delay", 0, 1, after(30));
    assert_eq!(stamped.len(), 1);
    let (seen, at) = (&stamped[0].0, stamped[0].1);
    assert!(seen.log_append_time, "a LogAppendTime batch");
    assert!(
        seen.timestamp >= sent + 700 && seen.timestamp <= at,
        "stamped at delivery: {} sent {sent}",
        seen.timestamp
    );

    let beyond = [("far", Some(("strand.delay.ms", "61000".to_string())))];
    let (code, _) = produce(&mut client, "topic-delay", -1, batch(&beyond));
    assert_eq!(code, ErrorCode::InvalidRecord.code(), "a delay past delivery.delay.max.ms");
    let garbled = [("bad", Some(("strand.delay.ms", "tomorrow".to_string())))];
    let (code, _) = produce(&mut client, "topic-delay", -1, batch(&garbled));
    assert_eq!(code, ErrorCode::InvalidRecord.code(), "a delay that is not a number");

    create(&mut client, "compacted", &[("cleanup.policy", "compact")]);
    let delayed = [("c", Some(("strand.delay.ms", "1000".to_string())))];
    let (code, _) = produce(&mut client, "compacted", -1, batch(&delayed));
    assert_eq!(code, ErrorCode::InvalidRecord.code(), "no delayed delivery on a compacted topic");
    let due = [("c", Some(("strand.deliver.at", "0".to_string())))];
    assert_eq!(produce(&mut client, "compacted", -1, batch(&due)).0, 0, "a record due already is stored as it is");
}

/// Three nodes, a replicated topic, records pending with delays spread over seconds: the
/// partition's leader is killed (`kill -9`) while every record is pending, and the next leader
/// is killed midway through delivering them; each acknowledged record appears exactly once.
#[test]
fn leader_failovers_deliver_each_record_once() {
    use common::cluster::{Cluster, create_topic, leader_of};
    let _serial = common::serial();
    let mut cluster = Cluster::start(3);
    create_topic(&cluster, 1, "failover-later", 1);
    let first = leader_of(&cluster, 1, "failover-later", |_, isr| isr.len() == 3);
    leader_of(&cluster, first, "failover-later", |leader, _| leader == first);
    let mut client = cluster.node(first).connect();
    let values: Vec<String> = (0..600).map(|i| format!("f{i}")).collect();
    for (i, chunk) in values.chunks(20).enumerate() {
        // Due from 2 s to about 6.5 s from now, a batch every 150 ms of due time.
        let delay = (2_000 + 150 * i).to_string();
        let records: Vec<(&str, Option<(&str, String)>)> =
            chunk.iter().map(|v| (v.as_str(), Some(("strand.delay.ms", delay.clone())))).collect();
        assert_eq!(produce(&mut client, "failover-later", -1, batch(&records)).0, 0, "batch {i}");
    }
    drop(client);
    cluster.kill(first);

    let survivor = if first == 1 { 2 } else { 1 };
    let second = leader_of(&cluster, survivor, "failover-later", |leader, _| leader != first);
    leader_of(&cluster, second, "failover-later", |leader, _| leader == second);
    let mut client = cluster.node(second).connect();
    let early = consume(&mut client, "failover-later", 0, 100, after(30));
    assert!(early.len() >= 100, "the new leader delivers: {} records", early.len());
    drop(client);
    cluster.restart(first);
    leader_of(&cluster, second, "failover-later", |_, isr| isr.contains(&first));
    cluster.kill(second);

    let third = leader_of(&cluster, first, "failover-later", |leader, _| leader != second);
    leader_of(&cluster, third, "failover-later", |leader, _| leader == third);
    let mut client = cluster.node(third).connect();
    let arrived = consume(&mut client, "failover-later", 0, values.len(), after(60));
    let next = arrived.last().map_or(0, |(s, _)| s.offset + 1);
    let (more, _) = fetch(&mut client, "failover-later", next, 1_000);
    let mut got: Vec<String> = arrived.iter().map(|(s, _)| s.value.clone()).collect();
    got.extend(more.iter().map(|s| s.value.clone()));
    let total = got.len();
    got.sort();
    got.dedup();
    assert_eq!(total, got.len(), "a record delivered twice");
    let mut want = values.clone();
    want.sort();
    assert_eq!(got, want, "every acknowledged record, once");
}

/// A record with the `strand.cancel` header drops the pending records of its key written before
/// it; a later record of the same key is delivered; cancels mixed with other records are refused.
#[test]
fn a_cancel_by_key_drops_pending_records() {
    let _serial = common::serial();
    let server = Server::start();
    let mut client = server.connect();
    create(&mut client, "cancellable", &[]);
    let delay = || Some(("strand.delay.ms", "1500".to_string()));
    let records = [("order-1", delay()), ("order-2", delay()), ("order-1", delay())];
    assert_eq!(produce(&mut client, "cancellable", -1, batch(&records)).0, 0);
    let cancel = [("order-1", Some(("strand.cancel", String::new())))];
    assert_eq!(produce(&mut client, "cancellable", -1, batch(&cancel)).0, 0, "the cancel is acknowledged");
    let later = [("order-1", Some(("strand.delay.ms", "1600".to_string())))];
    assert_eq!(produce(&mut client, "cancellable", -1, batch(&later)).0, 0);
    let mixed = [("order-3", Some(("strand.cancel", String::new()))), ("order-4", None)];
    let (code, _) = produce(&mut client, "cancellable", -1, batch(&mixed));
    assert_eq!(code, ErrorCode::InvalidRecord.code(), "cancels mixed with records");

    let arrived = consume(&mut client, "cancellable", 0, 2, after(30));
    let values: Vec<&str> = arrived.iter().map(|(s, _)| s.value.as_str()).collect();
    assert_eq!(values, ["order-2", "order-1"], "order-1's first two records were cancelled, the later one was not");
    let next = arrived.last().map_or(0, |(s, _)| s.offset + 1);
    let (more, _) = fetch(&mut client, "cancellable", next, 1_000);
    assert!(more.is_empty(), "a cancelled record was delivered: {more:?}");
}
