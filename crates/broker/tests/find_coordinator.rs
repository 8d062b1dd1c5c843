//! FindCoordinator creates a coordinator's internal topic on first use, with Kafka's configs for
//! it, and names the leader of the key's partition: `__consumer_offsets` for groups,
//! `__transaction_state` (with `transaction.state.log.min.isr` as its `min.insync.replicas`) for
//! transactional ids, `__share_group_state` (cleanup by deletion, kept forever) for
//! share-partitions' state keys (`groupId:topicId:partition`, hashed whole). Unknown key types and
//! share keys of another form are INVALID_REQUEST.

mod common;

use common::Node;
use strand_metadata::image::ConfigResource;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::FindCoordinatorRequest;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::find_coordinator_response::Coordinator;

async fn find(node: &mut Node, key_type: i8, key: &str) -> Coordinator {
    let request = FindCoordinatorRequest { key_type, coordinator_keys: vec![key.into()], ..Default::default() };
    let ResponseBody::FindCoordinator(response) = node.call(RequestBody::FindCoordinator(request), 4).await else {
        panic!("not a FindCoordinator response")
    };
    response.coordinators.into_iter().next().expect("one coordinator")
}

#[tokio::test]
async fn each_key_type_has_its_internal_topic() {
    let mut node = Node::new();
    let transactional = find(&mut node, 1, "my-transactional-id").await;
    assert_eq!((transactional.error_code, transactional.node_id.0), (0, 1), "{transactional:?}");
    let image = node.broker.image();
    let topic = image.topics().by_name("__transaction_state").expect("created on first use");
    assert_eq!(topic.partitions.len(), 50);
    let configs = image.configs().resource(&ConfigResource::topic("__transaction_state")).expect("configs");
    let config = |key: &str| configs.get(key).map(String::as_str);
    assert_eq!(config("cleanup.policy"), Some("compact"));
    assert_eq!(config("compression.type"), Some("uncompressed"));
    assert_eq!(config("min.insync.replicas"), Some("1"));
    assert!(image.topics().by_name("__consumer_offsets").is_none(), "only the asked-for topic is created");

    let group = find(&mut node, 0, "my-group").await;
    assert_eq!((group.error_code, group.node_id.0), (0, 1), "{group:?}");
    let image = node.broker.image();
    let configs = image.configs().resource(&ConfigResource::topic("__consumer_offsets")).expect("configs");
    assert_eq!(configs.get("compression.type").map(String::as_str), Some("producer"));
    assert_eq!(configs.get("min.insync.replicas"), None, "the broker's default applies");

    let share = find(&mut node, 2, "my-group:AAAAAAAAAAAAAAAAAAAAAQ:3").await;
    assert_eq!((share.error_code, share.node_id.0), (0, 1), "{share:?}");
    let image = node.broker.image();
    let configs = image.configs().resource(&ConfigResource::topic("__share_group_state")).expect("configs");
    let config = |key: &str| configs.get(key).map(String::as_str);
    assert_eq!(config("cleanup.policy"), Some("delete"));
    assert_eq!(config("retention.ms"), Some("-1"));
    assert_eq!(config("min.insync.replicas"), Some("1"));
    for malformed in ["share", "my-group:AAAAAAAAAAAAAAAAAAAAAQ", "my-group:not-a-uuid:0", ":AAAAAAAAAAAAAAAAAAAAAQ:0"]
    {
        assert_eq!(find(&mut node, 2, malformed).await.error_code, ErrorCode::InvalidRequest.code(), "{malformed}");
    }
    assert_eq!(find(&mut node, 7, "what").await.error_code, ErrorCode::InvalidRequest.code());
}
