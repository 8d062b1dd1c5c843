//! `strand cluster`: Kafka's `kafka-cluster.sh` (`ClusterTool`) with its five subcommands, each
//! through the brokers (`--bootstrap-server`) or the controllers (`--bootstrap-controller`):
//! `cluster-id`, `unregister --id`, `unregister-controller --id`, `list-endpoints
//! [--include-fenced-brokers]` (Kafka's table) and `api-versions` (each node's versions as
//! Kafka's `NodeApiVersions` prints them, "usable" against this client's own versions).
//!
//! As Kafka's tool: a failed call prints the exception on stderr and exits 1; a cluster that does
//! not serve an unregistration API is told so on stdout, exit 0.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use strand_client::admin_cluster::{Endpoint, client_api};
use strand_client::{Admin, ClientError};
use strand_protocol::messages::api::ApiKey;

use crate::tool::{self, Failure, exception};

const EXAMPLES: &str = "Examples:
  strand cluster cluster-id --bootstrap-server localhost:9092
  strand cluster list-endpoints --bootstrap-controller localhost:9093";

/// The subcommands of `kafka-cluster.sh`.
#[derive(Debug, Args)]
#[command(about = "The Kafka cluster tool (Kafka's kafka-cluster.sh).", after_help = EXAMPLES)]
pub struct ClusterArgs {
    #[command(subcommand)]
    command: ClusterCommand,
}

#[derive(Debug, Subcommand)]
enum ClusterCommand {
    /// Get information about the ID of a cluster.
    ClusterId(Connect),
    /// Unregister a broker.
    Unregister(Unregister),
    /// Unregister a controller.
    UnregisterController(Unregister),
    /// List endpoints.
    ListEndpoints(ListEndpoints),
    /// Get information about the api versions of the brokers or controllers.
    ApiVersions(Connect),
}

/// How every subcommand reaches the cluster.
#[derive(Debug, Args)]
struct Connect {
    /// A list of host/port pairs to use for establishing the connection to the Kafka cluster.
    #[arg(long, short = 'b')]
    bootstrap_server: Option<String>,
    /// A list of host/port pairs to use for establishing the connection to the KRaft controllers.
    #[arg(long, short = 'C')]
    bootstrap_controller: Option<String>,
    /// (DEPRECATED) A property file containing configurations for the Admin client.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Config properties file for the Admin client.
    #[arg(long, short = 'c')]
    command_config: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct Unregister {
    #[command(flatten)]
    connect: Connect,
    /// The ID of the node to unregister.
    #[arg(long, short = 'i')]
    id: i32,
}

#[derive(Debug, Args)]
struct ListEndpoints {
    #[command(flatten)]
    connect: Connect,
    /// Whether to include fenced brokers when listing broker endpoints.
    #[arg(long)]
    include_fenced_brokers: bool,
}

pub fn run(args: ClusterArgs) -> ExitCode {
    tool::report_plain(execute(args.command))
}

fn execute(command: ClusterCommand) -> Result<(), Failure> {
    let connect = match &command {
        ClusterCommand::ClusterId(connect) | ClusterCommand::ApiVersions(connect) => connect,
        ClusterCommand::Unregister(u) | ClusterCommand::UnregisterController(u) => &u.connect,
        ClusterCommand::ListEndpoints(l) => &l.connect,
    };
    let config = tool::client_config_either(
        connect.bootstrap_server.as_deref(),
        connect.bootstrap_controller.as_deref(),
        connect.command_config.as_deref().or(connect.config.as_deref()),
    )?;
    tool::block_on(async move {
        let admin = tool::admin(config).await?;
        let failed = |e: ClientError| Failure::Operation(exception(e));
        match command {
            ClusterCommand::ClusterId(_) => match admin.describe_cluster().await.map_err(failed)?.cluster_id {
                id if id.is_empty() => println!("No cluster ID found. The Kafka version is probably too old."),
                id => println!("Cluster ID: {id}"),
            },
            ClusterCommand::Unregister(u) => match admin.unregister_broker(u.id).await {
                Ok(()) => println!("Broker {} is no longer registered.", u.id),
                Err(ClientError::UnsupportedVersion(_)) => {
                    println!("The target cluster does not support the broker unregistration API.")
                }
                Err(e) => return Err(failed(e)),
            },
            ClusterCommand::UnregisterController(u) => match admin.unregister_controller(u.id).await {
                Ok(()) => println!("Controller {} is no longer registered.", u.id),
                Err(ClientError::UnsupportedVersion(_)) => {
                    println!("The target cluster does not support the controller unregistration API.")
                }
                Err(e) => return Err(failed(e)),
            },
            ClusterCommand::ListEndpoints(l) => {
                print!(
                    "{}",
                    endpoints_table(&admin.describe_endpoints(l.include_fenced_brokers).await.map_err(failed)?)
                )
            }
            ClusterCommand::ApiVersions(_) => api_versions(&admin).await.map_err(failed)?,
        }
        Ok(())
    })
}

/// Kafka's `list-endpoints` table: fixed columns but the host's, as wide as its widest value;
/// brokers have a STATE column, controllers do not.
fn endpoints_table(endpoints: &[Endpoint]) -> String {
    let host_width = endpoints.iter().map(|e| e.node.host.chars().count()).chain([4]).max().unwrap_or(4);
    let controllers = endpoints.first().is_some_and(|e| e.controller);
    let row = |id: &str, host: &str, port: &str, rack: &str, state: &str, kind: &str| {
        let state = if controllers { String::new() } else { format!("{state:<10} ") };
        format!("{id:<10} {host:<host_width$} {port:<10} {rack:<10} {state}{kind:<15}\n")
    };
    let mut table = row("ID", "HOST", "PORT", "RACK", "STATE", "ENDPOINT_TYPE");
    for e in endpoints {
        let state = if e.fenced { "fenced" } else { "unfenced" };
        let kind = if e.controller { "controller" } else { "broker" };
        let rack = e.node.rack.as_deref().unwrap_or("null");
        table += &row(&e.node.id.to_string(), &e.node.host, &e.node.port.to_string(), rack, state, kind);
    }
    table
}

/// Each node and its versions, as Kafka's `NodeApiVersions.toString(true)`.
async fn api_versions(admin: &Admin) -> Result<(), ClientError> {
    for (endpoint, versions) in admin.node_api_versions().await? {
        let node = &endpoint.node;
        let rack = node.rack.as_deref().unwrap_or("null");
        println!(
            "{}:{} (id: {} rack: {rack} isFenced: {}) -> {}",
            node.host,
            node.port,
            node.id,
            endpoint.fenced,
            versions_text(&versions)
        );
    }
    Ok(())
}

/// `NodeApiVersions.toString(true)`: every API the node advertised and every client API, by key.
fn versions_text(versions: &HashMap<i16, (i16, i16)>) -> String {
    let mut lines: BTreeMap<i16, String> = BTreeMap::new();
    for (&key, &(min, max)) in versions {
        let range = if min == max { min.to_string() } else { format!("{min} to {max}") };
        let line = match ApiKey::from_i16(key) {
            None => format!("UNKNOWN({key}): {range}"),
            Some(api) => {
                let ours = api.versions();
                let usable = if ours.max < min {
                    " [unusable: node too new]".to_owned()
                } else if max < ours.min {
                    " [unusable: node too old]".to_owned()
                } else {
                    format!(" [usable: {}]", ours.max.min(max))
                };
                format!("{}({key}): {range}{usable}", api.name())
            }
        };
        lines.insert(key, line);
    }
    for api in ApiKey::ALL.into_iter().filter(|&api| client_api(api)) {
        lines.entry(api as i16).or_insert_with(|| format!("{}({}): UNSUPPORTED", api.name(), api as i16));
    }
    let body: Vec<String> = lines.into_values().collect();
    format!("(\n\t{}\n)", body.join(",\n\t"))
}

#[cfg(test)]
mod tests {
    use strand_client::cluster::Node;

    use super::*;

    #[test]
    fn endpoints_print_as_kafka_s_table() {
        let broker = |id, fenced| Endpoint {
            node: Node { id, host: "127.0.0.1".into(), port: 19092, rack: None },
            fenced,
            controller: false,
        };
        assert_eq!(
            endpoints_table(&[broker(1, false), broker(2, true)]),
            "ID         HOST      PORT       RACK       STATE      ENDPOINT_TYPE  \n\
             1          127.0.0.1 19092      null       unfenced   broker         \n\
             2          127.0.0.1 19092      null       fenced     broker         \n"
        );
        let controller = Endpoint { controller: true, ..broker(1, false) };
        assert_eq!(
            endpoints_table(&[controller]),
            "ID         HOST      PORT       RACK       ENDPOINT_TYPE  \n\
             1          127.0.0.1 19092      null       controller     \n"
        );
    }

    #[test]
    fn versions_print_as_kafka_s_node_api_versions() {
        // A node newer than this client: usable up to this client's own latest ApiVersions (5).
        let versions = HashMap::from([(18, (0, 9)), (46, (0, 0)), (999, (1, 2))]);
        let text = versions_text(&versions);
        assert!(text.starts_with("(\n\tProduce(0): UNSUPPORTED,\n"), "{text}");
        assert!(text.contains("\tApiVersions(18): 0 to 9 [usable: 5],\n"), "{text}");
        assert!(text.contains("\tListPartitionReassignments(46): 0 [usable: 0],\n"), "{text}");
        assert!(!text.contains("Vote(52)"), "a controller-only API the node did not list: {text}");
        assert!(text.ends_with(",\n\tUNKNOWN(999): 1 to 2\n)"), "{text}");
    }
}
