//! End to end over loopback: a transactional producer's life through a real `strand server`,
//! spoken as the Java client speaks it (`common::txn`). A committed transaction becomes visible
//! to `read_committed` once its marker is written; an open one holds the last stable offset at
//! its first record; after `kill -9` and a restart, the reloaded transaction coordinator aborts
//! the open transaction when its timeout passes, and `read_committed` readers are told what to
//! skip.

mod common;

use common::Server;
use common::txn::{TxnProducer, end_offsets, fetch_committed, until};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::CreatableTopic;
use strand_protocol::messages::{CreateTopicsRequest, DescribeTransactionsRequest};

const TOPIC: &str = "orders";
const TRANSACTIONAL_ID: &str = "e2e-txn";
/// The open transaction's timeout: the coordinator aborts it this long after it began.
const TRANSACTION_TIMEOUT_MS: i32 = 2_000;
/// Timed-out transactions are looked for every 200 ms rather than every 10 s.
const OVERRIDES: &[&str] = &["transaction.abort.timed.out.transaction.cleanup.interval.ms=200"];

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
    assert_eq!(TxnProducer::coordinator(&mut client, TRANSACTIONAL_ID), 1);
    let producer = TxnProducer::init(&mut client, TRANSACTIONAL_ID, TOPIC, TRANSACTION_TIMEOUT_MS);
    producer.add_partition(&mut client);
    assert_eq!(producer.produce(&mut client, 0, &["a", "b", "c"]), 0);
    assert_eq!(end_offsets(&mut client, TOPIC), (3, 0), "the open transaction holds read_committed at its start");
    producer.end(&mut client, true);
    until("the commit marker", || end_offsets(&mut client, TOPIC), |offsets| *offsets == (4, 4));

    // A second transaction stays open: read_committed stops at its first record.
    producer.add_partition(&mut client);
    assert_eq!(producer.produce(&mut client, 3, &["x", "y"]), 4);
    assert_eq!(end_offsets(&mut client, TOPIC), (6, 4));
    assert_eq!(fetch_committed(&mut client, TOPIC).0, ["a", "b", "c"]);

    // kill -9: the transaction state and the producer state come back from the logs, and the
    // coordinator aborts the open transaction once its timeout has passed.
    let data = server.kill();
    let server = Server::start_with(data, OVERRIDES);
    let mut client = server.connect();
    until("the timed-out transaction's ABORT marker", || end_offsets(&mut client, TOPIC), |offsets| *offsets == (7, 7));
    let (values, aborted) = fetch_committed(&mut client, TOPIC);
    assert_eq!(aborted, [(producer.producer_id, 4)], "read_committed readers skip the aborted batch");
    assert_eq!(values, ["a", "b", "c", "x", "y"], "the fetch returns the batches; the reader drops x and y");

    // The coordinator records CompleteAbort once the leader has answered its WriteTxnMarkers,
    // which is after the marker is readable (as in Kafka): wait for it as for the marker.
    let describe = || {
        let request =
            DescribeTransactionsRequest { transactional_ids: vec![TRANSACTIONAL_ID.into()], ..Default::default() };
        let ResponseBody::DescribeTransactions(mut described) =
            client.call(RequestBody::DescribeTransactions(request), 0)
        else {
            panic!()
        };
        described.transaction_states.remove(0)
    };
    let state = until("the transaction's CompleteAbort", describe, |s| s.transaction_state != "PrepareAbort");
    assert_eq!((state.error_code, state.transaction_state.as_str()), (0, "CompleteAbort"), "{state:?}");
    assert!(state.producer_epoch > producer.epoch, "the abort fenced the old epoch: {state:?}");
}
