//! Group configs (ConfigResource type GROUP, Kafka's `GroupConfig`): the keys Strand applies to a
//! group, set with IncrementalAlterConfigs/AlterConfigs and shown by DescribeConfigs
//! (`kafka-configs --entity-type groups`).
//!
//! Strand applies the share-group dead-letter settings of KIP-1191
//! (`errors.deadletterqueue.topic.name`, `errors.deadletterqueue.copy.record.enable`),
//! `share.auto.offset.reset` (KIP-932: where a share-partition without state starts,
//! [`ShareStart`]) and its own release backoff (`share.release.backoff.ms`,
//! `share.release.backoff.max.ms`). Kafka's other
//! group keys ([`KAFKA_GROUP_CONFIGS_NOT_IMPLEMENTED`]) are refused naming them, any other key
//! as Kafka refuses an unknown one; both are INVALID_CONFIG.

use std::collections::BTreeMap;

use super::configs::{ConfigResource, ConfigResourceKind, ConfigsImage};
use super::topic_configs::{ConfigType, ConfigValidator, TopicConfigDef, validate_value};

pub const ERRORS_DLQ_TOPIC_NAME: &str = "errors.deadletterqueue.topic.name";
pub const ERRORS_DLQ_COPY_RECORD_ENABLE: &str = "errors.deadletterqueue.copy.record.enable";
pub const SHARE_RELEASE_BACKOFF_MS: &str = "share.release.backoff.ms";
pub const SHARE_RELEASE_BACKOFF_MAX_MS: &str = "share.release.backoff.max.ms";
pub const SHARE_AUTO_OFFSET_RESET: &str = "share.auto.offset.reset";

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
    group_def(SHARE_AUTO_OFFSET_RESET, ConfigType::String, "latest"),
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
        // Kafka trims a STRING config's value before validating it.
        if key == SHARE_AUTO_OFFSET_RESET && ShareStart::parse(value.trim()).is_none() {
            return Err(format!(
                "Invalid value {value} for configuration {key}: Invalid value `{value}` for configuration {key}. The \
                 value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS.>'."
            ));
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
    /// `share.auto.offset.reset`.
    pub share_start: ShareStart,
}

/// Where a share-partition with no state starts (`share.auto.offset.reset`, Kafka's
/// `ShareGroupAutoOffsetResetStrategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShareStart {
    /// At the high watermark: records produced from now on.
    #[default]
    Latest,
    /// At the log start offset.
    Earliest,
    /// At the first record no older than this many milliseconds (`by_duration:<ISO-8601>`).
    ByDuration { ms: i64 },
}

impl ShareStart {
    /// Kafka's `fromString`: `earliest`, `latest` (exactly, lower case) or `by_duration:` and a
    /// non-negative ISO-8601 duration as Java's `Duration.parse` reads it.
    pub fn parse(value: &str) -> Option<ShareStart> {
        match value {
            "latest" => Some(ShareStart::Latest),
            "earliest" => Some(ShareStart::Earliest),
            _ => {
                let ms = iso_duration_ms(value.strip_prefix("by_duration:")?)?;
                (ms >= 0).then_some(ShareStart::ByDuration { ms })
            }
        }
    }
}

/// Java's `Duration.parse` (`[-+]PnDTnHnMn.nS`, letters in either case, each number signed, at
/// least one part, a `T` followed by one) in milliseconds, fractions of a millisecond dropped.
fn iso_duration_ms(text: &str) -> Option<i64> {
    let (negative, rest) = signed(text);
    let rest = rest.strip_prefix(['P', 'p'])?;
    let (days, time) = match rest.find(['T', 't']) {
        Some(at) => (&rest[..at], Some(&rest[at + 1..])),
        None => (rest, None),
    };
    let mut total: i64 = 0;
    let mut parts = 0;
    if !days.is_empty() {
        let count = days.strip_suffix(['D', 'd'])?;
        total = total.checked_add(integer(count)?.checked_mul(86_400_000)?)?;
        parts += 1;
    }
    if let Some(mut time) = time {
        for (unit, ms) in [(['H', 'h'], 3_600_000), (['M', 'm'], 60_000)] {
            if let Some(at) = time.find(unit) {
                total = total.checked_add(integer(&time[..at])?.checked_mul(ms)?)?;
                time = &time[at + 1..];
                parts += 1;
            }
        }
        if !time.is_empty() {
            total = total.checked_add(seconds_ms(time.strip_suffix(['S', 's'])?)?)?;
            parts += 1;
        } else if parts == usize::from(!days.is_empty()) {
            return None;
        }
    }
    (parts > 0).then(|| if negative { -total } else { total })
}

fn signed(text: &str) -> (bool, &str) {
    match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    }
}

/// A signed decimal integer (at least one digit).
fn integer(text: &str) -> Option<i64> {
    let (negative, digits) = signed(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value: i64 = digits.parse().ok()?;
    Some(if negative { -value } else { value })
}

/// `n` or `n.f` seconds (up to 9 fraction digits, `.` or `,`) in milliseconds.
fn seconds_ms(text: &str) -> Option<i64> {
    let (whole, fraction) = match text.find(['.', ',']) {
        Some(at) => (&text[..at], &text[at + 1..]),
        None => (text, ""),
    };
    if fraction.len() > 9 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let negative = whole.starts_with('-');
    let seconds = integer(whole)?;
    let millis: i64 = format!("{fraction:0<3}")[..3].parse().ok()?;
    seconds.checked_mul(1000)?.checked_add(if negative { -millis } else { millis })
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
            share_start: value(SHARE_AUTO_OFFSET_RESET).and_then(ShareStart::parse).unwrap_or_default(),
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
        assert_eq!(validate_group_configs(&configs(&[(SHARE_AUTO_OFFSET_RESET, "by_duration:PT5M")])), Ok(()));
        assert_eq!(validate_group_configs(&configs(&[(SHARE_AUTO_OFFSET_RESET, " earliest ")])), Ok(()));
        let refused = [
            (ERRORS_DLQ_TOPIC_NAME, "__consumer_offsets", "must not start with '__'"),
            (ERRORS_DLQ_COPY_RECORD_ENABLE, "yes", "Expected value to be either true or false"),
            (SHARE_RELEASE_BACKOFF_MAX_MS, "-1", "Invalid value -1"),
            ("share.isolation.level", "read_committed", "not implemented by Strand"),
            (SHARE_AUTO_OFFSET_RESET, "EARLIEST", "The value must be either 'earliest', 'latest' or"),
            (SHARE_AUTO_OFFSET_RESET, "by_duration", "Invalid value by_duration for configuration"),
            (SHARE_AUTO_OFFSET_RESET, "by_duration:-PT1H", "of the format 'by_duration:<PnDTnHnMn.nS.>'"),
            ("no.such.key", "1", "Unknown group config name: no.such.key"),
        ];
        for (key, value, why) in refused {
            let error = validate_group_configs(&configs(&[(key, value)])).expect_err("refused");
            assert!(error.contains(why), "{key}={value}: {error}");
        }
    }

    #[test]
    fn share_starts_read_as_kafka_reads_them() {
        let by = |ms: i64| Some(ShareStart::ByDuration { ms });
        let cases = [
            ("latest", Some(ShareStart::Latest)),
            ("earliest", Some(ShareStart::Earliest)),
            ("Latest", None),
            ("by_duration:PT1H", by(3_600_000)),
            ("by_duration:P2D", by(172_800_000)),
            ("by_duration:P1DT2H3M4.5S", by(93_784_500)),
            ("by_duration:pt30s", by(30_000)),
            ("by_duration:PT0.001S", by(1)),
            ("by_duration:PT-1S", None),
            ("by_duration:PT1H-30M", by(1_800_000)),
            ("by_duration:PT0S", by(0)),
            ("by_duration:P", None),
            ("by_duration:PT", None),
            ("by_duration:P1DT", None),
            ("by_duration:1H", None),
            ("by_duration:PT1.1234567890S", None),
            ("by_duration:", None),
            ("by_duration:P9223372036854775807D", None),
        ];
        for (value, expected) in cases {
            assert_eq!(ShareStart::parse(value), expected, "{value}");
        }
    }
}
