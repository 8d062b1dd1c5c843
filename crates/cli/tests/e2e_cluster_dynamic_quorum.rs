//! A dynamic controller quorum (KIP-853): `strand storage format` with `--standalone`,
//! `--initial-controllers` and `--no-initial-controllers` as Kafka 4.4's `kafka-storage format`
//! (its refusals word for word), and three controllers formatted with the same
//! `--initial-controllers` forming a quorum whose voters (ids, directory ids, endpoints) are
//! what Kafka 4.4's `kafka-metadata-quorum --bootstrap-controller` describes, with
//! `kraft.version` 1 finalized, a broker-only node following it through
//! `controller.quorum.bootstrap.servers`, and writes served. Then Kafka's `kafka-metadata-quorum
//! add-controller` adds a fourth controller (formatted with `--no-initial-controllers`) and
//! `remove-controller` removes the active one while a producer writes with acks=all: every
//! acknowledged record is there afterwards, and Kafka's refusals (DUPLICATE_VOTER,
//! VOTER_NOT_FOUND) come back word for word. Last, Kafka's procedure for a controller whose disk
//! failed: it is formatted anew (a new directory id, `--no-initial-controllers`) with
//! `controller.quorum.auto.join.enable`, the old voter is removed, the controller joins by
//! itself, and writes are served throughout.

mod common;

use common::cluster::{free_ports, index, partitions};
use common::dynamic::{DynamicNode, wait_for_metadata};
use common::kafka_tool::{described_voters, metadata_quorum};
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

/// Three controllers formatted with the same `--initial-controllers`, controller 4 formatted
/// with `--no-initial-controllers` (all controller-only), brokers 5 and 6; the topic `writes`
/// (two replicas) in sync, and its leader.
struct Quorum {
    ports: Vec<u16>,
    controllers: Vec<Option<Server>>,
    fourth: DynamicNode,
    brokers: Vec<Server>,
    leader: i32,
}

fn start_quorum_and_fourth_controller() -> Quorum {
    let ports = free_ports(4);
    let initial_ports = &ports[..3];
    let mut nodes: Vec<DynamicNode> =
        (0..4).map(|i| DynamicNode::controller_only(i as i32 + 1, ports[i], initial_ports, &[])).collect();
    let initial: Vec<String> = nodes.iter().zip(DIRECTORY_IDS).map(|(n, d)| n.initial_controller(d)).collect();
    for node in &nodes[..3] {
        assert!(node.format(&["--initial-controllers", &initial.join(",")]).status.success());
    }
    assert!(nodes[3].format(&["--no-initial-controllers"]).status.success());
    let mut brokers: Vec<DynamicNode> = (5..=6).map(|id| DynamicNode::new(id, None, initial_ports, &[])).collect();
    for broker in &brokers {
        assert!(broker.format(&[]).status.success());
    }
    let starting: Vec<_> = nodes.iter_mut().map(DynamicNode::spawn).collect();
    let controllers: Vec<Option<Server>> = starting.into_iter().map(|s| Some(s.controller_ready())).collect();
    let brokers: Vec<Server> =
        brokers.iter_mut().map(|b| b.spawn()).collect::<Vec<_>>().into_iter().map(|s| s.ready()).collect();
    let mut client = brokers[0].connect();
    create_replicated_topic(&mut client, "writes", 1, 2);
    let in_sync =
        |m: &_| partitions(m, "writes").first().is_some_and(|(_, l, _, isr)| (5..=6).contains(l) && isr.len() == 2);
    let leader = partitions(&wait_for_metadata(&mut client, "the topic in sync", in_sync), "writes")[0].1;
    let leads = |m: &_| partitions(m, "writes").first().is_some_and(|(_, l, _, _)| *l == leader);
    wait_for_metadata(&mut brokers[index(leader - 4)].connect(), "the leader hosting the topic", leads);
    let fourth = nodes.pop().expect("four controllers");
    Quorum { ports, controllers, fourth, brokers, leader }
}

/// Kafka's `add-controller` makes the fourth controller a voter and `remove-controller` removes
/// the active controller, while acks=all writes go on: none acknowledged is lost, the quorum
/// elects a new leader, and Kafka's refusals of a duplicate and a missing voter are Kafka's.
#[test]
fn add_and_remove_controllers_while_producing() {
    let _serial = common::serial();
    let mut quorum = start_quorum_and_fourth_controller();
    let bootstrap = format!("127.0.0.1:{}", quorum.ports[0]);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut producer = quorum.brokers[index(quorum.leader - 4)].connect();
    let stopping = stop.clone();
    let writer = std::thread::spawn(move || {
        let mut acknowledged = Vec::new();
        for i in 0.. {
            if stopping.load(std::sync::atomic::Ordering::SeqCst) && i > 20 {
                break;
            }
            let value = format!("v{i}");
            if produce(&mut producer, "writes", -1, batch(&[&value])).0 == 0 {
                acknowledged.push(value);
            }
        }
        acknowledged
    });

    let config = quorum.fourth.properties.display().to_string();
    let add = ["--bootstrap-controller", &bootstrap, "--command-config", &config, "add-controller"];
    let (ok, added, _) = metadata_quorum(&add);
    let directory_id = quorum.fourth.directory_id_of_running();
    let expected = format!(
        "Added controller 4 with directory id {directory_id} and endpoints: CONTROLLER://127.0.0.1:{}\n",
        quorum.ports[3]
    );
    assert!(ok && added == expected, "{added}");
    assert_eq!(described_voters(&bootstrap).0, [1, 2, 3, 4]);
    let (ok, _, refused) = metadata_quorum(&add);
    assert!(!ok);
    let duplicate = format!(
        "DuplicateVoterException: The voter id for ReplicaKey(id=4, directoryId={directory_id}) is already part of \
         the set of voters"
    );
    assert!(refused.contains(&duplicate), "{refused}");

    let (_, active) = described_voters(&bootstrap);
    let removed_id = active.to_string();
    let removed_dir = DIRECTORY_IDS[index(active)];
    let asked = format!("127.0.0.1:{}", quorum.ports[3]);
    let remove = ["--bootstrap-controller", &asked, "remove-controller", "--controller-id", &removed_id];
    let remove = [&remove[..], &["--controller-directory-id", removed_dir]].concat();
    let (ok, removed, error) = metadata_quorum(&remove);
    assert!(
        ok && removed == format!("Removed KRaft controller {active} with directory id {removed_dir}\n"),
        "{removed}{error}"
    );
    let (voters, leader) = described_voters(&asked);
    let remaining: Vec<i32> = [1, 2, 3, 4].into_iter().filter(|id| *id != active).collect();
    assert_eq!(voters, remaining);
    assert!(remaining.contains(&leader), "a remaining voter leads: {leader}");
    let (ok, _, refused) = metadata_quorum(&remove);
    assert!(!ok);
    let not_found =
        format!("VoterNotFoundException: Cannot remove voter ReplicaKey(id={active}, directoryId={removed_dir})");
    assert!(refused.contains(&not_found), "{refused}");

    // The cluster still serves metadata changes through the new quorum while the removed
    // controller still runs (it named itself the leader at its old epoch, and brokers that asked
    // it followed its frozen log); then, as Kafka's documentation says, it is shut down: cleanly.
    create_replicated_topic(&mut quorum.brokers[0].connect(), "after", 1, 2);
    for broker in &quorum.brokers {
        wait_for_metadata(&mut broker.connect(), "the new topic", |m| !partitions(m, "after").is_empty());
    }
    quorum.controllers[index(active)].take().expect("the removed controller").terminate();
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let acknowledged = writer.join().expect("the producer");
    let stored = fetch_all(&mut quorum.brokers[index(quorum.leader - 4)].connect(), "writes");
    let missing: Vec<&String> = acknowledged.iter().filter(|v| !stored.contains(v)).collect();
    assert!(missing.is_empty(), "{} acknowledged, lost: {missing:?}", acknowledged.len());
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
    let versions =
        client.call(strand_protocol::messages::api::RequestBody::ApiVersions(common::api_versions_request()), 3);
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

/// acks=all writes of `v0`, `v1`, ... to `writes` until `stop` (and at least 20): those
/// acknowledged, and how many were not.
fn write_until(
    mut producer: common::Client,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<(Vec<String>, usize)> {
    std::thread::spawn(move || {
        let (mut acknowledged, mut failed) = (Vec::new(), 0);
        for i in 0.. {
            if stop.load(std::sync::atomic::Ordering::SeqCst) && i > 20 {
                break;
            }
            let value = format!("v{i}");
            match produce(&mut producer, "writes", -1, batch(&[&value])).0 {
                0 => acknowledged.push(value),
                _ => failed += 1,
            }
        }
        (acknowledged, failed)
    })
}

/// Kafka's procedure for a controller whose disk failed: controller 3 dies, its new disk is
/// formatted with `--no-initial-controllers` (a new directory id) and it starts with
/// `controller.quorum.auto.join.enable=true`; it cannot join while its old self votes
/// (DUPLICATE_VOTER), `remove-controller` removes the old voter, and it joins by itself. Writes
/// are acknowledged throughout, none lost, and the quorum keeps committing metadata.
#[test]
fn a_failed_controller_is_replaced_on_a_new_disk() {
    let _serial = common::serial();
    let mut quorum = start_quorum_and_fourth_controller();
    let bootstrap = format!("127.0.0.1:{}", quorum.ports[0]);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = write_until(quorum.brokers[index(quorum.leader - 4)].connect(), stop.clone());

    quorum.controllers[2].take().expect("controller 3").kill();
    let initial_ports = &quorum.ports[..3];
    let auto_join = "controller.quorum.auto.join.enable=true";
    let mut replacement = DynamicNode::controller_only(3, quorum.ports[2], initial_ports, &[auto_join]);
    assert!(replacement.format(&["--no-initial-controllers"]).status.success());
    let new_directory_id = replacement.directory_id();
    assert_ne!(new_directory_id, DIRECTORY_IDS[2], "a new disk, a new directory id");
    let replacement_server = replacement.spawn().controller_ready();
    assert_eq!(described_voters(&bootstrap).0, [1, 2, 3], "the old voter 3 still votes");

    let remove = ["--bootstrap-controller", &bootstrap, "remove-controller", "--controller-id", "3"];
    let remove = [&remove[..], &["--controller-directory-id", DIRECTORY_IDS[2]]].concat();
    let (ok, removed, _) = metadata_quorum(&remove);
    assert!(ok, "{removed}");
    let joined = |status: &str| status.contains(&format!("{{\"id\": 3, \"directoryId\": \"{new_directory_id}\""));
    let poll = std::time::Duration::from_millis(200);
    let rejoined = (0..common::WAIT_MAX.as_millis() / poll.as_millis()).any(|_| {
        let (_, status, _) = metadata_quorum(&["--bootstrap-controller", &bootstrap, "describe", "--status"]);
        joined(&status) || {
            std::thread::sleep(poll);
            false
        }
    });
    assert!(rejoined, "controller 3 never joined with directory {new_directory_id}");
    assert_eq!(described_voters(&bootstrap).0, [1, 2, 3]);

    create_replicated_topic(&mut quorum.brokers[0].connect(), "after", 1, 2);
    wait_for_metadata(&mut quorum.brokers[1].connect(), "the new topic", |m| !partitions(m, "after").is_empty());
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let (acknowledged, failed) = writer.join().expect("the producer");
    assert_eq!(failed, 0, "every write was acknowledged while the controller was replaced");
    let stored = fetch_all(&mut quorum.brokers[index(quorum.leader - 4)].connect(), "writes");
    let missing: Vec<&String> = acknowledged.iter().filter(|v| !stored.contains(v)).collect();
    assert!(missing.is_empty(), "{} acknowledged, lost: {missing:?}", acknowledged.len());
    drop(replacement_server);
}
