//! Running a node: the metadata quorum, the metadata image it feeds, the partition logs, the
//! broker's listeners, and a clean shutdown on SIGTERM or SIGINT.
//!
//! Startup order: bind the CONTROLLER listener (with other voters), open the quorum (a lone voter
//! elects itself and commits its log), replay committed records into images, start the
//! controller, register this broker with the active controller (whose first act on an empty log
//! is to commit the cluster's bootstrap records), wait to be unfenced, open the partition logs
//! (recovering them after a crash), host this node's partitions, then accept connections. Every
//! later metadata change flows the same way: committed records are replayed into a new image,
//! the controller sees it at once, the hosted partitions are reconciled with it, and only then is
//! the image published to the request handlers.
//!
//! A log directory a failed sync took offline (Kafka's `LogDirFailureChannel`): its partitions
//! stop being served, led or followed here ([`ReplicaManager::handle_log_dir_failures`]), and
//! every heartbeat reports its directory id (KIP-858) so the controller moves their leaderships;
//! once every log dir is offline the node stops at once, without a clean shutdown, as Kafka
//! halts. So does a node whose metadata log failed (a write or sync of its log, `quorum-state` or
//! a snapshot: [`Quorum::failed`]), at any point of its life: Raft has stopped on the error, and
//! the restart recovers the log from what is on disk. A log dir that cannot be read or loaded at
//! start-up is offline from the start (registered without it, its partitions not recreated
//! elsewhere: `may_be_in_an_offline_dir`) and the node runs on the others, as Kafka does.

use crate::tls::DynamicTls;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use strand_base::{BrokerId, Clock, SystemClock, Uuid};
use strand_broker::controller_apis::{ControllerApis, NodeStatics};
use strand_broker::producer_ids::ControllerProducerIds;
use strand_broker::{Broker, BrokerIdentity, BrokerMetadataPublisher, ControllerChannel, ImageAuthorizer};
use strand_coordinator::share::state::ShareCoordinator;
use strand_coordinator::{GroupCoordinator, RandomMemberIds, TxnCoordinator};
use strand_log::{LogManager, NodeIdentity};
use strand_metadata::controller::{ApiMessageAndVersion, BootstrapFeatures, bootstrap_records};
use strand_metadata::image::MetadataImage;
use strand_metadata::quorum::{Leadership, Quorum};
use strand_metadata::quorum_controller::{ControllerSettings, QuorumController};
use strand_replication::{ReplicaLinks, ReplicaManager};
use strand_security::acl::Authorizer;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot, watch};
use tracing::{info, warn};

use crate::config::broker_settings::broker_settings;
use crate::config::{ServerConfig, static_topic_configs};
use crate::connection::ConnectionLimits;
use crate::connection::acceptor::ClientConnections;
use crate::group_writer::ReplicaPartitionWriter;
use crate::inter_node::{
    BrokerFetchTransport, ControllerAddresses, ControllerClient, ControllerIsrChannel, CoordinatorSharePersister,
    CoordinatorTxnVerifier, LeaderTxnMarkerSender, LinkSecurity, PeerHealth, ProduceDeadLetterWriter,
    VoterMetadataFetcher, follow_controller_registrations, follow_registrations, join_forever,
    serve_controller_listener, update_voter_forever,
};
use crate::log_dirs::{DirAssigner, raise_open_files_limit, watch_log_dirs_forever};
use crate::metadata_replay::{Handoff, replay_forever};
use crate::metrics::NodeGauges;
use crate::registration::{
    cluster_min_isr, controller_registration, log_dir_ids, previous_broker_epoch, register, register_controller_forever,
};
use crate::served::ServedBroker;
use crate::shutdown::{controlled_shutdown, shut_down, shut_down_quorum};
use crate::tasks::{
    Tasks, balance_leaders_forever, checkpoint_forever, compaction_forever, deliver_delayed_forever,
    expire_producers_forever, expire_sessions_forever, expire_tokens_forever, heartbeat_forever, log_leadership,
    retention_forever, shrink_isr_forever,
};

/// Why a node stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    #[error("{0}")]
    Startup(String),
    #[error("metadata quorum: {0}")]
    Quorum(#[from] strand_metadata::quorum::QuorumError),
    #[error("log: {0}")]
    Log(#[from] strand_log::LogError),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("every log dir failed ({0:?}): stopped without a clean shutdown")]
    LogDirsFailed(Vec<std::path::PathBuf>),
    #[error("{0}: stopped without a clean shutdown")]
    MetadataLogFailed(strand_metadata::quorum::QuorumError),
}

/// Runs a node until SIGTERM or SIGINT, then shuts it down cleanly; `gauges` follow its state,
/// `served` holds its handlers while it serves.
pub async fn run(config: ServerConfig, gauges: Arc<NodeGauges>, served: Arc<ServedBroker>) -> Result<(), NodeError> {
    use tokio::signal::unix::{SignalKind, signal};
    // Taken over now, not when the wait for them is first polled (once the listeners serve): a
    // SIGTERM in between would otherwise kill the process without a clean shutdown.
    let (mut term, mut interrupt) = (signal(SignalKind::terminate())?, signal(SignalKind::interrupt())?);
    let shutdown = async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = interrupt.recv() => {}
        }
        Ok::<(), std::io::Error>(())
    };
    run_gauged_until(config, gauges, served, shutdown).await
}

/// Runs a node until `shutdown` resolves: the start-up order of the module doc, then serving
/// until a shutdown signal (a clean shutdown) or a halt (every log dir or the metadata log
/// failed: no clean shutdown).
pub async fn run_until(
    config: ServerConfig,
    shutdown: impl std::future::Future<Output = std::io::Result<()>>,
) -> Result<(), NodeError> {
    run_gauged_until(config, Arc::default(), Arc::default(), shutdown).await
}

async fn run_gauged_until(
    config: ServerConfig,
    gauges: Arc<NodeGauges>,
    served: Arc<ServedBroker>,
    shutdown: impl std::future::Future<Output = std::io::Result<()>>,
) -> Result<(), NodeError> {
    let cluster_id = config.cluster_id.clone().ok_or_else(|| NodeError::Startup("no cluster.id".into()))?;
    raise_open_files_limit();
    // Before anything is opened: an override host that does not resolve stops the start.
    let (mut clients, jwks_feeds) = ClientConnections::from_config(&config).await.map_err(NodeError::Startup)?;
    let links = LinkSecurity::from_config(&config).map_err(NodeError::Startup)?;
    let mut node = Starting {
        links,
        node: BrokerId(config.node_id),
        controllers: quorum::controller_addresses(&config)?,
        config,
        cluster_id,
        clock: Arc::new(SystemClock),
        // What this node says about peers it cannot reach, shared by every node-to-node client.
        peers: Arc::new(PeerHealth::new()),
        tasks: Tasks::default(),
        served,
    };
    let links = [node.links.controller.tls.clone(), node.links.inter_broker.tls.clone()];
    for tls in clients.tls_listeners().into_iter().chain(links.into_iter().flatten()) {
        node.tasks.spawn("TLS store reload", tls.reload_forever());
    }
    for feed in jwks_feeds {
        node.tasks.spawn("jwks refresh", feed.refresh_forever());
    }
    let metadata = node.start_metadata().await?;
    gauges.attach(node.node, metadata.image_rx.clone(), metadata.controller.clone());
    // Resolves once the metadata log failed (never on an observer, which keeps none). It holds
    // the quorum: dropped before a clean shutdown, which needs the quorum's last owner.
    let mut metadata_failed: Halt = Box::pin(metadata_log_failure(metadata.quorum.clone()));
    let mut shutdown = std::pin::pin!(shutdown);
    if !node.config.process_roles.broker {
        return node.run_controller_only(metadata, metadata_failed, shutdown).await;
    }
    let channel = node.controller_channel(&metadata);
    // Registering waits for a controller, and hosting for the metadata: a signal meanwhile stops
    // the node at once (nothing is served yet, so there is nothing to hand over).
    let starting = async {
        let registered = node.register(&channel, &metadata, &mut metadata_failed).await?;
        let hosted = node.host(&channel, &metadata, &registered).await?;
        Ok::<_, NodeError>((registered, hosted))
    };
    let started = tokio::select! {
        started = starting => Some(started?),
        _ = &mut shutdown => None,
    };
    let Some((registered, hosted)) = started else {
        info!("shutting down before start-up completed");
        node.tasks.stop();
        drop(metadata_failed);
        drop(channel);
        let Metadata { quorum, controller, .. } = metadata;
        drop(controller);
        return shut_down_quorum(quorum).await;
    };
    let all_dirs_failed = node.start_broker_tasks(&channel, &metadata, &registered, &hosted);
    // SCRAM reads the users' credentials (and delegation tokens) from the node's image, as replayed.
    let credentials = strand_broker::ImageCredentials::new(metadata.image_rx.clone());
    let credentials = match node.config.delegation_tokens.clone() {
        Some(settings) => credentials.with_delegation_tokens(settings, node.clock.clone()),
        None => credentials,
    };
    clients.authenticate_with(Arc::new(credentials)).map_err(NodeError::Startup)?;
    node.served.set_sasl(clients.sasl_factories());
    let broker = node.serve(clients, &channel, &metadata, registered.listeners, registered.broker_epoch, &hosted);

    let halted = tokio::select! {
        signal = &mut shutdown => Ok(signal),
        () = all_dirs_failed.notified() => Err(NodeError::LogDirsFailed(node.config.log_dirs.clone())),
        failure = &mut metadata_failed => Err(failure),
    };
    let signal = match halted {
        Ok(signal) => signal,
        Err(halt) => {
            // Kafka halts: nothing more is acknowledged, nothing marked clean, no controlled
            // shutdown, the metadata log not even closed (its close syncs); the restart recovers
            // every log from what the disks hold.
            node.tasks.stop();
            hosted.replicas.stop_fetchers().await;
            return Err(halt);
        }
    };
    if let Err(e) = signal {
        warn!("waiting for a shutdown signal failed: {e}");
    }
    info!("shutting down");
    if node.tasks.stop_named(HEARTBEATS) && node.config.controlled_shutdown_enable {
        let limit = Duration::from_millis(node.config.broker_session_timeout_ms.max(1) as u64);
        let (image, epoch) = (&metadata.image_rx, registered.broker_epoch);
        controlled_shutdown(channel.as_ref(), image, node.node, epoch, registered.heartbeat, limit).await;
    }
    node.tasks.stop();
    let Hosted { replicas, groups, transactions, share_states, .. } = hosted;
    replicas.stop_fetchers().await;
    drop(broker);
    groups.shards().shutdown().await;
    drop(groups);
    transactions.shards().shutdown().await;
    drop(transactions);
    share_states.shards().shutdown().await;
    drop(share_states);
    let Metadata { quorum, controller, .. } = metadata;
    drop(controller);
    drop(metadata_failed);
    shut_down(replicas, quorum, registered.broker_epoch).await
}

/// The name the heartbeats run under, stopped first at a clean shutdown.
const HEARTBEATS: &str = "heartbeats";

/// A halt: resolves with the error that stops the node without a clean shutdown.
type Halt = std::pin::Pin<Box<dyn std::future::Future<Output = NodeError> + Send>>;

/// A node being started, and what every stage needs.
struct Starting {
    links: LinkSecurity,
    config: ServerConfig,
    cluster_id: String,
    node: BrokerId,
    clock: Arc<dyn Clock>,
    peers: Arc<PeerHealth>,
    /// Where the controllers' CONTROLLER listeners are (see `quorum`).
    controllers: ControllerAddresses,
    tasks: Tasks,
    /// Where the handlers go once they serve (the REST gateway's way in).
    served: Arc<ServedBroker>,
}

/// The metadata side: the quorum (a voter) or the voters' feed (an observer), the active
/// controller when this node is a voter, and the images the replay publishes.
struct Metadata {
    quorum: Option<Arc<Quorum>>,
    controller: Option<Arc<QuorumController>>,
    leadership: watch::Receiver<Leadership>,
    /// The image published to the handlers, once this node's hosts are reconciled with it.
    image_rx: watch::Receiver<Arc<MetadataImage>>,
    /// Where this node's hosts go to the replay once the node can host partitions.
    handoff_tx: mpsc::Sender<Handoff<BrokerMetadataPublisher>>,
}

/// This broker as the controller registered it.
struct Registered {
    broker_epoch: i64,
    listeners: Vec<(String, SocketAddr, TcpListener)>,
    /// Each log dir with its directory id, unknown for a dir that cannot be read.
    dirs: Vec<(std::path::PathBuf, Option<Uuid>)>,
    /// `broker.heartbeat.interval.ms`.
    heartbeat: Duration,
    /// The ids of the log dirs gone offline, for the heartbeats.
    offline_tx: watch::Sender<Vec<Uuid>>,
}

/// What this node hosts: the replicas and the coordinators over them.
struct Hosted {
    replicas: Arc<ReplicaManager>,
    groups: Arc<GroupCoordinator>,
    transactions: Arc<TxnCoordinator>,
    txn_verifier: Arc<CoordinatorTxnVerifier>,
    share_states: Arc<ShareCoordinator>,
    share_persister: Arc<CoordinatorSharePersister>,
    dead_letter_writer: Arc<ProduceDeadLetterWriter>,
}

impl Starting {
    /// Starts the quorum (a voter: its CONTROLLER listener, the quorum, the controller and its
    /// loops) or follows the voters (an observer), and the replay of committed records into
    /// images: `raw` at once (the controller decides on it), the published one after this
    /// node's hosts are reconciled with it (the handlers read it).
    async fn start_metadata(&mut self) -> Result<Metadata, NodeError> {
        let (config, node_id) = (&self.config, self.config.node_id);
        let (raw_tx, raw_rx) = watch::channel(Arc::new(MetadataImage::empty()));
        let (image_tx, image_rx) = watch::channel(Arc::new(MetadataImage::empty()));
        let (handoff_tx, handoff_rx) = mpsc::channel(1);
        self.tasks.spawn("peer registrations", follow_registrations(self.peers.clone(), image_rx.clone(), node_id));
        let listener_name = config.controller_listener_names.first().cloned().unwrap_or_default();
        let fixed = config.controller_quorum_voters.iter().map(|voter| voter.id).collect();
        let follow = follow_controller_registrations(self.controllers.clone(), raw_rx.clone(), listener_name, fixed);
        self.tasks.spawn("controller registrations", follow);
        if !config.process_roles.controller {
            // An observer: the committed log comes from the voters.
            let voters = quorum::observed_voters(config);
            let timeout = Duration::from_millis(config.controller_quorum_request_timeout_ms.max(1) as u64);
            // Kafka's replica key of an observer: its id and its metadata log dir's directory id.
            let meta = strand_log::dir::MetaProperties::read(&config.metadata_log_dir).ok().flatten();
            let directory_id = meta.and_then(|meta| meta.directory_id).unwrap_or_default();
            let fetcher = Arc::new(VoterMetadataFetcher::new(
                (node_id, directory_id),
                self.controllers.clone(),
                timeout,
                self.peers.clone(),
                self.links.controller.clone(),
            ));
            let (committed, leadership) = strand_metadata::quorum::observe(voters, fetcher, 0);
            self.tasks.spawn(METADATA_REPLAY, replay_forever(committed, raw_tx, image_tx, handoff_rx));
            return Ok(Metadata { quorum: None, controller: None, leadership, image_rx, handoff_tx });
        }
        let sole_voter = config.is_sole_voter();
        // Peers must be able to reach this node's controller listener as soon as the quorum runs;
        // a sole voter binds one only when it is configured (for admin clients, KIP-919).
        let controller_listener = if sole_voter && config.controller_listeners().next().is_none() {
            None
        } else {
            Some(listeners::bind_controller_listener(config).await?)
        };
        let (clock, peers, tls) = (self.clock.clone(), self.peers.clone(), self.links.controller.clone());
        let controllers = self.controllers.clone();
        let quorum = Arc::new(quorum::open_quorum(config, &self.cluster_id, clock, peers, tls, controllers).await?);
        self.tasks.spawn(METADATA_REPLAY, replay_forever(quorum.subscribe(0), raw_tx, image_tx, handoff_rx));
        if config.controller_quorum_auto_join_enable && quorum.is_dynamic() {
            let (joining, controllers) = (quorum::joining(config, &self.cluster_id), self.controllers.clone());
            let join =
                join_forever(quorum.clone(), joining, controllers, self.peers.clone(), self.links.controller.clone());
            self.tasks.spawn("controller auto join", join);
        }
        let raw_image = raw_rx.clone();
        let controller = QuorumController::new(
            quorum.clone(),
            raw_rx,
            self.clock.clone(),
            controller_settings(config, &self.cluster_id, sole_voter)?,
            Box::new(strand_broker::handlers::create_topics::random_topic_id),
        );
        let controller = Arc::new(quorum::configured(controller, config));
        if let Some(tokens) = &config.delegation_tokens {
            let interval = Duration::from_millis(tokens.expiry_check_interval_ms.max(1) as u64);
            self.tasks.spawn("delegation token expiry", expire_tokens_forever(controller.clone(), interval));
        }
        let registration = controller_registration(config, controller_listener.as_ref().map(|(address, _)| *address));
        let channel = Arc::new(self.controller_client(&quorum, &controller));
        if let Some(update) = quorum::voter_update(config, &self.cluster_id, &registration.listeners) {
            self.tasks.spawn("voter update", update_voter_forever(quorum.clone(), update, channel.clone()));
        }
        self.tasks
            .spawn("controller registration", register_controller_forever(registration, channel, raw_image.clone()));
        if let Some((address, listener)) = controller_listener {
            info!("Strand node {node_id}: controller listener on {address}");
            let limits = ConnectionLimits::from_config(config);
            let mut access = self.links.controller_access(config).map_err(NodeError::Startup)?;
            access.authorizer = self.image_authorizer(raw_image.clone());
            let apis = Arc::new(self.controller_apis(&quorum, &controller, raw_image));
            let (quorum, controller, peers) = (quorum.clone(), controller.clone(), self.peers.clone());
            let serving = serve_controller_listener(listener, quorum, controller, limits, peers, access, apis);
            self.tasks.spawn("controller listener", serving);
        }
        if !sole_voter {
            let interval = Duration::from_millis((config.broker_session_timeout_ms.max(8) / 8) as u64);
            self.tasks.spawn("broker session expiry", expire_sessions_forever(controller.clone(), interval));
            if config.auto_leader_rebalance_enable {
                let interval = Duration::from_secs(config.leader_imbalance_check_interval_seconds.max(1) as u64);
                self.tasks.spawn("leader balancing", balance_leaders_forever(controller.clone(), interval));
            }
        }
        let leadership = quorum.leadership();
        self.tasks.spawn("controller leadership log", log_leadership(leadership.clone(), node_id));
        Ok(Metadata { quorum: Some(quorum), controller: Some(controller), leadership, image_rx, handoff_tx })
    }

    /// A controller-only node: serves the quorum until `shutdown`, or halts.
    async fn run_controller_only(
        self,
        metadata: Metadata,
        metadata_failed: Halt,
        shutdown: impl std::future::Future<Output = std::io::Result<()>>,
    ) -> Result<(), NodeError> {
        info!("Strand node {}: controller only, cluster id {}", self.node.0, self.cluster_id);
        let signal = tokio::select! {
            signal = shutdown => signal,
            failure = metadata_failed => {
                self.tasks.stop();
                return Err(failure);
            }
        };
        if let Err(e) = signal {
            warn!("waiting for a shutdown signal failed: {e}");
        }
        info!("shutting down");
        self.tasks.stop();
        let Metadata { quorum, controller, .. } = metadata;
        drop(controller);
        shut_down_quorum(quorum).await
    }

    /// The Kafka requests of the CONTROLLER listener, authorized over the controller's image.
    fn controller_apis(
        &self,
        quorum: &Arc<Quorum>,
        controller: &Arc<QuorumController>,
        image: watch::Receiver<Arc<MetadataImage>>,
    ) -> ControllerApis {
        let leader = self.controller_client(quorum, controller);
        let settings = broker_settings(&self.config);
        let statics = NodeStatics {
            node_id: self.node,
            broker_configs: settings.broker_configs,
            static_topic_configs: settings.controller_defaults.static_topic_configs,
        };
        let leadership = quorum.leadership();
        let cluster_id = self.cluster_id.clone();
        let apis = ControllerApis::new(cluster_id, image.clone(), leadership, Arc::new(leader), statics);
        match self.image_authorizer(image) {
            Some(authorizer) => apis.with_authorizer(authorizer),
            None => apis,
        }
    }

    /// `authorizer.class.name`'s authorizer over `image`, when one is configured.
    fn image_authorizer(&self, image: watch::Receiver<Arc<MetadataImage>>) -> Option<Arc<dyn Authorizer>> {
        let settings = self.config.authorizer.as_ref()?;
        Some(Arc::new(ImageAuthorizer::new(image, settings.clone(), self.clock.clone())))
    }

    /// How this controller reaches the active one: itself while it leads, another voter otherwise.
    fn controller_client(&self, quorum: &Arc<Quorum>, controller: &Arc<QuorumController>) -> ControllerClient {
        let timeout = Duration::from_millis(self.config.controller_quorum_request_timeout_ms.max(1) as u64);
        ControllerClient::new(
            self.config.node_id,
            Some(controller.clone()),
            quorum.leadership(),
            self.controllers.clone(),
            timeout,
            CONTROLLER_CALL_MAX,
            self.peers.clone(),
        )
        .with_link(self.links.controller.clone())
    }

    /// How this broker reaches the active controller: the one in this process while it leads,
    /// another voter's over its CONTROLLER listener otherwise.
    fn controller_channel(&self, metadata: &Metadata) -> Arc<dyn ControllerChannel> {
        let timeout = Duration::from_millis(self.config.controller_quorum_request_timeout_ms.max(1) as u64);
        Arc::new(
            ControllerClient::new(
                self.config.node_id,
                metadata.controller.clone(),
                metadata.leadership.clone(),
                self.controllers.clone(),
                timeout,
                CONTROLLER_CALL_MAX,
                self.peers.clone(),
            )
            .with_link(self.links.controller.clone()),
        )
    }

    /// Registers this broker with its online log dirs (a dir that cannot be read is offline from
    /// the start and left out, as Kafka registers only its online dirs), starts its heartbeats,
    /// and waits until this incarnation is unfenced in this node's image, which then holds every
    /// record committed before the registration.
    async fn register(
        &mut self,
        channel: &Arc<dyn ControllerChannel>,
        metadata: &Metadata,
        metadata_failed: &mut Halt,
    ) -> Result<Registered, NodeError> {
        let config = &self.config;
        let dirs = log_dir_ids(config)?;
        if dirs.iter().all(|(_, id)| id.is_none()) {
            return Err(NodeError::LogDirsFailed(config.log_dirs.clone()));
        }
        let listeners = listeners::bind_listeners(config).await?;
        let online_ids: Vec<Uuid> = dirs.iter().filter_map(|(_, id)| *id).collect();
        let previous_epoch = previous_broker_epoch(&dirs);
        info!(
            "Strand node {}: registering with the active controller (previous broker epoch {previous_epoch})",
            self.node.0
        );
        let broker_epoch = tokio::select! {
            registered = register(config, channel.as_ref(), &listeners, online_ids, previous_epoch) => registered?,
            failure = &mut *metadata_failed => return Err(failure),
        };
        let heartbeat = Duration::from_millis(config.broker_heartbeat_interval_ms.max(1) as u64);
        let (offline_tx, offline_rx) = watch::channel(Vec::new());
        if !config.is_sole_voter() {
            let image = metadata.image_rx.clone();
            let beat = heartbeat_forever(channel.clone(), image, offline_rx, self.node, broker_epoch, heartbeat);
            self.tasks.spawn(HEARTBEATS, beat);
        }
        let node = self.node;
        let unfenced = |image: &Arc<MetadataImage>| {
            image.cluster().broker(node).is_some_and(|b| b.epoch == broker_epoch && !b.fenced)
        };
        info!("Strand node {}: registered with broker epoch {broker_epoch}, waiting to be unfenced", node.0);
        let mut published = metadata.image_rx.clone();
        tokio::select! {
            waited = published.wait_for(unfenced) => {
                waited.map_err(|_| NodeError::Startup("the metadata replay stopped".into()))?;
            }
            failure = &mut *metadata_failed => {
                self.tasks.stop_named(HEARTBEATS);
                return Err(failure);
            }
        }
        Ok(Registered { broker_epoch, listeners, dirs, heartbeat, offline_tx })
    }

    /// Opens the partition logs (recovering them after a crash), the replica manager and the
    /// coordinators, and hands them to the metadata replay, which hosts this node's partitions
    /// before this returns.
    async fn host(
        &mut self,
        channel: &Arc<dyn ControllerChannel>,
        metadata: &Metadata,
        registered: &Registered,
    ) -> Result<Hosted, NodeError> {
        let (config, node, epoch) = (&self.config, self.node, registered.broker_epoch);
        let identity = NodeIdentity { cluster_id: self.cluster_id.clone(), node_id: node.0 };
        let logs = LogManager::open(&config.log_dirs, &identity, config.log_config(), self.clock.clone())?;
        // A dir that cannot be read or loaded is offline from the start (logged once, by the log
        // manager); the node runs on the others, unless none is left or the metadata log's is one.
        let offline = logs.offline_dirs();
        if offline.len() == config.log_dirs.len() || offline.contains(&config.metadata_log_dir) {
            self.tasks.stop();
            return Err(NodeError::LogDirsFailed(offline));
        }
        let request_max = Duration::from_millis(config.controller_quorum_request_timeout_ms.max(1) as u64);
        let request_timeout = Duration::from_millis(config.request_timeout_ms.max(1) as u64);
        let image = &metadata.image_rx;
        let inter_broker = &config.inter_broker_listener_name;
        let tls = self.links.inter_broker.clone();
        let links = ReplicaLinks {
            transport: Arc::new(BrokerFetchTransport::new(
                image.clone(),
                inter_broker.clone(),
                request_max,
                Duration::from_millis(
                    (config.replica_fetch_wait_max_ms.max(0) + config.replica_socket_timeout_ms.max(1)) as u64,
                ),
                self.peers.clone(),
                self.links.inter_broker.clone(),
            )),
            isr_channel: Arc::new(ControllerIsrChannel::new(channel.clone(), node, epoch)),
        };
        let replicas = Arc::new(
            ReplicaManager::with_config(logs, config.replication_config(), links, self.clock.clone())
                .map_err(|e| NodeError::Startup(format!("replication: {e}")))?,
        );
        // A move between log dirs a stop or a crash interrupted goes on (Kafka keeps `-future` logs).
        replicas.resume_log_dir_moves();
        let txn_verifier = Arc::new(CoordinatorTxnVerifier::new(
            image.clone(),
            inter_broker.clone(),
            request_max,
            request_timeout,
            tls.clone(),
        ));
        let share_persister = Arc::new(CoordinatorSharePersister::new(
            image.clone(),
            inter_broker.clone(),
            request_max,
            request_timeout,
            tls.clone(),
        ));
        let dead_letter_writer = Arc::new(ProduceDeadLetterWriter::new(
            image.clone(),
            inter_broker.clone(),
            request_max,
            request_timeout,
            tls.clone(),
        ));
        let share_states = Arc::new(ShareCoordinator::new(
            Arc::new(ReplicaPartitionWriter::new(replicas.clone(), image.clone(), node)),
            self.clock.clone(),
        ));
        // TxnOffsetCommit's transactional batches are verified with the transaction coordinator.
        let group_writer = ReplicaPartitionWriter::new(replicas.clone(), image.clone(), node)
            .with_txn_verifier(txn_verifier.clone(), self.clock.clone());
        let groups = Arc::new(GroupCoordinator::new(
            config.group_config(),
            Arc::new(group_writer),
            self.clock.clone(),
            Arc::new(RandomMemberIds),
        ));
        let producer_ids = Arc::new(ControllerProducerIds::new(channel.clone(), node, epoch));
        let marker_sender = Arc::new(LeaderTxnMarkerSender::new(
            image.clone(),
            inter_broker.clone(),
            request_max,
            request_timeout,
            tls,
        ));
        let transactions = Arc::new(TxnCoordinator::new(
            config.txn_config(),
            Arc::new(ReplicaPartitionWriter::new(replicas.clone(), image.clone(), node)),
            self.clock.clone(),
            producer_ids,
            marker_sender,
        ));
        let publisher = BrokerMetadataPublisher::new(
            node,
            replicas.clone(),
            static_topic_configs(config),
            config.log_config().producer_state,
        )
        .with_log_dirs(registered.dirs.clone())
        .with_groups(groups.clone())
        .with_transactions(transactions.clone())
        .with_share_states(share_states.clone());
        let (reconciled_tx, reconciled) = oneshot::channel();
        let handoff = Handoff { hosts: publisher, reconciled: reconciled_tx };
        if metadata.handoff_tx.send(handoff).await.is_err() || reconciled.await.is_err() {
            return Err(NodeError::Startup("the metadata replay stopped".into()));
        }
        Ok(Hosted { replicas, groups, transactions, txn_verifier, share_states, share_persister, dead_letter_writer })
    }

    /// The broker's loops (ISR shrinking, checkpoints, retention, producer expiry, the cleaner,
    /// the log dirs' watcher and assigner); returns what the watcher notifies once every log
    /// dir or the metadata log's failed.
    fn start_broker_tasks(
        &mut self,
        channel: &Arc<dyn ControllerChannel>,
        metadata: &Metadata,
        registered: &Registered,
        hosted: &Hosted,
    ) -> Arc<tokio::sync::Notify> {
        let (config, replicas) = (&self.config, &hosted.replicas);
        let millis = |ms: i64| Duration::from_millis(u64::try_from(ms).unwrap_or(1).max(1));
        let shrink =
            shrink_isr_forever(replicas.clone(), self.clock.clone(), millis(config.replica_lag_time_max_ms / 2));
        self.tasks.spawn("ISR shrinking", shrink);
        let checkpoints = millis(config.replica_high_watermark_checkpoint_interval_ms);
        self.tasks.spawn("high-watermark checkpoints", checkpoint_forever(replicas.clone(), checkpoints));
        let retention = millis(config.log_retention_check_interval_ms);
        self.tasks.spawn("retention", retention_forever(replicas.clone(), retention));
        self.tasks.spawn("delayed delivery", deliver_delayed_forever(replicas.clone()));
        let expiration = millis(i64::from(config.producer_id_expiration_check_interval_ms));
        self.tasks.spawn("producer expiry", expire_producers_forever(replicas.clone(), expiration));
        if config.log_cleaner_enable {
            self.tasks.spawn("log cleaner", compaction_forever(replicas.clone(), config.clone()));
        }
        let all_dirs_failed = Arc::new(tokio::sync::Notify::new());
        let watching = watch_log_dirs_forever(
            replicas.clone(),
            registered.dirs.clone(),
            config.metadata_log_dir.clone(),
            registered.offline_tx.clone(),
            all_dirs_failed.clone(),
        );
        self.tasks.spawn("log dir watcher", watching);
        if registered.dirs.len() > 1 {
            // With one dir the controller places every replica in it itself.
            let dirs = registered.dirs.iter().filter_map(|(path, id)| Some((path.clone(), (*id)?))).collect();
            let (node, broker_epoch) = (self.node, registered.broker_epoch);
            let assigning = DirAssigner { channel: channel.clone(), node, broker_epoch, dirs };
            let assign = assigning.assign_forever(metadata.image_rx.clone(), replicas.clone(), registered.heartbeat);
            self.tasks.spawn("log dir assigner", assign);
        }
        all_dirs_failed
    }

    /// Builds the request handlers, hands them to `self.served`, and accepts clients on every broker
    /// listener.
    fn serve(
        &mut self,
        clients: ClientConnections,
        channel: &Arc<dyn ControllerChannel>,
        metadata: &Metadata,
        listeners: Vec<(String, SocketAddr, TcpListener)>,
        broker_epoch: i64,
        hosted: &Hosted,
    ) -> Arc<Broker> {
        let listener_name = listeners.first().map(|(name, _, _)| name.clone()).unwrap_or_default();
        let identity =
            BrokerIdentity { node_id: self.node, cluster_id: self.cluster_id.clone(), listener_name, broker_epoch };
        // Every TLS context of the node, served or dialled, follows its listener's dynamic stores.
        let links = [self.links.controller.tls.clone(), self.links.inter_broker.tls.clone()].into_iter().flatten();
        let tls = clients.tls_listeners().into_iter().chain(links).collect();
        let config = Arc::new(self.config.clone());
        let dynamic_tls = DynamicTls::new(config, self.node, tls, metadata.image_rx.clone());
        self.tasks.spawn("TLS reconfiguration", dynamic_tls.clone().apply_forever());
        let mut broker = Broker::new(
            identity,
            broker_settings(&self.config),
            metadata.image_rx.clone(),
            hosted.replicas.clone(),
            hosted.groups.clone(),
            channel.clone(),
            self.clock.clone(),
        )
        .with_txn_coordinator(hosted.transactions.clone())
        .with_txn_verifier(hosted.txn_verifier.clone())
        .with_share_coordinator(hosted.share_states.clone())
        .with_share_persister(hosted.share_persister.clone())
        .with_dead_letter_writer(hosted.dead_letter_writer.clone())
        .with_reconfiguration(Arc::new(dynamic_tls));
        if let Some(settings) = &self.config.authorizer {
            let image = metadata.image_rx.clone();
            broker =
                broker.with_authorizer(Arc::new(ImageAuthorizer::new(image, settings.clone(), self.clock.clone())));
        }
        if let Some(settings) = self.config.delegation_tokens.clone() {
            broker = broker.with_delegation_tokens(settings);
        }
        let broker = Arc::new(broker);
        // Before the start-up line: whoever saw it may use the gateway at once.
        self.served.set(&broker);
        for (name, address, listener) in listeners {
            let http = self.config.http.listeners.iter().map(|l| format!(", metrics at {l}/metrics, REST at {l}/v3"));
            info!(
                "Strand node {} listening on {name}://{address}, data in {:?}, cluster id {}{}",
                self.node.0,
                self.config.log_dirs,
                self.cluster_id,
                http.collect::<String>()
            );
            self.tasks.spawn("client listener", clients.clone().accept_forever(listener, name, broker.clone()));
        }
        broker
    }
}

/// The name the metadata replay runs under.
const METADATA_REPLAY: &str = "metadata replay";

/// Resolves with the error once this node's metadata log failed ([`Quorum::failed`], which logged
/// it); never without a quorum (an observer keeps no metadata log).
async fn metadata_log_failure(quorum: Option<Arc<Quorum>>) -> NodeError {
    match quorum {
        Some(quorum) => NodeError::MetadataLogFailed(quorum.failed().await),
        None => std::future::pending().await,
    }
}

/// The longest a request to the active controller may take, retries at new leaders included.
const CONTROLLER_CALL_MAX: Duration = Duration::from_secs(30);

/// The controller's settings from the node's: CreateTopics defaults, the broker session, and
/// the records a new cluster starts with: those `strand storage format` wrote into
/// `bootstrap.checkpoint` (features, `--add-scram` credentials), or the default features.
fn controller_settings(
    config: &ServerConfig,
    cluster_id: &str,
    sole_voter: bool,
) -> Result<ControllerSettings, NodeError> {
    let file = strand_metadata::quorum::read_bootstrap(&config.metadata_log_dir)?;
    let initial_voters = file.as_ref().and_then(|file| file.dynamic_voters.as_ref()).map(|v| v.ids().collect());
    let mut bootstrap = match file {
        Some(file) => {
            file.records.into_iter().map(|(record, version)| ApiMessageAndVersion { record, version }).collect()
        }
        None => bootstrap_records(&BootstrapFeatures::default()),
    };
    // Kafka 4.4 writes the cluster-wide min.insync.replicas (its ELR needs one); a one-node
    // Strand does too, so Kafka's tools describe it alike. A cluster does not: there a topic of
    // three or more replicas gets min.insync.replicas=2 of its own unless the operator chose a
    // value (design §6), which a bootstrapped cluster default would count as chosen.
    if sole_voter {
        bootstrap.push(cluster_min_isr(config));
    }
    Ok(ControllerSettings {
        cluster_id: cluster_id.to_owned(),
        defaults: broker_settings(config).controller_defaults,
        session_timeout_ms: i64::from(config.broker_session_timeout_ms),
        bootstrap,
        unfence_on_registration: sole_voter,
        node_id: config.node_id,
        voters: initial_voters.unwrap_or_else(|| config.controller_quorum_voters.iter().map(|v| v.id).collect()),
    })
}

mod listeners;
mod quorum;
#[cfg(test)]
mod tests;
