//! Consumer groups: the list (`/groups`, ListGroups asked of every broker, as Kafka's admin
//! client does, since each lists the groups it coordinates), a group's page (`/groups/{group}`:
//! DescribeGroups, OffsetFetch at its coordinator, the partitions' latest offsets from their
//! leaders: members, assignments, lag per partition), and resetting its offsets for a topic
//! (`POST /groups/{group}/reset`: to the earliest or latest offset, an offset, or a time), as
//! `kafka-consumer-groups.sh --reset-offsets --execute` does: only while the group is inactive
//! (Empty or Dead), with an offset outside the log moved to its nearest end.

use std::collections::BTreeMap;
use std::fmt::Write;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery};
use axum::http::StatusCode;
use axum::response::Response;
use strand_protocol::messages::describe_groups_response::DescribedGroup;
use strand_protocol::messages::offset_commit_request::{OffsetCommitRequestPartition, OffsetCommitRequestTopic};
use strand_protocol::messages::offset_fetch_request::OffsetFetchRequestGroup;
use strand_protocol::messages::{
    DescribeGroupsRequest, FindCoordinatorRequest, ListGroupsRequest, OffsetCommitRequest, OffsetFetchRequest,
};

use super::form::Params;
use super::html::{Part, Text, page, see_other, table};
use super::messages::parse_time;
use super::topics::{EARLIEST, LATEST, form_params, metadata, offsets};
use super::{Failed, View, ask};
use crate::gateway::{RestError, check_kafka as check, member_assignment};

/// The most groups the list shows.
pub const GROUPS_SHOWN_MAX: usize = 1000;

const SECTION: &str = "/groups";

/// A listed group.
struct Listed {
    id: String,
    group_type: String,
    protocol_type: String,
    state: String,
    coordinator: i32,
}

/// Every group of every broker, by id, and what each broker that could not answer said.
async fn list_all(view: &View) -> Result<(BTreeMap<String, Listed>, Vec<String>), RestError> {
    let brokers = metadata(view, Some(Vec::new())).await?.brokers;
    let mut groups = BTreeMap::new();
    let mut failures = Vec::new();
    for broker in brokers {
        let node = broker.node_id.0;
        let listed = async {
            let listed = ask!(view, node, ListGroups, ListGroupsRequest::default(), 5);
            check(listed.error_code, None)?;
            Ok::<_, RestError>(listed.groups)
        };
        let listed = match listed.await {
            Ok(listed) => listed,
            Err(e) => {
                failures.push(format!("Broker {node} did not list its groups: {}", e.message));
                continue;
            }
        };
        for g in listed.into_iter().take(GROUPS_SHOWN_MAX.saturating_sub(groups.len())) {
            let group_type = if g.group_type.is_empty() { "classic".to_owned() } else { g.group_type };
            let listed = Listed {
                id: g.group_id.clone(),
                group_type,
                protocol_type: g.protocol_type,
                state: g.group_state,
                coordinator: node,
            };
            groups.insert(g.group_id, listed);
        }
    }
    Ok((groups, failures))
}

/// `GET /groups`.
pub async fn list(view: View) -> Result<Response, Failed> {
    let (groups, failures) = list_all(&view).await.map_err(Failed::in_section(SECTION))?;
    let rows: Vec<Vec<String>> = groups
        .values()
        .map(|g| {
            vec![
                format!("<a href=\"/groups/{}\">{}</a>", Part(&g.id), Text(&g.id)),
                Text(&g.group_type).to_string(),
                Text(&g.protocol_type).to_string(),
                Text(&g.state).to_string(),
                g.coordinator.to_string(),
            ]
        })
        .collect();
    let mut body = String::new();
    for failure in &failures {
        let _ = writeln!(body, "<p class=\"error\">{}</p>", Text(failure));
    }
    body.push_str(&table("groups", &["Group", "Type", "Protocol", "State", "Coordinator"], &rows));
    if groups.len() >= GROUPS_SHOWN_MAX {
        let _ = write!(body, "<p class=\"none\">The first {GROUPS_SHOWN_MAX} groups.</p>");
    }
    Ok(page(StatusCode::OK, SECTION, "Consumer groups", &body))
}

/// The group's coordinator (FindCoordinator through this node).
async fn coordinator(view: &View, group: &str) -> Result<i32, RestError> {
    let request =
        FindCoordinatorRequest { key_type: 0, coordinator_keys: vec![group.to_owned()], ..Default::default() };
    let found = ask!(view, view.node_id(), FindCoordinator, request, 4);
    let found = found.coordinators.into_iter().next().ok_or_else(|| RestError::internal("no coordinator answer"))?;
    check(found.error_code, found.error_message.as_deref())?;
    Ok(found.node_id.0)
}

/// The group as its coordinator describes it; `None` when it does not exist.
async fn describe(view: &View, coordinator: i32, group: &str) -> Result<Option<DescribedGroup>, RestError> {
    let request = DescribeGroupsRequest { groups: vec![group.to_owned()], ..Default::default() };
    let described = ask!(view, coordinator, DescribeGroups, request, 5);
    let Some(found) = described.groups.into_iter().next() else { return Ok(None) };
    if found.error_code == 69 || found.group_state == "Dead" {
        return Ok(None);
    }
    check(found.error_code, found.error_message.as_deref())?;
    Ok(Some(found))
}

/// The group's committed offsets, by topic and partition.
async fn committed(view: &View, coordinator: i32, group: &str) -> Result<BTreeMap<(String, i32), i64>, RestError> {
    let request = OffsetFetchRequest {
        groups: vec![OffsetFetchRequestGroup { group_id: group.to_owned(), topics: None, ..Default::default() }],
        ..Default::default()
    };
    let fetched = ask!(view, coordinator, OffsetFetch, request, 8);
    let fetched = fetched.groups.into_iter().next().ok_or_else(|| RestError::internal("no offsets answer"))?;
    check(fetched.error_code, None)?;
    let mut out = BTreeMap::new();
    for topic in fetched.topics {
        for p in topic.partitions.into_iter().filter(|p| p.error_code == 0 && p.committed_offset >= 0) {
            out.insert((topic.name.clone(), p.partition_index), p.committed_offset);
        }
    }
    Ok(out)
}

/// `GET /groups/{group}`.
pub async fn group(view: View, Path(id): Path<String>, RawQuery(query): RawQuery) -> Result<Response, Failed> {
    let mut body = String::new();
    if let Some(topic) = Params::parse(query.as_deref().unwrap_or_default()).get("reset") {
        let _ = writeln!(body, "<p class=\"notice\" id=\"reset-done\">Offsets of {} reset.</p>", Text(topic));
    }
    body.push_str(&render(&view, &id).await.map_err(Failed::in_section(SECTION))?);
    Ok(page(StatusCode::OK, SECTION, &format!("Group {id}"), &body))
}

async fn render(view: &View, id: &str) -> Result<String, RestError> {
    let coordinator = coordinator(view, id).await?;
    let described = describe(view, coordinator, id).await?;
    let committed = committed(view, coordinator, id).await?;
    let mut out = String::new();
    let state = described.as_ref().map_or("Dead", |g| g.group_state.as_str());
    let _ = writeln!(
        out,
        "<p class=\"facts\">State <b id=\"group-state\">{}</b> · coordinator {coordinator}{}</p>",
        Text(state),
        described
            .as_ref()
            .filter(|g| !g.protocol_data.is_empty())
            .map_or(String::new(), |g| format!(" · assignor {}", Text(&g.protocol_data))),
    );
    let mut owners: BTreeMap<(String, i32), String> = BTreeMap::new();
    let members = described.as_ref().map_or(&[][..], |g| &g.members[..]);
    let rows: Vec<Vec<String>> = members
        .iter()
        .map(|m| {
            let assigned = member_assignment(m);
            for (topic, partition) in &assigned {
                owners.insert((topic.clone(), *partition), m.member_id.clone());
            }
            let assigned: Vec<String> = assigned.iter().map(|(t, p)| format!("{}-{p}", Text(t))).collect();
            vec![
                Text(&m.member_id).to_string(),
                Text(&m.client_id).to_string(),
                Text(&m.client_host).to_string(),
                assigned.join(", "),
            ]
        })
        .collect();
    out.push_str("<h2>Members</h2>\n");
    out.push_str(&table("members", &["Member", "Client id", "Host", "Assigned partitions"], &rows));
    out.push_str("<h2>Offsets and lag</h2>\n");
    out.push_str(&lag_table(view, &committed, &owners).await?);
    out.push_str(&reset_form(view, id, state).await?);
    Ok(out)
}

/// Committed offset, latest offset and lag of each partition the group committed.
async fn lag_table(
    view: &View,
    committed: &BTreeMap<(String, i32), i64>,
    owners: &BTreeMap<(String, i32), String>,
) -> Result<String, RestError> {
    let topics: Vec<String> =
        committed.keys().map(|(t, _)| t.clone()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    let mut latest: BTreeMap<(String, i32), Result<i64, String>> = BTreeMap::new();
    if !topics.is_empty() {
        for topic in metadata(view, Some(topics)).await?.topics.into_iter().filter(|t| t.error_code == 0) {
            let name = topic.name.clone().unwrap_or_default();
            for (partition, offset) in offsets(view, &name, &topic.partitions, LATEST).await {
                latest.insert((name.clone(), partition), offset);
            }
        }
    }
    let mut total = 0;
    let rows: Vec<Vec<String>> = committed
        .iter()
        .map(|((topic, partition), offset)| {
            let key = (topic.clone(), *partition);
            let (end, lag) = match latest.get(&key) {
                Some(Ok(end)) => {
                    let lag = (end - offset).max(0);
                    total += lag;
                    (end.to_string(), lag.to_string())
                }
                Some(Err(e)) => (format!("<span class=\"bad\">{}</span>", Text(e)), String::new()),
                None => ("?".into(), String::new()),
            };
            vec![
                Text(topic).to_string(),
                partition.to_string(),
                offset.to_string(),
                end,
                lag,
                owners.get(&key).map_or_else(String::new, |m| Text(m).to_string()),
            ]
        })
        .collect();
    let mut out = table("lag", &["Topic", "Partition", "Committed offset", "Latest offset", "Lag", "Member"], &rows);
    let _ = writeln!(out, "<p class=\"facts\">Total lag <b id=\"total-lag\">{total}</b></p>");
    Ok(out)
}

async fn reset_form(view: &View, id: &str, state: &str) -> Result<String, RestError> {
    let mut out = "<h2>Reset offsets</h2>\n".to_owned();
    if !inactive(state) {
        let _ = writeln!(
            out,
            "<p class=\"none\" id=\"reset-unavailable\">Offsets can be reset only while the group is inactive (Empty); it is {}.</p>",
            Text(state)
        );
        return Ok(out);
    }
    let mut topics: Vec<String> = metadata(view, None)
        .await?
        .topics
        .into_iter()
        .filter(|t| t.error_code == 0 && !t.is_internal)
        .filter_map(|t| t.name)
        .collect();
    topics.sort();
    let _ = write!(
        out,
        "<form method=\"post\" action=\"/groups/{}/reset\" class=\"grid\" id=\"reset\"><label>Topic <select name=\"topic\">",
        Part(id)
    );
    for topic in &topics {
        let _ = write!(out, "<option value=\"{0}\">{0}</option>", Text(topic));
    }
    out.push_str(
        "</select></label><label>To <select name=\"to\"><option value=\"earliest\">the earliest offset</option>\
         <option value=\"latest\">the latest offset</option><option value=\"offset\">an offset</option>\
         <option value=\"datetime\">a time (UTC)</option></select></label>\
         <label>Offset <input name=\"offset\" type=\"number\" min=\"0\"></label>\
         <label>Time (UTC) <input name=\"datetime\" type=\"datetime-local\" step=\"1\"></label>\
         <button type=\"submit\">Reset</button></form>\n",
    );
    Ok(out)
}

/// Kafka's tool resets only an inactive group.
fn inactive(state: &str) -> bool {
    matches!(state, "Empty" | "Dead")
}

/// `POST /groups/{group}/reset` with `topic`, `to` (`earliest`, `latest`, `offset`, `datetime`)
/// and `offset` or `datetime`: commits the new offsets of every partition of the topic.
pub async fn reset(view: View, Path(id): Path<String>, body: Bytes) -> Result<Response, Failed> {
    let params = form_params(&body)?;
    let topic = params
        .trimmed("topic")
        .ok_or_else(|| Failed::bad(SECTION, "Name the topic whose offsets to reset"))?
        .to_owned();
    let target = match params.get("to").unwrap_or("earliest") {
        "earliest" => EARLIEST,
        "latest" => LATEST,
        "offset" => match params.int("offset").map_err(|e| Failed::bad(SECTION, e))? {
            Some(offset) if offset >= 0 => offset,
            _ => return Err(Failed::bad(SECTION, "Give the offset to reset to")),
        },
        "datetime" => {
            let time = params.trimmed("datetime").ok_or_else(|| Failed::bad(SECTION, "Give the time to reset to"))?;
            parse_time(time).ok_or_else(|| Failed::bad(SECTION, format!("'{time}' is not a date and time")))?
        }
        other => return Err(Failed::bad(SECTION, format!("Cannot reset to '{other}'"))),
    };
    let by_offset = params.get("to") == Some("offset");
    let done = reset_offsets(&view, &id, &topic, target, by_offset).await;
    done.map_err(Failed::in_section(SECTION))?;
    Ok(see_other(format!("/groups/{}?reset={}", Part(&id), Part(&topic))))
}

/// Commits `topic`'s offsets for the group: `target` itself, moved into the log, when
/// `by_offset`; else the offsets ListOffsets finds for `target` (earliest, latest, or a time,
/// the latest offset when no record is that recent).
async fn reset_offsets(view: &View, id: &str, topic: &str, target: i64, by_offset: bool) -> Result<(), RestError> {
    let coordinator = coordinator(view, id).await?;
    if let Some(group) = describe(view, coordinator, id).await?
        && !inactive(&group.group_state)
    {
        return Err(RestError::new(
            StatusCode::CONFLICT,
            409,
            format!(
                "Assignments can only be reset if the group '{id}' is inactive, but the current state is {}.",
                group.group_state
            ),
        ));
    }
    let described = metadata(view, Some(vec![topic.to_owned()])).await?.topics.into_iter().next();
    let described = described.ok_or_else(|| RestError::not_found(format!("Topic {topic} cannot be found.")))?;
    check(described.error_code, None)?;
    let earliest = offsets(view, topic, &described.partitions, EARLIEST).await;
    let latest = offsets(view, topic, &described.partitions, LATEST).await;
    let wanted = if by_offset { None } else { Some(offsets(view, topic, &described.partitions, target).await) };
    let mut partitions = Vec::new();
    for p in &described.partitions {
        let i = p.partition_index;
        let bound = |m: &BTreeMap<i32, Result<i64, String>>| -> Result<i64, RestError> {
            m.get(&i).cloned().unwrap_or_else(|| Err("no answer".into())).map_err(RestError::internal)
        };
        let (low, high) = (bound(&earliest)?, bound(&latest)?);
        let offset = match &wanted {
            None => target.clamp(low, high.max(low)),
            Some(found) => match bound(found)? {
                -1 => high,
                offset => offset,
            },
        };
        partitions.push(OffsetCommitRequestPartition {
            partition_index: i,
            committed_offset: offset,
            committed_leader_epoch: -1,
            ..Default::default()
        });
    }
    let request = OffsetCommitRequest {
        group_id: id.to_owned(),
        generation_id_or_member_epoch: -1,
        member_id: String::new(),
        topics: vec![OffsetCommitRequestTopic { name: topic.to_owned(), partitions, ..Default::default() }],
        ..Default::default()
    };
    let answer = ask!(view, coordinator, OffsetCommit, request, 8);
    for p in answer.topics.iter().flat_map(|t| &t.partitions) {
        check(p.error_code, None)?;
    }
    Ok(())
}
