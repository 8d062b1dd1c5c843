//! A dev cluster's shape: its id, and each node's roles and ports, kept in `DIR/cluster.layout`
//! so a later start in the same directory finds its data where it left it.
//!
//! The file is text, one `key=value` line for the id and one line per node:
//!
//! ```text
//! cluster.id=MkU3OEVBNTcwNTJENDM2Qg
//! node=1 broker=19092 controller=19192 http=19292
//! node=4 broker=19095 http=19295
//! ```
//!
//! A node with a `broker` port has the broker role, with a `controller` port the controller
//! role; `http` is its console's port (brokers only).

use std::net::TcpListener;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// The most nodes one dev cluster runs (a demo on one machine, not a deployment).
pub const DEV_NODES_MAX: u16 = 16;

/// How far apart the port ranges of `--port P` are: brokers from P, controllers from
/// P + `PORT_STRIDE`, consoles from P + 2 * `PORT_STRIDE`.
const PORT_STRIDE: u16 = 100;

/// The file a cluster's layout is kept in, under its directory.
const LAYOUT_FILE: &str = "cluster.layout";

/// One node of a dev cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeSpec {
    pub id: i32,
    /// Its PLAINTEXT listener's port, when it is a broker.
    pub broker_port: Option<u16>,
    /// Its CONTROLLER listener's port, when it is a controller.
    pub controller_port: Option<u16>,
    /// Its console's port (brokers only).
    pub http_port: Option<u16>,
}

/// A dev cluster: its id and nodes, in id order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub cluster_id: String,
    pub nodes: Vec<NodeSpec>,
}

/// The shape asked for on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Every node broker and controller.
    Combined(u16),
    /// Controller-only nodes, then broker-only ones.
    Separate { controllers: u16, brokers: u16 },
}

impl Shape {
    fn counts(self) -> (u16, u16, u16) {
        match self {
            Shape::Combined(nodes) => (nodes, nodes, nodes),
            Shape::Separate { controllers, brokers } => (controllers + brokers, controllers, brokers),
        }
    }
}

impl Layout {
    /// A new cluster of `shape`, on ports from `base` or free ones.
    pub fn new(shape: Shape, base: Option<u16>) -> anyhow::Result<Layout> {
        let (total, controllers, brokers) = shape.counts();
        if controllers == 0 || brokers == 0 {
            bail!("a cluster needs at least one controller and one broker");
        }
        if total > DEV_NODES_MAX {
            bail!("a dev cluster runs at most {DEV_NODES_MAX} nodes, not {total}");
        }
        let ports = match base {
            Some(base) => ranged_ports(base, controllers, brokers)?,
            None => free_ports(controllers, brokers)?,
        };
        let (mut controller_ports, mut broker_ports) = (ports.0.into_iter(), ports.1.into_iter());
        let mut http_ports = ports.2.into_iter();
        let nodes = (1..=i32::from(total))
            .map(|id| {
                let controller = match shape {
                    Shape::Combined(_) => true,
                    Shape::Separate { controllers, .. } => id <= i32::from(controllers),
                };
                let broker = matches!(shape, Shape::Combined(_)) || !controller;
                NodeSpec {
                    id,
                    broker_port: if broker { broker_ports.next() } else { None },
                    controller_port: if controller { controller_ports.next() } else { None },
                    http_port: if broker { http_ports.next() } else { None },
                }
            })
            .collect();
        Ok(Layout { cluster_id: crate::storage::random_uuid()?.to_string(), nodes })
    }

    /// Whether this cluster has `shape`.
    pub fn has_shape(&self, shape: Shape) -> bool {
        let (total, controllers, brokers) = shape.counts();
        let count = |role: fn(&NodeSpec) -> bool| self.nodes.iter().filter(|n| role(n)).count();
        self.nodes.len() == usize::from(total)
            && count(|n| n.controller_port.is_some()) == usize::from(controllers)
            && count(|n| n.broker_port.is_some()) == usize::from(brokers)
    }

    /// The layout kept in `dir`, if any.
    pub fn read(dir: &Path) -> anyhow::Result<Option<Layout>> {
        let path = dir.join(LAYOUT_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        Layout::parse(&text).with_context(|| format!("{} is not a dev cluster's layout", path.display())).map(Some)
    }

    /// Writes the layout into `dir` (a new file renamed over the old).
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        let path = dir.join(LAYOUT_FILE);
        let written = dir.join(format!("{LAYOUT_FILE}.new"));
        std::fs::write(&written, self.to_text()).with_context(|| format!("cannot write {}", written.display()))?;
        std::fs::rename(&written, &path).with_context(|| format!("cannot write {}", path.display()))
    }

    fn to_text(&self) -> String {
        let mut text = format!("# strand dev cluster: this directory's cluster\ncluster.id={}\n", self.cluster_id);
        for node in &self.nodes {
            text += &format!("node={}", node.id);
            let ports = [("broker", node.broker_port), ("controller", node.controller_port), ("http", node.http_port)];
            for (name, port) in ports {
                if let Some(port) = port {
                    text += &format!(" {name}={port}");
                }
            }
            text.push('\n');
        }
        text
    }

    fn parse(text: &str) -> anyhow::Result<Layout> {
        let mut cluster_id = None;
        let mut nodes = Vec::new();
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
            if let Some(id) = line.strip_prefix("cluster.id=") {
                cluster_id = Some(id.to_owned());
                continue;
            }
            let mut node = NodeSpec { id: 0, broker_port: None, controller_port: None, http_port: None };
            for field in line.split_whitespace() {
                let (key, value) = field.split_once('=').with_context(|| format!("no '=' in {field:?}"))?;
                let port = || value.parse::<u16>().with_context(|| format!("{key} is not a port: {value:?}"));
                match key {
                    "node" => node.id = value.parse().with_context(|| format!("not a node id: {value:?}"))?,
                    "broker" => node.broker_port = Some(port()?),
                    "controller" => node.controller_port = Some(port()?),
                    "http" => node.http_port = Some(port()?),
                    other => bail!("unknown field {other:?}"),
                }
            }
            if node.id <= 0 || (node.broker_port.is_none() && node.controller_port.is_none()) {
                bail!("line {line:?} names no node with a role");
            }
            nodes.push(node);
        }
        let cluster_id = cluster_id.context("no cluster.id")?;
        if nodes.is_empty() || nodes.len() > usize::from(DEV_NODES_MAX) {
            bail!("{} nodes (1 to {DEV_NODES_MAX} expected)", nodes.len());
        }
        Ok(Layout { cluster_id, nodes })
    }

    /// `host:port` of every broker, for `bootstrap.servers`.
    pub fn bootstrap(&self) -> String {
        let brokers = self.nodes.iter().filter_map(|n| n.broker_port);
        brokers.map(|port| format!("127.0.0.1:{port}")).collect::<Vec<_>>().join(",")
    }

    /// `controller.quorum.voters`.
    pub fn voters(&self) -> String {
        let voters = self.nodes.iter().filter_map(|n| n.controller_port.map(|port| (n.id, port)));
        voters.map(|(id, port)| format!("{id}@127.0.0.1:{port}")).collect::<Vec<_>>().join(",")
    }

    /// The settings node `spec` runs with before the user's overrides: its roles and listeners,
    /// the quorum, the cluster id, its data under `dir`, and the internal topics' replication
    /// lowered to what the brokers can hold.
    pub fn settings(&self, spec: &NodeSpec, dir: &Path) -> Vec<String> {
        let roles = match (spec.broker_port, spec.controller_port) {
            (Some(_), Some(_)) => "broker,controller",
            (Some(_), None) => "broker",
            _ => "controller",
        };
        let mut listeners = Vec::new();
        if let Some(port) = spec.broker_port {
            listeners.push(format!("PLAINTEXT://127.0.0.1:{port}"));
        }
        if let Some(port) = spec.controller_port {
            listeners.push(format!("CONTROLLER://127.0.0.1:{port}"));
        }
        let brokers = self.nodes.iter().filter(|n| n.broker_port.is_some()).count();
        let replicas = brokers.min(3);
        let min_isr = brokers.min(2);
        let http = spec.http_port.map(|port| format!("http://127.0.0.1:{port}")).unwrap_or_default();
        let mut settings = vec![
            format!("node.id={}", spec.id),
            format!("process.roles={roles}"),
            format!("listeners={}", listeners.join(",")),
            "controller.listener.names=CONTROLLER".to_owned(),
            format!("controller.quorum.voters={}", self.voters()),
            format!("cluster.id={}", self.cluster_id),
            format!("log.dirs={}", node_dir(dir, spec.id).display()),
            format!("http.listeners={http}"),
            format!("offsets.topic.replication.factor={replicas}"),
            format!("transaction.state.log.replication.factor={replicas}"),
            format!("transaction.state.log.min.isr={min_isr}"),
            format!("share.coordinator.state.topic.replication.factor={replicas}"),
            format!("share.coordinator.state.topic.min.isr={min_isr}"),
        ];
        if let Some(port) = spec.broker_port {
            settings.push(format!("advertised.listeners=PLAINTEXT://127.0.0.1:{port}"));
        }
        settings
    }
}

/// Node `id`'s data directory under the cluster's `dir`.
pub fn node_dir(dir: &Path, id: i32) -> PathBuf {
    dir.join(format!("node-{id}"))
}

type Ports = (Vec<u16>, Vec<u16>, Vec<u16>);

/// Controller, broker and console ports from `base` (see [`PORT_STRIDE`]).
fn ranged_ports(base: u16, controllers: u16, brokers: u16) -> anyhow::Result<Ports> {
    let range = |from: u32, count: u16| -> anyhow::Result<Vec<u16>> {
        (from..from + u32::from(count))
            .map(|port| {
                u16::try_from(port).ok().filter(|p| *p > 0).context("--port leaves no room for every node's ports")
            })
            .collect()
    };
    let base = u32::from(base);
    let stride = u32::from(PORT_STRIDE);
    Ok((range(base + stride, controllers)?, range(base, brokers)?, range(base + 2 * stride, brokers)?))
}

/// Free loopback ports: every one held until all are chosen, so none is chosen twice.
#[allow(clippy::disallowed_methods)] // Bound only to learn a free port; released for the nodes.
fn free_ports(controllers: u16, brokers: u16) -> anyhow::Result<Ports> {
    let count = usize::from(controllers) + 2 * usize::from(brokers);
    let held = (0..count)
        .map(|_| TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr().map(|a| (l, a.port()))))
        .collect::<std::io::Result<Vec<_>>>()
        .context("cannot find free loopback ports")?;
    let mut ports = held.iter().map(|(_, port)| *port);
    let mut take = |n: u16| ports.by_ref().take(usize::from(n)).collect::<Vec<u16>>();
    Ok((take(controllers), take(brokers), take(brokers)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_from_shapes_and_ports() {
        let combined = Layout::new(Shape::Combined(3), Some(19092)).expect("a layout");
        let ports: Vec<_> =
            combined.nodes.iter().map(|n| (n.id, n.broker_port, n.controller_port, n.http_port)).collect();
        assert_eq!(
            ports,
            [
                (1, Some(19092), Some(19192), Some(19292)),
                (2, Some(19093), Some(19193), Some(19293)),
                (3, Some(19094), Some(19194), Some(19294))
            ]
        );
        assert_eq!(combined.bootstrap(), "127.0.0.1:19092,127.0.0.1:19093,127.0.0.1:19094");
        assert_eq!(combined.voters(), "1@127.0.0.1:19192,2@127.0.0.1:19193,3@127.0.0.1:19194");
        assert!(combined.has_shape(Shape::Combined(3)));
        assert!(!combined.has_shape(Shape::Separate { controllers: 3, brokers: 3 }));

        let separate = Layout::new(Shape::Separate { controllers: 3, brokers: 4 }, None).expect("a layout");
        let roles: Vec<_> =
            separate.nodes.iter().map(|n| (n.id, n.broker_port.is_some(), n.controller_port.is_some())).collect();
        let expected: Vec<_> = (1..=7).map(|id| (id, id > 3, id <= 3)).collect();
        assert_eq!(roles, expected);
        let mut every: Vec<u16> =
            separate.nodes.iter().flat_map(|n| [n.broker_port, n.controller_port, n.http_port]).flatten().collect();
        let count = every.len();
        every.sort_unstable();
        every.dedup();
        assert_eq!(every.len(), count, "no port is chosen twice");
        assert_eq!(count, 3 + 4 + 4);

        let settings = separate.settings(&separate.nodes[0], Path::new("/d"));
        assert!(settings.contains(&"process.roles=controller".to_owned()), "{settings:?}");
        assert!(settings.contains(&"http.listeners=".to_owned()), "{settings:?}");
        assert!(settings.contains(&"offsets.topic.replication.factor=3".to_owned()), "{settings:?}");
        assert!(settings.contains(&"log.dirs=/d/node-1".to_owned()), "{settings:?}");
        let one = Layout::new(Shape::Separate { controllers: 1, brokers: 1 }, None).expect("a layout");
        let settings = one.settings(&one.nodes[1], Path::new("/d"));
        assert!(settings.contains(&"process.roles=broker".to_owned()), "{settings:?}");
        assert!(settings.contains(&"transaction.state.log.min.isr=1".to_owned()), "{settings:?}");
    }

    #[test]
    fn refused_shapes() {
        let refused = |shape, base| Layout::new(shape, base).expect_err("refused").to_string();
        assert!(refused(Shape::Combined(0), None).contains("at least one"));
        assert!(refused(Shape::Separate { controllers: 1, brokers: 0 }, None).contains("at least one"));
        assert!(refused(Shape::Combined(DEV_NODES_MAX + 1), None).contains("at most"));
        assert!(refused(Shape::Combined(3), Some(65_400)).contains("no room"));
    }

    #[test]
    fn a_layout_reads_back_as_written() {
        let dir = tempfile::tempdir().expect("a temp dir");
        assert_eq!(Layout::read(dir.path()).expect("no file is no layout"), None);
        let layout = Layout::new(Shape::Separate { controllers: 1, brokers: 2 }, Some(20_000)).expect("a layout");
        layout.write(dir.path()).expect("written");
        assert_eq!(Layout::read(dir.path()).expect("read"), Some(layout));
        for damaged in
            ["node=1 broker=9092\n", "cluster.id=x\nnode=1 broker=99999\n", "cluster.id=x\nnode=0 broker=1\n"]
        {
            std::fs::write(dir.path().join(LAYOUT_FILE), damaged).expect("written");
            assert!(Layout::read(dir.path()).is_err(), "{damaged:?} read as a layout");
        }
    }
}
