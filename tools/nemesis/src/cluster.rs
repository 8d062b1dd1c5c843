//! Three `strand` processes, each broker and controller, on free 127.0.0.1 ports with a data dir
//! each under the run's directory: RF 3, `min.insync.replicas=2`, unclean elections off. Every
//! node advertises its proxies (`proxy.rs`): clients reach it through its client proxy, followers
//! through its replication proxy (`inter.broker.listener.name=REPLICATION`), each other voter
//! through a controller proxy of its own.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rustix::process::{Pid, Signal, kill_process};
use strand_protocol::frame::{SIZE_PREFIX_BYTES, decode_response, encode_request};
use strand_protocol::messages::MetadataRequest;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::metadata_request::MetadataRequestTopic;

use crate::proxy::{self, End, Net, Source};

pub const NODES: u8 = 3;
const CLUSTER_ID: &str = "TmVtZXNpc0NsdXN0ZXIwMQ";
/// How long a node may take to serve after it is started.
const READY_MAX: Duration = Duration::from_secs(60);
/// How long a clean shutdown may take before the node is killed.
const SHUTDOWN_MAX: Duration = Duration::from_secs(30);
/// The file in a node's directory whose `name=actions` lines a test build of `strand` applies
/// as failpoints each time it changes (`STRAND_FAILPOINTS_FILE`).
const FAILPOINTS_FILE: &str = "failpoints";
/// How long a node may take to say it set a failpoint (it looks at the file every 20 ms).
const FAILPOINT_SET_MAX: Duration = Duration::from_secs(10);
/// The metadata log's directory, which a simulated loss of unsynced data leaves alone.
const METADATA_DIR: &str = "__cluster_metadata-0";

/// Whether `bin` is a build of `strand` with failpoints compiled in (a test build): only such a
/// build carries the injected sync failure's message.
pub fn has_failpoints(bin: &Path) -> anyhow::Result<bool> {
    let bytes = std::fs::read(bin).with_context(|| format!("reading {}", bin.display()))?;
    let needle = b"injected fdatasync failure";
    Ok(bytes.windows(needle.len()).any(|w| w == needle))
}

/// Copies a file leaving its all-zero blocks as holes: an active segment's index files are
/// preallocated (10 MiB each, nearly all of it a hole) and a plain copy would fill them in.
fn copy_sparse(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    const BLOCK: usize = 64 * 1024;
    let mut source = std::fs::File::open(from)?;
    let mut target = std::fs::File::create(to)?;
    let mut block = vec![0u8; BLOCK];
    let mut length = 0u64;
    loop {
        let mut filled = 0;
        while filled < BLOCK {
            match source.read(&mut block[filled..])? {
                0 => break,
                n => filled += n,
            }
        }
        if filled == 0 {
            break;
        }
        if block[..filled].iter().any(|b| *b != 0) {
            target.seek(SeekFrom::Start(length))?;
            target.write_all(&block[..filled])?;
        }
        length += filled as u64;
        if filled < BLOCK {
            break;
        }
    }
    target.set_len(length)
}

/// Copies the directory tree `from` to `to` (regular files and directories), skipping `skip`.
fn copy_tree(from: &Path, to: &Path, skip: Option<&str>) -> anyhow::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        if skip.is_some_and(|s| entry.file_name() == s) {
            continue;
        }
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&entry.path(), &to.join(entry.file_name()), None)?;
        } else if kind.is_file() {
            match copy_sparse(&entry.path(), &to.join(entry.file_name())) {
                // A file the node deleted while it was copied (a rolled or cleaned segment).
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                other => {
                    other?;
                }
            }
        }
    }
    Ok(())
}

#[derive(Debug)]
struct Node {
    id: u8,
    dir: PathBuf,
    client_port: u16,
    args: Vec<String>,
    child: Option<Child>,
}

#[derive(Debug)]
pub struct Cluster {
    nodes: Vec<Node>,
    net: Arc<Net>,
    /// The client proxies' addresses, for the workload.
    pub bootstrap: Vec<String>,
}

/// A free port, held until the returned listener is dropped.
fn free_port(held: &mut Vec<std::net::TcpListener>) -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    held.push(listener);
    Ok(port)
}

fn local(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}

impl Cluster {
    /// Starts the proxies and the nodes and waits until each serves and lists every node.
    pub fn start(bin: &Path, dir: &Path, runtime: &tokio::runtime::Runtime, net: Arc<Net>) -> anyhow::Result<Cluster> {
        let ids: Vec<u8> = (1..=NODES).collect();
        let mut real = BTreeMap::new(); // id → (client, replication, controller)
        // The nodes' ports stay taken while the proxies pick theirs, so no proxy lands on one.
        let mut held = Vec::new();
        for id in &ids {
            real.insert(*id, (free_port(&mut held)?, free_port(&mut held)?, free_port(&mut held)?));
        }
        let start = |node: u8, source: Source, port: u16| {
            runtime.block_on(proxy::start(net.clone(), node, source, local(port)))
        };
        let mut client_proxy = BTreeMap::new();
        let mut replication_proxy = BTreeMap::new();
        let mut controller_proxy = BTreeMap::new(); // (from, to) → port
        for (&id, &(client, replication, controller)) in &real {
            client_proxy.insert(id, start(id, Source::Fixed(End::Clients), client)?);
            replication_proxy.insert(id, start(id, Source::AnyNode, replication)?);
            for &from in ids.iter().filter(|f| **f != id) {
                controller_proxy.insert((from, id), start(id, Source::Fixed(End::Node(from)), controller)?);
            }
        }
        drop(held);
        let mut nodes = Vec::new();
        for (&id, &(client, replication, controller)) in &real {
            let node_dir = dir.join(format!("node-{id}"));
            std::fs::create_dir_all(node_dir.join("data"))?;
            let voters: Vec<String> = ids
                .iter()
                .map(|&to| match to == id {
                    true => format!("{to}@127.0.0.1:{controller}"),
                    false => format!("{to}@127.0.0.1:{}", controller_proxy[&(id, to)]),
                })
                .collect();
            let settings = [
                format!("node.id={id}"),
                "process.roles=broker,controller".to_owned(),
                format!(
                    "listeners=PLAINTEXT://127.0.0.1:{client},REPLICATION://127.0.0.1:{replication},CONTROLLER://127.0.0.1:{controller}"
                ),
                format!(
                    "advertised.listeners=PLAINTEXT://127.0.0.1:{},REPLICATION://127.0.0.1:{}",
                    client_proxy[&id], replication_proxy[&id]
                ),
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,REPLICATION:PLAINTEXT,CONTROLLER:PLAINTEXT"
                    .to_owned(),
                "inter.broker.listener.name=REPLICATION".to_owned(),
                "controller.listener.names=CONTROLLER".to_owned(),
                format!("controller.quorum.voters={}", voters.join(",")),
                format!("cluster.id={CLUSTER_ID}"),
                format!("log.dirs={}", node_dir.join("data").display()),
                // Lowered as the e2e cluster tests lower them, so faults heal within a run's patience.
                "broker.session.timeout.ms=2000".to_owned(),
                "broker.heartbeat.interval.ms=250".to_owned(),
                "replica.lag.time.max.ms=5000".to_owned(),
                "default.replication.factor=3".to_owned(),
                "min.insync.replicas=2".to_owned(),
                "unclean.leader.election.enable=false".to_owned(),
                "offsets.topic.replication.factor=3".to_owned(),
                "transaction.state.log.replication.factor=3".to_owned(),
                "transaction.state.log.min.isr=2".to_owned(),
                "group.initial.rebalance.delay.ms=0".to_owned(),
                "auto.create.topics.enable=false".to_owned(),
                "leader.imbalance.check.interval.seconds=10".to_owned(),
                // Without a file the node would serve HTTP on localhost:8080, one port for all.
                "http.listeners=".to_owned(),
            ];
            let mut args = vec!["server".to_owned()];
            for setting in settings {
                args.push("--override".to_owned());
                args.push(setting);
            }
            let mut command_line = vec![bin.display().to_string()];
            command_line.extend(args.iter().cloned());
            std::fs::write(node_dir.join("command"), command_line.join(" ") + "\n")?;
            nodes.push(Node { id, dir: node_dir, client_port: client, args, child: None });
        }
        let bootstrap = client_proxy.values().map(|p| format!("127.0.0.1:{p}")).collect();
        let mut cluster = Cluster { nodes, net, bootstrap };
        for id in ids.clone() {
            cluster.spawn(bin, id)?;
        }
        for id in ids {
            cluster.await_ready(id)?;
        }
        Ok(cluster)
    }

    fn node(&mut self, id: u8) -> &mut Node {
        &mut self.nodes[usize::from(id - 1)]
    }

    /// Starts node `id` (its data dir kept), appending to its stdout and stderr files.
    pub fn spawn(&mut self, bin: &Path, id: u8) -> anyhow::Result<()> {
        let node = self.node(id);
        let open = |name: &str| std::fs::OpenOptions::new().create(true).append(true).open(node.dir.join(name));
        // A node starts with no failpoint set; a disk fault sets them through this file.
        let failpoints = node.dir.join(FAILPOINTS_FILE);
        match std::fs::remove_file(&failpoints) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
            _ => {}
        }
        let child = Command::new(bin)
            .args(&node.args)
            .env("STRAND_FAILPOINTS_FILE", &failpoints)
            .stdin(Stdio::null())
            .stdout(open("stdout")?)
            .stderr(open("stderr")?)
            .spawn()
            .with_context(|| format!("starting node {id} ({})", bin.display()))?;
        let pid = child.id();
        node.child = Some(child);
        if let Ok(mut pids) = self.net.pids.lock() {
            pids.insert(id, pid);
        }
        Ok(())
    }

    fn pid(&self, id: u8) -> anyhow::Result<Pid> {
        let child = self.nodes[usize::from(id - 1)].child.as_ref().context("the node is down")?;
        Pid::from_raw(child.id() as i32).context("a process id")
    }

    pub fn signal(&self, id: u8, signal: Signal) -> anyhow::Result<()> {
        Ok(kill_process(self.pid(id)?, signal)?)
    }

    /// `kill -9`, and the process reaped.
    pub fn kill(&mut self, id: u8) -> anyhow::Result<()> {
        self.signal(id, Signal::KILL)?;
        if let Some(mut child) = self.node(id).child.take() {
            child.wait()?;
        }
        Ok(())
    }

    /// SIGTERM (a controlled shutdown), waiting for the exit; killed after `SHUTDOWN_MAX`.
    pub fn terminate(&mut self, id: u8) -> anyhow::Result<()> {
        self.signal(id, Signal::TERM)?;
        let mut child = self.node(id).child.take().context("the node is down")?;
        let deadline = Instant::now() + SHUTDOWN_MAX;
        while child.try_wait()?.is_none() {
            if Instant::now() > deadline {
                eprintln!("nemesis: node {id} did not stop within {SHUTDOWN_MAX:?} of SIGTERM; killing it");
                child.kill()?;
                child.wait()?;
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }

    /// Sets failpoints in node `id` (`name=actions` lines) and waits until it logs that it did;
    /// an error if it never does (a build of `strand` without failpoints).
    pub fn set_failpoints(&mut self, id: u8, actions: &str) -> anyhow::Result<()> {
        let node = self.node(id);
        let count = || {
            let log = std::fs::read_to_string(node.dir.join("stderr")).unwrap_or_default();
            log.lines().filter(|l| l.contains("failpoint ")).count()
        };
        let before = count();
        let tmp = node.dir.join("failpoints.tmp");
        std::fs::write(&tmp, actions)?;
        std::fs::rename(&tmp, node.dir.join(FAILPOINTS_FILE))?;
        let deadline = Instant::now() + FAILPOINT_SET_MAX;
        while count() == before {
            if Instant::now() > deadline {
                bail!(
                    "node {id} did not set the failpoints {actions:?} within {FAILPOINT_SET_MAX:?} (a strand without failpoints?)"
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    /// Waits (at most `max`) for node `id` to exit by itself, and reaps it.
    pub fn await_exit(&mut self, id: u8, max: Duration) -> anyhow::Result<std::process::ExitStatus> {
        let deadline = Instant::now() + max;
        let child = self.node(id).child.as_mut().context("the node is down")?;
        loop {
            if let Some(status) = child.try_wait()? {
                self.node(id).child = None;
                return Ok(status);
            }
            if Instant::now() > deadline {
                bail!("node {id} still ran {max:?} after its syncs began to fail");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Copies node `id`'s data dir, the metadata log's directory excepted, to `<node>/snapshot`.
    pub fn snapshot_data(&mut self, id: u8) -> anyhow::Result<()> {
        let node = self.node(id);
        let snapshot = node.dir.join("snapshot");
        if snapshot.exists() {
            std::fs::remove_dir_all(&snapshot)?;
        }
        copy_tree(&node.dir.join("data"), &snapshot, Some(METADATA_DIR))
    }

    /// Puts node `id`'s (stopped) data dir back as [`Cluster::snapshot_data`] copied it: every
    /// partition's log as it was then, the metadata log as it is now.
    pub fn restore_data(&mut self, id: u8) -> anyhow::Result<()> {
        let node = self.node(id);
        anyhow::ensure!(node.child.is_none(), "node {id} still runs");
        let data = node.dir.join("data");
        for entry in std::fs::read_dir(&data)? {
            let entry = entry?;
            if entry.file_name() == METADATA_DIR {
                continue;
            }
            match entry.file_type()?.is_dir() {
                true => std::fs::remove_dir_all(entry.path())?,
                false => std::fs::remove_file(entry.path())?,
            }
        }
        let snapshot = node.dir.join("snapshot");
        copy_tree(&snapshot, &data, None)?;
        std::fs::remove_dir_all(&snapshot)?;
        Ok(())
    }

    /// Whether each node still runs (a node that exited by itself is an error of the run).
    pub fn exited(&mut self) -> Vec<(u8, String)> {
        let mut out = Vec::new();
        for node in &mut self.nodes {
            if let Some(child) = node.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                out.push((node.id, status.to_string()));
                node.child = None;
            }
        }
        out
    }

    /// Waits until node `id` answers Metadata on its own port listing every node.
    pub fn await_ready(&mut self, id: u8) -> anyhow::Result<()> {
        let deadline = Instant::now() + READY_MAX;
        let mut last = String::from("never answered");
        while Instant::now() < deadline {
            if let Some(child) = self.node(id).child.as_mut()
                && let Some(status) = child.try_wait()?
            {
                bail!("node {id} exited before it served ({status}); see {}", self.node(id).dir.display());
            }
            match self.metadata(id, None) {
                Ok(m) if m.brokers.len() == usize::from(NODES) => return Ok(()),
                Ok(m) => last = format!("it listed {} brokers", m.brokers.len()),
                Err(e) => last = e.to_string(),
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        bail!("node {id} did not serve within {READY_MAX:?}: {last}")
    }

    /// A Metadata request straight to node `id`'s own client port (no proxy).
    pub fn metadata(&self, id: u8, topic: Option<&str>) -> anyhow::Result<strand_protocol::messages::MetadataResponse> {
        let port = self.nodes[usize::from(id - 1)].client_port;
        let mut stream = TcpStream::connect_timeout(&local(port), Duration::from_secs(2))?;
        stream.set_read_timeout(Some(Duration::from_secs(5)))?;
        let topics = topic.map(|t| vec![MetadataRequestTopic { name: Some(t.to_owned()), ..Default::default() }]);
        let request =
            RequestBody::Metadata(MetadataRequest { topics, allow_auto_topic_creation: false, ..Default::default() });
        stream.write_all(&encode_request(1, Some("nemesis"), &request, 12)?)?;
        let mut prefix = [0u8; SIZE_PREFIX_BYTES];
        stream.read_exact(&mut prefix)?;
        let mut frame = vec![0u8; u32::from_be_bytes(prefix) as usize];
        stream.read_exact(&mut frame)?;
        match decode_response(request.api_key(), 12, bytes::Bytes::from(frame))?.1 {
            ResponseBody::Metadata(m) => Ok(m),
            _ => bail!("not a Metadata response"),
        }
    }

    /// The leader of each partition of `topic` as a running node sees it.
    pub fn leaders(&self, topic: &str) -> BTreeMap<i32, u8> {
        for node in self.nodes.iter().filter(|n| n.child.is_some()) {
            if let Ok(m) = self.metadata(node.id, Some(topic)) {
                let partitions = m.topics.iter().flat_map(|t| &t.partitions);
                let leaders: BTreeMap<i32, u8> = partitions
                    .filter_map(|p| {
                        u8::try_from(p.leader_id.0).ok().filter(|l| *l >= 1).map(|l| (p.partition_index, l))
                    })
                    .collect();
                if !leaders.is_empty() {
                    return leaders;
                }
            }
        }
        BTreeMap::new()
    }

    /// The node that last logged that it is the active controller and has not since said it stopped.
    pub fn active_controller(&self) -> Option<u8> {
        self.nodes.iter().filter(|n| n.child.is_some()).map(|n| n.id).find(|id| {
            let log = std::fs::read_to_string(self.nodes[usize::from(id - 1)].dir.join("stderr")).unwrap_or_default();
            log.lines().rev().find(|l| l.contains("active controller")).is_some_and(|l| l.contains(" is the active"))
        })
    }

    pub fn is_up(&self, id: u8) -> bool {
        self.nodes[usize::from(id - 1)].child.is_some()
    }

    /// Stops every node (SIGCONT first, in case one is paused) and kills what does not stop.
    pub fn stop(&mut self) {
        for id in 1..=NODES {
            if self.is_up(id) {
                let _ = self.signal(id, Signal::CONT);
                if self.terminate(id).is_err() {
                    let _ = self.kill(id);
                }
            }
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for node in &mut self.nodes {
            if let Some(mut child) = node.child.take() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{FileExt, MetadataExt};

    use super::*;

    #[test]
    fn a_sparse_copy_keeps_the_contents_and_the_holes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (from, to) = (dir.path().join("from"), dir.path().join("to"));
        let file = std::fs::File::create(&from).expect("create");
        file.set_len(10 << 20).expect("set_len");
        file.write_all_at(b"head", 0).expect("write");
        file.write_all_at(b"middle", 5 << 20).expect("write");
        copy_sparse(&from, &to).expect("copy");
        assert_eq!(std::fs::read(&from).expect("read"), std::fs::read(&to).expect("read"));
        let allocated = std::fs::metadata(&to).expect("metadata").blocks() * 512;
        assert!(allocated < 1 << 20, "{allocated} bytes allocated for two written blocks");
    }
}
