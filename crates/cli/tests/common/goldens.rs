//! Strand's own tools run as a user runs them, their output compared with what Kafka 4.4's tools
//! printed for the same sequence: the golden files of `compat/kafka-tools/golden/` (recorded from
//! Kafka against Kafka by `compat/kafka-tools/test_kafka_tools.py`), each an `exit: N` line then
//! stdout, topic ids masked as that recorder masks them.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use super::Server;

/// `compat/kafka-tools/golden/NAME.txt`.
pub fn golden(name: &str) -> String {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../compat/kafka-tools/golden").join(format!("{name}.txt"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `strand TOOL --bootstrap-server <server> ARGS...`, with `input` on stdin (or none), to its end.
pub fn strand_tool(server: &Server, tool: &str, args: &[&str], input: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_strand"))
        .arg(tool)
        .args(["--bootstrap-server", &server.address.to_string()])
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run strand");
    if let (Some(text), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin.write_all(text.as_bytes()).expect("stdin");
    }
    child.wait_with_output().expect("strand's output")
}

/// Kafka's recorder's masking: `TopicId: <22 characters>` becomes `TopicId: <TOPIC_ID>`.
pub fn masked(stdout: &str) -> String {
    let mut out = String::new();
    let mut rest = stdout;
    while let Some(at) = rest.find("TopicId: ") {
        let (before, after) = rest.split_at(at + "TopicId: ".len());
        out.push_str(before);
        out.push_str("<TOPIC_ID>");
        rest = after.get(22..).unwrap_or_default();
    }
    out + rest
}

/// Exit status and (masked) stdout against `golden/NAME.txt`.
pub fn check(name: &str, done: &Output) {
    let actual =
        format!("exit: {}\n{}", done.status.code().unwrap_or(-1), masked(&String::from_utf8_lossy(&done.stdout)));
    assert_eq!(
        actual,
        golden(name),
        "{name}: differs from Kafka 4.4's; stderr:\n{}",
        String::from_utf8_lossy(&done.stderr)
    );
}
