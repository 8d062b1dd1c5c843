//! Test support for every layer that drives the controller's decisions (feature `testkit`,
//! enabled only from dev-dependencies): the cluster id tests format with, a broker registration
//! as tests build it, its acceptance on an image, and an image after a batch is committed.

use strand_base::{BrokerId, Uuid};
use strand_protocol::messages::broker_registration_request::{Feature, Listener};
use strand_protocol::messages::{BrokerRegistrationRequest, BrokerRegistrationResponse};

use crate::controller::{
    ApiMessageAndVersion, ControllerDefaults, ControllerResult, InitialFencing, PreviousSession, RegisterBrokerInputs,
    register_broker,
};
use crate::image::{
    ELIGIBLE_LEADER_REPLICAS_VERSION, GROUP_VERSION, KRAFT_VERSION, METADATA_VERSION, METADATA_VERSION_4_4_IV2,
    METADATA_VERSION_MIN, MetadataDelta, MetadataImage, MetadataProvenance, SHARE_VERSION, STREAMS_VERSION,
    TRANSACTION_VERSION,
};

/// The cluster id tests format their clusters with.
pub const CLUSTER_ID: &str = "MkU3OEVBNTcwNTJENDM2Qg";
/// The listener [`registration`] advertises.
pub const LISTENER: &str = "PLAINTEXT";

/// A registration request for broker `id` of [`CLUSTER_ID`]: [`LISTENER`] on
/// `host-<id>:9092`, no rack, one log dir (`22..22<id>`), incarnation `33..33<id>`, and every
/// feature Strand finalizes supported from its lowest level to the one Kafka 4.4 finalizes.
/// Tests vary a field (rack, log dirs, incarnation) on the returned value.
pub fn registration(id: i32) -> BrokerRegistrationRequest {
    let feature = |name: &str, min: i16, max: i16| Feature {
        name: name.to_owned(),
        min_supported_version: min,
        max_supported_version: max,
        ..Default::default()
    };
    let ending_in_id = |fill: u8| {
        let mut bytes = [fill; 16];
        bytes[15] = u8::try_from(id).unwrap_or(0);
        Uuid(bytes)
    };
    BrokerRegistrationRequest {
        broker_id: BrokerId(id),
        cluster_id: CLUSTER_ID.to_owned(),
        incarnation_id: ending_in_id(0x33),
        listeners: vec![Listener {
            name: LISTENER.to_owned(),
            host: format!("host-{id}"),
            port: 9092,
            security_protocol: 0,
            ..Default::default()
        }],
        features: vec![
            feature(METADATA_VERSION, METADATA_VERSION_MIN, METADATA_VERSION_4_4_IV2),
            feature(KRAFT_VERSION, 0, 1),
            feature(TRANSACTION_VERSION, 0, 2),
            feature(GROUP_VERSION, 0, 1),
            feature(ELIGIBLE_LEADER_REPLICAS_VERSION, 0, 1),
            feature(SHARE_VERSION, 0, 1),
            feature(STREAMS_VERSION, 0, 1),
        ],
        rack: None,
        log_dirs: vec![ending_in_id(0x22)],
        ..Default::default()
    }
}

/// The controller's decision on `request` as a broker's first registration on `image` (no
/// session to check, the broker epoch the offset its record will take), which must be accepted.
/// The records are not applied.
pub fn register(
    image: &MetadataImage,
    request: &BrokerRegistrationRequest,
    fencing: InitialFencing,
) -> ControllerResult<BrokerRegistrationResponse> {
    let inputs = RegisterBrokerInputs {
        cluster_id: request.cluster_id.clone(),
        new_broker_epoch: image.provenance().offset + 1,
        previous_session: PreviousSession::Expired,
        initial_fencing: fencing,
    };
    let result = register_broker(image, request, &inputs, &ControllerDefaults::default());
    assert_eq!(result.response.error_code, 0, "registering broker {}", request.broker_id);
    result
}

/// `image` after `records` are committed as one batch (at the next offsets, epoch 1), as the
/// quorum replays them; a record that does not replay panics.
pub fn committed(image: &MetadataImage, records: &[ApiMessageAndVersion]) -> MetadataImage {
    let mut delta = MetadataDelta::new(image);
    for record in records {
        delta.replay(&record.record).unwrap_or_else(|e| panic!("replaying {record:?}: {e}"));
    }
    let offset = image.provenance().offset + i64::try_from(records.len()).expect("batch size");
    delta.apply(MetadataProvenance { offset, epoch: 1 })
}
