//! Strand's vocabulary: the identifiers and units every other crate speaks in, the [`Clock`] that
//! keeps the cores deterministic, the named limits the broker enforces ([`limits`]) and the
//! internal topics' names ([`topic`]), the metrics' names ([`metric_names`]), and [`background`]:
//! a large request's work at a lower priority than everyone else's. With feature `testkit`
//! (tests only), [`testkit`]: a clock
//! the test moves.
//!
//! This crate is layer 0: it depends on nothing in the workspace and does no I/O. It never reads the
//! wall clock itself; [`SystemClock`] is the one place that does, for the process shell to hand down.
//!
//! Wire integers keep their wire types (`i32` broker ids, `i64` offsets and producer ids, `i32`
//! epochs) so that conversions at the protocol boundary are free and lossless.

pub mod background;
pub mod limits;
pub mod metric_names;
#[cfg(feature = "testkit")]
pub mod testkit;
pub mod topic;

use std::fmt;

/// A broker's (or controller's) `node.id`. `-1` on the wire means "none" (no leader, no coordinator).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct BrokerId(pub i32);

impl BrokerId {
    /// The wire's "no broker": an unknown leader, an absent coordinator.
    pub const NONE: BrokerId = BrokerId(-1);
}

impl fmt::Display for BrokerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A producer id handed out by InitProducerId; `-1` on the wire means "not idempotent".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ProducerId(pub i64);

impl ProducerId {
    /// The wire's "no producer id": a batch from a non-idempotent producer.
    pub const NONE: ProducerId = ProducerId(-1);
}

impl fmt::Display for ProducerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A 128-bit id: topic ids, directory ids, cluster ids. Displayed as Kafka does, URL-safe base64
/// without padding (22 characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Uuid(pub [u8; 16]);

impl Uuid {
    /// Kafka's "no id" (all zeros), the default of every uuid field.
    pub const ZERO: Uuid = Uuid([0; 16]);
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let mut bits: u32 = 0;
        let mut bit_count = 0;
        for &byte in &self.0 {
            bits = (bits << 8) | u32::from(byte);
            bit_count += 8;
            while bit_count >= 6 {
                bit_count -= 6;
                f.write_str(char_at(ALPHABET, (bits >> bit_count) & 63))?;
            }
        }
        if bit_count > 0 {
            f.write_str(char_at(ALPHABET, (bits << (6 - bit_count)) & 63))?;
        }
        Ok(())
    }
}

fn char_at(alphabet: &'static [u8; 64], index: u32) -> &'static str {
    let i = index as usize;
    // The alphabet is ASCII, so every one-byte slice of it is valid UTF-8.
    std::str::from_utf8(&alphabet[i..=i]).unwrap_or("?")
}

/// The position of a record in a partition's log.
pub type Offset = i64;

/// A partition leader's epoch: bumped on every leadership change, never decreasing.
pub type LeaderEpoch = i32;

/// A topic name and a partition index: the address of one log.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TopicPartition {
    pub topic: String,
    pub partition: i32,
}

impl TopicPartition {
    pub fn new(topic: impl Into<String>, partition: i32) -> Self {
        TopicPartition { topic: topic.into(), partition }
    }
}

impl fmt::Display for TopicPartition {
    /// Kafka's own spelling, which is also the partition's directory name: `topic-0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.topic, self.partition)
    }
}

/// Time as the deterministic cores see it. Production passes [`SystemClock`]; tests pass a clock
/// they move by hand.
pub trait Clock: Send + Sync + fmt::Debug {
    /// Milliseconds since the Unix epoch, as Kafka timestamps are.
    fn now_ms(&self) -> i64;
    /// A monotonic reading in nanoseconds, for timeouts and durations; its origin is arbitrary.
    fn monotonic_ns(&self) -> u64;
}

/// The real clock. Only the process shell should construct it.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

#[allow(clippy::disallowed_methods)] // The one place that reads the real clock.
impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        i64::try_from(since_epoch.as_millis()).unwrap_or(i64::MAX)
    }

    fn monotonic_ns(&self) -> u64 {
        static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        let origin = ORIGIN.get_or_init(std::time::Instant::now);
        u64::try_from(origin.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The directory-name spelling matches Kafka's `TopicPartition.toString`.
    #[test]
    fn topic_partition_displays_as_kafka_does() {
        assert_eq!(TopicPartition::new("orders", 7).to_string(), "orders-7");
    }

    /// Uuids print as Kafka's `Uuid.toString` does: URL-safe base64, no padding.
    #[test]
    fn uuid_displays_as_kafka_does() {
        assert_eq!(Uuid::ZERO.to_string(), "AAAAAAAAAAAAAAAAAAAAAA");
        let id = Uuid([0xff; 16]);
        assert_eq!(id.to_string(), "_____________________w");
    }

    /// The system clock's monotonic reading never goes backwards.
    #[test]
    fn system_clock_is_monotonic() {
        let clock = SystemClock;
        let a = clock.monotonic_ns();
        let b = clock.monotonic_ns();
        assert!(b >= a);
        assert!(clock.now_ms() > 1_600_000_000_000);
    }
}
