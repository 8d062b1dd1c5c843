//! The transactional checker on hand-made histories: a clean one, then one per anomaly.

use super::*;

/// A transactional history as the workload writes it, built line by line.
#[derive(Default)]
struct History {
    lines: Vec<String>,
    time: i64,
}

fn triples(items: &[(i64, i64, i64)]) -> String {
    let items: Vec<String> = items.iter().map(|(a, b, c)| format!("[{a},{b},{c}]")).collect();
    format!("[{}]", items.join(","))
}

impl History {
    fn line(&mut self, text: String) -> &mut Self {
        self.time += 1;
        self.lines.push(format!("{{{text},\"time\":{}}}", self.time));
        self
    }

    /// A producer transaction `id` with `writes` (`(partition, value, offset)`), ending `kind`
    /// (`ok`, `fail`, `info`) with `outcome` (`commit`, `abort`).
    fn txn(&mut self, id: &str, kind: &str, outcome: &str, writes: &[(i64, i64, i64)]) -> &mut Self {
        self.line(format!(
            r#""process":"t0","type":"{kind}","f":"txn","txn":"{id}","outcome":"{outcome}","writes":{}"#,
            triples(writes)
        ))
    }

    /// A chain transaction of `process` with `inputs` (`(partition, offset, value)`) and
    /// `outputs` (`(partition, value, offset)`).
    fn chain(
        &mut self,
        process: &str,
        id: &str,
        kind: &str,
        inputs: &[(i64, i64, i64)],
        outputs: &[(i64, i64, i64)],
    ) -> &mut Self {
        self.line(format!(
            r#""process":"{process}","type":"{kind}","f":"chain","txn":"{id}","inputs":{},"outputs":{}"#,
            triples(inputs),
            triples(outputs)
        ))
    }

    /// `process` reads `records` (`(offset, value)`) of `topic` partition `p`, read_committed.
    fn read(&mut self, process: &str, topic: &str, p: i32, records: &[(i64, i64)]) -> &mut Self {
        let records: Vec<String> = records.iter().map(|(o, v)| format!("[{o},{v}]")).collect();
        self.line(format!(
            r#""process":"{process}","type":"ok","f":"tpoll","topic":"{topic}","partition":{p},"records":[{}]"#,
            records.join(",")
        ))
    }

    fn check(&self) -> Verdict {
        check_text(&self.lines.join("\n"))
    }
}

/// T1 commits values 1 (partition 0 offset 0) and 2 (partition 1 offset 0); T2 is aborted on
/// purpose (value 3, partition 0 offset 1); T3 commits value 4 (partition 0 offset 3, after T2's
/// abort marker at 2). The chain copies 1 and 4 in one transaction and 2 in another; the final
/// reader reads both topics.
fn clean() -> History {
    let mut h = History::default();
    h.txn("t0-0", "ok", "commit", &[(0, 1, 0), (1, 2, 0)]).txn("t0-1", "ok", "abort", &[(0, 3, 1)]).txn(
        "t0-2",
        "ok",
        "commit",
        &[(0, 4, 3)],
    );
    h.read("x0", "in", 0, &[(0, 1), (3, 4)]).read("x0", "in", 1, &[(0, 2)]);
    h.chain("x0", "x0-0", "ok", &[(0, 0, 1), (0, 3, 4)], &[(0, 1, 0), (0, 4, 1)]).chain(
        "x0",
        "x0-1",
        "ok",
        &[(1, 0, 2)],
        &[(1, 2, 0)],
    );
    h.read("final", "in", 0, &[(0, 1), (3, 4)]).read("final", "in", 1, &[(0, 2)]);
    h.read("final", "out", 0, &[(0, 1), (1, 4)]).read("final", "out", 1, &[(0, 2)]);
    h
}

fn only(verdict: &Verdict, name: &str, count: usize) {
    let found: Vec<(&str, usize)> = verdict.anomalies.iter().map(|(n, e)| (*n, e.len())).collect();
    assert_eq!(found, vec![(name, count)], "{:#?}", verdict.anomalies);
}

#[test]
fn a_clean_transactional_history_has_no_anomaly() {
    let verdict = clean().check();
    assert_eq!(verdict.total(), 0, "{:#?}", verdict.anomalies);
    let c = verdict.txn;
    assert_eq!((c.committed, c.aborted, c.unknown, c.chain_committed, c.read_records), (2, 1, 0, 2, 9));
}

#[test]
fn reading_a_write_of_an_aborted_transaction_is_an_aborted_read() {
    let mut h = clean();
    h.read("x1", "in", 0, &[(1, 3)]);
    only(&h.check(), "aborted-read", 1);
    // In the output, by position: an aborted chain transaction's copy read where it was written.
    let mut h = clean();
    h.chain("x1", "x1-0", "fail", &[(1, 0, 2)], &[(1, 2, 1)]).read("r", "out", 1, &[(1, 2)]);
    let verdict = h.check();
    assert_eq!(verdict.count("aborted-read"), 1, "{:#?}", verdict.anomalies);
    // The same value read at two offsets of the output is a copy made twice as well.
    assert_eq!(verdict.count("chain-duplicate"), 1);
    assert_eq!(verdict.total(), 2);
}

#[test]
fn reading_past_a_write_of_the_transaction_just_read_is_an_intermediate_read() {
    let mut h = clean();
    h.txn("t0-3", "ok", "commit", &[(2, 5, 0), (2, 6, 1)]).read("final", "in", 2, &[(0, 5), (2, 7)]);
    let verdict = h.check();
    assert_eq!(verdict.count("intermediate-read"), 1, "{:#?}", verdict.anomalies);
    // Value 6 was committed and never read, though the reader read past it; the transaction is
    // seen in part.
    assert_eq!((verdict.count("lost-write"), verdict.count("partial-transaction")), (1, 1));
    assert_eq!(verdict.total(), 3);
}

#[test]
fn a_transaction_of_unknown_outcome_seen_in_part_is_a_partial_transaction() {
    let mut h = clean();
    h.txn("t0-3", "info", "", &[(2, 5, 0), (3, 6, 0)]).read("final", "in", 2, &[(0, 5)]).read(
        "final",
        "in",
        3,
        &[(1, 8)],
    );
    only(&h.check(), "partial-transaction", 1);
    // Seen in full, or not at all, it is no anomaly.
    let mut h = clean();
    h.txn("t0-3", "info", "", &[(2, 5, 0), (3, 6, 0)]).read("final", "in", 3, &[(1, 8)]);
    assert_eq!(h.check().total(), 0);
}

#[test]
fn a_committed_write_never_read_is_lost_or_unseen() {
    let mut h = clean();
    h.txn("t0-3", "ok", "commit", &[(1, 9, 1)]);
    only(&h.check(), "unseen", 1);
    h.read("r", "in", 1, &[(2, 10)]);
    only(&h.check(), "lost-write", 1);
}

#[test]
fn one_input_committed_by_two_chain_transactions_is_a_chain_duplicate() {
    let mut h = clean();
    h.chain("x1", "x1-0", "ok", &[(1, 0, 2)], &[(1, 2, 1)]);
    let verdict = h.check();
    // Its second copy was committed too and never read (the final reader read out partition 1
    // only to offset 0).
    assert_eq!(verdict.count("chain-duplicate"), 1, "{:#?}", verdict.anomalies);
    assert_eq!(verdict.count("unseen"), 1);
    assert_eq!(verdict.total(), 2);
}

#[test]
fn an_input_the_chain_passed_over_is_chain_lost() {
    // Value 2 (in partition 1) is followed by value 11, whose copy is read: 2's copy is missing.
    let mut h = History::default();
    h.txn("t0-0", "ok", "commit", &[(1, 2, 0), (1, 11, 1)]).chain("x0", "x0-0", "ok", &[(1, 1, 11)], &[(1, 11, 0)]);
    h.read("final", "in", 1, &[(0, 2), (1, 11)]).read("final", "out", 1, &[(0, 11)]);
    only(&h.check(), "chain-lost", 1);
    // Until the chain has copied the partition's last record, a missing copy is no finding.
    let mut h = History::default();
    h.txn("t0-0", "ok", "commit", &[(1, 2, 0), (1, 11, 1)]).read("final", "in", 1, &[(0, 2), (1, 11)]);
    assert_eq!(h.check().total(), 0);
}

#[test]
fn a_read_committed_reader_going_back_or_skipping_a_committed_write_is_an_anomaly() {
    let mut h = clean();
    h.read("final", "in", 0, &[(0, 1)]);
    only(&h.check(), "nonmonotonic-poll", 1);
    // An aborted chain transaction rewinds the chain to its committed offsets: no anomaly.
    let mut h = clean();
    h.chain("x0", "x0-2", "fail", &[], &[]).read("x0", "in", 0, &[(3, 4)]);
    assert_eq!(h.check().total(), 0);
    // Skipping a write of a committed transaction other than the one just read.
    let mut h = clean();
    h.txn("t0-3", "ok", "commit", &[(2, 5, 0)]).txn("t0-4", "ok", "commit", &[(2, 6, 1)]).read(
        "final",
        "in",
        2,
        &[(0, 5), (2, 7)],
    );
    let verdict = h.check();
    assert_eq!((verdict.count("poll-skip"), verdict.count("lost-write")), (1, 1), "{:#?}", verdict.anomalies);
    assert_eq!(verdict.total(), 2);
}

#[test]
fn one_offset_with_two_values_or_one_value_at_two_offsets_in_the_input() {
    let mut h = clean();
    h.read("x1", "in", 1, &[(0, 99)]);
    let verdict = h.check();
    assert_eq!(verdict.count("inconsistent-offsets"), 1, "{:#?}", verdict.anomalies);
    let mut h = clean();
    h.read("x1", "in", 1, &[(0, 2), (5, 2)]);
    let verdict = h.check();
    assert_eq!(verdict.count("duplicate"), 1, "{:#?}", verdict.anomalies);
}
