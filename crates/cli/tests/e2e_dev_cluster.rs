//! `strand dev cluster` (issue 21 item 4), and the seeds' walkthrough run with it through the
//! `bin/` shims: a topic replicated on three nodes, its leader killed from another terminal,
//! the ISR shrinking, the node restarted and the ISR growing back, every record read back; a
//! controllers-and-brokers cluster stopped with Ctrl-C and started again over its data.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::WAIT_MAX;
use strand_base::{Clock, SystemClock};

/// Kafka's legal lower settings, so a killed broker is fenced within seconds.
const FAST_FENCING: &[&str] =
    &["--override", "broker.session.timeout.ms=2000", "--override", "broker.heartbeat.interval.ms=250"];

/// A running `strand dev cluster`; killed (and its nodes with it) when dropped.
struct DevCluster {
    child: Child,
    lines: mpsc::Receiver<String>,
    /// Every line printed so far.
    printed: Vec<String>,
    bootstrap: String,
}

impl DevCluster {
    /// Starts a cluster in `dir` with `args` and waits for its bootstrap line.
    fn start(dir: &Path, args: &[&str]) -> DevCluster {
        let mut child = Command::new(env!("CARGO_BIN_EXE_strand"))
            .args(["dev", "cluster", "--dir"])
            .arg(dir)
            .args(args)
            .args(FAST_FENCING)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("run strand dev cluster");
        let stdout = child.stdout.take().expect("its stdout");
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        let mut cluster = DevCluster { child, lines, printed: Vec::new(), bootstrap: String::new() };
        let line = cluster.wait_for("bootstrap servers: ");
        cluster.bootstrap = line.split("bootstrap servers: ").nth(1).expect("the bootstrap").trim().to_owned();
        cluster
    }

    /// Waits (at most [`WAIT_MAX`] * 4: three nodes start one after another) for a printed line
    /// holding `marker`.
    fn wait_for(&mut self, marker: &str) -> String {
        let deadline = WAIT_MAX * 4;
        loop {
            match self.lines.recv_timeout(deadline) {
                Ok(line) => {
                    self.printed.push(line.clone());
                    if line.contains(marker) {
                        return line;
                    }
                }
                Err(e) => panic!("no line with {marker:?} ({e}); printed:\n{}", self.printed.join("\n")),
            }
        }
    }

    /// Ctrl-C: the cluster stops; its exit status and every line printed.
    fn interrupt(mut self) -> (ExitStatus, Vec<String>) {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill").args(["-INT", &pid]).status().expect("kill").success());
        self.wait_for("strand dev cluster: stopped");
        let status = self.child.wait().expect("its exit status");
        (status, std::mem::take(&mut self.printed))
    }
}

impl Drop for DevCluster {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `strand ARGS...`.
fn strand(args: &[&str], dir: &Path) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_strand"));
    command.args(args).arg("--dir").arg(dir).output().expect("run strand")
}

/// Runs `bin/<shim>` with `args` and `input` on stdin, with the binary under test.
fn shim(name: &str, args: &[&str], input: &str) -> Output {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bin").join(name);
    let mut child = Command::new(path)
        .args(args)
        .env("STRAND_BIN", env!("CARGO_BIN_EXE_strand"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the shim");
    child.stdin.take().expect("its stdin").write_all(input.as_bytes()).expect("write its input");
    child.wait_with_output().expect("its output")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Partition 0's leader and ISR, as `kafka-topics.sh --describe` prints them.
fn leader_and_isr(bootstrap: &str, topic: &str) -> Option<(i32, Vec<i32>)> {
    let described = shim("kafka-topics.sh", &["--bootstrap-server", bootstrap, "--describe", "--topic", topic], "");
    let out = text(&described.stdout);
    let line = out.lines().find(|l| l.contains("Partition: 0"))?;
    let field = |name: &str| line.split(&format!("{name}: ")).nth(1).and_then(|rest| rest.split('\t').next());
    let leader = field("Leader")?.trim().parse().ok()?;
    let isr = field("Isr")?.split(',').filter_map(|id| id.trim().parse().ok()).collect();
    Some((leader, isr))
}

/// Describes `topic` until `done` accepts its leader and ISR (at most [`WAIT_MAX`]).
fn described_until(bootstrap: &str, topic: &str, what: &str, done: impl Fn(i32, &[i32]) -> bool) -> (i32, Vec<i32>) {
    let started_ns = SystemClock.monotonic_ns();
    loop {
        let seen = leader_and_isr(bootstrap, topic);
        if let Some((leader, isr)) = seen.as_ref().filter(|(leader, isr)| done(*leader, isr)) {
            return (*leader, isr.clone());
        }
        let waited = Duration::from_nanos(SystemClock.monotonic_ns() - started_ns);
        assert!(waited < WAIT_MAX, "{what}: last described {seen:?}");
        std::thread::park_timeout(Duration::from_millis(250));
    }
}

#[test]
#[allow(clippy::disallowed_methods)] // Checks that no node still listens.
fn the_seeds_walkthrough_on_a_dev_cluster() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut cluster = DevCluster::start(dir.path(), &["--nodes", "3"]);
    let bootstrap = cluster.bootstrap.clone();
    assert_eq!(bootstrap.split(',').count(), 3, "{bootstrap}");
    assert!(cluster.printed.iter().any(|l| l.starts_with("node-2  | ")), "each node's lines behind its name");

    let created = shim(
        "kafka-topics.sh",
        &[
            "--bootstrap-server",
            &bootstrap,
            "--create",
            "--topic",
            "walk",
            "--partitions",
            "1",
            "--replication-factor",
            "3",
        ],
        "",
    );
    assert_eq!(text(&created.stdout), "Created topic walk.\n", "{}", text(&created.stderr));
    let produced =
        shim("kafka-console-producer.sh", &["--bootstrap-server", &bootstrap, "--topic", "walk"], "one\ntwo\n");
    assert!(produced.status.success(), "{}", text(&produced.stderr));
    let (leader, _) = described_until(&bootstrap, "walk", "three in sync", |_, isr| isr.len() == 3);

    // Another terminal kills the leader: it leaves the ISR and another node leads.
    let killed = strand(&["dev", "cluster", "--kill", &leader.to_string()], dir.path());
    assert_eq!((killed.status.code(), text(&killed.stdout)), (Some(0), format!("node {leader} killed\n")));
    cluster.wait_for(&format!("node {leader} exited"));
    described_until(&bootstrap, "walk", "the killed leader out of the ISR", |now, isr| {
        now != leader && now >= 0 && !isr.contains(&leader)
    });
    let produced = shim("kafka-console-producer.sh", &["--bootstrap-server", &bootstrap, "--topic", "walk"], "three\n");
    assert!(produced.status.success(), "{}", text(&produced.stderr));

    // Restarted, it catches up and is back in the ISR.
    let restarted = strand(&["dev", "cluster", "--restart", &leader.to_string()], dir.path());
    assert_eq!((restarted.status.code(), text(&restarted.stdout)), (Some(0), format!("node {leader} restarted\n")));
    described_until(&bootstrap, "walk", "the restarted node back in the ISR", |_, isr| isr.contains(&leader));
    let consumed = shim(
        "kafka-console-consumer.sh",
        &["--bootstrap-server", &bootstrap, "--topic", "walk", "--from-beginning", "--max-messages", "3"],
        "",
    );
    assert_eq!(text(&consumed.stdout), "one\ntwo\nthree\n", "{}", text(&consumed.stderr));

    // Orders the cluster cannot carry out, and a second cluster in the same directory.
    let unknown = strand(&["dev", "cluster", "--kill", "9"], dir.path());
    assert_eq!(unknown.status.code(), Some(1));
    assert!(text(&unknown.stderr).contains("there is no node 9 (nodes: 1, 2, 3)"), "{}", text(&unknown.stderr));
    let twice = strand(&["dev", "cluster"], dir.path());
    assert_eq!(twice.status.code(), Some(1));
    assert!(text(&twice.stderr).contains("a dev cluster already runs in"), "{}", text(&twice.stderr));
    // Anything but an order on the control socket gets an error line; the cluster carries on.
    for garbage in ["stop everything\n", "kill 1 2\n", &"k".repeat(500)] {
        let mut socket = std::os::unix::net::UnixStream::connect(dir.path().join("control.sock")).expect("connect");
        socket.write_all(garbage.as_bytes()).expect("send");
        let mut answer = String::new();
        BufReader::new(socket).read_line(&mut answer).expect("an answer");
        assert_eq!(answer, "error expected 'kill N' or 'restart N'\n", "{garbage:?}");
    }
    assert!(leader_and_isr(&bootstrap, "walk").is_some(), "the cluster serves after garbage orders");

    let (status, printed) = cluster.interrupt();
    assert!(status.success(), "{status}");
    assert!(printed.iter().any(|l| l.contains("strand dev cluster: stopping")), "{printed:?}");
    for address in bootstrap.split(',') {
        assert!(std::net::TcpStream::connect(address).is_err(), "{address} still serves after Ctrl-C");
    }
}

#[test]
fn a_stopped_cluster_starts_again_over_its_data() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().expect("a temp dir");
    let cluster = DevCluster::start(dir.path(), &["--controllers", "1", "--brokers", "2"]);
    assert!(cluster.printed.iter().any(|l| l.contains("ready: 2 brokers, 1 controller")), "{:?}", cluster.printed);
    let bootstrap = cluster.bootstrap.clone();
    let created = shim("kafka-topics.sh", &["--bootstrap-server", &bootstrap, "--create", "--topic", "kept"], "");
    assert_eq!(text(&created.stdout), "Created topic kept.\n", "{}", text(&created.stderr));
    let (status, _) = cluster.interrupt();
    assert!(status.success(), "{status}");

    let none = strand(&["dev", "cluster", "--restart", "1"], dir.path());
    assert_eq!(none.status.code(), Some(1));
    assert!(text(&none.stderr).contains("no dev cluster runs in"), "{}", text(&none.stderr));
    // --clean removes a dev cluster's directory only.
    let precious = tempfile::tempdir().expect("a temp dir");
    std::fs::write(precious.path().join("notes.txt"), "keep me").expect("write");
    let cleaned = strand(&["dev", "cluster", "--clean"], precious.path());
    assert_eq!(cleaned.status.code(), Some(1));
    assert!(text(&cleaned.stderr).contains("holds no cluster.layout"), "{}", text(&cleaned.stderr));
    assert!(precious.path().join("notes.txt").exists(), "--clean removed a directory it did not make");
    // A directory others may write to (their socket, layout or data in it) is refused.
    let shared = tempfile::tempdir().expect("a temp dir");
    std::fs::set_permissions(shared.path(), std::os::unix::fs::PermissionsExt::from_mode(0o777)).expect("chmod");
    let refused = strand(&["dev", "cluster"], shared.path());
    assert_eq!(refused.status.code(), Some(1));
    assert!(text(&refused.stderr).contains("others cannot write to"), "{}", text(&refused.stderr));
    let reshaped = strand(&["dev", "cluster", "--nodes", "3"], dir.path());
    assert_eq!(reshaped.status.code(), Some(1));
    assert!(text(&reshaped.stderr).contains("holds a cluster of another shape"), "{}", text(&reshaped.stderr));

    let again = DevCluster::start(dir.path(), &[]);
    assert_eq!(again.bootstrap, bootstrap, "the same ports as before");
    let listed = shim("kafka-topics.sh", &["--bootstrap-server", &bootstrap, "--list"], "");
    assert_eq!(text(&listed.stdout), "kept\n", "{}", text(&listed.stderr));
    let (status, _) = again.interrupt();
    assert!(status.success(), "{status}");
}
