//! DescribeConfigs for TOPIC, BROKER and GROUP resources, as Kafka's `ConfigHelper.describeConfigs`.
//!
//! - TOPIC: every topic config with its effective value and source, as the node's
//!   [`TopicConfigResolver`](strand_metadata::image::TopicConfigResolver) resolves them. An
//!   unknown topic is UNKNOWN_TOPIC_OR_PARTITION, an illegal name INVALID_TOPIC_EXCEPTION.
//! - BROKER with this node's id: every static broker config ([`crate::BrokerConfigEntry`]) and
//!   every dynamic one in the image; BROKER with the empty name: the cluster-wide dynamic
//!   defaults. Another id, or a name that is not a number, is INVALID_REQUEST.
//! - BROKER_LOGGER, GROUP and CLIENT_METRICS are INVALID_REQUEST for now (no log4j loggers here;
//!   group and client-metrics configs arrive with their issues). A resource type Kafka does not
//!   define fails the whole request with INVALID_REQUEST, as Kafka's does.
//!
//! Sources and synonyms follow Kafka: a config's synonyms are its topic override, then each of
//! its broker keys (`log.retention.ms`, `.minutes`, `.hours`) set per broker, as cluster default,
//! in `server.properties`, and by default, in that order, minus those ahead of the config's own
//! broker key; the first synonym gives the source (DEFAULT_CONFIG without one). Synonyms are sent
//! only when `include_synonyms` asks; documentation is always null.

use std::collections::{BTreeMap, BTreeSet};

use strand_base::BrokerId;
use strand_metadata::controller::listener_tls_store_key;
use strand_metadata::controller::topic_configs::{
    ConfigSource, ConfigType, EffectiveConfig, broker_quota_config, topic_config, topic_config_for_broker_synonym,
};
use strand_metadata::controller::topic_name::validate_topic_name;
use strand_metadata::image::group_configs::GROUP_CONFIGS;
use strand_metadata::image::{ConfigResource, ConfigResourceKind, MetadataImage, TopicConfigResolver};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::describe_configs_request::DescribeConfigsResource;
use strand_protocol::messages::describe_configs_response::{
    DescribeConfigsResourceResult, DescribeConfigsResult, DescribeConfigsSynonym,
};
use strand_protocol::messages::{DescribeConfigsRequest, DescribeConfigsResponse};

use strand_security::Session;
use strand_security::acl::AclOperation;

use crate::{Broker, BrokerConfigEntry};

/// DESCRIBE_CONFIGS on each resource (topics and groups on themselves, brokers on the cluster);
/// a refused one answers its type's authorization error with no configs.
pub fn handle(broker: &Broker, request: DescribeConfigsRequest, session: &Session) -> DescribeConfigsResponse {
    let node = NodeConfigs {
        node_id: broker.identity.node_id,
        broker_configs: &broker.settings.broker_configs,
        static_topic_configs: &broker.settings.controller_defaults.static_topic_configs,
    };
    let refusal = |r: &DescribeConfigsResource| {
        broker.config_refusal(session, AclOperation::DescribeConfigs, r.resource_type, &r.resource_name)
    };
    describe(&node, &broker.image(), &request, refusal)
}

/// What a node describes besides the image: its id, its static broker configs and the static
/// topic config defaults.
#[derive(Debug)]
pub struct NodeConfigs<'a> {
    pub node_id: BrokerId,
    pub broker_configs: &'a [BrokerConfigEntry],
    pub static_topic_configs: &'a BTreeMap<String, String>,
}

/// Describes `request`'s resources on `image` as `node` (see the module doc); `refusal` says
/// why the session may not describe a resource, if it may not.
pub fn describe(
    node: &NodeConfigs<'_>,
    image: &MetadataImage,
    request: &DescribeConfigsRequest,
    refusal: impl Fn(&DescribeConfigsResource) -> Option<ErrorCode>,
) -> DescribeConfigsResponse {
    let undefined = |r: &DescribeConfigsResource| {
        ConfigResourceKind::from_wire(r.resource_type).is_none_or(|kind| kind == ConfigResourceKind::Unknown)
    };
    if request.resources.iter().any(undefined) {
        return all_failed(request, ErrorCode::InvalidRequest);
    }
    let describer = Describer {
        node_id: node.node_id.0,
        topic_configs: TopicConfigResolver::new(image, Some(node.node_id), node.static_topic_configs),
        image,
        statics: node.broker_configs.iter().map(|e| (e.name.as_str(), e)).collect(),
        include_synonyms: request.include_synonyms,
    };
    let results = (request.resources.iter())
        .map(|r| match refusal(r) {
            Some(code) => DescribeConfigsResult {
                error_code: code.code(),
                error_message: Some(code.message().to_owned()),
                resource_type: r.resource_type,
                resource_name: r.resource_name.clone(),
                ..Default::default()
            },
            None => describer.resource(r),
        })
        .collect();
    DescribeConfigsResponse { results, ..DescribeConfigsResponse::default() }
}

/// Why a resource cannot be described: a code and, maybe, a message.
type Failure = (ErrorCode, Option<String>);

struct Describer<'a> {
    node_id: i32,
    topic_configs: TopicConfigResolver<'a>,
    image: &'a MetadataImage,
    /// The static broker configs by key.
    statics: BTreeMap<&'a str, &'a BrokerConfigEntry>,
    include_synonyms: bool,
}

impl Describer<'_> {
    fn resource(&self, resource: &DescribeConfigsResource) -> DescribeConfigsResult {
        let name = resource.resource_name.as_str();
        let described = match ConfigResourceKind::from_wire(resource.resource_type) {
            Some(ConfigResourceKind::Topic) => self.topic(name),
            Some(ConfigResourceKind::Broker) => self.broker(name),
            Some(ConfigResourceKind::Group) => self.group(name),
            Some(ConfigResourceKind::BrokerLogger) => {
                Err((ErrorCode::InvalidRequest, Some("Broker loggers are not supported.".to_owned())))
            }
            _ => Err((
                ErrorCode::InvalidRequest,
                Some(format!("Configs of resource type {} are not supported yet.", resource.resource_type)),
            )),
        };
        let (error_code, error_message, configs) = match described {
            Ok(mut configs) => {
                if let Some(keys) = resource.configuration_keys.as_ref().filter(|keys| !keys.is_empty()) {
                    let keys: BTreeSet<&str> = keys.iter().map(String::as_str).collect();
                    configs.retain(|c| keys.contains(c.name.as_str()));
                }
                (0, None, configs)
            }
            Err((code, message)) => (code.code(), message, Vec::new()),
        };
        DescribeConfigsResult {
            error_code,
            error_message,
            resource_type: resource.resource_type,
            resource_name: resource.resource_name.clone(),
            configs,
            ..DescribeConfigsResult::default()
        }
    }

    /// A group's configs (`strand_metadata::image::group_configs`): its own values, defaults
    /// for the rest. Any group name is described, as with Kafka, but the empty one.
    fn group(&self, name: &str) -> Result<Vec<DescribeConfigsResourceResult>, Failure> {
        if name.is_empty() {
            return Err((ErrorCode::InvalidRequest, Some("Default group resources are not allowed.".to_owned())));
        }
        let resource = ConfigResource { kind: ConfigResourceKind::Group, name: name.to_owned() };
        let overrides = self.image.configs().resource(&resource);
        Ok(GROUP_CONFIGS
            .iter()
            .map(|def| {
                let set = overrides.and_then(|o| o.get(def.name));
                let source = if set.is_some() { ConfigSource::GroupConfig } else { ConfigSource::DefaultConfig };
                let value = set.cloned().unwrap_or_else(|| def.default.to_owned());
                DescribeConfigsResourceResult {
                    name: def.name.to_owned(),
                    value: Some(value.clone()),
                    read_only: false,
                    config_source: source.wire(),
                    is_sensitive: false,
                    synonyms: if self.include_synonyms {
                        vec![synonym(def.name, Some(value), source)]
                    } else {
                        Vec::new()
                    },
                    config_type: config_type_id(def.kind),
                    documentation: None,
                    ..DescribeConfigsResourceResult::default()
                }
            })
            .collect())
    }

    fn topic(&self, name: &str) -> Result<Vec<DescribeConfigsResourceResult>, Failure> {
        validate_topic_name(name).map_err(|m| (ErrorCode::InvalidTopicException, Some(m)))?;
        if self.image.topics().by_name(name).is_none() {
            return Err((ErrorCode::UnknownTopicOrPartition, None));
        }
        let overrides = self.image.configs().resource(&ConfigResource::topic(name)).cloned().unwrap_or_default();
        let effective = self.topic_configs.topic(name).all();
        Ok(effective.into_iter().map(|config| self.topic_entry(config, &overrides)).collect())
    }

    fn topic_entry(
        &self,
        config: EffectiveConfig,
        overrides: &BTreeMap<String, String>,
    ) -> DescribeConfigsResourceResult {
        let def = topic_config(config.name);
        let mut synonyms = Vec::new();
        if let Some(value) = overrides.get(config.name) {
            synonyms.push(synonym(config.name, Some(value.clone()), ConfigSource::TopicConfig));
        }
        if let Some(key) = def.and_then(|d| d.broker_synonym) {
            synonyms.extend(self.broker_synonyms(key));
        }
        DescribeConfigsResourceResult {
            name: config.name.to_owned(),
            value: Some(config.value),
            read_only: false,
            config_source: config.source.wire(),
            is_sensitive: false,
            synonyms: if self.include_synonyms { synonyms } else { Vec::new() },
            config_type: def.map_or(0, |d| config_type_id(d.kind)),
            documentation: None,
            ..DescribeConfigsResourceResult::default()
        }
    }

    fn broker(&self, name: &str) -> Result<Vec<DescribeConfigsResourceResult>, Failure> {
        if name.is_empty() {
            let defaults = self.image.configs().resource(&ConfigResource::cluster_default());
            return Ok(defaults.into_iter().flat_map(|d| d.keys()).map(|key| self.broker_entry(key, true)).collect());
        }
        let node = self.node_id;
        let invalid = |message: String| (ErrorCode::InvalidRequest, Some(message));
        let id: i32 = name.parse().map_err(|_| invalid(format!("Broker id must be an integer, but it is: {name}")))?;
        if id != node {
            return Err(invalid(format!("Unexpected broker id, expected {node} or empty string, but received {name}")));
        }
        let mut keys: BTreeSet<&str> = self.statics.keys().copied().collect();
        for resource in [ConfigResource::broker(name), ConfigResource::cluster_default()] {
            keys.extend(
                self.image.configs().resource(&resource).into_iter().flat_map(|d| d.keys()).map(String::as_str),
            );
        }
        Ok(keys.into_iter().map(|key| self.broker_entry(key, false)).collect())
    }

    /// One broker key; `cluster_default` describes the empty-named resource, which only has the
    /// cluster-wide dynamic defaults.
    fn broker_entry(&self, key: &str, cluster_default: bool) -> DescribeConfigsResourceResult {
        let entry = self.statics.get(key).copied();
        let topic_def = topic_config_for_broker_synonym(key);
        let quota_def = broker_quota_config(key);
        let synonyms: Vec<DescribeConfigsSynonym> = self
            .broker_synonyms(key)
            .into_iter()
            .filter(|s| !cluster_default || s.source == ConfigSource::DynamicDefaultBrokerConfig.wire())
            .collect();
        let sensitive = self.is_sensitive(key);
        let value = match synonyms.first() {
            _ if sensitive => None,
            Some(first) if is_dynamic(first.source) => first.value.clone(),
            _ => entry.and_then(|e| e.value.clone()),
        };
        DescribeConfigsResourceResult {
            name: key.to_owned(),
            value,
            // Strand changes only the broker keys that default topic configs, and listeners' TLS
            // stores, at runtime. The replication throttles' rates are read-only to Kafka too
            // (they are not among its `DynamicBrokerConfig.AllDynamicConfigs`).
            read_only: topic_def.is_none() && listener_tls_store_key(key).is_none(),
            config_source: synonyms.first().map_or(ConfigSource::DefaultConfig.wire(), |s| s.source),
            is_sensitive: sensitive,
            synonyms: if self.include_synonyms { synonyms } else { Vec::new() },
            config_type: entry
                .map(|e| e.config_type)
                .or_else(|| topic_def.or(quota_def).map(|d| config_type_id(d.kind)))
                .or_else(|| listener_tls_store_key(key).map(|_| if sensitive { PASSWORD } else { STRING }))
                .unwrap_or(0),
            documentation: None,
            ..DescribeConfigsResourceResult::default()
        }
    }

    /// Kafka's `configSynonyms`: where each broker key that decides `key` is set, most specific
    /// first, from `key` itself on.
    fn broker_synonyms(&self, key: &str) -> Vec<DescribeConfigsSynonym> {
        const TIERS: [ConfigSource; 4] = [
            ConfigSource::DynamicBrokerConfig,
            ConfigSource::DynamicDefaultBrokerConfig,
            ConfigSource::StaticBrokerConfig,
            ConfigSource::DefaultConfig,
        ];
        let chain: Vec<&str> = match self.statics.get(key) {
            Some(entry) if !entry.synonyms.is_empty() => entry.synonyms.iter().map(String::as_str).collect(),
            _ => vec![key],
        };
        let sensitive = self.is_sensitive(key);
        let mut all = Vec::new();
        for source in TIERS {
            for name in &chain {
                if let Some(value) = self.lookup(source, name) {
                    all.push(synonym(name, if sensitive { None } else { Some(value) }, source));
                }
            }
        }
        // Synonyms ahead of the key itself (listener overrides, in Kafka) are not the key's.
        let own = all.iter().position(|s| s.name == key).unwrap_or(all.len());
        all.split_off(own)
    }

    /// The value broker key `name` has at `source`, if it is set there.
    fn lookup(&self, source: ConfigSource, name: &str) -> Option<String> {
        let dynamic = |resource: ConfigResource| self.image.configs().value(&resource, name).map(str::to_owned);
        match source {
            ConfigSource::DynamicBrokerConfig => dynamic(ConfigResource::broker(self.node_id.to_string())),
            ConfigSource::DynamicDefaultBrokerConfig => dynamic(ConfigResource::cluster_default()),
            ConfigSource::StaticBrokerConfig | ConfigSource::DefaultConfig => {
                self.statics.get(name).filter(|e| e.source == source.wire()).and_then(|e| e.value.clone())
            }
            ConfigSource::TopicConfig | ConfigSource::GroupConfig => None,
        }
    }

    /// Kafka's `maybeSensitive`: a secret, or a key of no known type (it might be one).
    fn is_sensitive(&self, key: &str) -> bool {
        if let Some((_, base)) = listener_tls_store_key(key) {
            // Kafka's PASSWORD-typed TLS keys: the passwords, and the inline key and certificates.
            return !base.ends_with(".type") && !base.ends_with(".location");
        }
        match self.statics.get(key) {
            Some(entry) => entry.sensitive || entry.config_type == 0,
            None => topic_config_for_broker_synonym(key).is_none() && broker_quota_config(key).is_none(),
        }
    }
}

/// Kafka's `ConfigType` ids of the listeners' TLS store keys.
const STRING: i8 = 2;
const PASSWORD: i8 = 9;

fn is_dynamic(source: i8) -> bool {
    source == ConfigSource::DynamicBrokerConfig.wire() || source == ConfigSource::DynamicDefaultBrokerConfig.wire()
}

fn synonym(name: &str, value: Option<String>, source: ConfigSource) -> DescribeConfigsSynonym {
    DescribeConfigsSynonym { name: name.to_owned(), value, source: source.wire(), ..DescribeConfigsSynonym::default() }
}

/// DescribeConfigs' `config_type` of a topic config (Kafka's `ConfigType` ids).
fn config_type_id(kind: ConfigType) -> i8 {
    match kind {
        ConfigType::Boolean => 1,
        ConfigType::String => 2,
        ConfigType::Int => 3,
        ConfigType::Long => 5,
        ConfigType::Double => 6,
        ConfigType::List => 7,
    }
}

/// Every resource with `code` and Kafka's default message for it (Kafka's `getErrorResponse`).
fn all_failed(request: &DescribeConfigsRequest, code: ErrorCode) -> DescribeConfigsResponse {
    let results = request
        .resources
        .iter()
        .map(|r| DescribeConfigsResult {
            error_code: code.code(),
            error_message: Some(code.message().to_owned()),
            resource_type: r.resource_type,
            resource_name: r.resource_name.clone(),
            configs: Vec::new(),
            ..DescribeConfigsResult::default()
        })
        .collect();
    DescribeConfigsResponse { results, ..DescribeConfigsResponse::default() }
}
