//! DescribeQuorum as Kafka's `KafkaRaftClient.handleDescribeQuorumRequest` answers it: only the
//! leader describes the quorum (its epoch, high watermark, each voter and each observer with its
//! log end offset and last fetch and caught-up times, `progress`), v2 adds the voters' listeners
//! and directory ids (zero in a static quorum, as Kafka's). Elsewhere [`QuorumError::NotLeader`]:
//! the caller forwards to the leader or answers NOT_LEADER_OR_FOLLOWER.
//!
//! [`QuorumProgress`] is where the leader's view of its replicas is recorded: the network after
//! each acknowledged AppendEntries, the server after each observer's metadata fetch.

use std::sync::{Arc, Mutex};

use strand_base::topic::CLUSTER_METADATA_TOPIC;
use strand_base::{BrokerId, Clock, Uuid};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::describe_quorum_response::{Listener, Node, PartitionData, ReplicaState, TopicData};
use strand_protocol::messages::{DescribeQuorumRequest, DescribeQuorumResponse};

use super::entry::node_id_to_wire;
use super::log_store::{SharedLog, lock};
use super::progress::{ProgressTable, ReplicaProgress};
use super::{Quorum, QuorumError};

/// The leader's record of its replicas' fetches, shared by the network and the [`Quorum`].
pub(crate) struct QuorumProgress {
    table: Mutex<ProgressTable>,
    log: SharedLog,
    clock: Arc<dyn Clock>,
}

impl QuorumProgress {
    pub(crate) fn new(log: SharedLog, clock: Arc<dyn Clock>) -> QuorumProgress {
        QuorumProgress { table: Mutex::new(ProgressTable::default()), log, clock }
    }

    /// The offset after this voter's last batch.
    pub(crate) fn leader_end_offset(&self) -> i64 {
        lock(&self.log).log_end_offset()
    }

    /// A voter acknowledged an AppendEntries of `term` holding everything up to Raft index
    /// `matched` (nothing when `None`), sent when the leader's log ended at `leader_end`.
    pub(crate) fn voter_acked(&self, term: u64, voter: i32, matched: Option<u64>, leader_end: i64) {
        let fetch_offset = match matched {
            None => 0,
            Some(index) => match lock(&self.log).stored_batch(index) {
                Some(batch) => batch.last_offset + 1,
                // Purged after a snapshot meanwhile: nothing newer to say.
                None => return,
            },
        };
        let now = self.clock.now_ms();
        self.lock().voter_fetched(term, voter, now, fetch_offset, leader_end);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ProgressTable> {
        self.table.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Quorum {
    /// An observer (`replica_id`, whose metadata log dir is `directory_id`) fetched committed
    /// metadata from `fetch_offset`: recorded when this voter leads, as Kafka's leader records its
    /// observers' fetches.
    pub fn observer_fetched(&self, replica_id: i32, directory_id: Uuid, fetch_offset: i64) {
        let (is_leader, term) = {
            let m = self.metrics.borrow();
            (m.state == openraft::ServerState::Leader, m.current_term)
        };
        if is_leader && replica_id >= 0 {
            let leader_end = self.progress.leader_end_offset();
            let now = self.clock.now_ms();
            let observer = (replica_id, directory_id);
            self.progress.lock().observer_fetched(term, observer, now, fetch_offset, leader_end);
        }
    }

    /// Answers DescribeQuorum (see the module doc); [`QuorumError::NotLeader`] off the leader.
    pub fn describe(&self, request: &DescribeQuorumRequest) -> Result<DescribeQuorumResponse, QuorumError> {
        if !asks_for_the_metadata_partition(request) {
            return Ok(unknown_partitions(request));
        }
        let metrics = self.metrics.borrow().clone();
        if metrics.state != openraft::ServerState::Leader {
            let leader_id = super::voting_leader(&metrics).filter(|id| *id != self.node_id);
            return Err(QuorumError::NotLeader { leader_id });
        }
        let (term, now) = (metrics.current_term, self.clock.now_ms());
        let membership = metrics.membership_config.membership().clone();
        let table = self.progress.lock();
        let mut voter_ids = Vec::new();
        let mut voters = Vec::new();
        let mut learners = Vec::new();
        let mut nodes = Vec::new();
        let voting: std::collections::BTreeSet<u64> = membership.voter_ids().collect();
        for (raft_id, node) in membership.nodes() {
            let id = node_id_to_wire(*raft_id);
            let progress = if id == self.node_id {
                ReplicaProgress::leader(self.progress.leader_end_offset(), now)
            } else {
                table.voter(term, id)
            };
            // A learner (a controller being added, catching up) is an observer, as in Kafka.
            if !voting.contains(raft_id) {
                learners.push(replica_state(id, Uuid(node.directory_id), progress));
                continue;
            }
            voter_ids.push(id);
            voters.push(replica_state(id, Uuid(node.directory_id), progress));
            let listeners = node.endpoints.iter().map(|endpoint| Listener {
                name: endpoint.name.clone(),
                host: endpoint.host.clone(),
                port: endpoint.port,
                ..Listener::default()
            });
            nodes.push(Node { node_id: BrokerId(id), listeners: listeners.collect(), ..Node::default() });
        }
        let observers = table.observers(term, now, &voter_ids);
        let learner_ids: Vec<i32> = learners.iter().map(|l| l.replica_id.0).collect();
        let observers = observers
            .into_iter()
            .filter(|(id, _, _)| !learner_ids.contains(id))
            .map(|(id, directory_id, progress)| replica_state(id, directory_id, progress))
            .chain(learners);
        let partition = PartitionData {
            partition_index: 0,
            leader_id: BrokerId(self.node_id),
            leader_epoch: i32::try_from(term).unwrap_or(i32::MAX),
            high_watermark: self.high_watermark(),
            current_voters: voters,
            observers: observers.collect(),
            ..PartitionData::default()
        };
        let topic = TopicData {
            topic_name: CLUSTER_METADATA_TOPIC.to_owned(),
            partitions: vec![partition],
            ..Default::default()
        };
        Ok(DescribeQuorumResponse { topics: vec![topic], nodes, ..DescribeQuorumResponse::default() })
    }
}

fn replica_state(id: i32, directory_id: Uuid, progress: ReplicaProgress) -> ReplicaState {
    ReplicaState {
        replica_id: BrokerId(id),
        replica_directory_id: directory_id,
        log_end_offset: progress.log_end_offset,
        last_fetch_timestamp: progress.last_fetch_ms,
        last_caught_up_timestamp: progress.last_caught_up_ms,
        ..ReplicaState::default()
    }
}

/// Kafka's `hasValidTopicPartition`: exactly `__cluster_metadata` partition 0.
fn asks_for_the_metadata_partition(request: &DescribeQuorumRequest) -> bool {
    match request.topics.as_slice() {
        [topic] => {
            topic.topic_name == CLUSTER_METADATA_TOPIC
                && topic.partitions.len() == 1
                && topic.partitions[0].partition_index == 0
        }
        _ => false,
    }
}

/// Kafka's `DescribeQuorumRequest.getPartitionLevelErrorResponse`: every partition asked for,
/// UNKNOWN_TOPIC_OR_PARTITION.
fn unknown_partitions(request: &DescribeQuorumRequest) -> DescribeQuorumResponse {
    let topics = request.topics.iter().map(|topic| TopicData {
        topic_name: topic.topic_name.clone(),
        partitions: topic
            .partitions
            .iter()
            .map(|p| PartitionData {
                partition_index: p.partition_index,
                error_code: ErrorCode::UnknownTopicOrPartition.code(),
                error_message: Some(ErrorCode::UnknownTopicOrPartition.message().to_owned()),
                ..PartitionData::default()
            })
            .collect(),
        ..TopicData::default()
    });
    DescribeQuorumResponse { topics: topics.collect(), ..DescribeQuorumResponse::default() }
}
