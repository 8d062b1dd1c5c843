//! [`BrokerMetadataPublisher`] (Kafka's name): what a new metadata image means on this node. It
//! brings the replicas (the brokers' standing, each partition's leader, ISR and effective config
//! through the `TopicConfigResolver`, deletions) and the coordinators' leaderships (a shard per
//! `__consumer_offsets` / `__transaction_state` partition led here) in line with the image, in
//! that order, since a coordinator loads from its partition's log. A pass visits the topics that
//! changed since the image the last pass visited (found by diffing the two images' persistent
//! topic maps), so images skipped in between cost nothing and a pass costs what changed, not the
//! number of topics hosted; a change that concerns every partition (this node's or the cluster's
//! broker configs, a log dir going offline) visits every topic, as the first pass does.
//!
//! The server's metadata replay drives it on a blocking thread before it publishes each image to
//! the request handlers; the tests' clusters (`broker/tests/common`, the replication simulation)
//! drive the same type on every image they replay.
//!
//! It also hands the replicas this node's replication throttles (KIP-73): the rates of its
//! broker configs and the topics' throttled replicas lists.
//!
//! What it is not: it decides nothing (the controller did) and reads no config of its own beyond
//! the static settings it is built with.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use strand_base::topic::{OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC};
use strand_base::{BrokerId, LeaderEpoch, TopicPartition, Uuid};
use strand_coordinator::{CoordinatorShards, GroupCoordinator, TopicMetadata, TxnCoordinator};
use strand_log::LogConfig;
use strand_log::producer_state::ProducerStateConfig;
use strand_metadata::controller::topic_configs::{
    FOLLOWER_REPLICATION_THROTTLED_RATE, FOLLOWER_REPLICATION_THROTTLED_REPLICAS, LEADER_REPLICATION_THROTTLED_RATE,
    LEADER_REPLICATION_THROTTLED_REPLICAS, REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND,
};
use strand_metadata::image::{
    ConfigResource, ConfigResourceKind, DIRECTORY_UNASSIGNED, MetadataImage, PartitionImage, TopicConfigResolver,
    TopicImage,
};
use strand_replication::{BrokerStatus, PartitionState, ReplicaError, ReplicaManager, ReplicationThrottles};
use tracing::{error, info, warn};

/// What this node hosts according to the metadata image: partition replicas and, when given,
/// the group coordinator's shards (one per `__consumer_offsets` partition the node leads) and
/// the transaction coordinator's (one per `__transaction_state` partition it leads).
#[derive(Debug)]
pub struct BrokerMetadataPublisher {
    node: BrokerId,
    replicas: Arc<ReplicaManager>,
    /// The topic configs `server.properties` sets, by topic config name (the resolver's static
    /// layer).
    static_topic_configs: BTreeMap<String, String>,
    producer_state: ProducerStateConfig,
    /// Each log dir and its directory id (unknown for a dir unreadable at start-up).
    dirs: Vec<(PathBuf, Option<Uuid>)>,
    groups: Option<Arc<GroupCoordinator>>,
    transactions: Option<Arc<TxnCoordinator>>,
    share_states: Option<Arc<strand_coordinator::share::state::ShareCoordinator>>,
    /// What the passes so far did, so the next one visits only what changed since.
    progress: std::sync::Mutex<Progress>,
}

/// Where the passes stand: the image the last one visited, the log dirs offline then, and the
/// partitions it left for later. The next pass visits the topics that changed since that image
/// (its cost grows with what changed, not with the number of topics hosted), and every topic in
/// full when something that concerns every partition changed.
#[derive(Default)]
struct Progress {
    visited: Option<MetadataImage>,
    offline_dirs: Vec<PathBuf>,
    deferred: BTreeSet<TopicPartition>,
    /// The topics with a partition the last pass failed to bring in line (a hosted one whose new
    /// state could not be applied, say its epoch checkpoint not written): tried again on every
    /// pass until they succeed, as a full pass would.
    retry: BTreeSet<String>,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("visited", &self.visited.as_ref().map(|image| image.provenance()))
            .field("offline_dirs", &self.offline_dirs)
            .field("deferred", &self.deferred.len())
            .field("retry", &self.retry)
            .finish()
    }
}

/// The topics a pass visits.
#[derive(Debug)]
enum Scope {
    /// Every topic: the first pass, or one after a change that concerns every partition (this
    /// node's or the cluster's broker configs, which every topic's effective config reads, or the
    /// offline log dirs, which decide where a replica may be created).
    All,
    /// These topics by name: those added, changed or removed (or whose configs changed) since the
    /// last pass, and those with a partition left for later or offline (tried again on every
    /// pass, as a full pass would).
    Named(BTreeSet<String>),
}

/// A pass under way: its budget of new replicas and what it did not do.
#[derive(Debug)]
struct Pass {
    new_replicas_max: usize,
    new_replicas: usize,
    offline_dirs: Vec<PathBuf>,
    outcome: PassOutcome,
    slowest: std::time::Duration,
}

/// The most partitions one [`BrokerMetadataPublisher::publish_within`] pass hosts for the first
/// time (creating each one's directory and files, a few milliseconds each on a busy disk); the
/// others wait for the next pass, which the caller runs after publishing the image. So an image
/// reaches the request handlers, and a CreateTopics its answer, after at most this many
/// creations, however many partitions it adds (as Kafka's broker publishes an image to its
/// metadata cache before its replica manager creates the logs).
pub const NEW_REPLICAS_PER_PASS_MAX: usize = 100;

/// What a [`BrokerMetadataPublisher::publish_within`] pass did not do.
#[derive(Debug, Default)]
pub struct PassOutcome {
    /// The partitions that could not be hosted or deleted.
    pub failed: Vec<NotReconciled>,
    /// The partitions this node is a replica of but did not host yet, past the pass's budget of
    /// new ones: a later pass hosts them. Until then they answer as partitions not hosted here.
    pub deferred: BTreeSet<TopicPartition>,
    /// How many of this node's partitions the pass brought in line with the image (those of the
    /// topics it visited: the ones that changed since the last pass, or all).
    pub visited: usize,
}

/// A partition this node is a replica of but could not host (it answers KAFKA_STORAGE_ERROR until
/// it can), or could not delete.
#[derive(Debug)]
pub struct NotReconciled {
    pub partition: TopicPartition,
    pub error: ReplicaError,
}

impl BrokerMetadataPublisher {
    /// Broker `node`'s publisher over `replicas`, its topics' logs configured by the image's
    /// configs over `static_topic_configs` (topic config name → value). No coordinator and no
    /// known log dir yet.
    pub fn new(
        node: BrokerId,
        replicas: Arc<ReplicaManager>,
        static_topic_configs: BTreeMap<String, String>,
        producer_state: ProducerStateConfig,
    ) -> Self {
        BrokerMetadataPublisher {
            node,
            replicas,
            static_topic_configs,
            producer_state,
            dirs: Vec::new(),
            groups: None,
            transactions: None,
            share_states: None,
            progress: std::sync::Mutex::default(),
        }
    }

    /// The node's log dirs and their directory ids: with one offline, a replica the image places
    /// in a dir not among the online ones is left offline rather than created empty.
    pub fn with_log_dirs(self, dirs: Vec<(PathBuf, Option<Uuid>)>) -> Self {
        BrokerMetadataPublisher { dirs, ..self }
    }

    /// Also leads the group coordinator's shards of the `__consumer_offsets` partitions led here.
    pub fn with_groups(self, groups: Arc<GroupCoordinator>) -> Self {
        BrokerMetadataPublisher { groups: Some(groups), ..self }
    }

    /// Also leads the transaction coordinator's shards of the `__transaction_state` partitions
    /// led here.
    pub fn with_transactions(self, transactions: Arc<TxnCoordinator>) -> Self {
        BrokerMetadataPublisher { transactions: Some(transactions), ..self }
    }

    /// Also leads the share coordinator's shards of the `__share_group_state` partitions led
    /// here.
    pub fn with_share_states(self, share_states: Arc<strand_coordinator::share::state::ShareCoordinator>) -> Self {
        BrokerMetadataPublisher { share_states: Some(share_states), ..self }
    }

    pub fn replicas(&self) -> &Arc<ReplicaManager> {
        &self.replicas
    }

    /// Brings what this node hosts in line with `image`: replicas first (a coordinator loads from
    /// its partition's log), then the coordinators' leaderships. Each partition that could not be
    /// hosted or deleted is logged and returned; the others are reconciled regardless.
    pub fn publish(&self, image: &MetadataImage) -> Vec<NotReconciled> {
        self.publish_within(image, usize::MAX).failed
    }

    /// [`Self::publish`], hosting at most `new_replicas_max` partitions not hosted yet (see
    /// [`NEW_REPLICAS_PER_PASS_MAX`]); the coordinators lead none of those it leaves for later.
    pub fn publish_within(&self, image: &MetadataImage, new_replicas_max: usize) -> PassOutcome {
        let started = tokio::time::Instant::now();
        let (outcome, topics_changed) = self.publish_replicas(image, new_replicas_max);
        let replicas = started.elapsed();
        let led = |topic: &str| {
            let mut led = self.led(image, topic);
            led.retain(|&index, _| !outcome.deferred.contains(&TopicPartition::new(topic, index)));
            led
        };
        if let Some(groups) = &self.groups {
            lead_exactly(groups.shards(), &led(OFFSETS_TOPIC));
            if topics_changed {
                groups.on_metadata_update(topic_metadata(image));
            }
        }
        if let Some(transactions) = &self.transactions {
            lead_exactly(transactions.shards(), &led(TRANSACTION_STATE_TOPIC));
        }
        if let Some(share_states) = &self.share_states {
            lead_exactly(share_states.shards(), &led(strand_base::topic::SHARE_GROUP_STATE_TOPIC));
        }
        tracing::debug!(
            "reconciled: replicas in {:.3} ms, coordinators in {:.3} ms",
            replicas.as_secs_f64() * 1e3,
            (started.elapsed() - replicas).as_secs_f64() * 1e3
        );
        outcome
    }

    /// Hosts every partition this node is a replica of in `image`, as its leader or a follower of
    /// the leader the image names, with the brokers' standing (who may join an ISR), once every
    /// replica `image` does not give this node is gone ([`Self::delete_unassigned`]). While a log
    /// dir is offline, a replica not hosted yet whose log may be in it is left offline rather than
    /// created empty elsewhere ([`may_be_in_an_offline_dir`]). At most `new_replicas_max`
    /// partitions not hosted yet are hosted; the rest are returned as deferred. Only the topics
    /// that changed since the last pass are visited ([`Progress`], [`Scope`]).
    fn publish_replicas(&self, image: &MetadataImage, new_replicas_max: usize) -> (PassOutcome, bool) {
        let replicas = &self.replicas;
        let mut progress = self.progress.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let offline_dirs = replicas.offline_dirs().unwrap_or_default();
        let (scope, topics_changed) = self.scope(&progress, image, &offline_dirs);
        let moved = progress.visited.as_ref().is_none_or(|v| v.provenance() != image.provenance());
        let mut pass = Pass {
            new_replicas_max,
            new_replicas: 0,
            offline_dirs,
            outcome: PassOutcome::default(),
            slowest: std::time::Duration::ZERO,
        };
        if moved {
            replicas.set_broker_statuses(broker_statuses(image));
            replicas.set_replication_throttles(replication_throttles(image, self.node));
        }
        let resolver = TopicConfigResolver::new(image, Some(self.node), &self.static_topic_configs);
        let started = tokio::time::Instant::now();
        match &scope {
            Scope::All => {
                pass.outcome.failed = self.delete_unassigned(image);
                for topic in image.topics().iter() {
                    self.visit_topic(topic, &resolver, &mut pass);
                }
            }
            Scope::Named(names) => {
                for tp in names.iter().flat_map(|name| replicas.given_of(name)) {
                    self.delete_if_unassigned(image, tp, &mut pass.outcome.failed);
                }
                for topic in names.iter().filter_map(|name| image.topics().by_name(name)) {
                    self.visit_topic(topic, &resolver, &mut pass);
                }
            }
        }
        tracing::debug!(
            "reconcile ({}): {} partitions ({} new, {} left for the next pass) in {:.3} ms (slowest {:.3} ms)",
            match &scope {
                Scope::All => "every topic".to_owned(),
                Scope::Named(names) => format!("{} topics", names.len()),
            },
            pass.outcome.visited,
            pass.new_replicas,
            pass.outcome.deferred.len(),
            started.elapsed().as_secs_f64() * 1e3,
            pass.slowest.as_secs_f64() * 1e3
        );
        *progress = Progress {
            visited: Some(image.clone()),
            offline_dirs: pass.offline_dirs,
            deferred: pass.outcome.deferred.clone(),
            retry: pass.outcome.failed.iter().map(|f| f.partition.topic.clone()).collect(),
        };
        (pass.outcome, topics_changed)
    }

    /// Which topics a pass over `image` visits, after the passes `progress` tells of, and whether
    /// any topic changed since the last pass.
    fn scope(&self, progress: &Progress, image: &MetadataImage, offline_dirs: &[PathBuf]) -> (Scope, bool) {
        let Some(visited) = &progress.visited else { return (Scope::All, true) };
        let mut names = visited.topics().changed_names(image.topics());
        let topics_changed = !names.is_empty();
        if progress.offline_dirs != offline_dirs {
            return (Scope::All, topics_changed);
        }
        if !visited.shares_configs_with(image) {
            let (own, cluster) = (self.node.0.to_string(), String::new());
            for resource in visited.configs().changed_resources(image.configs()) {
                match resource.kind {
                    ConfigResourceKind::Topic => {
                        names.insert(resource.name.clone());
                    }
                    ConfigResourceKind::Broker if resource.name == own || resource.name == cluster => {
                        return (Scope::All, topics_changed);
                    }
                    _ => {}
                }
            }
        }
        names.extend(progress.deferred.iter().map(|tp| tp.topic.clone()));
        names.extend(progress.retry.iter().cloned());
        names.extend(self.replicas.offline().into_iter().map(|tp| tp.topic));
        (Scope::Named(names), topics_changed)
    }

    /// Hosts the partitions of `topic` this node is a replica of, within the pass's budget of new
    /// ones (see [`Self::publish_replicas`]).
    fn visit_topic(&self, topic: &TopicImage, resolver: &TopicConfigResolver<'_>, pass: &mut Pass) {
        let replicas = &self.replicas;
        let configs = resolver.topic(&topic.name);
        let log_config = configs.log_config(self.producer_state);
        let min_insync_replicas = i32::try_from(configs.long("min.insync.replicas")).unwrap_or(i32::MAX).max(1);
        for (&index, partition) in &topic.partitions {
            if !partition.replicas.contains(&self.node) {
                continue;
            }
            let tp = TopicPartition::new(topic.name.clone(), index);
            let hosted = replicas.is_hosted(&tp);
            if !hosted && may_be_in_an_offline_dir(partition, self.node, &self.dirs, &pass.offline_dirs) {
                let reason = format!("its log may be in an offline log dir ({:?})", pass.offline_dirs);
                if replicas.keep_offline(&tp, reason) {
                    warn!("{tp} is not hosted: its log may be in an offline log dir ({:?})", pass.offline_dirs);
                }
                continue;
            }
            let state = partition_state(partition, min_insync_replicas);
            // One that failed before is tried again on every pass, as it always was: only
            // first attempts count against the budget, so a pass always makes progress.
            if !hosted && !replicas.is_given_but_unhosted(&tp) {
                if pass.new_replicas >= pass.new_replicas_max {
                    pass.outcome.deferred.insert(tp);
                    continue;
                }
                pass.new_replicas += 1;
            }
            self.apply(tp, topic.id, log_config.clone(), &state, pass);
        }
    }

    /// Hosts `tp` with `state` (or brings it in line with it), counted in `pass`.
    fn apply(&self, tp: TopicPartition, topic_id: Uuid, config: LogConfig, state: &PartitionState, pass: &mut Pass) {
        let one = tokio::time::Instant::now();
        if let Err(e) = self.replicas.apply_partition_state(&tp, topic_id, config, state) {
            error!("cannot host {tp}: {e} (it answers KAFKA_STORAGE_ERROR until it can be hosted)");
            pass.outcome.failed.push(NotReconciled { partition: tp, error: e });
        }
        pass.outcome.visited += 1;
        pass.slowest = pass.slowest.max(one.elapsed());
    }

    /// Stops hosting and deletes the log of every replica `image` does not give this node: of a
    /// deleted topic, one a reassignment moved off this node (as Kafka's
    /// `TopicsDelta.localChanges` deletes a replica no longer assigned), or one of an earlier
    /// topic of the same name. Images are reconciled as they come, not each one, so a topic
    /// deleted and created again in between shows only as a new topic id, as Kafka's deltas tell
    /// them apart; the new topic starts from an empty log.
    fn delete_unassigned(&self, image: &MetadataImage) -> Vec<NotReconciled> {
        let replicas = &self.replicas;
        let mut failed = Vec::new();
        for tp in replicas.hosted().into_iter().chain(replicas.offline()) {
            self.delete_if_unassigned(image, tp, &mut failed);
        }
        failed
    }

    /// Deletes the replica `tp` if `image` does not give it to this node (see
    /// [`Self::delete_unassigned`]); a failure is logged and added to `failed`.
    fn delete_if_unassigned(&self, image: &MetadataImage, tp: TopicPartition, failed: &mut Vec<NotReconciled>) {
        let replicas = &self.replicas;
        let topic = image.topics().by_name(&tp.topic);
        let partition = topic.and_then(|t| t.partitions.get(&tp.partition));
        let earlier_topic = topic.zip(replicas.hosted_topic_id(&tp)).is_some_and(|(t, id)| t.id != id);
        if partition.is_some_and(|p| p.replicas.contains(&self.node)) && !earlier_topic {
            return;
        }
        if earlier_topic {
            info!("{tp} belongs to an earlier topic of that name: deleting its replica");
        } else {
            info!("{tp} is not assigned to this node any more: deleting its replica");
        }
        if let Err(e) = replicas.delete_partition(&tp) {
            error!("cannot delete {tp}: {e}");
            failed.push(NotReconciled { partition: tp, error: e });
        }
    }

    /// The partitions of `topic` this node leads, with their leader epochs.
    fn led(&self, image: &MetadataImage, topic: &str) -> BTreeMap<i32, LeaderEpoch> {
        let Some(topic) = image.topics().by_name(topic) else { return BTreeMap::new() };
        topic
            .partitions
            .iter()
            .filter(|(_, p)| p.leader == self.node)
            .map(|(&index, p)| (index, p.leader_epoch))
            .collect()
    }
}

/// The brokers' standing as the replicas need it (who may join an ISR, whose fetches carry a
/// stale broker epoch), from the image's registrations.
fn broker_statuses(image: &MetadataImage) -> BTreeMap<BrokerId, BrokerStatus> {
    image
        .cluster()
        .brokers()
        .map(|b| {
            let status = BrokerStatus {
                broker_epoch: b.epoch,
                fenced: b.fenced,
                in_controlled_shutdown: b.in_controlled_shutdown,
            };
            (b.id, status)
        })
        .collect()
}

/// This node's replication throttles (KIP-73) in `image`: its rates from its own broker configs,
/// else the cluster defaults (Kafka's `BrokerConfigHandler`), and each topic's throttled
/// replicas lists as they concern it (Kafka's `TopicConfigHandler`).
fn replication_throttles(image: &MetadataImage, node: BrokerId) -> ReplicationThrottles {
    let configs = image.configs();
    let own = ConfigResource::broker(node.0.to_string());
    let rate = |key: &str| {
        let value = configs.value(&own, key).or_else(|| configs.value(&ConfigResource::cluster_default(), key));
        value.and_then(|v| v.trim().parse::<u64>().ok())
    };
    let mut throttles = ReplicationThrottles {
        leader_rate: rate(LEADER_REPLICATION_THROTTLED_RATE),
        follower_rate: rate(FOLLOWER_REPLICATION_THROTTLED_RATE),
        alter_log_dirs_rate: rate(REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND),
        ..ReplicationThrottles::default()
    };
    for (resource, values) in configs.resources().filter(|(r, _)| r.kind == ConfigResourceKind::Topic) {
        let listed = |key: &str| values.get(key).filter(|v| !v.trim().is_empty());
        if let Some(value) = listed(LEADER_REPLICATION_THROTTLED_REPLICAS) {
            throttles
                .leader_replicas
                .insert(resource.name.clone(), ReplicationThrottles::parse_replicas(value, node.0));
        }
        if let Some(value) = listed(FOLLOWER_REPLICATION_THROTTLED_REPLICAS) {
            let replicas = ReplicationThrottles::parse_replicas(value, node.0);
            throttles.follower_replicas.insert(resource.name.clone(), replicas);
        }
    }
    throttles
}

/// A partition's registration in the image as its replicas take it, with its topic's effective
/// `min.insync.replicas`.
fn partition_state(partition: &PartitionImage, min_insync_replicas: i32) -> PartitionState {
    PartitionState {
        leader: partition.leader,
        leader_epoch: partition.leader_epoch,
        partition_epoch: partition.partition_epoch,
        replicas: partition.replicas.clone(),
        isr: partition.isr.clone(),
        min_insync_replicas,
        leader_recovery_state: partition.leader_recovery_state.wire(),
    }
}

/// Resigns every shard of `shards` whose partition is not in `led`, then leads each of `led` at
/// its epoch (a repeated call for an epoch already led changes nothing).
fn lead_exactly(shards: &dyn CoordinatorShards, led: &BTreeMap<i32, LeaderEpoch>) {
    for partition in shards.partitions() {
        if !led.contains_key(&partition) {
            shards.resign(partition);
        }
    }
    for (&partition, &epoch) in led {
        shards.become_leader(partition, epoch);
    }
}

/// The topics as the group coordinator needs them (consumer groups subscribe by name, are assigned
/// by id): name, id and partition count of every topic, at the image's offset.
fn topic_metadata(image: &MetadataImage) -> TopicMetadata {
    let topics =
        image.topics().iter().map(|t| (t.name.clone(), t.id, i32::try_from(t.partitions.len()).unwrap_or(i32::MAX)));
    TopicMetadata::new(image.provenance().offset, topics)
}

/// Kafka's `Partition.createLogInAssignedDirectoryId`: with a log dir offline, a replica's log
/// is created only where the image places it (KIP-858) in one of this node's online dirs, or
/// when the image leaves it unassigned; otherwise (placed in an offline or unknown dir) its log
/// may be there, and creating an empty one elsewhere would serve it without its records.
fn may_be_in_an_offline_dir(
    partition: &PartitionImage,
    node: BrokerId,
    dirs: &[(PathBuf, Option<Uuid>)],
    offline: &[PathBuf],
) -> bool {
    if offline.is_empty() {
        return false;
    }
    let at = partition.replicas.iter().position(|b| *b == node);
    let dir = at.and_then(|i| partition.directories.get(i)).copied().unwrap_or(DIRECTORY_UNASSIGNED);
    let online = dirs.iter().any(|(path, id)| *id == Some(dir) && !offline.contains(path));
    !online && dir != DIRECTORY_UNASSIGNED
}
