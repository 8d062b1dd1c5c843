//! The internal topics' names, defined once for every crate, as Kafka's
//! `org.apache.kafka.common.internals.Topic` defines them.

/// The group coordinator's state: groups and committed offsets (`GROUP_METADATA_TOPIC_NAME`).
pub const OFFSETS_TOPIC: &str = "__consumer_offsets";

/// The transaction coordinator's state: transactional ids and their transactions.
pub const TRANSACTION_STATE_TOPIC: &str = "__transaction_state";

/// The share coordinator's state (KIP-932). Strand serves no share groups yet; the name is
/// reserved, and reported internal, as in Kafka.
pub const SHARE_GROUP_STATE_TOPIC: &str = "__share_group_state";

/// The KRaft metadata log. It is the quorum's own log, not a topic of the metadata image, and no
/// client may create a topic of this name.
pub const CLUSTER_METADATA_TOPIC: &str = "__cluster_metadata";

/// The topics Metadata reports as internal and clients may not produce to (Kafka's
/// `Topic.INTERNAL_TOPICS`); the metadata log is not among them.
pub const INTERNAL_TOPICS: [&str; 3] = [OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC, SHARE_GROUP_STATE_TOPIC];

/// Whether `name` is one of [`INTERNAL_TOPICS`] (Kafka's `Topic.isInternal`).
pub fn is_internal(name: &str) -> bool {
    INTERNAL_TOPICS.contains(&name)
}
