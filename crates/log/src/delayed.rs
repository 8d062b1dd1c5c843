//! Delayed delivery's state over one partition's log ([`DelayedIndex`]): which pending records
//! (Strand's pending control batches, `strand_protocol::records::delayed`) are not delivered
//! yet, ordered by due time. It is a function of the log alone, kept by every replica as batches
//! are appended (as a leader or a follower) and rebuilt from the log after a truncation or a
//! restart, so a new leader has it at once.
//!
//! Memory: a `(due, offset)` key and its record's key hash (24 bytes, in a B-tree) per record not
//! delivered; the records themselves stay in the log until they are due.
//!
//! Where a rebuild starts is kept in the partition directory's `delayed-delivery-checkpoint`
//! (a version line and an offset at or below the first record not delivered): it exists once the
//! partition has held a pending record, written durably before that record's append, and moves
//! forward when a segment rolls. A partition that never held one reads nothing at start.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use strand_base::{Offset, ProducerId};
use strand_protocol::records::delayed::{DelayedKind, delayed_kind, pending_dues, read_cancels, read_delivered};
use strand_protocol::records::{RecordBatch, TransactionResult};

use crate::producer_state::{BatchKind, ProducerBatch};
use crate::{LogError, Result};

/// The checkpoint file's name in the partition directory.
pub const CHECKPOINT_FILE: &str = "delayed-delivery-checkpoint";
const CHECKPOINT_VERSION: &str = "0";

/// A pending record in the index: `(due, offset)`, and its key's hash.
type Entry = ((i64, Offset), u64);

/// The pending records of one partition that are not delivered yet.
#[derive(Debug, Default)]
pub struct DelayedIndex {
    /// Pending records whose transaction (if any) committed: `(due, offset)`, earliest first,
    /// with the hash of the record's key (`records::delayed::key_hash`), for cancellations.
    ready: BTreeMap<(i64, Offset), u64>,
    /// Transactional pending records waiting for their transaction's marker, by producer.
    open: HashMap<ProducerId, Vec<Entry>>,
    /// The last batch of the log is a delivered batch: what it names (its data batch is owed).
    unfinished: Option<Vec<(Offset, i64)>>,
    /// Where the next rebuild starts (the checkpoint's offset), once the log held a pending batch.
    checkpoint: Option<Offset>,
}

impl DelayedIndex {
    /// Reads the partition's checkpoint, if it has one.
    pub fn open(dir: &Path) -> Result<DelayedIndex> {
        let path = checkpoint_path(dir);
        let checkpoint = match std::fs::read_to_string(&path) {
            Ok(text) => Some(parse_checkpoint(&path, &text)?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(LogError::io(&path, e)),
        };
        Ok(DelayedIndex { checkpoint, ..DelayedIndex::default() })
    }

    /// Whether this partition ever held a pending record (its log must be read at a rebuild).
    pub fn in_use(&self) -> bool {
        self.checkpoint.is_some()
    }

    /// Where a rebuild starts.
    pub fn checkpoint(&self) -> Option<Offset> {
        self.checkpoint
    }

    /// Forgets everything but the checkpoint, before a rebuild.
    pub fn clear(&mut self) {
        self.ready.clear();
        self.open.clear();
        self.unfinished = None;
    }

    /// Writes the checkpoint at `offset` (durably: the file is replaced atomically and synced).
    pub fn write_checkpoint(&mut self, dir: &Path, offset: Offset) -> Result<()> {
        if self.checkpoint == Some(offset) {
            return Ok(());
        }
        let path = checkpoint_path(dir);
        crate::file::write_atomically(&path, format!("{CHECKPOINT_VERSION}\n{offset}\n").as_bytes())
            .map_err(|e| LogError::io(&path, e))?;
        self.checkpoint = Some(offset);
        Ok(())
    }

    /// Takes in one appended batch: a pending batch adds its records (held back until their
    /// transaction commits, if transactional), a delivered batch removes the records it names,
    /// a transaction marker releases or drops its producer's held records. Any batch ends an
    /// unfinished delivery (the batch after a delivered batch is its data batch).
    pub fn observe(&mut self, batch: &RecordBatch) -> std::result::Result<(), String> {
        self.unfinished = None;
        match delayed_kind(batch) {
            Some(DelayedKind::Pending) => {
                let dues = pending_dues(batch).map_err(|e| e.to_string())?;
                let entries = dues.into_iter().map(|(offset, due, key)| ((due, offset), key));
                if batch.attributes().is_transactional() {
                    self.open.entry(batch.producer_id()).or_default().extend(entries);
                } else {
                    self.ready.extend(entries);
                }
            }
            Some(DelayedKind::Cancel) => {
                // Every indexed record is older than the cancel batch: one pass over the index
                // for all its keys, however many the batch names.
                let cancelled: HashSet<u64> =
                    read_cancels(batch).map_err(|e| e.to_string())?.into_iter().map(|(_, key)| key).collect();
                self.ready.retain(|_, hash| !cancelled.contains(hash));
                for held in self.open.values_mut() {
                    held.retain(|(_, hash)| !cancelled.contains(hash));
                }
            }
            Some(DelayedKind::Delivered) => {
                let delivered = read_delivered(batch).map_err(|e| e.to_string())?;
                for (offset, due) in &delivered {
                    self.ready.remove(&(*due, *offset));
                }
                self.unfinished = Some(delivered);
            }
            None if batch.attributes().is_control() && self.open.contains_key(&batch.producer_id()) => {
                let marker = ProducerBatch::from_batch(batch).map_err(|e| e.to_string())?;
                if let BatchKind::Control(Some(marker)) = marker.kind {
                    let held = self.open.remove(&batch.producer_id()).unwrap_or_default();
                    if marker.result == TransactionResult::Commit {
                        self.ready.extend(held);
                    }
                }
            }
            None => {}
        }
        Ok(())
    }

    /// The earliest due time of a record ready to deliver.
    pub fn next_due(&self) -> Option<i64> {
        self.ready.first_key_value().map(|((due, _), _)| *due)
    }

    /// How many pending records are not delivered (transactional ones not committed included).
    pub fn pending_count(&self) -> usize {
        self.ready.len() + self.open.values().map(Vec::len).sum::<usize>()
    }

    /// Up to `max` records due at `now`, earliest first, stopping at the first one at or above
    /// `committed` (not yet replicated: it and what is due after it wait).
    pub fn due(&self, now: i64, committed: Offset, max: usize) -> Vec<(Offset, i64)> {
        self.ready
            .keys()
            .take_while(|(due, offset)| *due <= now && *offset < committed)
            .take(max)
            .map(|(due, offset)| (*offset, *due))
            .collect()
    }

    /// The delivered batch at the log end whose data batch is missing, if any.
    pub fn unfinished(&self) -> Option<&[(Offset, i64)]> {
        self.unfinished.as_deref()
    }

    /// The first offset holding a record not delivered (retention and the checkpoint stop there).
    pub fn floor(&self) -> Option<Offset> {
        let ready = self.ready.keys().map(|(_, offset)| *offset).min();
        let open = self.open.values().flatten().map(|((_, offset), _)| *offset).min();
        let unfinished = self.unfinished.iter().flatten().map(|(offset, _)| *offset).min();
        [ready, open, unfinished].into_iter().flatten().min()
    }

    /// The log start offset moved to `offset` (DeleteRecords): records below it are gone.
    pub fn drop_below(&mut self, offset: Offset) {
        self.ready.retain(|(_, o), _| *o >= offset);
        for held in self.open.values_mut() {
            held.retain(|((_, o), _)| *o >= offset);
        }
        if let Some(unfinished) = &mut self.unfinished {
            unfinished.retain(|(o, _)| *o >= offset);
        }
    }
}

fn checkpoint_path(dir: &Path) -> PathBuf {
    dir.join(CHECKPOINT_FILE)
}

fn parse_checkpoint(path: &Path, text: &str) -> Result<Offset> {
    let corrupt = |reason: &str| LogError::corrupt(path, reason.to_string());
    let mut lines = text.lines();
    if lines.next() != Some(CHECKPOINT_VERSION) {
        return Err(corrupt("unknown version"));
    }
    lines.next().and_then(|line| line.trim().parse::<Offset>().ok()).ok_or_else(|| corrupt("no offset"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::{Bytes, BytesMut};
    use strand_protocol::records::delayed::{PendingRecord, delivered_batch, pending_batch};
    use strand_protocol::records::{EndTxnMarker, RecordBatchMut, end_txn_marker_batch};

    fn at(bytes: Bytes, base_offset: Offset) -> RecordBatch {
        let mut bytes = BytesMut::from(&bytes[..]);
        RecordBatchMut::new(&mut bytes).expect("view").set_base_offset(base_offset);
        RecordBatch::parse(bytes.freeze()).expect("parses")
    }

    fn pending(dues: &[i64], transactional: bool, producer: i64) -> Bytes {
        let records: Vec<PendingRecord> = dues
            .iter()
            .map(|due| PendingRecord { due_ms: *due, timestamp_ms: 0, key: None, value: None, headers: vec![] })
            .collect();
        pending_batch((ProducerId(producer), 0, 0), transactional, &records).expect("builds")
    }

    /// Pending records come out by due time and only once committed; a delivered batch removes
    /// what it names and is unfinished until the next batch; a transaction's records wait for
    /// its marker and go with an abort.
    #[test]
    fn pending_records_in_due_order_once() {
        let mut index = DelayedIndex::default();
        index.observe(&at(pending(&[30, 10], false, 1), 0)).expect("observes");
        index.observe(&at(pending(&[20], true, 2), 2)).expect("observes");
        index.observe(&at(pending(&[5], true, 3), 3)).expect("observes");
        assert_eq!(index.pending_count(), 4);
        assert_eq!(index.due(100, 10, 10), vec![(1, 10), (0, 30)]);
        assert_eq!(index.due(100, 1, 10), vec![], "the earliest is not committed: nothing goes past it");
        let commit =
            end_txn_marker_batch(ProducerId(2), 0, TransactionResult::Commit, EndTxnMarker { coordinator_epoch: 0 }, 0);
        index.observe(&at(commit.expect("marker").build().expect("builds"), 4)).expect("observes");
        let abort =
            end_txn_marker_batch(ProducerId(3), 0, TransactionResult::Abort, EndTxnMarker { coordinator_epoch: 0 }, 0);
        index.observe(&at(abort.expect("marker").build().expect("builds"), 5)).expect("observes");
        assert_eq!(index.due(25, 10, 10), vec![(1, 10), (2, 20)]);
        assert_eq!(index.floor(), Some(0));

        index.observe(&at(delivered_batch(&[(1, 10), (2, 20)], 0).expect("builds"), 6)).expect("observes");
        assert_eq!(index.unfinished(), Some(&[(1, 10), (2, 20)][..]));
        assert_eq!(index.due(100, 10, 10), vec![(0, 30)]);
        index.observe(&at(pending(&[1], false, 1), 7)).expect("observes");
        assert_eq!(index.unfinished(), None);
        assert_eq!(index.next_due(), Some(1));
        index.drop_below(1);
        assert_eq!(index.due(100, 10, 10), vec![(7, 1)]);
    }

    /// A cancel drops the pending records of its key written before it, and only those.
    #[test]
    fn a_cancel_drops_its_keys_earlier_records() {
        use strand_protocol::records::delayed::cancel_batch;
        let keyed = |key: &'static [u8], due: i64| PendingRecord {
            due_ms: due,
            timestamp_ms: 0,
            key: Some(Bytes::from_static(key)),
            value: None,
            headers: vec![],
        };
        let mut index = DelayedIndex::default();
        let batch = pending_batch(
            (ProducerId(1), 0, 0),
            false,
            &[keyed(b"a", 10), keyed(b"b", 20), keyed(b"a", 30), keyed(b"c", 35)],
        );
        index.observe(&at(batch.expect("builds"), 0)).expect("observes");
        let keys = [(0, Bytes::from_static(b"a")), (0, Bytes::from_static(b"c")), (0, Bytes::from_static(b"zz"))];
        let cancel = cancel_batch((ProducerId(1), 0, 4), &keys).expect("builds");
        index.observe(&at(cancel, 4)).expect("observes");
        let later = pending_batch((ProducerId(1), 0, 7), false, &[keyed(b"a", 40)]).expect("builds");
        index.observe(&at(later, 7)).expect("observes");
        assert_eq!(index.due(100, 10, 10), vec![(1, 20), (7, 40)]);
    }

    /// The checkpoint is written, read back, and refused when it is not ours.
    #[test]
    fn checkpoint_round_trips() {
        let dir = tempfile::tempdir().expect("dir");
        assert!(!DelayedIndex::open(dir.path()).expect("opens").in_use());
        DelayedIndex::default().write_checkpoint(dir.path(), 42).expect("writes");
        assert_eq!(DelayedIndex::open(dir.path()).expect("opens").checkpoint(), Some(42));
        std::fs::write(dir.path().join(CHECKPOINT_FILE), "9\n1\n").expect("writes");
        assert!(DelayedIndex::open(dir.path()).is_err());
    }
}
