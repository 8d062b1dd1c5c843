//! One share-partition's in-flight records (KIP-932), as the partition leader keeps them for one
//! share group: the share-partition start offset (SPSO), the end of what was ever acquired (SPEO),
//! and between them each record's state, delivery count, owner and acquisition lock.
//!
//! States and their legal moves (Kafka's `RecordState`):
//! - `Available` -> `Acquired` (a fetch; the delivery count goes up by one).
//! - `Acquired` -> `Acknowledged` (ACCEPT), `Archived` (REJECT, or a gap), `Available` (RELEASE, its
//!   lock expiring, or its member's session closing), or `Archived` instead of `Available` once
//!   the delivery count reached `group.share.delivery.count.limit`. RENEW keeps it `Acquired` with
//!   a fresh lock.
//! - `Acknowledged` and `Archived` are final; the SPSO moves past them as soon as every record
//!   below is final too, and they are forgotten.
//! - With a dead-letter topic (KIP-1191, [`SharePartitionConfig::dead_letter`]) a record is
//!   `Archiving` instead of `Archived` when REJECTed or at the delivery limit: persisted so (state
//!   3) before its dead-letter record is written, and `Archived` once the write is done
//!   ([`SharePartition::dead_lettered`]); the SPSO stops below it until then.
//! - Strand's release backoff (`share.release.backoff.ms`, `share.release.backoff.max.ms`): a
//!   RELEASEd record is `Available` but not acquired before its backoff has passed.
//!
//! Deterministic: every operation takes the clock reading (`now_ms`); locks are checked when the
//! partition is next touched, which is what a fetch or an acknowledgement can observe. Bounded:
//! SPEO - SPSO never exceeds `max_record_locks` (Kafka's `group.share.partition.max.record.locks`),
//! so at most that many records are tracked. [`SharePartition::persisted`] is the state the
//! leader writes to the share coordinator ([`super::state`]) after each acknowledgement, and
//! [`SharePartition::restore`] the share-partition a leader resumes from it.

use std::collections::BTreeMap;

use super::state::{
    PersistedBatch, PersistedState, STATE_ACKNOWLEDGED, STATE_ARCHIVED, STATE_ARCHIVING, STATE_AVAILABLE,
};

/// A record's state in a share-partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordState {
    Available,
    Acquired,
    Acknowledged,
    /// Waiting for its dead-letter record to be written (KIP-1191).
    Archiving,
    Archived,
}

/// Why a record goes to the dead-letter topic; [`DeadLetterCause::message`] is Kafka's
/// `__dlq.errors.message` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeadLetterCause {
    /// A consumer REJECTed it.
    Rejected,
    /// It reached `group.share.delivery.count.limit`.
    DeliveryCountExceeded,
}

impl DeadLetterCause {
    pub fn message(self) -> &'static str {
        match self {
            DeadLetterCause::Rejected => "Offset rejected by client.",
            DeadLetterCause::DeliveryCountExceeded => "Offset delivery count exceeded the threshold.",
        }
    }
}

/// A record in `Archiving`: what its dead-letter record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeadLetter {
    pub offset: i64,
    pub delivery_count: i16,
    pub cause: DeadLetterCause,
}

/// An acknowledgement type as the wire carries it (ShareFetch/ShareAcknowledge, KIP-932 and
/// KIP-1222).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckType {
    /// 0: the offset holds no record (a gap the client saw in the batch).
    Gap,
    /// 1: processed.
    Accept,
    /// 2: give it back for another delivery.
    Release,
    /// 3: never deliver again.
    Reject,
    /// 4: keep it, with a fresh acquisition lock (KIP-1222).
    Renew,
}

impl AckType {
    /// The type for wire value `value`; `None` for a value Kafka does not define.
    pub fn from_wire(value: i8) -> Option<AckType> {
        Some(match value {
            0 => AckType::Gap,
            1 => AckType::Accept,
            2 => AckType::Release,
            3 => AckType::Reject,
            4 => AckType::Renew,
            _ => return None,
        })
    }
}

/// Why an acknowledgement was refused; the handler answers INVALID_RECORD_STATE or
/// INVALID_REQUEST.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckError {
    /// An offset of the batch is not acquired by this member (never fetched, already
    /// acknowledged, or its lock expired): INVALID_RECORD_STATE.
    NotAcquired,
    /// The batch itself is malformed (last before first, a type count that fits neither one type
    /// nor one per offset, an unknown type): INVALID_REQUEST.
    Malformed,
}

/// The share group's settings a share-partition applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SharePartitionConfig {
    /// `group.share.record.lock.duration.ms`.
    pub lock_duration_ms: i64,
    /// `group.share.delivery.count.limit`.
    pub delivery_count_limit: i16,
    /// `group.share.partition.max.record.locks`: the most records between SPSO and SPEO.
    pub max_record_locks: i64,
    /// The group has a dead-letter topic (`errors.deadletterqueue.topic.name`, KIP-1191).
    pub dead_letter: bool,
    /// `share.release.backoff.ms` (Strand's): how long a RELEASEd record waits before it can be
    /// acquired again; 0 for none.
    pub release_backoff_ms: i64,
    /// `share.release.backoff.max.ms` (Strand's): above 0, the backoff doubles with each
    /// delivery (`release_backoff_ms * 2^(delivery count - 1)`) up to this cap.
    pub release_backoff_max_ms: i64,
}

impl SharePartitionConfig {
    /// The backoff after a RELEASE of a record delivered `delivery_count` times.
    pub fn release_backoff(&self, delivery_count: i16) -> i64 {
        let base = self.release_backoff_ms.max(0);
        if self.release_backoff_max_ms <= 0 || base == 0 {
            return base;
        }
        let doublings = u32::try_from(delivery_count.saturating_sub(1).max(0)).unwrap_or(0).min(62);
        base.saturating_mul(1i64 << doublings).min(self.release_backoff_max_ms.max(base))
    }
}

/// A batch of the log as a fetch read it: its offsets and whether it is a control batch (a
/// transaction marker, never delivered).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogBatch {
    pub base_offset: i64,
    pub last_offset: i64,
    pub control: bool,
}

/// Offsets acquired by one fetch, with the delivery count they all share (ShareFetch's
/// `AcquiredRecords`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AcquiredRange {
    pub first_offset: i64,
    pub last_offset: i64,
    pub delivery_count: i16,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct InFlight {
    state: RecordState,
    delivery_count: i16,
    /// The member holding it while `Acquired`.
    member_id: Option<String>,
    /// When an `Acquired` record's lock runs out.
    lock_expiry_ms: i64,
    /// When an `Available` record may be acquired again (a release backoff), else 0.
    available_at_ms: i64,
    /// Why an `Archiving` record is being dead-lettered.
    cause: Option<DeadLetterCause>,
}

/// The in-flight records of one share-partition (see the module doc).
#[derive(Debug, Clone)]
pub struct SharePartition {
    config: SharePartitionConfig,
    /// SPSO: every record below it is final.
    start_offset: i64,
    /// SPEO: the first offset never acquired.
    end_offset: i64,
    /// Records in [SPSO, SPEO) by offset; an offset with no entry holds no deliverable record
    /// (a control record, or one removed before it was read) and counts as final.
    records: BTreeMap<i64, InFlight>,
    /// The state epoch of the persisted state it was restored from (0 for a new one).
    state_epoch: i32,
}

impl SharePartition {
    /// A share-partition starting at `start_offset` (from `share.auto.offset.reset`).
    pub fn new(config: SharePartitionConfig, start_offset: i64) -> SharePartition {
        SharePartition { config, start_offset, end_offset: start_offset, records: BTreeMap::new(), state_epoch: 0 }
    }

    /// The share-partition a leader resumes from its persisted state: records persisted as
    /// available (or as acquired, which Kafka's coordinator may hold) are available with their
    /// delivery count, or archived once they reached the delivery limit; offsets within the
    /// state that no batch names hold nothing deliverable.
    pub fn restore(config: SharePartitionConfig, state: &PersistedState) -> SharePartition {
        let mut partition = SharePartition::new(config, state.start_offset);
        partition.state_epoch = state.state_epoch;
        for batch in &state.batches {
            let first = batch.first_offset.max(state.start_offset);
            let last = batch.last_offset.min(state.start_offset.saturating_add(config.max_record_locks - 1));
            let record_state = match batch.delivery_state {
                STATE_ACKNOWLEDGED => RecordState::Acknowledged,
                STATE_ARCHIVED => RecordState::Archived,
                // Its dead-letter write may not have happened: done again, unless the group has
                // no dead-letter topic any more.
                STATE_ARCHIVING if config.dead_letter => RecordState::Archiving,
                STATE_ARCHIVING => RecordState::Archived,
                _ if batch.delivery_count >= config.delivery_count_limit => RecordState::Archived,
                _ => RecordState::Available,
            };
            for offset in first..=last {
                let cause = (record_state == RecordState::Archiving).then_some(
                    if batch.delivery_count >= config.delivery_count_limit {
                        DeadLetterCause::DeliveryCountExceeded
                    } else {
                        DeadLetterCause::Rejected
                    },
                );
                let record = InFlight {
                    state: record_state,
                    delivery_count: batch.delivery_count,
                    member_id: None,
                    lock_expiry_ms: 0,
                    available_at_ms: 0,
                    cause,
                };
                partition.records.insert(offset, record);
                partition.end_offset = partition.end_offset.max(offset + 1);
            }
        }
        partition.advance_start();
        partition
    }

    /// The state to persist: SPSO and every tracked record, in runs of one state and delivery
    /// count; an acquired record as it was before its acquisition, so that after a crash it
    /// comes back with the delivery count its last acknowledgement, release or expiry left, as
    /// with Kafka.
    pub fn persisted(&self, leader_epoch: i32) -> PersistedState {
        let mut batches: Vec<PersistedBatch> = Vec::new();
        for (&offset, record) in &self.records {
            // An acquisition is not persisted (Kafka's leader writes only what acknowledgements,
            // releases and expiries settle): an acquired record is written as it was before.
            let (delivery_state, delivery_count) = match record.state {
                RecordState::Available => (STATE_AVAILABLE, record.delivery_count),
                RecordState::Acquired => (STATE_AVAILABLE, record.delivery_count.saturating_sub(1).max(0)),
                RecordState::Acknowledged => (STATE_ACKNOWLEDGED, record.delivery_count),
                RecordState::Archiving => (STATE_ARCHIVING, record.delivery_count),
                RecordState::Archived => (STATE_ARCHIVED, record.delivery_count),
            };
            match batches.last_mut() {
                Some(last)
                    if last.last_offset + 1 == offset
                        && last.delivery_state == delivery_state
                        && last.delivery_count == delivery_count =>
                {
                    last.last_offset = offset;
                }
                _ => batches.push(PersistedBatch {
                    first_offset: offset,
                    last_offset: offset,
                    delivery_state,
                    delivery_count,
                }),
            }
        }
        PersistedState { state_epoch: self.state_epoch, leader_epoch, start_offset: self.start_offset, batches }
    }

    /// The group's settings changed (they are read from the metadata on each use).
    pub fn set_config(&mut self, config: SharePartitionConfig) {
        self.config = config;
    }

    pub fn config(&self) -> &SharePartitionConfig {
        &self.config
    }

    /// Whether any record waits for its dead-letter write.
    pub fn has_dead_letters(&self) -> bool {
        self.records.values().any(|r| r.state == RecordState::Archiving)
    }

    /// The records waiting for their dead-letter write, in offset order.
    pub fn dead_letters(&self) -> Vec<DeadLetter> {
        self.records
            .iter()
            .filter(|(_, r)| r.state == RecordState::Archiving)
            .map(|(&offset, r)| DeadLetter {
                offset,
                delivery_count: r.delivery_count,
                cause: r.cause.unwrap_or(DeadLetterCause::Rejected),
            })
            .collect()
    }

    /// The dead-letter record of `offset` is written (or will never be: the topic is refused):
    /// it is `Archived`. Returns whether it was `Archiving`.
    pub fn dead_lettered(&mut self, offset: i64) -> bool {
        let Some(record) = self.records.get_mut(&offset).filter(|r| r.state == RecordState::Archiving) else {
            return false;
        };
        record.state = RecordState::Archived;
        record.cause = None;
        self.advance_start();
        true
    }

    pub fn start_offset(&self) -> i64 {
        self.start_offset
    }

    pub fn end_offset(&self) -> i64 {
        self.end_offset
    }

    /// The state and delivery count of the record at `offset`, if it is tracked.
    pub fn record(&self, offset: i64) -> Option<(RecordState, i16)> {
        self.records.get(&offset).map(|r| (r.state, r.delivery_count))
    }

    /// Records tracked (at most `max_record_locks`).
    pub fn in_flight(&self) -> usize {
        self.records.len()
    }

    /// Where the next fetch must read from: the first `Available` record, else SPEO; `None` when
    /// nothing is available and the window is full. Expired locks are released first.
    pub fn fetch_offset(&mut self, now_ms: i64) -> Option<i64> {
        self.expire_locks(now_ms);
        if let Some((&offset, _)) = self.records.iter().find(|(_, r)| r.acquirable(now_ms)) {
            return Some(offset);
        }
        (self.end_offset - self.start_offset < self.config.max_record_locks).then_some(self.end_offset)
    }

    /// Moves SPSO up to `log_start_offset` if the log no longer holds the records below it
    /// (retention or DeleteRecords): they can never be delivered.
    pub fn advance_to_log_start(&mut self, log_start_offset: i64) {
        if log_start_offset > self.start_offset {
            self.records = self.records.split_off(&log_start_offset);
            self.start_offset = log_start_offset;
            self.end_offset = self.end_offset.max(log_start_offset);
        }
    }

    /// Acquires for `member_id`, in offset order, up to `max_records` records of `batches` (what
    /// the fetch read from [`SharePartition::fetch_offset`]) that are `Available` or new, within
    /// the window; returns the acquired ranges.
    pub fn acquire(
        &mut self,
        member_id: &str,
        batches: &[LogBatch],
        max_records: i64,
        now_ms: i64,
    ) -> Vec<AcquiredRange> {
        self.expire_locks(now_ms);
        let mut acquired: Vec<AcquiredRange> = Vec::new();
        let mut count = 0i64;
        let expiry = now_ms.saturating_add(self.config.lock_duration_ms);
        'batches: for batch in batches {
            if batch.control {
                // Transaction markers are never delivered; past SPEO they just move it on.
                if batch.last_offset >= self.end_offset && self.window_left_at(batch.base_offset.max(self.end_offset)) {
                    self.end_offset = batch.last_offset + 1;
                }
                continue;
            }
            for offset in batch.base_offset.max(self.start_offset)..=batch.last_offset {
                if count >= max_records {
                    break 'batches;
                }
                let delivery_count = if offset < self.end_offset {
                    match self.records.get_mut(&offset) {
                        Some(record) if record.acquirable(now_ms) => {
                            record.state = RecordState::Acquired;
                            record.delivery_count = record.delivery_count.saturating_add(1);
                            record.member_id = Some(member_id.to_owned());
                            record.lock_expiry_ms = expiry;
                            record.delivery_count
                        }
                        _ => continue,
                    }
                } else {
                    if !self.window_left_at(offset) {
                        break 'batches;
                    }
                    // Offsets skipped between SPEO and this one hold nothing deliverable.
                    self.end_offset = offset + 1;
                    let record = InFlight {
                        state: RecordState::Acquired,
                        delivery_count: 1,
                        member_id: Some(member_id.to_owned()),
                        lock_expiry_ms: expiry,
                        available_at_ms: 0,
                        cause: None,
                    };
                    self.records.insert(offset, record);
                    1
                };
                count += 1;
                match acquired.last_mut() {
                    Some(last) if last.last_offset + 1 == offset && last.delivery_count == delivery_count => {
                        last.last_offset = offset;
                    }
                    _ => acquired.push(AcquiredRange { first_offset: offset, last_offset: offset, delivery_count }),
                }
            }
        }
        acquired
    }

    /// Applies one acknowledgement batch of `member_id`: `types` holds one type for the whole
    /// range or one per offset. Nothing changes unless every offset may take its type.
    pub fn acknowledge(
        &mut self,
        member_id: &str,
        first_offset: i64,
        last_offset: i64,
        types: &[i8],
        now_ms: i64,
    ) -> Result<(), AckError> {
        self.expire_locks(now_ms);
        let len = last_offset.checked_sub(first_offset).and_then(|d| d.checked_add(1)).unwrap_or(0);
        if len <= 0 || (types.len() != 1 && i64::try_from(types.len()).ok() != Some(len)) {
            return Err(AckError::Malformed);
        }
        let types: Vec<AckType> =
            types.iter().map(|&t| AckType::from_wire(t)).collect::<Option<_>>().ok_or(AckError::Malformed)?;
        let type_at = |offset: i64| if types.len() == 1 { types[0] } else { types[(offset - first_offset) as usize] };
        for offset in first_offset..=last_offset {
            let held = self
                .records
                .get(&offset)
                .is_some_and(|r| r.state == RecordState::Acquired && r.member_id.as_deref() == Some(member_id));
            // A gap may name an offset that holds nothing; anything else must be held.
            let untracked_gap = type_at(offset) == AckType::Gap
                && !self.records.contains_key(&offset)
                && offset >= self.start_offset
                && offset < self.end_offset;
            if !held && !untracked_gap {
                return Err(AckError::NotAcquired);
            }
        }
        let expiry = now_ms.saturating_add(self.config.lock_duration_ms);
        let config = self.config;
        for offset in first_offset..=last_offset {
            let ack = type_at(offset);
            let Some(record) = self.records.get_mut(&offset) else { continue };
            match ack {
                AckType::Accept => record.finish(RecordState::Acknowledged),
                AckType::Gap => record.finish(RecordState::Archived),
                AckType::Reject => record.archive(&config, DeadLetterCause::Rejected),
                AckType::Release => {
                    record.release(&config);
                    if record.state == RecordState::Available {
                        record.available_at_ms = now_ms.saturating_add(config.release_backoff(record.delivery_count));
                    }
                }
                AckType::Renew => record.lock_expiry_ms = expiry,
            }
        }
        self.advance_start();
        Ok(())
    }

    /// Releases every record `member_id` holds (its share session closed), as RELEASE would.
    pub fn release_member(&mut self, member_id: &str) {
        let config = self.config;
        for record in self.records.values_mut() {
            if record.state == RecordState::Acquired && record.member_id.as_deref() == Some(member_id) {
                record.release(&config);
            }
        }
        self.advance_start();
    }

    /// Releases the records whose lock ran out by `now_ms`.
    fn expire_locks(&mut self, now_ms: i64) {
        let config = self.config;
        let mut changed = false;
        for record in self.records.values_mut() {
            if record.state == RecordState::Acquired && record.lock_expiry_ms <= now_ms {
                record.release(&config);
                changed = true;
            }
        }
        if changed {
            self.advance_start();
        }
    }

    /// Whether `offset` may enter the window.
    fn window_left_at(&self, offset: i64) -> bool {
        offset - self.start_offset < self.config.max_record_locks
    }

    /// Moves SPSO past every final record at its bottom, forgetting them.
    fn advance_start(&mut self) {
        while self.start_offset < self.end_offset {
            match self.records.get(&self.start_offset) {
                Some(record) if !matches!(record.state, RecordState::Acknowledged | RecordState::Archived) => break,
                Some(_) => {
                    self.records.remove(&self.start_offset);
                }
                None => {}
            }
            self.start_offset += 1;
        }
    }
}

impl InFlight {
    fn finish(&mut self, state: RecordState) {
        self.state = state;
        self.member_id = None;
    }

    /// Whether a fetch at `now_ms` may acquire it.
    fn acquirable(&self, now_ms: i64) -> bool {
        self.state == RecordState::Available && self.available_at_ms <= now_ms
    }

    /// Never delivered again: `Archiving` for its dead-letter write when the group has a
    /// dead-letter topic, else `Archived`.
    fn archive(&mut self, config: &SharePartitionConfig, cause: DeadLetterCause) {
        if config.dead_letter {
            self.finish(RecordState::Archiving);
            self.cause = Some(cause);
        } else {
            self.finish(RecordState::Archived);
        }
    }

    /// Back to `Available`, or archived once delivered `delivery_count_limit` times.
    fn release(&mut self, config: &SharePartitionConfig) {
        self.available_at_ms = 0;
        if self.delivery_count >= config.delivery_count_limit {
            self.archive(config, DeadLetterCause::DeliveryCountExceeded);
        } else {
            self.finish(RecordState::Available);
        }
    }
}
