//! BrokerRegistration, as Kafka's `ClusterControlManager.registerBroker`, and the broker epoch
//! check other broker requests share.

use std::collections::BTreeSet;

use strand_base::{BrokerId, Uuid};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::broker_registration_request::Feature;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::register_broker_record::{BrokerEndpoint, BrokerFeature};
use strand_protocol::messages::{
    BrokerRegistrationChangeRecord, BrokerRegistrationRequest, BrokerRegistrationResponse, RegisterBrokerRecord,
};

use super::broker_lifecycle::shutdown_records;
use super::{ApiError, ApiMessageAndVersion, ControllerDefaults, ControllerResult};
use crate::image::{
    BrokerRegistration, FencingChange, METADATA_VERSION, METADATA_VERSION_MIN, MetadataImage, is_reserved_directory,
};

/// Whether the broker id's previous incarnation still has a live heartbeat session (the
/// controller's soft state, which the image does not hold).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreviousSession {
    Live,
    Expired,
}

/// Whether a newly registered broker starts fenced (Kafka: it is unfenced by a later heartbeat
/// once it has caught up with the metadata log) or is unfenced at once, which a node that is its
/// own controller and only broker may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InitialFencing {
    Fenced,
    Unfenced,
}

/// What registration needs beyond the image and the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisterBrokerInputs {
    /// The cluster id this controller was formatted with.
    pub cluster_id: String,
    /// The epoch a new incarnation gets: the offset its registration record will have.
    pub new_broker_epoch: i64,
    pub previous_session: PreviousSession,
    pub initial_fencing: InitialFencing,
}

/// Registers (or re-registers) a broker: a `RegisterBrokerRecord`, and with
/// [`InitialFencing::Unfenced`] a `BrokerRegistrationChangeRecord` that unfences it. A new
/// incarnation gets `new_broker_epoch` and starts fenced; the same incarnation keeps its epoch and
/// fencing. The response carries the broker epoch. With [`InitialFencing::Fenced`], a new
/// incarnation of a registered broker also takes the old one out of every ISR and leadership it
/// still holds (`PartitionChangeRecord`s after the registration, as [`fence_broker`](super::fence_broker));
/// with eligible leader replicas on, one whose `previous_broker_epoch` is not the registered
/// epoch (the epoch its clean shutdown wrote; -1 after a crash) leaves every ELR too, as Kafka's
/// unclean-shutdown handling. `defaults` supplies the static topic configs those moves read.
///
/// Errors, as Kafka: INCONSISTENT_CLUSTER_ID, DUPLICATE_BROKER_REGISTRATION (another live
/// incarnation), BROKER_ID_NOT_REGISTERED (a ZooKeeper broker), INVALID_REGISTRATION (missing,
/// reserved, repeated or another broker's log dirs), UNSUPPORTED_VERSION (a finalized feature
/// level outside what the broker supports).
pub fn register_broker(
    image: &MetadataImage,
    request: &BrokerRegistrationRequest,
    inputs: &RegisterBrokerInputs,
    defaults: &ControllerDefaults,
) -> ControllerResult<BrokerRegistrationResponse> {
    match registration_records(image, request, inputs, defaults) {
        Ok((records, broker_epoch)) => ControllerResult {
            records,
            response: BrokerRegistrationResponse { broker_epoch, ..BrokerRegistrationResponse::default() },
        },
        Err(error) => ControllerResult {
            records: Vec::new(),
            response: BrokerRegistrationResponse {
                error_code: error.code.code(),
                broker_epoch: -1,
                ..BrokerRegistrationResponse::default()
            },
        },
    }
}

/// STALE_BROKER_EPOCH unless `broker_id` is registered with `broker_epoch` (Kafka's
/// `checkBrokerEpoch`).
pub(crate) fn check_broker_epoch(
    image: &MetadataImage,
    broker_id: BrokerId,
    broker_epoch: i64,
) -> Result<(), ApiError> {
    let stale = |message: String| ApiError::new(ErrorCode::StaleBrokerEpoch, message);
    let registration = image
        .cluster()
        .broker(broker_id)
        .ok_or_else(|| stale(format!("No broker registration found for broker id {broker_id}")))?;
    if registration.epoch != broker_epoch {
        return Err(stale(format!(
            "Expected broker epoch {}, but got broker epoch {broker_epoch}",
            registration.epoch
        )));
    }
    Ok(())
}

fn registration_records(
    image: &MetadataImage,
    request: &BrokerRegistrationRequest,
    inputs: &RegisterBrokerInputs,
    defaults: &ControllerDefaults,
) -> Result<(Vec<ApiMessageAndVersion>, i64), ApiError> {
    if request.cluster_id != inputs.cluster_id {
        let message = format!("Expected cluster ID {}, but got cluster ID {}", inputs.cluster_id, request.cluster_id);
        return Err(ApiError::new(ErrorCode::InconsistentClusterId, message));
    }
    let existing = image.cluster().broker(request.broker_id);
    let same_incarnation = existing.filter(|e| e.incarnation_id == request.incarnation_id);
    if existing.is_some() && same_incarnation.is_none() && inputs.previous_session == PreviousSession::Live {
        let message = "Another broker is registered with that broker id.";
        return Err(ApiError::new(ErrorCode::DuplicateBrokerRegistration, message));
    }
    if request.is_migrating_zk_broker {
        let message = "Controller does not support registering ZK brokers.";
        return Err(ApiError::new(ErrorCode::BrokerIdNotRegistered, message));
    }
    check_log_dirs(image, request)?;
    let features = registration_features(image, request)?;
    let record = register_record(request, features, inputs.new_broker_epoch, same_incarnation);
    let epoch = record.broker_epoch;
    let fenced = record.fenced;
    let mut records = vec![ApiMessageAndVersion::latest(MetadataRecord::RegisterBrokerRecord(record))];
    if let Some(previous) = existing.filter(|_| same_incarnation.is_none())
        && inputs.initial_fencing == InitialFencing::Fenced
    {
        // The previous incarnation may have stopped without being fenced (its session merely
        // expired): as Kafka's shutdown handling, it leaves the ISRs and leaderships it still
        // holds, and after an unclean shutdown the ELRs. After the registration record, so that
        // the epoch stays its offset.
        let clean = request.previous_broker_epoch == previous.epoch;
        records.extend(shutdown_records(image, request.broker_id, clean, defaults));
    }
    if fenced && inputs.initial_fencing == InitialFencing::Unfenced {
        let unfence = BrokerRegistrationChangeRecord {
            broker_id: request.broker_id,
            broker_epoch: epoch,
            fenced: FencingChange::Unfence.wire(),
            ..BrokerRegistrationChangeRecord::default()
        };
        records.push(ApiMessageAndVersion::latest(MetadataRecord::BrokerRegistrationChangeRecord(unfence)));
    }
    Ok((records, epoch))
}

/// Kafka's directory checks (every supported `metadata.version` assigns replicas to directories).
fn check_log_dirs(image: &MetadataImage, request: &BrokerRegistrationRequest) -> Result<(), ApiError> {
    let invalid = |message: String| ApiError::new(ErrorCode::InvalidRegistration, message);
    if request.log_dirs.is_empty() {
        return Err(invalid("No directories specified in request".to_owned()));
    }
    if request.log_dirs.iter().any(|d| is_reserved_directory(*d)) {
        return Err(invalid("Reserved directory ID in request".to_owned()));
    }
    if request.log_dirs.iter().collect::<BTreeSet<_>>().len() != request.log_dirs.len() {
        return Err(invalid("Duplicate directory ID in request".to_owned()));
    }
    let owner = |dir: &Uuid| image.cluster().brokers().find(|b| b.id != request.broker_id && b.log_dirs.contains(dir));
    if let Some((dir, other)) = request.log_dirs.iter().find_map(|d| owner(d).map(|b| (d, b.id))) {
        return Err(invalid(format!("Broker {other} is already registered with directory {dir}")));
    }
    Ok(())
}

/// Every feature the broker reports must support its finalized level; a finalized feature it
/// does not report counts as supported at 0 only, and a missing `metadata.version` range as the
/// oldest level only (Kafka's `processRegistrationFeature`).
fn registration_features(
    image: &MetadataImage,
    request: &BrokerRegistrationRequest,
) -> Result<Vec<BrokerFeature>, ApiError> {
    let finalized = image.features();
    let mut reported: Vec<&Feature> = request.features.iter().collect();
    let assumed_metadata_version = Feature {
        name: METADATA_VERSION.to_owned(),
        min_supported_version: METADATA_VERSION_MIN,
        max_supported_version: METADATA_VERSION_MIN,
        ..Feature::default()
    };
    if !request.features.iter().any(|f| f.name == METADATA_VERSION) {
        reported.push(&assumed_metadata_version);
    }
    let mut features = Vec::new();
    for feature in &reported {
        let level = finalized.level(&feature.name);
        check_supported(&feature.name, level, feature.min_supported_version, feature.max_supported_version)?;
        features.push(BrokerFeature {
            name: feature.name.clone(),
            min_supported_version: feature.min_supported_version,
            max_supported_version: feature.max_supported_version,
            ..BrokerFeature::default()
        });
    }
    for (name, level) in finalized.finalized() {
        if !reported.iter().any(|f| f.name == *name) {
            check_supported(name, *level, 0, 0)?;
        }
    }
    Ok(features)
}

fn check_supported(name: &str, level: i16, min: i16, max: i16) -> Result<(), ApiError> {
    if (min..=max).contains(&level) {
        return Ok(());
    }
    let message = format!(
        "Unable to register because the broker does not support finalized version {level} of {name}. The broker \
         wants a version between {min} and {max}, inclusive."
    );
    Err(ApiError::new(ErrorCode::UnsupportedVersion, message))
}

fn register_record(
    request: &BrokerRegistrationRequest,
    features: Vec<BrokerFeature>,
    new_broker_epoch: i64,
    same_incarnation: Option<&BrokerRegistration>,
) -> RegisterBrokerRecord {
    let end_points = request
        .listeners
        .iter()
        .map(|l| BrokerEndpoint {
            name: l.name.clone(),
            host: l.host.clone(),
            port: l.port,
            security_protocol: l.security_protocol,
            ..BrokerEndpoint::default()
        })
        .collect();
    let (broker_epoch, fenced, in_controlled_shutdown) = match same_incarnation {
        Some(existing) => (existing.epoch, existing.fenced, existing.in_controlled_shutdown),
        None => (new_broker_epoch, true, false),
    };
    RegisterBrokerRecord {
        broker_id: request.broker_id,
        is_migrating_zk_broker: false,
        incarnation_id: request.incarnation_id,
        broker_epoch,
        end_points,
        features,
        rack: request.rack.clone(),
        fenced,
        in_controlled_shutdown,
        log_dirs: request.log_dirs.clone(),
        ..RegisterBrokerRecord::default()
    }
}
