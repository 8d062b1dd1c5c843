//! The HTTP side of the `e2e_rest*` tests: a node with the gateway on, a minimal HTTP/1.1 client
//! and Confluent's answers read back, and what a Kafka client sees of the same node.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

use serde_json::Value;
use strand_protocol::messages::MetadataRequest;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::metadata_request::MetadataRequestTopic;

use super::{Client, Server, WAIT_MAX};

pub const HTTP_ON: &str = "http.listeners=http://127.0.0.1:0";

/// The time on the monotonic clock.
pub fn now() -> std::time::Duration {
    use strand_base::Clock;
    std::time::Duration::from_nanos(strand_base::SystemClock.monotonic_ns())
}

/// A node with the gateway on, and its HTTP address.
pub fn start(overrides: &[&str]) -> (Server, SocketAddr) {
    let mut all = vec![HTTP_ON, "group.initial.rebalance.delay.ms=0"];
    all.extend_from_slice(overrides);
    let server = Server::start_with(tempfile::tempdir().expect("temp dir"), &all);
    let address = http_address(&server);
    (server, address)
}

/// The HTTP address from the start-up line (once the log has it: the line may reach the log a
/// moment after the node is seen ready).
pub fn http_address(server: &Server) -> SocketAddr {
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

/// An HTTP answer: status, head, body.
pub struct Answer {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {} {}", self.status, self.body))
    }

    /// The concatenated JSON values of a produce answer.
    pub fn values(&self) -> Vec<Value> {
        let values = serde_json::Deserializer::from_str(&self.body).into_iter::<Value>();
        values.collect::<Result<_, _>>().unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    /// Asserts Confluent's error JSON with `status` and `code`; its message.
    pub fn error(&self, status: u16, code: u64) -> String {
        let json = self.json();
        assert_eq!((self.status, json["error_code"].as_u64()), (status, Some(code)), "{}", self.body);
        json["message"].as_str().unwrap_or_else(|| panic!("no message: {}", self.body)).to_owned()
    }
}

/// Undoes chunked transfer coding.
pub fn dechunk(mut body: &str) -> String {
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

/// One HTTP/1.1 request with `body` (JSON when not empty, or `content_type`).
pub fn http(address: SocketAddr, method: &str, path: &str, body: &str, content_type: Option<&str>) -> Answer {
    http_as(None, address, method, path, body, content_type)
}

/// [`http`] with an `Authorization` header when `authorization` is set.
#[allow(clippy::disallowed_methods)] // The test's own HTTP client.
pub fn http_as(
    authorization: Option<&str>,
    address: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
    content_type: Option<&str>,
) -> Answer {
    let mut stream = TcpStream::connect(address).expect("connect to the HTTP listener");
    stream.set_read_timeout(Some(WAIT_MAX)).expect("timeout");
    let kind = content_type.or((!body.is_empty()).then_some("application/json"));
    let kind = kind.map(|k| format!("Content-Type: {k}\r\n")).unwrap_or_default();
    let auth = authorization.map(|a| format!("Authorization: {a}\r\n")).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\n{auth}{kind}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(body.as_bytes())).expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read the response");
    answer_of(&response)
}

/// A response's status, head and (dechunked) body.
pub fn answer_of(response: &str) -> Answer {
    let (head, body) = response.split_once("\r\n\r\n").expect("a head and a body");
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status");
    let chunked = head.to_ascii_lowercase().contains("transfer-encoding: chunked");
    let body = if chunked { dechunk(body) } else { body.to_owned() };
    Answer { status, head: head.to_owned(), body }
}

pub fn get(address: SocketAddr, path: &str) -> Answer {
    http(address, "GET", path, "", None)
}

/// The cluster id and the Kafka listener's port, as a Kafka client sees them.
pub fn kafka_view(client: &mut Client) -> (String, i32) {
    let request = MetadataRequest { topics: Some(vec![]), ..Default::default() };
    let ResponseBody::Metadata(metadata) = client.call(RequestBody::Metadata(request), 12) else { panic!() };
    (metadata.cluster_id.expect("a cluster id"), metadata.brokers[0].port)
}

/// A topic's partition count as Kafka's Metadata says, or its error code.
pub fn kafka_partitions(client: &mut Client, topic: &str) -> Result<usize, i16> {
    let topics = Some(vec![MetadataRequestTopic { name: Some(topic.into()), ..Default::default() }]);
    let request = MetadataRequest { topics, allow_auto_topic_creation: false, ..Default::default() };
    let ResponseBody::Metadata(metadata) = client.call(RequestBody::Metadata(request), 12) else { panic!() };
    let found = &metadata.topics[0];
    if found.error_code == 0 { Ok(found.partitions.len()) } else { Err(found.error_code) }
}
