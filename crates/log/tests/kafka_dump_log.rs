//! Apache Kafka's own `DumpLogSegments` reads Strand's segments: every batch and record, in all
//! five codecs, comes back with the offsets, timestamps, keys, values, headers, producer ids and
//! epochs we appended, and Kafka's index verification finds no mismatch between the `.index` and
//! `.timeindex` entries and the `.log` they point into.
//!
//! Kafka is the oracle here, so this test runs Java: the Kafka 4.4.0 jars must be in
//! `$STRAND_KAFKA_LIBS` (default `<workspace>/target/kafka-libs`), put there by
//! `compat/kafka/fetch-jars.sh`. Without them the test fails and says so; it never skips.

#[path = "../../../tools/testing/kafka_jars.rs"]
mod kafka_jars;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use bytes::BytesMut;
use kafka_jars::{kafka_libs, workspace_root};
use strand_base::{ProducerId, SystemClock};
use strand_log::log::{LogCheckpoints, ValidatedBatch};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{Log, LogConfig};
use strand_protocol::records::{Compression, Header, NewRecord, RecordBatchBuilder};

/// The tool's class (in `kafka-tools`; Kafka 4 moved it from `kafka.tools` in the core jar).
const DUMP_LOG_SEGMENTS: &str = "org.apache.kafka.tools.DumpLogSegments";

/// Jars that must be in the libs directory: the core jar `fetch-jars.sh` checks for, and the
/// tools jar that holds the class.
const REQUIRED_JARS: [&str; 2] = ["kafka_2.13-", "kafka-tools-"];

/// What DumpLogSegments prints when it finds a problem (see its `dumpIndex`, `dumpTimeIndex`,
/// `dumpLog` and `printTrailingBytes`), or when it fails.
const PROBLEMS: [&str; 9] = [
    "Mismatches in",
    "out of order",
    "not found in the log",
    "Exception",
    "corrupt",
    "Found timestamp mismatch",
    "invalid bytes at the end",
    "isvalid: false",
    "Error at offset",
];

const BATCH_COUNT: usize = 300;
const CODECS: [Compression; 5] =
    [Compression::None, Compression::Gzip, Compression::Snappy, Compression::Lz4, Compression::Zstd];

/// One record as DumpLogSegments should print it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ExpectedRecord {
    offset: i64,
    timestamp: i64,
    key: Option<String>,
    value: Option<String>,
    header_keys: Vec<String>,
    sequence: i32,
}

/// One batch as DumpLogSegments should print it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ExpectedBatch {
    base_offset: i64,
    last_offset: i64,
    producer_id: i64,
    leader_epoch: i32,
    codec: &'static str,
}

/// What was appended, in order.
#[derive(Debug, Default)]
struct Appended {
    batches: Vec<ExpectedBatch>,
    records: Vec<ExpectedRecord>,
}

/// One segment's files.
#[derive(Debug)]
struct SegmentFiles {
    base_offset: i64,
    log: PathBuf,
    index: PathBuf,
    time_index: PathBuf,
}

/// One segment holding every batch, an index entry every 128 bytes: Kafka reads every record
/// back and verifies each of the many index entries.
#[test]
fn one_segment_with_many_index_entries_passes_kafka_dump_log_segments() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = LogConfig { index_interval_bytes: 128, segment_bytes: 64 * 1024 * 1024, ..LogConfig::default() };
    let appended = write_log(dir.path(), config);
    let segments = segment_files(dir.path());
    assert_eq!(segments.len(), 1, "expected a single segment");
    check(&segments, &appended);
}

/// A log rolled into several segments: Kafka reads each one, each from its own base offset, and
/// verifies the indexes of the closed segments and the active one alike.
#[test]
fn rolled_segments_pass_kafka_dump_log_segments() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = LogConfig { index_interval_bytes: 128, segment_bytes: 8 * 1024, ..LogConfig::default() };
    let appended = write_log(dir.path(), config);
    let segments = segment_files(dir.path());
    assert!(segments.len() >= 4, "expected several segments, got {}", segments.len());
    check(&segments, &appended);
}

/// Appends [`BATCH_COUNT`] batches to a new log in `dir` and closes it cleanly.
fn write_log(dir: &Path, config: LogConfig) -> Appended {
    let mut log = Log::open(dir, config, LogCheckpoints::default(), Arc::new(SystemClock)).expect("open log");
    let mut appended = Appended::default();
    let mut sequences: BTreeMap<i64, i32> = BTreeMap::new();
    for n in 0..BATCH_COUNT {
        append_batch(&mut log, n, &mut sequences, &mut appended);
    }
    log.close().expect("clean close");
    assert_eq!(log.log_end_offset(), appended.records.len() as i64);
    appended
}

/// Builds batch `n` (its codec, records, timestamps and producer all derived from `n`), appends
/// it and records what Kafka should print for it.
fn append_batch(log: &mut Log, n: usize, sequences: &mut BTreeMap<i64, i32>, appended: &mut Appended) {
    let codec = CODECS[n % CODECS.len()];
    let record_count = 1 + (n * 7) % 6;
    // Every fourth batch comes from one of three idempotent producers.
    let producer = (n % 4 == 3).then(|| 1_000 + (n % 3) as i64);
    let base_sequence = producer.map(|id| *sequences.entry(id).or_insert(0));
    let leader_epoch = (n * 3 / BATCH_COUNT) as i32;

    let contents: Vec<RecordContents> = (0..record_count).map(|i| RecordContents::new(n, i)).collect();
    let mut builder = RecordBatchBuilder::new().compression(codec);
    if let (Some(id), Some(sequence)) = (producer, base_sequence) {
        builder = builder.producer(ProducerId(id), 0, sequence);
        sequences.insert(id, sequence + record_count as i32);
    }
    for record in &contents {
        let headers: Vec<Header<'_>> = record.headers.iter().map(|(k, v)| Header { key: k, value: Some(v) }).collect();
        let new_record = NewRecord {
            timestamp_ms: record.timestamp,
            key: record.key.as_deref().map(str::as_bytes),
            value: record.value.as_deref().map(str::as_bytes),
            headers: &headers,
        };
        builder.append(&new_record).expect("append record");
    }
    let bytes = builder.build().expect("build batch");
    let batch = ValidatedBatch::validate(BytesMut::from(&bytes[..])).expect("valid batch");
    let info = log
        .append_as_leader(batch, leader_epoch, AppendContext::client(VerificationGuard::SENTINEL))
        .expect("append batch");

    appended.batches.push(ExpectedBatch {
        base_offset: info.first_offset,
        last_offset: info.last_offset,
        producer_id: producer.unwrap_or(-1),
        leader_epoch,
        codec: codec_name(codec),
    });
    for (i, record) in contents.into_iter().enumerate() {
        appended.records.push(ExpectedRecord {
            offset: info.first_offset + i as i64,
            timestamp: record.timestamp,
            key: record.key,
            value: record.value,
            header_keys: record.headers.into_iter().map(|(k, _)| k).collect(),
            sequence: base_sequence.map_or(-1, |s| s + i as i32),
        });
    }
}

/// Record `i` of batch `n`: timestamps mostly rising, some equal within and across batches, and
/// every eleventh batch late (older than what came before), which the time index must pass over.
/// Keys, values and header keys hold no spaces, as the tool prints them unquoted.
#[derive(Debug)]
struct RecordContents {
    timestamp: i64,
    key: Option<String>,
    value: Option<String>,
    headers: Vec<(String, Vec<u8>)>,
}

impl RecordContents {
    fn new(n: usize, i: usize) -> RecordContents {
        let batch_time = 1_700_000_000_000 + 10 * (n as i64 / 3);
        let timestamp = if n % 11 == 10 { batch_time - 500 } else { batch_time + i as i64 / 2 };
        let key = (i % 3 != 2).then(|| format!("key-{n}-{i}"));
        let padding = "x".repeat((n * 31 + i * 17) % 90);
        let value = (n % 13 != 12 || i > 0).then(|| format!("value-{n}-{i}-{padding}"));
        let headers = (0..(n + i) % 3).map(|h| (format!("h{h}"), format!("hv{n}.{i}").into_bytes())).collect();
        RecordContents { timestamp, key, value, headers }
    }
}

fn codec_name(codec: Compression) -> &'static str {
    match codec {
        Compression::None => "none",
        Compression::Gzip => "gzip",
        Compression::Snappy => "snappy",
        Compression::Lz4 => "lz4",
        Compression::Zstd => "zstd",
    }
}

/// The `.log`, `.index` and `.timeindex` of every segment in `dir`, oldest first.
fn segment_files(dir: &Path) -> Vec<SegmentFiles> {
    let mut bases: Vec<i64> = std::fs::read_dir(dir)
        .expect("read log dir")
        .map(|entry| entry.expect("dir entry").file_name().to_string_lossy().into_owned())
        .filter_map(|name| name.strip_suffix(".log").and_then(|base| base.parse().ok()))
        .collect();
    bases.sort_unstable();
    bases
        .into_iter()
        .map(|base| {
            let path = |suffix: &str| dir.join(format!("{base:020}{suffix}"));
            let files = SegmentFiles {
                base_offset: base,
                log: path(".log"),
                index: path(".index"),
                time_index: path(".timeindex"),
            };
            for file in [&files.index, &files.time_index] {
                assert!(file.exists(), "{} is missing", file.display());
            }
            files
        })
        .collect()
}

/// Runs DumpLogSegments over `segments` four ways (deep iteration of the logs; index
/// verification; the indexes' sanity check; the indexes' entries) and checks that Kafka reports
/// no problem and reads back exactly what was appended.
fn check(segments: &[SegmentFiles], appended: &Appended) {
    let logs: Vec<&Path> = segments.iter().map(|s| s.log.as_path()).collect();
    let indexes: Vec<&Path> = segments.iter().flat_map(|s| [s.index.as_path(), s.time_index.as_path()]).collect();

    let deep = dump_log_segments(&["--deep-iteration", "--print-data-log"], &logs);
    check_non_consecutive_report(&deep.stderr, segments);
    let read = parse_deep_dump(&deep.stdout);
    assert_eq!(read.batches, appended.batches, "batches as Kafka read them");
    assert_eq!(read.records.len(), appended.records.len(), "record count as Kafka read it");
    for (got, want) in read.records.iter().zip(&appended.records) {
        assert_eq!(got, want, "record as Kafka read it");
    }

    let verify = dump_log_segments(&["--verify-index-only"], &indexes);
    assert_quiet(&verify);
    let unexpected: Vec<&str> = verify.stdout.lines().filter(|l| !l.starts_with("Dumping ")).collect();
    assert!(unexpected.is_empty(), "--verify-index-only printed more than file names: {unexpected:?}");

    let sanity = dump_log_segments(&["--index-sanity-check"], &indexes);
    assert_quiet(&sanity);
    for file in &indexes {
        let passed = format!("{} passed sanity check.", file.display());
        let empty = format!("{} is empty.", file.display());
        assert!(
            sanity.stdout.lines().any(|l| l == passed || l == empty),
            "no sanity-check verdict for {}:\n{}",
            file.display(),
            sanity.stdout
        );
    }

    let entries = dump_log_segments(&[], &indexes);
    assert_quiet(&entries);
    check_index_entries(&entries.stdout, segments, &read.batch_ends);
}

/// The index checks report on stderr (and still exit 0): it must stay empty.
fn assert_quiet(output: &Output) {
    assert!(output.stderr.is_empty(), "DumpLogSegments reported:\n{}", output.stderr);
}

/// Kafka's tool tracks consecutive offsets per file from -1, so a segment that starts above 0
/// is reported as "-1 is followed by <base offset>"; that, and nothing else, is expected.
fn check_non_consecutive_report(stderr: &str, segments: &[SegmentFiles]) {
    let mut file: Option<&SegmentFiles> = None;
    for line in stderr.lines() {
        if let Some(name) = line.strip_prefix("Non-consecutive offsets in ") {
            file = segments.iter().find(|s| s.log == Path::new(name));
            assert!(file.is_some(), "non-consecutive offsets in an unknown file: {line}");
        } else if let (Some(segment), Some(pair)) = (file, line.strip_prefix("  ")) {
            let expected = format!("-1 is followed by {}", segment.base_offset);
            assert_eq!(pair, expected, "non-consecutive offsets in {}", segment.log.display());
        } else {
            panic!("unexpected stderr line from DumpLogSegments: {line}\n{stderr}");
        }
    }
}

/// What the deep iteration printed: batches, records, and each batch's last offset and position
/// per file (where an offset-index entry may point).
#[derive(Debug, Default)]
struct DeepDump {
    batches: Vec<ExpectedBatch>,
    records: Vec<ExpectedRecord>,
    batch_ends: BTreeMap<PathBuf, Vec<(i64, u64)>>,
}

fn parse_deep_dump(stdout: &str) -> DeepDump {
    let mut dump = DeepDump::default();
    let mut file = PathBuf::new();
    for line in stdout.lines() {
        if let Some(name) = line.strip_prefix("Dumping ") {
            file = PathBuf::from(name);
        } else if line.starts_with("baseOffset: ") {
            let (batch, position) = parse_batch_line(line);
            dump.batch_ends.entry(file.clone()).or_default().push((batch.last_offset, position));
            dump.batches.push(batch);
        } else if line.starts_with("| offset: ") {
            dump.records.push(parse_record_line(line));
        } else {
            assert!(line.starts_with("Log starting offset: "), "unexpected line from DumpLogSegments: {line}");
        }
    }
    dump
}

/// `baseOffset: 0 lastOffset: 2 count: 3 ... partitionLeaderEpoch: 0 ... position: 0
/// CreateTime: ... size: ... magic: 2 compresscodec: none crc: ... isvalid: true`
fn parse_batch_line(line: &str) -> (ExpectedBatch, u64) {
    let f = fields(line);
    let batch = ExpectedBatch {
        base_offset: number(&f, "baseOffset", line),
        last_offset: number(&f, "lastOffset", line),
        producer_id: number(&f, "producerId", line),
        leader_epoch: number(&f, "partitionLeaderEpoch", line),
        codec: CODECS.into_iter().map(codec_name).find(|c| f.get("compresscodec") == Some(c)).unwrap_or("?"),
    };
    let count: i64 = number(&f, "count", line);
    assert_eq!(count, batch.last_offset - batch.base_offset + 1, "{line}");
    assert_eq!(number::<i32>(&f, "magic", line), 2, "{line}");
    assert_eq!(f.get("isvalid"), Some(&"true"), "{line}");
    (batch, number(&f, "position", line))
}

/// `| offset: 5 CreateTime: ... keySize: 7 valueSize: 12 sequence: -1 headerKeys: [h0,h1] key:
/// ... payload: ...` (no `key:` for a null key, no `payload:` for a null value).
fn parse_record_line(line: &str) -> ExpectedRecord {
    let f = fields(line);
    let header_keys = f.get("headerKeys").expect("headerKeys").trim_start_matches('[').trim_end_matches(']');
    let record = ExpectedRecord {
        offset: number(&f, "offset", line),
        timestamp: number(&f, "CreateTime", line),
        key: f.get("key").map(|k| k.to_string()),
        value: f.get("payload").map(|v| v.to_string()),
        header_keys: header_keys.split(',').filter(|k| !k.is_empty()).map(str::to_owned).collect(),
        sequence: number(&f, "sequence", line),
    };
    let size = |s: &Option<String>| s.as_ref().map_or(-1, |s| s.len() as i32);
    assert_eq!(number::<i32>(&f, "keySize", line), size(&record.key), "{line}");
    assert_eq!(number::<i32>(&f, "valueSize", line), size(&record.value), "{line}");
    record
}

/// Checks the plain dump of the indexes: offset-index entries point at batch boundaries the deep
/// dump saw, time-index timestamps rise, each file holds exactly its entries (trimmed on close),
/// and there are many entries in all.
fn check_index_entries(stdout: &str, segments: &[SegmentFiles], batch_ends: &BTreeMap<PathBuf, Vec<(i64, u64)>>) {
    let mut offset_entries: BTreeMap<PathBuf, Vec<(i64, u64)>> = BTreeMap::new();
    let mut time_entries: BTreeMap<PathBuf, Vec<(i64, i64)>> = BTreeMap::new();
    let mut file = PathBuf::new();
    for line in stdout.lines() {
        let f = fields(line);
        if let Some(name) = line.strip_prefix("Dumping ") {
            file = PathBuf::from(name);
        } else if line.starts_with("offset: ") {
            offset_entries
                .entry(file.clone())
                .or_default()
                .push((number(&f, "offset", line), number(&f, "position", line)));
        } else if line.starts_with("timestamp: ") {
            time_entries
                .entry(file.clone())
                .or_default()
                .push((number(&f, "timestamp", line), number(&f, "offset", line)));
        } else {
            assert!(line.ends_with(" is empty."), "unexpected line from DumpLogSegments: {line}");
        }
    }
    for segment in segments {
        let offsets = offset_entries.get(&segment.index).map_or(&[][..], Vec::as_slice);
        let times = time_entries.get(&segment.time_index).map_or(&[][..], Vec::as_slice);
        assert_eq!(file_len(&segment.index), 8 * offsets.len() as u64, "{} is not trimmed", segment.index.display());
        assert_eq!(
            file_len(&segment.time_index),
            12 * times.len() as u64,
            "{} is not trimmed",
            segment.time_index.display()
        );
        let ends = batch_ends.get(&segment.log).map_or(&[][..], Vec::as_slice);
        for entry in offsets {
            assert!(
                ends.contains(entry),
                "{}: entry {entry:?} is not a batch's (last offset, position)",
                segment.index.display()
            );
        }
        for pair in times.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{}: timestamps not increasing: {pair:?}", segment.time_index.display());
        }
    }
    let offset_count: usize = offset_entries.values().map(Vec::len).sum();
    let time_count: usize = time_entries.values().map(Vec::len).sum();
    assert!(offset_count >= BATCH_COUNT / 4, "only {offset_count} offset-index entries");
    assert!(time_count >= BATCH_COUNT / 10, "only {time_count} time-index entries");
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).expect("index file").len()
}

/// `name: value` pairs of one line of DumpLogSegments output.
fn fields(line: &str) -> BTreeMap<&str, &str> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    tokens.windows(2).filter_map(|pair| pair[0].strip_suffix(':').map(|name| (name, pair[1]))).collect()
}

fn number<T: std::str::FromStr>(fields: &BTreeMap<&str, &str>, name: &str, line: &str) -> T {
    let value = fields.get(name).unwrap_or_else(|| panic!("no `{name}:` in: {line}"));
    value.parse().unwrap_or_else(|_| panic!("`{name}: {value}` is not a number in: {line}"))
}

/// DumpLogSegments' output.
#[derive(Debug)]
struct Output {
    stdout: String,
    stderr: String,
}

/// Runs Kafka's DumpLogSegments with `options` over `files` and asserts it exited 0 and reported
/// none of [`PROBLEMS`].
fn dump_log_segments(options: &[&str], files: &[&Path]) -> Output {
    let libs = kafka_libs(&REQUIRED_JARS);
    let file_list: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let mut command = Command::new("java");
    command
        .arg("-cp")
        .arg(format!("{}/*", libs.display()))
        .arg(format!(
            "-Dlog4j2.configurationFile={}",
            workspace_root().join("compat/kafka/log4j2.properties").display()
        ))
        .arg(DUMP_LOG_SEGMENTS)
        .args(options)
        .arg("--files")
        .arg(file_list.join(","));
    let output = command.output().unwrap_or_else(|e| panic!("could not run `java` (a JDK 17+ must be on PATH): {e}"));
    let result = Output {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    let shown = format!("{command:?}");
    assert!(output.status.success(), "{shown} exited with {}:\n{}", output.status, result.stderr);
    for problem in PROBLEMS {
        let lines: Vec<&str> =
            result.stdout.lines().chain(result.stderr.lines()).filter(|l| l.contains(problem)).take(20).collect();
        assert!(lines.is_empty(), "{shown} reported {problem:?}:\n{}\nstderr:\n{}", lines.join("\n"), result.stderr);
    }
    result
}

/// Kafka's DumpLogSegments reads Strand's `.txnindex` (an aborted transaction) and `.snapshot`
/// (idempotent and transactional producers) files, with the values we wrote.
#[test]
fn transaction_index_and_producer_snapshot_pass_kafka_dump_log_segments() {
    use strand_base::Clock;
    use strand_protocol::records::control::{EndTxnMarker, TransactionResult, end_txn_marker_batch};
    let dir = tempfile::tempdir().expect("temp dir");
    let config = LogConfig { segment_index_bytes: 4096, ..LogConfig::default() };
    let mut log = Log::open(dir.path(), config, LogCheckpoints::default(), Arc::new(SystemClock)).expect("open");
    let now = SystemClock.now_ms();
    let (producer, txn_producer) = (ProducerId(5001), ProducerId(5002));
    let batch = |producer_id: ProducerId, sequence: i32, transactional: bool| {
        let mut builder = RecordBatchBuilder::new().producer(producer_id, 3, sequence);
        if transactional {
            builder = builder.transactional();
        }
        let record = NewRecord { timestamp_ms: now, key: Some(b"k"), value: Some(b"v"), headers: &[] };
        builder.append(&record).expect("record");
        ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid")
    };
    let client = AppendContext::client(VerificationGuard::SENTINEL);
    log.append_as_leader(batch(producer, 0, false), 7, client).expect("append");
    let guard = log.producer_state_mut().maybe_start_txn_verification(txn_producer, 0, 3, false, now).expect("verify");
    let first = log.append_as_leader(batch(txn_producer, 0, true), 7, AppendContext::client(guard)).expect("txn");
    log.append_as_leader(batch(producer, 1, false), 7, client).expect("append");
    let marker =
        end_txn_marker_batch(txn_producer, 3, TransactionResult::Abort, EndTxnMarker { coordinator_epoch: 9 }, now)
            .expect("marker")
            .build()
            .expect("marker batch");
    let marker = ValidatedBatch::validate(BytesMut::from(&marker[..])).expect("valid");
    let marker = log.append_as_leader(marker, 7, AppendContext::coordinator(0)).expect("abort");
    log.close().expect("close");
    let end = log.log_end_offset();
    drop(log);

    let txn_index = dir.path().join(format!("{:020}.txnindex", 0));
    let snapshot = dir.path().join(format!("{end:020}.snapshot"));
    let output = dump_log_segments(&[], &[&txn_index, &snapshot]);
    let expected_txn = format!(
        "producerId: {} firstOffset: {} lastOffset: {} lastStableOffset: {}",
        txn_producer.0,
        first.first_offset,
        marker.last_offset,
        marker.last_offset + 1
    );
    assert!(output.stdout.contains(&expected_txn), "no `{expected_txn}` in:\n{}", output.stdout);
    for producer_id in [producer.0, txn_producer.0] {
        let expected = format!("producerId: {producer_id} producerEpoch: 3");
        assert!(output.stdout.contains(&expected), "no `{expected}` in:\n{}", output.stdout);
    }
    assert!(output.stdout.contains("coordinatorEpoch: 9"), "marker's coordinator epoch missing:\n{}", output.stdout);
}
