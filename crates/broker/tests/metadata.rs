//! Metadata answers for topics named by id (v10+, as AdminClient's describeTopics by id asks),
//! by name, and unknown ones with the right error code.

mod common;

use common::Node;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::MetadataRequest;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::metadata_request::MetadataRequestTopic;

/// A topic looked up by id comes back with its name and partitions, whether the name is null or
/// empty (the Java client's form); an unknown id gets UNKNOWN_TOPIC_ID, an unknown name
/// UNKNOWN_TOPIC_OR_PARTITION. (Each form in its own request: a request answers each topic once.)
#[tokio::test]
async fn topics_by_id_and_by_name() {
    let mut node = Node::new();
    let id = node.create_topic("orders", 2).await;
    for version in [12, 13] {
        for name in [None, Some(String::new())] {
            let request = MetadataRequest {
                topics: Some(vec![
                    MetadataRequestTopic { topic_id: id, name: name.clone(), ..Default::default() },
                    MetadataRequestTopic { topic_id: strand_base::Uuid([9; 16]), name: None, ..Default::default() },
                    MetadataRequestTopic { name: Some("nope".into()), ..Default::default() },
                ]),
                ..Default::default()
            };
            let ResponseBody::Metadata(response) = node.call(RequestBody::Metadata(request), version).await else {
                panic!()
            };
            let codes: Vec<i16> = response.topics.iter().map(|t| t.error_code).collect();
            assert_eq!(
                codes,
                [0, ErrorCode::UnknownTopicId.code(), ErrorCode::UnknownTopicOrPartition.code()],
                "v{version} {name:?}"
            );
            assert_eq!(response.topics[0].name.as_deref(), Some("orders"));
            assert_eq!(response.topics[0].partitions.len(), 2);
        }
    }
}
