//! `strand producer-perf-test`: Kafka's `kafka-producer-perf-test.sh` (`ProducerPerformance`):
//! `--num-records` records of `--record-size` random letters (or `--payload-monotonic` numbers,
//! or lines of `--payload-file`) to `--topic`, at most `--throughput` a second, with a progress
//! line every `--reporting-interval` ms and Kafka's summary line: records sent, records/sec,
//! MB/sec, average and maximum latency, and the 50th, 95th, 99th and 99.9th percentiles.
//!
//! Records go in batches of up to `batch.size` bytes (16384, Kafka's default), one Produce
//! request per leader each ([`strand_client::producer::Producer`]); a record's latency is its
//! batch's round trip. `acks` (Kafka's default: all) and `batch.size` come from
//! `--command-property`/`--producer-props` or the `--command-config` file; the other client
//! properties as [`strand_client::ClientConfig`] reads them, any other producer property
//! refused ([`crate::client_properties`]).
//!
//! On a terminal a progress bar to `--num-records` runs on stderr below Kafka's lines.
//!
//! What it is not (yet): no transactions (`--transactional-id`, `--transaction-duration-ms`), no
//! `--warmup-records`, `--key-distribution` or `--print-metrics`: each is refused in one line.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use rand::Rng;
use strand_base::{Clock, SystemClock};
use strand_client::producer::{Producer, ProducerRecord, SEND_RECORDS_MAX};
use tokio::time::Instant;

use crate::client_properties::{self, Role};
use crate::tool::{self, Failure};

/// Kafka's producer default `batch.size`.
const BATCH_BYTES_DEFAULT: usize = 16_384;
/// The latencies kept for the percentiles (Kafka's tool samples at most 500,000).
const LATENCY_SAMPLES_MAX: u64 = 500_000;

const EXAMPLES: &str = "Example:
  strand producer-perf-test --bootstrap-server localhost:9092 --topic perf --num-records 100000 --record-size 100 --throughput -1";

/// The flags of `kafka-producer-perf-test.sh`.
#[derive(Debug, Args)]
#[command(
    about = "Measure producer throughput and latency (Kafka's kafka-producer-perf-test.sh).",
    after_help = EXAMPLES,
    infer_long_args = true
)]
pub struct ProducerPerfArgs {
    /// The server(s) to connect to.
    #[arg(long, value_name = "BOOTSTRAP-SERVER")]
    bootstrap_server: Option<String>,
    /// Produce records to this topic.
    #[arg(long, value_name = "TOPIC")]
    topic: String,
    /// Number of records to produce.
    #[arg(long, value_name = "NUM-RECORDS", allow_hyphen_values = true)]
    num_records: i64,
    /// Record size in bytes.
    #[arg(long, value_name = "RECORD-SIZE")]
    record_size: Option<usize>,
    /// File to read the record payloads from (one picked at random for each record).
    #[arg(long, value_name = "PAYLOAD-FILE")]
    payload_file: Option<PathBuf>,
    /// Payload is a monotonically increasing integer.
    #[arg(long)]
    payload_monotonic: bool,
    /// The delimiter of the payloads in --payload-file.
    #[arg(long, value_name = "PAYLOAD-DELIMITER", default_value = "\\n")]
    payload_delimiter: String,
    /// Throttle maximum record throughput to approximately THROUGHPUT records/sec (-1: no throttle).
    #[arg(long, value_name = "THROUGHPUT", allow_hyphen_values = true)]
    throughput: f64,
    /// Producer configuration properties (key=value).
    #[arg(long = "command-property", alias = "producer-props", value_name = "PROP-NAME=PROP-VALUE", num_args = 1..)]
    command_property: Vec<String>,
    /// Producer config properties file.
    #[arg(long = "command-config", alias = "producer.config", value_name = "CONFIG-FILE")]
    command_config: Option<PathBuf>,
    /// Interval in milliseconds at which to print progress info.
    #[arg(long, value_name = "INTERVAL-MS", default_value_t = 5000)]
    reporting_interval: u64,
    /// Not supported by this version of Strand.
    #[arg(long, value_name = "TRANSACTIONAL-ID")]
    transactional_id: Option<String>,
    /// Not supported by this version of Strand.
    #[arg(long, value_name = "TRANSACTION-DURATION")]
    transaction_duration_ms: Option<i64>,
    /// Not supported by this version of Strand.
    #[arg(long, value_name = "WARMUP-RECORDS")]
    warmup_records: Option<i64>,
    /// Not supported by this version of Strand.
    #[arg(long, value_name = "KEY-DISTRIBUTION")]
    key_distribution: Option<String>,
    /// Not supported by this version of Strand.
    #[arg(long)]
    print_metrics: bool,
}

pub fn run(args: ProducerPerfArgs) -> ExitCode {
    tool::report_plain(execute(&args))
}

/// Where record payloads come from.
#[derive(Debug)]
enum Payloads {
    /// The same random letters for every record.
    Fixed(Vec<u8>),
    /// The record's number.
    Monotonic,
    /// One of these, at random.
    File(Vec<Vec<u8>>),
}

fn execute(args: &ProducerPerfArgs) -> Result<(), Failure> {
    let unsupported = [
        ("--transactional-id", args.transactional_id.is_some()),
        ("--transaction-duration-ms", args.transaction_duration_ms.is_some()),
        ("--warmup-records", args.warmup_records.is_some()),
        ("--key-distribution", args.key_distribution.is_some()),
        ("--print-metrics", args.print_metrics),
    ];
    if let Some((flag, _)) = unsupported.iter().find(|(_, given)| *given) {
        return Err(Failure::Operation(format!("{flag} is not supported by this version of Strand")));
    }
    let payloads = payloads(args)?;
    let mut properties = match &args.command_config {
        Some(path) => {
            strand_client::ClientConfig::read_properties(path).map_err(|e| Failure::Operation(e.to_string()))?
        }
        None => BTreeMap::new(),
    };
    properties.extend(crate::console_producer::key_values(&args.command_property)?);
    if let Some(bootstrap) = &args.bootstrap_server {
        properties.insert("bootstrap.servers".into(), bootstrap.clone());
    }
    client_properties::vet(&properties, Role::Producer, &["acks", "batch.size"])?;
    let acks = match properties.remove("acks").as_deref() {
        None | Some("all" | "-1") => -1,
        Some("0") => 0,
        Some("1") => 1,
        Some(other) => {
            let message = format!("Invalid value {other} for configuration acks: String must be one of: all, -1, 0, 1");
            return Err(Failure::Operation(message));
        }
    };
    let batch_bytes = match properties.remove("batch.size") {
        None => BATCH_BYTES_DEFAULT,
        Some(size) => size
            .parse()
            .map_err(|_| Failure::Operation(format!("Invalid value {size} for configuration batch.size")))?,
    };
    let config =
        strand_client::ClientConfig::from_properties(&properties).map_err(|e| Failure::Operation(e.to_string()))?;
    let plan = Plan { records: u64::try_from(args.num_records).unwrap_or(0), throughput: args.throughput, batch_bytes };
    tool::block_on(async {
        let client = strand_client::Client::connect(config).await?;
        let producer = Producer::new(&client, acks);
        produce(&producer, &args.topic, &payloads, plan, Duration::from_millis(args.reporting_interval)).await
    })
}

/// Kafka's payload options: exactly one of --record-size, --payload-file, --payload-monotonic.
fn payloads(args: &ProducerPerfArgs) -> Result<Payloads, Failure> {
    let given = [args.record_size.is_some(), args.payload_file.is_some(), args.payload_monotonic];
    if given.iter().filter(|g| **g).count() != 1 {
        return Err(Failure::Usage("No payload file, record size or payload-monotonic option provided.".into()));
    }
    if let Some(size) = args.record_size {
        // Kafka's tool fills the payload with random upper-case letters.
        let mut random = rand::thread_rng();
        return Ok(Payloads::Fixed((0..size).map(|_| b'A' + random.gen_range(0..26u8)).collect()));
    }
    let Some(path) = &args.payload_file else { return Ok(Payloads::Monotonic) };
    let text = std::fs::read_to_string(path).map_err(|e| Failure::Operation(format!("{}: {e}", path.display())))?;
    let delimiter = args.payload_delimiter.replace("\\n", "\n").replace("\\t", "\t");
    let lines: Vec<Vec<u8>> =
        text.split(delimiter.as_str()).filter(|l| !l.is_empty()).map(|l| l.as_bytes().to_vec()).collect();
    if lines.is_empty() {
        return Err(Failure::Operation("File does not exist or empty file provided.".into()));
    }
    println!("Reading payloads from: {}", std::path::absolute(path).unwrap_or_else(|_| path.clone()).display());
    println!("Number of records read: {}", lines.len());
    Ok(Payloads::File(lines))
}

/// How much to send, how fast, in what batches.
#[derive(Debug, Clone, Copy)]
struct Plan {
    records: u64,
    /// Records a second; 0 or less: as fast as possible.
    throughput: f64,
    batch_bytes: usize,
}

async fn produce(
    producer: &Producer<'_>,
    topic: &str,
    payloads: &Payloads,
    plan: Plan,
    interval: Duration,
) -> Result<(), Failure> {
    let start = Instant::now();
    let mut stats = Stats::new(plan.records, start);
    let mut sent = 0u64;
    while sent < plan.records {
        let mut batch = Vec::new();
        let mut bytes = 0;
        let now_ms = SystemClock.now_ms();
        while sent + (batch.len() as u64) < plan.records && batch.len() < SEND_RECORDS_MAX {
            let value = match payloads {
                Payloads::Fixed(value) => value.clone(),
                Payloads::Monotonic => (sent + batch.len() as u64).to_string().into_bytes(),
                Payloads::File(lines) => lines[rand::thread_rng().gen_range(0..lines.len())].clone(),
            };
            bytes += value.len();
            batch.push(ProducerRecord { value: Some(value), timestamp_ms: now_ms, ..ProducerRecord::default() });
            if bytes >= plan.batch_bytes {
                break;
            }
        }
        if plan.throughput > 0.0 {
            // Kafka's ThroughputThrottler: no faster than the target rate.
            let due = start + Duration::from_secs_f64(sent as f64 / plan.throughput);
            tokio::time::sleep_until(due).await;
        }
        let sent_at = Instant::now();
        producer.send(topic, &batch).await?;
        let latency_ms = u64::try_from(sent_at.elapsed().as_millis()).unwrap_or(u64::MAX);
        for record in &batch {
            stats.record(latency_ms, record.value.as_ref().map_or(0, Vec::len), interval);
        }
        sent += batch.len() as u64;
    }
    stats.print_total();
    Ok(())
}

/// Kafka's `ProducerPerformance.Stats`: totals, a window printed every interval, and sampled
/// latencies for the percentiles.
#[derive(Debug)]
struct Stats {
    start: Instant,
    count: u64,
    bytes: u64,
    total_latency_ms: u64,
    max_latency_ms: u64,
    latencies: Vec<u64>,
    sampling: u64,
    window: Window,
    /// A bar to the records wanted, on a terminal.
    progress: tool::Progress,
}

#[derive(Debug)]
struct Window {
    start: Instant,
    count: u64,
    bytes: u64,
    total_latency_ms: u64,
    max_latency_ms: u64,
}

impl Window {
    fn new(start: Instant) -> Window {
        Window { start, count: 0, bytes: 0, total_latency_ms: 0, max_latency_ms: 0 }
    }
}

impl Stats {
    fn new(records: u64, start: Instant) -> Stats {
        let sampling = (records / records.clamp(1, LATENCY_SAMPLES_MAX)).max(1);
        let kept = usize::try_from(records / sampling + 1).unwrap_or(usize::MAX);
        Stats {
            start,
            count: 0,
            bytes: 0,
            total_latency_ms: 0,
            max_latency_ms: 0,
            latencies: Vec::with_capacity(kept),
            sampling,
            window: Window::new(start),
            progress: tool::Progress::new(records, "records"),
        }
    }

    fn record(&mut self, latency_ms: u64, bytes: usize, interval: Duration) {
        if self.count.is_multiple_of(self.sampling) {
            self.latencies.push(latency_ms);
        }
        self.count += 1;
        self.bytes += bytes as u64;
        self.total_latency_ms += latency_ms;
        self.max_latency_ms = self.max_latency_ms.max(latency_ms);
        let window = &mut self.window;
        window.count += 1;
        window.bytes += bytes as u64;
        window.total_latency_ms += latency_ms;
        window.max_latency_ms = window.max_latency_ms.max(latency_ms);
        self.progress.advance(1);
        let now = Instant::now();
        if now.duration_since(window.start) >= interval {
            let elapsed_ms = now.duration_since(window.start).as_millis().max(1) as f64;
            self.progress.println(&format!(
                "{} records sent, {:.1} records/sec ({:.2} MB/sec), {:.1} ms avg latency, {:.1} ms max latency.",
                window.count,
                1000.0 * window.count as f64 / elapsed_ms,
                1000.0 * window.bytes as f64 / elapsed_ms / (1024.0 * 1024.0),
                window.total_latency_ms as f64 / window.count as f64,
                window.max_latency_ms as f64
            ));
            self.window = Window::new(now);
        }
    }

    fn print_total(&mut self) {
        self.progress.finish();
        let elapsed_ms = self.start.elapsed().as_millis().max(1) as f64;
        self.latencies.sort_unstable();
        let percentile = |p: f64| {
            let index = ((p * self.latencies.len() as f64) as usize).min(self.latencies.len().saturating_sub(1));
            self.latencies.get(index).copied().unwrap_or(0)
        };
        println!(
            "{} records sent, {:.6} records/sec ({:.2} MB/sec), {:.2} ms avg latency, {:.2} ms max latency, {} ms 50th, \
             {} ms 95th, {} ms 99th, {} ms 99.9th.",
            self.count,
            1000.0 * self.count as f64 / elapsed_ms,
            1000.0 * self.bytes as f64 / elapsed_ms / (1024.0 * 1024.0),
            self.total_latency_ms as f64 / self.count.max(1) as f64,
            self.max_latency_ms as f64,
            percentile(0.5),
            percentile(0.95),
            percentile(0.99),
            percentile(0.999)
        );
    }
}
