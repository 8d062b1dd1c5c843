//! [`ReplicaManager`]: the partitions this node hosts, what metadata says of them, and every
//! operation on them by partition (the request-level replica fetch is in `leader.rs`).
//!
//! Two ways to build it:
//! - [`ReplicaManager::new`]: standalone, a node without peers. Hosted partitions are led here
//!   alone (the high watermark is the log end offset, `acks=all` waits for the local sync only)
//!   and no partition state is taken.
//! - [`ReplicaManager::with_config`]: a cluster member with a broker id, a
//!   [`crate::ReplicaTransport`] and an [`crate::IsrChannel`]. Partitions do nothing until [`ReplicaManager::apply_partition_state`]
//!   makes this node their leader or follower; high watermarks are recovered from each
//!   directory's `replication-offset-checkpoint`.
//!
//! The shell's duties in a cluster: apply every partition state the metadata image changes,
//! report the brokers' standing ([`ReplicaManager::set_broker_statuses`]) and the replication
//! throttles ([`ReplicaManager::set_replication_throttles`]) on every image, call
//! [`ReplicaManager::maybe_shrink_isr`] every `replica.lag.time.max.ms / 2` and
//! [`ReplicaManager::checkpoint_high_watermarks`] every
//! `replica.high.watermark.checkpoint.interval.ms` (5 s), and on shutdown
//! [`ReplicaManager::stop_fetchers`] then [`ReplicaManager::shutdown`].
//!
//! What it is not: it decodes no requests but Fetch (for followers) and knows no metadata
//! records; it opens no sockets (the transport and the ISR channel are the shell's).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use strand_base::{BrokerId, Clock, LeaderEpoch, Offset, ProducerId, TopicPartition, Uuid};
use strand_log::cleaner::{CleanStats, Cleaner, CleanerConfig};
use strand_log::log::{AppendInfo, ValidatedBatch};
use strand_log::manager::{SharedLog, lock};
use strand_log::producer_state::{AppendContext, ProducerStateEntry, VerificationGuard};
use strand_log::segment::SegmentSlice;
use strand_log::{Log, LogConfig, LogDirContents, LogError, LogManager};
use tokio::sync::watch;

use crate::config::ReplicationConfig;
use crate::error::ReplicaError;
use crate::fetcher::Fetchers;
use crate::hosted::{ReplicaLinks, Shared, read, write};
use crate::partition::{Appended, Partition};
use crate::quota::{QuotaWindow, ReplicationQuotas, ReplicationThrottles};
use crate::replica::ReplicaState;
use crate::state::{BrokerStatus, FollowerStatus, PartitionState, PartitionStatus, RoleChange};
use crate::types::{Acks, FirstBatch, Isolation, PartitionOffsets, PartitionRead, PassReport, ReadFrom};

/// The replicas this node hosts. Thread-safe; shared between the handlers, the fetchers and the
/// shell's periodic tasks.
#[derive(Debug)]
pub struct ReplicaManager {
    pub(crate) shared: Arc<Shared>,
    /// `None` once shut down; shared with the log-dir movers (`log_dir_move.rs`).
    pub(crate) logs: Arc<Mutex<Option<LogManager>>>,
    fetchers: Mutex<Fetchers>,
    /// How many log directories were offline at the last [`ReplicaManager::handle_log_dir_failures`].
    offline_dirs_seen: Mutex<usize>,
    /// Each log dir's health, read without the log manager's lock: that lock is held while new
    /// partitions' files are created, and the log dir watcher asks every 100 ms from an async
    /// task (a tokio worker blocked behind a creation stalled every client).
    dir_healths: Vec<(PathBuf, Arc<strand_log::file::DirHealth>)>,
}

impl ReplicaManager {
    /// A standalone replica manager (see the module doc), over every log `logs` opened.
    pub fn new(logs: LogManager, flush_on_acks_all: bool) -> Self {
        let clock = logs.clock().clone();
        let config = ReplicationConfig::standalone(flush_on_acks_all);
        let hosted = Self::host_logs(&logs, &config, &BTreeMap::new());
        Self::build(logs, config, None, clock, hosted)
    }

    /// A cluster member (see the module doc): `config.broker_id` must be set.
    pub fn with_config(
        logs: LogManager,
        config: ReplicationConfig,
        links: ReplicaLinks,
        clock: Arc<dyn Clock>,
    ) -> Result<Self, ReplicaError> {
        if config.is_standalone() {
            return Err(ReplicaError::Config("a cluster member's replica manager needs its broker id".into()));
        }
        let high_watermarks = logs.read_high_watermarks()?;
        let hosted = Self::host_logs(&logs, &config, &high_watermarks);
        Ok(Self::build(logs, config, Some(links), clock, hosted))
    }

    /// Every log already on disk, with its checkpointed high watermark (at most its end).
    fn host_logs(
        logs: &LogManager,
        config: &ReplicationConfig,
        high_watermarks: &BTreeMap<TopicPartition, Offset>,
    ) -> Vec<(TopicPartition, SharedLog, Offset)> {
        logs.partitions()
            .filter_map(|tp| {
                let log = logs.get(tp)?;
                let end = lock(&log).map(|l| l.log_end_offset()).unwrap_or(0);
                let checkpointed =
                    if config.is_standalone() { end } else { high_watermarks.get(tp).copied().unwrap_or(0) };
                Some((tp.clone(), log, checkpointed.min(end)))
            })
            .collect()
    }

    fn build(
        logs: LogManager,
        config: ReplicationConfig,
        links: Option<ReplicaLinks>,
        clock: Arc<dyn Clock>,
        hosted: Vec<(TopicPartition, SharedLog, Offset)>,
    ) -> Self {
        let changed = Arc::new(watch::Sender::new(0));
        let partitions = hosted
            .into_iter()
            .map(|(tp, log, high_watermark)| {
                let state = ReplicaState::new(Uuid::ZERO, high_watermark);
                let partition =
                    Partition::new(tp.clone(), log, state, config.broker_id, config.is_standalone(), changed.clone());
                (tp, Arc::new(partition))
            })
            .collect();
        let window = QuotaWindow {
            samples: config.replication_quota_window_num,
            sample_ms: i64::from(config.replication_quota_window_size_seconds) * 1000,
        };
        let shared = Shared {
            quotas: ReplicationQuotas::new(window),
            config,
            clock,
            links,
            partitions: RwLock::new(partitions),
            offline: RwLock::default(),
            topic_names: RwLock::new(BTreeMap::new()),
            brokers: RwLock::new(None),
            changed,
            hosting: watch::Sender::new(0),
            consumer_reads: std::sync::atomic::AtomicU64::new(0),
            follower_read_bytes: std::sync::atomic::AtomicU64::new(0),
            delayed: Default::default(),
        };
        ReplicaManager {
            shared: Arc::new(shared),
            dir_healths: logs.dir_healths(),
            logs: Arc::new(Mutex::new(Some(logs))),
            fetchers: Mutex::new(Fetchers::default()),
            offline_dirs_seen: Mutex::new(0),
        }
    }

    pub fn config(&self) -> &ReplicationConfig {
        &self.shared.config
    }

    /// Takes this node's replication throttles (rates and throttled replicas) as the metadata
    /// image now sets them; what the quotas recorded so far stays.
    pub fn set_replication_throttles(&self, throttles: ReplicationThrottles) {
        self.shared.quotas.update(throttles);
    }

    fn fetchers(&self) -> MutexGuard<'_, Fetchers> {
        self.fetchers.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Hosts `tp` (creating its log if needed) with the topic's current log settings. Alone,
    /// this makes a standalone manager lead it; a cluster member then needs its partition state.
    pub fn ensure_partition(&self, tp: &TopicPartition, topic_id: Uuid, config: LogConfig) -> Result<(), ReplicaError> {
        if topic_id != Uuid::ZERO {
            write(&self.shared.topic_names).insert(topic_id, tp.topic.clone());
        }
        if let Ok(partition) = self.shared.partition(tp) {
            // A log loaded from disk learns its topic id here: one that never got a batch has
            // no `partition.metadata` yet, written with its first.
            let loaded = topic_id != Uuid::ZERO && partition.topic_id()? == Uuid::ZERO;
            let mut log = lock(&partition.log)?;
            if *log.config() != config {
                log.set_config(config);
            }
            if loaded {
                log.defer_partition_metadata_if_missing(topic_id);
            }
            drop(log);
            if topic_id != Uuid::ZERO {
                partition.set_topic_id(topic_id)?;
            }
            return Ok(());
        }
        let log = match self.with_logs(|logs| logs.get_or_create(tp, topic_id, config)) {
            Ok(log) => log,
            Err(e) => {
                write(&self.shared.offline).insert(tp.clone(), e.to_string());
                return Err(e);
            }
        };
        write(&self.shared.offline).remove(tp);
        // A new log: nothing in it is committed yet.
        let config = &self.shared.config;
        let state = ReplicaState::new(topic_id, 0);
        let partition = Partition::new(
            tp.clone(),
            log,
            state,
            config.broker_id,
            config.is_standalone(),
            self.shared.changed.clone(),
        );
        write(&self.shared.partitions).insert(tp.clone(), Arc::new(partition));
        self.shared.hosting_changed();
        Ok(())
    }

    /// Hosts `tp` and applies its state from metadata (Kafka's `becomeLeaderOrFollower` for one
    /// partition): this node becomes its leader (its epoch recorded at the log end, followers'
    /// progress reset, fetching stopped) or its follower (produce refused, fetching from the new
    /// leader at the new epoch); a newer partition epoch replaces the ISR; older states are
    /// ignored. Call it for every partition this node is a replica of, on every image that
    /// changes the partition or its topic's configs (`min.insync.replicas`).
    pub fn apply_partition_state(
        &self,
        tp: &TopicPartition,
        topic_id: Uuid,
        config: LogConfig,
        state: &PartitionState,
    ) -> Result<RoleChange, ReplicaError> {
        if self.shared.config.is_standalone() {
            return Err(ReplicaError::Config("a standalone replica manager takes no partition state".into()));
        }
        self.ensure_partition(tp, topic_id, config)?;
        let partition = self.shared.partition(tp)?;
        let change = partition.apply(state, topic_id, self.shared.clock.now_ms())?;
        match change {
            RoleChange::BecameLeader => {
                self.fetchers().unassign(tp);
                if partition.with_log(|log, _| Ok(log.delayed().pending_count() > 0))? {
                    self.note_delayed(tp);
                }
            }
            RoleChange::BecameFollower if state.leader != BrokerId::NONE => {
                self.fetchers().assign(&self.shared, tp, topic_id, state.leader, state.leader_epoch)?;
            }
            RoleChange::BecameFollower => self.fetchers().unassign(tp),
            RoleChange::Stale | RoleChange::Unchanged | RoleChange::Updated => {}
        }
        if !matches!(change, RoleChange::Stale | RoleChange::Unchanged) {
            // Follower fetches parked because this node had not yet applied this state wake up.
            partition.notify();
            self.shared.hosting_changed();
        }
        Ok(change)
    }

    /// The brokers' standing from the metadata image (registration epochs, fencing, controlled
    /// shutdown): who may join an ISR (KIP-841) and whose fetches carry a stale broker epoch.
    /// This node's own entry gives the broker epoch its fetches and ISR proposals carry.
    pub fn set_broker_statuses(&self, statuses: BTreeMap<BrokerId, BrokerStatus>) {
        *write(&self.shared.brokers) = Some(statuses);
    }

    /// Stops hosting `tp` and deletes its log (the topic was deleted). Parked produces fail.
    pub fn delete_partition(&self, tp: &TopicPartition) -> Result<(), ReplicaError> {
        write(&self.shared.offline).remove(tp);
        let removed = write(&self.shared.partitions).remove(tp);
        self.fetchers().unassign(tp);
        if let Some(partition) = removed {
            partition.mark_removed();
            self.shared.hosting_changed();
        }
        self.with_logs(|logs| logs.delete(tp))?;
        Ok(())
    }

    /// The node's log directories, each with the partitions whose logs it holds and their sizes
    /// in bytes (DescribeLogDirs).
    pub fn log_dirs(&self) -> Result<Vec<LogDirContents>, ReplicaError> {
        self.with_logs(|logs| logs.dir_contents())
    }

    /// The log directories a failed sync took offline, in `log.dirs` order.
    pub fn offline_dirs(&self) -> Result<Vec<PathBuf>, ReplicaError> {
        Ok(self.dir_healths.iter().filter(|(_, health)| health.is_offline()).map(|(path, _)| path.clone()).collect())
    }

    /// Kafka's `ReplicaManager.handleLogDirFailure`, for every directory that went offline since
    /// the last call: each partition whose log is in one is marked offline (it takes no more
    /// partition states, proposes no ISR change, parked produces fail) and its fetcher stops.
    /// Returns the offline directories; the caller reports them to the controller (KIP-858),
    /// which moves those partitions' leaderships away. Cheap while no new directory failed.
    pub fn handle_log_dir_failures(&self) -> Result<Vec<PathBuf>, ReplicaError> {
        let offline = self.offline_dirs()?;
        let mut seen = self.offline_dirs_seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if offline.len() <= *seen {
            return Ok(offline);
        }
        *seen = offline.len();
        let mut stopped = Vec::new();
        for partition in self.shared.all_partitions() {
            let in_offline_dir = lock(&partition.log).is_ok_and(|log| log.check_online().is_err());
            if in_offline_dir && partition.mark_offline() {
                self.fetchers().unassign(&partition.tp);
                stopped.push(partition.tp.clone());
            }
        }
        if !stopped.is_empty() {
            self.shared.hosting_changed();
        }
        tracing::warn!("log dirs {offline:?} offline: stopped serving {} partitions in them", stopped.len());
        Ok(offline)
    }

    /// Whether `tp`'s log directory failed and this node stopped serving it.
    pub fn is_offline(&self, tp: &TopicPartition) -> bool {
        self.shared.partition(tp).is_ok_and(|p| p.is_offline())
    }

    /// The partitions hosted here.
    pub fn hosted(&self) -> Vec<TopicPartition> {
        read(&self.shared.partitions).keys().cloned().collect()
    }

    /// Leaves `tp` unhosted and offline for `reason` (answered KAFKA_STORAGE_ERROR), without
    /// creating its log: the log may be in a log dir that is offline (Kafka's
    /// `createLogInAssignedDirectoryId` skips the creation too). Nothing if it is hosted.
    /// Whether it was not kept offline before.
    pub fn keep_offline(&self, tp: &TopicPartition, reason: String) -> bool {
        self.shared.partition(tp).is_err() && write(&self.shared.offline).insert(tp.clone(), reason).is_none()
    }

    /// The topic id `tp` is hosted under, if it is hosted and its id is known.
    pub fn hosted_topic_id(&self, tp: &TopicPartition) -> Option<Uuid> {
        let id = self.shared.partition(tp).ok()?.topic_id().ok()?;
        (id != Uuid::ZERO).then_some(id)
    }

    /// The partitions of `topic` this node was given (hosted, then offline), by index.
    pub fn given_of(&self, topic: &str) -> Vec<TopicPartition> {
        let first = TopicPartition::new(topic, i32::MIN);
        let of_topic = |tp: &&TopicPartition| tp.topic == topic;
        let hosted: Vec<TopicPartition> =
            read(&self.shared.partitions).range(&first..).map(|(tp, _)| tp).take_while(of_topic).cloned().collect();
        let offline: Vec<TopicPartition> =
            read(&self.shared.offline).range(&first..).map(|(tp, _)| tp).take_while(of_topic).cloned().collect();
        [hosted, offline].concat()
    }

    /// Whether `tp` is hosted here.
    pub fn is_hosted(&self, tp: &TopicPartition) -> bool {
        read(&self.shared.partitions).contains_key(tp)
    }

    /// Whether `tp` was given to this node but could not be hosted ([`Self::offline`]).
    pub fn is_given_but_unhosted(&self, tp: &TopicPartition) -> bool {
        read(&self.shared.offline).contains_key(tp)
    }

    /// How many partitions this node was given: those hosted and those offline.
    pub fn given_count(&self) -> usize {
        read(&self.shared.partitions).len() + read(&self.shared.offline).len()
    }

    /// The partitions this node was given but could not host (their logs could not be opened or
    /// created), answered KAFKA_STORAGE_ERROR.
    pub fn offline(&self) -> Vec<TopicPartition> {
        read(&self.shared.offline).keys().cloned().collect()
    }

    pub(crate) fn with_logs<T>(
        &self,
        f: impl FnOnce(&mut LogManager) -> Result<T, LogError>,
    ) -> Result<T, ReplicaError> {
        let mut logs = self.logs.lock().map_err(|_| LogError::Invalid("the log manager's lock is poisoned".into()))?;
        let logs = logs.as_mut().ok_or_else(|| LogError::Invalid("the log manager is shut down".into()))?;
        Ok(f(logs)?)
    }

    /// Appends a validated batch as leader and returns at once. With `acks=all` it checks
    /// `min.insync.replicas` first and syncs the local log (`log.flush.on.acks.all`) before
    /// returning, but does not wait for followers: in a cluster use
    /// [`ReplicaManager::append_as_leader`] and wait on its [`crate::DelayedProduce`].
    pub fn append(
        &self,
        tp: &TopicPartition,
        batch: ValidatedBatch,
        leader_epoch: LeaderEpoch,
        acks: Acks,
        context: AppendContext,
    ) -> Result<(AppendInfo, Offset), ReplicaError> {
        let partition = self.shared.partition(tp)?;
        let appended = partition.append_as_leader(batch, leader_epoch, acks, context, false)?;
        if acks == Acks::All && self.shared.config.flush_on_acks_all {
            lock(&partition.log)?.flush_to(appended.info.last_offset + 1)?;
        }
        Ok((appended.info, appended.log_start_offset))
    }

    /// Appends a validated batch as leader at `leader_epoch` (which must be this leader's; a
    /// standalone manager takes the caller's). `acks=0` and `acks=1` are done when this returns;
    /// `acks=all` fails with NOT_ENOUGH_REPLICAS before appending if the committed ISR is smaller
    /// than `min.insync.replicas`, else returns a [`crate::DelayedProduce`] to wait on (the
    /// local sync happens there, grouped with other appends').
    pub fn append_as_leader(
        &self,
        tp: &TopicPartition,
        batch: ValidatedBatch,
        leader_epoch: LeaderEpoch,
        acks: Acks,
        context: AppendContext,
    ) -> Result<Appended, ReplicaError> {
        let flush = self.shared.config.flush_on_acks_all;
        self.shared.partition(tp)?.append_as_leader(batch, leader_epoch, acks, context, flush)
    }

    /// KIP-890: starts verifying that `tp` is in the producer's ongoing transaction before its
    /// first transactional write here, and returns the guard the append must present; the
    /// sentinel when the transaction is already open in `tp` (nothing to verify). Only the leader
    /// verifies. `supports_epoch_bump`: the producer runs transactions V2.
    pub fn maybe_start_txn_verification(
        &self,
        tp: &TopicPartition,
        producer: (ProducerId, i16),
        sequence: i32,
        supports_epoch_bump: bool,
        now_ms: i64,
    ) -> Result<VerificationGuard, ReplicaError> {
        let partition = self.shared.partition(tp)?;
        if !partition.is_leader() {
            return Err(ReplicaError::NotLeaderOrFollower(tp.clone()));
        }
        let mut log = lock(&partition.log)?;
        let (producer_id, epoch) = producer;
        log.producer_state_mut()
            .maybe_start_txn_verification(producer_id, sequence, epoch, supports_epoch_bump, now_ms)
            .map_err(|e| ReplicaError::Log(e.into()))
    }

    /// The producers `tp`'s leader knows (DescribeProducers): each one's state entry.
    pub fn active_producers(&self, tp: &TopicPartition) -> Result<Vec<ProducerStateEntry>, ReplicaError> {
        let partition = self.shared.partition(tp)?;
        if !partition.is_leader() {
            return Err(ReplicaError::NotLeaderOrFollower(tp.clone()));
        }
        let log = lock(&partition.log)?;
        Ok(log.producer_state().active_producers().values().cloned().collect())
    }

    /// A consumer's read from `offset`: up to `max_bytes` (the first batch whole, KIP-74), never
    /// past the high watermark, or the last stable offset under read_committed. Only the leader
    /// serves it (NOT_LEADER_OR_FOLLOWER otherwise).
    pub fn read(
        &self,
        tp: &TopicPartition,
        offset: Offset,
        max_bytes: u64,
        isolation: Isolation,
    ) -> Result<PartitionRead, ReplicaError> {
        self.read_limited(tp, offset, max_bytes, isolation, FirstBatch::Whole, ReadFrom::Leader)
    }

    /// [`ReplicaManager::read`] with the first batch treated as `first_batch` says (a fetch's
    /// partitions after the first one that returned data never exceed `max_bytes`), from the
    /// replicas `from` allows (a follower reads up to its own high watermark, KIP-392).
    pub fn read_limited(
        &self,
        tp: &TopicPartition,
        offset: Offset,
        max_bytes: u64,
        isolation: Isolation,
        first_batch: FirstBatch,
        from: ReadFrom,
    ) -> Result<PartitionRead, ReplicaError> {
        self.shared.consumer_reads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let read = self.shared.partition(tp)?.read(offset, max_bytes, isolation, first_batch, from)?;
        if read.by_follower {
            self.shared.follower_read_bytes.fetch_add(read.len(), std::sync::atomic::Ordering::Relaxed);
        }
        Ok(read)
    }

    /// Consumer reads served so far (each partition of each fetch pass): a parked fetch woken for
    /// nothing shows here.
    pub fn consumer_reads(&self) -> u64 {
        self.shared.consumer_reads.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Record bytes served to consumers as a follower so far (KIP-392).
    pub fn follower_read_bytes(&self) -> u64 {
        self.shared.follower_read_bytes.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The leader's side of KIP-392's replica selection for a consumer reading `tp` from
    /// `offset` (see `Partition::read_replica_candidates`): `None` unless this node leads `tp`;
    /// else its log end offset and the in-sync followers holding `offset`.
    pub fn read_replica_candidates(
        &self,
        tp: &TopicPartition,
        offset: Offset,
    ) -> Result<Option<(Offset, Vec<FollowerStatus>)>, ReplicaError> {
        self.shared.partition(tp)?.read_replica_candidates(offset)
    }

    /// A receiver of `tp`'s changes (appends, high watermark, ISR or leadership changes, its
    /// removal), for a [`crate::FetchWatch`]; `None` if `tp` is not hosted here. Subscribe before reading.
    pub fn subscribe_partition(&self, tp: &TopicPartition) -> Option<watch::Receiver<u64>> {
        self.shared.partition(tp).ok().map(|p| p.subscribe())
    }

    /// A receiver of the node's hosting changes (a partition hosted, dropped, or changing role).
    pub fn subscribe_hosting(&self) -> watch::Receiver<u64> {
        self.shared.hosting.subscribe()
    }

    /// Reads `tp`'s local log from `offset` toward its end, whatever this node's role: for tools
    /// and tests comparing replicas (clients go through [`ReplicaManager::read`]).
    pub fn read_local(
        &self,
        tp: &TopicPartition,
        offset: Offset,
        max_bytes: u64,
    ) -> Result<Option<SegmentSlice>, ReplicaError> {
        Ok(self.with_log(tp, |log| log.read(offset, max_bytes, None))??)
    }

    /// DeleteRecords for `tp` (see `Partition::delete_records`); the log start offset is
    /// checkpointed before it returns, so the deletion survives a crash. The new log start.
    pub fn delete_records(&self, tp: &TopicPartition, offset: Offset) -> Result<Offset, ReplicaError> {
        let start = self.shared.partition(tp)?.delete_records(offset)?;
        self.checkpoint()?;
        Ok(start)
    }

    pub fn offsets(&self, tp: &TopicPartition) -> Result<PartitionOffsets, ReplicaError> {
        self.shared.partition(tp)?.offsets()
    }

    /// The replication status of `tp` (role, epochs, ISR, followers, high watermark).
    pub fn partition_status(&self, tp: &TopicPartition) -> Result<PartitionStatus, ReplicaError> {
        self.shared.partition(tp)?.status()
    }

    fn with_log<T>(&self, tp: &TopicPartition, f: impl FnOnce(&Log) -> T) -> Result<T, ReplicaError> {
        let partition = self.shared.partition(tp)?;
        let log = lock(&partition.log)?;
        Ok(f(&log))
    }

    /// The offset after the last record of `tp`'s log, committed or not.
    pub fn log_end_offset(&self, tp: &TopicPartition) -> Result<Offset, ReplicaError> {
        self.with_log(tp, Log::log_end_offset)
    }

    /// The first record at or after `timestamp`, or the largest timestamp (`None` timestamp).
    /// The log's lock is held only to take the lookup; its reads and decompression run without
    /// it, so appends to the partition go on meanwhile.
    pub fn offset_for_timestamp(
        &self,
        tp: &TopicPartition,
        timestamp: i64,
    ) -> Result<Option<(i64, Offset)>, ReplicaError> {
        let lookup = self.with_log(tp, |log| log.timestamp_lookup(timestamp))?;
        Ok(lookup.run()?)
    }

    pub fn max_timestamp(&self, tp: &TopicPartition) -> Result<Option<(i64, Offset)>, ReplicaError> {
        self.with_log(tp, Log::max_timestamp)
    }

    /// The leader epoch and its end offset for OffsetForLeaderEpoch.
    pub fn end_offset_for_epoch(
        &self,
        tp: &TopicPartition,
        epoch: LeaderEpoch,
    ) -> Result<(LeaderEpoch, Offset), ReplicaError> {
        self.with_log(tp, |log| log.epoch_cache().end_offset_for(epoch, log.log_end_offset()))
    }

    /// Proposes removing the followers that have not been caught up for
    /// `replica.lag.time.max.ms` from the ISR of every partition this node leads with no ISR
    /// change in flight. Call it every `replica.lag.time.max.ms / 2`. Returns how many
    /// partitions got a proposal.
    pub fn maybe_shrink_isr(&self, now_ms: i64) -> usize {
        // A partition whose directory failed must not shrink its ISR: it stops leading instead.
        if let Err(e) = self.handle_log_dir_failures() {
            tracing::warn!("checking the log dirs: {e}");
        }
        let brokers = self.shared.brokers();
        let lag_max_ms = self.shared.config.replica_lag_time_max_ms;
        let mut proposed = 0;
        for partition in self.shared.all_partitions() {
            match partition.maybe_shrink_isr(now_ms, lag_max_ms, &brokers) {
                Ok(Some(item)) => {
                    tracing::info!("shrinking the ISR of {} to {:?}", partition.tp, item.isr());
                    self.shared.submit_alter_partition(partition, item);
                    proposed += 1;
                }
                Ok(None) => {}
                Err(e) => tracing::warn!("ISR check of {}: {e}", partition.tp),
            }
        }
        proposed
    }

    /// Applies retention to every hosted partition (each log's own `retention.*` and
    /// `cleanup.policy`), never deleting past a partition's high watermark. Reports, per partition
    /// that lost any, how many segments went.
    pub fn apply_retention(&self) -> PassReport<usize> {
        self.each_log(|log, high_watermark| Ok(Some(log.apply_retention(high_watermark)?).filter(|n| *n > 0)))
    }

    /// Forgets, in every hosted partition, the producers idle for `producer.id.expiration.ms`
    /// without an open transaction (Kafka's `PeriodicProducerExpirationCheck`). Reports, per
    /// partition that forgot any, how many.
    pub fn remove_expired_producers(&self) -> PassReport<usize> {
        let mut report = PassReport { changed: Vec::new(), failed: Vec::new(), checkpoint_failed: None };
        for partition in self.shared.all_partitions() {
            let removed = partition.with_log(|log, _| {
                let before = log.producer_state().producer_count();
                log.remove_expired_producers();
                Ok(Some(before - log.producer_state().producer_count()).filter(|n| *n > 0))
            });
            match removed {
                Ok(Some(n)) => report.changed.push((partition.tp.clone(), n)),
                Ok(None) => {}
                Err(e) => report.failed.push((partition.tp.clone(), e)),
            }
        }
        report
    }

    /// Compacts every hosted partition whose `cleanup.policy` includes `compact` and whose
    /// cleaning is due (its `min.cleanable.dirty.ratio` or `max.compaction.lag.ms`, see
    /// `Cleaner::is_due`), never past its high watermark. The cleaner's key map is allocated only
    /// if some partition needs it and freed after the pass, so an idle node holds none of its
    /// memory. Each partition's lock is held only to prepare its pass and to swap each cleaned
    /// group in (see `compact`); a pass the log abandoned (it changed under
    /// it) is reported with `abandoned` set.
    pub fn apply_compaction(&self, config: CleanerConfig) -> PassReport<CleanStats> {
        let mut cleaner = None;
        let mut report = PassReport { changed: Vec::new(), failed: Vec::new(), checkpoint_failed: None };
        for partition in self.shared.all_partitions() {
            match Self::compact(&partition, &mut cleaner, config) {
                Ok(Some(stats)) => report.changed.push((partition.tp.clone(), stats)),
                Ok(None) => {}
                Err(e) => report.failed.push((partition.tp.clone(), e)),
            }
        }
        self.checkpoint_after(report)
    }

    /// One cleaner pass over `partition` if it is due, without blocking its appends for longer
    /// than a swap: the partition's lock is taken to prepare the pass (range, segment handles),
    /// then released while the offset map is built and each group's `.cleaned` segment is
    /// written, and taken again, briefly, for each swap and to finish. Fetches and produces go on
    /// meanwhile.
    fn compact(
        partition: &Partition,
        cleaner: &mut Option<Cleaner>,
        config: CleanerConfig,
    ) -> Result<Option<CleanStats>, ReplicaError> {
        let prepared = partition.with_log(|log, high_watermark| {
            if !Cleaner::is_due(log, high_watermark) {
                return Ok(None);
            }
            Cleaner::prepare(log, high_watermark)
        })?;
        let Some(mut pass) = prepared else { return Ok(None) };
        let cleaner = cleaner.get_or_insert_with(|| Cleaner::new(config));
        if cleaner.build_offset_map(&mut pass)? {
            while let Some(cleaned) = cleaner.clean_next_group(&mut pass)? {
                if !pass.swap(&mut *lock(&partition.log)?, cleaned)? {
                    break;
                }
            }
        }
        let stats = pass.finish(&mut *lock(&partition.log)?);
        // Without the lock: the pass's handles may be the last on the files of the segments it
        // replaced, and the file system frees their blocks as they close.
        drop(pass);
        Ok(stats)
    }

    /// A maintenance pass: `step` runs on every hosted log in turn, under its lock, with its high
    /// watermark. A partition that fails is reported and the others go on; if any step changed
    /// something (`Some`), the checkpoints are written so the change survives a crash.
    fn each_log<T>(&self, mut step: impl FnMut(&mut Log, Offset) -> Result<Option<T>, LogError>) -> PassReport<T> {
        let mut report = PassReport { changed: Vec::new(), failed: Vec::new(), checkpoint_failed: None };
        for partition in self.shared.all_partitions() {
            match partition.with_log(&mut step) {
                Ok(Some(done)) => report.changed.push((partition.tp.clone(), done)),
                Ok(None) => {}
                Err(e) => report.failed.push((partition.tp.clone(), e)),
            }
        }
        self.checkpoint_after(report)
    }

    /// Writes the checkpoints if a maintenance pass changed something, so the change survives a
    /// crash; a failure goes into the report.
    fn checkpoint_after<T>(&self, mut report: PassReport<T>) -> PassReport<T> {
        if !report.changed.is_empty()
            && let Err(e) = self.checkpoint()
        {
            report.checkpoint_failed = Some(e);
        }
        report
    }

    /// A receiver that sees a change after every append and every high watermark, ISR or
    /// leadership change. Subscribe before looking, then await `changed()`: nothing between the
    /// look and the wait is missed.
    pub fn subscribe_changes(&self) -> watch::Receiver<u64> {
        self.shared.changed.subscribe()
    }

    /// Waits until something is appended, or a high watermark, ISR or leadership changes, or
    /// `timeout` passes; fetches then look again.
    pub async fn wait_for_append(&self, timeout: Duration) {
        let mut changed = self.shared.changed.subscribe();
        let _ = tokio::time::timeout(timeout, changed.changed()).await;
    }

    /// Stops every fetcher and waits for them to end (before [`ReplicaManager::shutdown`]).
    pub async fn stop_fetchers(&self) {
        let tasks = self.fetchers().stop_all();
        for task in tasks {
            let _ = task.await;
        }
    }

    /// A clean shutdown: fetchers stopped, high watermarks checkpointed, every log flushed and
    /// closed, checkpoints, clean-shutdown marker. Await [`ReplicaManager::stop_fetchers`] first
    /// so that no fetched data is being applied meanwhile.
    pub fn shutdown(self, broker_epoch: i64) -> Result<(), ReplicaError> {
        drop(self.fetchers().stop_all());
        self.checkpoint_high_watermarks()?;
        for partition in self.shared.all_partitions() {
            partition.mark_removed();
        }
        // Taken out under the lock: a log-dir mover's next step finds it gone.
        let logs = self.logs.lock().map_err(|_| LogError::Invalid("the log manager's lock is poisoned".into()))?.take();
        if let Some(logs) = logs {
            logs.shutdown(broker_epoch)?;
        }
        Ok(())
    }

    /// Writes the checkpoints (periodically, so a crash recovers from a recent recovery point),
    /// the high watermarks' included.
    pub fn checkpoint(&self) -> Result<(), ReplicaError> {
        self.with_logs(|logs| logs.checkpoint())?;
        self.checkpoint_high_watermarks()
    }

    /// Writes every partition's high watermark to its directory's
    /// `replication-offset-checkpoint`, so a restart starts from it.
    pub fn checkpoint_high_watermarks(&self) -> Result<(), ReplicaError> {
        let mut high_watermarks = BTreeMap::new();
        for partition in self.shared.all_partitions() {
            high_watermarks.insert(partition.tp.clone(), partition.high_watermark()?);
        }
        self.with_logs(|logs| logs.write_high_watermarks(&high_watermarks))
    }
}
