//! The `--cluster-metadata-decoder` record format: a `__cluster_metadata` record printed as
//! Kafka 4.4's `ClusterMetadataLogMessageParser` prints it, `{"type":"<NAME>","version":V,
//! "data":{...}}`, the data as the JSON of Kafka's generated converter (fields of the record's
//! version in schema order, tagged fields only when they differ from Kafka's default).
//!
//! Every record type Strand writes is printed; a record that does not decode prints Kafka's
//! `Error at <offset>, skipping.` line.

use bytes::Bytes;
use strand_protocol::codec::Decoder;
use strand_protocol::messages::PartitionChangeRecord;
use strand_protocol::messages::records::MetadataRecord;

use super::json::{Object, binary, list, optional_text, text, uuid};

/// The payload printed for one metadata record's value (`None`: a record without a value).
pub fn payload(value: Option<&[u8]>, offset: i64) -> String {
    match value.map(decode) {
        Some(Ok((record, version, read_at))) => format!(
            "{{\"type\":\"{}\",\"version\":{version},\"data\":{}}}",
            type_name(record.api_key()),
            record_json(&record, read_at)
        ),
        Some(Err(message)) => format!("Error at {offset}, skipping. {message}"),
        None => format!("Error at {offset}, skipping. null"),
    }
}

/// Reads a value framed as Kafka frames metadata records: unsigned varints for the frame
/// version (1), the record type and its version, then the record. Returns the record, its
/// version and the version it was read at: Kafka's generated readers read a version past the
/// newest they know as the newest (their fields are gated by `version >= n`), and so does this.
fn decode(value: &[u8]) -> Result<(MetadataRecord, i16, i16), String> {
    let mut d = Decoder::new(Bytes::copy_from_slice(value));
    let mut varint = |field: &str| {
        let read = d.unsigned_varint().map_err(|_| format!("Error while reading {field}"))?;
        i16::try_from(read).map_err(|_| format!("Value for {field} was too large."))
    };
    let frame = varint("frame version")?;
    match frame {
        1 => {}
        0 => {
            return Err("Could not deserialize metadata record with frame version 0. Note that upgrades from the \
                        preview release of KRaft in 2.8 to newer versions are not supported."
                .into());
        }
        _ => {
            return Err(format!(
                "Could not deserialize metadata record due to unknown frame version {frame}(only frame version 1 is \
                 supported)"
            ));
        }
    }
    let api_key = varint("type")?;
    let version = varint("version")?;
    let Some(versions) = MetadataRecord::versions(api_key) else {
        return Err(format!(
            "org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id {api_key}"
        ));
    };
    let read_at = version.min(versions.max);
    let record = MetadataRecord::decode(api_key, &mut d, read_at)
        .map_err(|_| format!("Failed to deserialize record with type {api_key}"))?;
    Ok((record, version, read_at))
}

/// Kafka's `MetadataRecordType` name of a record type.
fn type_name(api_key: i16) -> &'static str {
    const NAMES: [&str; 30] = [
        "REGISTER_BROKER_RECORD",
        "UNREGISTER_BROKER_RECORD",
        "TOPIC_RECORD",
        "PARTITION_RECORD",
        "CONFIG_RECORD",
        "PARTITION_CHANGE_RECORD",
        "ACCESS_CONTROL_RECORD",
        "FENCE_BROKER_RECORD",
        "UNFENCE_BROKER_RECORD",
        "REMOVE_TOPIC_RECORD",
        "DELEGATION_TOKEN_RECORD",
        "USER_SCRAM_CREDENTIAL_RECORD",
        "FEATURE_LEVEL_RECORD",
        "FAILED_ACCESS_CONTROL_RECORD",
        "CLIENT_QUOTA_RECORD",
        "PRODUCER_IDS_RECORD",
        "REMOVE_FEATURE_LEVEL_RECORD",
        "BROKER_REGISTRATION_CHANGE_RECORD",
        "ACCESS_CONTROL_ENTRY_RECORD",
        "REMOVE_ACCESS_CONTROL_ENTRY_RECORD",
        "NO_OP_RECORD",
        "ZK_MIGRATION_STATE_RECORD",
        "REMOVE_USER_SCRAM_CREDENTIAL_RECORD",
        "BEGIN_TRANSACTION_RECORD",
        "END_TRANSACTION_RECORD",
        "ABORT_TRANSACTION_RECORD",
        "REMOVE_DELEGATION_TOKEN_RECORD",
        "REGISTER_CONTROLLER_RECORD",
        "CLEAR_ELR_RECORD",
        "UNREGISTER_CONTROLLER_RECORD",
    ];
    usize::try_from(api_key).ok().and_then(|i| NAMES.get(i)).copied().unwrap_or("UNKNOWN")
}

/// A record's `data` object.
fn record_json(record: &MetadataRecord, version: i16) -> String {
    use MetadataRecord as R;
    let uuids = |ids: &[strand_base::Uuid]| list(ids, uuid);
    let features = |all: &mut dyn Iterator<Item = (&str, i16, i16)>| {
        let items: Vec<String> = all
            .map(|(name, min, max)| {
                Object::new()
                    .field("name", text(name))
                    .field("minSupportedVersion", min)
                    .field("maxSupportedVersion", max)
                    .end()
            })
            .collect();
        format!("[{}]", items.join(","))
    };
    let endpoint = |name: &str, host: &str, port: u16, protocol: i16| {
        Object::new()
            .field("name", text(name))
            .field("host", text(host))
            .field("port", port)
            .field("securityProtocol", protocol)
            .end()
    };
    match record {
        R::FeatureLevelRecord(r) => {
            Object::new().field("name", text(&r.name)).field("featureLevel", r.feature_level).end()
        }
        R::ConfigRecord(r) => Object::new()
            .field("resourceType", r.resource_type)
            .field("resourceName", text(&r.resource_name))
            .field("name", text(&r.name))
            .field("value", optional_text(r.value.as_deref()))
            .end(),
        R::TopicRecord(r) => Object::new().field("name", text(&r.name)).field("topicId", uuid(&r.topic_id)).end(),
        R::ProducerIdsRecord(r) => Object::new()
            .field("brokerId", r.broker_id.0)
            .field("brokerEpoch", r.broker_epoch)
            .field("nextProducerId", r.next_producer_id)
            .end(),
        R::NoOpRecord(_) => "{}".to_owned(),
        R::RegisterBrokerRecord(r) => {
            let mut o = Object::new();
            o.field("brokerId", r.broker_id.0);
            if version >= 2 {
                o.field("isMigratingZkBroker", r.is_migrating_zk_broker);
            }
            let end_points = list(&r.end_points, |e| endpoint(&e.name, &e.host, e.port, e.security_protocol));
            let features = features(
                &mut r.features.iter().map(|f| (f.name.as_str(), f.min_supported_version, f.max_supported_version)),
            );
            o.field("incarnationId", uuid(&r.incarnation_id))
                .field("brokerEpoch", r.broker_epoch)
                .field("endPoints", end_points)
                .field("features", features)
                .field("rack", optional_text(r.rack.as_deref()))
                .field("fenced", r.fenced);
            if version >= 1 {
                o.field("inControlledShutdown", r.in_controlled_shutdown);
            }
            if version >= 3 && !r.log_dirs.is_empty() {
                o.field("logDirs", uuids(&r.log_dirs));
            }
            if let (true, Some(dirs)) = (version >= 4, &r.cordoned_log_dirs) {
                o.field("cordonedLogDirs", uuids(dirs));
            }
            o.end()
        }
        R::RegisterControllerRecord(r) => {
            let end_points = list(&r.end_points, |e| endpoint(&e.name, &e.host, e.port, e.security_protocol));
            let features = features(
                &mut r.features.iter().map(|f| (f.name.as_str(), f.min_supported_version, f.max_supported_version)),
            );
            Object::new()
                .field("controllerId", r.controller_id)
                .field("incarnationId", uuid(&r.incarnation_id))
                .field("zkMigrationReady", r.zk_migration_ready)
                .field("endPoints", end_points)
                .field("features", features)
                .end()
        }
        R::BrokerRegistrationChangeRecord(r) => {
            let mut o = Object::new();
            o.field("brokerId", r.broker_id.0).field("brokerEpoch", r.broker_epoch);
            if r.fenced != 0 {
                o.field("fenced", r.fenced);
            }
            if version >= 1 && r.in_controlled_shutdown != 0 {
                o.field("inControlledShutdown", r.in_controlled_shutdown);
            }
            if version >= 2 && !r.log_dirs.is_empty() {
                o.field("logDirs", uuids(&r.log_dirs));
            }
            if let (true, Some(dirs)) = (version >= 3, &r.cordoned_log_dirs) {
                o.field("cordonedLogDirs", uuids(dirs));
            }
            o.end()
        }
        R::PartitionRecord(r) => {
            let brokers = |ids: &[strand_base::BrokerId]| list(ids, |b| b.0);
            let mut o = Object::new();
            o.field("partitionId", r.partition_id)
                .field("topicId", uuid(&r.topic_id))
                .field("replicas", brokers(&r.replicas))
                .field("isr", list(&r.isr, |i| *i))
                .field("removingReplicas", brokers(&r.removing_replicas))
                .field("addingReplicas", brokers(&r.adding_replicas))
                .field("leader", r.leader.0);
            if r.leader_recovery_state != 0 {
                o.field("leaderRecoveryState", r.leader_recovery_state);
            }
            o.field("leaderEpoch", r.leader_epoch).field("partitionEpoch", r.partition_epoch);
            if version >= 1 {
                o.field("directories", uuids(&r.directories));
            }
            if version >= 2 {
                if let Some(elr) = &r.eligible_leader_replicas {
                    o.field("eligibleLeaderReplicas", brokers(elr));
                }
                if let Some(last) = &r.last_known_elr {
                    o.field("lastKnownElr", brokers(last));
                }
            }
            o.end()
        }
        R::PartitionChangeRecord(r) => partition_change_json(r, version),
        R::FenceBrokerRecord(r) => Object::new().field("id", r.id.0).field("epoch", r.epoch).end(),
        R::UnfenceBrokerRecord(r) => Object::new().field("id", r.id.0).field("epoch", r.epoch).end(),
        R::UnregisterBrokerRecord(r) => {
            Object::new().field("brokerId", r.broker_id.0).field("brokerEpoch", r.broker_epoch).end()
        }
        R::UnregisterControllerRecord(r) => Object::new().field("controllerId", r.controller_id).end(),
        R::RemoveTopicRecord(r) => Object::new().field("topicId", uuid(&r.topic_id)).end(),
        R::ClearElrRecord(r) => Object::new().field("topicName", text(&r.topic_name)).end(),
        R::ZkMigrationStateRecord(r) => Object::new().field("zkMigrationState", r.zk_migration_state).end(),
        R::ClientQuotaRecord(r) => {
            let entity = list(&r.entity, |e| {
                Object::new()
                    .field("entityType", text(&e.entity_type))
                    .field("entityName", optional_text(e.entity_name.as_deref()))
                    .end()
            });
            Object::new()
                .field("entity", entity)
                .field("key", text(&r.key))
                .field("value", java_double(r.value))
                .field("remove", r.remove)
                .end()
        }
        R::AccessControlEntryRecord(r) => Object::new()
            .field("id", uuid(&r.id))
            .field("resourceType", r.resource_type)
            .field("resourceName", text(&r.resource_name))
            .field("patternType", r.pattern_type)
            .field("principal", text(&r.principal))
            .field("host", text(&r.host))
            .field("operation", r.operation)
            .field("permissionType", r.permission_type)
            .end(),
        R::RemoveAccessControlEntryRecord(r) => Object::new().field("id", uuid(&r.id)).end(),
        R::UserScramCredentialRecord(r) => Object::new()
            .field("name", text(&r.name))
            .field("mechanism", r.mechanism)
            .field("salt", binary(&r.salt))
            .field("storedKey", binary(&r.stored_key))
            .field("serverKey", binary(&r.server_key))
            .field("iterations", r.iterations)
            .end(),
        R::RemoveUserScramCredentialRecord(r) => {
            Object::new().field("name", text(&r.name)).field("mechanism", r.mechanism).end()
        }
        R::DelegationTokenRecord(r) => Object::new()
            .field("owner", text(&r.owner))
            .field("requester", text(&r.requester))
            .field("renewers", list(&r.renewers, |n| text(n)))
            .field("issueTimestamp", r.issue_timestamp)
            .field("maxTimestamp", r.max_timestamp)
            .field("expirationTimestamp", r.expiration_timestamp)
            .field("tokenId", text(&r.token_id))
            .end(),
        R::RemoveDelegationTokenRecord(r) => Object::new().field("tokenId", text(&r.token_id)).end(),
        R::BeginTransactionRecord(r) => {
            let mut o = Object::new();
            if let Some(name) = &r.name {
                o.field("name", text(name));
            }
            o.end()
        }
        R::EndTransactionRecord(_) => "{}".to_owned(),
        R::AbortTransactionRecord(r) => {
            let mut o = Object::new();
            if let Some(reason) = &r.reason {
                o.field("reason", text(reason));
            }
            o.end()
        }
    }
}

/// A partition change: every field but the partition is tagged, and printed only when it
/// differs from Kafka's default (null lists, leader -2 for "no change", recovery state -1).
fn partition_change_json(r: &PartitionChangeRecord, version: i16) -> String {
    let brokers = |ids: &[strand_base::BrokerId]| list(ids, |b| b.0);
    let defaults = PartitionChangeRecord::default();
    let mut o = Object::new();
    o.field("partitionId", r.partition_id).field("topicId", uuid(&r.topic_id));
    if let Some(isr) = &r.isr {
        o.field("isr", brokers(isr));
    }
    if r.leader != defaults.leader {
        o.field("leader", r.leader.0);
    }
    for (name, ids) in
        [("replicas", &r.replicas), ("removingReplicas", &r.removing_replicas), ("addingReplicas", &r.adding_replicas)]
    {
        if let Some(ids) = ids {
            o.field(name, brokers(ids));
        }
    }
    if r.leader_recovery_state != defaults.leader_recovery_state {
        o.field("leaderRecoveryState", r.leader_recovery_state);
    }
    if let (true, Some(dirs)) = (version >= 1, &r.directories) {
        o.field("directories", list(dirs, uuid));
    }
    if version >= 2 {
        if let Some(elr) = &r.eligible_leader_replicas {
            o.field("eligibleLeaderReplicas", brokers(elr));
        }
        if let Some(last) = &r.last_known_elr {
            o.field("lastKnownElr", brokers(last));
        }
    }
    o.end()
}

/// A float64 as Java's `Double.toString` (which Jackson uses): at least one decimal, and the
/// exponent form below 10^-3 and from 10^7 on.
fn java_double(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    let magnitude = value.abs();
    if value == 0.0 || (1e-3..1e7).contains(&magnitude) {
        let plain = format!("{value:?}");
        return if plain.contains('.') { plain } else { format!("{plain}.0") };
    }
    // `{:e}` is the shortest round-trip digits, as Java's; only the layout differs.
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let mantissa = if mantissa.contains('.') { mantissa.to_owned() } else { format!("{mantissa}.0") };
    format!("{mantissa}E{exponent}")
}

#[cfg(test)]
mod tests {
    use strand_protocol::Message;
    use strand_protocol::messages::{FeatureLevelRecord, NoOpRecord};

    use super::*;

    /// A record framed as Kafka frames it: frame version 1, type, version, then the record.
    fn framed<M: Message>(api_key: u8, version: u8, record: &M) -> Vec<u8> {
        let mut out = vec![1, api_key, version];
        out.extend_from_slice(&record.encode_to_bytes(i16::from(version)).expect("record"));
        out
    }

    /// A record prints its type's name, its version and its fields.
    #[test]
    fn a_record_prints_its_type_version_and_fields() {
        let level = FeatureLevelRecord { name: "metadata.version".into(), feature_level: 27, ..Default::default() };
        let expected =
            r#"{"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":27}}"#;
        assert_eq!(payload(Some(&framed(12, 0, &level)), 5), expected);
        assert_eq!(
            payload(Some(&framed(20, 0, &NoOpRecord::default())), 5),
            r#"{"type":"NO_OP_RECORD","version":0,"data":{}}"#
        );
    }

    /// Frames, types and versions Kafka cannot read are its error lines; no panic on any prefix.
    #[test]
    fn what_kafka_cannot_read_is_its_error_line() {
        let level = framed(12, 0, &FeatureLevelRecord::default());
        let mut frame_zero = level.clone();
        frame_zero[0] = 0;
        assert!(
            payload(Some(&frame_zero), 5)
                .starts_with("Error at 5, skipping. Could not deserialize metadata record with frame version 0.")
        );
        let mut frame_two = level.clone();
        frame_two[0] = 2;
        assert_eq!(
            payload(Some(&frame_two), 5),
            "Error at 5, skipping. Could not deserialize metadata record due to unknown frame version 2(only frame version 1 is supported)"
        );
        let mut future = level.clone();
        future[2] = 9;
        let newest = r#"{"type":"FEATURE_LEVEL_RECORD","version":9,"data":{"name":"","featureLevel":0}}"#;
        assert_eq!(payload(Some(&future), 5), newest, "read as the newest version, as Kafka reads it");
        assert_eq!(payload(Some(&level[..4]), 5), "Error at 5, skipping. Failed to deserialize record with type 12");
        assert_eq!(
            payload(Some(&[1, 99, 0]), 5),
            "Error at 5, skipping. org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id 99"
        );
        for end in 0..level.len() {
            assert!(payload(Some(&level[..end]), 5).starts_with("Error at 5, skipping. "), "{end} bytes");
        }
    }

    /// A partition change prints only the tagged fields that differ from Kafka's defaults.
    #[test]
    fn a_partition_change_prints_what_changed() {
        let change = PartitionChangeRecord {
            partition_id: 2,
            isr: Some(vec![strand_base::BrokerId(1)]),
            ..PartitionChangeRecord::default()
        };
        let expected = r#"{"type":"PARTITION_CHANGE_RECORD","version":0,"data":{"partitionId":2,"topicId":"AAAAAAAAAAAAAAAAAAAAAA","isr":[1]}}"#;
        assert_eq!(payload(Some(&framed(5, 0, &change)), 5), expected);
    }

    /// Doubles print as Java prints them.
    #[test]
    fn doubles_print_as_java_prints_them() {
        for (value, java) in [
            (1024.0, "1024.0"),
            (0.5, "0.5"),
            (1e7, "1.0E7"),
            (12345678.9, "1.23456789E7"),
            (0.0001, "1.0E-4"),
            (0.0, "0.0"),
        ] {
            assert_eq!(java_double(value), java, "{value}");
        }
    }
}
