//! One module per API, and the table of the APIs this node serves (`served_apis!`): ApiVersions
//! advertises exactly those, so a client never negotiates an API that is not there.

pub mod admin_apis;
pub mod alter_client_quotas;
pub mod alter_configs;
pub mod alter_partition_reassignments;
pub mod alter_replica_log_dirs;
pub mod alter_user_scram_credentials;
pub mod api_versions;
pub(crate) mod config_preprocess;
pub mod create_acls;
pub mod create_delegation_token;
pub mod create_partitions;
pub mod create_topics;
pub mod delete_acls;
pub mod delete_records;
pub mod delete_topics;
pub mod describe_acls;
pub mod describe_client_quotas;
pub mod describe_cluster;
pub mod describe_configs;
pub mod describe_delegation_token;
pub mod describe_log_dirs;
pub mod describe_producers;
pub mod describe_quorum;
pub mod describe_topic_partitions;
pub mod describe_user_scram_credentials;
pub mod elect_leaders;
pub mod expire_delegation_token;
pub mod fetch;
pub mod find_coordinator;
pub mod group_offsets;
pub mod groups;
pub mod incremental_alter_configs;
pub mod init_producer_id;
pub mod list_offsets;
pub mod list_partition_reassignments;
pub mod metadata;
pub mod offset_for_leader_epoch;
pub mod produce;
pub mod raft_voters;
pub mod renew_delegation_token;
pub mod sasl;
pub mod share_fetch;
pub mod share_groups;
pub mod share_offsets;
pub mod share_state;
pub mod streams_groups;
pub mod transactions;
pub mod txn_offset_commit;
pub mod unregister_broker;
pub mod update_features;
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
        Produce(r) => produce::start(broker, r, version, client.session)
            .await
            .map(|produced| produced.map_done(|response| response.map(ResponseBody::Produce))),
    }
    answered {
        Fetch(r) => fetch::handle(broker, r, version, client.session).await,
        ListOffsets(r) => list_offsets::handle(broker, r, version, client.session).await,
        Metadata(r) => metadata::handle(broker, r, version, client.listener, client.session).await,
        ApiVersions(r) => api_versions::handle(broker, &r, version),
        CreateTopics(r) => create_topics::handle(broker, r, version, client).await,
        DeleteTopics(r) => delete_topics::handle(broker, r, version, client).await,
        DeleteRecords(r) => delete_records::handle(broker, r, client.session),
        InitProducerId(r) => init_producer_id::handle(broker, r, version, client.session).await,
        OffsetForLeaderEpoch(r) => offset_for_leader_epoch::handle(broker, r, client.session),
        DescribeConfigs(r) => describe_configs::handle(broker, r, client.session),
        AlterConfigs(r) => alter_configs::handle(broker, r, version, client.session).await,
        CreatePartitions(r) => create_partitions::handle(broker, r, version, client).await,
        IncrementalAlterConfigs(r) => incremental_alter_configs::handle(broker, r, version, client.session).await,
        DescribeCluster(r) => describe_cluster::handle(broker, r, version, client.listener, client.session),
        DescribeTopicPartitions(r) => describe_topic_partitions::handle(broker, r, client.session),
        FindCoordinator(r) => find_coordinator::handle(broker, r, version, client.listener, client.session).await,
        JoinGroup(r) => groups::join_group(broker, &client, r, version).await,
        SyncGroup(r) => groups::sync_group(broker, client.session, r, version).await,
        Heartbeat(r) => groups::heartbeat(broker, client.session, r, version).await,
        LeaveGroup(r) => groups::leave_group(broker, client.session, r, version).await,
        OffsetCommit(r) => group_offsets::offset_commit(broker, client.session, r, version).await,
        OffsetFetch(r) => group_offsets::offset_fetch(broker, client.session, r, version).await,
        OffsetDelete(r) => group_offsets::offset_delete(broker, client.session, r, version).await,
        ListGroups(r) => groups::list_groups(broker, client.session, r, version).await,
        DescribeGroups(r) => groups::describe_groups(broker, client.session, r, version).await,
        DeleteGroups(r) => groups::delete_groups(broker, client.session, r, version).await,
        ConsumerGroupHeartbeat(r) => groups::consumer_group_heartbeat(broker, &client, r, version).await,
        ConsumerGroupDescribe(r) => groups::consumer_group_describe(broker, client.session, r, version).await,
        DescribeProducers(r) => describe_producers::handle(broker, r, client.session),
        AddPartitionsToTxn(r) => transactions::add_partitions_to_txn(broker, r, version, client.session).await,
        AddOffsetsToTxn(r) => transactions::add_offsets_to_txn(broker, r, version, client.session).await,
        TxnOffsetCommit(r) => txn_offset_commit::handle(broker, r, version, client.session).await,
        EndTxn(r) => transactions::end_txn(broker, r, version, client.session).await,
        WriteTxnMarkers(r) => write_txn_markers::handle(broker, r, client.session).await,
        DescribeTransactions(r) => transactions::describe_transactions(broker, r, version, client.session).await,
        ListTransactions(r) => transactions::list_transactions(broker, r, version, client.session).await,
        AlterPartitionReassignments(r) => alter_partition_reassignments::handle(&broker.admin_apis(), r, version, client.session).await,
        ListPartitionReassignments(r) => list_partition_reassignments::handle(&broker.admin_apis(), r, version, client.session).await,
        ElectLeaders(r) => elect_leaders::handle(&broker.admin_apis(), r, version, client.session).await,
        UnregisterBroker(r) => unregister_broker::handle(&broker.admin_apis(), r, version, client.session).await,
        UpdateFeatures(r) => update_features::handle(broker, r, version, client.session).await,
        DescribeLogDirs(r) => describe_log_dirs::handle(broker, r, client.session),
        AlterReplicaLogDirs(r) => alter_replica_log_dirs::handle(broker, r, client.session),
        DescribeAcls(r) => describe_acls::handle(&broker.admin_apis(), r, client.session)?,
        CreateAcls(r) => create_acls::handle(&broker.admin_apis(), r, version, client.session).await?,
        DeleteAcls(r) => delete_acls::handle(&broker.admin_apis(), r, version, client.session).await?,
        DescribeClientQuotas(r) => describe_client_quotas::handle(broker, &r, client.session),
        AlterClientQuotas(r) => alter_client_quotas::handle(&broker.admin_apis(), r, version, client.session).await,
        DescribeQuorum(r) => describe_quorum::handle(broker, r, version, client.session).await,
        AddRaftVoter(r) => raft_voters::add(broker, &r, version, client.session).await,
        RemoveRaftVoter(r) => raft_voters::remove(broker, &r, version, client.session).await,
        DescribeUserScramCredentials(r) => describe_user_scram_credentials::handle(&broker.admin_apis(), r, client.session),
        AlterUserScramCredentials(r) => alter_user_scram_credentials::handle(&broker.admin_apis(), r, version, client.session).await,
        CreateDelegationToken(r) => create_delegation_token::handle(&broker.admin_apis(), r, version, client.session).await,
        RenewDelegationToken(r) => renew_delegation_token::handle(&broker.admin_apis(), r, version, client.session).await,
        ExpireDelegationToken(r) => expire_delegation_token::handle(&broker.admin_apis(), r, version, client.session).await,
        DescribeDelegationToken(r) => describe_delegation_token::handle(broker, &r, version, client.session),
        ShareGroupHeartbeat(r) => share_groups::heartbeat(broker, &client, r).await,
        ShareGroupDescribe(r) => share_groups::describe(broker, &client, r).await,
        StreamsGroupHeartbeat(r) => streams_groups::heartbeat(broker, &client, r, version).await,
        StreamsGroupDescribe(r) => streams_groups::describe(broker, &client, r).await,
        ShareFetch(r) => share_fetch::share_fetch(broker, r, client.session).await,
        ShareAcknowledge(r) => share_fetch::share_acknowledge(broker, r, client.session).await,
        DescribeShareGroupOffsets(r) => share_offsets::describe(broker, r, client.session).await,
        AlterShareGroupOffsets(r) => share_offsets::alter(broker, r, client.session).await,
        DeleteShareGroupOffsets(r) => share_offsets::delete(broker, r, client.session).await,
        InitializeShareGroupState(r) => share_state::initialize(broker, r, client.session).await,
        ReadShareGroupState(r) => share_state::read(broker, r, client.session).await,
        WriteShareGroupState(r) => share_state::write(broker, r, client.session).await,
        DeleteShareGroupState(r) => share_state::delete(broker, r, client.session).await,
        ReadShareGroupStateSummary(r) => share_state::summary(broker, r, client.session).await,
        SaslHandshake(r) => sasl::handshake(&r),
        SaslAuthenticate(r) => sasl::authenticate(&r),
    }
}

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
