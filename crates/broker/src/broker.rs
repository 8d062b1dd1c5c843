//! [`Broker`]: the request handlers of one node, what they reach (the replicas, the
//! coordinators, the controller, the metadata image) and the settings they apply.

use std::sync::Arc;

use strand_base::{BrokerId, Clock};
use strand_coordinator::{GroupCoordinator, TxnCoordinator};
use strand_metadata::controller::ControllerDefaults;
use strand_metadata::image::{MetadataImage, TopicConfigResolver};
use strand_protocol::messages::api::Request;
use strand_replication::ReplicaManager;
use strand_security::Session;
use strand_security::acl::{AclOperation, Action, Authorizer, CLUSTER_NAME, ResourceType};
use tokio::sync::watch;

use crate::channels::{BrokerReconfiguration, ControllerChannel, NoTxnCoordinator, TxnVerifier, ask_controller};
use crate::{fetch_session, producer_ids};

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
    /// `quota.window.num` windows of `quota.window.size.seconds`: what client quotas are
    /// measured over.
    pub quota_window: crate::quotas::QuotaWindow,
    /// `controller.quota.window.num` windows of `controller.quota.window.size.seconds`: the
    /// controller mutation quota's burst.
    pub controller_quota_window: crate::quotas::QuotaWindow,
    /// `max.incremental.fetch.session.cache.slots`: the most fetch sessions the node keeps.
    pub fetch_session_slots: usize,
    /// `fetch.max.bytes`: the most record bytes one Fetch response carries, whatever the request
    /// asks (but for one batch, KIP-74).
    pub fetch_max_bytes: i32,
    /// `add.partitions.to.txn.retry.backoff.ms` and `.max.ms`.
    pub txn_add_retry: TxnAddRetry,
    /// How `__consumer_offsets` is created on first use (`offsets.topic.*`).
    pub offsets_topic: InternalTopicSettings,
    /// How `__transaction_state` is created on first use (`transaction.state.log.*`).
    pub transaction_topic: InternalTopicSettings,
    /// `replica.selector.class`: none keeps every consumer on the leader (KIP-392).
    pub replica_selector: Option<crate::ReplicaSelector>,
    /// `http.metrics.topics.max` (a Strand setting): the most topics with series of their own
    /// in `/metrics` (`metrics.rs`).
    pub metrics_topics_max: usize,
    /// Share groups' settings (KIP-932).
    pub share: ShareSettings,
    /// `errors.deadletterqueue.topic.name.prefix` (KIP-1191); empty for none.
    pub dlq_topic_prefix: String,
}

/// Share groups' broker settings (Kafka's names in the field docs), Kafka's defaults by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShareSettings {
    /// `group.share.session.timeout.ms`.
    pub session_timeout_ms: i64,
    /// `group.share.heartbeat.interval.ms`.
    pub heartbeat_interval_ms: i32,
    /// `group.share.max.size`.
    pub max_size: usize,
    /// `group.share.record.lock.duration.ms`.
    pub record_lock_duration_ms: i32,
    /// `group.share.delivery.count.limit`.
    pub delivery_count_limit: i16,
    /// `group.share.partition.max.record.locks`.
    pub partition_max_record_locks: i64,
    /// `group.share.max.share.sessions`.
    pub max_share_sessions: usize,
    /// How `__share_group_state` is created on first use (`share.coordinator.state.topic.*`).
    pub state_topic: InternalTopicSettings,
}

impl Default for ShareSettings {
    fn default() -> Self {
        ShareSettings {
            session_timeout_ms: 45_000,
            heartbeat_interval_ms: 5_000,
            max_size: 200,
            record_lock_duration_ms: 30_000,
            delivery_count_limit: 5,
            partition_max_record_locks: 2_000,
            max_share_sessions: 2_000,
            state_topic: InternalTopicSettings {
                partitions: 50,
                replication_factor: 3,
                segment_bytes: 104_857_600,
                min_insync_replicas: Some(2),
            },
        }
    }
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
    pub(crate) identity: BrokerIdentity,
    pub(crate) settings: BrokerSettings,
    pub(crate) image: watch::Receiver<Arc<MetadataImage>>,
    pub(crate) replicas: Arc<ReplicaManager>,
    /// The group coordinator: groups and committed offsets in `__consumer_offsets`.
    pub(crate) groups: Arc<GroupCoordinator>,
    pub(crate) controller: Arc<dyn ControllerChannel>,
    /// The transaction coordinator: transactional ids and their transactions in
    /// `__transaction_state`; without one, the transaction APIs answer COORDINATOR_NOT_AVAILABLE.
    pub(crate) transactions: Option<Arc<TxnCoordinator>>,
    /// KIP-890's checks of transactional writes.
    pub(crate) txn_verifier: Arc<dyn TxnVerifier>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) producer_ids: Arc<producer_ids::ControllerProducerIds>,
    /// The consumers' incremental fetch sessions; locked only between awaits.
    pub(crate) fetch_sessions: fetch_session::FetchSessionCache,
    /// `authorizer.class.name`'s authorizer; none allows every request, as Kafka does.
    pub(crate) authorizer: Option<Arc<dyn Authorizer>>,
    /// Checks changes of the listeners' TLS stores; without it they are refused.
    pub(crate) reconfiguration: Option<Arc<dyn BrokerReconfiguration>>,
    /// Client quotas' sensors (`quotas`).
    pub(crate) quotas: crate::quotas::ClientQuotas,
    /// Places for large requests handled at lowered priority (`dispatch`), at most
    /// [`crate::dispatch::BACKGROUND_REQUESTS_MAX`] at a time.
    pub(crate) background: tokio::sync::Semaphore,
    /// Clients' traffic by topic and requests by API, for `/metrics`.
    pub(crate) metrics: crate::metrics::BrokerMetrics,
    /// Share groups, share-partitions and share sessions, in memory (`share.rs`).
    pub(crate) share: crate::share::ShareState,
    /// The share coordinator: share-partitions' state in `__share_group_state`, served to
    /// partition leaders with the *ShareGroupState RPCs; without one they answer
    /// COORDINATOR_NOT_AVAILABLE.
    pub(crate) share_coordinator: Option<Arc<strand_coordinator::share::state::ShareCoordinator>>,
    /// Where share-partitions led here persist their state; without one it is held in memory
    /// only.
    pub(crate) share_persister: Option<Arc<dyn crate::channels::SharePersister>>,
    /// Writes share groups' dead-letter records (KIP-1191); without one they are archived unwritten.
    pub(crate) dead_letter_writer: Option<Arc<dyn crate::channels::DeadLetterWriter>>,
    /// `delegation.token.*` when `delegation.token.secret.key` is set; without it the token
    /// APIs answer DELEGATION_TOKEN_AUTH_DISABLED.
    pub(crate) delegation_tokens: Option<strand_security::delegation_token::DelegationTokenSettings>,
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
            share: crate::share::ShareState::new(&settings.share),
            quotas: crate::quotas::ClientQuotas::new(settings.quota_window, settings.controller_quota_window),
            metrics: crate::metrics::BrokerMetrics::new(settings.metrics_topics_max),
            fetch_sessions,
            identity,
            settings,
            image,
            replicas,
            groups,
            controller,
            transactions: None,
            share_coordinator: None,
            share_persister: None,
            dead_letter_writer: None,
            txn_verifier: Arc::new(NoTxnCoordinator),
            clock,
            producer_ids,
            authorizer: None,
            delegation_tokens: None,
            reconfiguration: None,
            background: tokio::sync::Semaphore::new(crate::dispatch::BACKGROUND_REQUESTS_MAX),
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

    /// Serves the *ShareGroupState RPCs with `coordinator`.
    pub fn with_share_coordinator(
        mut self,
        coordinator: Arc<strand_coordinator::share::state::ShareCoordinator>,
    ) -> Self {
        self.share_coordinator = Some(coordinator);
        self
    }

    /// Persists the state of share-partitions led here through `persister`.
    pub fn with_share_persister(mut self, persister: Arc<dyn crate::channels::SharePersister>) -> Self {
        self.share_persister = Some(persister);
        self
    }

    /// Checks transactional writes through `verifier` (without one, they cannot be verified and
    /// are refused with a retriable error).
    pub fn with_dead_letter_writer(mut self, writer: Arc<dyn crate::channels::DeadLetterWriter>) -> Self {
        self.dead_letter_writer = Some(writer);
        self
    }

    pub fn with_txn_verifier(mut self, verifier: Arc<dyn TxnVerifier>) -> Self {
        self.txn_verifier = verifier;
        self
    }

    /// Checks changes of this node's listeners' TLS stores through `reconfiguration` before
    /// they are sent to the controller.
    pub fn with_reconfiguration(mut self, reconfiguration: Arc<dyn BrokerReconfiguration>) -> Self {
        self.reconfiguration = Some(reconfiguration);
        self
    }

    /// Checks every request against `authorizer` (without one, everything is allowed).
    pub fn with_authorizer(mut self, authorizer: Arc<dyn Authorizer>) -> Self {
        self.authorizer = Some(authorizer);
        self
    }

    /// Serves delegation tokens with `settings` (KIP-48).
    pub fn with_delegation_tokens(
        mut self,
        settings: strand_security::delegation_token::DelegationTokenSettings,
    ) -> Self {
        self.delegation_tokens = Some(settings);
        self
    }

    /// Whether `session` may do `operation` on `resource_type` / `name`: the one question
    /// handlers ask before acting on a resource. Always true without an authorizer.
    pub fn authorize(
        &self,
        session: &Session,
        operation: AclOperation,
        resource_type: ResourceType,
        name: &str,
    ) -> bool {
        let Some(authorizer) = &self.authorizer else { return true };
        authorizer.authorize(session, &Action::new(operation, resource_type, name))
    }

    /// What the admin APIs a controller also serves need of this node.
    pub fn admin_apis(&self) -> crate::handlers::admin_apis::AdminApis<'_> {
        crate::handlers::admin_apis::AdminApis {
            authorizer: self.authorizer.as_deref(),
            image: &self.image,
            controller: self.controller.as_ref(),
        }
    }

    /// Whether `session` may do `operation` on the cluster.
    pub fn authorize_cluster(&self, session: &Session, operation: AclOperation) -> bool {
        self.authorize(session, operation, ResourceType::Cluster, CLUSTER_NAME)
    }

    /// Whether `session` may do `operation` on some resource of `resource_type`
    /// ([`Authorizer::authorize_any`]). Always true without an authorizer.
    pub fn authorize_any(&self, session: &Session, operation: AclOperation, resource_type: ResourceType) -> bool {
        let Some(authorizer) = &self.authorizer else { return true };
        authorizer.authorize_any(session, operation, resource_type)
    }

    pub fn identity(&self) -> &BrokerIdentity {
        &self.identity
    }

    /// The current metadata image.
    pub fn image(&self) -> Arc<MetadataImage> {
        self.image.borrow().clone()
    }

    /// Users' SCRAM credentials as of the current image, for the SCRAM mechanisms.
    pub fn credentials(&self) -> crate::ImageCredentials {
        crate::ImageCredentials::new(self.image.clone())
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
        self.ask_controller_for(None, request, version).await
    }

    /// [`Broker::ask_controller`] for a client's request: the controller authorizes it again for
    /// `session`'s principal and address, as Kafka's controller does an Envelope's.
    pub async fn ask_controller_for<R: Request>(
        &self,
        session: Option<&Session>,
        request: &R,
        version: i16,
    ) -> Result<R::Response, String> {
        let requester = session.map(crate::channels::requester);
        ask_controller(self.controller.as_ref(), &self.image, request, version, requester).await
    }
}
