//! The operations a run draws, the model of what the log has promised, and the run itself.
//!
//! The promise (design §6, `Log::flush_to`): once a flush of the log up to its end returns `Ok`,
//! every record below that end survives a power cut, with the directory entries that name its
//! files (the segment's in the partition directory, the partition directory's in the log dir),
//! until the log itself removes it (a follower's truncation, retention or DeleteRecords moving
//! the log start offset). A clean shutdown flushes everything. The model keeps:
//! - `current`: the record the log holds at each offset now;
//! - `appended_at`: every value ever appended (each is unique) and the offset it was given;
//! - `acked`: the end the last successful flush covered, lowered by a truncation below it;
//! - `floor`: the log start offset retention or DeleteRecords set, below which nothing is owed
//!   (lowered with `acked` by a truncation below it, and to the end of a log a power cut cut
//!   below it).
//!
//! After every crash the recovered log must hold exactly `current` over `[floor, acked)`, and
//! nothing invented anywhere: each record it serves is one appended at that very offset, once.
//! Past `acked` a segment's lost tail may leave a gap before a later segment's surviving records
//! (as in Kafka); below `floor` segments retention deleted may come back (their deletion is not
//! synced, as in Kafka; the log start offset checkpoint hides them once written). An idempotent
//! producer's batch the recovered log holds is known to its producer state too: a retry of it is
//! a duplicate at that batch's offset, never a second copy; and a retry of one the log lost is
//! never taken for a duplicate (its producer would count as written what the log does not hold).
//! What the recovered log holds is then the new `current` (it is on disk now), and the run goes
//! on from it.
//!
//! A power cut falls between two operations (`Crash`) or inside one (`CrashDuring`), right after
//! any of its syncs in the order the log makes them: a flush with some of its files synced and
//! not others, a truncation with its cut segment synced and not its directory, a clean shutdown
//! with its checkpoints written and not its marker. An operation cut short never returned, so it
//! promises nothing new: a flush's end and a clean shutdown's are not owed (`acked` is not
//! raised). What it began removing (a truncation's tail, the head retention or DeleteRecords
//! deletes) is owed no more, as if it had returned: it may come back or not, and what comes back
//! must still be records appended at those offsets. An append cut short is recorded as appended
//! (`appended_at`): a batch of it that survives is not taken for invented, one lost is not owed.
//! A cut drawn past an operation's last sync falls at its end: the operation returned, and what
//! it promised holds. Power cuts do not nest.
//!
//! The page cache writes back a prefix of each file's unsynced bytes, and a directory's entries
//! change only when it is synced (a real file system may persist a rename or an unlink earlier;
//! that is not drawn).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};

use bytes::BytesMut;
use proptest::prelude::*;
use strand_base::{Offset, ProducerId, SystemClock, TopicPartition, Uuid};
use strand_log::file::watch_syncs;
use strand_log::log::ValidatedBatch;
use strand_log::manager::{SharedLog, flush_unlocked, lock};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{LogConfig, LogManager, NodeIdentity};
use strand_protocol::records::{NewRecord, RecordBatch, RecordBatchBuilder, RecordBatches};

use super::{Disk, Dropped, Rng, tempdir, watch, watch_and_cut};

/// One step of a run.
#[derive(Debug, Clone)]
pub enum Op {
    /// The leader appends a batch of `records` records of `pad` more bytes each; if
    /// `idempotent`, from an idempotent producer of its own (sequence 0).
    Append { records: usize, pad: usize, idempotent: bool },
    /// A follower appends a batch of `records` records the leader wrote at its log end
    /// (`Log::append_as_follower`).
    Replicate { records: usize, pad: usize },
    /// A flush to the log end (`acks=all`): through `Log::flush_to`, or as the broker flushes,
    /// without the log's lock (`manager::flush_unlocked`).
    Flush { unlocked: bool },
    /// A follower's truncation (`Log::truncate_to`) to the start of the batch `back` offsets
    /// below the log end (a follower truncates to a leader epoch's end offset or its high
    /// watermark, both batch boundaries), never below the log start offset.
    Truncate { back: i64 },
    /// Retention or DeleteRecords: the log start offset `forward` offsets on
    /// (`Log::advance_log_start_offset`), deleting the segments wholly below it.
    DeleteBefore { forward: i64 },
    /// Retention by size (`Log::apply_retention`, `retention.bytes` of two segments), below the
    /// acknowledged offset (the high watermark).
    Retention,
    /// A producer-state snapshot (`ProducerStateManager::take_snapshot`).
    Snapshot,
    /// The log manager's recovery-point, log-start-offset and cleaner-offset checkpoints.
    Checkpoint,
    /// A new leader epoch starting at the log end.
    NewEpoch,
    /// A power cut (`seed` draws how much of each unsynced tail the page cache wrote back), then
    /// a restart from what the disk kept.
    Crash { seed: u64 },
    /// A clean shutdown and a restart.
    Restart,
    /// A power cut inside `op` (neither a crash itself): right after its `after`-th sync (at
    /// least the first), or at its end if it makes fewer; then a restart from what the disk kept
    /// (`seed` as in `Crash`). `Restart` cut short is a shutdown that never finished.
    CrashDuring { op: Box<Op>, after: usize, seed: u64 },
}

/// Any one operation, appends and flushes most often.
pub fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        steps().iter().sum::<u32>() => step(steps()),
        1 => any::<u64>().prop_map(|seed| Op::Crash { seed }),
        CUT_WEIGHT => step(cut_steps())
            .prop_flat_map(|op| (1..=syncs_max(&op), any::<u64>(), Just(op)))
            .prop_map(|(after, seed, op)| Op::CrashDuring { op: Box::new(op), after, seed }),
    ]
}

/// About the most syncs `op` makes (a flush of a few segments, a clean shutdown), for where a
/// power cut inside it falls: one making more is cut within these only.
fn syncs_max(op: &Op) -> usize {
    match op {
        Op::Append { .. } | Op::Replicate { .. } | Op::DeleteBefore { .. } | Op::Retention => 2,
        Op::Snapshot | Op::NewEpoch => 1,
        Op::Truncate { .. } | Op::Checkpoint => 6,
        Op::Flush { .. } => 12,
        Op::Restart => 24,
        Op::Crash { .. } | Op::CrashDuring { .. } => 1,
    }
}

/// How often a power cut falls inside an operation, against 1 for one between two and 26 for
/// the other operations together: about one operation in fifteen, so most runs cut a few short
/// (and a run costs about what it did before these were drawn).
const CUT_WEIGHT: u32 = 2;

/// The weights of the operations that are not power cuts, in the order of [`step`].
type Weights = [u32; 10];

/// Between power cuts: appends and flushes most often.
fn steps() -> Weights {
    [10, 3, 4, 2, 1, 1, 1, 2, 1, 1]
}

/// Cut short by a power cut: those that sync most often (an append syncs only when it rolls).
fn cut_steps() -> Weights {
    [2, 1, 4, 2, 1, 1, 1, 2, 1, 3]
}

/// An operation that is not a power cut, drawn with `weights`.
fn step(weights: Weights) -> impl Strategy<Value = Op> {
    let [append, replicate, flush, truncate, delete_before, retention, snapshot, checkpoint, new_epoch, restart] =
        weights;
    prop_oneof![
        append => (1..5usize, 0..80usize, any::<bool>())
            .prop_map(|(records, pad, idempotent)| Op::Append { records, pad, idempotent }),
        replicate => (1..5usize, 0..80usize).prop_map(|(records, pad)| Op::Replicate { records, pad }),
        flush => any::<bool>().prop_map(|unlocked| Op::Flush { unlocked }),
        truncate => (0..40i64).prop_map(|back| Op::Truncate { back }),
        delete_before => (0..40i64).prop_map(|forward| Op::DeleteBefore { forward }),
        retention => Just(Op::Retention),
        snapshot => Just(Op::Snapshot),
        checkpoint => Just(Op::Checkpoint),
        new_epoch => Just(Op::NewEpoch),
        restart => Just(Op::Restart),
    ]
}

/// A run's operations (it always ends with a crash).
pub fn ops() -> impl Strategy<Value = Vec<Op>> {
    proptest::collection::vec(op(), 1..80)
}

/// Small segments, so runs roll often; retention by size keeps two of them.
pub fn config() -> LogConfig {
    LogConfig {
        segment_bytes: 700,
        segment_index_bytes: 1024,
        index_interval_bytes: 64,
        retention_bytes: 1400,
        ..LogConfig::default()
    }
}

fn identity() -> NodeIdentity {
    NodeIdentity { cluster_id: "c".into(), node_id: 1 }
}

fn tp() -> TopicPartition {
    TopicPartition::new("t", 0)
}

const TOPIC_ID: Uuid = Uuid([7; 16]);

/// Runs `ops`, then a last crash; `Err` says what a recovered log lost or invented, and after
/// which operation.
pub fn run(ops: &[Op], dropped: Dropped) -> Result<(), String> {
    let mut run = Run::new(dropped)?;
    let last = Op::Crash { seed: ops.len() as u64 };
    for (i, op) in ops.iter().chain([&last]).enumerate() {
        run.apply(op).map_err(|e| format!("after operation {i} ({op:?}): {e}"))?;
    }
    Ok(())
}

/// A run under way: the log dir (a new one after each crash), the disk watching it, the log,
/// and the model.
struct Run {
    root: tempfile::TempDir,
    disk: Arc<Mutex<Disk>>,
    dropped: Dropped,
    manager: Option<LogManager>,
    log: SharedLog,
    current: BTreeMap<Offset, String>,
    /// Where each batch of `current` starts.
    batches: BTreeSet<Offset>,
    appended_at: HashMap<String, Offset>,
    acked: Offset,
    floor: Offset,
    epoch: i32,
    next_value: u64,
    next_producer: i64,
    /// Every idempotent producer's batch: its first offset when appended and its record count.
    producers: BTreeMap<ProducerId, (Offset, usize)>,
}

impl Drop for Run {
    fn drop(&mut self) {
        watch_syncs(None);
    }
}

fn now_ms() -> i64 {
    strand_base::Clock::now_ms(&SystemClock)
}

fn batch(values: &[String], producer: Option<ProducerId>) -> ValidatedBatch {
    let mut builder = RecordBatchBuilder::new();
    if let Some(producer) = producer {
        builder = builder.producer(producer, 0, 0);
    }
    let timestamp_ms = now_ms();
    for value in values {
        builder
            .append(&NewRecord { timestamp_ms, key: None, value: Some(value.as_bytes()), headers: &[] })
            .expect("record");
    }
    ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid")
}

impl Run {
    fn new(dropped: Dropped) -> Result<Run, String> {
        let root = tempdir();
        let disk = Arc::new(Mutex::new(Disk::durable(root.path(), dropped)));
        watch(&disk);
        let dirs = [root.path().to_owned()];
        let mut manager =
            LogManager::open(&dirs, &identity(), config(), Arc::new(SystemClock)).map_err(|e| e.to_string())?;
        let log = manager.get_or_create(&tp(), TOPIC_ID, config()).map_err(|e| e.to_string())?;
        Ok(Run {
            root,
            disk,
            dropped,
            manager: Some(manager),
            log,
            current: BTreeMap::new(),
            batches: BTreeSet::new(),
            appended_at: HashMap::new(),
            acked: 0,
            floor: 0,
            epoch: 0,
            next_value: 0,
            next_producer: 1000,
            producers: BTreeMap::new(),
        })
    }

    /// Appends a batch of `records` new values (of `pad` more bytes each), from `producer` with
    /// sequence 0 if any, and records it in the model; `Some(first offset)` if the log took it
    /// for a duplicate of a batch it holds (and appended nothing).
    fn append(
        &mut self,
        records: usize,
        pad: usize,
        producer: Option<ProducerId>,
    ) -> strand_log::Result<Option<Offset>> {
        let values: Vec<String> = (0..records).map(|_| self.value(pad)).collect();
        let context = AppendContext::client(VerificationGuard::SENTINEL);
        let info = lock(&self.log)?.append_as_leader(batch(&values, producer), self.epoch, context)?;
        if info.duplicate {
            return Ok(Some(info.first_offset));
        }
        if let Some(producer) = producer {
            self.producers.insert(producer, (info.first_offset, records));
        }
        self.batches.insert(info.first_offset);
        for (i, value) in values.into_iter().enumerate() {
            let offset = info.first_offset + i as i64;
            self.appended_at.insert(value.clone(), offset);
            self.current.insert(offset, value);
        }
        Ok(None)
    }

    /// A value never appended before, of `pad` more bytes.
    fn value(&mut self, pad: usize) -> String {
        self.next_value += 1;
        format!("v{} {}", self.next_value, "x".repeat(pad))
    }

    fn manager(&self) -> Result<&LogManager, String> {
        self.manager.as_ref().ok_or_else(|| "no log manager".to_owned())
    }

    fn apply(&mut self, op: &Op) -> Result<(), String> {
        let error = |e: strand_log::LogError| e.to_string();
        match *op {
            Op::Append { records, pad, idempotent } => {
                let producer = idempotent.then(|| {
                    self.next_producer += 1;
                    ProducerId(self.next_producer)
                });
                let appended = self.append(records, pad, producer).map_err(error)?;
                if let Some(first_offset) = appended {
                    return Err(format!("a new producer's batch was taken for a duplicate of {first_offset}"));
                }
            }
            Op::Flush { unlocked } => {
                let end = lock(&self.log).map_err(error)?.log_end_offset();
                if unlocked {
                    flush_unlocked(&self.log, end).map_err(error)?;
                } else {
                    lock(&self.log).map_err(error)?.flush_to(end).map_err(error)?;
                }
                // What a flush that returned Ok promises.
                self.acked = end;
            }
            Op::Truncate { back } => {
                let mut log = lock(&self.log).map_err(error)?;
                let (start, end) = (log.log_start_offset(), log.log_end_offset());
                let wanted = (end - back).max(start);
                let below = self.batches.range(start..=wanted).next_back();
                let target = below.or_else(|| self.batches.range(start..).next()).map_or(end, |&b| b.min(end));
                log.truncate_to(target).map_err(error)?;
                let end = log.log_end_offset();
                if end > target {
                    return Err(format!("truncated to {target}, the log still ends at {end}"));
                }
                self.current.split_off(&end);
                self.batches.split_off(&end);
                self.acked = self.acked.min(end);
                self.floor = self.floor.min(end);
            }
            Op::DeleteBefore { forward } => {
                let mut log = lock(&self.log).map_err(error)?;
                let target = (log.log_start_offset() + forward).min(log.log_end_offset());
                log.advance_log_start_offset(target).map_err(error)?;
                let start = log.log_start_offset();
                self.current = self.current.split_off(&start);
                self.floor = self.floor.max(start);
            }
            Op::Replicate { records, pad } => {
                let values: Vec<String> = (0..records).map(|_| self.value(pad)).collect();
                let mut log = lock(&self.log).map_err(error)?;
                let mut builder =
                    RecordBatchBuilder::new().base_offset(log.log_end_offset()).partition_leader_epoch(self.epoch);
                let timestamp_ms = now_ms();
                for value in &values {
                    let record = NewRecord { timestamp_ms, key: None, value: Some(value.as_bytes()), headers: &[] };
                    builder.append(&record).expect("record");
                }
                let batch = RecordBatch::parse(builder.build().expect("batch")).expect("batch");
                let info = log.append_as_follower(&batch).map_err(error)?;
                drop(log);
                self.batches.insert(info.first_offset);
                for (i, value) in values.into_iter().enumerate() {
                    let offset = info.first_offset + i as i64;
                    self.appended_at.insert(value.clone(), offset);
                    self.current.insert(offset, value);
                }
            }
            Op::Retention => {
                let mut log = lock(&self.log).map_err(error)?;
                log.apply_retention(self.acked).map_err(error)?;
                let start = log.log_start_offset();
                self.current = self.current.split_off(&start);
                self.floor = self.floor.max(start);
            }
            Op::Snapshot => {
                lock(&self.log).map_err(error)?.producer_state_mut().take_snapshot().map_err(error)?;
            }
            Op::Checkpoint => self.manager()?.checkpoint().map_err(error)?,
            Op::NewEpoch => {
                self.epoch += 1;
                let mut log = lock(&self.log).map_err(error)?;
                let end = log.log_end_offset();
                log.maybe_assign_epoch_start_offset(self.epoch, end).map_err(error)?;
            }
            Op::Crash { seed } => {
                watch_syncs(None);
                let image = self.crash_image(seed);
                self.restart_from(image)?;
            }
            Op::Restart => {
                self.shutdown()?;
                self.restart()?;
            }
            Op::CrashDuring { ref op, after, seed } => self.crash_during(op, after, seed)?,
        }
        Ok(())
    }

    /// A clean shutdown, which flushes everything.
    fn shutdown(&mut self) -> Result<(), String> {
        let end = lock(&self.log).map_err(|e| e.to_string())?.log_end_offset();
        let manager = self.manager.take().ok_or("no log manager")?;
        manager.shutdown(1).map_err(|e| e.to_string())?;
        self.acked = end;
        Ok(())
    }

    /// `op` with a power cut right after its `after`-th sync, or at its end, then a restart from
    /// what the disk kept.
    fn crash_during(&mut self, op: &Op, after: usize, seed: u64) -> Result<(), String> {
        let acked = self.acked;
        let cut = watch_and_cut(&self.disk, self.root.path(), after, seed);
        match op {
            Op::Crash { .. } | Op::CrashDuring { .. } => return Err(format!("a power cut inside {op:?}")),
            Op::Restart => self.shutdown()?,
            op => self.apply(op)?,
        }
        watch_syncs(None);
        let image = match cut.lock().expect("power cut").image.take() {
            Some(image) => {
                // The operation never returned: it promised nothing new (a flush's or a clean
                // shutdown's end is not owed), though what it began removing is not owed either.
                self.acked = self.acked.min(acked);
                image
            }
            None => self.crash_image(seed),
        };
        self.restart_from(image)
    }

    /// What a power cut now would leave, `seed` drawing how much of each unsynced tail the page
    /// cache wrote back.
    fn crash_image(&self, seed: u64) -> tempfile::TempDir {
        let image = tempdir();
        self.disk.lock().expect("disk").crash_image(self.root.path(), image.path(), &mut Rng::new(seed));
        image
    }

    /// Restarts from `image`, what a power cut left, on a disk that holds it all durably.
    fn restart_from(&mut self, image: tempfile::TempDir) -> Result<(), String> {
        self.manager = None;
        self.root = image;
        *self.disk.lock().expect("disk") = Disk::durable(self.root.path(), self.dropped);
        watch(&self.disk);
        self.restart()
    }

    /// Opens the log dir again and checks the recovered log against the model.
    fn restart(&mut self) -> Result<(), String> {
        let dirs = [self.root.path().to_owned()];
        let manager = LogManager::open(&dirs, &identity(), config(), Arc::new(SystemClock))
            .map_err(|e| format!("the node cannot start: {e}"))?;
        if !manager.offline_dirs().is_empty() {
            return Err(format!("the log dir is offline after the restart: {:?}", manager.offline_dirs()));
        }
        let mut manager = manager;
        self.log = match manager.get(&tp()) {
            Some(log) => log,
            None if self.acked <= self.floor => {
                manager.get_or_create(&tp(), TOPIC_ID, config()).map_err(|e| e.to_string())?
            }
            None => return Err(format!("the partition is gone, offsets {}..{} acknowledged", self.floor, self.acked)),
        };
        self.manager = Some(manager);
        self.check()
    }

    /// The recovered log against the model; it becomes the model's `current`.
    fn check(&mut self) -> Result<(), String> {
        let mut log = lock(&self.log).map_err(|e| e.to_string())?;
        let (start, end) = (log.log_start_offset(), log.log_end_offset());
        if end < self.acked {
            return Err(format!("log end {end} below the acknowledged {}", self.acked));
        }
        let mut served = BTreeMap::new();
        let mut batches = BTreeSet::new();
        let mut idempotent = Vec::new();
        let mut surviving = BTreeSet::new();
        let mut next = start;
        while next < end {
            // A read returns one segment's batches at most.
            let Some(slice) = log.read(next, u64::MAX, None).map_err(|e| e.to_string())? else { break };
            let before = next;
            for batch in RecordBatches::new(slice.read().map_err(|e| e.to_string())?) {
                let batch = batch.map_err(|e| e.to_string())?;
                batches.insert(batch.base_offset());
                let mut values = Vec::new();
                for record in batch.records().map_err(|e| e.to_string())?.iter() {
                    let record = record.map_err(|e| e.to_string())?;
                    let offset = batch.record_offset(&record);
                    let value = String::from_utf8_lossy(record.value().unwrap_or_default()).into_owned();
                    values.push(value.clone());
                    if offset < start {
                        continue;
                    }
                    if offset < next || self.appended_at.get(&value) != Some(&offset) {
                        return Err(format!(
                            "offset {offset} (next {next}) holds {value:?}, never appended there (segments {:?})",
                            log.segment_base_offsets()
                        ));
                    }
                    next = offset + 1;
                    served.insert(offset, value);
                }
                if batch.producer_id().0 >= 0 {
                    surviving.insert(batch.producer_id());
                }
                if batch.producer_id().0 >= 0 && batch.base_offset() >= start.max(self.floor) {
                    idempotent.push((batch.producer_id(), batch.base_offset(), values));
                }
            }
            if next == before {
                break;
            }
        }
        for offset in self.floor..self.acked {
            if served.get(&offset) != self.current.get(&offset) {
                return Err(format!(
                    "acknowledged offset {offset} holds {:?}, not {:?} (log {start}..{end}, acknowledged {}..{})",
                    served.get(&offset),
                    self.current.get(&offset),
                    self.floor,
                    self.acked
                ));
            }
        }
        // A producer's retry of a batch the log holds is a duplicate, whatever the crash took.
        for (producer, base, values) in idempotent {
            let context = AppendContext::client(VerificationGuard::SENTINEL);
            let retry = log.append_as_leader(batch(&values, Some(producer)), self.epoch, context);
            match retry {
                Ok(info) if info.duplicate && info.first_offset == base => {}
                Ok(info) if info.duplicate => {
                    return Err(format!(
                        "a retry of the batch at {base} was answered as a duplicate of a batch at {}",
                        info.first_offset
                    ));
                }
                Ok(info) => {
                    return Err(format!("a retry of the batch at {base} was appended again at {}", info.first_offset));
                }
                Err(e) => return Err(format!("a retry of the batch at {base} was refused: {e}")),
            }
        }
        drop(log);
        let gone: Vec<(ProducerId, usize)> = self
            .producers
            .iter()
            .filter(|(producer, (first, _))| !surviving.contains(*producer) && *first >= start.max(self.floor))
            .map(|(producer, (_, records))| (*producer, *records))
            .collect();
        self.current = served;
        self.batches = batches;
        // A log that starts over below the floor (a power cut took records up to it) owes
        // whatever is appended and acknowledged from its end on.
        self.floor = self.floor.min(end);
        // And a retry of a batch the log lost (never acknowledged, or truncated away) is never
        // taken for a duplicate: its producer would count as written what no replica holds.
        for (producer, records) in gone {
            if let Ok(Some(first_offset)) = self.append(records, 0, Some(producer)) {
                return Err(format!(
                    "a retry of a batch of producer {} the log lost was taken for a duplicate of {first_offset}",
                    producer.0
                ));
            }
        }
        Ok(())
    }
}

/// Whether `path` is the partition's directory or in it (for the drop filters).
pub fn in_partition(path: &Path) -> bool {
    path.components().any(|c| c.as_os_str() == "t-0")
}
