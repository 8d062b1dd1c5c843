//! The faults and their seeded schedule. Each fault is bounded in time and healed before the next
//! one starts; the cluster is back in sync (every partition with an ISR of 3) between faults.

use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rand::Rng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rustix::process::Signal;
use serde::Serialize;

use crate::cluster::{Cluster, NODES};
use crate::proxy::{End, Mode, Net};

/// Every fault kind, by the name `--faults` takes.
pub const KINDS: [&str; 14] = [
    "kill",
    "pause-leader",
    "pause-controller",
    "restart",
    "rolling-restart",
    "isolate",
    "split",
    "bridge",
    "one-way",
    "latency",
    "stall",
    "disk-fail",
    "slow-disk",
    "lost-unsynced",
];

/// The kinds that need a `strand` built with failpoints (`cargo test -p strand-cli --no-run`
/// builds one: `target/debug/strand`).
pub const DISK_KINDS: [&str; 3] = ["disk-fail", "slow-disk", "lost-unsynced"];

/// How long a node whose syncs fail may take to stop (it syncs within ms under the workload).
const DISK_FAIL_EXIT_MAX: Duration = Duration::from_secs(30);

/// How long the cluster may take to have every partition in sync again after a fault.
const RESYNC_MAX: Duration = Duration::from_secs(60);

/// One fault as it happened: the history's clock (ns since the epoch) at its start and heal.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Fault {
    pub kind: String,
    pub target: String,
    pub start: i64,
    pub heal: i64,
}

pub fn now_ns() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i64)
}

/// A network fault: the links it sets, their mode, and what it is.
type LinkFault = (Vec<(End, End)>, Mode, String);

/// What runs the faults.
pub struct Nemesis<'a> {
    pub cluster: &'a mut Cluster,
    pub net: &'a Net,
    pub bin: &'a Path,
    pub topic: &'a str,
    pub rng: StdRng,
    /// A fault's duration, drawn from this range (seconds).
    pub duration: (u64, u64),
}

impl std::fmt::Debug for Nemesis<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nemesis").field("topic", &self.topic).finish_non_exhaustive()
    }
}

fn others(id: u8) -> impl Iterator<Item = u8> {
    (1..=NODES).filter(move |o| *o != id)
}

/// Both directions between `a` and every one of `bs`.
fn between(a: End, bs: impl Iterator<Item = End>) -> Vec<(End, End)> {
    bs.flat_map(|b| [(a, b), (b, a)]).collect()
}

impl Nemesis<'_> {
    fn sleep_fault(&mut self) {
        let (low, high) = self.duration;
        std::thread::sleep(Duration::from_millis(self.rng.gen_range(low * 1000..=high * 1000)));
    }

    fn random_node(&mut self) -> u8 {
        self.rng.gen_range(1..=NODES)
    }

    /// The leader of a random partition of the topic, else a random node.
    fn leader(&mut self) -> u8 {
        let leaders: Vec<u8> = self.cluster.leaders(self.topic).into_values().collect();
        match leaders.choose(&mut self.rng) {
            Some(l) => *l,
            None => self.random_node(),
        }
    }

    fn controller(&mut self) -> u8 {
        match self.cluster.active_controller() {
            Some(c) => c,
            None => self.random_node(),
        }
    }

    /// A partition leader, the active controller or any node.
    fn victim(&mut self) -> u8 {
        match self.rng.gen_range(0..4) {
            0 | 1 => self.leader(),
            2 => self.controller(),
            _ => self.random_node(),
        }
    }

    /// Runs fault `kind` to its heal; the cluster serves again when this returns.
    pub fn run(&mut self, kind: &str) -> anyhow::Result<Fault> {
        let start;
        let target;
        match kind {
            "kill" => {
                let id = self.victim();
                target = format!("node {id}");
                start = now_ns();
                self.cluster.kill(id)?;
                self.sleep_fault();
                self.cluster.spawn(self.bin, id)?;
            }
            "pause-leader" | "pause-controller" => {
                let id = if kind == "pause-leader" { self.leader() } else { self.controller() };
                target = format!("node {id}");
                start = now_ns();
                self.cluster.signal(id, Signal::STOP)?;
                self.sleep_fault();
                self.cluster.signal(id, Signal::CONT)?;
            }
            "restart" => {
                let id = self.victim();
                target = format!("node {id}");
                start = now_ns();
                self.cluster.terminate(id)?;
                self.cluster.spawn(self.bin, id)?;
            }
            "rolling-restart" => {
                target = "every node in turn".to_owned();
                start = now_ns();
                for id in 1..=NODES {
                    self.cluster.terminate(id)?;
                    self.cluster.spawn(self.bin, id)?;
                    self.cluster.await_ready(id)?;
                    self.await_in_sync()?;
                }
            }
            // Every sync fails: the node's only log dir goes offline and the node stops (Kafka
            // halts once every log dir failed); restarted healthy after the fault's time.
            "disk-fail" => {
                let id = self.victim();
                start = now_ns();
                self.cluster.set_failpoints(id, "log::sync=return")?;
                let status = self.cluster.await_exit(id, DISK_FAIL_EXIT_MAX)?;
                target = format!("node {id}: every sync fails (it stopped: {status})");
                self.sleep_fault();
                self.cluster.spawn(self.bin, id)?;
            }
            "slow-disk" => {
                let id = self.victim();
                let ms: u32 = self.rng.gen_range(50..=500);
                target = format!("node {id}: every sync takes {ms} ms more");
                start = now_ns();
                self.cluster.set_failpoints(id, &format!("log::sync=sleep({ms})"))?;
                self.sleep_fault();
                self.cluster.set_failpoints(id, "log::sync=off")?;
            }
            // A node that loses what it never synced: its syncs are skipped (claiming success)
            // for the fault's time, then it is killed and each of its partition logs put back as
            // it was when the syncs stopped (a power cut; its metadata log is left as it is, the
            // quorum's own promise being another matter). Design §6: an acks=all write has a
            // synced copy on another in-sync replica, so nothing acknowledged may be lost.
            "lost-unsynced" => {
                let id = self.victim();
                target = format!("node {id}: syncs skipped, then killed and its partition logs rolled back");
                start = now_ns();
                self.cluster.set_failpoints(id, "log::sync_skipped=return")?;
                self.cluster.snapshot_data(id)?;
                self.sleep_fault();
                self.cluster.kill(id)?;
                self.cluster.restore_data(id)?;
                self.cluster.spawn(self.bin, id)?;
            }
            _ => {
                let id = self.victim();
                let (links, mode, what) = self.network_fault(kind, id)?;
                target = what;
                start = now_ns();
                self.net.set(&links, mode);
                self.sleep_fault();
                self.net.heal();
            }
        }
        let heal = now_ns();
        for id in 1..=NODES {
            self.cluster.await_ready(id)?;
        }
        self.await_in_sync()?;
        Ok(Fault { kind: kind.to_owned(), target, start, heal })
    }

    /// The links a network fault around node `id` affects, their mode, and a description.
    fn network_fault(&mut self, kind: &str, id: u8) -> anyhow::Result<LinkFault> {
        let node = End::Node(id);
        let peers = || others(id).map(End::Node);
        Ok(match kind {
            // From every other node and from the clients.
            "isolate" => (between(node, peers().chain([End::Clients])), Mode::Drop, format!("node {id} alone")),
            // From the other nodes; clients still reach every node.
            "split" => (between(node, peers()), Mode::Drop, format!("node {id} apart from the other two")),
            "bridge" => {
                let ends: Vec<u8> = others(id).collect();
                let links = between(End::Node(ends[0]), [End::Node(ends[1])].into_iter());
                (links, Mode::Drop, format!("nodes {} and {} apart, node {id} reaching both", ends[0], ends[1]))
            }
            "one-way" => {
                let links: Vec<(End, End)> = peers().map(|p| (node, p)).collect();
                (links, Mode::Drop, format!("node {id} cannot send to the other nodes (it still receives)"))
            }
            "latency" => {
                let delay = Duration::from_millis(self.rng.gen_range(50..=300));
                let links = between(node, peers().chain([End::Clients]));
                (links, Mode::Delay(delay), format!("node {id}: {} ms more each way", delay.as_millis()))
            }
            "stall" => {
                let links = between(node, peers().chain([End::Clients]));
                (links, Mode::Stall, format!("node {id}: every connection to and from it stalled"))
            }
            other => anyhow::bail!("unknown fault kind '{other}' (kinds: {})", KINDS.join(", ")),
        })
    }

    /// Waits until every partition of the topic has all three replicas in sync.
    pub fn await_in_sync(&self) -> anyhow::Result<()> {
        let deadline = Instant::now() + RESYNC_MAX;
        loop {
            let in_sync = (1..=NODES).filter(|id| self.cluster.is_up(*id)).any(|id| {
                self.cluster.metadata(id, Some(self.topic)).is_ok_and(|m| {
                    let parts: Vec<_> = m.topics.iter().flat_map(|t| &t.partitions).collect();
                    !parts.is_empty()
                        && parts.iter().all(|p| p.leader_id.0 >= 1 && p.isr_nodes.len() == usize::from(NODES))
                })
            });
            if in_sync {
                return Ok(());
            }
            if Instant::now() > deadline {
                anyhow::bail!("the topic's partitions were not all in sync within {RESYNC_MAX:?} of a heal");
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}
