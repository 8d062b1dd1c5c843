//! The log against a model: random sequences of appends (several codecs and sizes), reads,
//! timestamp lookups, truncations, log-start advances, flushes and reopens (clean and unclean) keep
//! offsets, contents, index lookups and segment rolls in agreement with a plain list of batches.

use std::sync::Arc;

use bytes::BytesMut;
use proptest::prelude::*;
use strand_base::testkit::ManualClock;
use strand_log::log::{LogCheckpoints, ValidatedBatch};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{Log, LogConfig};
use strand_protocol::records::{Compression, NewRecord, RecordBatchBuilder, RecordBatches};

/// One batch as the model keeps it: offsets and each record's (timestamp, value).
#[derive(Debug, Clone)]
struct ModelBatch {
    base_offset: i64,
    records: Vec<(i64, Vec<u8>)>,
}

impl ModelBatch {
    fn last_offset(&self) -> i64 {
        self.base_offset + self.records.len() as i64 - 1
    }
}

#[derive(Debug, Clone)]
enum Op {
    Append { records: Vec<(i64, usize)>, codec: u8 },
    Read { pick: usize, max_bytes: u64 },
    FindByTimestamp { timestamp: i64 },
    Truncate { pick: usize },
    AdvanceStart { pick: usize },
    Flush,
    Reopen { clean: bool },
    Tick { ms: i64 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (proptest::collection::vec((0i64..5_000, 0usize..600), 1..8), 0u8..5)
            .prop_map(|(records, codec)| Op::Append { records, codec }),
        3 => (any::<usize>(), 1u64..4096).prop_map(|(pick, max_bytes)| Op::Read { pick, max_bytes }),
        1 => (0i64..6_000).prop_map(|timestamp| Op::FindByTimestamp { timestamp }),
        1 => any::<usize>().prop_map(|pick| Op::Truncate { pick }),
        1 => any::<usize>().prop_map(|pick| Op::AdvanceStart { pick }),
        1 => Just(Op::Flush),
        1 => any::<bool>().prop_map(|clean| Op::Reopen { clean }),
        1 => (0i64..200).prop_map(|ms| Op::Tick { ms }),
    ]
}

fn codec(n: u8) -> Compression {
    [Compression::None, Compression::Gzip, Compression::Snappy, Compression::Lz4, Compression::Zstd][n as usize % 5]
}

fn small_config() -> LogConfig {
    LogConfig {
        segment_bytes: 4096,
        segment_ms: 1_000,
        segment_index_bytes: 8 * 12 * 6, // six time-index entries: index-full rolls happen too
        index_interval_bytes: 200,
        ..LogConfig::default()
    }
}

struct Harness {
    dir: tempfile::TempDir,
    clock: Arc<ManualClock>,
    log: Option<Log>,
    model: Vec<ModelBatch>,
    log_start: i64,
}

impl Harness {
    fn new() -> Harness {
        let dir = tempfile::tempdir().expect("temp dir");
        let clock = Arc::new(ManualClock::default());
        let log = Log::open(dir.path(), small_config(), LogCheckpoints::default(), clock.clone()).expect("opens");
        Harness { dir, clock, log: Some(log), model: Vec::new(), log_start: 0 }
    }

    fn log(&mut self) -> &mut Log {
        self.log.as_mut().expect("log is open")
    }

    fn end(&self) -> i64 {
        self.model.last().map(|b| b.last_offset() + 1).unwrap_or(self.log_start)
    }

    /// The model's batch holding `offset`, or the first batch after it.
    fn batch_at_or_after(&self, offset: i64) -> Option<&ModelBatch> {
        self.model.iter().find(|b| b.last_offset() >= offset)
    }

    fn apply(&mut self, op: &Op) -> Result<(), TestCaseError> {
        match op {
            Op::Append { records, codec: c } => self.append(records, *c)?,
            Op::Read { pick, max_bytes } => self.read(*pick, *max_bytes)?,
            Op::FindByTimestamp { timestamp } => self.find_by_timestamp(*timestamp)?,
            Op::Truncate { pick } => self.truncate(*pick)?,
            Op::AdvanceStart { pick } => self.advance_start(*pick)?,
            Op::Flush => {
                let end = self.end();
                self.log().flush_to(end).expect("flush");
                prop_assert_eq!(self.log().recovery_point(), end);
            }
            Op::Reopen { clean } => self.reopen(*clean)?,
            Op::Tick { ms } => {
                self.clock.advance(*ms);
            }
        }
        prop_assert_eq!(self.log().log_end_offset(), self.end());
        prop_assert_eq!(self.log().log_start_offset(), self.log_start);
        Ok(())
    }

    fn append(&mut self, records: &[(i64, usize)], c: u8) -> Result<(), TestCaseError> {
        let base_offset = self.end();
        let mut builder = RecordBatchBuilder::new().compression(codec(c));
        let mut kept = Vec::new();
        for (i, &(timestamp, size)) in records.iter().enumerate() {
            let value: Vec<u8> = (0..size).map(|j| (base_offset as usize + i + j) as u8).collect();
            builder
                .append(&NewRecord { timestamp_ms: timestamp, key: None, value: Some(&value), headers: &[] })
                .expect("record");
            kept.push((timestamp, value));
        }
        let bytes = builder.build().expect("batch");
        let batch = ValidatedBatch::validate(BytesMut::from(&bytes[..])).expect("valid");
        let info =
            self.log().append_as_leader(batch, 3, AppendContext::client(VerificationGuard::SENTINEL)).expect("append");
        prop_assert_eq!(info.first_offset, base_offset);
        prop_assert_eq!(info.last_offset, base_offset + records.len() as i64 - 1);
        self.model.push(ModelBatch { base_offset, records: kept });
        Ok(())
    }

    fn read(&mut self, pick: usize, max_bytes: u64) -> Result<(), TestCaseError> {
        let (start, end) = (self.log_start, self.end());
        if start == end {
            prop_assert!(self.log().read(start, max_bytes, None).expect("read").is_none());
            return Ok(());
        }
        let offset = start + (pick as i64).rem_euclid(end - start);
        let slice = self.log().read(offset, max_bytes, None).expect("read").expect("some data");
        let bytes = slice.read().expect("slice bytes");
        prop_assert!(bytes.len() as u64 <= max_bytes.max(slice.len));
        let expected = self.batch_at_or_after(offset).expect("a batch").clone();
        let first = RecordBatches::new(bytes).next().expect("a whole first batch").expect("valid batch");
        prop_assert_eq!(first.base_offset(), expected.base_offset);
        prop_assert_eq!(first.partition_leader_epoch(), 3);
        let values: Vec<(i64, Vec<u8>)> = first
            .records()
            .expect("records")
            .iter()
            .map(|r| {
                let r = r.expect("record");
                (first.record_timestamp(&r), r.value().map(<[u8]>::to_vec).unwrap_or_default())
            })
            .collect();
        prop_assert_eq!(values, expected.records);
        Ok(())
    }

    fn find_by_timestamp(&mut self, timestamp: i64) -> Result<(), TestCaseError> {
        let log_start = self.log_start;
        let expected = self
            .model
            .iter()
            .flat_map(|b| b.records.iter().enumerate().map(move |(i, (t, _))| (*t, b.base_offset + i as i64)));
        let expected = expected.filter(|&(t, o)| t >= timestamp && o >= log_start).min_by_key(|&(_, o)| o);
        let found = self.log().find_offset_by_timestamp(timestamp).expect("lookup");
        prop_assert_eq!(found, expected);
        Ok(())
    }

    fn truncate(&mut self, pick: usize) -> Result<(), TestCaseError> {
        let candidates: Vec<i64> = self.model.iter().map(|b| b.base_offset).filter(|&b| b > self.log_start).collect();
        if candidates.is_empty() {
            return Ok(());
        }
        let offset = candidates[pick % candidates.len()];
        self.log().truncate_to(offset).expect("truncate");
        self.model.retain(|b| b.base_offset < offset);
        Ok(())
    }

    fn advance_start(&mut self, pick: usize) -> Result<(), TestCaseError> {
        let (start, end) = (self.log_start, self.end());
        if start == end {
            return Ok(());
        }
        let offset = start + (pick as i64).rem_euclid(end - start + 1);
        self.log().advance_log_start_offset(offset).expect("advance");
        self.log_start = offset;
        Ok(())
    }

    fn reopen(&mut self, clean: bool) -> Result<(), TestCaseError> {
        let mut log = self.log.take().expect("open log");
        let checkpoints = if clean {
            log.close().expect("close");
            LogCheckpoints {
                recovery_point: log.recovery_point(),
                log_start_offset: self.log_start,
                clean_shutdown: true,
            }
        } else {
            // An unclean stop after everything reached the disk: recovery must find it all.
            LogCheckpoints {
                recovery_point: log.recovery_point(),
                log_start_offset: self.log_start,
                clean_shutdown: false,
            }
        };
        drop(log);
        let log = Log::open(self.dir.path(), small_config(), checkpoints, self.clock.clone()).expect("reopens");
        self.log = Some(log);
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x10_6000),
        ..ProptestConfig::default()
    })]

    /// Any sequence of operations leaves the log agreeing with the model.
    #[test]
    fn log_agrees_with_model(ops in proptest::collection::vec(op(), 1..60)) {
        let mut harness = Harness::new();
        for op in &ops {
            harness.apply(op)?;
        }
        // Rolls happened where sizes, times or full indexes demanded; nothing was lost across them.
        let end = harness.end();
        let log = harness.log();
        prop_assert!(log.segment_count() >= 1);
        prop_assert_eq!(log.log_end_offset(), end);
    }
}

/// Segments roll at `segment.bytes`: many small batches make many segments, each under the limit.
#[test]
fn segments_roll_at_segment_bytes() {
    let mut harness = Harness::new();
    for _ in 0..100 {
        harness.append(&[(1, 300)], 0).expect("append");
    }
    let log = harness.log();
    assert!(log.segment_count() > 5, "only {} segments", log.segment_count());
    for base in log.segment_base_offsets() {
        let path = log.dir().join(format!("{base:020}.log"));
        let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        assert!(len <= 4096, "{} is {len} bytes", path.display());
    }
}
