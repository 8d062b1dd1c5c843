//! `throttle_time_ms`, read and written in any response that has it (78 of Kafka 4.4's 91),
//! so that dispatch sets a throttle in one place whatever the API (KIP-219).

use strand_protocol::messages::api::ResponseBody;

macro_rules! throttled_responses {
    ($($api:ident),* $(,)?) => {
        /// The response's `throttle_time_ms`; 0 for an API without the field.
        pub fn throttle_time_ms(body: &ResponseBody) -> i32 {
            match body {
                $(ResponseBody::$api(r) => r.throttle_time_ms,)*
                _ => 0,
            }
        }

        /// Sets the response's `throttle_time_ms`; an API without the field is left as it is.
        pub fn set_throttle_time_ms(body: &mut ResponseBody, ms: i32) {
            match body {
                $(ResponseBody::$api(r) => r.throttle_time_ms = ms,)*
                _ => {}
            }
        }
    };
}

throttled_responses!(
    AddOffsetsToTxn,
    AddPartitionsToTxn,
    AddRaftVoter,
    AllocateProducerIds,
    AlterClientQuotas,
    AlterConfigs,
    AlterPartitionReassignments,
    AlterPartition,
    AlterReplicaLogDirs,
    AlterShareGroupOffsets,
    AlterUserScramCredentials,
    ApiVersions,
    AssignReplicasToDirs,
    BrokerHeartbeat,
    BrokerRegistration,
    ConsumerGroupDescribe,
    ConsumerGroupHeartbeat,
    ControllerRegistration,
    CreateAcls,
    CreateDelegationToken,
    CreatePartitions,
    CreateTopics,
    DeleteAcls,
    DeleteGroups,
    DeleteRecords,
    DeleteShareGroupOffsets,
    DeleteTopics,
    DescribeAcls,
    DescribeClientQuotas,
    DescribeCluster,
    DescribeConfigs,
    DescribeDelegationToken,
    DescribeGroups,
    DescribeLogDirs,
    DescribeProducers,
    DescribeShareGroupOffsets,
    DescribeTopicPartitions,
    DescribeTransactions,
    DescribeUserScramCredentials,
    ElectLeaders,
    EndTxn,
    ExpireDelegationToken,
    Fetch,
    FetchSnapshot,
    FindCoordinator,
    GetTelemetrySubscriptions,
    Heartbeat,
    IncrementalAlterConfigs,
    InitProducerId,
    JoinGroup,
    LeaveGroup,
    ListConfigResources,
    ListGroups,
    ListOffsets,
    ListPartitionReassignments,
    ListTransactions,
    Metadata,
    OffsetCommit,
    OffsetDelete,
    OffsetFetch,
    OffsetForLeaderEpoch,
    Produce,
    PushTelemetry,
    RemoveRaftVoter,
    RenewDelegationToken,
    ShareAcknowledge,
    ShareFetch,
    ShareGroupDescribe,
    ShareGroupHeartbeat,
    StreamsGroupDescribe,
    StreamsGroupHeartbeat,
    StreamsGroupTopologyDescriptionUpdate,
    SyncGroup,
    TxnOffsetCommit,
    UnregisterBroker,
    UnregisterController,
    UpdateFeatures,
    UpdateRaftVoter,
);
