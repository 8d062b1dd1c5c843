//! Replication across processes: records acknowledged with `acks=all` survive their leader's
//! death and a network partition that cuts the leader off, and a reassigned partition (KIP-455)
//! takes its data to its new replicas and leaves none behind.

mod common;

use std::time::Duration;

use common::cluster::{
    Cluster, PartitionableCluster, create_assigned_topic, create_topic, index, leader_of, partitions, read_committed,
};
use common::{WAIT_MAX, batch, produce};
use strand_base::BrokerId;
use strand_protocol::messages::alter_partition_reassignments_request::{ReassignablePartition, ReassignableTopic};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::{CreatableTopic, CreatableTopicConfig};
use strand_protocol::messages::{
    AlterPartitionReassignmentsRequest, CreateTopicsRequest, ListPartitionReassignmentsRequest, MetadataResponse,
};

/// Replication end to end: records acknowledged with `acks=all` are on every in-sync replica, so
/// after the leader is killed (`kill -9`) the new leader serves every one of them; the cluster
/// takes writes again at once, and the old leader, restarted, catches up and rejoins the ISR,
/// after which it alone can serve the whole log.
#[test]
fn acknowledged_writes_survive_the_leader_dying() {
    let _serial = common::serial();
    let mut cluster = Cluster::start(3);
    create_topic(&cluster, 1, "durable", 1);
    let first = leader_of(&cluster, 1, "durable", |_, isr| isr.len() == 3);
    leader_of(&cluster, first, "durable", |leader, _| leader == first);
    let mut client = cluster.node(first).connect();
    let mut expected = Vec::new();
    for i in 0..50 {
        let values = [format!("a{i}"), format!("b{i}")];
        let refs: Vec<&str> = values.iter().map(String::as_str).collect();
        assert_eq!(produce(&mut client, "durable", -1, batch(&refs)), (0, 2 * i), "batch {i}");
        expected.extend(values);
    }
    drop(client);

    cluster.kill(first);
    let survivor = if first == 1 { 2 } else { 1 };
    let second = leader_of(&cluster, survivor, "durable", |leader, _| leader != first);
    leader_of(&cluster, second, "durable", |leader, _| leader == second);
    let mut client = cluster.node(second).connect();
    assert_eq!(
        read_committed(&mut client, "durable", expected.len()),
        expected,
        "the new leader has every acknowledged record"
    );
    assert_eq!(produce(&mut client, "durable", -1, batch(&["after"])).0, 0, "writes go on without the old leader");
    expected.push("after".to_owned());
    drop(client);

    cluster.restart(first);
    leader_of(&cluster, survivor, "durable", |_, isr| isr.contains(&first));
    // Only the restarted broker and one other remain: the other's copy must have come to it.
    let third = (1..=3).find(|id| *id != first && *id != second).expect("a third node");
    cluster.kill(second);
    cluster.kill(third);
    cluster.restart(third);
    let last = leader_of(&cluster, first, "durable", |leader, _| leader == first || leader == third);
    leader_of(&cluster, last, "durable", |leader, _| leader == last);
    let mut client = cluster.node(last).connect();
    assert_eq!(read_committed(&mut client, "durable", expected.len()), expected);
}

/// A leader cut off from every other node (a network partition, both ways, of its controller
/// and replication traffic; clients still reach it) cannot acknowledge `acks=all` writes: its
/// followers stop fetching and it can no longer shrink the ISR through the controller. The
/// others fence it and elect a new leader, which takes writes. Healed, the old leader rejoins as
/// a follower, drops what it took without acknowledging, and no acknowledged record is lost.
#[test]
fn a_partitioned_leader_cannot_acknowledge_and_loses_nothing_acknowledged() {
    let _serial = common::serial();
    let cluster = PartitionableCluster::start();
    let request = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: "split".into(),
            num_partitions: 1,
            replication_factor: 3,
            configs: vec![CreatableTopicConfig {
                name: "min.insync.replicas".into(),
                value: Some("2".into()),
                ..Default::default()
            }],
            ..Default::default()
        }],
        timeout_ms: 10_000,
        ..Default::default()
    };
    let ResponseBody::CreateTopics(created) = cluster.nodes[0].connect().call(RequestBody::CreateTopics(request), 7)
    else {
        panic!()
    };
    assert_eq!(created.topics[0].error_code, 0, "{:?}", created.topics[0]);
    let isr_of_three = |m: &MetadataResponse| partitions(m, "split").first().is_some_and(|p| p.3.len() == 3);
    let old = cluster.wait_for_metadata(1, "put the topic's replicas in sync", isr_of_three);
    let old_leader = partitions(&old, "split")[0].1;
    cluster.wait_for_metadata(old_leader, "named itself leader", |m| {
        partitions(m, "split").first().is_some_and(|p| p.1 == old_leader)
    });
    let mut to_old = cluster.nodes[index(old_leader)].connect();
    let mut acknowledged = Vec::new();
    for i in 0..5 {
        let value = format!("before-{i}");
        assert_eq!(produce(&mut to_old, "split", -1, batch(&[&value])).0, 0);
        acknowledged.push(value);
    }

    for proxy in cluster.proxies_of(old_leader) {
        proxy.cut();
    }
    let survivor = (1..=3).find(|id| *id != old_leader).expect("a survivor");
    let after = cluster.wait_for_metadata(survivor, "elected a new leader", |m| {
        partitions(m, "split").first().is_some_and(|p| p.1 >= 0 && p.1 != old_leader)
    });
    let new_leader = partitions(&after, "split")[0].1;
    // The old leader still believes it leads, and clients reach it, but it cannot acknowledge.
    let (code, _) = produce(&mut to_old, "split", -1, batch(&["unacknowledged"]));
    assert_ne!(code, 0, "the partitioned old leader acknowledged an acks=all write");
    cluster.wait_for_metadata(new_leader, "named itself leader", |m| {
        partitions(m, "split").first().is_some_and(|p| p.1 == new_leader)
    });
    let mut to_new = cluster.nodes[index(new_leader)].connect();
    for i in 0..5 {
        let value = format!("after-{i}");
        assert_eq!(produce(&mut to_new, "split", -1, batch(&[&value])).0, 0, "the new leader takes writes");
        acknowledged.push(value);
    }

    for proxy in cluster.proxies_of(old_leader) {
        proxy.heal();
    }
    cluster.wait_for_metadata(survivor, "took the old leader back into the ISR", isr_of_three);
    assert_eq!(read_committed(&mut to_new, "split", acknowledged.len()), acknowledged, "the new leader's log");
    // The old leader, a follower now, truncated its unacknowledged write: lead it again and read.
    let old_back = cluster.wait_for_metadata(old_leader, "caught up", |m| {
        partitions(m, "split").first().is_some_and(|p| p.3.contains(&old_leader))
    });
    assert_ne!(partitions(&old_back, "split")[0].1, -1);
    let mut reader = cluster.nodes[index(old_leader)].connect();
    let hw_values = |client: &mut common::Client| read_committed(client, "split", acknowledged.len());
    if partitions(&old_back, "split")[0].1 == old_leader {
        assert_eq!(hw_values(&mut reader), acknowledged, "the old leader's log");
    }
}

/// Partition reassignment (KIP-455) end to end: a partition whose only replica is on broker 1,
/// holding records, is reassigned to brokers 2 and 3 through broker 3; ListPartitionReassignments
/// reports it in progress until the new replicas have copied the log and joined the ISR, then no
/// more; a new replica leads and serves every record, and broker 1 has deleted its replica.
#[test]
fn a_reassigned_partition_takes_its_data_and_leaves_no_replica_behind() {
    let _serial = common::serial();
    let cluster = Cluster::start(3);
    create_assigned_topic(&cluster, 2, "moved", &[&[1]], &[]);
    cluster.wait_for_metadata(1, "hosted the topic", |m| partitions(m, "moved") == [(0, 1, vec![1], vec![1])]);
    let mut old_leader = cluster.node(1).connect();
    let values: Vec<String> = (0..20).map(|i| format!("record-{i}")).collect();
    for chunk in values.chunks(5) {
        let chunk: Vec<&str> = chunk.iter().map(String::as_str).collect();
        assert_eq!(produce(&mut old_leader, "moved", -1, batch(&chunk)).0, 0);
    }
    let old_replica = cluster.node(1).data.path().join("moved-0");
    assert!(old_replica.is_dir(), "broker 1 holds the partition");

    let mut admin = cluster.node(3).connect();
    let request = AlterPartitionReassignmentsRequest {
        topics: vec![ReassignableTopic {
            name: "moved".into(),
            partitions: vec![ReassignablePartition {
                partition_index: 0,
                replicas: Some(vec![BrokerId(2), BrokerId(3)]),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::AlterPartitionReassignments(altered) =
        admin.call(RequestBody::AlterPartitionReassignments(request), 0)
    else {
        panic!("not an AlterPartitionReassignments response")
    };
    assert_eq!(altered.responses[0].partitions[0].error_code, 0, "{altered:?}");
    let mut polls = 0;
    loop {
        let request = ListPartitionReassignmentsRequest { topics: None, ..Default::default() };
        let ResponseBody::ListPartitionReassignments(listed) =
            admin.call(RequestBody::ListPartitionReassignments(request), 0)
        else {
            panic!("not a ListPartitionReassignments response")
        };
        assert_eq!(listed.error_code, 0, "{listed:?}");
        if listed.topics.is_empty() {
            break;
        }
        let ongoing = &listed.topics[0].partitions[0];
        assert_eq!(ongoing.replicas, [BrokerId(2), BrokerId(3), BrokerId(1)], "{ongoing:?}");
        polls += 1;
        assert!(polls < WAIT_MAX.as_millis() / 50, "the reassignment did not complete within {WAIT_MAX:?}");
        std::thread::sleep(Duration::from_millis(50));
    }

    let moved = cluster.wait_for_metadata(1, "moved the partition", |m| {
        partitions(m, "moved").first().is_some_and(|(_, leader, replicas, isr)| {
            replicas == &[2, 3] && isr.len() == 2 && replicas.contains(leader)
        })
    });
    let leader = partitions(&moved, "moved")[0].1;
    assert_eq!(read_committed(&mut cluster.node(leader).connect(), "moved", values.len()), values);
    // Broker 1 reconciles its replicas before its metadata shows the change, so it is gone now.
    assert!(!old_replica.exists(), "broker 1 kept {}", old_replica.display());
    for id in [2, 3] {
        assert!(cluster.node(id).data.path().join("moved-0").is_dir(), "broker {id} holds the new replica");
    }
}
