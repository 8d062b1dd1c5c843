//! The `--offsets-decoder` and `--transaction-log-decoder` record formats: a coordinator
//! record's key and value printed as Kafka 4.4's `CoordinatorRecordMessageParser` prints them.
//!
//! A key is `{"type":"<record type>","data":{...}}`, a value `{"version":"<version>","data":{...}}`
//! and a tombstone `<DELETE>`. The `data` objects are the JSON of Kafka's generated converters:
//! camelCase field names in schema order, only the fields of the record's version, tagged
//! fields only when they differ from their default, bytes as base64, uuids in Kafka's form.
//! Two rewrites Kafka's tool makes are made too: a classic group of protocol type `consumer`
//! shows each member's subscription and assignment decoded (left as bytes if they do not
//! decode), and a transaction's status is its state's name.
//!
//! Records of an unknown type, of a version Kafka does not know, or that do not decode are one
//! line saying so, as Kafka's tool says it; nothing here panics on a file's bytes. Every group,
//! transaction and share-state record type is printed.

use std::fmt::Display;

use bytes::Bytes;
use strand_base::Uuid;
use strand_coordinator::group::records::{CoordinatorRecord, RecordDecodeError};
use strand_protocol::codec::{Decoder, Message, Struct};
use strand_protocol::messages::group_metadata_value::MemberMetadata;
use strand_protocol::messages::records::{
    GroupCoordinatorKey, GroupCoordinatorValue, ShareCoordinatorKey, ShareCoordinatorValue, TransactionCoordinatorKey,
    TransactionCoordinatorValue,
};
use strand_protocol::messages::{
    ConsumerGroupMemberMetadataValue, ConsumerGroupMetadataValue, ConsumerGroupTargetAssignmentMetadataValue,
    ConsumerProtocolAssignment, ConsumerProtocolSubscription, GroupMetadataValue, OffsetCommitValue,
    ShareGroupTargetAssignmentMetadataValue, ShareSnapshotValue, ShareUpdateValue, StreamsGroupMetadataValue,
    StreamsGroupTargetAssignmentMetadataValue, StreamsGroupTopologyValue, TransactionLogValue,
};
use strand_protocol::records::Record;

use super::json::{Object, binary, list, optional_binary, optional_text, text, uuid};

/// Which coordinator's records a segment holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoordinatorDecoder {
    /// `__consumer_offsets`: the group coordinator's records.
    Offsets,
    /// `__transaction_state`: the transaction coordinator's records.
    TransactionLog,
    /// `__share_group_state`: the share coordinator's records.
    ShareGroupState,
}

/// What is printed of one record: its key's text and its value's, each if there is one.
#[derive(Debug, PartialEq, Eq)]
pub struct Parsed {
    pub key: Option<String>,
    pub payload: Option<String>,
}

/// Parses one record as `decoder`'s records; `Err` (ending the dump, as Kafka's tool ends) for a
/// record without a key.
pub fn parse(decoder: CoordinatorDecoder, record: &Record<'_>, offset: i64) -> Result<Parsed, String> {
    let Some(key) = record.key() else {
        return Err(format!(
            "Failed to decode message at offset {offset} using the specified decoder (message had a missing key)"
        ));
    };
    Ok(parse_bytes(decoder, key, record.value(), offset))
}

/// [`parse`] on a record's key and value bytes.
pub fn parse_bytes(decoder: CoordinatorDecoder, key: &[u8], value: Option<&[u8]>, offset: i64) -> Parsed {
    let failed =
        |message: String| Parsed { key: Some(format!("Error at offset {offset}, skipping. {message}")), payload: None };
    let Some(record_type) = read_i16(key) else {
        return failed("Could not read version from key's buffer.".into());
    };
    let key_json = match key_json(decoder, record_type, &key[2..]) {
        KeyJson::Unknown => {
            return Parsed {
                key: Some(format!("Unknown record type {record_type} at offset {offset}, skipping.")),
                payload: None,
            };
        }
        KeyJson::Failed(message) => return failed(message),
        KeyJson::Json(json) => json,
    };
    let key_text = format!("{{\"type\":\"{record_type}\",\"data\":{key_json}}}");
    let Some(value) = value else {
        return Parsed { key: Some(key_text), payload: Some("<DELETE>".into()) };
    };
    match value_json(decoder, record_type, key, value) {
        Ok((version, json)) => {
            Parsed { key: Some(key_text), payload: Some(format!("{{\"version\":\"{version}\",\"data\":{json}}}")) }
        }
        Err(message) => failed(message),
    }
}

enum KeyJson {
    Json(String),
    Unknown,
    Failed(String),
}

fn read_i16(bytes: &[u8]) -> Option<i16> {
    Some(i16::from_be_bytes([*bytes.first()?, *bytes.get(1)?]))
}

/// A key's `data` object; keys are read at version 0 (their only one).
fn key_json(decoder: CoordinatorDecoder, record_type: i16, bytes: &[u8]) -> KeyJson {
    let mut d = Decoder::new(Bytes::copy_from_slice(bytes));
    let read_failed = |e: &dyn Display| {
        KeyJson::Failed(format!("Could not read record with version {record_type} from key's buffer due to: {e}."))
    };
    match decoder {
        CoordinatorDecoder::TransactionLog => {
            if TransactionCoordinatorKey::versions(record_type).is_none() {
                return KeyJson::Unknown;
            }
            match TransactionCoordinatorKey::decode(record_type, &mut d, 0) {
                Ok(TransactionCoordinatorKey::TransactionLogKey(k)) => {
                    KeyJson::Json(Object::new().field("transactionalId", text(&k.transactional_id)).end())
                }
                Err(e) => read_failed(&e),
            }
        }
        CoordinatorDecoder::ShareGroupState => {
            if ShareCoordinatorKey::versions(record_type).is_none() {
                return KeyJson::Unknown;
            }
            match ShareCoordinatorKey::decode(record_type, &mut d, 0) {
                Ok(ShareCoordinatorKey::ShareSnapshotKey(k)) => {
                    KeyJson::Json(share_key(&k.group_id, &k.topic_id, k.partition))
                }
                Ok(ShareCoordinatorKey::ShareUpdateKey(k)) => {
                    KeyJson::Json(share_key(&k.group_id, &k.topic_id, k.partition))
                }
                Err(e) => read_failed(&e),
            }
        }
        CoordinatorDecoder::Offsets => {
            if GroupCoordinatorKey::versions(record_type).is_none() {
                return KeyJson::Unknown;
            }
            match GroupCoordinatorKey::decode(record_type, &mut d, 0) {
                Ok(key) => KeyJson::Json(group_key_json(&key)),
                Err(e) => read_failed(&e),
            }
        }
    }
}

fn group_key_json(key: &GroupCoordinatorKey) -> String {
    use GroupCoordinatorKey as K;
    let group = |id: &str| Object::new().field("groupId", text(id)).end();
    let member =
        |id: &str, member: &str| Object::new().field("groupId", text(id)).field("memberId", text(member)).end();
    match key {
        K::LegacyOffsetCommitKey(k) => offset_key(&k.group, &k.topic, k.partition),
        K::OffsetCommitKey(k) => offset_key(&k.group, &k.topic, k.partition),
        K::GroupMetadataKey(k) => Object::new().field("group", text(&k.group)).end(),
        K::ConsumerGroupRegularExpressionKey(k) => Object::new()
            .field("groupId", text(&k.group_id))
            .field("regularExpression", text(&k.regular_expression))
            .end(),
        K::ConsumerGroupMetadataKey(k) => group(&k.group_id),
        K::ConsumerGroupPartitionMetadataKey(k) => group(&k.group_id),
        K::ConsumerGroupTargetAssignmentMetadataKey(k) => group(&k.group_id),
        K::ShareGroupMetadataKey(k) => group(&k.group_id),
        K::ShareGroupTargetAssignmentMetadataKey(k) => group(&k.group_id),
        K::ShareGroupStatePartitionMetadataKey(k) => group(&k.group_id),
        K::StreamsGroupMetadataKey(k) => group(&k.group_id),
        K::StreamsGroupTargetAssignmentMetadataKey(k) => group(&k.group_id),
        K::StreamsGroupTopologyKey(k) => group(&k.group_id),
        K::ConsumerGroupMemberMetadataKey(k) => member(&k.group_id, &k.member_id),
        K::ConsumerGroupTargetAssignmentMemberKey(k) => member(&k.group_id, &k.member_id),
        K::ConsumerGroupCurrentMemberAssignmentKey(k) => member(&k.group_id, &k.member_id),
        K::ShareGroupMemberMetadataKey(k) => member(&k.group_id, &k.member_id),
        K::ShareGroupTargetAssignmentMemberKey(k) => member(&k.group_id, &k.member_id),
        K::ShareGroupCurrentMemberAssignmentKey(k) => member(&k.group_id, &k.member_id),
        K::StreamsGroupMemberMetadataKey(k) => member(&k.group_id, &k.member_id),
        K::StreamsGroupTargetAssignmentMemberKey(k) => member(&k.group_id, &k.member_id),
        K::StreamsGroupCurrentMemberAssignmentKey(k) => member(&k.group_id, &k.member_id),
    }
}

fn share_key(group: &str, topic_id: &Uuid, partition: i32) -> String {
    Object::new().field("groupId", text(group)).field("topicId", uuid(topic_id)).field("partition", partition).end()
}

fn offset_key(group: &str, topic: &str, partition: i32) -> String {
    Object::new().field("group", text(group)).field("topic", text(topic)).field("partition", partition).end()
}

/// A value's version and `data` object, or the message Kafka's tool prints for it.
fn value_json(
    decoder: CoordinatorDecoder,
    record_type: i16,
    key: &[u8],
    bytes: &[u8],
) -> Result<(i16, String), String> {
    let Some(version) = read_i16(bytes) else {
        return Err("Could not read version from value's buffer.".into());
    };
    let versions = match decoder {
        CoordinatorDecoder::Offsets => GroupCoordinatorValue::versions(record_type),
        CoordinatorDecoder::TransactionLog => TransactionCoordinatorValue::versions(record_type),
        CoordinatorDecoder::ShareGroupState => ShareCoordinatorValue::versions(record_type),
    };
    if !versions.is_some_and(|v| v.contains(version)) {
        return Err(format!("Found an unknown record version {version} for {record_type} type"));
    }
    let mut d = Decoder::new(Bytes::copy_from_slice(&bytes[2..]));
    let read_failed =
        |e: &dyn Display| format!("Could not read record with version {version} from value's buffer due to: {e}.");
    let json = match decoder {
        CoordinatorDecoder::Offsets => {
            // The coordinator's own reader: it takes the explicit null Kafka writes for a member's
            // classic metadata, which the generated decoder refuses.
            let record = CoordinatorRecord::decode(Bytes::copy_from_slice(key), Some(Bytes::copy_from_slice(bytes)));
            match record {
                Ok(CoordinatorRecord { value: Some((_, value)), .. }) => group_value_json(&value, version),
                Ok(CoordinatorRecord { value: None, .. }) => return Err(read_failed(&"no value")),
                Err(RecordDecodeError::Malformed { error, .. }) => return Err(read_failed(&error)),
                Err(other) => return Err(read_failed(&other)),
            }
        }
        CoordinatorDecoder::TransactionLog => {
            match TransactionCoordinatorValue::decode(record_type, &mut d, version).map_err(|e| read_failed(&e))? {
                TransactionCoordinatorValue::TransactionLogValue(v) => transaction_json(&v, version)?,
            }
        }
        CoordinatorDecoder::ShareGroupState => {
            match ShareCoordinatorValue::decode(record_type, &mut d, version).map_err(|e| read_failed(&e))? {
                ShareCoordinatorValue::ShareSnapshotValue(v) => {
                    let mut o = Object::new();
                    o.field("snapshotEpoch", v.snapshot_epoch)
                        .field("stateEpoch", v.state_epoch)
                        .field("leaderEpoch", v.leader_epoch)
                        .field("startOffset", v.start_offset);
                    if v.delivery_complete_count != ShareSnapshotValue::default().delivery_complete_count {
                        o.field("deliveryCompleteCount", v.delivery_complete_count);
                    }
                    let batches = list(&v.state_batches, |b| {
                        state_batch(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count)
                    });
                    o.field("createTimestamp", v.create_timestamp)
                        .field("writeTimestamp", v.write_timestamp)
                        .field("stateBatches", batches);
                    o.end()
                }
                ShareCoordinatorValue::ShareUpdateValue(v) => {
                    let mut o = Object::new();
                    o.field("snapshotEpoch", v.snapshot_epoch)
                        .field("leaderEpoch", v.leader_epoch)
                        .field("startOffset", v.start_offset);
                    if v.delivery_complete_count != ShareUpdateValue::default().delivery_complete_count {
                        o.field("deliveryCompleteCount", v.delivery_complete_count);
                    }
                    let batches = list(&v.state_batches, |b| {
                        state_batch(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count)
                    });
                    o.field("stateBatches", batches);
                    o.end()
                }
            }
        }
    };
    Ok((version, json))
}

fn state_batch(first_offset: i64, last_offset: i64, delivery_state: i8, delivery_count: i16) -> String {
    Object::new()
        .field("firstOffset", first_offset)
        .field("lastOffset", last_offset)
        .field("deliveryState", delivery_state)
        .field("deliveryCount", delivery_count)
        .end()
}

fn group_value_json(value: &GroupCoordinatorValue, version: i16) -> String {
    use GroupCoordinatorValue as V;
    match value {
        V::LegacyOffsetCommitValue(v) => Object::new()
            .field("offset", v.offset)
            .field("metadata", text(&v.metadata))
            .field("commitTimestamp", v.commit_timestamp)
            .end(),
        V::OffsetCommitValue(v) => offset_commit_json(v, version),
        V::GroupMetadataValue(v) => group_metadata_json(v, version),
        V::ConsumerGroupMetadataValue(v) => {
            let mut o = Object::new();
            o.field("epoch", v.epoch);
            if v.metadata_hash != ConsumerGroupMetadataValue::default().metadata_hash {
                o.field("metadataHash", v.metadata_hash);
            }
            o.end()
        }
        V::ConsumerGroupPartitionMetadataValue(v) => {
            let topics = list(&v.topics, |t| {
                let partitions = list(&t.partition_metadata, |p| {
                    Object::new().field("partition", p.partition).field("racks", list(&p.racks, |r| text(r))).end()
                });
                Object::new()
                    .field("topicId", uuid(&t.topic_id))
                    .field("topicName", text(&t.topic_name))
                    .field("numPartitions", t.num_partitions)
                    .field("partitionMetadata", partitions)
                    .end()
            });
            Object::new().field("topics", topics).end()
        }
        V::ConsumerGroupMemberMetadataValue(v) => member_metadata_json(v),
        V::ConsumerGroupTargetAssignmentMetadataValue(v) => {
            let mut o = Object::new();
            o.field("assignmentEpoch", v.assignment_epoch);
            if v.assignment_timestamp != ConsumerGroupTargetAssignmentMetadataValue::default().assignment_timestamp {
                o.field("assignmentTimestamp", v.assignment_timestamp);
            }
            o.end()
        }
        V::ConsumerGroupTargetAssignmentMemberValue(v) => {
            let topics = list(&v.topic_partitions, |t| {
                Object::new().field("topicId", uuid(&t.topic_id)).field("partitions", list(&t.partitions, |p| *p)).end()
            });
            Object::new().field("topicPartitions", topics).end()
        }
        V::ConsumerGroupCurrentMemberAssignmentValue(v) => {
            let partitions = |all: &[strand_protocol::messages::consumer_group_current_member_assignment_value::TopicPartitions]| {
                list(all, |t| {
                    let mut o = Object::new();
                    o.field("topicId", uuid(&t.topic_id)).field("partitions", list(&t.partitions, |p| *p));
                    // A nullable tagged list whose default is null: left out when null, as Kafka
                    // leaves out a partition record's null `eligibleLeaderReplicas`.
                    if let Some(epochs) = &t.assignment_epochs {
                        o.field("assignmentEpochs", list(epochs, |e| *e));
                    }
                    o.end()
                })
            };
            Object::new()
                .field("memberEpoch", v.member_epoch)
                .field("previousMemberEpoch", v.previous_member_epoch)
                .field("state", v.state)
                .field("assignedPartitions", partitions(&v.assigned_partitions))
                .field("partitionsPendingRevocation", partitions(&v.partitions_pending_revocation))
                .end()
        }
        V::ConsumerGroupRegularExpressionValue(v) => Object::new()
            .field("topics", list(&v.topics, |t| text(t)))
            .field("version", v.version)
            .field("timestamp", v.timestamp)
            .end(),
        V::ShareGroupMetadataValue(v) => {
            Object::new().field("epoch", v.epoch).field("metadataHash", v.metadata_hash).end()
        }
        V::ShareGroupMemberMetadataValue(v) => Object::new()
            .field("rackId", optional_text(v.rack_id.as_deref()))
            .field("clientId", text(&v.client_id))
            .field("clientHost", text(&v.client_host))
            .field("subscribedTopicNames", list(&v.subscribed_topic_names, |t| text(t)))
            .end(),
        V::ShareGroupTargetAssignmentMetadataValue(v) => {
            let mut o = Object::new();
            o.field("assignmentEpoch", v.assignment_epoch);
            if v.assignment_timestamp != ShareGroupTargetAssignmentMetadataValue::default().assignment_timestamp {
                o.field("assignmentTimestamp", v.assignment_timestamp);
            }
            o.end()
        }
        V::ShareGroupTargetAssignmentMemberValue(v) => {
            let topics = list(&v.topic_partitions, |t| {
                Object::new().field("topicId", uuid(&t.topic_id)).field("partitions", list(&t.partitions, |p| *p)).end()
            });
            Object::new().field("topicPartitions", topics).end()
        }
        V::ShareGroupCurrentMemberAssignmentValue(v) => {
            let assigned = list(&v.assigned_partitions, |t| {
                Object::new().field("topicId", uuid(&t.topic_id)).field("partitions", list(&t.partitions, |p| *p)).end()
            });
            Object::new()
                .field("memberEpoch", v.member_epoch)
                .field("previousMemberEpoch", v.previous_member_epoch)
                .field("state", v.state)
                .field("assignedPartitions", assigned)
                .end()
        }
        V::ShareGroupStatePartitionMetadataValue(v) => {
            let with_partitions = |all: &[strand_protocol::messages::share_group_state_partition_metadata_value::TopicPartitionsInfo]| {
                list(all, |t| {
                    Object::new()
                        .field("topicId", uuid(&t.topic_id))
                        .field("topicName", text(&t.topic_name))
                        .field("partitions", list(&t.partitions, |p| *p))
                        .end()
                })
            };
            let deleting = list(&v.deleting_topics, |t| {
                Object::new().field("topicId", uuid(&t.topic_id)).field("topicName", text(&t.topic_name)).end()
            });
            Object::new()
                .field("initializingTopics", with_partitions(&v.initializing_topics))
                .field("initializedTopics", with_partitions(&v.initialized_topics))
                .field("deletingTopics", deleting)
                .end()
        }
        V::StreamsGroupMetadataValue(v) => streams_metadata_json(v),
        V::StreamsGroupMemberMetadataValue(v) => {
            let endpoint = v.user_endpoint.as_ref().map_or_else(
                || "null".to_owned(),
                |e| Object::new().field("host", text(&e.host)).field("port", e.port).end(),
            );
            let tags =
                list(&v.client_tags, |t| Object::new().field("key", text(&t.key)).field("value", text(&t.value)).end());
            Object::new()
                .field("instanceId", optional_text(v.instance_id.as_deref()))
                .field("rackId", optional_text(v.rack_id.as_deref()))
                .field("clientId", text(&v.client_id))
                .field("clientHost", text(&v.client_host))
                .field("rebalanceTimeoutMs", v.rebalance_timeout_ms)
                .field("topologyEpoch", v.topology_epoch)
                .field("processId", text(&v.process_id))
                .field("userEndpoint", endpoint)
                .field("clientTags", tags)
                .end()
        }
        V::StreamsGroupTargetAssignmentMetadataValue(v) => {
            let mut o = Object::new();
            o.field("assignmentEpoch", v.assignment_epoch);
            if v.assignment_timestamp != StreamsGroupTargetAssignmentMetadataValue::default().assignment_timestamp {
                o.field("assignmentTimestamp", v.assignment_timestamp);
            }
            o.end()
        }
        V::StreamsGroupTargetAssignmentMemberValue(v) => {
            let tasks = |all: &[strand_protocol::messages::streams_group_target_assignment_member_value::TaskIds]| {
                list(all, |t| {
                    Object::new()
                        .field("subtopologyId", text(&t.subtopology_id))
                        .field("partitions", list(&t.partitions, |p| *p))
                        .end()
                })
            };
            Object::new()
                .field("activeTasks", tasks(&v.active_tasks))
                .field("standbyTasks", tasks(&v.standby_tasks))
                .field("warmupTasks", tasks(&v.warmup_tasks))
                .end()
        }
        V::StreamsGroupCurrentMemberAssignmentValue(v) => {
            let tasks =
                |all: &[strand_protocol::messages::streams_group_current_member_assignment_value::TaskIds]| {
                    list(all, |t| {
                        let mut o = Object::new();
                        o.field("subtopologyId", text(&t.subtopology_id))
                            .field("partitions", list(&t.partitions, |p| *p));
                        if let Some(epochs) = &t.assignment_epochs {
                            o.field("assignmentEpochs", list(epochs, |e| *e));
                        }
                        o.end()
                    })
                };
            Object::new()
                .field("memberEpoch", v.member_epoch)
                .field("previousMemberEpoch", v.previous_member_epoch)
                .field("state", v.state)
                .field("activeTasks", tasks(&v.active_tasks))
                .field("standbyTasks", tasks(&v.standby_tasks))
                .field("warmupTasks", tasks(&v.warmup_tasks))
                .field("activeTasksPendingRevocation", tasks(&v.active_tasks_pending_revocation))
                .field("standbyTasksPendingRevocation", tasks(&v.standby_tasks_pending_revocation))
                .field("warmupTasksPendingRevocation", tasks(&v.warmup_tasks_pending_revocation))
                .end()
        }
        V::StreamsGroupTopologyValue(v) => streams_topology_json(v),
    }
}

fn streams_metadata_json(v: &StreamsGroupMetadataValue) -> String {
    let defaults = StreamsGroupMetadataValue::default();
    let mut o = Object::new();
    o.field("epoch", v.epoch).field("metadataHash", v.metadata_hash);
    if v.validated_topology_epoch != defaults.validated_topology_epoch {
        o.field("validatedTopologyEpoch", v.validated_topology_epoch);
    }
    if let Some(configs) = &v.last_assignment_configs {
        let configs = list(configs, |c| Object::new().field("key", text(&c.key)).field("value", text(&c.value)).end());
        o.field("lastAssignmentConfigs", configs);
    }
    if v.stored_description_topology_epoch != defaults.stored_description_topology_epoch {
        o.field("storedDescriptionTopologyEpoch", v.stored_description_topology_epoch);
    }
    if v.failed_description_topology_epoch != defaults.failed_description_topology_epoch {
        o.field("failedDescriptionTopologyEpoch", v.failed_description_topology_epoch);
    }
    o.end()
}

fn streams_topology_json(v: &StreamsGroupTopologyValue) -> String {
    use strand_protocol::messages::streams_group_topology_value::TopicInfo;
    let topics = |all: &[TopicInfo]| {
        list(all, |t| {
            let configs = list(&t.topic_configs, |c| {
                Object::new().field("key", text(&c.key)).field("value", text(&c.value)).end()
            });
            Object::new()
                .field("name", text(&t.name))
                .field("partitions", t.partitions)
                .field("replicationFactor", t.replication_factor)
                .field("topicConfigs", configs)
                .end()
        })
    };
    let subtopologies = list(&v.subtopologies, |s| {
        let groups = list(&s.copartition_groups, |g| {
            Object::new()
                .field("sourceTopics", list(&g.source_topics, |i| *i))
                .field("sourceTopicRegex", list(&g.source_topic_regex, |i| *i))
                .field("repartitionSourceTopics", list(&g.repartition_source_topics, |i| *i))
                .end()
        });
        Object::new()
            .field("subtopologyId", text(&s.subtopology_id))
            .field("sourceTopics", list(&s.source_topics, |t| text(t)))
            .field("sourceTopicRegex", list(&s.source_topic_regex, |t| text(t)))
            .field("stateChangelogTopics", topics(&s.state_changelog_topics))
            .field("repartitionSinkTopics", list(&s.repartition_sink_topics, |t| text(t)))
            .field("repartitionSourceTopics", topics(&s.repartition_source_topics))
            .field("copartitionGroups", groups)
            .end()
    });
    Object::new().field("epoch", v.epoch).field("subtopologies", subtopologies).end()
}

fn offset_commit_json(v: &OffsetCommitValue, version: i16) -> String {
    let mut o = Object::new();
    o.field("offset", v.offset);
    if version >= 3 {
        o.field("leaderEpoch", v.leader_epoch);
    }
    o.field("metadata", text(&v.metadata)).field("commitTimestamp", v.commit_timestamp);
    if version == 1 {
        o.field("expireTimestamp", v.expire_timestamp);
    }
    if version >= 4 && v.topic_id != OffsetCommitValue::default().topic_id {
        o.field("topicId", uuid(&v.topic_id));
    }
    o.end()
}

fn group_metadata_json(v: &GroupMetadataValue, version: i16) -> String {
    let consumer = v.protocol_type == "consumer";
    let mut o = Object::new();
    o.field("protocolType", text(&v.protocol_type))
        .field("generation", v.generation)
        .field("protocol", optional_text(v.protocol.as_deref()))
        .field("leader", optional_text(v.leader.as_deref()));
    if version >= 2 {
        o.field("currentStateTimestamp", v.current_state_timestamp);
    }
    o.field("members", list(&v.members, |m| group_member_json(m, version, consumer)));
    o.end()
}

fn group_member_json(m: &MemberMetadata, version: i16, consumer: bool) -> String {
    let mut o = Object::new();
    o.field("memberId", text(&m.member_id));
    if version >= 3 {
        o.field("groupInstanceId", optional_text(m.group_instance_id.as_deref()));
    }
    o.field("clientId", text(&m.client_id)).field("clientHost", text(&m.client_host));
    if version >= 1 {
        o.field("rebalanceTimeout", m.rebalance_timeout);
    }
    o.field("sessionTimeout", m.session_timeout);
    let subscription = consumer.then(|| subscription_json(&m.subscription)).flatten();
    o.field("subscription", subscription.unwrap_or_else(|| binary(&m.subscription)));
    let assignment = consumer.then(|| assignment_json(&m.assignment)).flatten();
    o.field("assignment", assignment.unwrap_or_else(|| binary(&m.assignment)));
    o.end()
}

/// A consumer's subscription decoded at the version its first two bytes name; `None` if it
/// does not decode (Kafka's tool then leaves the bytes).
fn subscription_json(bytes: &[u8]) -> Option<String> {
    let version = read_i16(bytes)?;
    let mut d = Decoder::new(Bytes::copy_from_slice(&bytes[2..]));
    if !ConsumerProtocolSubscription::VERSIONS.contains(version) {
        return None;
    }
    let s = ConsumerProtocolSubscription::decode(&mut d, version).ok()?;
    let mut o = Object::new();
    o.field("topics", list(&s.topics, |t| text(t))).field("userData", optional_binary(s.user_data.as_deref()));
    if version >= 1 {
        let owned = list(&s.owned_partitions, |t| {
            Object::new().field("topic", text(&t.topic)).field("partitions", list(&t.partitions, |p| *p)).end()
        });
        o.field("ownedPartitions", owned);
    }
    if version >= 2 {
        o.field("generationId", s.generation_id);
    }
    if version >= 3 {
        o.field("rackId", optional_text(s.rack_id.as_deref()));
    }
    Some(o.end())
}

/// A consumer's assignment decoded as [`subscription_json`] decodes subscriptions.
fn assignment_json(bytes: &[u8]) -> Option<String> {
    let version = read_i16(bytes)?;
    let mut d = Decoder::new(Bytes::copy_from_slice(&bytes[2..]));
    if !ConsumerProtocolAssignment::VERSIONS.contains(version) {
        return None;
    }
    let a = ConsumerProtocolAssignment::decode(&mut d, version).ok()?;
    let assigned = list(&a.assigned_partitions, |t| {
        Object::new().field("topic", text(&t.topic)).field("partitions", list(&t.partitions, |p| *p)).end()
    });
    Some(
        Object::new()
            .field("assignedPartitions", assigned)
            .field("userData", optional_binary(a.user_data.as_deref()))
            .end(),
    )
}

fn member_metadata_json(v: &ConsumerGroupMemberMetadataValue) -> String {
    let mut o = Object::new();
    o.field("instanceId", optional_text(v.instance_id.as_deref()))
        .field("rackId", optional_text(v.rack_id.as_deref()))
        .field("clientId", text(&v.client_id))
        .field("clientHost", text(&v.client_host))
        .field("subscribedTopicNames", list(&v.subscribed_topic_names, |t| text(t)))
        .field("subscribedTopicRegex", optional_text(v.subscribed_topic_regex.as_deref()))
        .field("rebalanceTimeoutMs", v.rebalance_timeout_ms)
        .field("serverAssignor", optional_text(v.server_assignor.as_deref()));
    // A nullable tagged struct whose default is null: written when present, as Kafka writes it.
    let classic = match &v.classic_member_metadata {
        None => "null".to_owned(),
        Some(c) => {
            let protocols = list(&c.supported_protocols, |p| {
                Object::new().field("name", text(&p.name)).field("metadata", binary(&p.metadata)).end()
            });
            Object::new().field("sessionTimeoutMs", c.session_timeout_ms).field("supportedProtocols", protocols).end()
        }
    };
    o.field("classicMemberMetadata", classic);
    o.end()
}

/// A transaction's value, its status as its state's name (Kafka's `TransactionState.stateName`).
fn transaction_json(v: &TransactionLogValue, version: i16) -> Result<String, String> {
    const STATES: [&str; 8] = [
        "Empty",
        "Ongoing",
        "PrepareCommit",
        "PrepareAbort",
        "CompleteCommit",
        "CompleteAbort",
        "Dead",
        "PrepareEpochFence",
    ];
    let state = usize::try_from(v.transaction_status).ok().and_then(|s| STATES.get(s)).ok_or_else(|| {
        format!("Unknown transaction state id {} from the transaction status message", v.transaction_status)
    })?;
    let defaults = TransactionLogValue::default();
    let tagged = version >= 1;
    let mut o = Object::new();
    o.field("producerId", v.producer_id);
    if tagged && v.previous_producer_id != defaults.previous_producer_id {
        o.field("previousProducerId", v.previous_producer_id);
    }
    if tagged && v.next_producer_id != defaults.next_producer_id {
        o.field("nextProducerId", v.next_producer_id);
    }
    o.field("producerEpoch", v.producer_epoch);
    if tagged && v.next_producer_epoch != defaults.next_producer_epoch {
        o.field("nextProducerEpoch", v.next_producer_epoch);
    }
    let partitions = match &v.transaction_partitions {
        None => "null".to_owned(),
        Some(all) => list(all, |p| {
            Object::new().field("topic", text(&p.topic)).field("partitionIds", list(&p.partition_ids, |i| *i)).end()
        }),
    };
    o.field("transactionTimeoutMs", v.transaction_timeout_ms)
        .field("transactionStatus", text(state))
        .field("transactionPartitions", partitions)
        .field("transactionLastUpdateTimestampMs", v.transaction_last_update_timestamp_ms)
        .field("transactionStartTimestampMs", v.transaction_start_timestamp_ms);
    if tagged && v.client_transaction_version != defaults.client_transaction_version {
        o.field("clientTransactionVersion", v.client_transaction_version);
    }
    Ok(o.end())
}

#[cfg(test)]
mod tests {
    use strand_protocol::messages::{GroupMetadataKey, OffsetCommitKey, TransactionLogKey};

    use super::*;

    /// A key's bytes: the record type, then the key at version 0.
    fn key<M: Message>(record_type: i16, message: &M) -> Vec<u8> {
        let mut out = record_type.to_be_bytes().to_vec();
        out.extend_from_slice(&message.encode_to_bytes(0).expect("key"));
        out
    }

    /// A value's bytes: the version, then the value at that version.
    fn value<M: Message>(version: i16, message: &M) -> Vec<u8> {
        let mut out = version.to_be_bytes().to_vec();
        out.extend_from_slice(&message.encode_to_bytes(version).expect("value"));
        out
    }

    fn check(decoder: CoordinatorDecoder, key: &[u8], value: Option<&[u8]>, expected: (Option<&str>, Option<&str>)) {
        let parsed = parse_bytes(decoder, key, value, 7);
        assert_eq!((parsed.key.as_deref(), parsed.payload.as_deref()), expected);
    }

    fn commit_key() -> Vec<u8> {
        key(1, &OffsetCommitKey { group: "g".into(), topic: "t".into(), partition: 3 })
    }

    const COMMIT_KEY_JSON: &str = r#"{"type":"1","data":{"group":"g","topic":"t","partition":3}}"#;

    /// A tombstone prints its key and `<DELETE>`.
    #[test]
    fn a_tombstone_prints_delete() {
        check(CoordinatorDecoder::Offsets, &commit_key(), None, (Some(COMMIT_KEY_JSON), Some("<DELETE>")));
    }

    /// Each offset commit version prints the fields it has (v1 its expiry, v3+ the epoch).
    #[test]
    fn offset_commits_print_their_version_s_fields() {
        let commit = OffsetCommitValue {
            offset: 42,
            leader_epoch: 5,
            metadata: "m\"x".into(),
            commit_timestamp: 1000,
            expire_timestamp: 2000,
            ..OffsetCommitValue::default()
        };
        let v1 =
            r#"{"version":"1","data":{"offset":42,"metadata":"m\"x","commitTimestamp":1000,"expireTimestamp":2000}}"#;
        check(CoordinatorDecoder::Offsets, &commit_key(), Some(&value(1, &commit)), (Some(COMMIT_KEY_JSON), Some(v1)));
        let v3 = r#"{"version":"3","data":{"offset":42,"leaderEpoch":5,"metadata":"m\"x","commitTimestamp":1000}}"#;
        check(CoordinatorDecoder::Offsets, &commit_key(), Some(&value(3, &commit)), (Some(COMMIT_KEY_JSON), Some(v3)));
    }

    /// Unknown record types and versions, and bytes that do not decode, are one line each.
    #[test]
    fn what_kafka_cannot_read_is_one_line() {
        let unknown_type = key(99, &OffsetCommitKey::default());
        check(
            CoordinatorDecoder::Offsets,
            &unknown_type,
            None,
            (Some("Unknown record type 99 at offset 7, skipping."), None),
        );
        let future = [&9i16.to_be_bytes()[..], &[0; 30]].concat();
        let message = "Error at offset 7, skipping. Found an unknown record version 9 for 1 type";
        check(CoordinatorDecoder::Offsets, &commit_key(), Some(&future), (Some(message), None));
        let truncated = value(3, &OffsetCommitValue::default());
        let parsed = parse_bytes(CoordinatorDecoder::Offsets, &commit_key(), Some(&truncated[..8]), 7);
        let line = parsed.key.expect("a line");
        assert!(line.starts_with("Error at offset 7, skipping. Could not read record with version 3"), "{line}");
        assert_eq!(parsed.payload, None);
        let short = parse_bytes(CoordinatorDecoder::Offsets, &[0], None, 7);
        assert_eq!(
            short.key.as_deref(),
            Some("Error at offset 7, skipping. Could not read version from key's buffer.")
        );
    }

    /// A consumer group's member whose subscription is not the consumer protocol keeps its bytes.
    #[test]
    fn a_subscription_that_does_not_decode_stays_bytes() {
        let group = GroupMetadataValue {
            protocol_type: "consumer".into(),
            generation: 1,
            protocol: None,
            leader: None,
            members: vec![MemberMetadata {
                member_id: "m".into(),
                subscription: Bytes::from_static(&[0, 9]),
                assignment: Bytes::from_static(&[0, 0, 0, 0, 0, 0, 255, 255, 255, 255]),
                ..MemberMetadata::default()
            }],
            ..GroupMetadataValue::default()
        };
        let group_key = key(2, &GroupMetadataKey { group: "g".into() });
        let expected = r#"{"version":"0","data":{"protocolType":"consumer","generation":1,"protocol":null,"leader":null,"members":[{"memberId":"m","clientId":"","clientHost":"","sessionTimeout":0,"subscription":"AAk=","assignment":{"assignedPartitions":[],"userData":null}}]}}"#;
        check(
            CoordinatorDecoder::Offsets,
            &group_key,
            Some(&value(0, &group)),
            (Some(r#"{"type":"2","data":{"group":"g"}}"#), Some(expected)),
        );
    }

    /// A transaction's status is its state's name; an unknown state is Kafka's error line.
    #[test]
    fn transaction_states_print_by_name() {
        let txn_key = key(0, &TransactionLogKey { transactional_id: "tx".into() });
        let state = |status: i8| TransactionLogValue {
            producer_id: 4,
            producer_epoch: 1,
            transaction_timeout_ms: 60_000,
            transaction_status: status,
            transaction_partitions: None,
            transaction_last_update_timestamp_ms: 10,
            transaction_start_timestamp_ms: -1,
            ..TransactionLogValue::default()
        };
        let expected = r#"{"version":"0","data":{"producerId":4,"producerEpoch":1,"transactionTimeoutMs":60000,"transactionStatus":"PrepareAbort","transactionPartitions":null,"transactionLastUpdateTimestampMs":10,"transactionStartTimestampMs":-1}}"#;
        let key_json = r#"{"type":"0","data":{"transactionalId":"tx"}}"#;
        check(
            CoordinatorDecoder::TransactionLog,
            &txn_key,
            Some(&value(0, &state(3))),
            (Some(key_json), Some(expected)),
        );
        let message = "Error at offset 7, skipping. Unknown transaction state id 9 from the transaction status message";
        check(CoordinatorDecoder::TransactionLog, &txn_key, Some(&value(0, &state(9))), (Some(message), None));
    }
}
