//! The one list of Kafka settings Strand knows (`keys.rs` validates them and DescribeConfigs
//! reports them) but does not act on: set by the operator to anything but Kafka's default, each is
//! refused at start-up with its reason, never silently ignored. An entry leaves the list when its
//! feature lands.
//!
//! Beside it, [`KNOBS`]: settings Kafka's KRaft mode ignores, and Kafka's internal tuning
//! settings with no behaviour a client or operator can observe (thread counts, buffer sizes and purge intervals of Kafka's own machinery). Kafka's
//! stock `server.properties` sets some of them, so they are accepted at any valid value; Strand
//! sizes its own machinery (ARCHITECTURE.md, differences).
//!
//! Kafka features switched on by keys outside the table (tiered storage) are refused here too:
//! the unknown-key warning alone would leave the operator believing they were on.

use super::keys::{self, Kind};
use super::{ConfigError, ConfigSource, ServerConfig};

/// The settings Strand does not implement, with why; each must stay at Kafka's default.
const UNIMPLEMENTED: &[(&str, &str)] = &[
    ("alter.config.policy.class.name", "config policies are Java plug-ins, which Strand cannot load"),
    ("create.topic.policy.class.name", "topic creation policies are Java plug-ins, which Strand cannot load"),
    (
        "group.coordinator.rebalance.protocols",
        "Strand serves the classic, consumer and streams protocols, always all three; share groups follow \
         share.version",
    ),
    ("group.streams.initial.rebalance.delay.ms", "a streams group's first assignment is computed at once"),
    ("group.streams.assignment.interval.ms", "a streams group's assignment is computed at once on every change"),
    ("group.streams.assignors", "streams groups are assigned by Strand's sticky task assignor only"),
    ("group.streams.num.warmup.replicas", "streams groups get no warm-up tasks"),
    ("group.streams.acceptable.recovery.lag", "streams groups get no warm-up tasks, so no lag is weighed"),
    ("group.streams.task.offset.interval.ms", "streams members' task offsets are not used by the assignor"),
    ("group.streams.rack.aware.assignment.tags", "the streams task assignor does not weigh client tags"),
    (
        "group.streams.topology.description.plugin.class",
        "topology description plug-ins are Java classes (and StreamsGroupTopologyDescriptionUpdate is not served)",
    ),
    ("controller.quorum.append.linger.ms", "Strand's quorum (openraft) appends each write at once"),
    ("controller.quorum.election.backoff.max.ms", "Strand's quorum draws its own election backoff"),
    ("controller.quorum.retry.backoff.ms", "Strand's quorum retries on its own schedule"),
    ("metadata.log.segment.bytes", "Strand's metadata log is purged by its snapshots, not by segments"),
    ("metadata.log.segment.ms", "Strand's metadata log is purged by its snapshots, not by segments"),
    (
        "metadata.max.retention.bytes",
        "Strand keeps the metadata log since its latest snapshot (metadata.log.max.record.bytes.between.snapshots)",
    ),
    (
        "metadata.max.retention.ms",
        "Strand keeps the metadata log since its latest snapshot (metadata.log.max.snapshot.interval.ms)",
    ),
    ("metadata.max.idle.interval.ms", "Strand's controller writes no idle (NoOpRecord) records"),
    ("initial.broker.registration.timeout.ms", "a Strand broker keeps trying to register until it stops"),
    ("early.start.listeners", "Strand starts every listener once the node can serve it"),
    ("log.dir.failure.timeout.ms", "a broker does not shut down when it cannot report a failed log directory"),
    ("offsets.commit.timeout.ms", "an offset commit waits for its write as long as the request allows"),
    ("offsets.topic.compression.codec", "__consumer_offsets is written uncompressed"),
    ("log.cleaner.threads", "Strand's log cleaner runs one cleaning at a time"),
    ("log.cleaner.io.max.bytes.per.second", "the log cleaner's I/O is not throttled"),
    ("compression.lz4.level", "LZ4 is compressed at Kafka's default level 9 only (lz4_flex's fast mode)"),
    ("replica.socket.receive.buffer.bytes", "replica fetches use the operating system's socket buffers"),
    ("group.share.assignors", "share groups are assigned by Kafka's simple assignor only"),
    ("group.share.assignment.interval.ms", "a share group's assignment is computed at once on every change"),
    (
        "group.share.persister.class.name",
        "share state is persisted by Strand's own share coordinator; persisters are Java plug-ins",
    ),
    (
        "group.share.dlq.manager.class.name",
        "dead-letter records are written by Strand's broker itself; DLQ managers are Java plug-ins",
    ),
    (
        "errors.deadletterqueue.auto.create.topics.enable",
        "dead-letter topics are not created automatically; create one with errors.deadletterqueue.group.enable=true",
    ),
    (
        "group.share.initialize.retry.interval.ms",
        "a share-partition's state is initialized by its leader when first fetched, not retried by the group coordinator",
    ),
    (
        "share.coordinator.snapshot.update.records.per.snapshot",
        "the share coordinator writes a ShareSnapshot every time",
    ),
    ("share.coordinator.write.timeout.ms", "a share state write waits as long as the leader's request.timeout.ms"),
    ("share.coordinator.state.topic.prune.interval.ms", "__share_group_state is not pruned yet"),
    (
        "share.coordinator.cold.partition.snapshot.interval.ms",
        "the share coordinator writes a ShareSnapshot every time",
    ),
];

/// Kafka's internal tuning settings, accepted at any valid value (see the module notes), and
/// `leader.imbalance.per.broker.percentage`, which Kafka's KRaft controller ignores too. Accepted
/// without a warning (Kafka's stock `server.properties` loads without one); the tests keep this
/// list and [`UNIMPLEMENTED`] apart.
#[cfg(test)]
const KNOBS: &[&str] = &[
    "leader.imbalance.per.broker.percentage",
    "background.threads",
    "num.recovery.threads.per.data.dir",
    "fetch.purgatory.purge.interval.requests",
    "producer.purgatory.purge.interval.requests",
    "delete.records.purgatory.purge.interval.requests",
    "offsets.load.buffer.size",
    "transaction.state.log.load.buffer.size",
    "log.cleaner.io.buffer.size",
    "log.flush.offset.checkpoint.interval.ms",
    "log.flush.start.offset.checkpoint.interval.ms",
    "group.share.assignor.offload.enable",
    "group.streams.assignor.offload.enable",
    "share.fetch.purgatory.purge.interval.requests",
    "share.coordinator.threads",
    "share.coordinator.load.buffer.size",
    "share.coordinator.append.linger.ms",
];

/// Kafka features switched on by a key Strand's table does not know: (key, the value that turns
/// the feature on, why it is refused).
const FEATURE_SWITCHES: &[(&str, &str, &str)] =
    &[("remote.log.storage.system.enable", "true", "tiered storage is not supported by Strand yet")];

/// Refuses the first setting the operator set that Strand would not act on.
pub(super) fn check(config: &ServerConfig) -> Result<(), ConfigError> {
    for (key, entry) in &config.entries {
        if !matches!(entry.source, ConfigSource::File | ConfigSource::Override) {
            continue;
        }
        let Some(value) = entry.value.as_deref() else { continue };
        if let Some((_, reason)) = UNIMPLEMENTED.iter().find(|(name, _)| name == key)
            && !is_default(key, value)
        {
            return Err(refusal(key, value, reason));
        }
        if let Some((_, on, reason)) = FEATURE_SWITCHES.iter().find(|(name, _, _)| name == key)
            && value.trim().eq_ignore_ascii_case(on)
        {
            return Err(refusal(key, value, reason));
        }
    }
    Ok(())
}

fn refusal(key: &str, value: &str, reason: &str) -> ConfigError {
    ConfigError::rule(
        key,
        format!("{key}={value} is not implemented: {reason}; remove the setting or set Kafka's default"),
    )
}

/// Whether `value` means the same as `key`'s Kafka default: numbers by value, lists as sets.
fn is_default(key: &str, value: &str) -> bool {
    let Some(def) = keys::lookup(key) else { return false };
    let Some(default) = def.default else { return false };
    let (value, default) = (value.trim(), default.trim());
    match def.kind {
        Kind::Int { .. } | Kind::Long { .. } | Kind::Short { .. } => {
            matches!((value.parse::<i64>(), default.parse::<i64>()), (Ok(a), Ok(b)) if a == b)
        }
        Kind::Double => matches!((value.parse::<f64>(), default.parse::<f64>()), (Ok(a), Ok(b)) if a == b),
        Kind::List | Kind::ListOf(_) => {
            let set = |text: &str| {
                let mut items: Vec<String> =
                    text.split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect();
                items.sort();
                items.dedup();
                items
            };
            set(value) == set(default)
        }
        _ => value == default,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(settings: &[(&str, &str)]) -> Result<ServerConfig, ConfigError> {
        let overrides: Vec<(String, String)> =
            settings.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        ServerConfig::load(None, &overrides)
    }

    /// Every listed setting is known (validated, described) and refused away from its default,
    /// naming itself and why.
    #[test]
    fn an_unimplemented_setting_is_refused_by_name() {
        let samples = [
            ("create.topic.policy.class.name", "com.example.Policy"),
            ("group.coordinator.rebalance.protocols", "classic,consumer,share"),
            ("group.coordinator.rebalance.protocols", "classic"),
            ("metadata.max.retention.ms", "1000"),
            ("log.cleaner.threads", "4"),
            ("compression.lz4.level", "4"),
            ("log.cleaner.io.max.bytes.per.second", "1048576"),
            ("early.start.listeners", "PLAINTEXT"),
            ("remote.log.storage.system.enable", "true"),
        ];
        for (key, value) in samples {
            let message = load(&[(key, value)]).expect_err("refused").to_string();
            assert!(message.contains(key) && message.contains("not implemented"), "{key}={value}: {message}");
        }
        for (key, _) in UNIMPLEMENTED {
            assert!(keys::is_known_key(key), "{key} is listed but not a known key");
        }
        for key in KNOBS {
            assert!(keys::is_known_key(key), "{key} is a knob but not a known key");
            assert!(!UNIMPLEMENTED.iter().any(|(name, _)| name == key), "{key} is listed twice");
        }
    }

    /// Kafka's default, however written, and the knobs at any valid value, start.
    #[test]
    fn defaults_and_knobs_are_accepted() {
        let accepted = [
            ("group.coordinator.rebalance.protocols", " consumer, streams, classic "),
            ("log.cleaner.threads", "1"),
            ("metadata.max.retention.ms", "604800000"),
            ("log.cleaner.io.max.bytes.per.second", "1.7976931348623157E308"),
            ("remote.log.storage.system.enable", "false"),
            ("num.recovery.threads.per.data.dir", "1"),
            ("background.threads", "4"),
            ("share.coordinator.state.topic.replication.factor", "1"),
        ];
        for (key, value) in accepted {
            load(&[(key, value)]).unwrap_or_else(|e| panic!("{key}={value} refused: {e}"));
        }
    }
}
