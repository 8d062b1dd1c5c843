//! Availability around each fault and the run's report (markdown).

use std::fmt::Write;

use crate::checker::{ANOMALIES, Op, Verdict};
use crate::faults::Fault;

/// Acks=all writes should resume within this of a heal: twice the cluster's
/// `broker.session.timeout.ms` (2 s) plus one `controller.quorum.election.timeout.ms` (1 s).
const RECOVERY_TARGET_MS: i64 = 2 * 2_000 + 1_000;

/// How the clients fared around one fault (milliseconds).
#[derive(Debug, Clone)]
pub struct Availability {
    /// The longest time with no acknowledged acks=all write, from the fault's start to the first
    /// ack after its heal.
    pub write_gap: Option<i64>,
    /// From the heal to the first acknowledged write after it.
    pub write_recovery: Option<i64>,
    /// The same for polls that returned records (the groups' consumers).
    pub poll_gap: Option<i64>,
    pub poll_recovery: Option<i64>,
    /// The same for committed producer transactions (the transactional workload).
    pub txn_gap: Option<i64>,
    pub txn_recovery: Option<i64>,
}

/// The longest stretch of [`from`, the first time after `heal`] with none of `times` in it
/// (`times` sorted); `None` when nothing happened after the heal.
fn longest_gap(times: &[i64], from: i64, heal: i64) -> Option<i64> {
    let first = times.partition_point(|t| *t < from);
    let mut previous = from;
    let mut longest = 0;
    for &t in &times[first..] {
        longest = longest.max(t - previous);
        if t >= heal {
            return Some(longest / 1_000_000);
        }
        previous = t;
    }
    None
}

fn recovery(times: &[i64], heal: i64) -> Option<i64> {
    times.get(times.partition_point(|t| *t < heal)).map(|t| (t - heal) / 1_000_000)
}

pub fn availability(ops: &[Op], faults: &[Fault]) -> Vec<Availability> {
    let mut acks: Vec<i64> = ops.iter().filter(|o| o.f == "send" && o.kind == "ok").map(|o| o.time).collect();
    let mut polls: Vec<i64> = ops
        .iter()
        .filter(|o| o.f == "poll" && o.kind == "ok" && !o.records.is_empty() && o.process != "final")
        .map(|o| o.time)
        .collect();
    let mut txns: Vec<i64> = ops
        .iter()
        .filter(|o| o.f == "txn" && o.kind == "ok" && o.outcome.as_deref() == Some("commit"))
        .map(|o| o.time)
        .collect();
    acks.sort_unstable();
    polls.sort_unstable();
    txns.sort_unstable();
    faults
        .iter()
        .map(|f| Availability {
            write_gap: longest_gap(&acks, f.start, f.heal),
            write_recovery: recovery(&acks, f.heal),
            poll_gap: longest_gap(&polls, f.start, f.heal),
            poll_recovery: recovery(&polls, f.heal),
            txn_gap: longest_gap(&txns, f.start, f.heal),
            txn_recovery: recovery(&txns, f.heal),
        })
        .collect()
}

/// The `q`-quantile (nearest rank) of `values`, sorted here.
pub fn percentile(values: &mut [i64], q: f64) -> Option<i64> {
    values.sort_unstable();
    let rank = ((q * values.len() as f64).ceil() as usize).clamp(1, values.len().max(1));
    values.get(rank - 1).copied()
}

fn ms(v: Option<i64>) -> String {
    v.map_or("never".to_owned(), |v| v.to_string())
}

/// What the report says of the run besides the history.
#[derive(Debug)]
pub struct RunInfo {
    pub seed: u64,
    pub command: String,
    pub started: i64,
    pub minutes: f64,
    pub errors: Vec<String>,
    /// Whether the transactional workload ran.
    pub txn: bool,
    /// The fault kinds drawn from, and the binary.
    pub kinds: String,
}

pub fn markdown(info: &RunInfo, verdict: &Verdict, faults: &[Fault], avail: &[Availability]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Nemesis run, seed {}\n", info.seed);
    let _ = writeln!(out, "Command: `{}`  ", info.command);
    let _ =
        writeln!(out, "Length: {:.1} min; {} faults; {} run errors.\n", info.minutes, faults.len(), info.errors.len());
    let _ = writeln!(
        out,
        "Cluster: 3 `strand` nodes (broker and controller each), RF 3, `min.insync.replicas=2`, \
         `unclean.leader.election.enable=false`, every listener behind the harness's proxies. Workload: franz-go, \
         one idempotent acks=all producer, two consumers in a classic group and two in a KIP-848 group \
         committing offsets, a final reader of every partition.{}\n",
        if info.txn {
            " With `--txn`: two transactional producers (1-4 writes over 4 partitions a transaction, one in four \
             aborted on purpose), a consume-transform-produce chain of two (GroupTransactSession, read_committed, \
             offsets in the transaction), and a read_committed final reader of both topics up to a sentinel \
             transaction."
        } else {
            ""
        }
    );
    let _ = writeln!(out, "Fault kinds drawn from: {}.\n", info.kinds);
    for e in &info.errors {
        let _ = writeln!(out, "- **run error**: {e}");
    }
    let _ = writeln!(out, "## Counts\n");
    let _ = writeln!(
        out,
        "sends {}, acknowledged {}, indeterminate {}, records polled {}, distinct values polled {}\n",
        verdict.sends, verdict.acked, verdict.indeterminate, verdict.polled_records, verdict.polled_values
    );
    if info.txn {
        let t = verdict.txn;
        let _ = writeln!(
            out,
            "transactions committed {}, aborted {}, unknown outcome {}; chain transactions committed {}, aborted {}, \
             unknown {}; records read read_committed {}\n",
            t.committed, t.aborted, t.unknown, t.chain_committed, t.chain_aborted, t.chain_unknown, t.read_records
        );
    }
    let _ = writeln!(out, "## Anomalies\n\n| anomaly | count | examples |\n|---|---|---|");
    for name in ANOMALIES {
        let found = verdict.anomalies.get(name).map(Vec::as_slice).unwrap_or_default();
        let examples: Vec<&str> = found.iter().take(3).map(String::as_str).collect();
        let _ = writeln!(out, "| {name} | {} | {} |", verdict.count(name), examples.join("<br>"));
    }
    let _ = writeln!(
        out,
        "\n## Faults and availability\n\nTimes in ms. Gap: the longest time without a success from the fault's \
         start to the first success after its heal; recovery: from the heal to the first success. Writes: \
         acknowledged acks=all sends; polls: group polls that returned records; txns: committed producer \
         transactions.\n"
    );
    let _ = writeln!(
        out,
        "| # | at s | fault | target | lasted | write gap | write recovery | poll gap | poll recovery | txn gap | txn recovery |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|---|---|");
    for (i, (f, a)) in faults.iter().zip(avail).enumerate() {
        let _ = writeln!(
            out,
            "| {} | {:.1} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            i + 1,
            (f.start - info.started) as f64 / 1e9,
            f.kind,
            f.target,
            (f.heal - f.start) / 1_000_000,
            ms(a.write_gap),
            ms(a.write_recovery),
            ms(a.poll_gap),
            ms(a.poll_recovery),
            ms(a.txn_gap),
            ms(a.txn_recovery)
        );
    }
    let slow: Vec<String> = faults
        .iter()
        .zip(avail)
        .enumerate()
        .filter(|(_, (_, a))| a.write_recovery.is_none_or(|r| r > RECOVERY_TARGET_MS))
        .map(|(i, (f, _))| format!("#{} {}", i + 1, f.kind))
        .collect();
    let _ = writeln!(
        out,
        "\nWrites resumed later than issue 20's target ({RECOVERY_TARGET_MS} ms: twice `broker.session.timeout.ms` \
         plus an election timeout) after {} of {} heals{}{}",
        slow.len(),
        faults.len(),
        if slow.is_empty() { "" } else { ": " },
        slow.join(", ")
    );
    let _ = writeln!(out, "\n## Percentiles over faults (ms)\n\n| kind | faults | measure | p50 | p90 | p99 | max |");
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    let mut kinds: Vec<&str> = faults.iter().map(|f| f.kind.as_str()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    kinds.push("all");
    for kind in kinds {
        let chosen: Vec<&Availability> =
            faults.iter().zip(avail).filter(|(f, _)| kind == "all" || f.kind == kind).map(|(_, a)| a).collect();
        type Measure = fn(&Availability) -> Option<i64>;
        let measures: [(&str, Measure); 6] = [
            ("write gap", |a| a.write_gap),
            ("write recovery", |a| a.write_recovery),
            ("poll gap", |a| a.poll_gap),
            ("poll recovery", |a| a.poll_recovery),
            ("txn gap", |a| a.txn_gap),
            ("txn recovery", |a| a.txn_recovery),
        ];
        for (name, measure) in measures.into_iter().filter(|(n, _)| info.txn || !n.starts_with("txn")) {
            let mut values: Vec<i64> = chosen.iter().filter_map(|a| measure(a)).collect();
            let never = chosen.len() - values.len();
            let row: Vec<String> = [0.5, 0.9, 0.99, 1.0].iter().map(|q| ms(percentile(&mut values, *q))).collect();
            let note = if never > 0 { format!(" ({never} never)") } else { String::new() };
            let _ = writeln!(out, "| {kind} | {} | {name}{note} | {} |", chosen.len(), row.join(" | "));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_gap_runs_from_the_start_to_the_first_success_after_the_heal() {
        let ms = 1_000_000;
        let times = [0, 10 * ms, 20 * ms, 100 * ms, 105 * ms, 300 * ms];
        // Fault from 15 to 200: successes at 20, 100, 105, then the first after the heal at 300.
        assert_eq!(longest_gap(&times, 15 * ms, 200 * ms), Some(195));
        assert_eq!(recovery(&times, 200 * ms), Some(100));
        assert_eq!(longest_gap(&times, 15 * ms, 400 * ms), None);
        assert_eq!(recovery(&times, 400 * ms), None);
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let mut values: Vec<i64> = (1..=10).rev().collect();
        assert_eq!(percentile(&mut values, 0.5), Some(5));
        assert_eq!(percentile(&mut values, 0.9), Some(9));
        assert_eq!(percentile(&mut values, 1.0), Some(10));
        assert_eq!(percentile(&mut [], 0.5), None);
    }
}
