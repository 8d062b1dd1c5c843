//! Client quotas, from `ClientQuotaRecord`s, as Kafka's `ClientQuotasImage` (KIP-546): per
//! [`ClientQuotaEntity`] (a user, a client id, both, or an IP, each possibly the default), the
//! quota values it sets by key (`producer_byte_rate`, `consumer_byte_rate`, `request_percentage`,
//! `controller_mutation_rate`, `connection_creation_rate`).
//!
//! [`ClientQuotasImage::describe`] answers DescribeClientQuotas with Kafka's match semantics;
//! [`ClientQuotasImage::get`] is what quota enforcement reads.

use std::collections::BTreeMap;

use strand_protocol::messages::ClientQuotaRecord;
use strand_protocol::messages::client_quota_record::EntityData;

/// Kafka's `ClientQuotaEntity` types.
pub const ENTITY_USER: &str = "user";
pub const ENTITY_CLIENT_ID: &str = "client-id";
pub const ENTITY_IP: &str = "ip";

/// One quota entity: each entity type it names with its name, `None` for that type's default
/// (Kafka's `<default>`). Types are kept as the record wrote them, so a foreign log still loads.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClientQuotaEntity(BTreeMap<String, Option<String>>);

impl ClientQuotaEntity {
    /// An entity from `(type, name)` pairs; a later pair for a type replaces an earlier one, as
    /// Kafka's `ClientQuotaEntity` map does.
    pub fn new<'a>(parts: impl IntoIterator<Item = (&'a str, Option<&'a str>)>) -> ClientQuotaEntity {
        ClientQuotaEntity(parts.into_iter().map(|(kind, name)| (kind.to_owned(), name.map(str::to_owned))).collect())
    }

    /// The entity's types and names, types in name order.
    pub fn parts(&self) -> impl Iterator<Item = (&str, Option<&str>)> {
        self.0.iter().map(|(kind, name)| (kind.as_str(), name.as_deref()))
    }

    /// The name it gives `kind`: `None` if it does not name that type, `Some(None)` for the
    /// type's default.
    pub fn name(&self, kind: &str) -> Option<Option<&str>> {
        self.0.get(kind).map(Option::as_deref)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Display for ClientQuotaEntity {
    /// As Kafka's `ClientQuotaEntity.toString`: `ClientQuotaEntity(entries={user=alice})`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let entries: Vec<String> =
            self.0.iter().map(|(kind, name)| format!("{kind}={}", name.as_deref().unwrap_or("null"))).collect();
        write!(f, "ClientQuotaEntity(entries={{{}}})", entries.join(", "))
    }
}

/// A describe filter, validated: the types matched exactly (`None`: the default), the types
/// that must merely be present, and whether an entity may name other types too.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientQuotaFilter {
    pub exact: BTreeMap<String, Option<String>>,
    pub specified: Vec<String>,
    pub strict: bool,
}

impl ClientQuotaFilter {
    /// Kafka's `ClientQuotasImage` match: every exact type with its name, every specified type
    /// present (any name, the default included), and under `strict` no other type.
    pub fn matches(&self, entity: &ClientQuotaEntity) -> bool {
        if self.strict && entity.len() != self.exact.len() + self.specified.len() {
            return false;
        }
        let exact = self.exact.iter().all(|(kind, name)| entity.name(kind) == Some(name.as_deref()));
        exact && self.specified.iter().all(|kind| entity.name(kind).is_some())
    }
}

/// Every entity with a quota, and its values by key. An entity with none is absent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientQuotasImage {
    entities: BTreeMap<ClientQuotaEntity, BTreeMap<String, f64>>,
    /// How many entities set each key: enforcement asks whether any does on every request.
    key_counts: BTreeMap<String, usize>,
}

impl ClientQuotasImage {
    /// Whether any entity sets `key`.
    pub fn any_sets(&self, key: &str) -> bool {
        self.key_counts.contains_key(key)
    }

    /// The quota `key` of exactly `entity`, if it sets one.
    pub fn get(&self, entity: &ClientQuotaEntity, key: &str) -> Option<f64> {
        self.entities.get(entity)?.get(key).copied()
    }

    /// `entity`'s quotas by key, if it has any.
    pub fn quotas(&self, entity: &ClientQuotaEntity) -> Option<&BTreeMap<String, f64>> {
        self.entities.get(entity)
    }

    /// Every entity with its quotas, in entity order.
    pub fn entities(&self) -> impl Iterator<Item = (&ClientQuotaEntity, &BTreeMap<String, f64>)> {
        self.entities.iter()
    }

    /// The entities `filter` matches, with their quotas, in entity order.
    pub fn describe<'a>(
        &'a self,
        filter: &'a ClientQuotaFilter,
    ) -> impl Iterator<Item = (&'a ClientQuotaEntity, &'a BTreeMap<String, f64>)> {
        self.entities.iter().filter(|(entity, _)| filter.matches(entity))
    }

    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// The records that recreate this image, entities in order, keys in name order.
    pub(super) fn to_records(&self) -> impl Iterator<Item = ClientQuotaRecord> + '_ {
        self.entities.iter().flat_map(|(entity, quotas)| {
            quotas.iter().map(move |(key, value)| ClientQuotaRecord {
                entity: entity
                    .parts()
                    .map(|(kind, name)| EntityData {
                        entity_type: kind.to_owned(),
                        entity_name: name.map(str::to_owned),
                        ..Default::default()
                    })
                    .collect(),
                key: key.clone(),
                value: *value,
                remove: false,
                ..Default::default()
            })
        })
    }

    /// Sets or removes one quota, as Kafka's `ClientQuotaControlManager.replay`: removing a key
    /// that is not there changes nothing, and an entity left without quotas is forgotten.
    pub(super) fn replay(&mut self, record: &ClientQuotaRecord) {
        let entity =
            ClientQuotaEntity::new(record.entity.iter().map(|e| (e.entity_type.as_str(), e.entity_name.as_deref())));
        if record.remove {
            if let Some(quotas) = self.entities.get_mut(&entity) {
                if quotas.remove(&record.key).is_some() {
                    count_key(&mut self.key_counts, &record.key, false);
                }
                if quotas.is_empty() {
                    self.entities.remove(&entity);
                }
            }
        } else if self.entities.entry(entity).or_default().insert(record.key.clone(), record.value).is_none() {
            count_key(&mut self.key_counts, &record.key, true);
        }
    }
}

/// Counts `key` set on one more entity (`added`) or one fewer.
fn count_key(counts: &mut BTreeMap<String, usize>, key: &str, added: bool) {
    let count = counts.entry(key.to_owned()).or_default();
    if added {
        *count += 1;
    } else {
        *count = count.saturating_sub(1);
        if *count == 0 {
            counts.remove(key);
        }
    }
}
