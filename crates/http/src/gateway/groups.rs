//! Consumer groups, their consumers and assignments, and their lags: ListGroups, DescribeGroups,
//! FindCoordinator, OffsetFetch and ListOffsets (latest, read uncommitted) through the node, as
//! Confluent's REST Proxy computes them with an admin client.

use std::collections::BTreeMap;

use axum::extract::Path;
use axum::response::Response;
use serde_json::{Value, json};
use strand_protocol::messages::describe_groups_response::{DescribedGroup, DescribedGroupMember};
use strand_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use strand_protocol::messages::offset_fetch_request::OffsetFetchRequestGroup;
use strand_protocol::messages::{
    DescribeGroupsRequest, FindCoordinatorRequest, ListGroupsRequest, ListOffsetsRequest, OffsetFetchRequest,
};

use super::error::check;
use super::json::{collection, ok, related, resource};
use super::{Ctx, RestError, answer};

/// A group as the routes show it: its description, type and coordinator.
struct Group {
    described: DescribedGroup,
    /// Kafka's group type (`classic`, `consumer`).
    group_type: String,
    coordinator: i32,
}

fn group_url(ctx: &Ctx, group: &str) -> String {
    format!("{}/consumer-groups/{group}", ctx.cluster_url())
}

/// Kafka's state name (`PreparingRebalance`) as Confluent's enum (`PREPARING_REBALANCE`).
fn state_name(state: &str) -> String {
    let mut out = String::with_capacity(state.len() + 4);
    for (i, c) in state.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    if out.is_empty() { "UNKNOWN".into() } else { out }
}

/// Describes `ids` (types from ListGroups, coordinators from FindCoordinator); a group that
/// does not exist or is dead is left out.
async fn describe(ctx: &Ctx, ids: Vec<String>, types: &BTreeMap<String, String>) -> Result<Vec<Group>, RestError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let request = FindCoordinatorRequest { key_type: 0, coordinator_keys: ids.clone(), ..Default::default() };
    let found = answer!(ctx, FindCoordinator, request, 4);
    let coordinators: BTreeMap<String, i32> =
        found.coordinators.into_iter().filter(|c| c.error_code == 0).map(|c| (c.key, c.node_id.0)).collect();
    let request = DescribeGroupsRequest { groups: ids, ..Default::default() };
    let described = answer!(ctx, DescribeGroups, request, 5);
    let mut groups = Vec::new();
    for group in described.groups {
        if group.error_code == 69 || group.group_state == "Dead" {
            continue;
        }
        check(group.error_code, group.error_message.as_deref())?;
        let group_type = types.get(&group.group_id).cloned().unwrap_or_else(|| "classic".into());
        let coordinator = coordinators.get(&group.group_id).copied().unwrap_or(-1);
        groups.push(Group { described: group, group_type, coordinator });
    }
    Ok(groups)
}

/// Every consumer group's id and type (share and streams groups are not consumer groups).
async fn list(ctx: &Ctx) -> Result<BTreeMap<String, String>, RestError> {
    let listed = answer!(ctx, ListGroups, ListGroupsRequest::default(), 5);
    check(listed.error_code, None)?;
    let consumer = |g: &strand_protocol::messages::list_groups_response::ListedGroup| {
        matches!(g.group_type.as_str(), "classic" | "consumer" | "")
            && matches!(g.protocol_type.as_str(), "consumer" | "")
    };
    Ok(listed.groups.into_iter().filter(consumer).map(|g| (g.group_id, g.group_type)).collect())
}

/// One group, or 404.
async fn one(ctx: &Ctx, id: &str) -> Result<Group, RestError> {
    let types = list(ctx).await?;
    let group = describe(ctx, vec![id.to_owned()], &types).await?.into_iter().next();
    group.ok_or_else(|| RestError::not_found(format!("Consumer group {id} cannot be found.")))
}

fn group_json(ctx: &Ctx, group: &Group) -> Value {
    let d = &group.described;
    let url = group_url(ctx, &d.group_id);
    let mut fields = json!({
        "cluster_id": ctx.cluster_id,
        "consumer_group_id": d.group_id,
        "is_simple": d.protocol_type.is_empty(),
        "partition_assignor": d.protocol_data,
        "state": state_name(&d.group_state),
        "type": group.group_type.to_ascii_uppercase(),
        "is_mixed_consumer_group": false,
    });
    if group.coordinator >= 0 {
        fields["coordinator"] = related(format!("{}/brokers/{}", ctx.cluster_url(), group.coordinator));
    }
    fields["consumers"] = related(format!("{url}/consumers"));
    fields["lag_summary"] = related(format!("{url}/lag-summary"));
    resource(
        "KafkaConsumerGroup",
        &url,
        &format!("crn:///kafka={}/consumer-group={}", ctx.cluster_id, d.group_id),
        fields,
    )
}

/// `GET /v3/clusters/{cluster_id}/consumer-groups`.
pub async fn list_groups(ctx: Ctx, Path(cluster): Path<String>) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let types = list(&ctx).await?;
    let groups = describe(&ctx, types.keys().cloned().collect(), &types).await?;
    let data = groups.iter().map(|g| group_json(&ctx, g)).collect();
    Ok(ok(collection("KafkaConsumerGroupList", &format!("{}/consumer-groups", ctx.cluster_url()), data)))
}

/// `GET /v3/clusters/{cluster_id}/consumer-groups/{consumer_group_id}`.
pub async fn get_group(ctx: Ctx, Path((cluster, group)): Path<(String, String)>) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let found = one(&ctx, &group).await?;
    Ok(ok(group_json(&ctx, &found)))
}

/// The topic partitions of a member's assignment (Kafka's `ConsumerProtocolAssignment`: a
/// version, then topics with their partitions); nothing for bytes it cannot read.
pub(crate) fn assigned(member: &DescribedGroupMember) -> Vec<(String, i32)> {
    let mut bytes: &[u8] = &member.member_assignment;
    let mut take = |n: usize| -> Option<&[u8]> {
        let (head, rest) = (bytes.get(..n)?, bytes.get(n..)?);
        bytes = rest;
        Some(head)
    };
    let mut read = || -> Option<Vec<(String, i32)>> {
        take(2)?;
        let topics = i32::from_be_bytes(take(4)?.try_into().ok()?);
        let mut out = Vec::new();
        for _ in 0..topics.max(0) {
            let len = i16::from_be_bytes(take(2)?.try_into().ok()?);
            let name = String::from_utf8(take(usize::try_from(len).ok()?)?.to_vec()).ok()?;
            let partitions = i32::from_be_bytes(take(4)?.try_into().ok()?);
            for _ in 0..partitions.max(0) {
                out.push((name.clone(), i32::from_be_bytes(take(4)?.try_into().ok()?)));
            }
        }
        Some(out)
    };
    read().unwrap_or_default()
}

fn consumer_json(ctx: &Ctx, group: &str, member: &DescribedGroupMember) -> Value {
    let url = format!("{}/consumers/{}", group_url(ctx, group), member.member_id);
    let crn = format!("crn:///kafka={}/consumer-group={group}/consumer={}", ctx.cluster_id, member.member_id);
    let fields = json!({
        "cluster_id": ctx.cluster_id,
        "consumer_group_id": group,
        "consumer_id": member.member_id,
        "instance_id": member.group_instance_id,
        "client_id": member.client_id,
        "assignments": related(format!("{url}/assignments")),
    });
    resource("KafkaConsumer", &url, &crn, fields)
}

/// `GET /v3/clusters/{cluster_id}/consumer-groups/{consumer_group_id}/consumers`.
pub async fn list_consumers(ctx: Ctx, Path((cluster, group)): Path<(String, String)>) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let found = one(&ctx, &group).await?;
    let data = found.described.members.iter().map(|m| consumer_json(&ctx, &group, m)).collect();
    Ok(ok(collection("KafkaConsumerList", &format!("{}/consumers", group_url(&ctx, &group)), data)))
}

/// `GET /v3/clusters/{cluster_id}/consumer-groups/{consumer_group_id}/consumers/{consumer_id}`.
pub async fn get_consumer(
    ctx: Ctx,
    Path((cluster, group, consumer)): Path<(String, String, String)>,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let found = one(&ctx, &group).await?;
    let member = found.described.members.iter().find(|m| m.member_id == consumer);
    let member = member.ok_or_else(|| RestError::not_found(format!("Consumer {consumer} cannot be found.")))?;
    Ok(ok(consumer_json(&ctx, &group, member)))
}

/// `GET .../consumer-groups/{consumer_group_id}/consumers/{consumer_id}/assignments`.
pub async fn list_assignments(
    ctx: Ctx,
    Path((cluster, group, consumer)): Path<(String, String, String)>,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let found = one(&ctx, &group).await?;
    let member = found.described.members.iter().find(|m| m.member_id == consumer);
    let member = member.ok_or_else(|| RestError::not_found(format!("Consumer {consumer} cannot be found.")))?;
    let consumer_url = format!("{}/consumers/{consumer}", group_url(&ctx, &group));
    let data = assigned(member)
        .into_iter()
        .map(|(topic, partition)| {
            let url = format!("{consumer_url}/assignments/{topic}/partitions/{partition}");
            let crn = format!(
                "crn:///kafka={}/consumer-group={group}/consumer={consumer}/assignment={topic}/partition={partition}",
                ctx.cluster_id
            );
            let fields = json!({
                "cluster_id": ctx.cluster_id,
                "consumer_group_id": group,
                "consumer_id": consumer,
                "topic_name": topic,
                "partition_id": partition,
                "partition": related(format!("{}/topics/{topic}/partitions/{partition}", ctx.cluster_url())),
                "lag": related(format!("{}/lags/{topic}/partitions/{partition}", group_url(&ctx, &group))),
            });
            resource("KafkaConsumerAssignment", &url, &crn, fields)
        })
        .collect();
    Ok(ok(collection("KafkaConsumerAssignmentList", &format!("{consumer_url}/assignments"), data)))
}

/// One partition's lag in a group.
struct Lag {
    topic: String,
    partition: i32,
    current: i64,
    end: i64,
    member: Option<DescribedGroupMember>,
}

impl Lag {
    fn lag(&self) -> i64 {
        (self.end - self.current).max(0)
    }
}

/// The group's committed offsets against the partitions' log end offsets, by topic and partition.
async fn lags(ctx: &Ctx, group: &Group) -> Result<Vec<Lag>, RestError> {
    let id = group.described.group_id.clone();
    let request = OffsetFetchRequest {
        groups: vec![OffsetFetchRequestGroup { group_id: id, topics: None, ..Default::default() }],
        ..Default::default()
    };
    let fetched = answer!(ctx, OffsetFetch, request, 8);
    let fetched = fetched.groups.into_iter().next().ok_or_else(|| RestError::internal("no offsets answer"))?;
    check(fetched.error_code, None)?;
    let mut committed = BTreeMap::new();
    for topic in fetched.topics {
        for p in topic.partitions.into_iter().filter(|p| p.error_code == 0 && p.committed_offset >= 0) {
            committed.insert((topic.name.clone(), p.partition_index), p.committed_offset);
        }
    }
    let mut topics: BTreeMap<&str, Vec<ListOffsetsPartition>> = BTreeMap::new();
    for (topic, partition) in committed.keys() {
        let entry = ListOffsetsPartition {
            partition_index: *partition,
            timestamp: -1,
            current_leader_epoch: -1,
            ..Default::default()
        };
        topics.entry(topic.as_str()).or_default().push(entry);
    }
    let topics = topics.into_iter().map(|(name, partitions)| ListOffsetsTopic {
        name: name.to_owned(),
        partitions,
        ..Default::default()
    });
    let request =
        ListOffsetsRequest { replica_id: strand_base::BrokerId(-1), topics: topics.collect(), ..Default::default() };
    let ends = answer!(ctx, ListOffsets, request, 7);
    let mut end = BTreeMap::new();
    for topic in ends.topics {
        for p in topic.partitions {
            check(p.error_code, None)?;
            end.insert((topic.name.clone(), p.partition_index), p.offset);
        }
    }
    let mut owners = BTreeMap::new();
    for member in &group.described.members {
        for assignment in assigned(member) {
            owners.insert(assignment, member.clone());
        }
    }
    Ok(committed
        .into_iter()
        .map(|((topic, partition), current)| {
            let end = end.get(&(topic.clone(), partition)).copied().unwrap_or(current);
            let member = owners.get(&(topic.clone(), partition)).cloned();
            Lag { topic, partition, current, end, member }
        })
        .collect())
}

fn lag_json(ctx: &Ctx, group: &str, lag: &Lag) -> Value {
    let (topic, partition) = (&lag.topic, lag.partition);
    let url = format!("{}/lags/{topic}/partitions/{partition}", group_url(ctx, group));
    let crn = format!("crn:///kafka={}/consumer-group={group}/lag={topic}/partition={partition}", ctx.cluster_id);
    let member = lag.member.as_ref();
    let fields = json!({
        "cluster_id": ctx.cluster_id,
        "consumer_group_id": group,
        "topic_name": topic,
        "partition_id": partition,
        "current_offset": lag.current,
        "log_end_offset": lag.end,
        "lag": lag.lag(),
        "consumer_id": member.map_or("", |m| m.member_id.as_str()),
        "instance_id": member.and_then(|m| m.group_instance_id.clone()),
        "client_id": member.map_or("", |m| m.client_id.as_str()),
    });
    resource("KafkaConsumerLag", &url, &crn, fields)
}

/// `GET /v3/clusters/{cluster_id}/consumer-groups/{consumer_group_id}/lags`.
pub async fn list_lags(ctx: Ctx, Path((cluster, group)): Path<(String, String)>) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let found = one(&ctx, &group).await?;
    let data = lags(&ctx, &found).await?.iter().map(|l| lag_json(&ctx, &group, l)).collect();
    Ok(ok(collection("KafkaConsumerLagList", &format!("{}/lags", group_url(&ctx, &group)), data)))
}

/// `GET .../consumer-groups/{consumer_group_id}/lags/{topic_name}/partitions/{partition_id}`.
pub async fn get_lag(
    ctx: Ctx,
    Path((cluster, group, topic, partition)): Path<(String, String, String, String)>,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let found = one(&ctx, &group).await?;
    let lags = lags(&ctx, &found).await?;
    let lag = lags.iter().find(|l| l.topic == topic && l.partition.to_string() == partition);
    let lag =
        lag.ok_or_else(|| RestError::not_found(format!("Consumer lag for {topic}-{partition} cannot be found.")))?;
    Ok(ok(lag_json(&ctx, &group, lag)))
}

/// `GET /v3/clusters/{cluster_id}/consumer-groups/{consumer_group_id}/lag-summary`.
pub async fn lag_summary(ctx: Ctx, Path((cluster, group)): Path<(String, String)>) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let found = one(&ctx, &group).await?;
    let lags = lags(&ctx, &found).await?;
    let total: i64 = lags.iter().map(Lag::lag).sum();
    // The first partition with the largest lag, in topic and partition order.
    let max = lags.iter().fold(None::<&Lag>, |best, l| match best {
        Some(b) if b.lag() >= l.lag() => Some(b),
        _ => Some(l),
    });
    let url = format!("{}/lag-summary", group_url(&ctx, &group));
    let crn = format!("crn:///kafka={}/consumer-group={group}/lag-summary", ctx.cluster_id);
    let member = max.and_then(|l| l.member.as_ref());
    let consumer_id = member.map_or("", |m| m.member_id.as_str());
    let (topic, partition) = max.map_or(("", 0), |l| (l.topic.as_str(), l.partition));
    let fields = json!({
        "cluster_id": ctx.cluster_id,
        "consumer_group_id": group,
        "max_lag_consumer_id": consumer_id,
        "max_lag_instance_id": member.and_then(|m| m.group_instance_id.clone()),
        "max_lag_client_id": member.map_or("", |m| m.client_id.as_str()),
        "max_lag_topic_name": topic,
        "max_lag_partition_id": partition,
        "max_lag": max.map_or(0, Lag::lag),
        "total_lag": total,
        "max_lag_consumer": related(format!("{}/consumers/{consumer_id}", group_url(&ctx, &group))),
        "max_lag_partition": related(format!("{}/topics/{topic}/partitions/{partition}", ctx.cluster_url())),
    });
    Ok(ok(resource("KafkaConsumerGroupLagSummary", &url, &crn, fields)))
}
