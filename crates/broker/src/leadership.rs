//! Leadership as the partition handlers check it: against this node's replica (its role and
//! leader epoch, which may trail the image for a moment), as Kafka's `Partition` does
//! ([`Broker::check_replica`]); and KIP-951's hints for refused partitions, the newest leader
//! known and its endpoint on the client's listener ([`LeaderHints`]).

use std::sync::Arc;

use strand_base::BrokerId;
use strand_metadata::image::MetadataImage;
use strand_protocol::error::ErrorCode;
use strand_replication::{PartitionStatus, ReplicaRole};

use crate::Broker;

/// A partition as this node's replica of it sees it: the state client requests are checked
/// against (Kafka's `Partition.getLocalLog`), not the image's, which may be ahead of it.
#[derive(Debug, Clone)]
pub(crate) struct LocalReplica {
    /// `BrokerId::NONE` when the partition has no leader.
    pub leader: BrokerId,
    pub leader_epoch: i32,
    pub status: PartitionStatus,
}

/// A broker's address on one listener, for KIP-951's `NodeEndpoints`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LeaderEndpoint {
    pub node_id: BrokerId,
    pub host: String,
    pub port: i32,
    pub rack: Option<String>,
}

impl Broker {
    /// This node's replica of `tp`: its leader and leader epoch, and its status. `None` if it is
    /// not hosted here, or (a cluster member) has no partition state yet. A standalone replica
    /// manager takes no partition state: its leader and epoch are the image's.
    pub(crate) fn local_replica(
        &self,
        image: &MetadataImage,
        tp: &strand_base::TopicPartition,
    ) -> Option<LocalReplica> {
        let status = self.replicas.partition_status(tp).ok()?;
        let (leader, leader_epoch) = match status.role {
            ReplicaRole::Leader => (self.identity.node_id, status.leader_epoch),
            ReplicaRole::Follower { leader } => (leader, status.leader_epoch),
            ReplicaRole::Unassigned if self.replicas.config().is_standalone() => {
                let partition = image.topics().by_name(&tp.topic)?.partitions.get(&tp.partition)?;
                (partition.leader, partition.leader_epoch)
            }
            ReplicaRole::Unassigned => return None,
        };
        Some(LocalReplica { leader, leader_epoch, status })
    }

    /// Kafka's `Partition.localLogWithEpochOrThrow(currentLeaderEpoch, requireLeader)` for a
    /// partition the image knows: NOT_LEADER_OR_FOLLOWER if it is not hosted here; then the
    /// caller's current leader epoch (`None`: unchecked) against this replica's, older
    /// FENCED_LEADER_EPOCH and newer UNKNOWN_LEADER_EPOCH (KIP-320); then, with
    /// `require_leader`, NOT_LEADER_OR_FOLLOWER unless this node leads.
    pub(crate) fn check_replica(
        &self,
        image: &MetadataImage,
        tp: &strand_base::TopicPartition,
        current_leader_epoch: Option<i32>,
        require_leader: bool,
    ) -> Result<LocalReplica, ErrorCode> {
        let local = self.local_replica(image, tp).ok_or(ErrorCode::NotLeaderOrFollower)?;
        match current_leader_epoch {
            Some(epoch) if epoch < local.leader_epoch => return Err(ErrorCode::FencedLeaderEpoch),
            Some(epoch) if epoch > local.leader_epoch => return Err(ErrorCode::UnknownLeaderEpoch),
            _ => {}
        }
        if require_leader && local.leader != self.identity.node_id {
            return Err(ErrorCode::NotLeaderOrFollower);
        }
        Ok(local)
    }

    /// KIP-951's `CurrentLeader` for `tp` (Kafka's `KafkaApis.getCurrentLeader`): this replica's
    /// leader and epoch, or the image's when the partition is not hosted here or the image is
    /// already at a newer leader epoch; (-1, -1) for a partition neither knows.
    pub(crate) fn current_leader(&self, image: &MetadataImage, tp: &strand_base::TopicPartition) -> (BrokerId, i32) {
        let local = self.local_replica(image, tp).map(|l| (l.leader, l.leader_epoch));
        let published = image
            .topics()
            .by_name(&tp.topic)
            .and_then(|t| t.partitions.get(&tp.partition))
            .map(|p| (p.leader, p.leader_epoch));
        match (local, published) {
            (Some(local), Some(published)) if published.1 > local.1 => published,
            (Some(local), _) => local,
            (None, Some(published)) => published,
            (None, None) => (BrokerId::NONE, -1),
        }
    }

    /// Broker `id`'s endpoint on `listener` (the client's), if it is registered and not fenced
    /// (Kafka's `MetadataCache.getAliveBrokerNode`).
    pub(crate) fn endpoint_of(&self, image: &MetadataImage, id: BrokerId, listener: &str) -> Option<LeaderEndpoint> {
        let broker = image.cluster().broker(id).filter(|b| !b.fenced)?;
        let endpoint = broker.endpoints.iter().find(|e| e.name == listener)?;
        Some(LeaderEndpoint {
            node_id: id,
            host: endpoint.host.clone(),
            port: i32::from(endpoint.port),
            rack: broker.rack.clone(),
        })
    }
}

/// KIP-951's hints for one response: the current leader of each partition answered
/// NOT_LEADER_OR_FOLLOWER (or FENCED_LEADER_EPOCH, for Fetch), and the endpoints of those leaders
/// on the client's listener, each once, so the client retries there without a Metadata round trip.
pub(crate) struct LeaderHints<'a> {
    broker: &'a Broker,
    /// The image at response time: leadership may have moved while the request waited.
    image: Arc<MetadataImage>,
    /// The listener the client reached this broker through.
    listener: &'a str,
    endpoints: std::collections::BTreeMap<BrokerId, LeaderEndpoint>,
}

impl<'a> LeaderHints<'a> {
    pub(crate) fn new(broker: &'a Broker, listener: &'a str) -> Self {
        LeaderHints { broker, image: broker.image(), listener, endpoints: std::collections::BTreeMap::new() }
    }

    /// `tp`'s current leader and epoch, its endpoint noted if the leader is alive.
    pub(crate) fn leader_of(&mut self, tp: &strand_base::TopicPartition) -> (BrokerId, i32) {
        let (leader, epoch) = self.broker.current_leader(&self.image, tp);
        if !self.endpoints.contains_key(&leader)
            && let Some(endpoint) = self.broker.endpoint_of(&self.image, leader, self.listener)
        {
            self.endpoints.insert(leader, endpoint);
        }
        (leader, epoch)
    }

    /// The name of topic `id` (for versions that answer by topic id).
    pub(crate) fn topic_name(&self, id: strand_base::Uuid) -> Option<String> {
        self.image.topics().by_id(id).map(|t| t.name.clone())
    }

    /// The leaders' endpoints noted, by node id.
    pub(crate) fn endpoints(self) -> impl Iterator<Item = LeaderEndpoint> {
        self.endpoints.into_values()
    }
}
