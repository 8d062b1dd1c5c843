//! Every served API answers at every version it advertises: random requests (valid at their
//! version, mostly naming topics that do not exist) and requests on a real topic all get a
//! response that encodes at the negotiated version. A handler that sets a field its version lacks
//! would make encoding fail and the connection close; this catches it for every API at once.

mod common;

use bytes::Bytes;
use common::Node;
use strand_broker::Outcome;
use strand_broker::handlers::SERVED;
use strand_protocol::frame::{decode_response, encode_request};
use strand_protocol::messages::api::{ApiKey, RequestBody};
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use strand_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::messages::{FetchRequest, ListOffsetsRequest, MetadataRequest, ProduceRequest};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};
use strand_protocol::sample::SampleGen;
use strand_protocol::versions::advertised;

/// Random requests per API and version.
const SAMPLES: u64 = 8;

async fn handle(node: &Node, body: &RequestBody, version: i16) -> Result<(), String> {
    let api = body.api_key();
    let frame = encode_request(1, Some("every-version"), body, version).map_err(|e| e.to_string())?;
    match node.broker.handle(frame.slice(4..), &common::session()).await {
        // A sampled AlterClientQuotas may have set a quota that throttles later samples.
        Outcome::Respond(response) | Outcome::Throttled(Some(response), _) => {
            let response = strand_broker::frame_to_bytes(&response).map_err(|e| e.to_string())?;
            decode_response(api, version, response.slice(4..)).map(|_| ()).map_err(|e| e.to_string())
        }
        Outcome::NoResponse | Outcome::Throttled(None, _) => Ok(()),
        Outcome::Close(reason) | Outcome::RespondAndClose(_, reason) => Err(reason),
    }
}

fn records() -> Bytes {
    let mut builder = RecordBatchBuilder::new();
    builder
        .append(&NewRecord { timestamp_ms: 1_700_000_000_000, key: None, value: Some(b"v"), headers: &[] })
        .expect("record");
    builder.build().expect("batch")
}

/// Requests that reach a real partition of topic `t`, for the data-path APIs.
fn real_requests(api: ApiKey, version: i16, topic_id: strand_base::Uuid) -> Vec<RequestBody> {
    let by_id = |v: i16| if v >= 13 { (String::new(), topic_id) } else { ("t".to_owned(), strand_base::Uuid::ZERO) };
    match api {
        ApiKey::Produce => {
            let (name, topic_id) = by_id(version);
            vec![RequestBody::Produce(ProduceRequest {
                acks: -1,
                timeout_ms: 1000,
                topic_data: vec![TopicProduceData {
                    name,
                    topic_id,
                    partition_data: vec![PartitionProduceData {
                        index: 0,
                        records: Some(records()),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            })]
        }
        ApiKey::Fetch => {
            let (topic, topic_id) = by_id(version);
            vec![RequestBody::Fetch(FetchRequest {
                max_bytes: 1 << 20,
                topics: vec![FetchTopic {
                    topic,
                    topic_id,
                    partitions: vec![FetchPartition {
                        partition: 0,
                        partition_max_bytes: 1 << 20,
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            })]
        }
        ApiKey::ListOffsets => [-2i64, -1, -3, 0]
            .into_iter()
            .filter(|&t| t != -3 || version >= 7)
            .map(|timestamp| {
                RequestBody::ListOffsets(ListOffsetsRequest {
                    replica_id: strand_base::BrokerId(-1),
                    topics: vec![ListOffsetsTopic {
                        name: "t".into(),
                        partitions: vec![ListOffsetsPartition { partition_index: 0, timestamp, ..Default::default() }],
                        ..Default::default()
                    }],
                    ..Default::default()
                })
            })
            .collect(),
        ApiKey::Metadata => vec![RequestBody::Metadata(MetadataRequest {
            topics: if version >= 1 { None } else { Some(Vec::new()) },
            ..Default::default()
        })],
        _ => Vec::new(),
    }
}

/// Keeps random requests cheap: a random partition count would make thousands of logs.
fn bounded(body: RequestBody) -> RequestBody {
    match body {
        RequestBody::CreateTopics(mut r) => {
            for topic in &mut r.topics {
                topic.num_partitions = topic.num_partitions.rem_euclid(3) + 1;
                topic.assignments.clear();
            }
            RequestBody::CreateTopics(r)
        }
        RequestBody::CreatePartitions(mut r) => {
            for topic in &mut r.topics {
                topic.count = topic.count.rem_euclid(4) + 1;
                topic.assignments = None;
            }
            RequestBody::CreatePartitions(r)
        }
        // A random wait would hold the test for up to the 30 s cap.
        RequestBody::Fetch(mut r) => {
            r.max_wait_ms = r.max_wait_ms.rem_euclid(20);
            RequestBody::Fetch(r)
        }
        // Kafka refuses a code it does not define when it parses these (the connection closes).
        RequestBody::DescribeAcls(mut r) => {
            (r.resource_type_filter, r.pattern_type_filter) =
                (known(r.resource_type_filter, 7), known(r.pattern_type_filter, 4));
            (r.operation, r.permission_type) = (known(r.operation, 14), known(r.permission_type, 3));
            RequestBody::DescribeAcls(r)
        }
        RequestBody::CreateAcls(mut r) => {
            for c in &mut r.creations {
                (c.resource_type, c.resource_pattern_type) =
                    (known(c.resource_type, 7), known(c.resource_pattern_type, 4));
                (c.operation, c.permission_type) = (known(c.operation, 14), known(c.permission_type, 3));
            }
            RequestBody::CreateAcls(r)
        }
        RequestBody::DeleteAcls(mut r) => {
            for f in &mut r.filters {
                (f.resource_type_filter, f.pattern_type_filter) =
                    (known(f.resource_type_filter, 7), known(f.pattern_type_filter, 4));
                (f.operation, f.permission_type) = (known(f.operation, 14), known(f.permission_type, 3));
            }
            RequestBody::DeleteAcls(r)
        }
        other => other,
    }
}

/// A random ACL enum code made one Kafka defines (1..=`max`; 0 is UNKNOWN).
fn known(code: i8, max: i8) -> i8 {
    code.rem_euclid(max) + 1
}

/// Every served API at every advertised version that decodes answers random and real requests.
#[tokio::test]
async fn every_served_api_answers_at_every_version() {
    let mut node = Node::new();
    let topic_id = node.create_topic("t", 1).await;
    let mut failures = Vec::new();
    for &api in SERVED {
        let decodable = api.versions();
        let range = advertised(api);
        for version in range.min.max(decodable.min)..=range.max {
            for body in real_requests(api, version, topic_id) {
                if let Err(e) = handle(&node, &body, version).await {
                    failures.push(format!("{api:?} v{version} (real): {e}"));
                }
            }
            for seed in 0..SAMPLES {
                let mut g = SampleGen::new(seed ^ ((api as u64) << 16) ^ ((version as u64) << 8));
                let body = bounded(RequestBody::sample(api, &mut g, version));
                // acks=0 with an error closes the connection by design.
                if let RequestBody::Produce(p) = &body
                    && p.acks == 0
                {
                    continue;
                }
                if let Err(e) = handle(&node, &body, version).await {
                    failures.push(format!("{api:?} v{version} (sample {seed}): {e}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
