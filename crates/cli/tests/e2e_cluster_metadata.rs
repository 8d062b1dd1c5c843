//! The metadata quorum across processes: three voters elect a new active controller when theirs
//! dies, and a broker-only node follows the committed metadata log (from a voter's snapshot
//! after a restart), forwarding admin requests and holding replicas like any broker.

mod common;

use std::time::Duration;

use common::cluster::{Cluster, brokers, create_topic, leader_of, partitions, read_committed};
use common::{WAIT_MAX, batch, produce, produce_when_led};
use strand_protocol::messages::CreateTopicsRequest;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::CreatableTopic;

/// A broker that is not a voter (`process.roles=broker`) follows the committed metadata log from
/// the voters, registers through the active controller, forwards admin requests to it, and holds
/// replicas like any broker: a topic created through it with a replica on every node gets it in
/// its ISR, so records acknowledged with `acks=all` are on it; after every other node has stopped
/// and two voters come back, the partition (led by the observer or a returning voter) still
/// serves them all.
#[test]
fn a_broker_only_node_observes_the_metadata_and_replicates() {
    let _serial = common::serial();
    let mut cluster = Cluster::start_with_voters(4, 3);
    cluster.wait_for_metadata(4, "listed every broker", |m| brokers(m) == [1, 2, 3, 4]);
    let request = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: "observed".into(),
            num_partitions: 1,
            replication_factor: 4,
            ..Default::default()
        }],
        timeout_ms: 10_000,
        ..Default::default()
    };
    let ResponseBody::CreateTopics(created) = cluster.node(4).connect().call(RequestBody::CreateTopics(request), 7)
    else {
        panic!("not a CreateTopics response")
    };
    assert_eq!(created.topics[0].error_code, 0, "{:?}", created.topics[0]);
    let leader = leader_of(&cluster, 4, "observed", |_, isr| isr.len() == 4);
    leader_of(&cluster, leader, "observed", |l, _| l == leader);
    let mut client = cluster.node(leader).connect();
    for i in 0..10 {
        assert_eq!(produce(&mut client, "observed", -1, batch(&[&format!("r{i}")])), (0, i), "record {i}");
    }
    drop(client);
    let expected: Vec<String> = (0..10).map(|i| format!("r{i}")).collect();
    // Make the observer the leader: every other node stops, so only it remains in the ISR.
    for id in (1..=3).filter(|id| *id != leader) {
        cluster.terminate(id);
    }
    if leader != 4 {
        cluster.terminate(leader);
    }
    // A majority of voters must run for the controller to move leadership: bring two back.
    cluster.restart_all(&[1, 2]);
    let now = leader_of(&cluster, 4, "observed", |leader, _| [1, 2, 4].contains(&leader));
    let mut client = cluster.node(now).connect();
    assert_eq!(read_committed(&mut client, "observed", expected.len()), expected);
}

/// The snapshots (Kafka `.checkpoint` files) each voter writes of its metadata image, by node.
fn metadata_snapshots(cluster: &Cluster, ids: &[i32]) -> Vec<Vec<String>> {
    ids.iter()
        .map(|id| {
            let dir = cluster.node(*id).data.path().join("__cluster_metadata-0");
            let mut names: Vec<String> = std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .filter(|name| name.ends_with(".checkpoint"))
                .collect();
            names.sort();
            names
        })
        .collect()
}

/// With `metadata.log.max.record.bytes.between.snapshots` lowered, voters snapshot their
/// metadata image as they go; restarted, their logs start at the snapshot, so a broker-only node
/// (which keeps no copy of the log) restarting after them loads its image from a voter's
/// snapshot, and sees every topic created before it, serving one it holds a replica of.
#[test]
fn a_restarted_observer_loads_the_metadata_from_a_snapshot() {
    let _serial = common::serial();
    let mut cluster = Cluster::start_configured(4, 3, &["metadata.log.max.record.bytes.between.snapshots=1"]);
    cluster.wait_for_metadata(4, "listed every broker", |m| brokers(m) == [1, 2, 3, 4]);
    for name in ["snap-a", "snap-b"] {
        create_topic(&cluster, 1, name, 1);
    }
    let response = cluster.wait_for_metadata(4, "listed both topics", |m| {
        ["snap-a", "snap-b"].iter().all(|t| partitions(m, t).len() == 1)
    });
    let leader = partitions(&response, "snap-a")[0].1;
    let mut client = cluster.node(leader).connect();
    // Node 4 lists the topic; its leader may learn of it a moment later.
    assert_eq!(produce_when_led(&mut client, "snap-a", -1, &["kept"]), (0, 0));
    drop(client);
    const POLL: Duration = Duration::from_millis(100);
    let snapshotted = (0..WAIT_MAX.as_millis() / POLL.as_millis()).any(|_| {
        let done = metadata_snapshots(&cluster, &[1, 2, 3]).iter().all(|s| !s.is_empty());
        if !done {
            std::thread::sleep(POLL);
        }
        done
    });
    assert!(snapshotted, "not every voter snapshotted: {:?}", metadata_snapshots(&cluster, &[1, 2, 3]));

    cluster.terminate(4);
    cluster.terminate(1);
    cluster.terminate(2);
    cluster.terminate(3);
    cluster.restart_all(&[1, 2, 3]);
    cluster.restart(4);
    let response = cluster.wait_for_metadata(4, "listed both topics again", |m| {
        brokers(m) == [1, 2, 3, 4] && ["snap-a", "snap-b"].iter().all(|t| partitions(m, t).len() == 1)
    });
    let log = cluster.node(4).log.lock().map(|l| l.join("\n")).unwrap_or_default();
    assert!(log.contains("metadata image loaded from the snapshot ending at offset"), "{log}");
    let leader = partitions(&response, "snap-a")[0].1;
    leader_of(&cluster, 4, "snap-a", |l, isr| l == leader && !isr.is_empty());
    let mut client = cluster.node(leader).connect();
    assert_eq!(read_committed(&mut client, "snap-a", 1), ["kept"]);
}

/// When the active controller dies, the other voters elect another within the Raft timeouts and
/// it takes over: brokers' requests follow it, so topic creation keeps working through any node.
#[test]
fn the_active_controller_dies_and_another_takes_over() {
    let _serial = common::serial();
    let mut cluster = Cluster::start(3);
    let first = cluster.wait_for_active_controller(None);
    cluster.kill(first);
    let second = cluster.wait_for_active_controller(Some(first));
    let through = (1..=3).find(|id| *id != first).expect("a survivor");
    create_topic(&cluster, through, "after-failover", 2);
    let response = cluster.wait_for_metadata(through, "listed the new topic", |m| {
        partitions(m, "after-failover").len() == 2 && !brokers(m).contains(&first)
    });
    for (partition, leader, _, isr) in partitions(&response, "after-failover") {
        assert_ne!(leader, first, "partition {partition} led by the dead controller's broker");
        assert!(isr.contains(&leader), "partition {partition}");
    }
    assert_ne!(second, first);
}
