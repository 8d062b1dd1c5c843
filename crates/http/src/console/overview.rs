//! The overview page, `/`: the brokers (DescribeCluster), the controller quorum (DescribeQuorum:
//! leader, epoch, high watermark, voters and observers with their log end offsets and lag), and
//! the partitions' health (Metadata: topics, partitions, under-replicated and offline ones).

use std::fmt::Write;

use axum::http::StatusCode;
use axum::response::Response;
use strand_protocol::messages::describe_quorum_request::{PartitionData, TopicData};
use strand_protocol::messages::describe_quorum_response::{self, ReplicaState};
use strand_protocol::messages::{DescribeClusterRequest, DescribeClusterResponse, DescribeQuorumRequest};

use super::html::{Text, page, table};
use super::topics::metadata;
use super::{Failed, View, ask};
use crate::gateway::RestError;
use crate::gateway::check_kafka as check;

/// The metadata log, whose quorum DescribeQuorum describes.
const METADATA_TOPIC: &str = "__cluster_metadata";

/// `GET /`.
pub async fn overview(view: View) -> Result<Response, Failed> {
    let body = render(&view).await.map_err(Failed::in_section("/"))?;
    Ok(page(StatusCode::OK, "/", "Cluster overview", &body))
}

async fn render(view: &View) -> Result<String, RestError> {
    let node = view.node_id();
    let cluster =
        ask!(view, node, DescribeCluster, DescribeClusterRequest { endpoint_type: 1, ..Default::default() }, 2);
    check(cluster.error_code, cluster.error_message.as_deref())?;
    let metadata = metadata(view, None).await?;
    let mut out = String::new();
    let topics = metadata.topics.iter().filter(|t| t.error_code == 0);
    let (mut topic_count, mut partitions, mut under, mut offline) = (0, 0, 0, 0);
    for topic in topics {
        topic_count += 1;
        for p in &topic.partitions {
            partitions += 1;
            if p.leader_id.0 < 0 {
                offline += 1;
            } else if p.isr_nodes.len() < p.replica_nodes.len() {
                under += 1;
            }
        }
    }
    let warn = |n: usize| if n > 0 { " warn" } else { "" };
    let _ = writeln!(
        out,
        "<section class=\"cards\">\
         <div class=\"card\"><span class=\"label\">Cluster id</span><span class=\"value small\" id=\"cluster-id\">{}</span></div>\
         <div class=\"card\"><span class=\"label\">Brokers</span><span class=\"value\" id=\"broker-count\">{}</span></div>\
         <div class=\"card\"><span class=\"label\">Topics</span><span class=\"value\" id=\"topic-count\">{topic_count}</span></div>\
         <div class=\"card\"><span class=\"label\">Partitions</span><span class=\"value\" id=\"partition-count\">{partitions}</span></div>\
         <div class=\"card{}\"><span class=\"label\">Under-replicated</span><span class=\"value\" id=\"under-replicated\">{under}</span></div>\
         <div class=\"card{}\"><span class=\"label\">Offline</span><span class=\"value\" id=\"offline\">{offline}</span></div>\
         </section>",
        Text(&cluster.cluster_id),
        cluster.brokers.len(),
        warn(under),
        warn(offline),
    );
    out.push_str(&brokers(&cluster, node));
    out.push_str(&quorum(view).await);
    Ok(out)
}

/// The brokers' section: id, endpoint, rack, fenced or not, the active controller and this node.
fn brokers(cluster: &DescribeClusterResponse, node: i32) -> String {
    let mut brokers = cluster.brokers.clone();
    brokers.sort_by_key(|b| b.broker_id.0);
    let rows: Vec<Vec<String>> = brokers
        .iter()
        .map(|b| {
            let id = b.broker_id.0;
            let mut roles = Vec::new();
            if id == cluster.controller_id.0 {
                roles.push("active controller");
            }
            if id == node {
                roles.push("this node");
            }
            vec![
                id.to_string(),
                format!("{}:{}", Text(&b.host), b.port),
                b.rack
                    .as_deref()
                    .map_or_else(|| "<span class=\"none\">none</span>".to_owned(), |r| Text(r).to_string()),
                if b.is_fenced {
                    "<span class=\"bad\">fenced</span>".into()
                } else {
                    "<span class=\"good\">up</span>".into()
                },
                roles.join(", "),
            ]
        })
        .collect();
    format!("<h2>Brokers</h2>\n{}", table("brokers", &["Id", "Host:port", "Rack", "State", ""], &rows))
}

/// The controller quorum's section; a refusal (no DESCRIBE on the cluster) or an unreachable
/// controller is said in it rather than failing the page.
async fn quorum(view: &View) -> String {
    let request = DescribeQuorumRequest {
        topics: vec![TopicData {
            topic_name: METADATA_TOPIC.to_owned(),
            partitions: vec![PartitionData { partition_index: 0, ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let mut out = "<h2>Controller quorum</h2>\n".to_owned();
    let answer = match view.call(strand_protocol::messages::api::RequestBody::DescribeQuorum(request), 2).await {
        Ok(strand_protocol::messages::api::ResponseBody::DescribeQuorum(answer)) => answer,
        Ok(_) => return out + "<p class=\"error\">DescribeQuorum had another answer</p>\n",
        Err(e) => return out + &format!("<p class=\"error\">{}</p>\n", Text(&e.message)),
    };
    if let Err(e) = check(answer.error_code, answer.error_message.as_deref()) {
        return out + &format!("<p class=\"error\">{}</p>\n", Text(&e.message));
    }
    let Some(partition) = answer.topics.iter().flat_map(|t| &t.partitions).next() else {
        return out + "<p class=\"none\">No quorum described</p>\n";
    };
    if let Err(e) = check(partition.error_code, partition.error_message.as_deref()) {
        return out + &format!("<p class=\"error\">{}</p>\n", Text(&e.message));
    }
    let _ = writeln!(
        out,
        "<p class=\"facts\">Leader <b id=\"quorum-leader\">{}</b> · epoch <b>{}</b> · high watermark <b>{}</b></p>",
        partition.leader_id.0, partition.leader_epoch, partition.high_watermark
    );
    let now = view.now_ms();
    let row = |role: &str, r: &ReplicaState| {
        let lag = if r.log_end_offset >= 0 {
            (partition.high_watermark - r.log_end_offset).max(0).to_string()
        } else {
            "?".into()
        };
        vec![
            r.replica_id.0.to_string(),
            role.to_owned(),
            endpoint(&answer.nodes, r.replica_id.0),
            r.log_end_offset.to_string(),
            lag,
            ago(now, r.last_caught_up_timestamp),
        ]
    };
    let mut rows: Vec<Vec<String>> = partition
        .current_voters
        .iter()
        .map(|r| row(if r.replica_id == partition.leader_id { "leader" } else { "voter" }, r))
        .collect();
    rows.extend(partition.observers.iter().map(|r| row("observer", r)));
    out.push_str(&table(
        "quorum",
        &["Node", "Role", "Controller endpoint", "Log end offset", "Lag", "Last caught up"],
        &rows,
    ));
    out
}

/// A voter's first listener, as DescribeQuorum v2 lists it (empty for a static quorum).
fn endpoint(nodes: &[describe_quorum_response::Node], id: i32) -> String {
    let node = nodes.iter().find(|n| n.node_id.0 == id);
    node.and_then(|n| n.listeners.first())
        .map_or_else(|| "<span class=\"none\">—</span>".into(), |l| format!("{}:{}", Text(&l.host), l.port))
}

/// How long ago `then_ms` was, roughly; a dash when unknown.
fn ago(now_ms: i64, then_ms: i64) -> String {
    if then_ms < 0 {
        return "—".into();
    }
    let ms = (now_ms - then_ms).max(0);
    match ms {
        0..1_000 => format!("{ms} ms ago"),
        1_000..60_000 => format!("{} s ago", ms / 1000),
        _ => format!("{} min ago", ms / 60_000),
    }
}
