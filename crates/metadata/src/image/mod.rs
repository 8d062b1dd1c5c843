//! The immutable picture of the cluster that the `__cluster_metadata` records build, as Kafka's
//! `MetadataImage`: what brokers, topics, partitions, configs and features exist as of one offset.
//!
//! - [`MetadataImage`]: the whole picture, shared as `Arc<MetadataImage>` and never changed. Its
//!   parts: [`FeaturesImage`] (finalized feature levels), [`ClusterImage`] (broker registrations),
//!   [`TopicsImage`] (topics by name and by id, their [`PartitionImage`]s), [`ConfigsImage`]
//!   (dynamic configs per [`ConfigResource`]), [`ProducerIdsImage`] (the next producer id block),
//!   [`ScramImage`] (users' SCRAM credentials, KIP-554), [`AclsImage`] (ACL bindings),
//!   [`ClientQuotasImage`] (client and IP quotas, KIP-546), [`DelegationTokensImage`]
//!   (delegation tokens, KIP-48), and the [`MetadataProvenance`]
//!   (offset and epoch of the last record in it).
//! - [`MetadataDelta`]: the only way to a new image. [`MetadataDelta::replay`] applies records in
//!   log order, following Kafka's `MetadataDelta.replay`; [`MetadataDelta::apply`] yields the next
//!   image. Loading after a restart is the same replay from the first record (or a snapshot).
//!
//! Cost: the image's parts sit behind `Arc`s and a delta copies a part only when a record first
//! changes it (clone on write), and topics are shared one by one, so a delta that touches one
//! topic copies the topic map's pointers and that topic, not every partition. A persistent map
//! would make the copy O(log n); the topic counts Strand targets do not need one yet.
//!
//! What it is not: no I/O and no decisions. An inconsistent record (a partition of an unknown
//! topic, a fence with a stale broker epoch) is a [`ReplayError`], never a panic. Records Strand
//! does not picture yet (controller
//! registrations, metadata transactions) are accepted and ignored.

mod acls;
pub mod client_quotas;
mod cluster;
mod configs;
mod delegation_tokens;
mod delta;
mod effective_config;
mod features;
pub mod group_configs;
mod producer_ids;
mod scram;
mod snapshot;
pub mod topic_configs;
mod topics;

use std::sync::Arc;

pub use acls::{AclsImage, StandardAcl};
pub use client_quotas::{ClientQuotaEntity, ClientQuotaFilter, ClientQuotasImage};
pub use cluster::{
    BrokerEndpoint, BrokerRegistration, ClusterImage, ControllerRegistration, FencingChange, SupportedFeatureRange,
};
pub use configs::{ConfigResource, ConfigResourceKind, ConfigsImage};
pub use delegation_tokens::{DelegationTokensImage, TokenInformation};
pub use delta::{MetadataDelta, ReplayError};
pub use effective_config::{TopicConfig, TopicConfigResolver};
pub use features::{
    ELIGIBLE_LEADER_REPLICAS_VERSION, FeaturesImage, GROUP_VERSION, KRAFT_VERSION, METADATA_VERSION,
    METADATA_VERSION_4_4_IV2, METADATA_VERSION_MIN, SHARE_VERSION, STREAMS_VERSION, SUPPORTED_FEATURES,
    TRANSACTION_VERSION, supported_range,
};
pub use producer_ids::{PRODUCER_ID_BLOCK_SIZE, ProducerIdsImage};
pub use scram::ScramImage;
pub use topics::{
    DIRECTORY_LOST, DIRECTORY_MIGRATING, DIRECTORY_UNASSIGNED, LeaderRecoveryState, NO_LEADER, NO_LEADER_CHANGE,
    PartitionImage, TopicImage, TopicsImage, is_reserved_directory,
};

/// Where an image stands in the metadata log: the offset and leader epoch of the last record it
/// contains. [`MetadataProvenance::EMPTY`] for an image built from nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MetadataProvenance {
    pub offset: i64,
    pub epoch: i32,
}

impl MetadataProvenance {
    /// The provenance of the empty image: before the first record.
    pub const EMPTY: MetadataProvenance = MetadataProvenance { offset: -1, epoch: -1 };
}

impl Default for MetadataProvenance {
    fn default() -> Self {
        MetadataProvenance::EMPTY
    }
}

/// The cluster's metadata as of [`MetadataImage::provenance`]. Immutable: share it as
/// `Arc<MetadataImage>` and build the next one with a [`MetadataDelta`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MetadataImage {
    provenance: MetadataProvenance,
    features: Arc<FeaturesImage>,
    cluster: Arc<ClusterImage>,
    topics: Arc<TopicsImage>,
    configs: Arc<ConfigsImage>,
    producer_ids: ProducerIdsImage,
    scram: Arc<ScramImage>,
    acls: Arc<AclsImage>,
    client_quotas: Arc<ClientQuotasImage>,
    delegation_tokens: Arc<DelegationTokensImage>,
}

impl MetadataImage {
    /// The image before any record: no features, brokers, topics or configs.
    pub fn empty() -> MetadataImage {
        MetadataImage::default()
    }

    /// The offset and epoch of the last record replayed into this image.
    pub fn provenance(&self) -> MetadataProvenance {
        self.provenance
    }

    /// Finalized feature levels (`metadata.version`, `transaction.version`, ...).
    pub fn features(&self) -> &FeaturesImage {
        &self.features
    }

    /// Registered brokers.
    pub fn cluster(&self) -> &ClusterImage {
        &self.cluster
    }

    /// Topics and their partitions.
    pub fn topics(&self) -> &TopicsImage {
        &self.topics
    }

    /// Dynamic configs per resource (topic overrides, dynamic broker configs).
    pub fn configs(&self) -> &ConfigsImage {
        &self.configs
    }

    /// Whether `self` and `other` share their configs (an image replayed from the other by
    /// records that set none): then no config differs between them.
    pub fn shares_configs_with(&self, other: &MetadataImage) -> bool {
        Arc::ptr_eq(&self.configs, &other.configs)
    }

    /// Where the next producer id block starts.
    pub fn producer_ids(&self) -> &ProducerIdsImage {
        &self.producer_ids
    }

    /// Users' SCRAM credentials.
    pub fn scram(&self) -> &ScramImage {
        &self.scram
    }

    /// ACL bindings.
    pub fn acls(&self) -> &AclsImage {
        &self.acls
    }

    /// Client and IP quotas.
    pub fn client_quotas(&self) -> &ClientQuotasImage {
        &self.client_quotas
    }

    /// Delegation tokens.
    pub fn delegation_tokens(&self) -> &DelegationTokensImage {
        &self.delegation_tokens
    }

    /// Whether no record has been replayed into this image.
    pub fn is_empty(&self) -> bool {
        self.provenance == MetadataProvenance::EMPTY
            && self.features.finalized().is_empty()
            && self.cluster.is_empty()
            && self.topics.is_empty()
            && self.scram.is_empty()
            && self.acls.is_empty()
            && self.client_quotas.is_empty()
            && self.delegation_tokens.is_empty()
    }
}
