//! [`ShareStateShard`]: the share coordinator's state machine over one partition of
//! `__share_group_state`: each share-partition's persisted state by [`ShareKey`]. Operations
//! compute the records to append and replay them; loading is the same replay. Checks as Kafka's
//! `ShareCoordinatorShard` makes them: a leader epoch below the stored one is
//! FENCED_LEADER_EPOCH, a state epoch below it FENCED_STATE_EPOCH; a read with a newer leader
//! epoch records it. A write of more than [`STATE_BATCHES_MAX`] batches, or one that would
//! leave more, is INVALID_REQUEST.

use std::collections::BTreeMap;

use strand_protocol::error::ErrorCode;

use super::records::{ShareKey, ShareRecord, ShareValue, SnapshotMeta};
use super::{PersistedBatch, PersistedState, UNINITIALIZED_START_OFFSET};

/// The most state batches one write may carry, and one share-partition's state may hold: a
/// leader writes at most `group.share.partition.max.record.locks` (4000 at most) records, so
/// this many runs is far beyond any it sends, and it bounds the merge's work.
pub const STATE_BATCHES_MAX: usize = 16_384;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Stored {
    meta: SnapshotMeta,
    state: PersistedState,
}

/// The share-partitions' states of one `__share_group_state` partition.
#[derive(Debug, Default)]
pub struct ShareStateShard {
    states: BTreeMap<ShareKey, Stored>,
}

impl ShareStateShard {
    pub fn new() -> ShareStateShard {
        ShareStateShard::default()
    }

    /// Applies one record of the partition.
    pub fn replay(&mut self, record: &ShareRecord) {
        match &record.value {
            ShareValue::Tombstone => {
                self.states.remove(&record.key);
            }
            ShareValue::Snapshot(meta, state) => {
                self.states.insert(record.key.clone(), Stored { meta: *meta, state: state.clone() });
            }
            ShareValue::Update { state, .. } => {
                let Some(stored) = self.states.get_mut(&record.key) else { return };
                stored.state = merged(&stored.state, state);
            }
        }
    }

    /// The stored state of `key`.
    pub fn state(&self, key: &ShareKey) -> Option<&PersistedState> {
        self.states.get(key).map(|s| &s.state)
    }

    /// Share-partitions with state here.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// InitializeShareGroupState: the share-partition starts at `start_offset` with
    /// `state_epoch`, nothing in flight. A state with a state epoch as new or newer is kept
    /// (FENCED_STATE_EPOCH).
    pub fn initialize(
        &mut self,
        key: &ShareKey,
        state_epoch: i32,
        start_offset: i64,
        now_ms: i64,
    ) -> Result<Vec<ShareRecord>, ErrorCode> {
        let stored = self.states.get(key);
        if stored.is_some_and(|s| s.state.state_epoch >= state_epoch) {
            return Err(ErrorCode::FencedStateEpoch);
        }
        let state = PersistedState {
            state_epoch,
            leader_epoch: stored.map_or(-1, |s| s.state.leader_epoch),
            start_offset,
            batches: Vec::new(),
        };
        Ok(self.snapshot(key, state, now_ms))
    }

    /// WriteShareGroupState: `write`'s batches merged over the stored ones (a batch replaces
    /// what it overlaps), its start offset (-1: unchanged) and leader epoch taken.
    pub fn write(
        &mut self,
        key: &ShareKey,
        write: &PersistedState,
        now_ms: i64,
    ) -> Result<Vec<ShareRecord>, ErrorCode> {
        if write.batches.len() > STATE_BATCHES_MAX {
            return Err(ErrorCode::InvalidRequest);
        }
        let state = match self.states.get(key) {
            None => PersistedState {
                start_offset: if write.start_offset < 0 { 0 } else { write.start_offset },
                ..write.clone()
            },
            Some(stored) => {
                if write.leader_epoch < stored.state.leader_epoch {
                    return Err(ErrorCode::FencedLeaderEpoch);
                }
                if write.state_epoch < stored.state.state_epoch {
                    return Err(ErrorCode::FencedStateEpoch);
                }
                let mut state = merged(&stored.state, write);
                if state.batches.len() > STATE_BATCHES_MAX {
                    return Err(ErrorCode::InvalidRequest);
                }
                state.state_epoch = stored.state.state_epoch;
                state
            }
        };
        Ok(self.snapshot(key, state, now_ms))
    }

    /// ReadShareGroupState at `leader_epoch`: the state (`None` if never initialized) and, when
    /// the leader epoch is newer than the stored one, the records that store it.
    pub fn read(
        &mut self,
        key: &ShareKey,
        leader_epoch: i32,
        now_ms: i64,
    ) -> Result<(Option<PersistedState>, Vec<ShareRecord>), ErrorCode> {
        let Some(stored) = self.states.get(key) else { return Ok((None, Vec::new())) };
        if leader_epoch < stored.state.leader_epoch {
            return Err(ErrorCode::FencedLeaderEpoch);
        }
        let mut state = stored.state.clone();
        if leader_epoch == state.leader_epoch || leader_epoch < 0 {
            return Ok((Some(state), Vec::new()));
        }
        state.leader_epoch = leader_epoch;
        let records = self.snapshot(key, state.clone(), now_ms);
        Ok((Some(state), records))
    }

    /// DeleteShareGroupState: the tombstone of `key`'s state, if it has one.
    pub fn delete(&mut self, key: &ShareKey) -> Vec<ShareRecord> {
        if !self.states.contains_key(key) {
            return Vec::new();
        }
        let record = ShareRecord { key: key.clone(), value: ShareValue::Tombstone };
        self.replay(&record);
        vec![record]
    }

    /// The snapshot record holding `state`, replayed.
    fn snapshot(&mut self, key: &ShareKey, state: PersistedState, now_ms: i64) -> Vec<ShareRecord> {
        let meta = match self.states.get(key) {
            Some(stored) => SnapshotMeta {
                snapshot_epoch: stored.meta.snapshot_epoch.saturating_add(1),
                create_timestamp: stored.meta.create_timestamp,
                write_timestamp: now_ms,
            },
            None => SnapshotMeta { snapshot_epoch: 0, create_timestamp: now_ms, write_timestamp: now_ms },
        };
        let record = ShareRecord { key: key.clone(), value: ShareValue::Snapshot(meta, state) };
        self.replay(&record);
        vec![record]
    }
}

/// `update` over `base`: its batches replace the parts of `base`'s they overlap, its start
/// offset (unless -1) and leader epoch (unless -1) are taken, and nothing below the start offset
/// is kept.
pub fn merged(base: &PersistedState, update: &PersistedState) -> PersistedState {
    let start_offset =
        if update.start_offset == UNINITIALIZED_START_OFFSET { base.start_offset } else { update.start_offset };
    let leader_epoch = if update.leader_epoch < 0 { base.leader_epoch } else { update.leader_epoch };
    let mut batches: Vec<PersistedBatch> = Vec::with_capacity(base.batches.len() + update.batches.len());
    for old in &base.batches {
        let mut pieces = vec![*old];
        for new in &update.batches {
            pieces = pieces.into_iter().flat_map(|piece| cut(piece, new)).collect();
        }
        batches.extend(pieces);
    }
    batches.extend(update.batches.iter().copied());
    let mut batches: Vec<PersistedBatch> = batches
        .into_iter()
        .filter(|b| b.last_offset >= start_offset)
        .map(|b| PersistedBatch { first_offset: b.first_offset.max(start_offset), ..b })
        .collect();
    batches.sort_by_key(|b| b.first_offset);
    PersistedState { state_epoch: base.state_epoch, leader_epoch, start_offset, batches }
}

/// What is left of `piece` outside `by`.
fn cut(piece: PersistedBatch, by: &PersistedBatch) -> Vec<PersistedBatch> {
    if by.last_offset < piece.first_offset || by.first_offset > piece.last_offset {
        return vec![piece];
    }
    let mut left = Vec::new();
    if piece.first_offset < by.first_offset {
        left.push(PersistedBatch { last_offset: by.first_offset - 1, ..piece });
    }
    if piece.last_offset > by.last_offset {
        left.push(PersistedBatch { first_offset: by.last_offset + 1, ..piece });
    }
    left
}
