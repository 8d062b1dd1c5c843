//! The node's background loops, one function each, and [`Tasks`], the one way they are started
//! (each under a name) and stopped (all together, at shutdown or a halt).
//!
//! Broker loops: heartbeats, ISR shrinking, high-watermark checkpoints, retention, the cleaner,
//! producer expiry, delayed delivery. Controller loops: leadership logging, session expiry, leader balancing.
//! The log dirs' watcher and assigner live in `log_dirs`, the listeners in `connection`; they
//! are started through [`Tasks`] too.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use strand_base::{BrokerId, Clock, Uuid};
use strand_broker::{ControllerChannel, call_controller};
use strand_metadata::image::MetadataImage;
use strand_metadata::quorum::Leadership;
use strand_metadata::quorum_controller::QuorumController;
use strand_protocol::codec::Message;
use strand_protocol::messages::BrokerHeartbeatRequest;
use strand_replication::{PassReport, ReplicaManager};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tracing::{debug, error, info, warn};

use crate::config::ServerConfig;

/// The node's running background tasks, by name.
#[derive(Debug, Default)]
pub(crate) struct Tasks {
    running: Vec<(&'static str, JoinHandle<()>)>,
}

impl Tasks {
    /// Starts `task` under `name` (for the logs).
    pub(crate) fn spawn(&mut self, name: &'static str, task: impl Future<Output = ()> + Send + 'static) {
        debug!("starting the {name} task");
        self.running.push((name, tokio::spawn(task)));
    }

    /// Stops the tasks named `name` at their next await; whether there was one.
    pub(crate) fn stop_named(&self, name: &str) -> bool {
        let mut found = false;
        for (_, task) in self.running.iter().filter(|(running, _)| *running == name) {
            debug!("stopping the {name} task");
            task.abort();
            found = true;
        }
        found
    }

    /// Stops every task at its next await.
    pub(crate) fn stop(&self) {
        for (name, task) in &self.running {
            debug!("stopping the {name} task");
            task.abort();
        }
    }
}

/// Says when this node becomes the active controller, and when it stops being it.
pub(crate) async fn log_leadership(mut leadership: watch::Receiver<Leadership>, node_id: i32) {
    let mut active = false;
    loop {
        let now = *leadership.borrow_and_update();
        let leads = now.leader_id == Some(node_id);
        if leads != active {
            active = leads;
            match leads {
                true => info!("node {node_id} is the active controller (leader epoch {})", now.epoch),
                false => info!("node {node_id} is no longer the active controller (leader epoch {})", now.epoch),
            }
        }
        if leadership.changed().await.is_err() {
            return;
        }
    }
}

/// Fences brokers whose sessions expired, while this node is the active controller (Kafka
/// checks every few hundred milliseconds; here an eighth of the session timeout).
pub(crate) async fn expire_sessions_forever(controller: Arc<QuorumController>, interval: Duration) {
    loop {
        tokio::time::sleep(interval).await;
        if let Err(e) = controller.expire_sessions().await {
            warn!("could not expire broker sessions: {e}");
        }
    }
}

/// Removes expired delegation tokens every `delegation.token.expiry.check.interval.ms`, while
/// this node is the active controller.
pub(crate) async fn expire_tokens_forever(controller: Arc<QuorumController>, interval: Duration) {
    loop {
        tokio::time::sleep(interval).await;
        match controller.expire_delegation_tokens().await {
            Ok(0) => {}
            Ok(removed) => info!("removed {removed} expired delegation tokens"),
            Err(e) => warn!("could not remove expired delegation tokens: {e}"),
        }
    }
}

/// Moves leaderships back to preferred replicas (and elects leaders where unclean election is
/// allowed) every `leader.imbalance.check.interval.seconds`, while this node is the active
/// controller.
pub(crate) async fn balance_leaders_forever(controller: Arc<QuorumController>, interval: Duration) {
    loop {
        tokio::time::sleep(interval).await;
        match controller.balance_leaders().await {
            Ok(0) => {}
            Ok(moved) => info!("moved the leadership of {moved} partitions to their preferred replicas"),
            Err(e) => warn!("could not balance leaders: {e}"),
        }
    }
}

/// How soon a starting broker heartbeats again while the controller still has it fenced (Kafka's
/// `BrokerLifecycleManager` uses the same 10 ms while STARTING, so a broker is unfenced as soon
/// as it has caught up rather than a whole heartbeat interval later).
pub(crate) const STARTING_HEARTBEAT: Duration = Duration::from_millis(10);

/// Heartbeats to the active controller every `broker.heartbeat.interval.ms`, reporting how far
/// this node's metadata has come (the controller unfences a broker that has caught up) and the
/// ids of its offline log dirs (at once when one goes offline, as Kafka's
/// `propagateDirectoryFailure`); until the controller first unfences this incarnation, every
/// [`STARTING_HEARTBEAT`].
pub(crate) async fn heartbeat_forever(
    channel: Arc<dyn ControllerChannel>,
    image: watch::Receiver<Arc<MetadataImage>>,
    mut offline_dirs: watch::Receiver<Vec<Uuid>>,
    broker_id: BrokerId,
    broker_epoch: i64,
    interval: Duration,
) {
    let mut starting = true;
    loop {
        let request = BrokerHeartbeatRequest {
            broker_id,
            broker_epoch,
            current_metadata_offset: image.borrow().provenance().offset,
            offline_log_dirs: offline_dirs.borrow_and_update().clone(),
            ..Default::default()
        };
        let version = <BrokerHeartbeatRequest as Message>::VERSIONS.max;
        let next = match call_controller(channel.as_ref(), &request, version).await {
            Ok((response, _)) if response.error_code != 0 => {
                warn!("heartbeat refused by the controller: error {}", response.error_code);
                interval
            }
            Ok((response, _)) => {
                starting &= response.is_fenced;
                if starting { STARTING_HEARTBEAT.min(interval) } else { interval }
            }
            Err(e) => {
                warn!("heartbeat failed: {e}");
                interval
            }
        };
        // A newly offline dir is reported at once; a closed channel (the node stopping) waits.
        tokio::select! {
            () = tokio::time::sleep(next) => {}
            Ok(()) = offline_dirs.changed() => {}
        }
    }
}

/// Drops followers that stopped keeping up from the ISRs of the partitions this node leads,
/// every half `replica.lag.time.max.ms` (as Kafka's `isr-expiration` task).
pub(crate) async fn shrink_isr_forever(replicas: Arc<ReplicaManager>, clock: Arc<dyn Clock>, interval: Duration) {
    loop {
        tokio::time::sleep(interval).await;
        let proposed = replicas.maybe_shrink_isr(clock.now_ms());
        if proposed > 0 {
            info!("proposed smaller ISRs for {proposed} partitions");
        }
    }
}

/// The shortest pause between two delayed-delivery passes while due records wait (for their
/// replication, or a leader's next turn): the delivery lateness this adds at most.
const DELIVERY_PASS_PAUSE_MIN: Duration = Duration::from_millis(5);
/// The longest pause between passes with nothing noted.
const DELIVERY_PASS_PAUSE_MAX: Duration = Duration::from_secs(1);

/// Delayed delivery (ARCHITECTURE.md): appends the due records of the partitions this node
/// leads, waking at the next due time or when a pending batch is appended.
pub(crate) async fn deliver_delayed_forever(replicas: Arc<ReplicaManager>) {
    loop {
        let on = replicas.clone();
        let pass = match tokio::task::spawn_blocking(move || on.deliver_delayed()).await {
            Ok(pass) => pass,
            Err(e) => {
                warn!("the delayed-delivery pass failed: {e}");
                strand_replication::DeliveryPass::default()
            }
        };
        if pass.delivered > 0 {
            debug!("delivered {} delayed records", pass.delivered);
        }
        let pause = pass.next_due.map_or(DELIVERY_PASS_PAUSE_MAX, |due| {
            let until = Duration::from_millis(u64::try_from(due.saturating_sub(pass.now)).unwrap_or(0));
            // A backlog being delivered goes on at once; otherwise wait for the due time, or a
            // moment for what waits on replication.
            match pass.delivered > 0 && due <= pass.now + 1 {
                true => Duration::ZERO,
                false => until.clamp(DELIVERY_PASS_PAUSE_MIN, DELIVERY_PASS_PAUSE_MAX),
            }
        });
        tokio::select! {
            () = tokio::time::sleep(pause) => {}
            () = replicas.delayed_noted() => {}
        }
    }
}

/// Writes the high watermarks every `replica.high.watermark.checkpoint.interval.ms`, so a restart
/// resumes from recent ones.
pub(crate) async fn checkpoint_forever(replicas: Arc<ReplicaManager>, interval: Duration) {
    loop {
        tokio::time::sleep(interval).await;
        let on = replicas.clone();
        match tokio::task::spawn_blocking(move || on.checkpoint_high_watermarks()).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => warn!("could not checkpoint the high watermarks: {e}"),
            Err(e) => warn!("the high watermark checkpoint task failed: {e}"),
        }
    }
}

/// Compacts the hosted compacted partitions that are due, pausing `log.cleaner.backoff.ms`
/// between passes (Kafka's cleaner thread, one here: `log.cleaner.threads` is refused unless 1).
pub(crate) async fn compaction_forever(replicas: Arc<ReplicaManager>, config: ServerConfig) {
    let cleaner = strand_log::cleaner::CleanerConfig {
        dedupe_buffer_bytes: usize::try_from(config.log_cleaner_dedupe_buffer_size).unwrap_or(usize::MAX),
        dedupe_buffer_load_factor: config.log_cleaner_io_buffer_load_factor,
    };
    let backoff = Duration::from_millis(u64::try_from(config.log_cleaner_backoff_ms).unwrap_or(0).max(1));
    maintain_forever(replicas, backoff, "compaction", move |replicas| {
        let report = replicas.apply_compaction(cleaner);
        let (read, written) =
            report.changed.iter().fold((0, 0), |(r, w), (_, s)| (r + s.bytes_read, w + s.bytes_written));
        let abandoned = report.changed.iter().filter(|(_, s)| s.abandoned).count();
        let summary = format!(
            "compacted {} partitions: {read} bytes read, {written} written ({abandoned} passes abandoned: their \
             logs changed under them)",
            report.changed.len()
        );
        (report, summary)
    })
    .await
}

/// Applies retention to every hosted partition every `log.retention.check.interval.ms`.
pub(crate) async fn retention_forever(replicas: Arc<ReplicaManager>, interval: Duration) {
    maintain_forever(replicas, interval, "retention", |replicas| {
        let report = replicas.apply_retention();
        let deleted: usize = report.changed.iter().map(|(_, n)| n).sum();
        let summary = format!("retention deleted {deleted} segments of {} partitions", report.changed.len());
        (report, summary)
    })
    .await
}

/// Forgets idle producers every `producer.id.expiration.check.interval.ms`.
pub(crate) async fn expire_producers_forever(replicas: Arc<ReplicaManager>, interval: Duration) {
    maintain_forever(replicas, interval, "producer expiration", |replicas| {
        let report = replicas.remove_expired_producers();
        let removed: usize = report.changed.iter().map(|(_, n)| n).sum();
        let summary = format!("expired {removed} idle producers of {} partitions", report.changed.len());
        (report, summary)
    })
    .await
}

/// Runs a maintenance pass off the async threads every `interval` (after the previous one
/// ends), logging a summary when it changed something and every partition it failed on.
pub(crate) async fn maintain_forever<T: Send + 'static>(
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
