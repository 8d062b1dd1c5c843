//! `strand console-consumer`: Kafka's `kafka-console-consumer.sh` (`ConsoleConsumer` with its
//! `DefaultMessageFormatter`) for assigned partitions: `--partition` with `--offset`
//! (`earliest`, `latest` or a number), or every partition of the topic from its end (or its
//! start with `--from-beginning`). Each record is printed as the formatter prints it (the
//! `print.*` properties, `key.separator`, `line.separator`, `headers.separator`,
//! `null.literal`); at the end "Processed a total of N messages" on stderr, as Kafka does.
//! It stops after `--max-messages`, after `--timeout-ms` without a record, or on Ctrl-C.
//!
//! What it is not (yet): `--group` (consumer groups are not in `strand-client` yet) is refused
//! in one line, and so are `--include`, custom formatters or deserializers, and a consumer
//! property of `--consumer.config` that Strand's client does not honour
//! ([`crate::client_properties`]).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use strand_client::consumer::{ConsumerRecord, EARLIEST, LATEST, PartitionConsumer};
use strand_protocol::records::TimestampType;

use crate::console_producer::key_values;
use crate::tool::{self, Failure};

/// How long one Fetch waits for records.
const FETCH_WAIT_MS: i32 = 500;

const EXAMPLES: &str = "Example:
  strand console-consumer --bootstrap-server localhost:9092 --topic lines --partition 0 --offset earliest \\
      --max-messages 3 --formatter-property print.key=true";

/// The flags of `kafka-console-consumer.sh`.
#[derive(Debug, Args)]
#[command(about = "Print records of a topic (Kafka's kafka-console-consumer.sh).", after_help = EXAMPLES, infer_long_args = true)]
pub struct ConsoleConsumerArgs {
    /// REQUIRED: The server(s) to connect to.
    #[arg(long)]
    bootstrap_server: Option<String>,
    /// The topic to consume on.
    #[arg(long)]
    topic: Option<String>,
    /// The partition to consume from.
    #[arg(long)]
    partition: Option<i32>,
    /// The offset to consume from (a non-negative number), or 'earliest' or 'latest'.
    #[arg(long)]
    offset: Option<String>,
    /// Start with the earliest message present in the log rather than the latest.
    #[arg(long)]
    from_beginning: bool,
    /// The maximum number of messages to consume before exiting.
    #[arg(long)]
    max_messages: Option<u64>,
    /// Exit if no message is available for consumption for the specified interval.
    #[arg(long)]
    timeout_ms: Option<u64>,
    /// Properties for the formatter: print.timestamp, print.key, print.offset, print.partition,
    /// print.headers, print.value, key.separator, line.separator, headers.separator, null.literal.
    #[arg(long, alias = "property")]
    formatter_property: Vec<String>,
    /// Consumer config properties file.
    #[arg(long, alias = "consumer.config")]
    command_config: Option<PathBuf>,
    /// read_committed or read_uncommitted.
    #[arg(long)]
    isolation_level: Option<String>,
    /// The consumer group id (not supported yet).
    #[arg(long)]
    group: Option<String>,
}

/// `DefaultMessageFormatter`'s settings.
struct Formatter {
    timestamp: bool,
    key: bool,
    offset: bool,
    partition: bool,
    headers: bool,
    value: bool,
    key_separator: String,
    line_separator: String,
    headers_separator: String,
    null_literal: String,
}

pub fn run(args: ConsoleConsumerArgs) -> ExitCode {
    tool::report_plain(execute(&args))
}

fn execute(args: &ConsoleConsumerArgs) -> Result<(), Failure> {
    let bootstrap =
        args.bootstrap_server.as_deref().ok_or_else(|| usage("Missing required argument \"[bootstrap-server]\""))?;
    if args.group.is_some() {
        return Err(usage("--group is not supported by this version of Strand's console-consumer; use --partition"));
    }
    let topic = args.topic.as_deref().ok_or_else(|| usage("Exactly one of include/topic is required."))?;
    if args.offset.is_some() && args.partition.is_none() {
        return Err(usage("The partition is required when offset is specified."));
    }
    if args.offset.is_some() && args.from_beginning {
        return Err(usage("Options from-beginning and offset cannot be specified together."));
    }
    // Kafka's tool sets auto.offset.reset itself; `--isolation-level` wins over the file's.
    let (properties, config) = crate::client_properties::gather(
        bootstrap,
        args.command_config.as_deref(),
        Default::default(),
        crate::client_properties::Role::Consumer,
        &["auto.offset.reset", "isolation.level"],
    )?;
    let level = args.isolation_level.as_deref().or(properties.get("isolation.level").map(|l| l.trim()));
    let isolation = match level.unwrap_or("read_uncommitted") {
        "read_uncommitted" => 0,
        "read_committed" => 1,
        other => return Err(usage(&format!("Invalid value {other} for configuration isolation.level"))),
    };
    let formatter = formatter(&key_values(&args.formatter_property)?);
    let start = match (args.offset.as_deref(), args.from_beginning) {
        (Some("earliest"), _) | (None, true) => EARLIEST,
        (Some("latest"), _) | (None, false) => LATEST,
        (Some(number), _) => number
            .parse::<i64>()
            .ok()
            .filter(|n| *n >= 0)
            .ok_or_else(|| usage(&format!("The provided offset value '{number}' is incorrect. Valid values are 'earliest', 'latest', or a non-negative long.")))?,
    };
    let mut processed = 0u64;
    let outcome = tool::block_on(async {
        let client = strand_client::Client::connect(config).await?;
        let consumer = PartitionConsumer::new(&client, topic, isolation);
        let partitions: Vec<i32> = match args.partition {
            Some(partition) => vec![partition],
            None => (0..i32::try_from(consumer.partitions().await?).unwrap_or(i32::MAX)).collect(),
        };
        let mut positions = Vec::new();
        for partition in &partitions {
            let offset = if start >= 0 { start } else { consumer.offset_for(*partition, start).await? };
            positions.push((*partition, offset));
        }
        tokio::select! {
            read = consume(&consumer, &mut positions, &formatter, args, &mut processed) => read,
            _ = tokio::signal::ctrl_c() => Ok(()),
        }
    });
    eprintln!("Processed a total of {processed} messages");
    outcome
}

fn usage(message: &str) -> Failure {
    Failure::Usage(message.to_owned())
}

async fn consume(
    consumer: &PartitionConsumer<'_>,
    positions: &mut [(i32, i64)],
    formatter: &Formatter,
    args: &ConsoleConsumerArgs,
    processed: &mut u64,
) -> Result<(), Failure> {
    use std::io::Write;
    let limit = args.max_messages.unwrap_or(u64::MAX);
    let mut idle_since = tokio::time::Instant::now();
    let mut stdout = std::io::stdout().lock();
    // With a count to reach, a bar to it on a terminal.
    let progress = match args.max_messages {
        Some(count) => crate::tool::Progress::new(count, "messages"),
        None => crate::tool::Progress::hidden(),
    };
    let mut printed = Vec::new();
    while *processed < limit {
        let mut any = false;
        for (partition, offset) in positions.iter_mut() {
            for record in consumer.fetch(*partition, *offset, FETCH_WAIT_MS).await? {
                if *processed >= limit {
                    break;
                }
                *offset = record.offset + 1;
                printed.extend_from_slice(&formatter.format(&record));
                *processed += 1;
                progress.advance(1);
                any = true;
            }
            if !printed.is_empty() {
                progress
                    .suspend(|| stdout.write_all(&printed).and_then(|()| stdout.flush()))
                    .map_err(|e| Failure::Operation(format!("stdout: {e}")))?;
                printed.clear();
            }
        }
        if any {
            idle_since = tokio::time::Instant::now();
        } else if args.timeout_ms.is_some_and(|ms| idle_since.elapsed() >= Duration::from_millis(ms)) {
            return Ok(());
        }
    }
    progress.finish();
    Ok(())
}

fn formatter(properties: &std::collections::BTreeMap<String, String>) -> Formatter {
    let flag =
        |key: &str, default: bool| properties.get(key).map_or(default, |v| v.trim().eq_ignore_ascii_case("true"));
    let text = |key: &str, default: &str| properties.get(key).cloned().unwrap_or_else(|| default.to_owned());
    Formatter {
        timestamp: flag("print.timestamp", false),
        key: flag("print.key", false),
        offset: flag("print.offset", false),
        partition: flag("print.partition", false),
        headers: flag("print.headers", false),
        value: flag("print.value", true),
        key_separator: text("key.separator", "\t"),
        line_separator: text("line.separator", "\n"),
        headers_separator: text("headers.separator", ","),
        null_literal: text("null.literal", "null"),
    }
}

impl Formatter {
    /// One record as `DefaultMessageFormatter.writeTo` writes it.
    fn format(&self, record: &ConsumerRecord) -> Vec<u8> {
        let mut columns: Vec<Vec<u8>> = Vec::new();
        let bytes_or_null = |b: &Option<Vec<u8>>| b.clone().unwrap_or_else(|| self.null_literal.as_bytes().to_vec());
        if self.timestamp {
            let kind = match record.timestamp_type {
                TimestampType::CreateTime => "CreateTime",
                TimestampType::LogAppendTime => "LogAppendTime",
            };
            columns.push(format!("{kind}:{}", record.timestamp_ms).into_bytes());
        }
        if self.partition {
            columns.push(format!("Partition:{}", record.partition).into_bytes());
        }
        if self.offset {
            columns.push(format!("Offset:{}", record.offset).into_bytes());
        }
        if self.headers {
            let headers = if record.headers.is_empty() {
                b"NO_HEADERS".to_vec()
            } else {
                let each: Vec<Vec<u8>> =
                    record.headers.iter().map(|(k, v)| [k.as_bytes(), b":", &bytes_or_null(v)].concat()).collect();
                each.join(self.headers_separator.as_bytes())
            };
            columns.push(headers);
        }
        if self.key {
            columns.push(bytes_or_null(&record.key));
        }
        if self.value {
            columns.push(bytes_or_null(&record.value));
        }
        let mut line = columns.join(self.key_separator.as_bytes());
        line.extend_from_slice(self.line_separator.as_bytes());
        line
    }
}
