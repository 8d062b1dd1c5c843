//! Group configs (ConfigResource type GROUP, Kafka's `GroupConfig`): the keys Strand applies to a
//! group, set with IncrementalAlterConfigs/AlterConfigs and shown by DescribeConfigs
//! (`kafka-configs --entity-type groups`).
//!
//! Strand applies the share-group dead-letter settings of KIP-1191
//! (`errors.deadletterqueue.topic.name`, `errors.deadletterqueue.copy.record.enable`) and its own
//! release backoff (`share.release.backoff.ms`, `share.release.backoff.max.ms`). Kafka's other
//! group keys ([`KAFKA_GROUP_CONFIGS_NOT_IMPLEMENTED`]) are refused naming them, any other key
//! as Kafka refuses an unknown one; both are INVALID_CONFIG.

use std::collections::BTreeMap;

use super::configs::{ConfigResource, ConfigResourceKind, ConfigsImage};
use super::topic_configs::{ConfigType, ConfigValidator, TopicConfigDef, validate_value};

pub const ERRORS_DLQ_TOPIC_NAME: &str = "errors.deadletterqueue.topic.name";
pub const ERRORS_DLQ_COPY_RECORD_ENABLE: &str = "errors.deadletterqueue.copy.record.enable";
pub const SHARE_RELEASE_BACKOFF_MS: &str = "share.release.backoff.ms";
pub const SHARE_RELEASE_BACKOFF_MAX_MS: &str = "share.release.backoff.max.ms";

/// The prefix no dead-letter topic may have (internal topics).
const INTERNAL_PREFIX: &str = "__";

const fn group_def(name: &'static str, kind: ConfigType, default: &'static str) -> TopicConfigDef {
    let validator = match kind {
        ConfigType::Long => ConfigValidator::Range { min: 0, max: None },
        _ => ConfigValidator::Any,
    };
    TopicConfigDef { name, kind, default, validator, broker_synonym: None }
}

/// The group configs Strand applies, with their defaults.
pub const GROUP_CONFIGS: &[TopicConfigDef] = &[
    group_def(ERRORS_DLQ_TOPIC_NAME, ConfigType::String, ""),
    group_def(ERRORS_DLQ_COPY_RECORD_ENABLE, ConfigType::Boolean, "false"),
    group_def(SHARE_RELEASE_BACKOFF_MS, ConfigType::Long, "0"),
    group_def(SHARE_RELEASE_BACKOFF_MAX_MS, ConfigType::Long, "0"),
];

/// Kafka 4.4's other group configs, which Strand does not apply yet.
pub const KAFKA_GROUP_CONFIGS_NOT_IMPLEMENTED: &[&str] = &[
    "consumer.session.timeout.ms",
    "consumer.heartbeat.interval.ms",
    "consumer.assignment.interval.ms",
    "consumer.assignor.offload.enable",
    "share.session.timeout.ms",
    "share.heartbeat.interval.ms",
    "share.record.lock.duration.ms",
    "share.delivery.count.limit",
    "share.partition.max.record.locks",
    "share.auto.offset.reset",
    "share.isolation.level",
    "share.renew.acknowledge.enable",
    "share.assignment.interval.ms",
    "share.assignor.offload.enable",
    "streams.session.timeout.ms",
    "streams.heartbeat.interval.ms",
    "streams.num.standby.replicas",
    "streams.initial.rebalance.delay.ms",
    "streams.assignment.interval.ms",
    "streams.rack.aware.assignment.tags",
    "streams.assignor.offload.enable",
    "streams.task.offset.interval.ms",
    "streams.num.warmup.replicas",
    "streams.acceptable.recovery.lag",
    "streams.assignor.name",
];

pub fn group_config_def(name: &str) -> Option<&'static TopicConfigDef> {
    GROUP_CONFIGS.iter().find(|d| d.name == name)
}

/// Checks a group's complete new set of configs; the error is the INVALID_CONFIG message.
pub fn validate_group_configs(configs: &BTreeMap<String, String>) -> Result<(), String> {
    for (key, value) in configs {
        let Some(def) = group_config_def(key) else {
            if KAFKA_GROUP_CONFIGS_NOT_IMPLEMENTED.contains(&key.as_str()) {
                return Err(format!("Group config {key} is not implemented by Strand"));
            }
            return Err(format!("Unknown group config name: {key}"));
        };
        validate_value(def, key, value)?;
        if key == ERRORS_DLQ_TOPIC_NAME && value.trim().starts_with(INTERNAL_PREFIX) {
            return Err(format!("{ERRORS_DLQ_TOPIC_NAME}: DLQ topic name must not start with '{INTERNAL_PREFIX}'"));
        }
    }
    Ok(())
}

/// What Strand applies of one group's configs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GroupConfig {
    /// `errors.deadletterqueue.topic.name`; `None` when blank (no dead-letter topic).
    pub dlq_topic: Option<String>,
    /// `errors.deadletterqueue.copy.record.enable`.
    pub dlq_copy_record: bool,
    /// `share.release.backoff.ms`.
    pub release_backoff_ms: i64,
    /// `share.release.backoff.max.ms`.
    pub release_backoff_max_ms: i64,
}

impl GroupConfig {
    /// `group_id`'s configs in `configs`, defaults for what is not set (or not valid).
    pub fn of(configs: &ConfigsImage, group_id: &str) -> GroupConfig {
        let resource = ConfigResource { kind: ConfigResourceKind::Group, name: group_id.to_owned() };
        let value = |key: &str| configs.value(&resource, key).map(str::trim);
        let long = |key: &str| value(key).and_then(|v| v.parse::<i64>().ok()).unwrap_or(0).max(0);
        GroupConfig {
            dlq_topic: value(ERRORS_DLQ_TOPIC_NAME).filter(|v| !v.is_empty()).map(str::to_owned),
            dlq_copy_record: value(ERRORS_DLQ_COPY_RECORD_ENABLE).is_some_and(|v| v.eq_ignore_ascii_case("true")),
            release_backoff_ms: long(SHARE_RELEASE_BACKOFF_MS),
            release_backoff_max_ms: long(SHARE_RELEASE_BACKOFF_MAX_MS),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn configs(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn group_configs_are_validated_as_kafka_does() {
        assert_eq!(validate_group_configs(&configs(&[(ERRORS_DLQ_TOPIC_NAME, "dlq.orders")])), Ok(()));
        assert_eq!(validate_group_configs(&configs(&[(ERRORS_DLQ_COPY_RECORD_ENABLE, "TRUE")])), Ok(()));
        assert_eq!(validate_group_configs(&configs(&[(SHARE_RELEASE_BACKOFF_MS, "250")])), Ok(()));
        let refused = [
            (ERRORS_DLQ_TOPIC_NAME, "__consumer_offsets", "must not start with '__'"),
            (ERRORS_DLQ_COPY_RECORD_ENABLE, "yes", "Expected value to be either true or false"),
            (SHARE_RELEASE_BACKOFF_MAX_MS, "-1", "Invalid value -1"),
            ("share.auto.offset.reset", "earliest", "not implemented by Strand"),
            ("no.such.key", "1", "Unknown group config name: no.such.key"),
        ];
        for (key, value, why) in refused {
            let error = validate_group_configs(&configs(&[(key, value)])).expect_err("refused");
            assert!(error.contains(why), "{key}={value}: {error}");
        }
    }
}
