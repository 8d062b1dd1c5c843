//! The manager's snapshot files beside the log's segments: a snapshot taken at the map end
//! offset, snapshots deleted with their segments or as strays, and the state reloaded from the
//! latest readable one when the log is loaded or truncated (Kafka's `truncateAndReload`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use strand_base::Offset;

use super::ProducerStateManager;
use super::entry::ProducerStateEntry;
use super::snapshot::{DELETED_SUFFIX, list_snapshots, read_snapshot, snapshot_path, write_snapshot};
use super::transactions::TxnMetadata;
use crate::{LogError, Result};

/// Snapshot files and truncation.
impl ProducerStateManager {
    /// Writes a snapshot at the map end offset, unless one exists at or above it. Returns the
    /// file written.
    pub fn take_snapshot(&mut self) -> Result<Option<PathBuf>> {
        if self.map_end_offset <= self.last_snap_offset {
            return Ok(None);
        }
        let path = snapshot_path(&self.dir, self.map_end_offset);
        write_snapshot(&path, self.producers.values())?;
        self.snapshots.insert(self.map_end_offset);
        self.last_snap_offset = self.map_end_offset;
        Ok(Some(path))
    }

    /// The offsets of the snapshot files, ascending.
    pub fn snapshot_offsets(&self) -> impl Iterator<Item = Offset> + '_ {
        self.snapshots.iter().copied()
    }

    pub fn latest_snapshot_offset(&self) -> Option<Offset> {
        self.snapshots.last().copied()
    }

    pub fn oldest_snapshot_offset(&self) -> Option<Offset> {
        self.snapshots.first().copied()
    }

    /// Brings the state in line with a log that now spans `[log_start_offset, log_end_offset)`
    /// (Kafka's `truncateAndReload`): deletes snapshots outside `(log_start_offset,
    /// log_end_offset]`; then, unless the state already ends at `log_end_offset`, reloads it from
    /// the latest remaining snapshot (corrupt ones are deleted and the next older one tried), or
    /// starts empty at `log_start_offset`. The log then replays its batches from
    /// [`ProducerStateManager::map_end_offset`] to `log_end_offset` with
    /// [`AppendOrigin::Replication`](super::append::AppendOrigin::Replication).
    pub fn truncate_and_reload(&mut self, log_start_offset: Offset, log_end_offset: Offset, now_ms: i64) -> Result<()> {
        let out_of_range: Vec<Offset> =
            self.snapshots.iter().copied().filter(|&o| o > log_end_offset || o <= log_start_offset).collect();
        for offset in out_of_range {
            self.remove_and_delete_snapshot(offset)?;
        }
        if log_end_offset == self.map_end_offset {
            self.on_log_start_offset_incremented(log_start_offset);
            return Ok(());
        }
        self.producers.clear();
        self.ongoing_txns.clear();
        self.unreplicated_txns.clear();
        self.load_from_latest_snapshot(log_start_offset, now_ms)
    }

    /// Deletes the snapshots past `offset` and forgets the state, which the next
    /// [`ProducerStateManager::truncate_and_reload`] rebuilds from an older snapshot: after a
    /// power cut that took records below them (a segment's tail lost, a later segment kept),
    /// they would claim producers' batches the log no longer holds, and a retry of such a batch
    /// would be taken for a duplicate.
    pub fn delete_snapshots_after(&mut self, offset: Offset) -> Result<()> {
        let above: Vec<Offset> = self.snapshots.range(offset.saturating_add(1)..).copied().collect();
        if above.is_empty() {
            return Ok(());
        }
        for snapshot in above {
            self.remove_and_delete_snapshot(snapshot)?;
        }
        self.producers.clear();
        self.ongoing_txns.clear();
        self.unreplicated_txns.clear();
        self.last_snap_offset = self.latest_snapshot_offset().unwrap_or(0);
        // No log ends here: the next reload reads the snapshots again.
        self.map_end_offset = -1;
        Ok(())
    }

    /// Empties the state, deletes every snapshot, and starts over at `offset`.
    pub fn truncate_fully_and_start_at(&mut self, offset: Offset) -> Result<()> {
        self.producers.clear();
        self.ongoing_txns.clear();
        self.unreplicated_txns.clear();
        let all: Vec<Offset> = self.snapshots.iter().copied().collect();
        for snapshot in all {
            self.remove_and_delete_snapshot(snapshot)?;
        }
        self.last_snap_offset = 0;
        self.map_end_offset = offset;
        Ok(())
    }

    /// After the log start offset advanced: forgets completed transactions below it and moves
    /// the map end offset up to it if behind.
    pub fn on_log_start_offset_incremented(&mut self, log_start_offset: Offset) {
        self.on_high_watermark_updated(log_start_offset);
        self.map_end_offset = self.map_end_offset.max(log_start_offset);
        self.last_snap_offset = self.latest_snapshot_offset().unwrap_or(log_start_offset);
    }

    /// Deletes the snapshot files below `offset`.
    pub fn delete_snapshots_before(&mut self, offset: Offset) -> Result<()> {
        let below: Vec<Offset> = self.snapshots.range(..offset).copied().collect();
        for snapshot in below {
            self.remove_and_delete_snapshot(snapshot)?;
        }
        Ok(())
    }

    /// Renames the snapshot at `offset` to `<name>.deleted`, for deletion later with its segment.
    /// Returns the new path, or `None` if there was no such snapshot (already deleted).
    pub fn remove_and_mark_snapshot_for_deletion(&mut self, offset: Offset) -> Result<Option<PathBuf>> {
        if !self.snapshots.remove(&offset) {
            return Ok(None);
        }
        let path = snapshot_path(&self.dir, offset);
        let mut renamed = path.clone().into_os_string();
        renamed.push(DELETED_SUFFIX);
        let renamed = PathBuf::from(renamed);
        match std::fs::rename(&path, &renamed) {
            Ok(()) => Ok(Some(renamed)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(LogError::io(&path, e)),
        }
    }

    /// Deletes snapshots with no segment starting at their offset, except the latest such one
    /// if it is above every segment's base offset (written at a clean shutdown). Kafka's
    /// `removeStraySnapshots`, run when the log is loaded.
    pub fn remove_stray_snapshots(&mut self, segment_base_offsets: &[Offset]) -> Result<()> {
        let bases: BTreeSet<Offset> = segment_base_offsets.iter().copied().collect();
        self.snapshots = list_snapshots(&self.dir)?.into_iter().collect();
        let strays: Vec<Offset> = self.snapshots.iter().copied().filter(|o| !bases.contains(o)).collect();
        let Some((&latest, older)) = strays.split_last() else { return Ok(()) };
        for &stray in older {
            self.remove_and_delete_snapshot(stray)?;
        }
        if bases.last().is_some_and(|&max_base| latest < max_base) {
            self.remove_and_delete_snapshot(latest)?;
        }
        Ok(())
    }

    /// Moves the manager to a renamed partition directory (deletion and future replicas rename it).
    pub fn update_parent_dir(&mut self, dir: &Path) {
        self.dir = dir.to_owned();
    }

    fn load_from_latest_snapshot(&mut self, log_start_offset: Offset, now_ms: i64) -> Result<()> {
        while let Some(offset) = self.latest_snapshot_offset() {
            let path = snapshot_path(&self.dir, offset);
            match read_snapshot(&path).and_then(|entries| check_loadable(&path, entries)) {
                Ok(entries) => {
                    let expiration_ms = self.config.producer_id_expiration_ms;
                    for entry in entries.into_iter().filter(|e| !e.is_expired(now_ms, expiration_ms)) {
                        self.load_producer_entry(entry);
                    }
                    self.last_snap_offset = offset;
                    self.map_end_offset = offset;
                    return Ok(());
                }
                Err(LogError::Corrupt { .. }) => self.remove_and_delete_snapshot(offset)?,
                Err(e) => return Err(e),
            }
        }
        self.last_snap_offset = log_start_offset;
        self.map_end_offset = log_start_offset;
        Ok(())
    }

    fn load_producer_entry(&mut self, entry: ProducerStateEntry) {
        if let Some(first_offset) = entry.current_txn_first_offset {
            let txn = TxnMetadata { producer_id: entry.producer_id, first_offset, last_offset: None };
            self.ongoing_txns.insert(first_offset, txn);
        }
        self.producers.insert(entry.producer_id, entry);
    }

    fn remove_and_delete_snapshot(&mut self, offset: Offset) -> Result<()> {
        self.snapshots.remove(&offset);
        let path = snapshot_path(&self.dir, offset);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(LogError::io(&path, e)),
        }
    }
}

/// A loaded snapshot must not have two producers claim the same open transaction start, or
/// completing one would find the other's.
fn check_loadable(path: &Path, entries: Vec<ProducerStateEntry>) -> Result<Vec<ProducerStateEntry>> {
    let mut starts = BTreeSet::new();
    for start in entries.iter().filter_map(|e| e.current_txn_first_offset) {
        if !starts.insert(start) {
            return Err(LogError::corrupt(path, format!("two producers' transactions start at offset {start}")));
        }
    }
    Ok(entries)
}
