//! The checker on hand-made histories: a clean one, then one per anomaly, each naming exactly
//! the anomaly it holds.

use super::*;

/// A history as the workload writes it, built line by line.
#[derive(Default)]
struct History {
    lines: Vec<String>,
    time: i64,
}

impl History {
    fn line(&mut self, text: String) -> &mut Self {
        self.time += 1;
        self.lines.push(format!("{{{text},\"time\":{}}}", self.time));
        self
    }

    /// Producer `p0` sends `value` to `partition`, acknowledged at `offset`.
    fn send(&mut self, partition: i32, value: i64, offset: i64) -> &mut Self {
        self.invoke(partition, value).ack(partition, value, offset)
    }

    fn invoke(&mut self, partition: i32, value: i64) -> &mut Self {
        self.line(format!(r#""process":"p0","type":"invoke","f":"send","value":{value},"partition":{partition}"#))
    }

    fn ack(&mut self, partition: i32, value: i64, offset: i64) -> &mut Self {
        self.line(format!(
            r#""process":"p0","type":"ok","f":"send","value":{value},"partition":{partition},"offset":{offset}"#
        ))
    }

    /// `process` polls `records` (`(offset, value)`) of `partition` in one batch.
    fn poll(&mut self, process: &str, partition: i32, records: &[(i64, i64)]) -> &mut Self {
        let records: Vec<String> = records.iter().map(|(o, v)| format!("[{o},{v}]")).collect();
        self.line(format!(
            r#""process":"{process}","type":"ok","f":"poll","partition":{partition},"records":[{}]"#,
            records.join(",")
        ))
    }

    fn assign(&mut self, process: &str, partitions: &[i32]) -> &mut Self {
        let list: Vec<String> = partitions.iter().map(i32::to_string).collect();
        self.line(format!(r#""process":"{process}","type":"ok","f":"assign","partitions":[{}]"#, list.join(",")))
    }

    fn check(&self) -> Verdict {
        check_text(&self.lines.join("\n"))
    }
}

/// Partition 0 gets values 0..4 at offsets 0..4, partition 1 values 10..12 at offsets 0..2.
fn clean() -> History {
    let mut h = History::default();
    for i in 0..4 {
        h.send(0, i, i);
    }
    for i in 0..2 {
        h.send(1, 10 + i, i);
    }
    h.assign("c0", &[0, 1]).poll("c0", 0, &[(0, 0), (1, 1)]).poll("c0", 0, &[(2, 2), (3, 3)]).poll(
        "c0",
        1,
        &[(0, 10), (1, 11)],
    );
    h
}

/// Only `name` was found, `count` times.
fn only(verdict: &Verdict, name: &str, count: usize) {
    let found: Vec<(&str, usize)> = verdict.anomalies.iter().map(|(n, e)| (*n, e.len())).collect();
    assert_eq!(found, vec![(name, count)], "{:#?}", verdict.anomalies);
}

#[test]
fn a_clean_history_has_no_anomaly() {
    let verdict = clean().check();
    assert_eq!(verdict.total(), 0, "{:#?}", verdict.anomalies);
    assert_eq!((verdict.sends, verdict.acked, verdict.polled_records, verdict.polled_values), (6, 6, 6, 6));
}

#[test]
fn an_acknowledged_value_no_one_read_though_they_read_past_it_is_a_lost_write() {
    let mut h = clean();
    h.send(0, 4, 4).send(0, 5, 5).poll("c0", 0, &[(5, 5)]);
    // The poll of offset 5 right after offset 3 skipped the acknowledged offset 4 too.
    let verdict = h.check();
    assert_eq!(verdict.count("lost-write"), 1, "{:#?}", verdict.anomalies);
    assert!(verdict.anomalies["lost-write"][0].contains("value 4 acknowledged at partition 0 offset 4"));
    assert_eq!(verdict.count("poll-skip"), 1);
    assert_eq!(verdict.total(), 2);
}

#[test]
fn an_acknowledged_value_beyond_every_read_is_unseen() {
    let mut h = clean();
    h.send(1, 12, 2);
    only(&h.check(), "unseen", 1);
}

#[test]
fn a_value_at_two_offsets_is_a_duplicate() {
    let mut h = clean();
    h.poll("final", 0, &[(0, 0), (1, 1), (2, 2), (3, 3), (4, 3)]);
    only(&h.check(), "duplicate", 1);
}

#[test]
fn two_values_at_one_offset_are_inconsistent_offsets() {
    let mut h = clean();
    h.poll("c1", 1, &[(0, 10), (1, 99)]);
    let verdict = h.check();
    // Value 11 was acknowledged at offset 1 and value 99 read there.
    assert_eq!(verdict.count("inconsistent-offsets"), 1, "{:#?}", verdict.anomalies);
    assert!(verdict.anomalies["inconsistent-offsets"][0].contains("partition 1 offset 1 holds values {11, 99}"));
    assert_eq!(verdict.total(), 1);
}

#[test]
fn a_later_send_at_a_lower_offset_is_a_nonmonotonic_send() {
    let mut h = History::default();
    h.invoke(0, 0).invoke(0, 1).ack(0, 1, 0).ack(0, 0, 1);
    h.poll("c0", 0, &[(0, 1), (1, 0)]);
    only(&h.check(), "nonmonotonic-send", 1);
}

#[test]
fn reading_back_without_a_new_assignment_is_a_nonmonotonic_poll() {
    let mut h = clean();
    h.poll("c0", 0, &[(2, 2)]);
    only(&h.check(), "nonmonotonic-poll", 1);
    // Within one poll it is the internal kind.
    let mut h = clean();
    h.poll("c1", 0, &[(1, 1), (0, 0)]);
    only(&h.check(), "int-nonmonotonic-poll", 1);
}

#[test]
fn reading_back_after_a_new_assignment_is_no_anomaly() {
    let mut h = clean();
    h.assign("c0", &[0]).poll("c0", 0, &[(2, 2), (3, 3)]);
    let verdict = h.check();
    assert_eq!(verdict.total(), 0, "{:#?}", verdict.anomalies);
}

#[test]
fn jumping_over_a_known_record_between_polls_is_a_poll_skip() {
    let mut h = clean();
    h.send(0, 4, 4).send(0, 5, 5).poll("c0", 0, &[(5, 5)]).poll("c1", 0, &[(4, 4)]);
    only(&h.check(), "poll-skip", 1);
}

#[test]
fn jumping_over_a_known_record_within_a_poll_is_an_int_poll_skip() {
    let mut h = clean();
    h.poll("c1", 0, &[(0, 0), (2, 2), (3, 3)]);
    let verdict = h.check();
    only(&verdict, "int-poll-skip", 1);
    assert!(verdict.anomalies["int-poll-skip"][0].contains("skipping offset 1"));
}

#[test]
fn an_offset_gap_no_one_saw_a_record_in_is_no_skip() {
    // Offset 1 of partition 1 holds something no one sent or read (a transaction marker, say).
    let mut h = History::default();
    h.send(1, 10, 0).send(1, 12, 2).poll("c0", 1, &[(0, 10), (2, 12)]);
    let verdict = h.check();
    assert_eq!(verdict.total(), 0, "{:#?}", verdict.anomalies);
}

#[test]
fn a_line_that_is_no_operation_is_reported() {
    let mut h = clean();
    h.lines.push("{not json".to_owned());
    only(&h.check(), "unreadable-history", 1);
}
