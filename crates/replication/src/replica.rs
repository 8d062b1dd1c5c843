//! One partition's replica state as plain data and pure transitions: the role this node plays
//! ([`Role`]), the leader's view of the ISR ([`IsrState`]: committed, or with one AlterPartition
//! in flight) and of each follower ([`FollowerProgress`]), and the rules that read them (the high
//! watermark candidate, which followers are out of sync, where a follower truncates after a
//! diverging epoch).
//!
//! What it is not: nothing here locks, reads a log or a clock, or sends anything; the partition
//! (`partition.rs`) calls these with the log's offsets and the time it was given.
//!
//! Checked against Apache Kafka's `Partition.scala` (`PartitionState`, `PendingExpandIsr`,
//! `PendingShrinkIsr`, `maybeIncrementLeaderHW`, `getOutOfSyncReplicas`), `Replica.scala`
//! (`updateFetchStateOrThrow`, `isCaughtUp`) and `AbstractFetcherThread`
//! (`getOffsetTruncationState`).

use std::collections::BTreeMap;

use strand_base::{BrokerId, LeaderEpoch, Offset, Uuid};
use strand_log::epoch_cache::{UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET};

use crate::isr::AlterPartitionItem;
use crate::state::{PartitionState, ReplicaRole};

/// A follower's log end offset before it has fetched in this leader epoch.
pub(crate) const UNKNOWN_OFFSET: Offset = -1;

/// What this node is for a partition. Transitions (all through `Partition::apply`):
/// `Unassigned → Leader | Follower` on the first partition state; `Leader → Follower` and
/// `Follower → Leader` on a newer leader epoch naming another (or this) broker; `Leader → Leader`
/// and `Follower → Follower` on a newer leader epoch with the same leader (followers reset) or a
/// newer partition epoch (ISR and replicas replaced). Nothing returns to `Unassigned`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Role {
    /// Hosted, but no partition state has come from metadata yet.
    Unassigned,
    Leader(LeaderState),
    /// Following `leader` (`BrokerId::NONE` while the partition has no leader).
    Follower {
        leader: BrokerId,
    },
}

impl Role {
    pub fn public(&self) -> ReplicaRole {
        match self {
            Role::Unassigned => ReplicaRole::Unassigned,
            Role::Leader(_) => ReplicaRole::Leader,
            Role::Follower { leader } => ReplicaRole::Follower { leader: *leader },
        }
    }
}

/// The leader's state of a partition it leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LeaderState {
    pub isr: IsrState,
    /// The log end offset when this leader epoch began: a follower joins the ISR only once it has
    /// reached it (so it holds everything earlier leaders committed).
    pub epoch_start_offset: Offset,
    /// Every other replica's progress, by broker.
    pub followers: BTreeMap<BrokerId, FollowerProgress>,
}

/// The ISR as the leader knows it. At most one change is in flight; while it is, the high
/// watermark is computed over the *maximal* ISR (the committed ISR plus a pending addition; a
/// pending removal still counts), so it never passes an offset a member of either the old or the
/// new ISR may lack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum IsrState {
    Committed { isr: Vec<BrokerId> },
    PendingExpand { isr: Vec<BrokerId>, adding: BrokerId, sent: AlterPartitionItem },
    PendingShrink { isr: Vec<BrokerId>, removing: Vec<BrokerId>, sent: AlterPartitionItem },
}

impl IsrState {
    /// The committed ISR: what `min.insync.replicas` is checked against.
    pub fn isr(&self) -> &[BrokerId] {
        match self {
            IsrState::Committed { isr } | IsrState::PendingExpand { isr, .. } | IsrState::PendingShrink { isr, .. } => {
                isr
            }
        }
    }

    /// The committed ISR plus a pending addition: what the high watermark waits for.
    pub fn maximal_isr(&self) -> Vec<BrokerId> {
        let mut isr = self.isr().to_vec();
        if let IsrState::PendingExpand { adding, .. } = self
            && !isr.contains(adding)
        {
            isr.push(*adding);
        }
        isr
    }

    /// The AlterPartition request in flight, if any.
    pub fn in_flight(&self) -> Option<&AlterPartitionItem> {
        match self {
            IsrState::Committed { .. } => None,
            IsrState::PendingExpand { sent, .. } | IsrState::PendingShrink { sent, .. } => Some(sent),
        }
    }
}

/// The leader's record of one follower (Kafka's `ReplicaState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FollowerProgress {
    /// The offset of its last fetch: with followers that sync before fetching again (design §6),
    /// everything below it is on its stable storage. [`UNKNOWN_OFFSET`] until it fetches.
    pub log_end_offset: Offset,
    pub log_start_offset: Offset,
    /// The last time it was known to hold everything the leader had (KIP-841's measure of lag).
    pub last_caught_up_time_ms: i64,
    /// The leader's log end offset at its previous fetch, and that fetch's time.
    pub last_fetch_leader_log_end_offset: Offset,
    pub last_fetch_time_ms: i64,
    /// The broker epoch its last fetch carried (-1: none).
    pub broker_epoch: i64,
}

impl FollowerProgress {
    /// A follower as a new leader epoch starts: position unknown; an ISR member counts as caught
    /// up now (it gets the full lag time to fetch), any other as never.
    pub fn new(in_isr: bool, now_ms: i64) -> Self {
        FollowerProgress {
            log_end_offset: UNKNOWN_OFFSET,
            log_start_offset: UNKNOWN_OFFSET,
            last_caught_up_time_ms: if in_isr { now_ms } else { 0 },
            last_fetch_leader_log_end_offset: UNKNOWN_OFFSET,
            last_fetch_time_ms: 0,
            broker_epoch: -1,
        }
    }

    /// Records a fetch from `fetch_offset` at `now_ms`, when the leader's log ended at
    /// `leader_end_offset`. The follower was caught up at this fetch if it asked for the leader's
    /// end; or at its previous fetch if it now asks for what the leader's end was then.
    pub fn on_fetch(
        &mut self,
        fetch_offset: Offset,
        log_start_offset: Offset,
        now_ms: i64,
        leader_end_offset: Offset,
        broker_epoch: i64,
    ) {
        if fetch_offset >= leader_end_offset {
            self.last_caught_up_time_ms = self.last_caught_up_time_ms.max(now_ms);
        } else if fetch_offset >= self.last_fetch_leader_log_end_offset {
            self.last_caught_up_time_ms = self.last_caught_up_time_ms.max(self.last_fetch_time_ms);
        }
        self.log_end_offset = fetch_offset;
        self.log_start_offset = log_start_offset;
        self.last_fetch_leader_log_end_offset = leader_end_offset;
        self.last_fetch_time_ms = now_ms;
        self.broker_epoch = broker_epoch;
    }

    /// Whether it is in sync: at the leader's end, or caught up within `lag_max_ms`.
    pub fn is_caught_up(&self, leader_end_offset: Offset, now_ms: i64, lag_max_ms: i64) -> bool {
        self.log_end_offset == leader_end_offset || now_ms - self.last_caught_up_time_ms <= lag_max_ms
    }
}

/// The replica state of one partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReplicaState {
    pub topic_id: Uuid,
    pub role: Role,
    /// -1 until the first partition state.
    pub leader_epoch: LeaderEpoch,
    pub partition_epoch: i32,
    pub replicas: Vec<BrokerId>,
    pub min_insync_replicas: i32,
    pub leader_recovery_state: i8,
    /// Never decreases, except when truncation cuts the log below it.
    pub high_watermark: Offset,
}

impl ReplicaState {
    pub fn new(topic_id: Uuid, high_watermark: Offset) -> Self {
        ReplicaState {
            topic_id,
            role: Role::Unassigned,
            leader_epoch: -1,
            partition_epoch: -1,
            replicas: Vec::new(),
            min_insync_replicas: 1,
            leader_recovery_state: 0,
            high_watermark,
        }
    }

    pub fn leader(&self) -> Option<&LeaderState> {
        match &self.role {
            Role::Leader(leader) => Some(leader),
            _ => None,
        }
    }

    pub fn leader_mut(&mut self) -> Option<&mut LeaderState> {
        match &mut self.role {
            Role::Leader(leader) => Some(leader),
            _ => None,
        }
    }
}

/// How a partition state from metadata relates to the one held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Update {
    /// An older leader or partition epoch: ignored.
    Stale,
    /// The same epochs: nothing new.
    Same,
    /// A newer partition epoch in the same leader epoch (an ISR or replica change).
    NewPartitionEpoch,
    /// A newer leader epoch (or the first state).
    NewLeaderEpoch,
}

pub(crate) fn classify(held: &ReplicaState, incoming: &PartitionState) -> Update {
    if held.role == Role::Unassigned || incoming.leader_epoch > held.leader_epoch {
        Update::NewLeaderEpoch
    } else if incoming.leader_epoch < held.leader_epoch || incoming.partition_epoch < held.partition_epoch {
        Update::Stale
    } else if incoming.partition_epoch == held.partition_epoch {
        Update::Same
    } else {
        Update::NewPartitionEpoch
    }
}

/// The high watermark the leader could move to: the smallest log end offset over the maximal
/// ISR, its own included. A member that has not fetched in this epoch holds it back entirely.
pub(crate) fn high_watermark_candidate(
    leader_end_offset: Offset,
    maximal_isr: &[BrokerId],
    local: BrokerId,
    followers: &BTreeMap<BrokerId, FollowerProgress>,
) -> Offset {
    maximal_isr.iter().filter(|id| **id != local).fold(leader_end_offset, |lowest, id| {
        lowest.min(followers.get(id).map_or(UNKNOWN_OFFSET, |f| f.log_end_offset))
    })
}

/// The ISR members (other than the leader) that are not caught up.
pub(crate) fn out_of_sync(
    leader: &LeaderState,
    local: BrokerId,
    leader_end_offset: Offset,
    now_ms: i64,
    lag_max_ms: i64,
) -> Vec<BrokerId> {
    leader
        .isr
        .isr()
        .iter()
        .copied()
        .filter(|id| *id != local)
        .filter(|id| leader.followers.get(id).is_none_or(|f| !f.is_caught_up(leader_end_offset, now_ms, lag_max_ms)))
        .collect()
}

/// Whether follower `id` may join the ISR as far as offsets go: it has reached the high
/// watermark and this leader epoch's start.
pub(crate) fn may_join_isr(leader: &LeaderState, id: BrokerId, high_watermark: Offset) -> bool {
    leader.followers.get(&id).is_some_and(|f| {
        f.log_end_offset != UNKNOWN_OFFSET
            && f.log_end_offset >= high_watermark
            && f.log_end_offset >= leader.epoch_start_offset
    })
}

/// The leader's answer to a follower that last fetched `last_fetched_epoch` and asks from
/// `fetch_offset`, given the leader's `end_offset_for(last_fetched_epoch)` as `leader_end`:
/// `Ok(None)` if the logs agree, `Ok(Some((epoch, end_offset)))` for a diverging epoch (the
/// follower must truncate), `Err(())` when the leader cannot tell (OFFSET_OUT_OF_RANGE).
#[allow(clippy::result_unit_err)]
pub(crate) fn diverging_epoch(
    leader_end: (LeaderEpoch, Offset),
    last_fetched_epoch: LeaderEpoch,
    fetch_offset: Offset,
) -> Result<Option<(LeaderEpoch, Offset)>, ()> {
    let (epoch, end_offset) = leader_end;
    if epoch == UNDEFINED_EPOCH || end_offset == UNDEFINED_EPOCH_OFFSET {
        return Err(());
    }
    Ok((epoch < last_fetched_epoch || end_offset < fetch_offset).then_some((epoch, end_offset)))
}

/// Where a follower truncates when its leader reports `diverging` (epoch, end offset), given
/// the follower's own `end_offset_for(diverging epoch)` as `follower_end` and its log end offset.
/// Never by high watermark: only offsets the leader says it lacks go.
pub(crate) fn truncation_offset(
    diverging: (LeaderEpoch, Offset),
    follower_end: (LeaderEpoch, Offset),
    log_end_offset: Offset,
) -> Offset {
    let (leader_epoch, leader_end) = diverging;
    let (follower_epoch, follower_end) = follower_end;
    let offset = if follower_epoch == UNDEFINED_EPOCH || follower_end == UNDEFINED_EPOCH_OFFSET {
        // No epoch of ours at or below the leader's: keep no more than the leader has.
        leader_end
    } else if follower_epoch == leader_epoch {
        follower_end.min(leader_end)
    } else {
        // We never saw the leader's epoch: cut where our older epoch ends; the next fetch, with
        // that epoch as the last fetched one, finds the rest of the divergence.
        follower_end
    };
    offset.min(log_end_offset)
}

/// Kafka's choice of fetcher for a partition: `abs(31 * topic.hashCode() + partition) % n`, with
/// Java's `String.hashCode` over UTF-16 code units.
pub(crate) fn fetcher_index(topic: &str, partition: i32, fetchers: usize) -> usize {
    let hash = topic.encode_utf16().fold(0i32, |h, unit| h.wrapping_mul(31).wrapping_add(i32::from(unit)));
    let key = hash.wrapping_mul(31).wrapping_add(partition);
    // Kafka's `Utils.abs` maps i32::MIN to 0.
    let abs = if key == i32::MIN { 0 } else { key.unsigned_abs() };
    abs as usize % fetchers.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(log_end_offset: Offset) -> FollowerProgress {
        FollowerProgress { log_end_offset, ..FollowerProgress::new(true, 0) }
    }

    /// KIP-841: lag is measured from the last time the follower had everything the leader had at
    /// a fetch, not from its last fetch; a follower fetching often but never reaching the end
    /// falls behind.
    #[test]
    fn caught_up_time_follows_the_leaders_end_at_each_fetch() {
        let mut f = FollowerProgress::new(false, 0);
        assert!(!f.is_caught_up(10, 31_000, 30_000));
        f.on_fetch(10, 0, 1_000, 10, 5);
        assert_eq!(f.last_caught_up_time_ms, 1_000);
        // The leader grew to 20; the follower asks from 10: not caught up at 2_000.
        f.on_fetch(10, 0, 2_000, 20, 5);
        assert_eq!(f.last_caught_up_time_ms, 1_000);
        // It now asks from 20, the leader's end at the previous fetch: caught up as of 2_000.
        f.on_fetch(20, 0, 3_000, 30, 5);
        assert_eq!(f.last_caught_up_time_ms, 2_000);
        // Fetching often without reaching the end: still 2_000.
        for t in 4..40 {
            f.on_fetch(25, 0, t * 1_000, 1_000, 5);
        }
        assert_eq!(f.last_caught_up_time_ms, 2_000);
        assert!(!f.is_caught_up(1_000, 40_000, 30_000));
        assert!(f.is_caught_up(25, 40_000, 30_000), "at the leader's end it is in sync whatever the time");
    }

    /// The high watermark waits for every member of the maximal ISR; one that has not fetched
    /// holds it at -1.
    #[test]
    fn high_watermark_is_the_lowest_isr_log_end() {
        let local = BrokerId(1);
        let followers: BTreeMap<BrokerId, FollowerProgress> =
            [(BrokerId(2), progress(7)), (BrokerId(3), progress(4)), (BrokerId(4), FollowerProgress::new(true, 0))]
                .into_iter()
                .collect();
        let check = |isr: &[i32], expected: Offset| {
            let isr: Vec<BrokerId> = isr.iter().copied().map(BrokerId).collect();
            assert_eq!(high_watermark_candidate(10, &isr, local, &followers), expected, "isr {isr:?}");
        };
        check(&[1], 10);
        check(&[1, 2], 7);
        check(&[1, 2, 3], 4);
        check(&[1, 2, 4], UNKNOWN_OFFSET);
        check(&[1, 9], UNKNOWN_OFFSET);
    }

    fn item() -> AlterPartitionItem {
        AlterPartitionItem {
            topic_partition: strand_base::TopicPartition::new("t", 0),
            topic_id: Uuid::ZERO,
            leader_epoch: 1,
            partition_epoch: 1,
            new_isr: Vec::new(),
            leader_recovery_state: 0,
        }
    }

    /// A pending expansion counts its new member for the high watermark but not for
    /// `min.insync.replicas`; a pending shrink keeps the old members in both.
    #[test]
    fn maximal_isr_of_each_state() {
        let isr = vec![BrokerId(1), BrokerId(2)];
        let committed = IsrState::Committed { isr: isr.clone() };
        let expand = IsrState::PendingExpand { isr: isr.clone(), adding: BrokerId(3), sent: item() };
        let shrink = IsrState::PendingShrink { isr: isr.clone(), removing: vec![BrokerId(2)], sent: item() };
        assert_eq!((committed.isr(), committed.maximal_isr(), committed.in_flight()), (&isr[..], isr.clone(), None));
        assert_eq!(expand.isr(), &isr[..]);
        assert_eq!(expand.maximal_isr(), vec![BrokerId(1), BrokerId(2), BrokerId(3)]);
        assert!(expand.in_flight().is_some());
        assert_eq!((shrink.isr(), shrink.maximal_isr()), (&isr[..], isr.clone()));
        assert!(shrink.in_flight().is_some());
    }

    /// Every way a metadata state can relate to the held one.
    #[test]
    fn updates_by_epoch() {
        let mut held = ReplicaState::new(Uuid::ZERO, 0);
        let incoming = |leader_epoch, partition_epoch| PartitionState {
            leader: BrokerId(1),
            leader_epoch,
            partition_epoch,
            replicas: vec![BrokerId(1)],
            isr: vec![BrokerId(1)],
            min_insync_replicas: 1,
            leader_recovery_state: 0,
        };
        assert_eq!(classify(&held, &incoming(0, 0)), Update::NewLeaderEpoch, "the first state");
        held.role = Role::Follower { leader: BrokerId(2) };
        held.leader_epoch = 5;
        held.partition_epoch = 8;
        assert_eq!(classify(&held, &incoming(4, 9)), Update::Stale);
        assert_eq!(classify(&held, &incoming(5, 7)), Update::Stale);
        assert_eq!(classify(&held, &incoming(5, 8)), Update::Same);
        assert_eq!(classify(&held, &incoming(5, 9)), Update::NewPartitionEpoch);
        assert_eq!(classify(&held, &incoming(6, 1)), Update::NewLeaderEpoch);
    }

    /// The leader reports divergence when the follower's last epoch ended earlier on the leader,
    /// or is unknown there; agreeing logs fetch on.
    #[test]
    fn leader_finds_divergence() {
        assert_eq!(diverging_epoch((3, 100), 3, 100), Ok(None));
        assert_eq!(diverging_epoch((3, 100), 3, 80), Ok(None));
        assert_eq!(diverging_epoch((3, 90), 3, 100), Ok(Some((3, 90))));
        assert_eq!(diverging_epoch((2, 50), 3, 60), Ok(Some((2, 50))));
        assert_eq!(diverging_epoch((UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET), 9, 60), Err(()));
    }

    /// The follower truncates to the end of the epoch both know, or where its own older epoch
    /// ends, never past its log end.
    #[test]
    fn follower_truncates_to_the_common_end() {
        // Both know epoch 3; the leader's ended at 90, ours at 120.
        assert_eq!(truncation_offset((3, 90), (3, 120), 130), 90);
        // Ours ended first.
        assert_eq!(truncation_offset((3, 90), (3, 80), 130), 80);
        // We know only epoch 2 at or below 3: cut where our epochs above 3 begin.
        assert_eq!(truncation_offset((3, 90), (2, 70), 130), 70);
        // No epoch of ours at or below the leader's.
        assert_eq!(truncation_offset((3, 90), (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET), 130), 90);
        assert_eq!(truncation_offset((3, 90), (3, 120), 60), 60);
    }

    /// The same fetcher Kafka's `AbstractFetcherManager.getFetcherId` picks.
    #[test]
    fn fetcher_choice_matches_kafka() {
        // "orders".hashCode() = -1008770331 in Java.
        let hash = -1_008_770_331i32;
        for partition in 0..8 {
            let key = hash.wrapping_mul(31).wrapping_add(partition);
            assert_eq!(fetcher_index("orders", partition, 3), key.unsigned_abs() as usize % 3);
        }
        assert_eq!(fetcher_index("", 0, 4), 0);
        assert_eq!(fetcher_index("x", 1, 1), 0);
    }
}
