//! The `data` JSON of the group coordinator's values (`__consumer_offsets`), for
//! [`super::coordinator`]: offset commits, classic groups (a `consumer` group's subscriptions and
//! assignments decoded, as Kafka's tool does), and consumer, share and streams groups.

use bytes::Bytes;
use strand_protocol::codec::{Decoder, Message, Struct};
use strand_protocol::messages::group_metadata_value::MemberMetadata;
use strand_protocol::messages::records::GroupCoordinatorValue;
use strand_protocol::messages::{
    ConsumerGroupMemberMetadataValue, ConsumerGroupMetadataValue, ConsumerGroupTargetAssignmentMetadataValue,
    ConsumerProtocolAssignment, ConsumerProtocolSubscription, GroupMetadataValue, OffsetCommitValue,
    ShareGroupTargetAssignmentMetadataValue, StreamsGroupMetadataValue, StreamsGroupTargetAssignmentMetadataValue,
    StreamsGroupTopologyValue,
};

use super::json::{Object, binary, list, optional_binary, optional_text, text, uuid};

fn read_i16(bytes: &[u8]) -> Option<i16> {
    Some(i16::from_be_bytes([*bytes.first()?, *bytes.get(1)?]))
}

/// A group coordinator value's `data` object at `version`.
pub fn group_value_json(value: &GroupCoordinatorValue, version: i16) -> String {
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
