//! AlterClientQuotas (KIP-546), as Kafka's `ClientQuotaControlManager.alterClientQuotas`.
//!
//! Each entry names an entity (user, client-id, both, or an IP; a null name is the type's
//! default) and operations on its quota keys. Checked as Kafka checks them, each failure
//! INVALID_REQUEST for that entity alone: a known entity type named with a non-empty name; IP
//! never beside user or client-id, and a literal IP address (Kafka also resolves host names; the
//! controller does no I/O); a key known for the entity (`producer_byte_rate`,
//! `consumer_byte_rate`, `request_percentage`, `controller_mutation_rate` for users and clients,
//! `connection_creation_rate` for IPs); a value above 0, whole for integral keys and within
//! their type. A key named twice, or an entity altered twice, fails the entity ("Ignoring
//! duplicate entity"), though an earlier entry's records for it stand, as in Kafka.
//!
//! One `ClientQuotaRecord` per key that changes (a removal only of a key that is set); none at
//! all under `validate_only`. Results come in the order the request first names each entity
//! (Kafka's follow a hash map's order).

use std::collections::BTreeMap;

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::alter_client_quotas_request::EntryData;
use strand_protocol::messages::alter_client_quotas_response::{EntityData, EntryData as ResultData};
use strand_protocol::messages::client_quota_record::EntityData as RecordEntity;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{AlterClientQuotasRequest, AlterClientQuotasResponse, ClientQuotaRecord};

use super::{ApiError, ApiMessageAndVersion, ControllerResult};
use crate::image::client_quotas::{ENTITY_CLIENT_ID, ENTITY_IP, ENTITY_USER};
use crate::image::{ClientQuotaEntity, MetadataImage};

/// A quota key's type in Kafka's `QuotaConfig` definitions, which decides its valid values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuotaKeyType {
    Long,
    Int,
    Double,
}

/// The keys users and client ids may set, with their types.
pub const USER_CLIENT_QUOTA_KEYS: [(&str, QuotaKeyType); 4] = [
    ("producer_byte_rate", QuotaKeyType::Long),
    ("consumer_byte_rate", QuotaKeyType::Long),
    ("request_percentage", QuotaKeyType::Double),
    ("controller_mutation_rate", QuotaKeyType::Double),
];
/// The keys IP entities may set (KIP-612).
pub const IP_QUOTA_KEYS: [(&str, QuotaKeyType); 1] = [("connection_creation_rate", QuotaKeyType::Int)];

/// Sets and removes client quotas: one record per changed key, the request's records one batch.
pub fn alter_client_quotas(
    image: &MetadataImage,
    request: &AlterClientQuotasRequest,
) -> ControllerResult<AlterClientQuotasResponse> {
    let mut records = Vec::new();
    let mut results: Vec<(ClientQuotaEntity, Option<ApiError>)> = Vec::new();
    let mut index: BTreeMap<ClientQuotaEntity, usize> = BTreeMap::new();
    for entry in &request.entries {
        let entity =
            ClientQuotaEntity::new(entry.entity.iter().map(|e| (e.entity_type.as_str(), e.entity_name.as_deref())));
        let mut keys = BTreeMap::new();
        let duplicate_key = entry.ops.iter().any(|op| keys.insert(op.key.as_str(), op).is_some());
        let outcome = if duplicate_key || index.contains_key(&entity) {
            Some(ApiError::new(ErrorCode::InvalidRequest, format!("Ignoring duplicate entity {entity}")))
        } else {
            match alter_entity(image, &entity, entry) {
                Ok(mut changes) => {
                    records.append(&mut changes);
                    None
                }
                Err(error) => Some(error),
            }
        };
        match index.get(&entity) {
            Some(&at) => results[at].1 = outcome,
            None => {
                index.insert(entity.clone(), results.len());
                results.push((entity, outcome));
            }
        }
    }
    if request.validate_only {
        records.clear();
    }
    let entries = results.iter().map(|(entity, error)| result(entity, error.as_ref())).collect();
    ControllerResult { records, response: AlterClientQuotasResponse { entries, ..Default::default() } }
}

/// The records of one entity's alteration, or why it fails (then it writes none).
fn alter_entity(
    image: &MetadataImage,
    entity: &ClientQuotaEntity,
    entry: &EntryData,
) -> Result<Vec<ApiMessageAndVersion>, ApiError> {
    let keys = keys_for(entity)?;
    let current = image.client_quotas().quotas(entity);
    let mut records = Vec::new();
    for op in &entry.ops {
        let now = current.and_then(|quotas| quotas.get(&op.key)).copied();
        let record = if op.remove {
            if now.is_none() {
                continue;
            }
            ClientQuotaRecord { entity: record_entity(entity), key: op.key.clone(), remove: true, ..Default::default() }
        } else {
            check_value(keys, &op.key, op.value)?;
            if now == Some(op.value) {
                continue;
            }
            ClientQuotaRecord {
                entity: record_entity(entity),
                key: op.key.clone(),
                value: op.value,
                ..Default::default()
            }
        };
        records.push(ApiMessageAndVersion::latest(MetadataRecord::ClientQuotaRecord(record)));
    }
    Ok(records)
}

/// The keys `entity` may set, once its types and names pass Kafka's checks.
fn keys_for(entity: &ClientQuotaEntity) -> Result<&'static [(&'static str, QuotaKeyType)], ApiError> {
    let invalid = |message: String| Err(ApiError::new(ErrorCode::InvalidRequest, message));
    if entity.is_empty() {
        return invalid("Invalid empty client quota entity".to_owned());
    }
    for (kind, name) in entity.parts() {
        if ![ENTITY_USER, ENTITY_CLIENT_ID, ENTITY_IP].contains(&kind) {
            return invalid(format!("Unhandled client quota entity type: {kind}"));
        }
        if name == Some("") {
            return invalid(format!("Empty {kind} not supported"));
        }
    }
    match entity.name(ENTITY_IP) {
        Some(_) if entity.len() > 1 => invalid(
            "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId".to_owned(),
        ),
        Some(Some(ip)) if ip.parse::<std::net::IpAddr>().is_err() => {
            invalid(format!("{ip} is not a valid IP or resolvable host."))
        }
        Some(_) => Ok(&IP_QUOTA_KEYS),
        None => Ok(&USER_CLIENT_QUOTA_KEYS),
    }
}

/// Kafka's `validateQuotaKeyValue`: a known key, a positive value, whole and in range for
/// integral types.
fn check_value(keys: &[(&str, QuotaKeyType)], key: &str, value: f64) -> Result<(), ApiError> {
    let invalid = |message: String| Err(ApiError::new(ErrorCode::InvalidRequest, message));
    let Some((_, kind)) = keys.iter().find(|(name, _)| *name == key) else {
        return invalid(format!("Invalid configuration key {key}"));
    };
    // `!(value > 0.0)` also refuses NaN, which Java's `value <= 0.0` would let through to the
    // integral checks (and a double quota); a NaN quota would never throttle.
    if value.is_nan() || value <= 0.0 {
        return invalid(format!("Quota {key} must be greater than 0"));
    }
    let too_large = match kind {
        QuotaKeyType::Double => return Ok(()),
        QuotaKeyType::Int => (value > f64::from(i32::MAX)).then_some("an INT"),
        QuotaKeyType::Long => (value > i64::MAX as f64).then_some("a LONG"),
    };
    if let Some(type_name) = too_large {
        return invalid(format!("Proposed value for {key} is too large for {type_name}."));
    }
    if (value % 1.0).abs() > 1e-6 {
        return invalid(format!("{key} cannot be a fractional value."));
    }
    Ok(())
}

fn record_entity(entity: &ClientQuotaEntity) -> Vec<RecordEntity> {
    entity
        .parts()
        .map(|(kind, name)| RecordEntity {
            entity_type: kind.to_owned(),
            entity_name: name.map(str::to_owned),
            ..Default::default()
        })
        .collect()
}

fn result(entity: &ClientQuotaEntity, error: Option<&ApiError>) -> ResultData {
    ResultData {
        error_code: error.map_or(0, |e| e.code.code()),
        error_message: error.and_then(|e| e.message.clone()),
        entity: entity
            .parts()
            .map(|(kind, name)| EntityData {
                entity_type: kind.to_owned(),
                entity_name: name.map(str::to_owned),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}
