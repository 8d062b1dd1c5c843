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
    ];
    for (api, min, max) in expected {
        let advertised =
            response.api_keys.iter().find(|k| k.api_key == api as i16).map(|k| (k.min_version, k.max_version));
        assert_eq!(advertised, Some((min, max)), "{api:?}");
    }
}
