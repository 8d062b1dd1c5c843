//! `strand configs` against a real node, compared with what Kafka 4.4's own `kafka-configs.sh`
//! printed for the same sequences (the golden files of `compat/kafka-tools/golden/`, recorded by
//! `test_kafka_tools_configs.py`, `_quotas.py` and `_scram.py` from Kafka against Kafka): a
//! topic's configs, the cluster-wide broker default, client quotas of users, client ids, a
//! (user, client id) pair and IPs, users' SCRAM credentials and a group's configs; and the
//! command-line checks.

mod common;

use std::process::Output;

use common::Server;
use common::goldens::{check, strand_tool};

fn configs(server: &Server, args: &[&str]) -> Output {
    strand_tool(server, "configs", args, None)
}

/// Runs `args` until its stdout passes `ready` (a change the controller made reaches the node a
/// moment after the tool's answer), at most 100 times.
fn eventually(server: &Server, args: &[&str], ready: impl Fn(&str) -> bool) -> Output {
    for _ in 0..100 {
        let done = configs(server, args);
        if ready(&String::from_utf8_lossy(&done.stdout)) {
            return done;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    configs(server, args)
}

/// [`check`] with stdout's lines sorted (`check_sorted` of `test_kafka_tools_quotas.py`).
fn check_sorted(name: &str, mut done: Output) {
    let text = String::from_utf8_lossy(&done.stdout).into_owned();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    done.stdout = lines.iter().map(|l| format!("{l}\n")).collect::<String>().into_bytes();
    check(name, &done);
}

fn stderr(done: &Output) -> String {
    String::from_utf8_lossy(&done.stderr).into_owned()
}

/// Kafka's `test_topic_configs_round_trip` and `test_broker_default_round_trip`.
#[test]
fn topic_and_broker_default_configs_print_what_kafka_s_tool_prints() {
    let server = Server::start();
    let create = ["--create", "--topic", "cfg", "--partitions", "1", "--replication-factor", "1"];
    check("configs-create-topic", &strand_tool(&server, "topics", &create, None));
    let topic = ["--entity-type", "topics", "--entity-name", "cfg"];
    let add = [&topic[..], &["--alter", "--add-config", "retention.ms=86400000,cleanup.policy=compact"]].concat();
    check("configs-topic-add", &configs(&server, &add));
    let describe = [&topic[..], &["--describe"]].concat();
    check("configs-topic-describe", &eventually(&server, &describe, |out| out.contains("retention.ms=86400000")));
    let delete = [&topic[..], &["--alter", "--delete-config", "retention.ms"]].concat();
    check("configs-topic-delete", &configs(&server, &delete));
    let after = eventually(&server, &describe, |out| !out.contains("retention.ms"));
    check("configs-topic-describe-after-delete", &after);
    let invalid = configs(&server, &[&topic[..], &["--alter", "--add-config", "segment.bytes=1000"]].concat());
    check("configs-topic-invalid", &invalid);
    assert!(stderr(&invalid).contains("Error while executing config command with args"), "{}", stderr(&invalid));
    let missing = ["--entity-type", "topics", "--entity-name", "missing", "--describe"];
    check("configs-topic-unknown", &configs(&server, &missing));

    let default = ["--entity-type", "brokers", "--entity-default"];
    let add = [&default[..], &["--alter", "--add-config", "log.retention.ms=604800000"]].concat();
    check("configs-brokers-default-add", &configs(&server, &add));
    let describe = [&default[..], &["--describe"]].concat();
    let described = eventually(&server, &describe, |out| out.contains("log.retention.ms=604800000"));
    check("configs-brokers-default-describe", &described);
    let delete = [&default[..], &["--alter", "--delete-config", "log.retention.ms"]].concat();
    check("configs-brokers-default-delete", &configs(&server, &delete));
    let after = eventually(&server, &describe, |out| !out.contains("log.retention.ms"));
    check("configs-brokers-default-describe-after-delete", &after);
}

/// Kafka's `test_user_and_client_quotas_round_trip`, `test_ip_quotas` and `test_invalid_values`.
#[test]
fn client_quotas_print_what_kafka_s_tool_prints() {
    let server = Server::start();
    let carol = ["--entity-type", "users", "--entity-name", "carol"];
    let app = ["--entity-type", "clients", "--entity-name", "app"];
    let pair = [&carol[..], &app[..]].concat();
    let alter =
        |entity: &[&str], config: &str| configs(&server, &[entity, &["--alter", "--add-config", config][..]].concat());
    check("quotas-user-add", &alter(&carol, "producer_byte_rate=1024,consumer_byte_rate=2048"));
    check("quotas-client-add", &alter(&app, "request_percentage=50,controller_mutation_rate=10"));
    check("quotas-user-client-add", &alter(&pair, "producer_byte_rate=512"));
    check(
        "quotas-default-user-add",
        &alter(&["--entity-type", "users", "--entity-default"], "consumer_byte_rate=100000"),
    );
    fn describe<'a>(entity: &[&'a str]) -> Vec<&'a str> {
        [entity, &["--describe"][..]].concat()
    }
    let user = eventually(&server, &describe(&carol), |out| out.contains("producer_byte_rate"));
    check("quotas-user-describe", &user);
    check("quotas-client-describe", &configs(&server, &describe(&app)));
    check("quotas-user-client-describe", &configs(&server, &describe(&pair)));
    let default_user = describe(&["--entity-type", "users", "--entity-default"]);
    check("quotas-default-user-describe", &configs(&server, &default_user));
    check("quotas-clients-describe", &configs(&server, &["--entity-type", "clients", "--describe"]));
    // Several entities print in the order of a hash map, so compared sorted, as the recorder does.
    check_sorted("quotas-users-describe", configs(&server, &["--entity-type", "users", "--describe"]));
    let delete = [&carol[..], &["--alter", "--delete-config", "producer_byte_rate"]].concat();
    check("quotas-user-delete", &configs(&server, &delete));
    let after = eventually(&server, &describe(&carol), |out| !out.contains("producer_byte_rate"));
    check("quotas-user-describe-after-delete", &after);

    let ip = ["--entity-type", "ips", "--entity-name", "127.0.0.1"];
    check("quotas-ip-add", &alter(&ip, "connection_creation_rate=100"));
    check(
        "quotas-default-ip-add",
        &alter(&["--entity-type", "ips", "--entity-default"], "connection_creation_rate=1000"),
    );
    let described = eventually(&server, &describe(&ip), |out| out.contains("connection_creation_rate"));
    check("quotas-ip-describe", &described);
    check_sorted("quotas-ips-describe", configs(&server, &["--entity-type", "ips", "--describe"]));
    let refused = alter(&ip, "producer_byte_rate=10");
    check("quotas-ip-invalid-key", &refused);
    assert!(stderr(&refused).contains("Only connection quota configs can be added for 'ips'"), "{}", stderr(&refused));

    let zero = alter(&["--entity-type", "users", "--entity-name", "bob"], "producer_byte_rate=0");
    check("quotas-zero", &zero);
    assert!(stderr(&zero).contains("Quota producer_byte_rate must be greater than 0"), "{}", stderr(&zero));
    check("quotas-fraction", &alter(&["--entity-type", "clients", "--entity-name", "c"], "consumer_byte_rate=1.5"));
}

/// Kafka's `test_scram_credentials_round_trip` and `test_scram_iterations_out_of_range`; the
/// credential set works for a SASL/SCRAM login's salted password (the server checks it).
#[test]
fn scram_credentials_print_what_kafka_s_tool_prints() {
    let server = Server::start();
    let alice = ["--entity-type", "users", "--entity-name", "alice"];
    let add =
        [&alice[..], &["--alter", "--add-config", "SCRAM-SHA-512=[iterations=8192,password=alice-secret]"]].concat();
    check("scram-add", &configs(&server, &add));
    let all = ["--entity-type", "users", "--describe"];
    check("scram-describe-all", &eventually(&server, &all, |out| out.contains("alice")));
    check("scram-describe-alice", &configs(&server, &[&alice[..], &["--describe"]].concat()));
    let delete = [&alice[..], &["--alter", "--delete-config", "SCRAM-SHA-512"]].concat();
    check("scram-delete", &configs(&server, &delete));
    check("scram-describe-all-after-delete", &eventually(&server, &all, |out| !out.contains("alice")));
    check("scram-describe-alice-after-delete", &configs(&server, &[&alice[..], &["--describe"]].concat()));
    check("scram-delete-again", &configs(&server, &delete));
    let bob = ["--entity-type", "users", "--entity-name", "bob"];
    let too_many = [&bob[..], &["--alter", "--add-config", "SCRAM-SHA-256=[iterations=20000,password=b]"]].concat();
    check("scram-too-many-iterations", &configs(&server, &too_many));
    check("scram-describe-bob", &configs(&server, &[&bob[..], &["--describe"]].concat()));
}

/// Kafka's checks of the command line: the reason on stderr, nothing on stdout, exit 1.
#[test]
fn command_line_checks_are_kafka_s() {
    let server = Server::start();
    let cases: [(&[&str], &str); 6] = [
        (
            &["--entity-type", "topics", "--entity-name", "t"],
            "Command must include exactly one action: --describe, --alter",
        ),
        (&["--describe"], "At least one entity type must be specified"),
        (&["--entity-type", "nope", "--describe"], "Invalid entity type nope, the entity type must be one of"),
        (
            &["--entity-type", "topics", "--alter", "--add-config", "a=1"],
            "An entity name must be specified with --alter of topics",
        ),
        (
            &["--entity-type", "brokers", "--entity-name", "x", "--describe"],
            "must be a valid integer broker id, but it is: x",
        ),
        (
            &["--topic", "t", "--entity-name", "t", "--describe"],
            "should not be used in conjunction with specific entity flags",
        ),
    ];
    for (args, message) in cases {
        let done = configs(&server, args);
        assert_eq!(done.status.code(), Some(1), "{args:?}");
        assert!(done.stdout.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&done.stdout));
        assert!(stderr(&done).contains(message), "{args:?}: {}", stderr(&done));
    }
    // The shortcut flags name the same entities: --topic is --entity-type topics --entity-name.
    let done = configs(&server, &["--topic", "missing", "--describe"]);
    assert_eq!(
        String::from_utf8_lossy(&done.stdout),
        "The topic 'missing' doesn't exist and doesn't have dynamic config.\n"
    );
}

/// `--entity-type groups` (KIP-1191's dead-letter keys): the lines Kafka 4.4's own
/// `kafka-configs.sh` printed for this sequence against a Strand node, and a refused value on
/// stderr with exit 1.
#[test]
fn group_configs_print_what_kafka_s_tool_prints() {
    let server = Server::start();
    let group = ["--entity-type", "groups", "--entity-name", "g1"];
    let keys = "errors.deadletterqueue.topic.name=dlq.orders,errors.deadletterqueue.copy.record.enable=true";
    let done = configs(&server, &[&group[..], &["--alter", "--add-config", keys]].concat());
    assert_eq!(String::from_utf8_lossy(&done.stdout), "Completed updating config for group g1.\n", "{}", stderr(&done));
    let describe = [&group[..], &["--describe"]].concat();
    let done = eventually(&server, &describe, |out| out.contains("dlq.orders"));
    assert_eq!(
        String::from_utf8_lossy(&done.stdout),
        "Dynamic configs for group g1 are:\n  errors.deadletterqueue.copy.record.enable=true sensitive=false \
         synonyms={DYNAMIC_GROUP_CONFIG:errors.deadletterqueue.copy.record.enable=true}\n  \
         errors.deadletterqueue.topic.name=dlq.orders sensitive=false \
         synonyms={DYNAMIC_GROUP_CONFIG:errors.deadletterqueue.topic.name=dlq.orders}\n"
    );
    let refused =
        configs(&server, &[&group[..], &["--alter", "--add-config", "errors.deadletterqueue.topic.name=__x"]].concat());
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("DLQ topic name must not start with '__'"), "{}", stderr(&refused));
}
