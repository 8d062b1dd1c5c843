//! [`NodeGauges`]: the node's gauges that are a view of its state, computed when `/metrics` is
//! scraped (as Kafka computes these gauges when they are read), from the metadata image this
//! node's handlers see and its controller. Counters are recorded where things happen instead
//! (the broker's handlers, the replicas' ISR changes, the listeners).

use std::sync::{Arc, OnceLock};

use strand_base::BrokerId;
use strand_base::metric_names::{
    ACTIVE_CONTROLLER_COUNT, LEADER_COUNT, OFFLINE_PARTITIONS_COUNT, PARTITION_COUNT, UNDER_REPLICATED_PARTITIONS,
};
use strand_metadata::image::MetadataImage;
use strand_metadata::quorum_controller::QuorumController;
use tokio::sync::watch;

/// What the gauges are computed from, once the node has it (before, every gauge reads 0).
/// Shared by the node, which fills it once its metadata runs, and whoever scrapes.
#[derive(Debug, Default)]
pub struct NodeGauges {
    sources: OnceLock<Sources>,
}

#[derive(Debug)]
struct Sources {
    node: BrokerId,
    image: watch::Receiver<Arc<MetadataImage>>,
    /// This node's controller, if it is a voter.
    controller: Option<Arc<QuorumController>>,
}

impl NodeGauges {
    /// Hands the gauges what they read; only the first call counts.
    pub(crate) fn attach(
        &self,
        node: BrokerId,
        image: watch::Receiver<Arc<MetadataImage>>,
        controller: Option<Arc<QuorumController>>,
    ) {
        let _ = self.sources.set(Sources { node, image, controller });
    }

    /// Sets every gauge from the current image: a pass over its partitions, no lock held.
    pub fn record(&self) {
        let Some(sources) = self.sources.get() else { return };
        let image = sources.image.borrow().clone();
        let active = sources.controller.as_ref().is_some_and(|c| c.is_active());
        let counts = PartitionCounts::of(&image, sources.node);
        metrics::gauge!(UNDER_REPLICATED_PARTITIONS).set(counts.under_replicated as f64);
        metrics::gauge!(PARTITION_COUNT).set(counts.hosted as f64);
        metrics::gauge!(LEADER_COUNT).set(counts.led as f64);
        metrics::gauge!(ACTIVE_CONTROLLER_COUNT).set(if active { 1.0 } else { 0.0 });
        // As in Kafka, only the active controller reports offline partitions.
        let offline = if active { counts.offline } else { 0 };
        metrics::gauge!(OFFLINE_PARTITIONS_COUNT).set(offline as f64);
    }
}

/// The image's partitions as one node's gauges count them.
#[derive(Debug, Default, PartialEq, Eq)]
struct PartitionCounts {
    /// Partitions with a replica here (Kafka's `PartitionCount`).
    hosted: usize,
    /// Partitions led here (`LeaderCount`).
    led: usize,
    /// Partitions led here whose ISR is smaller than their replica set, not counting replicas a
    /// reassignment is adding (Kafka's `Partition.isUnderReplicated`).
    under_replicated: usize,
    /// Partitions without a leader, anywhere (`OfflinePartitionsCount`).
    offline: usize,
}

impl PartitionCounts {
    fn of(image: &MetadataImage, node: BrokerId) -> PartitionCounts {
        let mut counts = PartitionCounts::default();
        for partition in image.topics().iter().flat_map(|topic| topic.partitions.values()) {
            counts.hosted += usize::from(partition.replicas.contains(&node));
            counts.offline += usize::from(!partition.has_leader());
            if partition.leader != node {
                continue;
            }
            counts.led += 1;
            let replication_factor = partition.replicas.len().saturating_sub(partition.adding_replicas.len());
            counts.under_replicated += usize::from(partition.isr.len() < replication_factor);
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use strand_base::{BrokerId, Uuid};
    use strand_metadata::image::{MetadataDelta, MetadataImage, MetadataProvenance};
    use strand_protocol::messages::records::MetadataRecord;
    use strand_protocol::messages::{PartitionRecord, TopicRecord};

    use super::PartitionCounts;

    /// One partition of topic `[7; 16]`: (replicas, adding, ISR, leader).
    fn partition(id: i32, replicas: &[i32], adding: &[i32], isr: &[i32], leader: i32) -> MetadataRecord {
        let ids = |list: &[i32]| list.iter().copied().map(BrokerId).collect();
        MetadataRecord::PartitionRecord(PartitionRecord {
            partition_id: id,
            topic_id: Uuid([7; 16]),
            replicas: ids(replicas),
            adding_replicas: ids(adding),
            isr: isr.to_vec(),
            leader: BrokerId(leader),
            ..Default::default()
        })
    }

    /// Node 1's gauges: partitions with a replica here, led here, led here with a short ISR
    /// (a replica being added does not count as missing), and leaderless anywhere.
    #[test]
    fn the_gauges_count_partitions_as_kafka_does() {
        let topic = TopicRecord { name: "t".into(), topic_id: Uuid([7; 16]), ..Default::default() };
        let records = [
            MetadataRecord::TopicRecord(topic),
            partition(0, &[1, 2, 3], &[], &[1, 2, 3], 1),
            partition(1, &[1, 2, 3], &[], &[1, 2], 1),
            partition(2, &[2, 3, 1], &[], &[2], 2),
            partition(3, &[2, 3], &[], &[], -1),
            partition(4, &[1, 2, 3, 4], &[4], &[1, 2, 3], 1),
        ];
        let empty = MetadataImage::empty();
        let mut delta = MetadataDelta::new(&empty);
        for record in &records {
            delta.replay(record).expect("replays");
        }
        let image = delta.apply(MetadataProvenance { offset: 6, epoch: 1 });
        let expected = PartitionCounts { hosted: 4, led: 3, under_replicated: 1, offline: 1 };
        assert_eq!(PartitionCounts::of(&image, BrokerId(1)), expected);
        let elsewhere = PartitionCounts { hosted: 0, led: 0, under_replicated: 0, offline: 1 };
        assert_eq!(PartitionCounts::of(&image, BrokerId(9)), elsewhere);
    }
}
