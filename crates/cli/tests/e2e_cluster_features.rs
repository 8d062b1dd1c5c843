//! Finalized features changed on a running cluster (KIP-584, Kafka's `kafka-features`):
//! UpdateFeatures through a broker-only node (forwarded to the active controller) and on a
//! follower controller's CONTROLLER listener (KIP-919), with Kafka's refusals; the new levels as
//! every node's ApiVersions reports them, with a larger finalized epoch, at once on the node that
//! answered; IncrementalAlterConfigs of a broker config on the CONTROLLER listener; and the levels
//! kept across a restart of the whole cluster, since they are records of the metadata log. Updates
//! wait for every voter's registration (KIP-919), as Kafka's do.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::cluster::Cluster;
use common::{Client, WAIT_MAX};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::describe_configs_request::DescribeConfigsResource;
use strand_protocol::messages::incremental_alter_configs_request::{AlterConfigsResource, AlterableConfig};
use strand_protocol::messages::update_features_request::FeatureUpdateKey;
use strand_protocol::messages::{
    ApiVersionsResponse, DescribeConfigsRequest, IncrementalAlterConfigsRequest, UpdateFeaturesRequest,
    UpdateFeaturesResponse,
};

const UPGRADE: i8 = 1;
const SAFE_DOWNGRADE: i8 = 2;
const INVALID_UPDATE_VERSION: i16 = 95;
const BROKER_RESOURCE: i8 = 4;

/// The finalized levels `client`'s node reports (a feature at level 0 is absent), and their epoch.
fn finalized(client: &mut Client) -> (Vec<(String, i16)>, i64) {
    let ResponseBody::ApiVersions(versions) = client.call(RequestBody::ApiVersions(common::api_versions_request()), 3)
    else {
        panic!("not an ApiVersions response")
    };
    let ApiVersionsResponse { finalized_features, finalized_features_epoch, .. } = versions;
    let levels = finalized_features.into_iter().map(|f| (f.name, f.max_version_level)).collect();
    (levels, finalized_features_epoch)
}

fn levels(pairs: &[(&str, i16)]) -> Vec<(String, i16)> {
    pairs.iter().map(|(name, level)| ((*name).to_owned(), *level)).collect()
}

fn update(
    client: &mut Client,
    version: i16,
    updates: &[(&str, i16, i8)],
    validate_only: bool,
) -> UpdateFeaturesResponse {
    let key = |&(name, level, upgrade_type): &(&str, i16, i8)| FeatureUpdateKey {
        feature: name.to_owned(),
        max_version_level: level,
        upgrade_type,
        ..Default::default()
    };
    let request = UpdateFeaturesRequest {
        feature_updates: updates.iter().map(key).collect(),
        validate_only,
        ..Default::default()
    };
    let ResponseBody::UpdateFeatures(response) = client.call(RequestBody::UpdateFeatures(request), version) else {
        panic!("not an UpdateFeatures response")
    };
    response
}

/// Asks `client` for its finalized levels until they are `expected`.
fn until_levels(client: &mut Client, expected: &[(String, i16)]) -> i64 {
    let poll = Duration::from_millis(100);
    for _ in 0..WAIT_MAX.as_millis() / poll.as_millis() {
        let (levels, epoch) = finalized(client);
        if levels == expected {
            return epoch;
        }
        std::thread::sleep(poll);
    }
    panic!("levels never {expected:?} within {WAIT_MAX:?}: {:?}", finalized(client))
}

/// Dry runs through `client` until one passes: until then some voter has not registered with
/// the active controller yet (KIP-919), and Kafka refuses updates it cannot check.
fn until_controllers_registered(client: &mut Client) {
    let poll = Duration::from_millis(100);
    for _ in 0..WAIT_MAX.as_millis() / poll.as_millis() {
        let response = update(client, 2, &[("group.version", 1, UPGRADE)], true);
        if response.error_code == 0 {
            return;
        }
        let message = response.error_message.unwrap_or_default();
        assert!(message.ends_with("has not registered, and may not support this feature"), "{message}");
        std::thread::sleep(poll);
    }
    panic!("the controllers never registered within {WAIT_MAX:?}")
}

fn controller_address(cluster: &Cluster, id: i32) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], cluster.controller_port(id)))
}

/// The cluster-wide default of `log.retention.ms` as `client`'s node describes it.
fn default_retention(client: &mut Client) -> Option<String> {
    let resource = DescribeConfigsResource {
        resource_type: BROKER_RESOURCE,
        resource_name: String::new(),
        configuration_keys: Some(vec!["log.retention.ms".into()]),
        ..Default::default()
    };
    let request = DescribeConfigsRequest { resources: vec![resource], ..Default::default() };
    let ResponseBody::DescribeConfigs(response) = client.call(RequestBody::DescribeConfigs(request), 4) else {
        panic!("not a DescribeConfigs response")
    };
    response.results.first()?.configs.first()?.value.clone()
}

/// On for new clusters, as in Kafka 4.1 and later (KIP-966).
const ELR: &str = "eligible.leader.replicas.version";

/// Three voters and a broker-only node: a downgrade through the broker, a refusal, disabling and
/// a dry run on a follower's CONTROLLER listener, a broker config set there, each seen by every
/// node; then the whole cluster restarts and still reports the changed levels.
#[test]
fn features_change_through_both_listeners_and_survive_restarts() {
    let _serial = common::serial();
    let mut cluster = Cluster::start_with_voters(4, 3);
    let leader = cluster.wait_for_active_controller(None);
    let formatted = levels(&[
        (ELR, 1),
        ("group.version", 1),
        ("metadata.version", 33),
        ("share.version", 1),
        ("streams.version", 1),
        ("transaction.version", 2),
    ]);
    let mut broker = cluster.node(4).connect();
    let (at_start, epoch_at_start) = finalized(&mut broker);
    assert_eq!(at_start, formatted, "a static quorum finalizes kraft.version 0, reported by no entry, as Kafka");
    until_controllers_registered(&mut broker);

    // Through the broker-only node (v1: per-feature results), answered once it has the record.
    let downgraded = update(&mut broker, 1, &[("transaction.version", 1, SAFE_DOWNGRADE)], false);
    assert_eq!((downgraded.error_code, downgraded.error_message.as_deref()), (0, None), "{downgraded:?}");
    let results: Vec<_> = downgraded.results.iter().map(|r| (r.feature.as_str(), r.error_code)).collect();
    assert_eq!(results, [("transaction.version", 0)]);
    let (after, epoch) = finalized(&mut broker);
    assert_eq!(
        after,
        levels(&[
            (ELR, 1),
            ("group.version", 1),
            ("metadata.version", 33),
            ("share.version", 1),
            ("streams.version", 1),
            ("transaction.version", 1)
        ])
    );
    assert!(epoch > epoch_at_start, "the finalized epoch moves with the metadata: {epoch} after {epoch_at_start}");
    let refused = update(&mut broker, 2, &[("group.version", 2, UPGRADE)], false);
    assert_eq!(refused.error_code, INVALID_UPDATE_VERSION, "{refused:?}");
    assert_eq!(
        refused.error_message.as_deref(),
        Some(
            format!(
                "The update failed for all features since the following feature had an error: Invalid update \
                 version 2 for feature group.version. Local controller {leader} only supports versions 0-1"
            )
            .as_str()
        )
    );

    // On a follower controller's CONTROLLER listener: forwarded to the leader as well.
    let follower = (1..=3).find(|id| *id != leader).expect("a follower");
    let mut controller = Client::connect(controller_address(&cluster, follower));
    let dry = update(&mut controller, 2, &[("transaction.version", 2, UPGRADE)], true);
    assert_eq!(dry.error_code, 0, "{dry:?}");
    let disabled = update(&mut controller, 2, &[("group.version", 0, SAFE_DOWNGRADE)], false);
    assert_eq!(disabled.error_code, 0, "{disabled:?}");
    let changed = levels(&[
        (ELR, 1),
        ("metadata.version", 33),
        ("share.version", 1),
        ("streams.version", 1),
        ("transaction.version", 1),
    ]);
    assert_eq!(finalized(&mut controller).0, changed, "the answering controller has the record");
    for id in 1..=4 {
        until_levels(&mut cluster.node(id).connect(), &changed);
    }

    // kafka-configs --bootstrap-controller --alter: a cluster-wide broker default.
    let config = AlterableConfig {
        name: "log.retention.ms".into(),
        config_operation: 0,
        value: Some("7200000".into()),
        ..Default::default()
    };
    let resource = AlterConfigsResource {
        resource_type: BROKER_RESOURCE,
        resource_name: String::new(),
        configs: vec![config],
        ..Default::default()
    };
    let request = IncrementalAlterConfigsRequest { resources: vec![resource], ..Default::default() };
    let ResponseBody::IncrementalAlterConfigs(altered) =
        controller.call(RequestBody::IncrementalAlterConfigs(request), 1)
    else {
        panic!("not an IncrementalAlterConfigs response")
    };
    assert_eq!(altered.responses.iter().map(|r| r.error_code).collect::<Vec<_>>(), [0], "{altered:?}");
    assert_eq!(default_retention(&mut controller).as_deref(), Some("7200000"));

    drop((broker, controller));
    for id in 1..=4 {
        cluster.terminate(id);
    }
    cluster.restart_all(&[1, 2, 3, 4]);
    cluster.wait_for_active_controller(None);
    for id in 1..=4 {
        until_levels(&mut cluster.node(id).connect(), &changed);
    }
    assert_eq!(default_retention(&mut cluster.node(4).connect()).as_deref(), Some("7200000"));
}
