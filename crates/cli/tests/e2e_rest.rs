//! The REST gateway (Confluent REST Proxy's v3 API) on a real `strand`'s `http.listeners`, driven
//! over HTTP/1.1 and checked against what a Kafka client sees on the same node: the admin routes
//! (clusters, brokers and their configs, topics created, described, altered and deleted,
//! partitions, replicas) with Confluent's shapes, links, status codes and error JSON; produce of
//! BINARY, JSON and STRING keys and values with headers, partitions and timestamps, read back with
//! a Kafka Fetch; several records in one body and in one chunked request streamed record by
//! record; consumer groups, their consumers and lags. Its security is `e2e_rest_security.rs`.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;

use bytes::Bytes;
use common::rest::{dechunk, get, http, kafka_partitions, kafka_view, start};
use common::{Client, WAIT_MAX};
use serde_json::{Value, json};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::describe_configs_request::DescribeConfigsResource;
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use strand_protocol::messages::join_group_request::JoinGroupRequestProtocol;
use strand_protocol::messages::offset_commit_request::{OffsetCommitRequestPartition, OffsetCommitRequestTopic};
use strand_protocol::messages::sync_group_request::SyncGroupRequestAssignment;
use strand_protocol::messages::{
    DescribeConfigsRequest, FetchRequest, FindCoordinatorRequest, JoinGroupRequest, OffsetCommitRequest,
    SyncGroupRequest,
};
use strand_protocol::records::RecordBatches;

/// A topic config's value as Kafka's DescribeConfigs says.
fn kafka_config(client: &mut Client, topic: &str, name: &str) -> Option<String> {
    let resource = DescribeConfigsResource {
        resource_type: 2,
        resource_name: topic.into(),
        configuration_keys: Some(vec![name.into()]),
        ..Default::default()
    };
    let request = DescribeConfigsRequest { resources: vec![resource], ..Default::default() };
    let ResponseBody::DescribeConfigs(described) = client.call(RequestBody::DescribeConfigs(request), 4) else {
        panic!()
    };
    described.results[0].configs.iter().find(|c| c.name == name).and_then(|c| c.value.clone())
}

#[test]
fn admin_routes_answer_as_confluent_documents() {
    let _serial = common::serial();
    let (server, http_at) = start(&[]);
    let mut client = server.connect();
    let (cluster, kafka_port) = kafka_view(&mut client);
    let base = format!("http://{http_at}/v3/clusters");
    let c = format!("/v3/clusters/{cluster}");

    // Clusters: this one, with its links.
    let list = get(http_at, "/v3/clusters");
    assert_eq!(list.status, 200, "{}", list.body);
    assert!(list.head.to_ascii_lowercase().contains("content-type: application/json"), "{}", list.head);
    let list = list.json();
    assert_eq!(list["kind"], "KafkaClusterList");
    assert_eq!(list["metadata"]["self"], base);
    let one = &list["data"][0];
    assert_eq!((&one["kind"], &one["cluster_id"]), (&json!("KafkaCluster"), &json!(cluster)));
    assert_eq!(one["metadata"]["self"], format!("{base}/{cluster}"));
    assert_eq!(one["metadata"]["resource_name"], format!("crn:///kafka={cluster}"));
    assert_eq!(one["controller"]["related"], format!("{base}/{cluster}/brokers/1"));
    assert_eq!(one["topics"]["related"], format!("{base}/{cluster}/topics"));
    assert_eq!(get(http_at, &c).json(), *one);
    let message = get(http_at, "/v3/clusters/other/topics").error(404, 404);
    assert_eq!(message, "Cluster other cannot be found.");

    // Brokers and their configs.
    let brokers = get(http_at, &format!("{c}/brokers")).json();
    assert_eq!(brokers["kind"], "KafkaBrokerList");
    let broker = &brokers["data"][0];
    assert_eq!(
        (&broker["broker_id"], &broker["host"], &broker["port"]),
        (&json!(1), &json!("127.0.0.1"), &json!(kafka_port))
    );
    assert_eq!(broker["configs"]["related"], format!("{base}/{cluster}/brokers/1/configs"));
    assert_eq!(get(http_at, &format!("{c}/brokers/1")).json(), *broker);
    get(http_at, &format!("{c}/brokers/7")).error(404, 404);
    let configs = get(http_at, &format!("{c}/brokers/1/configs")).json();
    assert_eq!(configs["kind"], "KafkaBrokerConfigList");
    let data = configs["data"].as_array().expect("configs");
    let threads = data.iter().find(|d| d["name"] == "num.io.threads").unwrap_or_else(|| panic!("{configs}"));
    assert_eq!(threads["kind"], "KafkaBrokerConfig");
    assert_eq!(get(http_at, &format!("{c}/brokers/1/configs/num.io.threads")).json(), *threads);

    // Cluster-wide broker configs (Kafka's dynamic defaults): set, listed, reset.
    let cluster_config = format!("{c}/broker-configs/compression.type");
    assert_eq!(http(http_at, "PUT", &cluster_config, r#"{"value": "gzip"}"#, None).status, 204);
    let set = get(http_at, &cluster_config).json();
    assert_eq!(
        (&set["kind"], &set["value"], &set["source"]),
        (&json!("KafkaClusterConfig"), &json!("gzip"), &json!("DYNAMIC_DEFAULT_BROKER_CONFIG"))
    );
    assert!(get(http_at, &format!("{c}/broker-configs")).json()["data"].as_array().expect("configs").contains(&set));
    assert_eq!(http(http_at, "DELETE", &cluster_config, "", None).status, 204);
    get(http_at, &cluster_config).error(404, 404);

    // Topics: created with partitions, replication factor and configs, as Kafka then sees it.
    let create = r#"{"topic_name": "rest-orders", "partitions_count": 3, "replication_factor": 1,
        "configs": [{"name": "cleanup.policy", "value": "compact"}, {"name": "compression.type", "value": "gzip"}]}"#;
    let created = http(http_at, "POST", &format!("{c}/topics"), create, None);
    assert_eq!(created.status, 201, "{}", created.body);
    let topic = created.json();
    assert_eq!(topic["kind"], "KafkaTopic");
    assert_eq!(topic["metadata"]["self"], format!("{base}/{cluster}/topics/rest-orders"));
    assert_eq!(topic["metadata"]["resource_name"], format!("crn:///kafka={cluster}/topic=rest-orders"));
    assert_eq!((&topic["partitions_count"], &topic["replication_factor"]), (&json!(3), &json!(1)));
    assert_eq!(topic["partitions"]["related"], format!("{base}/{cluster}/topics/rest-orders/partitions"));
    assert_eq!(kafka_partitions(&mut client, "rest-orders"), Ok(3));
    assert_eq!(kafka_config(&mut client, "rest-orders", "compression.type").as_deref(), Some("gzip"));
    let again = http(http_at, "POST", &format!("{c}/topics"), r#"{"topic_name": "rest-orders"}"#, None);
    assert_eq!(again.error(400, 40002), "Topic 'rest-orders' already exists.");
    let dry = r#"{"topic_name": "rest-dry", "partitions_count": 2, "validate_only": true}"#;
    assert_eq!(http(http_at, "POST", &format!("{c}/topics"), dry, None).status, 200);
    assert_eq!(kafka_partitions(&mut client, "rest-dry"), Err(3), "validate_only created the topic");
    let too_many = r#"{"topic_name": "rest-wide", "partitions_count": 1, "replication_factor": 3}"#;
    http(http_at, "POST", &format!("{c}/topics"), too_many, None).error(400, 40002);
    http(http_at, "POST", &format!("{c}/topics"), "{\"topic_name\": ", None).error(400, 400);
    let form = http(http_at, "POST", &format!("{c}/topics"), "topic_name=x", Some("application/x-www-form-urlencoded"));
    form.error(415, 415);

    let topics = get(http_at, &format!("{c}/topics")).json();
    assert_eq!(topics["kind"], "KafkaTopicList");
    let names: Vec<&str> =
        topics["data"].as_array().expect("topics").iter().filter_map(|t| t["topic_name"].as_str()).collect();
    assert!(names.contains(&"rest-orders"), "{names:?}");
    let described = get(http_at, &format!("{c}/topics/rest-orders")).json();
    assert_eq!((&described["partitions_count"], &described["is_internal"]), (&json!(3), &json!(false)));
    let unknown = get(http_at, &format!("{c}/topics/no-such-topic"));
    assert_eq!(unknown.error(404, 40403), "This server does not host this topic-partition.");

    // Partitions and replicas.
    let partitions = get(http_at, &format!("{c}/topics/rest-orders/partitions")).json();
    assert_eq!(partitions["kind"], "KafkaPartitionList");
    let ids: Vec<u64> =
        partitions["data"].as_array().expect("partitions").iter().filter_map(|p| p["partition_id"].as_u64()).collect();
    assert_eq!(ids, [0, 1, 2]);
    let partition = get(http_at, &format!("{c}/topics/rest-orders/partitions/2")).json();
    assert_eq!(partition["kind"], "KafkaPartition");
    let partition_url = format!("{base}/{cluster}/topics/rest-orders/partitions/2");
    assert_eq!(partition["leader"]["related"], format!("{partition_url}/replicas/1"));
    get(http_at, &format!("{c}/topics/rest-orders/partitions/9")).error(404, 40403);
    let replica = get(http_at, &format!("{c}/topics/rest-orders/partitions/2/replicas/1")).json();
    assert_eq!((&replica["is_leader"], &replica["is_in_sync"]), (&json!(true), &json!(true)));
    let replicas = get(http_at, &format!("{c}/topics/rest-orders/partitions/2/replicas")).json();
    assert_eq!(replicas["data"][0], replica);

    let held = get(http_at, &format!("{c}/brokers/1/partition-replicas")).json();
    let held: Vec<(&str, u64)> = held["data"]
        .as_array()
        .expect("replicas")
        .iter()
        .filter_map(|r| Some((r["topic_name"].as_str()?, r["partition_id"].as_u64()?)))
        .collect();
    assert_eq!(held, [("rest-orders", 0), ("rest-orders", 1), ("rest-orders", 2)]);

    // Growing a topic (CreatePartitions); shrinking is Kafka's INVALID_PARTITIONS.
    let grown = http(http_at, "PATCH", &format!("{c}/topics/rest-orders"), r#"{"partitions_count": 5}"#, None);
    assert_eq!((grown.status, &grown.json()["partitions_count"]), (200, &json!(5)), "{}", grown.body);
    assert_eq!(kafka_partitions(&mut client, "rest-orders"), Ok(5));
    http(http_at, "PATCH", &format!("{c}/topics/rest-orders"), r#"{"partitions_count": 2}"#, None).error(400, 40002);

    // Topic configs: listed, read, set, altered in a batch, reset; Kafka agrees at each step.
    let configs = get(http_at, &format!("{c}/topics/rest-orders/configs")).json();
    assert_eq!(configs["kind"], "KafkaTopicConfigList");
    let policy = get(http_at, &format!("{c}/topics/rest-orders/configs/cleanup.policy")).json();
    assert_eq!(policy["kind"], "KafkaTopicConfig");
    assert_eq!(
        (&policy["value"], &policy["source"], &policy["is_default"]),
        (&json!("compact"), &json!("DYNAMIC_TOPIC_CONFIG"), &json!(false))
    );
    assert!(configs["data"].as_array().expect("configs").contains(&policy));
    let retention = format!("{c}/topics/rest-orders/configs/retention.ms");
    assert_eq!(http(http_at, "PUT", &retention, r#"{"value": "3600000"}"#, None).status, 204);
    assert_eq!(get(http_at, &retention).json()["value"], "3600000");
    assert_eq!(kafka_config(&mut client, "rest-orders", "retention.ms").as_deref(), Some("3600000"));
    let batch =
        r#"{"data": [{"name": "retention.ms", "operation": "DELETE"}, {"name": "compression.type", "value": "zstd"}]}"#;
    assert_eq!(http(http_at, "POST", &format!("{c}/topics/rest-orders/configs:alter"), batch, None).status, 204);
    let reset = get(http_at, &retention).json();
    assert_eq!(reset["value"], "604800000", "{reset}");
    assert_ne!(reset["source"], "DYNAMIC_TOPIC_CONFIG", "{reset}");
    assert_eq!(kafka_config(&mut client, "rest-orders", "compression.type").as_deref(), Some("zstd"));
    assert_eq!(
        http(http_at, "DELETE", &format!("{c}/topics/rest-orders/configs/compression.type"), "", None).status,
        204
    );
    assert_eq!(kafka_config(&mut client, "rest-orders", "compression.type").as_deref(), Some("producer"));
    http(http_at, "PUT", &retention, r#"{"value": "not-a-number"}"#, None).error(400, 40002);

    // What the gateway does not serve, and deletion.
    get(http_at, "/v3/nothing/here").error(404, 404);
    http(http_at, "DELETE", &format!("{c}/brokers"), "", None).error(405, 405);
    assert_eq!(http(http_at, "DELETE", &format!("{c}/topics/rest-orders"), "", None).status, 204);
    assert_eq!(kafka_partitions(&mut client, "rest-orders"), Err(3));
    http(http_at, "DELETE", &format!("{c}/topics/rest-orders"), "", None).error(404, 40403);
}

/// One record as a Kafka Fetch reads it back.
#[derive(Debug, PartialEq)]
struct Fetched {
    offset: i64,
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    headers: Vec<(String, Option<Vec<u8>>)>,
    timestamp: i64,
}

/// Every record of `topic`'s `partition` below its high watermark, through Kafka Fetches from
/// offset 0 on, as a consumer reads.
fn fetch(client: &mut Client, topic: &str, partition: i32) -> Vec<Fetched> {
    let mut out: Vec<Fetched> = Vec::new();
    loop {
        let fetch_offset = out.last().map_or(0, |f| f.offset + 1);
        let partitions =
            vec![FetchPartition { partition, fetch_offset, partition_max_bytes: 1 << 20, ..Default::default() }];
        let request = FetchRequest {
            max_bytes: 1 << 20,
            topics: vec![FetchTopic { topic: topic.into(), partitions, ..Default::default() }],
            ..Default::default()
        };
        let ResponseBody::Fetch(response) = client.call(RequestBody::Fetch(request), 12) else { panic!() };
        let answer = &response.responses[0].partitions[0];
        assert_eq!(answer.error_code, 0, "{answer:?}");
        if fetch_offset >= answer.high_watermark {
            return out;
        }
        let records = answer.records.as_ref().and_then(|r| r.as_bytes()).cloned().unwrap_or_default();
        let before = out.len();
        for batch in RecordBatches::new(records) {
            let batch = batch.expect("a whole batch");
            for record in batch.records().expect("records").iter() {
                let record = record.expect("a record");
                out.push(Fetched {
                    offset: batch.base_offset() + i64::from(record.offset_delta()),
                    key: record.key().map(<[u8]>::to_vec),
                    value: record.value().map(<[u8]>::to_vec),
                    headers: record.headers().map(|h| (h.key.to_owned(), h.value.map(<[u8]>::to_vec))).collect(),
                    timestamp: batch.base_timestamp() + record.timestamp_delta(),
                });
            }
        }
        assert!(out.len() > before, "a fetch below the high watermark returned nothing: {answer:?}");
    }
}

#[test]
fn produced_records_are_what_kafka_reads() {
    let _serial = common::serial();
    let (server, http_at) = start(&[]);
    let mut client = server.connect();
    let (cluster, _) = kafka_view(&mut client);
    let c = format!("/v3/clusters/{cluster}");
    let create = r#"{"topic_name": "rest-events", "partitions_count": 4, "replication_factor": 1}"#;
    assert_eq!(http(http_at, "POST", &format!("{c}/topics"), create, None).status, 201);
    let records = format!("{c}/topics/rest-events/records");

    // Confluent's documented example: a BINARY key, a JSON value, headers, a timestamp.
    let example = r#"{"partition_id": 1, "headers": [{"name": "Header-1", "value": "SGVhZGVyLTE="},
        {"name": "Header-2", "value": "SGVhZGVyLTI="}], "key": {"type": "BINARY", "data": "Zm9vYmFy"},
        "value": {"type": "JSON", "data": {"foo": "bar"}}, "timestamp": "2021-02-05T19:14:42Z"}"#;
    let answer = http(http_at, "POST", &records, example, None);
    assert_eq!(answer.status, 200, "{}", answer.body);
    let report = answer.json();
    let expected = json!({
        "error_code": 200, "cluster_id": cluster, "topic_name": "rest-events", "partition_id": 1, "offset": 0,
        "timestamp": "2021-02-05T19:14:42.000Z", "key": {"type": "BINARY", "size": 6}, "value": {"type": "JSON", "size": 13},
    });
    assert_eq!(report, expected);
    let fetched = fetch(&mut client, "rest-events", 1);
    let header = |name: &str, value: &[u8]| (name.to_owned(), Some(value.to_vec()));
    assert_eq!(
        fetched,
        [Fetched {
            offset: 0,
            key: Some(b"foobar".to_vec()),
            value: Some(br#"{"foo":"bar"}"#.to_vec()),
            headers: vec![header("Header-1", b"Header-1"), header("Header-2", b"Header-2")],
            timestamp: 1_612_552_482_000,
        }]
    );

    // Several records in one body: one report each, in order; a bad one fails alone.
    let body = r#"{"partition_id": 2, "value": {"type": "STRING", "data": "first"}}
        {"partition_id": 2, "key": {"type": "STRING", "data": "k"}, "value": {"type": "STRING", "data": "second"}}
        {"partition_id": 2, "value": {"type": "BINARY", "data": 1}}
        {"partition_id": 2, "value": {"type": "JSON", "data": [1, 2, 3]}}"#;
    let answer = http(http_at, "POST", &records, body, None);
    assert_eq!(answer.status, 200, "{}", answer.body);
    let reports = answer.values();
    assert_eq!(reports.len(), 4, "{}", answer.body);
    let offsets: Vec<Option<i64>> = reports.iter().map(|r| r["offset"].as_i64()).collect();
    assert_eq!(offsets, [Some(0), Some(1), None, Some(2)]);
    assert_eq!(reports[2], json!({"error_code": 400, "message": "Bad Request: data=1 is not a base64 string."}));
    let values: Vec<Option<Vec<u8>>> = fetch(&mut client, "rest-events", 2).into_iter().map(|f| f.value).collect();
    assert_eq!(values, [Some(b"first".to_vec()), Some(b"second".to_vec()), Some(b"[1,2,3]".to_vec())]);

    // Without a partition, a key goes where Kafka's default partitioner sends it: the same
    // partition each time.
    let keyed = r#"{"key": {"type": "STRING", "data": "customer-42"}, "value": {"type": "STRING", "data": "v"}}"#;
    let answers: Vec<Value> = (0..3).map(|_| http(http_at, "POST", &records, keyed, None).json()).collect();
    let partitions: Vec<i64> = answers.iter().map(|a| a["partition_id"].as_i64().expect("a partition")).collect();
    assert!(partitions.iter().all(|p| *p == partitions[0]), "{partitions:?}");
    let partition = i32::try_from(partitions[0]).expect("a partition id");
    let fetched = fetch(&mut client, "rest-events", partition);
    let with_key = fetched.iter().filter(|f| f.key.as_deref() == Some(b"customer-42"));
    assert_eq!(with_key.count(), 3, "partition {partition}: {fetched:?} {answers:?}");

    // Refusals: an unknown topic, an empty body, a partition the topic lacks.
    http(http_at, "POST", &format!("{c}/topics/no-such-topic/records"), keyed, None).error(404, 40403);
    http(http_at, "POST", &records, "", Some("application/json")).error(422, 422);
    let missing = r#"{"partition_id": 9, "value": {"type": "STRING", "data": "x"}}"#;
    let answer = http(http_at, "POST", &records, missing, None);
    assert_eq!((answer.status, answer.json()["error_code"].as_u64()), (200, Some(40403)), "{}", answer.body);
}

/// Streaming mode: one chunked request, each record sent only after the previous one's report
/// came back over the same connection.
#[test]
#[allow(clippy::disallowed_methods)] // The test's own HTTP client.
fn one_chunked_request_streams_records_and_reports() {
    let _serial = common::serial();
    let (server, http_at) = start(&[]);
    let mut client = server.connect();
    let (cluster, _) = kafka_view(&mut client);
    let c = format!("/v3/clusters/{cluster}");
    let create = r#"{"topic_name": "rest-stream", "partitions_count": 1}"#;
    assert_eq!(http(http_at, "POST", &format!("{c}/topics"), create, None).status, 201);

    let mut stream = TcpStream::connect(http_at).expect("connect");
    stream.set_read_timeout(Some(WAIT_MAX)).expect("timeout");
    let head = format!(
        "POST {c}/topics/rest-stream/records HTTP/1.1\r\nHost: {http_at}\r\nContent-Type: application/json\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).expect("send the head");
    let mut received = Vec::new();
    for i in 0..5 {
        let record = format!(r#"{{"value": {{"type": "STRING", "data": "streamed-{i}"}}}}"#);
        // Split across two chunks, to be reassembled by the gateway.
        let (a, b) = record.split_at(record.len() / 2);
        for part in [a, b] {
            write!(stream, "{:x}\r\n{part}\r\n", part.len()).expect("send a chunk");
        }
        stream.flush().expect("flush");
        // Its report arrives while the request is still open.
        let wanted = format!("\"offset\":{i}");
        let mut buffer = [0u8; 4096];
        while !String::from_utf8_lossy(&received).contains(&wanted) {
            let n = stream.read(&mut buffer).expect("a report");
            assert!(n > 0, "closed early: {}", String::from_utf8_lossy(&received));
            received.extend_from_slice(&buffer[..n]);
        }
    }
    stream.write_all(b"0\r\n\r\n").expect("end the body");
    stream.read_to_end(&mut received).expect("the rest");
    let text = String::from_utf8_lossy(&received).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a head");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let reports: Vec<Value> =
        serde_json::Deserializer::from_str(&dechunk(body)).into_iter().map(|v| v.expect("json")).collect();
    let offsets: Vec<i64> = reports.iter().filter_map(|r| r["offset"].as_i64()).collect();
    assert_eq!(offsets, [0, 1, 2, 3, 4], "{text}");
    let values: Vec<Vec<u8>> = fetch(&mut client, "rest-stream", 0).into_iter().filter_map(|f| f.value).collect();
    assert_eq!(values, (0..5).map(|i| format!("streamed-{i}").into_bytes()).collect::<Vec<_>>());

    // A body of many records goes out as several pipelined Produce requests: every record lands
    // once, in order, and the reports say where.
    let body: String = (0..3000).map(|i| format!(r#"{{"value": {{"type": "STRING", "data": "bulk-{i}"}}}}"#)).collect();
    let answer = http(http_at, "POST", &format!("{c}/topics/rest-stream/records"), &body, None);
    let offsets: Vec<i64> = answer.values().iter().map(|r| r["offset"].as_i64().expect("an offset")).collect();
    assert_eq!(offsets, (5..3005).collect::<Vec<_>>());
    let values: Vec<Vec<u8>> =
        fetch(&mut client, "rest-stream", 0).into_iter().skip(5).filter_map(|f| f.value).collect();
    assert_eq!(values, (0..3000).map(|i| format!("bulk-{i}").into_bytes()).collect::<Vec<_>>());
}

/// A consumer's assignment in Kafka's ConsumerProtocol: version 0, topics with partitions.
fn assignment(topic: &str, partitions: &[i32]) -> Bytes {
    let mut out = vec![0, 0, 0, 0, 0, 1];
    out.extend_from_slice(&(topic.len() as i16).to_be_bytes());
    out.extend_from_slice(topic.as_bytes());
    out.extend_from_slice(&(partitions.len() as i32).to_be_bytes());
    partitions.iter().for_each(|p| out.extend_from_slice(&p.to_be_bytes()));
    out.extend_from_slice(&[0xff, 0xff, 0xff, 0xff]);
    Bytes::from(out)
}

/// Calls `call` until its error code is 0 (at most [`WAIT_MAX`]), as clients retry while a
/// coordinator is created and loads.
fn until_no_error<T: std::fmt::Debug>(mut call: impl FnMut() -> (i16, T)) -> T {
    use strand_base::Clock;
    let clock = strand_base::SystemClock;
    let deadline = clock.monotonic_ns() + WAIT_MAX.as_nanos() as u64;
    loop {
        let (code, answer) = call();
        if code == 0 {
            return answer;
        }
        assert!(clock.monotonic_ns() < deadline, "still {code}: {answer:?}");
        std::thread::yield_now();
    }
}

#[test]
fn consumer_groups_consumers_and_lags() {
    let _serial = common::serial();
    let (server, http_at) = start(&[]);
    let mut client = server.connect();
    let (cluster, _) = kafka_view(&mut client);
    let c = format!("/v3/clusters/{cluster}");
    let create = r#"{"topic_name": "rest-lag", "partitions_count": 2}"#;
    assert_eq!(http(http_at, "POST", &format!("{c}/topics"), create, None).status, 201);
    let records = format!("{c}/topics/rest-lag/records");
    let body: String = (0..10)
        .map(|i| format!(r#"{{"partition_id": {}, "value": {{"type": "STRING", "data": "r{i}"}}}}"#, i % 2))
        .collect();
    assert_eq!(http(http_at, "POST", &records, &body, None).values().len(), 10);

    // A member joins, leads, takes both partitions and commits 1 and 4 of the 5 records each holds.
    let join = |member_id: &str| JoinGroupRequest {
        group_id: "rest-group".into(),
        session_timeout_ms: 30_000,
        rebalance_timeout_ms: 30_000,
        member_id: member_id.into(),
        protocol_type: "consumer".into(),
        protocols: vec![JoinGroupRequestProtocol {
            name: "range".into(),
            metadata: Bytes::new(),
            ..Default::default()
        }],
        ..Default::default()
    };
    // FindCoordinator creates `__consumer_offsets`; the coordinator then loads its partition.
    let find =
        || FindCoordinatorRequest { key_type: 0, coordinator_keys: vec!["rest-group".into()], ..Default::default() };
    let found = until_no_error(|| match client.call(RequestBody::FindCoordinator(find()), 4) {
        ResponseBody::FindCoordinator(found) => (found.coordinators[0].error_code, found),
        other => panic!("{other:?}"),
    });
    assert_eq!(found.coordinators[0].node_id.0, 1);
    let joined = until_no_error(|| match client.call(RequestBody::JoinGroup(join("")), 3) {
        ResponseBody::JoinGroup(answer) => (answer.error_code, answer),
        other => panic!("{other:?}"),
    });
    let sync = SyncGroupRequest {
        group_id: "rest-group".into(),
        generation_id: joined.generation_id,
        member_id: joined.member_id.clone(),
        assignments: vec![SyncGroupRequestAssignment {
            member_id: joined.member_id.clone(),
            assignment: assignment("rest-lag", &[0, 1]),
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::SyncGroup(synced) = client.call(RequestBody::SyncGroup(sync), 3) else { panic!() };
    assert_eq!(synced.error_code, 0);
    let partitions = [(0, 1), (1, 4)].map(|(partition_index, committed_offset)| OffsetCommitRequestPartition {
        partition_index,
        committed_offset,
        ..Default::default()
    });
    let commit = OffsetCommitRequest {
        group_id: "rest-group".into(),
        generation_id_or_member_epoch: joined.generation_id,
        member_id: joined.member_id.clone(),
        topics: vec![OffsetCommitRequestTopic {
            name: "rest-lag".into(),
            partitions: partitions.to_vec(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::OffsetCommit(committed) = client.call(RequestBody::OffsetCommit(commit), 8) else { panic!() };
    assert!(committed.topics[0].partitions.iter().all(|p| p.error_code == 0), "{committed:?}");

    let groups = get(http_at, &format!("{c}/consumer-groups")).json();
    assert_eq!(groups["kind"], "KafkaConsumerGroupList");
    let group = get(http_at, &format!("{c}/consumer-groups/rest-group")).json();
    assert_eq!(groups["data"][0], group);
    assert_eq!(group["kind"], "KafkaConsumerGroup");
    let fields = ["state", "type", "is_simple", "partition_assignor"].map(|f| group[f].clone());
    assert_eq!(fields, [json!("STABLE"), json!("CLASSIC"), json!(false), json!("range")]);
    assert_eq!(group["coordinator"]["related"], format!("http://{http_at}{c}/brokers/1"));
    get(http_at, &format!("{c}/consumer-groups/no-such-group")).error(404, 404);

    let consumers = get(http_at, &format!("{c}/consumer-groups/rest-group/consumers")).json();
    let consumer = &consumers["data"][0];
    assert_eq!((&consumer["consumer_id"], &consumer["client_id"]), (&json!(joined.member_id), &json!("e2e")));
    let assignments =
        get(http_at, &format!("{c}/consumer-groups/rest-group/consumers/{}/assignments", joined.member_id)).json();
    let assigned: Vec<u64> = assignments["data"]
        .as_array()
        .expect("assignments")
        .iter()
        .filter_map(|a| a["partition_id"].as_u64())
        .collect();
    assert_eq!(assigned, [0, 1]);

    let lags = get(http_at, &format!("{c}/consumer-groups/rest-group/lags")).json();
    let lag = |p: usize, f: &str| lags["data"][p][f].clone();
    assert_eq!([lag(0, "current_offset"), lag(0, "log_end_offset"), lag(0, "lag")], [json!(1), json!(5), json!(4)]);
    assert_eq!([lag(1, "current_offset"), lag(1, "log_end_offset"), lag(1, "lag")], [json!(4), json!(5), json!(1)]);
    assert_eq!(lag(0, "consumer_id"), json!(joined.member_id));
    let summary = get(http_at, &format!("{c}/consumer-groups/rest-group/lag-summary")).json();
    assert_eq!(summary["kind"], "KafkaConsumerGroupLagSummary");
    let fields = ["max_lag", "total_lag", "max_lag_topic_name", "max_lag_partition_id"].map(|f| summary[f].clone());
    assert_eq!(fields, [json!(4), json!(5), json!("rest-lag"), json!(0)]);
}
