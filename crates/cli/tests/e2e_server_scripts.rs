//! `bin/kafka-storage.sh`, `bin/kafka-server-start.sh [-daemon]` and `bin/kafka-server-stop.sh`
//! (issue 21 item 3) as the seeds use them: a cluster id made and a node formatted from its
//! `server.properties`, the node started in the background with its output and pid under
//! `LOG_DIR`, served, and stopped by role and node id. The node's id is one no other test or
//! developer's node has, so the stop script's filters keep it from touching any other server.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use common::WAIT_MAX;
use strand_base::{Clock, SystemClock};

const NODE_ID: &str = "7391";

fn shim(name: &str, args: &[&str], log_dir: &Path) -> Output {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bin").join(name);
    Command::new(path)
        .args(args)
        .env("STRAND_BIN", env!("CARGO_BIN_EXE_strand"))
        .env("LOG_DIR", log_dir)
        .output()
        .expect("run the shim")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Waits (at most [`WAIT_MAX`]) until `done` holds, looking every 100 ms.
fn until(what: &str, done: impl Fn() -> bool) {
    let started_ns = SystemClock.monotonic_ns();
    while !done() {
        assert!(Duration::from_nanos(SystemClock.monotonic_ns() - started_ns) < WAIT_MAX, "waited for {what}");
        std::thread::park_timeout(Duration::from_millis(100));
    }
}

/// Whether process `pid` has ended (gone, or a zombie nobody reaped).
fn ended(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map_or(true, |stat| stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')))
}

/// The daemon's pid: killed if the test ends (fails) with the node still running.
struct Daemon(String);

impl Drop for Daemon {
    fn drop(&mut self) {
        if !ended(&self.0) {
            let _ = Command::new("kill").args(["-KILL", &self.0]).status();
        }
    }
}

#[test]
fn a_node_formatted_started_as_a_daemon_and_stopped_by_the_scripts() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().expect("a temp dir");
    let ports = common::cluster::free_ports(2);
    let properties = dir.path().join("server.properties");
    let data = dir.path().join("data");
    std::fs::write(
        &properties,
        format!(
            "node.id={NODE_ID}\nprocess.roles=broker,controller\n\
             listeners=PLAINTEXT://127.0.0.1:{0},CONTROLLER://127.0.0.1:{1}\n\
             controller.listener.names=CONTROLLER\ncontroller.quorum.voters={NODE_ID}@127.0.0.1:{1}\n\
             log.dirs={2}\nhttp.listeners=\n",
            ports[0],
            ports[1],
            data.display()
        ),
    )
    .expect("write server.properties");
    let logs = dir.path().join("logs");
    let file = properties.to_str().expect("a text path");

    let usage = shim("kafka-server-start.sh", &[], &logs);
    assert_eq!(usage.status.code(), Some(1));
    assert!(text(&usage.stdout).starts_with("USAGE: "), "{}", text(&usage.stdout));

    let uuid = shim("kafka-storage.sh", &["random-uuid"], &logs);
    let cluster_id = text(&uuid.stdout).trim().to_owned();
    assert_eq!(cluster_id.len(), 22, "{cluster_id:?}");
    let formatted = shim("kafka-storage.sh", &["format", "-t", &cluster_id, "-c", file], &logs);
    assert!(formatted.status.success(), "{}{}", text(&formatted.stdout), text(&formatted.stderr));
    assert!(text(&formatted.stdout).contains("Formatting"), "{}", text(&formatted.stdout));

    let started = shim("kafka-server-start.sh", &["-daemon", file, "--override", "num.partitions=2"], &logs);
    assert!(started.status.success(), "{}", text(&started.stderr));
    let pid = std::fs::read_to_string(logs.join("server.pid")).expect("the pid file").trim().to_owned();
    let _daemon = Daemon(pid.clone());
    let out = logs.join("server.out");
    until("the node to serve", || std::fs::read_to_string(&out).is_ok_and(|o| o.contains("listening on PLAINTEXT://")));
    let output = std::fs::read_to_string(&out).expect("its output");
    assert!(output.contains(&format!("cluster id {cluster_id}")), "{output}");
    let bootstrap = format!("127.0.0.1:{}", ports[0]);
    let created = shim("kafka-topics.sh", &["--bootstrap-server", &bootstrap, "--create", "--topic", "daemon"], &logs);
    assert_eq!(text(&created.stdout), "Created topic daemon.\n", "{}", text(&created.stderr));
    let described =
        shim("kafka-topics.sh", &["--bootstrap-server", &bootstrap, "--describe", "--topic", "daemon"], &logs);
    assert!(
        text(&described.stdout).contains("PartitionCount: 2"),
        "the --override applies: {}",
        text(&described.stdout)
    );

    // Filters that match no node stop nothing, quietly (servers run), as Kafka's script; with
    // both filters the node id wins, with Kafka's line.
    let precedence = "When both node-id and process-role are provided, the value for node-id will take precedence\n";
    let other =
        [(vec!["--node-id=7392"], ""), (vec!["--node-id=7392", "--process-role=broker,controller"], precedence)];
    for (filters, said) in other {
        let stopped = shim("kafka-server-stop.sh", &filters, &logs);
        assert_eq!((stopped.status.code(), text(&stopped.stdout).as_str()), (Some(0), said), "{filters:?}");
        assert!(!ended(&pid), "{filters:?} stopped the node");
    }
    let mine = format!("--node-id={NODE_ID}");
    let stopped = shim("kafka-server-stop.sh", &[&mine, "--process-role=broker"], &logs);
    assert_eq!(text(&stopped.stdout), precedence, "{}", text(&stopped.stderr));
    assert!(stopped.status.success(), "{}", text(&stopped.stderr));
    until("the node to stop", || ended(&pid));
    let output = std::fs::read_to_string(&out).expect("its output");
    assert!(output.contains("shutting down"), "no clean shutdown in:\n{output}");
}
