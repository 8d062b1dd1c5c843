//! KIP-392's replica selection on the leader: which replica a consumer should fetch a partition
//! from, given its rack (`client.rack`, sent as the Fetch's `rack_id` from v11 on).
//!
//! Kafka's `ReplicaManager.findPreferredReadReplica` with its one shipped `ReplicaSelector`,
//! `RackAwareReplicaSelector`: the candidates are the leader and the followers in the ISR whose
//! log holds the fetch offset, on brokers registered, unfenced and listening on the client's
//! listener; among those in the client's rack the leader wins, then the most caught-up follower
//! (highest log end offset, then the most recently caught up). Without a rack, or with nobody
//! in it, the leader stays: no preferred replica (`None`), as Kafka never names the leader.
//!
//! What it is not: it reads nothing itself (the replica manager reports the followers, the
//! image their racks) and does not decide which replicas may serve a read (the replication
//! crate's `ReadFrom`).

use strand_base::{BrokerId, Offset, TopicPartition};
use strand_metadata::image::MetadataImage;
use strand_replication::FollowerStatus;

use crate::Broker;

/// `replica.selector.class`: the selectors Strand has (Kafka's default, none, leaves every
/// consumer on the leader).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplicaSelector {
    /// `org.apache.kafka.common.replica.RackAwareReplicaSelector`.
    RackAware,
}

impl ReplicaSelector {
    /// The class name of Kafka's rack-aware selector, the one value `replica.selector.class` takes.
    pub const RACK_AWARE_CLASS: &'static str = "org.apache.kafka.common.replica.RackAwareReplicaSelector";

    /// The selector a `replica.selector.class` value names, if Strand has it.
    pub fn from_class_name(name: &str) -> Option<ReplicaSelector> {
        (name == Self::RACK_AWARE_CLASS).then_some(ReplicaSelector::RackAware)
    }
}

/// Where a consumer on `listener` in `client_rack` should read `tp` from `fetch_offset` (see the
/// module doc): a follower's id, or `None` to stay on this leader (also when this node does not
/// lead `tp`, or no selector is configured).
pub(crate) fn preferred_read_replica(
    broker: &Broker,
    image: &MetadataImage,
    tp: &TopicPartition,
    client_rack: &str,
    listener: &str,
    fetch_offset: Offset,
) -> Option<BrokerId> {
    let ReplicaSelector::RackAware = broker.settings.replica_selector?;
    if client_rack.is_empty() {
        return None;
    }
    let (_, followers) = broker.replicas.read_replica_candidates(tp, fetch_offset).ok()??;
    let rack_of = |id: BrokerId| broker.endpoint_of(image, id, listener).and_then(|e| e.rack);
    if rack_of(broker.identity.node_id).as_deref() == Some(client_rack) {
        return None;
    }
    let same_rack = followers.into_iter().filter(|f| rack_of(f.broker_id).as_deref() == Some(client_rack));
    most_caught_up(same_rack)
}

/// Kafka's `ReplicaView.comparator` maximum: the highest log end offset, then the most recent
/// catch-up; a full tie goes to the lowest id (Kafka's pick among equals is a hash set's order).
fn most_caught_up(followers: impl Iterator<Item = FollowerStatus>) -> Option<BrokerId> {
    followers
        .max_by(|a, b| {
            (a.log_end_offset, a.last_caught_up_time_ms, std::cmp::Reverse(a.broker_id)).cmp(&(
                b.log_end_offset,
                b.last_caught_up_time_ms,
                std::cmp::Reverse(b.broker_id),
            ))
        })
        .map(|f| f.broker_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn follower(id: i32, log_end_offset: Offset, last_caught_up_time_ms: i64) -> FollowerStatus {
        FollowerStatus { broker_id: BrokerId(id), log_end_offset, log_start_offset: 0, last_caught_up_time_ms }
    }

    /// The most caught-up follower wins: log end first, then the latest catch-up, then the
    /// lowest id.
    #[test]
    fn most_caught_up_follower_is_chosen() {
        let check = |followers: Vec<FollowerStatus>, expected: Option<i32>| {
            assert_eq!(most_caught_up(followers.into_iter()), expected.map(BrokerId));
        };
        check(vec![], None);
        check(vec![follower(2, 10, 5), follower(3, 12, 1)], Some(3));
        check(vec![follower(2, 12, 5), follower(3, 12, 1)], Some(2));
        check(vec![follower(3, 12, 5), follower(2, 12, 5)], Some(2));
    }

    /// Only Kafka's rack-aware selector's class name is recognised.
    #[test]
    fn only_the_rack_aware_class_is_known() {
        assert_eq!(
            ReplicaSelector::from_class_name(ReplicaSelector::RACK_AWARE_CLASS),
            Some(ReplicaSelector::RackAware)
        );
        assert_eq!(ReplicaSelector::from_class_name("org.apache.kafka.common.replica.ReplicaSelector"), None);
        assert_eq!(ReplicaSelector::from_class_name(""), None);
    }
}
