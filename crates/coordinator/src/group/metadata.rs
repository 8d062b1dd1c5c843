//! [`TopicMetadata`]: what the group coordinator knows of the cluster's topics (names, ids,
//! partition counts), a snapshot the server hands over each time it publishes a new metadata
//! image ([`crate::GroupCoordinator::on_metadata_update`]).
//!
//! Consumer groups (KIP-848) subscribe by topic name or regular expression and are assigned
//! partitions by topic id; the snapshot answers both. It also computes Kafka 4.4's metadata hash
//! (KIP-1101): a group stores the hash of the topics it subscribes to in its `ConsumerGroupMetadata`
//! record, and a heartbeat that finds a different hash (a topic created, deleted or grown) bumps
//! the group epoch, which recomputes the target assignment.
//!
//! The hash is Kafka's `Utils.computeTopicHash` / `computeGroupHash`, bit for bit: XXH3-64 (seed 0)
//! over a byte stream written as hash4j's `HashStream64` writes it (integers little-endian, a
//! string as its UTF-16 code units followed by its length):
//!
//! ```text
//! topic hash = xxh3(0u8 | id.msb i64 | id.lsb i64 | name | partitions i32 | per partition: index i32, racks)
//! group hash = xxh3(topic hash i64 for each subscribed topic that exists, by topic name)   (0 if none)
//! ```
//!
//! Racks are not part of Strand's metadata yet: every partition hashes with no racks, as a Kafka
//! cluster without `broker.rack` does.

use std::collections::{BTreeMap, HashMap};

use strand_base::Uuid;
use twox_hash::XxHash3_64;

/// One topic as the coordinator sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicInfo {
    pub id: Uuid,
    pub partitions: i32,
    /// Kafka's topic hash of this topic (see the module docs).
    pub hash: i64,
}

/// The cluster's topics at one metadata version. Cheap to share behind an `Arc`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopicMetadata {
    /// The offset of the metadata image this snapshot comes from (Kafka's image version), stamped
    /// on resolved regular expressions.
    version: i64,
    /// The version of the latest snapshot that added a topic: regular expressions resolved before
    /// it may be missing a topic.
    new_topics_version: i64,
    by_name: BTreeMap<String, TopicInfo>,
    by_id: HashMap<Uuid, String>,
}

impl TopicMetadata {
    /// A snapshot of `topics` (name, id, partition count) at metadata `version`.
    pub fn new(version: i64, topics: impl IntoIterator<Item = (String, Uuid, i32)>) -> Self {
        let mut by_name = BTreeMap::new();
        let mut by_id = HashMap::new();
        for (name, id, partitions) in topics {
            let hash = topic_hash(&name, id, partitions);
            by_id.insert(id, name.clone());
            by_name.insert(name, TopicInfo { id, partitions, hash });
        }
        TopicMetadata { version, new_topics_version: version, by_name, by_id }
    }

    /// `self` as the successor of `previous`: the new-topics version moves only if a topic name
    /// appeared.
    pub fn succeeding(mut self, previous: &TopicMetadata) -> Self {
        let added = self.by_name.keys().any(|name| !previous.by_name.contains_key(name));
        self.new_topics_version = if added { self.version } else { previous.new_topics_version };
        self
    }

    /// Whether the two snapshots know different topics (names, ids or partition counts).
    /// The topics of `earlier` that are gone from this snapshot, or were deleted and created
    /// again (another id under the same name).
    pub fn deleted_since(&self, earlier: &TopicMetadata) -> std::collections::BTreeSet<String> {
        earlier
            .by_name
            .iter()
            .filter(|(name, info)| self.by_name.get(*name).is_none_or(|now| now.id != info.id))
            .map(|(name, _)| name.clone())
            .collect()
    }

    pub fn topics_differ(&self, other: &TopicMetadata) -> bool {
        self.by_name != other.by_name
    }

    pub fn version(&self) -> i64 {
        self.version
    }

    pub fn new_topics_version(&self) -> i64 {
        self.new_topics_version
    }

    pub fn topic(&self, name: &str) -> Option<&TopicInfo> {
        self.by_name.get(name)
    }

    pub fn name(&self, id: Uuid) -> Option<&str> {
        self.by_id.get(&id).map(String::as_str)
    }

    pub fn id(&self, name: &str) -> Option<Uuid> {
        self.by_name.get(name).map(|t| t.id)
    }

    /// Every topic name, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.by_name.keys().map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// Kafka's group metadata hash over `subscribed` topic names: the hashes of those that exist,
    /// in name order; 0 when none exists.
    pub fn group_hash<'a>(&self, subscribed: impl IntoIterator<Item = &'a str>) -> i64 {
        let mut topics: Vec<(&str, i64)> =
            subscribed.into_iter().filter_map(|name| self.topic(name).map(|t| (name, t.hash))).collect();
        if topics.is_empty() {
            return 0;
        }
        topics.sort_unstable();
        topics.dedup();
        let mut stream = HashStream::default();
        for (_, hash) in topics {
            stream.put_i64(hash);
        }
        stream.finish()
    }
}

/// Kafka's `computeTopicHash` for a topic without racks.
pub fn topic_hash(name: &str, id: Uuid, partitions: i32) -> i64 {
    let mut stream = HashStream::default();
    stream.put_u8(0);
    let (msb, lsb) = id.0.split_at(8);
    stream.put_i64(i64::from_be_bytes(msb.try_into().unwrap_or_default()));
    stream.put_i64(i64::from_be_bytes(lsb.try_into().unwrap_or_default()));
    stream.put_string(name);
    stream.put_i32(partitions);
    for partition in 0..partitions.max(0) {
        stream.put_i32(partition);
    }
    stream.finish()
}

/// The bytes hash4j's `HashStream64` would hash, then XXH3-64 over them.
#[derive(Default)]
struct HashStream {
    bytes: Vec<u8>,
}

impl HashStream {
    fn put_u8(&mut self, v: u8) {
        self.bytes.push(v);
    }

    fn put_i32(&mut self, v: i32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    fn put_i64(&mut self, v: i64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    /// A Java string: its UTF-16 code units, then its length in code units.
    fn put_string(&mut self, s: &str) {
        let mut units = 0i32;
        for unit in s.encode_utf16() {
            self.bytes.extend_from_slice(&unit.to_le_bytes());
            units += 1;
        }
        self.put_i32(units);
    }

    fn finish(&self) -> i64 {
        i64::from_le_bytes(XxHash3_64::oneshot(&self.bytes).to_le_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The group hash ignores topics that do not exist and the order of names; no topic hashes to 0.
    #[test]
    fn group_hash_covers_existing_topics_in_name_order() {
        let topics = TopicMetadata::new(5, [("a".to_owned(), Uuid([1; 16]), 3), ("b".to_owned(), Uuid([2; 16]), 1)]);
        assert_eq!(topics.group_hash([]), 0);
        assert_eq!(topics.group_hash(["missing"]), 0);
        assert_eq!(topics.group_hash(["b", "a"]), topics.group_hash(["a", "b", "missing"]));
        assert_ne!(topics.group_hash(["a"]), topics.group_hash(["a", "b"]));
        let grown = TopicMetadata::new(6, [("a".to_owned(), Uuid([1; 16]), 4)]);
        assert_ne!(topics.group_hash(["a"]), grown.group_hash(["a"]));
    }

    /// The new-topics version moves with an added name only.
    #[test]
    fn new_topics_version_tracks_added_names() {
        let first = TopicMetadata::new(5, [("a".to_owned(), Uuid([1; 16]), 3)]);
        let grown = TopicMetadata::new(9, [("a".to_owned(), Uuid([1; 16]), 6)]).succeeding(&first);
        assert_eq!(grown.new_topics_version(), 5);
        let added = TopicMetadata::new(12, [("a".to_owned(), Uuid([1; 16]), 6), ("b".to_owned(), Uuid([2; 16]), 1)])
            .succeeding(&grown);
        assert_eq!(added.new_topics_version(), 12);
    }
}
