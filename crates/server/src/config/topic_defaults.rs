//! What `server.properties` says about topics: the static layer of every topic's effective
//! config ([`strand_metadata::image::TopicConfigResolver`]), handed to it as plain data.

use std::collections::BTreeMap;

use strand_metadata::image::topic_configs::TOPIC_CONFIGS;

use super::{ConfigSource, ServerConfig, is_known_key, synonyms};

/// The keys that decide `key`, itself first (an unknown key decides only itself).
pub fn synonym_chain(key: &str) -> Vec<String> {
    match synonyms(key) {
        [] => vec![key.to_owned()],
        keys => keys.iter().map(|k| (*k).to_owned()).collect(),
    }
}

/// Each topic config whose broker key (or a fallback of it) the file or an override sets, by
/// topic config name, in the topic config's units (`log.retention.hours` gives `retention.ms`).
/// A topic config nobody set is absent: Kafka's default applies, with its own source.
pub fn static_topic_configs(config: &ServerConfig) -> BTreeMap<String, String> {
    let user_set =
        |key: &str| config.get(key).is_some_and(|e| matches!(e.source, ConfigSource::File | ConfigSource::Override));
    TOPIC_CONFIGS
        .iter()
        .filter_map(|def| {
            let key = def.broker_synonym?;
            if !is_known_key(key) || !synonym_chain(key).iter().any(|k| user_set(k)) {
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
        .collect()
}
