//! The versions Strand advertises per API in ApiVersions, which are the versions it decodes (Kafka
//! 4.4's schemas, KIP-896 floors included, unstable versions excluded) with Kafka's one exception.
//!
//! Kafka 4 advertises Produce from v0 although it refuses v0-v2 with UNSUPPORTED_VERSION
//! (KAFKA-18659): librdkafka picks the old message format when a broker does not list Produce v0,
//! so hiding v0 would break every librdkafka-based client's compressed produce. Strand advertises
//! what Kafka 4.4 advertises, checked against a captured Kafka ApiVersions response in the golden
//! tests.

use crate::codec::VersionRange;
use crate::messages::api::ApiKey;

/// The range to put in an ApiVersions response for `api`.
pub fn advertised(api: ApiKey) -> VersionRange {
    let decoded = api.versions();
    match api {
        ApiKey::Produce => VersionRange { min: 0, max: decoded.max },
        _ => decoded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Produce is advertised from v0, as Kafka 4 does, but only v3+ decodes; other APIs advertise
    /// exactly what decodes.
    #[test]
    fn produce_is_advertised_from_zero_but_decoded_from_three() {
        assert_eq!(advertised(ApiKey::Produce).min, 0);
        assert_eq!(ApiKey::Produce.versions().min, 3);
        assert_eq!(advertised(ApiKey::Fetch), ApiKey::Fetch.versions());
        assert_eq!(ApiKey::Fetch.versions().min, 4);
    }
}
