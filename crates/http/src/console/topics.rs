//! Topics: the list with a create form (`/topics`), a topic's page (`/topics/{topic}`: its
//! partitions with leader, replicas, ISR, earliest and latest offsets, its configs, a delete form
//! that asks for the topic's name again), and the Metadata and ListOffsets calls the other pages
//! share.

use std::collections::BTreeMap;
use std::fmt::Write;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery};
use axum::http::StatusCode;
use axum::response::Response;
use strand_protocol::messages::create_topics_request::{CreatableTopic, CreatableTopicConfig};
use strand_protocol::messages::delete_topics_request::DeleteTopicState;
use strand_protocol::messages::describe_configs_request::DescribeConfigsResource;
use strand_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use strand_protocol::messages::metadata_request::MetadataRequestTopic;
use strand_protocol::messages::metadata_response::{MetadataResponsePartition, MetadataResponseTopic};
use strand_protocol::messages::{
    CreateTopicsRequest, DeleteTopicsRequest, DescribeConfigsRequest, ListOffsetsRequest, MetadataRequest,
    MetadataResponse,
};

use super::form::{FORM_BYTES_MAX, Params};
use super::html::{Part, Text, ids, page, see_other, table};
use super::{Failed, View, ask};
use crate::gateway::RestError;
use crate::gateway::check_kafka as check;

/// How long CreateTopics and DeleteTopics may wait for the controller (Kafka's admin default).
const ADMIN_TIMEOUT_MS: i32 = 30_000;

/// ListOffsets' special timestamps.
pub const EARLIEST: i64 = -2;
pub const LATEST: i64 = -1;

/// Kafka's config resource type of a topic.
const TOPIC_RESOURCE: i8 = 2;

const SECTION: &str = "/topics";

/// Metadata through this node: every topic the caller may describe when `topics` is `None`.
pub async fn metadata(view: &View, topics: Option<Vec<String>>) -> Result<MetadataResponse, RestError> {
    let topics = topics.map(|names| {
        names.into_iter().map(|name| MetadataRequestTopic { name: Some(name), ..Default::default() }).collect()
    });
    let request = MetadataRequest { topics, allow_auto_topic_creation: false, ..Default::default() };
    let response = ask!(view, view.node_id(), Metadata, request, 12);
    check(response.error_code, None)?;
    Ok(response)
}

/// The one topic named (404 when it does not exist or may not be described).
pub async fn one_topic(view: &View, topic: &str) -> Result<MetadataResponseTopic, RestError> {
    let found = metadata(view, Some(vec![topic.to_owned()]))
        .await?
        .topics
        .into_iter()
        .find(|t| t.name.as_deref() == Some(topic));
    let found = found.ok_or_else(|| RestError::not_found(format!("Topic {topic} cannot be found.")))?;
    check(found.error_code, None)?;
    let mut found = found;
    found.partitions.sort_by_key(|p| p.partition_index);
    Ok(found)
}

/// Each partition's offset for `timestamp` ([`EARLIEST`], [`LATEST`] or a time in ms; -1 when no
/// record is that recent), asked of each partition's leader; a partition's error as text.
pub async fn offsets(
    view: &View,
    topic: &str,
    partitions: &[MetadataResponsePartition],
    timestamp: i64,
) -> BTreeMap<i32, Result<i64, String>> {
    let mut by_leader: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for p in partitions {
        if p.leader_id.0 < 0 {
            out.insert(p.partition_index, Err("offline".to_owned()));
        } else {
            by_leader.entry(p.leader_id.0).or_default().push(p.partition_index);
        }
    }
    for (leader, indexes) in by_leader {
        match list_offsets(view, leader, topic, &indexes, timestamp).await {
            Ok(found) => out.extend(found),
            Err(e) => out.extend(indexes.into_iter().map(|i| (i, Err(e.message.clone())))),
        }
    }
    out
}

async fn list_offsets(
    view: &View,
    leader: i32,
    topic: &str,
    partitions: &[i32],
    timestamp: i64,
) -> Result<Vec<(i32, Result<i64, String>)>, RestError> {
    let partitions = partitions
        .iter()
        .map(|&partition_index| ListOffsetsPartition {
            partition_index,
            timestamp,
            current_leader_epoch: -1,
            ..Default::default()
        })
        .collect();
    let request = ListOffsetsRequest {
        replica_id: strand_base::BrokerId(-1),
        topics: vec![ListOffsetsTopic { name: topic.to_owned(), partitions, ..Default::default() }],
        ..Default::default()
    };
    let answer = ask!(view, leader, ListOffsets, request, 7);
    Ok(answer
        .topics
        .into_iter()
        .flat_map(|t| t.partitions)
        .map(|p| (p.partition_index, check(p.error_code, None).map(|()| p.offset).map_err(|e| e.message)))
        .collect())
}

/// `GET /topics`: every topic with its partitions and health, and the create form.
pub async fn list(view: View) -> Result<Response, Failed> {
    let mut topics = metadata(&view, None).await.map_err(Failed::in_section(SECTION))?.topics;
    topics.retain(|t| t.error_code == 0);
    topics.sort_by(|a, b| a.name.cmp(&b.name));
    let rows: Vec<Vec<String>> = topics
        .iter()
        .map(|t| {
            let name = t.name.as_deref().unwrap_or_default();
            let replication = t.partitions.first().map_or(0, |p| p.replica_nodes.len());
            let under = t.partitions.iter().filter(|p| p.isr_nodes.len() < p.replica_nodes.len()).count();
            let offline = t.partitions.iter().filter(|p| p.leader_id.0 < 0).count();
            let health = match (offline, under) {
                (0, 0) => "<span class=\"good\">healthy</span>".to_owned(),
                (0, n) => format!("<span class=\"warn\">{n} under-replicated</span>"),
                (n, _) => format!("<span class=\"bad\">{n} offline</span>"),
            };
            vec![
                format!("<a href=\"/topics/{}\">{}</a>", Part(name), Text(name)),
                t.partitions.len().to_string(),
                replication.to_string(),
                if t.is_internal { "internal".into() } else { String::new() },
                health,
            ]
        })
        .collect();
    let mut body = table("topics", &["Name", "Partitions", "Replication factor", "", "Health"], &rows);
    body.push_str(CREATE_FORM);
    Ok(page(StatusCode::OK, SECTION, "Topics", &body))
}

const CREATE_FORM: &str = "<h2>Create a topic</h2>\n<form method=\"post\" action=\"/topics\" class=\"grid\" id=\"create-topic\">\
<label>Name <input name=\"name\" required pattern=\"[a-zA-Z0-9._\\-]+\" maxlength=\"249\"></label>\
<label>Partitions <input name=\"partitions\" type=\"number\" min=\"1\" placeholder=\"broker default\"></label>\
<label>Replication factor <input name=\"replication_factor\" type=\"number\" min=\"1\" placeholder=\"broker default\"></label>\
<label class=\"wide\"><span>Configs, one <code>name=value</code> a line</span><textarea name=\"configs\" rows=\"3\" placeholder=\"cleanup.policy=compact\"></textarea></label>\
<button type=\"submit\">Create</button></form>\n";

/// `POST /topics` with `name`, `partitions`, `replication_factor`, `configs` (`name=value`
/// lines): CreateTopics, then the topic's page.
pub async fn create(view: View, body: Bytes) -> Result<Response, Failed> {
    let params = form_params(&body)?;
    let name = params.trimmed("name").ok_or_else(|| Failed::bad(SECTION, "A topic needs a name"))?.to_owned();
    let number = |field: &str, max: i64| -> Result<i64, Failed> {
        match params.int(field).map_err(|e| Failed::bad(SECTION, e))? {
            None => Ok(-1),
            Some(n) if (1..=max).contains(&n) => Ok(n),
            Some(n) => Err(Failed::bad(SECTION, format!("{field} must be from 1 to {max}, not {n}"))),
        }
    };
    let partitions = number("partitions", i64::from(i32::MAX))?;
    let replication = number("replication_factor", i64::from(i16::MAX))?;
    let mut configs = Vec::new();
    for line in params.get("configs").unwrap_or_default().lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (config, value) =
            line.split_once('=').ok_or_else(|| Failed::bad(SECTION, format!("'{line}' is not name=value")))?;
        configs.push(CreatableTopicConfig {
            name: config.trim().to_owned(),
            value: Some(value.trim().to_owned()),
            ..Default::default()
        });
    }
    let topic = CreatableTopic {
        name: name.clone(),
        num_partitions: partitions as i32,
        replication_factor: replication as i16,
        configs,
        ..Default::default()
    };
    let request = CreateTopicsRequest { topics: vec![topic], timeout_ms: ADMIN_TIMEOUT_MS, ..Default::default() };
    let created = async {
        let answer = ask!(view, view.node_id(), CreateTopics, request, 7);
        let result = answer.topics.into_iter().next().ok_or_else(|| RestError::internal("no topic result"))?;
        check(result.error_code, result.error_message.as_deref())
    };
    created.await.map_err(Failed::in_section(SECTION))?;
    Ok(see_other(format!("/topics/{}?created=1", Part(&name))))
}

/// A form body's parameters (at most [`FORM_BYTES_MAX`] bytes).
pub fn form_params(body: &[u8]) -> Result<Params, Failed> {
    if body.len() > FORM_BYTES_MAX {
        return Err(Failed {
            section: SECTION,
            error: RestError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                413,
                format!("A form is at most {FORM_BYTES_MAX} bytes"),
            ),
        });
    }
    Ok(Params::parse(&String::from_utf8_lossy(body)))
}

/// `GET /topics/{topic}`: partitions, offsets, configs, and the delete form.
pub async fn topic(view: View, Path(name): Path<String>, RawQuery(query): RawQuery) -> Result<Response, Failed> {
    let body = render_topic(&view, &name).await.map_err(Failed::in_section(SECTION))?;
    let mut notice = String::new();
    if Params::parse(query.as_deref().unwrap_or_default()).get("created").is_some() {
        notice = format!("<p class=\"notice\">Topic {} created.</p>\n", Text(&name));
    }
    Ok(page(StatusCode::OK, SECTION, &format!("Topic {name}"), &(notice + &body)))
}

async fn render_topic(view: &View, name: &str) -> Result<String, RestError> {
    let topic = one_topic(view, name).await?;
    let earliest = offsets(view, name, &topic.partitions, EARLIEST).await;
    let latest = offsets(view, name, &topic.partitions, LATEST).await;
    let mut out = String::new();
    let _ = write!(
        out,
        "<p class=\"facts\">Topic id <code>{}</code> · {} partitions · replication factor {}{} · \
         <a href=\"/topics/{}/messages\">Browse messages</a></p>\n<h2>Partitions</h2>\n",
        Text(&topic.topic_id.to_string()),
        topic.partitions.len(),
        topic.partitions.first().map_or(0, |p| p.replica_nodes.len()),
        if topic.is_internal { " · internal" } else { "" },
        Part(name),
    );
    let shown = |offset: Option<&Result<i64, String>>| match offset {
        Some(Ok(offset)) => offset.to_string(),
        Some(Err(e)) => format!("<span class=\"bad\" title=\"{}\">error</span>", Text(e)),
        None => "?".into(),
    };
    let rows: Vec<Vec<String>> = topic
        .partitions
        .iter()
        .map(|p| {
            let i = p.partition_index;
            let (first, last) = (earliest.get(&i), latest.get(&i));
            let records = match (first, last) {
                (Some(Ok(first)), Some(Ok(last))) => (last - first).max(0).to_string(),
                _ => String::new(),
            };
            let replicas: Vec<i32> = p.replica_nodes.iter().map(|b| b.0).collect();
            let isr: Vec<i32> = p.isr_nodes.iter().map(|b| b.0).collect();
            let isr_class = if isr.len() < replicas.len() { "warn" } else { "" };
            vec![
                i.to_string(),
                if p.leader_id.0 >= 0 { p.leader_id.0.to_string() } else { "<span class=\"bad\">none</span>".into() },
                ids(&replicas),
                format!("<span class=\"{isr_class}\">{}</span>", ids(&isr)),
                shown(first),
                shown(last),
                records,
                format!("<a href=\"/topics/{}/messages?partition={i}\">browse</a>", Part(name)),
            ]
        })
        .collect();
    out.push_str(&table(
        "partitions",
        &["Partition", "Leader", "Replicas", "In-sync replicas", "Earliest offset", "Latest offset", "Records", ""],
        &rows,
    ));
    out.push_str(&configs(view, name).await?);
    let _ = write!(
        out,
        "<h2>Delete</h2>\n<form method=\"post\" action=\"/topics/{0}/delete\" class=\"danger\" id=\"delete-topic\">\
         <label><span>Type <code>{1}</code> to confirm</span><input name=\"confirm\" autocomplete=\"off\" required></label>\
         <button type=\"submit\" class=\"danger\">Delete topic</button></form>\n",
        Part(name),
        Text(name),
    );
    Ok(out)
}

/// The topic's configs (DescribeConfigs), those set on the topic first.
async fn configs(view: &View, name: &str) -> Result<String, RestError> {
    let request = DescribeConfigsRequest {
        resources: vec![DescribeConfigsResource {
            resource_type: TOPIC_RESOURCE,
            resource_name: name.to_owned(),
            configuration_keys: None,
            ..Default::default()
        }],
        ..Default::default()
    };
    let answer = ask!(view, view.node_id(), DescribeConfigs, request, 4);
    let result = answer.results.into_iter().next().ok_or_else(|| RestError::internal("no config result"))?;
    check(result.error_code, result.error_message.as_deref())?;
    let mut configs = result.configs;
    // DYNAMIC_TOPIC_CONFIG (1) first, then by name.
    configs.sort_by(|a, b| (a.config_source != 1, &a.name).cmp(&(b.config_source != 1, &b.name)));
    let rows: Vec<Vec<String>> = configs
        .iter()
        .map(|c| {
            let value = if c.is_sensitive {
                "<span class=\"none\">(sensitive)</span>".to_owned()
            } else {
                c.value
                    .as_deref()
                    .map_or_else(|| "<span class=\"none\">null</span>".to_owned(), |v| Text(v).to_string())
            };
            let set = c.config_source == 1;
            vec![
                if set { format!("<b>{}</b>", Text(&c.name)) } else { Text(&c.name).to_string() },
                value,
                source_name(c.config_source).to_owned(),
            ]
        })
        .collect();
    Ok(format!("<h2>Configs</h2>\n{}", table("configs", &["Name", "Value", "Source"], &rows)))
}

/// Kafka's name of a DescribeConfigs `config_source`.
fn source_name(source: i8) -> &'static str {
    match source {
        1 => "topic",
        2 => "broker",
        3 => "cluster default",
        4 => "static broker config",
        5 => "default",
        _ => "other",
    }
}

/// `POST /topics/{topic}/delete` with `confirm` (the topic's name again): DeleteTopics, then
/// the topic list.
pub async fn delete(view: View, Path(name): Path<String>, body: Bytes) -> Result<Response, Failed> {
    let params = form_params(&body)?;
    if params.trimmed("confirm") != Some(name.as_str()) {
        return Err(Failed::bad(SECTION, format!("Not deleted: type the topic's name, {name}, to confirm")));
    }
    let request = DeleteTopicsRequest {
        topics: vec![DeleteTopicState { name: Some(name.clone()), ..Default::default() }],
        timeout_ms: ADMIN_TIMEOUT_MS,
        ..Default::default()
    };
    let deleted = async {
        let answer = ask!(view, view.node_id(), DeleteTopics, request, 6);
        let result = answer.responses.into_iter().next().ok_or_else(|| RestError::internal("no topic result"))?;
        check(result.error_code, result.error_message.as_deref())
    };
    deleted.await.map_err(Failed::in_section(SECTION))?;
    Ok(see_other("/topics".to_owned()))
}
