//! Replay rules of the metadata image, as Kafka's `MetadataDelta.replay`: what each record
//! changes, what it leaves alone, and which records do not fit the image.

mod common;

use common::{Cluster, from_snapshot_records};
use strand_base::{BrokerId, Uuid};
use strand_metadata::image::{
    ConfigResource, LeaderRecoveryState, MetadataDelta, MetadataImage, MetadataProvenance, NO_LEADER, NO_LEADER_CHANGE,
    ReplayError,
};
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{
    BrokerRegistrationChangeRecord, ClearElrRecord, ConfigRecord, FeatureLevelRecord, FenceBrokerRecord,
    PartitionChangeRecord, PartitionRecord, ProducerIdsRecord, RemoveAccessControlEntryRecord, RemoveTopicRecord,
    TopicRecord,
};

/// An ALLOW READ binding for `User:alice` on topic `name` (pattern type `pattern`) with id `[id; 16]`.
fn acl(id: u8, name: &str, pattern: i8) -> MetadataRecord {
    MetadataRecord::AccessControlEntryRecord(strand_protocol::messages::AccessControlEntryRecord {
        id: Uuid([id; 16]),
        resource_type: 2,
        resource_name: name.to_owned(),
        pattern_type: pattern,
        principal: "User:alice".to_owned(),
        host: "*".to_owned(),
        operation: 3,
        permission_type: 3,
        ..Default::default()
    })
}

const TOPIC: Uuid = Uuid([7; 16]);

fn replay(image: &MetadataImage, records: Vec<MetadataRecord>) -> Result<MetadataImage, ReplayError> {
    let mut delta = MetadataDelta::new(image);
    for record in &records {
        delta.replay(record)?;
    }
    Ok(delta.apply(MetadataProvenance { offset: image.provenance().offset + 1, epoch: 1 }))
}

/// An image with topic `t` (id [`TOPIC`]) whose partition 0 has replicas 1, 2, 3, leader 1.
fn with_topic() -> MetadataImage {
    let topic = TopicRecord { name: "t".to_owned(), topic_id: TOPIC, ..Default::default() };
    let partition = PartitionRecord {
        partition_id: 0,
        topic_id: TOPIC,
        replicas: vec![BrokerId(1), BrokerId(2), BrokerId(3)],
        isr: vec![1, 2, 3],
        leader: BrokerId(1),
        leader_epoch: 0,
        partition_epoch: 0,
        ..Default::default()
    };
    let config = ConfigRecord {
        resource_type: 2,
        resource_name: "t".to_owned(),
        name: "retention.ms".to_owned(),
        value: Some("1000".to_owned()),
        ..Default::default()
    };
    let records = vec![
        MetadataRecord::TopicRecord(topic),
        MetadataRecord::PartitionRecord(partition),
        MetadataRecord::ConfigRecord(config),
    ];
    replay(&MetadataImage::empty(), records).expect("replay")
}

fn change(leader: BrokerId) -> PartitionChangeRecord {
    PartitionChangeRecord { partition_id: 0, topic_id: TOPIC, leader, ..Default::default() }
}

/// A partition change sets only the fields it carries; NO_LEADER_CHANGE (-2) keeps the leader
/// and its epoch while the partition epoch still grows.
#[test]
fn partition_change_sets_only_given_fields() {
    let image = with_topic();
    let record = PartitionChangeRecord { isr: Some(vec![BrokerId(1), BrokerId(2)]), ..change(NO_LEADER_CHANGE) };
    let next = replay(&image, vec![MetadataRecord::PartitionChangeRecord(record)]).expect("replay");
    let partition = &next.topics().by_name("t").expect("topic").partitions[&0];
    assert_eq!(partition.isr, vec![BrokerId(1), BrokerId(2)]);
    assert_eq!(partition.replicas, vec![BrokerId(1), BrokerId(2), BrokerId(3)]);
    assert_eq!((partition.leader, partition.leader_epoch, partition.partition_epoch), (BrokerId(1), 0, 1));
    assert_eq!(partition.directories.len(), 3);
}

/// Any other leader value, NO_LEADER (-1) included, sets the leader and bumps the leader epoch.
#[test]
fn leader_change_bumps_leader_epoch() {
    let image = with_topic();
    let next = replay(&image, vec![MetadataRecord::PartitionChangeRecord(change(NO_LEADER))]).expect("replay");
    let partition = &next.topics().by_id(TOPIC).expect("topic").partitions[&0];
    assert_eq!((partition.leader, partition.leader_epoch, partition.partition_epoch), (NO_LEADER, 1, 1));
    assert!(!partition.has_leader());
    let recovering = PartitionChangeRecord { leader_recovery_state: 1, ..change(BrokerId(2)) };
    let next = replay(&next, vec![MetadataRecord::PartitionChangeRecord(recovering)]).expect("replay");
    let partition = &next.topics().by_id(TOPIC).expect("topic").partitions[&0];
    assert_eq!((partition.leader, partition.leader_epoch), (BrokerId(2), 2));
    assert_eq!(partition.leader_recovery_state, LeaderRecoveryState::Recovering);
}

/// Removing a topic removes its partitions, its name and its configs.
#[test]
fn remove_topic_takes_partitions_and_configs() {
    let image = with_topic();
    assert_eq!(image.configs().value(&ConfigResource::topic("t"), "retention.ms"), Some("1000"));
    let remove = RemoveTopicRecord { topic_id: TOPIC, ..Default::default() };
    let next = replay(&image, vec![MetadataRecord::RemoveTopicRecord(remove)]).expect("replay");
    assert!(next.topics().is_empty());
    assert!(next.topics().by_name("t").is_none());
    assert!(next.configs().resource(&ConfigResource::topic("t")).is_none());
}

/// A config record with a null value deletes the key, and the resource with its last key.
#[test]
fn null_config_value_deletes_the_key() {
    let image = with_topic();
    let delete = ConfigRecord {
        resource_type: 2,
        resource_name: "t".to_owned(),
        name: "retention.ms".to_owned(),
        value: None,
        ..Default::default()
    };
    let next = replay(&image, vec![MetadataRecord::ConfigRecord(delete)]).expect("replay");
    assert!(next.configs().resource(&ConfigResource::topic("t")).is_none());
}

/// Records that do not fit the image are errors, and leave the delta as it was.
#[test]
fn inconsistent_records_are_errors() {
    let image = with_topic();
    let other = Uuid([9; 16]);
    let cases: Vec<(MetadataRecord, ReplayError)> = vec![
        (
            MetadataRecord::PartitionRecord(PartitionRecord { topic_id: other, partition_id: 0, ..Default::default() }),
            ReplayError::UnknownTopicId(other),
        ),
        (
            MetadataRecord::RemoveAccessControlEntryRecord(RemoveAccessControlEntryRecord {
                id: other,
                ..Default::default()
            }),
            ReplayError::UnknownAcl(other),
        ),
        (
            MetadataRecord::PartitionChangeRecord(PartitionChangeRecord {
                partition_id: 5,
                ..change(NO_LEADER_CHANGE)
            }),
            ReplayError::UnknownPartition { topic_id: TOPIC, partition: 5 },
        ),
        (
            MetadataRecord::RemoveTopicRecord(RemoveTopicRecord { topic_id: other, ..Default::default() }),
            ReplayError::UnknownTopicId(other),
        ),
        (
            MetadataRecord::TopicRecord(TopicRecord { name: "t".to_owned(), topic_id: other, ..Default::default() }),
            ReplayError::DuplicateTopic { name: "t".to_owned(), id: other },
        ),
        (
            MetadataRecord::PartitionChangeRecord(PartitionChangeRecord {
                leader_recovery_state: 7,
                ..change(NO_LEADER_CHANGE)
            }),
            ReplayError::InvalidLeaderRecoveryState(7),
        ),
        (
            MetadataRecord::FenceBrokerRecord(FenceBrokerRecord { id: BrokerId(4), epoch: 0, ..Default::default() }),
            ReplayError::UnknownBroker(BrokerId(4)),
        ),
        (
            MetadataRecord::ClearElrRecord(ClearElrRecord { topic_name: "nope".to_owned(), ..Default::default() }),
            ReplayError::UnknownTopicName("nope".to_owned()),
        ),
        (
            MetadataRecord::FeatureLevelRecord(FeatureLevelRecord {
                name: "metadata.version".to_owned(),
                feature_level: 0,
                ..Default::default()
            }),
            ReplayError::InvalidFeatureLevel { name: "metadata.version".to_owned(), level: 0 },
        ),
    ];
    for (record, expected) in cases {
        let mut delta = MetadataDelta::new(&image);
        assert_eq!(delta.replay(&record), Err(expected), "{record:?}");
        assert_eq!(delta.apply(image.provenance()), image);
    }
}

/// Fencing needs the registered epoch; a registration change with unknown flags is refused.
#[test]
fn broker_fencing_checks_the_epoch() {
    let mut cluster = Cluster::with_brokers(&[1]);
    let epoch = cluster.image.cluster().broker(BrokerId(1)).expect("broker").epoch;
    assert!(cluster.image.cluster().is_active(BrokerId(1)));
    let stale = FenceBrokerRecord { id: BrokerId(1), epoch: epoch + 1, ..Default::default() };
    assert_eq!(
        replay(&cluster.image, vec![MetadataRecord::FenceBrokerRecord(stale)]),
        Err(ReplayError::StaleBrokerEpoch { broker: BrokerId(1), registered: epoch, record: epoch + 1 })
    );
    let fence =
        BrokerRegistrationChangeRecord { broker_id: BrokerId(1), broker_epoch: epoch, fenced: 1, ..Default::default() };
    cluster.image =
        replay(&cluster.image, vec![MetadataRecord::BrokerRegistrationChangeRecord(fence)]).expect("replay");
    assert!(!cluster.image.cluster().is_active(BrokerId(1)));
    let odd =
        BrokerRegistrationChangeRecord { broker_id: BrokerId(1), broker_epoch: epoch, fenced: 3, ..Default::default() };
    assert_eq!(
        replay(&cluster.image, vec![MetadataRecord::BrokerRegistrationChangeRecord(odd)]),
        Err(ReplayError::InvalidFencingChange(3))
    );
}

/// Clearing ELRs empties them and bumps the partition epoch of the partitions that had any.
#[test]
fn clear_elr_empties_elrs() {
    let image = with_topic();
    let with_elr =
        PartitionChangeRecord { eligible_leader_replicas: Some(vec![BrokerId(3)]), ..change(NO_LEADER_CHANGE) };
    let image = replay(&image, vec![MetadataRecord::PartitionChangeRecord(with_elr)]).expect("replay");
    let clear = ClearElrRecord { topic_name: String::new(), ..Default::default() };
    let next = replay(&image, vec![MetadataRecord::ClearElrRecord(clear)]).expect("replay");
    let partition = &next.topics().by_id(TOPIC).expect("topic").partitions[&0];
    assert!(partition.elr.is_empty());
    assert_eq!(partition.partition_epoch, 2);
}

/// The next producer id only grows.
#[test]
fn producer_ids_only_grow() {
    let image = MetadataImage::empty();
    assert_eq!(image.producer_ids().next_block_start(), 0);
    let record =
        |next| MetadataRecord::ProducerIdsRecord(ProducerIdsRecord { next_producer_id: next, ..Default::default() });
    let next = replay(&image, vec![record(1000)]).expect("replay");
    assert_eq!(next.producer_ids().next_block_start(), 1000);
    assert_eq!(
        replay(&next, vec![record(1000)]),
        Err(ReplayError::ProducerIdNotIncreasing { current: 1000, next: 1000 })
    );
}

/// A delta shares what it does not change: an untouched topic is the same allocation in both
/// images, and the base image is unchanged.
#[test]
fn unchanged_topics_are_shared() {
    let mut cluster = Cluster::with_brokers(&[1]);
    let a = cluster.create_topic("a", 2, 1);
    let base = cluster.image.clone();
    cluster.create_topic("b", 1, 1);
    let before = base.topics().by_id(a).expect("a");
    let after = cluster.image.topics().by_id(a).expect("a");
    assert!(std::ptr::eq(before, after));
    assert_eq!(base.topics().len(), 1);
    assert_eq!(cluster.image.topics().len(), 2);
    assert!(cluster.image.provenance() > base.provenance());
}

/// Feature level records finalize features; level 0 turns one off.
#[test]
fn feature_levels_finalize_and_clear() {
    let cluster = Cluster::new();
    assert_eq!(cluster.image.features().metadata_version(), Some(33));
    assert_eq!(cluster.image.features().level("transaction.version"), 2);
    let off = FeatureLevelRecord { name: "group.version".to_owned(), feature_level: 0, ..Default::default() };
    let next = replay(&cluster.image, vec![MetadataRecord::FeatureLevelRecord(off)]).expect("replay");
    assert_eq!(next.features().level("group.version"), 0);
    assert!(!next.features().finalized().contains_key("group.version"));
}

/// A snapshot's records recreate everything an image holds: features, brokers fenced and
/// shutting down, topics with ELRs and reassignments, topic and broker configs (the cluster
/// default included), the producer id block, ACLs; and nothing for what the image does not hold.
#[test]
fn snapshot_records_recreate_the_image() {
    let mut cluster = Cluster::with_brokers(&[1, 2, 3]);
    cluster.create_topic("a", 3, 3);
    let epoch = cluster.image.cluster().broker(BrokerId(2)).expect("broker").epoch;
    let config = |kind: i8, resource: &str, name: &str, value: &str| {
        MetadataRecord::ConfigRecord(ConfigRecord {
            resource_type: kind,
            resource_name: resource.to_owned(),
            name: name.to_owned(),
            value: Some(value.to_owned()),
            ..Default::default()
        })
    };
    let records = vec![
        MetadataRecord::TopicRecord(TopicRecord { name: "t".to_owned(), topic_id: TOPIC, ..Default::default() }),
        MetadataRecord::PartitionRecord(PartitionRecord {
            partition_id: 4,
            topic_id: TOPIC,
            replicas: vec![BrokerId(1), BrokerId(2), BrokerId(3)],
            isr: vec![1],
            adding_replicas: vec![BrokerId(3)],
            removing_replicas: vec![BrokerId(2)],
            leader: BrokerId(1),
            leader_recovery_state: 1,
            leader_epoch: 6,
            partition_epoch: 9,
            eligible_leader_replicas: Some(vec![BrokerId(2)]),
            last_known_elr: Some(vec![BrokerId(3)]),
            ..Default::default()
        }),
        config(2, "t", "retention.ms", "1000"),
        config(2, "t", "cleanup.policy", "compact"),
        config(4, "", "log.retention.ms", "5000"),
        config(4, "2", "log.cleaner.threads", "2"),
        MetadataRecord::BrokerRegistrationChangeRecord(BrokerRegistrationChangeRecord {
            broker_id: BrokerId(2),
            broker_epoch: epoch,
            fenced: 1,
            in_controlled_shutdown: 1,
            ..Default::default()
        }),
        MetadataRecord::ProducerIdsRecord(ProducerIdsRecord { next_producer_id: 3000, ..Default::default() }),
        MetadataRecord::FeatureLevelRecord(FeatureLevelRecord {
            name: "group.version".to_owned(),
            feature_level: 0,
            ..Default::default()
        }),
        acl(1, "orders", 3),
        acl(2, "pay", 4),
        acl(3, "gone", 3),
        MetadataRecord::RemoveAccessControlEntryRecord(RemoveAccessControlEntryRecord {
            id: Uuid([3; 16]),
            ..Default::default()
        }),
    ];
    let image = replay(&cluster.image, records).expect("replay");
    assert_eq!(image.acls().len(), 2);
    assert!(image.cluster().broker(BrokerId(2)).is_some_and(|b| b.fenced && b.in_controlled_shutdown));
    assert_eq!(from_snapshot_records(&image), image);
    let kinds: Vec<i16> = image.to_records().iter().map(|(r, _)| r.api_key()).collect();
    assert_eq!(kinds.first(), Some(&12), "metadata.version comes first: {kinds:?}");
    assert_eq!(from_snapshot_records(&MetadataImage::empty()), MetadataImage::empty());
    assert!(MetadataImage::empty().to_records().is_empty());
}
