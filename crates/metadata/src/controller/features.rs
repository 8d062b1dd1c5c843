//! UpdateFeatures (KIP-584, KIP-778, KIP-1022): changing finalized feature levels, as Kafka 4.4's
//! `FeatureControlManager.updateFeatures` decides it. Each level must be within this controller's
//! supported range ([`crate::image::SUPPORTED_FEATURES`]) and every registered broker's; a lower level needs a
//! downgrade upgrade type and a higher one an upgrade; `metadata.version` refuses any downgrade
//! across a version that changed the metadata format (safe or unsafe, as Kafka 4.4 refuses both);
//! a feature's dependencies on other features' levels (KIP-1022) are checked against the levels
//! the request would leave. The first failing update fails the whole request with
//! INVALID_UPDATE_VERSION; otherwise one `FeatureLevelRecord` per update (none when
//! `validate_only`), replayed into the image like any record, so levels replicate and survive
//! restarts and ApiVersions reports them.
//!
//! Updates are checked in the order Kafka's controller iterates them (a Java `HashMap` of the
//! request's names), so a request with several bad updates names the same one Kafka names.
//!
//! Other controllers are checked by their registrations (`RegisterControllerRecord`, KIP-919); a
//! voter that has not registered fails the update, as in Kafka.
//!
//! `kraft.version` is the quorum's (KIP-853): a static quorum (`controller.quorum.voters`) is at
//! 0, and raising it to 1 makes its voters changeable. The quorum says whether its voters allow
//! it ([`LocalController::kraft_upgrade_refusal`], Kafka's `RaftClient.upgradeKRaftVersion`
//! checks, whose message is the refusal's as it stands) and makes the change before the
//! `FeatureLevelRecord` this decision writes commits (`quorum_controller`); Kafka keeps the level
//! in the quorum's control records only. A downgrade is refused, as in Kafka.

use std::collections::BTreeMap;

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::update_features_response::UpdatableFeatureResult;
use strand_protocol::messages::{FeatureLevelRecord, UpdateFeaturesRequest, UpdateFeaturesResponse};

use super::configs::elr_safety_records;
use super::controller_registration::METADATA_VERSION_CONTROLLER_REGISTRATION;
use super::partition_change::elr_enabled;
use super::{ApiMessageAndVersion, ControllerResult};
use crate::image::{
    ELIGIBLE_LEADER_REPLICAS_VERSION, GROUP_VERSION, KRAFT_VERSION, METADATA_VERSION, METADATA_VERSION_4_4_IV2,
    METADATA_VERSION_MIN, MetadataImage, SHARE_VERSION, STREAMS_VERSION, SupportedFeatureRange, TRANSACTION_VERSION,
    supported_range,
};

/// Kafka's `FeatureUpdate.UpgradeType`, by wire code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UpgradeType {
    Unknown,
    Upgrade,
    SafeDowngrade,
    UnsafeDowngrade,
}

impl UpgradeType {
    fn from_code(code: i8) -> UpgradeType {
        match code {
            1 => UpgradeType::Upgrade,
            2 => UpgradeType::SafeDowngrade,
            3 => UpgradeType::UnsafeDowngrade,
            _ => UpgradeType::Unknown,
        }
    }
}

/// The first version whose response has no per-feature results.
const RESULTS_VERSION_MAX: i16 = 1;

/// The features Kafka 4.4 knows besides `metadata.version` (`Feature.PRODUCTION_FEATURES`): a
/// name outside them is "not found", whatever its level.
const KNOWN_FEATURES: &[&str] = &[
    KRAFT_VERSION,
    TRANSACTION_VERSION,
    GROUP_VERSION,
    ELIGIBLE_LEADER_REPLICAS_VERSION,
    SHARE_VERSION,
    STREAMS_VERSION,
];

/// KIP-1022 dependencies: (feature, level, the feature it needs, the level that one needs at
/// least), as Kafka 4.4's feature versions declare them.
const DEPENDENCIES: &[(&str, i16, &str, i16)] = &[(ELIGIBLE_LEADER_REPLICAS_VERSION, 1, METADATA_VERSION, 23)];

/// `MetadataVersion.IBP_3_3_IV0`: every feature above level 0 needs at least this
/// `metadata.version`, the first with `FeatureLevelRecord`.
const METADATA_VERSION_3_3_IV0: i16 = 4;

/// Kafka 4.4's `MetadataVersion.didMetadataChange` for levels [`METADATA_VERSION_MIN`] (3.3-IV3)
/// to 33 (4.4-IV2): a downgrade below a level marked true could lose metadata.
const METADATA_CHANGED: [bool; 27] = [
    true, true, false, false, true, false, true, true, true, false, true, false, false, false, false, false, true,
    false, false, false, false, false, false, true, false, true, true,
];

// One entry per level this build supports.
const _: () = assert!(METADATA_CHANGED.len() as i16 == METADATA_VERSION_4_4_IV2 - METADATA_VERSION_MIN + 1);

/// The controller deciding, as Kafka's `QuorumFeatures` knows it.
#[derive(Debug, Clone, Copy)]
pub struct LocalController<'a> {
    /// This controller's node id, which refusals name.
    pub node_id: i32,
    /// Every voter's id (`controller.quorum.voters`): each must have registered.
    pub voters: &'a [i32],
    /// The `min.insync.replicas` of the controller's own configuration (Kafka's default 1): the
    /// cluster-level value written when an update turns eligible leader replicas on.
    pub static_min_insync_replicas: i32,
    /// Why the quorum cannot raise `kraft.version` to 1 now (not every voter supports it), if it
    /// cannot; `None` when it can or is there already.
    pub kraft_upgrade_refusal: Option<&'a str>,
}

/// Decides an UpdateFeatures request of `version` on `image`, by the controller `local`.
pub fn update_features(
    image: &MetadataImage,
    request: &UpdateFeaturesRequest,
    version: i16,
    local: LocalController<'_>,
) -> ControllerResult<UpdateFeaturesResponse> {
    let mut updates: Vec<(&str, i16, UpgradeType)> = Vec::new();
    for update in &request.feature_updates {
        let upgrade_type = match version {
            0 if update.allow_downgrade => UpgradeType::SafeDowngrade,
            0 => UpgradeType::Upgrade,
            _ => UpgradeType::from_code(update.upgrade_type),
        };
        let entry = (update.feature.as_str(), update.max_version_level, upgrade_type);
        match updates.iter_mut().find(|(name, _, _)| *name == update.feature) {
            Some(existing) => *existing = entry,
            None => updates.push(entry),
        }
    }
    let mut proposed: BTreeMap<&str, i16> =
        image.features().finalized().iter().map(|(n, l)| (n.as_str(), *l)).collect();
    proposed.extend(updates.iter().map(|&(name, level, _)| (name, level)));
    let names: Vec<&str> = updates.iter().map(|(name, _, _)| *name).collect();
    let decider = Decider { image, local, proposed };
    let mut records = Vec::new();
    for index in java_hash_map_order(&names) {
        let (name, level, upgrade_type) = updates[index];
        match decider.update(name, level, upgrade_type) {
            Ok(record) => records.extend(record),
            Err(message) => {
                return ControllerResult { records: Vec::new(), response: update_features_refused(&message) };
            }
        }
    }
    let results = if version <= RESULTS_VERSION_MAX {
        let result = |feature: &str| UpdatableFeatureResult {
            feature: feature.to_owned(),
            error_code: ErrorCode::None.code(),
            // Kafka's `Errors.NONE.message()`.
            error_message: Some("NONE".to_owned()),
            ..Default::default()
        };
        request.feature_updates.iter().map(|u| result(&u.feature)).collect()
    } else {
        Vec::new()
    };
    let response = UpdateFeaturesResponse { error_message: None, results, ..Default::default() };
    if request.validate_only {
        return ControllerResult { records: Vec::new(), response };
    }
    // Kafka's `QuorumController.updateFeatures`: turning eligible leader replicas on writes
    // `maybeGenerateElrSafetyRecords` ahead of the feature records, in the same batch.
    if !elr_enabled(image) && decider.proposed.get(ELIGIBLE_LEADER_REPLICAS_VERSION).is_some_and(|&l| l >= 1) {
        let mut safety = elr_safety_records(image, local.static_min_insync_replicas);
        safety.extend(records);
        records = safety;
    }
    ControllerResult { records, response }
}

/// The whole request refused for one update's error, as Kafka's `QuorumController.updateFeatures`.
pub fn update_features_refused(message: &str) -> UpdateFeaturesResponse {
    UpdateFeaturesResponse {
        error_code: ErrorCode::InvalidUpdateVersion.code(),
        error_message: Some(format!(
            "The update failed for all features since the following feature had an error: {message}"
        )),
        ..Default::default()
    }
}

struct Decider<'a> {
    image: &'a MetadataImage,
    local: LocalController<'a>,
    /// Every finalized level as the request would leave it, for dependencies.
    proposed: BTreeMap<&'a str, i16>,
}

impl Decider<'_> {
    /// One update (Kafka's `updateFeature`): its record, nothing to write, or the message of
    /// its refusal.
    fn update(
        &self,
        name: &str,
        level: i16,
        upgrade_type: UpgradeType,
    ) -> Result<Option<ApiMessageAndVersion>, String> {
        let invalid = |reason: &str| format!("Invalid update version {level} for feature {name}. {reason}");
        if upgrade_type == UpgradeType::Unknown {
            return Err(invalid("The controller does not support the given upgrade type."));
        }
        let current = self.image.features().level(name);
        if level < 0 {
            return Err(invalid("A feature version cannot be less than 0."));
        }
        if let Some(reason) = self.reason_not_supported(name, level) {
            return Err(invalid(&reason));
        }
        if level < current && upgrade_type == UpgradeType::Upgrade {
            return Err(invalid(
                "Can't downgrade the version of this feature without setting the upgrade type to either safe or \
                 unsafe downgrade.",
            ));
        }
        if level > current && upgrade_type != UpgradeType::Upgrade {
            return Err(invalid("Can't downgrade to a newer version."));
        }
        if name == METADATA_VERSION {
            return metadata_version_update(current, level, upgrade_type).map(|()| Some(record(name, level)));
        }
        if name == KRAFT_VERSION {
            return match (level == current, upgrade_type, self.local.kraft_upgrade_refusal) {
                (true, _, _) => Ok(None),
                // The quorum's own words, as Kafka's `ApiError.fromThrowable` passes them on.
                (false, UpgradeType::Upgrade, Some(refusal)) => Err(refusal.to_owned()),
                (false, UpgradeType::Upgrade, None) => Ok(Some(record(name, level))),
                (false, _, _) => Err(invalid("Can't downgrade the version of this feature.")),
            };
        }
        if !KNOWN_FEATURES.contains(&name) {
            return Err(invalid(&format!("Feature {name} not found.")));
        }
        dependency_refusal(name, level, &self.proposed).map_or(Ok(Some(record(name, level))), |r| Err(invalid(&r)))
    }

    /// Kafka's `reasonNotSupported`: this controller's range, each registered broker's, then
    /// each other registered controller's and every voter registered (once `metadata.version`
    /// has controller registrations).
    fn reason_not_supported(&self, name: &str, level: i16) -> Option<String> {
        let (min, max) = supported_range(name);
        let node_id = self.local.node_id;
        if let Some(reason) = reason_outside(level, &format!("Local controller {node_id}"), min, max) {
            return Some(reason);
        }
        let range =
            |features: &BTreeMap<String, SupportedFeatureRange>| features.get(name).map_or((0, 0), |r| (r.min, r.max));
        let cluster = self.image.cluster();
        let mut brokers = cluster.brokers().map(|b| (format!("Broker {}", b.id), range(&b.supported_features)));
        if let Some(reason) = brokers.find_map(|(what, (min, max))| reason_outside(level, &what, min, max)) {
            return Some(reason);
        }
        if self.image.features().level(METADATA_VERSION) < METADATA_VERSION_CONTROLLER_REGISTRATION {
            return None;
        }
        let others = cluster.controllers().filter(|c| c.id != node_id);
        let mut controllers = others.map(|c| (format!("Controller {}", c.id), range(&c.supported_features)));
        if let Some(reason) = controllers.find_map(|(what, (min, max))| reason_outside(level, &what, min, max)) {
            return Some(reason);
        }
        let unregistered = self.local.voters.iter().find(|id| **id != node_id && cluster.controller(**id).is_none());
        unregistered.map(|id| format!("controller {id} has not registered, and may not support this feature"))
    }
}

fn reason_outside(level: i16, what: &str, min: i16, max: i16) -> Option<String> {
    if (min..=max).contains(&level) {
        None
    } else if max == 0 {
        Some(format!("{what} does not support this feature."))
    } else {
        Some(format!("{what} only supports versions {min}-{max}"))
    }
}

/// Kafka's `updateMetadataVersion`: an upgrade is allowed; a downgrade only if no level between
/// changed the metadata format, and never an unsafe one across such a level.
fn metadata_version_update(current: i16, level: i16, upgrade_type: UpgradeType) -> Result<(), String> {
    if level >= current || !metadata_changed(level, current) {
        return Ok(());
    }
    let reason = if upgrade_type == UpgradeType::UnsafeDowngrade {
        "Unsafe metadata downgrade is not supported in this version."
    } else {
        "Refusing to perform the requested downgrade because it might delete metadata information."
    };
    Err(format!("Unsupported metadata.version downgrade from {current} to {level}. {reason}"))
}

/// Whether a level in `(low, high]` changed the metadata format (Kafka's `checkIfMetadataChanged`).
fn metadata_changed(low: i16, high: i16) -> bool {
    (low + 1..=high).any(|level| {
        let index = usize::try_from(level - METADATA_VERSION_MIN).ok();
        index.and_then(|i| METADATA_CHANGED.get(i)).copied().unwrap_or(true)
    })
}

/// Kafka's `Feature.validateVersion`: a level above 0 needs `metadata.version` 3.3-IV0, and each
/// dependency its level, among the `proposed` levels.
fn dependency_refusal(name: &str, level: i16, proposed: &BTreeMap<&str, i16>) -> Option<String> {
    let metadata_version = proposed.get(METADATA_VERSION).copied();
    if level >= 1 && metadata_version.is_none_or(|mv| mv < METADATA_VERSION_3_3_IV0) {
        return Some(format!(
            "{name} could not be set to {level} because it depends on metadata.version={METADATA_VERSION_3_3_IV0} \
             (3.3-IV0)"
        ));
    }
    DEPENDENCIES.iter().filter(|(feature, at, _, _)| *feature == name && *at == level).find_map(|(_, _, on, least)| {
        let short = proposed.get(on).is_none_or(|have| have < least);
        short.then(|| format!("{name} could not be set to {level} because it depends on {on} level {least}"))
    })
}

fn record(name: &str, level: i16) -> ApiMessageAndVersion {
    let record = FeatureLevelRecord { name: name.to_owned(), feature_level: level, ..Default::default() };
    ApiMessageAndVersion::latest(MetadataRecord::FeatureLevelRecord(record))
}

/// The order a Java `HashMap<String, _>` filled with `names` in turn iterates them: by bucket of
/// the spread `String.hashCode` in a table of the size the map grew to, then by insertion within
/// a bucket (which resizing keeps). Indexes into `names`. (A bucket of eight names would make
/// Java's map grow further; names colliding that often are not a request anyone sends.)
fn java_hash_map_order(names: &[&str]) -> Vec<usize> {
    const LOAD_FACTOR_PERCENT: usize = 75;
    let mut capacity = 16_usize;
    while names.len() * 100 > capacity * LOAD_FACTOR_PERCENT {
        capacity *= 2;
    }
    let bucket = |name: &str| {
        let hash = name.encode_utf16().fold(0_i32, |h, unit| h.wrapping_mul(31).wrapping_add(i32::from(unit)));
        let spread = (hash as u32) ^ ((hash as u32) >> 16);
        spread as usize & (capacity - 1)
    };
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by_key(|&i| (bucket(names[i]), i));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka 4.4 named kraft.version's error, not metadata.version's, for `downgrade
    /// --release-version 3.9-IV0`, whose seven updates both fail: its map iterates kraft first.
    #[test]
    fn updates_are_checked_in_java_hash_map_order() {
        let names = [
            METADATA_VERSION,
            ELIGIBLE_LEADER_REPLICAS_VERSION,
            GROUP_VERSION,
            KRAFT_VERSION,
            SHARE_VERSION,
            STREAMS_VERSION,
            TRANSACTION_VERSION,
        ];
        let order: Vec<&str> = java_hash_map_order(&names).into_iter().map(|i| names[i]).collect();
        let position = |name| order.iter().position(|n| *n == name);
        assert!(position(KRAFT_VERSION) < position(METADATA_VERSION), "{order:?}");
    }

    /// Kafka 4.4's metadata changes: 4.4-IV2 (33) changed the format, so 33 goes nowhere lower;
    /// 3.5-IV0 to 3.5-IV1 (9, 10) changed nothing, so 10 goes back to 9 but not to 8.
    #[test]
    fn metadata_version_downgrades_stop_at_a_format_change() {
        assert!(metadata_changed(32, 33));
        assert!(!metadata_changed(9, 10));
        assert!(!metadata_changed(8, 10), "3.4-IV0 itself changed, but it is the target");
        assert!(metadata_changed(7, 10));
    }

    /// KIP-1022: ELR 1 needs metadata.version 4.0-IV1 (23).
    #[test]
    fn dependencies_are_checked_against_the_proposed_levels() {
        let at = |mv: i16| BTreeMap::from([(METADATA_VERSION, mv)]);
        assert_eq!(dependency_refusal(ELIGIBLE_LEADER_REPLICAS_VERSION, 1, &at(23)), None);
        assert_eq!(
            dependency_refusal(ELIGIBLE_LEADER_REPLICAS_VERSION, 1, &at(22)).as_deref(),
            Some(
                "eligible.leader.replicas.version could not be set to 1 because it depends on metadata.version level 23"
            )
        );
        assert_eq!(dependency_refusal(ELIGIBLE_LEADER_REPLICAS_VERSION, 0, &at(7)), None);
        assert!(dependency_refusal(GROUP_VERSION, 1, &BTreeMap::new()).is_some());
    }

    #[test]
    fn the_supported_table_is_sorted_by_name() {
        assert!(crate::image::SUPPORTED_FEATURES.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
