//! An in-process cluster: replica managers in temporary directories, wired by an in-memory
//! [`ReplicaTransport`] (every Fetch encoded and decoded at `REPLICA_FETCH_VERSION`, as a socket
//! would carry it) and a fake controller behind the [`IsrChannel`] that decides AlterPartition
//! with the controller's epoch checks and publishes partition states to the live nodes, as the
//! metadata log would. Time is a [`ManualClock`] the test moves; a node can be cut off (its
//! fetches, the fetches to it and metadata for it fail) and healed.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use strand_base::testkit::ManualClock;
use strand_base::{BrokerId, Offset, TopicPartition, Uuid};
use strand_log::log::ValidatedBatch;
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{LogConfig, LogManager, NodeIdentity};
use strand_protocol::Message;
use strand_protocol::codec::Records;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{FetchRequest, FetchResponse};
use strand_protocol::records::{NewRecord, RecordBatchBuilder, RecordBatches};
use strand_replication::{
    Acks, AlterPartitionItem, BoxFuture, BrokerStatus, IsrChannel, LeaderAndIsr, PartitionState, PartitionStatus,
    REPLICA_FETCH_VERSION, ReplicaError, ReplicaLinks, ReplicaManager, ReplicaTransport, ReplicationConfig, RoleChange,
    TransportError,
};

/// How long a test waits for an event before failing.
pub const EVENT_WAIT: Duration = Duration::from_secs(10);

/// Who can reach whom.
#[derive(Debug, Default)]
pub struct Network {
    nodes: RwLock<BTreeMap<BrokerId, Weak<ReplicaManager>>>,
    down: Mutex<BTreeSet<BrokerId>>,
}

impl Network {
    pub fn is_down(&self, id: BrokerId) -> bool {
        self.down.lock().expect("down").contains(&id)
    }

    fn node(&self, id: BrokerId) -> Option<Arc<ReplicaManager>> {
        self.nodes.read().expect("nodes").get(&id)?.upgrade()
    }
}

/// Fetches from one node, carried in memory.
#[derive(Debug)]
struct MemoryTransport {
    from: BrokerId,
    network: Arc<Network>,
}

impl ReplicaTransport for MemoryTransport {
    fn fetch(
        &self,
        leader: BrokerId,
        request: FetchRequest,
    ) -> BoxFuture<'static, Result<FetchResponse, TransportError>> {
        let (from, network) = (self.from, self.network.clone());
        Box::pin(async move {
            let unreachable = || TransportError(format!("broker {leader} unreachable from {from}"));
            if network.is_down(from) || network.is_down(leader) {
                return Err(unreachable());
            }
            let target = network.node(leader).ok_or_else(unreachable)?;
            let wire = request.encode_to_bytes(REPLICA_FETCH_VERSION).expect("the fetcher's request encodes");
            let request = FetchRequest::decode_exact(wire, REPLICA_FETCH_VERSION).expect("decodes");
            let response = target.replica_fetch(request, REPLICA_FETCH_VERSION).await;
            drop(target);
            if network.is_down(from) || network.is_down(leader) {
                return Err(unreachable());
            }
            let wire = in_memory(response).encode_to_bytes(REPLICA_FETCH_VERSION).expect("the response encodes");
            Ok(FetchResponse::decode_exact(wire, REPLICA_FETCH_VERSION).expect("decodes"))
        })
    }
}

/// The response with its file regions read into memory, as a connection sends them.
fn in_memory(mut response: FetchResponse) -> FetchResponse {
    for topic in &mut response.responses {
        for partition in &mut topic.partitions {
            if let Some(Records::File(region)) = &partition.records {
                use std::os::unix::fs::FileExt;
                let mut buf = vec![0u8; region.len as usize];
                region.file.read_exact_at(&mut buf, region.position).expect("read region");
                partition.records = Some(Records::Bytes(Bytes::from(buf)));
            }
        }
    }
    response
}

/// The controller's partition registry: decides AlterPartition as the controller does (leader
/// epoch, partition epoch, eligibility) and publishes every change to the live replicas.
#[derive(Debug)]
pub struct Controller {
    network: Arc<Network>,
    partitions: Mutex<BTreeMap<TopicPartition, (Uuid, PartitionState)>>,
    /// Brokers an ISR may not include (fenced): INELIGIBLE_REPLICA.
    pub ineligible: Mutex<BTreeSet<BrokerId>>,
    /// Whether a change reaches the replicas as metadata before the leader gets its answer.
    pub metadata_first: AtomicBool,
    /// Every AlterPartition accepted, in order.
    pub accepted: Mutex<Vec<Vec<BrokerId>>>,
}

impl Controller {
    fn alter(&self, item: &AlterPartitionItem) -> Result<LeaderAndIsr, ErrorCode> {
        let mut partitions = self.partitions.lock().expect("partitions");
        let (_, state) = partitions.get_mut(&item.topic_partition).ok_or(ErrorCode::UnknownTopicOrPartition)?;
        if item.leader_epoch != state.leader_epoch {
            return Err(ErrorCode::FencedLeaderEpoch);
        }
        if item.partition_epoch != state.partition_epoch {
            return Err(ErrorCode::InvalidUpdateVersion);
        }
        let ineligible = self.ineligible.lock().expect("ineligible");
        if item.isr().iter().any(|id| ineligible.contains(id) && !state.isr.contains(id)) {
            return Err(ErrorCode::IneligibleReplica);
        }
        state.isr = item.isr();
        state.partition_epoch += 1;
        self.accepted.lock().expect("accepted").push(state.isr.clone());
        Ok(LeaderAndIsr {
            leader: state.leader,
            leader_epoch: state.leader_epoch,
            isr: state.isr.clone(),
            leader_recovery_state: state.leader_recovery_state,
            partition_epoch: state.partition_epoch,
        })
    }

    pub fn state(&self, tp: &TopicPartition) -> PartitionState {
        self.partitions.lock().expect("partitions")[tp].1.clone()
    }

    /// Changes `tp` as an election would: `change` edits the state, the leader epoch is bumped
    /// when the leader changes or `bump` says so, the partition epoch always.
    pub fn change(&self, tp: &TopicPartition, bump_leader_epoch: bool, change: impl FnOnce(&mut PartitionState)) {
        {
            let mut partitions = self.partitions.lock().expect("partitions");
            let (_, state) = partitions.get_mut(tp).expect("known partition");
            change(state);
            state.partition_epoch += 1;
            if bump_leader_epoch {
                state.leader_epoch += 1;
            }
        }
        self.publish(tp);
    }

    /// Applies `tp`'s state on every live replica.
    pub fn publish(&self, tp: &TopicPartition) {
        let (topic_id, state) = self.partitions.lock().expect("partitions")[tp].clone();
        for id in &state.replicas {
            if let Some(node) = self.network.node(*id).filter(|_| !self.network.is_down(*id)) {
                node.apply_partition_state(tp, topic_id, log_config(), &state).expect("apply the state");
            }
        }
    }

    /// Applies `tp`'s state on node `id` only (a node coming back).
    pub fn publish_to(&self, tp: &TopicPartition, id: BrokerId) -> RoleChange {
        let (topic_id, state) = self.partitions.lock().expect("partitions")[tp].clone();
        let node = self.network.node(id).expect("node");
        node.apply_partition_state(tp, topic_id, log_config(), &state).expect("apply the state")
    }
}

#[derive(Debug)]
struct ControllerChannel(Arc<Controller>);

impl IsrChannel for ControllerChannel {
    fn submit(&self, item: AlterPartitionItem) -> BoxFuture<'static, Result<LeaderAndIsr, ErrorCode>> {
        let controller = self.0.clone();
        Box::pin(async move {
            let answer = controller.alter(&item);
            if answer.is_ok() {
                if controller.metadata_first.load(Ordering::SeqCst) {
                    controller.publish(&item.topic_partition);
                } else {
                    let later = controller.clone();
                    let tp = item.topic_partition.clone();
                    tokio::spawn(async move { later.publish(&tp) });
                }
            }
            answer
        })
    }
}

pub fn log_config() -> LogConfig {
    LogConfig { segment_index_bytes: 4096, ..LogConfig::default() }
}

/// Settings that keep tests quick: short long polls and backoffs.
pub fn replication_config(id: BrokerId) -> ReplicationConfig {
    ReplicationConfig { replica_fetch_wait_max_ms: 100, replica_fetch_backoff_ms: 10, ..ReplicationConfig::new(id) }
}

/// A cluster of replica managers.
#[derive(Debug)]
pub struct Cluster {
    pub clock: Arc<ManualClock>,
    pub network: Arc<Network>,
    pub controller: Arc<Controller>,
    nodes: BTreeMap<BrokerId, Arc<ReplicaManager>>,
    dirs: BTreeMap<BrokerId, tempfile::TempDir>,
}

impl Cluster {
    /// Nodes `ids`, each in its own directory, every broker registered at epoch 1 and eligible.
    pub fn new(ids: &[i32]) -> Cluster {
        let network = Arc::new(Network::default());
        let controller = Arc::new(Controller {
            network: network.clone(),
            partitions: Mutex::default(),
            ineligible: Mutex::default(),
            metadata_first: AtomicBool::new(false),
            accepted: Mutex::default(),
        });
        let clock = Arc::new(ManualClock::new(1_000_000));
        let mut cluster = Cluster { clock, network, controller, nodes: BTreeMap::new(), dirs: BTreeMap::new() };
        for &id in ids {
            cluster.dirs.insert(BrokerId(id), tempfile::tempdir().expect("dir"));
        }
        for &id in ids {
            cluster.open(BrokerId(id));
        }
        cluster
    }

    /// Opens node `id` over its directory (again, after a restart).
    fn open(&mut self, id: BrokerId) {
        let identity = NodeIdentity { cluster_id: "cluster".into(), node_id: id.0 };
        let dir = self.dirs[&id].path().to_owned();
        let logs = LogManager::open(&[dir], &identity, log_config(), self.clock.clone()).expect("logs");
        let links = ReplicaLinks {
            transport: Arc::new(MemoryTransport { from: id, network: self.network.clone() }),
            isr_channel: Arc::new(ControllerChannel(self.controller.clone())),
        };
        let node = ReplicaManager::with_config(logs, replication_config(id), links, self.clock.clone())
            .expect("replica manager");
        let node = Arc::new(node);
        let epochs = self
            .dirs
            .keys()
            .map(|b| (*b, BrokerStatus { broker_epoch: 1, fenced: false, in_controlled_shutdown: false }));
        node.set_broker_statuses(epochs.collect());
        self.network.nodes.write().expect("nodes").insert(id, Arc::downgrade(&node));
        self.nodes.insert(id, node);
    }

    pub fn node(&self, id: i32) -> &Arc<ReplicaManager> {
        &self.nodes[&BrokerId(id)]
    }

    /// Stops node `id` cleanly and opens it again from its directory; it gets no partition state
    /// until the test publishes one.
    pub async fn restart(&mut self, id: i32) {
        let mut node = self.nodes.remove(&BrokerId(id)).expect("node");
        node.stop_fetchers().await;
        // A fetch another node sent here may still hold it, until the fetch's long poll ends.
        let deadline = tokio::time::Instant::now() + EVENT_WAIT;
        let node = loop {
            match Arc::try_unwrap(node) {
                Ok(node) => break node,
                Err(held) if tokio::time::Instant::now() < deadline => {
                    node = held;
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                Err(_) => panic!("node {id} is still held"),
            }
        };
        node.shutdown(1).expect("shutdown");
        self.open(BrokerId(id));
    }

    /// Creates `tp` with `replicas` (the first leads), all in sync, at epochs 0.
    pub fn create(&self, tp: &TopicPartition, replicas: &[i32], min_insync_replicas: i32) -> Uuid {
        let topic_id = Uuid([tp.topic.len() as u8 + 1; 16]);
        let replicas: Vec<BrokerId> = replicas.iter().copied().map(BrokerId).collect();
        let state = PartitionState {
            leader: replicas[0],
            leader_epoch: 0,
            partition_epoch: 0,
            isr: replicas.clone(),
            replicas,
            min_insync_replicas,
            leader_recovery_state: 0,
        };
        self.controller.partitions.lock().expect("partitions").insert(tp.clone(), (topic_id, state));
        self.controller.publish(tp);
        topic_id
    }

    /// Cuts node `id` off: fetches from and to it fail, and it gets no metadata.
    pub fn cut(&self, id: i32) {
        self.network.down.lock().expect("down").insert(BrokerId(id));
    }

    pub fn heal(&self, id: i32) {
        self.network.down.lock().expect("down").remove(&BrokerId(id));
    }

    /// Appends one record holding `value` to `tp` on its leader `id` at the controller's epoch.
    pub fn append(
        &self,
        id: i32,
        tp: &TopicPartition,
        value: &str,
        acks: Acks,
    ) -> Result<strand_replication::Appended, ReplicaError> {
        let epoch = self.controller.state(tp).leader_epoch;
        self.node(id).append_as_leader(
            tp,
            batch(value),
            epoch,
            acks,
            AppendContext::client(VerificationGuard::SENTINEL),
        )
    }

    /// Appends with `acks=all` and waits for the acknowledgement (at most `timeout`).
    pub async fn produce(
        &self,
        id: i32,
        tp: &TopicPartition,
        value: &str,
        timeout: Duration,
    ) -> Result<Offset, ReplicaError> {
        let appended = self.append(id, tp, value, Acks::All)?;
        appended.delayed.expect("acks=all waits").wait(timeout).await?;
        Ok(appended.info.first_offset)
    }

    /// Waits until node `id`'s status of `tp` satisfies `done`; panics after [`EVENT_WAIT`].
    pub async fn until(
        &self,
        id: i32,
        tp: &TopicPartition,
        what: &str,
        done: impl Fn(&PartitionStatus) -> bool,
    ) -> PartitionStatus {
        let node = self.node(id);
        let deadline = tokio::time::Instant::now() + EVENT_WAIT;
        loop {
            let mut changes = node.subscribe_changes();
            let status = node.partition_status(tp).expect("status");
            if done(&status) {
                return status;
            }
            let now = tokio::time::Instant::now();
            assert!(
                now < deadline,
                "node {id}: {what} never happened; last status {status:#?}; controller accepted {:?}, has {:?}",
                self.controller.accepted.lock().expect("accepted"),
                self.controller.partitions.lock().expect("partitions").get(tp)
            );
            let _ = tokio::time::timeout(deadline - now, changes.changed()).await;
        }
    }

    /// The values of node `id`'s local log of `tp`, with their offsets.
    pub fn values(&self, id: i32, tp: &TopicPartition) -> Vec<(Offset, String)> {
        let slice = self.node(id).read_local(tp, 0, u64::MAX >> 1).expect("read");
        let Some(slice) = slice else { return Vec::new() };
        let mut values = Vec::new();
        for batch in RecordBatches::new(slice.read().expect("readable")) {
            let batch = batch.expect("batch");
            for (delta, record) in batch.records().expect("records").iter().enumerate() {
                let record = record.expect("record");
                let value = String::from_utf8(record.value().expect("value").to_vec()).expect("utf-8");
                values.push((batch.base_offset() + delta as i64, value));
            }
        }
        values
    }
}

pub fn batch(value: &str) -> ValidatedBatch {
    let mut builder = RecordBatchBuilder::new();
    builder
        .append(&NewRecord { timestamp_ms: 10, key: None, value: Some(value.as_bytes()), headers: &[] })
        .expect("record");
    ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid")
}

pub fn ids(ids: &[i32]) -> Vec<BrokerId> {
    ids.iter().copied().map(BrokerId).collect()
}
