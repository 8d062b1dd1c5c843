//! `strand e2e-latency`: Kafka's `kafka-e2e-latency.sh` (`EndToEndLatency`, 4.4): sends
//! `--num-records` records one at a time (acks `1` or `all`), each read back before the next is
//! sent, and prints the time each took every 1000 records, the average and the 50th, 99th and
//! 99.9th percentiles. Keys (`--record-key-size`) and headers (`--num-headers`,
//! `--record-header-key-size`, `--record-header-size`) are sent and checked on the way back, as
//! Kafka's tool checks them. Kafka's deprecated positional form (`bootstrap-server topic
//! num-records producer-acks record-size [command-config]`) is taken with Kafka's warning.
//!
//! The record is read back from the partition and offset the producer's answer names (Kafka's
//! tool polls a consumer positioned at the end of every partition): the same round trip.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use rand::Rng;
use rand::SeedableRng;
use strand_base::{Clock, SystemClock};
use strand_client::admin::NewTopic;
use strand_client::consumer::{ConsumerRecord, PartitionConsumer};
use strand_client::producer::{Producer, ProducerRecord};

use crate::tool::{self, Failure};

/// How long a record may take to come back (Kafka's `POLL_TIMEOUT_MS`).
const POLL_TIMEOUT_MS: i32 = 60_000;

const EXAMPLES: &str = "Example:
  strand e2e-latency --bootstrap-server localhost:9092 --topic latency --num-records 10000 --producer-acks all --record-size 100";

/// The flags of `kafka-e2e-latency.sh`.
#[derive(Debug, Args)]
#[command(
    about = "Measure end-to-end latency, produce to fetch (Kafka's kafka-e2e-latency.sh).",
    after_help = EXAMPLES,
    infer_long_args = true
)]
pub struct E2eLatencyArgs {
    /// REQUIRED: The Kafka broker list string in the form HOST1:PORT1,HOST2:PORT2.
    #[arg(long)]
    bootstrap_server: Option<String>,
    /// REQUIRED: The topic to use for the test.
    #[arg(long, value_name = "topic-name")]
    topic: Option<String>,
    /// REQUIRED: The number of messages to send.
    #[arg(long, value_name = "count", allow_hyphen_values = true)]
    num_records: Option<i64>,
    /// REQUIRED: Producer acknowledgements. Must be '1' or 'all'.
    #[arg(long)]
    producer_acks: Option<String>,
    /// REQUIRED: The size of each message payload in bytes.
    #[arg(long, value_name = "bytes", allow_hyphen_values = true)]
    record_size: Option<i64>,
    /// The size of the message key in bytes (none: no key).
    #[arg(long, value_name = "bytes", allow_hyphen_values = true)]
    record_key_size: Option<i64>,
    /// The size of the message header key in bytes.
    #[arg(long, value_name = "bytes", allow_hyphen_values = true, default_value_t = 0)]
    record_header_key_size: i64,
    /// The size of message header value in bytes (-1: a null value).
    #[arg(long, value_name = "bytes", allow_hyphen_values = true, default_value_t = 0)]
    record_header_size: i64,
    /// The number of headers to include in each message.
    #[arg(long, value_name = "count", allow_hyphen_values = true, default_value_t = 0)]
    num_headers: i64,
    /// A property file for the client configuration.
    #[arg(long, value_name = "config-file")]
    command_config: Option<PathBuf>,
    /// Kafka's deprecated positional form.
    #[arg(hide = true)]
    positional: Vec<String>,
}

/// The test, its arguments checked.
#[derive(Debug)]
struct Test {
    bootstrap: String,
    topic: String,
    records: usize,
    acks: i16,
    value_bytes: usize,
    key_bytes: Option<usize>,
    header_key_bytes: usize,
    /// `None`: null header values.
    header_value_bytes: Option<usize>,
    headers: usize,
    command_config: Option<PathBuf>,
}

pub fn run(args: E2eLatencyArgs) -> ExitCode {
    tool::report_plain(test(args).and_then(execute))
}

/// The named flags, or the positional form with Kafka's warning; then Kafka's checks.
fn test(mut args: E2eLatencyArgs) -> Result<Test, Failure> {
    let failed = |message: &str| Failure::Operation(message.to_owned());
    if !args.positional.is_empty() {
        if !(5..=6).contains(&args.positional.len()) {
            return Err(failed(&format!(
                "Invalid number of arguments. Expected 5 or 6 positional arguments, but got {}. Usage: \
                 bootstrap-server topic num-records producer-acks record-size [optional] command-config",
                args.positional.len()
            )));
        }
        println!(
            "WARNING: Positional argument usage is deprecated and will be removed in Apache Kafka 5.0. Please use \
             named arguments instead: --bootstrap-server, --topic, --num-records, --producer-acks, --record-size"
        );
        let p = std::mem::take(&mut args.positional);
        let number = |text: &str| text.parse::<i64>().map_err(|_| failed(&format!("For input string: \"{text}\"")));
        args.bootstrap_server = Some(p[0].clone());
        args.topic = Some(p[1].clone());
        args.num_records = Some(number(&p[2])?);
        args.producer_acks = Some(p[3].clone());
        args.record_size = Some(number(&p[4])?);
        args.command_config = p.get(5).filter(|c| !c.trim().is_empty()).map(PathBuf::from);
    }
    let required = |name: &str| Failure::Usage(format!("Missing required option(s) [{name}]"));
    let acks = match args.producer_acks.as_deref().ok_or_else(|| required("producer-acks"))? {
        "1" => 1,
        "all" => -1,
        _ => {
            return Err(failed(
                "Invalid value for --producer-acks. Latency testing requires synchronous acknowledgement. Please use \
                 '1' or 'all'.",
            ));
        }
    };
    let size = |value: i64, message: &str| usize::try_from(value).map_err(|_| failed(message));
    let records = args.num_records.ok_or_else(|| required("num-records"))?;
    if records <= 0 {
        return Err(failed("Value for --num-records must be a positive integer."));
    }
    let record_size = args.record_size.ok_or_else(|| required("record-size"))?;
    Ok(Test {
        bootstrap: args.bootstrap_server.ok_or_else(|| required("bootstrap-server"))?,
        topic: args.topic.ok_or_else(|| required("topic"))?,
        records: usize::try_from(records).unwrap_or(usize::MAX),
        acks,
        value_bytes: size(record_size, "Value for --record-size must be a non-negative integer.")?,
        key_bytes: args
            .record_key_size
            .map(|k| size(k, "Value for --record-key-size must be a non-negative integer."))
            .transpose()?,
        header_key_bytes: size(
            args.record_header_key_size,
            "Value for --record-header-key-size must be a non-negative integer.",
        )?,
        header_value_bytes: match args.record_header_size {
            -1 => None,
            n => Some(size(
                n,
                "Value for --record-header-size must be a non-negative integer or -1 for null header value.",
            )?),
        },
        headers: size(args.num_headers, "Value for --num-headers must be a non-negative integer.")?,
        command_config: args.command_config,
    })
}

fn execute(test: Test) -> Result<(), Failure> {
    // Kafka's tool sets these itself for its producer and consumer, whatever the file says.
    let overridden = [
        "group.id",
        "enable.auto.commit",
        "auto.offset.reset",
        "fetch.max.wait.ms",
        "linger.ms",
        "max.block.ms",
        "acks",
    ];
    let (_, config) = crate::client_properties::gather(
        &test.bootstrap,
        test.command_config.as_deref(),
        Default::default(),
        crate::client_properties::Role::Both,
        &overridden,
    )?;
    tool::block_on(async move {
        let admin = tool::admin(config).await?;
        let client = admin.client();
        let topics = admin.list_topics(true).await?;
        if !topics.iter().any(|t| t.name == test.topic) {
            println!(
                "Topic \"{}\" does not exist. Will create topic with 1 partition(s) and replication factor = 1",
                test.topic
            );
            let created = admin.create_topics(&[NewTopic::new(test.topic.clone(), 1, 1)], false).await?;
            if let Some(Err(_)) = created.first() {
                println!("Creation of topic {} failed", test.topic);
            }
        }
        let producer = Producer::new(client, test.acks);
        let consumer = PartitionConsumer::new(client, test.topic.clone(), 0);
        // Kafka's tool draws from `new Random(0)`; Strand's sequence differs, and is as fixed.
        let mut random = rand::rngs::StdRng::seed_from_u64(0);
        let mut latencies_ms: Vec<u64> = Vec::with_capacity(test.records);
        let mut total_ns = 0f64;
        for i in 0..test.records {
            let record = random_record(&mut random, &test);
            let begin = tokio::time::Instant::now();
            let written = producer.send(&test.topic, std::slice::from_ref(&record)).await?;
            let at = written.first().ok_or_else(|| Failure::Operation("the producer answered nothing".into()))?;
            let read = consumer.fetch(at.partition, at.offset, POLL_TIMEOUT_MS).await?;
            let elapsed = begin.elapsed();
            check(&record, read.first())?;
            if i % 1000 == 0 {
                println!("{i}\t{}", java_double(elapsed.as_nanos() as f64 / 1000.0 / 1000.0));
            }
            total_ns += elapsed.as_nanos() as f64;
            latencies_ms.push(u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX));
        }
        println!("Avg latency: {:.4} ms", total_ns / test.records as f64 / 1000.0 / 1000.0);
        latencies_ms.sort_unstable();
        let at = |p: f64| latencies_ms[((latencies_ms.len() as f64 * p) as usize).min(latencies_ms.len() - 1)];
        println!("Percentiles: 50th = {}, 99th = {}, 99.9th = {}", at(0.5), at(0.99), at(0.999));
        Ok(())
    })
}

/// A record of `test`'s sizes: each of its byte strings one random upper-case letter repeated,
/// as Kafka's `randomBytesOfLen`.
fn random_record(random: &mut impl Rng, test: &Test) -> ProducerRecord {
    let mut bytes = |len: usize| vec![b'A' + random.gen_range(0..26u8); len];
    let value = Some(bytes(test.value_bytes));
    let key = test.key_bytes.map(&mut bytes);
    let headers = (0..test.headers)
        .map(|_| {
            let key = crate::tool::java_utf8_lossy(&bytes(test.header_key_bytes)).into_owned();
            (key, test.header_value_bytes.map(&mut bytes))
        })
        .collect();
    ProducerRecord { partition: None, key, value, headers, timestamp_ms: SystemClock.now_ms() }
}

/// Kafka's `validate`: the record read back is the one sent.
fn check(sent: &ProducerRecord, read: Option<&ConsumerRecord>) -> Result<(), Failure> {
    let failed = |message: String| Err(Failure::Operation(message));
    let Some(ConsumerRecord { key, value, headers, .. }) = read else {
        return failed(format!("poll() timed out before finding a result (timeout:[{POLL_TIMEOUT_MS}ms])"));
    };
    let text = |bytes: &Option<Vec<u8>>| {
        bytes.as_deref().map_or("null".into(), |b| crate::tool::java_utf8_lossy(b).into_owned())
    };
    if value != &sent.value {
        return failed(format!(
            "The message value read [{}] did not match the message value sent [{}]",
            text(value),
            text(&sent.value)
        ));
    }
    match (&sent.key, key) {
        (None, Some(read)) => {
            return failed(format!("Expected null message key but received [{}]", text(&Some(read.clone()))));
        }
        (Some(_), None) => return failed("Expected message key but received null".into()),
        (Some(a), Some(b)) if a != b => {
            return failed(format!(
                "The message key read [{}] did not match the message key sent [{}]",
                text(key),
                text(&sent.key)
            ));
        }
        _ => {}
    }
    if !sent.headers.is_empty() && headers.is_empty() {
        return failed("Expected message headers but received none".into());
    }
    if sent.headers.len() != headers.len() {
        return failed("Header count mismatch between sent and received messages".into());
    }
    for ((sent_key, sent_value), (read_key, read_value)) in sent.headers.iter().zip(headers) {
        if sent_key != read_key || sent_value != read_value {
            return failed(format!(
                "The message header read [{read_key}:{}] did not match the message header sent [{sent_key}:{}]",
                text(read_value),
                text(sent_value)
            ));
        }
    }
    Ok(())
}

/// Java's `Double.toString` for the values printed here: an integral value keeps `.0`.
fn java_double(value: f64) -> String {
    if value.is_finite() && value.fract() == 0.0 { format!("{value:.1}") } else { format!("{value}") }
}
