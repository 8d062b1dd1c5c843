//! Running a node: the metadata quorum, the metadata image it feeds, the partition logs, the
//! broker's listeners, and a clean shutdown on SIGTERM or SIGINT.
//!
//! Startup order: open the quorum (a lone voter elects itself and commits its log), replay the
//! committed records into the image, bootstrap the cluster's features on first start, register
//! this broker, open the partition logs (recovering them after a crash), host the partitions this
//! node leads, then accept connections. Every later metadata change flows the same way: committed
//! records are replayed into a new image, the hosted partitions are reconciled with it, and only
//! then is the image published to the request handlers.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use strand_base::{BrokerId, Clock, SystemClock, TopicPartition, Uuid};
use strand_broker::handlers::find_coordinator::OFFSETS_TOPIC;
use strand_broker::{BoxFuture, Broker, BrokerIdentity, BrokerSettings, MetadataWriter, OffsetsTopicSettings};
use strand_coordinator::{GroupCoordinator, RandomMemberIds, TopicMetadata};
use strand_log::{LogManager, NodeIdentity};
use strand_metadata::controller::{
    ApiMessageAndVersion, BootstrapFeatures, ControllerDefaults, InitialFencing, PreviousSession, RegisterBrokerInputs,
    bootstrap_records, register_broker,
};
use strand_metadata::image::{MetadataDelta, MetadataImage, MetadataProvenance};
use strand_metadata::quorum::{CommittedBatch, Quorum};
use strand_protocol::messages::BrokerRegistrationRequest;
use strand_protocol::messages::broker_registration_request::{Feature, Listener};
use strand_replication::{PassReport, ReplicaManager};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};
use tracing::{error, info, warn};

use crate::config::{ServerConfig, TimestampType};
use crate::connection::{self, ConnectionLimits};
use crate::group_writer::ReplicaPartitionWriter;

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
}

/// The features this broker supports, registered with the controller; ApiVersions reports the
/// same ranges.
const SUPPORTED_FEATURES: &[(&str, i16, i16)] =
    &[("group.version", 0, 1), ("kraft.version", 0, 1), ("metadata.version", 7, 33), ("transaction.version", 0, 2)];

/// Runs a node until SIGTERM or SIGINT, then shuts it down cleanly.
pub async fn run(config: ServerConfig) -> Result<(), NodeError> {
    let shutdown = async {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        Ok::<(), std::io::Error>(())
    };
    run_until(config, shutdown).await
}

/// Runs a node until `shutdown` resolves.
pub async fn run_until(
    config: ServerConfig,
    shutdown: impl std::future::Future<Output = std::io::Result<()>>,
) -> Result<(), NodeError> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let cluster_id = config.cluster_id.clone().ok_or_else(|| NodeError::Startup("no cluster.id".into()))?;
    let node_id = config.node_id;
    let metadata_dir = config.metadata_log_dir.join("__cluster_metadata-0");
    let quorum_config = strand_metadata::quorum::QuorumConfig::lone_voter(node_id, &cluster_id);
    let lone_transport = Arc::new(strand_metadata::quorum::LoneVoterTransport);
    let quorum = Arc::new(Quorum::open(&metadata_dir, quorum_config, lone_transport, clock.clone()).await?);
    let writer: Arc<dyn MetadataWriter> = Arc::new(QuorumWriter(quorum.clone()));

    let mut committed = quorum.subscribe(0);
    let mut image = MetadataImage::empty();
    catch_up(&mut committed, &mut image, quorum.high_watermark()).await?;
    if image.features().metadata_version().is_none() {
        let mut records = bootstrap_records(&BootstrapFeatures::default());
        records.push(cluster_min_isr(&config));
        let offset = write(&quorum, records).await?;
        catch_up(&mut committed, &mut image, offset + 1).await?;
    }
    let listeners = bind_listeners(&config).await?;
    let broker_epoch = register(&config, &quorum, &mut committed, &mut image, &listeners).await?;

    let identity = NodeIdentity { cluster_id: cluster_id.clone(), node_id };
    let logs = LogManager::open(&config.log_dirs, &identity, config.log_config(), clock.clone())?;
    let replicas = Arc::new(ReplicaManager::new(logs, config.log_flush_on_acks_all));
    let image = Arc::new(image);
    let (image_tx, image_rx) = watch::channel(image.clone());
    let group_writer = ReplicaPartitionWriter::new(replicas.clone(), image_rx.clone(), BrokerId(node_id));
    let groups = Arc::new(GroupCoordinator::new(
        config.group_config(),
        Arc::new(group_writer),
        clock.clone(),
        Arc::new(RandomMemberIds),
    ));
    let hosts =
        Hosts { replicas: replicas.clone(), groups: groups.clone(), config: config.clone(), node: BrokerId(node_id) };
    hosts.reconcile(&image);
    let replay = tokio::spawn(replay_forever(committed, image_tx, hosts));
    let retention_interval =
        Duration::from_millis(u64::try_from(config.log_retention_check_interval_ms).unwrap_or(1).max(1));
    let retention = tokio::spawn(retention_forever(replicas.clone(), retention_interval));
    let compaction =
        config.log_cleaner_enable.then(|| tokio::spawn(compaction_forever(replicas.clone(), config.clone())));

    let listener_name = listeners.first().map(|(name, _, _)| name.clone()).unwrap_or_default();
    let broker = Arc::new(Broker::new(
        BrokerIdentity { node_id: BrokerId(node_id), cluster_id: cluster_id.clone(), listener_name, broker_epoch },
        broker_settings(&config),
        image_rx,
        replicas.clone(),
        groups.clone(),
        writer,
        clock,
    ));
    let limits = ConnectionLimits {
        request_bytes_max: config.socket_request_max_bytes as usize,
        idle_max: Duration::from_millis(config.connections_max_idle_ms.max(1) as u64),
    };
    let mut accepting = Vec::new();
    for (name, address, listener) in listeners {
        info!(
            "Strand node {node_id} listening on {name}://{address}, data in {:?}, cluster id {cluster_id}",
            config.log_dirs
        );
        accepting.push(tokio::spawn(accept_forever(listener, broker.clone(), limits)));
    }
    if let Err(e) = shutdown.await {
        warn!("waiting for a shutdown signal failed: {e}");
    }
    info!("shutting down");
    for task in &accepting {
        task.abort();
    }
    replay.abort();
    retention.abort();
    if let Some(compaction) = &compaction {
        compaction.abort();
    }
    drop(broker);
    groups.shutdown().await;
    drop(groups);
    shut_down(replicas, quorum, broker_epoch).await
}

async fn shut_down(replicas: Arc<ReplicaManager>, quorum: Arc<Quorum>, broker_epoch: i64) -> Result<(), NodeError> {
    // Connections still holding the replica manager finish their current request first.
    let replicas = wait_for_last_owner(replicas).await;
    if let Some(replicas) = replicas {
        replicas.shutdown(broker_epoch).map_err(|e| NodeError::Startup(e.to_string()))?;
    } else {
        warn!("requests still running at shutdown: partition logs are flushed but not marked clean");
    }
    if let Ok(quorum) = Arc::try_unwrap(quorum) {
        quorum.shutdown().await?;
    }
    info!("shut down cleanly");
    Ok(())
}

async fn wait_for_last_owner<T>(mut shared: Arc<T>) -> Option<T> {
    for _ in 0..100 {
        match Arc::try_unwrap(shared) {
            Ok(owned) => return Some(owned),
            Err(still_shared) => shared = still_shared,
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    None
}

async fn bind_listeners(config: &ServerConfig) -> Result<Vec<(String, SocketAddr, TcpListener)>, NodeError> {
    let mut bound = Vec::new();
    for endpoint in config.listeners.iter().filter(|l| !config.controller_listener_names.contains(&l.listener_name)) {
        let host = if endpoint.host.is_empty() { "0.0.0.0" } else { endpoint.host.as_str() };
        let listener = TcpListener::bind((host, endpoint.port))
            .await
            .map_err(|e| NodeError::Startup(format!("cannot listen on {host}:{}: {e}", endpoint.port)))?;
        let address = listener.local_addr()?;
        bound.push((endpoint.listener_name.clone(), address, listener));
    }
    if bound.is_empty() {
        return Err(NodeError::Startup("no broker listener in `listeners`".into()));
    }
    Ok(bound)
}

/// The cluster-level `min.insync.replicas` a Kafka 4.4 cluster is formatted with (KIP-966 needs one
/// cluster-wide value), from the static setting, so tools show it as Kafka's do.
fn cluster_min_isr(config: &ServerConfig) -> ApiMessageAndVersion {
    ApiMessageAndVersion::latest(strand_protocol::messages::records::MetadataRecord::ConfigRecord(
        strand_protocol::messages::ConfigRecord {
            resource_type: strand_metadata::image::ConfigResourceKind::Broker.wire(),
            resource_name: String::new(),
            name: "min.insync.replicas".into(),
            value: Some(config.min_insync_replicas.to_string()),
            ..Default::default()
        },
    ))
}

/// Registers this broker (unfenced at once: a lone voter is its own controller and only broker).
async fn register(
    config: &ServerConfig,
    quorum: &Quorum,
    committed: &mut mpsc::Receiver<CommittedBatch>,
    image: &mut MetadataImage,
    bound: &[(String, SocketAddr, TcpListener)],
) -> Result<i64, NodeError> {
    let listeners = config
        .advertised_broker_listeners()
        .map(|endpoint| {
            let bound_port =
                bound.iter().find(|(name, _, _)| *name == endpoint.listener_name).map(|(_, a, _)| a.port());
            Listener {
                name: endpoint.listener_name.clone(),
                host: if endpoint.host.is_empty() { "localhost".into() } else { endpoint.host.clone() },
                port: if endpoint.port == 0 { bound_port.unwrap_or(0) } else { endpoint.port },
                security_protocol: 0,
                ..Default::default()
            }
        })
        .collect();
    let request = BrokerRegistrationRequest {
        broker_id: BrokerId(config.node_id),
        cluster_id: config.cluster_id.clone().unwrap_or_default(),
        incarnation_id: incarnation_id(),
        listeners,
        features: SUPPORTED_FEATURES
            .iter()
            .map(|&(name, min, max)| Feature {
                name: name.into(),
                min_supported_version: min,
                max_supported_version: max,
                ..Default::default()
            })
            .collect(),
        log_dirs: directory_ids(config)?,
        previous_broker_epoch: -1,
        ..Default::default()
    };
    let inputs = RegisterBrokerInputs {
        cluster_id: config.cluster_id.clone().unwrap_or_default(),
        new_broker_epoch: quorum.high_watermark(),
        previous_session: PreviousSession::Expired,
        initial_fencing: InitialFencing::Unfenced,
    };
    let result = register_broker(image, &request, &inputs);
    if result.response.error_code != 0 {
        return Err(NodeError::Startup(format!(
            "broker registration failed with error {}",
            result.response.error_code
        )));
    }
    let offset = write(quorum, result.records).await?;
    catch_up(committed, image, offset + 1).await?;
    Ok(result.response.broker_epoch)
}

/// The directory ids `strand storage format` (or the first start) wrote into each log dir.
fn directory_ids(config: &ServerConfig) -> Result<Vec<Uuid>, NodeError> {
    let mut ids = Vec::new();
    for dir in &config.log_dirs {
        let meta = strand_log::dir::MetaProperties::read(dir)?;
        match meta.and_then(|m| m.directory_id) {
            Some(id) => ids.push(id),
            None => return Err(NodeError::Startup(format!("{} is not formatted (no directory.id)", dir.display()))),
        }
    }
    Ok(ids)
}

fn incarnation_id() -> Uuid {
    strand_broker::handlers::create_topics::random_topic_id()
}

async fn write(quorum: &Quorum, records: Vec<ApiMessageAndVersion>) -> Result<i64, NodeError> {
    Ok(quorum.append(records.into_iter().map(|r| (r.record, r.version)).collect()).await?)
}

/// Replays committed batches into `image` until it covers everything below `end`.
async fn catch_up(
    committed: &mut mpsc::Receiver<CommittedBatch>,
    image: &mut MetadataImage,
    end: i64,
) -> Result<(), NodeError> {
    while image.provenance().offset + 1 < end {
        let Some(batch) = committed.recv().await else {
            return Err(NodeError::Startup("the metadata quorum stopped".into()));
        };
        *image = apply(image, &batch)?;
    }
    Ok(())
}

fn apply(image: &MetadataImage, batch: &CommittedBatch) -> Result<MetadataImage, NodeError> {
    let mut delta = MetadataDelta::new(image);
    for (record, _) in &batch.records {
        delta.replay(record).map_err(|e| NodeError::Startup(format!("metadata replay: {e}")))?;
    }
    Ok(delta.apply(MetadataProvenance { offset: batch.last_offset, epoch: batch.epoch }))
}

/// Applies every committed batch, reconciles the hosted partitions, then publishes the image.
async fn replay_forever(
    mut committed: mpsc::Receiver<CommittedBatch>,
    images: watch::Sender<Arc<MetadataImage>>,
    hosts: Hosts,
) {
    while let Some(batch) = committed.recv().await {
        let current = images.borrow().clone();
        match apply(&current, &batch) {
            Ok(next) => {
                let next = Arc::new(next);
                hosts.reconcile(&next);
                images.send_replace(next);
            }
            Err(e) => {
                error!("stopping metadata replay: {e}");
                return;
            }
        }
    }
}

/// What a node hosts according to the metadata image: partition replicas, and the group
/// coordinator's shards (one per `__consumer_offsets` partition the node leads).
struct Hosts {
    replicas: Arc<ReplicaManager>,
    groups: Arc<GroupCoordinator>,
    config: ServerConfig,
    node: BrokerId,
}

impl Hosts {
    /// Brings what this node hosts in line with `image`: replicas first (a coordinator loads from
    /// its partition's log), then the coordinator's leaderships.
    fn reconcile(&self, image: &MetadataImage) {
        reconcile(&self.replicas, image, &self.config, self.node);
        let led: BTreeMap<i32, i32> = image
            .topics()
            .by_name(OFFSETS_TOPIC)
            .map(|topic| {
                topic
                    .partitions
                    .iter()
                    .filter(|(_, p)| p.leader == self.node)
                    .map(|(&index, p)| (index, p.leader_epoch))
                    .collect()
            })
            .unwrap_or_default();
        for partition in self.groups.partitions() {
            if !led.contains_key(&partition) {
                self.groups.resign(partition);
            }
        }
        for (&partition, &epoch) in &led {
            self.groups.become_leader(partition, epoch);
        }
        self.groups.on_metadata_update(topic_metadata(image));
    }
}

/// The topics as the group coordinator needs them (consumer groups subscribe by name, are assigned
/// by id): name, id and partition count of every topic, at the image's offset.
fn topic_metadata(image: &MetadataImage) -> TopicMetadata {
    let topics =
        image.topics().iter().map(|t| (t.name.clone(), t.id, i32::try_from(t.partitions.len()).unwrap_or(i32::MAX)));
    TopicMetadata::new(image.provenance().offset, topics)
}

/// Hosts every partition this node is a replica of in `image`, and deletes the logs of topics it
/// no longer has.
fn reconcile(replicas: &ReplicaManager, image: &MetadataImage, config: &ServerConfig, node: BrokerId) {
    for topic in image.topics().iter() {
        for (&index, partition) in &topic.partitions {
            if partition.replicas.contains(&node) {
                let tp = TopicPartition::new(topic.name.clone(), index);
                let log_config = topic_log_config(image, &topic.name, config.log_config());
                if let Err(e) = replicas.ensure_partition(&tp, topic.id, log_config) {
                    error!("cannot host {tp}: {e}");
                }
            }
        }
    }
    for tp in replicas.hosted() {
        let exists = image.topics().by_name(&tp.topic).is_some_and(|t| t.partitions.contains_key(&tp.partition));
        if !exists && let Err(e) = replicas.delete_partition(&tp) {
            error!("cannot delete {tp}: {e}");
        }
    }
}

/// The broker's log settings with the topic's own configs (CreateTopics, AlterConfigs) on top.
fn topic_log_config(image: &MetadataImage, topic: &str, defaults: strand_log::LogConfig) -> strand_log::LogConfig {
    use strand_metadata::image::ConfigResource;
    let Some(configs) = image.configs().resource(&ConfigResource::topic(topic)) else { return defaults };
    let number = |key: &str| configs.get(key).and_then(|v| v.parse::<i64>().ok());
    let mut config = defaults;
    if let Some(v) = number("segment.bytes") {
        config.segment_bytes = v.max(1) as u64;
    }
    if let Some(v) = number("segment.ms") {
        config.segment_ms = v;
    }
    if let Some(v) = number("segment.jitter.ms") {
        config.segment_jitter_ms = v;
    }
    if let Some(v) = number("segment.index.bytes") {
        config.segment_index_bytes = v.max(12) as u64;
    }
    if let Some(v) = number("index.interval.bytes") {
        config.index_interval_bytes = v.max(0) as u64;
    }
    if let Some(v) = number("flush.messages") {
        config.flush_interval_messages = v;
    }
    if let Some(v) = number("flush.ms") {
        config.flush_interval_ms = v;
    }
    if let Some(v) = number("retention.ms") {
        config.retention_ms = v;
    }
    if let Some(v) = number("retention.bytes") {
        config.retention_bytes = v;
    }
    if let Some(policy) = configs.get("cleanup.policy") {
        config.delete_enabled = policy.split(',').any(|p| p.trim() == "delete");
        config.compact_enabled = policy.split(',').any(|p| p.trim() == "compact");
    }
    if let Some(v) = number("delete.retention.ms") {
        config.delete_retention_ms = v;
    }
    if let Some(v) = number("min.compaction.lag.ms") {
        config.min_compaction_lag_ms = v;
    }
    config
}

/// Compacts the hosted compacted partitions that are due, pausing `log.cleaner.backoff.ms`
/// between passes (Kafka's cleaner thread, one here: `log.cleaner.threads` is accepted).
async fn compaction_forever(replicas: Arc<ReplicaManager>, config: ServerConfig) {
    let cleaner = strand_log::cleaner::CleanerConfig {
        dedupe_buffer_bytes: usize::try_from(config.log_cleaner_dedupe_buffer_size).unwrap_or(usize::MAX),
        dedupe_buffer_load_factor: config.log_cleaner_io_buffer_load_factor,
    };
    let backoff = Duration::from_millis(u64::try_from(config.log_cleaner_backoff_ms).unwrap_or(0).max(1));
    let ratio = config.log_cleaner_min_cleanable_ratio;
    maintain_forever(replicas, backoff, "compaction", move |replicas| {
        let report = replicas.apply_compaction(cleaner, ratio);
        let (read, written) =
            report.changed.iter().fold((0, 0), |(r, w), (_, s)| (r + s.bytes_read, w + s.bytes_written));
        let summary = format!("compacted {} partitions: {read} bytes read, {written} written", report.changed.len());
        (report, summary)
    })
    .await
}

/// Applies retention to every hosted partition every `log.retention.check.interval.ms`.
async fn retention_forever(replicas: Arc<ReplicaManager>, interval: Duration) {
    maintain_forever(replicas, interval, "retention", |replicas| {
        let report = replicas.apply_retention();
        let deleted: usize = report.changed.iter().map(|(_, n)| n).sum();
        let summary = format!("retention deleted {deleted} segments of {} partitions", report.changed.len());
        (report, summary)
    })
    .await
}

/// Runs a maintenance pass off the async threads every `interval` (after the previous one
/// ends), logging a summary when it changed something and every partition it failed on.
async fn maintain_forever<T: Send + 'static>(
    replicas: Arc<ReplicaManager>,
    interval: Duration,
    name: &'static str,
    pass: impl Fn(&ReplicaManager) -> (PassReport<T>, String) + Clone + Send + 'static,
) {
    loop {
        tokio::time::sleep(interval).await;
        let (run, on) = (pass.clone(), replicas.clone());
        let (report, summary) = match tokio::task::spawn_blocking(move || run(&on)).await {
            Ok(done) => done,
            Err(e) => {
                error!("the {name} pass failed: {e}");
                continue;
            }
        };
        if !report.changed.is_empty() {
            info!("{summary}");
        }
        for (tp, e) in &report.failed {
            error!("{name} failed for {tp}: {e}");
        }
        if let Some(e) = &report.checkpoint_failed {
            error!("could not write the checkpoints after {name}: {e}");
        }
    }
}

fn broker_settings(config: &ServerConfig) -> BrokerSettings {
    use crate::config::{ConfigSource, config_type, is_known_key, synonyms};
    use strand_metadata::controller::topic_configs::TOPIC_CONFIGS;

    // The keys that decide `key`, itself first (an unknown key decides only itself).
    let chain = |key: &str| -> Vec<String> {
        match synonyms(key) {
            [] => vec![key.to_owned()],
            keys => keys.iter().map(|k| (*k).to_owned()).collect(),
        }
    };
    let user_set =
        |key: &str| config.get(key).is_some_and(|e| matches!(e.source, ConfigSource::File | ConfigSource::Override));
    // A topic config's static default: its broker key (or a fallback of it) set in the file or
    // an override, in the topic config's units (`log.retention.hours` gives `retention.ms`).
    let static_topic_configs = TOPIC_CONFIGS
        .iter()
        .filter_map(|def| {
            let key = def.broker_synonym?;
            if !is_known_key(key) || !chain(key).iter().any(|k| user_set(k)) {
                return None;
            }
            let value = match key {
                "log.retention.ms" => config.log_retention_ms.to_string(),
                "log.roll.ms" => config.log_roll_ms.to_string(),
                "log.roll.jitter.ms" => config.log_roll_jitter_ms.to_string(),
                "log.flush.interval.ms" => config.log_flush_interval_ms.to_string(),
                _ => config.get(key)?.value.clone()?,
            };
            Some((def.name.to_owned(), value))
        })
        .collect();
    let broker_configs = config
        .entries
        .iter()
        .map(|(name, entry)| strand_broker::BrokerConfigEntry {
            name: name.clone(),
            value: entry.value.clone(),
            source: entry.source.kafka_id(),
            sensitive: entry.sensitive,
            synonyms: chain(name),
            config_type: config_type(name).map_or(0, |t| t.kafka_id()),
        })
        .collect();
    BrokerSettings {
        message_bytes_max: config.message_max_bytes.max(0) as usize,
        timestamp_rules: strand_broker::validation::TimestampRules {
            log_append_time: config.log_message_timestamp_type == TimestampType::LogAppendTime,
            before_max_ms: config.log_message_timestamp_before_max_ms,
            after_max_ms: config.log_message_timestamp_after_max_ms,
        },
        auto_create_topics: config.auto_create_topics_enable,
        controller_defaults: ControllerDefaults {
            num_partitions: config.num_partitions,
            default_replication_factor: i16::try_from(config.default_replication_factor).unwrap_or(i16::MAX),
            static_topic_configs,
        },
        delete_topic_enable: config.delete_topic_enable,
        broker_configs,
        fetch_session_slots: usize::try_from(config.max_incremental_fetch_session_cache_slots).unwrap_or(0),
        offsets_topic: OffsetsTopicSettings {
            partitions: config.offsets_topic_num_partitions,
            replication_factor: config.offsets_topic_replication_factor,
            segment_bytes: config.offsets_topic_segment_bytes,
        },
    }
}

/// Accepts connections and serves each on a task of its own. The connections belong to this
/// task: when it is aborted at shutdown they are aborted with it (dropping a `JoinSet` aborts its
/// tasks), so an idle client cannot keep the broker, and with it the logs, from closing cleanly.
/// An abort lands only at an await, never inside an append.
async fn accept_forever(listener: TcpListener, broker: Arc<Broker>, limits: ConnectionLimits) {
    let mut connections = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    connections.spawn(connection::serve(stream, peer, broker.clone(), limits));
                }
                Err(e) => {
                    warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            // Reap finished connections so the set holds only live ones.
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

/// Commits records through the quorum for the broker's handlers.
#[derive(Debug)]
struct QuorumWriter(Arc<Quorum>);

impl MetadataWriter for QuorumWriter {
    fn write(&self, records: Vec<ApiMessageAndVersion>) -> BoxFuture<'_, Result<i64, String>> {
        Box::pin(async move {
            self.0.append(records.into_iter().map(|r| (r.record, r.version)).collect()).await.map_err(|e| e.to_string())
        })
    }
}
