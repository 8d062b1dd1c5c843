//! ApiVersions: the APIs served with their version ranges, and the features (supported and
//! finalized, with a finalized epoch of 0 or more: clients ignore features reported with -1).

use strand_protocol::messages::ApiVersionsRequest;
use strand_protocol::messages::ApiVersionsResponse;
use strand_protocol::messages::api_versions_response::{ApiVersion, FinalizedFeatureKey, SupportedFeatureKey};
use strand_protocol::versions::advertised;

use strand_metadata::image::MetadataImage;

use super::SERVED;
use crate::Broker;

/// The features this build supports and their level ranges, as Kafka 4.4 reports them.
const SUPPORTED_FEATURES: &[(&str, i16, i16)] = &[
    ("eligible.leader.replicas.version", 0, 1),
    ("group.version", 0, 1),
    ("kraft.version", 0, 1),
    ("metadata.version", 7, 33),
    ("transaction.version", 0, 2),
];

/// Every served API with the versions advertised for it.
pub fn served_versions() -> Vec<ApiVersion> {
    SERVED
        .iter()
        .map(|&api| {
            let range = advertised(api);
            ApiVersion { api_key: api as i16, min_version: range.min, max_version: range.max, ..Default::default() }
        })
        .collect()
}

pub fn handle(broker: &Broker, _request: &ApiVersionsRequest) -> ApiVersionsResponse {
    response(served_versions(), &broker.image())
}

/// `api_keys` with the features this build supports and those `image` finalized.
pub fn response(api_keys: Vec<ApiVersion>, image: &MetadataImage) -> ApiVersionsResponse {
    let supported_features = SUPPORTED_FEATURES
        .iter()
        .map(|&(name, min, max)| SupportedFeatureKey {
            name: name.into(),
            min_version: min,
            max_version: max,
            ..Default::default()
        })
        .collect();
    let finalized_features = image
        .features()
        .finalized()
        .iter()
        .map(|(name, &level)| FinalizedFeatureKey {
            name: name.clone(),
            max_version_level: level,
            min_version_level: level,
            ..Default::default()
        })
        .collect();
    ApiVersionsResponse {
        api_keys,
        supported_features,
        finalized_features,
        // The offset of the metadata the features come from: 0 or more, so clients use them.
        finalized_features_epoch: image.provenance().offset.max(0),
        ..ApiVersionsResponse::default()
    }
}
