//! DescribeConfigs, IncrementalAlterConfigs and AlterConfigs through `Broker::handle`: values,
//! sources and synonyms as Kafka's `ConfigHelper` reports them, and the error codes.

mod common;

use common::{Node, settings, static_config};
use strand_metadata::controller::topic_configs::TOPIC_CONFIGS;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::describe_configs_request::DescribeConfigsResource;
use strand_protocol::messages::describe_configs_response::{DescribeConfigsResourceResult, DescribeConfigsResult};
use strand_protocol::messages::{
    AlterConfigsRequest, DescribeConfigsRequest, IncrementalAlterConfigsRequest, alter_configs_request,
    incremental_alter_configs_request,
};

const TOPIC: i8 = 2;
const BROKER: i8 = 4;
const BROKER_LOGGER: i8 = 8;
const GROUP: i8 = 32;
const SET: i8 = 0;

/// A node whose `server.properties` set `log.segment.bytes` (so topics default `segment.bytes`
/// from it), with topic `first`, an override `retention.ms=1000`, a cluster-wide dynamic
/// `message.max.bytes` and a per-broker dynamic `log.cleaner.delete.retention.ms`.
async fn node() -> Node {
    let mut settings = settings();
    settings.broker_configs.push(static_config("log.segment.bytes", Some("2097152"), 4, &["log.segment.bytes"], 3));
    settings.controller_defaults.static_topic_configs.insert("segment.bytes".into(), "2097152".into());
    let mut node = Node::with_settings(settings);
    node.create_topic("first", 1).await;
    for (kind, name, key, value) in [
        (TOPIC, "first", "retention.ms", "1000"),
        (BROKER, "", "message.max.bytes", "2000000"),
        (BROKER, "1", "log.cleaner.delete.retention.ms", "1000"),
    ] {
        let codes = incremental(&mut node, vec![set(kind, name, &[(key, Some(value), SET)])], false, 1).await;
        assert_eq!(codes, [(0, None)], "{key}");
    }
    node
}

fn set(
    kind: i8,
    name: &str,
    ops: &[(&str, Option<&str>, i8)],
) -> incremental_alter_configs_request::AlterConfigsResource {
    incremental_alter_configs_request::AlterConfigsResource {
        resource_type: kind,
        resource_name: name.to_owned(),
        configs: ops
            .iter()
            .map(|(key, value, op)| incremental_alter_configs_request::AlterableConfig {
                name: (*key).to_owned(),
                config_operation: *op,
                value: value.map(str::to_owned),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// The error code and message of each resource.
async fn incremental(
    node: &mut Node,
    resources: Vec<incremental_alter_configs_request::AlterConfigsResource>,
    validate_only: bool,
    version: i16,
) -> Vec<(i16, Option<String>)> {
    let request = IncrementalAlterConfigsRequest { resources, validate_only, ..Default::default() };
    match node.call(RequestBody::IncrementalAlterConfigs(request), version).await {
        ResponseBody::IncrementalAlterConfigs(r) => {
            r.responses.into_iter().map(|r| (r.error_code, r.error_message)).collect()
        }
        other => panic!("not an IncrementalAlterConfigs response: {other:?}"),
    }
}

async fn alter(node: &mut Node, name: &str, configs: &[(&str, &str)], validate_only: bool, version: i16) -> i16 {
    let resource = alter_configs_request::AlterConfigsResource {
        resource_type: TOPIC,
        resource_name: name.to_owned(),
        configs: configs
            .iter()
            .map(|(key, value)| alter_configs_request::AlterableConfig {
                name: (*key).to_owned(),
                value: Some((*value).to_owned()),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let request = AlterConfigsRequest { resources: vec![resource], validate_only, ..Default::default() };
    match node.call(RequestBody::AlterConfigs(request), version).await {
        ResponseBody::AlterConfigs(r) => r.responses[0].error_code,
        other => panic!("not an AlterConfigs response: {other:?}"),
    }
}

fn resource(kind: i8, name: &str, keys: Option<&[&str]>) -> DescribeConfigsResource {
    DescribeConfigsResource {
        resource_type: kind,
        resource_name: name.to_owned(),
        configuration_keys: keys.map(|keys| keys.iter().map(|k| (*k).to_owned()).collect()),
        ..Default::default()
    }
}

async fn describe(
    node: &mut Node,
    resources: Vec<DescribeConfigsResource>,
    include_synonyms: bool,
    version: i16,
) -> Vec<DescribeConfigsResult> {
    let request = DescribeConfigsRequest { resources, include_synonyms, ..Default::default() };
    match node.call(RequestBody::DescribeConfigs(request), version).await {
        ResponseBody::DescribeConfigs(r) => r.results,
        other => panic!("not a DescribeConfigs response: {other:?}"),
    }
}

/// A described config: name, value, source, read-only, and its synonyms (name, value, source).
type Described = (String, Option<String>, i8, bool, Vec<(String, Option<String>, i8)>);

fn described(config: &DescribeConfigsResourceResult) -> Described {
    let synonyms = config.synonyms.iter().map(|s| (s.name.clone(), s.value.clone(), s.source)).collect();
    (config.name.clone(), config.value.clone(), config.config_source, config.read_only, synonyms)
}

fn expect(
    name: &str,
    value: Option<&str>,
    source: i8,
    read_only: bool,
    synonyms: &[(&str, Option<&str>, i8)],
) -> Described {
    let synonyms = synonyms.iter().map(|(n, v, s)| ((*n).to_owned(), v.map(str::to_owned), *s)).collect();
    (name.to_owned(), value.map(str::to_owned), source, read_only, synonyms)
}

fn find<'a>(result: &'a DescribeConfigsResult, name: &str) -> &'a DescribeConfigsResourceResult {
    result.configs.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("{name} described"))
}

/// Every topic config, with the source and synonyms Kafka reports: the topic's override, the
/// per-broker and cluster-wide dynamic configs, `server.properties`, and Kafka's defaults;
/// `config_type` from v3.
#[tokio::test]
async fn topic_configs_with_sources_and_synonyms() {
    let mut node = node().await;
    let cases = [
        (expect("retention.ms", Some("1000"), 1, false, &[("retention.ms", Some("1000"), 1)]), 5),
        (
            expect(
                "max.message.bytes",
                Some("2000000"),
                3,
                false,
                &[("message.max.bytes", Some("2000000"), 3), ("message.max.bytes", Some("1048588"), 5)],
            ),
            3,
        ),
        (expect("segment.bytes", Some("2097152"), 4, false, &[("log.segment.bytes", Some("2097152"), 4)]), 3),
        (
            expect(
                "delete.retention.ms",
                Some("1000"),
                2,
                false,
                &[("log.cleaner.delete.retention.ms", Some("1000"), 2)],
            ),
            5,
        ),
        (expect("cleanup.policy", Some("delete"), 5, false, &[]), 7),
        (expect("preallocate", Some("false"), 5, false, &[]), 1),
    ];
    for version in 1..=4 {
        let results = describe(&mut node, vec![resource(TOPIC, "first", None)], true, version).await;
        let result = &results[0];
        assert_eq!((result.error_code, result.resource_name.as_str()), (0, "first"), "v{version}");
        assert_eq!(result.configs.len(), TOPIC_CONFIGS.len(), "v{version}: every topic config");
        for (expected, config_type) in &cases {
            let config = find(result, &expected.0);
            assert_eq!(described(config), *expected, "v{version}");
            assert!(!config.is_sensitive, "v{version} {}", expected.0);
            if version >= 3 {
                assert_eq!(
                    (config.config_type, config.documentation.as_deref()),
                    (*config_type, None),
                    "{}",
                    expected.0
                );
            }
        }
    }
}

/// Synonyms only when asked; `configuration_keys` picks configs (unknown keys are skipped, an
/// empty list means all).
#[tokio::test]
async fn synonyms_and_keys_filter() {
    let mut node = node().await;
    let results = describe(&mut node, vec![resource(TOPIC, "first", None)], false, 4).await;
    assert!(results[0].configs.iter().all(|c| c.synonyms.is_empty()));
    assert_eq!(find(&results[0], "retention.ms").config_source, 1, "the source does not need synonyms");
    let keys = ["segment.ms", "no.such.config", "retention.ms"];
    let results = describe(&mut node, vec![resource(TOPIC, "first", Some(&keys))], false, 4).await;
    let names: Vec<&str> = results[0].configs.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["retention.ms", "segment.ms"]);
    let results = describe(&mut node, vec![resource(TOPIC, "first", Some(&[]))], false, 4).await;
    assert_eq!(results[0].configs.len(), TOPIC_CONFIGS.len());
}

/// This node's BROKER resource: static configs with their synonym chains, dynamic ones from the
/// image; the empty name gives only the cluster-wide dynamic defaults.
#[tokio::test]
async fn broker_configs() {
    let mut node = node().await;
    let results = describe(&mut node, vec![resource(BROKER, "1", None), resource(BROKER, "", None)], true, 4).await;
    let this = &results[0];
    assert_eq!(this.error_code, 0);
    let cases = [
        expect("node.id", Some("1"), 4, true, &[("node.id", Some("1"), 4), ("broker.id", Some("1"), 4)]),
        expect("log.retention.hours", Some("168"), 5, true, &[("log.retention.hours", Some("168"), 5)]),
        expect("log.retention.ms", None, 5, false, &[]),
        expect(
            "message.max.bytes",
            Some("2000000"),
            3,
            false,
            &[("message.max.bytes", Some("2000000"), 3), ("message.max.bytes", Some("1048588"), 5)],
        ),
        expect(
            "log.cleaner.delete.retention.ms",
            Some("1000"),
            2,
            false,
            &[("log.cleaner.delete.retention.ms", Some("1000"), 2)],
        ),
    ];
    for expected in &cases {
        assert_eq!(described(find(this, &expected.0)), *expected);
    }
    assert_eq!(find(this, "log.cleaner.delete.retention.ms").config_type, 5, "typed as its topic config");
    let defaults = &results[1];
    let all: Vec<Described> = defaults.configs.iter().map(described).collect();
    assert_eq!(
        all,
        [expect("message.max.bytes", Some("2000000"), 3, false, &[("message.max.bytes", Some("2000000"), 3)])]
    );
}

/// Errors per resource, with Kafka's codes and messages; a resource type Kafka does not define
/// fails every resource of the request.
#[tokio::test]
async fn describe_errors() {
    let mut node = node().await;
    let invalid = ErrorCode::InvalidRequest.code();
    let cases: [(DescribeConfigsResource, i16, Option<&str>); 6] = [
        (resource(TOPIC, "nope", None), ErrorCode::UnknownTopicOrPartition.code(), None),
        (
            resource(TOPIC, "bad name", None),
            ErrorCode::InvalidTopicException.code(),
            Some(
                "Topic name is invalid: 'bad name' contains one or more characters other than ASCII alphanumerics, \
                 '.', '_' and '-'",
            ),
        ),
        (
            resource(BROKER, "2", None),
            invalid,
            Some("Unexpected broker id, expected 1 or empty string, but received 2"),
        ),
        (resource(BROKER, "x", None), invalid, Some("Broker id must be an integer, but it is: x")),
        (resource(BROKER_LOGGER, "1", None), invalid, Some("Broker loggers are not supported.")),
        (resource(GROUP, "", None), invalid, Some("Default group resources are not allowed.")),
    ];
    for (asked, code, message) in cases {
        let label = format!("{asked:?}");
        let results = describe(&mut node, vec![asked], false, 4).await;
        assert_eq!((results[0].error_code, results[0].error_message.as_deref()), (code, message), "{label}");
        assert!(results[0].configs.is_empty());
    }
    let results = describe(&mut node, vec![resource(TOPIC, "first", None), resource(0, "x", None)], false, 4).await;
    let codes: Vec<i16> = results.iter().map(|r| r.error_code).collect();
    assert_eq!(codes, [invalid, invalid]);
}

/// A group's configs: the keys Strand applies (KIP-1191's dead-letter settings, its own release
/// backoff, KIP-932's `share.auto.offset.reset`), each at its default for a group that set none.
#[tokio::test]
async fn describe_group_configs_defaults() {
    let mut node = node().await;
    let results = describe(&mut node, vec![resource(GROUP, "g", None)], false, 4).await;
    assert_eq!(results[0].error_code, 0);
    let configs: Vec<(&str, Option<&str>, i8)> =
        results[0].configs.iter().map(|c| (c.name.as_str(), c.value.as_deref(), c.config_source)).collect();
    assert_eq!(
        configs,
        [
            ("errors.deadletterqueue.topic.name", Some(""), 5),
            ("errors.deadletterqueue.copy.record.enable", Some("false"), 5),
            ("share.release.backoff.ms", Some("0"), 5),
            ("share.release.backoff.max.ms", Some("0"), 5),
            ("share.auto.offset.reset", Some("latest"), 5),
        ]
    );
}

/// IncrementalAlterConfigs (v0-1) and AlterConfigs (v0-2): Kafka's error codes, `validate_only`
/// writes nothing, AlterConfigs replaces the whole set.
#[tokio::test]
async fn alter_configs_errors_and_effects() {
    let overrides = |node: &Node| {
        let image = node.broker.image();
        image.configs().resource(&strand_metadata::image::ConfigResource::topic("first")).cloned().unwrap_or_default()
    };
    for version in 0..=1 {
        let mut node = node().await;
        let cases: [(incremental_alter_configs_request::AlterConfigsResource, i16); 5] = [
            (set(TOPIC, "nope", &[("retention.ms", Some("5"), SET)]), ErrorCode::UnknownTopicOrPartition.code()),
            (set(TOPIC, "first", &[("retention.ms", Some("-5"), SET)]), ErrorCode::InvalidConfig.code()),
            (set(TOPIC, "first", &[("no.such.config", Some("1"), SET)]), ErrorCode::InvalidConfig.code()),
            (set(TOPIC, "first", &[("retention.ms", Some("5"), 9)]), ErrorCode::InvalidRequest.code()),
            (set(BROKER, "", &[("num.io.threads", Some("4"), SET)]), ErrorCode::InvalidRequest.code()),
        ];
        for (asked, code) in cases {
            let label = format!("v{version} {asked:?}");
            let answers = incremental(&mut node, vec![asked], false, version).await;
            assert_eq!(answers[0].0, code, "{label}: {:?}", answers[0].1);
        }
        let validated =
            incremental(&mut node, vec![set(TOPIC, "first", &[("segment.ms", Some("5000"), SET)])], true, version)
                .await;
        assert_eq!(validated[0].0, 0);
        assert!(!overrides(&node).contains_key("segment.ms"), "v{version}: validate_only writes nothing");
        assert_eq!(overrides(&node).get("retention.ms").map(String::as_str), Some("1000"), "v{version}");
    }
    for version in 0..=2 {
        let mut node = node().await;
        assert_eq!(
            alter(&mut node, "nope", &[("segment.ms", "5000")], false, version).await,
            ErrorCode::UnknownTopicOrPartition.code()
        );
        assert_eq!(
            alter(&mut node, "first", &[("segment.ms", "x")], false, version).await,
            ErrorCode::InvalidConfig.code()
        );
        assert_eq!(alter(&mut node, "first", &[("segment.ms", "5000")], true, version).await, 0);
        assert_eq!(overrides(&node).len(), 1, "v{version}: validate_only writes nothing");
        assert_eq!(alter(&mut node, "first", &[("segment.ms", "5000")], false, version).await, 0);
        let after: Vec<(String, String)> = overrides(&node).into_iter().collect();
        assert_eq!(after, [("segment.ms".to_owned(), "5000".to_owned())], "v{version}: retention.ms is gone");
    }
}

/// The replication throttles' rates (KIP-73) are dynamic broker configs, per broker or cluster
/// default: a LONG of at least 0 (else INVALID_REQUEST with Kafka's message), described as
/// DYNAMIC_BROKER_CONFIG, typed LONG, not sensitive, read-only as Kafka reports them. Setting the
/// log-dir move throttle is refused (Strand moves no replica between log dirs), deleting it is
/// not (`kafka-reassign-partitions --verify` deletes it on every broker).
#[tokio::test]
async fn replication_throttle_rates_are_dynamic_broker_configs() {
    let mut node = node().await;
    let rate = "leader.replication.throttled.rate";
    let ops = [(rate, Some("1000"), SET), ("follower.replication.throttled.rate", Some("2000"), SET)];
    assert_eq!(incremental(&mut node, vec![set(BROKER, "1", &ops)], false, 1).await, [(0, None)]);
    let ops = [("follower.replication.throttled.rate", Some("3000"), SET)];
    assert_eq!(incremental(&mut node, vec![set(BROKER, "", &ops)], false, 1).await, [(0, None)]);
    let refused = incremental(&mut node, vec![set(BROKER, "1", &[(rate, Some("-1"), SET)])], false, 1).await;
    let message = "Invalid value -1 for configuration leader.replication.throttled.rate: Value must be at least 0";
    assert_eq!(refused, [(ErrorCode::InvalidRequest.code(), Some(message.to_owned()))]);
    let log_dirs = "replica.alter.log.dirs.io.max.bytes.per.second";
    let set_rate = incremental(&mut node, vec![set(BROKER, "1", &[(log_dirs, Some("1000"), SET)])], false, 1).await;
    assert_eq!(set_rate, [(0, None)], "log-dir moves are throttled");
    let refused = incremental(&mut node, vec![set(BROKER, "1", &[(log_dirs, Some("-1"), SET)])], false, 1).await;
    assert_eq!(refused[0].0, ErrorCode::InvalidRequest.code(), "{refused:?}");
    let deleted = incremental(&mut node, vec![set(BROKER, "1", &[(log_dirs, None, 1)])], false, 1).await;
    assert_eq!(deleted, [(0, None)]);

    let results = describe(&mut node, vec![resource(BROKER, "1", None)], true, 4).await;
    let leader = find(&results[0], rate);
    assert_eq!(described(leader), expect(rate, Some("1000"), 2, true, &[(rate, Some("1000"), 2)]));
    assert_eq!((leader.config_type, leader.is_sensitive), (5, false));
    let follower = find(&results[0], "follower.replication.throttled.rate");
    let synonyms = [
        ("follower.replication.throttled.rate", Some("2000"), 2),
        ("follower.replication.throttled.rate", Some("3000"), 3),
    ];
    assert_eq!(described(follower), expect("follower.replication.throttled.rate", Some("2000"), 2, true, &synonyms));
    assert!(results[0].configs.iter().all(|c| c.name != log_dirs), "deleted");
}
