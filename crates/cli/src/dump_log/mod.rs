//! `strand dump-log`: Kafka's `kafka-dump-log.sh` (`DumpLogSegments`, 4.4): each file of
//! `--files` dumped by its suffix, byte for byte as Kafka's tool prints it.
//!
//! - This file: the flags, the dispatch by suffix, and `.log` segments: a line per batch, and
//!   with `--deep-iteration` (or `--print-data-log`) a line per record, keys and values decoded
//!   as UTF-8 strings (Kafka's `StringDecoder`), `--skip-record-metadata`, `--max-bytes`;
//!   offsets that do not follow each other reported on stderr at the end, as Kafka does.
//! - [`kraft`]: the KRaft control records of the metadata log (LeaderChange, KRaftVersion,
//!   KRaftVoters) as the JSON Kafka's tool prints.
//! - [`coordinator`]: `--offsets-decoder`, `--transaction-log-decoder` and
//!   `--share-group-state-decoder`, the coordinators' records as Kafka's
//!   `CoordinatorRecordMessageParser` prints them; [`group_values`] the group coordinator's values.
//! - [`metadata`]: `--cluster-metadata-decoder`, `__cluster_metadata` records as JSON.
//! - [`json`]: the JSON of Kafka's generated converters, written field by field.
//! - [`indexes`]: `.index` and `.timeindex` (checked against their `.log`, `--verify-index-only`,
//!   `--index-sanity-check`), `.txnindex` and producer `.snapshot` files.
//!
//! The files are read through the `log` crate's formats (`strand-protocol`'s batch views, the
//! producer snapshot decoder), never opened for writing. Segments are read batch by batch, each
//! batch at most [`BATCH_BYTES_MAX`].
//!
//! What it is not (yet): `--remote-log-metadata-decoder`, decoder classes
//! other than `StringDecoder`, and KRaft snapshots (`.checkpoint`): each is refused with one line
//! naming it.

mod coordinator;
mod group_values;
mod indexes;
mod json;
mod kraft;
mod metadata;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bytes::Bytes;
use clap::Args;
use strand_protocol::records::{ControlRecordType, Record, RecordBatch, TimestampType};

use self::coordinator::CoordinatorDecoder;
use crate::tool::{self, Failure};

/// The largest batch read from a segment (Kafka's brokers take at most `message.max.bytes`,
/// 1 MiB by default, and a topic may raise it; a length past this is read as corruption).
pub const BATCH_BYTES_MAX: usize = 256 * 1024 * 1024;
/// Kafka's `StringDecoder`, the only decoder class supported.
const STRING_DECODERS: [&str; 2] = ["org.apache.kafka.tools.api.StringDecoder", "kafka.serializer.StringDecoder"];

const EXAMPLES: &str = "Example:
  strand dump-log --files data/orders-0/00000000000000000000.log --print-data-log";

/// The flags of `kafka-dump-log.sh`.
#[derive(Debug, Args)]
#[command(
    about = "Dump log segments, indexes and snapshots (Kafka's kafka-dump-log.sh).",
    after_help = EXAMPLES,
    infer_long_args = true
)]
pub struct DumpLogArgs {
    /// REQUIRED: The comma separated list of data and index log files to be dumped.
    #[arg(long, value_name = "file1, file2, ...")]
    files: Option<String>,
    /// If set, printing the messages content when dumping data logs.
    #[arg(long)]
    print_data_log: bool,
    /// If set, just verify the index log without printing its content.
    #[arg(long)]
    verify_index_only: bool,
    /// If set, just checks the index sanity without printing its content.
    #[arg(long)]
    index_sanity_check: bool,
    /// Size of largest message.
    #[arg(long, value_name = "size", default_value_t = 5 * 1024 * 1024)]
    max_message_size: i32,
    /// Limit the amount of total batches read in bytes avoiding reading the whole .log file(s).
    #[arg(long, value_name = "size", default_value_t = i32::MAX)]
    max_bytes: i32,
    /// If set, uses deep instead of shallow iteration.
    #[arg(long)]
    deep_iteration: bool,
    /// The class deserializing values (only Kafka's StringDecoder).
    #[arg(long, num_args = 0..=1, default_missing_value = STRING_DECODERS[0])]
    value_decoder_class: Option<String>,
    /// The class deserializing keys (only Kafka's StringDecoder).
    #[arg(long, num_args = 0..=1, default_missing_value = STRING_DECODERS[0])]
    key_decoder_class: Option<String>,
    /// If set, log data will be parsed as offset data from the __consumer_offsets topic.
    #[arg(long)]
    offsets_decoder: bool,
    /// If set, log data will be parsed as transaction metadata from the __transaction_state topic.
    #[arg(long)]
    transaction_log_decoder: bool,
    /// If set, log data will be parsed as cluster metadata records.
    #[arg(long)]
    cluster_metadata_decoder: bool,
    /// Parse log data as remote log metadata records (not supported by this version of Strand).
    #[arg(long)]
    remote_log_metadata_decoder: bool,
    /// If set, log data will be parsed as share group state data from the __share_group_state topic.
    #[arg(long)]
    share_group_state_decoder: bool,
    /// Whether to skip printing metadata for each record.
    #[arg(long)]
    skip_record_metadata: bool,
}

/// How `.log` files are printed.
#[derive(Debug, Clone, Copy)]
struct LogOptions {
    print_contents: bool,
    /// Keys and values read as a coordinator's records instead of as strings.
    coordinator: Option<CoordinatorDecoder>,
    /// Values read as `__cluster_metadata` records (when no coordinator decoder is set).
    cluster_metadata: bool,
    deep: bool,
    skip_record_metadata: bool,
    max_bytes: u64,
}

/// What Kafka's tool reports on stderr once every file is dumped.
#[derive(Debug, Default)]
pub struct Findings {
    /// Per index file: (index offset, log offset) where they differ, most recent first.
    index_mismatches: BTreeMap<PathBuf, Vec<(i64, i64)>>,
    /// Per segment: (offset, the next one) where they do not follow each other, most recent first.
    non_consecutive: BTreeMap<PathBuf, Vec<(i64, i64)>>,
    time_index: indexes::TimeIndexFindings,
}

pub fn run(args: DumpLogArgs) -> ExitCode {
    tool::report_plain(execute(&args))
}

fn execute(args: &DumpLogArgs) -> Result<(), Failure> {
    let Some(files) = &args.files else {
        return Err(Failure::Usage("Missing required argument \"[files]\"".into()));
    };
    let decoders = [("remote-log-metadata-decoder", args.remote_log_metadata_decoder)];
    if let Some((name, _)) = decoders.iter().find(|(_, on)| *on) {
        return Err(Failure::Operation(format!("--{name} is not supported by this version of Strand")));
    }
    for class in [&args.key_decoder_class, &args.value_decoder_class].into_iter().flatten() {
        if !STRING_DECODERS.contains(&class.as_str()) {
            return Err(Failure::Operation(format!(
                "Decoder class {class} is not supported by this version of Strand"
            )));
        }
    }
    // Kafka's tool picks the first decoder set in this order, and any of them prints contents.
    let coordinator = if args.offsets_decoder {
        Some(CoordinatorDecoder::Offsets)
    } else if args.transaction_log_decoder {
        Some(CoordinatorDecoder::TransactionLog)
    } else if args.share_group_state_decoder && !args.cluster_metadata_decoder {
        Some(CoordinatorDecoder::ShareGroupState)
    } else {
        None
    };
    let print_contents = args.print_data_log
        || coordinator.is_some()
        || args.cluster_metadata_decoder
        || args.key_decoder_class.is_some()
        || args.value_decoder_class.is_some();
    let options = LogOptions {
        print_contents,
        coordinator,
        cluster_metadata: args.cluster_metadata_decoder,
        deep: args.deep_iteration || print_contents,
        skip_record_metadata: args.skip_record_metadata,
        max_bytes: u64::try_from(args.max_bytes).unwrap_or(0),
    };
    let mut findings = Findings::default();
    for name in files.split(',') {
        let path = Path::new(name);
        println!("Dumping {}", path.display());
        let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let suffix = file_name.rfind('.').map_or("", |at| &file_name[at..]);
        let outcome = match suffix {
            ".log" => dump_log(path, &file_name, options, &mut findings),
            ".checkpoint" => Err(format!("{name}: KRaft snapshots are not supported by this version of Strand")),
            ".index" => indexes::dump_index(path, args, &mut findings),
            ".timeindex" => indexes::dump_time_index(path, args, &mut findings),
            ".snapshot" => indexes::dump_producer_snapshot(path),
            ".txnindex" => indexes::dump_txn_index(path),
            _ => {
                eprintln!("Ignoring unknown file {}", path.display());
                Ok(())
            }
        };
        outcome.map_err(Failure::Operation)?;
    }
    findings.report();
    Ok(())
}

impl Findings {
    /// Prints what was found on stderr, as Kafka's tool does at its end.
    fn report(&self) {
        for (file, mismatches) in &self.index_mismatches {
            eprintln!("Mismatches in :{}", file.display());
            for (index_offset, log_offset) in mismatches {
                eprintln!("  Index offset: {index_offset}, log offset: {log_offset}");
            }
        }
        self.time_index.report();
        for (file, pairs) in &self.non_consecutive {
            eprintln!("Non-consecutive offsets in {}", file.display());
            for (first, second) in pairs {
                eprintln!("  {first} is followed by {second}");
            }
        }
    }
}

/// The base offset a segment file's name carries (`00000000000000000042.log`: 42).
fn base_offset(path: &Path) -> Result<i64, String> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = name.split('.').next().unwrap_or_default();
    stem.parse::<i64>().map_err(|_| format!("For input string: \"{stem}\""))
}

/// The batches of a segment read in order from its start, stopping where the bytes left cannot
/// hold the next batch (Kafka's `FileLogInputStream`), within `limit` bytes.
pub struct Batches {
    reader: BufReader<File>,
    path: PathBuf,
    position: u64,
    end: u64,
}

impl Batches {
    pub fn open(path: &Path, start: u64, limit: u64) -> Result<Batches, String> {
        let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let size = file.metadata().map_err(|e| format!("{}: {e}", path.display()))?.len();
        let end = size.min(start.saturating_add(limit));
        let mut reader = BufReader::new(file);
        std::io::Seek::seek(&mut reader, std::io::SeekFrom::Start(start.min(size)))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Batches { reader, path: path.to_owned(), position: start.min(size), end })
    }

    /// The next batch and its position, `None` at the end (or a truncated batch).
    pub fn next_batch(&mut self) -> Result<Option<(u64, RecordBatch)>, String> {
        const HEADER_UP_TO_MAGIC: u64 = 17;
        if self.end.saturating_sub(self.position) < HEADER_UP_TO_MAGIC {
            return Ok(None);
        }
        let mut header = [0u8; 12];
        self.read(&mut header)?;
        let length = i32::from_be_bytes([header[8], header[9], header[10], header[11]]);
        if length < 14 {
            return Err(format!(
                "Found record size {length} smaller than minimum record overhead (14) in file {}.",
                self.path.display()
            ));
        }
        let length = usize::try_from(length).unwrap_or(usize::MAX);
        if self.position + 12 + length as u64 > self.end || length > BATCH_BYTES_MAX {
            return Ok(None);
        }
        let mut bytes = vec![0u8; 12 + length];
        bytes[..12].copy_from_slice(&header);
        self.read(&mut bytes[12..])?;
        let position = self.position;
        self.position += bytes.len() as u64;
        let batch = RecordBatch::parse(Bytes::from(bytes))
            .map_err(|e| format!("{}: the batch at position {position}: {e}", self.path.display()))?;
        Ok(Some((position, batch)))
    }

    fn read(&mut self, into: &mut [u8]) -> Result<(), String> {
        self.reader.read_exact(into).map_err(|e| format!("{}: {e}", self.path.display()))
    }

    /// The bytes of the file the batches may come from.
    pub fn end(&self) -> u64 {
        self.end
    }
}

/// Kafka's `dumpLog` for a `.log` segment.
fn dump_log(path: &Path, file_name: &str, options: LogOptions, findings: &mut Findings) -> Result<(), String> {
    println!("Log starting offset: {}", base_offset(path)?);
    let mut batches = Batches::open(path, 0, options.max_bytes)?;
    // On a terminal, a bar through the segment's bytes; each batch's lines printed above it at once.
    let progress = crate::tool::Progress::new(batches.end(), "bytes");
    let mut lines = String::new();
    let mut valid_bytes = 0u64;
    let mut last_offset = -1i64;
    while let Some((_, batch)) = batches.next_batch()? {
        let described = batch_lines(path, &batch, valid_bytes, options, (&mut last_offset, findings), &mut lines);
        valid_bytes += batch.size_in_bytes() as u64;
        progress.set(valid_bytes);
        // What was described prints even when a record fails, as Kafka's tool printed it.
        progress.suspend(|| print!("{lines}"));
        lines.clear();
        described?;
    }
    progress.finish();
    let trailing = batches.end().saturating_sub(valid_bytes);
    if trailing > 0 && options.max_bytes == u64::try_from(i32::MAX).unwrap_or(0) {
        println!("Found {trailing} invalid bytes at the end of {file_name}");
    }
    Ok(())
}

/// Appends `batch`'s line (at `position`) and, when deep, each record's to `lines`, noting
/// offsets that do not follow the `last` one in `findings`.
fn batch_lines(
    path: &Path,
    batch: &RecordBatch,
    position: u64,
    options: LogOptions,
    (last_offset, findings): (&mut i64, &mut Findings),
    lines: &mut String,
) -> Result<(), String> {
    lines.push_str(&batch_line(batch, position));
    lines.push('\n');
    if !options.deep {
        return Ok(());
    }
    let records = batch.records().map_err(|e| format!("{}: {e}", path.display()))?;
    for record in &records {
        let record = record.map_err(|e| format!("{}: {e}", path.display()))?;
        let offset = batch.record_offset(&record);
        // Kafka 4.4 compares the first record with -1 too: a segment not at 0 reports it.
        if offset != *last_offset + 1 {
            let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
            findings.non_consecutive.entry(absolute).or_default().insert(0, (*last_offset, offset));
        }
        *last_offset = offset;
        lines.push_str(&record_line(batch, &record, options)?);
        lines.push('\n');
    }
    Ok(())
}

/// Kafka's `printBatchLevel` for a magic-2 batch.
fn batch_line(batch: &RecordBatch, position: u64) -> String {
    let attributes = batch.attributes();
    let horizon = match batch.delete_horizon_ms() {
        Some(ms) => format!("OptionalLong[{ms}]"),
        None => "OptionalLong.empty".to_owned(),
    };
    let codec = attributes.compression().map_or("unknown", |c| c.name());
    format!(
        "baseOffset: {} lastOffset: {} count: {} baseSequence: {} lastSequence: {} producerId: {} producerEpoch: {} \
         partitionLeaderEpoch: {} isTransactional: {} isControl: {} deleteHorizonMs: {horizon} position: {position} \
         {}: {} size: {} magic: {} compresscodec: {codec} crc: {} isvalid: {}",
        batch.base_offset(),
        batch.last_offset(),
        batch.record_count(),
        batch.base_sequence(),
        batch.last_sequence(),
        batch.producer_id().0,
        batch.producer_epoch(),
        batch.partition_leader_epoch(),
        attributes.is_transactional(),
        attributes.is_control(),
        timestamp_type(attributes.timestamp_type()),
        batch.max_timestamp(),
        batch.size_in_bytes(),
        batch.magic(),
        batch.crc(),
        batch.crc_is_valid(),
    )
}

fn timestamp_type(timestamp_type: TimestampType) -> &'static str {
    match timestamp_type {
        TimestampType::CreateTime => "CreateTime",
        TimestampType::LogAppendTime => "LogAppendTime",
    }
}

/// One record's line: its metadata unless skipped, what a control record says, and with
/// `print_contents` its key and value as strings.
fn record_line(batch: &RecordBatch, record: &Record<'_>, options: LogOptions) -> Result<String, String> {
    let mut line = String::new();
    let mut prefix = "| ";
    if !options.skip_record_metadata {
        let size = |bytes: Option<&[u8]>| bytes.map_or(-1, |b| i64::try_from(b.len()).unwrap_or(i64::MAX));
        let sequence = match batch.base_sequence() {
            -1 => -1,
            base => increment_sequence(base, record.offset_delta()),
        };
        let header_keys: Vec<String> =
            record.headers().map(|h| crate::tool::java_utf8_lossy(h.key_bytes()).into_owned()).collect();
        line += &format!(
            "{prefix}offset: {} {}: {} keySize: {} valueSize: {} sequence: {sequence} headerKeys: [{}]",
            batch.record_offset(record),
            timestamp_type(batch.attributes().timestamp_type()),
            batch.record_timestamp(record),
            size(record.key()),
            size(record.value()),
            header_keys.join(",")
        );
        prefix = " ";
        if batch.attributes().is_control() {
            line += &control_text(record);
        }
    }
    if options.print_contents && !batch.attributes().is_control() {
        let parsed = match options.coordinator {
            Some(decoder) => coordinator::parse(decoder, record, batch.record_offset(record))?,
            None if options.cluster_metadata => coordinator::Parsed {
                key: None,
                payload: Some(metadata::payload(record.value(), batch.record_offset(record))),
            },
            None => coordinator::Parsed {
                key: record.key().map(|k| crate::tool::java_utf8_lossy(k).into_owned()),
                payload: record.value().map(|v| crate::tool::java_utf8_lossy(v).into_owned()),
            },
        };
        if let Some(key) = parsed.key {
            line += &format!("{prefix}key: {key}");
            prefix = " ";
        }
        if let Some(payload) = parsed.payload {
            line += &format!("{prefix}payload: {payload}");
        }
    }
    Ok(line)
}

/// What Kafka's tool prints of a control record: a transaction marker's result and epoch, or
/// the control type's name and id.
fn control_text(record: &Record<'_>) -> String {
    let key = record.key().unwrap_or_default();
    let id = if key.len() >= 4 { i16::from_be_bytes([key[2], key[3]]) } else { -1 };
    let name = match ControlRecordType::from_id(id) {
        ControlRecordType::Abort => "ABORT",
        ControlRecordType::Commit => "COMMIT",
        ControlRecordType::LeaderChange => "LEADER_CHANGE",
        ControlRecordType::SnapshotHeader => "SNAPSHOT_HEADER",
        ControlRecordType::SnapshotFooter => "SNAPSHOT_FOOTER",
        ControlRecordType::KraftVersion => "KRAFT_VERSION",
        ControlRecordType::KraftVoters => "KRAFT_VOTERS",
        ControlRecordType::Unknown(_) => "UNKNOWN",
    };
    let value = record.value().unwrap_or_default();
    match id {
        0 | 1 if value.len() >= 6 => {
            let epoch = i32::from_be_bytes([value[2], value[3], value[4], value[5]]);
            format!(" endTxnMarker: {name} coordinatorEpoch: {epoch}")
        }
        2 => kraft::leader_change(value)
            .map_or_else(|| format!(" controlType: {name}({id})"), |j| format!(" LeaderChange: {j}")),
        5 => kraft::kraft_version(value)
            .map_or_else(|| format!(" controlType: {name}({id})"), |j| format!(" KRaftVersion {j}")),
        6 => {
            kraft::voters(value).map_or_else(|| format!(" controlType: {name}({id})"), |j| format!(" KRaftVoters {j}"))
        }
        _ => format!(" controlType: {name}({id})"),
    }
}

/// Kafka's `DefaultRecordBatch.incrementSequence`: sequences wrap to 0 past `i32::MAX`.
fn increment_sequence(sequence: i32, increment: i32) -> i32 {
    if sequence > i32::MAX - increment { increment - (i32::MAX - sequence) - 1 } else { sequence + increment }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sequences wrap as Kafka's do.
    #[test]
    fn sequences_wrap_at_the_top() {
        assert_eq!(increment_sequence(5, 3), 8);
        assert_eq!(increment_sequence(i32::MAX, 1), 0);
        assert_eq!(increment_sequence(i32::MAX - 1, 3), 1);
    }
}
