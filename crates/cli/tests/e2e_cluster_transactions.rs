//! Transactions across processes: when a transaction coordinator dies, the node that takes
//! over its `__transaction_state` partition finishes its transactions.

mod common;

use common::cluster::{Cluster, create_topic, leader_of};
use common::txn::{TxnProducer, end_offsets, fetch_committed, until};

/// Transactions survive their coordinator: a transaction committed just before its coordinator
/// is killed (`kill -9`; its COMMIT markers may or may not have gone out) is completed by the
/// node that takes over the transactional id's `__transaction_state` partition, so its records
/// become visible to `read_committed`; the producer goes on through the new coordinator, and a
/// transaction it leaves open is aborted there when its timeout passes.
#[test]
fn the_transaction_coordinator_dies_and_another_finishes_its_transactions() {
    let _serial = common::serial();
    let mut cluster = Cluster::start(3);
    const TOPIC: &str = "txn-data";
    const ID: &str = "cluster-txn";
    create_topic(&cluster, 1, TOPIC, 1);
    leader_of(&cluster, 1, TOPIC, |_, isr| isr.len() == 3);

    let coordinator = TxnProducer::coordinator(&mut cluster.node(1).connect(), ID);
    let producer = TxnProducer::init(&mut cluster.node(coordinator).connect(), ID, TOPIC, 4_000);
    producer.add_partition(&mut cluster.node(coordinator).connect());
    let leader = leader_of(&cluster, 1, TOPIC, |_, _| true);
    assert_eq!(producer.produce(&mut cluster.node(leader).connect(), 0, &["a", "b", "c"]), 0);
    producer.end(&mut cluster.node(coordinator).connect(), true);
    cluster.kill(coordinator);

    // The partition's leader (another node if the coordinator led it) gets the COMMIT marker
    // from whichever coordinator sends it.
    let survivor = (1..=3).find(|id| *id != coordinator).expect("a survivor");
    let leader = leader_of(&cluster, survivor, TOPIC, |leader, _| leader != coordinator);
    let mut data = cluster.node(leader).connect();
    // Records 0-2 and a COMMIT marker; the successor may write a second one (see below).
    let committed = |offsets: &(i64, i64)| offsets.0 == offsets.1 && (4..=5).contains(&offsets.0);
    until("the commit marker", || end_offsets(&mut data, TOPIC), committed);
    assert_eq!(fetch_committed(&mut data, TOPIC).0, ["a", "b", "c"]);

    // The producer carries on with the new coordinator; its next transaction stays open and is
    // aborted when its timeout passes.
    let successor = until(
        "a new coordinator",
        || TxnProducer::coordinator(&mut cluster.node(survivor).connect(), ID),
        |node| *node != coordinator,
    );
    producer.add_partition(&mut cluster.node(successor).connect());
    // The successor lets a new transaction start only once it has sent the first one's markers
    // again (it cannot know the dead coordinator's arrived), so a second COMMIT marker may follow
    // the first, as in Kafka: the next record's offset is read, not assumed.
    let (start, stable) = end_offsets(&mut data, TOPIC);
    assert!(start == 4 || start == 5, "one or two COMMIT markers, not {start}");
    assert_eq!(stable, start);
    assert_eq!(producer.produce(&mut data, 3, &["x", "y"]), start);
    assert_eq!(end_offsets(&mut data, TOPIC), (start + 2, start), "the open transaction holds read_committed");
    until(
        "the timed-out transaction's ABORT marker",
        || end_offsets(&mut data, TOPIC),
        |offsets| *offsets == (start + 3, start + 3),
    );
    let (values, aborted) = fetch_committed(&mut data, TOPIC);
    assert_eq!(aborted, [(producer.producer_id, start)]);
    assert_eq!(values, ["a", "b", "c", "x", "y"]);
}
