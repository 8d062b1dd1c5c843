//! The controller's decisions through the public API: each operation's validation against a
//! table of requests and Kafka's error codes, the image its records replay into, and a seeded
//! random mix of operations that must keep the image consistent.

mod common;

use std::collections::BTreeMap;

use common::{Cluster, topic};
use proptest::prelude::*;
use strand_base::{BrokerId, ProducerId, Uuid};
use strand_metadata::controller::{
    ApiMessageAndVersion, BootstrapFeatures, ControllerDefaults, InitialFencing, PreviousSession, RegisterBrokerInputs,
    allocate_producer_ids, alter_configs, bootstrap_records, create_partitions, create_topics, delete_topics,
    incremental_alter_configs, register_broker,
};
use strand_metadata::image::{ConfigResource, MetadataImage, NO_LEADER};
use strand_metadata::testkit::{CLUSTER_ID, registration};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::create_partitions_request::{CreatePartitionsAssignment, CreatePartitionsTopic};
use strand_protocol::messages::create_topics_request::{
    CreatableReplicaAssignment, CreatableTopic, CreatableTopicConfig,
};
use strand_protocol::messages::delete_topics_request::DeleteTopicState;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{
    AlterConfigsRequest, CreatePartitionsRequest, CreateTopicsRequest, DeleteTopicsRequest,
    IncrementalAlterConfigsRequest, alter_configs_request, incremental_alter_configs_request,
};

/// Three active brokers and topics `existing` (2 partitions) and `my_topic`.
fn base() -> Cluster {
    let mut cluster = Cluster::with_brokers(&[1, 2, 3]);
    cluster.create_topic("existing", 2, 1);
    cluster.create_topic("my_topic", 1, 1);
    cluster
}

fn with_configs(mut t: CreatableTopic, configs: &[(&str, Option<&str>)]) -> CreatableTopic {
    t.configs = configs
        .iter()
        .map(|(name, value)| CreatableTopicConfig {
            name: (*name).to_owned(),
            value: value.map(str::to_owned),
            ..Default::default()
        })
        .collect();
    t
}

fn with_assignments(mut t: CreatableTopic, assignments: &[(i32, &[i32])]) -> CreatableTopic {
    t.assignments = assignments
        .iter()
        .map(|(index, brokers)| CreatableReplicaAssignment {
            partition_index: *index,
            broker_ids: brokers.iter().copied().map(BrokerId).collect(),
            ..Default::default()
        })
        .collect();
    t
}

fn error_codes<'a>(results: impl Iterator<Item = (&'a str, i16)>) -> Vec<(String, ErrorCode)> {
    results.map(|(name, code)| (name.to_owned(), ErrorCode::from_code(code).expect("known code"))).collect()
}

/// One CreateTopics request against [`base`]: the error code of each topic, in response order.
fn check_create(topics: Vec<CreatableTopic>, expected: &[(&str, ErrorCode)]) {
    let mut cluster = base();
    let image = cluster.image.clone();
    let request = CreateTopicsRequest { topics, ..Default::default() };
    let result = create_topics(&image, &request, &ControllerDefaults::default(), &mut cluster.topic_ids());
    let got = error_codes(result.response.topics.iter().map(|t| (t.name.as_str(), t.error_code)));
    let expected: Vec<_> = expected.iter().map(|(n, c)| ((*n).to_owned(), *c)).collect();
    assert_eq!(got, expected);
    let succeeded = expected.iter().filter(|(_, c)| *c == ErrorCode::None).count();
    let topic_records = result.records.iter().filter(|r| matches!(r.record, MetadataRecord::TopicRecord(_))).count();
    assert_eq!(topic_records, succeeded, "one TopicRecord per created topic");
}

/// CreateTopics validation: names, existence, collisions, counts, replication, configs and
/// manual assignments each give Kafka's error code.
#[test]
fn create_topics_validation() {
    use ErrorCode::{
        InvalidPartitions, InvalidReplicationFactor, InvalidRequest, InvalidTopicException, PolicyViolation,
        TopicAlreadyExists,
    };
    check_create(vec![topic("orders", 3, 1), topic("defaults", -1, -1)], &[("orders", OK), ("defaults", OK)]);
    check_create(vec![topic("", 1, 1)], &[("", InvalidTopicException)]);
    check_create(
        vec![topic(".", 1, 1), topic("..", 1, 1)],
        &[(".", InvalidTopicException), ("..", InvalidTopicException)],
    );
    check_create(vec![topic("a b", 1, 1)], &[("a b", InvalidTopicException)]);
    let long = "x".repeat(250);
    check_create(vec![topic(&long, 1, 1)], &[(&long, InvalidTopicException)]);
    check_create(vec![topic("__cluster_metadata", 1, 1)], &[("__cluster_metadata", InvalidRequest)]);
    check_create(vec![topic("existing", 1, 1)], &[("existing", TopicAlreadyExists)]);
    check_create(vec![topic("my.topic", 1, 1)], &[("my.topic", InvalidTopicException)]);
    check_create(vec![topic("a.b", 1, 1), topic("a_b", 1, 1)], &[("a.b", OK), ("a_b", InvalidTopicException)]);
    check_create(vec![topic("p0", 0, 1), topic("p2", -2, 1)], &[("p0", InvalidPartitions), ("p2", InvalidPartitions)]);
    check_create(
        vec![topic("r0", 1, 0), topic("r2", 1, -2), topic("r4", 1, 4)],
        &[("r0", InvalidReplicationFactor), ("r2", InvalidReplicationFactor), ("r4", InvalidReplicationFactor)],
    );
    check_create(
        vec![topic("dup", 1, 1), topic("ok", 1, 1), topic("dup", 2, 1)],
        &[("ok", OK), ("dup", InvalidRequest)],
    );
    check_create(vec![topic("big", 10_001, 1)], &[("big", PolicyViolation)]);
}

/// Topic configs are checked before partitions, as Kafka does.
#[test]
fn create_topics_config_validation() {
    use ErrorCode::InvalidConfig;
    let t = || topic("c", 1, 1);
    check_create(vec![with_configs(t(), &[("retention.ms", Some("1000"))])], &[("c", OK)]);
    check_create(vec![with_configs(t(), &[("no.such.config", Some("1"))])], &[("c", InvalidConfig)]);
    check_create(vec![with_configs(t(), &[("retention.ms", Some("soon"))])], &[("c", InvalidConfig)]);
    check_create(vec![with_configs(t(), &[("retention.ms", None)])], &[("c", InvalidConfig)]);
    check_create(vec![with_configs(topic("c", 0, 1), &[("cleanup.policy", Some("x"))])], &[("c", InvalidConfig)]);
}

/// Manual assignments: Kafka's INVALID_REQUEST and INVALID_REPLICA_ASSIGNMENT cases.
#[test]
fn create_topics_assignment_validation() {
    use ErrorCode::{InvalidReplicaAssignment, InvalidRequest};
    let m = |assignments: &[(i32, &[i32])]| with_assignments(topic("m", -1, -1), assignments);
    check_create(vec![m(&[(0, &[1, 2]), (1, &[2, 3])])], &[("m", OK)]);
    check_create(vec![with_assignments(topic("m", -1, 2), &[(0, &[1, 2])])], &[("m", InvalidRequest)]);
    check_create(vec![with_assignments(topic("m", 1, -1), &[(0, &[1, 2])])], &[("m", InvalidRequest)]);
    check_create(vec![m(&[(0, &[1]), (2, &[2])])], &[("m", InvalidReplicaAssignment)]);
    check_create(vec![m(&[(0, &[1]), (0, &[2])])], &[("m", InvalidReplicaAssignment)]);
    check_create(vec![m(&[(0, &[1, 9])])], &[("m", InvalidReplicaAssignment)]);
    check_create(vec![m(&[(0, &[1, 1])])], &[("m", InvalidReplicaAssignment)]);
    check_create(vec![m(&[(0, &[1, 2]), (1, &[3])])], &[("m", InvalidReplicaAssignment)]);
    check_create(vec![m(&[(0, &[])])], &[("m", InvalidReplicaAssignment)]);
}

/// A created topic replays into the image with Kafka's initial state, and the response carries
/// what Kafka fills: id, counts, and every config with its source.
#[test]
fn create_topics_replays_and_responds() {
    let mut cluster = Cluster::with_brokers(&[1, 2, 3]);
    let request = CreateTopicsRequest {
        topics: vec![with_configs(topic("orders", 4, 3), &[("retention.ms", Some("1000"))])],
        ..Default::default()
    };
    let image = cluster.image.clone();
    let result = create_topics(&image, &request, &ControllerDefaults::default(), &mut cluster.topic_ids());
    let created = &result.response.topics[0];
    assert_eq!((created.error_code, created.num_partitions, created.replication_factor), (0, 4, 3));
    assert_eq!(created.error_message, None);
    let configs: BTreeMap<&str, (&str, i8)> = created
        .configs
        .iter()
        .flatten()
        .map(|c| (c.name.as_str(), (c.value.as_deref().unwrap_or(""), c.config_source)))
        .collect();
    assert_eq!(configs["retention.ms"], ("1000", 1));
    assert_eq!(configs["min.insync.replicas"], ("2", 1), "three replicas get min.insync.replicas=2");
    assert_eq!(configs["segment.bytes"], ("1073741824", 5));
    let kinds: Vec<i16> = result.records.iter().map(|r| r.record.api_key()).collect();
    assert_eq!(kinds, vec![2, 4, 4, 3, 3, 3, 3], "TopicRecord, ConfigRecords, PartitionRecords");
    cluster.apply(&result.records);
    let topic = cluster.image.topics().by_name("orders").expect("created");
    assert_eq!(topic.id, created.topic_id);
    assert_eq!(cluster.image.topics().by_id(created.topic_id).map(|t| t.name.as_str()), Some("orders"));
    let leaders: Vec<BrokerId> = topic.partitions.values().map(|p| p.leader).collect();
    assert_eq!(leaders.iter().collect::<std::collections::BTreeSet<_>>().len(), 3, "leaders spread: {leaders:?}");
    for partition in topic.partitions.values() {
        assert_eq!(partition.isr, partition.replicas);
        assert_eq!(Some(&partition.leader), partition.replicas.first());
        assert_eq!((partition.leader_epoch, partition.partition_epoch), (0, 0));
    }
    let resource = ConfigResource::topic("orders");
    assert_eq!(cluster.image.configs().value(&resource, "min.insync.replicas"), Some("2"));
}

/// validate_only answers as a real creation would and writes nothing; defaults come from the
/// controller's settings.
#[test]
fn create_topics_validate_only_writes_nothing() {
    let mut cluster = Cluster::with_brokers(&[1]);
    let request = CreateTopicsRequest { topics: vec![topic("v", -1, -1)], validate_only: true, ..Default::default() };
    let defaults = ControllerDefaults { num_partitions: 3, ..ControllerDefaults::default() };
    let image = cluster.image.clone();
    let result = create_topics(&image, &request, &defaults, &mut cluster.topic_ids());
    assert!(result.records.is_empty());
    assert_eq!((result.response.topics[0].error_code, result.response.topics[0].num_partitions), (0, 3));
}

/// A fenced broker is never a leader; with every broker fenced creation fails.
#[test]
fn create_topics_places_leaders_on_active_brokers() {
    let mut cluster = Cluster::with_brokers(&[1, 2]);
    cluster.register(3, InitialFencing::Fenced);
    cluster.create_topic("t", 6, 3);
    let topic = cluster.image.topics().by_name("t").expect("t");
    for partition in topic.partitions.values() {
        assert_ne!(partition.leader, BrokerId(3));
        assert!(!partition.isr.contains(&BrokerId(3)));
        assert_eq!(partition.replicas.len(), 3);
    }
    let mut fenced = Cluster::new();
    fenced.register(1, InitialFencing::Fenced);
    let request = CreateTopicsRequest { topics: vec![common::topic("f", 1, 1)], ..Default::default() };
    let image = fenced.image.clone();
    let result = create_topics(&image, &request, &ControllerDefaults::default(), &mut fenced.topic_ids());
    assert_eq!(result.response.topics[0].error_code, ErrorCode::InvalidReplicationFactor.code());
}

/// DeleteTopics by name and by id, with Kafka's errors for unknown, repeated and mixed entries.
#[test]
fn delete_topics_validation_and_replay() {
    let mut cluster = base();
    let existing = cluster.image.topics().by_name("existing").expect("existing").id;
    let by_id = |id: Uuid| DeleteTopicState { name: None, topic_id: id, ..Default::default() };
    let by_name = |n: &str| DeleteTopicState { name: Some(n.to_owned()), topic_id: Uuid::ZERO, ..Default::default() };
    let request = DeleteTopicsRequest {
        topics: vec![
            by_name("my_topic"),
            by_id(existing),
            by_name("nope"),
            by_id(Uuid([5; 16])),
            DeleteTopicState { name: Some("x".to_owned()), topic_id: Uuid([6; 16]), ..Default::default() },
            DeleteTopicState { name: None, topic_id: Uuid::ZERO, ..Default::default() },
        ],
        ..Default::default()
    };
    let result = delete_topics(&cluster.image, &request);
    let mut got: Vec<(Option<String>, i16)> =
        result.response.responses.iter().map(|r| (r.name.clone(), r.error_code)).collect();
    got.sort();
    let mut expected = vec![
        (None, ErrorCode::InvalidRequest.code()),
        (None, ErrorCode::UnknownTopicId.code()),
        (Some("existing".to_owned()), 0),
        (Some("my_topic".to_owned()), 0),
        (Some("nope".to_owned()), ErrorCode::UnknownTopicOrPartition.code()),
        (Some("x".to_owned()), ErrorCode::InvalidRequest.code()),
    ];
    expected.sort();
    assert_eq!(got, expected);
    assert_eq!(result.records.len(), 2);
    cluster.apply(&result.records);
    assert!(cluster.image.topics().is_empty());

    let mut cluster = base();
    let repeated =
        DeleteTopicsRequest { topic_names: vec!["existing".to_owned(), "existing".to_owned()], ..Default::default() };
    let result = delete_topics(&cluster.image, &repeated);
    assert_eq!(result.response.responses.len(), 1);
    assert_eq!(result.response.responses[0].error_code, ErrorCode::InvalidRequest.code());
    assert!(result.records.is_empty());
    let both = DeleteTopicsRequest { topics: vec![by_name("existing"), by_id(existing)], ..Default::default() };
    let result = delete_topics(&cluster.image, &both);
    assert!(result.records.is_empty(), "a name that maps to a supplied id deletes nothing");
    cluster.apply(&result.records);
}

fn grow(name: &str, count: i32, assignments: Option<&[&[i32]]>) -> CreatePartitionsTopic {
    CreatePartitionsTopic {
        name: name.to_owned(),
        count,
        assignments: assignments.map(|a| {
            a.iter()
                .map(|brokers| CreatePartitionsAssignment {
                    broker_ids: brokers.iter().copied().map(BrokerId).collect(),
                    ..Default::default()
                })
                .collect()
        }),
        ..Default::default()
    }
}

/// One CreatePartitions request against [`base`] (where `existing` has two partitions).
fn check_grow(topics: Vec<CreatePartitionsTopic>, expected: &[(&str, ErrorCode)]) {
    let cluster = base();
    let request = CreatePartitionsRequest { topics, ..Default::default() };
    let result = create_partitions(&cluster.image, &request);
    let got = error_codes(result.response.results.iter().map(|r| (r.name.as_str(), r.error_code)));
    let expected: Vec<_> = expected.iter().map(|(n, c)| ((*n).to_owned(), *c)).collect();
    assert_eq!(got, expected);
}

/// CreatePartitions validation: a decrease or the same count is INVALID_PARTITIONS.
#[test]
fn create_partitions_validation() {
    use ErrorCode::{
        InvalidPartitions, InvalidReplicaAssignment, InvalidRequest, PolicyViolation, UnknownTopicOrPartition,
    };
    check_grow(vec![grow("existing", 3, None)], &[("existing", OK)]);
    check_grow(vec![grow("existing", 2, None)], &[("existing", InvalidPartitions)]);
    check_grow(vec![grow("existing", 1, None)], &[("existing", InvalidPartitions)]);
    check_grow(vec![grow("nope", 3, None)], &[("nope", UnknownTopicOrPartition)]);
    check_grow(vec![grow("existing", 4, Some(&[&[1]]))], &[("existing", InvalidReplicaAssignment)]);
    check_grow(vec![grow("existing", 3, Some(&[&[1, 2]]))], &[("existing", InvalidReplicaAssignment)]);
    check_grow(vec![grow("existing", 3, Some(&[&[9]]))], &[("existing", InvalidReplicaAssignment)]);
    check_grow(vec![grow("existing", 3, Some(&[&[2]]))], &[("existing", OK)]);
    check_grow(vec![grow("existing", 3, None), grow("existing", 4, None)], &[("existing", InvalidRequest)]);
    check_grow(vec![grow("existing", 20_000, None)], &[("existing", PolicyViolation)]);
}

/// New partitions continue the numbering; validate_only writes nothing.
#[test]
fn create_partitions_replays() {
    let mut cluster = base();
    let dry =
        CreatePartitionsRequest { topics: vec![grow("existing", 5, None)], validate_only: true, ..Default::default() };
    assert!(create_partitions(&cluster.image, &dry).records.is_empty());
    let request = CreatePartitionsRequest { topics: vec![grow("existing", 5, None)], ..Default::default() };
    let result = create_partitions(&cluster.image, &request);
    cluster.apply(&result.records);
    let topic = cluster.image.topics().by_name("existing").expect("topic");
    assert_eq!(topic.partitions.keys().copied().collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
    assert!(topic.partitions.values().all(|p| p.replicas.len() == 1));
}

fn alter(
    kind: i8,
    name: &str,
    ops: &[(&str, i8, Option<&str>)],
) -> incremental_alter_configs_request::AlterConfigsResource {
    incremental_alter_configs_request::AlterConfigsResource {
        resource_type: kind,
        resource_name: name.to_owned(),
        configs: ops
            .iter()
            .map(|(key, op, value)| incremental_alter_configs_request::AlterableConfig {
                name: (*key).to_owned(),
                config_operation: *op,
                value: value.map(str::to_owned),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// One IncrementalAlterConfigs request against [`base`]: the error code per resource.
fn check_alter(resources: Vec<incremental_alter_configs_request::AlterConfigsResource>, expected: &[ErrorCode]) {
    let cluster = base();
    let request = IncrementalAlterConfigsRequest { resources, ..Default::default() };
    let result = incremental_alter_configs(&cluster.image, &request);
    let got: Vec<ErrorCode> =
        result.response.responses.iter().map(|r| ErrorCode::from_code(r.error_code).expect("code")).collect();
    assert_eq!(got, expected, "{:?}", result.response.responses);
}

const OK: ErrorCode = ErrorCode::None;

/// A key, an operation and its value.
type Operation<'a> = (&'a str, i8, Option<&'a str>);
const TOPIC: i8 = 2;
const BROKER: i8 = 4;
const SET: i8 = 0;
const DELETE: i8 = 1;
const APPEND: i8 = 2;
const SUBTRACT: i8 = 3;

/// IncrementalAlterConfigs validation for topics and brokers.
#[test]
fn incremental_alter_configs_validation() {
    use ErrorCode::{BrokerIdNotRegistered, InvalidConfig, InvalidRequest, UnknownTopicOrPartition};
    check_alter(vec![alter(TOPIC, "existing", &[("retention.ms", SET, Some("100"))])], &[OK]);
    check_alter(vec![alter(TOPIC, "nope", &[("retention.ms", SET, Some("100"))])], &[UnknownTopicOrPartition]);
    check_alter(vec![alter(TOPIC, "existing", &[("no.such", SET, Some("1"))])], &[InvalidConfig]);
    check_alter(vec![alter(TOPIC, "existing", &[("retention.ms", SET, Some("x"))])], &[InvalidConfig]);
    check_alter(vec![alter(TOPIC, "existing", &[("retention.ms", APPEND, Some("1"))])], &[InvalidConfig]);
    check_alter(vec![alter(TOPIC, "existing", &[("retention.ms", SET, None)])], &[InvalidRequest]);
    check_alter(vec![alter(TOPIC, "existing", &[("retention.ms", 9, Some("1"))])], &[InvalidRequest]);
    check_alter(
        vec![alter(TOPIC, "existing", &[("retention.ms", SET, Some("1")), ("retention.ms", DELETE, None)])],
        &[InvalidRequest],
    );
    check_alter(vec![alter(TOPIC, "", &[("retention.ms", SET, Some("1"))])], &[InvalidRequest]);
    check_alter(
        vec![alter(TOPIC, "existing", &[("retention.ms", SET, Some("1"))]), alter(TOPIC, "existing", &[])],
        &[InvalidRequest, InvalidRequest],
    );
    check_alter(vec![alter(BROKER, "", &[("log.retention.ms", SET, Some("1000"))])], &[OK]);
    check_alter(vec![alter(BROKER, "1", &[("message.max.bytes", SET, Some("2000"))])], &[OK]);
    check_alter(vec![alter(BROKER, "9", &[("message.max.bytes", SET, Some("2000"))])], &[BrokerIdNotRegistered]);
    check_alter(vec![alter(BROKER, "one", &[("message.max.bytes", SET, Some("2000"))])], &[InvalidRequest]);
    check_alter(vec![alter(BROKER, "", &[("num.io.threads", SET, Some("8"))])], &[InvalidRequest]);
    check_alter(vec![alter(BROKER, "", &[("message.max.bytes", SET, Some("big"))])], &[InvalidRequest]);
    // Group configs (KIP-848's GROUP resource): the keys Strand applies, validated as Kafka does.
    check_alter(vec![alter(32, "group", &[("x", SET, Some("1"))])], &[InvalidConfig]);
    check_alter(vec![alter(32, "", &[("share.release.backoff.ms", SET, Some("1"))])], &[InvalidRequest]);
    check_alter(vec![alter(32, "group", &[("errors.deadletterqueue.topic.name", SET, Some("dlq.g"))])], &[OK]);
    check_alter(vec![alter(32, "group", &[("errors.deadletterqueue.topic.name", SET, Some("__x"))])], &[InvalidConfig]);
    check_alter(vec![alter(32, "group", &[("share.auto.offset.reset", SET, Some("earliest"))])], &[OK]);
    check_alter(vec![alter(32, "group", &[("share.auto.offset.reset", SET, Some("first"))])], &[InvalidConfig]);
    check_alter(vec![alter(32, "group", &[("share.isolation.level", SET, Some("read_committed"))])], &[InvalidConfig]);
    // A listener's TLS stores change per broker only, as Kafka's per-broker configs do.
    let keystore = "listener.name.ssl.ssl.keystore.location";
    check_alter(vec![alter(BROKER, "1", &[(keystore, SET, Some("/etc/new.p12"))])], &[OK]);
    check_alter(vec![alter(BROKER, "1", &[(keystore, APPEND, Some("/x"))])], &[InvalidConfig]);
    check_alter(vec![alter(BROKER, "", &[(keystore, SET, Some("/etc/new.p12"))])], &[InvalidRequest]);
    check_alter(
        vec![alter(BROKER, "1", &[("listener.name.ssl.ssl.client.auth", SET, Some("none"))])],
        &[InvalidRequest],
    );
    check_alter(vec![alter(BROKER, "1", &[("ssl.keystore.location", SET, Some("/etc/new.p12"))])], &[InvalidRequest]);
}

/// SET, APPEND, SUBTRACT and DELETE replay into the topic's configs; an unchanged value writes
/// no record.
#[test]
fn incremental_alter_configs_replays() {
    let mut cluster = base();
    let resource = ConfigResource::topic("existing");
    let steps: Vec<(Vec<Operation>, Option<&str>, usize)> = vec![
        (vec![("cleanup.policy", APPEND, Some("compact"))], Some("delete,compact"), 1),
        (vec![("cleanup.policy", SUBTRACT, Some("delete"))], Some("compact"), 1),
        (vec![("cleanup.policy", SET, Some("compact"))], Some("compact"), 0),
        (vec![("cleanup.policy", DELETE, None)], None, 1),
    ];
    for (ops, expected, record_count) in steps {
        let request =
            IncrementalAlterConfigsRequest { resources: vec![alter(TOPIC, "existing", &ops)], ..Default::default() };
        let result = incremental_alter_configs(&cluster.image, &request);
        assert_eq!(result.response.responses[0].error_code, 0);
        assert_eq!(result.records.len(), record_count, "{ops:?}");
        cluster.apply(&result.records);
        assert_eq!(cluster.image.configs().value(&resource, "cleanup.policy"), expected, "{ops:?}");
    }
    let dry = IncrementalAlterConfigsRequest {
        resources: vec![alter(TOPIC, "existing", &[("retention.ms", SET, Some("5"))])],
        validate_only: true,
        ..Default::default()
    };
    assert!(incremental_alter_configs(&cluster.image, &dry).records.is_empty());
}

/// AlterConfigs replaces the whole set: keys left out are deleted.
#[test]
fn alter_configs_replaces_the_set() {
    let mut cluster = base();
    let resource = ConfigResource::topic("existing");
    let set = |pairs: &[(&str, &str)]| AlterConfigsRequest {
        resources: vec![alter_configs_request::AlterConfigsResource {
            resource_type: TOPIC,
            resource_name: "existing".to_owned(),
            configs: pairs
                .iter()
                .map(|(k, v)| alter_configs_request::AlterableConfig {
                    name: (*k).to_owned(),
                    value: Some((*v).to_owned()),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let result = alter_configs(&cluster.image, &set(&[("retention.ms", "10"), ("segment.ms", "20")]));
    cluster.apply(&result.records);
    let result = alter_configs(&cluster.image, &set(&[("segment.ms", "30")]));
    assert_eq!(result.records.len(), 2);
    cluster.apply(&result.records);
    let configs = cluster.image.configs().resource(&resource).expect("configs");
    assert_eq!(configs.iter().collect::<Vec<_>>(), vec![(&"segment.ms".to_owned(), &"30".to_owned())]);
    let bad = alter_configs(&cluster.image, &set(&[("segment.ms", "0")]));
    assert_eq!(bad.response.responses[0].error_code, ErrorCode::InvalidConfig.code());
    assert!(bad.records.is_empty());
}

/// Producer id blocks follow each other in steps of 1000; a stale broker epoch is refused.
#[test]
fn allocate_producer_ids_hands_out_blocks() {
    let mut cluster = Cluster::with_brokers(&[1]);
    let epoch = cluster.image.cluster().broker(BrokerId(1)).expect("broker").epoch;
    for start in [0, 1000, 2000] {
        let result = allocate_producer_ids(&cluster.image, BrokerId(1), epoch);
        assert_eq!(result.response.error_code, 0);
        assert_eq!((result.response.producer_id_start, result.response.producer_id_len), (ProducerId(start), 1000));
        cluster.apply(&result.records);
    }
    let stale = allocate_producer_ids(&cluster.image, BrokerId(1), epoch + 1);
    assert_eq!(stale.response.error_code, ErrorCode::StaleBrokerEpoch.code());
    assert!(stale.records.is_empty());
    let unknown = allocate_producer_ids(&cluster.image, BrokerId(7), 0);
    assert_eq!(unknown.response.error_code, ErrorCode::StaleBrokerEpoch.code());
}

/// BrokerRegistration: a new incarnation gets the given epoch, starts fenced unless told
/// otherwise, and Kafka's errors for bad requests.
#[test]
fn register_broker_validation() {
    let cluster = Cluster::new();
    let inputs = RegisterBrokerInputs {
        cluster_id: CLUSTER_ID.to_owned(),
        new_broker_epoch: 42,
        previous_session: PreviousSession::Expired,
        initial_fencing: InitialFencing::Fenced,
    };
    let check = |request: strand_protocol::messages::BrokerRegistrationRequest, expected: ErrorCode| {
        let result = register_broker(&cluster.image, &request, &inputs, &ControllerDefaults::default());
        assert_eq!(ErrorCode::from_code(result.response.error_code), Some(expected), "{request:?}");
        assert_eq!(result.records.is_empty(), expected != ErrorCode::None);
    };
    check(registration(1), ErrorCode::None);
    check(
        strand_protocol::messages::BrokerRegistrationRequest { cluster_id: "other".to_owned(), ..registration(1) },
        ErrorCode::InconsistentClusterId,
    );
    check(
        strand_protocol::messages::BrokerRegistrationRequest { log_dirs: vec![], ..registration(1) },
        ErrorCode::InvalidRegistration,
    );
    check(
        strand_protocol::messages::BrokerRegistrationRequest { log_dirs: vec![Uuid::ZERO], ..registration(1) },
        ErrorCode::InvalidRegistration,
    );
    let mut old = registration(1);
    old.features.retain(|f| f.name != "transaction.version");
    check(old, ErrorCode::UnsupportedVersion);
    let mut no_mv = registration(1);
    no_mv.features.retain(|f| f.name != "metadata.version");
    check(no_mv, ErrorCode::UnsupportedVersion);

    let result = register_broker(&cluster.image, &registration(1), &inputs, &ControllerDefaults::default());
    assert_eq!(result.response.broker_epoch, 42);
    let mut next = Cluster::new();
    next.apply(&result.records);
    let broker = next.image.cluster().broker(BrokerId(1)).expect("registered");
    assert!(broker.fenced);
    assert_eq!((broker.epoch, broker.endpoints[0].port), (42, 9092));
    let live = RegisterBrokerInputs { previous_session: PreviousSession::Live, ..inputs.clone() };
    let mut other = registration(1);
    other.incarnation_id = Uuid([0x44; 16]);
    let duplicate = register_broker(&next.image, &other, &live, &ControllerDefaults::default());
    assert_eq!(duplicate.response.error_code, ErrorCode::DuplicateBrokerRegistration.code());
    let again = register_broker(
        &next.image,
        &registration(1),
        &RegisterBrokerInputs { new_broker_epoch: 99, ..live },
        &ControllerDefaults::default(),
    );
    assert_eq!(again.response.broker_epoch, 42, "the same incarnation keeps its epoch");
}

/// The bootstrap records finalize Kafka 4.4's levels of what Strand implements, in Kafka's order:
/// `kraft.version` 0, as Kafka formats a static quorum, so it has no record; `share.version` 1
/// (share groups without KIP-1222's level 2); `streams.version` 1 (KIP-1071).
#[test]
fn bootstrap_features() {
    let records = bootstrap_records(&BootstrapFeatures::default());
    let levels: Vec<(String, i16)> = records
        .iter()
        .map(|r| match &r.record {
            MetadataRecord::FeatureLevelRecord(f) => (f.name.clone(), f.feature_level),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    let expected = [
        ("metadata.version", 33),
        ("eligible.leader.replicas.version", 1),
        ("group.version", 1),
        ("share.version", 1),
        ("streams.version", 1),
        ("transaction.version", 2),
    ];
    assert_eq!(levels, expected.map(|(n, l)| (n.to_owned(), l)).to_vec());
    // Kafka 4.4's `kafka-storage format` of a static quorum: metadata.version and five others.
    assert_eq!(bootstrap_records(&BootstrapFeatures::kafka_4_4()).len(), 6);
}

/// An operation of the random mix.
#[derive(Debug, Clone)]
enum Op {
    Create { name: usize, partitions: i32, replication_factor: i16 },
    Delete { name: usize },
    DeleteById { name: usize },
    Grow { name: usize, count: i32 },
}

/// Names that include a collision pair and an illegal one.
const NAMES: [&str; 6] = ["a.b", "a_b", "c", "d-e", "f", "bad name"];

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..NAMES.len(), -1..5_i32, -1..5_i16).prop_map(|(name, partitions, replication_factor)| Op::Create {
            name,
            partitions,
            replication_factor
        }),
        (0..NAMES.len()).prop_map(|name| Op::Delete { name }),
        (0..NAMES.len()).prop_map(|name| Op::DeleteById { name }),
        (0..NAMES.len(), 0..8_i32).prop_map(|(name, count)| Op::Grow { name, count }),
    ]
}

/// Applies one decision and returns its records.
fn decide(cluster: &mut Cluster, op: &Op) -> Vec<ApiMessageAndVersion> {
    let image = cluster.image.clone();
    match op {
        Op::Create { name, partitions, replication_factor } => {
            let request = CreateTopicsRequest {
                topics: vec![topic(NAMES[*name], *partitions, *replication_factor)],
                ..Default::default()
            };
            create_topics(&image, &request, &ControllerDefaults::default(), &mut cluster.topic_ids()).records
        }
        Op::Delete { name } => {
            let request = DeleteTopicsRequest { topic_names: vec![NAMES[*name].to_owned()], ..Default::default() };
            delete_topics(&image, &request).records
        }
        Op::DeleteById { name } => {
            let id = image.topics().by_name(NAMES[*name]).map_or(Uuid([3; 16]), |t| t.id);
            let state = DeleteTopicState { name: None, topic_id: id, ..Default::default() };
            delete_topics(&image, &DeleteTopicsRequest { topics: vec![state], ..Default::default() }).records
        }
        Op::Grow { name, count } => {
            let request =
                CreatePartitionsRequest { topics: vec![grow(NAMES[*name], *count, None)], ..Default::default() };
            create_partitions(&image, &request).records
        }
    }
}

/// The image's invariants: names and ids unique and consistent both ways, no colliding names,
/// partitions numbered 0..n, every leader a replica in the ISR, ISR within the replicas, one
/// directory per replica, and configs only for live topics.
fn check_consistent(image: &MetadataImage) -> Result<(), String> {
    let topics = image.topics();
    if topics.names().len() != topics.len() {
        return Err("name and id maps differ in size".to_owned());
    }
    let mut unified = std::collections::BTreeSet::new();
    for (name, id) in topics.names() {
        let topic = topics.by_id(*id).ok_or(format!("{name} maps to missing id"))?;
        if topic.name != *name || *id == Uuid::ZERO || !unified.insert(name.replace('.', "_")) {
            return Err(format!("bad topic {name}"));
        }
        if !topic.partitions.keys().copied().eq(0..i32::try_from(topic.partitions.len()).unwrap_or(0)) {
            return Err(format!("{name}: partitions not numbered 0..n"));
        }
        for (index, p) in &topic.partitions {
            let distinct: std::collections::BTreeSet<_> = p.replicas.iter().collect();
            let ok = p.leader != NO_LEADER
                && p.replicas.contains(&p.leader)
                && p.isr.contains(&p.leader)
                && p.isr.iter().all(|b| p.replicas.contains(b))
                && distinct.len() == p.replicas.len()
                && p.directories.len() == p.replicas.len();
            if !ok {
                return Err(format!("{name}-{index}: {p:?}"));
            }
        }
    }
    for (resource, _) in image.configs().resources() {
        if topics.by_name(&resource.name).is_none()
            && resource.kind == strand_metadata::image::ConfigResourceKind::Topic
        {
            return Err(format!("configs left for {resource}"));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// A random mix of create, delete (by name and id) and create-partitions decisions, each
    /// replayed, keeps the image consistent and agrees with a model of names and counts.
    #[test]
    fn random_decisions_keep_the_image_consistent(ops in proptest::collection::vec(op(), 1..40)) {
        let mut cluster = Cluster::with_brokers(&[1, 2, 3]);
        let mut model: BTreeMap<&str, usize> = BTreeMap::new();
        for op in &ops {
            let records = decide(&mut cluster, op);
            cluster.apply(&records);
            update_model(&mut model, op);
            prop_assert_eq!(check_consistent(&cluster.image), Ok(()));
            let actual: BTreeMap<&str, usize> =
                cluster.image.topics().iter().map(|t| (t.name.as_str(), t.partitions.len())).collect();
            prop_assert_eq!(&actual, &model, "after {:?}", op);
        }
    }
}

/// What each operation must have done, decided from the model alone.
fn update_model(model: &mut BTreeMap<&'static str, usize>, op: &Op) {
    match *op {
        Op::Create { name, partitions, replication_factor } => {
            let n = NAMES[name];
            let collides = model.keys().any(|m| *m != n && m.replace('.', "_") == n.replace('.', "_"));
            let valid = n != "bad name" && !model.contains_key(n) && !collides;
            if valid && partitions != 0 && replication_factor != 0 && replication_factor <= 3 {
                model.insert(n, usize::try_from(partitions.max(1)).unwrap_or(1));
            }
        }
        Op::Delete { name } | Op::DeleteById { name } => {
            model.remove(NAMES[name]);
        }
        Op::Grow { name, count } => {
            if let Some(current) = model.get_mut(NAMES[name]) {
                let count = usize::try_from(count).unwrap_or(0);
                if count > *current {
                    *current = count;
                }
            }
        }
    }
}
