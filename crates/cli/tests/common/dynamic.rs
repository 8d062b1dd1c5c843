//! Dynamic controller quorums (KIP-853) of `strand` processes for the `e2e_cluster_dynamic_*`
//! tests: each node's `server.properties` with `controller.quorum.bootstrap.servers`, formatted
//! by `strand storage format` with the test's flags, started and stopped by the test; and
//! the metadata questions the tests ask of them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::cluster::{CLUSTER_ID, HEARTBEAT_INTERVAL_MS, SESSION_TIMEOUT_MS};
use super::{Server, Starting};

/// One node of a dynamic quorum: its id, CONTROLLER port (if a controller), properties file and
/// data directory (while it is down).
pub struct DynamicNode {
    pub id: i32,
    pub controller_port: Option<u16>,
    /// `process.roles=controller`: no broker listener.
    controller_only: bool,
    pub properties: PathBuf,
    /// Holds the properties file.
    _config_dir: tempfile::TempDir,
    pub data: Option<tempfile::TempDir>,
}

impl DynamicNode {
    /// A node (`broker,controller` when `controller_port` is given, else `broker`) whose
    /// quorum is found through `bootstrap_ports`, with `extra` settings.
    pub fn new(id: i32, controller_port: Option<u16>, bootstrap_ports: &[u16], extra: &[&str]) -> DynamicNode {
        DynamicNode::with_roles(id, controller_port, false, bootstrap_ports, extra)
    }

    /// A node with the controller role only, on `controller_port`.
    pub fn controller_only(id: i32, controller_port: u16, bootstrap_ports: &[u16], extra: &[&str]) -> DynamicNode {
        DynamicNode::with_roles(id, Some(controller_port), true, bootstrap_ports, extra)
    }

    fn with_roles(
        id: i32,
        controller_port: Option<u16>,
        controller_only: bool,
        bootstrap_ports: &[u16],
        extra: &[&str],
    ) -> DynamicNode {
        let config_dir = tempfile::tempdir().expect("temp dir");
        let data = tempfile::tempdir().expect("temp dir");
        let bootstrap: Vec<String> = bootstrap_ports.iter().map(|port| format!("127.0.0.1:{port}")).collect();
        let mut lines = vec![
            format!("node.id={id}"),
            "controller.listener.names=CONTROLLER".to_owned(),
            format!("controller.quorum.bootstrap.servers={}", bootstrap.join(",")),
            format!("log.dirs={}", data.path().display()),
            format!("broker.session.timeout.ms={SESSION_TIMEOUT_MS}"),
            format!("broker.heartbeat.interval.ms={HEARTBEAT_INTERVAL_MS}"),
            // Kafka's lowest legal Raft timeouts, so a failover takes well under a second.
            "controller.quorum.election.timeout.ms=200".to_owned(),
            "controller.quorum.fetch.timeout.ms=400".to_owned(),
        ];
        lines.push(format!("listeners={}", listeners(controller_port, controller_only)));
        let roles = match (controller_port, controller_only) {
            (Some(_), true) => "controller",
            (Some(_), false) => "broker,controller",
            (None, _) => "broker",
        };
        lines.push(format!("process.roles={roles}"));
        lines.extend(extra.iter().map(|s| (*s).to_owned()));
        let properties = config_dir.path().join("server.properties");
        std::fs::write(&properties, lines.join("\n") + "\n").expect("write server.properties");
        DynamicNode { id, controller_port, controller_only, properties, _config_dir: config_dir, data: Some(data) }
    }

    /// `strand storage format -t CLUSTER_ID -c <properties> <args>`.
    pub fn format(&self, args: &[&str]) -> Output {
        let config = self.properties.display().to_string();
        let output = Command::new(env!("CARGO_BIN_EXE_strand"))
            .args(["storage", "format", "-t", CLUSTER_ID, "-c", &config])
            .args(args)
            .output()
            .expect("run strand storage format");
        eprintln!(
            "format {args:?}: {}\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// The `directory.id` of this node's metadata log dir.
    pub fn directory_id(&self) -> String {
        let path = self.data.as_ref().expect("the node is down").path().join("meta.properties");
        let text = std::fs::read_to_string(&path).expect("meta.properties");
        text.lines().find_map(|l| l.strip_prefix("directory.id=")).expect("a directory id").to_owned()
    }

    /// The `directory.id` of this node's metadata log dir while it runs (from its
    /// `log.dirs`, which the properties name).
    pub fn directory_id_of_running(&self) -> String {
        let text = std::fs::read_to_string(&self.properties).expect("server.properties");
        let dir = text.lines().find_map(|l| l.strip_prefix("log.dirs=")).expect("log.dirs");
        let meta = std::fs::read_to_string(Path::new(dir).join("meta.properties")).expect("meta.properties");
        meta.lines().find_map(|l| l.strip_prefix("directory.id=")).expect("a directory id").to_owned()
    }

    /// Starts the node from its properties (it serves once the quorum has a leader).
    pub fn spawn(&mut self) -> Starting {
        let data = self.data.take().expect("the node is down");
        let listeners = format!("listeners={}", listeners(self.controller_port, self.controller_only));
        let advertised = format!("advertised.listeners={}", listeners.trim_start_matches("listeners="));
        Server::spawn_from(Some(&self.properties), data, &[&listeners, &advertised])
    }

    /// Its `--initial-controllers` entry, with `directory_id`.
    pub fn initial_controller(&self, directory_id: &str) -> String {
        format!("{}@127.0.0.1:{}:{directory_id}", self.id, self.controller_port.expect("a controller"))
    }

    pub fn data_dir(&self) -> &Path {
        self.data.as_ref().expect("the node is down").path()
    }
}

fn listeners(controller_port: Option<u16>, controller_only: bool) -> String {
    match (controller_port, controller_only) {
        (Some(port), true) => format!("CONTROLLER://127.0.0.1:{port}"),
        (Some(port), false) => format!("PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:{port}"),
        (None, _) => "PLAINTEXT://127.0.0.1:0".to_owned(),
    }
}

/// Asks `client`'s node for all topics' metadata until `done` holds (at most [`WAIT_MAX`]).
pub fn wait_for_metadata(
    client: &mut super::Client,
    what: &str,
    done: impl Fn(&strand_protocol::messages::MetadataResponse) -> bool,
) -> strand_protocol::messages::MetadataResponse {
    use strand_protocol::messages::MetadataRequest;
    use strand_protocol::messages::api::{RequestBody, ResponseBody};
    const POLL: std::time::Duration = std::time::Duration::from_millis(100);
    for _ in 0..super::WAIT_MAX.as_millis() / POLL.as_millis() {
        let request = MetadataRequest { topics: None, ..Default::default() };
        let ResponseBody::Metadata(response) = client.call(RequestBody::Metadata(request), 12) else {
            panic!("not a Metadata response")
        };
        if done(&response) {
            return response;
        }
        std::thread::sleep(POLL);
    }
    panic!("never {what} within {:?}", super::WAIT_MAX)
}
