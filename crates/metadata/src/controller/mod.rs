//! The controller's decisions, as pure functions: each takes the current [`MetadataImage`](crate::image::MetadataImage), a
//! request and the inputs it may not make up itself (ids, epochs, defaults), and returns a
//! [`ControllerResult`]: the records to append and the response to send once they are committed.
//! Nothing here changes state; the records change the image when they are replayed
//! ([`crate::image::MetadataDelta`]), as Kafka's `ControllerResult` and `MetadataDelta` work.
//!
//! - [`create_topics`], [`delete_topics`], [`create_partitions`]: topics and partitions, with
//!   Kafka's validation and error codes (`ReplicationControlManager`, `ControllerApis`).
//! - [`incremental_alter_configs`], [`alter_configs`]: topic configs, and the dynamic broker
//!   configs that are topic configs' cluster defaults (`ConfigurationControlManager`).
//! - [`alter_user_scram_credentials`]: users' SCRAM credentials (`ScramControlManager`, KIP-554).
//! - [`create_delegation_token`], [`renew_delegation_token`], [`expire_delegation_token`],
//!   [`expired_tokens`]: delegation tokens (`DelegationTokenControlManager`, KIP-48).
//! - [`create_acls`], [`delete_acls`]: ACL bindings (`AclControlManager`).
//! - [`alter_client_quotas`]: client and IP quotas (`ClientQuotaControlManager`, KIP-546).
//! - [`allocate_producer_ids`]: the next block of producer ids (`ProducerIdControlManager`).
//! - [`register_broker`]: a broker's registration (`ClusterControlManager.registerBroker`);
//!   [`register_controller`]: a controller's (KIP-919).
//! - [`broker_heartbeat`]: a broker's next [`BrokerControlState`] (unfenced once caught up,
//!   fenced on request, controlled shutdown) and the records of the move; [`fence_broker`] when
//!   its session expires, [`unfence_broker`]; [`BrokerHeartbeatTracker`], the sessions' soft state
//!   those decisions take as inputs (`BrokerHeartbeatManager`); the log dirs a heartbeat
//!   reports offline ([`offline_dir_records`], KIP-858).
//! - [`assign_replicas_to_dirs`]: which of a broker's log dirs holds each of its replicas
//!   (KIP-858's AssignReplicasToDirs), `ReplicationControlManager`.
//! - [`alter_partition`]: a leader's ISR change (KIP-841 eligibility), `ReplicationControlManager`.
//! - [`elect_leaders`] (KIP-460), [`preferred_leader_moves`] (`auto.leader.rebalance.enable`),
//!   [`unclean_leader_moves`]: elections on request or on a schedule.
//! - [`alter_partition_reassignments`], [`list_partition_reassignments`]: partition
//!   reassignment (KIP-455), completed by whichever later change finds the new replicas in sync.
//! - `partition_change`: one partition's next leader, ISR and replicas (`PartitionChangeBuilder`),
//!   which every leader, ISR or replica move above goes through.
//! - [`bootstrap_records`]: the feature levels a new cluster starts with ([`BootstrapFeatures`]);
//!   [`update_features`]: changing them (`FeatureControlManager`, KIP-584 and KIP-1022).
//! - [`authorization`]: a forwarded request checked with its client's principal.
//! - [`screening`]: deciding a large client request mostly outside the controller's lock
//!   (narrowing it to the entries that write records, merging the answers).
//! - [`topic_configs`]: the topic config table, validation and effective values;
//!   [`topic_name`]: topic name rules; `placement`: where replicas go (striped over racks).
//!
//! Every record is written at the newest version this build knows ([`ApiMessageAndVersion`]).
//! Each result's records form one atomic batch.
//!
//! The caller's contract: decide against an image that includes every record already appended,
//! committed or not (or decide one operation at a time, replaying each before the next), since a
//! decision only sees its image. Two AllocateProducerIds decided on the same image would hand out
//! the same block.
//!
//! What it is not: no clock (times are inputs, as the heartbeat tracker's `now_ms`), no randomness
//! (topic ids come from the `new_topic_id` input; placement shuffles with a generator seeded by
//! the topic name), no I/O. Authorization is not the decisions' business: the broker filters
//! what a principal may do before forwarding, and the controller checks again with
//! [`authorization`] before deciding.

mod acls;
mod alter_partition;
mod assign_dirs;
pub mod authorization;
mod bootstrap;
mod broker_heartbeat;
mod broker_lifecycle;
mod client_quotas;
mod cluster;
mod configs;
mod controller_registration;
mod create_partitions;
mod create_topics;
mod delegation_tokens;
mod delete_topics;
mod elect_leaders;
mod features;
mod heartbeat_tracker;
mod partition_change;
mod placement;
mod producer_ids;
mod raft_voters;
mod reassignment;
mod scram;
pub mod screening;
/// The topic config table moved to the image, where the effective-config resolver reads it.
pub use crate::image::topic_configs;
pub mod topic_name;

use std::collections::BTreeMap;

use strand_base::BrokerId;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::records::MetadataRecord;

use crate::image::{MetadataImage, TopicConfigResolver};

pub use acls::{create_acls, delete_acls};
pub use alter_partition::alter_partition;
pub use assign_dirs::assign_replicas_to_dirs;
pub use bootstrap::{BootstrapFeatures, bootstrap_records};
pub use broker_heartbeat::{BrokerControlState, HeartbeatFacts, HeartbeatInputs, broker_heartbeat};
pub use broker_lifecycle::{fence_broker, offline_dir_records, unfence_broker, unregister_broker};
pub use client_quotas::{IP_QUOTA_KEYS, QuotaKeyType, USER_CLIENT_QUOTA_KEYS, alter_client_quotas};
pub use cluster::{InitialFencing, PreviousSession, RegisterBrokerInputs, register_broker};
pub use configs::{LISTENER_TLS_STORE_KEYS, alter_configs, incremental_alter_configs, listener_tls_store_key};
pub use controller_registration::{METADATA_VERSION_CONTROLLER_REGISTRATION, register_controller};
pub use create_partitions::create_partitions;
pub use create_topics::create_topics;
pub use delegation_tokens::{
    METADATA_VERSION_DELEGATION_TOKENS, TokenContext, create_delegation_token, expire_delegation_token, expired_tokens,
    renew_delegation_token, token_for_hmac,
};
pub use delete_topics::delete_topics;
pub use elect_leaders::{
    ELECTIONS_PER_CALL_MAX, LeaderRebalance, elect_leaders, preferred_leader_moves, unclean_leader_moves,
};
pub use features::{LocalController, update_features, update_features_refused};
pub use heartbeat_tracker::BrokerHeartbeatTracker;
pub use placement::place_striped;
pub use producer_ids::allocate_producer_ids;
pub use raft_voters::{add_raft_voter, check_add, check_remove, check_update, remove_raft_voter, update_raft_voter};
pub use reassignment::{alter_partition_reassignments, list_partition_reassignments};
pub use scram::alter_user_scram_credentials;

/// The most partitions one CreateTopics (or CreatePartitions) may create (Kafka's
/// `MAX_PARTITIONS_PER_BATCH`): larger requests ran Kafka's controller out of memory.
pub const PARTITIONS_PER_REQUEST_MAX: i64 = 10_000;
/// The most records one client request's decision may write (Kafka's `MAX_RECORDS_PER_USER_OP`,
/// which is also its largest metadata batch); the caller refuses a larger decision whole, as
/// Kafka's controller does (POLICY_VIOLATION), and DeleteTopics fails the topics past it.
pub const RECORDS_PER_REQUEST_MAX: usize = 10_000;
/// How many ids `new_topic_id` may offer for one topic before creation fails; only an id already
/// in use, or a reserved one, is refused.
pub const TOPIC_ID_ATTEMPTS_MAX: usize = 8;

/// A metadata record and the version to write it at (Kafka's `ApiMessageAndVersion`).
#[derive(Debug, Clone, PartialEq)]
pub struct ApiMessageAndVersion {
    pub record: MetadataRecord,
    pub version: i16,
}

impl ApiMessageAndVersion {
    /// `record` at the newest version of its schema.
    pub fn latest(record: MetadataRecord) -> ApiMessageAndVersion {
        let version = MetadataRecord::versions(record.api_key()).map_or(0, |range| range.max);
        ApiMessageAndVersion { record, version }
    }
}

/// What a decision produced: records to append as one batch, and the response to send once they
/// are committed (at once when there are none).
#[derive(Debug, Clone, PartialEq)]
pub struct ControllerResult<R> {
    pub records: Vec<ApiMessageAndVersion>,
    pub response: R,
}

/// The broker settings topic creation falls back on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerDefaults {
    /// `num.partitions`, for a request with `num_partitions = -1`.
    pub num_partitions: i32,
    /// `default.replication.factor`, for a request with `replication_factor = -1`.
    pub default_replication_factor: i16,
    /// Topic config defaults that `server.properties` sets, by topic config name
    /// (`retention.ms` for `log.retention.hours`): reported with source STATIC_BROKER_CONFIG.
    pub static_topic_configs: BTreeMap<String, String>,
    /// This node's id: its dynamic broker config is a layer of every topic's effective config
    /// (Kafka's `currentControllerConfig`); `None` leaves that layer out.
    pub node_id: Option<BrokerId>,
}

impl ControllerDefaults {
    /// The effective topic configs in `image` as this node sees them.
    pub fn topic_configs<'a>(&'a self, image: &'a MetadataImage) -> TopicConfigResolver<'a> {
        TopicConfigResolver::new(image, self.node_id, &self.static_topic_configs)
    }
}

impl Default for ControllerDefaults {
    /// Kafka's defaults: one partition, one replica, no static overrides.
    fn default() -> Self {
        ControllerDefaults {
            num_partitions: 1,
            default_replication_factor: 1,
            static_topic_configs: BTreeMap::new(),
            node_id: None,
        }
    }
}

/// An error code and the message that goes with it (Kafka's `ApiError`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ApiError {
    pub code: ErrorCode,
    pub message: Option<String>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError { code, message: Some(message.into()) }
    }

    /// The code with Kafka's default message for it.
    pub fn with_default_message(code: ErrorCode) -> ApiError {
        ApiError { code, message: Some(code.message().to_owned()) }
    }

    /// The code with no message, as Kafka sends for an exception built without one.
    pub fn bare(code: ErrorCode) -> ApiError {
        ApiError { code, message: None }
    }
}
