//! Request dispatch: a frame in, a frame (or nothing, or a closed connection) out.
//!
//! [`Broker::handle`] reads the request header, refuses what this node does not serve (the
//! ApiVersions v0 fallback of KIP-511 for an ApiVersions version it does not know; a closed
//! connection with a log line for anything else it cannot read), decodes the body and hands it to
//! the API's handler in [`handlers`], one file per API, each thin: validate, call a domain crate,
//! build the response. [`Broker::handle_pipelined`] does the same but hands back an acks=all
//! Produce's wait for its replicas ([`Handled::Waiting`]) instead of awaiting it, so the
//! connection can handle its next requests meanwhile.
//!
//! Handlers that change metadata (CreateTopics, DeleteTopics, CreatePartitions, the config
//! APIs, partition reassignments, InitProducerId's id blocks, Metadata's auto-creation) ask the
//! active controller through [`Broker::ask_controller`] (a [`ControllerChannel`]: the controller
//! in this process, or on another node), which decides one request at a time; the answer is
//! returned once this node's image holds the records it depends on, so the client's next request
//! here sees them.
//!
//! Fetch sessions (KIP-227) live in [`fetch_session`]: the node's bounded
//! [`fetch_session::FetchSessionCache`] (thread-safe, a lock per session), for the Fetch handler.
//!
//! Leadership as the partition handlers check it: against this node's replica (its role and
//! leader epoch, which may trail the image for a moment), as Kafka's `Partition` does
//! (`Broker::check_replica`); and KIP-951's hints for refused partitions, the newest leader known
//! and its endpoint on the client's listener (`LeaderHints`).
//!
//! What it is not: it opens no sockets and runs no runtime (the server crate does both), and it
//! holds no state of its own beyond what its handlers need to reach the log and the metadata.

pub mod fetch_session;
pub mod handlers;
pub mod producer_ids;
pub mod validation;

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use strand_base::{BrokerId, Clock};
use strand_coordinator::{GroupCoordinator, TxnCoordinator};
use strand_metadata::controller::ControllerDefaults;
use strand_metadata::image::{MetadataImage, TopicConfigResolver};
use strand_protocol::codec::Message;
use strand_protocol::error::ErrorCode;
use strand_protocol::frame::{
    FrameChunk, RequestError, ResponseFrame, api_versions_fallback, decode_request_body, encode_response_frame,
    parse_request,
};
use strand_protocol::messages::api::{ApiKey, Request, RequestBody, ResponseBody};
use strand_replication::{PartitionStatus, ReplicaManager, ReplicaRole};
use tokio::sync::watch;

/// What the connection does with a request's outcome.
#[derive(Debug)]
pub enum Outcome {
    /// Send this frame (size prefix included): its bytes and, for Fetch, file regions to send
    /// from their segment files.
    Respond(ResponseFrame),
    /// Send nothing (Produce with `acks=0`).
    NoResponse,
    /// Close the connection, logging why.
    Close(String),
}

/// A request handled as far as it can be before it waits on something it does not change.
pub enum Handled {
    Done(Outcome),
    /// An acks=all Produce, appended and waiting for its replicas: resolves to its outcome.
    /// Everything the request changes is done; what the connection handles meanwhile comes
    /// after it.
    Waiting(BoxFuture<'static, Outcome>),
}

impl std::fmt::Debug for Handled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Handled::Done(outcome) => f.debug_tuple("Done").field(outcome).finish(),
            Handled::Waiting(_) => f.write_str("Waiting"),
        }
    }
}

/// A request handled up to its wait, and what encoding its response needs after.
enum Started {
    Done(Outcome),
    Waiting { wait: handlers::produce::ReplicaWait, correlation_id: i32, version: i16 },
}

/// What a handler returned: a response body (none for acks=0), or an acks=all Produce's wait.
enum Dispatched {
    Respond(Option<ResponseBody>),
    Waiting(handlers::produce::ReplicaWait),
}

/// Reaches the active controller. Implemented by the server (the controller in this process
/// when it is active, another node's over its CONTROLLER listener otherwise) and by tests.
pub trait ControllerChannel: Send + Sync + std::fmt::Debug {
    /// Sends a request (its api key, version and encoded body) to the active controller and
    /// resolves with the encoded response body and the offset of the last metadata record the
    /// response depends on. `Err`: no controller answered (the reason, for logs and messages).
    fn call(&self, api: ApiKey, version: i16, body: Bytes) -> BoxFuture<'_, Result<(Bytes, i64), String>>;
}

/// Sends `request` at `version` through `channel`: the controller's response and the offset of
/// the last metadata record it depends on. `Err`: no controller answered, or the answer could
/// not be read.
pub async fn call_controller<R: Request>(
    channel: &dyn ControllerChannel,
    request: &R,
    version: i16,
) -> Result<(R::Response, i64), String> {
    let mut body = bytes::BytesMut::new();
    request.encode(&mut body, version).map_err(|e| format!("cannot encode {:?}: {e}", R::KEY))?;
    let (response, offset) = channel.call(R::KEY, version, body.freeze()).await?;
    let response = <R::Response as Message>::decode_exact(response, version)
        .map_err(|e| format!("unreadable {:?} response from the controller: {e}", R::KEY))?;
    Ok((response, offset))
}

/// One KIP-890 check of a produce request's first transactional writes to some partitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnVerification {
    pub transactional_id: String,
    pub producer_id: strand_base::ProducerId,
    pub producer_epoch: i16,
    pub partitions: Vec<strand_base::TopicPartition>,
    /// Transactions V2 (Produce v12 and later): add the partitions to the transaction, rather
    /// than only check that the producer added them.
    pub add: bool,
}

/// Reaches the transaction coordinator of a transactional id, on this node or another, for
/// KIP-890's check that a transactional write belongs to an ongoing transaction (Kafka's
/// `AddPartitionsToTxnManager`). Implemented by the server and by tests.
pub trait TxnVerifier: Send + Sync + std::fmt::Debug {
    /// The partitions that are not in the transaction, or could not be checked, each with the
    /// coordinator's error; empty when every partition is in it.
    fn verify(&self, verification: TxnVerification) -> BoxFuture<'_, Vec<(strand_base::TopicPartition, ErrorCode)>>;
}

/// A node with no transaction coordinator to ask: every check is COORDINATOR_NOT_AVAILABLE.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTxnCoordinator;

impl TxnVerifier for NoTxnCoordinator {
    fn verify(&self, verification: TxnVerification) -> BoxFuture<'_, Vec<(strand_base::TopicPartition, ErrorCode)>> {
        let failed = verification.partitions.into_iter().map(|tp| (tp, ErrorCode::CoordinatorNotAvailable)).collect();
        Box::pin(std::future::ready(failed))
    }
}

/// How long [`Broker::ask_controller`] waits for this node's image to reach the controller's
/// answer (the records are committed by then; only replay remains).
const IMAGE_CATCH_UP_MAX: std::time::Duration = std::time::Duration::from_secs(30);

/// A boxed future, as trait objects need.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The node's identity and what it reports about itself.
#[derive(Debug, Clone)]
pub struct BrokerIdentity {
    pub node_id: BrokerId,
    pub cluster_id: String,
    /// The listener clients reached this broker through; Metadata lists brokers' endpoints on it.
    pub listener_name: String,
    /// The epoch of this broker's registration, as the controller gave it.
    pub broker_epoch: i64,
}

/// The broker settings the handlers apply (Kafka's names in the field docs).
#[derive(Debug, Clone)]
pub struct BrokerSettings {
    /// `auto.create.topics.enable`.
    pub auto_create_topics: bool,
    /// `num.partitions`, `default.replication.factor`, static topic config defaults.
    pub controller_defaults: ControllerDefaults,
    /// `delete.topic.enable`: without it DeleteTopics refuses every topic.
    pub delete_topic_enable: bool,
    /// Every static broker config, as DescribeConfigs of this node's BROKER resource reports it
    /// (the dynamic ones come from the metadata image).
    pub broker_configs: Vec<BrokerConfigEntry>,
    /// `max.incremental.fetch.session.cache.slots`: the most fetch sessions the node keeps.
    pub fetch_session_slots: usize,
    /// `add.partitions.to.txn.retry.backoff.ms` and `.max.ms`.
    pub txn_add_retry: TxnAddRetry,
    /// How `__consumer_offsets` is created on first use (`offsets.topic.*`).
    pub offsets_topic: InternalTopicSettings,
    /// How `__transaction_state` is created on first use (`transaction.state.log.*`).
    pub transaction_topic: InternalTopicSettings,
}

/// How a transactions-V2 write retries adding its partition while the coordinator answers
/// CONCURRENT_TRANSACTIONS (the previous transaction's markers are still going out), before the
/// client is told to retry (Kafka's KAFKA-18654, `AddPartitionsToTxnConfig`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxnAddRetry {
    /// `add.partitions.to.txn.retry.backoff.ms`: the pause between attempts.
    pub backoff: std::time::Duration,
    /// `add.partitions.to.txn.retry.backoff.max.ms`: how long the broker keeps trying.
    pub max: std::time::Duration,
}

impl Default for TxnAddRetry {
    /// Kafka's defaults: every 20 ms for up to 100 ms.
    fn default() -> Self {
        TxnAddRetry { backoff: std::time::Duration::from_millis(20), max: std::time::Duration::from_millis(100) }
    }
}

/// A coordinator's internal topic as FindCoordinator creates it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InternalTopicSettings {
    /// `offsets.topic.num.partitions`, `transaction.state.log.num.partitions`.
    pub partitions: i32,
    /// `offsets.topic.replication.factor`, `transaction.state.log.replication.factor`.
    pub replication_factor: i16,
    /// `offsets.topic.segment.bytes`, `transaction.state.log.segment.bytes`.
    pub segment_bytes: i32,
    /// `transaction.state.log.min.isr`, the topic's own `min.insync.replicas`; none for
    /// `__consumer_offsets`, which takes the broker's.
    pub min_insync_replicas: Option<i32>,
}

/// One broker config as the node was started with it: what DescribeConfigs reports for a key
/// before dynamic configs (the server fills these from `server.properties`, the overrides and
/// Kafka's defaults).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerConfigEntry {
    /// Kafka's key (`log.retention.hours`).
    pub name: String,
    /// The value as text; `None` is Kafka's null (unset, a synonym decides).
    pub value: Option<String>,
    /// DescribeConfigs' `config_source`: 4 STATIC_BROKER_CONFIG (the file or an override), 5
    /// DEFAULT_CONFIG.
    pub source: i8,
    /// A secret: described with a null value.
    pub sensitive: bool,
    /// The keys that decide this key's value, itself first, in Kafka's precedence order
    /// (`log.retention.ms`, `log.retention.minutes`, `log.retention.hours`).
    pub synonyms: Vec<String>,
    /// DescribeConfigs' `config_type` (Kafka's `ConfigType` id; 0 UNKNOWN).
    pub config_type: i8,
}

/// The request handlers of one node.
#[derive(Debug)]
pub struct Broker {
    identity: BrokerIdentity,
    settings: BrokerSettings,
    image: watch::Receiver<Arc<MetadataImage>>,
    replicas: Arc<ReplicaManager>,
    /// The group coordinator: groups and committed offsets in `__consumer_offsets`.
    groups: Arc<GroupCoordinator>,
    controller: Arc<dyn ControllerChannel>,
    /// The transaction coordinator: transactional ids and their transactions in
    /// `__transaction_state`; without one, the transaction APIs answer COORDINATOR_NOT_AVAILABLE.
    transactions: Option<Arc<TxnCoordinator>>,
    /// KIP-890's checks of transactional writes.
    txn_verifier: Arc<dyn TxnVerifier>,
    clock: Arc<dyn Clock>,
    producer_ids: Arc<producer_ids::ControllerProducerIds>,
    /// The consumers' incremental fetch sessions; locked only between awaits.
    fetch_sessions: fetch_session::FetchSessionCache,
}

impl Broker {
    pub fn new(
        identity: BrokerIdentity,
        settings: BrokerSettings,
        image: watch::Receiver<Arc<MetadataImage>>,
        replicas: Arc<ReplicaManager>,
        groups: Arc<GroupCoordinator>,
        controller: Arc<dyn ControllerChannel>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        let fetch_sessions = fetch_session::FetchSessionCache::new(settings.fetch_session_slots);
        let producer_ids = Arc::new(producer_ids::ControllerProducerIds::new(
            controller.clone(),
            identity.node_id,
            identity.broker_epoch,
        ));
        Broker {
            fetch_sessions,
            identity,
            settings,
            image,
            replicas,
            groups,
            controller,
            transactions: None,
            txn_verifier: Arc::new(NoTxnCoordinator),
            clock,
            producer_ids,
        }
    }

    /// This broker's producer ids, which the transaction coordinator draws from too.
    pub fn producer_ids(&self) -> Arc<producer_ids::ControllerProducerIds> {
        self.producer_ids.clone()
    }

    /// Serves the transaction APIs with `coordinator`.
    pub fn with_txn_coordinator(mut self, coordinator: Arc<TxnCoordinator>) -> Self {
        self.transactions = Some(coordinator);
        self
    }

    /// Checks transactional writes through `verifier` (without one, they cannot be verified and
    /// are refused with a retriable error).
    pub fn with_txn_verifier(mut self, verifier: Arc<dyn TxnVerifier>) -> Self {
        self.txn_verifier = verifier;
        self
    }

    pub fn identity(&self) -> &BrokerIdentity {
        &self.identity
    }

    /// The current metadata image.
    pub fn image(&self) -> Arc<MetadataImage> {
        self.image.borrow().clone()
    }

    /// Topics' effective configs in `image` as this node resolves them (its own dynamic broker
    /// config, the cluster default, `server.properties`, Kafka's default).
    pub fn topic_configs<'a>(&'a self, image: &'a MetadataImage) -> TopicConfigResolver<'a> {
        let statics = &self.settings.controller_defaults.static_topic_configs;
        TopicConfigResolver::new(image, Some(self.identity.node_id), statics)
    }

    /// Asks the active controller to decide `request`, sent at `version` (the client's, as
    /// version-specific fields mean something only at their versions), and returns its response
    /// once this node's image holds the records it depends on. `Err`: no controller answered, or
    /// the answer could not be read.
    pub async fn ask_controller<R: Request>(&self, request: &R, version: i16) -> Result<R::Response, String> {
        let (response, offset) = call_controller(self.controller.as_ref(), request, version).await?;
        let mut image = self.image.clone();
        let caught_up = tokio::time::timeout(IMAGE_CATCH_UP_MAX, image.wait_for(|i| i.provenance().offset >= offset));
        match caught_up.await {
            Ok(Ok(_)) => Ok(response),
            Ok(Err(_)) => Err("the metadata image stopped updating".to_owned()),
            Err(_) => Err(format!("this node's metadata did not reach offset {offset} in time")),
        }
    }

    /// Handles one request frame (without its size prefix) from the client at `peer`, waits
    /// included.
    pub async fn handle(&self, frame: Bytes, peer: SocketAddr) -> Outcome {
        match self.start(frame, peer).await {
            Started::Done(outcome) => outcome,
            Started::Waiting { wait, correlation_id, version } => {
                let body = ResponseBody::Produce(wait.finish(self).await);
                encode(correlation_id, Some(body), version)
            }
        }
    }

    /// Handles one request frame like [`Broker::handle`], but returns an acks=all Produce once
    /// it is appended, with its wait for the replicas to finish ([`Handled::Waiting`]).
    pub async fn handle_pipelined(self: &Arc<Self>, frame: Bytes, peer: SocketAddr) -> Handled {
        match self.start(frame, peer).await {
            Started::Done(outcome) => Handled::Done(outcome),
            Started::Waiting { wait, correlation_id, version } => {
                let broker = Arc::clone(self);
                Handled::Waiting(Box::pin(async move {
                    let body = ResponseBody::Produce(wait.finish(&broker).await);
                    encode(correlation_id, Some(body), version)
                }))
            }
        }
    }

    /// Parses, checks and dispatches a request, up to an acks=all Produce's wait.
    async fn start(&self, frame: Bytes, peer: SocketAddr) -> Started {
        let request = match parse_request(frame) {
            Ok(request) => request,
            Err(RequestError::UnsupportedVersion { api: ApiKey::ApiVersions, correlation_id, .. }) => {
                let fallback = api_versions_fallback(correlation_id, handlers::api_versions::served_versions());
                return Started::Done(respond(fallback));
            }
            Err(e) => return Started::Done(Outcome::Close(e.to_string())),
        };
        if !handlers::SERVED.contains(&request.api_key) {
            return Started::Done(Outcome::Close(format!("{:?} is not served by this node", request.api_key)));
        }
        let body = match decode_request_body(&request) {
            Ok(body) => body,
            Err(e) => return Started::Done(Outcome::Close(e.to_string())),
        };
        let (correlation_id, version) = (request.correlation_id(), request.api_version());
        let client = Client { id: request.header.client_id.as_deref(), peer };
        match self.dispatch(body, version, client).await {
            Ok(Dispatched::Respond(body)) => Started::Done(encode(correlation_id, body, version)),
            Ok(Dispatched::Waiting(wait)) => Started::Waiting { wait, correlation_id, version },
            Err(reason) => Started::Done(Outcome::Close(reason)),
        }
    }

    /// Runs the API's handler. `Err`: close the connection.
    async fn dispatch(&self, body: RequestBody, version: i16, client: Client<'_>) -> Result<Dispatched, String> {
        use handlers::*;
        let groups = &self.groups;
        Ok(Dispatched::Respond(Some(match body {
            RequestBody::ApiVersions(r) => ResponseBody::ApiVersions(api_versions::handle(self, &r)),
            RequestBody::Metadata(r) => ResponseBody::Metadata(metadata::handle(self, r, version).await),
            RequestBody::Produce(r) => {
                return produce::start(self, r, version).await.map(|produced| match produced {
                    produce::Produced::Answered(response) => Dispatched::Respond(response.map(ResponseBody::Produce)),
                    produce::Produced::Waiting(wait) => Dispatched::Waiting(wait),
                });
            }
            RequestBody::Fetch(r) => ResponseBody::Fetch(fetch::handle(self, r, version).await),
            RequestBody::ListOffsets(r) => ResponseBody::ListOffsets(list_offsets::handle(self, r, version).await),
            RequestBody::CreateTopics(r) => ResponseBody::CreateTopics(create_topics::handle(self, r, version).await),
            RequestBody::InitProducerId(r) => {
                ResponseBody::InitProducerId(init_producer_id::handle(self, r, version).await)
            }
            RequestBody::AddPartitionsToTxn(r) => {
                ResponseBody::AddPartitionsToTxn(transactions::add_partitions_to_txn(self, r, version).await)
            }
            RequestBody::AddOffsetsToTxn(r) => {
                ResponseBody::AddOffsetsToTxn(transactions::add_offsets_to_txn(self, r, version).await)
            }
            RequestBody::EndTxn(r) => ResponseBody::EndTxn(transactions::end_txn(self, r, version).await),
            RequestBody::DescribeTransactions(r) => {
                ResponseBody::DescribeTransactions(transactions::describe_transactions(self, r, version).await)
            }
            RequestBody::ListTransactions(r) => {
                ResponseBody::ListTransactions(transactions::list_transactions(self, r, version).await)
            }
            RequestBody::WriteTxnMarkers(r) => ResponseBody::WriteTxnMarkers(write_txn_markers::handle(self, r).await),
            RequestBody::DeleteTopics(r) => ResponseBody::DeleteTopics(delete_topics::handle(self, r, version).await),
            RequestBody::DeleteRecords(r) => ResponseBody::DeleteRecords(delete_records::handle(self, r)),
            RequestBody::OffsetForLeaderEpoch(r) => {
                ResponseBody::OffsetForLeaderEpoch(offset_for_leader_epoch::handle(self, r))
            }
            RequestBody::DescribeConfigs(r) => ResponseBody::DescribeConfigs(describe_configs::handle(self, r)),
            RequestBody::DescribeProducers(r) => ResponseBody::DescribeProducers(describe_producers::handle(self, r)),
            RequestBody::DescribeLogDirs(r) => ResponseBody::DescribeLogDirs(describe_log_dirs::handle(self, r)),
            RequestBody::AlterConfigs(r) => ResponseBody::AlterConfigs(alter_configs::handle(self, r, version).await),
            RequestBody::CreatePartitions(r) => {
                ResponseBody::CreatePartitions(create_partitions::handle(self, r, version).await)
            }
            RequestBody::IncrementalAlterConfigs(r) => {
                ResponseBody::IncrementalAlterConfigs(incremental_alter_configs::handle(self, r, version).await)
            }
            RequestBody::AlterPartitionReassignments(r) => {
                ResponseBody::AlterPartitionReassignments(alter_partition_reassignments::handle(self, r, version).await)
            }
            RequestBody::ListPartitionReassignments(r) => {
                ResponseBody::ListPartitionReassignments(list_partition_reassignments::handle(self, r, version).await)
            }
            RequestBody::DescribeCluster(r) => {
                ResponseBody::DescribeCluster(describe_cluster::handle(self, r, version))
            }
            RequestBody::DescribeTopicPartitions(r) => {
                ResponseBody::DescribeTopicPartitions(describe_topic_partitions::handle(self, r))
            }
            RequestBody::FindCoordinator(r) => {
                ResponseBody::FindCoordinator(find_coordinator::handle(self, r, version).await)
            }
            RequestBody::JoinGroup(r) => {
                let member = groups::client(client.id, client.peer);
                ResponseBody::JoinGroup(self.groups.join_group(member, r, version).await)
            }
            RequestBody::ConsumerGroupHeartbeat(r) => {
                let member = groups::client(client.id, client.peer);
                ResponseBody::ConsumerGroupHeartbeat(self.groups.consumer_group_heartbeat(member, r, version).await)
            }
            RequestBody::ConsumerGroupDescribe(r) => {
                ResponseBody::ConsumerGroupDescribe(groups.consumer_group_describe(r, version).await)
            }
            RequestBody::SyncGroup(r) => ResponseBody::SyncGroup(groups.sync_group(r, version).await),
            RequestBody::Heartbeat(r) => ResponseBody::Heartbeat(groups.heartbeat(r, version).await),
            RequestBody::LeaveGroup(r) => ResponseBody::LeaveGroup(groups.leave_group(r, version).await),
            RequestBody::OffsetCommit(r) => {
                let topics = handlers::groups::ImageTopics(self.image());
                ResponseBody::OffsetCommit(groups.offset_commit(r, version, &topics).await)
            }
            RequestBody::OffsetFetch(r) => {
                let topics = handlers::groups::ImageTopics(self.image());
                ResponseBody::OffsetFetch(groups.offset_fetch(r, version, &topics).await)
            }
            RequestBody::OffsetDelete(r) => ResponseBody::OffsetDelete(groups.offset_delete(r, version).await),
            RequestBody::TxnOffsetCommit(r) => {
                ResponseBody::TxnOffsetCommit(handlers::txn_offset_commit::handle(self, r, version).await)
            }
            RequestBody::ListGroups(r) => ResponseBody::ListGroups(groups.list_groups(r, version).await),
            RequestBody::DescribeGroups(r) => ResponseBody::DescribeGroups(groups.describe_groups(r, version).await),
            RequestBody::DeleteGroups(r) => ResponseBody::DeleteGroups(groups.delete_groups(r, version).await),
            other => return Err(format!("{:?} has no handler", other.api_key())),
        })))
    }
}

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

    /// Broker `id`'s endpoint on the listener this broker's clients use, if it is registered and
    /// not fenced (Kafka's `MetadataCache.getAliveBrokerNode`).
    pub(crate) fn endpoint_of(&self, image: &MetadataImage, id: BrokerId) -> Option<LeaderEndpoint> {
        let broker = image.cluster().broker(id).filter(|b| !b.fenced)?;
        let endpoint = broker.endpoints.iter().find(|e| e.name == self.identity.listener_name)?;
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
    endpoints: std::collections::BTreeMap<BrokerId, LeaderEndpoint>,
}

impl<'a> LeaderHints<'a> {
    pub(crate) fn new(broker: &'a Broker) -> Self {
        LeaderHints { broker, image: broker.image(), endpoints: std::collections::BTreeMap::new() }
    }

    /// `tp`'s current leader and epoch, its endpoint noted if the leader is alive.
    pub(crate) fn leader_of(&mut self, tp: &strand_base::TopicPartition) -> (BrokerId, i32) {
        let (leader, epoch) = self.broker.current_leader(&self.image, tp);
        if !self.endpoints.contains_key(&leader)
            && let Some(endpoint) = self.broker.endpoint_of(&self.image, leader)
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

/// Who sent a request.
#[derive(Debug, Clone, Copy)]
struct Client<'a> {
    /// The request header's client id.
    id: Option<&'a str>,
    peer: SocketAddr,
}

/// The outcome of a handled request: its encoded response, or nothing to send (acks=0).
fn encode(correlation_id: i32, body: Option<ResponseBody>, version: i16) -> Outcome {
    let Some(body) = body else { return Outcome::NoResponse };
    match encode_response_frame(correlation_id, &body, version) {
        Ok(frame) => Outcome::Respond(frame),
        Err(e) => Outcome::Close(format!("could not encode the response: {e}")),
    }
}

fn respond(frame: Result<Bytes, strand_protocol::EncodeError>) -> Outcome {
    match frame {
        Ok(frame) => Outcome::Respond(frame.into()),
        Err(e) => Outcome::Close(format!("could not encode the response: {e}")),
    }
}

/// The frame's bytes in memory, file regions read with positioned reads: for transports that
/// cannot send from a file (TLS) and for tests. Fails if a file is shorter than its region (it
/// was truncated meanwhile).
pub fn frame_to_bytes(frame: &ResponseFrame) -> std::io::Result<Bytes> {
    use std::os::unix::fs::FileExt;
    let mut out = Vec::with_capacity(frame.len());
    for chunk in &frame.chunks {
        match chunk {
            FrameChunk::Bytes(bytes) => out.extend_from_slice(bytes),
            FrameChunk::File(region) => {
                let start = out.len();
                out.resize(start + region.len as usize, 0);
                region.file.read_exact_at(&mut out[start..], region.position)?;
            }
        }
    }
    Ok(Bytes::from(out))
}
