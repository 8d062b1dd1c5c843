//! A cluster's brokers come and go: a broker that dies (`kill -9`) or freezes (SIGSTOP) is
//! fenced, its leaderships and ISR places moving to the others, and is taken back when it
//! returns, or unregistered (UnregisterBroker) when decommissioned; a clean stop (SIGTERM) hands
//! leadership over first, and is bounded when no controller answers; the four-broker demonstration
//! from the shipped files shrinks and grows its ISRs as brokers stop and start.

mod common;

use std::time::Duration;

use common::cluster::{
    Cluster, brokers, create_replicated_topic, create_topic_with, free_ports, leader_of, partitions, read_committed,
};
use common::{Server, Starting, batch, produce};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::CreatableTopic;
use strand_protocol::messages::describe_configs_request::DescribeConfigsResource;
use strand_protocol::messages::{
    CreateTopicsRequest, DescribeClusterRequest, DescribeConfigsRequest, MetadataRequest, MetadataResponse,
    UnregisterBrokerRequest,
};

/// A topic created through one node is decided by the active controller, and every node's
/// metadata shows it with three replicas in sync; a broker killed with `kill -9` is fenced
/// within the session timeout (gone from Metadata, its leaderships moved to in-sync followers,
/// out of every ISR), and once restarted it registers again, is listed, catches up into the ISRs
/// and leads its preferred partitions again.
#[test]
fn a_dead_broker_is_fenced_and_a_restarted_one_rejoins() {
    let _serial = common::serial();
    let mut cluster = Cluster::start(3);
    create_replicated_topic(&cluster, 2, "replicated");

    let mut layout = Vec::new();
    for id in 1..=3 {
        let response = cluster.wait_for_metadata(id, "listed three brokers and the topic", |m| {
            brokers(m) == [1, 2, 3] && partitions(m, "replicated").len() == 3
        });
        layout = partitions(&response, "replicated");
        for (partition, leader, replicas, isr) in &layout {
            assert_eq!(replicas.len(), 3, "partition {partition}");
            assert_eq!(isr.len(), 3, "partition {partition}");
            assert_eq!(*leader, replicas[0], "partition {partition}: the first replica leads");
        }
    }
    let leaders: std::collections::BTreeSet<i32> = layout.iter().map(|(_, leader, _, _)| *leader).collect();
    assert_eq!(leaders.len(), 3, "leaders spread over the brokers: {layout:?}");
    // Design §6: three replicas or more get min.insync.replicas=2 as the topic's own config.
    let request = DescribeConfigsRequest {
        resources: vec![DescribeConfigsResource {
            resource_type: 2,
            resource_name: "replicated".into(),
            configuration_keys: Some(vec!["min.insync.replicas".into()]),
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::DescribeConfigs(described) =
        cluster.node(3).connect().call(RequestBody::DescribeConfigs(request), 4)
    else {
        panic!("not a DescribeConfigs response")
    };
    let config = &described.results[0].configs[0];
    assert_eq!((config.value.as_deref(), config.config_source), (Some("2"), 1), "{config:?}");

    let victim = layout[0].1;
    cluster.kill(victim);
    let survivor = if victim == 1 { 2 } else { 1 };
    let fenced = cluster.wait_for_metadata(survivor, "fenced the dead broker", |m| !brokers(m).contains(&victim));
    for (partition, leader, replicas, isr) in partitions(&fenced, "replicated") {
        assert_ne!(leader, victim, "partition {partition} still led by the dead broker");
        assert!(isr.contains(&leader), "partition {partition}: leader {leader} is in the ISR {isr:?}");
        assert!(!isr.contains(&victim), "partition {partition}: the dead broker is still in the ISR {isr:?}");
        assert_eq!(replicas.len(), 3, "partition {partition}: replicas stay assigned");
    }

    cluster.restart(victim);
    cluster.wait_for_metadata(survivor, "listed the restarted broker", |m| brokers(m) == [1, 2, 3]);
    // Back in the ISR, the restarted broker leads again the partitions it is preferred for
    // (auto.leader.rebalance.enable).
    cluster.wait_for_metadata(survivor, "moved leadership back to the preferred replicas", |m| {
        let now = partitions(m, "replicated");
        now.len() == 3 && now.iter().all(|(_, leader, replicas, isr)| *leader == replicas[0] && isr.len() == 3)
    });
}

/// Decommissioning (Kafka's `kafka-cluster unregister`): a dead broker stays registered, fenced,
/// until UnregisterBroker removes it from every node's DescribeCluster (fenced brokers included);
/// asking again is BROKER_ID_NOT_REGISTERED, as Kafka answers.
#[test]
fn a_dead_broker_is_unregistered() {
    let _serial = common::serial();
    let mut cluster = Cluster::start(3);
    cluster.kill(3);
    let registered = |id: i32| {
        let request = DescribeClusterRequest { include_fenced_brokers: true, ..Default::default() };
        let ResponseBody::DescribeCluster(described) =
            cluster.node(id).connect().call(RequestBody::DescribeCluster(request), 2)
        else {
            panic!("not a DescribeCluster response")
        };
        described.brokers.iter().map(|b| (b.broker_id.0, b.is_fenced)).collect::<Vec<_>>()
    };
    cluster.wait_for_metadata(1, "fenced broker 3", |m| brokers(m) == [1, 2]);
    assert_eq!(registered(1), [(1, false), (2, false), (3, true)], "fenced, still registered");
    let unregister = || {
        let request = UnregisterBrokerRequest { broker_id: strand_base::BrokerId(3), ..Default::default() };
        let ResponseBody::UnregisterBroker(response) =
            cluster.node(2).connect().call(RequestBody::UnregisterBroker(request), 0)
        else {
            panic!("not an UnregisterBroker response")
        };
        response
    };
    assert_eq!(unregister().error_code, 0);
    for id in [1, 2] {
        let poll = Duration::from_millis(50);
        let gone = (0..common::WAIT_MAX.as_millis() / poll.as_millis()).any(|_| {
            let done = registered(id) == [(1, false), (2, false)];
            if !done {
                std::thread::sleep(poll);
            }
            done
        });
        assert!(gone, "node {id} still lists broker 3: {:?}", registered(id));
    }
    let again = unregister();
    assert_eq!(
        (again.error_code, again.error_message.as_deref()),
        (102, Some("Broker ID 3 is not currently registered")),
        "BROKER_ID_NOT_REGISTERED"
    );
}

/// SIGTERM is Kafka's controlled shutdown: the broker stops only after the controller has moved
/// its leaderships to in-sync followers and fenced it, so clients are never pointed at a broker
/// that is gone, and the restarted broker registers at once (no stale session to wait out).
#[test]
fn a_clean_stop_hands_leadership_over_first() {
    let _serial = common::serial();
    let mut cluster = Cluster::start(3);
    create_replicated_topic(&cluster, 1, "handed-over");
    let before = cluster
        .wait_for_metadata(1, "listed the topic", |m| partitions(m, "handed-over").len() == 3 && brokers(m).len() == 3);
    let leaving = partitions(&before, "handed-over")[1].1;
    let staying = if leaving == 3 { 2 } else { 3 };

    cluster.terminate(leaving);
    let after = cluster.wait_for_metadata(staying, "dropped the stopped broker", |m| !brokers(m).contains(&leaving));
    for (partition, leader, _, isr) in partitions(&after, "handed-over") {
        assert_ne!(leader, leaving, "partition {partition} is still led by the stopped broker");
        assert!(isr.contains(&leader), "partition {partition}: leader {leader} not in ISR {isr:?}");
    }
    let log = cluster.stopped_log(leaving);
    assert!(log.contains("controlled shutdown complete"), "the broker stopped without handing over:\n{log}");

    cluster.restart(leaving);
    cluster.wait_for_metadata(staying, "listed the restarted broker", |m| brokers(m) == [1, 2, 3]);
}

/// A broker-only node whose controller quorum is gone still stops on SIGTERM: the controlled
/// shutdown is bounded by `broker.session.timeout.ms` (as Kafka's), and nothing after it waits
/// for a controller, so the node exits cleanly instead of hanging until `kill -9`.
#[test]
fn a_broker_stops_cleanly_when_its_controller_is_gone() {
    let _serial = common::serial();
    let mut cluster = Cluster::start_with_voters(2, 1);
    cluster.wait_for_metadata(2, "listed both brokers", |m| brokers(m) == [1, 2]);
    cluster.kill(1);
    cluster.terminate(2);
    let log = cluster.stopped_log(2);
    assert!(log.contains("shut down cleanly"), "the broker did not stop cleanly:\n{log}");
}

/// A broker-only node that cannot reach its controller at start-up (so never registers) stops at
/// once on SIGTERM rather than waiting for a controller that may never come, as Kafka's does.
#[test]
fn a_broker_waiting_for_its_controller_stops_on_sigterm() {
    let _serial = common::serial();
    let [controller] = free_ports(1)[..] else { unreachable!() };
    let voters = format!("controller.quorum.voters=1@127.0.0.1:{controller}");
    let cluster_id = format!("cluster.id={}", common::cluster::CLUSTER_ID);
    let overrides = [
        "node.id=2",
        "process.roles=broker",
        "listeners=PLAINTEXT://127.0.0.1:0",
        "controller.listener.names=CONTROLLER",
        &voters,
        &cluster_id,
    ];
    let node = Server::spawn_with(tempfile::tempdir().expect("temp dir"), &overrides);
    let log = node.terminate_after("registering with the active controller");
    assert!(log.contains("shutting down before start-up completed"), "{log}");
}

/// `broker.session.timeout.ms` and leaves the ISR, so `acks=all` production with
/// `min.insync.replicas=2` of 3 goes on; after SIGCONT it heartbeats again, is unfenced, catches
/// up and rejoins the ISR.
#[test]
fn a_frozen_broker_is_fenced_and_rejoins_when_it_thaws() {
    let _serial = common::serial();
    let cluster = Cluster::start(3);
    create_topic_with(&cluster, 1, "frozen", 1, &[("min.insync.replicas", "2")]);
    let leader = leader_of(&cluster, 1, "frozen", |_, isr| isr.len() == 3);
    leader_of(&cluster, leader, "frozen", |l, _| l == leader);
    let controller = cluster.wait_for_active_controller(None);
    let victim = (1..=3).find(|id| *id != leader && *id != controller).unwrap_or_else(|| {
        (1..=3).find(|id| *id != leader).expect("a follower") // leader and controller are one node
    });
    let pid = cluster.node(victim).child.id().to_string();
    let mut client = cluster.node(leader).connect();
    assert_eq!(produce(&mut client, "frozen", -1, batch(&["before"])), (0, 0));

    assert!(std::process::Command::new("kill").args(["-STOP", &pid]).status().expect("kill").success());
    let mut expected = vec!["before".to_owned()];
    for i in 0..5 {
        let value = format!("frozen-{i}");
        assert_eq!(produce(&mut client, "frozen", -1, batch(&[&value])).0, 0, "acks=all with 2 of 3 in sync");
        expected.push(value);
    }
    let fenced = cluster.wait_for_metadata(leader, "fenced the frozen broker", |m| !brokers(m).contains(&victim));
    let (_, _, _, isr) = &partitions(&fenced, "frozen")[0];
    assert!(!isr.contains(&victim), "the frozen broker is still in the ISR {isr:?}");

    assert!(std::process::Command::new("kill").args(["-CONT", &pid]).status().expect("kill").success());
    cluster.wait_for_metadata(leader, "took the thawed broker back", |m| {
        brokers(m) == [1, 2, 3] && partitions(m, "frozen").first().is_some_and(|(_, _, _, isr)| isr.contains(&victim))
    });
    assert_eq!(read_committed(&mut client, "frozen", expected.len()), expected);
}

/// The four-broker demonstration from the shipped files (`config/four-brokers/`, with ports and
/// data directories of the test's own): three controller-only nodes and four broker-only ones; a
/// topic with 4 partitions on all four brokers; stopping brokers one at a time moves each
/// partition's leadership to the next in-sync replica and shrinks the ISRs, and starting them
/// again grows the ISRs back.
#[test]
fn the_four_broker_demonstration_from_the_shipped_files() {
    let _serial = common::serial();
    let config = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/four-brokers");
    let ports = free_ports(3);
    let voters: Vec<String> = ports.iter().enumerate().map(|(i, p)| format!("{}@127.0.0.1:{p}", i + 1)).collect();
    let voters = format!("controller.quorum.voters={}", voters.join(","));
    let controllers: Vec<Starting> = (0..3)
        .map(|i| {
            let listener = format!("listeners=CONTROLLER://127.0.0.1:{}", ports[i]);
            let file = config.join(format!("controller-{}.properties", i + 1));
            Server::spawn_from(Some(&file), tempfile::tempdir().expect("temp dir"), &[&listener, &voters])
        })
        .collect();
    let spawn_broker = |b: usize, data: tempfile::TempDir| {
        let file = config.join(format!("broker-{b}.properties"));
        let overrides = [
            "listeners=PLAINTEXT://127.0.0.1:0",
            "advertised.listeners=PLAINTEXT://127.0.0.1:0",
            &voters,
            "broker.session.timeout.ms=2000",
            "broker.heartbeat.interval.ms=250",
        ];
        Server::spawn_from(Some(&file), data, &overrides)
    };
    let mut brokers_up: Vec<Option<Server>> =
        (1..=4).map(|b| Some(spawn_broker(b, tempfile::tempdir().expect("temp dir")).ready())).collect();
    let _controllers: Vec<Server> = controllers.into_iter().map(Starting::controller_ready).collect();
    let ask = |brokers_up: &[Option<Server>], what: &str, done: &dyn Fn(&MetadataResponse) -> bool| {
        let server = brokers_up.iter().flatten().next().expect("a running broker");
        let mut client = server.connect();
        for _ in 0..300 {
            let request = MetadataRequest { topics: None, ..Default::default() };
            let ResponseBody::Metadata(m) = client.call(RequestBody::Metadata(request), 12) else { panic!() };
            if done(&m) {
                return m;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("never {what}")
    };
    ask(&brokers_up, "listed the four brokers", &|m| brokers(m) == [4, 5, 6, 7]);
    let request = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: "demo".into(),
            num_partitions: 4,
            replication_factor: 4,
            ..Default::default()
        }],
        timeout_ms: 10_000,
        ..Default::default()
    };
    let server = brokers_up[0].as_ref().expect("broker 1");
    let ResponseBody::CreateTopics(created) = server.connect().call(RequestBody::CreateTopics(request), 7) else {
        panic!()
    };
    assert_eq!(created.topics[0].error_code, 0, "{:?}", created.topics[0]);
    ask(&brokers_up, "put every broker in every ISR", &|m| {
        let p = partitions(m, "demo");
        p.len() == 4 && p.iter().all(|(_, _, _, isr)| isr.len() == 4)
    });

    // Stop brokers 3 and 4 (nodes 6 and 7) one at a time.
    let mut stopped = Vec::new();
    for b in [3usize, 4] {
        let node = i32::try_from(b + 3).expect("node id");
        let before = ask(&brokers_up, "described the topic", &|_| true);
        let data = brokers_up[b - 1].take().expect("running").terminate();
        stopped.push((b, data));
        let after = ask(&brokers_up, "dropped the stopped broker from the ISRs", &|m| {
            partitions(m, "demo").iter().all(|(_, _, _, isr)| !isr.contains(&node))
        });
        for ((partition, old_leader, replicas, old_isr), (_, leader, _, isr)) in
            partitions(&before, "demo").iter().zip(partitions(&after, "demo"))
        {
            assert_eq!(isr.len(), old_isr.len() - 1, "partition {partition}: the ISR shrinks by one");
            if *old_leader == node {
                // The next in-sync replica in replica order takes over.
                let next = replicas.iter().copied().find(|r| *r != node && old_isr.contains(r));
                assert_eq!(Some(leader), next, "partition {partition}");
            } else {
                assert_eq!(leader, *old_leader, "partition {partition}: leadership stays");
            }
        }
    }
    for (b, data) in stopped {
        brokers_up[b - 1] = Some(spawn_broker(b, data).ready());
    }
    ask(&brokers_up, "grew every ISR back", &|m| {
        let p = partitions(m, "demo");
        brokers(m) == [4, 5, 6, 7] && p.iter().all(|(_, _, _, isr)| isr.len() == 4)
    });
}
