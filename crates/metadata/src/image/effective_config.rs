//! A topic's effective configuration: the one place that layers Kafka's topic configs, for
//! every reader (the log a replica opens, Produce's rules, DescribeConfigs, CreateTopics'
//! answer, the controller's unclean-election check).
//!
//! Kafka's order, most specific first, each value with the source DescribeConfigs reports:
//! 1. the topic's own config (TOPIC_CONFIG);
//! 2. this node's dynamic broker config, `BROKER <id>` (DYNAMIC_BROKER_CONFIG);
//! 3. the cluster-wide dynamic default, `BROKER ""` (DYNAMIC_DEFAULT_BROKER_CONFIG);
//! 4. `server.properties`, given as plain data by topic config name, already in the topic
//!    config's units (`retention.ms` for `log.retention.hours`) (STATIC_BROKER_CONFIG);
//! 5. Kafka's default (DEFAULT_CONFIG).
//!
//! The dynamic broker layers hold a topic config under its broker synonym (`log.retention.ms`
//! for `retention.ms`): the only broker keys AlterConfigs accepts dynamically. Pure: no I/O, no
//! state beyond the image and the static layer it is handed.

use std::collections::BTreeMap;

use strand_base::BrokerId;

use super::topic_configs::{ConfigSource, EffectiveConfig, TOPIC_CONFIGS, TopicConfigDef, split_list, topic_config};
use super::{ConfigResource, MetadataImage};

type Layer<'a> = Option<&'a BTreeMap<String, String>>;

/// Resolves topics' effective configs against one image, as seen from one node.
#[derive(Debug, Clone, Copy)]
pub struct TopicConfigResolver<'a> {
    image: &'a MetadataImage,
    node: Layer<'a>,
    cluster: Layer<'a>,
    statics: &'a BTreeMap<String, String>,
}

impl<'a> TopicConfigResolver<'a> {
    /// `node` is this node's id (its dynamic broker config is a layer; `None` leaves the layer
    /// out); `statics` is `server.properties`' topic config defaults, by topic config name.
    pub fn new(
        image: &'a MetadataImage,
        node: Option<BrokerId>,
        statics: &'a BTreeMap<String, String>,
    ) -> TopicConfigResolver<'a> {
        let configs = image.configs();
        TopicConfigResolver {
            image,
            node: node.and_then(|id| configs.resource(&ConfigResource::broker(id.0.to_string()))),
            cluster: configs.resource(&ConfigResource::cluster_default()),
            statics,
        }
    }

    /// The configs of topic `name` as the image has it (a topic unknown to the image has no
    /// overrides).
    pub fn topic(&self, name: &str) -> TopicConfig<'a> {
        self.with_overrides(self.image.configs().resource(&ConfigResource::topic(name)))
    }

    /// The configs of a topic whose own configs are `overrides` (one being created).
    pub fn with_overrides(&self, overrides: Option<&'a BTreeMap<String, String>>) -> TopicConfig<'a> {
        TopicConfig { overrides, node: self.node, cluster: self.cluster, statics: self.statics }
    }
}

/// One topic's effective configs: each lookup walks the layers for one key.
#[derive(Debug, Clone, Copy)]
pub struct TopicConfig<'a> {
    overrides: Layer<'a>,
    node: Layer<'a>,
    cluster: Layer<'a>,
    statics: &'a BTreeMap<String, String>,
}

impl<'a> TopicConfig<'a> {
    /// Topic config `name`'s value and source; `None` if Kafka has no such topic config.
    pub fn get(&self, name: &str) -> Option<(&'a str, ConfigSource)> {
        topic_config(name).map(|def| self.resolve(def))
    }

    /// Every topic config, in name order, with its value and source.
    pub fn all(&self) -> Vec<EffectiveConfig> {
        TOPIC_CONFIGS
            .iter()
            .map(|def| {
                let (value, source) = self.resolve(def);
                EffectiveConfig { name: def.name, value: value.to_owned(), source }
            })
            .collect()
    }

    /// Whether any layer above Kafka's default decides `name`.
    pub fn is_set(&self, name: &str) -> bool {
        self.get(name).is_some_and(|(_, source)| source != ConfigSource::DefaultConfig)
    }

    /// A LONG or INT config's value (validated when it was set; Kafka's default otherwise).
    pub fn long(&self, name: &str) -> i64 {
        self.parsed(name, |text| text.parse().ok())
    }

    /// A DOUBLE config's value.
    pub fn double(&self, name: &str) -> f64 {
        self.parsed(name, |text| text.parse().ok())
    }

    /// A BOOLEAN config's value (Kafka's booleans: `true` or `false`, any case).
    pub fn bool(&self, name: &str) -> bool {
        self.parsed(name, |text| {
            if text.eq_ignore_ascii_case("true") {
                Some(true)
            } else if text.eq_ignore_ascii_case("false") {
                Some(false)
            } else {
                None
            }
        })
    }

    /// Whether LIST config `name` holds `item`.
    pub fn has_item(&self, name: &str, item: &str) -> bool {
        self.get(name).is_some_and(|(value, _)| split_list(value).iter().any(|entry| entry == item))
    }

    /// The log settings of a replica of this topic; `producer_state` is the node's (it has no
    /// topic config).
    pub fn log_config(&self, producer_state: strand_log::producer_state::ProducerStateConfig) -> strand_log::LogConfig {
        let unsigned = |name: &str, min: i64| u64::try_from(self.long(name).max(min)).unwrap_or(0);
        strand_log::LogConfig {
            segment_bytes: unsigned("segment.bytes", 1),
            segment_ms: self.long("segment.ms"),
            segment_jitter_ms: self.long("segment.jitter.ms"),
            segment_index_bytes: unsigned("segment.index.bytes", 12),
            index_interval_bytes: unsigned("index.interval.bytes", 0),
            flush_interval_messages: self.long("flush.messages"),
            flush_interval_ms: self.long("flush.ms"),
            preallocate: self.bool("preallocate"),
            retention_ms: self.long("retention.ms"),
            retention_bytes: self.long("retention.bytes"),
            delete_enabled: self.has_item("cleanup.policy", "delete"),
            compact_enabled: self.has_item("cleanup.policy", "compact"),
            delete_retention_ms: self.long("delete.retention.ms"),
            min_compaction_lag_ms: self.long("min.compaction.lag.ms"),
            min_cleanable_dirty_ratio: self.double("min.cleanable.dirty.ratio"),
            max_compaction_lag_ms: self.long("max.compaction.lag.ms"),
            log_append_time: self.get("message.timestamp.type").is_some_and(|(v, _)| v == "LogAppendTime"),
            producer_state,
        }
    }

    fn resolve(&self, def: &'static TopicConfigDef) -> (&'a str, ConfigSource) {
        let dynamic = |layer: Layer<'a>| def.broker_synonym.and_then(|key| layer?.get(key));
        if let Some(value) = self.overrides.and_then(|layer| layer.get(def.name)) {
            (value, ConfigSource::TopicConfig)
        } else if let Some(value) = dynamic(self.node) {
            (value, ConfigSource::DynamicBrokerConfig)
        } else if let Some(value) = dynamic(self.cluster) {
            (value, ConfigSource::DynamicDefaultBrokerConfig)
        } else if let Some(value) = self.statics.get(def.name) {
            (value, ConfigSource::StaticBrokerConfig)
        } else {
            (def.default, ConfigSource::DefaultConfig)
        }
    }

    /// `name`'s value through `parse` (trimmed, as Kafka trims), else its Kafka default's (the
    /// value was validated when it was set, so that is for a record the controller never wrote).
    fn parsed<T: Default>(&self, name: &str, parse: impl Fn(&str) -> Option<T>) -> T {
        let Some(def) = topic_config(name) else {
            return T::default();
        };
        let (value, _) = self.resolve(def);
        parse(value.trim()).or_else(|| parse(def.default)).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::{MetadataDelta, MetadataProvenance};
    use strand_protocol::messages::ConfigRecord;
    use strand_protocol::messages::records::MetadataRecord;

    fn image(configs: &[(ConfigResource, &str, &str)]) -> MetadataImage {
        let mut delta = MetadataDelta::new(&MetadataImage::default());
        for (resource, name, value) in configs {
            let record = MetadataRecord::ConfigRecord(ConfigRecord {
                resource_type: resource.kind.wire(),
                resource_name: resource.name.clone(),
                name: (*name).to_owned(),
                value: Some((*value).to_owned()),
                ..ConfigRecord::default()
            });
            delta.replay(&record).expect("replays");
        }
        delta.apply(MetadataProvenance::EMPTY)
    }

    /// Each layer beats the ones below it, and each value names its source.
    #[test]
    fn layers_in_kafkas_order() {
        let image = image(&[
            (ConfigResource::topic("t"), "retention.ms", "1"),
            (ConfigResource::broker("1"), "log.retention.ms", "2"),
            (ConfigResource::broker("1"), "log.segment.bytes", "2000000"),
            (ConfigResource::cluster_default(), "log.retention.ms", "3"),
            (ConfigResource::cluster_default(), "log.segment.bytes", "3000000"),
            (ConfigResource::cluster_default(), "log.cleanup.policy", "compact"),
            (ConfigResource::broker("2"), "log.cleanup.policy", "delete"),
        ]);
        let statics = BTreeMap::from([
            ("retention.ms".to_owned(), "4".to_owned()),
            ("segment.bytes".to_owned(), "4000000".to_owned()),
            ("flush.ms".to_owned(), "5".to_owned()),
        ]);
        let resolver = TopicConfigResolver::new(&image, Some(BrokerId(1)), &statics);
        let topic = resolver.topic("t");
        assert_eq!(topic.get("retention.ms"), Some(("1", ConfigSource::TopicConfig)));
        assert_eq!(topic.get("segment.bytes"), Some(("2000000", ConfigSource::DynamicBrokerConfig)));
        assert_eq!(topic.get("cleanup.policy"), Some(("compact", ConfigSource::DynamicDefaultBrokerConfig)));
        assert_eq!(topic.get("flush.ms"), Some(("5", ConfigSource::StaticBrokerConfig)));
        assert_eq!(topic.get("segment.jitter.ms"), Some(("0", ConfigSource::DefaultConfig)));
        assert_eq!(topic.get("no.such.config"), None);
        assert_eq!(resolver.topic("other").get("retention.ms"), Some(("2", ConfigSource::DynamicBrokerConfig)));
        let elsewhere = TopicConfigResolver::new(&image, None, &statics).topic("other");
        assert_eq!(elsewhere.get("retention.ms"), Some(("3", ConfigSource::DynamicDefaultBrokerConfig)));

        let log = topic.log_config(Default::default());
        assert_eq!((log.retention_ms, log.segment_bytes, log.flush_interval_ms), (1, 2_000_000, 5));
        assert!(log.compact_enabled && !log.delete_enabled);
        assert!(topic.is_set("cleanup.policy") && !topic.is_set("segment.jitter.ms"));
        assert_eq!(topic.all().len(), TOPIC_CONFIGS.len());
    }

    /// Values are read as Kafka reads them: trimmed, booleans in any case, lists split.
    #[test]
    fn typed_reads() {
        let overrides = BTreeMap::from([
            ("retention.ms".to_owned(), " +100 ".to_owned()),
            ("preallocate".to_owned(), " True ".to_owned()),
            ("cleanup.policy".to_owned(), "delete, compact".to_owned()),
            ("min.cleanable.dirty.ratio".to_owned(), "0.25".to_owned()),
        ]);
        let image = MetadataImage::default();
        let statics = BTreeMap::new();
        let topic = TopicConfigResolver::new(&image, None, &statics).with_overrides(Some(&overrides));
        assert_eq!(topic.long("retention.ms"), 100);
        assert!(topic.bool("preallocate"));
        assert!(topic.has_item("cleanup.policy", "compact") && topic.has_item("cleanup.policy", "delete"));
        assert_eq!(topic.double("min.cleanable.dirty.ratio"), 0.25);
        assert_eq!(topic.long("max.message.bytes"), 1_048_588);
    }
}
