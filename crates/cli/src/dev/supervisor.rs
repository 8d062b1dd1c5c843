//! The running dev cluster: its nodes as child `strand server` processes, their log lines
//! printed behind each node's name, orders from [`super::control`], and a clean stop.
//!
//! One task, [`Supervisor::serve`], owns every node's state and reacts to [`Event`]s: a node's
//! log line, a node's exit, an order from the control socket, the brokers' registration. Each
//! child runs in its own process group, so a Ctrl-C in the terminal reaches only the
//! supervisor, which (on SIGINT, SIGTERM or SIGHUP) stops the broker-only nodes first, then the
//! rest (each SIGTERM, SIGKILL after [`STOP_WAIT_MAX`]). A child is also killed if the
//! supervisor itself dies (its parent death signal), so no node outlives it holding the
//! cluster's ports.

use std::io::{BufRead, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, bail};
use rustix::process::{Pid, Signal, kill_process};
use tokio::io::AsyncWriteExt;
use tokio::net::{UnixListener, UnixStream};
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;

use super::DevClusterArgs;
use super::control::{self, Order};
use super::layout::{Layout, NodeSpec, Shape};

/// Events queued for the supervisor; a node's log reader waits when it is full.
const EVENTS_QUEUED_MAX: usize = 1024;

/// The longest log line printed as one; a longer one continues on the next line.
const LINE_BYTES_MAX: u64 = 64 * 1024;

/// How long a stopping node may take before it is killed.
const STOP_WAIT_MAX: Duration = Duration::from_secs(30);

/// The most control connections read at once.
const ORDERS_AT_ONCE_MAX: usize = 8;

/// How long the control socket waits after a failed accept (out of descriptors, say).
const ACCEPT_RETRY_PAUSE: Duration = Duration::from_millis(200);

/// How long the brokers may take to register once every node serves.
const REGISTRATION_WAIT_MAX: Duration = Duration::from_secs(120);

/// What the supervisor reacts to.
enum Event {
    /// A log line of node `node`.
    Line { node: i32, text: String },
    /// Run `generation` of node `node` ended.
    Exited { node: i32, generation: u64, status: String },
    /// An order from the control socket, and where its answer goes.
    Order { order: Order, answer: UnixStream },
    /// How many brokers DescribeCluster listed, or why it could not be asked.
    Registered(Result<usize, String>),
}

/// A node's process while it runs.
struct Running {
    pid: Option<Pid>,
    generation: u64,
    /// It logged that it serves.
    ready: bool,
}

/// An order waiting on a node.
enum Waiting {
    /// Its exit (a kill; a restart, which then starts it).
    Exit { restart: bool, answer: UnixStream },
    /// Its ready line (a restart).
    Ready { answer: UnixStream },
}

struct NodeState {
    spec: NodeSpec,
    running: Option<Running>,
    generations: u64,
    waiting: Option<Waiting>,
}

/// Starts the cluster `args` describes and runs it until Ctrl-C or SIGTERM.
pub fn run(args: &DevClusterArgs) -> anyhow::Result<()> {
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let (layout, listener) = prepare(args)?;
        let (events, receiver) = mpsc::channel(EVENTS_QUEUED_MAX);
        let nodes = layout
            .nodes
            .iter()
            .map(|spec| NodeState { spec: spec.clone(), running: None, generations: 0, waiting: None })
            .collect();
        let mut supervisor = Supervisor { layout, args, nodes, events, announced: false, stopping: false };
        tokio::spawn(accept_orders(listener, supervisor.events.clone()));
        let served = supervisor.serve(receiver).await;
        let _ = std::fs::remove_file(control::socket_path(&args.dir));
        served
    })
}

/// Makes the cluster's directory and layout ready and binds its control socket.
fn prepare(args: &DevClusterArgs) -> anyhow::Result<(Layout, UnixListener)> {
    let dir = &args.dir;
    let socket = control::socket_path(dir);
    if std::os::unix::net::UnixStream::connect(&socket).is_ok() {
        bail!("a dev cluster already runs in {} (stop it with Ctrl-C first)", dir.display());
    }
    if args.clean && dir.exists() {
        // Only what a dev cluster made: never a directory someone named by mistake.
        if Layout::read(dir)?.is_none() {
            bail!("--clean removes only a dev cluster's directory, and {} holds no cluster.layout", dir.display());
        }
        std::fs::remove_dir_all(dir).with_context(|| format!("cannot remove {}", dir.display()))?;
    }
    own_dir(dir)?;
    let shape = match (args.nodes, args.controllers, args.brokers) {
        (Some(nodes), _, _) => Some(Shape::Combined(nodes)),
        (None, Some(controllers), Some(brokers)) => Some(Shape::Separate { controllers, brokers }),
        _ => None,
    };
    let layout = match Layout::read(dir)? {
        Some(kept) => {
            if shape.is_some_and(|shape| !kept.has_shape(shape)) || args.port.is_some() {
                bail!(
                    "{} holds a cluster of another shape or ports: start it without --nodes, --controllers, \
                     --brokers and --port, or give --clean or another --dir",
                    dir.display()
                );
            }
            kept
        }
        None => {
            let layout = Layout::new(shape.unwrap_or(Shape::Combined(3)), args.port)?;
            layout.write(dir)?;
            layout
        }
    };
    match std::fs::remove_file(&socket) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("cannot remove the stale {}", socket.display())),
    }
    let listener = UnixListener::bind(&socket).with_context(|| format!("cannot listen on {}", socket.display()))?;
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))
        .with_context(|| format!("cannot make {} the owner's only", socket.display()))?;
    Ok((layout, listener))
}

/// Makes `dir` (the owner's only) if missing, and refuses one another user owns or may write
/// to: its control socket, layout and data must be this user's alone.
fn own_dir(dir: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true).mode(0o700);
    builder.create(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let metadata = std::fs::symlink_metadata(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    let mine = metadata.uid() == rustix::process::geteuid().as_raw();
    if !metadata.is_dir() || !mine || metadata.mode() & 0o002 != 0 {
        bail!("{} is not a directory of this user's that others cannot write to: give another --dir", dir.display());
    }
    Ok(())
}

/// Hands each control connection's order to the supervisor, reading at most
/// [`ORDERS_AT_ONCE_MAX`] at a time (a connection beyond them is closed unread).
async fn accept_orders(listener: UnixListener, events: mpsc::Sender<Event>) {
    let reading = std::sync::Arc::new(tokio::sync::Semaphore::new(ORDERS_AT_ONCE_MAX));
    loop {
        let mut stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                say(&format!("strand dev cluster: the control socket failed to accept: {e}"));
                tokio::time::sleep(ACCEPT_RETRY_PAUSE).await;
                continue;
            }
        };
        let Ok(permit) = reading.clone().try_acquire_owned() else { continue };
        let events = events.clone();
        tokio::spawn(async move {
            let _permit = permit;
            match control::read_order(&mut stream).await {
                Some(order) => {
                    let _ = events.send(Event::Order { order, answer: stream }).await;
                }
                None => answer(stream, Err("expected 'kill N' or 'restart N'".to_owned())).await,
            }
        });
    }
}

struct Supervisor<'a> {
    layout: Layout,
    args: &'a DevClusterArgs,
    nodes: Vec<NodeState>,
    events: mpsc::Sender<Event>,
    /// The bootstrap string was printed.
    announced: bool,
    /// Ctrl-C came: no node starts again.
    stopping: bool,
}

impl Supervisor<'_> {
    /// Starts every node, then reacts to events until Ctrl-C or SIGTERM, then stops the nodes.
    async fn serve(&mut self, mut events: mpsc::Receiver<Event>) -> anyhow::Result<()> {
        let mut interrupt = signal(SignalKind::interrupt()).context("cannot watch for Ctrl-C")?;
        let mut terminate = signal(SignalKind::terminate()).context("cannot watch for SIGTERM")?;
        // A closed terminal stops the cluster too (the nodes, in their own process groups, would
        // not hear of it).
        let mut hangup = signal(SignalKind::hangup()).context("cannot watch for SIGHUP")?;
        say(&format!(
            "strand dev cluster: {} nodes, cluster id {}, data in {}",
            self.layout.nodes.len(),
            self.layout.cluster_id,
            self.args.dir.display()
        ));
        for index in 0..self.nodes.len() {
            self.start(index);
        }
        loop {
            tokio::select! {
                _ = interrupt.recv() => break,
                _ = terminate.recv() => break,
                _ = hangup.recv() => break,
                Some(event) = events.recv() => self.react(event).await,
            }
        }
        self.stop_all(&mut events).await;
        say(&format!("strand dev cluster: stopped; data kept in {}", self.args.dir.display()));
        Ok(())
    }

    async fn react(&mut self, event: Event) {
        match event {
            Event::Line { node, text } => self.line(node, &text).await,
            Event::Exited { node, generation, status } => self.exited(node, generation, &status).await,
            Event::Order { order, answer: stream } => self.order(order, stream).await,
            Event::Registered(Ok(_)) => self.announce(),
            Event::Registered(Err(why)) => say(&format!("strand dev cluster: the brokers did not all register: {why}")),
        }
    }

    /// Starts node `index` as a child process; whether it started.
    fn start(&mut self, index: usize) -> bool {
        let node = &mut self.nodes[index];
        node.generations += 1;
        let generation = node.generations;
        let id = node.spec.id;
        let settings = self.layout.settings(&node.spec, &self.args.dir);
        match spawn_node(id, generation, settings.iter().chain(&self.args.overrides), &self.events) {
            Ok(pid) => {
                node.running = Some(Running { pid, generation, ready: false });
                true
            }
            Err(e) => {
                say(&format!("strand dev cluster: node {id} did not start: {e:#}"));
                false
            }
        }
    }

    async fn line(&mut self, id: i32, text: &str) {
        say(&format!("{:<8}| {text}", format!("node-{id}")));
        let Some(node) = self.nodes.iter_mut().find(|n| n.spec.id == id) else { return };
        let marker = if node.spec.broker_port.is_some() { "listening on PLAINTEXT://" } else { "controller only" };
        let Some(running) = node.running.as_mut().filter(|r| !r.ready && text.contains(marker)) else { return };
        running.ready = true;
        if let Some(Waiting::Ready { answer: stream }) = node.waiting.take() {
            answer(stream, Ok(format!("node {id} restarted"))).await;
        }
        if !self.announced && self.nodes.iter().all(|n| n.running.as_ref().is_some_and(|r| r.ready)) {
            tokio::spawn(registration(self.layout.bootstrap(), self.brokers(), self.events.clone()));
        }
    }

    async fn exited(&mut self, id: i32, generation: u64, status: &str) {
        let Some(index) = self.nodes.iter().position(|n| n.spec.id == id) else { return };
        let node = &mut self.nodes[index];
        if node.running.as_ref().is_none_or(|r| r.generation != generation) {
            return;
        }
        node.running = None;
        say(&format!("strand dev cluster: node {id} exited ({status})"));
        match node.waiting.take() {
            Some(Waiting::Exit { restart: false, answer: stream }) => {
                answer(stream, Ok(format!("node {id} killed"))).await
            }
            Some(Waiting::Exit { restart: true, answer: stream }) => self.start_ordered(index, stream).await,
            Some(Waiting::Ready { answer: stream }) => {
                answer(stream, Err(format!("node {id} exited before it served: {status}"))).await;
            }
            None => {}
        }
    }

    async fn order(&mut self, order: Order, stream: UnixStream) {
        let id = order.node();
        let Some(index) = self.nodes.iter().position(|n| n.spec.id == id) else {
            let ids: Vec<String> = self.nodes.iter().map(|n| n.spec.id.to_string()).collect();
            return answer(stream, Err(format!("there is no node {id} (nodes: {})", ids.join(", ")))).await;
        };
        let node = &mut self.nodes[index];
        if node.waiting.is_some() {
            return answer(stream, Err(format!("node {id} is being killed or restarted already"))).await;
        }
        let pid = node.running.as_ref().and_then(|r| r.pid);
        match (order, pid) {
            (Order::Kill(_), None) => answer(stream, Err(format!("node {id} is not running"))).await,
            (Order::Kill(_), Some(pid)) => {
                say(&format!("strand dev cluster: killing node {id} (SIGKILL)"));
                node.waiting = Some(Waiting::Exit { restart: false, answer: stream });
                let _ = kill_process(pid, Signal::KILL);
            }
            (Order::Restart(_), Some(pid)) => {
                say(&format!("strand dev cluster: restarting node {id}"));
                node.waiting = Some(Waiting::Exit { restart: true, answer: stream });
                let _ = kill_process(pid, Signal::TERM);
            }
            (Order::Restart(_), None) => {
                say(&format!("strand dev cluster: starting node {id}"));
                self.start_ordered(index, stream).await;
            }
        }
    }

    /// Starts node `index` for an order, answered once it serves (or at once if it cannot start).
    async fn start_ordered(&mut self, index: usize, stream: UnixStream) {
        let id = self.nodes[index].spec.id;
        if self.stopping {
            answer(stream, Err(format!("node {id} stopped; the cluster is stopping"))).await;
        } else if self.start(index) {
            self.nodes[index].waiting = Some(Waiting::Ready { answer: stream });
        } else {
            answer(stream, Err(format!("node {id} did not start (its reason is printed where the cluster runs)")))
                .await;
        }
    }

    fn brokers(&self) -> usize {
        self.nodes.iter().filter(|n| n.spec.broker_port.is_some()).count()
    }

    /// Prints where the cluster is served, once.
    fn announce(&mut self) {
        if self.announced {
            return;
        }
        self.announced = true;
        let controllers = self.nodes.iter().filter(|n| n.spec.controller_port.is_some()).count();
        let mut lines = vec![
            format!(
                "strand dev cluster ready: {}, {}",
                counted(self.brokers(), "broker"),
                counted(controllers, "controller")
            ),
            format!("  bootstrap servers: {}", self.layout.bootstrap()),
        ];
        if let Some(port) = self.nodes.iter().find_map(|n| n.spec.http_port) {
            lines.push(format!("  console: http://127.0.0.1:{port}/"));
        }
        lines.push(format!(
            "  from another terminal: strand dev cluster --dir {} --kill N (or --restart N); Ctrl-C here stops it",
            self.args.dir.display()
        ));
        say(&lines.join("\n"));
    }

    /// Stops the broker-only nodes, then the rest, each waited for up to [`STOP_WAIT_MAX`].
    async fn stop_all(&mut self, events: &mut mpsc::Receiver<Event>) {
        say("strand dev cluster: stopping");
        self.stopping = true;
        for brokers_only in [true, false] {
            let stopping: Vec<i32> = self
                .nodes
                .iter()
                .filter(|n| n.running.is_some() && (!brokers_only || n.spec.controller_port.is_none()))
                .map(|n| n.spec.id)
                .collect();
            self.signal(&stopping, Signal::TERM);
            let waited = tokio::time::timeout(STOP_WAIT_MAX, self.await_exits(&stopping, events)).await;
            if waited.is_err() {
                say("strand dev cluster: killing the nodes that did not stop in time");
                self.signal(&stopping, Signal::KILL);
                let _ = tokio::time::timeout(STOP_WAIT_MAX, self.await_exits(&stopping, events)).await;
            }
        }
    }

    fn signal(&self, ids: &[i32], signal: Signal) {
        for node in self.nodes.iter().filter(|n| ids.contains(&n.spec.id)) {
            if let Some(pid) = node.running.as_ref().and_then(|r| r.pid) {
                let _ = kill_process(pid, signal);
            }
        }
    }

    /// Prints lines until every node of `ids` has exited; orders meanwhile are refused.
    async fn await_exits(&mut self, ids: &[i32], events: &mut mpsc::Receiver<Event>) {
        while self.nodes.iter().any(|n| ids.contains(&n.spec.id) && n.running.is_some()) {
            match events.recv().await {
                Some(Event::Order { answer: stream, .. }) => {
                    answer(stream, Err("the cluster is stopping".to_owned())).await;
                }
                Some(Event::Registered(_)) => {}
                Some(event) => self.react(event).await,
                None => return,
            }
        }
    }
}

/// Spawns node `id`'s process with `settings`; its output and exit become events, read on
/// threads of their own (a node's output is a pipe the runtime would otherwise block on).
#[allow(unsafe_code)] // `pre_exec`, see its SAFETY note
fn spawn_node<'s>(
    id: i32,
    generation: u64,
    settings: impl Iterator<Item = &'s String>,
    events: &mpsc::Sender<Event>,
) -> anyhow::Result<Option<Pid>> {
    let exe = std::env::current_exe().context("cannot find the strand executable")?;
    let mut command = std::process::Command::new(exe);
    command.arg("server");
    for setting in settings {
        command.args(["--override", setting]);
    }
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    // SAFETY: between fork and exec the closure makes one system call (prctl), which is
    // async-signal-safe, and touches no memory of the parent.
    unsafe {
        command.pre_exec(|| {
            // A supervisor killed outright takes its nodes with it rather than leaving them
            // holding the cluster's ports.
            rustix::process::set_parent_process_death_signal(Some(Signal::KILL)).map_err(std::io::Error::from)
        });
    }
    let mut child = command.spawn().context("cannot run strand server")?;
    let pid = i32::try_from(child.id()).ok().and_then(Pid::from_raw);
    let outputs: [Option<Box<dyn Read + Send>>; 2] = [
        child.stdout.take().map(|out| Box::new(out) as Box<dyn Read + Send>),
        child.stderr.take().map(|err| Box::new(err) as Box<dyn Read + Send>),
    ];
    let mut readers = Vec::new();
    for output in outputs.into_iter().flatten() {
        let events = events.clone();
        let reader = std::thread::Builder::new()
            .name(format!("node-{id}-output"))
            .spawn(move || forward_lines(id, output, &events))
            .context("cannot start a thread")?;
        readers.push(reader);
    }
    let events = events.clone();
    std::thread::Builder::new()
        .name(format!("node-{id}-wait"))
        .spawn(move || {
            let status = match child.wait() {
                Ok(status) => status.to_string(),
                Err(e) => format!("cannot tell how: {e}"),
            };
            // Its last lines (a crash's reason) come before the news of its exit.
            for reader in readers {
                let _ = reader.join();
            }
            let _ = events.blocking_send(Event::Exited { node: id, generation, status });
        })
        .context("cannot start a thread")?;
    Ok(pid)
}

/// Sends each line of a node's `output` as an event, cut at [`LINE_BYTES_MAX`].
fn forward_lines(node: i32, output: Box<dyn Read + Send>, events: &mpsc::Sender<Event>) {
    let mut reader = std::io::BufReader::new(output);
    let mut line = Vec::new();
    loop {
        line.clear();
        match (&mut reader).take(LINE_BYTES_MAX).read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                let text = String::from_utf8_lossy(&line).trim_end().to_owned();
                if events.blocking_send(Event::Line { node, text }).is_err() {
                    return;
                }
            }
        }
    }
}

/// Asks the brokers until DescribeCluster lists all `brokers` of them.
async fn registration(bootstrap: String, brokers: usize, events: mpsc::Sender<Event>) {
    let why = |failure: crate::tool::Failure| match failure {
        crate::tool::Failure::Usage(why) | crate::tool::Failure::Operation(why) => why,
    };
    let asked = async {
        let config = crate::tool::client_config(&bootstrap, None).map_err(why)?;
        let admin = crate::tool::admin(config).await.map_err(why)?;
        loop {
            let listed = admin.describe_cluster().await.map(|c| c.nodes.len()).unwrap_or(0);
            if listed >= brokers {
                return Ok(listed);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    };
    let outcome = tokio::time::timeout(REGISTRATION_WAIT_MAX, asked)
        .await
        .unwrap_or_else(|_| Err(format!("fewer than {brokers} within {REGISTRATION_WAIT_MAX:?}")));
    let _ = events.send(Event::Registered(outcome)).await;
}

/// Answers an order's connection: `ok` or `error`, one line.
async fn answer(mut stream: UnixStream, outcome: Result<String, String>) {
    let line = match outcome {
        Ok(message) => format!("ok {message}\n"),
        Err(message) => format!("error {message}\n"),
    };
    let _ = stream.write_all(line.as_bytes()).await;
}

/// `count` `noun`s, in English.
fn counted(count: usize, noun: &str) -> String {
    if count == 1 { format!("1 {noun}") } else { format!("{count} {noun}s") }
}

/// Prints `text` on stdout, ignoring a closed one.
fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}
