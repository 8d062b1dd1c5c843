//! Flushing: [`Log::flush_to`] (one sync for every append before it: group commit), the same
//! taken apart so the files sync without the log's lock ([`Log::begin_flush`], [`LogFlush::sync`],
//! [`Log::complete_flush`]), the sync owed after a roll, and `flush.ms`.

use std::path::Path;
use std::sync::Arc;

use strand_base::Offset;

use super::Log;
use crate::Result;
use crate::file::{DirHealth, SyncTarget};

/// A flush begun under the log's lock ([`Log::begin_flush`]), to be synced without it.
#[derive(Debug)]
pub struct LogFlush {
    end: Offset,
    rewrites: u64,
    files: Vec<SyncTarget>,
    /// The directory generation and the epoch cache's unsynced writes its files include a sync
    /// of, if they include the directory; and whether they include the log dir holding it.
    dir_generation: Option<(u64, u64)>,
    parent: bool,
    /// Taken offline if a sync fails.
    health: Arc<DirHealth>,
}

impl LogFlush {
    /// `fdatasync` of every file; needs no lock (appends may go on meanwhile: what they add after
    /// `end` is simply not covered).
    pub fn sync(self) -> Result<SyncedFlush> {
        self.health.check(self.files.first().map_or(Path::new(""), |f| f.path()))?;
        for file in &self.files {
            if let Err(e) = file.sync() {
                self.health.fail(&e.to_string());
                return Err(e);
            }
        }
        Ok(SyncedFlush {
            end: self.end,
            rewrites: self.rewrites,
            dir_generation: self.dir_generation,
            parent: self.parent,
        })
    }

    /// What it syncs, in order (the directory last, once the files in it are written).
    pub fn targets(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(SyncTarget::path)
    }
}

/// A [`LogFlush`] whose files are synced: what [`Log::complete_flush`] takes.
#[derive(Debug)]
pub struct SyncedFlush {
    end: Offset,
    rewrites: u64,
    dir_generation: Option<(u64, u64)>,
    parent: bool,
}

impl Log {
    /// The offset a roll closed segments below without syncing them, once: the caller syncs up
    /// to it without the lock (`manager::flush_unlocked`, on another thread), which also moves
    /// the recovery point past them, as Kafka's flush after a roll does. `None` when nothing was
    /// rolled since the last call, or a flush already covers the rolled segments.
    pub fn take_roll_flush(&mut self) -> Option<Offset> {
        self.roll_flush.take().filter(|&offset| offset > self.recovery_point)
    }

    /// Makes everything below `offset` durable with one `fdatasync` per segment written since the
    /// recovery point, and advances the recovery point. Returns at once if it already covers
    /// `offset`: this is what lets one sync serve every waiting append (group commit).
    pub fn flush_to(&mut self, offset: Offset) -> Result<()> {
        self.check_online()?;
        if let Some(flush) = self.begin_flush(offset) {
            let synced = flush.sync()?;
            self.complete_flush(synced);
        }
        Ok(())
    }

    /// The first step of a flush that does not hold the log's lock while the files sync: the
    /// files of every segment written since the recovery point, and the log end offset they will
    /// make durable. `None` if the recovery point already covers `offset`.
    pub fn begin_flush(&self, offset: Offset) -> Option<LogFlush> {
        let end = self.log_end_offset();
        if offset.min(end) <= self.recovery_point {
            return None;
        }
        let from = self.segments.range(..=self.recovery_point).next_back().map(|(b, _)| *b).unwrap_or(Offset::MIN);
        let mut files: Vec<SyncTarget> = self.segments.range(from..).flat_map(|(_, s)| s.sync_targets()).collect();
        let mut dir_generation = None;
        let epoch_writes = self.epoch_cache.unsynced_writes();
        if self.dir_synced != self.dir_generation || self.epoch_writes_synced != epoch_writes {
            files.push(SyncTarget::directory(&self.dir));
            dir_generation = Some((self.dir_generation, epoch_writes));
        }
        let parent = self.parent_entry_unsynced;
        if parent {
            files.push(SyncTarget::directory(self.dir.parent().unwrap_or(Path::new("."))));
        }
        let health = Arc::clone(&self.health);
        Some(LogFlush { end, rewrites: self.rewrites, files, dir_generation, parent, health })
    }

    /// The last step: advances the recovery point to what `synced` covered, unless the log was
    /// truncated or had segments replaced since the flush began, or a later flush got further.
    pub fn complete_flush(&mut self, synced: SyncedFlush) {
        let SyncedFlush { end, rewrites, dir_generation, parent } = synced;
        if let Some((generation, epoch_writes)) = dir_generation {
            self.dir_synced = self.dir_synced.max(generation);
            self.epoch_writes_synced = self.epoch_writes_synced.max(epoch_writes);
        }
        if parent {
            self.parent_entry_unsynced = false;
        }
        if rewrites != self.rewrites || end <= self.recovery_point {
            return;
        }
        self.recovery_point = end;
        if end == self.log_end_offset() {
            self.unflushed_records = 0;
            self.first_unflushed_ms = None;
        }
    }

    /// What flushes through `manager::flush_unlocked` take turns on.
    pub(crate) fn flush_turn(&self) -> Arc<std::sync::Mutex<()>> {
        Arc::clone(&self.flush_turn)
    }

    /// Honours `flush.ms` when nothing is appended: the caller's timer calls this.
    pub fn maybe_flush_by_time(&mut self) -> Result<()> {
        let now = self.clock.now_ms();
        if self.first_unflushed_ms.is_some_and(|first| now - first >= self.config.flush_interval_ms) {
            self.flush_to(self.log_end_offset())?;
        }
        Ok(())
    }
}
