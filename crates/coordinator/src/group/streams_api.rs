//! The coordinator's request API for streams groups (KIP-1071): StreamsGroupHeartbeat and
//! StreamsGroupDescribe, as [`super::api`] does for the other group APIs.

use futures::future::join_all;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::streams_group_describe_response::DescribedGroup;
use strand_protocol::messages::{
    StreamsGroupDescribeRequest, StreamsGroupDescribeResponse, StreamsGroupHeartbeatRequest,
};

use super::coordinator::GroupCoordinator;
use crate::group::ClientInfo;
use crate::group::streams::heartbeat::{StreamsHeartbeat, heartbeat_error};

impl GroupCoordinator {
    /// StreamsGroupHeartbeat: joins, heartbeats and leaves a streams group; the answer carries
    /// the member's epoch, its tasks when they changed, the topology's statuses, and the internal
    /// topics the broker should create.
    pub async fn streams_group_heartbeat(
        &self,
        client: ClientInfo,
        request: StreamsGroupHeartbeatRequest,
    ) -> StreamsHeartbeat {
        let failed = |error: ErrorCode, message: Option<String>| StreamsHeartbeat {
            response: heartbeat_error(error, message),
            create_topics: Vec::new(),
        };
        if request.group_id.trim().is_empty() {
            // Checked here too so that an empty id never picks a partition.
            return failed(ErrorCode::InvalidRequest, Some("GroupId can't be empty.".to_owned()));
        }
        let partition = self.partition_for(&request.group_id);
        let op = move |shard: &mut crate::group::GroupShard, now_ms| {
            shard.streams_group_heartbeat(now_ms, &client, &request)
        };
        self.write(partition, op).await.unwrap_or_else(|error| failed(error, None))
    }

    /// StreamsGroupDescribe; groups of partitions not served here get that error each. Answers
    /// follow the request's order.
    pub async fn streams_group_describe(&self, request: StreamsGroupDescribeRequest) -> StreamsGroupDescribeResponse {
        let by_partition = self.by_partition(&request.group_ids);
        let reads = by_partition.into_iter().map(|(partition, indexed)| async move {
            let ids: Vec<String> = indexed.iter().map(|(_, id)| id.clone()).collect();
            let described =
                match self.shards.read(partition, move |shard, _now_ms| shard.streams_group_describe(&ids)).await {
                    Ok(described) => described,
                    Err(error) => indexed
                        .iter()
                        .map(|(_, id)| DescribedGroup {
                            group_id: id.clone(),
                            error_code: error.code(),
                            ..DescribedGroup::default()
                        })
                        .collect(),
                };
            indexed.into_iter().map(|(i, _)| i).zip(described).collect::<Vec<_>>()
        });
        let mut groups: Vec<(usize, DescribedGroup)> = join_all(reads).await.into_iter().flatten().collect();
        groups.sort_by_key(|(i, _)| *i);
        StreamsGroupDescribeResponse {
            groups: groups.into_iter().map(|(_, g)| g).collect(),
            ..StreamsGroupDescribeResponse::default()
        }
    }
}
