//! The partition's data path: appends as leader, consumer reads (from a follower too, KIP-392,
//! with the leader's candidates for that), DeleteRecords, and the leader's side of a follower's
//! fetch.

use strand_base::{LeaderEpoch, Offset};
use strand_log::log::ValidatedBatch;
use strand_log::manager::{flush_unlocked, lock};
use strand_log::producer_state::AppendContext;
use strand_log::{Log, LogError};

use super::{Appended, Partition};
use crate::delayed_produce::DelayedProduce;
use crate::error::ReplicaError;
use crate::isr::AlterPartitionItem;
use crate::replica::{FollowerProgress, ReplicaState, Role, diverging_epoch};
use crate::state::{BrokerStatuses, FollowerStatus};
use crate::types::{Acks, FirstBatch, FollowerFetch, FollowerRead, Isolation, PartitionRead, ReadFrom};

impl Partition {
    /// Appends a batch as leader at `leader_epoch`, which must be this leader's epoch (a
    /// standalone partition takes the caller's). With `acks=all` the committed ISR must hold at
    /// least `min.insync.replicas` first (NOT_ENOUGH_REPLICAS, nothing appended), and the result
    /// carries the [`DelayedProduce`] to wait on.
    pub fn append_as_leader(
        &self,
        batch: ValidatedBatch,
        leader_epoch: LeaderEpoch,
        acks: Acks,
        context: AppendContext,
        flush_on_acks_all: bool,
    ) -> Result<Appended, ReplicaError> {
        let mut s = self.lock_state()?;
        let epoch = match &s.role {
            Role::Leader(_) if leader_epoch == s.leader_epoch => leader_epoch,
            Role::Unassigned if self.standalone => leader_epoch,
            _ => return Err(ReplicaError::NotLeaderOrFollower(self.tp.clone())),
        };
        let isr = self.isr_len(&s);
        let min = super::effective_min_isr(s.min_insync_replicas, s.replicas.len());
        if acks == Acks::All && i32::try_from(isr).unwrap_or(i32::MAX) < min {
            return Err(ReplicaError::NotEnoughReplicas { tp: self.tp.clone(), isr, min });
        }
        let mut log = lock(&self.log)?;
        let info = log.append_as_leader(batch, epoch, context)?;
        if self.standalone && s.role == Role::Unassigned {
            let end = log.log_end_offset();
            log.producer_state_mut().on_high_watermark_updated(end);
        } else {
            self.maybe_increment_high_watermark(&mut s, &mut log);
        }
        let log_start_offset = log.log_start_offset();
        self.publish(&s, &log);
        self.sync_rolled_segments(&mut log);
        self.notify();
        let delayed = (acks == Acks::All).then(|| {
            let progress = self.progress.subscribe();
            let epoch = progress.borrow().leader_epoch;
            DelayedProduce::new(
                self.tp.clone(),
                self.log.clone(),
                progress,
                info.last_offset + 1,
                epoch,
                flush_on_acks_all,
            )
        });
        Ok(Appended { info, log_start_offset, delayed })
    }

    /// Delayed delivery (ARCHITECTURE.md): as the leader, appends the records due at `now`
    /// (committed ones, earliest first), or completes a delivery a leader change left without
    /// its data batch. Returns how many records it delivered, the earliest due time still
    /// waiting and how many records are not delivered; `None` if this node does not lead it.
    pub fn deliver_due(&self, now: i64) -> Result<Option<(usize, Option<i64>, usize)>, ReplicaError> {
        let mut s = self.lock_state()?;
        if !self.leads(&s) {
            return Ok(None);
        }
        let mut log = lock(&self.log)?;
        let committed = self.high_watermark_of(&s, &log);
        let delivered = log.deliver_due(now, committed, s.leader_epoch.max(0))?;
        if delivered.is_some() {
            if self.standalone && s.role == Role::Unassigned {
                let end = log.log_end_offset();
                log.producer_state_mut().on_high_watermark_updated(end);
            } else {
                self.maybe_increment_high_watermark(&mut s, &mut log);
            }
            self.publish(&s, &log);
            self.sync_rolled_segments(&mut log);
            self.notify();
        }
        let (next, pending) = (log.delayed().next_due(), log.delayed().pending_count());
        let waiting = log.delayed().unfinished().is_some() || next.is_some_and(|due| due <= now);
        // Due records still waiting for replication (or for the next batch) are looked at again
        // soon, not at their due time, which has passed.
        let next = if waiting { Some(now + 1) } else { next };
        Ok(Some((delivered.map_or(0, |d| d.records), next, pending)))
    }

    /// Syncs the segments the last appends rolled away from, on another thread once the
    /// partition's locks are released (Kafka's `flush-log` task after a roll), so an append that
    /// rolls does not wait for their `fdatasync`s. The sync also moves the recovery point past
    /// them. A failure is logged; the data stays in the log and the next flush tries again.
    pub(crate) fn sync_rolled_segments(&self, log: &mut Log) {
        let Some(offset) = log.take_roll_flush() else { return };
        let (tp, shared) = (self.tp.clone(), self.log.clone());
        let sync = move || {
            if let Err(e) = flush_unlocked(&shared, offset) {
                tracing::error!("could not sync the segments of {tp} below {offset} after a roll: {e}");
            }
        };
        // Without a runtime (tests that drive a partition directly) a thread does it.
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(sync)),
            Err(_) => drop(std::thread::spawn(sync)),
        }
    }

    /// A consumer's read: this node must lead, or follow when `from` allows it (KIP-392); never
    /// past this replica's high watermark (or last stable offset under read_committed). As
    /// Kafka's `LocalLog.read`: an offset between the high watermark and the log end reads
    /// nothing, one outside the log is OFFSET_OUT_OF_RANGE.
    pub fn read(
        &self,
        offset: Offset,
        max_bytes: u64,
        isolation: Isolation,
        first_batch: FirstBatch,
        from: ReadFrom,
    ) -> Result<PartitionRead, ReplicaError> {
        let s = self.lock_state()?;
        let by_follower = matches!(s.role, Role::Follower { .. }) && from == ReadFrom::AnyReplica;
        if !self.leads(&s) && !by_follower {
            return Err(ReplicaError::NotLeaderOrFollower(self.tp.clone()));
        }
        let leader_epoch = s.leader_epoch;
        let log = lock(&self.log)?;
        let offsets = self.offsets_of(&s, &log);
        drop(s);
        let limit = match isolation {
            Isolation::ReadUncommitted => offsets.high_watermark,
            Isolation::ReadCommitted => offsets.last_stable_offset,
        };
        let records = first_batch.apply(log.read(offset, max_bytes, Some(limit))?, max_bytes);
        let aborted = match isolation {
            Isolation::ReadCommitted if records.is_some() => log.collect_aborted_txns(offset, limit),
            _ => Vec::new(),
        };
        if by_follower && records.is_some() {
            self.note_follower_read(leader_epoch);
        }
        Ok(PartitionRead {
            records,
            high_watermark: offsets.high_watermark,
            last_stable_offset: offsets.last_stable_offset,
            log_start_offset: offsets.log_start_offset,
            aborted,
            by_follower,
        })
    }

    /// Logs the first consumer read this follower serves records to in each leader epoch, so an
    /// operator (and the tests) can see KIP-392 at work without a line per fetch.
    fn note_follower_read(&self, leader_epoch: LeaderEpoch) {
        let logged = self.follower_read_logged_epoch.swap(leader_epoch, std::sync::atomic::Ordering::Relaxed);
        if logged != leader_epoch {
            tracing::info!("serving consumer fetches of {} from this follower (leader epoch {leader_epoch})", self.tp);
        }
    }

    /// KIP-392's candidates for a consumer's read from `offset`, gathered as Kafka's
    /// `ReplicaManager.findPreferredReadReplica` does: `None` unless this node leads; otherwise
    /// the followers in the (committed) ISR whose log, as their last fetch showed it, holds
    /// `offset`, and this leader's log end offset.
    pub fn read_replica_candidates(
        &self,
        offset: Offset,
    ) -> Result<Option<(Offset, Vec<FollowerStatus>)>, ReplicaError> {
        let s = self.lock_state()?;
        let Some(leader) = s.leader() else { return Ok(None) };
        let candidates = leader
            .followers
            .iter()
            .filter(|(id, f)| {
                leader.isr.isr().contains(id) && f.log_end_offset >= offset && f.log_start_offset <= offset
            })
            .map(|(id, f)| FollowerStatus {
                broker_id: *id,
                log_end_offset: f.log_end_offset,
                log_start_offset: f.log_start_offset,
                last_caught_up_time_ms: f.last_caught_up_time_ms,
            })
            .collect();
        let log = lock(&self.log)?;
        Ok(Some((log.log_end_offset(), candidates)))
    }

    fn check_leader_epoch(&self, s: &ReplicaState, requested: LeaderEpoch) -> Result<(), ReplicaError> {
        let (tp, current) = (self.tp.clone(), s.leader_epoch);
        match requested {
            r if r < 0 || r == current => Ok(()),
            r if r < current => Err(ReplicaError::FencedLeaderEpoch { tp, requested: r, current }),
            r => Err(ReplicaError::UnknownLeaderEpoch { tp, requested: r, current }),
        }
    }

    /// Serves a follower's fetch: checks the leader epoch it names, that it is a replica and
    /// fetches with its current broker epoch; answers a diverging epoch when its last fetched
    /// epoch ends earlier here (and then records nothing); otherwise reads from `fetch_offset` to
    /// the log end and, with `update`, records its progress, proposes it for the ISR if it
    /// qualifies, and moves the high watermark. Returns the read and the AlterPartition item to
    /// send, if any.
    pub fn fetch_for_follower(
        &self,
        fetch: &FollowerFetch,
        now_ms: i64,
        update: bool,
        brokers: &BrokerStatuses,
    ) -> Result<(FollowerRead, Option<AlterPartitionItem>), ReplicaError> {
        // KAFKA_STORAGE_ERROR, and no ISR expansion proposed for it.
        self.check_online()?;
        let mut s = self.lock_state()?;
        self.check_leader_epoch(&s, fetch.current_leader_epoch)?;
        if s.leader().is_none() {
            return Err(ReplicaError::NotLeaderOrFollower(self.tp.clone()));
        }
        let replica = fetch.replica_id;
        if replica == self.local || !s.replicas.contains(&replica) {
            return Err(ReplicaError::NotReplica { tp: self.tp.clone(), replica });
        }
        if let Some(status) = brokers.as_ref().and_then(|b| b.get(&replica))
            && fetch.broker_epoch != -1
            && status.broker_epoch > fetch.broker_epoch
        {
            return Err(ReplicaError::StaleBrokerEpoch {
                replica,
                fetched: fetch.broker_epoch,
                registered: status.broker_epoch,
            });
        }
        let mut log = lock(&self.log)?;
        let (start, end) = (log.log_start_offset(), log.log_end_offset());
        let out_of_range = LogError::OffsetOutOfRange { offset: fetch.fetch_offset, start, end };
        if fetch.last_fetched_epoch >= 0 {
            if fetch.fetch_offset < start {
                return Err(out_of_range.into());
            }
            let leader_end = log.epoch_cache().end_offset_for(fetch.last_fetched_epoch, end);
            match diverging_epoch(leader_end, fetch.last_fetched_epoch, fetch.fetch_offset) {
                Err(()) => return Err(out_of_range.into()),
                Ok(Some(diverging)) => {
                    let read = FollowerRead::new(None, Some(diverging), self.offsets_of(&s, &log), end);
                    return Ok((read, None));
                }
                Ok(None) => {}
            }
        }
        let records = match fetch.max_bytes {
            0 if fetch.fetch_offset < start || fetch.fetch_offset > end => return Err(out_of_range.into()),
            0 => None,
            max_bytes => log.read(fetch.fetch_offset, max_bytes, None)?.filter(|slice| slice.len > 0),
        };
        let mut item = None;
        if update {
            let progress = s
                .leader_mut()
                .map(|l| l.followers.entry(replica).or_insert_with(|| FollowerProgress::new(false, now_ms)));
            let mut moved = false;
            if let Some(progress) = progress {
                moved = progress.log_end_offset != fetch.fetch_offset;
                progress.on_fetch(fetch.fetch_offset, fetch.log_start_offset, now_ms, end, fetch.broker_epoch);
            }
            item = self.maybe_expand_isr(&mut s, replica, fetch.broker_epoch, brokers);
            self.maybe_increment_high_watermark(&mut s, &mut log);
            self.publish(&s, &log);
            if moved {
                // Whoever watches replication (a status waiter, an idle fetch) looks again.
                self.notify();
            }
        }
        Ok((FollowerRead::new(records, None, self.offsets_of(&s, &log), end), item))
    }

    /// Kafka's DeleteRecords on the leader: the log start offset moves up to `offset` (`-1`: the
    /// high watermark), never past the high watermark (OFFSET_OUT_OF_RANGE), and never on a topic
    /// that is only compacted (POLICY_VIOLATION). Followers move theirs when their next fetch
    /// reports it. The log start offset afterwards.
    pub fn delete_records(&self, offset: Offset) -> Result<Offset, ReplicaError> {
        let s = self.lock_state()?;
        if !self.leads(&s) {
            return Err(ReplicaError::NotLeaderOrFollower(self.tp.clone()));
        }
        let mut log = lock(&self.log)?;
        if log.config().compact_enabled && !log.config().delete_enabled {
            return Err(ReplicaError::DeleteRecordsPolicy(self.tp.clone()));
        }
        let high_watermark = self.high_watermark_of(&s, &log);
        let target = if offset == -1 { high_watermark } else { offset };
        if target < 0 || target > high_watermark {
            let (start, end) = (log.log_start_offset(), high_watermark);
            return Err(ReplicaError::Log(LogError::OffsetOutOfRange { offset: target, start, end }));
        }
        if target > log.log_start_offset() {
            log.advance_log_start_offset(target)?;
            self.publish(&s, &log);
        }
        Ok(log.log_start_offset())
    }
}
