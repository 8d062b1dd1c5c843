//! The in-process quorum of the quorum tests: three voters in one process, connected by an
//! in-process [`QuorumTransport`] that carries every RPC through its byte encoding and can cut
//! links, with waits on events only (leadership changes, feeds), each bounded by [`WAIT`].

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use strand_base::{SystemClock, Uuid};
use strand_metadata::quorum::{
    CommittedBatch, Leadership, Quorum, QuorumConfig, QuorumError, QuorumTransport, QuorumVoters, RaftReply, RaftRpc,
    SnapshotSettings, TransportError, TransportFuture,
};
use strand_protocol::messages::TopicRecord;
use strand_protocol::messages::records::MetadataRecord;
use tempfile::TempDir;
use tokio::sync::watch;

/// The most any step may take; hitting it is a failure, never a pass.
pub const WAIT: Duration = Duration::from_secs(30);
/// How long the two remaining voters may take to elect a new leader (about a second is usual).
pub const FAILOVER_WAIT: Duration = Duration::from_secs(10);
/// How long a cut-off leader is given to (wrongly) commit.
pub const NO_COMMIT_WAIT: Duration = Duration::from_secs(2);
pub const CLUSTER_ID: &str = "MkU3OEVBNTcwNTJENDM2Qg";
pub const VOTERS: [i32; 3] = [1, 2, 3];

pub type Records = Vec<(MetadataRecord, i16)>;

pub async fn bounded<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(WAIT, future).await.unwrap_or_else(|_| panic!("{what} took more than {WAIT:?}"))
}

pub fn topic(name: &str) -> Records {
    let record = TopicRecord { name: name.into(), topic_id: Uuid([name.len() as u8; 16]), ..TopicRecord::default() };
    vec![(MetadataRecord::TopicRecord(record), 0)]
}

/// The running voters and the links between them. Every change (a voter started or stopped, a
/// leadership change anywhere) bumps `changes`, which waits watch.
#[derive(Debug)]
pub struct Network {
    pub nodes: Mutex<BTreeMap<i32, Arc<Quorum>>>,
    /// Directed links that drop everything: (from, to).
    pub cut: Mutex<BTreeSet<(i32, i32)>>,
    /// Every leadership any voter reported: (voter, leadership).
    pub history: Mutex<Vec<(i32, Leadership)>>,
    /// How many calls each voter made into a cut link.
    pub dropped: Mutex<BTreeMap<i32, usize>>,
    pub changes: watch::Sender<u64>,
}

impl Network {
    pub fn is_cut(&self, from: i32, to: i32) -> bool {
        self.cut.lock().expect("lock").contains(&(from, to))
    }

    pub fn node(&self, id: i32) -> Option<Arc<Quorum>> {
        self.nodes.lock().expect("lock").get(&id).cloned()
    }

    pub fn changed(&self) {
        self.changes.send_modify(|n| *n += 1);
    }
}

/// One voter's end of the in-process network.
#[derive(Debug)]
pub struct InProcess {
    pub source: i32,
    pub network: Arc<Network>,
}

impl QuorumTransport for InProcess {
    fn call(&self, target: i32, rpc: RaftRpc) -> TransportFuture<'_> {
        Box::pin(async move {
            let unreachable = |reason: &str| TransportError::Unreachable { target, reason: reason.to_owned() };
            if self.network.is_cut(self.source, target) {
                *self.network.dropped.lock().expect("lock").entry(self.source).or_default() += 1;
                self.network.changed();
                return Err(unreachable("link cut"));
            }
            let quorum = self.network.node(target).ok_or_else(|| unreachable("not running"))?;
            let failed = |e: QuorumError| TransportError::Failed { target, reason: e.to_string() };
            let rpc = RaftRpc::decode(&rpc.encode().map_err(failed)?).map_err(failed)?;
            assert_eq!((rpc.source(), rpc.target(), rpc.cluster_id()), (self.source, target, CLUSTER_ID));
            let reply = quorum.handle_rpc(rpc).await;
            if self.network.is_cut(target, self.source) {
                return Err(TransportError::Failed { target, reason: "reply lost".into() });
            }
            RaftReply::decode(&reply.encode().map_err(failed)?).map_err(failed)
        })
    }
}

/// Three voters, each with its own data directory.
pub struct Cluster {
    pub network: Arc<Network>,
    pub dirs: BTreeMap<i32, TempDir>,
    /// A dynamic quorum (KIP-853) of the same three initial voters, or a static one.
    pub dynamic: bool,
}

impl Cluster {
    pub fn new() -> Cluster {
        let network = Arc::new(Network {
            nodes: Mutex::default(),
            cut: Mutex::default(),
            history: Mutex::default(),
            dropped: Mutex::default(),
            changes: watch::channel(0).0,
        });
        let dirs = VOTERS.iter().map(|&id| (id, tempfile::tempdir().expect("tempdir"))).collect();
        Cluster { network, dirs, dynamic: false }
    }

    /// Three voters of a dynamic quorum (KIP-853), voter `n` with directory id `[n; 16]`.
    pub fn dynamic() -> Cluster {
        Cluster { dynamic: true, ..Cluster::new() }
    }

    /// Voter `id`'s metadata log directory id in a dynamic quorum.
    pub fn directory_id(id: i32) -> Uuid {
        Uuid([u8::try_from(id).expect("a small id"); 16])
    }

    /// Voter `id`'s configuration in this cluster.
    pub fn config_of(&self, id: i32) -> QuorumConfig {
        if !self.dynamic {
            return Cluster::config(id);
        }
        let initial: Vec<String> =
            VOTERS.iter().map(|&v| format!("{v}@localhost:{}:{}", 9100 + v, Cluster::directory_id(v))).collect();
        let voters = QuorumVoters::parse_dynamic(&initial.join(","), "CONTROLLER").expect("initial voters");
        QuorumConfig { voters, dynamic: true, directory_id: Cluster::directory_id(id), ..Cluster::config(id) }
    }

    pub fn dir(&self, id: i32) -> &Path {
        self.dirs[&id].path()
    }

    pub fn config(id: i32) -> QuorumConfig {
        let voters =
            QuorumVoters::parse("1@localhost:9101,2@localhost:9102,3@localhost:9103", "CONTROLLER").expect("voters");
        QuorumConfig {
            node_id: id,
            cluster_id: CLUSTER_ID.into(),
            voters,
            election_timeout_ms: 200,
            fetch_timeout_ms: 400,
            // Snapshots only when a test asks; each purges everything it holds.
            snapshots: SnapshotSettings { interval_ms: 0, entries_kept: 0, ..SnapshotSettings::default() },
            dynamic: false,
            directory_id: strand_base::Uuid::ZERO,
        }
    }

    /// Opens voter `id` from its directory and connects it.
    pub async fn start(&self, id: i32) -> Arc<Quorum> {
        let transport = Arc::new(InProcess { source: id, network: Arc::clone(&self.network) });
        let open = Quorum::open(self.dir(id), self.config_of(id), transport, Arc::new(SystemClock));
        let quorum = Arc::new(bounded("open", open).await.expect("opens"));
        self.record_leadership(id, quorum.leadership());
        self.network.nodes.lock().expect("lock").insert(id, Arc::clone(&quorum));
        self.network.changed();
        quorum
    }

    /// Opens every voter at once.
    pub async fn start_all(&self) {
        tokio::join!(self.start(1), self.start(2), self.start(3));
    }

    /// Disconnects voter `id`, then shuts it down.
    pub async fn stop(&self, id: i32) {
        let quorum = self.network.nodes.lock().expect("lock").remove(&id).expect("running");
        self.network.changed();
        bounded("shutdown", quorum.shutdown()).await.expect("shuts down");
    }

    pub async fn stop_all(&self) {
        for id in VOTERS {
            self.stop(id).await;
        }
    }

    pub fn quorum(&self, id: i32) -> Arc<Quorum> {
        self.network.node(id).expect("running")
    }

    /// Cuts every link to and from `id`.
    pub fn isolate(&self, id: i32) {
        let mut cut = self.network.cut.lock().expect("lock");
        for other in VOTERS.into_iter().filter(|&other| other != id) {
            cut.extend([(id, other), (other, id)]);
        }
    }

    pub fn heal(&self) {
        self.network.cut.lock().expect("lock").clear();
    }

    /// Copies each leadership `id` reports into the history.
    pub fn record_leadership(&self, id: i32, mut leadership: watch::Receiver<Leadership>) {
        let network = Arc::clone(&self.network);
        tokio::spawn(async move {
            loop {
                let now = *leadership.borrow_and_update();
                network.history.lock().expect("lock").push((id, now));
                network.changed();
                if leadership.changed().await.is_err() {
                    return;
                }
            }
        });
    }

    /// Waits until `condition` holds, re-checking at every change in the cluster.
    pub async fn wait_until<T>(&self, what: &str, mut condition: impl FnMut(&Cluster) -> Option<T>) -> T {
        let mut changes = self.network.changes.subscribe();
        bounded(what, async {
            loop {
                if let Some(found) = condition(self) {
                    return found;
                }
                changes.changed().await.expect("the network lives");
            }
        })
        .await
    }

    /// Waits until every voter of `among` reports the same epoch and leader, the leader one of
    /// them and leading; returns (epoch, leader).
    pub async fn agreed_leader(&self, among: &[i32]) -> (i32, i32) {
        self.wait_until("an agreed leader", |cluster| {
            let seen: BTreeSet<Leadership> =
                among.iter().map(|&id| *cluster.quorum(id).leadership().borrow()).collect();
            let [Leadership { epoch, leader_id: Some(leader) }] = seen.into_iter().collect::<Vec<_>>()[..] else {
                return None;
            };
            (among.contains(&leader) && cluster.quorum(leader).is_leader()).then_some((epoch, leader))
        })
        .await
    }

    /// Appends `records` through the leader `among` agree on, following a leader change that
    /// happens in between (a follower refuses without proposing, so nothing is appended twice).
    pub async fn append(&self, among: &[i32], records: Records) -> i64 {
        loop {
            let (_, leader) = self.agreed_leader(among).await;
            match bounded("append", self.quorum(leader).append(records.clone())).await {
                Ok(offset) => return offset,
                Err(QuorumError::NotLeader { .. }) => continue,
                Err(e) => panic!("append through {leader}: {e}"),
            }
        }
    }

    /// No epoch had two leaders, as any voter saw it.
    pub fn check_one_leader_per_epoch(&self) {
        let mut leaders: BTreeMap<i32, BTreeSet<i32>> = BTreeMap::new();
        for (_, leadership) in self.network.history.lock().expect("lock").iter() {
            if let Some(leader) = leadership.leader_id {
                leaders.entry(leadership.epoch).or_default().insert(leader);
            }
        }
        assert!(!leaders.is_empty(), "no leader was ever seen");
        for (epoch, leaders) in leaders {
            assert_eq!(leaders.len(), 1, "epoch {epoch} had leaders {leaders:?}");
        }
    }
}

/// The first `count` data batches of `quorum`'s feed (control batches skipped).
pub async fn data_batches(quorum: &Quorum, count: usize) -> Vec<CommittedBatch> {
    let mut rx = quorum.subscribe(0);
    bounded("committed batches", async {
        let mut batches = Vec::new();
        while batches.len() < count {
            let batch = rx.recv().await.expect("the feed is open");
            if !batch.records.is_empty() {
                batches.push(batch);
            }
        }
        batches
    })
    .await
}

/// Every voter of `among` has committed exactly `lists` as its first data batches, the same
/// batches (offsets, epochs, timestamps) on each.
pub async fn check_feeds(cluster: &Cluster, among: &[i32], lists: &[Records]) -> Vec<CommittedBatch> {
    let mut first: Option<Vec<CommittedBatch>> = None;
    for &id in among {
        let batches = data_batches(&cluster.quorum(id), lists.len()).await;
        let records: Vec<&Records> = batches.iter().map(|b| &b.records).collect();
        assert_eq!(records, lists.iter().collect::<Vec<_>>(), "voter {id}");
        match &first {
            None => first = Some(batches),
            Some(first) => assert_eq!(&batches, first, "voter {id} differs"),
        }
    }
    first.unwrap_or_default()
}
