//! Share groups (KIP-932) through `Broker::handle`: a member joins with ShareGroupHeartbeat and is
//! assigned the partition; ShareFetch opens a share session at epoch 0 (acknowledgements there are
//! INVALID_REQUEST), starts the share-partition at the log's end, acquires what is appended after
//! with delivery count 1, and refuses a stale epoch; acknowledgements of records the member does
//! not hold are INVALID_RECORD_STATE per partition, a RELEASE makes the record come back with
//! delivery count 2, an ACCEPT finishes it; ShareAcknowledge at epoch 0 or for an unknown session
//! is refused; epoch -1 closes the session and releases what the member held. ShareGroupDescribe
//! shows the member, ListGroups lists the group as type `share`; a classic JoinGroup of the share
//! group's id is INCONSISTENT_GROUP_PROTOCOL.

mod common;

use common::Node;
use strand_base::{TopicPartition, Uuid};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::share_acknowledge_request::{AcknowledgePartition, AcknowledgeTopic};
use strand_protocol::messages::share_fetch_request::{AcknowledgementBatch, FetchPartition, FetchTopic};
use strand_protocol::messages::share_fetch_response::PartitionData;
use strand_protocol::messages::{
    ConsumerGroupHeartbeatRequest, FindCoordinatorRequest, JoinGroupRequest, ListGroupsRequest,
    ShareAcknowledgeRequest, ShareAcknowledgeResponse, ShareFetchRequest, ShareFetchResponse,
    ShareGroupDescribeRequest, ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse,
};

const TOPIC: &str = "queue";
const GROUP: &str = "workers";
const ACCEPT: i8 = 1;
const RELEASE: i8 = 2;
/// How many times the test asks a coordinator that is still loading its partition.
const LOAD_ATTEMPTS_MAX: usize = 1000;

/// A ShareFetch of partition 0 by `member` at `epoch`, with acknowledgement batches `acks`; it
/// does not wait.
async fn share_fetch(
    node: &mut Node,
    id: Uuid,
    member: &str,
    epoch: i32,
    acks: &[(i64, i64, i8)],
) -> ShareFetchResponse {
    let acknowledgement_batches = acks
        .iter()
        .map(|&(first_offset, last_offset, ack)| AcknowledgementBatch {
            first_offset,
            last_offset,
            acknowledge_types: vec![ack],
            ..Default::default()
        })
        .collect();
    let partition = FetchPartition { partition_index: 0, acknowledgement_batches, ..Default::default() };
    let request = ShareFetchRequest {
        group_id: Some(GROUP.into()),
        member_id: Some(member.into()),
        share_session_epoch: epoch,
        max_wait_ms: 0,
        max_records: 100,
        batch_size: 100,
        topics: vec![FetchTopic { topic_id: id, partitions: vec![partition], ..Default::default() }],
        ..Default::default()
    };
    let ResponseBody::ShareFetch(response) = node.call(RequestBody::ShareFetch(request), 1).await else {
        panic!("not a ShareFetch response")
    };
    response
}

async fn share_acknowledge(
    node: &mut Node,
    id: Uuid,
    member: &str,
    epoch: i32,
    acks: &[(i64, i64, i8)],
) -> ShareAcknowledgeResponse {
    let acknowledgement_batches = acks
        .iter()
        .map(|&(first_offset, last_offset, ack)| {
            strand_protocol::messages::share_acknowledge_request::AcknowledgementBatch {
                first_offset,
                last_offset,
                acknowledge_types: vec![ack],
                ..Default::default()
            }
        })
        .collect();
    let partition = AcknowledgePartition { partition_index: 0, acknowledgement_batches, ..Default::default() };
    let request = ShareAcknowledgeRequest {
        group_id: Some(GROUP.into()),
        member_id: Some(member.into()),
        share_session_epoch: epoch,
        topics: vec![AcknowledgeTopic { topic_id: id, partitions: vec![partition], ..Default::default() }],
        ..Default::default()
    };
    let ResponseBody::ShareAcknowledge(response) = node.call(RequestBody::ShareAcknowledge(request), 1).await else {
        panic!("not a ShareAcknowledge response")
    };
    response
}

/// Member `member` joins the group subscribed to the topic, as a client does: it finds the
/// group's coordinator (creating `__consumer_offsets`), then joins once its shard has loaded.
async fn join(node: &mut Node, member: &str) -> ShareGroupHeartbeatResponse {
    let join = ShareGroupHeartbeatRequest {
        group_id: GROUP.into(),
        member_id: member.into(),
        member_epoch: 0,
        subscribed_topic_names: Some(vec![TOPIC.into()]),
        ..Default::default()
    };
    let find = FindCoordinatorRequest { key_type: 0, coordinator_keys: vec![GROUP.into()], ..Default::default() };
    node.call(RequestBody::FindCoordinator(find), 4).await;
    let loading = [ErrorCode::CoordinatorLoadInProgress.code(), ErrorCode::NotCoordinator.code()];
    for _ in 0..LOAD_ATTEMPTS_MAX {
        let ResponseBody::ShareGroupHeartbeat(joined) =
            node.call(RequestBody::ShareGroupHeartbeat(join.clone()), 1).await
        else {
            panic!("not a ShareGroupHeartbeat response")
        };
        if !loading.contains(&joined.error_code) {
            return joined;
        }
        tokio::task::yield_now().await;
    }
    panic!("the coordinator never loaded")
}

fn partition(response: &ShareFetchResponse) -> &PartitionData {
    assert_eq!(response.error_code, 0, "{response:?}");
    &response.responses[0].partitions[0]
}

/// The acquired ranges as (first, last, delivery count).
fn acquired(response: &ShareFetchResponse) -> Vec<(i64, i64, i16)> {
    partition(response).acquired_records.iter().map(|r| (r.first_offset, r.last_offset, r.delivery_count)).collect()
}

#[tokio::test]
async fn a_member_joins_fetches_and_acknowledges() {
    let mut node = Node::new();
    let id = node.create_topic(TOPIC, 1).await;
    let tp = TopicPartition::new(TOPIC, 0);
    node.append(&tp, 0);

    let joined = join(&mut node, "m1").await;
    assert_eq!((joined.error_code, joined.member_epoch), (0, 1), "{joined:?}");
    let assignment = joined.assignment.expect("assigned");
    assert_eq!(
        (assignment.topic_partitions[0].topic_id, assignment.topic_partitions[0].partitions.clone()),
        (id, vec![0])
    );

    // The group describes with its member; a classic JoinGroup may not take its id.
    let describe = ShareGroupDescribeRequest { group_ids: vec![GROUP.into()], ..Default::default() };
    let ResponseBody::ShareGroupDescribe(described) = node.call(RequestBody::ShareGroupDescribe(describe), 1).await
    else {
        panic!("not a ShareGroupDescribe response")
    };
    let group = &described.groups[0];
    assert_eq!((group.error_code, group.group_state.as_str(), group.members.len()), (0, "Stable", 1), "{group:?}");
    assert_eq!(group.members[0].assignment.topic_partitions[0].topic_name, TOPIC);
    for (types, listed) in [("share", true), ("Share", true), ("consumer", false)] {
        let list = ListGroupsRequest { types_filter: vec![types.into()], ..Default::default() };
        let ResponseBody::ListGroups(groups) = node.call(RequestBody::ListGroups(list), 5).await else {
            panic!("not a ListGroups response")
        };
        let found: Vec<_> = groups
            .groups
            .iter()
            .map(|g| (g.group_id.as_str(), g.group_type.as_str(), g.group_state.as_str()))
            .collect();
        assert_eq!(found, if listed { vec![(GROUP, "share", "Stable")] } else { vec![] }, "{types}");
    }
    let join_classic = JoinGroupRequest {
        group_id: GROUP.into(),
        session_timeout_ms: 10_000,
        rebalance_timeout_ms: 10_000,
        protocol_type: "consumer".into(),
        ..Default::default()
    };
    let ResponseBody::JoinGroup(classic) = node.call(RequestBody::JoinGroup(join_classic), 9).await else {
        panic!("not a JoinGroup response")
    };
    assert_eq!(classic.error_code, ErrorCode::InconsistentGroupProtocol.code());

    let early_acks = share_fetch(&mut node, id, "m1", 0, &[(0, 0, ACCEPT)]).await;
    assert_eq!(early_acks.error_code, ErrorCode::InvalidRequest.code());
    // The first fetch starts the share-partition at the log's end: offset 0 is never delivered.
    assert_eq!(acquired(&share_fetch(&mut node, id, "m1", 0, &[]).await), []);
    node.append(&tp, 0);
    node.append(&tp, 0);
    let fetched = share_fetch(&mut node, id, "m1", 1, &[]).await;
    assert_eq!(acquired(&fetched), [(1, 2, 1)]);
    assert_eq!(fetched.acquisition_lock_timeout_ms, 30_000);
    assert!(partition(&fetched).records.as_ref().is_some_and(|r| !r.is_empty()), "the batches holding them");
    let stale = share_fetch(&mut node, id, "m1", 1, &[]).await;
    assert_eq!(stale.error_code, ErrorCode::InvalidShareSessionEpoch.code());

    // Offset 0 was never acquired; release 1, accept 2: 1 comes back with delivery count 2.
    let refused = share_acknowledge(&mut node, id, "m1", 2, &[(0, 0, ACCEPT)]).await;
    assert_eq!(refused.responses[0].partitions[0].error_code, ErrorCode::InvalidRecordState.code());
    let acked = share_fetch(&mut node, id, "m1", 3, &[(1, 1, RELEASE), (2, 2, ACCEPT)]).await;
    assert_eq!(partition(&acked).acknowledge_error_code, 0);
    assert_eq!(acquired(&acked), [(1, 1, 2)]);

    let initial = share_acknowledge(&mut node, id, "m1", 0, &[]).await;
    assert_eq!(initial.error_code, ErrorCode::InvalidShareSessionEpoch.code());
    let unknown = share_acknowledge(&mut node, id, "m2", 1, &[]).await;
    assert_eq!(unknown.error_code, ErrorCode::ShareSessionNotFound.code());

    // Closing the session releases offset 1: another member gets it, delivered a third time.
    let closed = share_acknowledge(&mut node, id, "m1", -1, &[]).await;
    assert_eq!(closed.error_code, 0, "{closed:?}");
    assert_eq!(acquired(&share_fetch(&mut node, id, "m2", 0, &[]).await), [(1, 1, 3)]);
}

/// A partition led by another broker is NOT_LEADER_OR_FOLLOWER with that leader and its
/// endpoint (KIP-951), so the share consumer goes there at once.
#[tokio::test]
async fn a_partition_led_elsewhere_names_its_leader() {
    let mut node = Node::new();
    node.register(2, strand_metadata::controller::InitialFencing::Unfenced);
    let id = node.create_assigned("elsewhere", &[&[2]]).await;
    let response = share_fetch(&mut node, id, "m1", 0, &[]).await;
    let data = partition(&response);
    assert_eq!(data.error_code, ErrorCode::NotLeaderOrFollower.code());
    assert_eq!(data.current_leader.leader_id, 2);
    assert_eq!(response.node_endpoints.iter().map(|e| e.node_id.0).collect::<Vec<_>>(), [2]);
}

/// A share group may not take the id of a KIP-848 consumer group (Kafka 4.4: GROUP_ID_NOT_FOUND,
/// "is not a share group"); only classic groups were checked before.
#[tokio::test]
async fn a_consumer_groups_id_is_not_a_share_group() {
    let mut node = Node::new();
    node.create_topic(TOPIC, 1).await;
    let find = FindCoordinatorRequest { key_type: 0, coordinator_keys: vec![GROUP.into()], ..Default::default() };
    node.call(RequestBody::FindCoordinator(find), 4).await;
    let consumer = ConsumerGroupHeartbeatRequest {
        group_id: GROUP.into(),
        member_id: "m-1-aaaaaaaaaaaaaaaaa".into(),
        member_epoch: 0,
        rebalance_timeout_ms: 30_000,
        subscribed_topic_names: Some(vec![TOPIC.into()]),
        topic_partitions: Some(Vec::new()),
        ..Default::default()
    };
    let loading = [ErrorCode::CoordinatorLoadInProgress.code(), ErrorCode::NotCoordinator.code()];
    let mut attempts = 0;
    loop {
        let ResponseBody::ConsumerGroupHeartbeat(joined) =
            node.call(RequestBody::ConsumerGroupHeartbeat(consumer.clone()), 1).await
        else {
            panic!("not a ConsumerGroupHeartbeat response")
        };
        if !loading.contains(&joined.error_code) {
            assert_eq!(joined.error_code, ErrorCode::None.code(), "{joined:?}");
            break;
        }
        attempts += 1;
        assert!(attempts < LOAD_ATTEMPTS_MAX, "the coordinator never loaded: {joined:?}");
        tokio::task::yield_now().await;
    }
    let share = ShareGroupHeartbeatRequest {
        group_id: GROUP.into(),
        member_id: "s1".into(),
        member_epoch: 0,
        subscribed_topic_names: Some(vec![TOPIC.into()]),
        ..Default::default()
    };
    let ResponseBody::ShareGroupHeartbeat(refused) = node.call(RequestBody::ShareGroupHeartbeat(share), 1).await else {
        panic!("not a ShareGroupHeartbeat response")
    };
    assert_eq!(refused.error_code, ErrorCode::GroupIdNotFound.code(), "{refused:?}");
    assert_eq!(refused.error_message.as_deref(), Some("Group workers is not a share group."));
}

/// `share.auto.offset.reset` decides where a share-partition without state starts: the log's end
/// (latest, the default), its start (earliest), or the first record no older than a duration
/// (`by_duration:PT1H`: the two records stamped two hours ago are skipped, the one stamped now is
/// not).
#[tokio::test]
async fn a_share_partition_starts_where_share_auto_offset_reset_says() {
    use strand_base::Clock;
    for (reset, expected) in
        [(None, vec![]), (Some("earliest"), vec![(0, 2, 1)]), (Some("by_duration:PT1H"), vec![(2, 2, 1)])]
    {
        let mut node = Node::new();
        let id = node.create_topic(TOPIC, 1).await;
        let tp = TopicPartition::new(TOPIC, 0);
        // Two hours old (not older: a week's gap would roll a segment, and a fetch reads one).
        let now_ms = strand_base::SystemClock.now_ms();
        node.append_at(&tp, 0, now_ms - 2 * 3_600_000);
        node.append_at(&tp, 0, now_ms - 2 * 3_600_000);
        node.append_at(&tp, 0, now_ms);
        if let Some(value) = reset {
            set_share_start(&mut node, value).await;
        }
        let joined = join(&mut node, "m1").await;
        assert_eq!(joined.error_code, 0, "{joined:?}");
        let fetched = share_fetch(&mut node, id, "m1", 0, &[]).await;
        assert_eq!(acquired(&fetched), expected, "share.auto.offset.reset={reset:?}");
    }
}

/// A `by_duration` group with no record in its window yet: OFFSET_NOT_AVAILABLE and nothing
/// initialized, as Kafka answers; once a record falls in the window, the next fetch starts there.
#[tokio::test]
async fn a_by_duration_start_waits_for_a_record_in_its_window() {
    use strand_base::Clock;
    let mut node = Node::new();
    let id = node.create_topic(TOPIC, 1).await;
    let tp = TopicPartition::new(TOPIC, 0);
    let now_ms = strand_base::SystemClock.now_ms();
    node.append_at(&tp, 0, now_ms - 2 * 3_600_000);
    set_share_start(&mut node, "by_duration:PT1H").await;
    assert_eq!(join(&mut node, "m1").await.error_code, 0);
    let first = share_fetch(&mut node, id, "m1", 0, &[]).await;
    assert_eq!(partition(&first).error_code, ErrorCode::OffsetNotAvailable.code(), "{first:?}");
    node.append_at(&tp, 0, now_ms);
    let second = share_fetch(&mut node, id, "m1", 1, &[]).await;
    assert_eq!(acquired(&second), vec![(1, 1, 1)], "{second:?}");
}

/// Sets the group's `share.auto.offset.reset` to `value`.
async fn set_share_start(node: &mut Node, value: &str) {
    use strand_protocol::messages::IncrementalAlterConfigsRequest;
    use strand_protocol::messages::incremental_alter_configs_request::{AlterConfigsResource, AlterableConfig};
    const GROUP_RESOURCE: i8 = 32;
    let config = AlterableConfig {
        name: "share.auto.offset.reset".into(),
        config_operation: 0,
        value: Some(value.into()),
        ..Default::default()
    };
    let resource = AlterConfigsResource {
        resource_type: GROUP_RESOURCE,
        resource_name: GROUP.into(),
        configs: vec![config],
        ..Default::default()
    };
    let request = IncrementalAlterConfigsRequest { resources: vec![resource], ..Default::default() };
    let ResponseBody::IncrementalAlterConfigs(altered) =
        node.call(RequestBody::IncrementalAlterConfigs(request), 1).await
    else {
        panic!("not an IncrementalAlterConfigs response")
    };
    assert_eq!(altered.responses[0].error_code, 0, "{altered:?}");
}
