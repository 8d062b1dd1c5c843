//! `strand consumer-perf-test`: Kafka's `kafka-consumer-perf-test.sh` (`ConsumerPerformance`):
//! reads `--num-records` records of `--topic` from its start (or `--from-latest`), giving up
//! after `--timeout` ms without a record, and prints Kafka's header and summary line (start and
//! end time, MB and records read and their rates, rebalance and fetch time), or with
//! `--show-detailed-stats` a line every `--reporting-interval` ms.
//!
//! Strand reads every partition of the topic itself, assigned, with no group: the rebalance
//! time is 0 and nothing is committed. `--group`, `--include`, `--print-metrics`,
//! `--socket-buffer-size`, `--fetch-size` and a `--date-format` other than Kafka's default are refused in one
//! line.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use chrono::TimeZone;
use clap::Args;
use strand_base::{Clock, SystemClock};
use strand_client::consumer::{EARLIEST, LATEST, PartitionConsumer};

use crate::tool::{self, Failure};

/// Kafka's default `--date-format`.
const DATE_FORMAT_DEFAULT: &str = "yyyy-MM-dd HH:mm:ss:SSS";
/// How long one fetch waits for records (Kafka's tool polls for 100 ms).
const POLL_WAIT_MS: i32 = 100;

const EXAMPLES: &str = "Example:
  strand consumer-perf-test --bootstrap-server localhost:9092 --topic perf --num-records 100000";

/// The flags of `kafka-consumer-perf-test.sh`.
#[derive(Debug, Args)]
#[command(
    about = "Measure consumer throughput (Kafka's kafka-consumer-perf-test.sh).",
    after_help = EXAMPLES,
    infer_long_args = true
)]
pub struct ConsumerPerfArgs {
    /// REQUIRED: The server(s) to connect to.
    #[arg(long, value_name = "server to connect to")]
    bootstrap_server: Option<String>,
    /// The topic to consume from.
    #[arg(long)]
    topic: Option<String>,
    /// REQUIRED: The number of records to consume.
    #[arg(long, visible_alias = "messages", value_name = "count")]
    num_records: Option<i64>,
    /// Start with the latest record present in the log rather than the earliest.
    #[arg(long)]
    from_latest: bool,
    /// The maximum allowed time in milliseconds between returned records.
    #[arg(long, value_name = "milliseconds", default_value_t = 10_000)]
    timeout: u64,
    /// If set, stats are reported for each reporting interval.
    #[arg(long)]
    show_detailed_stats: bool,
    /// Interval in milliseconds at which to print progress info.
    #[arg(long, value_name = "interval_ms", default_value_t = 5000)]
    reporting_interval: u64,
    /// The date format to use for formatting the time field (only Kafka's default).
    #[arg(long, value_name = "date format", default_value = DATE_FORMAT_DEFAULT)]
    date_format: String,
    /// If set, skips printing the header for the stats.
    #[arg(long)]
    hide_header: bool,
    /// Consumer configuration properties (key=value).
    #[arg(long = "command-property", value_name = "prop1=val1")]
    command_property: Vec<String>,
    /// Config properties file.
    #[arg(long = "command-config", alias = "consumer.config", value_name = "config file")]
    command_config: Option<PathBuf>,
    /// Not supported by this version of Strand.
    #[arg(long, value_name = "size")]
    fetch_size: Option<i32>,
    /// Not supported by this version of Strand.
    #[arg(long, value_name = "gid")]
    group: Option<String>,
    /// Not supported by this version of Strand.
    #[arg(long)]
    include: Option<String>,
    /// Not supported by this version of Strand.
    #[arg(long)]
    print_metrics: bool,
    /// Not supported by this version of Strand.
    #[arg(long, value_name = "size")]
    socket_buffer_size: Option<i32>,
}

pub fn run(args: ConsumerPerfArgs) -> ExitCode {
    tool::report_plain(execute(&args))
}

/// What was read so far.
#[derive(Debug, Clone, Copy, Default)]
struct Totals {
    records: u64,
    bytes: u64,
}

fn execute(args: &ConsumerPerfArgs) -> Result<(), Failure> {
    let usage = |message: &str| Failure::Usage(message.to_owned());
    let bootstrap =
        args.bootstrap_server.as_deref().ok_or_else(|| usage("Missing required argument \"[bootstrap-server]\""))?;
    let records = args.num_records.ok_or_else(|| usage("Missing required argument \"[num-records]\""))?;
    let topic = args
        .topic
        .as_deref()
        .ok_or_else(|| usage("Exactly one of the following arguments is required: topic, include"))?;
    if args.reporting_interval == 0 {
        return Err(usage("Reporting interval must be greater than 0."));
    }
    let unsupported = [
        ("--group", args.group.is_some()),
        ("--include", args.include.is_some()),
        ("--print-metrics", args.print_metrics),
        ("--socket-buffer-size", args.socket_buffer_size.is_some()),
        ("--fetch-size", args.fetch_size.is_some()),
        ("--date-format", args.date_format != DATE_FORMAT_DEFAULT),
    ];
    if let Some((flag, _)) = unsupported.iter().find(|(_, given)| *given) {
        return Err(Failure::Operation(format!("{flag} is not supported by this version of Strand")));
    }
    let mut properties = match &args.command_config {
        Some(path) => {
            strand_client::ClientConfig::read_properties(path).map_err(|e| Failure::Operation(e.to_string()))?
        }
        None => std::collections::BTreeMap::new(),
    };
    properties.extend(crate::console_producer::key_values(&args.command_property)?);
    properties.insert("bootstrap.servers".into(), bootstrap.to_owned());
    // Kafka's tool sets auto.offset.reset itself (from --from-latest).
    crate::client_properties::vet(&properties, crate::client_properties::Role::Consumer, &["auto.offset.reset"])?;
    let config =
        strand_client::ClientConfig::from_properties(&properties).map_err(|e| Failure::Operation(e.to_string()))?;
    if !args.hide_header {
        let first = if args.show_detailed_stats { "time, threadId" } else { "start.time, end.time" };
        println!(
            "{first}, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, \
             fetch.MB.sec, fetch.nMsg.sec"
        );
    }
    tool::block_on(async {
        let client = strand_client::Client::connect(config).await?;
        let consumer = PartitionConsumer::new(&client, topic, 0);
        let start_ms = SystemClock.now_ms();
        let totals = consume(&consumer, args, u64::try_from(records).unwrap_or(0)).await?;
        let end_ms = SystemClock.now_ms();
        if !args.show_detailed_stats {
            let elapsed_s = (end_ms - start_ms) as f64 / 1000.0;
            let mb = totals.bytes as f64 / (1024.0 * 1024.0);
            let fetch_ms = end_ms - start_ms;
            println!(
                "{}, {}, {mb:.4}, {:.4}, {}, {:.4}, 0, {fetch_ms}, {:.4}, {:.4}",
                date(start_ms),
                date(end_ms),
                mb / elapsed_s,
                totals.records,
                totals.records as f64 / elapsed_s,
                mb / (fetch_ms as f64 / 1000.0),
                totals.records as f64 / (fetch_ms as f64 / 1000.0)
            );
        }
        Ok(())
    })
}

/// Reads until `wanted` records came or `--timeout` passed without one; whole fetches count.
async fn consume(consumer: &PartitionConsumer<'_>, args: &ConsumerPerfArgs, wanted: u64) -> Result<Totals, Failure> {
    let partitions = i32::try_from(consumer.partitions().await?).unwrap_or(i32::MAX);
    let mut positions = Vec::new();
    for partition in 0..partitions {
        positions.push(consumer.offset_for(partition, if args.from_latest { LATEST } else { EARLIEST }).await?);
    }
    let timeout = Duration::from_millis(args.timeout);
    let interval_ms = i64::try_from(args.reporting_interval).unwrap_or(i64::MAX);
    let mut totals = Totals::default();
    let (mut reported, mut last_report_ms) = (Totals::default(), SystemClock.now_ms());
    let mut last_consumed = tokio::time::Instant::now();
    let progress = tool::Progress::new(wanted, "records");
    while totals.records < wanted && last_consumed.elapsed() <= timeout {
        for (partition, position) in (0..partitions).zip(positions.iter_mut()) {
            let records = consumer.fetch(partition, *position, POLL_WAIT_MS).await?;
            if let Some(last) = records.last() {
                *position = last.offset + 1;
                last_consumed = tokio::time::Instant::now();
            }
            let now_ms = SystemClock.now_ms();
            progress.advance(records.len() as u64);
            for record in &records {
                totals.records += 1;
                totals.bytes +=
                    (record.key.as_ref().map_or(0, Vec::len) + record.value.as_ref().map_or(0, Vec::len)) as u64;
                if now_ms - last_report_ms >= interval_ms {
                    if args.show_detailed_stats {
                        progress.println(&progress_line(totals, reported, last_report_ms, now_ms));
                    }
                    (reported, last_report_ms) = (totals, now_ms);
                }
            }
        }
    }
    progress.finish();
    if totals.records < wanted {
        println!(
            "WARNING: Exiting before consuming the expected number of records: timeout ({} ms) exceeded. You can use \
             the --timeout option to increase the timeout.",
            args.timeout
        );
    }
    Ok(totals)
}

/// Kafka's `printConsumerProgress` line: the interval's rates.
fn progress_line(now: Totals, before: Totals, start_ms: i64, end_ms: i64) -> String {
    let elapsed_ms = (end_ms - start_ms) as f64;
    let mb = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
    let interval_mb = mb(now.bytes - before.bytes);
    let interval_records = (now.records - before.records) as f64;
    let fetch_ms = end_ms - start_ms;
    let per_fetch_s = |amount: f64| if fetch_ms <= 0 { 0.0 } else { 1000.0 * amount / fetch_ms as f64 };
    format!(
        "{}, 0, {:.4}, {:.4}, {}, {:.4}, 0, {fetch_ms}, {:.4}, {:.4}",
        date(end_ms),
        mb(now.bytes),
        1000.0 * interval_mb / elapsed_ms,
        now.records,
        interval_records / elapsed_ms * 1000.0,
        per_fetch_s(interval_mb),
        per_fetch_s(interval_records)
    )
}

/// A time as Kafka's default `--date-format` prints it, in the local time zone.
fn date(ms: i64) -> String {
    match chrono::Local.timestamp_millis_opt(ms).single() {
        Some(time) => time.format("%Y-%m-%d %H:%M:%S:%3f").to_string(),
        None => ms.to_string(),
    }
}
