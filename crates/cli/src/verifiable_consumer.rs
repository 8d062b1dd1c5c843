//! `strand verifiable-consumer`: Kafka's `kafka-verifiable-consumer.sh` (`VerifiableConsumer`),
//! the system-test consumer. It joins `--group-id` subscribed to `--topic` and prints one JSON
//! object a line on stdout, with Kafka 4.4's keys: `startup_complete`; `partitions_assigned` and
//! `partitions_revoked` around each rebalance; per poll `records_consumed` (count, and per
//! partition count, minOffset, maxOffset), each record as `record_data` with `--verbose`, and
//! unless `--enable-autocommit` the synchronous commit that follows as `offsets_committed`
//! (offsets, error when it failed, success); at the end (`--max-messages` consumed, or SIGTERM
//! / Ctrl-C) `shutdown_complete` and `shutdown_requested` in the order Kafka prints them.
//!
//! The member is [`strand_client::group::GroupMember`] (classic protocol, range assignment):
//! a poll fetches each assigned partition once, and a heartbeat goes between polls every
//! `heartbeat.interval.ms`; a poll returns at most `max.poll.records`. Auto-commit commits every
//! `auto.commit.interval.ms`, before a rebalance and on close, printing nothing. These three,
//! `max.poll.interval.ms`, `isolation.level`, `fetch.max.wait.ms` and `session.timeout.ms` are
//! read from `--consumer.config` with Kafka's defaults; the flags win over the file, as in Kafka.
//! Any other consumer property there that Strand's client does not honour is refused
//! ([`crate::client_properties`]).
//!
//! What it is not (yet): `--group-protocol consumer` (KIP-848), `--group-remote-assignor`
//! and assignment strategies other than Kafka's `RangeAssignor` are refused in one line.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use strand_client::consumer::{ConsumerRecord, PartitionConsumer};
use strand_client::group::{GroupMember, GroupSettings};
use strand_client::{Client, ClientConfig, ClientError};
use tokio::time::Instant;

use crate::tool::{self, Failure};
use crate::verifiable_producer::{json_text, print_event};

/// How long one partition's fetch waits for records unless `fetch.max.wait.ms` says (Kafka's
/// default is 500; one poll fetches each partition in turn, so this one waits less).
const FETCH_WAIT_MS: u64 = 100;
/// Kafka's `session.timeout.ms` default.
const SESSION_TIMEOUT_MS: u64 = 45_000;
/// What this tool reads from `--consumer.config`, and what Kafka's tool overrides with its
/// flags (`group.id`, `enable.auto.commit`, `auto.offset.reset`, ...): the rest goes to
/// [`crate::client_properties::vet`].
const READ_HERE: &[&str] = &[
    "isolation.level",
    "max.poll.records",
    "heartbeat.interval.ms",
    "auto.commit.interval.ms",
    "max.poll.interval.ms",
    "fetch.max.wait.ms",
    "session.timeout.ms",
    "group.id",
    "group.instance.id",
    "group.protocol",
    "enable.auto.commit",
    "auto.offset.reset",
    "partition.assignment.strategy",
];
/// Kafka's `heartbeat.interval.ms` default.
const HEARTBEAT_INTERVAL_MS: u64 = 3_000;
/// Kafka's `auto.commit.interval.ms` default.
const AUTO_COMMIT_INTERVAL_MS: u64 = 5_000;
/// Kafka's `max.poll.interval.ms` default: the rebalance timeout.
const REBALANCE_TIMEOUT_MS: i32 = 300_000;
/// Kafka's `max.poll.records` default: the most records one poll returns.
const POLL_RECORDS_MAX: u64 = 500;
/// The assignor Kafka's tool defaults to, the one this tool runs.
const RANGE_ASSIGNOR_CLASS: &str = "org.apache.kafka.clients.consumer.RangeAssignor";

/// The flags of `kafka-verifiable-consumer.sh`.
#[derive(Debug, Args)]
#[command(
    about = "Consume in a group and print its events as JSON (Kafka's kafka-verifiable-consumer.sh).",
    after_help = "Example:
  strand verifiable-consumer --bootstrap-server localhost:9092 --topic checks --group-id checkers --max-messages 1000"
)]
pub struct VerifiableConsumerArgs {
    /// The server(s) to connect to.
    #[arg(long, value_name = "HOST1:PORT1[,HOST2:PORT2[...]]")]
    bootstrap_server: String,
    /// Consumes messages from this topic.
    #[arg(long, value_name = "TOPIC")]
    topic: String,
    /// Group protocol (classic; consumer is not supported by this version of Strand).
    #[arg(long, value_name = "GROUP-PROTOCOL", default_value = "classic")]
    group_protocol: String,
    /// Not supported by this version of Strand.
    #[arg(long, value_name = "GROUP-REMOTE-ASSIGNOR")]
    group_remote_assignor: Option<String>,
    /// The group id of the consumer group.
    #[arg(long, value_name = "GROUP-ID")]
    group_id: String,
    /// A unique identifier of the consumer instance (static membership).
    #[arg(long, value_name = "GROUP-INSTANCE-ID")]
    group_instance_id: Option<String>,
    /// Consume this many messages; -1: until the process is stopped.
    #[arg(long, value_name = "MAX-MESSAGES", default_value_t = -1, allow_hyphen_values = true)]
    max_messages: i32,
    /// The consumer's session timeout.
    #[arg(long = "session-timeout", value_name = "TIMEOUT-MS")]
    session_timeout_ms: Option<i32>,
    /// Print each consumed record.
    #[arg(long)]
    verbose: bool,
    /// Enable offset auto-commit.
    #[arg(long)]
    enable_autocommit: bool,
    /// Timeout in milliseconds for closing the consumer.
    #[arg(long = "close-timeout", value_name = "CLOSE-TIMEOUT-MS", default_value_t = 30_000)]
    close_timeout_ms: u64,
    /// Reset policy: earliest, latest or none.
    #[arg(long, value_name = "RESET-POLICY", default_value = "earliest")]
    reset_policy: String,
    /// Assignment strategy (only Kafka's RangeAssignor).
    #[arg(long, value_name = "ASSIGNMENT-STRATEGY", default_value = RANGE_ASSIGNOR_CLASS)]
    assignment_strategy: String,
    /// Consumer config properties file.
    #[arg(long = "consumer.config", alias = "command-config", value_name = "CONFIG-FILE")]
    consumer_config: Option<PathBuf>,
}

pub fn run(args: VerifiableConsumerArgs) -> ExitCode {
    tool::report_plain(execute(&args))
}

/// What `--reset-policy` does for a partition without a committed offset.
#[derive(Debug, Clone, Copy)]
enum Reset {
    Earliest,
    Latest,
    None,
}

/// Where the consumer stands: its next offset per assigned partition, what it consumed, how
/// many polls it made (each starts at the next partition, so none waits behind a busy one).
#[derive(Debug, Default)]
struct Progress {
    positions: BTreeMap<(String, i32), i64>,
    consumed: u64,
    polls: usize,
}

/// How the consumer polls: the flags, and the consumer properties of `--consumer.config` it
/// honours ([`READ_HERE`]).
#[derive(Debug)]
struct Polling {
    reset: Reset,
    isolation: i8,
    /// Records to consume in all (`--max-messages`).
    limit: u64,
    poll_records_max: u64,
    heartbeat_interval: Duration,
    /// With `--enable-autocommit`: how often.
    auto_commit_interval: Option<Duration>,
    /// `fetch.max.wait.ms`: how long one partition's fetch waits for records.
    fetch_wait_ms: i32,
    verbose: bool,
}

fn execute(args: &VerifiableConsumerArgs) -> Result<(), Failure> {
    refuse_unsupported(args)?;
    let reset = match args.reset_policy.as_str() {
        "earliest" => Reset::Earliest,
        "latest" => Reset::Latest,
        "none" => Reset::None,
        other => {
            return Err(Failure::Usage(format!(
                "Invalid value {other} for configuration auto.offset.reset: must be one of earliest, latest, none"
            )));
        }
    };
    let mut properties = match &args.consumer_config {
        Some(path) => ClientConfig::read_properties(path).map_err(|e| Failure::Operation(e.to_string()))?,
        None => Default::default(),
    };
    properties.insert("bootstrap.servers".into(), args.bootstrap_server.clone());
    crate::client_properties::vet(&properties, crate::client_properties::Role::Consumer, READ_HERE)?;
    let isolation = match properties.get("isolation.level").map(|v| v.trim()) {
        None | Some("read_uncommitted") => 0,
        Some("read_committed") => 1,
        Some(other) => {
            return Err(Failure::Operation(format!("Invalid value {other} for configuration isolation.level")));
        }
    };
    let number = |key: &str, default: u64| -> Result<u64, Failure> {
        match properties.get(key).map(|v| v.trim()) {
            None => Ok(default),
            Some(v) => v.parse::<u64>().ok().filter(|n| *n > 0).ok_or_else(|| {
                Failure::Operation(format!("Invalid value {v} for configuration {key}: must be a positive number"))
            }),
        }
    };
    let polling = Polling {
        reset,
        isolation,
        limit: u64::try_from(args.max_messages).unwrap_or(u64::MAX),
        poll_records_max: number("max.poll.records", POLL_RECORDS_MAX)?,
        heartbeat_interval: Duration::from_millis(number("heartbeat.interval.ms", HEARTBEAT_INTERVAL_MS)?),
        auto_commit_interval: match args.enable_autocommit {
            true => Some(Duration::from_millis(number("auto.commit.interval.ms", AUTO_COMMIT_INTERVAL_MS)?)),
            false => None,
        },
        fetch_wait_ms: i32::try_from(number("fetch.max.wait.ms", FETCH_WAIT_MS)?).unwrap_or(i32::MAX),
        verbose: args.verbose,
    };
    let session_timeout = match args.session_timeout_ms {
        Some(flag) => flag,
        None => i32::try_from(number("session.timeout.ms", SESSION_TIMEOUT_MS)?).unwrap_or(i32::MAX),
    };
    let rebalance_timeout = number("max.poll.interval.ms", REBALANCE_TIMEOUT_MS as u64)?;
    let config = ClientConfig::from_properties(&properties).map_err(|e| Failure::Operation(e.to_string()))?;
    let settings = GroupSettings {
        group_id: args.group_id.clone(),
        group_instance_id: args.group_instance_id.clone(),
        session_timeout_ms: session_timeout,
        rebalance_timeout_ms: i32::try_from(rebalance_timeout).unwrap_or(i32::MAX),
        topics: vec![args.topic.clone()],
    };
    tool::block_on(async {
        let client = Client::connect(config).await?;
        let mut member = GroupMember::new(client, settings);
        let mut progress = Progress::default();
        print_event("startup_complete", "");
        let stopped = {
            let work = consume(&mut member, &polling, &mut progress);
            tokio::select! {
                done = work => { done?; false }
                () = crate::verifiable_producer::stop_signal() => true,
            }
        };
        if stopped {
            print_event("shutdown_requested", "");
        }
        let close = close(&mut member, &progress, args.enable_autocommit);
        let closed = tokio::time::timeout(Duration::from_millis(args.close_timeout_ms), close).await;
        print_event("shutdown_complete", "");
        if !stopped {
            print_event("shutdown_requested", "");
        }
        match closed {
            Ok(outcome) => outcome,
            Err(_) => Err(Failure::Operation(format!("closing the consumer took over {} ms", args.close_timeout_ms))),
        }
    })
}

/// Kafka's flags and values this tool does not serve: refused, never ignored.
fn refuse_unsupported(args: &VerifiableConsumerArgs) -> Result<(), Failure> {
    let unsupported = |flag: &str| Failure::Usage(format!("{flag} is not supported by this version of Strand"));
    if !args.group_protocol.eq_ignore_ascii_case("classic") {
        if args.group_protocol.eq_ignore_ascii_case("consumer") {
            return Err(unsupported("--group-protocol consumer"));
        }
        return Err(Failure::Usage(format!(
            "Invalid value {} for configuration group.protocol: must be one of CLASSIC, CONSUMER",
            args.group_protocol
        )));
    }
    if args.group_remote_assignor.is_some() {
        return Err(unsupported("--group-remote-assignor"));
    }
    if args.assignment_strategy != RANGE_ASSIGNOR_CLASS {
        return Err(unsupported(&format!("--assignment-strategy {}", args.assignment_strategy)));
    }
    Ok(())
}

/// Joins, then polls until `limit` records were consumed; rejoins when a heartbeat says so.
/// A failed auto-commit is not reported (Kafka logs it) and is tried again at the next one.
async fn consume(member: &mut GroupMember, polling: &Polling, progress: &mut Progress) -> Result<(), Failure> {
    rebalance(member, progress, polling).await?;
    let mut heartbeat_due = Instant::now() + polling.heartbeat_interval;
    let mut auto_commit_due = polling.auto_commit_interval.map(|every| Instant::now() + every);
    while progress.consumed < polling.limit {
        let records = poll(member, progress, polling).await?;
        if !records.is_empty() {
            report_records(&records, polling.verbose);
            if polling.auto_commit_interval.is_none() {
                commit_reported(member, progress, &records).await;
            }
        }
        if let (Some(due), Some(every)) = (auto_commit_due, polling.auto_commit_interval)
            && Instant::now() >= due
        {
            auto_commit_due = Some(Instant::now() + every);
            let _ = member.commit(&progress.positions).await;
        }
        if progress.consumed < polling.limit && Instant::now() >= heartbeat_due {
            heartbeat_due = Instant::now() + polling.heartbeat_interval;
            if !member.heartbeat().await? {
                if polling.auto_commit_interval.is_some() {
                    let _ = member.commit(&progress.positions).await;
                }
                print_partitions("partitions_revoked", member.assignment());
                rebalance(member, progress, polling).await?;
            }
        }
    }
    Ok(())
}

/// Joins the group, prints the assignment and finds each partition's starting offset.
async fn rebalance(member: &mut GroupMember, progress: &mut Progress, polling: &Polling) -> Result<(), Failure> {
    let assignment = member.join().await?.to_vec();
    print_partitions("partitions_assigned", &assignment);
    let committed = member.committed(&assignment).await?;
    progress.positions.clear();
    for (topic, partition) in assignment {
        let position = match (committed.get(&(topic.clone(), partition)), polling.reset) {
            (Some(offset), _) => *offset,
            (None, Reset::None) => {
                return Err(Failure::Operation(format!(
                    "Undefined offset with no reset policy for partitions: [{topic}-{partition}]"
                )));
            }
            (None, reset) => {
                let timestamp = if matches!(reset, Reset::Earliest) { -2 } else { -1 };
                PartitionConsumer::new(member.client(), topic.clone(), polling.isolation)
                    .offset_for(partition, timestamp)
                    .await?
            }
        };
        progress.positions.insert((topic, partition), position);
    }
    Ok(())
}

/// One poll: the assigned partitions fetched once each from their positions, starting one
/// further each poll, until `max.poll.records` records or `--max-messages` in all. A record
/// not taken is fetched again by a later poll (positions move only past records taken).
async fn poll(
    member: &GroupMember,
    progress: &mut Progress,
    polling: &Polling,
) -> Result<Vec<(String, ConsumerRecord)>, ClientError> {
    let mut records = Vec::new();
    let mut positions: Vec<((String, i32), i64)> = progress.positions.iter().map(|(k, v)| (k.clone(), *v)).collect();
    if positions.is_empty() {
        // Nothing assigned (more members than partitions, or no such topic yet): wait as a
        // fetch would, rather than spin until the next heartbeat.
        tokio::time::sleep(Duration::from_millis(polling.fetch_wait_ms.unsigned_abs().into())).await;
    } else {
        let start = progress.polls % positions.len();
        positions.rotate_left(start);
    }
    progress.polls = progress.polls.wrapping_add(1);
    let poll_limit = progress.consumed.saturating_add(polling.poll_records_max).min(polling.limit);
    for ((topic, partition), offset) in positions {
        if progress.consumed >= poll_limit {
            break;
        }
        let consumer = PartitionConsumer::new(member.client(), topic.clone(), polling.isolation);
        for record in consumer.fetch(partition, offset, polling.fetch_wait_ms).await? {
            if progress.consumed >= poll_limit {
                break;
            }
            progress.consumed += 1;
            progress.positions.insert((topic.clone(), partition), record.offset + 1);
            records.push((topic.clone(), record));
        }
    }
    Ok(records)
}

/// `record_data` lines (with --verbose), then the poll's `records_consumed`.
fn report_records(records: &[(String, ConsumerRecord)], verbose: bool) {
    let text = |bytes: &Option<Vec<u8>>| json_text(bytes.as_deref().map(crate::tool::java_utf8_lossy).as_deref());
    let mut summaries: Vec<(&str, i32, u64, i64, i64)> = Vec::new();
    for (topic, record) in records {
        if verbose {
            let fields = format!(
                r#","key":{},"value":{},"topic":{},"partition":{},"offset":{}"#,
                text(&record.key),
                text(&record.value),
                json_text(Some(topic)),
                record.partition,
                record.offset
            );
            print_event("record_data", &fields);
        }
        match summaries.iter_mut().find(|s| s.0 == topic && s.1 == record.partition) {
            Some(summary) => {
                summary.2 += 1;
                summary.4 = record.offset;
            }
            None => summaries.push((topic, record.partition, 1, record.offset, record.offset)),
        }
    }
    let partitions: Vec<String> = summaries
        .iter()
        .map(|(topic, partition, count, min, max)| {
            let topic = json_text(Some(topic));
            format!(
                r#"{{"topic":{topic},"partition":{partition},"count":{count},"minOffset":{min},"maxOffset":{max}}}"#
            )
        })
        .collect();
    print_event("records_consumed", &format!(r#","count":{},"partitions":[{}]"#, records.len(), partitions.join(",")));
}

/// Commits the positions of the partitions `records` came from (as Kafka's tool commits what a
/// poll returned) and prints `offsets_committed`.
async fn commit_reported(member: &GroupMember, progress: &Progress, records: &[(String, ConsumerRecord)]) {
    let polled: BTreeMap<(String, i32), i64> = records
        .iter()
        .filter_map(|(topic, record)| {
            let key = (topic.clone(), record.partition);
            progress.positions.get(&key).map(|offset| (key, *offset))
        })
        .collect();
    let outcome = member.commit(&polled).await;
    let offsets: Vec<String> = polled
        .iter()
        .map(|((topic, partition), offset)| {
            format!(r#"{{"topic":{},"partition":{partition},"offset":{offset}}}"#, json_text(Some(topic)))
        })
        .collect();
    let result = match outcome {
        Ok(()) => r#","success":true"#.to_owned(),
        Err(error) => format!(r#","error":{},"success":false"#, json_text(Some(&error.to_string()))),
    };
    print_event("offsets_committed", &format!(r#","offsets":[{}]{result}"#, offsets.join(",")));
}

/// Kafka's close: with auto-commit the last positions committed, the partitions revoked, the
/// group left.
async fn close(member: &mut GroupMember, progress: &Progress, auto_commit: bool) -> Result<(), Failure> {
    if auto_commit && !progress.positions.is_empty() {
        let _ = member.commit(&progress.positions).await;
    }
    if !member.assignment().is_empty() {
        print_partitions("partitions_revoked", member.assignment());
    }
    member.leave().await?;
    Ok(())
}

fn print_partitions(name: &str, partitions: &[(String, i32)]) {
    let each: Vec<String> = partitions
        .iter()
        .map(|(topic, partition)| format!(r#"{{"topic":{},"partition":{partition}}}"#, json_text(Some(topic))))
        .collect();
    print_event(name, &format!(r#","partitions":[{}]"#, each.join(",")));
}
