//! The records a new cluster's metadata log starts with: its finalized features, as Kafka 4.4's
//! `kafka-storage format` writes them (`Formatter` then `BootstrapMetadata.fromVersions`).

use strand_protocol::messages::FeatureLevelRecord;
use strand_protocol::messages::records::MetadataRecord;

use super::ApiMessageAndVersion;
use crate::image::{
    ELIGIBLE_LEADER_REPLICAS_VERSION, GROUP_VERSION, KRAFT_VERSION, METADATA_VERSION, METADATA_VERSION_4_4_IV2,
    SHARE_VERSION, STREAMS_VERSION, TRANSACTION_VERSION,
};

/// The feature levels to finalize at format time. Level 0 leaves a feature off.
///
/// The default is what Strand implements, at Kafka 4.4's levels: `metadata.version` 4.4-IV2 (33),
/// `kraft.version` 0 (what Kafka 4.4 formats a static `controller.quorum.voters` quorum with,
/// until its upgrade), `transaction.version` 2, `group.version` 1 and
/// `eligible.leader.replicas.version` 1 (KIP-966, on for new clusters as in Kafka 4.1 and later)
/// `share.version` 1 (KIP-932 share groups) and `streams.version` 1 (KIP-1071 streams groups, on
/// by default from Kafka 4.2: `StreamsVersion.LATEST_PRODUCTION`). Kafka 4.4 finalizes
/// `share.version` 2 ([`BootstrapFeatures::kafka_4_4`]); Strand stays at share groups' level 1,
/// so that no client is told KIP-1222 works.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BootstrapFeatures {
    pub metadata_version: i16,
    pub kraft_version: i16,
    pub transaction_version: i16,
    pub group_version: i16,
    pub eligible_leader_replicas_version: i16,
    pub share_version: i16,
    pub streams_version: i16,
}

impl Default for BootstrapFeatures {
    fn default() -> Self {
        BootstrapFeatures {
            metadata_version: METADATA_VERSION_4_4_IV2,
            kraft_version: 0,
            transaction_version: 2,
            group_version: 1,
            eligible_leader_replicas_version: 1,
            share_version: 1,
            streams_version: 1,
        }
    }
}

impl BootstrapFeatures {
    /// Every feature at the level Kafka 4.4 finalizes by default (`Feature.defaultLevel` at
    /// `MetadataVersion.LATEST_PRODUCTION`).
    pub fn kafka_4_4() -> BootstrapFeatures {
        BootstrapFeatures { share_version: 2, ..BootstrapFeatures::default() }
    }
}

/// A `FeatureLevelRecord` for `metadata.version`, then one per other feature above level 0 in
/// name order, as Kafka's `BootstrapMetadata.fromVersions`.
///
/// Unlike Kafka, `kraft.version` above 0 gets a `FeatureLevelRecord` too: Kafka keeps it in a
/// Raft control record (`KRaftVersionRecord`), which openraft has no place for, and the image is
/// where ApiVersions reads finalized features from. Clusters formatted before Strand finalized
/// level 0 keep the level 1 record they were formatted with.
pub fn bootstrap_records(features: &BootstrapFeatures) -> Vec<ApiMessageAndVersion> {
    let mut others = [
        (KRAFT_VERSION, features.kraft_version),
        (TRANSACTION_VERSION, features.transaction_version),
        (GROUP_VERSION, features.group_version),
        (ELIGIBLE_LEADER_REPLICAS_VERSION, features.eligible_leader_replicas_version),
        (SHARE_VERSION, features.share_version),
        (STREAMS_VERSION, features.streams_version),
    ];
    others.sort_by_key(|(name, _)| *name);
    std::iter::once((METADATA_VERSION, features.metadata_version))
        .chain(others.into_iter().filter(|(_, level)| *level > 0))
        .map(|(name, level)| {
            let record =
                FeatureLevelRecord { name: name.to_owned(), feature_level: level, ..FeatureLevelRecord::default() };
            ApiMessageAndVersion::latest(MetadataRecord::FeatureLevelRecord(record))
        })
        .collect()
}
