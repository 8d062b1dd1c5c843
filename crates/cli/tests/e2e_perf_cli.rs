//! `strand producer-perf-test`, `strand consumer-perf-test` and `strand e2e-latency` against a
//! real node: every record the producer reports is in the topic, with the payload asked for; the
//! consumer counts the records and bytes there are; the latency test writes and reads back each
//! of its records; their lines have Kafka's format. Timings are not checked,
//! only the shape of the lines that carry them.

mod common;

use std::process::Command;

use common::{Server, fetch_all};
use regex::Regex;

/// Kafka's summary line (`ProducerPerformance.Stats.printTotal`) for `records` records.
fn summary(records: u64) -> Regex {
    let rates = r"\d+\.\d{6} records/sec \(\d+\.\d{2} MB/sec\)";
    let latencies = r"\d+\.\d{2} ms avg latency, \d+\.\d{2} ms max latency";
    let percentiles = r"\d+ ms 50th, \d+ ms 95th, \d+ ms 99th, \d+ ms 99\.9th";
    Regex::new(&format!(r"^{records} records sent, {rates}, {latencies}, {percentiles}\.$")).expect("regex")
}

/// Runs `strand producer-perf-test` against `server` with `args`.
fn perf(server: &Server, args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_strand"))
        .arg("producer-perf-test")
        .args(["--bootstrap-server", &server.address.to_string()])
        .args(args)
        .output()
        .expect("run strand");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.success(), text(&output.stdout), text(&output.stderr))
}

/// 3,000 monotonic payloads in small batches: the topic holds exactly "0".."2999" in order, a
/// progress line comes every interval, and the summary counts 3,000.
#[test]
fn the_records_reported_are_the_records_written() {
    let _serial = common::serial();
    let server = Server::start();
    common::create_topic(&mut server.connect(), "perf", 1);
    let args = [
        "--topic",
        "perf",
        "--num-records",
        "3000",
        "--payload-monotonic",
        "--throughput",
        "-1",
        "--command-property",
        "batch.size=2000",
        "acks=1",
        "--reporting-interval",
        "1",
    ];
    let (ok, stdout, stderr) = perf(&server, &args);
    assert!(ok, "{stdout}{stderr}");
    assert!(!format!("{stdout}{stderr}").contains("/3000 records"), "a progress bar off a terminal: {stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    let window = Regex::new(
        r"^\d+ records sent, \d+\.\d records/sec \(\d+\.\d{2} MB/sec\), \d+\.\d ms avg latency, \d+\.\d ms max latency\.$",
    )
    .expect("regex");
    let (last, progress) = lines.split_last().expect("a summary line");
    assert!(summary(3000).is_match(last), "{stdout}");
    assert!(!progress.is_empty() && progress.iter().all(|l| window.is_match(l)), "{stdout}");
    let counted: u64 =
        progress.iter().map(|l| l.split(' ').next().and_then(|n| n.parse::<u64>().ok()).unwrap_or(0)).sum();
    assert!(counted <= 3000, "{stdout}");
    let values = fetch_all(&mut server.connect(), "perf");
    let expected: Vec<String> = (0..3000).map(|n| n.to_string()).collect();
    assert_eq!(values, expected);
}

/// Fixed-size payloads: as many records of exactly --record-size bytes as asked; a payload
/// option missing, or an option Strand lacks, is refused in one line.
#[test]
fn record_sizes_and_refusals() {
    let _serial = common::serial();
    let server = Server::start();
    common::create_topic(&mut server.connect(), "sized", 1);
    let args = ["--topic", "sized", "--num-records", "500", "--record-size", "100", "--throughput", "1000000"];
    let (ok, stdout, stderr) = perf(&server, &args);
    assert!(ok, "{stdout}{stderr}");
    assert!(summary(500).is_match(stdout.lines().last().unwrap_or_default()), "{stdout}");
    let values = fetch_all(&mut server.connect(), "sized");
    assert_eq!(values.len(), 500);
    assert!(values.iter().all(|v| v.len() == 100 && v.bytes().all(|b| b.is_ascii_uppercase())), "{values:?}");

    let (ok, stdout, stderr) = perf(&server, &["--topic", "sized", "--num-records", "1", "--throughput", "-1"]);
    assert!(!ok && stdout.is_empty(), "{stdout}");
    assert_eq!(stderr.lines().next(), Some("No payload file, record size or payload-monotonic option provided."));
    let args =
        ["--topic", "sized", "--num-records", "1", "--record-size", "1", "--throughput", "-1", "--print-metrics"];
    let (ok, _, stderr) = perf(&server, &args);
    assert!(!ok, "{stderr}");
    assert_eq!(stderr.trim_end(), "--print-metrics is not supported by this version of Strand");
    // A producer property that would change nothing here is refused, naming it.
    let args = ["--topic", "sized", "--num-records", "1", "--record-size", "1", "--throughput", "-1"];
    let (ok, stdout, stderr) = perf(&server, &[&args[..], &["--producer-props", "acks=1", "linger.ms=5"]].concat());
    assert!(!ok && stdout.is_empty(), "{stdout}");
    assert_eq!(stderr.trim_end(), "linger.ms is not supported by this version of Strand");
}

/// `strand consumer-perf-test` with `args` against `server`.
fn consumer_perf(server: &Server, args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_strand"))
        .arg("consumer-perf-test")
        .args(["--bootstrap-server", &server.address.to_string()])
        .args(args)
        .output()
        .expect("run strand");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.success(), text(&output.stdout), text(&output.stderr))
}

/// 2,000 records of 100 bytes over three partitions: the consumer reads them all (0.1907 MB),
/// under Kafka's header; asked for more than there are, it says it timed out.
#[test]
fn the_consumer_counts_what_the_topic_holds() {
    let _serial = common::serial();
    let server = Server::start();
    common::create_topic(&mut server.connect(), "read", 3);
    let args = ["--topic", "read", "--num-records", "2000", "--record-size", "100", "--throughput", "-1"];
    let (ok, stdout, stderr) = perf(&server, &args);
    assert!(ok, "{stdout}{stderr}");

    let header = "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, \
                  rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec";
    let time = r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}:\d{3}";
    let rate = r"(\d+\.\d{4}|inf|NaN)";
    let line = |mb: &str, records: u64| {
        Regex::new(&format!(r"^{time}, {time}, {mb}, {rate}, {records}, {rate}, 0, \d+, {rate}, {rate}$"))
            .expect("regex")
    };
    let (ok, stdout, stderr) =
        consumer_perf(&server, &["--topic", "read", "--num-records", "2000", "--timeout", "5000"]);
    assert!(ok, "{stdout}{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert_eq!(lines[0], header);
    assert!(line(r"0\.1907", 2000).is_match(lines[1]), "{stdout}");

    let args = ["--topic", "read", "--num-records", "2001", "--timeout", "500", "--hide-header"];
    let (ok, stdout, stderr) = consumer_perf(&server, &args);
    assert!(ok, "{stdout}{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0],
        "WARNING: Exiting before consuming the expected number of records: timeout (500 ms) exceeded. You can use \
         the --timeout option to increase the timeout."
    );
    assert!(line(r"0\.1907", 2000).is_match(lines[1]), "{stdout}");

    // client.id is the client's; fetch.min.bytes would change nothing here: refused.
    let args = ["--topic", "read", "--num-records", "1", "--command-property", "client.id=perf"];
    let (ok, stdout, stderr) =
        consumer_perf(&server, &[&args[..], &["--command-property", "fetch.min.bytes=1000"]].concat());
    assert!(!ok && stdout.is_empty(), "{stdout}");
    assert_eq!(stderr.trim_end(), "fetch.min.bytes is not supported by this version of Strand");
}

/// `strand e2e-latency` with `args` (which name the server).
fn e2e_latency(args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_strand")).arg("e2e-latency").args(args).output().expect("run strand");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.success(), text(&output.stdout), text(&output.stderr))
}

/// 1,500 records with keys and headers, each read back before the next: the topic is created
/// (Kafka's line), holds exactly them, and the progress, average and percentile lines have
/// Kafka's format; the positional form warns, and acks=0 is refused with Kafka's message.
#[test]
fn the_latency_test_reads_back_every_record() {
    let _serial = common::serial();
    let server = Server::start();
    let bootstrap = server.address.to_string();
    let args = [
        "--bootstrap-server",
        &bootstrap,
        "--topic",
        "latency",
        "--num-records",
        "1500",
        "--producer-acks",
        "all",
        "--record-size",
        "20",
        "--record-key-size",
        "4",
        "--num-headers",
        "2",
        "--record-header-key-size",
        "3",
        "--record-header-size",
        "-1",
    ];
    let (ok, stdout, stderr) = e2e_latency(&args);
    assert!(ok, "{stdout}{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0],
        "Topic \"latency\" does not exist. Will create topic with 1 partition(s) and replication factor = 1"
    );
    let progress = Regex::new(r"^(0|1000)\t\d+\.\d+(E-?\d+)?$").expect("regex");
    assert!(progress.is_match(lines[1]) && lines[1].starts_with("0\t"), "{stdout}");
    assert!(progress.is_match(lines[2]) && lines[2].starts_with("1000\t"), "{stdout}");
    assert!(Regex::new(r"^Avg latency: \d+\.\d{4} ms$").expect("regex").is_match(lines[3]), "{stdout}");
    let percentiles = Regex::new(r"^Percentiles: 50th = \d+, 99th = \d+, 99\.9th = \d+$").expect("regex");
    assert!(percentiles.is_match(lines[4]) && lines.len() == 5, "{stdout}");
    let values = fetch_all(&mut server.connect(), "latency");
    assert_eq!(values.len(), 1500);
    assert!(values.iter().all(|v| v.len() == 20), "{values:?}");

    let (ok, stdout, stderr) = e2e_latency(&[&bootstrap, "latency", "3", "1", "10"]);
    assert!(ok, "{stdout}{stderr}");
    assert!(stdout.starts_with("WARNING: Positional argument usage is deprecated"), "{stdout}");
    let (ok, _, stderr) = e2e_latency(&[&bootstrap, "latency", "3", "0", "10"]);
    assert!(!ok);
    assert_eq!(
        stderr.trim_end(),
        "Invalid value for --producer-acks. Latency testing requires synchronous acknowledgement. Please use '1' or \
         'all'."
    );

    // The tool's own group.id and the client's client.id are taken; client.rack is refused.
    let config = tempfile::NamedTempFile::new().expect("temp file");
    std::fs::write(config.path(), "group.id=mine\nclient.id=latency-client\n").expect("write");
    let path = config.path().display().to_string();
    let args = ["--bootstrap-server", &bootstrap, "--topic", "latency", "--num-records", "3", "--producer-acks", "1"];
    let with_config = [&args[..], &["--record-size", "5", "--command-config", &path]].concat();
    let (ok, stdout, stderr) = e2e_latency(&with_config);
    assert!(ok && stderr.is_empty(), "{stdout}{stderr}");
    std::fs::write(config.path(), "client.rack=r1\n").expect("write");
    let (ok, stdout, stderr) = e2e_latency(&with_config);
    assert!(!ok && stdout.is_empty(), "{stdout}");
    assert_eq!(stderr.trim_end(), "client.rack is not supported by this version of Strand");
}

/// Runs `command` (a shell line) on a pseudo-terminal, as a person at a terminal would, through
/// util-linux's `script`; what the terminal showed, stdout and stderr together.
fn on_a_terminal(command: &str) -> String {
    let output = Command::new("script").args(["-qec", command, "/dev/null"]).output().expect("run script");
    let shown = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{command}: {shown}");
    shown
}

/// On a terminal the perf tests and a counted console consumer draw a progress bar to the count,
/// dump-log one through the segment's bytes (on stderr, Kafka's lines unchanged); piped, they do
/// not (the tests above, and e2e_dump_log_cli's byte-for-byte comparisons).
#[test]
fn progress_bars_on_a_terminal() {
    let _serial = common::serial();
    let server = Server::start();
    common::create_topic(&mut server.connect(), "bars", 1);
    let (strand, bootstrap) = (env!("CARGO_BIN_EXE_strand"), server.address.to_string());
    let produced = on_a_terminal(&format!(
        "{strand} producer-perf-test --bootstrap-server {bootstrap} --topic bars --num-records 2000 --record-size 10 \
         --throughput -1"
    ));
    assert!(produced.contains("2000/2000 records"), "{produced}");
    assert!(produced.lines().any(|l| summary(2000).is_match(l.trim())), "{produced}");
    let consumed = on_a_terminal(&format!(
        "{strand} consumer-perf-test --bootstrap-server {bootstrap} --topic bars --messages 2000 --hide-header"
    ));
    assert!(consumed.contains("2000/2000 records"), "{consumed}");
    let printed = on_a_terminal(&format!(
        "{strand} console-consumer --bootstrap-server {bootstrap} --topic bars --from-beginning --max-messages 1500"
    ));
    assert!(printed.contains("1500/1500 messages"), "{printed}");
    assert!(printed.contains("Processed a total of 1500 messages"), "{printed}");
    let segment = server.data.path().join("bars-0").join("00000000000000000000.log");
    let size = std::fs::metadata(&segment).expect("the segment").len();
    let dumped = on_a_terminal(&format!("{strand} dump-log --files {}", segment.display()));
    assert!(dumped.contains(&format!("/{size} bytes")), "{dumped}");
    assert!(dumped.contains("baseOffset: 0 lastOffset:"), "{dumped}");
}
