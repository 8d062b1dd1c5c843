//! Finalized feature levels, from `FeatureLevelRecord`s, as Kafka's `FeaturesImage`.

use std::collections::BTreeMap;

use strand_protocol::messages::FeatureLevelRecord;

use super::ReplayError;

/// The feature that versions the metadata log's record formats.
pub const METADATA_VERSION: &str = "metadata.version";
/// The KRaft quorum's own version (KIP-853 dynamic voters at level 1).
pub const KRAFT_VERSION: &str = "kraft.version";
/// Transactions V2 (KIP-890) at level 2.
pub const TRANSACTION_VERSION: &str = "transaction.version";
/// The KIP-848 consumer group protocol at level 1.
pub const GROUP_VERSION: &str = "group.version";
/// Eligible leader replicas (KIP-966) at level 1.
pub const ELIGIBLE_LEADER_REPLICAS_VERSION: &str = "eligible.leader.replicas.version";
/// Share groups (KIP-932).
pub const SHARE_VERSION: &str = "share.version";
/// The Streams rebalance protocol (KIP-1071).
pub const STREAMS_VERSION: &str = "streams.version";

/// The lowest `metadata.version` level Kafka 4 accepts (`MetadataVersion.MINIMUM_VERSION`, 3.3-IV3).
pub const METADATA_VERSION_MIN: i16 = 7;
/// `metadata.version` 4.4-IV2, Kafka 4.4's `MetadataVersion.LATEST_PRODUCTION`.
pub const METADATA_VERSION_4_4_IV2: i16 = 33;

/// The features this build supports, with their inclusive level ranges, by name: what a broker
/// registers and reports in ApiVersions, and what this node's controller accepts in
/// UpdateFeatures (Kafka's `QuorumFeatures.localSupportedFeatures`). A feature not listed is
/// supported at level 0 only. Kafka 4.4 also supports `share.version` 2 (KIP-1222's renewals
/// and share groups' dead-letter topics), which Strand does not implement yet.
pub const SUPPORTED_FEATURES: &[(&str, i16, i16)] = &[
    (ELIGIBLE_LEADER_REPLICAS_VERSION, 0, 1),
    (GROUP_VERSION, 0, 1),
    (KRAFT_VERSION, 0, 1),
    (METADATA_VERSION, METADATA_VERSION_MIN, METADATA_VERSION_4_4_IV2),
    (SHARE_VERSION, 0, 1),
    (STREAMS_VERSION, 0, 1),
    (TRANSACTION_VERSION, 0, 2),
];

/// The range of `name` in [`SUPPORTED_FEATURES`]; `(0, 0)` for a feature it does not list.
pub fn supported_range(name: &str) -> (i16, i16) {
    SUPPORTED_FEATURES.iter().find(|(n, _, _)| *n == name).map_or((0, 0), |&(_, min, max)| (min, max))
}

/// The finalized level of each feature. A feature that is absent is at level 0 (off).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeaturesImage {
    levels: BTreeMap<String, i16>,
}

impl FeaturesImage {
    /// Every finalized feature with a level above 0, by name, as ApiVersions reports them.
    pub fn finalized(&self) -> &BTreeMap<String, i16> {
        &self.levels
    }

    /// The finalized level of `name`, 0 if it is not finalized.
    pub fn level(&self, name: &str) -> i16 {
        self.levels.get(name).copied().unwrap_or(0)
    }

    /// The finalized `metadata.version` level, if the bootstrap records have set one.
    pub fn metadata_version(&self) -> Option<i16> {
        self.levels.get(METADATA_VERSION).copied()
    }

    /// Kafka's `FeaturesDelta.replay`: level 0 removes a feature; `metadata.version` can never
    /// be removed or go below [`METADATA_VERSION_MIN`].
    pub(super) fn replay(&mut self, record: &FeatureLevelRecord) -> Result<(), ReplayError> {
        let level = record.feature_level;
        if record.name == METADATA_VERSION && level < METADATA_VERSION_MIN {
            return Err(ReplayError::InvalidFeatureLevel { name: record.name.clone(), level });
        }
        if level < 0 {
            return Err(ReplayError::InvalidFeatureLevel { name: record.name.clone(), level });
        }
        if level == 0 {
            self.levels.remove(&record.name);
        } else {
            self.levels.insert(record.name.clone(), level);
        }
        Ok(())
    }
}
