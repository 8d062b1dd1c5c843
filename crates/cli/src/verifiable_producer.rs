//! `strand verifiable-producer`: Kafka's `kafka-verifiable-producer.sh` (`VerifiableProducer`),
//! the system-test producer. It writes the integers 0, 1, 2, ... (as text, `--value-prefix`
//! `P` makes them `P.0`, `P.1`, ...) to `--topic` and prints one JSON object a line on stdout:
//! `startup_complete`; per record `producer_send_success` (key, value, offset, topic,
//! partition) or `producer_send_error` (key, value, topic, exception, message); at the end
//! (`--max-messages` sent, or SIGTERM / Ctrl-C) `shutdown_complete` and `tool_data` (sent,
//! acked, target_throughput, avg_throughput). Keys and their order are Kafka 4.4's.
//!
//! Kafka's producer sends each record on its own and batches underneath; this one sends up to
//! [`SEND_RECORDS_MAX`] records (fewer when `--throughput` holds it back) in one
//! [`Producer::send`] and prints their results in order. A failed send fails every record in
//! it; as in Kafka (`retries=0`), nothing is sent again. `--acks` is overridden by `acks` in
//! `--producer.config`, as Kafka's properties file overrides the flag; any other producer property
//! there that Strand's client does not honour (`transactional.id`, `enable.idempotence=true`, a
//! `compression.type`, `linger.ms`, ...) is refused ([`crate::client_properties`]).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use strand_client::producer::{Producer, ProducerRecord};
use strand_client::{Client, ClientConfig};

use crate::client_properties::{self, Role};
use crate::tool::{self, Failure};

/// The most records one Produce carries: a stop (SIGTERM) waits for at most one such send.
const SEND_RECORDS_MAX: usize = 500;

/// The flags of `kafka-verifiable-producer.sh`.
#[derive(Debug, Args)]
#[command(
    about = "Produce increasing integers and print each send's result as JSON (Kafka's kafka-verifiable-producer.sh).",
    after_help = "Example:
  strand verifiable-producer --bootstrap-server localhost:9092 --topic checks --max-messages 1000 --acks -1"
)]
pub struct VerifiableProducerArgs {
    /// The server(s) to connect to.
    #[arg(long, value_name = "HOST1:PORT1[,HOST2:PORT2[...]]")]
    bootstrap_server: String,
    /// Produce messages to this topic.
    #[arg(long, value_name = "TOPIC")]
    topic: String,
    /// Produce this many messages; -1: until the process is stopped.
    #[arg(long, value_name = "MAX-MESSAGES", default_value_t = -1, allow_hyphen_values = true)]
    max_messages: i32,
    /// If >= 0, throttle to approximately THROUGHPUT messages/sec.
    #[arg(long, value_name = "THROUGHPUT", default_value_t = -1, allow_hyphen_values = true)]
    throughput: i32,
    /// Acks required on each produced message (0, 1 or -1).
    #[arg(long, value_name = "ACKS", default_value = "-1", allow_hyphen_values = true, value_parser = ["0", "1", "-1"])]
    acks: String,
    /// Producer config properties file.
    #[arg(long = "producer.config", alias = "command-config", value_name = "CONFIG-FILE")]
    producer_config: Option<PathBuf>,
    /// Send messages with creation time starting at this value, in milliseconds since epoch.
    #[arg(long, value_name = "CREATE-TIME", default_value_t = -1, allow_hyphen_values = true)]
    message_create_time: i64,
    /// Each produced value gets this prefix with a dot separator.
    #[arg(long, value_name = "VALUE-PREFIX", allow_hyphen_values = true)]
    value_prefix: Option<i32>,
    /// Keys go 0, 1, ... up to this number (exclusive), then start at 0 again.
    #[arg(long, value_name = "REPEATING-KEYS", allow_hyphen_values = true)]
    repeating_keys: Option<i32>,
}

pub fn run(args: VerifiableProducerArgs) -> ExitCode {
    tool::report_plain(execute(&args))
}

/// What the tool counted, for `tool_data`.
#[derive(Debug, Default)]
struct Counts {
    sent: u64,
    acked: u64,
}

/// The keys, values and create times of the records, in Kafka's sequence.
#[derive(Debug)]
struct Sequence {
    value_prefix: Option<i32>,
    repeating_keys: Option<i32>,
    key_next: i32,
    /// `--message-create-time` as Kafka advances it: after each record, by the time since start.
    create_time_ms: Option<i64>,
    start_ms: i64,
}

impl Sequence {
    fn record(&mut self, number: u64, now_ms: i64) -> (Option<String>, String, i64) {
        let key = self.repeating_keys.map(|limit| {
            let key = self.key_next;
            self.key_next += 1;
            if self.key_next == limit {
                self.key_next = 0;
            }
            key.to_string()
        });
        let value = match self.value_prefix {
            Some(prefix) => format!("{prefix}.{number}"),
            None => number.to_string(),
        };
        let timestamp_ms = match self.create_time_ms.as_mut() {
            Some(create) => {
                let this = *create;
                *create += now_ms - self.start_ms;
                this
            }
            None => now_ms,
        };
        (key, value, timestamp_ms)
    }
}

fn execute(args: &VerifiableProducerArgs) -> Result<(), Failure> {
    let mut properties = match &args.producer_config {
        Some(path) => ClientConfig::read_properties(path).map_err(|e| Failure::Operation(e.to_string()))?,
        None => Default::default(),
    };
    properties.insert("bootstrap.servers".into(), args.bootstrap_server.clone());
    // Kafka's tool sets retries=0; this producer never resends a failed batch either.
    client_properties::vet(&properties, Role::Producer, &["acks", "retries"])?;
    let acks = match properties.remove("acks").as_deref() {
        None => args.acks.parse().unwrap_or(-1),
        Some("all" | "-1") => -1,
        Some("0") => 0,
        Some("1") => 1,
        Some(other) => {
            let message = format!("Invalid value {other} for configuration acks: String must be one of: all, -1, 0, 1");
            return Err(Failure::Operation(message));
        }
    };
    properties.remove("retries");
    let config = ClientConfig::from_properties(&properties).map_err(|e| Failure::Operation(e.to_string()))?;
    let start_ms = now_ms();
    let mut sequence = Sequence {
        value_prefix: args.value_prefix,
        repeating_keys: args.repeating_keys.filter(|n| *n > 0),
        key_next: 0,
        create_time_ms: (args.message_create_time != -1).then_some(args.message_create_time),
        start_ms,
    };
    let limit = u64::try_from(args.max_messages).unwrap_or(u64::MAX);
    let mut counts = Counts::default();
    let outcome = tool::block_on(async {
        let client = Client::connect(config).await?;
        print_event("startup_complete", "");
        let producer = Producer::new(&client, acks);
        let work = produce(&producer, &args.topic, &mut sequence, limit, args.throughput, &mut counts);
        tokio::select! {
            done = work => done,
            () = stop_signal() => Ok(()),
        }
    });
    print_event("shutdown_complete", "");
    let elapsed_ms = (now_ms() - start_ms).max(1);
    let average = 1000.0 * counts.acked as f64 / elapsed_ms as f64;
    let fields = format!(
        r#","sent":{},"acked":{},"target_throughput":{},"avg_throughput":{}"#,
        counts.sent,
        counts.acked,
        args.throughput,
        serde_json::Value::from(average)
    );
    print_event("tool_data", &fields);
    outcome
}

/// Sends `limit` records, at most `throughput` a second when it is positive (at 0, one). Stops between
/// sends when cancelled (the caller's select drops it there or inside one send).
async fn produce(
    producer: &Producer<'_>,
    topic: &str,
    sequence: &mut Sequence,
    limit: u64,
    throughput: i32,
    counts: &mut Counts,
) -> Result<(), Failure> {
    let started = tokio::time::Instant::now();
    let mut number = 0u64;
    while number < limit {
        let mut room = (limit - number).min(SEND_RECORDS_MAX as u64);
        if throughput == 0 {
            // Kafka's throttler at 0 waits for good once the first record is out: until stopped.
            if number > 0 {
                std::future::pending::<()>().await;
            }
            room = 1;
        }
        if throughput > 0 {
            let due = (started.elapsed().as_secs_f64() * f64::from(throughput)) as u64 + 1;
            if due <= number {
                let next = Duration::from_secs_f64(number as f64 / f64::from(throughput));
                tokio::time::sleep_until(started + next).await;
                continue;
            }
            room = room.min(due - number);
        }
        let now = now_ms();
        let mut shown = Vec::new();
        let mut records = Vec::new();
        for _ in 0..room {
            let (key, value, timestamp_ms) = sequence.record(number, now);
            records.push(ProducerRecord {
                key: key.clone().map(String::into_bytes),
                value: Some(value.clone().into_bytes()),
                timestamp_ms,
                ..ProducerRecord::default()
            });
            shown.push((key, value));
            number += 1;
        }
        counts.sent += room;
        match producer.send(topic, &records).await {
            Ok(placed) => {
                for ((key, value), at) in shown.iter().zip(placed) {
                    counts.acked += 1;
                    let fields = format!(
                        r#","key":{},"value":{},"offset":{},"topic":{},"partition":{}"#,
                        json_text(key.as_deref()),
                        json_text(Some(value)),
                        at.offset,
                        json_text(Some(topic)),
                        at.partition
                    );
                    print_event("producer_send_success", &fields);
                }
            }
            Err(error) => {
                let described = tool::exception(error);
                let (class, message) = described.split_once(": ").unwrap_or(("java.lang.Exception", &described));
                for (key, value) in &shown {
                    let fields = format!(
                        r#","key":{},"value":{},"topic":{},"exception":{},"message":{}"#,
                        json_text(key.as_deref()),
                        json_text(Some(value)),
                        json_text(Some(topic)),
                        json_text(Some(&format!("class {class}"))),
                        json_text(Some(message))
                    );
                    print_event("producer_send_error", &fields);
                }
            }
        }
    }
    Ok(())
}

/// Prints `{"timestamp":...,"name":name<fields>}`: Kafka's events put these two first.
pub fn print_event(name: &str, fields: &str) {
    use std::io::Write;
    let line = format!(r#"{{"timestamp":{},"name":"{name}"{fields}}}"#, now_ms());
    let mut stdout = std::io::stdout().lock();
    // A closed stdout (the reader went away) leaves nothing to report to.
    let _ = writeln!(stdout, "{line}");
    let _ = stdout.flush();
}

/// A JSON string, or `null`.
pub fn json_text(text: Option<&str>) -> String {
    serde_json::Value::from(text).to_string()
}

pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// Resolves at SIGTERM or Ctrl-C, Kafka's shutdown hook's triggers; never, when neither can be
/// listened for.
pub async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    match signal(SignalKind::terminate()) {
        Ok(mut terminate) => {
            tokio::select! {
                _ = terminate.recv() => {}
                () = interrupt => {}
            }
        }
        Err(_) => interrupt.await,
    }
}
