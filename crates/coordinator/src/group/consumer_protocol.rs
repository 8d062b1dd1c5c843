//! The consumer protocol embedded in classic group requests (Kafka's `ConsumerProtocol`): a
//! JoinGroup protocol's metadata is a `ConsumerProtocolSubscription`, a SyncGroup assignment a
//! `ConsumerProtocolAssignment`, each behind a 2-byte version. The group coordinator reads them only
//! where a consumer group serves classic members or a group changes protocol (online migration);
//! classic groups otherwise pass them between members unread.
//!
//! Versions above the newest known (3) are read as 3, as Kafka reads them: later versions only
//! append fields.

use bytes::{BufMut, Bytes, BytesMut};
use strand_base::Uuid;
use strand_protocol::codec::{Decoder, Struct};
use strand_protocol::frame::decode_allocation_max;
use strand_protocol::messages::consumer_group_heartbeat_request::TopicPartitions as OwnedPartitions;
use strand_protocol::messages::consumer_protocol_assignment::{
    ConsumerProtocolAssignment, TopicPartition as AssignedTopic,
};
use strand_protocol::messages::consumer_protocol_subscription::ConsumerProtocolSubscription;

use super::consumer::Assignment;
use super::metadata::TopicMetadata;

/// The newest embedded consumer protocol version.
pub const CONSUMER_PROTOCOL_VERSION_MAX: i16 = 3;

/// The version prefix of embedded protocol bytes, capped at the newest known; `None` if missing
/// or negative.
pub fn version(bytes: &Bytes) -> Option<i16> {
    let prefix = bytes.get(..2)?;
    let version = i16::from_be_bytes([prefix[0], prefix[1]]);
    (version >= 0).then_some(version.min(CONSUMER_PROTOCOL_VERSION_MAX))
}

/// A decoder of a client's embedded protocol bytes, within the allocation budget a request of
/// their size gets ([`decode_allocation_max`]): a subscription of thousands of empty topic names
/// would otherwise cost the group far more than the bytes its member sent.
pub(crate) fn bounded(bytes: Bytes) -> Decoder {
    let budget = decode_allocation_max(bytes.len());
    Decoder::with_budget(bytes, budget)
}

/// A JoinGroup protocol's subscription; `None` if malformed.
pub fn decode_subscription(metadata: &Bytes) -> Option<ConsumerProtocolSubscription> {
    let version = version(metadata)?;
    let mut d = bounded(metadata.slice(2..));
    ConsumerProtocolSubscription::decode(&mut d, version).ok()
}

/// A SyncGroup assignment; an empty one (a member that never synced) is no partitions. `None` if
/// malformed.
pub fn decode_assignment(bytes: &Bytes) -> Option<ConsumerProtocolAssignment> {
    if bytes.is_empty() {
        return Some(ConsumerProtocolAssignment::default());
    }
    let version = version(bytes)?;
    let mut d = bounded(bytes.slice(2..));
    ConsumerProtocolAssignment::decode(&mut d, version).ok()
}

/// `assignment` (topics by id) as SyncGroup assignment bytes at `version`, topics by name, sorted;
/// topics the metadata no longer knows are left out.
pub fn encode_assignment(assignment: &Assignment, metadata: &TopicMetadata, version: i16) -> Bytes {
    let assigned_partitions = assignment
        .iter()
        .filter_map(|(topic_id, partitions)| {
            Some(AssignedTopic {
                topic: metadata.name(*topic_id)?.to_owned(),
                partitions: partitions.iter().copied().collect(),
            })
        })
        .collect();
    let value = ConsumerProtocolAssignment { assigned_partitions, user_data: None };
    let mut out = BytesMut::new();
    out.put_i16(version);
    // Encoding a struct built here cannot fail: it has no field a version lacks.
    if let Err(error) = value.encode(&mut out, version) {
        tracing::error!(%error, "could not encode a consumer protocol assignment");
    }
    out.freeze()
}

/// A consumer protocol assignment's partitions by topic id; topics the metadata does not know are
/// left out (Kafka's `toTopicPartitionMap`).
pub fn assignment_by_id(assignment: &ConsumerProtocolAssignment, metadata: &TopicMetadata) -> Assignment {
    let mut by_id = Assignment::new();
    for topic in &assignment.assigned_partitions {
        if let Some(id) = metadata.id(&topic.topic) {
            by_id.entry(id).or_default().extend(topic.partitions.iter().copied());
        }
    }
    by_id.retain(|_, partitions| !partitions.is_empty());
    by_id
}

/// The partitions a classic member reports owning in its subscription, by topic id, as a
/// ConsumerGroupHeartbeat reports them (Kafka's `toTopicPartitions`).
pub fn owned_partitions(subscription: &ConsumerProtocolSubscription, metadata: &TopicMetadata) -> Vec<OwnedPartitions> {
    subscription
        .owned_partitions
        .iter()
        .filter_map(|topic| {
            let topic_id: Uuid = metadata.id(&topic.topic)?;
            Some(OwnedPartitions { topic_id, partitions: topic.partitions.clone(), ..OwnedPartitions::default() })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subscription(topics: Vec<String>) -> Bytes {
        let mut out = BytesMut::new();
        out.put_i16(0);
        let subscription = ConsumerProtocolSubscription { topics, ..ConsumerProtocolSubscription::default() };
        subscription.encode(&mut out, 0).expect("encodes");
        out.freeze()
    }

    /// A subscription decodes within the budget its bytes would get as a request: real topic
    /// names do; a hundred thousand one-character ones (a 24-byte slot and a 32-byte allocation
    /// each, for 3 bytes on the wire) do not.
    #[test]
    fn subscriptions_decode_within_an_allocation_budget() {
        let named: Vec<String> = (0..10_000).map(|i| format!("orders-{i}")).collect();
        let decoded = decode_subscription(&subscription(named.clone())).map(|s| s.topics);
        assert_eq!(decoded.as_ref(), Some(&named));
        let amplifying = subscription(vec!["t".to_owned(); 100_000]);
        assert!(decode_subscription(&amplifying).is_none());
        assert!(super::super::classic::decode_subscription_topics(&amplifying).is_none());
    }
}
