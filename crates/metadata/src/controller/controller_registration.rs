//! ControllerRegistration (KIP-919), as Kafka's `ClusterControlManager.registerController`: a
//! controller tells the active controller its CONTROLLER listeners and the feature levels it
//! supports, which a `RegisterControllerRecord` keeps in the image, so UpdateFeatures can check
//! every controller's range (a voter that has not registered may not support a new level).

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::register_controller_record::{ControllerEndpoint, ControllerFeature};
use strand_protocol::messages::{
    ControllerRegistrationRequest, ControllerRegistrationResponse, RegisterControllerRecord,
};

use super::{ApiMessageAndVersion, ControllerResult};
use crate::image::MetadataImage;

/// `MetadataVersion.IBP_3_7_IV0`, the first level whose log holds controller registrations.
pub const METADATA_VERSION_CONTROLLER_REGISTRATION: i16 = 15;

/// A `RegisterControllerRecord` replacing the controller's previous registration; refused with
/// UNSUPPORTED_VERSION while the finalized `metadata.version` predates controller registrations.
pub fn register_controller(
    image: &MetadataImage,
    request: &ControllerRegistrationRequest,
) -> ControllerResult<ControllerRegistrationResponse> {
    if image.features().level(crate::image::METADATA_VERSION) < METADATA_VERSION_CONTROLLER_REGISTRATION {
        let response = ControllerRegistrationResponse {
            error_code: ErrorCode::UnsupportedVersion.code(),
            error_message: Some("The current MetadataVersion is too old to support controller registrations.".into()),
            ..Default::default()
        };
        return ControllerResult { records: Vec::new(), response };
    }
    let end_points = request.listeners.iter().map(|l| ControllerEndpoint {
        name: l.name.clone(),
        host: l.host.clone(),
        port: l.port,
        security_protocol: l.security_protocol,
        ..Default::default()
    });
    let features = request.features.iter().map(|f| ControllerFeature {
        name: f.name.clone(),
        min_supported_version: f.min_supported_version,
        max_supported_version: f.max_supported_version,
        ..Default::default()
    });
    let record = RegisterControllerRecord {
        controller_id: request.controller_id,
        incarnation_id: request.incarnation_id,
        zk_migration_ready: false,
        end_points: end_points.collect(),
        features: features.collect(),
        ..Default::default()
    };
    let record = ApiMessageAndVersion::latest(MetadataRecord::RegisterControllerRecord(record));
    ControllerResult {
        records: vec![record],
        response: ControllerRegistrationResponse { error_message: None, ..Default::default() },
    }
}
