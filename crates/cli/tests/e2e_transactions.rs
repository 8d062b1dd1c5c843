//! End to end over loopback: a transactional producer's life through a real `strand server`,
//! spoken as the Java client speaks it (FindCoordinator, InitProducerId, AddPartitionsToTxn,
//! transactional Produce, EndTxn). A committed transaction becomes visible to `read_committed`
//! once its marker is written; an open one holds the last stable offset at its first record; after
//! `kill -9` and a restart, the reloaded transaction coordinator aborts the open transaction when
//! its timeout passes, and `read_committed` readers are told what to skip.

mod common;

use common::{Client, Server, WAIT_MAX};
use strand_base::{Clock, ProducerId, SystemClock};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::add_partitions_to_txn_request::AddPartitionsToTxnTopic;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::CreatableTopic;
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use strand_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::messages::{
    AddPartitionsToTxnRequest, CreateTopicsRequest, DescribeTransactionsRequest, EndTxnRequest, FetchRequest,
    FindCoordinatorRequest, InitProducerIdRequest, ListOffsetsRequest, ProduceRequest,
};
use strand_protocol::records::{NewRecord, RecordBatchBuilder, RecordBatches};

const TOPIC: &str = "orders";
const TRANSACTIONAL_ID: &str = "e2e-txn";
/// The open transaction's timeout: the coordinator aborts it this long after it began.
const TRANSACTION_TIMEOUT_MS: i32 = 2_000;
/// Timed-out transactions are looked for every 200 ms rather than every 10 s.
const OVERRIDES: &[&str] = &["transaction.abort.timed.out.transaction.cleanup.interval.ms=200"];

/// Calls `make()` until `ok` holds for the answer or the wait runs out (coordinators load and
/// markers land asynchronously; clients retry the same way).
fn until<T: std::fmt::Debug>(what: &str, mut make: impl FnMut() -> T, ok: impl Fn(&T) -> bool) -> T {
    let clock = SystemClock;
    let deadline = clock.monotonic_ns() + WAIT_MAX.as_nanos() as u64;
    loop {
        let answer = make();
        if ok(&answer) {
            return answer;
        }
        assert!(clock.monotonic_ns() < deadline, "{what}: still {answer:?} after {WAIT_MAX:?}");
        std::thread::yield_now();
    }
}

fn retriable(code: i16) -> bool {
    [ErrorCode::CoordinatorLoadInProgress, ErrorCode::CoordinatorNotAvailable, ErrorCode::ConcurrentTransactions]
        .iter()
        .any(|c| c.code() == code)
}

/// InitProducerId for the transactional id, retried while the coordinator loads.
fn init_producer_id(client: &mut Client) -> (ProducerId, i16) {
    let find = || FindCoordinatorRequest {
        key_type: 1,
        coordinator_keys: vec![TRANSACTIONAL_ID.into()],
        ..Default::default()
    };
    until(
        "FindCoordinator",
        || match client.call(RequestBody::FindCoordinator(find()), 4) {
            ResponseBody::FindCoordinator(r) => r.coordinators[0].error_code,
            other => panic!("{other:?}"),
        },
        |code| *code == 0,
    );
    let request = || InitProducerIdRequest {
        transactional_id: Some(TRANSACTIONAL_ID.into()),
        transaction_timeout_ms: TRANSACTION_TIMEOUT_MS,
        producer_id: ProducerId(-1),
        producer_epoch: -1,
        ..Default::default()
    };
    let response = until(
        "InitProducerId",
        || match client.call(RequestBody::InitProducerId(request()), 4) {
            ResponseBody::InitProducerId(r) => r,
            other => panic!("{other:?}"),
        },
        |r| !retriable(r.error_code),
    );
    assert_eq!(response.error_code, 0, "{response:?}");
    (response.producer_id, response.producer_epoch)
}

fn add_partition(client: &mut Client, (producer_id, epoch): (ProducerId, i16)) {
    let request = || AddPartitionsToTxnRequest {
        v3_and_below_transactional_id: TRANSACTIONAL_ID.into(),
        v3_and_below_producer_id: producer_id,
        v3_and_below_producer_epoch: epoch,
        v3_and_below_topics: vec![AddPartitionsToTxnTopic {
            name: TOPIC.into(),
            partitions: vec![0],
            ..Default::default()
        }],
        ..Default::default()
    };
    let code = until(
        "AddPartitionsToTxn",
        || match client.call(RequestBody::AddPartitionsToTxn(request()), 3) {
            ResponseBody::AddPartitionsToTxn(r) => {
                r.results_by_topic_v3_and_below[0].results_by_partition[0].partition_error_code
            }
            other => panic!("{other:?}"),
        },
        |code| !retriable(*code),
    );
    assert_eq!(code, 0);
}

/// Produces `values` as one transactional batch starting at `sequence`; the base offset.
fn produce(client: &mut Client, (producer_id, epoch): (ProducerId, i16), sequence: i32, values: &[&str]) -> i64 {
    let mut builder = RecordBatchBuilder::new().producer(producer_id, epoch, sequence).transactional();
    for value in values {
        let record =
            NewRecord { timestamp_ms: 1_700_000_000_000, key: None, value: Some(value.as_bytes()), headers: &[] };
        builder.append(&record).expect("record");
    }
    let request = ProduceRequest {
        transactional_id: Some(TRANSACTIONAL_ID.into()),
        acks: -1,
        timeout_ms: 10_000,
        topic_data: vec![TopicProduceData {
            name: TOPIC.into(),
            partition_data: vec![PartitionProduceData {
                index: 0,
                records: Some(builder.build().expect("batch")),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::Produce(response) = client.call(RequestBody::Produce(request), 9) else { panic!() };
    let partition = &response.responses[0].partition_responses[0];
    assert_eq!(partition.error_code, 0, "{partition:?}");
    partition.base_offset
}

fn end(client: &mut Client, (producer_id, epoch): (ProducerId, i16), committed: bool) {
    let request = EndTxnRequest {
        transactional_id: TRANSACTIONAL_ID.into(),
        producer_id,
        producer_epoch: epoch,
        committed,
        ..Default::default()
    };
    let ResponseBody::EndTxn(response) = client.call(RequestBody::EndTxn(request), 3) else { panic!() };
    assert_eq!(response.error_code, 0, "{response:?}");
}

/// ListOffsets latest of partition 0: `(read_uncommitted, read_committed)`, the high watermark
/// and the last stable offset.
fn end_offsets(client: &mut Client) -> (i64, i64) {
    let mut latest = |isolation_level| {
        let request = ListOffsetsRequest {
            replica_id: strand_base::BrokerId(-1),
            isolation_level,
            topics: vec![ListOffsetsTopic {
                name: TOPIC.into(),
                partitions: vec![ListOffsetsPartition { partition_index: 0, timestamp: -1, ..Default::default() }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let ResponseBody::ListOffsets(response) = client.call(RequestBody::ListOffsets(request), 7) else { panic!() };
        response.topics[0].partitions[0].offset
    };
    (latest(0), latest(1))
}

/// `read_committed` fetches from offset 0 up to the last stable offset (a fetch returns one
/// segment's batches, so it takes several): every value returned, and the aborted transactions
/// the reader must skip, as (producer id, first offset).
fn fetch_committed(client: &mut Client) -> (Vec<String>, Vec<(ProducerId, i64)>) {
    let (mut values, mut aborted, mut offset) = (Vec::new(), Vec::new(), 0);
    loop {
        let request = FetchRequest {
            max_wait_ms: 0,
            max_bytes: 1 << 20,
            isolation_level: 1,
            topics: vec![FetchTopic {
                topic: TOPIC.into(),
                partitions: vec![FetchPartition {
                    partition: 0,
                    fetch_offset: offset,
                    partition_max_bytes: 1 << 20,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let ResponseBody::Fetch(response) = client.call(RequestBody::Fetch(request), 12) else { panic!() };
        let partition = &response.responses[0].partitions[0];
        assert_eq!(partition.error_code, 0);
        aborted.extend(partition.aborted_transactions.iter().flatten().map(|a| (a.producer_id, a.first_offset)));
        let records = partition.records.as_ref().and_then(|r| r.as_bytes()).cloned().unwrap_or_default();
        if records.is_empty() {
            aborted.dedup();
            return (values, aborted);
        }
        for batch in RecordBatches::new(records) {
            let batch = batch.expect("whole batch");
            offset = batch.base_offset() + i64::from(batch.last_offset_delta()) + 1;
            if batch.attributes().is_control() {
                continue;
            }
            for record in batch.records().expect("records").iter() {
                values.push(String::from_utf8_lossy(record.expect("record").value().unwrap_or_default()).into_owned());
            }
        }
    }
}

#[test]
fn a_committed_transaction_survives_kill_and_an_open_one_is_aborted_on_timeout() {
    let _serial = common::serial();
    let server = Server::start_with(tempfile::tempdir().expect("temp dir"), OVERRIDES);
    let mut client = server.connect();
    let topic = CreatableTopic { name: TOPIC.into(), num_partitions: 1, replication_factor: 1, ..Default::default() };
    let request = CreateTopicsRequest { topics: vec![topic], timeout_ms: 10_000, ..Default::default() };
    let ResponseBody::CreateTopics(created) = client.call(RequestBody::CreateTopics(request), 7) else { panic!() };
    assert_eq!(created.topics[0].error_code, 0);

    // A committed transaction: its three records and a COMMIT marker (offset 3).
    let producer = init_producer_id(&mut client);
    add_partition(&mut client, producer);
    assert_eq!(produce(&mut client, producer, 0, &["a", "b", "c"]), 0);
    assert_eq!(end_offsets(&mut client), (3, 0), "the open transaction holds read_committed at its start");
    end(&mut client, producer, true);
    until("the commit marker", || end_offsets(&mut client), |offsets| *offsets == (4, 4));

    // A second transaction stays open: read_committed stops at its first record.
    add_partition(&mut client, producer);
    assert_eq!(produce(&mut client, producer, 3, &["x", "y"]), 4);
    assert_eq!(end_offsets(&mut client), (6, 4));
    assert_eq!(fetch_committed(&mut client).0, ["a", "b", "c"]);

    // kill -9: the transaction state and the producer state come back from the logs, and the
    // coordinator aborts the open transaction once its timeout has passed.
    let data = server.kill();
    let server = Server::start_with(data, OVERRIDES);
    let mut client = server.connect();
    until("the timed-out transaction's ABORT marker", || end_offsets(&mut client), |offsets| *offsets == (7, 7));
    let (values, aborted) = fetch_committed(&mut client);
    assert_eq!(aborted, [(producer.0, 4)], "read_committed readers skip the aborted batch");
    assert_eq!(values, ["a", "b", "c", "x", "y"], "the fetch returns the batches; the reader drops x and y");

    let describe =
        DescribeTransactionsRequest { transactional_ids: vec![TRANSACTIONAL_ID.into()], ..Default::default() };
    let ResponseBody::DescribeTransactions(described) = client.call(RequestBody::DescribeTransactions(describe), 0)
    else {
        panic!()
    };
    let state = &described.transaction_states[0];
    assert_eq!((state.error_code, state.transaction_state.as_str()), (0, "CompleteAbort"), "{state:?}");
    assert!(state.producer_epoch > producer.1, "the abort fenced the old epoch: {state:?}");
}
