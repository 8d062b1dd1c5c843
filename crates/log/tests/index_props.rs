//! Property tests of the sparse indexes: [`OffsetIndex`] and [`TimeIndex`] against a plain `Vec`
//! model over random appends, truncations, resets, trimmed and untrimmed (crash) reopens and
//! lookups. Runs are deterministic: the RNG seed is [`SEED`]; a failure prints the shrunk
//! operations that reproduce it.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use strand_log::index::{OffsetIndex, OffsetPosition, TimeIndex, TimestampOffset};

/// The seed of every run; change it to explore other cases.
const SEED: u64 = 0x5354_5241_4e44;
const BASE: i64 = 1_000;

#[derive(Debug, Clone)]
enum Op {
    /// An entry after the last: offset and position (or timestamp) steps from the last entry's.
    Append {
        offset_step: i64,
        position_step: u32,
        timestamp_step: i64,
        skip_full_check: bool,
    },
    /// Truncate to `BASE + relative`.
    Truncate {
        relative: i64,
    },
    /// Close and open again, trimmed first (clean shutdown) or not (a crash).
    Reopen {
        trim: bool,
    },
    Reset,
    /// Look up `BASE + relative` (offset index) or `relative` as a timestamp (time index).
    Lookup {
        relative: i64,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..3i64, 0..3u32, -2..4i64, any::<bool>()).prop_map(|(offset_step, position_step, timestamp_step, skip_full_check)| {
            Op::Append { offset_step, position_step, timestamp_step, skip_full_check }
        }),
        1 => (-2..30i64).prop_map(|relative| Op::Truncate { relative }),
        2 => any::<bool>().prop_map(|trim| Op::Reopen { trim }),
        1 => Just(Op::Reset),
        3 => (-3..40i64).prop_map(|relative| Op::Lookup { relative }),
    ]
}

fn config() -> Config {
    Config { cases: 256, rng_seed: RngSeed::Fixed(SEED), failure_persistence: None, ..Config::default() }
}

/// Drives an [`OffsetIndex`] and its model through `ops`, comparing after each.
fn run_offset_index(max_entries: u64, extra_bytes: u64, ops: &[Op]) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("00000000000000001000.index");
    let max_bytes = max_entries * 8 + extra_bytes;
    let mut index = OffsetIndex::open(&path, BASE, max_bytes).expect("open");
    let mut model: Vec<(i64, u32)> = Vec::new();
    for op in ops {
        match *op {
            Op::Append { offset_step, position_step, .. } => {
                if model.len() as u64 >= max_entries {
                    continue; // the segment would roll
                }
                let (offset, position) = match model.last() {
                    Some(&(offset, position)) => (offset + 1 + offset_step, position + 1 + position_step),
                    None => (BASE + offset_step, position_step),
                };
                index.append(offset, position).expect("append");
                model.push((offset, position));
            }
            Op::Truncate { relative } => {
                index.truncate_to(BASE + relative).expect("truncate");
                model.retain(|&(offset, _)| offset < BASE + relative);
            }
            Op::Reopen { trim } => {
                if trim {
                    index.trim().expect("trim");
                    let bytes: Vec<u8> = model
                        .iter()
                        .flat_map(|&(offset, position)| {
                            let relative = ((offset - BASE) as i32).to_be_bytes();
                            relative.into_iter().chain(position.to_be_bytes())
                        })
                        .collect();
                    assert_eq!(std::fs::read(&path).expect("read"), bytes, "trimmed file bytes");
                }
                // The load rule never takes a lone all-zero first slot for an entry.
                let lone_zero = model == [(BASE, 0)];
                drop(index);
                index = OffsetIndex::open(&path, BASE, max_bytes).expect("reopen");
                index.sanity_check().expect("sane after reopen");
                if lone_zero {
                    model.clear();
                }
            }
            Op::Reset => {
                index.reset().expect("reset");
                model.clear();
            }
            Op::Lookup { relative } => {
                let target = BASE + relative;
                let expected = model.iter().rev().find(|&&(offset, _)| offset <= target).copied().unwrap_or((BASE, 0));
                let expected = OffsetPosition { offset: expected.0, position: expected.1 };
                assert_eq!(index.lookup(target), expected, "lookup({target})");
            }
        }
        let actual: Vec<(i64, u32)> =
            (0..index.entries()).map(|n| index.entry(n)).map(|e| (e.offset, e.position)).collect();
        assert_eq!(actual, model, "entries after {op:?}");
        assert_eq!(index.is_full(), model.len() as u64 >= max_entries, "is_full after {op:?}");
        assert_eq!(index.last_offset(), model.last().map_or(BASE, |&(offset, _)| offset));
    }
}

/// Drives a [`TimeIndex`] and its model through `ops`, comparing after each.
fn run_time_index(max_entries: u64, extra_bytes: u64, ops: &[Op]) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("00000000000000001000.timeindex");
    let max_bytes = max_entries * 12 + extra_bytes;
    let mut index = TimeIndex::open(&path, BASE, max_bytes).expect("open");
    let mut model: Vec<(i64, i64)> = Vec::new();
    let full = |model: &Vec<(i64, i64)>| model.len() as u64 >= max_entries.saturating_sub(1);
    for op in ops {
        match *op {
            Op::Append { offset_step, timestamp_step, skip_full_check, .. } => {
                if full(&model) && !skip_full_check {
                    continue; // the segment would roll
                }
                let (last_timestamp, last_offset) = model.last().copied().unwrap_or((-1, BASE));
                let (timestamp, offset) = (last_timestamp + timestamp_step, last_offset + offset_step);
                index.maybe_append(timestamp, offset, skip_full_check).expect("append");
                if timestamp > last_timestamp {
                    model.push((timestamp, offset));
                }
            }
            Op::Truncate { relative } => {
                index.truncate_to(BASE + relative).expect("truncate");
                model.retain(|&(_, offset)| offset < BASE + relative);
            }
            Op::Reopen { trim } => {
                if trim {
                    index.trim().expect("trim");
                    let bytes: Vec<u8> = model
                        .iter()
                        .flat_map(|&(timestamp, offset)| {
                            let relative = ((offset - BASE) as i32).to_be_bytes();
                            timestamp.to_be_bytes().into_iter().chain(relative)
                        })
                        .collect();
                    assert_eq!(std::fs::read(&path).expect("read"), bytes, "trimmed file bytes");
                }
                // The load rule never takes a lone all-zero first slot for an entry.
                let lone_zero = model == [(0, BASE)];
                drop(index);
                index = TimeIndex::open(&path, BASE, max_bytes).expect("reopen");
                index.sanity_check().expect("sane after reopen");
                if lone_zero {
                    model.clear();
                }
            }
            Op::Reset => {
                index.reset().expect("reset");
                model.clear();
            }
            Op::Lookup { relative } => {
                let expected = model.iter().rev().find(|&&(timestamp, _)| timestamp <= relative).copied();
                let (timestamp, offset) = expected.unwrap_or((-1, BASE));
                assert_eq!(index.lookup(relative), TimestampOffset { timestamp, offset }, "lookup({relative})");
            }
        }
        let actual: Vec<(i64, i64)> =
            (0..index.entries()).map(|n| index.entry(n)).map(|e| (e.timestamp, e.offset)).collect();
        assert_eq!(actual, model, "entries after {op:?}");
        assert_eq!(index.is_full(), full(&model), "is_full after {op:?}");
        let (timestamp, offset) = model.last().copied().unwrap_or((-1, BASE));
        assert_eq!(index.last_entry(), TimestampOffset { timestamp, offset });
    }
}

proptest! {
    #![proptest_config(config())]

    /// The offset index agrees with the model: entries, lookups, fullness and the trimmed file's
    /// bytes, across crashes and clean reopens.
    #[test]
    fn offset_index_matches_model(max_entries in 1..8u64, extra in 0..8u64, ops in prop::collection::vec(op(), 0..60)) {
        run_offset_index(max_entries, extra, &ops);
    }

    /// The time index agrees with the model: entries, lookups, fullness (one slot kept for the
    /// roll) and the trimmed file's bytes, across crashes and clean reopens.
    #[test]
    fn time_index_matches_model(max_entries in 1..8u64, extra in 0..12u64, ops in prop::collection::vec(op(), 0..60)) {
        run_time_index(max_entries, extra, &ops);
    }
}
