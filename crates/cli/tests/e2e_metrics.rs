//! `GET /metrics` on a real `strand`'s `http.listeners`: the endpoint's text parses as
//! Prometheus's text format (a strict parser below: every sample in a declared family, names and
//! labels well formed, histograms' buckets cumulative and ending in their count), and the series
//! named as the JMX exporter's Kafka rules name Kafka's MBeans count exactly what a client did:
//! records and record bytes produced, by topic up to `http.metrics.topics.max` and over all;
//! bytes fetched; Produce requests and the Produce latency histogram's count; open connections
//! by listener. In a three-node cluster, a leader's under-replicated partitions go 0 → 1 → 0
//! as a follower is killed and restarted. `https://` is refused at start-up, naming the setting.

mod common;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use common::cluster::{Cluster, create_topic_with, leader_of};
use common::{Client, Server, WAIT_MAX, batch, create_topic, fetch_all, produce};

const MESSAGES_IN: &str = "kafka_server_brokertopicmetrics_messagesin_total";
const BYTES_IN: &str = "kafka_server_brokertopicmetrics_bytesin_total";
const BYTES_OUT: &str = "kafka_server_brokertopicmetrics_bytesout_total";
const REQUESTS: &str = "kafka_network_requestmetrics_requests_total";
const TOTAL_TIME_COUNT: &str = "kafka_network_requestmetrics_totaltimems_count";
const UNDER_REPLICATED: &str = "kafka_server_replicamanager_underreplicatedpartitions";
const CONNECTIONS: &str = "kafka_server_socket_server_metrics_connection_count";
const HTTP_ON: &str = "http.listeners=http://127.0.0.1:0";

/// One sample line: its name, labels and value.
#[derive(Debug, Clone, PartialEq)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// A parsed scrape: each family's declared type, and every sample.
#[derive(Debug, Default)]
struct Scrape {
    types: BTreeMap<String, String>,
    samples: Vec<Sample>,
}

impl Scrape {
    /// The sum of `name`'s samples whose labels include every pair of `labels`.
    fn sum(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        self.matching(name, labels).map(|s| s.value).sum()
    }

    /// The value of `name`'s one sample with exactly `labels`, if any.
    fn value(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        let wanted: BTreeMap<String, String> = labels.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect();
        self.samples.iter().find(|s| s.name == name && s.labels == wanted).map(|s| s.value)
    }

    fn matching<'a>(&'a self, name: &'a str, labels: &'a [(&str, &str)]) -> impl Iterator<Item = &'a Sample> {
        self.samples.iter().filter(move |s| {
            s.name == name && labels.iter().all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(v))
        })
    }
}

fn is_name(name: &str, colons: bool) -> bool {
    let mut chars = name.chars();
    let head = |c: char| c.is_ascii_alphabetic() || c == '_' || (colons && c == ':');
    chars.next().is_some_and(head) && chars.all(|c| head(c) || c.is_ascii_digit())
}

fn parse_value(text: &str) -> Result<f64, String> {
    match text {
        "+Inf" => Ok(f64::INFINITY),
        "-Inf" => Ok(f64::NEG_INFINITY),
        "NaN" => Ok(f64::NAN),
        _ => text.parse().map_err(|_| format!("bad value {text:?}")),
    }
}

/// `{a="x",b="y"}`'s labels, escapes (`\\`, `\"`, `\n`) undone; the rest of the line after it.
fn parse_labels(text: &str) -> Result<(BTreeMap<String, String>, &str), String> {
    let mut labels = BTreeMap::new();
    let mut rest = text.strip_prefix('{').ok_or("no {")?;
    loop {
        if let Some(after) = rest.strip_prefix('}') {
            return Ok((labels, after));
        }
        let (name, after) = rest.split_once("=\"").ok_or_else(|| format!("bad label in {text:?}"))?;
        if !is_name(name, false) || labels.contains_key(name) {
            return Err(format!("bad or repeated label name {name:?}"));
        }
        let (mut value, mut chars) = (String::new(), after.char_indices());
        let end = loop {
            match chars.next().ok_or("unterminated label value")? {
                (i, '"') => break i,
                (_, '\\') => match chars.next().ok_or("dangling escape")?.1 {
                    'n' => value.push('\n'),
                    c @ ('\\' | '"') => value.push(c),
                    c => return Err(format!("bad escape \\{c}")),
                },
                (_, c) => value.push(c),
            }
        };
        labels.insert(name.to_owned(), value);
        rest = &after[end + 1..];
        rest = rest.strip_prefix(',').unwrap_or(rest);
    }
}

/// Prometheus's text format 0.0.4, strictly: `# TYPE` once per family, before its samples; every
/// sample in a declared family (`_bucket`, `_sum`, `_count` of a histogram or summary); values
/// are floats; a histogram's buckets per label set are cumulative, end at `le="+Inf"`, and that
/// bucket equals the `_count`.
fn parse(text: &str) -> Result<Scrape, String> {
    let mut scrape = Scrape::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        if let Some(comment) = line.strip_prefix('#') {
            let words: Vec<&str> = comment.trim_start().splitn(3, ' ').collect();
            match words.as_slice() {
                ["TYPE", name, kind] => {
                    let known = ["counter", "gauge", "histogram", "summary", "untyped"].contains(kind);
                    if !is_name(name, true) || !known || scrape.samples.iter().any(|s| family(&s.name) == *name) {
                        return Err(format!("bad TYPE line {line:?}"));
                    }
                    if scrape.types.insert((*name).to_owned(), (*kind).to_owned()).is_some() {
                        return Err(format!("second TYPE for {name}"));
                    }
                }
                ["HELP", name, ..] if !is_name(name, true) => return Err(format!("bad HELP line {line:?}")),
                _ => {}
            }
            continue;
        }
        let name_end = line.find(['{', ' ']).ok_or_else(|| format!("no value in {line:?}"))?;
        let name = &line[..name_end];
        let (labels, rest) = match line[name_end..].starts_with('{') {
            true => parse_labels(&line[name_end..])?,
            false => (BTreeMap::new(), &line[name_end..]),
        };
        let mut fields = rest.split_whitespace();
        let value = parse_value(fields.next().ok_or_else(|| format!("no value in {line:?}"))?)?;
        if let Some(timestamp) = fields.next() {
            timestamp.parse::<i64>().map_err(|_| format!("bad timestamp in {line:?}"))?;
        }
        if !is_name(name, true) || fields.next().is_some() {
            return Err(format!("bad sample line {line:?}"));
        }
        if !scrape.types.contains_key(name) {
            let kind = scrape.types.get(family(name)).ok_or_else(|| format!("{name} has no TYPE"))?;
            if !["histogram", "summary"].contains(&kind.as_str()) {
                return Err(format!("{name}: a suffix of a {kind}"));
            }
        }
        scrape.samples.push(Sample { name: name.to_owned(), labels, value });
    }
    check_histograms(&scrape)?;
    Ok(scrape)
}

/// The family a sample belongs to: its name less a histogram's or summary's suffix.
fn family(name: &str) -> &str {
    ["_bucket", "_sum", "_count"].iter().find_map(|suffix| name.strip_suffix(suffix)).unwrap_or(name)
}

type Buckets = Vec<(f64, f64)>;

fn check_histograms(scrape: &Scrape) -> Result<(), String> {
    for (histogram, _) in scrape.types.iter().filter(|(_, kind)| *kind == "histogram") {
        let bucket = format!("{histogram}_bucket");
        // (le, cumulative count) by the labels other than `le`.
        let mut series: BTreeMap<Vec<(String, String)>, Buckets> = BTreeMap::new();
        for sample in scrape.samples.iter().filter(|s| s.name == bucket) {
            let le = parse_value(sample.labels.get("le").ok_or("a bucket without le")?)?;
            let others = sample.labels.iter().filter(|(k, _)| *k != "le").map(|(k, v)| (k.clone(), v.clone()));
            series.entry(others.collect()).or_default().push((le, sample.value));
        }
        for (labels, mut buckets) in series {
            buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
            let cumulative = buckets.windows(2).all(|w| w[0].1 <= w[1].1);
            let last = buckets.last().copied().unwrap_or((0.0, 0.0));
            let pairs: Vec<(&str, &str)> = labels.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            let count = scrape.value(&format!("{histogram}_count"), &pairs);
            if !cumulative || last.0 != f64::INFINITY || count != Some(last.1) {
                return Err(format!("{histogram}{labels:?}: buckets {buckets:?}, count {count:?}"));
            }
        }
    }
    Ok(())
}

/// The address of `server`'s HTTP listener, from its start-up line (once the log has it: the
/// line may reach the log a moment after the node is seen ready).
fn metrics_address(server: &Server) -> SocketAddr {
    let pause = Duration::from_millis(20);
    for _ in 0..WAIT_MAX.as_millis() / pause.as_millis() {
        let lines = server.log.lock().expect("log").clone();
        let found =
            lines.iter().find_map(|l| l.split("metrics at http://").nth(1)?.split('/').next().map(str::to_owned));
        if let Some(address) = found {
            return address.parse().expect("address");
        }
        std::thread::park_timeout(pause);
    }
    panic!("no metrics address in the start-up line:\n{}", server.log.lock().expect("log").join("\n"))
}

/// `GET path` over HTTP/1.1: the status code, the Content-Type, the body.
#[allow(clippy::disallowed_methods)] // The test's own HTTP client.
fn get(address: SocketAddr, path: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(address).expect("connect to the HTTP listener");
    stream.set_read_timeout(Some(WAIT_MAX)).expect("timeout");
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n").expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read the response");
    let (head, body) = response.split_once("\r\n\r\n").expect("a head and a body");
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status");
    let header = |name: &str| {
        head.lines()
            .find_map(|l| l.split_once(':').filter(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim()))
    };
    assert!(header("transfer-encoding").is_none(), "a chunked answer: {head}");
    let length: Option<usize> = header("content-length").and_then(|v| v.parse().ok());
    assert_eq!(length, Some(body.len()), "{head}");
    (status, header("content-type").unwrap_or_default().to_owned(), body.to_owned())
}

fn scrape(address: SocketAddr) -> Scrape {
    let (status, content_type, body) = get(address, "/metrics");
    assert_eq!(status, 200, "{body}");
    assert_eq!(content_type, "text/plain; version=0.0.4; charset=utf-8");
    parse(&body).unwrap_or_else(|e| panic!("{e}:\n{body}"))
}

/// Scrapes until `done` holds (at most [`WAIT_MAX`]); the scrape it held for.
fn scrape_until(address: SocketAddr, what: &str, done: impl Fn(&Scrape) -> bool) -> Scrape {
    let pause = Duration::from_millis(100);
    for _ in 0..WAIT_MAX.as_millis() / pause.as_millis() {
        let scraped = scrape(address);
        if done(&scraped) {
            return scraped;
        }
        std::thread::park_timeout(pause);
    }
    panic!("never {what} within {WAIT_MAX:?}")
}

/// Produce and fetch as a client sees them: after N records of known bytes in several Produce
/// requests, `messagesin` and `bytesin` equal them over all topics and by topic (for the first
/// two topics only: `http.metrics.topics.max=2`, the third counts only in the totals); fetching
/// a topic back makes its `bytesout` exactly the bytes it holds (batches are stored and served as
/// produced); `requests_total{request="Produce"}` and the Produce histogram's count equal the
/// requests sent; `connection-count` follows clients connecting and leaving; the gauges of a
/// healthy sole node and the process's own series are there.
#[test]
fn metrics_count_what_clients_sent_and_fetched() {
    let _serial = common::serial();
    let data = tempfile::tempdir().expect("temp dir");
    let server = Server::start_with(data, &[HTTP_ON, "http.metrics.topics.max=2"]);
    let http = metrics_address(&server);
    let mut client = server.connect();
    for topic in ["first", "second", "third"] {
        create_topic(&mut client, topic, 1);
    }
    let before = scrape(http);
    assert_eq!(before.sum(MESSAGES_IN, &[]), 0.0);
    assert_eq!(before.value(CONNECTIONS, &[("listener", "PLAINTEXT")]), Some(1.0));

    let mut sent: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut requests = 0;
    for (topic, records) in [("first", 1), ("first", 7), ("second", 3), ("third", 2), ("first", 20), ("second", 1)] {
        let values: Vec<String> = (0..records).map(|i| format!("{topic}-{requests}-{i}")).collect();
        let records_batch = batch(&values.iter().map(String::as_str).collect::<Vec<_>>());
        let bytes = records_batch.len();
        assert_eq!(produce(&mut client, topic, -1, records_batch).0, 0);
        requests += 1;
        let counted = sent.entry(topic).or_default();
        *counted = (counted.0 + records, counted.1 + bytes);
    }
    let after = scrape(http);
    let (all_records, all_bytes) = sent.values().fold((0, 0), |(r, b), (records, bytes)| (r + records, b + bytes));
    assert_eq!(after.value(MESSAGES_IN, &[]), Some(all_records as f64));
    assert_eq!(after.value(BYTES_IN, &[]), Some(all_bytes as f64));
    for topic in ["first", "second"] {
        assert_eq!(after.value(MESSAGES_IN, &[("topic", topic)]), Some(sent[topic].0 as f64), "{topic}");
        assert_eq!(after.value(BYTES_IN, &[("topic", topic)]), Some(sent[topic].1 as f64), "{topic}");
    }
    assert_eq!(after.value(MESSAGES_IN, &[("topic", "third")]), None, "past http.metrics.topics.max");
    assert_eq!(after.sum(REQUESTS, &[("request", "Produce")]), requests as f64);
    assert_eq!(after.value(REQUESTS, &[("request", "Produce"), ("version", "9")]), Some(requests as f64));
    assert_eq!(after.value(TOTAL_TIME_COUNT, &[("request", "Produce")]), Some(requests as f64));
    assert_eq!(after.value(BYTES_OUT, &[("topic", "first")]), Some(0.0));

    assert_eq!(fetch_all(&mut client, "first").len(), sent["first"].0);
    let fetched = scrape(http);
    assert_eq!(fetched.value(BYTES_OUT, &[("topic", "first")]), Some(sent["first"].1 as f64));
    assert_eq!(fetched.value(BYTES_OUT, &[]), Some(sent["first"].1 as f64));
    assert_eq!(fetched.value(BYTES_OUT, &[("topic", "second")]), Some(0.0));
    let fetches = fetched.sum(REQUESTS, &[("request", "Fetch")]);
    assert!(fetches >= 1.0, "no Fetch counted");
    assert_eq!(fetched.value(TOTAL_TIME_COUNT, &[("request", "Fetch")]), Some(fetches));

    let second = server.connect();
    scrape_until(http, "counted the second connection", |s| {
        s.value(CONNECTIONS, &[("listener", "PLAINTEXT")]) == Some(2.0)
    });
    drop(second);
    scrape_until(http, "let the second connection go", |s| {
        s.value(CONNECTIONS, &[("listener", "PLAINTEXT")]) == Some(1.0)
    });

    let gauges = scrape(http);
    assert_eq!(gauges.value("kafka_controller_kafkacontroller_activecontrollercount", &[]), Some(1.0));
    assert_eq!(gauges.value("kafka_controller_kafkacontroller_offlinepartitionscount", &[]), Some(0.0));
    assert_eq!(gauges.value(UNDER_REPLICATED, &[]), Some(0.0));
    assert_eq!(gauges.value("kafka_server_replicamanager_partitioncount", &[]), Some(3.0));
    assert_eq!(gauges.value("kafka_server_replicamanager_leadercount", &[]), Some(3.0));
    assert!(gauges.value("process_resident_memory_bytes", &[]).is_some_and(|v| v > 1e6));
    assert!(gauges.value("process_open_fds", &[]).is_some_and(|v| v > 3.0));
    assert!(gauges.value("process_cpu_seconds_total", &[]).is_some_and(|v| v > 0.0));
    assert_eq!(gauges.types.get(TOTAL_TIME_COUNT.trim_end_matches("_count")).map(String::as_str), Some("histogram"));

    assert_eq!(get(http, "/nothing-here").0, 404);
    drop(client);
}

/// `https://` in `http.listeners` without a key store stops the start with a message naming the
/// settings, as a Kafka SSL listener without one does.
#[test]
fn https_listeners_without_a_key_store_are_refused_at_start_up() {
    let _serial = common::serial();
    let data = tempfile::tempdir().expect("temp dir");
    let log = Server::spawn_with(data, &["http.listeners=https://127.0.0.1:0"]).fails();
    assert!(log.contains("listener.name.http.ssl") && log.contains("ssl.keystore.location"), "{log}");
}

/// In three nodes, a partition's leader reports it under-replicated while a follower is down
/// (fenced, so out of the ISR) and no longer once the follower is back in the ISR; the leader's
/// `isrexpands` counted the follower's return.
#[test]
fn under_replicated_partitions_follow_a_follower_down_and_back() {
    let _serial = common::serial();
    let mut cluster = Cluster::start_configured(3, 3, &[HTTP_ON]);
    create_topic_with(&cluster, 1, "watched", 1, &[]);
    let leader = leader_of(&cluster, 1, "watched", |_, isr| isr.len() == 3);
    let follower = (1..=3).find(|id| *id != leader && Some(*id) != cluster.active_controller()).expect("a follower");
    let http = metrics_address(cluster.node(leader));
    scrape_until(http, "saw the partition fully replicated", |s| s.value(UNDER_REPLICATED, &[]) == Some(0.0));

    cluster.kill(follower);
    scrape_until(http, "saw the partition under-replicated", |s| s.value(UNDER_REPLICATED, &[]) == Some(1.0));
    cluster.restart(follower);
    let healed =
        scrape_until(http, "saw the partition replicated again", |s| s.value(UNDER_REPLICATED, &[]) == Some(0.0));
    assert!(healed.value("kafka_server_replicamanager_isrexpands_total", &[]).is_some_and(|v| v >= 1.0));
    let mut client = Client::connect(cluster.node(leader).address);
    assert_eq!(produce(&mut client, "watched", -1, batch(&["after"])).0, 0);
}
