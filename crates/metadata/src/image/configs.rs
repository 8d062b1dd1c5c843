//! Dynamic configs per resource, from `ConfigRecord`s, as Kafka's `ConfigurationsImage`: topic
//! overrides and dynamic broker configs. Static `server.properties` values are not here.

use std::collections::BTreeMap;
use std::fmt;

use strand_protocol::messages::ConfigRecord;

use super::ReplayError;

/// Kafka's `ConfigResource.Type`, with its wire ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConfigResourceKind {
    Unknown,
    Topic,
    Broker,
    BrokerLogger,
    ClientMetrics,
    Group,
}

impl ConfigResourceKind {
    /// The kind a wire id names, `None` for an id Kafka does not define.
    pub fn from_wire(id: i8) -> Option<ConfigResourceKind> {
        match id {
            0 => Some(ConfigResourceKind::Unknown),
            2 => Some(ConfigResourceKind::Topic),
            4 => Some(ConfigResourceKind::Broker),
            8 => Some(ConfigResourceKind::BrokerLogger),
            16 => Some(ConfigResourceKind::ClientMetrics),
            32 => Some(ConfigResourceKind::Group),
            _ => None,
        }
    }

    /// The wire id.
    pub fn wire(self) -> i8 {
        match self {
            ConfigResourceKind::Unknown => 0,
            ConfigResourceKind::Topic => 2,
            ConfigResourceKind::Broker => 4,
            ConfigResourceKind::BrokerLogger => 8,
            ConfigResourceKind::ClientMetrics => 16,
            ConfigResourceKind::Group => 32,
        }
    }
}

/// What a config belongs to: a topic by name, a broker by id (the empty name is the cluster-wide
/// default of every broker), a group, ...
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConfigResource {
    pub kind: ConfigResourceKind,
    pub name: String,
}

impl ConfigResource {
    pub fn topic(name: impl Into<String>) -> ConfigResource {
        ConfigResource { kind: ConfigResourceKind::Topic, name: name.into() }
    }

    pub fn broker(name: impl Into<String>) -> ConfigResource {
        ConfigResource { kind: ConfigResourceKind::Broker, name: name.into() }
    }

    /// The cluster-wide dynamic broker default (`BROKER` with the empty name).
    pub fn cluster_default() -> ConfigResource {
        ConfigResource::broker("")
    }
}

impl fmt::Display for ConfigResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} '{}'", self.kind, self.name)
    }
}

/// Config keys and values per resource. A resource with no keys is absent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigsImage {
    resources: BTreeMap<ConfigResource, BTreeMap<String, String>>,
}

impl ConfigsImage {
    /// The keys set on `resource`, if any.
    pub fn resource(&self, resource: &ConfigResource) -> Option<&BTreeMap<String, String>> {
        self.resources.get(resource)
    }

    /// The value of `key` on `resource`, if it is set.
    pub fn value(&self, resource: &ConfigResource, key: &str) -> Option<&str> {
        self.resources.get(resource)?.get(key).map(String::as_str)
    }

    /// The resources whose keys or values differ between `self` and `newer`.
    pub fn changed_resources<'a>(&'a self, newer: &'a ConfigsImage) -> impl Iterator<Item = &'a ConfigResource> {
        let changed = self.resources.iter().filter(|(r, keys)| newer.resources.get(*r) != Some(*keys)).map(|(r, _)| r);
        let added = newer.resources.keys().filter(|r| !self.resources.contains_key(*r));
        changed.chain(added)
    }

    /// Every resource with at least one key, in order.
    pub fn resources(&self) -> impl Iterator<Item = (&ConfigResource, &BTreeMap<String, String>)> {
        self.resources.iter()
    }

    /// Kafka's `ConfigurationsDelta.replay(ConfigRecord)`: a null value deletes the key.
    pub(super) fn replay(&mut self, record: &ConfigRecord) -> Result<(), ReplayError> {
        let kind = ConfigResourceKind::from_wire(record.resource_type)
            .ok_or(ReplayError::UnknownConfigResourceType(record.resource_type))?;
        let resource = ConfigResource { kind, name: record.resource_name.clone() };
        match &record.value {
            Some(value) => {
                self.resources.entry(resource).or_default().insert(record.name.clone(), value.clone());
            }
            None => {
                if let Some(keys) = self.resources.get_mut(&resource) {
                    keys.remove(&record.name);
                    if keys.is_empty() {
                        self.resources.remove(&resource);
                    }
                }
            }
        }
        Ok(())
    }

    /// A deleted topic takes its configs with it.
    pub(super) fn remove(&mut self, resource: &ConfigResource) {
        self.resources.remove(resource);
    }
}
