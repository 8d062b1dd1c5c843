//! [`BrokerMetadataPublisher`] (Kafka's name): what a new metadata image means on this node.
//! It brings the replicas (the brokers' standing, each partition's leader, ISR and effective
//! config through the `TopicConfigResolver`, deletions) and the coordinators' leaderships (a
//! shard per `__consumer_offsets` / `__transaction_state` partition led here) in line with the
//! image, in that order, since a coordinator loads from its partition's log. The node's metadata
//! replay (`metadata_replay`) calls it on a blocking thread before it publishes each image to
//! the request handlers.
//!
//! What it is not: it decides nothing (the controller did) and reads no config of its own beyond
//! the node's static settings.

use std::collections::BTreeMap;
use std::sync::Arc;

use strand_base::topic::{OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC};
use strand_base::{BrokerId, TopicPartition, Uuid};
use strand_coordinator::{GroupCoordinator, TopicMetadata, TxnCoordinator};
use strand_metadata::image::{MetadataImage, TopicConfigResolver};
use strand_replication::{BrokerStatus, PartitionState, ReplicaManager};
use tracing::{error, info, warn};

use crate::config::{ServerConfig, static_topic_configs};
use crate::log_dirs::warn_if_open_files_too_few;
use crate::metadata_replay::Reconcile;

/// What a node hosts according to the metadata image: partition replicas, the group
/// coordinator's shards (one per `__consumer_offsets` partition the node leads) and the
/// transaction coordinator's (one per `__transaction_state` partition it leads).
#[derive(Debug)]
pub struct BrokerMetadataPublisher {
    /// Each log dir and its directory id (unknown for a dir unreadable at start-up).
    pub(crate) dirs: Vec<(std::path::PathBuf, Option<Uuid>)>,
    pub(crate) replicas: Arc<ReplicaManager>,
    pub(crate) groups: Arc<GroupCoordinator>,
    pub(crate) transactions: Arc<TxnCoordinator>,
    pub(crate) config: ServerConfig,
    pub(crate) node: BrokerId,
}

impl Reconcile for BrokerMetadataPublisher {
    /// Brings what this node hosts in line with `image`: replicas first (a coordinator loads from
    /// its partition's log), then the coordinators' leaderships.
    fn reconcile(&self, image: &MetadataImage) {
        let started = tokio::time::Instant::now();
        reconcile(&self.replicas, image, &self.config, self.node, &self.dirs);
        let replicas = started.elapsed();
        warn_if_open_files_too_few(self.replicas.given_count());
        let led = self.led(image, OFFSETS_TOPIC);
        for partition in self.groups.partitions() {
            if !led.contains_key(&partition) {
                self.groups.resign(partition);
            }
        }
        for (&partition, &epoch) in &led {
            self.groups.become_leader(partition, epoch);
        }
        self.groups.on_metadata_update(topic_metadata(image));
        let led = self.led(image, TRANSACTION_STATE_TOPIC);
        for partition in self.transactions.partitions() {
            if !led.contains_key(&partition) {
                self.transactions.resign(partition);
            }
        }
        for (&partition, &epoch) in &led {
            self.transactions.become_leader(partition, epoch);
        }
        tracing::debug!(
            "reconciled: replicas in {:.3} ms, coordinators in {:.3} ms",
            replicas.as_secs_f64() * 1e3,
            (started.elapsed() - replicas).as_secs_f64() * 1e3
        );
    }
}

impl BrokerMetadataPublisher {
    /// The partitions of `topic` this node leads, with their leader epochs.
    fn led(&self, image: &MetadataImage, topic: &str) -> BTreeMap<i32, i32> {
        let Some(topic) = image.topics().by_name(topic) else { return BTreeMap::new() };
        topic
            .partitions
            .iter()
            .filter(|(_, p)| p.leader == self.node)
            .map(|(&index, p)| (index, p.leader_epoch))
            .collect()
    }
}

/// The topics as the group coordinator needs them (consumer groups subscribe by name, are assigned
/// by id): name, id and partition count of every topic, at the image's offset.
fn topic_metadata(image: &MetadataImage) -> TopicMetadata {
    let topics =
        image.topics().iter().map(|t| (t.name.clone(), t.id, i32::try_from(t.partitions.len()).unwrap_or(i32::MAX)));
    TopicMetadata::new(image.provenance().offset, topics)
}

/// Hosts every partition this node is a replica of in `image`, as its leader or a follower of
/// the leader the image names, with the brokers' standing (who may join an ISR), once every
/// replica `image` does not give this node is gone ([`delete_unassigned`]). While a log dir is
/// offline, a replica not hosted yet whose log may be in it is left offline rather than created
/// empty elsewhere ([`may_be_in_an_offline_dir`]).
fn reconcile(
    replicas: &ReplicaManager,
    image: &MetadataImage,
    config: &ServerConfig,
    node: BrokerId,
    dirs: &[(std::path::PathBuf, Option<Uuid>)],
) {
    let statuses = image
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
        .collect();
    replicas.set_broker_statuses(statuses);
    delete_unassigned(replicas, image, node);
    let offline_dirs = replicas.offline_dirs().unwrap_or_default();
    let hosted: std::collections::BTreeSet<TopicPartition> = replicas.hosted().into_iter().collect();
    let statics = static_topic_configs(config);
    let resolver = TopicConfigResolver::new(image, Some(node), &statics);
    let producer_state = config.log_config().producer_state;
    let started = tokio::time::Instant::now();
    let (mut visited, mut slowest) = (0usize, std::time::Duration::ZERO);
    for topic in image.topics().iter() {
        let configs = resolver.topic(&topic.name);
        let log_config = configs.log_config(producer_state);
        let min_insync_replicas = i32::try_from(configs.long("min.insync.replicas")).unwrap_or(i32::MAX).max(1);
        for (&index, partition) in &topic.partitions {
            if !partition.replicas.contains(&node) {
                continue;
            }
            let tp = TopicPartition::new(topic.name.clone(), index);
            if !hosted.contains(&tp) && may_be_in_an_offline_dir(partition, node, dirs, &offline_dirs) {
                let reason = format!("its log may be in an offline log dir ({offline_dirs:?})");
                if replicas.keep_offline(&tp, reason) {
                    warn!("{tp} is not hosted: its log may be in an offline log dir ({offline_dirs:?})");
                }
                continue;
            }
            let state = PartitionState {
                leader: partition.leader,
                leader_epoch: partition.leader_epoch,
                partition_epoch: partition.partition_epoch,
                replicas: partition.replicas.clone(),
                isr: partition.isr.clone(),
                min_insync_replicas,
                leader_recovery_state: partition.leader_recovery_state.wire(),
            };
            let one = tokio::time::Instant::now();
            if let Err(e) = replicas.apply_partition_state(&tp, topic.id, log_config.clone(), &state) {
                error!("cannot host {tp}: {e} (it answers KAFKA_STORAGE_ERROR until it can be hosted)");
            }
            visited += 1;
            slowest = slowest.max(one.elapsed());
        }
    }
    tracing::debug!(
        "reconcile: {visited} partitions in {:.3} ms (slowest {:.3} ms)",
        started.elapsed().as_secs_f64() * 1e3,
        slowest.as_secs_f64() * 1e3
    );
}

/// Stops hosting and deletes the log of every replica `image` does not give this node: of a
/// deleted topic, one a reassignment moved off this node (as Kafka's `TopicsDelta.localChanges`
/// deletes a replica no longer assigned), or one of an earlier topic of the same name. Images
/// are reconciled as they come, not each one (`metadata_replay`), so a topic deleted and created
/// again in between shows only as a new topic id, as Kafka's deltas tell them apart; the new
/// topic starts from an empty log.
pub(crate) fn delete_unassigned(replicas: &ReplicaManager, image: &MetadataImage, node: BrokerId) {
    for tp in replicas.hosted().into_iter().chain(replicas.offline()) {
        let topic = image.topics().by_name(&tp.topic);
        let partition = topic.and_then(|t| t.partitions.get(&tp.partition));
        let earlier_topic = topic.zip(replicas.hosted_topic_id(&tp)).is_some_and(|(t, id)| t.id != id);
        if partition.is_some_and(|p| p.replicas.contains(&node)) && !earlier_topic {
            continue;
        }
        if earlier_topic {
            info!("{tp} belongs to an earlier topic of that name: deleting its replica");
        } else {
            info!("{tp} is not assigned to this node any more: deleting its replica");
        }
        if let Err(e) = replicas.delete_partition(&tp) {
            error!("cannot delete {tp}: {e}");
        }
    }
}

/// Kafka's `Partition.createLogInAssignedDirectoryId`: with a log dir offline, a replica's log
/// is created only where the image places it (KIP-858) in one of this node's online dirs, or
/// when the image leaves it unassigned; otherwise (placed in an offline or unknown dir) its log
/// may be there, and creating an empty one elsewhere would serve it without its records.
fn may_be_in_an_offline_dir(
    partition: &strand_metadata::image::PartitionImage,
    node: BrokerId,
    dirs: &[(std::path::PathBuf, Option<Uuid>)],
    offline: &[std::path::PathBuf],
) -> bool {
    use strand_metadata::image::DIRECTORY_UNASSIGNED;
    if offline.is_empty() {
        return false;
    }
    let at = partition.replicas.iter().position(|b| *b == node);
    let dir = at.and_then(|i| partition.directories.get(i)).copied().unwrap_or(DIRECTORY_UNASSIGNED);
    let online = dirs.iter().any(|(path, id)| *id == Some(dir) && !offline.contains(path));
    !online && dir != DIRECTORY_UNASSIGNED
}

#[cfg(test)]
mod tests {
    use strand_base::SystemClock;
    use strand_log::{LogManager, NodeIdentity};
    use strand_metadata::image::{MetadataDelta, MetadataProvenance};

    use super::*;

    /// A topic deleted and created again between two reconciles shows only as a new topic id:
    /// the replica of the earlier topic goes (and the new one would start from an empty log);
    /// one whose topic is unchanged stays.
    #[test]
    fn a_replica_of_an_earlier_topic_of_the_same_name_is_deleted() {
        use strand_log::LogConfig;
        use strand_protocol::messages::records::MetadataRecord;
        use strand_protocol::messages::{PartitionRecord, TopicRecord};
        let dir = tempfile::tempdir().expect("dir");
        let identity = NodeIdentity { cluster_id: "c".into(), node_id: 1 };
        let logs = LogManager::open(&[dir.path().to_owned()], &identity, LogConfig::default(), Arc::new(SystemClock))
            .expect("logs");
        let replicas = ReplicaManager::new(logs, false);
        let (earlier, kept) = (Uuid([0x11; 16]), Uuid([0x22; 16]));
        let (recreated, same) = (TopicPartition::new("t", 0), TopicPartition::new("u", 0));
        replicas.ensure_partition(&recreated, earlier, LogConfig::default()).expect("host t-0");
        replicas.ensure_partition(&same, kept, LogConfig::default()).expect("host u-0");
        let topic = |name: &str, topic_id: Uuid| {
            [
                MetadataRecord::TopicRecord(TopicRecord { name: name.into(), topic_id, ..Default::default() }),
                MetadataRecord::PartitionRecord(PartitionRecord {
                    partition_id: 0,
                    topic_id,
                    replicas: vec![BrokerId(1)],
                    isr: vec![1],
                    leader: BrokerId(1),
                    ..Default::default()
                }),
            ]
        };
        let empty = MetadataImage::empty();
        let mut delta = MetadataDelta::new(&empty);
        for record in topic("t", Uuid([0x33; 16])).iter().chain(&topic("u", kept)) {
            delta.replay(record).expect("replay");
        }
        let image = delta.apply(MetadataProvenance { offset: 4, epoch: 1 });
        delete_unassigned(&replicas, &image, BrokerId(1));
        assert_eq!(replicas.hosted(), [same]);
    }
}
