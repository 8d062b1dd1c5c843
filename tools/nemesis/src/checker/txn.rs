//! The transactional workload's anomalies (`workload/txn.go`). Producer transactions (`txn`) write
//! unique values to the input topic (`in`); chain transactions (`chain`) copy what they read of
//! `in` partition p to `out` partition p, committing their input offsets in the transaction; every
//! `tpoll` is a read_committed read. A transaction is committed (`ok` with outcome `commit`, a
//! chain's `ok`), aborted (`ok` with outcome `abort`, `fail`) or unknown (`info`: the client gave
//! up not knowing). Writes are told apart by value in `in` and by position in `out` (where a retry
//! of an aborted chain transaction writes the same value again).
//!
//! - `aborted-read` (G1a): a read_committed read of a write of an aborted transaction.
//! - `intermediate-read` (G1b): a reader that read one write of a transaction in a partition and
//!   then read on past another write of the same transaction there without reading it.
//! - `partial-transaction`: a transaction not known aborted with some writes read and others never
//!   read, though reads went past their offsets.
//! - `lost-write` / `unseen`: a committed transaction's write never read, with / without reads
//!   past its offset; `duplicate`, `inconsistent-offsets`, `nonmonotonic-poll` and `poll-skip`
//!   (a read_committed reader skipping a write of a committed transaction) as for the queue.
//! - `chain-duplicate`: an input copied twice by the exactly-once chain (its value read twice in
//!   `out`, or one input offset in two committed chain transactions).
//! - `chain-lost`: an input read in `in` never read in `out`, though the chain copied the last
//!   record of that partition (the sentinel).
//!
//! Not checked: G0 and G1c. Kafka promises no write isolation (two transactions may interleave
//! their writes in opposite orders in two partitions, a G0 cycle), and in this workload only the
//! chain reads, from a topic no chain writes, so no read-write cycle (G1c) can form.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::{Op, Verdict};

/// The transactional workload's figures.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    pub committed: usize,
    pub aborted: usize,
    pub unknown: usize,
    pub chain_committed: usize,
    pub chain_aborted: usize,
    pub chain_unknown: usize,
    /// Records read read_committed (chain and final reader).
    pub read_records: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Committed,
    Aborted,
    Unknown,
}

/// One write: topic, partition, value, offset (if acknowledged).
type Write = (&'static str, i32, i64, Option<i64>);

#[derive(Debug)]
struct Txn<'a> {
    id: &'a str,
    outcome: Outcome,
    writes: Vec<Write>,
}

fn topic_of(op: &Op) -> &'static str {
    match op.topic.as_deref() {
        Some("out") => "out",
        _ => "in",
    }
}

fn to_write(topic: &'static str, [p, value, offset]: [i64; 3]) -> Write {
    (topic, p as i32, value, (offset >= 0).then_some(offset))
}

pub fn check(ops: &[Op], v: &mut Verdict) {
    let mut txns: Vec<Txn<'_>> = Vec::new();
    // Committed chain inputs (partition, offset) → the chain transactions that committed them.
    let mut committed_inputs: BTreeMap<(i64, i64), Vec<&str>> = BTreeMap::new();
    for op in ops {
        let outcome = match (op.f.as_str(), op.kind.as_str(), op.outcome.as_deref()) {
            ("txn" | "chain", "invoke", _) => continue,
            ("txn", "ok", Some("commit")) | ("chain", "ok", _) => Outcome::Committed,
            ("txn" | "chain", "ok" | "fail", _) => Outcome::Aborted,
            ("txn" | "chain", _, _) => Outcome::Unknown,
            _ => continue,
        };
        let id = op.txn.as_deref().unwrap_or("?");
        let chain = op.f == "chain";
        let counts = &mut v.txn;
        *match (chain, outcome) {
            (false, Outcome::Committed) => &mut counts.committed,
            (false, Outcome::Aborted) => &mut counts.aborted,
            (false, Outcome::Unknown) => &mut counts.unknown,
            (true, Outcome::Committed) => &mut counts.chain_committed,
            (true, Outcome::Aborted) => &mut counts.chain_aborted,
            (true, Outcome::Unknown) => &mut counts.chain_unknown,
        } += 1;
        let writes = match chain {
            false => op.writes.iter().map(|w| to_write("in", *w)).collect(),
            true => op.outputs.iter().map(|w| to_write("out", *w)).collect(),
        };
        if chain && outcome == Outcome::Committed {
            for [p, offset, _] in &op.inputs {
                committed_inputs.entry((*p, *offset)).or_default().push(id);
            }
        }
        txns.push(Txn { id, outcome, writes });
    }

    // What read_committed readers read: (topic, partition) → offset → values, and where each
    // value was read.
    let mut order: BTreeMap<(&str, i32), BTreeMap<i64, BTreeSet<i64>>> = BTreeMap::new();
    let mut read_at: HashMap<(&str, i64), BTreeSet<(i32, i64)>> = HashMap::new();
    let mut read_up_to: BTreeMap<(&str, i32), i64> = BTreeMap::new();
    for op in ops.iter().filter(|o| o.f == "tpoll" && o.kind == "ok") {
        let (topic, Some(p)) = (topic_of(op), op.partition) else { continue };
        for [offset, value] in &op.records {
            v.txn.read_records += 1;
            order.entry((topic, p)).or_default().entry(*offset).or_default().insert(*value);
            read_at.entry((topic, *value)).or_default().insert((p, *offset));
            let top = read_up_to.entry((topic, p)).or_insert(*offset);
            *top = (*top).max(*offset);
        }
    }
    let was_read = |(topic, p, value, offset): &Write| match (*topic, offset) {
        ("in", _) => read_at.contains_key(&("in", *value)),
        (_, Some(o)) => order.get(&(*topic, *p)).is_some_and(|at| at.contains_key(o)),
        _ => false,
    };
    let read_past = |(topic, p, _, offset): &Write| {
        read_up_to.get(&(*topic, *p)).is_some_and(|top| offset.is_none_or(|o| *top > o))
    };

    // Writes with known offsets occupy their offsets, whatever their transaction's outcome.
    let mut positions: BTreeMap<(&str, i32), BTreeMap<i64, BTreeSet<i64>>> = order.clone();
    for txn in &txns {
        for (topic, p, value, offset) in &txn.writes {
            if let Some(o) = offset {
                positions.entry((*topic, *p)).or_default().entry(*o).or_default().insert(*value);
            }
        }
    }
    for ((topic, p), offsets) in &positions {
        for (offset, values) in offsets.iter().filter(|(_, values)| values.len() > 1) {
            v.add("inconsistent-offsets", format!("{topic} partition {p} offset {offset} holds values {values:?}"));
        }
    }
    let mut read_twice: Vec<_> = read_at.iter().filter(|(_, at)| at.len() > 1).collect();
    read_twice.sort();
    for ((topic, value), at) in read_twice {
        let name = if *topic == "in" { "duplicate" } else { "chain-duplicate" };
        v.add(name, format!("{topic}: value {value} read at (partition, offset) {at:?}"));
    }
    for ((p, offset), chains) in committed_inputs.iter().filter(|(_, c)| c.len() > 1) {
        v.add(
            "chain-duplicate",
            format!("in partition {p} offset {offset} committed by chain transactions {chains:?}"),
        );
    }

    for txn in &txns {
        let read: Vec<&Write> = txn.writes.iter().filter(|w| was_read(w)).collect();
        let missed: Vec<&Write> = txn.writes.iter().filter(|w| !was_read(w)).collect();
        match txn.outcome {
            Outcome::Aborted => {
                for (topic, p, value, offset) in read {
                    v.add(
                        "aborted-read",
                        format!(
                            "{}: aborted, its value {value} read in {topic} partition {p} (written at {offset:?})",
                            txn.id
                        ),
                    );
                }
            }
            outcome => {
                if !read.is_empty() && missed.iter().any(|w| read_past(w)) {
                    v.add(
                        "partial-transaction",
                        format!("{} ({outcome:?}): read {read:?}, never read {missed:?}", txn.id),
                    );
                }
                if outcome == Outcome::Committed {
                    for w in missed {
                        let name = if read_past(w) { "lost-write" } else { "unseen" };
                        v.add(
                            name,
                            format!(
                                "{}: committed write {w:?} never read (reads reached {:?})",
                                txn.id,
                                read_up_to.get(&(w.0, w.1))
                            ),
                        );
                    }
                }
            }
        }
    }

    // The chain copied everything before the sentinel: the last record read of each `in`
    // partition, once its copy is read in `out` (a read aborted write is an aborted read).
    let aborted: HashSet<i64> = txns
        .iter()
        .filter(|t| t.outcome == Outcome::Aborted)
        .flat_map(|t| t.writes.iter().filter(|w| w.0 == "in").map(|w| w.2))
        .collect();
    for ((topic, p), offsets) in order.iter().filter(|((t, _), _)| *t == "in") {
        let Some((_, last)) = offsets.last_key_value() else { continue };
        let copied_last =
            last.iter().any(|value| read_at.get(&("out", *value)).is_some_and(|at| at.iter().any(|(q, _)| q == p)));
        if !copied_last {
            continue;
        }
        for (offset, values) in offsets {
            let lost =
                values.iter().filter(|value| !read_at.contains_key(&("out", **value)) && !aborted.contains(value));
            for value in lost {
                v.add("chain-lost", format!("{topic} partition {p} offset {offset}: value {value} never read in out"));
            }
        }
    }
    check_reads(ops, &txns, v);
}

/// Each reader's reads of each partition between assignments go up and skip no write of a
/// committed transaction; a skipped write of the transaction just read is an intermediate read.
fn check_reads(ops: &[Op], txns: &[Txn<'_>], v: &mut Verdict) {
    // (topic, partition, offset) → (transaction, outcome) for writes with known offsets.
    let mut writer: HashMap<(&str, i32, i64), (&str, Outcome)> = HashMap::new();
    for txn in txns {
        for (topic, p, _, offset) in &txn.writes {
            if let Some(o) = offset {
                writer.insert((*topic, *p, *o), (txn.id, txn.outcome));
            }
        }
    }
    let mut last: HashMap<(&str, &str, i32), i64> = HashMap::new();
    for op in ops {
        let process = op.process.as_str();
        match (op.f.as_str(), op.kind.as_str()) {
            ("assign" | "revoke" | "lost", _) if op.topic.is_some() => {
                for p in op.partitions.iter().flatten() {
                    last.remove(&(process, topic_of(op), *p));
                }
            }
            // An aborted or unknown chain transaction rewinds the session to its committed offsets.
            ("chain", "fail" | "info") => last.retain(|(who, _, _), _| *who != process),
            ("tpoll", "ok") => {
                let (topic, Some(p)) = (topic_of(op), op.partition) else { continue };
                for [offset, value] in &op.records {
                    if let Some(before) = last.get(&(process, topic, p)).copied() {
                        if *offset <= before {
                            v.add(
                                "nonmonotonic-poll",
                                format!("{process}, {topic} partition {p}: read offset {before}, then {offset} (value {value}) at {}", op.time),
                            );
                        }
                        let previous = writer.get(&(topic, p, before)).map(|(id, _)| *id);
                        for skipped in before + 1..*offset {
                            let Some((id, outcome)) = writer.get(&(topic, p, skipped)) else { continue };
                            if *outcome != Outcome::Committed {
                                continue;
                            }
                            let name = if previous == Some(*id) { "intermediate-read" } else { "poll-skip" };
                            v.add(
                                name,
                                format!("{process}, {topic} partition {p}: read offset {before}, then {offset}, skipping {skipped} (committed by {id}) at {}", op.time),
                            );
                        }
                    }
                    last.insert((process, topic, p), *offset);
                }
            }
            _ => {}
        }
    }
}
