//! Racks across processes: `broker.rack` is registered, shown by Metadata and DescribeCluster,
//! and spreads new partitions' replicas over racks (Kafka's striped placement); with Kafka's
//! rack-aware `replica.selector.class`, a consumer's Fetch naming its rack (`client.rack`) is
//! sent by the leader to an in-sync follower of that rack, which serves it (KIP-392) and says so
//! in its log.

mod common;

use std::collections::BTreeMap;

use common::cluster::{Cluster, leader_of, partitions};
use common::{WAIT_MAX, batch, produce};
use strand_base::BrokerId;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::CreatableTopic;
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use strand_protocol::messages::fetch_response::PartitionData;
use strand_protocol::messages::{CreateTopicsRequest, DescribeClusterRequest, FetchRequest, MetadataRequest};
use strand_protocol::records::RecordBatches;

const SELECTOR: &str = "replica.selector.class=org.apache.kafka.common.replica.RackAwareReplicaSelector";

/// Nodes 1 and 2 in rack "east", 3 and 4 in "west" (node 4 a broker only).
fn rack_of(id: i32) -> &'static str {
    if id <= 2 { "east" } else { "west" }
}

fn start() -> Cluster {
    let racks: Vec<String> = (1..=4).map(|id| format!("broker.rack={}", rack_of(id))).collect();
    let node_settings: Vec<[&str; 1]> = racks.iter().map(|r| [r.as_str()]).collect();
    let node_settings: Vec<&[&str]> = node_settings.iter().map(|s| &s[..]).collect();
    Cluster::start_with_node_settings(4, 3, &[SELECTOR], &node_settings)
}

fn create(cluster: &Cluster, name: &str, partitions: i32, replication_factor: i16) {
    let topic =
        CreatableTopic { name: name.into(), num_partitions: partitions, replication_factor, ..Default::default() };
    let request = CreateTopicsRequest { topics: vec![topic], timeout_ms: 10_000, ..Default::default() };
    let ResponseBody::CreateTopics(created) = cluster.node(1).connect().call(RequestBody::CreateTopics(request), 7)
    else {
        panic!("not a CreateTopics response")
    };
    assert_eq!(created.topics[0].error_code, 0, "{:?}", created.topics[0]);
}

/// Racks as registered: Metadata and DescribeCluster name each broker's; every partition of a
/// topic with two replicas has one in each rack, and leaderships cover both racks.
#[test]
fn racks_are_registered_and_spread_replicas() {
    let _serial = common::serial();
    let cluster = start();
    let metadata = cluster.wait_for_metadata(1, "listed four brokers", |m| m.brokers.len() == 4);
    let racks: BTreeMap<i32, Option<String>> = metadata.brokers.iter().map(|b| (b.node_id.0, b.rack.clone())).collect();
    let expected: BTreeMap<i32, Option<String>> = (1..=4).map(|id| (id, Some(rack_of(id).to_owned()))).collect();
    assert_eq!(racks, expected, "Metadata");
    // DescribeCluster is asked of node 4, whose image may be a moment behind node 1's.
    cluster.wait_for_metadata(4, "listed four brokers", |m| m.brokers.len() == 4);
    let request = DescribeClusterRequest { endpoint_type: 1, ..Default::default() };
    let ResponseBody::DescribeCluster(described) =
        cluster.node(4).connect().call(RequestBody::DescribeCluster(request), 1)
    else {
        panic!("not a DescribeCluster response")
    };
    let racks: BTreeMap<i32, Option<String>> =
        described.brokers.iter().map(|b| (b.broker_id.0, b.rack.clone())).collect();
    assert_eq!(racks, expected, "DescribeCluster");

    create(&cluster, "spread", 8, 2);
    let metadata = cluster.wait_for_metadata(1, "placed spread", |m| partitions(m, "spread").len() == 8);
    let placed = partitions(&metadata, "spread");
    for (partition, _, replicas, _) in &placed {
        let mut racks: Vec<&str> = replicas.iter().map(|id| rack_of(*id)).collect();
        racks.sort_unstable();
        assert_eq!(racks, ["east", "west"], "partition {partition}: replicas {replicas:?}");
    }
    let leader_racks: std::collections::BTreeSet<&str> = placed.iter().map(|(_, l, _, _)| rack_of(*l)).collect();
    assert_eq!(leader_racks.len(), 2, "{placed:?}");
}

/// KIP-392 end to end: the leader sends a consumer of another rack to the in-sync follower of its
/// rack (`preferred_read_replica`, no records); that follower serves every committed record
/// (its log says so), reads nothing at its high watermark and answers OFFSET_OUT_OF_RANGE past
/// its log end; a consumer of the leader's rack is served by the leader.
#[test]
fn a_consumer_reads_from_the_follower_in_its_rack() {
    let _serial = common::serial();
    let cluster = start();
    create(&cluster, "reads", 1, 3);
    let leader = leader_of(&cluster, 1, "reads", |_, isr| isr.len() == 3);
    let metadata = cluster.wait_for_metadata(leader, "named the leader", |m| {
        partitions(m, "reads").first().is_some_and(|p| p.1 == leader && p.3.len() == 3)
    });
    let replicas = partitions(&metadata, "reads")[0].2.clone();
    let client_rack = if rack_of(leader) == "east" { "west" } else { "east" };
    let follower = *replicas.iter().find(|id| rack_of(**id) == client_rack).expect("a replica in each rack");

    let mut to_leader = cluster.node(leader).connect();
    let values: Vec<String> = (0..10).map(|i| format!("r{i}")).collect();
    let refs: Vec<&str> = values.iter().map(String::as_str).collect();
    assert_eq!(produce(&mut to_leader, "reads", -1, batch(&refs)), (0, 0));

    let sent = fetch(&mut to_leader, 0, client_rack, 0);
    assert_eq!((sent.error_code, sent.preferred_read_replica), (0, BrokerId(follower)), "leader {leader}");
    assert!(sent.records.as_ref().is_none_or(|r| r.is_empty()));
    assert_eq!(sent.high_watermark, 10);
    let own_rack = fetch(&mut to_leader, 0, rack_of(leader), 0);
    assert_eq!(own_rack.preferred_read_replica, BrokerId(-1));
    assert_eq!(record_values(&own_rack), values);

    let mut to_follower = cluster.node(follower).connect();
    let mut read = Vec::new();
    for _ in 0..WAIT_MAX.as_millis() / 100 {
        // The follower learns the high watermark on its next fetch from the leader.
        let data = fetch(&mut to_follower, 0, client_rack, 100);
        assert_eq!((data.error_code, data.preferred_read_replica), (0, BrokerId(-1)));
        read = record_values(&data);
        if read.len() == values.len() {
            break;
        }
    }
    assert_eq!(read, values, "read from follower {follower}");
    let at_end = fetch(&mut to_follower, 10, client_rack, 0);
    assert_eq!((at_end.error_code, record_values(&at_end).len()), (0, 0));
    let past_end = fetch(&mut to_follower, 11, client_rack, 0);
    assert_eq!(past_end.error_code, ErrorCode::OffsetOutOfRange.code());
    let log = cluster.node(follower).log.lock().map(|l| l.join("\n")).unwrap_or_default();
    assert!(log.contains("serving consumer fetches of reads-0 from this follower"), "follower {follower}:\n{log}");
}

/// A consumer's Fetch v17 of `reads-0` from `offset`, from a client in `rack`.
fn fetch(client: &mut common::Client, offset: i64, rack: &str, max_wait_ms: i32) -> PartitionData {
    let request = FetchRequest {
        max_wait_ms,
        min_bytes: 1,
        max_bytes: 1 << 20,
        session_epoch: -1,
        rack_id: rack.to_owned(),
        topics: vec![FetchTopic {
            topic_id: topic_id(client, "reads"),
            partitions: vec![FetchPartition {
                partition: 0,
                current_leader_epoch: -1,
                fetch_offset: offset,
                last_fetched_epoch: -1,
                log_start_offset: -1,
                partition_max_bytes: 1 << 20,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::Fetch(mut response) = client.call(RequestBody::Fetch(request), 17) else {
        panic!("not a Fetch response")
    };
    response.responses.remove(0).partitions.remove(0)
}

fn topic_id(client: &mut common::Client, name: &str) -> strand_base::Uuid {
    let request = MetadataRequest { topics: None, ..Default::default() };
    let ResponseBody::Metadata(metadata) = client.call(RequestBody::Metadata(request), 12) else {
        panic!("not a Metadata response")
    };
    metadata.topics.iter().find(|t| t.name.as_deref() == Some(name)).expect("topic known").topic_id
}

fn record_values(data: &PartitionData) -> Vec<String> {
    let bytes = data.records.as_ref().and_then(|r| r.as_bytes()).cloned().unwrap_or_default();
    let mut values = Vec::new();
    for batch in RecordBatches::new(bytes) {
        for record in batch.expect("whole batch").records().expect("records").iter() {
            values.push(String::from_utf8_lossy(record.expect("record").value().unwrap_or_default()).into_owned());
        }
    }
    values
}
