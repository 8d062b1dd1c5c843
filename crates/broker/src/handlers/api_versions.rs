//! ApiVersions: the APIs served with their version ranges, and the features (supported and
//! finalized, with a finalized epoch of 0 or more: clients ignore features reported with -1).
//!
//! From v3 (KIP-511) a client names its software and version; either one empty or not of
//! Kafka's pattern (letters, digits, `-` and `.`, beginning and ending with a letter or digit)
//! gets INVALID_REQUEST and nothing else, as Kafka's `ApiVersionsRequest.isValid` decides.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::ApiVersionsRequest;
use strand_protocol::messages::ApiVersionsResponse;
use strand_protocol::messages::api_versions_response::{ApiVersion, FinalizedFeatureKey, SupportedFeatureKey};
use strand_protocol::versions::advertised;

use strand_metadata::image::{MetadataImage, SUPPORTED_FEATURES};

use super::SERVED;
use crate::Broker;

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

/// The first version that carries the client's software name and version (KIP-511).
const CLIENT_SOFTWARE_VERSION_MIN: i16 = 3;

pub fn handle(broker: &Broker, request: &ApiVersionsRequest, version: i16) -> ApiVersionsResponse {
    if !software_named(request, version) {
        return invalid();
    }
    response(served_versions(), &broker.image())
}

/// Whether a request at `version` names the client's software as Kafka requires (see the module doc).
pub fn software_named(request: &ApiVersionsRequest, version: i16) -> bool {
    version < CLIENT_SOFTWARE_VERSION_MIN
        || [&request.client_software_name, &request.client_software_version].iter().all(|s| software_name_valid(s))
}

/// The answer to a request that does not name its software: INVALID_REQUEST and nothing else.
pub fn invalid() -> ApiVersionsResponse {
    ApiVersionsResponse { error_code: ErrorCode::InvalidRequest.code(), ..Default::default() }
}

/// Kafka's `[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?`.
fn software_name_valid(name: &str) -> bool {
    let bytes = name.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'.')
        }
        _ => false,
    }
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

#[cfg(test)]
mod tests {
    use super::software_name_valid;

    #[test]
    fn software_names_follow_kafkas_pattern() {
        for valid in ["apache-kafka-java", "4.4.0", "librdkafka", "2.6.1-RC3", "a", "kgo"] {
            assert!(software_name_valid(valid), "{valid}");
        }
        for invalid in ["", "-java", "java-", "4.4.0.", "kafka java", "kafka_java", "é"] {
            assert!(!software_name_valid(invalid), "{invalid}");
        }
    }
}
