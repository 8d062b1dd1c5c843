//! End-to-end test scaffolding: a real `strand server` process on a free loopback port with a
//! temporary data directory, and a minimal blocking Kafka client over `strand-protocol` frames.

#![allow(dead_code)]

pub mod cluster;
pub mod dynamic;
pub mod goldens;
pub mod kafka_tool;
pub mod rest;
pub mod tls;
pub mod txn;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use bytes::Bytes;
use strand_protocol::frame::{SIZE_PREFIX_BYTES, decode_response, encode_request};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::messages::{FetchRequest, ProduceRequest};
use strand_protocol::records::{NewRecord, RecordBatchBuilder, RecordBatches};

/// How long a test waits for the server to start or answer before failing.
pub const WAIT_MAX: Duration = Duration::from_secs(30);

/// Multi-process tests run one at a time (2 cores): each test holds this for its whole run.
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERIAL.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A running `strand server`, killed when dropped.
pub struct Server {
    pub child: Child,
    pub address: SocketAddr,
    pub data: tempfile::TempDir,
    /// The server's log lines so far.
    pub log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Server {
    /// Starts a node on an ephemeral loopback port with a fresh data directory.
    pub fn start() -> Server {
        let data = tempfile::tempdir().expect("temp dir");
        Server::start_in(data)
    }

    /// Starts a node over an existing data directory (a restart).
    pub fn start_in(data: tempfile::TempDir) -> Server {
        Server::start_with(data, &[])
    }

    /// Starts a node over `data` with extra `key=value` overrides.
    pub fn start_with(data: tempfile::TempDir, overrides: &[&str]) -> Server {
        Server::spawn_with(data, overrides).ready()
    }

    /// Starts a node over `data` without waiting for it to serve (a cluster's nodes serve only
    /// once a majority of voters runs).
    pub fn spawn_with(data: tempfile::TempDir, overrides: &[&str]) -> Starting {
        Server::spawn_from(None, data, overrides)
    }

    /// Starts a node from a `server.properties` file (if any), over `data`, with overrides on top.
    pub fn spawn_from(file: Option<&std::path::Path>, data: tempfile::TempDir, overrides: &[&str]) -> Starting {
        Server::spawn_under(&[], file, data, overrides)
    }

    /// [`Server::spawn_from`], run through `wrapper` (a program and its arguments, such as
    /// `prlimit --nofile=500:500 --`) when it is not empty.
    pub fn spawn_under(
        wrapper: &[&str],
        file: Option<&std::path::Path>,
        data: tempfile::TempDir,
        overrides: &[&str],
    ) -> Starting {
        Server::spawn_full(wrapper, file, data, overrides, &[])
    }

    /// [`Server::spawn_with`], with environment variables set for the process (a test build of
    /// `strand` reads `FAILPOINTS` and `STRAND_FAILPOINTS_FILE`).
    pub fn spawn_with_env(data: tempfile::TempDir, overrides: &[&str], envs: &[(&str, String)]) -> Starting {
        Server::spawn_full(&[], None, data, overrides, envs)
    }

    fn spawn_full(
        wrapper: &[&str],
        file: Option<&std::path::Path>,
        data: tempfile::TempDir,
        overrides: &[&str],
        envs: &[(&str, String)],
    ) -> Starting {
        let dir = data.path().display().to_string();
        let strand = env!("CARGO_BIN_EXE_strand");
        let mut command = match wrapper.split_first() {
            Some((program, args)) => {
                let mut command = Command::new(program);
                command.args(args).arg(strand);
                command
            }
            None => Command::new(strand),
        };
        command.arg("server");
        if let Some(file) = file {
            command.arg(file);
        }
        let mut child = command
            .args(["--override", &format!("log.dirs={dir}")])
            .args(["--override", "listeners=PLAINTEXT://127.0.0.1:0"])
            .args(["--override", "advertised.listeners=PLAINTEXT://127.0.0.1:0"])
            // Off (the embedded defaults serve localhost:8080); `e2e_metrics` turns it on.
            .args(["--override", "http.listeners="])
            .args(overrides.iter().flat_map(|o| ["--override", o]))
            // The default filter: tests see the lines an operator sees.
            .env_remove("RUST_LOG")
            .envs(envs.iter().map(|(key, value)| (key, value)))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn strand");
        let stderr = child.stderr.take().expect("stderr");
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let lines = log.clone();
        let reader = std::thread::spawn(move || {
            let mut stderr = BufReader::new(stderr);
            let mut raw = Vec::new();
            // Lossy, line by line: a stray byte must not end the capture early.
            while stderr.read_until(b'\n', &mut raw).is_ok_and(|n| n > 0) {
                let line = String::from_utf8_lossy(&raw).trim_end().to_owned();
                raw.clear();
                let _ = tx.send(line.clone());
                if let Ok(mut lines) = lines.lock() {
                    lines.push(line);
                }
            }
        });
        Starting { child, data, log, lines: rx, reader }
    }

    pub fn connect(&self) -> Client {
        Client::connect(self.address)
    }

    /// The address of listener `name` (`SASL_PLAINTEXT`, ...), from its "listening on" line.
    pub fn listener_address(&self, name: &str) -> SocketAddr {
        self.logged_address(&format!("listening on {name}://"))
    }

    /// The address the node logged after `prefix` (such as its CONTROLLER listener's, after
    /// "controller listener on "), once it has.
    pub fn logged_address(&self, prefix: &str) -> SocketAddr {
        let pause = std::time::Duration::from_millis(20);
        for _ in 0..WAIT_MAX.as_millis() / pause.as_millis() {
            let found = self.log.lock().ok().and_then(|lines| {
                lines.iter().find_map(|line| Some(line.split(&prefix).nth(1)?.split(',').next()?.trim().to_owned()))
            });
            if let Some(address) = found {
                return address.parse().expect("listener address");
            }
            std::thread::park_timeout(pause);
        }
        panic!("no address after {prefix:?} in the log")
    }

    /// `kill -9`: no flush, no checkpoint, no clean-shutdown marker. Returns the data directory.
    pub fn kill(mut self) -> tempfile::TempDir {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let data = tempfile::tempdir().expect("placeholder");
        std::mem::replace(&mut self.data, data)
    }

    /// SIGTERM, then waits (at most [`WAIT_MAX`]) for a clean exit. Returns the data directory.
    pub fn terminate(mut self) -> tempfile::TempDir {
        terminate_cleanly(&mut self.child, &self.log);
        let data = tempfile::tempdir().expect("placeholder");
        std::mem::replace(&mut self.data, data)
    }

    /// The server's resident memory in KiB (Linux).
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }
}

/// SIGTERM `child`, then waits (at most [`WAIT_MAX`]) for it to exit, which must be cleanly.
fn terminate_cleanly(child: &mut Child, log: &std::sync::Mutex<Vec<String>>) {
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    let pause = Duration::from_millis(50);
    let mut status = None;
    for _ in 0..WAIT_MAX.as_millis() / pause.as_millis() {
        status = child.try_wait().expect("wait");
        if status.is_some() {
            break;
        }
        std::thread::sleep(pause);
    }
    let Some(status) = status else {
        let _ = child.kill();
        let _ = child.wait();
        let log = log.lock().map(|l| l.join("\n")).unwrap_or_default();
        panic!("strand did not exit within {WAIT_MAX:?} of SIGTERM:\n{log}")
    };
    let log = log.lock().map(|l| l.join("\n")).unwrap_or_default();
    assert!(status.success(), "strand exited with {status}:\n{log}");
}

/// A node that was spawned and has not yet said where it serves.
pub struct Starting {
    child: Child,
    data: tempfile::TempDir,
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    /// Every log line, as it comes.
    lines: std::sync::mpsc::Receiver<String>,
    reader: std::thread::JoinHandle<()>,
}

impl Starting {
    /// Waits until the node serves clients (at most [`WAIT_MAX`]).
    pub fn ready(self) -> Server {
        let line = |l: &str| l.split("PLAINTEXT://").nth(1).and_then(|rest| rest.split(',').next()).map(str::to_owned);
        let (mut server, address) = self.wait_for(line);
        server.address = address.trim().parse().expect("listener address");
        server
    }

    /// Waits until the node serves clients on its listener `name` (an `SSL` one, say), and
    /// returns it with that listener's address.
    pub fn ready_on(self, name: &str) -> (Server, SocketAddr) {
        let marker = format!(" on {name}://");
        let line = |l: &str| l.split(marker.as_str()).nth(1).and_then(|rest| rest.split(',').next()).map(str::to_owned);
        let (mut server, address) = self.wait_for(line);
        server.address = address.trim().parse().expect("listener address");
        let address = server.address;
        (server, address)
    }

    /// Waits until a node with the controller role only runs (it serves no clients: the
    /// server's address is unspecified).
    pub fn controller_ready(self) -> Server {
        self.wait_for(|l| l.contains("controller only").then_some(())).0
    }

    /// Waits (at most [`WAIT_MAX`]) for a log line holding `marker`, then stops the node with
    /// SIGTERM, which it must obey at once and cleanly, before serving; its log.
    pub fn terminate_after(self, marker: &str) -> String {
        let Starting { mut child, log, lines, reader, .. } = self;
        let pause = std::time::Duration::from_millis(100);
        let seen = (0..WAIT_MAX.as_millis() / pause.as_millis())
            .any(|_| lines.recv_timeout(pause).is_ok_and(|line| line.contains(marker)));
        if !seen {
            let _ = child.kill();
            let _ = child.wait();
            let log = log.lock().map(|l| l.join("\n")).unwrap_or_default();
            panic!("no log line with {marker:?} within {WAIT_MAX:?}:\n{log}");
        }
        terminate_cleanly(&mut child, &log);
        let _ = reader.join();
        log.lock().map(|l| l.join("\n")).unwrap_or_default()
    }

    /// Waits (at most [`WAIT_MAX`]) for the node to stop without serving; its log.
    pub fn fails(self) -> String {
        let Starting { mut child, log, lines, reader, .. } = self;
        let pause = std::time::Duration::from_millis(100);
        for _ in 0..WAIT_MAX.as_millis() / pause.as_millis() {
            match lines.recv_timeout(pause) {
                Ok(_) | Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        let _ = child.kill();
        let status = child.wait().expect("strand's exit status");
        let _ = reader.join();
        assert!(!status.success(), "strand exited successfully");
        log.lock().map(|l| l.join("\n")).unwrap_or_default()
    }

    /// Waits (at most [`WAIT_MAX`]) for a log line `found` accepts.
    fn wait_for<T>(self, found: impl Fn(&str) -> Option<T>) -> (Server, T) {
        let Starting { mut child, data, log, lines, reader } = self;
        let deadline = std::time::Duration::from_millis(100);
        for _ in 0..WAIT_MAX.as_millis() / deadline.as_millis() {
            match lines.recv_timeout(deadline) {
                Ok(line) => {
                    if let Some(value) = found(&line) {
                        let address = SocketAddr::from(([0, 0, 0, 0], 0));
                        return (Server { child, address, data, log }, value);
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        let _ = child.kill();
        let status = child.wait().map(|s| s.to_string()).unwrap_or_default();
        let _ = reader.join();
        let log = log.lock().map(|l| l.join("\n")).unwrap_or_default();
        panic!("strand did not start ({status}):\n{log}")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a [`Client`] talks over: a TCP socket, or TLS over one.
pub trait Transport: Read + Write + Send {}

impl<T: Read + Write + Send> Transport for T {}

/// A blocking connection that sends requests and reads their responses in order.
pub struct Client {
    pub stream: Box<dyn Transport>,
    correlation_id: i32,
}

impl Client {
    #[allow(clippy::disallowed_methods)] // End-to-end tests are clients of a real server.
    pub fn connect(address: SocketAddr) -> Client {
        let stream = TcpStream::connect(address).expect("connect");
        stream.set_read_timeout(Some(WAIT_MAX)).expect("timeout");
        Client::over(stream)
    }

    /// A client over an open `stream` (TLS, say).
    pub fn over(stream: impl Transport + 'static) -> Client {
        Client { stream: Box::new(stream), correlation_id: 0 }
    }

    /// Sends `body` at `version` and returns the response body, or why there is none (the
    /// connection failed or closed).
    pub fn try_call(&mut self, body: RequestBody, version: i16) -> Result<ResponseBody, String> {
        self.correlation_id += 1;
        let api = body.api_key();
        let frame = encode_request(self.correlation_id, Some("e2e"), &body, version).expect("encode");
        self.stream.write_all(&frame).map_err(|e| format!("send: {e}"))?;
        self.stream.flush().map_err(|e| format!("flush: {e}"))?;
        let mut prefix = [0u8; SIZE_PREFIX_BYTES];
        self.stream.read_exact(&mut prefix).map_err(|e| format!("read: {e}"))?;
        let mut response = vec![0u8; i32::from_be_bytes(prefix) as usize];
        self.stream.read_exact(&mut response).map_err(|e| format!("read: {e}"))?;
        let (header, body) = decode_response(api, version, Bytes::from(response)).map_err(|e| e.to_string())?;
        assert_eq!(header.correlation_id, self.correlation_id);
        Ok(body)
    }

    /// Sends `body` at `version` and returns the response body.
    pub fn call(&mut self, body: RequestBody, version: i16) -> ResponseBody {
        self.correlation_id += 1;
        let api = body.api_key();
        let frame = encode_request(self.correlation_id, Some("e2e"), &body, version).expect("encode");
        self.stream.write_all(&frame).expect("send");
        let response = self.read_frame().expect("a response");
        let (header, body) = decode_response(api, version, response).expect("decode");
        assert_eq!(header.correlation_id, self.correlation_id);
        body
    }

    /// ListOffsets for partition 0 of `topic` at `timestamp` (-1 latest, -2 earliest).
    pub fn list_offset(&mut self, topic: &str, timestamp: i64) -> i64 {
        use strand_protocol::messages::ListOffsetsRequest;
        use strand_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
        let request = ListOffsetsRequest {
            replica_id: strand_base::BrokerId(-1),
            topics: vec![ListOffsetsTopic {
                name: topic.into(),
                partitions: vec![ListOffsetsPartition { partition_index: 0, timestamp, ..Default::default() }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let ResponseBody::ListOffsets(response) = self.call(RequestBody::ListOffsets(request), 7) else {
            panic!("not a ListOffsets response")
        };
        response.topics[0].partitions[0].offset
    }

    /// Sends raw bytes.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("send");
    }

    /// Reads one frame without its size prefix; `None` if the server closed the connection.
    pub fn read_frame(&mut self) -> Option<Bytes> {
        let mut prefix = [0u8; SIZE_PREFIX_BYTES];
        self.stream.read_exact(&mut prefix).ok()?;
        let size = i32::from_be_bytes(prefix) as usize;
        let mut frame = vec![0u8; size];
        self.stream.read_exact(&mut frame).ok()?;
        Some(Bytes::from(frame))
    }

    /// Whether the server closed the connection (a read returns end of file).
    pub fn is_closed_by_server(&mut self) -> bool {
        let mut byte = [0u8; 1];
        matches!(self.stream.read(&mut byte), Ok(0) | Err(_))
    }
}

/// Creates `name` with `partitions` partitions (replication factor 1) and checks it succeeded.
pub fn create_topic(client: &mut Client, name: &str, partitions: i32) {
    create_replicated_topic(client, name, partitions, 1);
}

/// Creates `name` with `partitions` partitions of `replicas` replicas each and checks it succeeded.
pub fn create_replicated_topic(client: &mut Client, name: &str, partitions: i32, replicas: i16) {
    use strand_protocol::messages::CreateTopicsRequest;
    use strand_protocol::messages::create_topics_request::CreatableTopic;
    let request = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: name.into(),
            num_partitions: partitions,
            replication_factor: replicas,
            ..Default::default()
        }],
        timeout_ms: 10_000,
        ..Default::default()
    };
    let ResponseBody::CreateTopics(response) = client.call(RequestBody::CreateTopics(request), 7) else { panic!() };
    assert_eq!(response.topics[0].error_code, 0, "{:?}", response.topics[0]);
}

/// Creates one LITERAL ALLOW binding, any host: `principal` may do `operation` (Kafka's code:
/// 2 ALL, 3 READ, ...) on the resource of type `resource_type` (2 topic, 5 transactional id, ...)
/// named `name`. The result's error code.
pub fn create_acl(client: &mut Client, resource_type: i8, name: &str, principal: &str, operation: i8) -> i16 {
    use strand_protocol::messages::CreateAclsRequest;
    use strand_protocol::messages::create_acls_request::AclCreation;
    let creation = AclCreation {
        resource_type,
        resource_name: name.to_owned(),
        resource_pattern_type: 3,
        principal: principal.to_owned(),
        host: "*".to_owned(),
        operation,
        permission_type: 3,
        ..Default::default()
    };
    let request = CreateAclsRequest { creations: vec![creation], ..Default::default() };
    let ResponseBody::CreateAcls(response) = client.call(RequestBody::CreateAcls(request), 3) else {
        panic!("not a CreateAcls response")
    };
    response.results[0].error_code
}

/// One uncompressed batch holding `values`.
pub fn batch(values: &[&str]) -> Bytes {
    let mut builder = RecordBatchBuilder::new();
    for value in values {
        builder
            .append(&NewRecord {
                timestamp_ms: 1_700_000_000_000,
                key: None,
                value: Some(value.as_bytes()),
                headers: &[],
            })
            .expect("record");
    }
    builder.build().expect("batch")
}

/// Produces one batch to partition 0; returns (error code, base offset).
pub fn produce(client: &mut Client, topic: &str, acks: i16, records: Bytes) -> (i16, i64) {
    let request = ProduceRequest {
        acks,
        timeout_ms: 10_000,
        topic_data: vec![TopicProduceData {
            name: topic.into(),
            partition_data: vec![PartitionProduceData { index: 0, records: Some(records), ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::Produce(response) = client.call(RequestBody::Produce(request), 9) else { panic!() };
    let partition = &response.responses[0].partition_responses[0];
    (partition.error_code, partition.base_offset)
}

/// Produces `values` to partition 0 of `topic` through `client`'s node once it leads the
/// partition (its metadata may reach it a moment after another node's lists the topic): (error
/// code, base offset) of the first answer that is neither UNKNOWN_TOPIC_OR_PARTITION nor
/// NOT_LEADER_OR_FOLLOWER, or of the last try after [`WAIT_MAX`].
pub fn produce_when_led(client: &mut Client, topic: &str, acks: i16, values: &[&str]) -> (i16, i64) {
    const NOT_YET: [i16; 2] = [3, 6];
    let pause = Duration::from_millis(100);
    let mut answer = produce(client, topic, acks, batch(values));
    for _ in 0..WAIT_MAX.as_millis() / pause.as_millis() {
        if !NOT_YET.contains(&answer.0) {
            break;
        }
        std::thread::sleep(pause);
        answer = produce(client, topic, acks, batch(values));
    }
    answer
}

/// Every record value in partition 0 below its high watermark, in offset order.
pub fn fetch_all(client: &mut Client, topic: &str) -> Vec<String> {
    let request = FetchRequest {
        max_wait_ms: 0,
        min_bytes: 0,
        max_bytes: 50 << 20,
        topics: vec![FetchTopic {
            topic: topic.into(),
            partitions: vec![FetchPartition {
                partition: 0,
                fetch_offset: 0,
                partition_max_bytes: 50 << 20,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::Fetch(response) = client.call(RequestBody::Fetch(request), 12) else { panic!() };
    let partition = &response.responses[0].partitions[0];
    assert_eq!(partition.error_code, 0);
    let mut values = Vec::new();
    let records = partition.records.as_ref().and_then(|r| r.as_bytes()).cloned().unwrap_or_default();
    for batch in RecordBatches::new(records) {
        let batch = batch.expect("whole batch");
        for record in batch.records().expect("records").iter() {
            let record = record.expect("record");
            values.push(String::from_utf8_lossy(record.value().unwrap_or_default()).into_owned());
        }
    }
    values
}

/// A TCP proxy on a loopback port to `target`, that a test can cut (a network partition): while
/// cut, it closes every connection through it and every new one at once, so nothing passes
/// either way; healed, it forwards again.
pub struct Proxy {
    pub port: u16,
    cut: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Bumped on every cut, so pumps of older connections stop.
    generation: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Proxy {
    #[allow(clippy::disallowed_methods)] // The test's own loopback proxy.
    pub fn start(target: SocketAddr) -> Proxy {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind proxy");
        let port = listener.local_addr().expect("proxy address").port();
        let cut = Arc::new(AtomicBool::new(false));
        let generation = Arc::new(AtomicU64::new(0));
        let (accept_cut, accept_generation) = (cut.clone(), generation.clone());
        std::thread::spawn(move || {
            for inbound in listener.incoming() {
                let Ok(inbound) = inbound else { continue };
                if accept_cut.load(Ordering::SeqCst) {
                    continue; // dropped: closed at once
                }
                let Ok(outbound) = TcpStream::connect(target) else { continue };
                let born = accept_generation.load(Ordering::SeqCst);
                for (from, to) in [(&inbound, &outbound), (&outbound, &inbound)] {
                    let (Ok(mut from), Ok(mut to)) = (from.try_clone(), to.try_clone()) else { continue };
                    let (cut, generation) = (accept_cut.clone(), accept_generation.clone());
                    std::thread::spawn(move || {
                        let _ = from.set_read_timeout(Some(Duration::from_millis(50)));
                        let mut buf = [0u8; 64 * 1024];
                        loop {
                            if cut.load(Ordering::SeqCst) || generation.load(Ordering::SeqCst) != born {
                                break;
                            }
                            match from.read(&mut buf) {
                                Ok(0) => break,
                                Ok(n) => {
                                    if to.write_all(&buf[..n]).is_err() {
                                        break;
                                    }
                                }
                                Err(e)
                                    if matches!(
                                        e.kind(),
                                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                                    ) => {}
                                Err(_) => break,
                            }
                        }
                        let _ = from.shutdown(std::net::Shutdown::Both);
                        let _ = to.shutdown(std::net::Shutdown::Both);
                    });
                }
            }
        });
        Proxy { port, cut, generation }
    }

    /// Drops everything through the proxy until [`Proxy::heal`].
    pub fn cut(&self) {
        self.cut.store(true, std::sync::atomic::Ordering::SeqCst);
        self.generation.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn heal(&self) {
        self.cut.store(false, std::sync::atomic::Ordering::SeqCst);
    }
}

/// An ApiVersions request as a client sends it from v3: naming its software (KIP-511; Kafka
/// answers INVALID_REQUEST to one that does not).
pub fn api_versions_request() -> strand_protocol::messages::ApiVersionsRequest {
    strand_protocol::messages::ApiVersionsRequest {
        client_software_name: "strand-e2e".to_owned(),
        client_software_version: "1.0".to_owned(),
        ..Default::default()
    }
}
