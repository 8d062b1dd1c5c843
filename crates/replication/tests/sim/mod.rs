//! A deterministic, seeded simulation of replication (see `tests/simulation.rs` for what it
//! checks): real [`ReplicaManager`]s in temporary directories, the real controller decisions of
//! `strand-metadata` on a `MetadataImage` as the controller, and a network the simulation drives
//! one message at a time.
//!
//! Layout:
//! - `mod.rs`: [`Shape`] (the cluster a seed picks), [`Stats`], [`Failure`], [`run_seed`], and
//!   the world ([`Sim`]): its construction, the step loop, and [`Sim::settle`], the quiescent
//!   point every step ends at.
//! - `wire.rs`: the messages in flight and the steps that deliver or lose them.
//! - `controller.rs`: the controller (an image per committed batch, the session tracker).
//! - `nodes.rs`: the brokers' lifecycle (start, register, replay metadata, heartbeat, stop).
//! - `clients.rs`: producers and readers.
//! - `schedule.rs`: the random steps, and the healing after them.
//! - `invariants.rs`: the checks.
//!
//! How it stays deterministic:
//! - One seeded generator ([`Rng`]) picks every step; the shape of the cluster comes from it too.
//! - Everything runs on a current-thread tokio runtime with a paused clock. After each step the
//!   simulation sleeps [`TICK`] of tokio time: the paused clock only moves once every task is idle
//!   and no `spawn_blocking` work (the fetchers' appends and syncs) is in flight, so a step always
//!   ends at a quiescent point.
//! - Fetch and AlterPartition requests wait on the wire, sorted by content (not arrival order,
//!   which blocking threads may change), until a step answers, delays or drops them. Leaders answer
//!   at once (`replica.fetch.wait.max.ms` = 0) and followers retry at once
//!   (`replica.fetch.backoff.ms` = 0), so the fetchers set no timers.
//! - The only timers left are AlterPartition retries (100 ms doubling to 5 s, set when an answer
//!   is delivered, which happens at a step's end) and the steps' own sleeps. A step is 7 ms of
//!   tokio time, and no retry delay is a multiple of 7 ms, so a retry never wakes at the same
//!   instant as the simulation.
//! - Cluster time (`replica.lag.time.max.ms`, sessions) is a [`ManualClock`] the steps advance.
//!
//! What it models: produce with `acks=all` and `acks=1` at the node a client thinks leads (from
//! the controller's latest image, or a broker's stale one), clients giving up on a produce, readers
//! polling leaders (honouring leader epochs, as KIP-320 clients do), follower fetches delivered,
//! delayed (left on the wire), reordered or dropped (request or answer), followers of different
//! speeds, AlterPartition requests decided by the controller with the answer delivered at once,
//! later or lost (and requests lost before), metadata reaching each broker late, batch by batch or
//! all at once, heartbeats and session expiry (fencing, elections from the ISR by the controller's
//! own `fence_broker`), preferred leader elections, ISR checks and high-watermark checkpoints at
//! random times, cluster time jumps, a node cut off from everyone or from the controller only,
//! controlled shutdowns followed by a clean shutdown, and crashes: a node's replica manager is
//! dropped without a clean shutdown, its in-flight messages and produces die with it, and it comes
//! back later as a new incarnation from its data directory (registering again, as a restarted
//! broker does, before it opens its logs). Faults come in storms between calm spells.
//!
//! What it does not model: loss of unsynced data on a crash (a crash keeps what was written, as
//! a process crash does, so the fsync-before-ack rule is not exercised), torn writes, disk
//! failures, unclean elections, reassignment, transactions and idempotent producers, controller
//! failover (one controller whose log commits at once), and retention, compaction and
//! DeleteRecords.

mod clients;
mod controller;
mod invariants;
mod nodes;
mod schedule;
mod wire;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use strand_base::testkit::ManualClock;
use strand_base::{BrokerId, Clock, TopicPartition};
use strand_replication::ReplicaManager;
use tokio::task::JoinHandle;

use clients::{PendingProduce, Reader, ReaderPartition, Results};
use controller::Controller;
use invariants::Track;
use nodes::Node;
use wire::Wire;

/// The simulated topic.
pub const TOPIC: &str = "sim";
/// `replica.lag.time.max.ms`, lowered as the cluster tests lower it.
const REPLICA_LAG_TIME_MAX_MS: i64 = 3_000;
/// `broker.session.timeout.ms`, lowered likewise.
const BROKER_SESSION_TIMEOUT_MS: i64 = 4_500;
/// The tokio time one step takes (see the module doc for why 7 ms).
const TICK: Duration = Duration::from_millis(7);
/// How long a produce waits: forever (clients give up by a step of their own).
const NO_TIMEOUT: Duration = Duration::from_secs(1 << 30);
/// AlterPartition's version as the server sends it.
const ALTER_PARTITION_VERSION: i16 = 3;
/// Healing rounds before the cluster must have converged.
const CONVERGE_ROUNDS_MAX: usize = 120;
/// How many of the last steps a failure report shows.
const TRACE_TAIL: usize = 80;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// SplitMix64: small, seedable, and the same on every platform.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5EED_5EED_5EED_5EED)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with `percent` % probability.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// Uniform in `lo..hi`.
    pub fn between(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % (hi - lo) as u64) as i64
    }

    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// The cluster a seed simulates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub nodes: usize,
    pub partitions: usize,
    pub replication_factor: usize,
    pub min_insync_replicas: i32,
    /// How often faults happen (1 calm, 2, 4 stormy): crashes, cuts, losses, elections.
    pub chaos: u32,
    /// `num.replica.fetchers`.
    pub fetchers: usize,
    /// `replica.fetch.max.bytes`: whole, or small enough that followers catch up a batch or two
    /// at a time (a record batch here is 76 bytes; the first is always sent whole).
    pub fetch_bytes_max: i32,
    /// `replica.fetch.wait.max.ms`: 0, leaders answer at once; else leaders hold a fetch with
    /// nothing new (a long poll, on a task) until an append or a progress change, or this long
    /// (50 ms: no multiple of a step's 7 ms).
    pub fetch_wait_ms: i32,
}

impl Shape {
    fn of(rng: &mut Rng) -> Shape {
        let nodes = rng.pick(&[3, 3, 3, 4, 5]);
        let replication_factor = if nodes > 3 && rng.chance(40) { nodes } else { 3 };
        let min_insync_replicas = rng.pick(&[1, 2, 2, 2, 3]).min(replication_factor as i32);
        let partitions = rng.pick(&[1, 2, 2]);
        Shape {
            nodes,
            partitions,
            replication_factor,
            min_insync_replicas,
            chaos: rng.pick(&[1, 2, 2, 4]),
            fetchers: rng.pick(&[1, 1, 2]),
            fetch_bytes_max: rng.pick(&[1 << 20, 1 << 20, 160, 1]),
            fetch_wait_ms: rng.pick(&[0, 50]),
        }
    }
}

/// What the runs did, for the report (not checked).
#[derive(Debug, Default, Clone)]
pub struct Stats {
    pub runs: u64,
    pub steps: u64,
    pub acked_all: u64,
    pub acked_one: u64,
    pub produce_refused: u64,
    pub waits_failed: u64,
    pub waits_abandoned: u64,
    pub crashes: u64,
    pub clean_shutdowns: u64,
    pub elections_requested: u64,
    pub registrations: u64,
    pub fencings: u64,
    pub leader_epochs: u64,
    pub truncations: u64,
    pub fetches_answered: u64,
    pub fetches_lost: u64,
    pub alters_decided: u64,
    pub alters_accepted: u64,
    pub alters_lost: u64,
    pub polls: u64,
    pub records_read: u64,
    pub visible_offset_not_available: u64,
    pub fetch_hw_dips: u64,
    pub converge_rounds: u64,
    pub converge_rounds_max: u64,
}

impl Stats {
    pub fn add(&mut self, o: &Stats) {
        self.runs += o.runs;
        self.steps += o.steps;
        self.acked_all += o.acked_all;
        self.acked_one += o.acked_one;
        self.produce_refused += o.produce_refused;
        self.waits_failed += o.waits_failed;
        self.waits_abandoned += o.waits_abandoned;
        self.crashes += o.crashes;
        self.clean_shutdowns += o.clean_shutdowns;
        self.elections_requested += o.elections_requested;
        self.registrations += o.registrations;
        self.fencings += o.fencings;
        self.leader_epochs += o.leader_epochs;
        self.truncations += o.truncations;
        self.fetches_answered += o.fetches_answered;
        self.fetches_lost += o.fetches_lost;
        self.alters_decided += o.alters_decided;
        self.alters_accepted += o.alters_accepted;
        self.alters_lost += o.alters_lost;
        self.polls += o.polls;
        self.records_read += o.records_read;
        self.visible_offset_not_available += o.visible_offset_not_available;
        self.fetch_hw_dips += o.fetch_hw_dips;
        self.converge_rounds += o.converge_rounds;
        self.converge_rounds_max = self.converge_rounds_max.max(o.converge_rounds_max);
    }
}

/// A seed that broke an invariant (or the harness).
#[derive(Debug)]
pub struct Failure {
    pub seed: u64,
    pub shape: Option<Shape>,
    pub message: String,
    /// The last steps, oldest first.
    pub trace: Vec<String>,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "seed {} ({:?}): {}", self.seed, self.shape, self.message)?;
        writeln!(f, "  replay: STRAND_SIM_SEED={} cargo test -p strand-replication --test simulation", self.seed)?;
        writeln!(f, "  last steps:")?;
        for line in &self.trace {
            writeln!(f, "    {line}")?;
        }
        Ok(())
    }
}

/// One seed's world.
#[derive(Debug)]
pub struct Sim {
    seed: u64,
    rng: Rng,
    pub shape: Shape,
    steps: usize,
    verbose: bool,
    clock: Arc<ManualClock>,
    controller: Controller,
    nodes: Vec<Node>,
    wire: Arc<Mutex<Wire>>,
    produces: BTreeMap<u64, PendingProduce>,
    /// Fetches a leader holds (long polls), by wire id: the leader and the task.
    held: BTreeMap<u64, (BrokerId, JoinHandle<()>)>,
    next_fetch_id: u64,
    results: Results,
    next_value: u64,
    parts: Vec<Track>,
    readers: Vec<Reader>,
    violations: Vec<String>,
    trace: Vec<String>,
    step: usize,
    /// Whether faults happen now, and until which step.
    storm: bool,
    phase_end: usize,
    pub stats: Stats,
}

/// Runs seed `seed` for `steps` random steps and the healing after them, on its own runtime.
pub fn run_seed(seed: u64, steps: usize, verbose: bool) -> Result<Stats, Failure> {
    let (result, shape, trace, stats) = run(seed, steps, verbose);
    match result {
        Ok(()) => Ok(stats),
        Err(message) => {
            let skip = trace.len().saturating_sub(if verbose { usize::MAX } else { TRACE_TAIL });
            Err(Failure { seed, shape: Some(shape), message, trace: trace.into_iter().skip(skip).collect() })
        }
    }
}

/// Every step seed `seed` takes in `steps` steps (and its outcome), to compare two runs.
pub fn trace_of(seed: u64, steps: usize) -> Vec<String> {
    let (result, _, mut trace, _) = run(seed, steps, false);
    trace.push(format!("outcome: {result:?}"));
    trace
}

fn run(seed: u64, steps: usize, verbose: bool) -> (Result<(), String>, Shape, Vec<String>, Stats) {
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().expect("a runtime");
    let (result, sim) = runtime.block_on(async move {
        let mut sim = Sim::new(seed, steps, verbose);
        let result = sim.run().await;
        (result, sim)
    });
    // Tasks still holding logs go before the directories do.
    drop(runtime);
    let Sim { shape, trace, stats, .. } = sim;
    (result, shape, trace, stats)
}

impl Sim {
    fn new(seed: u64, steps: usize, verbose: bool) -> Sim {
        let mut rng = Rng::new(seed);
        let shape = Shape::of(&mut rng);
        let clock = Arc::new(ManualClock::new(1_000_000));
        let (controller, epochs) = Controller::bootstrap(&shape);
        let latest = controller.history.len() - 1;
        let wire = Arc::new(Mutex::new(Wire::default()));
        let nodes =
            (1..=shape.nodes as i32).map(|id| Node::new(BrokerId(id), epochs[id as usize - 1], latest)).collect();
        let parts = (0..shape.partitions).map(|p| Track::new(TopicPartition::new(TOPIC, p as i32))).collect();
        let readers = [false, true]
            .into_iter()
            .map(|stale_metadata| Reader { stale_metadata, parts: vec![ReaderPartition::default(); shape.partitions] })
            .collect();
        let mut sim = Sim {
            seed,
            rng,
            shape,
            steps,
            verbose,
            clock,
            controller,
            nodes,
            wire,
            produces: BTreeMap::new(),
            held: BTreeMap::new(),
            next_fetch_id: 1,
            results: Arc::default(),
            next_value: 1,
            parts,
            readers,
            violations: Vec::new(),
            trace: Vec::new(),
            step: 0,
            storm: true,
            phase_end: 0,
            stats: Stats { runs: 1, ..Stats::default() },
        };
        for i in 0..shape.nodes {
            sim.open(i);
            sim.reconcile(i).expect("the first partition states apply");
        }
        sim
    }

    fn note(&mut self, line: String) {
        let line = format!("[{:>3} t={}] {line}", self.step, self.clock.now_ms() - 1_000_000);
        if self.verbose {
            eprintln!("{line}");
        }
        self.trace.push(line);
    }

    fn violation(&mut self, message: String) {
        self.violations.push(message);
    }

    async fn run(&mut self) -> Result<(), String> {
        let shape = self.shape;
        self.note(format!("seed {} {shape:?}", self.seed));
        self.settle(TICK).await;
        self.check()?;
        for step in 0..self.steps {
            self.step = step;
            self.random_step().await?;
            self.settle(TICK).await;
            self.check()?;
            self.stats.steps += 1;
        }
        self.step = self.steps;
        self.converge().await
    }

    /// Lets every task run until all are idle, then `tokio_time` of tokio time pass; tidies the
    /// wire and takes the produces' answers.
    async fn settle(&mut self, tokio_time: Duration) {
        tokio::time::sleep(tokio_time).await;
        lock(&self.wire).tidy();
        self.held.retain(|_, (_, task)| !task.is_finished());
        let mut done = std::mem::take(&mut *lock(&self.results));
        done.sort_by_key(|(id, _)| *id);
        for (id, result) in done {
            let Some(produce) = self.produces.remove(&id) else { continue };
            match result {
                Ok(()) => {
                    self.note(format!(
                        "acks=all v{id} at {}-{} offset {} acknowledged by {}",
                        TOPIC, produce.part, produce.offset, produce.node
                    ));
                    self.stats.acked_all += 1;
                    let track = &mut self.parts[produce.part];
                    if let Some(other) = track.acked.insert(produce.offset, produce.value) {
                        self.violations.push(format!(
                            "{}: offset {} acknowledged twice, as v{other} and v{}",
                            track.tp, produce.offset, produce.value
                        ));
                    }
                    track.new_acks.push((produce.offset, produce.value));
                }
                Err(e) => {
                    self.note(format!("acks=all v{id} failed: {e}"));
                    self.stats.waits_failed += 1;
                }
            }
        }
    }
}

/// Broker `id`'s replica manager, if it runs.
fn manager_of(nodes: &[Node], id: BrokerId) -> Option<&ReplicaManager> {
    nodes.get(usize::try_from(id.0 - 1).ok()?)?.manager.as_deref()
}

fn ids(brokers: &[BrokerId]) -> Vec<i32> {
    brokers.iter().map(|b| b.0).collect()
}

fn sorted(brokers: &[BrokerId]) -> Vec<BrokerId> {
    let mut v = brokers.to_vec();
    v.sort();
    v
}
