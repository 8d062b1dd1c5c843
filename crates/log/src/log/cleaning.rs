//! The log cleaner's hooks: where its next pass starts, its delete horizon, the pass registered
//! with the log (aborted when the log truncates, deletes segments or closes), and the crash-safe
//! swap of cleaned segments in for the ones they replace.

use std::path::Path;
use std::sync::Arc;

use strand_base::Offset;

use super::Log;
use crate::cleaner::CleaningAbort;
use crate::segment::Segment;
use crate::{LogError, Result};

impl Log {
    /// Where the log cleaner's next pass starts: everything below was compacted (Kafka's
    /// `cleaner-offset-checkpoint` entry). `None` until a pass or a checkpoint set it.
    pub fn first_dirty_offset(&self) -> Option<Offset> {
        self.first_dirty_offset
    }

    /// Restores the first dirty offset from the directory's `cleaner-offset-checkpoint` (the log
    /// manager does, on open), or records a pass's end (the cleaner does).
    pub fn set_first_dirty_offset(&mut self, offset: Offset) {
        self.first_dirty_offset = Some(offset);
    }

    pub(crate) fn cleaner_delete_horizon_ms(&self) -> Option<i64> {
        self.cleaner_delete_horizon_ms
    }

    pub(crate) fn set_cleaner_delete_horizon_ms(&mut self, horizon_ms: Option<i64>) {
        self.cleaner_delete_horizon_ms = horizon_ms;
    }

    /// Registers a cleaner pass over this log (aborting any earlier one) and returns its abort
    /// flag.
    pub(crate) fn begin_cleaning(&mut self) -> Arc<CleaningAbort> {
        self.abort_cleaning();
        let pass = Arc::new(CleaningAbort::default());
        self.cleaning = Some(Arc::clone(&pass));
        pass
    }

    /// Whether `pass` is the cleaner pass registered with this log.
    pub(crate) fn is_cleaning(&self, pass: &Arc<CleaningAbort>) -> bool {
        self.cleaning.as_ref().is_some_and(|current| Arc::ptr_eq(current, pass))
    }

    /// Unregisters `pass` once it is over.
    pub(crate) fn end_cleaning(&mut self, pass: &Arc<CleaningAbort>) {
        if self.is_cleaning(pass) {
            self.cleaning = None;
        }
    }

    /// Aborts the cleaner pass under way, if any: the log is about to change in a way that makes
    /// it wrong (see `cleaner::pass`). Once this returns, the pass creates no more files.
    pub(crate) fn abort_cleaning(&mut self) {
        if let Some(pass) = self.cleaning.take() {
            pass.abort();
        }
    }

    /// Swaps `cleaned` (a flushed segment whose files end in `.cleaned`) in for the segments at
    /// `replaced` (ascending; the first has `cleaned`'s base offset), crash-safely as Kafka's
    /// `replaceSegments` does: the cleaned files are renamed `.swap` and the directory synced (the
    /// commit point: from then on [`Log::open`] completes the swap), the replaced segments are
    /// deleted, and the `.swap` suffix is dropped. The caller syncs the directory again, for the
    /// final names, once it no longer holds the partition's lock (a crash before that completes
    /// the swap on open).
    pub(crate) fn replace_segments(&mut self, mut cleaned: Segment, replaced: &[Offset]) -> Result<()> {
        use crate::cleaner::swap::{CLEANED_SUFFIX, SWAP_SUFFIX};
        let sync_dir = |dir: &Path| crate::file::sync_dir(dir).map_err(|e| LogError::io(dir, e));
        assert_eq!(replaced.first(), Some(&cleaned.base_offset()), "a cleaned segment replaces its own base");
        cleaned.change_suffix(CLEANED_SUFFIX, SWAP_SUFFIX)?;
        sync_dir(&self.dir)?;
        for base in replaced {
            if let Some(segment) = self.segments.remove(base) {
                segment.delete()?;
            }
        }
        cleaned.change_suffix(SWAP_SUFFIX, "")?;
        self.segments.insert(cleaned.base_offset(), cleaned);
        self.rewrites += 1;
        Ok(())
    }
}
