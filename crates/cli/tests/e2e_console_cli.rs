//! `strand console-producer` and `strand console-consumer` against a real node, compared with
//! what Kafka 4.4's own console tools printed for the same sequence (the golden files of
//! `compat/kafka-tools/golden/`, recorded by `compat/kafka-tools/test_kafka_tools.py`): keyed
//! lines in, the values back from the earliest offset, then keys, partitions and offsets from
//! offset 1; and headers, timestamps and null markers through the formatter's properties.

mod common;

use common::Server;
use common::goldens::{check, strand_tool as strand};

/// The seeds' console sequence: byte for byte Kafka's stdout and exit codes, and Kafka's count
/// on stderr.
#[test]
fn the_seeds_console_commands_print_what_kafka_s_tools_print() {
    let _serial = common::serial();
    let server = Server::start();
    let created = strand(&server, "topics", &["--create", "--topic", "lines", "--partitions", "1"], None);
    assert!(created.status.success());
    let keyed = ["--topic", "lines", "--reader-property", "parse.key=true", "--reader-property", "key.separator=:"];
    check("console-producer", &strand(&server, "console-producer", &keyed, Some("a:one\nb:two\nc:three\n")));

    let earliest = [
        "--topic",
        "lines",
        "--partition",
        "0",
        "--offset",
        "earliest",
        "--max-messages",
        "3",
        "--timeout-ms",
        "15000",
    ];
    let consumed = strand(&server, "console-consumer", &earliest, None);
    check("console-consumer-earliest", &consumed);
    assert!(String::from_utf8_lossy(&consumed.stderr).contains("Processed a total of 3 messages"));
    let from_one = [
        "--topic",
        "lines",
        "--partition",
        "0",
        "--offset",
        "1",
        "--max-messages",
        "2",
        "--timeout-ms",
        "15000",
        "--formatter-property",
        "print.key=true",
        "--formatter-property",
        "print.offset=true",
        "--formatter-property",
        "print.partition=true",
    ];
    let consumed = strand(&server, "console-consumer", &from_one, None);
    check("console-consumer-offset-1", &consumed);
    assert!(String::from_utf8_lossy(&consumed.stderr).contains("Processed a total of 2 messages"));
}

/// Headers, null markers and the formatter's other columns; `--group` is refused in one line.
#[test]
fn headers_nulls_and_the_formatter_s_columns() {
    let _serial = common::serial();
    let server = Server::start();
    assert!(strand(&server, "topics", &["--create", "--topic", "h", "--partitions", "1"], None).status.success());
    let reader = [
        "--topic",
        "h",
        "--reader-property",
        "parse.key=true",
        "--reader-property",
        "parse.headers=true",
        "--reader-property",
        "null.marker=NULL",
    ];
    let produced = strand(&server, "console-producer", &reader, Some("a:1,b:NULL\tk\tv\nc:3\tNULL\tw\n"));
    assert!(produced.status.success(), "{}", String::from_utf8_lossy(&produced.stderr));
    let formatter = [
        "--topic",
        "h",
        "--partition",
        "0",
        "--offset",
        "earliest",
        "--max-messages",
        "2",
        "--formatter-property",
        "print.headers=true",
        "--formatter-property",
        "print.key=true",
        "--formatter-property",
        "print.timestamp=true",
        "--formatter-property",
        "key.separator= | ",
    ];
    let consumed = strand(&server, "console-consumer", &formatter, None);
    let stdout = String::from_utf8_lossy(&consumed.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with("CreateTime:") && lines[0].ends_with(" | a:1,b:null | k | v"), "{stdout}");
    assert!(lines[1].ends_with(" | c:3 | null | w"), "{stdout}");

    let grouped = strand(&server, "console-consumer", &["--topic", "h", "--group", "g"], None);
    assert_eq!(grouped.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&grouped.stderr).contains("--group is not supported by this version of Strand"));

    // `acks` of --producer-property is read (without --request-required-acks); linger.ms, which
    // would change nothing, is refused; so is fetch.min.bytes in the consumer's file.
    let property = |pair: &'static str| ["--topic", "h", "--producer-property", pair];
    let produced = strand(&server, "console-producer", &property("acks=2"), None);
    assert_eq!(produced.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&produced.stderr);
    assert!(stderr.contains("Invalid value 2 for configuration acks"), "{stderr}");
    let produced = strand(&server, "console-producer", &property("linger.ms=5"), None);
    assert_eq!(produced.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&produced.stderr).trim_end(),
        "linger.ms is not supported by this version of Strand"
    );
    let config = tempfile::NamedTempFile::new().expect("temp file");
    std::fs::write(config.path(), "fetch.min.bytes=1000\n").expect("write");
    let path = config.path().display().to_string();
    let consumed = strand(&server, "console-consumer", &["--topic", "h", "--consumer.config", &path], None);
    assert_eq!(consumed.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&consumed.stderr);
    assert_eq!(stderr.trim_end(), "fetch.min.bytes is not supported by this version of Strand");
}
