//! `strand console-producer`: Kafka's `kafka-console-producer.sh` (`ConsoleProducer` with its
//! `LineMessageReader`). Each stdin line is a record; with `parse.key` the text before
//! `key.separator` is its key, with `parse.headers` the text before `headers.delimiter` its
//! headers (`k:v` pairs split by `headers.separator`), and `null.marker` stands for a null key,
//! value or header value. Lines are sent in batches of [`LINES_PER_SEND_MAX`] (or at once with
//! `--sync`), with `--request-required-acks` (else `acks` of the properties; Kafka's default:
//! all).
//!
//! What it is not (yet): no idempotence, compression or linger (`--compression-codec`,
//! `--batch-size`, `--timeout` are refused), and a producer property of `--producer-property`
//! or `--command-config` that Strand's client does not honour is refused
//! ([`crate::client_properties`]).

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use strand_base::{Clock, SystemClock};
use strand_client::producer::{Producer, ProducerRecord};

use crate::tool::{self, Failure};

/// The most lines read before they are sent.
const LINES_PER_SEND_MAX: usize = 500;

const EXAMPLES: &str = "Example:
  printf 'a:one\\nb:two\\n' | strand console-producer --bootstrap-server localhost:9092 --topic lines \\
      --reader-property parse.key=true --reader-property key.separator=:";

/// The flags of `kafka-console-producer.sh`.
#[derive(Debug, Args)]
#[command(about = "Read lines from stdin and produce them (Kafka's kafka-console-producer.sh).", after_help = EXAMPLES, infer_long_args = true)]
pub struct ConsoleProducerArgs {
    /// REQUIRED: The server(s) to connect to.
    #[arg(long)]
    bootstrap_server: Option<String>,
    /// REQUIRED: The topic id to produce messages to.
    #[arg(long)]
    topic: Option<String>,
    /// Producer config properties file.
    #[arg(long, alias = "producer.config")]
    command_config: Option<PathBuf>,
    /// A mechanism to pass properties in the form key=value to the producer.
    #[arg(long)]
    producer_property: Vec<String>,
    /// Properties for the line reader: parse.key, key.separator, parse.headers, headers.delimiter,
    /// headers.separator, headers.key.separator, null.marker, ignore.error.
    #[arg(long, alias = "property")]
    reader_property: Vec<String>,
    /// The required acks of the producer requests (-1, 0 or 1).
    #[arg(long, allow_hyphen_values = true)]
    request_required_acks: Option<String>,
    /// If set message send requests to the brokers are synchronously, one at a time as they arrive.
    #[arg(long)]
    sync: bool,
}

/// `LineMessageReader`'s settings.
struct Reader {
    parse_key: bool,
    key_separator: String,
    parse_headers: bool,
    headers_delimiter: String,
    headers_separator: String,
    headers_key_separator: String,
    null_marker: Option<String>,
    ignore_error: bool,
}

pub fn run(args: ConsoleProducerArgs) -> ExitCode {
    tool::report_plain(execute(&args))
}

fn execute(args: &ConsoleProducerArgs) -> Result<(), Failure> {
    let bootstrap =
        args.bootstrap_server.as_deref().ok_or_else(|| usage("Missing required argument \"[bootstrap-server]\""))?;
    let topic = args.topic.as_deref().ok_or_else(|| usage("Missing required argument \"[topic]\""))?;
    let reader = reader(&key_values(&args.reader_property)?)?;
    let overrides = key_values(&args.producer_property)?;
    // Kafka's tool: `--request-required-acks` when given, else `acks` of the properties, else all.
    let (properties, config) = crate::client_properties::gather(
        bootstrap,
        args.command_config.as_deref(),
        overrides,
        crate::client_properties::Role::Producer,
        &["acks"],
    )?;
    let acks_text = args.request_required_acks.as_deref().or(properties.get("acks").map(|a| a.trim())).unwrap_or("-1");
    let acks: i16 = match acks_text {
        "all" => -1,
        other => other.parse().ok().filter(|a| [-1, 0, 1].contains(a)).ok_or_else(|| {
            Failure::Operation(format!(
                "Invalid value {other} for configuration acks: String must be one of: all, -1, 0, 1"
            ))
        })?,
    };
    let per_send = if args.sync { 1 } else { LINES_PER_SEND_MAX };
    tool::block_on(async {
        let client = strand_client::Client::connect(config).await?;
        let producer = Producer::new(&client, acks);
        let stdin = std::io::stdin();
        let mut pending = Vec::new();
        for (number, line) in stdin.lock().lines().enumerate() {
            let line = line.map_err(|e| Failure::Operation(format!("stdin: {e}")))?;
            pending.push(record(&reader, &line, number + 1)?);
            if pending.len() >= per_send {
                producer.send(topic, &std::mem::take(&mut pending)).await?;
            }
        }
        if !pending.is_empty() {
            producer.send(topic, &pending).await?;
        }
        Ok(())
    })
}

fn usage(message: &str) -> Failure {
    Failure::Usage(message.to_owned())
}

/// `key=value` flags into a map (the last of a key wins).
pub fn key_values(pairs: &[String]) -> Result<BTreeMap<String, String>, Failure> {
    pairs
        .iter()
        .map(|pair| {
            pair.split_once('=')
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .ok_or_else(|| usage(&format!("Invalid property: '{pair}': properties must be key=value")))
        })
        .collect()
}

fn reader(properties: &BTreeMap<String, String>) -> Result<Reader, Failure> {
    let text = |key: &str, default: &str| properties.get(key).cloned().unwrap_or_else(|| default.to_owned());
    let flag = |key: &str| properties.get(key).is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    let reader = Reader {
        parse_key: flag("parse.key"),
        key_separator: text("key.separator", "\t"),
        parse_headers: flag("parse.headers"),
        headers_delimiter: text("headers.delimiter", "\t"),
        headers_separator: text("headers.separator", ","),
        headers_key_separator: text("headers.key.separator", ":"),
        null_marker: properties.get("null.marker").cloned(),
        ignore_error: flag("ignore.error"),
    };
    if reader.null_marker.as_deref().is_some_and(|marker| marker.is_empty()) {
        return Err(usage("null.marker must not be empty"));
    }
    Ok(reader)
}

/// One line as `LineMessageReader` reads it.
fn record(reader: &Reader, line: &str, number: usize) -> Result<ProducerRecord, Failure> {
    let null = |text: &str| (reader.null_marker.as_deref() != Some(text)).then(|| text.as_bytes().to_vec());
    let mut rest = line;
    let mut headers = Vec::new();
    if reader.parse_headers {
        match rest.split_once(reader.headers_delimiter.as_str()) {
            Some((raw, after)) => {
                rest = after;
                for header in raw.split(reader.headers_separator.as_str()).filter(|h| !h.is_empty()) {
                    let (key, value) = match header.split_once(reader.headers_key_separator.as_str()) {
                        Some((key, value)) => (key, null(value)),
                        None => (header, None),
                    };
                    headers.push((key.to_owned(), value));
                }
            }
            None if reader.ignore_error => {}
            None => {
                return Err(Failure::Operation(format!(
                    "No headers delimiter found on line number {number}: '{line}'"
                )));
            }
        }
    }
    let (key, value) = if reader.parse_key {
        match rest.split_once(reader.key_separator.as_str()) {
            Some((key, value)) => (null(key), null(value)),
            None if reader.ignore_error => (None, null(rest)),
            None => {
                return Err(Failure::Operation(format!("No key separator found on line number {number}: '{line}'")));
            }
        }
    } else {
        (None, null(rest))
    };
    Ok(ProducerRecord { partition: None, key, value, headers, timestamp_ms: SystemClock.now_ms() })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines become records as Kafka's `LineMessageReader` makes them.
    #[test]
    fn lines_are_read_as_kafka_s_line_reader_reads_them() {
        let properties: BTreeMap<String, String> = [
            ("parse.key", "true"),
            ("key.separator", ":"),
            ("parse.headers", "true"),
            ("headers.delimiter", "|"),
            ("null.marker", "NULL"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let reader = reader(&properties).map_err(|e| format!("{e:?}")).expect("reader");
        let read = record(&reader, "h1:v1,h2:NULL,h3|k:value:more", 1).map_err(|e| format!("{e:?}")).expect("a record");
        assert_eq!(read.key.as_deref(), Some(&b"k"[..]));
        assert_eq!(read.value.as_deref(), Some(&b"value:more"[..]));
        let headers = [("h1".to_owned(), Some(b"v1".to_vec())), ("h2".to_owned(), None), ("h3".to_owned(), None)];
        assert_eq!(read.headers, headers);
        let null_key = record(&reader, "|NULL:v", 1).map_err(|e| format!("{e:?}")).expect("a record");
        assert_eq!((null_key.key, null_key.value.as_deref()), (None, Some(&b"v"[..])));
        let Err(Failure::Operation(message)) = record(&reader, "|novalue", 7) else { panic!("read") };
        assert_eq!(message, "No key separator found on line number 7: '|novalue'");
    }
}
