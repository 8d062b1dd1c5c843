//! KIP-392 on the leader: with `replica.selector.class` set to Kafka's rack-aware selector, a
//! consumer's Fetch (v11+) from a client in another rack than the leader's is answered with an
//! in-sync follower of its rack in `preferred_read_replica`, the partition's offsets and no
//! records, at once; otherwise it is read here as before.
//!
//! Broker 1 (this node, rack "a") leads `orders-0` with replicas [1, 2]; broker 2 (rack "b") is
//! the test, fetching as a follower to show the leader where its log ends.

mod common;

use std::time::Duration;

use common::Node;
use strand_base::{BrokerId, TopicPartition, Uuid};
use strand_broker::{BrokerSettings, ReplicaSelector};
use strand_metadata::controller::InitialFencing;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic, ReplicaState};
use strand_protocol::messages::fetch_response::PartitionData;
use strand_protocol::messages::{FetchRequest, FetchResponse};

const FOLLOWER: BrokerId = BrokerId(2);

fn tp() -> TopicPartition {
    TopicPartition::new("orders", 0)
}

struct Leader {
    node: Node,
    topic_id: Uuid,
}

impl Leader {
    /// Broker 1 in rack "a" leading `orders-0` (one record) with broker 2 of rack "b" in sync.
    async fn new(selector: Option<ReplicaSelector>) -> Leader {
        let settings = BrokerSettings { replica_selector: selector, ..common::settings() };
        let mut node = Node::with_settings_in_rack(settings, Some("a"));
        node.register_in_rack(FOLLOWER.0, Some("b"), InitialFencing::Unfenced);
        let topic_id = node.create_assigned("orders", &[&[1, 2]]).await;
        node.append(&tp(), 0);
        Leader { node, topic_id }
    }

    /// Broker 2 fetching as a follower from `offset`: the leader records where its log ends.
    async fn follower_fetch(&mut self, offset: i64) {
        let epoch = self.node.broker.image().cluster().broker(FOLLOWER).expect("registered").epoch;
        let mut request = self.request(offset, "", 0);
        request.replica_state = ReplicaState { replica_id: FOLLOWER, replica_epoch: epoch, ..Default::default() };
        let response = self.fetch(request, 17).await;
        assert_eq!(response.responses[0].partitions[0].error_code, 0);
    }

    fn request(&self, offset: i64, rack: &str, max_wait_ms: i32) -> FetchRequest {
        FetchRequest {
            replica_id: BrokerId(-1),
            max_wait_ms,
            min_bytes: 1,
            max_bytes: 1 << 20,
            session_epoch: -1,
            rack_id: rack.to_owned(),
            topics: vec![FetchTopic {
                topic: "orders".into(),
                topic_id: self.topic_id,
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
        }
    }

    async fn fetch(&mut self, request: FetchRequest, version: i16) -> FetchResponse {
        let call = self.node.call(RequestBody::Fetch(request), version);
        // A fetch naming a preferred replica is answered at once, whatever its wait.
        let Ok(ResponseBody::Fetch(response)) = tokio::time::timeout(Duration::from_secs(5), call).await else {
            panic!("no Fetch response within 5 s");
        };
        response
    }

    /// A consumer in `rack` fetching `orders-0` from `offset` with Fetch `version`.
    async fn consume(&mut self, offset: i64, rack: &str, version: i16) -> PartitionData {
        let request = self.request(offset, rack, 0);
        self.fetch(request, version).await.responses.remove(0).partitions.remove(0)
    }
}

fn has_records(data: &PartitionData) -> bool {
    data.records.as_ref().is_some_and(|r| !r.is_empty())
}

/// A client of rack "b" is sent to broker 2 once it is in sync and holds the offset, with the
/// leader's offsets and no records, even with a long wait and nothing to read yet; a client of the
/// leader's rack, of no rack, or on Fetch v10 is served here.
#[tokio::test]
async fn clients_of_another_rack_are_sent_to_their_follower() {
    let mut leader = Leader::new(Some(ReplicaSelector::RackAware)).await;
    let before = leader.consume(0, "b", 17).await;
    assert_eq!(before.preferred_read_replica, BrokerId(-1), "broker 2 has not fetched yet");
    leader.follower_fetch(1).await;

    let sent = leader.consume(0, "b", 17).await;
    assert_eq!((sent.error_code, sent.preferred_read_replica), (0, FOLLOWER));
    assert_eq!((sent.high_watermark, sent.last_stable_offset, sent.log_start_offset), (1, 1, 0));
    assert!(!has_records(&sent));
    let parked = leader.request(1, "b", 30_000);
    let at_end = leader.fetch(parked, 17).await.responses.remove(0).partitions.remove(0);
    assert_eq!(at_end.preferred_read_replica, FOLLOWER, "answered at once");

    for (rack, version) in [("a", 17), ("", 17), ("b", 10)] {
        let served = leader.consume(0, rack, version).await;
        assert_eq!(served.preferred_read_replica, BrokerId(-1), "rack {rack:?}, v{version}");
        assert!(has_records(&served), "rack {rack:?}, v{version}");
    }
    // Past what broker 2 holds, the leader keeps the client.
    leader.node.append(&tp(), 0);
    assert_eq!(leader.consume(1, "b", 17).await.preferred_read_replica, FOLLOWER);
    assert_eq!(leader.consume(2, "b", 17).await.preferred_read_replica, BrokerId(-1));
}

/// A fenced follower is no one's preferred replica (Kafka takes only live brokers' endpoints).
#[tokio::test]
async fn a_fenced_follower_is_not_preferred() {
    let mut leader = Leader::new(Some(ReplicaSelector::RackAware)).await;
    leader.follower_fetch(1).await;
    leader.node.fence(FOLLOWER.0);
    assert_eq!(leader.consume(0, "b", 17).await.preferred_read_replica, BrokerId(-1));
}

/// Without `replica.selector.class` (Kafka's default) every consumer stays on the leader.
#[tokio::test]
async fn without_a_selector_consumers_stay_on_the_leader() {
    let mut leader = Leader::new(None).await;
    leader.follower_fetch(1).await;
    let served = leader.consume(0, "b", 17).await;
    assert_eq!(served.preferred_read_replica, BrokerId(-1));
    assert!(has_records(&served));
}
