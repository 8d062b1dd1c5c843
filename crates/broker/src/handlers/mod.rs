//! One module per API, and the table of the APIs this node serves (`served_apis!`): ApiVersions
//! advertises exactly those, so a client never negotiates an API that is not there.

pub mod alter_client_quotas;
pub mod alter_configs;
pub mod alter_partition_reassignments;
pub mod alter_user_scram_credentials;
pub mod api_versions;
pub mod create_partitions;
pub mod create_topics;
pub mod delete_records;
pub mod delete_topics;
pub mod describe_client_quotas;
pub mod describe_cluster;
pub mod describe_configs;
pub mod describe_log_dirs;
pub mod describe_producers;
pub mod describe_topic_partitions;
pub mod describe_user_scram_credentials;
pub mod fetch;
pub mod find_coordinator;
pub mod groups;
pub mod incremental_alter_configs;
pub mod init_producer_id;
pub mod list_offsets;
pub mod list_partition_reassignments;
pub mod metadata;
pub mod offset_for_leader_epoch;
pub mod produce;
pub mod sasl;
pub mod transactions;
pub mod txn_offset_commit;
pub mod write_txn_markers;

use strand_base::TopicPartition;
use strand_metadata::image::{MetadataImage, TopicImage};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};

use crate::dispatch::Client;
use crate::{Broker, Progress};

/// The APIs this node serves, one row each: ApiVersions advertises exactly these ([`SERVED`],
/// with the versions their schemas decode), and [`Broker::dispatch`] runs the row's handler on
/// the decoded request; anything else closes the connection. Adding an API is one row here.
/// `waiting` rows may hand back an acks=all wait ([`Progress::Waiting`]); `answered` rows give the
/// API's response. A row sees `broker`, the request's `version` and the `client` that sent it.
macro_rules! served_apis {
    (
        |$broker:ident, $version:ident, $client:ident|
        waiting { $($wapi:ident($wr:ident) => $wexpr:expr,)* }
        answered { $($api:ident($r:ident) => $expr:expr,)* }
    ) => {
        /// The APIs with a handler, in the table's order.
        pub const SERVED: &[ApiKey] = &[$(ApiKey::$wapi,)* $(ApiKey::$api,)*];

        impl Broker {
            /// Runs the API's handler. `Err`: close the connection.
            pub(crate) async fn dispatch(
                &self,
                body: RequestBody,
                $version: i16,
                $client: Client<'_>,
            ) -> Result<Progress<Option<ResponseBody>, produce::ReplicaWait>, String> {
                let $broker = self;
                match body {
                    $(RequestBody::$wapi($wr) => $wexpr,)*
                    $(RequestBody::$api($r) => Ok(Progress::Done(Some(ResponseBody::$api($expr)))),)*
                    other => Err(format!("{:?} has no handler", other.api_key())),
                }
            }
        }
    };
}

served_apis! {
    |broker, version, client|
    waiting {
        Produce(r) => produce::start(broker, r, version)
            .await
            .map(|produced| produced.map_done(|response| response.map(ResponseBody::Produce))),
    }
    answered {
        Fetch(r) => fetch::handle(broker, r, version).await,
        ListOffsets(r) => list_offsets::handle(broker, r, version).await,
        Metadata(r) => metadata::handle(broker, r, version, client.listener).await,
        ApiVersions(r) => api_versions::handle(broker, &r),
        CreateTopics(r) => create_topics::handle(broker, r, version, client).await,
        DeleteTopics(r) => delete_topics::handle(broker, r, version, client).await,
        DeleteRecords(r) => delete_records::handle(broker, r),
        InitProducerId(r) => init_producer_id::handle(broker, r, version).await,
        OffsetForLeaderEpoch(r) => offset_for_leader_epoch::handle(broker, r),
        DescribeConfigs(r) => describe_configs::handle(broker, r),
        AlterConfigs(r) => alter_configs::handle(broker, r, version).await,
        CreatePartitions(r) => create_partitions::handle(broker, r, version, client).await,
        IncrementalAlterConfigs(r) => incremental_alter_configs::handle(broker, r, version).await,
        DescribeCluster(r) => describe_cluster::handle(broker, r, version, client.listener),
        DescribeTopicPartitions(r) => describe_topic_partitions::handle(broker, r),
        FindCoordinator(r) => find_coordinator::handle(broker, r, version, client.listener).await,
        JoinGroup(r) => {
            let member = groups::client(client.id, client.peer);
            broker.groups.join_group(member, r, version).await
        },
        SyncGroup(r) => broker.groups.sync_group(r, version).await,
        Heartbeat(r) => broker.groups.heartbeat(r, version).await,
        LeaveGroup(r) => broker.groups.leave_group(r, version).await,
        OffsetCommit(r) => {
            let topics = groups::ImageTopics(broker.image());
            broker.groups.offset_commit(r, version, &topics).await
        },
        OffsetFetch(r) => {
            let topics = groups::ImageTopics(broker.image());
            broker.groups.offset_fetch(r, version, &topics).await
        },
        OffsetDelete(r) => broker.groups.offset_delete(r, version).await,
        ListGroups(r) => broker.groups.list_groups(r, version).await,
        DescribeGroups(r) => broker.groups.describe_groups(r, version).await,
        DeleteGroups(r) => broker.groups.delete_groups(r, version).await,
        ConsumerGroupHeartbeat(r) => {
            let member = groups::client(client.id, client.peer);
            broker.groups.consumer_group_heartbeat(member, r, version).await
        },
        ConsumerGroupDescribe(r) => broker.groups.consumer_group_describe(r, version).await,
        DescribeProducers(r) => describe_producers::handle(broker, r),
        AddPartitionsToTxn(r) => transactions::add_partitions_to_txn(broker, r, version).await,
        AddOffsetsToTxn(r) => transactions::add_offsets_to_txn(broker, r, version).await,
        TxnOffsetCommit(r) => txn_offset_commit::handle(broker, r, version).await,
        EndTxn(r) => transactions::end_txn(broker, r, version).await,
        WriteTxnMarkers(r) => write_txn_markers::handle(broker, r, client.session).await,
        DescribeTransactions(r) => transactions::describe_transactions(broker, r, version).await,
        ListTransactions(r) => transactions::list_transactions(broker, r, version).await,
        AlterPartitionReassignments(r) => alter_partition_reassignments::handle(broker, r, version).await,
        ListPartitionReassignments(r) => list_partition_reassignments::handle(broker, r, version).await,
        DescribeLogDirs(r) => describe_log_dirs::handle(broker, r),
        DescribeClientQuotas(r) => describe_client_quotas::handle(broker, &r, client.session),
        AlterClientQuotas(r) => alter_client_quotas::handle(broker, r, version, client.session).await,
        DescribeUserScramCredentials(r) => describe_user_scram_credentials::handle(broker, r),
        AlterUserScramCredentials(r) => alter_user_scram_credentials::handle(broker, r, version).await,
        SaslHandshake(r) => sasl::handshake(&r),
        SaslAuthenticate(r) => sasl::authenticate(&r),
    }
}

/// Every operation Kafka supports on a topic (READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE,
/// DESCRIBE_CONFIGS, ALTER_CONFIGS) as the 32-bit field of their `AclOperation` codes: what Kafka
/// reports as a topic's authorized operations when no authorizer is configured, as here.
pub(crate) const TOPIC_OPERATIONS_ALL: i32 = 1 << 3 | 1 << 4 | 1 << 5 | 1 << 6 | 1 << 7 | 1 << 8 | 1 << 10 | 1 << 11;

/// Where a partition's requests go: the topic (found by name or id) and its leader epoch here.
pub(crate) struct Target {
    pub partition: TopicPartition,
    /// How many replicas are in sync (for `min.insync.replicas` under `acks=all`).
    pub isr_len: usize,
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
    Ok(Target {
        partition: TopicPartition::new(topic.name.clone(), partition),
        isr_len: state.isr.len(),
        leader_epoch: state.leader_epoch,
    })
}
