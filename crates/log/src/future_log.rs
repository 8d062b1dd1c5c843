//! Moving a partition's log to another of the node's log directories (AlterReplicaLogDirs), as
//! Kafka's future replica does: a *future* log is created in the destination directory, named
//! `<topic>-<partition>.<32 hex digits>-future`; [`copy_step`] appends to it, a bounded chunk at a
//! time, the batches of the current log it lacks (offsets, epochs and producer state kept, as a
//! follower's append); once it has caught up, [`LogManager::swap_in_future`] makes it the
//! current log under the partition's lock, so no append is lost while produce goes on.
//!
//! The swap, crash-safely: the future log is closed (every file synced), the current log's
//! directory renamed `<topic>-<partition>.<hex>-delete` (its parent synced), then the future's
//! renamed `<topic>-<partition>` (its parent synced), and the log reopened there in place of the
//! current one inside the partition's [`SharedLog`], so every holder of the log sees the moved
//! one. The `-delete` directory is removed last. A crash between the two renames leaves a
//! `-delete` directory, a future and no current log: [`finish_interrupted_swaps`] completes the
//! swap at the next start (Kafka renames in the other order and asks the operator to delete one
//! of two current logs). A crash at any other moment leaves a future log, which is loaded as one
//! and whose copy resumes, as Kafka's `LogManager.loadLogs` keeps `-future` directories.
//!
//! What it is not: who copies when (the replication layer's mover calls [`copy_step`] and the
//! swap, and holds the copies to `replica.alter.log.dirs.io.max.bytes.per.second`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use strand_base::TopicPartition;
use strand_protocol::records::RecordBatches;

use crate::dir::PartitionMetadata;
use crate::log::{Log, LogCheckpoints};
use crate::manager::{LogManager, SharedLog, lock, parse_partition_dir};
use crate::{LogError, Result};

/// The suffix of a future log's directory name.
pub const FUTURE_DIR_SUFFIX: &str = "-future";
/// The suffix of a replaced log's directory name, removed once the swap is durable.
pub const DELETE_DIR_SUFFIX: &str = "-delete";
/// The most bytes one [`copy_step`] reads from the current log (the first batch is read whole).
pub const COPY_STEP_BYTES_MAX: u64 = 1024 * 1024;

/// The most partitions not hosted yet whose log dir AlterReplicaLogDirs can remember.
pub const PREFERRED_DIRS_MAX: usize = 10_000;

/// What one [`copy_step`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyStep {
    /// The future log's end is the current log's.
    pub caught_up: bool,
    /// The bytes read from the current log (what a throttle counts).
    pub copied_bytes: u64,
}

/// What [`LogManager::create_future`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FutureCreated {
    /// The partition's log is already in the destination: nothing to move (a future log
    /// elsewhere, if any, was removed, cancelling its move, as Kafka does).
    AlreadyThere,
    /// A future log in the destination already exists: its move goes on.
    Moving,
    /// A new future log: the caller starts copying into it.
    Created,
}

impl LogManager {
    /// The index of the configured log directory `path` names (as configured, or as the same
    /// absolute path, as Kafka compares them).
    pub fn dir_index(&self, path: &Path) -> Option<usize> {
        let absolute = |p: &Path| std::path::absolute(p).ok();
        let wanted = absolute(path);
        self.dirs.iter().position(|d| d.path == path || (wanted.is_some() && absolute(&d.path) == wanted))
    }

    /// Whether the directory at `index` is offline (a failed sync took it).
    pub fn is_dir_offline(&self, index: usize) -> bool {
        self.dirs.get(index).is_none_or(|d| d.health.is_offline())
    }

    /// Starts moving `tp`'s log to the directory at `dest` (Kafka's
    /// `Partition.maybeCreateFutureReplica`): a future log there, empty, with the current log's
    /// config and topic id. A future log in another directory is removed first. A new future
    /// log is refused (DirOffline) while any directory is offline, as Kafka refuses it.
    pub fn create_future(&mut self, tp: &TopicPartition, dest: usize) -> Result<FutureCreated> {
        let (current_index, current) = match self.logs.get(tp) {
            Some((index, log)) => (*index, Arc::clone(log)),
            None => return Err(LogError::Invalid(format!("{tp} has no log on this node"))),
        };
        match self.futures.get(tp) {
            Some((index, _)) if *index == dest => return Ok(FutureCreated::Moving),
            Some(_) => self.remove_future(tp)?,
            None => {}
        }
        if current_index == dest {
            return Ok(FutureCreated::AlreadyThere);
        }
        // As Kafka's `getOrCreateLog` for a future log: not while a dir is offline, so that no
        // partition gets future logs in two dirs (one unseen, in the offline dir).
        if let Some(offline) = self.dirs.iter().find(|d| d.health.is_offline()) {
            offline.health.check(&offline.path)?;
        }
        let dir = &self.dirs[dest];
        let (config, metadata) = {
            let log = lock(&current)?;
            let pending = log.pending_partition_metadata().map(PartitionMetadata::new);
            (log.config().clone(), pending.map_or_else(|| PartitionMetadata::read(log.dir()), |m| Ok(Some(m)))?)
        };
        let name = format!("{tp}.{}{FUTURE_DIR_SUFFIX}", unique_suffix(tp, self.clock.now_ms()));
        let path = dir.path.join(name);
        let checkpoints = LogCheckpoints { clean_shutdown: true, ..Default::default() };
        let mut log = Log::open(&path, config, checkpoints, self.clock.clone())?;
        log.set_dir_health(Arc::clone(&dir.health));
        if let Some(metadata) = metadata {
            metadata.write(&path)?;
        }
        self.futures.insert(tp.clone(), (dest, Arc::new(Mutex::new(log))));
        Ok(FutureCreated::Created)
    }

    /// Remembers `dest` as the directory to create `tp`'s log in when it comes (Kafka's
    /// `maybeUpdatePreferredLogDir`). Past [`PREFERRED_DIRS_MAX`] partitions, forgets nothing and
    /// remembers no more.
    pub fn set_preferred_dir(&mut self, tp: &TopicPartition, dest: usize) {
        if self.preferred_dirs.len() < PREFERRED_DIRS_MAX || self.preferred_dirs.contains_key(tp) {
            self.preferred_dirs.insert(tp.clone(), dest);
        }
    }

    /// The future log of `tp`, if it is moving.
    pub fn future(&self, tp: &TopicPartition) -> Option<SharedLog> {
        self.futures.get(tp).map(|(_, log)| Arc::clone(log))
    }

    /// Every future log, by partition.
    pub fn futures(&self) -> Vec<(TopicPartition, SharedLog)> {
        self.futures.iter().map(|(tp, (_, log))| (tp.clone(), Arc::clone(log))).collect()
    }

    /// Stops moving `tp`: its future log closed and its directory deleted.
    pub fn remove_future(&mut self, tp: &TopicPartition) -> Result<()> {
        let Some((_, future)) = self.futures.remove(tp) else { return Ok(()) };
        let dir = {
            let mut log = lock(&future)?;
            log.abort_cleaning();
            log.dir().to_owned()
        };
        std::fs::remove_dir_all(&dir).map_err(|e| LogError::io(&dir, e))
    }

    /// Makes `future` (the future log of `tp`) the current log, under the current log's lock:
    /// what was appended since the last [`copy_step`] is copied first, so the two logs are equal
    /// when they change places (see the module doc). Returns `false`, doing nothing, if `future`
    /// is no longer `tp`'s future log (its move was cancelled or the partition deleted).
    pub fn swap_in_future(&mut self, tp: &TopicPartition, future: &SharedLog) -> Result<bool> {
        let dest = match self.futures.get(tp) {
            Some((index, log)) if Arc::ptr_eq(log, future) => *index,
            _ => return Ok(false),
        };
        let Some(current) = self.get(tp) else { return Ok(false) };
        let dest_dir = self.dirs[dest].path.clone();
        let replaced = {
            let mut current_log = lock(&current)?;
            let mut future_log = lock(future)?;
            while !copy_step(&current_log, &mut future_log, COPY_STEP_BYTES_MAX)?.caught_up {}
            align_with(&current_log, &mut future_log)?;
            let (mut moved, delete_dir) = swap_dirs(tp, &mut current_log, &mut future_log, &dest_dir)?;
            moved.set_dir_health(Arc::clone(&self.dirs[dest].health));
            (std::mem::replace(&mut *current_log, moved), delete_dir)
        };
        self.futures.remove(tp);
        self.logs.insert(tp.clone(), (dest, current));
        let (replaced, delete_dir) = replaced;
        // Its files are closed here; a fetch under way keeps its own descriptor.
        drop(replaced);
        if let Err(e) = std::fs::remove_dir_all(&delete_dir) {
            // The next start removes it.
            tracing::warn!("removing {} after moving {tp}: {e}", delete_dir.display());
        }
        self.checkpoint()?;
        Ok(true)
    }
}

/// Appends to `future` what `current` has past `future`'s end, at most `max_bytes` of it (the
/// first batch whole), and says whether `future` has caught up (its end is `current`'s). Like a
/// follower, `future` is first truncated where it diverges from `current` (the current log was
/// truncated since: this node follows a leader), and started over at `current`'s log start
/// offset if retention or DeleteRecords left its end behind it.
pub fn copy_step(current: &Log, future: &mut Log, max_bytes: u64) -> Result<CopyStep> {
    if let Some(epoch) = future.epoch_cache().latest_epoch() {
        let (_, end) = current.epoch_cache().end_offset_for(epoch, current.log_end_offset());
        if end < 0 {
            future.truncate_fully_and_start_at(current.log_start_offset())?;
        } else if end < future.log_end_offset() {
            future.truncate_to(end)?;
        }
    }
    if future.log_end_offset() > current.log_end_offset() {
        future.truncate_to(current.log_end_offset())?;
    }
    if future.log_end_offset() < current.log_start_offset() {
        future.truncate_fully_and_start_at(current.log_start_offset())?;
    }
    let from = future.log_end_offset();
    if from == current.log_end_offset() {
        return Ok(CopyStep { caught_up: true, copied_bytes: 0 });
    }
    let Some(slice) = current.read(from, max_bytes, None)? else {
        return Err(LogError::Invalid(format!(
            "nothing to copy at {from} below the log end {}",
            current.log_end_offset()
        )));
    };
    let bytes = slice.read().map_err(|e| LogError::io(current.dir(), e))?;
    for batch in RecordBatches::new(bytes) {
        let batch = batch.map_err(|e| LogError::InvalidBatch(format!("copying to the future log: {e}")))?;
        if batch.last_offset() >= future.log_end_offset() {
            future.append_as_follower(&batch)?;
        }
    }
    Ok(CopyStep { caught_up: future.log_end_offset() == current.log_end_offset(), copied_bytes: slice.len })
}

/// What the future log takes over from the current one beside its batches: the epochs started
/// at its end (a leader's epoch recorded before it appended), the log start offset and config.
fn align_with(current: &Log, future: &mut Log) -> Result<()> {
    let latest = future.epoch_cache().latest_epoch();
    for entry in current.epoch_cache().entries().iter().filter(|e| latest.is_none_or(|l| e.epoch > l)) {
        future.maybe_assign_epoch_start_offset(entry.epoch, entry.start_offset)?;
    }
    future.advance_log_start_offset(current.log_start_offset())?;
    future.set_config(current.config().clone());
    Ok(())
}

/// The two renames of a swap (see the module doc); returns the log reopened in `dest_dir`, and
/// the `-delete` directory `current`'s files are in.
fn swap_dirs(tp: &TopicPartition, current: &mut Log, future: &mut Log, dest_dir: &Path) -> Result<(Log, PathBuf)> {
    future.close()?;
    current.abort_cleaning();
    let checkpoints = LogCheckpoints {
        recovery_point: future.log_end_offset(),
        log_start_offset: future.log_start_offset(),
        clean_shutdown: true,
    };
    let current_dir = current.dir().to_owned();
    let suffix = unique_suffix(tp, current.clock().now_ms());
    let delete_dir = current_dir.with_file_name(format!("{tp}.{suffix}{DELETE_DIR_SUFFIX}"));
    rename_synced(&current_dir, &delete_dir)?;
    let moved_dir = dest_dir.join(tp.to_string());
    if let Err(e) = rename_synced(future.dir(), &moved_dir) {
        // Put the current log back: the move failed, nothing is lost.
        rename_synced(&delete_dir, &current_dir)?;
        return Err(e);
    }
    match Log::open(&moved_dir, future.config().clone(), checkpoints, current.clock().clone()) {
        Ok(moved) => Ok((moved, delete_dir)),
        Err(e) => {
            // Both back: the current log, still open on its files, goes on where it was.
            rename_synced(&moved_dir, future.dir())?;
            rename_synced(&delete_dir, &current_dir)?;
            Err(e)
        }
    }
}

/// Renames a directory and syncs the parents of both names, so the rename survives a crash.
fn rename_synced(from: &Path, to: &Path) -> Result<()> {
    std::fs::rename(from, to).map_err(|e| LogError::io(from, e))?;
    for parent in [from.parent(), to.parent()].into_iter().flatten() {
        crate::file::sync_dir(parent).map_err(|e| LogError::io(parent, e))?;
    }
    Ok(())
}

/// Completes, before the logs are loaded, a swap a crash interrupted between its two renames:
/// for each `-delete` directory whose partition has no current log in any of `log_dirs` but a
/// future log, the future (complete and synced before the first rename) is renamed current.
/// `-delete` directories are then removed. A directory that cannot be read is left as it is (it
/// loads offline); a rename that fails keeps the `-delete` directory.
pub(crate) fn finish_interrupted_swaps(log_dirs: &[PathBuf]) {
    let mut current = Vec::new();
    let mut futures = Vec::new();
    let mut deletes = Vec::new();
    for log_dir in log_dirs {
        let Ok(entries) = std::fs::read_dir(log_dir) else { continue };
        for path in entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()) {
            if let Some(tp) = parse_partition_dir(&path) {
                current.push(tp);
            } else if let Some(tp) = parse_future_dir(&path) {
                futures.push((tp, path));
            } else if let Some(tp) = parse_delete_dir(&path) {
                deletes.push((tp, path));
            }
        }
    }
    for (tp, delete_dir) in deletes {
        if !current.contains(&tp) {
            let Some((_, future_dir)) = futures.iter().find(|(t, _)| *t == tp) else { continue };
            let moved_dir = future_dir.with_file_name(tp.to_string());
            if let Err(e) = rename_synced(future_dir, &moved_dir) {
                tracing::warn!("completing the interrupted move of {tp}: {e}");
                continue;
            }
            tracing::info!("completed the move of {tp} to {} a crash interrupted", moved_dir.display());
            current.push(tp);
        }
        if let Err(e) = std::fs::remove_dir_all(&delete_dir) {
            tracing::warn!("removing {}: {e}", delete_dir.display());
        }
    }
}

/// `orders-3.<hex>-future` → (orders, 3).
pub fn parse_future_dir(path: &Path) -> Option<TopicPartition> {
    parse_suffixed(path, FUTURE_DIR_SUFFIX)
}

/// `orders-3.<hex>-delete` → (orders, 3).
pub fn parse_delete_dir(path: &Path) -> Option<TopicPartition> {
    parse_suffixed(path, DELETE_DIR_SUFFIX)
}

fn parse_suffixed(path: &Path, suffix: &str) -> Option<TopicPartition> {
    let name = path.file_name()?.to_str()?.strip_suffix(suffix)?;
    let (partition_dir, unique) = name.rsplit_once('.')?;
    if unique.is_empty() || !unique.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    parse_partition_dir(Path::new(partition_dir))
}

/// 32 hex digits, where Kafka puts a random UUID without dashes: the log crate takes no
/// randomness, and unique per partition and millisecond is all the name needs.
fn unique_suffix(tp: &TopicPartition, now_ms: i64) -> String {
    static SEQUENCE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let sequence = SEQUENCE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let text = format!("{tp}|{now_ms}|{sequence}");
    let a = crc32c::crc32c(text.as_bytes());
    format!("{a:08x}{:08x}{now_ms:016x}", crc32c::crc32c_append(a, &sequence.to_be_bytes()))
}
