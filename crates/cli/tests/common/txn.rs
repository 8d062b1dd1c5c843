//! A transactional producer spoken as the Java client speaks it (FindCoordinator, InitProducerId,
//! AddPartitionsToTxn v3, transactional Produce, EndTxn v3), over the blocking [`Client`], on
//! partition 0 of one topic; and `read_committed` reads of that partition.

use strand_base::{Clock, ProducerId, SystemClock};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::add_partitions_to_txn_request::AddPartitionsToTxnTopic;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use strand_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::messages::{
    AddPartitionsToTxnRequest, EndTxnRequest, FetchRequest, FindCoordinatorRequest, InitProducerIdRequest,
    ListOffsetsRequest, ProduceRequest,
};
use strand_protocol::records::{NewRecord, RecordBatchBuilder, RecordBatches};

use super::{Client, WAIT_MAX};

/// Calls `make()` until `ok` holds for the answer or the wait runs out (coordinators load and
/// markers land asynchronously; clients retry the same way).
pub fn until<T: std::fmt::Debug>(what: &str, mut make: impl FnMut() -> T, ok: impl Fn(&T) -> bool) -> T {
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

/// The errors a transactional client retries: the coordinator is loading, moving, or finishing
/// the previous transaction.
pub fn retriable(code: i16) -> bool {
    [
        ErrorCode::CoordinatorLoadInProgress,
        ErrorCode::CoordinatorNotAvailable,
        ErrorCode::NotCoordinator,
        ErrorCode::ConcurrentTransactions,
    ]
    .iter()
    .any(|c| c.code() == code)
}

/// One transactional id's producer, writing to partition 0 of `topic`.
#[derive(Debug, Clone)]
pub struct TxnProducer {
    pub transactional_id: String,
    pub topic: String,
    pub producer_id: ProducerId,
    pub epoch: i16,
}

impl TxnProducer {
    /// InitProducerId for `transactional_id` with `timeout_ms` as its transaction timeout, retried
    /// while its coordinator (which `client` must be connected to) loads.
    pub fn init(client: &mut Client, transactional_id: &str, topic: &str, timeout_ms: i32) -> TxnProducer {
        let request = || InitProducerIdRequest {
            transactional_id: Some(transactional_id.into()),
            transaction_timeout_ms: timeout_ms,
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
        TxnProducer {
            transactional_id: transactional_id.into(),
            topic: topic.into(),
            producer_id: response.producer_id,
            epoch: response.producer_epoch,
        }
    }

    /// The node id of `transactional_id`'s coordinator, as `client`'s node names it once it knows
    /// one.
    pub fn coordinator(client: &mut Client, transactional_id: &str) -> i32 {
        let find = || FindCoordinatorRequest {
            key_type: 1,
            coordinator_keys: vec![transactional_id.into()],
            ..Default::default()
        };
        let found = until(
            "FindCoordinator",
            || match client.call(RequestBody::FindCoordinator(find()), 4) {
                ResponseBody::FindCoordinator(r) => r.coordinators[0].clone(),
                other => panic!("{other:?}"),
            },
            |c| c.error_code == 0,
        );
        found.node_id.0
    }

    /// AddPartitionsToTxn for partition 0, retried while the previous transaction completes.
    pub fn add_partition(&self, client: &mut Client) {
        let request = || AddPartitionsToTxnRequest {
            v3_and_below_transactional_id: self.transactional_id.clone(),
            v3_and_below_producer_id: self.producer_id,
            v3_and_below_producer_epoch: self.epoch,
            v3_and_below_topics: vec![AddPartitionsToTxnTopic {
                name: self.topic.clone(),
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

    /// Produces `values` as one transactional batch starting at `sequence` (acks=all) to the
    /// partition's leader, which `client` must be connected to; the base offset.
    pub fn produce(&self, client: &mut Client, sequence: i32, values: &[&str]) -> i64 {
        let now = SystemClock.now_ms();
        let mut builder = RecordBatchBuilder::new().producer(self.producer_id, self.epoch, sequence).transactional();
        for value in values {
            let record = NewRecord { timestamp_ms: now, key: None, value: Some(value.as_bytes()), headers: &[] };
            builder.append(&record).expect("record");
        }
        let request = ProduceRequest {
            transactional_id: Some(self.transactional_id.clone()),
            acks: -1,
            timeout_ms: 10_000,
            topic_data: vec![TopicProduceData {
                name: self.topic.clone(),
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

    /// EndTxn: commit or abort.
    pub fn end(&self, client: &mut Client, committed: bool) {
        let request = EndTxnRequest {
            transactional_id: self.transactional_id.clone(),
            producer_id: self.producer_id,
            producer_epoch: self.epoch,
            committed,
            ..Default::default()
        };
        let ResponseBody::EndTxn(response) = client.call(RequestBody::EndTxn(request), 3) else { panic!() };
        assert_eq!(response.error_code, 0, "{response:?}");
    }
}

/// ListOffsets latest of partition 0 of `topic` at its leader: `(read_uncommitted,
/// read_committed)`, the high watermark and the last stable offset.
pub fn end_offsets(client: &mut Client, topic: &str) -> (i64, i64) {
    let mut latest = |isolation_level| {
        let request = ListOffsetsRequest {
            replica_id: strand_base::BrokerId(-1),
            isolation_level,
            topics: vec![ListOffsetsTopic {
                name: topic.into(),
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

/// `read_committed` fetches of partition 0 of `topic` from offset 0 up to the last stable offset
/// (a fetch returns one segment's batches, so it takes several): every value returned, and the
/// aborted transactions the reader must skip, as (producer id, first offset).
pub fn fetch_committed(client: &mut Client, topic: &str) -> (Vec<String>, Vec<(ProducerId, i64)>) {
    let (mut values, mut aborted, mut offset) = (Vec::new(), Vec::new(), 0);
    loop {
        let request = FetchRequest {
            max_wait_ms: 0,
            max_bytes: 1 << 20,
            isolation_level: 1,
            topics: vec![FetchTopic {
                topic: topic.into(),
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
