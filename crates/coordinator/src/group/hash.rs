//! Which `__consumer_offsets` partition coordinates a group: Kafka's
//! `Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions`, bit for bit, so that Strand and
//! Kafka clients (and Kafka's own tools) agree on where a group lives.

/// The partition of `__consumer_offsets` that holds `group_id`'s state, out of `partitions`.
///
/// Java's `String.hashCode` (`h = 31 * h + c` over UTF-16 code units, wrapping `int` arithmetic),
/// then Kafka's `Utils.abs`, which maps `Integer.MIN_VALUE` to 0 where `Math.abs` would leave it
/// negative.
pub fn partition_for(group_id: &str, partitions: i32) -> i32 {
    assert!(partitions > 0, "offsets.topic.num.partitions must be positive, got {partitions}");
    kafka_abs(java_string_hash(group_id)) % partitions
}

/// Java's `String.hashCode`.
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, unit| h.wrapping_mul(31).wrapping_add(i32::from(unit)))
}

/// Kafka's `Utils.abs`: the absolute value, with `i32::MIN` mapped to 0.
fn kafka_abs(n: i32) -> i32 {
    if n == i32::MIN { 0 } else { n.abs() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hashes and partitions as Java 17 computes them (`"s".hashCode()`, `Utils.abs`, `% n`).
    #[test]
    fn matches_java_string_hash_code_and_kafka_abs() {
        let cases: [(&str, i32, i32, i32); 7] = [
            ("my-group", -1_906_497_762, 12, 1),
            ("", 0, 0, 0),
            ("a", 97, 47, 6),
            ("console-consumer-12345", 158_455_506, 6, 6),
            ("\u{e9}t\u{e9}", 227_742, 42, 4),
            // A character outside the BMP is two UTF-16 code units, each hashed.
            ("grp-\u{1F600}-emoji", 250_408_772, 22, 5),
            // Hashes to Integer.MIN_VALUE: Utils.abs gives 0, not a negative partition.
            ("polygenelubricants", i32::MIN, 0, 0),
        ];
        for (group, hash, of_50, of_7) in cases {
            assert_eq!(java_string_hash(group), hash, "hash of {group:?}");
            assert_eq!(partition_for(group, 50), of_50, "partition of {group:?} among 50");
            assert_eq!(partition_for(group, 7), of_7, "partition of {group:?} among 7");
        }
    }
}
