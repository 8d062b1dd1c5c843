//! A static controller quorum (`controller.quorum.voters`, `kraft.version` 0) made dynamic with
//! Kafka 4.4's own `kafka-features upgrade --feature kraft.version=1` (KIP-853; Kafka 4.1's
//! KAFKA-16538), through the CONTROLLER listener: before, Kafka's tools describe it as Kafka's
//! static quorum (level 0, voters without directory ids); after, kraft.version 1 on every node,
//! the voters with their directory ids, a downgrade refused in Kafka's words, `add-controller`
//! adds a fourth controller and `remove-controller` removes one of the first three; a restart of
//! every node with its old `controller.quorum.voters` keeps kraft.version 1 and the log's voters,
//! as Kafka does. And the upgrade refused, word for word as Kafka 4.4 refuses it (recorded with a
//! 3-controller Kafka 4.4 quorum), while a leader has not heard from every voter.

mod common;

use std::time::Duration;

use common::cluster::{Cluster, create_assigned_topic, free_ports, partitions};
use common::dynamic::DynamicNode;
use common::kafka_tool::{described_voters, kafka_command, metadata_quorum};
use common::{Server, WAIT_MAX, batch, fetch_all, produce};

const FEATURES: &str = "org.apache.kafka.tools.FeatureCommand";
/// Kafka 4.4's refusal while a voter has not reported to the leader (behind its tool's prefix).
const NOT_ALL_SUPPORT: &str = "kraft.version to 1. The update failed for all features since the following feature had \
                               an error: Invalid upgrade of kraft.version to KRAFT_VERSION_1 because not all of the \
                               voters support it\n";

/// `kafka-features --bootstrap-controller <bootstrap> <args>`: exit status, stdout, stderr.
fn features(bootstrap: &str, args: &[&str]) -> (bool, String, String) {
    kafka_command(FEATURES, &[&["--bootstrap-controller", bootstrap][..], args].concat())
}

/// The finalized `kraft.version` `kafka-features describe` prints through `flag` `bootstrap`.
fn kraft_level(flag: &str, bootstrap: &str) -> String {
    let (ok, described, _) = kafka_command(FEATURES, &[flag, bootstrap, "describe"]);
    assert!(ok, "{described}");
    let line = described.lines().find(|l| l.starts_with("Feature: kraft.version ")).expect("a kraft.version line");
    let level = line.split("FinalizedVersionLevel:").nth(1).and_then(|rest| rest.split_whitespace().next());
    level.expect("a finalized level").to_owned()
}

/// Asks until [`kraft_level`] is `level` (a node's image follows the controller's shortly).
fn until_kraft_level(flag: &str, bootstrap: &str, level: &str) {
    let poll = Duration::from_millis(200);
    for _ in 0..WAIT_MAX.as_millis() / poll.as_millis() {
        if kraft_level(flag, bootstrap) == level {
            return;
        }
        std::thread::sleep(poll);
    }
    panic!("kraft.version never {level} through {bootstrap} within {WAIT_MAX:?}")
}

/// `CurrentVoters` as `kafka-metadata-quorum describe --status` prints it through `bootstrap`.
fn current_voters(bootstrap: &str) -> String {
    let (ok, status, _) = metadata_quorum(&["--bootstrap-controller", bootstrap, "describe", "--status"]);
    assert!(ok, "{status}");
    let line = status.lines().find_map(|l| l.strip_prefix("CurrentVoters:")).expect("a CurrentVoters line");
    line.trim().to_owned()
}

/// Kafka's `CurrentVoters` for `(id, directory id, port)`s (a static voter has no directory id).
fn voters_line(voters: &[(i32, Option<&str>, u16)]) -> String {
    let voter = |&(id, directory_id, port): &(i32, Option<&str>, u16)| {
        let directory = directory_id.map(|d| format!(", \"directoryId\": \"{d}\"")).unwrap_or_default();
        format!("{{\"id\": {id}{directory}, \"endpoints\": [\"CONTROLLER://127.0.0.1:{port}\"]}}")
    };
    format!("[{}]", voters.iter().map(voter).collect::<Vec<_>>().join(", "))
}

fn directory_id(server: &Server) -> String {
    let meta = std::fs::read_to_string(server.data.path().join("meta.properties")).expect("meta.properties");
    meta.lines().find_map(|l| l.strip_prefix("directory.id=")).expect("a directory id").to_owned()
}

/// Dry runs until one passes: until then the leader has not heard from every voter (their
/// UpdateRaftVoter follows each election), and refuses as Kafka's does.
fn until_upgradable(bootstrap: &str) {
    let poll = Duration::from_millis(200);
    for _ in 0..WAIT_MAX.as_millis() / poll.as_millis() {
        let (ok, out, _) = features(bootstrap, &["upgrade", "--feature", "kraft.version=1", "--dry-run"]);
        if ok {
            assert_eq!(out, "kraft.version can be upgraded to 1.\n");
            return;
        }
        let registering = out.ends_with("has not registered, and may not support this feature\n");
        assert!(registering || out == format!("Can not upgrade {NOT_ALL_SUPPORT}"), "{out}");
        std::thread::sleep(poll);
    }
    panic!("the voters never all reported to the leader within {WAIT_MAX:?}")
}

/// Kafka's upgrade makes the static quorum dynamic: Kafka's tools see it as they see Kafka's;
/// a fourth controller is added and an original one removed; every node restarted with its old
/// `controller.quorum.voters` keeps kraft.version 1 and the log's voters, and serves.
#[test]
fn a_static_quorum_is_upgraded_and_its_voters_change() {
    let _serial = common::serial();
    let mut cluster = Cluster::start(3);
    let ports: Vec<u16> = (1..=3).map(|id| cluster.controller_port(id)).collect();
    let bootstrap = format!("127.0.0.1:{}", ports[0]);
    assert_eq!(kraft_level("--bootstrap-controller", &bootstrap), "0");
    assert_eq!(
        current_voters(&bootstrap),
        voters_line(&[(1, None, ports[0]), (2, None, ports[1]), (3, None, ports[2])])
    );
    let dirs: Vec<String> = (1..=3).map(|id| directory_id(cluster.node(id))).collect();

    until_upgradable(&bootstrap);
    let (ok, upgraded, _) = features(&bootstrap, &["upgrade", "--feature", "kraft.version=1"]);
    assert!(ok && upgraded == "kraft.version was upgraded to 1.\n", "{upgraded}");
    assert_eq!(kraft_level("--bootstrap-controller", &bootstrap), "1");
    let broker = cluster.node(2).address.to_string();
    until_kraft_level("--bootstrap-server", &broker, "1");
    let with_dirs: Vec<(i32, Option<&str>, u16)> = (0..3).map(|i| (i as i32 + 1, Some(&*dirs[i]), ports[i])).collect();
    assert_eq!(current_voters(&bootstrap), voters_line(&with_dirs));
    let (ok, refused, _) = features(&bootstrap, &["downgrade", "--feature", "kraft.version=0"]);
    assert!(!ok);
    assert_eq!(
        refused,
        "Could not downgrade kraft.version to 0. The update failed for all features since the following feature had \
         an error: Invalid update version 0 for feature kraft.version. Can't downgrade the version of this feature.\n"
    );

    let fourth_port = free_ports(1)[0];
    let mut fourth = DynamicNode::controller_only(4, fourth_port, &ports, &[]);
    assert!(fourth.format(&["--no-initial-controllers"]).status.success());
    let fourth_dir = fourth.directory_id();
    let fourth_server = fourth.spawn().controller_ready();
    let config = fourth.properties.display().to_string();
    let (ok, added, _) =
        metadata_quorum(&["--bootstrap-controller", &bootstrap, "--command-config", &config, "add-controller"]);
    let expected = format!(
        "Added controller 4 with directory id {fourth_dir} and endpoints: CONTROLLER://127.0.0.1:{fourth_port}\n"
    );
    assert!(ok && added == expected, "{added}");
    assert_eq!(described_voters(&bootstrap).0, [1, 2, 3, 4]);
    let remove = ["--bootstrap-controller", &bootstrap, "remove-controller", "--controller-id", "3"];
    let (ok, removed, _) = metadata_quorum(&[&remove[..], &["--controller-directory-id", &dirs[2]]].concat());
    assert!(ok && removed == format!("Removed KRaft controller 3 with directory id {}\n", dirs[2]), "{removed}");
    let (voters, leader) = described_voters(&bootstrap);
    assert_eq!(voters, [1, 2, 4]);
    assert!([1, 2, 4].contains(&leader), "{leader}");
    cluster.terminate(3);
    create_assigned_topic(&cluster, 1, "upgraded", &[&[1, 2]], &[]);
    let led =
        |m: &_| partitions(m, "upgraded").first().is_some_and(|(_, leader, _, isr)| *leader == 1 && isr.len() == 2);
    cluster.wait_for_metadata(1, "the topic led by 1, in sync", led);
    assert_eq!(produce(&mut cluster.node(1).connect(), "upgraded", -1, batch(&["before the restart"])).0, 0);

    // Every node restarts; 1 and 2 with controller.quorum.voters still naming 3.
    cluster.terminate(1);
    cluster.terminate(2);
    fourth.data = Some(fourth_server.terminate());
    let fourth_starting = fourth.spawn();
    cluster.restart_all(&[1, 2]);
    let _fourth_server = fourth_starting.controller_ready();
    assert_eq!(kraft_level("--bootstrap-controller", &bootstrap), "1");
    let restarted: Vec<(i32, Option<&str>, u16)> =
        vec![(1, Some(&*dirs[0]), ports[0]), (2, Some(&*dirs[1]), ports[1]), (4, Some(&*fourth_dir), fourth_port)];
    assert_eq!(current_voters(&bootstrap), voters_line(&restarted));
    let in_sync = |m: &_| partitions(m, "upgraded").first().is_some_and(|(_, l, _, isr)| *l > 0 && isr.len() == 2);
    let after = cluster.wait_for_metadata(1, "the topic led, in sync", in_sync);
    let leader = partitions(&after, "upgraded")[0].1;
    assert_eq!(fetch_all(&mut cluster.node(leader).connect(), "upgraded"), ["before the restart"]);
    create_assigned_topic(&cluster, 2, "restarted", &[&[2]], &[]);
    cluster.wait_for_metadata(1, "the new topic", |m| !partitions(m, "restarted").is_empty());
}

/// A leader that has not heard from a voter (down since before its election) refuses the
/// upgrade, dry run or not, in Kafka 4.4's words, and writes nothing; once the voter is back
/// and has reported, the upgrade goes through.
#[test]
fn the_upgrade_waits_for_every_voter() {
    let _serial = common::serial();
    let mut cluster = Cluster::start(3);
    let leader = cluster.wait_for_active_controller(None);
    let down = (1..=3).find(|id| *id != leader).expect("a follower");
    let up = (1..=3).find(|id| *id != leader && *id != down).expect("the other follower");
    // Down before the next election: the next leader never hears from it.
    cluster.kill(down);
    cluster.kill(leader);
    cluster.restart(leader);
    let bootstrap = format!("127.0.0.1:{}", cluster.controller_port(up));

    let (ok, dry, _) = features(&bootstrap, &["upgrade", "--feature", "kraft.version=1", "--dry-run"]);
    assert!(!ok && dry == format!("Can not upgrade {NOT_ALL_SUPPORT}"), "{dry}");
    let (ok, refused, _) = features(&bootstrap, &["upgrade", "--feature", "kraft.version=1"]);
    assert!(!ok && refused == format!("Could not upgrade {NOT_ALL_SUPPORT}"), "{refused}");
    assert_eq!(kraft_level("--bootstrap-controller", &bootstrap), "0");
    let ports: Vec<u16> = (1..=3).map(|id| cluster.controller_port(id)).collect();
    assert_eq!(
        current_voters(&bootstrap),
        voters_line(&[(1, None, ports[0]), (2, None, ports[1]), (3, None, ports[2])])
    );

    cluster.restart(down);
    until_upgradable(&bootstrap);
    let (ok, upgraded, _) = features(&bootstrap, &["upgrade", "--feature", "kraft.version=1"]);
    assert!(ok && upgraded == "kraft.version was upgraded to 1.\n", "{upgraded}");
    assert_eq!(kraft_level("--bootstrap-controller", &bootstrap), "1");
}
