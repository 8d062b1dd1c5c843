//! The metadata publisher's passes visit what changed since the last one (the topics added,
//! changed, removed, or whose configs changed), not every topic hosted, so a pass costs what
//! changed (issue 15: a flood of creations made every pass visit every partition, and hosting
//! slowed as topics grew); a change that concerns every partition (this node's or the cluster's
//! broker configs) visits them all, and partitions left for later are hosted by the next passes.

mod common;

use std::collections::BTreeMap;

use strand_base::{BrokerId, TopicPartition, Uuid};
use strand_broker::BrokerMetadataPublisher;
use strand_metadata::image::{MetadataDelta, MetadataImage, MetadataProvenance};
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{ConfigRecord, PartitionRecord, RemoveTopicRecord, TopicRecord};

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
