//! The web console on a real `strand`'s `http.listeners`, over HTTP/1.1, against what a Kafka
//! client did on the same node: each page after real produces (the overview's counts and quorum,
//! the topic list, a topic's partitions, offsets and configs, the message browser by offset,
//! newest N and time, with filters and each format, the tail's JSON, groups and their lag, the
//! charts page and the embedded assets); data (a `<script>` key, markup in values, headers and a
//! group id) printed escaped; and the POSTed forms: create, produce, delete (only with the name
//! typed again) and offset resets, each checked with Kafka requests; a form posted from another
//! site's page refused; in a three-node cluster, partitions other nodes lead produced to, read and
//! listed through node 1's console.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

use bytes::Bytes;
use common::cluster::{Cluster, create_assigned_topic, partitions as metadata_partitions};
use common::{Client, Server, WAIT_MAX, create_topic, fetch_all, produce};
use serde_json::Value;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::join_group_request::JoinGroupRequestProtocol;
use strand_protocol::messages::metadata_request::MetadataRequestTopic;
use strand_protocol::messages::offset_commit_request::{OffsetCommitRequestPartition, OffsetCommitRequestTopic};
use strand_protocol::messages::offset_fetch_request::OffsetFetchRequestGroup;
use strand_protocol::messages::{
    FindCoordinatorRequest, JoinGroupRequest, MetadataRequest, OffsetCommitRequest, OffsetFetchRequest,
};
use strand_protocol::records::{Header, NewRecord, RecordBatchBuilder};

/// A node with HTTP on, and its HTTP address.
fn start() -> (Server, SocketAddr) {
    let overrides = ["http.listeners=http://127.0.0.1:0", "group.initial.rebalance.delay.ms=0"];
    let server = Server::start_with(tempfile::tempdir().expect("temp dir"), &overrides);
    let address = http_address(&server);
    (server, address)
}

/// The HTTP address from the start-up line (once the log has it).
fn http_address(server: &Server) -> SocketAddr {
    let pause = std::time::Duration::from_millis(20);
    for _ in 0..WAIT_MAX.as_millis() / pause.as_millis() {
        let lines = server.log.lock().expect("log").clone();
        let found =
            lines.iter().find_map(|l| l.split("metrics at http://").nth(1)?.split('/').next().map(str::to_owned));
        if let Some(address) = found {
            return address.parse().expect("an address");
        }
        std::thread::park_timeout(pause);
    }
    panic!("no HTTP address in:\n{}", server.log.lock().expect("log").join("\n"))
}

/// An HTTP answer.
struct Answer {
    status: u16,
    head: String,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        let prefix = format!("{}:", name.to_ascii_lowercase());
        self.head.lines().find(|l| l.to_ascii_lowercase().starts_with(&prefix)).map(|l| l[prefix.len()..].trim())
    }
}

/// One HTTP/1.1 request; a body is sent as a form.
fn http(address: SocketAddr, method: &str, path: &str, form: &str) -> Answer {
    http_from(address, method, path, form, None)
}

/// [`http`] as a browser sends it from a page of `origin`.
#[allow(clippy::disallowed_methods)] // The test's own HTTP client.
fn http_from(address: SocketAddr, method: &str, path: &str, form: &str, origin: Option<&str>) -> Answer {
    let mut stream = TcpStream::connect(address).expect("connect to the HTTP listener");
    stream.set_read_timeout(Some(WAIT_MAX)).expect("timeout");
    let origin = origin.map(|o| format!("Origin: {o}\r\n")).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\n{origin}Content-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        form.len()
    );
    stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(form.as_bytes())).expect("send");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).expect("read the response");
    let response = String::from_utf8(response).expect("UTF-8");
    let (head, body) = response.split_once("\r\n\r\n").expect("a head and a body");
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status");
    let body =
        if head.to_ascii_lowercase().contains("transfer-encoding: chunked") { dechunk(body) } else { body.into() };
    Answer { status, head: head.to_owned(), body }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    loop {
        let (size, rest) = body.split_once("\r\n").expect("a chunk size");
        let size = usize::from_str_radix(size.trim(), 16).expect("a hex chunk size");
        if size == 0 {
            return out;
        }
        out.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
}

/// A page that must answer 200 with HTML.
fn page(address: SocketAddr, path: &str) -> String {
    let answer = http(address, "GET", path, "");
    assert_eq!(answer.status, 200, "{path}: {}", answer.body);
    assert_eq!(answer.header("content-type"), Some("text/html; charset=utf-8"), "{path}");
    answer.body
}

/// A record to produce: key, value, headers.
type Keyed<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);

/// A batch of keyed records with headers, timestamps one second apart from `first_ms`.
fn keyed(records: &[Keyed<'_>], first_ms: i64) -> Bytes {
    let mut builder = RecordBatchBuilder::new();
    for (i, (key, value, headers)) in records.iter().enumerate() {
        let headers: Vec<Header<'_>> =
            headers.iter().map(|(k, v)| Header { key: k, value: Some(v.as_bytes()) }).collect();
        let record = NewRecord {
            timestamp_ms: first_ms + 1000 * i as i64,
            key: Some(key.as_bytes()),
            value: Some(value.as_bytes()),
            headers: &headers,
        };
        builder.append(&record).expect("record");
    }
    builder.build().expect("batch")
}

const FIRST_MS: i64 = 1_700_000_000_000; // 2023-11-14T22:13:20Z

#[test]
fn every_page_shows_what_kafka_holds() {
    let _serial = common::serial();
    let (server, http_address) = start();
    let mut client = server.connect();
    create_topic(&mut client, "orders", 2);
    let records = keyed(
        &[
            ("<script>alert(1)</script>", "{\"a\":1,\"b\":[true]}", &[("trace", "<i>x</i>")]),
            ("plain", "hello world", &[]),
            ("late", "\u{1}\u{2}bytes", &[("kind", "bin")]),
        ],
        FIRST_MS,
    );
    assert_eq!(produce(&mut client, "orders", -1, records), (0, 0));

    let overview = page(http_address, "/");
    assert!(overview.contains("<title>Cluster overview · Strand</title>"), "{overview}");
    assert!(overview.contains("id=\"broker-count\">1<"), "{overview}");
    assert!(overview.contains("id=\"topic-count\">1<"), "{overview}");
    assert!(overview.contains("id=\"partition-count\">2<"), "{overview}");
    assert!(overview.contains("id=\"under-replicated\">0<") && overview.contains("id=\"offline\">0<"));
    assert!(overview.contains("id=\"quorum-leader\">1<"), "{overview}");

    let topics = page(http_address, "/topics");
    assert!(topics.contains("<a href=\"/topics/orders\">orders</a></td><td>2</td><td>1</td>"), "{topics}");
    assert!(topics.contains("<form method=\"post\" action=\"/topics\""), "{topics}");

    let topic = page(http_address, "/topics/orders");
    // Partition 0: leader 1, replicas 1, ISR 1, earliest 0, latest 3, 3 records.
    assert!(
        topic.contains(
            "<tr><td>0</td><td>1</td><td>1</td><td><span class=\"\">1</span></td><td>0</td><td>3</td><td>3</td>"
        ),
        "{topic}"
    );
    assert!(
        topic.contains(
            "<tr><td>1</td><td>1</td><td>1</td><td><span class=\"\">1</span></td><td>0</td><td>0</td><td>0</td>"
        ),
        "{topic}"
    );
    assert!(topic.contains("<td>cleanup.policy</td><td>delete</td><td>default</td>"), "{topic}");

    let browsed = page(http_address, "/topics/orders/messages?partition=0&from=offset&offset=0");
    assert!(browsed.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{browsed}");
    assert!(!browsed.contains("<script>alert"), "a key is never markup");
    assert!(browsed.contains("&lt;i&gt;x&lt;/i&gt;"), "header values are escaped: {browsed}");
    assert!(browsed.contains("<td>2023-11-14T22:13:20.000Z</td>"), "{browsed}");
    assert!(browsed.contains("3 record(s) shown"), "{browsed}");

    let json = page(http_address, "/topics/orders/messages?partition=0&offset=0&format=json&key=script");
    assert!(json.contains("<pre>{\n  &quot;a&quot;: 1,\n  &quot;b&quot;: [\n    true\n  ]\n}</pre>"), "{json}");
    assert!(json.contains("1 record(s) shown"), "{json}");
    let hex = page(http_address, "/topics/orders/messages?partition=0&offset=0&format=hex&header=kind%3Dbin");
    assert!(hex.contains("<pre>01 02 62 79 74 65 73</pre>"), "{hex}");
    assert!(hex.contains("1 record(s) shown"), "{hex}");
    let by_value = page(http_address, "/topics/orders/messages?partition=0&offset=0&value=world");
    assert!(by_value.contains("<pre>plain</pre>") && by_value.contains("1 record(s) shown"), "{by_value}");
    let newest = page(http_address, "/topics/orders/messages?partition=0&limit=1");
    assert!(newest.contains("from offset 2") && newest.contains("<pre>late</pre>"), "{newest}");
    // From 22:13:21 (UTC): the second and third records.
    let by_time =
        page(http_address, "/topics/orders/messages?partition=0&from=timestamp&timestamp=2023-11-14T22%3A13%3A21");
    assert!(by_time.contains("from offset 1") && by_time.contains("2 record(s) shown"), "{by_time}");
    let paged = page(http_address, "/topics/orders/messages?partition=0&offset=0&limit=2");
    assert!(
        paged.contains("id=\"next-page\" href=\"/topics/orders/messages?limit=2&partition=0&from=offset&offset=2\""),
        "{paged}"
    );

    let started = http(http_address, "GET", "/topics/orders/tail", "");
    assert_eq!(started.status, 200);
    let started: Value = serde_json::from_str(&started.body).expect("JSON");
    assert_eq!(started["from"], "0:3,1:0");
    assert_eq!(started["records"].as_array().map(Vec::len), Some(0));
    let tail: Value =
        serde_json::from_str(&http(http_address, "GET", "/topics/orders/tail?from=0:1,1:0", "").body).expect("JSON");
    assert_eq!(tail["from"], "0:3,1:0");
    assert_eq!(tail["records"][0]["key"], "plain");
    assert_eq!(tail["records"][1]["headers"][0], serde_json::json!(["kind", "bin"]));

    let charts = page(http_address, "/charts");
    assert!(charts.contains("data-series=\"kafka_server_brokertopicmetrics_messagesin_total\""), "{charts}");
    let script = http(http_address, "GET", "/console/console.js", "");
    assert_eq!((script.status, script.header("content-type")), (200, Some("text/javascript; charset=utf-8")));
    assert!(script.body.contains("function startTail"));
    let style = http(http_address, "GET", "/console/console.css", "");
    assert_eq!((style.status, style.header("content-type")), (200, Some("text/css; charset=utf-8")));
    assert!(page(http_address, "/groups").contains("<table class=\"groups\">"));

    let missing = http(http_address, "GET", "/topics/nope", "");
    assert_eq!(missing.status, 404, "{}", missing.body);
    assert!(
        missing.body.contains("This server does not host this topic-partition.")
            || missing.body.contains("cannot be found")
    );
}

/// The topic's partition count, or the Metadata error code.
fn partitions(client: &mut Client, topic: &str) -> Result<usize, i16> {
    let topics = Some(vec![MetadataRequestTopic { name: Some(topic.into()), ..Default::default() }]);
    let request = MetadataRequest { topics, allow_auto_topic_creation: false, ..Default::default() };
    let ResponseBody::Metadata(metadata) = client.call(RequestBody::Metadata(request), 12) else { panic!() };
    let found = &metadata.topics[0];
    if found.error_code == 0 { Ok(found.partitions.len()) } else { Err(found.error_code) }
}

/// The group's committed offset of `topic` partition 0.
fn committed(client: &mut Client, group: &str, topic: &str) -> i64 {
    let request = OffsetFetchRequest {
        groups: vec![OffsetFetchRequestGroup { group_id: group.into(), topics: None, ..Default::default() }],
        ..Default::default()
    };
    let ResponseBody::OffsetFetch(answer) = client.call(RequestBody::OffsetFetch(request), 8) else { panic!() };
    let topics = &answer.groups[0].topics;
    let found = topics.iter().find(|t| t.name == topic).expect("the topic's offsets");
    found.partitions.iter().find(|p| p.partition_index == 0).expect("partition 0").committed_offset
}

#[test]
fn forms_create_produce_delete_and_reset() {
    let _serial = common::serial();
    let (server, http_address) = start();
    let mut client = server.connect();

    let created = http(
        http_address,
        "POST",
        "/topics",
        "name=payments&partitions=3&replication_factor=1&configs=retention.ms%3D3600000%0D%0A",
    );
    assert_eq!(
        (created.status, created.header("location")),
        (303, Some("/topics/payments?created=1")),
        "{}",
        created.body
    );
    assert_eq!(partitions(&mut client, "payments"), Ok(3));
    assert!(
        page(http_address, "/topics/payments?created=1")
            .contains("<td><b>retention.ms</b></td><td>3600000</td><td>topic</td>")
    );
    // A form another site's page posts is refused; the console's own page's is not.
    let forged = http_from(http_address, "POST", "/topics", "name=forged", Some("http://evil.example"));
    assert_eq!(forged.status, 403, "{}", forged.body);
    assert_eq!(partitions(&mut client, "forged"), Err(3));
    let own = http_from(http_address, "POST", "/topics", "name=own", Some(&format!("http://{http_address}")));
    assert_eq!(own.status, 303, "{}", own.body);
    let again = http(http_address, "POST", "/topics", "name=payments");
    assert_eq!(again.status, 400, "{}", again.body);
    assert!(again.body.contains("already exists"), "{}", again.body);

    // Partition 0 served (its leader hosts it a moment after the controller commits the topic).
    let pause = std::time::Duration::from_millis(50);
    for attempt in 0.. {
        if client.list_offset("payments", -1) == 0 {
            break;
        }
        assert!(attempt < WAIT_MAX.as_millis() / pause.as_millis(), "partition 0 never served");
        std::thread::sleep(pause);
    }
    let form = "partition=0&key=k1&value=%7B%22x%22%3A1%7D&headers=source%3A+console";
    let produced = http(http_address, "POST", "/topics/payments/produce", form);
    let location = "/topics/payments/messages?partition=0&from=offset&offset=0&produced=0";
    assert_eq!((produced.status, produced.header("location")), (303, Some(location)), "{}", produced.body);
    assert_eq!(fetch_all(&mut client, "payments"), vec!["{\"x\":1}".to_owned()]);
    assert!(page(http_address, location).contains("Produced at offset 0 of partition 0."));
    let second = http(http_address, "POST", "/topics/payments/produce", "partition=0&value=two");
    assert_eq!(
        second.header("location"),
        Some("/topics/payments/messages?partition=0&from=offset&offset=1&produced=1")
    );

    // An empty group with a markup id and a committed offset, as an admin client commits it.
    let group = "g<b>1</b>";
    let find = FindCoordinatorRequest { key_type: 0, coordinator_keys: vec![group.into()], ..Default::default() };
    let commit = OffsetCommitRequest {
        group_id: group.into(),
        generation_id_or_member_epoch: -1,
        topics: vec![OffsetCommitRequestTopic {
            name: "payments".into(),
            partitions: vec![OffsetCommitRequestPartition {
                partition_index: 0,
                committed_offset: 2,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    for attempt in 0.. {
        let _ = client.call(RequestBody::FindCoordinator(find.clone()), 4);
        let ResponseBody::OffsetCommit(answer) = client.call(RequestBody::OffsetCommit(commit.clone()), 8) else {
            panic!()
        };
        if answer.topics[0].partitions[0].error_code == 0 {
            break;
        }
        assert!(attempt < WAIT_MAX.as_millis() / pause.as_millis(), "never committed: {answer:?}");
        std::thread::sleep(pause);
    }
    let groups = page(http_address, "/groups");
    assert!(groups.contains("<a href=\"/groups/g%3Cb%3E1%3C%2Fb%3E\">g&lt;b&gt;1&lt;/b&gt;</a>"), "{groups}");
    let described = page(http_address, "/groups/g%3Cb%3E1%3C%2Fb%3E");
    assert!(described.contains("<title>Group g&lt;b&gt;1&lt;/b&gt; · Strand</title>"), "{described}");
    assert!(described.contains("<td>payments</td><td>0</td><td>2</td><td>2</td><td>0</td>"), "{described}");
    assert!(described.contains("id=\"reset\""), "an empty group can be reset: {described}");
    let reset = http(http_address, "POST", "/groups/g%3Cb%3E1%3C%2Fb%3E/reset", "topic=payments&to=earliest");
    assert_eq!(reset.status, 303, "{}", reset.body);
    assert_eq!(committed(&mut client, group, "payments"), 0);
    let reset = http(http_address, "POST", "/groups/g%3Cb%3E1%3C%2Fb%3E/reset", "topic=payments&to=offset&offset=99");
    assert_eq!(reset.status, 303, "{}", reset.body);
    assert_eq!(committed(&mut client, group, "payments"), 2, "moved to the log end");
    let reset = http(http_address, "POST", "/groups/g%3Cb%3E1%3C%2Fb%3E/reset", "topic=payments&to=offset");
    assert_eq!(reset.status, 400, "{}", reset.body);

    // A group with a member is not reset (Kafka's tool resets only an inactive group).
    let join = JoinGroupRequest {
        group_id: "busy".into(),
        session_timeout_ms: 30_000,
        rebalance_timeout_ms: 30_000,
        protocol_type: "consumer".into(),
        protocols: vec![JoinGroupRequestProtocol {
            name: "range".into(),
            metadata: Bytes::new(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::JoinGroup(joined) = client.call(RequestBody::JoinGroup(join), 3) else { panic!() };
    assert_eq!(joined.error_code, 0, "{joined:?}");
    assert!(!page(http_address, "/groups/busy").contains("id=\"reset\""), "no reset form for an active group");
    let refused = http(http_address, "POST", "/groups/busy/reset", "topic=payments&to=earliest");
    assert_eq!(refused.status, 409, "{}", refused.body);
    assert!(refused.body.contains("can only be reset if the group &#39;busy&#39; is inactive"), "{}", refused.body);

    let refused = http(http_address, "POST", "/topics/payments/delete", "confirm=pay");
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert_eq!(partitions(&mut client, "payments"), Ok(3), "not deleted");
    let deleted = http(http_address, "POST", "/topics/payments/delete", "confirm=payments");
    assert_eq!((deleted.status, deleted.header("location")), (303, Some("/topics")), "{}", deleted.body);
    assert_eq!(partitions(&mut client, "payments"), Err(3));
    let get_delete = http(http_address, "GET", "/topics/payments/delete", "");
    assert_eq!(get_delete.status, 405, "state changes only by POST");
}

/// In a three-node cluster the console of node 1 produces to, reads and lists the offsets of
/// partitions nodes 2 and 3 lead, asking them over Kafka connections.
#[test]
fn pages_reach_partitions_other_nodes_lead() {
    let _serial = common::serial();
    let cluster = Cluster::start_configured(3, 3, &["http.listeners=http://127.0.0.1:0"]);
    let http_address = http_address(cluster.node(1));
    create_assigned_topic(&cluster, 1, "spread", &[&[1], &[2], &[3]], &[]);
    cluster.wait_for_metadata(1, "led every partition where assigned", |m| {
        let found = metadata_partitions(m, "spread");
        found.len() == 3 && found.iter().all(|(index, leader, _, _)| *leader == index + 1)
    });
    for partition in [1, 2] {
        let form = format!("partition={partition}&key=k&value=from-node-1-to-{partition}");
        let pause = std::time::Duration::from_millis(50);
        // The leader hosts its partition a moment after node 1's metadata names it.
        for attempt in 0.. {
            let produced = http(http_address, "POST", "/topics/spread/produce", &form);
            if produced.status == 303 {
                let expected = format!("/topics/spread/messages?partition={partition}&from=offset&offset=0&produced=0");
                assert_eq!(produced.header("location"), Some(expected.as_str()));
                break;
            }
            assert!(attempt < WAIT_MAX.as_millis() / pause.as_millis(), "{}", produced.body);
            std::thread::sleep(pause);
        }
    }
    let topic = page(http_address, "/topics/spread");
    for (partition, leader, latest) in [(0, 1, 0), (1, 2, 1), (2, 3, 1)] {
        let row = format!(
            "<tr><td>{partition}</td><td>{leader}</td><td>{leader}</td><td><span class=\"\">{leader}</span></td><td>0</td><td>{latest}</td>"
        );
        assert!(topic.contains(&row), "{row} in {topic}");
    }
    let browsed = page(http_address, "/topics/spread/messages?partition=2&from=offset&offset=0");
    assert!(browsed.contains("<pre>from-node-1-to-2</pre>") && browsed.contains("1 record(s) shown"), "{browsed}");
    let tail: Value = serde_json::from_str(&http(http_address, "GET", "/topics/spread/tail?from=0:0,1:0,2:0", "").body)
        .expect("JSON");
    assert_eq!(tail["from"], "0:0,1:1,2:1");
    let values: Vec<&str> =
        tail["records"].as_array().expect("records").iter().filter_map(|r| r["value"].as_str()).collect();
    assert_eq!(values, ["from-node-1-to-1", "from-node-1-to-2"]);
    let overview = page(http_address, "/");
    assert!(overview.contains("id=\"broker-count\">3<"), "{overview}");
    assert_eq!(
        overview.matches("<td>voter</td>").count() + overview.matches("<td>leader</td>").count(),
        3,
        "{overview}"
    );
}

/// The console acts as the gateway's caller: an authorizer without ACLs leaves it nothing to see
/// or change, and a node whose every Kafka listener authenticates refuses its pages (401).
#[test]
fn acls_apply_to_the_console_and_authenticating_listeners_close_it() {
    let _serial = common::serial();
    let overrides = [
        "http.listeners=http://127.0.0.1:0",
        "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    ];
    let server = Server::start_with(tempfile::tempdir().expect("temp dir"), &overrides);
    let at = http_address(&server);
    let denied = http(at, "POST", "/topics", "name=denied");
    assert_eq!(denied.status, 403, "{}", denied.body);
    assert!(denied.body.contains("<title>Error 403 · Strand</title>"), "{}", denied.body);
    let topics = page(at, "/topics");
    assert!(topics.contains("<td colspan=\"5\" class=\"none\">None</td>"), "{topics}");
    let overview = page(at, "/");
    assert!(overview.contains("<h2>Controller quorum</h2>\n<p class=\"error\">"), "DescribeQuorum refused: {overview}");
    drop(server);

    let jaas = "listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.\
                PlainLoginModule required username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\";";
    let settings = [
        "http.listeners=http://127.0.0.1:0",
        "listeners=SASL_PLAINTEXT://127.0.0.1:0",
        "advertised.listeners=SASL_PLAINTEXT://127.0.0.1:0",
        "listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
        "inter.broker.listener.name=SASL_PLAINTEXT",
        "sasl.enabled.mechanisms=PLAIN",
        "sasl.mechanism.inter.broker.protocol=PLAIN",
        jaas,
    ];
    let (server, _) = Server::spawn_with(tempfile::tempdir().expect("temp dir"), &settings).ready_on("SASL_PLAINTEXT");
    let at = http_address(&server);
    for path in ["/", "/topics", "/groups", "/topics/t/messages"] {
        let refused = http(at, "GET", path, "");
        assert_eq!(refused.status, 401, "{path}: {}", refused.body);
    }
    assert_eq!(http(at, "POST", "/topics", "name=t").status, 401);
}
