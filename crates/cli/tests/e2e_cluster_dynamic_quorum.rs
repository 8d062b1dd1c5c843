//! A dynamic controller quorum (KIP-853): `strand storage format` with `--standalone`,
//! `--initial-controllers` and `--no-initial-controllers` as Kafka 4.4's `kafka-storage format`
//! (its refusals word for word), and three controllers formatted with the same
//! `--initial-controllers` forming a quorum whose voters (ids, directory ids, endpoints) are
//! what Kafka 4.4's `kafka-metadata-quorum --bootstrap-controller` describes, with
//! `kraft.version` 1 finalized, a broker-only node following it through
//! `controller.quorum.bootstrap.servers`, and writes served.

mod common;

use common::cluster::{free_ports, index, partitions};
use common::dynamic::{DynamicNode, metadata_quorum, wait_for_metadata};
use common::{Server, batch, create_replicated_topic, fetch_all, produce};

const DIRECTORY_IDS: [&str; 3] = ["K90IZ-0DRNazJ49kCZ1EMQ", "aUARLskQTCW4qCZDtS_cwA", "2ggvsS4kQb-fSJ_-zC_Ang"];

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Kafka's `kafka-storage format` refusals, and what a dynamic voter's format prints and writes.
#[test]
fn format_flags_work_as_kafka() {
    let ports = free_ports(1);
    let controller = DynamicNode::new(1, Some(ports[0]), &ports, &[]);
    let refused = controller.format(&[]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains(
            "Because controller.quorum.voters is not set on this controller, you must specify one of the \
             following: --standalone, --initial-controllers, or --no-initial-controllers."
        ),
        "{}",
        stderr(&refused)
    );
    let both = controller.format(&["--standalone", "--no-initial-controllers"]);
    assert!(!both.status.success(), "the flags exclude each other, as Kafka's argument parser has them");
    let bad = controller.format(&["--initial-controllers", "1localhost:9093:K90IZ-0DRNazJ49kCZ1EMQ"]);
    assert!(stderr(&bad).contains("No @ found in dynamic voter string."), "{}", stderr(&bad));

    let voters = format!("controller.quorum.voters=1@127.0.0.1:{}", ports[0]);
    let static_quorum = DynamicNode::new(1, Some(ports[0]), &ports, &[&voters]);
    let refused = static_quorum.format(&["--standalone"]);
    assert!(
        stderr(&refused).contains(
            "You cannot specify controller.quorum.voters and format the node with --initial-controllers or \
             --standalone. If you want to use dynamic quorum, please remove controller.quorum.voters and specify \
             controller.quorum.bootstrap.servers instead."
        ),
        "{}",
        stderr(&refused)
    );
    let broker = DynamicNode::new(2, None, &ports, &[]);
    let refused = broker.format(&["--standalone"]);
    assert!(stderr(&refused).contains("You can only use --standalone on a controller."), "{}", stderr(&refused));

    let initial = controller.initial_controller(DIRECTORY_IDS[0]);
    let formatted = controller.format(&["--initial-controllers", &initial]);
    assert!(formatted.status.success(), "{}", stderr(&formatted));
    let expected = format!(
        "Formatting dynamic metadata voter directory {} with metadata.version 4.4-IV2.\n",
        controller.data_dir().display()
    );
    assert_eq!(String::from_utf8_lossy(&formatted.stdout), expected);
    assert_eq!(controller.directory_id(), DIRECTORY_IDS[0], "the voter's directory id is the one given");
    let formatted = broker.format(&[]);
    assert!(formatted.status.success(), "a broker needs none of the flags: {}", stderr(&formatted));
}

/// Three controllers formatted with the same `--initial-controllers` form one quorum: Kafka's
/// tool describes its voters with their directory ids and endpoints, `kraft.version` is 1, a
/// broker-only node formatted without flags joins through the bootstrap servers, and records
/// are written and read through it.
#[test]
fn initial_controllers_form_a_dynamic_quorum() {
    let _serial = common::serial();
    let ports = free_ports(3);
    let mut nodes: Vec<DynamicNode> =
        (0..3).map(|i| DynamicNode::new(i as i32 + 1, Some(ports[i]), &ports, &[])).collect();
    let initial: Vec<String> = nodes.iter().zip(DIRECTORY_IDS).map(|(n, d)| n.initial_controller(d)).collect();
    for node in &nodes {
        assert!(node.format(&["--initial-controllers", &initial.join(",")]).status.success());
    }
    let mut broker = DynamicNode::new(4, None, &ports, &[]);
    assert!(broker.format(&[]).status.success());
    let starting: Vec<_> = nodes.iter_mut().map(DynamicNode::spawn).collect();
    let servers: Vec<Server> = starting.into_iter().map(|s| s.ready()).collect();
    let broker = broker.spawn().ready();

    let bootstrap = format!("127.0.0.1:{}", ports[1]);
    let (ok, status, _) = metadata_quorum(&["--bootstrap-controller", &bootstrap, "describe", "--status"]);
    assert!(ok, "{status}");
    let voters: Vec<String> = (0..3)
        .map(|i| {
            format!(
                "{{\"id\": {}, \"directoryId\": \"{}\", \"endpoints\": [\"CONTROLLER://127.0.0.1:{}\"]}}",
                i + 1,
                DIRECTORY_IDS[i],
                ports[i]
            )
        })
        .collect();
    let line = status.lines().find(|l| l.starts_with("CurrentVoters:")).unwrap_or_default();
    assert_eq!(line.trim_start_matches("CurrentVoters:").trim(), format!("[{}]", voters.join(", ")), "{status}");

    let mut client = broker.connect();
    let versions = client.call(strand_protocol::messages::api::RequestBody::ApiVersions(Default::default()), 3);
    let strand_protocol::messages::api::ResponseBody::ApiVersions(versions) = versions else { panic!("ApiVersions") };
    let kraft = versions.finalized_features.iter().find(|f| f.name == "kraft.version").map(|f| f.max_version_level);
    assert_eq!(kraft, Some(1), "a dynamic quorum finalizes kraft.version 1");

    create_replicated_topic(&mut client, "dynamic", 1, 3);
    let in_sync =
        |m: &_| partitions(m, "dynamic").first().is_some_and(|(_, leader, _, isr)| *leader > 0 && isr.len() == 3);
    let metadata = wait_for_metadata(&mut client, "the topic in sync", in_sync);
    let leader = partitions(&metadata, "dynamic")[0].1;
    let mut leader_client = if leader == 4 { broker.connect() } else { servers[index(leader)].connect() };
    let leads = |m: &_| partitions(m, "dynamic").first().is_some_and(|(_, l, _, isr)| *l == leader && isr.len() == 3);
    wait_for_metadata(&mut leader_client, "the leader hosting the topic", leads);
    let (code, _) = produce(&mut leader_client, "dynamic", -1, batch(&["a", "b"]));
    assert_eq!(code, 0);
    assert_eq!(fetch_all(&mut leader_client, "dynamic"), ["a", "b"]);
}
