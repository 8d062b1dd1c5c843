//! The metadata publisher's passes visit what changed since the last one (the topics added,
//! changed, removed, or whose configs changed), not every topic hosted, so a pass costs what
//! changed (issue 15: a flood of creations made every pass visit every partition, and hosting
//! slowed as topics grew); a change that concerns every partition (this node's or the cluster's
//! broker configs) visits them all, and partitions left for later are hosted by the next passes.

mod common;

use std::collections::BTreeMap;

use bytes::BytesMut;
use strand_base::{BrokerId, TopicPartition, Uuid};
use strand_broker::BrokerMetadataPublisher;
use strand_log::LogConfig;
use strand_log::log::ValidatedBatch;
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_metadata::image::{MetadataDelta, MetadataImage, MetadataProvenance};
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{ConfigRecord, PartitionChangeRecord, PartitionRecord, RemoveTopicRecord, TopicRecord};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};
use strand_replication::Acks;

/// A topic of one partition led by node 1, as records.
fn topic_records(name: &str, topic_id: Uuid) -> [MetadataRecord; 2] {
    [
        MetadataRecord::TopicRecord(TopicRecord { name: name.into(), topic_id, ..Default::default() }),
        MetadataRecord::PartitionRecord(PartitionRecord {
            partition_id: 0,
            topic_id,
            replicas: vec![BrokerId(1)],
            isr: vec![1],
            leader: BrokerId(1),
            leader_epoch: 0,
            partition_epoch: 0,
            ..Default::default()
        }),
    ]
}

fn config_record(resource_type: i8, resource_name: &str, name: &str, value: &str) -> MetadataRecord {
    MetadataRecord::ConfigRecord(ConfigRecord {
        resource_type,
        resource_name: resource_name.into(),
        name: name.into(),
        value: Some(value.into()),
        ..Default::default()
    })
}

/// `image` changed by `records`, at the next offset.
fn next(image: &MetadataImage, records: &[MetadataRecord]) -> MetadataImage {
    let mut delta = MetadataDelta::new(image);
    for record in records {
        delta.replay(record).expect("replay");
    }
    delta.apply(MetadataProvenance { offset: image.provenance().offset + 1, epoch: 1 })
}

fn id(n: usize) -> Uuid {
    let mut id = [0x5a; 16];
    id[..8].copy_from_slice(&(n as u64).to_be_bytes());
    Uuid(id)
}

/// A publisher of node 1 over replicas in `dir`.
fn publisher(dir: &std::path::Path) -> BrokerMetadataPublisher {
    BrokerMetadataPublisher::new(common::NODE, common::replica_manager(dir), BTreeMap::new(), Default::default())
}

/// A pass visits what changed since the last one, not every topic: a new topic, a topic whose
/// configs changed, a deleted one (its replica goes); a change of this node's broker configs
/// (which every topic's effective config reads) visits every topic.
#[test]
fn a_pass_visits_the_topics_that_changed() {
    let dir = tempfile::tempdir().expect("dir");
    let publisher = publisher(dir.path());
    let records: Vec<MetadataRecord> = (0..40).flat_map(|n| topic_records(&format!("t{n}"), id(n))).collect();
    let image = next(&MetadataImage::empty(), &records);
    assert_eq!(publisher.publish_within(&image, usize::MAX).visited, 40, "the first pass visits every topic");
    assert_eq!(publisher.publish_within(&image, usize::MAX).visited, 0, "nothing changed");

    let image = next(&image, &topic_records("new", id(99)));
    assert_eq!(publisher.publish_within(&image, usize::MAX).visited, 1);
    assert!(publisher.replicas().is_hosted(&TopicPartition::new("new", 0)));

    let image = next(&image, &[config_record(2, "t7", "retention.ms", "1000")]);
    assert_eq!(publisher.publish_within(&image, usize::MAX).visited, 1, "the topic whose configs changed");

    let removed = MetadataRecord::RemoveTopicRecord(RemoveTopicRecord { topic_id: id(3), ..Default::default() });
    let image = next(&image, &[removed]);
    assert_eq!(publisher.publish_within(&image, usize::MAX).visited, 0);
    assert!(!publisher.replicas().is_hosted(&TopicPartition::new("t3", 0)), "the deleted topic's replica went");
    assert!(!dir.path().join("t3-0").exists());

    let image = next(&image, &[config_record(4, "1", "log.retention.ms", "1000")]);
    assert_eq!(publisher.publish_within(&image, usize::MAX).visited, 40, "this node's configs: every topic");
    let image = next(&image, &[config_record(4, "2", "log.retention.ms", "1000")]);
    assert_eq!(publisher.publish_within(&image, usize::MAX).visited, 0, "another node's configs: none");
    let image = next(&image, &[config_record(4, "", "log.retention.ms", "2000")]);
    assert_eq!(publisher.publish_within(&image, usize::MAX).visited, 40, "the cluster's defaults: every topic");
    assert_eq!(publisher.replicas().hosted().len(), 40);
}

/// The partitions a pass leaves for later are hosted by the passes that follow, over the same
/// image or a newer one, each within its budget.
#[test]
fn partitions_left_for_later_are_hosted_by_the_next_passes() {
    let dir = tempfile::tempdir().expect("dir");
    let publisher = publisher(dir.path());
    let records: Vec<MetadataRecord> = (0..25).flat_map(|n| topic_records(&format!("t{n}"), id(n))).collect();
    let image = next(&MetadataImage::empty(), &records);
    assert_eq!(publisher.publish_within(&image, 10).deferred.len(), 15);
    assert_eq!(publisher.replicas().hosted().len(), 10);
    let image = next(&image, &topic_records("later", id(99)));
    let pass = publisher.publish_within(&image, 10);
    assert_eq!((pass.visited, pass.deferred.len()), (10, 6));
    assert_eq!(publisher.publish_within(&image, 10).deferred.len(), 0);
    assert_eq!(publisher.replicas().hosted().len(), 26);
    assert_eq!(publisher.publish_within(&image, 10).visited, 0);
}

/// A partition whose new state could not be applied (here: its directory gone, so its new leader
/// epoch cannot be written) is tried again by the next pass, though its topic does not change
/// again, as a pass over every topic would.
#[test]
fn a_partition_that_failed_is_tried_again_by_the_next_pass() {
    let dir = tempfile::tempdir().expect("dir");
    let publisher = publisher(dir.path());
    let image = next(&MetadataImage::empty(), &topic_records("t", id(1)));
    assert!(publisher.publish_within(&image, usize::MAX).failed.is_empty());
    let tp = TopicPartition::new("t", 0);
    // A record, so that the next epoch's start is written at once (an empty log's waits).
    append_one(&publisher, &tp);
    let new_epoch = MetadataRecord::PartitionChangeRecord(PartitionChangeRecord {
        partition_id: 0,
        topic_id: id(1),
        leader: BrokerId(1),
        ..Default::default()
    });
    let image = next(&image, &[new_epoch]);
    let partition_dir = dir.path().join("t-0");
    std::fs::remove_dir_all(&partition_dir).expect("remove the partition's directory");
    let failed = publisher.publish_within(&image, usize::MAX).failed;
    assert_eq!(failed.iter().map(|f| &f.partition).collect::<Vec<_>>(), [&tp], "the new epoch cannot be written");
    std::fs::create_dir(&partition_dir).expect("the directory back");
    let pass = publisher.publish_within(&image, usize::MAX);
    assert!(pass.failed.is_empty(), "{:?}", pass.failed);
    assert_eq!(pass.visited, 1, "the failed partition was tried again");
    assert_eq!(publisher.replicas().partition_status(&tp).expect("hosted").leader_epoch, 1);
    assert_eq!(publisher.publish_within(&image, usize::MAX).visited, 0, "and only until it succeeded");
}

/// Appends one record to `tp`, led here at epoch 0.
fn append_one(publisher: &BrokerMetadataPublisher, tp: &TopicPartition) {
    let mut builder = RecordBatchBuilder::new();
    builder.append(&NewRecord { timestamp_ms: 10, key: None, value: Some(b"v"), headers: &[] }).expect("record");
    let batch = ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid");
    let context = AppendContext::client(VerificationGuard::SENTINEL);
    publisher.replicas().append(tp, batch, 0, Acks::Leader, context).expect("append");
}

/// A topic deleted and created again between two passes shows only as a new topic id: the
/// replica of the earlier topic goes and the new one starts from an empty log, on the first pass
/// (a log on disk of an earlier topic) as on a later one; one whose topic is unchanged stays.
#[test]
fn a_replica_of_an_earlier_topic_of_the_same_name_is_replaced() {
    let dir = tempfile::tempdir().expect("dir");
    let publisher = publisher(dir.path());
    let replicas = publisher.replicas();
    let (recreated, same) = (TopicPartition::new("t", 0), TopicPartition::new("u", 0));
    replicas.ensure_partition(&recreated, id(1), LogConfig::default()).expect("host t-0");
    replicas.ensure_partition(&same, id(3), LogConfig::default()).expect("host u-0");
    let records: Vec<MetadataRecord> = topic_records("t", id(2)).into_iter().chain(topic_records("u", id(3))).collect();
    let image = next(&MetadataImage::empty(), &records);
    assert!(publisher.publish_within(&image, usize::MAX).failed.is_empty());
    assert_eq!((replicas.hosted_topic_id(&recreated), replicas.hosted_topic_id(&same)), (Some(id(2)), Some(id(3))));

    append_one(&publisher, &recreated);
    let removed = MetadataRecord::RemoveTopicRecord(RemoveTopicRecord { topic_id: id(2), ..Default::default() });
    let records: Vec<MetadataRecord> = [removed].into_iter().chain(topic_records("t", id(4))).collect();
    let image = next(&image, &records);
    assert!(publisher.publish_within(&image, usize::MAX).failed.is_empty());
    assert_eq!(replicas.hosted_topic_id(&recreated), Some(id(4)));
    assert_eq!(replicas.log_end_offset(&recreated).expect("hosted"), 0, "the new topic's log starts empty");
    assert_eq!(replicas.hosted_topic_id(&same), Some(id(3)));
}
