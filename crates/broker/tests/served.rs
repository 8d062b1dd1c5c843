//! ApiVersions advertises each API this work added, at every version the generated code decodes.

mod common;

use common::Node;
use strand_protocol::messages::ApiVersionsRequest;
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};

/// The admin and offset APIs are advertised with Kafka 4.4's version ranges.
#[tokio::test]
async fn new_apis_are_advertised() {
    let mut node = Node::new();
    let request = ApiVersionsRequest {
        client_software_name: "test".into(),
        client_software_version: "1".into(),
        ..Default::default()
    };
    let ResponseBody::ApiVersions(response) = node.call(RequestBody::ApiVersions(request), 3).await else {
        panic!("not an ApiVersions response");
    };
    let expected = [
        (ApiKey::DeleteTopics, 1, 6),
        (ApiKey::OffsetForLeaderEpoch, 2, 4),
        (ApiKey::DescribeConfigs, 1, 4),
        (ApiKey::AlterConfigs, 0, 2),
        (ApiKey::CreatePartitions, 0, 3),
        (ApiKey::IncrementalAlterConfigs, 0, 1),
        (ApiKey::DescribeCluster, 0, 2),
        (ApiKey::DescribeTopicPartitions, 0, 0),
        (ApiKey::AlterPartitionReassignments, 0, 1),
        (ApiKey::ListPartitionReassignments, 0, 0),
        (ApiKey::ElectLeaders, 0, 2),
        (ApiKey::UpdateFeatures, 0, 2),
        (ApiKey::AlterReplicaLogDirs, 1, 2),
        // Kafka 4.4's delegation-token versions (v0 went with KIP-896).
        (ApiKey::CreateDelegationToken, 1, 3),
        (ApiKey::RenewDelegationToken, 1, 2),
        (ApiKey::ExpireDelegationToken, 1, 2),
        (ApiKey::DescribeDelegationToken, 1, 3),
    ];
    for (api, min, max) in expected {
        let advertised =
            response.api_keys.iter().find(|k| k.api_key == api as i16).map(|k| (k.min_version, k.max_version));
        assert_eq!(advertised, Some((min, max)), "{api:?}");
    }
}

/// A SASL client on a listener that does not authenticate gets what Kafka's `KafkaApis` answers
/// there: ILLEGAL_SASL_STATE to SaslHandshake (no mechanisms) and to SaslAuthenticate (with
/// Kafka's message), both advertised at Kafka 4.4's versions.
#[tokio::test]
async fn sasl_requests_on_a_plaintext_listener_get_illegal_sasl_state() {
    use strand_protocol::error::ErrorCode;
    use strand_protocol::messages::{SaslAuthenticateRequest, SaslHandshakeRequest};
    let mut node = Node::new();
    let request = common::api_versions_request();
    let ResponseBody::ApiVersions(versions) = node.call(RequestBody::ApiVersions(request), 3).await else {
        panic!("not an ApiVersions response");
    };
    for (api, min, max) in [(ApiKey::SaslHandshake, 0, 1), (ApiKey::SaslAuthenticate, 0, 2)] {
        let advertised =
            versions.api_keys.iter().find(|k| k.api_key == api as i16).map(|k| (k.min_version, k.max_version));
        assert_eq!(advertised, Some((min, max)), "{api:?}");
    }
    let handshake = SaslHandshakeRequest { mechanism: "PLAIN".into() };
    let ResponseBody::SaslHandshake(answer) = node.call(RequestBody::SaslHandshake(handshake), 1).await else {
        panic!("not a SaslHandshake response");
    };
    assert_eq!((answer.error_code, answer.mechanisms.len()), (ErrorCode::IllegalSaslState.code(), 0));
    let authenticate =
        SaslAuthenticateRequest { auth_bytes: bytes::Bytes::from_static(b"\0u\0p"), ..Default::default() };
    let ResponseBody::SaslAuthenticate(answer) = node.call(RequestBody::SaslAuthenticate(authenticate), 2).await else {
        panic!("not a SaslAuthenticate response");
    };
    assert_eq!(answer.error_code, ErrorCode::IllegalSaslState.code());
    assert_eq!(
        answer.error_message.as_deref(),
        Some("SaslAuthenticate request received after successful authentication")
    );
}
