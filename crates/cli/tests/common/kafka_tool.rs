//! Apache Kafka 4.4's own command-line tools, run in Java from the jars `compat/kafka/fetch-jars.sh`
//! puts in `$STRAND_KAFKA_LIBS` (default `<workspace>/target/kafka-libs`): the oracle for the
//! output of the tools against Strand. Without the jars (or a JDK) the calling test fails, saying
//! how to fetch them.

#[path = "../../../../tools/testing/kafka_jars.rs"]
mod kafka_jars;

use std::process::Command;

pub use kafka_jars::{kafka_libs, workspace_root};

/// The jars every tool in `kafka-tools` needs (each also needs its argument parser's, which
/// `fetch-jars.sh` fetches with them).
const TOOL_JARS: [&str; 3] = ["kafka-tools-4.4.0", "kafka-clients-4.4.0", "kafka-server-common-4.4.0"];

/// Kafka's tool `class` (such as `org.apache.kafka.tools.TopicCommand`) with
/// `--bootstrap-server bootstrap` and `args`: its exit status and stdout (both streams are
/// echoed to the test's output).
pub fn kafka_tool(class: &str, bootstrap: impl std::fmt::Display, args: &[&str]) -> (bool, String) {
    kafka_tool_at(class, "--bootstrap-server", bootstrap, args)
}

/// [`kafka_tool`] connecting with `flag` (`--bootstrap-server` or `--bootstrap-controller`).
pub fn kafka_tool_at(class: &str, flag: &str, bootstrap: impl std::fmt::Display, args: &[&str]) -> (bool, String) {
    let bootstrap = bootstrap.to_string();
    let all: Vec<&str> = [flag, bootstrap.as_str()].into_iter().chain(args.iter().copied()).collect();
    let (ok, stdout, _) = kafka_command(class, &all);
    (ok, stdout)
}

/// Kafka's tool `class` with exactly `args`: its exit status, stdout and stderr (echoed to the
/// test's output).
pub fn kafka_command(class: &str, args: &[&str]) -> (bool, String, String) {
    let libs = kafka_libs(&TOOL_JARS);
    let mut command = Command::new("java");
    command
        .arg("-cp")
        .arg(format!("{}/*", libs.display()))
        .arg(format!(
            "-Dlog4j2.configurationFile={}",
            workspace_root().join("compat/kafka/log4j2.properties").display()
        ))
        .arg(class)
        .args(args);
    let output = command.output().unwrap_or_else(|e| panic!("could not run `java` (a JDK 17+ must be on PATH): {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    eprintln!("{command:?}: {}\n{stdout}{stderr}", output.status);
    (output.status.success(), stdout, stderr)
}

const METADATA_QUORUM: &str = "org.apache.kafka.tools.MetadataQuorumCommand";

/// `kafka-metadata-quorum <args>`: its exit status, stdout and stderr.
pub fn metadata_quorum(args: &[&str]) -> (bool, String, String) {
    kafka_command(METADATA_QUORUM, args)
}

/// The `CurrentVoters` ids and the leader `kafka-metadata-quorum describe --status` prints
/// through `bootstrap` (`host:port` of a controller).
pub fn described_voters(bootstrap: &str) -> (Vec<i32>, i32) {
    let (ok, status, _) = metadata_quorum(&["--bootstrap-controller", bootstrap, "describe", "--status"]);
    assert!(ok, "{status}");
    let field =
        |name: &str| status.lines().find_map(|l| l.strip_prefix(name)).map(str::trim).unwrap_or_default().to_owned();
    let leader = field("LeaderId:").parse().unwrap_or(-1);
    let voters = field("CurrentVoters:");
    let ids = voters.split("{\"id\": ").skip(1).filter_map(|v| v.split(',').next()?.parse().ok()).collect();
    (ids, leader)
}
