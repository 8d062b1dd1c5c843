//! One module per API. [`SERVED`] lists the APIs this node answers; ApiVersions advertises
//! exactly these, so a client never negotiates an API that is not there.

pub mod api_versions;
pub mod create_topics;
pub mod fetch;
pub mod init_producer_id;
pub mod list_offsets;
pub mod metadata;
pub mod produce;

use strand_base::TopicPartition;
use strand_metadata::image::{MetadataImage, TopicImage};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::ApiKey;

/// The APIs with a handler.
pub const SERVED: &[ApiKey] = &[
    ApiKey::Produce,
    ApiKey::Fetch,
    ApiKey::ListOffsets,
    ApiKey::Metadata,
    ApiKey::ApiVersions,
    ApiKey::CreateTopics,
    ApiKey::InitProducerId,
];

/// Where a partition's requests go: the topic (found by name or id) and its leader epoch here.
pub(crate) struct Target {
    pub partition: TopicPartition,
    pub leader_epoch: i32,
}

/// Finds `topic` / `partition` in the image, led by `node`; the error code a client gets if not.
pub(crate) fn target(
    image: &MetadataImage,
    topic: Option<&TopicImage>,
    partition: i32,
    node: strand_base::BrokerId,
) -> Result<Target, ErrorCode> {
    let topic = topic.ok_or(ErrorCode::UnknownTopicOrPartition)?;
    let Some(state) = topic.partitions.get(&partition) else { return Err(ErrorCode::UnknownTopicOrPartition) };
    if state.leader != node {
        return Err(ErrorCode::NotLeaderOrFollower);
    }
    let _ = image;
    Ok(Target { partition: TopicPartition::new(topic.name.clone(), partition), leader_epoch: state.leader_epoch })
}
