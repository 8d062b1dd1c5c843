//! The checker: reads a run's history (JSON lines, `workload/main.go`) and names Jepsen's Kafka
//! anomalies (Jepsen's `jepsen.tests.kafka`): for each, how many and examples.
//!
//! - `lost-write`: a value acknowledged at an offset that no poll saw, in a partition some poll
//!   read past that offset.
//! - `unseen`: acknowledged, never polled, and no poll read past it.
//! - `duplicate`: one value at more than one offset (or partition).
//! - `inconsistent-offsets`: one offset holding more than one value (acks and polls together).
//! - `nonmonotonic-send`: a producer's later send to a partition acknowledged at an offset not
//!   above its earlier one's.
//! - `nonmonotonic-poll` / `int-nonmonotonic-poll`: a consumer reading an offset not above the
//!   one it read before in that partition, across two polls / within one, with no assignment of
//!   the partition between them.
//! - `poll-skip` / `int-poll-skip`: a consumer's two successive offsets in a partition with a
//!   known record (acknowledged or polled by anyone) between them, across two polls / within one.
//!
//! The transactional workload's anomalies are in [`txn`].

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::Deserialize;

#[cfg(test)]
mod tests;
mod txn;
#[cfg(test)]
mod txn_tests;

/// One line of the history.
#[derive(Debug, Clone, Deserialize)]
pub struct Op {
    #[serde(default)]
    pub process: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub f: String,
    #[serde(default)]
    pub value: Option<i64>,
    #[serde(default)]
    pub partition: Option<i32>,
    #[serde(default)]
    pub offset: Option<i64>,
    /// A poll's records: `[offset, value]` in the order read.
    #[serde(default)]
    pub records: Vec<[i64; 2]>,
    /// An assignment's partitions.
    #[serde(default)]
    pub partitions: Option<Vec<i32>>,
    /// The transactional workload's topic of a `tpoll` or assignment: `in` or `out`.
    #[serde(default)]
    pub topic: Option<String>,
    /// A transaction's id (`txn` and `chain` operations).
    #[serde(default)]
    pub txn: Option<String>,
    /// A producer transaction's end: `commit` or `abort` (with type `ok`).
    #[serde(default)]
    pub outcome: Option<String>,
    /// A producer transaction's writes to the input topic: `[partition, value, offset]`, offset -1
    /// when the write was not acknowledged.
    #[serde(default)]
    pub writes: Vec<[i64; 3]>,
    /// A chain transaction's inputs: `[partition, offset, value]`.
    #[serde(default)]
    pub inputs: Vec<[i64; 3]>,
    /// A chain transaction's outputs, as `writes`.
    #[serde(default)]
    pub outputs: Vec<[i64; 3]>,
    pub time: i64,
}

/// Every anomaly name the checker knows, in report order.
pub const ANOMALIES: [&str; 15] = [
    "lost-write",
    "unseen",
    "duplicate",
    "inconsistent-offsets",
    "nonmonotonic-send",
    "nonmonotonic-poll",
    "int-nonmonotonic-poll",
    "poll-skip",
    "int-poll-skip",
    "aborted-read",
    "intermediate-read",
    "partial-transaction",
    "chain-duplicate",
    "chain-lost",
    "unreadable-history",
];

/// What the checker found.
#[derive(Debug, Default)]
pub struct Verdict {
    /// Anomaly name → its instances (one line each).
    pub anomalies: BTreeMap<&'static str, Vec<String>>,
    pub sends: usize,
    pub acked: usize,
    /// Sends whose outcome is unknown (the client gave up).
    pub indeterminate: usize,
    pub polled_records: usize,
    /// Distinct values any poll saw.
    pub polled_values: usize,
    /// The transactional workload's counts (all zero without it).
    pub txn: txn::Counts,
}

impl Verdict {
    pub fn count(&self, name: &str) -> usize {
        self.anomalies.get(name).map_or(0, Vec::len)
    }

    /// Anomalies that fail a run (`unseen` counts too: the final reader reads every partition to
    /// its end).
    pub fn total(&self) -> usize {
        self.anomalies.values().map(Vec::len).sum()
    }

    fn add(&mut self, name: &'static str, example: String) {
        debug_assert!(ANOMALIES.contains(&name));
        self.anomalies.entry(name).or_default().push(example);
    }
}

/// Parses a history; a line that is not an operation is reported as `unreadable-history`.
pub fn parse(text: &str) -> (Vec<Op>, Vec<String>) {
    let mut ops = Vec::new();
    let mut bad = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        match serde_json::from_str::<Op>(line) {
            Ok(op) => ops.push(op),
            Err(e) => bad.push(format!("line {}: {e}: {line}", n + 1)),
        }
    }
    (ops, bad)
}

/// Checks a history given as JSON lines.
pub fn check_text(text: &str) -> Verdict {
    let (ops, bad) = parse(text);
    let mut verdict = check(&ops);
    for line in bad {
        verdict.add("unreadable-history", line);
    }
    verdict
}

pub fn check(ops: &[Op]) -> Verdict {
    let mut v = Verdict::default();
    // The version order as far as anyone saw it: partition → offset → values.
    let mut order: BTreeMap<i32, BTreeMap<i64, BTreeSet<i64>>> = BTreeMap::new();
    let mut positions: HashMap<i64, BTreeSet<(i32, i64)>> = HashMap::new();
    let mut acks: BTreeMap<i64, (i32, i64)> = BTreeMap::new();
    let mut polled: HashSet<i64> = HashSet::new();
    let mut read_up_to: BTreeMap<i32, i64> = BTreeMap::new();
    // (process, partition) → acknowledged (value, offset) in invoke order.
    let mut invoked: BTreeMap<(String, i32), Vec<i64>> = BTreeMap::new();
    for op in ops {
        match (op.f.as_str(), op.kind.as_str()) {
            ("send", "invoke") => {
                v.sends += 1;
                if let (Some(value), Some(p)) = (op.value, op.partition) {
                    invoked.entry((op.process.clone(), p)).or_default().push(value);
                }
            }
            ("send", "ok") => {
                let (Some(value), Some(p), Some(offset)) = (op.value, op.partition, op.offset) else { continue };
                v.acked += 1;
                acks.insert(value, (p, offset));
                order.entry(p).or_default().entry(offset).or_default().insert(value);
                positions.entry(value).or_default().insert((p, offset));
            }
            ("send", _) => v.indeterminate += 1,
            ("poll", "ok") => {
                let Some(p) = op.partition else { continue };
                for [offset, value] in &op.records {
                    v.polled_records += 1;
                    polled.insert(*value);
                    order.entry(p).or_default().entry(*offset).or_default().insert(*value);
                    positions.entry(*value).or_default().insert((p, *offset));
                    let top = read_up_to.entry(p).or_insert(*offset);
                    *top = (*top).max(*offset);
                }
            }
            _ => {}
        }
    }
    v.polled_values = polled.len();

    for (p, offsets) in &order {
        for (offset, values) in offsets.iter().filter(|(_, values)| values.len() > 1) {
            v.add("inconsistent-offsets", format!("partition {p} offset {offset} holds values {values:?}"));
        }
    }
    let mut duplicated: Vec<(&i64, &BTreeSet<(i32, i64)>)> = positions.iter().filter(|(_, at)| at.len() > 1).collect();
    duplicated.sort();
    for (value, at) in duplicated {
        v.add("duplicate", format!("value {value} at (partition, offset) {at:?}"));
    }
    for (value, (p, offset)) in &acks {
        if polled.contains(value) {
            continue;
        }
        match read_up_to.get(p) {
            Some(top) if top > offset => v.add(
                "lost-write",
                format!("value {value} acknowledged at partition {p} offset {offset}; polls read that partition to offset {top}"),
            ),
            top => v.add(
                "unseen",
                format!("value {value} acknowledged at partition {p} offset {offset}; polls read that partition to {top:?}"),
            ),
        }
    }
    for ((process, p), values) in &invoked {
        let mut last: Option<(i64, i64)> = None;
        for value in values {
            let Some((_, offset)) = acks.get(value) else { continue };
            if let Some((before, before_offset)) = last
                && *offset <= before_offset
            {
                v.add(
                    "nonmonotonic-send",
                    format!(
                        "{process}, partition {p}: value {before} acknowledged at offset {before_offset}, then value {value} (sent later) at offset {offset}"
                    ),
                );
            }
            last = Some((*value, *offset));
        }
    }
    check_polls(ops, &order, &mut v);
    txn::check(ops, &mut v);
    v
}

/// Each consumer's reads of each partition between assignments must go up without skipping a
/// known record.
fn check_polls(ops: &[Op], order: &BTreeMap<i32, BTreeMap<i64, BTreeSet<i64>>>, v: &mut Verdict) {
    let mut last: HashMap<(&str, i32), i64> = HashMap::new();
    for op in ops {
        match (op.f.as_str(), op.kind.as_str()) {
            ("assign" | "revoke" | "lost", _) => {
                for p in op.partitions.iter().flatten() {
                    last.remove(&(op.process.as_str(), *p));
                }
            }
            ("poll", "ok") => {
                let Some(p) = op.partition else { continue };
                let mut in_batch = false;
                for [offset, value] in &op.records {
                    if let Some(before) = last.get(&(op.process.as_str(), p)).copied() {
                        let (monotonic, skip) = match in_batch {
                            false => ("nonmonotonic-poll", "poll-skip"),
                            true => ("int-nonmonotonic-poll", "int-poll-skip"),
                        };
                        if *offset <= before {
                            v.add(
                                monotonic,
                                format!(
                                    "{}, partition {p}: read offset {before}, then offset {offset} (value {value}) at {}",
                                    op.process, op.time
                                ),
                            );
                        } else if let Some((skipped, values)) =
                            order.get(&p).and_then(|o| o.range(before + 1..*offset).next())
                        {
                            v.add(
                                skip,
                                format!(
                                    "{}, partition {p}: read offset {before}, then offset {offset}, skipping offset {skipped} (values {values:?}) at {}",
                                    op.process, op.time
                                ),
                            );
                        }
                    }
                    last.insert((op.process.as_str(), p), *offset);
                    in_batch = true;
                }
            }
            _ => {}
        }
    }
}
