//! Share groups' metadata in `__consumer_offsets` (KIP-932), in Kafka's record types: the group
//! epoch (`ShareGroupMetadata`, type 11) and the partitions whose share-partition state the
//! group has (`ShareGroupStatePartitionMetadata`, type 15, its initialized topics), so that a
//! restarted coordinator knows the group and which offsets it has. The broker keeps share groups'
//! membership in memory and writes these through [`crate::GroupCoordinator`]'s
//! `write_share_group` whenever they change; members (types 10, 12-14) are not written, so a
//! restart makes members join again.

use std::collections::{BTreeMap, BTreeSet};

use strand_base::Uuid;
use strand_protocol::messages::records::{GroupCoordinatorKey, GroupCoordinatorValue};
use strand_protocol::messages::share_group_state_partition_metadata_value::TopicPartitionsInfo;
use strand_protocol::messages::{
    ShareGroupMetadataKey, ShareGroupMetadataValue, ShareGroupStatePartitionMetadataKey,
    ShareGroupStatePartitionMetadataValue,
};

use super::records::CoordinatorRecord;
use super::{Effects, GroupShard, Output};

/// A share group as `__consumer_offsets` keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PersistedShareGroup {
    pub group_epoch: i32,
    /// The partitions with share-partition state, by topic id, with the topic's name.
    pub initialized: BTreeMap<Uuid, (String, BTreeSet<i32>)>,
}

impl PersistedShareGroup {
    fn records(&self, group_id: &str) -> Vec<CoordinatorRecord> {
        let epoch = ShareGroupMetadataValue { epoch: self.group_epoch, ..Default::default() };
        let initialized_topics = self
            .initialized
            .iter()
            .map(|(&topic_id, (topic_name, partitions))| TopicPartitionsInfo {
                topic_id,
                topic_name: topic_name.clone(),
                partitions: partitions.iter().copied().collect(),
                ..Default::default()
            })
            .collect();
        let partitions = ShareGroupStatePartitionMetadataValue { initialized_topics, ..Default::default() };
        vec![
            CoordinatorRecord {
                key: metadata_key(group_id),
                value: Some((0, GroupCoordinatorValue::ShareGroupMetadataValue(epoch))),
            },
            CoordinatorRecord {
                key: partitions_key(group_id),
                value: Some((0, GroupCoordinatorValue::ShareGroupStatePartitionMetadataValue(partitions))),
            },
        ]
    }
}

fn metadata_key(group_id: &str) -> GroupCoordinatorKey {
    GroupCoordinatorKey::ShareGroupMetadataKey(ShareGroupMetadataKey { group_id: group_id.to_owned() })
}

fn partitions_key(group_id: &str) -> GroupCoordinatorKey {
    GroupCoordinatorKey::ShareGroupStatePartitionMetadataKey(ShareGroupStatePartitionMetadataKey {
        group_id: group_id.to_owned(),
    })
}

impl GroupShard {
    /// Replays a share group's record; false if `record` is not one this shard keeps.
    pub(super) fn replay_share(&mut self, record: &CoordinatorRecord) -> bool {
        match (&record.key, &record.value) {
            (GroupCoordinatorKey::ShareGroupMetadataKey(key), None) => {
                self.share_groups.remove(&key.group_id);
            }
            (
                GroupCoordinatorKey::ShareGroupMetadataKey(key),
                Some((_, GroupCoordinatorValue::ShareGroupMetadataValue(v))),
            ) => {
                self.share_groups.entry(key.group_id.clone()).or_default().group_epoch = v.epoch;
            }
            (GroupCoordinatorKey::ShareGroupStatePartitionMetadataKey(key), None) => {
                if let Some(group) = self.share_groups.get_mut(&key.group_id) {
                    group.initialized.clear();
                }
            }
            (
                GroupCoordinatorKey::ShareGroupStatePartitionMetadataKey(key),
                Some((_, GroupCoordinatorValue::ShareGroupStatePartitionMetadataValue(v))),
            ) => {
                let group = self.share_groups.entry(key.group_id.clone()).or_default();
                group.initialized = v
                    .initialized_topics
                    .iter()
                    .map(|t| (t.topic_id, (t.topic_name.clone(), t.partitions.iter().copied().collect())))
                    .collect();
            }
            _ => return false,
        }
        true
    }

    /// The share group `group_id` as the log keeps it.
    pub fn share_group(&self, group_id: &str) -> Option<&PersistedShareGroup> {
        self.share_groups.get(group_id)
    }

    /// Stores the share group `group_id` (`None`: deletes it, with tombstones).
    pub fn write_share_group(&mut self, group_id: &str, group: Option<PersistedShareGroup>) -> Output<()> {
        let mut effects = Effects::default();
        let records = match group {
            Some(group) if self.share_groups.get(group_id) == Some(&group) => Vec::new(),
            Some(group) => group.records(group_id),
            None if self.share_groups.contains_key(group_id) => vec![
                CoordinatorRecord { key: partitions_key(group_id), value: None },
                CoordinatorRecord { key: metadata_key(group_id), value: None },
            ],
            None => Vec::new(),
        };
        for record in records {
            self.apply(&mut effects, record);
        }
        Output::new(effects, ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GroupConfig;
    use strand_protocol::records::RecordBatch;

    /// A share group's records are Kafka's types 11 and 15 and bring the group back when the
    /// log is replayed; an unchanged group writes nothing; a deletion writes tombstones.
    #[test]
    fn share_group_metadata_survives_a_replay() {
        let mut shard = GroupShard::new(GroupConfig::default());
        let topic = Uuid([3; 16]);
        let group = PersistedShareGroup {
            group_epoch: 4,
            initialized: BTreeMap::from([(topic, ("t".to_owned(), BTreeSet::from([0, 2])))]),
        };
        let written = shard.write_share_group("g", Some(group.clone())).records;
        let types: Vec<i16> = written.iter().map(|r| r.key.api_key()).collect();
        assert_eq!(types, vec![11, 15]);
        assert!(shard.write_share_group("g", Some(group.clone())).records.is_empty());
        let batch = super::super::records::build_batch(&written, 0).expect("builds");
        let batch = RecordBatch::parse(batch).expect("parses");
        let mut reloaded = GroupShard::new(GroupConfig::default());
        for record in &batch.records().expect("records") {
            let record = record.expect("a record");
            let key = bytes::Bytes::copy_from_slice(record.key().expect("a key"));
            let value = record.value().map(bytes::Bytes::copy_from_slice);
            reloaded.replay(&CoordinatorRecord::decode(key, value).expect("decodes"));
        }
        assert_eq!(reloaded.share_group("g"), Some(&group));
        let tombstones = reloaded.write_share_group("g", None).records;
        assert_eq!(tombstones.len(), 2);
        assert!(tombstones.iter().all(|r| r.value.is_none()));
        assert_eq!(reloaded.share_group("g"), None);
    }
}
