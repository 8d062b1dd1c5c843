//! A broker over a real `ReplicaManager` in a temp dir (a cluster member without peers), with a
//! metadata log in memory: the [`ReplayingWriter`] replays committed records into the image the
//! broker watches and publishes it through the node's `BrokerMetadataPublisher`, as the server's
//! replay loop does. Requests go
//! through `Broker::handle` as frames and responses come back decoded.

#![allow(dead_code)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use strand_base::{BrokerId, SystemClock, TopicPartition, Uuid};
use strand_broker::{
    BoxFuture, Broker, BrokerConfigEntry, BrokerIdentity, BrokerMetadataPublisher, BrokerSettings, ControllerChannel,
    InternalTopicSettings, Outcome,
};
use strand_coordinator::writer::memory::MemoryPartitionWriter;
use strand_coordinator::{GroupConfig, GroupCoordinator, RandomMemberIds};
use strand_log::log::ValidatedBatch;
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{LogConfig, LogManager, NodeIdentity};
use strand_metadata::controller::authorization::Requester;
use strand_metadata::controller::{
    ApiMessageAndVersion, BootstrapFeatures, ControllerDefaults, InitialFencing, bootstrap_records,
};
use strand_metadata::image::MetadataImage;
use strand_metadata::quorum::QuorumError;
use strand_metadata::quorum_controller::{
    BoxFuture as ControllerFuture, ControllerLog, ControllerSettings, QuorumController,
};
pub use strand_metadata::testkit::{CLUSTER_ID, LISTENER, registration};
use strand_metadata::testkit::{committed, register};
use strand_protocol::error::ErrorCode;
use strand_protocol::frame::{decode_response, encode_request};
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::{CreatableReplicaAssignment, CreatableTopic};
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{BrokerRegistrationRequest, CreateTopicsRequest, FenceBrokerRecord};
use strand_protocol::messages::{FetchRequest, FetchResponse};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};
use strand_replication::{
    Acks, AlterPartitionItem, IsrChannel, LeaderAndIsr, ReplicaLinks, ReplicaManager, ReplicaTransport,
    ReplicationConfig, TransportError,
};
use tokio::sync::watch;

pub const NODE: BrokerId = BrokerId(1);
/// The address requests come from.
pub const PEER: std::net::SocketAddr =
    std::net::SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 50_000);

/// The session of a PLAINTEXT client at [`PEER`].
pub fn session() -> strand_security::Session {
    strand_security::Session::anonymous(PEER, "PLAINTEXT")
}

/// A session of `User:name` from [`PEER`] on a SASL_PLAINTEXT listener.
pub fn session_of(name: &str) -> strand_security::Session {
    strand_security::Session {
        principal: strand_security::KafkaPrincipal::user(name),
        protocol: strand_security::SecurityProtocol::SaslPlaintext,
        ..session()
    }
}

/// An authorizer from a table: the (principal name, action) pairs it allows; everything else is
/// denied. For handler tests, which check what a handler asks and what it does with the answer;
/// the ACL semantics are tested where they are decided.
#[derive(Debug, Default)]
pub struct TableAuthorizer {
    pub allowed: Vec<(String, strand_security::acl::Action)>,
}

impl TableAuthorizer {
    /// Allows `principal` (a user name) `operation` on `resource_type` / `name`.
    pub fn allow(
        mut self,
        principal: &str,
        operation: strand_security::acl::AclOperation,
        resource_type: strand_security::acl::ResourceType,
        name: &str,
    ) -> TableAuthorizer {
        self.allowed.push((principal.to_owned(), strand_security::acl::Action::new(operation, resource_type, name)));
        self
    }
}

impl strand_security::acl::Authorizer for TableAuthorizer {
    fn authorize(&self, session: &strand_security::Session, action: &strand_security::acl::Action) -> bool {
        self.allowed.iter().any(|(name, allowed)| *name == session.principal.name && allowed == action)
    }

    fn authorize_any(
        &self,
        session: &strand_security::Session,
        operation: strand_security::acl::AclOperation,
        resource_type: strand_security::acl::ResourceType,
    ) -> bool {
        self.allowed.iter().any(|(name, allowed)| {
            *name == session.principal.name && allowed.operation == operation && allowed.resource_type == resource_type
        })
    }
}

/// The metadata log in memory: a write is committed at once, replayed into the image and
/// published to this node's replicas and group coordinator, as the server's replay does.
#[derive(Debug)]
pub struct ReplayingWriter {
    images: Mutex<watch::Sender<Arc<MetadataImage>>>,
    publisher: BrokerMetadataPublisher,
    /// While set, writes fail as a lost quorum would make them.
    pub failing: AtomicBool,
}

impl ReplayingWriter {
    /// Replays `records` as one batch, then hosts (or drops) this node's partitions.
    pub fn apply(&self, records: &[ApiMessageAndVersion]) -> i64 {
        let images = self.images.lock().expect("image lock");
        let next = Arc::new(committed(&images.borrow(), records));
        let offset = next.provenance().offset;
        let failed = self.publisher.publish(&next);
        assert!(failed.is_empty(), "{failed:?}");
        images.send_replace(next);
        offset
    }

    /// The node's image as it changes, for what reads the live image (the authorizer).
    pub fn subscribe(&self) -> watch::Receiver<Arc<MetadataImage>> {
        self.images.lock().expect("image lock").subscribe()
    }

    /// Replays `records` as one batch into the image only, as if this node's replicas had not
    /// taken them yet.
    pub fn replay_unpublished(&self, records: &[ApiMessageAndVersion]) -> i64 {
        let images = self.images.lock().expect("image lock");
        let next = committed(&images.borrow(), records);
        let offset = next.provenance().offset;
        images.send_replace(Arc::new(next));
        offset
    }
}

/// The log of a quorum of one that is always its leader.
impl ControllerLog for ReplayingWriter {
    fn append(&self, records: Vec<ApiMessageAndVersion>) -> ControllerFuture<'_, Result<i64, QuorumError>> {
        Box::pin(async move {
            if self.failing.load(Ordering::SeqCst) {
                return Err(QuorumError::Raft("no quorum".to_owned()));
            }
            Ok(self.apply(&records))
        })
    }

    fn leader_caught_up(&self, _timeout: Duration) -> ControllerFuture<'_, Result<i64, QuorumError>> {
        Box::pin(async move { Ok(self.next_offset()) })
    }

    fn is_leader(&self) -> bool {
        true
    }

    fn leader_epoch(&self) -> i32 {
        1
    }

    fn next_offset(&self) -> i64 {
        self.images.lock().expect("image lock").borrow().provenance().offset + 1
    }
}

/// The active controller in process, over the replaying log.
#[derive(Debug)]
pub struct LocalController(pub QuorumController);

impl ControllerChannel for LocalController {
    fn call(
        &self,
        api: ApiKey,
        version: i16,
        body: Bytes,
        requester: Option<Requester>,
    ) -> BoxFuture<'_, Result<(Bytes, i64), String>> {
        Box::pin(async move {
            self.0.handle_forwarded(api, version, body, requester.as_ref()).await.map_err(|e| e.to_string())
        })
    }
}

/// One node: its broker, the writer behind it, its replicas and data dir.
#[derive(Debug)]
pub struct Node {
    pub broker: Broker,
    pub writer: Arc<ReplayingWriter>,
    pub replicas: Arc<ReplicaManager>,
    _dir: tempfile::TempDir,
    correlation_id: i32,
}

impl Node {
    /// A formatted cluster with this node (broker 1) registered and unfenced.
    pub fn new() -> Node {
        Node::with_settings(settings())
    }

    pub fn with_settings(settings: BrokerSettings) -> Node {
        Node::with_settings_in_rack(settings, None)
    }

    /// [`Node::with_settings`], this node registered in `rack` (`broker.rack`).
    pub fn with_settings_in_rack(settings: BrokerSettings, rack: Option<&str>) -> Node {
        Node::build(settings, rack, None)
    }

    /// A node whose broker and controller serve delegation tokens with `tokens`.
    pub fn with_delegation_tokens(tokens: strand_security::delegation_token::DelegationTokenSettings) -> Node {
        Node::build(settings(), None, Some(tokens))
    }

    fn build(
        settings: BrokerSettings,
        rack: Option<&str>,
        tokens: Option<strand_security::delegation_token::DelegationTokenSettings>,
    ) -> Node {
        let dir = tempfile::tempdir().expect("temp dir");
        let replicas = replica_manager(dir.path());
        let (images, image) = watch::channel(Arc::new(MetadataImage::empty()));
        let groups = group_coordinator();
        let publisher = publisher(replicas.clone()).with_groups(groups.clone());
        let writer =
            Arc::new(ReplayingWriter { images: Mutex::new(images), publisher, failing: AtomicBool::new(false) });
        writer.apply(&bootstrap_records(&BootstrapFeatures::default()));
        let identity = BrokerIdentity {
            node_id: NODE,
            cluster_id: CLUSTER_ID.into(),
            listener_name: LISTENER.into(),
            broker_epoch: 0,
        };
        let clock = Arc::new(SystemClock);
        let controller_settings = ControllerSettings {
            cluster_id: CLUSTER_ID.into(),
            defaults: settings.controller_defaults.clone(),
            session_timeout_ms: 9_000,
            bootstrap: Vec::new(),
            unfence_on_registration: true,
            node_id: NODE.0,
            voters: Vec::new(),
        };
        let controller = QuorumController::new(
            writer.clone(),
            image.clone(),
            clock.clone(),
            controller_settings,
            Box::new(strand_broker::handlers::create_topics::random_topic_id),
        );
        let controller = match tokens.clone() {
            Some(tokens) => controller.with_delegation_tokens(tokens),
            None => controller,
        };
        let controller = Arc::new(LocalController(controller));
        let broker = Broker::new(identity, settings, image, replicas.clone(), groups, controller, clock);
        let broker = match tokens {
            Some(tokens) => broker.with_delegation_tokens(tokens),
            None => broker,
        };
        let node = Node { broker, writer, replicas, _dir: dir, correlation_id: 0 };
        node.register_in_rack(NODE.0, rack, InitialFencing::Unfenced);
        node
    }

    /// The same node, checking transactional writes through `verifier`.
    pub fn with_txn_verifier(self, verifier: Arc<dyn strand_broker::TxnVerifier>) -> Node {
        Node { broker: self.broker.with_txn_verifier(verifier), ..self }
    }

    /// The same node, with `coordinator` as its transaction coordinator.
    pub fn with_txn_coordinator(self, coordinator: Arc<strand_coordinator::TxnCoordinator>) -> Node {
        Node { broker: self.broker.with_txn_coordinator(coordinator), ..self }
    }

    /// The same node, checking every request against `authorizer`.
    pub fn with_authorizer(self, authorizer: Arc<dyn strand_security::acl::Authorizer>) -> Node {
        Node { broker: self.broker.with_authorizer(authorizer), ..self }
    }

    /// Registers broker `id` (listener PLAINTEXT on `host-<id>:9092`).
    pub fn register(&self, id: i32, fencing: InitialFencing) {
        self.register_in_rack(id, None, fencing);
    }

    /// Registers broker `id` as [`Node::register`] does, in `rack`.
    pub fn register_in_rack(&self, id: i32, rack: Option<&str>, fencing: InitialFencing) {
        let request = BrokerRegistrationRequest { rack: rack.map(str::to_owned), ..registration(id) };
        let result = register(&self.broker.image(), &request, fencing);
        self.writer.apply(&result.records);
    }

    /// Fences broker `id`, as the controller does when its session expires.
    pub fn fence(&self, id: i32) {
        let image = self.broker.image();
        let epoch = image.cluster().broker(BrokerId(id)).expect("registered").epoch;
        let record = FenceBrokerRecord { id: BrokerId(id), epoch, ..Default::default() };
        self.writer.apply(&[ApiMessageAndVersion::latest(MetadataRecord::FenceBrokerRecord(record))]);
    }

    /// Sends `body` at `version` as a frame through `Broker::handle`; the decoded response.
    pub async fn call(&mut self, body: RequestBody, version: i16) -> ResponseBody {
        self.call_as(&session(), body, version).await
    }

    /// [`Node::call`] from the connection whose handshake settled `session`.
    pub async fn call_as(
        &mut self,
        session: &strand_security::Session,
        body: RequestBody,
        version: i16,
    ) -> ResponseBody {
        self.correlation_id += 1;
        let api = body.api_key();
        let frame = encode_request(self.correlation_id, Some("handlers-test"), &body, version).expect("encode request");
        let (Outcome::Respond(response) | Outcome::Throttled(Some(response), _)) =
            self.broker.handle(frame.slice(4..), session).await
        else {
            panic!("{api:?} v{version}: no response");
        };
        let response = strand_broker::frame_to_bytes(&response).expect("file regions readable");
        let (header, body) = decode_response(api, version, response.slice(4..)).expect("decode response");
        assert_eq!(header.correlation_id, self.correlation_id);
        body
    }

    /// Creates topic `name` with `partitions` partitions on this node.
    pub async fn create_topic(&mut self, name: &str, partitions: i32) -> Uuid {
        self.create(CreatableTopic {
            name: name.to_owned(),
            num_partitions: partitions,
            replication_factor: 1,
            ..Default::default()
        })
        .await
    }

    /// Creates topic `name` with one partition per replica list.
    pub async fn create_assigned(&mut self, name: &str, replicas: &[&[i32]]) -> Uuid {
        let assignments = (0..)
            .zip(replicas)
            .map(|(partition_index, ids)| CreatableReplicaAssignment {
                partition_index,
                broker_ids: ids.iter().copied().map(BrokerId).collect(),
                ..Default::default()
            })
            .collect();
        self.create(CreatableTopic {
            name: name.to_owned(),
            num_partitions: -1,
            replication_factor: -1,
            assignments,
            ..Default::default()
        })
        .await
    }

    /// Creates `topic` as given (configs, assignments) and waits until this node hosts it.
    pub async fn create(&mut self, topic: CreatableTopic) -> Uuid {
        let name = topic.name.clone();
        let request = CreateTopicsRequest { topics: vec![topic], timeout_ms: 1000, ..Default::default() };
        let ResponseBody::CreateTopics(response) = self.call(RequestBody::CreateTopics(request), 7).await else {
            panic!("not a CreateTopics response");
        };
        let created = &response.topics[0];
        assert_eq!(created.error_code, 0, "creating {name}: {:?}", created.error_message);
        created.topic_id
    }

    /// Appends one record to `tp` at `leader_epoch`, straight to the log.
    pub fn append(&self, tp: &TopicPartition, leader_epoch: i32) {
        self.append_at(tp, leader_epoch, 10);
    }

    /// [`Node::append`] of a record with timestamp `timestamp_ms`.
    pub fn append_at(&self, tp: &TopicPartition, leader_epoch: i32, timestamp_ms: i64) {
        let mut builder = RecordBatchBuilder::new();
        builder.append(&NewRecord { timestamp_ms, key: None, value: Some(b"v"), headers: &[] }).expect("record");
        let batch = ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid");
        let context = AppendContext::client(VerificationGuard::SENTINEL);
        self.replicas.append(tp, batch, leader_epoch, Acks::Leader, context).expect("append");
    }
}

/// Settings with Kafka's defaults, a few static broker configs and topic deletion enabled.
pub fn settings() -> BrokerSettings {
    BrokerSettings {
        auto_create_topics: false,
        controller_defaults: ControllerDefaults::default(),
        delete_topic_enable: true,
        broker_configs: vec![
            static_config("log.retention.hours", Some("168"), 5, &["log.retention.hours"], 3),
            static_config(
                "log.retention.ms",
                None,
                5,
                &["log.retention.ms", "log.retention.minutes", "log.retention.hours"],
                5,
            ),
            static_config("log.retention.minutes", None, 5, &["log.retention.minutes", "log.retention.hours"], 3),
            static_config("message.max.bytes", Some("1048588"), 5, &["message.max.bytes"], 3),
            static_config("node.id", Some("1"), 4, &["node.id", "broker.id"], 3),
            static_config("broker.id", Some("1"), 4, &["broker.id"], 3),
        ],
        quota_window: strand_broker::quotas::QuotaWindow::default(),
        controller_quota_window: strand_broker::quotas::QuotaWindow::default(),
        fetch_session_slots: 1000,
        fetch_max_bytes: 57_671_680,
        txn_add_retry: strand_broker::TxnAddRetry::default(),
        offsets_topic: InternalTopicSettings {
            partitions: 50,
            replication_factor: 1,
            segment_bytes: 104_857_600,
            min_insync_replicas: None,
        },
        transaction_topic: InternalTopicSettings {
            partitions: 50,
            replication_factor: 1,
            segment_bytes: 104_857_600,
            min_insync_replicas: Some(1),
        },
        replica_selector: None,
        metrics_topics_max: 1000,
        dlq_topic_prefix: "dlq.".to_owned(),
        share: strand_broker::ShareSettings {
            state_topic: InternalTopicSettings {
                partitions: 50,
                replication_factor: 1,
                segment_bytes: 104_857_600,
                min_insync_replicas: Some(1),
            },
            ..strand_broker::ShareSettings::default()
        },
    }
}

/// A static broker config entry.
pub fn static_config(
    name: &str,
    value: Option<&str>,
    source: i8,
    synonyms: &[&str],
    config_type: i8,
) -> BrokerConfigEntry {
    BrokerConfigEntry {
        name: name.to_owned(),
        value: value.map(str::to_owned),
        source,
        sensitive: false,
        synonyms: synonyms.iter().map(|s| (*s).to_owned()).collect(),
        config_type,
    }
}

pub fn log_config() -> LogConfig {
    LogConfig { segment_index_bytes: 4096, ..LogConfig::default() }
}

/// Broker 1's replica manager over its logs in `dir`: a cluster member whose peers never answer
/// ([`NoPeers`]), acks=all not waiting for a sync.
pub fn replica_manager(dir: &std::path::Path) -> Arc<ReplicaManager> {
    let identity = NodeIdentity { cluster_id: CLUSTER_ID.into(), node_id: NODE.0 };
    let logs = LogManager::open(&[dir.to_owned()], &identity, log_config(), Arc::new(SystemClock)).expect("logs");
    let config = ReplicationConfig { flush_on_acks_all: false, ..ReplicationConfig::new(NODE) };
    let links = ReplicaLinks { transport: Arc::new(NoPeers), isr_channel: Arc::new(NoPeers) };
    Arc::new(ReplicaManager::with_config(logs, config, links, Arc::new(SystemClock)).expect("replicas"))
}

/// A group coordinator over an in-memory partition writer, which leads every partition of
/// `__consumer_offsets` (as [`settings`] creates it) at its first leader epoch. Group APIs are
/// tested end to end (crates/cli/tests, compat/): here the coordinator answers what the broker
/// lets through to it.
pub fn group_coordinator() -> Arc<GroupCoordinator> {
    let writer = MemoryPartitionWriter::new();
    for partition in 0..settings().offsets_topic.partitions {
        writer.lead(&TopicPartition::new(strand_base::topic::OFFSETS_TOPIC, partition), 0);
    }
    Arc::new(GroupCoordinator::new(
        GroupConfig::default(),
        Arc::new(writer),
        Arc::new(SystemClock),
        Arc::new(RandomMemberIds),
    ))
}

/// Broker 1's metadata publisher over `replicas`, its logs configured as [`log_config`] says
/// unless the image's topic configs say otherwise.
pub fn publisher(replicas: Arc<ReplicaManager>) -> BrokerMetadataPublisher {
    let statics = [("segment.index.bytes".to_owned(), log_config().segment_index_bytes.to_string())];
    BrokerMetadataPublisher::new(NODE, replicas, statics.into(), log_config().producer_state)
}

/// No controller: metadata changes in these tests are records the test replays.
#[derive(Debug)]
pub struct NoController;

impl ControllerChannel for NoController {
    fn call(&self, _: ApiKey, _: i16, _: Bytes, _: Option<Requester>) -> BoxFuture<'_, Result<(Bytes, i64), String>> {
        Box::pin(async { Err("no controller in this test".to_owned()) })
    }
}

/// No peers: a leader fetches from nobody and no ISR change is answered; a follower's log stays
/// as the test left it.
#[derive(Debug)]
pub struct NoPeers;

impl ReplicaTransport for NoPeers {
    fn fetch(
        &self,
        _: BrokerId,
        _: FetchRequest,
    ) -> strand_replication::BoxFuture<'static, Result<FetchResponse, TransportError>> {
        Box::pin(async { Err(TransportError("no peers".into())) })
    }
}

impl IsrChannel for NoPeers {
    fn submit(&self, _: AlterPartitionItem) -> strand_replication::BoxFuture<'static, Result<LeaderAndIsr, ErrorCode>> {
        Box::pin(async { Err(ErrorCode::OperationNotAttempted) })
    }
}

/// An ApiVersions request as a client sends it from v3: naming its software (KIP-511; Kafka
/// answers INVALID_REQUEST to one that does not).
pub fn api_versions_request() -> strand_protocol::messages::ApiVersionsRequest {
    strand_protocol::messages::ApiVersionsRequest {
        client_software_name: "strand-test".to_owned(),
        client_software_version: "1.0".to_owned(),
        ..Default::default()
    }
}
