//! [`OffsetMap`]: the cleaner's key → latest offset map, in memory bounded up front (Kafka's
//! `SkimpyOffsetMap`, sized by `log.cleaner.dedupe.buffer.size`).
//!
//! Keys are not stored: each is reduced to a 128-bit hash (two SipHash passes with fixed, distinct
//! seeds), so every entry is 24 bytes (hash, offset) whatever the key's size. Two keys sharing a
//! 128-bit hash would be taken for one, as in Kafka (which uses MD5); at the sizes a dedupe buffer
//! holds the chance is negligible. Open addressing with linear probing in one preallocated table;
//! the table is never filled past its load factor, so a probe always ends at an empty slot.

use std::hash::{DefaultHasher, Hasher};

use strand_base::Offset;

/// Bytes per entry: two hash words and the offset.
pub const ENTRY_BYTES: usize = 24;

/// A fixed-size map from a key's hash to the latest offset seen for it.
#[derive(Debug)]
pub struct OffsetMap {
    /// `[hash high, hash low, offset + 1]`; a zero third word marks an empty slot (offsets are
    /// never negative), so a new table is all zeros.
    slots: Vec<[u64; 3]>,
    /// The most entries the table takes (its load factor), always fewer than its slots.
    entries_max: usize,
    len: usize,
}

impl OffsetMap {
    /// A map using about `memory_bytes` (at least one slot), filled to at most `load_factor`.
    pub fn with_memory(memory_bytes: usize, load_factor: f64) -> OffsetMap {
        let slot_count = (memory_bytes / ENTRY_BYTES).max(2);
        let by_load = (slot_count as f64 * load_factor.clamp(0.0, 1.0)) as usize;
        let entries_max = by_load.clamp(1, slot_count - 1);
        OffsetMap { slots: vec![[0; 3]; slot_count], entries_max, len: 0 }
    }

    /// How many distinct keys the map can hold.
    pub fn entries_max(&self) -> usize {
        self.entries_max
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Empties the map for the next log (its memory is kept).
    pub fn clear(&mut self) {
        if self.len > 0 {
            self.slots.fill([0; 3]);
            self.len = 0;
        }
    }

    /// Records `offset` as the latest for `key`. Returns false, changing nothing, when `key` is
    /// new and the map is full.
    pub fn put(&mut self, key: &[u8], offset: Offset) -> bool {
        assert!(offset >= 0, "offset {offset} in the offset map");
        let hash = hash(key);
        let slot = self.find(hash);
        let entry = &mut self.slots[slot];
        if entry[2] == 0 {
            if self.len >= self.entries_max {
                return false;
            }
            self.len += 1;
        }
        *entry = [hash[0], hash[1], offset as u64 + 1];
        true
    }

    /// The latest offset recorded for `key`.
    pub fn get(&self, key: &[u8]) -> Option<Offset> {
        let entry = self.slots[self.find(hash(key))];
        (entry[2] != 0).then(|| entry[2] as i64 - 1)
    }

    /// The slot holding `hash`, or the empty slot where it would go.
    fn find(&self, hash: [u64; 2]) -> usize {
        let n = self.slots.len();
        let mut slot = (hash[0] % n as u64) as usize;
        loop {
            let entry = &self.slots[slot];
            if entry[2] == 0 || (entry[0] == hash[0] && entry[1] == hash[1]) {
                return slot;
            }
            slot = (slot + 1) % n;
        }
    }
}

/// A key's 128-bit hash: two SipHash-1-3 passes (fixed keys, so deterministic), the second seeded.
fn hash(key: &[u8]) -> [u64; 2] {
    let mut high = DefaultHasher::new();
    high.write(key);
    let mut low = DefaultHasher::new();
    low.write_u64(0x9e37_79b9_7f4a_7c15);
    low.write(key);
    [high.finish(), low.finish()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The latest put wins; a full map refuses new keys but still updates known ones.
    #[test]
    fn latest_offset_per_key_within_capacity() {
        let mut map = OffsetMap::with_memory(10 * ENTRY_BYTES, 0.5);
        assert_eq!(map.entries_max(), 5);
        for (i, key) in ["a", "b", "c", "d", "e"].iter().enumerate() {
            assert!(map.put(key.as_bytes(), i as i64));
        }
        assert!(map.put(b"a", 40));
        assert!(!map.put(b"f", 41), "full");
        assert_eq!((map.get(b"a"), map.get(b"e"), map.get(b"f")), (Some(40), Some(4), None));
        map.clear();
        assert!(map.is_empty());
        assert_eq!(map.get(b"a"), None);
        assert!(map.put(b"", 0));
        assert_eq!(map.get(b""), Some(0));
    }

    /// Many keys through a small table: every one found with its latest offset.
    #[test]
    fn many_keys_probe_correctly() {
        let mut map = OffsetMap::with_memory(1000 * ENTRY_BYTES, 0.9);
        for round in 0..3 {
            for key in 0..900u32 {
                assert!(map.put(&key.to_be_bytes(), i64::from(key) + round * 1000));
            }
        }
        for key in 0..900u32 {
            assert_eq!(map.get(&key.to_be_bytes()), Some(i64::from(key) + 2000));
        }
        assert_eq!(map.len(), 900);
    }
}
