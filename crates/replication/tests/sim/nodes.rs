//! The brokers of the simulation and their lifecycle, as the server runs one: a process starts,
//! registers (refused while its previous incarnation's session lives), replays metadata, is
//! unfenced by a heartbeat and only then opens its logs and replica manager; every image it
//! replays is published to its replicas by the broker's `BrokerMetadataPublisher`; it
//! heartbeats, may be fenced when its session expires, may be asked to stop (controlled
//! shutdown, then a clean shutdown), or is killed (no shutdown at all).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use strand_base::{BrokerId, Clock};
use strand_broker::BrokerMetadataPublisher;
use strand_log::{LogConfig, LogManager, NodeIdentity};
use strand_metadata::controller::{
    ControllerDefaults, InitialFencing, RegisterBrokerInputs, broker_heartbeat, fence_broker, register_broker,
};
use strand_metadata::testkit::CLUSTER_ID;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::BrokerHeartbeatRequest;
use strand_replication::{ReplicaLinks, ReplicaManager, ReplicationConfig};

use super::controller::{Controller, registration};
use super::wire::{SimIsrChannel, SimTransport};
use super::{BROKER_SESSION_TIMEOUT_MS, REPLICA_LAG_TIME_MAX_MS, Shape, Sim, ids, lock, manager_of};

pub(super) fn log_config() -> LogConfig {
    LogConfig { segment_index_bytes: 4096, ..LogConfig::default() }
}

pub(super) fn replication_config(id: BrokerId, shape: &Shape) -> ReplicationConfig {
    ReplicationConfig {
        replica_lag_time_max_ms: REPLICA_LAG_TIME_MAX_MS,
        replica_fetch_wait_max_ms: shape.fetch_wait_ms,
        replica_fetch_backoff_ms: 0,
        num_replica_fetchers: shape.fetchers,
        replica_fetch_max_bytes: shape.fetch_bytes_max,
        ..ReplicationConfig::new(id)
    }
}

/// One broker id's process and its links.
#[derive(Debug)]
pub(super) struct Node {
    pub(super) id: BrokerId,
    pub(super) dir: tempfile::TempDir,
    /// The process runs (it may not have registered, or opened its logs, yet).
    pub(super) up: bool,
    /// Bumped at every start.
    pub(super) incarnation: u32,
    /// This incarnation's registration, once the controller took it.
    pub(super) broker_epoch: Option<i64>,
    /// The index in the controller's history of the image this node has replayed.
    pub(super) applied: usize,
    /// Open once registered and unfenced, as the server opens its logs.
    pub(super) manager: Option<Arc<ReplicaManager>>,
    /// Its metadata publisher, one per replica manager as in the server, so each pass after the
    /// first visits what changed since the last one (a new incarnation starts with a new one).
    pub(super) publisher: Option<BrokerMetadataPublisher>,
    /// Whether this incarnation lives: once it dies, its ISR channel refuses at once, so that its
    /// leftover AlterPartition tasks end.
    pub(super) alive: Arc<AtomicBool>,
    /// Cut off from the other brokers and the controller (clients still reach it).
    pub(super) isolated: bool,
    /// Cut off from the controller only.
    pub(super) controller_cut: bool,
    /// How often its fetches go through, relatively (1 slow, 3, 8 fast): some followers keep up
    /// and some lag, a little or a lot.
    pub(super) speed: u32,
    /// Asked to stop (SIGTERM): its heartbeats ask for a controlled shutdown, and it stops
    /// cleanly once the controller says so.
    pub(super) stopping: bool,
}

impl Node {
    /// Broker `id`, running and registered at `broker_epoch`, having replayed image `applied`;
    /// its replica manager is opened by the caller.
    pub(super) fn new(id: BrokerId, broker_epoch: i64, applied: usize) -> Node {
        Node {
            id,
            dir: data_dir(),
            up: true,
            incarnation: 0,
            broker_epoch: Some(broker_epoch),
            applied,
            manager: None,
            publisher: None,
            alive: Arc::new(AtomicBool::new(true)),
            isolated: false,
            controller_cut: false,
            speed: 3,
            stopping: false,
        }
    }
}

impl Sim {
    pub(super) fn running(&self, id: BrokerId) -> Option<&ReplicaManager> {
        manager_of(&self.nodes, id)
    }

    pub(super) fn index(id: BrokerId) -> usize {
        usize::try_from(id.0 - 1).expect("a broker id")
    }

    pub(super) fn reaches_controller(&self, i: usize) -> bool {
        let n = &self.nodes[i];
        n.up && !n.isolated && !n.controller_cut
    }

    pub(super) fn linked(&self, a: BrokerId, b: BrokerId) -> bool {
        let (a, b) = (&self.nodes[Self::index(a)], &self.nodes[Self::index(b)]);
        a.up && b.up && !a.isolated && !b.isolated
    }

    /// Opens node `i`'s logs and replica manager (registered, unfenced).
    pub(super) fn open(&mut self, i: usize) {
        let node = &mut self.nodes[i];
        let identity = NodeIdentity { cluster_id: "sim".into(), node_id: node.id.0 };
        let logs = LogManager::open(&[node.dir.path().to_owned()], &identity, log_config(), self.clock.clone())
            .expect("open the logs");
        let broker_epoch = node.broker_epoch.expect("registered");
        let links = ReplicaLinks {
            transport: Arc::new(SimTransport { from: node.id, incarnation: node.incarnation, wire: self.wire.clone() }),
            isr_channel: Arc::new(SimIsrChannel {
                from: node.id,
                incarnation: node.incarnation,
                broker_epoch,
                alive: node.alive.clone(),
                wire: self.wire.clone(),
            }),
        };
        let manager =
            ReplicaManager::with_config(logs, replication_config(node.id, &self.shape), links, self.clock.clone())
                .expect("a replica manager");
        node.manager = Some(Arc::new(manager));
    }

    /// What the server does with each image: its `BrokerMetadataPublisher` brings the brokers'
    /// standing and every partition state to node `i`'s replicas.
    pub(super) fn reconcile(&mut self, i: usize) -> Result<(), String> {
        let node = &mut self.nodes[i];
        let Some(manager) = node.manager.as_ref() else { return Ok(()) };
        let image = self.controller.history[node.applied].clone();
        if !node.publisher.as_ref().is_some_and(|p| Arc::ptr_eq(p.replicas(), manager)) {
            let statics = [("segment.index.bytes".to_owned(), log_config().segment_index_bytes.to_string())];
            let publisher =
                BrokerMetadataPublisher::new(node.id, manager.clone(), statics.into(), log_config().producer_state);
            node.publisher = Some(publisher);
        }
        let Some(publisher) = node.publisher.as_ref() else { return Ok(()) };
        match publisher.publish(&image).as_slice() {
            [] => Ok(()),
            failed => Err(format!("node {} cannot apply image {}: {failed:?}", node.id, node.applied)),
        }
    }

    /// Node `i` replays the images up to `to`, reconciling each (or starting once it is
    /// unfenced, as the server waits to).
    pub(super) fn replay(&mut self, i: usize, to: usize) -> Result<(), String> {
        while self.nodes[i].applied < to {
            self.nodes[i].applied += 1;
            if self.nodes[i].manager.is_some() {
                self.reconcile(i)?;
                self.observe_leaders()?;
                continue;
            }
            let node = &self.nodes[i];
            let image = &self.controller.history[node.applied];
            let unfenced = node
                .broker_epoch
                .is_some_and(|epoch| image.cluster().broker(node.id).is_some_and(|b| b.epoch == epoch && !b.fenced));
            if unfenced {
                let id = node.id;
                self.open(i);
                self.reconcile(i)?;
                self.observe_leaders()?;
                self.note(format!("node {id} unfenced: opened its logs"));
            }
        }
        Ok(())
    }

    /// Node `i` heartbeats, if it is registered and reaches the controller; a node asked to stop
    /// stops cleanly once the answer allows it (which yields to the tasks: call this at a
    /// quiescent point, or after changes that woke no task).
    pub(super) async fn heartbeat(&mut self, i: usize) -> Result<(), String> {
        if !self.reaches_controller(i) {
            return Ok(());
        }
        let node = &self.nodes[i];
        let Some(broker_epoch) = node.broker_epoch else { return Ok(()) };
        let request = BrokerHeartbeatRequest {
            broker_id: node.id,
            broker_epoch,
            current_metadata_offset: self.controller.history[node.applied].provenance().offset,
            want_shut_down: node.stopping,
            ..Default::default()
        };
        let image = self.controller.image().clone();
        let inputs = self.controller.tracker.inputs(&image, node.id);
        let result = broker_heartbeat(&image, &request, &inputs, &self.controller.defaults);
        let changed = !result.records.is_empty();
        self.controller.apply(&result.records);
        let after = self.controller.image().clone();
        self.controller.tracker.heartbeat(&after, &request, self.clock.now_ms());
        let id = node.id;
        if changed {
            let fenced = result.response.is_fenced;
            let p = self.leaders_line();
            self.note(format!("heartbeat from {id}: now {}; {p}", if fenced { "fenced" } else { "unfenced" }));
        }
        if result.response.should_shut_down && self.nodes[i].stopping {
            self.note(format!("node {id} may stop now"));
            self.stop(i, true).await;
        }
        Ok(())
    }

    pub(super) fn session_check(&mut self) {
        let image = self.controller.image().clone();
        let now = self.clock.now_ms();
        for broker in self.controller.tracker.expired(&image, now, BROKER_SESSION_TIMEOUT_MS) {
            let records = fence_broker(self.controller.image(), broker, &self.controller.defaults);
            self.controller.apply(&records);
            self.stats.fencings += 1;
            let p = self.leaders_line();
            self.note(format!("session of {broker} expired: fenced; {p}"));
        }
    }

    pub(super) fn leaders_line(&self) -> String {
        let image = self.controller.image();
        (0..self.shape.partitions)
            .map(|p| {
                let pi = Controller::partition(image, p);
                format!("p{p} leader {} epoch {} isr {:?}", pi.leader, pi.leader_epoch, ids(&pi.isr))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub(super) fn register(&mut self, i: usize) {
        if !self.reaches_controller(i) || self.nodes[i].broker_epoch.is_some() {
            return;
        }
        let (id, incarnation) = (self.nodes[i].id, self.nodes[i].incarnation);
        let image = self.controller.image().clone();
        let now = self.clock.now_ms();
        let previous_session = self.controller.tracker.previous_session(&image, id, now, BROKER_SESSION_TIMEOUT_MS);
        let inputs = RegisterBrokerInputs {
            cluster_id: CLUSTER_ID.to_owned(),
            new_broker_epoch: image.provenance().offset + 1,
            previous_session,
            initial_fencing: InitialFencing::Fenced,
        };
        let result = register_broker(&image, &registration(id.0, incarnation), &inputs, &ControllerDefaults::default());
        if result.response.error_code != 0 {
            self.note(format!("node {id} registration refused: error {}", result.response.error_code));
            return;
        }
        self.controller.apply(&result.records);
        self.nodes[i].broker_epoch = Some(result.response.broker_epoch);
        self.stats.registrations += 1;
        let p = self.leaders_line();
        self.note(format!("node {id} registered at epoch {}; {p}", result.response.broker_epoch));
    }

    /// Stops node `i`: killed (no clean shutdown, no checkpoint) or, `clean`, the server's
    /// shutdown after a controlled shutdown. Its messages and produces die with it.
    pub(super) async fn stop(&mut self, i: usize, clean: bool) {
        let id = self.nodes[i].id;
        let incarnation = self.nodes[i].incarnation;
        self.nodes[i].alive.store(false, Ordering::SeqCst);
        {
            let mut wire = lock(&self.wire);
            let alters = std::mem::take(&mut wire.alters);
            for alter in alters {
                if alter.from == id && alter.incarnation == incarnation {
                    // Ends its task (the process is gone; what it hears does not matter).
                    let _ = alter.reply.send(Err(ErrorCode::OperationNotAttempted));
                } else {
                    wire.alters.push(alter);
                }
            }
            wire.fetches.retain(|f| !(f.from == id && f.incarnation == incarnation));
        }
        let dead: Vec<u64> = self.produces.iter().filter(|(_, p)| p.node == id).map(|(id, _)| *id).collect();
        for produce in dead {
            if let Some(p) = self.produces.remove(&produce) {
                p.task.abort();
                self.stats.waits_abandoned += 1;
            }
        }
        self.end_held_fetches(id).await;
        let broker_epoch = self.nodes[i].broker_epoch.unwrap_or(-1);
        // The publisher holds the replica manager too, and goes with this incarnation.
        self.nodes[i].publisher = None;
        if let Some(manager) = self.nodes[i].manager.take() {
            manager.stop_fetchers().await;
            let manager = Arc::try_unwrap(manager).expect("no task holds a stopped node's replica manager");
            if clean {
                manager.shutdown(broker_epoch).expect("a clean shutdown");
            } else {
                drop(manager);
            }
        }
        let node = &mut self.nodes[i];
        node.up = false;
        node.broker_epoch = None;
        node.isolated = false;
        node.controller_cut = false;
        node.stopping = false;
        if clean {
            self.stats.clean_shutdowns += 1;
            self.note(format!("node {id} shut down cleanly"));
        } else {
            self.stats.crashes += 1;
            self.note(format!("CRASH node {id}"));
        }
    }

    pub(super) fn boot(&mut self, i: usize) {
        let node = &mut self.nodes[i];
        node.up = true;
        node.incarnation += 1;
        node.alive = Arc::new(AtomicBool::new(true));
        node.applied = 0;
        node.broker_epoch = None;
        node.stopping = false;
        let (id, incarnation) = (node.id, node.incarnation);
        self.note(format!("node {id} starts (incarnation {incarnation})"));
    }
}

/// A data directory, in memory when the machine has `/dev/shm` (syncs cost nothing there).
pub(super) fn data_dir() -> tempfile::TempDir {
    let shm = std::path::Path::new("/dev/shm");
    if shm.is_dir()
        && let Ok(dir) = tempfile::Builder::new().prefix("strand-sim-").tempdir_in(shm)
    {
        return dir;
    }
    tempfile::Builder::new().prefix("strand-sim-").tempdir().expect("a temporary directory")
}
