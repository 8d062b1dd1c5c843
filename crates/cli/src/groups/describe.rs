//! `--describe`: a group's partitions with their offsets and lag (`--offsets`, the default), its
//! members (`--members`), or its state (`--state`), in Kafka's columns: each as wide as its
//! widest value and at least Kafka's minimum, `-` for a missing value; or, with `--output json`,
//! one JSON array of the groups ([`json`]).

use std::collections::BTreeMap;

use strand_client::Admin;
use strand_client::admin_groups::{CommittedOffset, ConsumerGroupDescription, TopicPartition};
use strand_client::consumer::{LATEST, PartitionConsumer};

use super::{GroupsArgs, failed, print_error};
use crate::tool::{Failure, Output};

mod json;

const MISSING: &str = "-";

pub(super) async fn run(admin: &Admin, args: &GroupsArgs) -> Result<(), Failure> {
    let mut groups = super::groups(admin, args).await?;
    // Kafka's tool gathers them in a TreeMap.
    groups.sort();
    groups.dedup();
    let mut described = Vec::new();
    for group in &groups {
        described.push(admin.describe_consumer_group(group).await.map_err(failed)?);
    }
    if args.output == Output::Json {
        return json::print(admin, args, described).await;
    }
    for group in described {
        if args.members {
            members(&group, args.verbose);
        } else if args.state.is_some() {
            state(&group, args.verbose);
        } else {
            offsets(admin, &group, args.verbose).await?;
        }
    }
    Ok(())
}

/// Kafka's `shouldPrintMemberState`: what the group's state makes it print first, and whether
/// its rows (`rows` of them) are printed.
fn should_print(group: &ConsumerGroupDescription, rows: usize) -> bool {
    match group.state.as_str() {
        "Dead" => {
            print_error(&format!("Consumer group '{}' does not exist.", group.group_id));
            return false;
        }
        "Empty" => eprintln!("\nConsumer group '{}' has no active members.", group.group_id),
        "PreparingRebalance" | "CompletingRebalance" | "Assigning" | "Reconciling" => {
            eprintln!("\nWarning: Consumer group '{}' is rebalancing.", group.group_id)
        }
        _ => {}
    }
    rows > 0
}

/// One row of `--offsets`.
struct PartitionRow {
    topic: String,
    partition: i32,
    committed: Option<CommittedOffset>,
    log_end: Option<i64>,
    consumer: String,
    host: String,
    client: String,
}

/// The `--offsets` rows of `group`: its members' partitions, most partitions first, then the
/// partitions it committed and no member holds.
async fn offset_rows(admin: &Admin, group: &ConsumerGroupDescription) -> Result<Vec<PartitionRow>, Failure> {
    let committed = admin.list_group_offsets(&group.group_id).await.map_err(failed)?;
    let mut members: Vec<_> = group.members.iter().filter(|m| !m.assignment.is_empty()).collect();
    // Most partitions first; ties as the coordinator listed them.
    members.sort_by_key(|m| std::cmp::Reverse(m.assignment.len()));
    let mut rows = Vec::new();
    let mut assigned = std::collections::BTreeSet::new();
    for member in members {
        let mut partitions = member.assignment.clone();
        partitions.sort();
        for partition in partitions {
            assigned.insert(partition.clone());
            rows.push(row(admin, partition, &committed, &member.member_id, &member.host, &member.client_id).await);
        }
    }
    for partition in committed.keys().filter(|p| !assigned.contains(*p)) {
        rows.push(row(admin, partition.clone(), &committed, MISSING, MISSING, MISSING).await);
    }
    Ok(rows)
}

impl PartitionRow {
    /// The committed offset, if any (-1 is none).
    fn current(&self) -> Option<i64> {
        self.committed.as_ref().map(|c| c.offset)
    }

    /// The lag behind the log end, when both ends are known.
    fn lag(&self) -> Option<i64> {
        self.current().filter(|o| *o != -1).and_then(|o| self.log_end.map(|end| end - o))
    }
}

async fn offsets(admin: &Admin, group: &ConsumerGroupDescription, verbose: bool) -> Result<(), Failure> {
    let rows = offset_rows(admin, group).await?;
    if !should_print(group, rows.len()) {
        return Ok(());
    }
    let width = |min: usize, value: &dyn Fn(&PartitionRow) -> usize| rows.iter().map(value).max().unwrap_or(0).max(min);
    let g = group.group_id.chars().count().max(15);
    let t = width(15, &|r| r.topic.chars().count());
    let c = width(15, &|r| r.consumer.chars().count());
    let h = width(15, &|r| r.host.chars().count());
    let line = |cells: [&str; 9], epoch: Option<&str>| {
        let [group, topic, partition, current, end, lag, consumer, host, client] = cells;
        match epoch {
            Some(epoch) => format!(
                "\n{group:<g$} {topic:<t$} {partition:<10} {epoch:<15} {current:<15} {end:<15} {lag:<15} {consumer:<c$} {host:<h$} {client}"
            ),
            None => format!(
                "\n{group:<g$} {topic:<t$} {partition:<10} {current:<15} {end:<15} {lag:<15} {consumer:<c$} {host:<h$} {client}"
            ),
        }
    };
    let header =
        ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"];
    let mut out = line(header, verbose.then_some("LEADER-EPOCH"));
    for r in &rows {
        let (current, lag) = (r.current(), r.lag());
        let text = |v: Option<i64>| v.map_or_else(|| MISSING.to_owned(), |v| v.to_string());
        let epoch =
            r.committed.as_ref().and_then(|c| c.leader_epoch).map_or_else(|| MISSING.to_owned(), |e| e.to_string());
        let partition = r.partition.to_string();
        let (current, end, lag) = (text(current), text(r.log_end), text(lag));
        let cells = [&group.group_id[..], &r.topic, &partition, &current, &end, &lag, &r.consumer, &r.host, &r.client];
        out.push_str(&line(cells, verbose.then_some(&epoch[..])));
    }
    println!("{out}");
    Ok(())
}

/// A partition's row: its committed offset and its log end offset (none when its leader cannot
/// say, as Kafka's tool shows a partition without a leader).
async fn row(
    admin: &Admin,
    partition: TopicPartition,
    committed: &BTreeMap<TopicPartition, CommittedOffset>,
    consumer: &str,
    host: &str,
    client: &str,
) -> PartitionRow {
    let consumer_of = PartitionConsumer::new(admin.client(), partition.0.clone(), 0);
    let log_end = consumer_of.offset_for(partition.1, LATEST).await.ok();
    PartitionRow {
        committed: committed.get(&partition).cloned(),
        topic: partition.0,
        partition: partition.1,
        log_end,
        consumer: consumer.to_owned(),
        host: host.to_owned(),
        client: client.to_owned(),
    }
}

/// Kafka's assignment text: `topic:0,1;other:2`, topics sorted, partitions sorted.
fn assignment_text(partitions: &[TopicPartition]) -> String {
    if partitions.is_empty() {
        return MISSING.to_owned();
    }
    let mut by_topic: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
    for (topic, partition) in partitions {
        by_topic.entry(topic).or_default().push(*partition);
    }
    by_topic
        .into_iter()
        .map(|(topic, mut ps)| {
            ps.sort_unstable();
            format!("{topic}:{}", ps.iter().map(ToString::to_string).collect::<Vec<_>>().join(","))
        })
        .collect::<Vec<_>>()
        .join(";")
}

fn members(group: &ConsumerGroupDescription, verbose: bool) {
    let printed = should_print(group, group.members.len());
    let mut g = 15;
    let (mut c, mut i, mut h, mut cl, mut ca, mut ta) = (15, 17, 15, 15, 20, 20);
    let mut with_instance = false;
    if printed {
        for m in &group.members {
            g = g.max(group.group_id.chars().count());
            c = c.max(m.member_id.chars().count());
            i = i.max(m.group_instance_id.as_deref().unwrap_or("").chars().count());
            h = h.max(m.host.chars().count());
            cl = cl.max(m.client_id.chars().count());
            with_instance |= m.group_instance_id.as_deref().is_some_and(|id| !id.is_empty());
            ca = ca.max(assignment_text(&m.assignment).chars().count());
            ta = ta.max(assignment_text(m.target_assignment.as_deref().unwrap_or_default()).chars().count());
        }
    }
    let head = |group: &str, consumer: &str, instance: &str, host: &str, client: &str, count: &str| {
        if with_instance {
            format!("{group:<g$} {consumer:<c$} {instance:<i$} {host:<h$} {client:<cl$} {count:<15} ")
        } else {
            format!("{group:<g$} {consumer:<c$} {host:<h$} {client:<cl$} {count:<15} ")
        }
    };
    let tail = |current: &str, assignment: &str, target: &str, target_assignment: &str| {
        format!("{current:<15} {assignment:<ca$} {target:<15} {target_assignment:<ta$}")
    };
    let mut out = String::from("\n");
    out.push_str(&head("GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID", "#PARTITIONS"));
    if verbose {
        out.push_str(&tail("CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT"));
    }
    out.push('\n');
    if printed {
        for m in &group.members {
            let count = m.assignment.len().to_string();
            let instance = m.group_instance_id.as_deref().unwrap_or("");
            out.push_str(&head(&group.group_id, &m.member_id, instance, &m.host, &m.client_id, &count));
            if verbose {
                let epoch = |e: Option<i32>| e.map_or_else(|| MISSING.to_owned(), |e| e.to_string());
                let target = m.target_assignment.as_deref().unwrap_or_default();
                out.push_str(&tail(
                    &epoch(m.member_epoch),
                    &assignment_text(&m.assignment),
                    &epoch(group.target_assignment_epoch.filter(|_| m.member_epoch.is_some())),
                    &assignment_text(target),
                ));
            }
            out.push('\n');
        }
    }
    print!("{out}");
}

fn state(group: &ConsumerGroupDescription, verbose: bool) {
    if !should_print(group, 1) {
        return;
    }
    let coordinator = format!("{}:{}  ({})", group.coordinator.host, group.coordinator.port, group.coordinator.id);
    let c = coordinator.chars().count().max(25);
    let g = group.group_id.chars().count().max(15);
    let strategy = if group.assignor.is_empty() { MISSING } else { &group.assignor };
    let count = group.members.len().to_string();
    let out = if verbose {
        let epoch = |e: Option<i32>| e.map_or_else(|| MISSING.to_owned(), |e| e.to_string());
        let line = |a: &str, b: &str, s: &str, st: &str, ge: &str, te: &str, n: &str| {
            format!("\n{a:<g$} {b:<c$} {s:<20} {st:<20} {ge:<15} {te:<25} {n}")
        };
        line(
            "GROUP",
            "COORDINATOR (ID)",
            "ASSIGNMENT-STRATEGY",
            "STATE",
            "GROUP-EPOCH",
            "TARGET-ASSIGNMENT-EPOCH",
            "#MEMBERS",
        ) + &line(
            &group.group_id,
            &coordinator,
            strategy,
            &group.state,
            &epoch(group.group_epoch),
            &epoch(group.target_assignment_epoch),
            &count,
        )
    } else {
        let line = |a: &str, b: &str, s: &str, st: &str, n: &str| format!("\n{a:<g$} {b:<c$} {s:<20} {st:<20} {n}");
        line("GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS")
            + &line(&group.group_id, &coordinator, strategy, &group.state, &count)
    };
    println!("{out}");
}
