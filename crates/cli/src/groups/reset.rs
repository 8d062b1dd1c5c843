//! `--reset-offsets`: Kafka's `GroupOffsetsResetter` scenarios (`--to-offset`, `--to-earliest`,
//! `--to-latest`, `--to-current`, `--shift-by`, `--to-datetime`, `--by-duration`) for an
//! inactive group (Empty, Dead or unknown), printed as Kafka prints the plan (rows in the order
//! of the Java hash maps its tool collects them in) and committed with `--execute`.
//! Offsets asked past a partition's ends are clamped to them, as Kafka's tool does.

use std::collections::BTreeMap;

use strand_client::Admin;
use strand_client::admin_groups::TopicPartition;
use strand_client::consumer::{EARLIEST, LATEST, PartitionConsumer};
use strand_protocol::error::ErrorCode;

use super::{GroupsArgs, failed, print_error};
use crate::tool::{self, Failure, exception};

/// The plan for one group: partitions in the order Kafka's tool prints them, with new offsets.
type Plan = Vec<(TopicPartition, i64)>;

pub(super) async fn run(admin: &Admin, args: &GroupsArgs) -> Result<(), Failure> {
    let groups = super::groups(admin, args).await?;
    let mut plans: Vec<(String, Plan)> = Vec::new();
    for group in groups {
        let state = match admin.describe_consumer_group(&group).await {
            Ok(described) => described.state,
            Err(e) if e.code() == Some(ErrorCode::GroupIdNotFound) => "Dead".to_owned(),
            Err(e) => return Err(failed(e)),
        };
        if state == "Empty" || state == "Dead" {
            let plan = plan(admin, args, &group).await?;
            if args.execute {
                let offsets: BTreeMap<TopicPartition, i64> = plan.iter().cloned().collect();
                admin.alter_group_offsets(&group, &offsets).await.map_err(failed)?;
            }
            plans.push((group, plan));
        } else {
            print_error(&format!(
                "Assignments can only be reset if the group '{group}' is inactive, but the current state is {state}."
            ));
            plans.push((group, Vec::new()));
        }
    }
    print_plans(plans);
    Ok(())
}

/// Kafka's `printOffsetsToReset`.
fn print_plans(plans: Vec<(String, Plan)>) {
    let g = plans.iter().map(|(g, _)| g.chars().count()).max().unwrap_or(0).max(15);
    let t = plans.iter().flat_map(|(_, p)| p.iter().map(|((t, _), _)| t.chars().count())).max().unwrap_or(0).max(15);
    let mut out = String::new();
    if !plans.is_empty() {
        out.push_str(&format!("\n{:<g$} {:<t$} {:<10} {}", "GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"));
    }
    // The groups come out of a HashMap<String, _> in Kafka's tool.
    let expected = plans.len();
    for (group, plan) in tool::java_hash_map_order_by(plans, expected.max(16), |(g, _)| tool::java_hash(g)) {
        for ((topic, partition), offset) in plan {
            out.push_str(&format!("\n{group:<g$} {topic:<t$} {partition:<10} {offset}"));
        }
    }
    println!("{out}");
}

/// Java's `TopicPartition.hashCode`.
fn partition_hash((topic, partition): &TopicPartition) -> i32 {
    31i32.wrapping_mul(31i32.wrapping_add(*partition)).wrapping_add(tool::java_hash(topic))
}

/// The partitions to reset (`--all-topics`: those the group committed; `--topic t` or
/// `t:0,1`), each checked to exist and have a leader, then the scenario's offsets, in the order
/// Kafka's `Collectors.toMap` HashMap iterates them.
async fn plan(admin: &Admin, args: &GroupsArgs, group: &str) -> Result<Plan, Failure> {
    let committed = admin.list_group_offsets(group).await.map_err(failed)?;
    let partitions: Vec<TopicPartition> =
        if args.all_topics { committed.keys().cloned().collect() } else { partitions_of(admin, &args.topic).await? };
    check_valid(admin, &partitions).await?;
    let offsets: Vec<(TopicPartition, i64)> = if let Some(offset) = args.to_offset {
        clamped(admin, partitions.iter().map(|p| (p.clone(), offset)).collect()).await?
    } else if args.to_earliest {
        at(admin, &partitions, EARLIEST, "starting").await?
    } else if args.to_latest {
        at(admin, &partitions, LATEST, "ending").await?
    } else if let Some(shift) = args.shift_by {
        let mut requested = Vec::new();
        for p in &partitions {
            let current = committed.get(p).ok_or_else(|| {
                Failure::Usage(format!(
                    "Cannot shift offset for partition {}-{} since there is no current committed offset",
                    p.0, p.1
                ))
            })?;
            requested.push((p.clone(), current.offset.saturating_add(shift)));
        }
        clamped(admin, requested).await?
    } else if args.to_current {
        let mut offsets = Vec::new();
        for p in &partitions {
            match committed.get(p) {
                Some(current) => offsets.push((p.clone(), current.offset)),
                None => offsets.extend(at(admin, std::slice::from_ref(p), LATEST, "ending").await?),
            }
        }
        offsets
    } else {
        let timestamp = match (&args.to_datetime, &args.by_duration) {
            (Some(datetime), _) => parse_datetime(datetime)?,
            (None, Some(duration)) => now_ms().saturating_sub(parse_duration(duration)?),
            (None, None) => return Err(Failure::Usage("Option [reset-offsets] takes a scenario".into())),
        };
        by_timestamp(admin, &partitions, timestamp).await?
    };
    Ok(tool::java_hash_map_order_by(offsets, 16, |(p, _)| partition_hash(p)))
}

/// `--topic` values as partitions: `t:0,2` those, `t` every partition of `t`.
async fn partitions_of(admin: &Admin, topics: &[String]) -> Result<Vec<TopicPartition>, Failure> {
    let mut partitions = Vec::new();
    let mut whole = Vec::new();
    for topic in topics {
        match topic.split_once(':') {
            Some((name, list)) => {
                for p in list.split(',') {
                    let p = p.parse::<i32>().map_err(|_| {
                        Failure::Usage(format!("Invalid partition '{p}' specified in topic arg '{topic}''"))
                    })?;
                    partitions.push((name.to_owned(), p));
                }
            }
            None => whole.push(topic.clone()),
        }
    }
    if !whole.is_empty() {
        for described in admin.describe_topics(&whole).await.map_err(failed)? {
            partitions.extend(described.partitions.iter().map(|p| (described.name.clone(), p.partition)));
        }
    }
    Ok(partitions)
}

/// Kafka's `checkAllTopicPartitionsValid`: every partition exists and has a leader.
async fn check_valid(admin: &Admin, partitions: &[TopicPartition]) -> Result<(), Failure> {
    let mut topics: Vec<String> = partitions.iter().map(|(t, _)| t.clone()).collect();
    topics.sort();
    topics.dedup();
    let described =
        if topics.is_empty() { Vec::new() } else { admin.describe_topics(&topics).await.map_err(failed)? };
    let known = |p: &TopicPartition| {
        described.iter().find(|t| t.name == p.0).and_then(|t| t.partitions.iter().find(|i| i.partition == p.1))
    };
    let list = |ps: Vec<&TopicPartition>| ps.iter().map(|(t, p)| format!("{t}-{p}")).collect::<Vec<_>>().join(",");
    let missing: Vec<&TopicPartition> = partitions.iter().filter(|p| known(p).is_none()).collect();
    if !missing.is_empty() {
        return Err(Failure::Operation(format!(
            "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: The partitions \"{}\" do not exist",
            list(missing)
        )));
    }
    let leaderless: Vec<&TopicPartition> =
        partitions.iter().filter(|p| known(p).is_some_and(|i| i.leader.is_none())).collect();
    if !leaderless.is_empty() {
        return Err(Failure::Operation(format!(
            "org.apache.kafka.common.errors.LeaderNotAvailableException: The partitions \"{}\" have no leader",
            list(leaderless)
        )));
    }
    Ok(())
}

/// Each partition's offset for `spec` (earliest or latest).
async fn at(admin: &Admin, partitions: &[TopicPartition], spec: i64, which: &str) -> Result<Plan, Failure> {
    let mut offsets = Vec::new();
    for p in partitions {
        let offset =
            PartitionConsumer::new(admin.client(), p.0.clone(), 0).offset_for(p.1, spec).await.map_err(|e| {
                Failure::Usage(format!(
                    "Error getting {which} offset of topic partition: {}-{}: {}",
                    p.0,
                    p.1,
                    exception(e)
                ))
            })?;
        offsets.push((p.clone(), offset));
    }
    Ok(offsets)
}

/// Kafka's `checkOffsetsRange`: an offset past the log end becomes the log end, one before the
/// log start the log start.
async fn clamped(admin: &Admin, requested: Plan) -> Result<Plan, Failure> {
    let mut offsets = Vec::new();
    for (p, offset) in requested {
        let consumer = PartitionConsumer::new(admin.client(), p.0.clone(), 0);
        let end = consumer.offset_for(p.1, LATEST).await.map_err(failed)?;
        let start = consumer.offset_for(p.1, EARLIEST).await.map_err(failed)?;
        offsets.push((p, offset.min(end).max(start)));
    }
    Ok(offsets)
}

/// The first offset at or after `timestamp` in each partition; a partition with none falls back
/// to its log end, with Kafka's warning.
async fn by_timestamp(admin: &Admin, partitions: &[TopicPartition], timestamp: i64) -> Result<Plan, Failure> {
    let mut found = Vec::new();
    let mut empty = Vec::new();
    for p in partitions {
        let offset =
            PartitionConsumer::new(admin.client(), p.0.clone(), 0).offset_for(p.1, timestamp).await.map_err(failed)?;
        if offset >= 0 { found.push((p.clone(), offset)) } else { empty.push(p.clone()) }
    }
    for (topic, partition) in tool::java_hash_map_order_by(empty.clone(), 16, partition_hash) {
        println!("\nWarn: Partition {partition} from topic {topic} is empty. Falling back to latest known offset.");
    }
    found.extend(at(admin, &empty, LATEST, "ending").await?);
    Ok(found)
}

fn now_ms() -> i64 {
    strand_base::Clock::now_ms(&strand_base::SystemClock)
}

/// Kafka's `Utils.getDateTime`: `YYYY-MM-DDTHH:mm:SS.sss`, with an optional zone (`Z`, `+hh:mm`,
/// `-hhmm`); without one, the local time zone.
fn parse_datetime(text: &str) -> Result<i64, Failure> {
    use chrono::{DateTime, Local, NaiveDateTime, TimeZone};
    let invalid = || Failure::Operation(format!("java.text.ParseException: Unparseable date: \"{text}\""));
    let has_zone = text.ends_with('Z') || text.get(19..).is_some_and(|rest| rest.contains(['+', '-']));
    if has_zone {
        let normalised = text.replace('Z', "+00:00");
        for format in ["%Y-%m-%dT%H:%M:%S%.3f%:z", "%Y-%m-%dT%H:%M:%S%.3f%z"] {
            if let Ok(parsed) = DateTime::parse_from_str(&normalised, format) {
                return Ok(parsed.timestamp_millis());
            }
        }
        return Err(invalid());
    }
    let naive = NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.3f").map_err(|_| invalid())?;
    Local.from_local_datetime(&naive).earliest().map(|t| t.timestamp_millis()).ok_or_else(invalid)
}

/// Java's `Duration.parse` (`PnDTnHnMn.nS`, each part optional, signs allowed), in ms.
fn parse_duration(text: &str) -> Result<i64, Failure> {
    let invalid = || {
        Failure::Operation("java.time.format.DateTimeParseException: Text cannot be parsed to a Duration".to_owned())
    };
    let upper = text.to_ascii_uppercase();
    let (negative, rest) = match upper.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, upper.strip_prefix('+').unwrap_or(&upper)),
    };
    let rest = rest.strip_prefix('P').ok_or_else(invalid)?;
    let (days, time) = match rest.split_once('T') {
        Some((days, time)) => (days, Some(time)),
        None => (rest, None),
    };
    let mut ms: f64 = 0.0;
    let mut any = false;
    if !days.is_empty() {
        let n = days.strip_suffix('D').ok_or_else(invalid)?;
        ms += n.parse::<f64>().map_err(|_| invalid())? * 86_400_000.0;
        any = true;
    }
    if let Some(mut time) = time {
        if time.is_empty() {
            return Err(invalid());
        }
        for (unit, factor) in [('H', 3_600_000.0), ('M', 60_000.0), ('S', 1_000.0)] {
            if let Some(at) = time.find(unit) {
                ms += time[..at].parse::<f64>().map_err(|_| invalid())? * factor;
                time = &time[at + 1..];
                any = true;
            }
        }
        if !time.is_empty() {
            return Err(invalid());
        }
    }
    if !any {
        return Err(invalid());
    }
    let ms = if negative { -ms } else { ms };
    Ok(ms as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_as_java_s() {
        assert_eq!(parse_duration("PT1H").ok(), Some(3_600_000));
        assert_eq!(parse_duration("P1DT2H3M4.5S").ok(), Some(93_784_500));
        assert_eq!(parse_duration("-PT10M").ok(), Some(-600_000));
        assert!(parse_duration("1H").is_err());
        assert!(parse_duration("PT").is_err());
    }

    #[test]
    fn datetimes_parse_with_and_without_a_zone() {
        assert_eq!(parse_datetime("2026-01-01T00:00:00.000Z").ok(), Some(1_767_225_600_000));
        assert_eq!(parse_datetime("2026-01-01T01:00:00.000+01:00").ok(), Some(1_767_225_600_000));
        assert!(parse_datetime("2026-01-01").is_err());
    }
}
