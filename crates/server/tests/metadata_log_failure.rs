//! A node whose metadata log fails stops (Kafka halts when its metadata log dir fails): a real
//! node in process (`node::run_until`) over temporary dirs, a client over TCP, and the
//! `log::sync_metadata` failpoint (the `fail` crate, compiled into tests only) failing every
//! sync of the metadata log's files while the data logs' syncs work. The node must return
//! [`NodeError::MetadataLogFailed`] (the binary exits 1 on it) instead of answering from metadata
//! that can no longer change, acknowledge nothing after the failure, and start again over the
//! same dirs.

use std::future::Future;
use std::path::Path;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use strand_base::Uuid;
use strand_log::dir::MetaProperties;
use strand_metadata::quorum::QuorumError;
use strand_protocol::frame::{decode_response, encode_request};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::CreatableTopic;
use strand_protocol::messages::{CreateTopicsRequest, MetadataRequest};
use strand_server::config::ServerConfig;
use strand_server::node::{NodeError, run_until};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

const WAIT: Duration = Duration::from_secs(30);
const CLUSTER_ID: &str = "MkU3OEVBNTcwNTJENDM2Qg";

async fn bounded<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(WAIT, future).await.unwrap_or_else(|_| panic!("{what} took more than {WAIT:?}"))
}

/// A free loopback port (the node binds it again at once).
#[allow(clippy::disallowed_methods)] // Finding a port before the node binds it.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("address").port()
}

/// A one-node cluster over `data`, formatted as `strand server` formats it on a first start.
fn config(data: &Path, port: u16) -> ServerConfig {
    let overrides: Vec<(String, String)> = [
        ("log.dirs", data.display().to_string()),
        ("listeners", format!("PLAINTEXT://127.0.0.1:{port}")),
        ("cluster.id", CLUSTER_ID.to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let config = ServerConfig::load(None, &overrides).expect("config");
    if !data.join("meta.properties").exists() {
        std::fs::create_dir_all(data).expect("data dir");
        MetaProperties::v1(CLUSTER_ID, 1, Uuid([0x5a; 16])).write(data).expect("meta.properties");
    }
    config
}

/// A Kafka client of one connection.
struct Client {
    stream: TcpStream,
    correlation_id: i32,
}

impl Client {
    async fn call(&mut self, body: RequestBody, version: i16) -> std::io::Result<ResponseBody> {
        self.correlation_id += 1;
        let api = body.api_key();
        let frame = encode_request(self.correlation_id, Some("test"), &body, version).expect("encode");
        self.stream.write_all(&frame).await?;
        let size = self.stream.read_i32().await?;
        let mut response = BytesMut::zeroed(usize::try_from(size).expect("a size"));
        self.stream.read_exact(&mut response).await?;
        let (_, body) = decode_response(api, version, Bytes::from(response)).expect("decode");
        Ok(body)
    }

    async fn topics(&mut self) -> std::io::Result<Vec<String>> {
        let request = MetadataRequest { topics: None, ..Default::default() };
        let ResponseBody::Metadata(response) = self.call(RequestBody::Metadata(request), 12).await? else {
            panic!("not a Metadata response")
        };
        Ok(response.topics.into_iter().filter_map(|t| t.name).collect())
    }

    /// CreateTopics of one partition: its error code.
    async fn create_topic(&mut self, name: &str) -> std::io::Result<i16> {
        let topic =
            CreatableTopic { name: name.into(), num_partitions: 1, replication_factor: 1, ..Default::default() };
        let request = CreateTopicsRequest { topics: vec![topic], timeout_ms: 20_000, ..Default::default() };
        let ResponseBody::CreateTopics(response) = self.call(RequestBody::CreateTopics(request), 7).await? else {
            panic!("not a CreateTopics response")
        };
        Ok(response.topics.first().map_or(-1, |t| t.error_code))
    }
}

/// Connects once the node serves (its Metadata answers).
async fn serving(port: u16) -> Client {
    bounded("the node serving", async {
        loop {
            if let Ok(stream) = TcpStream::connect(("127.0.0.1", port)).await {
                let mut client = Client { stream, correlation_id: 0 };
                if client.topics().await.is_ok() {
                    return client;
                }
            }
            // The node is starting: nothing to wait on from outside but its port.
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
}

/// Every sync of the metadata log's files fails while it lives.
struct FailingMetadataSyncs;

impl FailingMetadataSyncs {
    fn start() -> FailingMetadataSyncs {
        fail::cfg("log::sync_metadata", "return").expect("failpoint");
        FailingMetadataSyncs
    }
}

impl Drop for FailingMetadataSyncs {
    fn drop(&mut self) {
        fail::remove("log::sync_metadata");
    }
}

/// A CreateTopics whose metadata cannot be synced: the node stops with the error naming the
/// metadata log's directory (before the fix it kept running with Raft stopped, answering from
/// metadata that could never change), the topic is not acknowledged, and the node starts again
/// over the same dirs with what was committed before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_metadata_log_sync_stops_the_node_and_a_restart_recovers() {
    let root = tempfile::tempdir().expect("temp dir");
    let data = root.path().join("data");
    let port = free_port();
    let (_stop, stopped) = oneshot::channel::<()>();
    let node = tokio::spawn(run_until(config(&data, port), async move {
        let _ = stopped.await;
        Ok(())
    }));
    let mut client = serving(port).await;
    assert_eq!(bounded("CreateTopics", client.create_topic("before")).await.expect("answered"), 0);

    let failing = FailingMetadataSyncs::start();
    let creating = tokio::spawn(async move { client.create_topic("during").await });
    let stopped = match tokio::time::timeout(WAIT, node).await {
        Ok(stopped) => stopped.expect("the node's task"),
        Err(_) => panic!("the node kept running for {WAIT:?} after its metadata log failed"),
    };
    drop(failing);
    match stopped {
        Err(NodeError::MetadataLogFailed(QuorumError::Failed { dir, reason })) => {
            assert_eq!(dir, data.join("__cluster_metadata-0"));
            assert!(reason.contains("injected fsync failure"), "{reason}");
        }
        other => panic!("the node stopped with {other:?}"),
    }
    let answer = bounded("the CreateTopics answer", creating).await.expect("the client's task");
    assert!(!matches!(answer, Ok(0)), "a topic whose metadata was not synced was acknowledged");

    let (stop, stopped) = oneshot::channel::<()>();
    let node = tokio::spawn(run_until(config(&data, port), async move {
        let _ = stopped.await;
        Ok(())
    }));
    let mut client = serving(port).await;
    let topics = bounded("Metadata", client.topics()).await.expect("answered");
    assert!(topics.iter().any(|t| t == "before"), "{topics:?}");
    drop(client);
    let _ = stop.send(());
    bounded("a clean stop", node).await.expect("the node's task").expect("stops cleanly");
}
