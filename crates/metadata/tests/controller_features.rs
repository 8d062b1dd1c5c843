//! UpdateFeatures as the controller decides it, against Kafka 4.4's answers for the same requests
//! (recorded with its `kafka-features` tool, `compat/kafka-tools/golden/features-*.txt`): the
//! supported ranges of this controller and of every registered broker, upgrade types, the
//! `metadata.version` downgrade refusal, unknown features, `validate_only`, the first failing
//! update in Kafka's order failing the whole request, levels replayed into the image, and
//! controllers' registrations (KIP-919) bounding the levels too.

mod common;

use common::Cluster;
use strand_base::Uuid;
use strand_metadata::controller::{InitialFencing, LocalController, register_controller, update_features};
use strand_metadata::testkit::{register, registration};
use strand_protocol::messages::controller_registration_request::{Feature, Listener};
use strand_protocol::messages::update_features_request::FeatureUpdateKey;
use strand_protocol::messages::{ControllerRegistrationRequest, UpdateFeaturesRequest, UpdateFeaturesResponse};

const UPGRADE: i8 = 1;
const SAFE_DOWNGRADE: i8 = 2;
const UNSAFE_DOWNGRADE: i8 = 3;
const NODE: LocalController<'static> =
    LocalController { node_id: 1, voters: &[], static_min_insync_replicas: 1, kraft_upgrade_refusal: None };
const FAILED: &str = "The update failed for all features since the following feature had an error: ";

/// A feature's name, the level asked for and the upgrade type.
type Update<'a> = (&'a str, i16, i8);

fn request(updates: &[Update], validate_only: bool) -> UpdateFeaturesRequest {
    let key = |&(name, level, upgrade_type): &Update| FeatureUpdateKey {
        feature: name.to_owned(),
        max_version_level: level,
        upgrade_type,
        ..Default::default()
    };
    UpdateFeaturesRequest { feature_updates: updates.iter().map(key).collect(), validate_only, ..Default::default() }
}

/// Decides `updates` (v2) on `cluster`, applies the records and returns (error code, message).
fn check(cluster: &mut Cluster, updates: &[Update], expected: (i16, &str)) -> UpdateFeaturesResponse {
    let result = update_features(&cluster.image, &request(updates, false), 2, NODE);
    let message = result.response.error_message.as_deref().unwrap_or("");
    let expected_message = if expected.1.is_empty() { String::new() } else { format!("{FAILED}{}", expected.1) };
    assert_eq!((result.response.error_code, message), (expected.0, expected_message.as_str()), "{updates:?}");
    assert!(expected.0 == 0 || result.records.is_empty(), "records only on success: {result:?}");
    cluster.apply(&result.records);
    result.response
}

fn level(cluster: &Cluster, name: &str) -> i16 {
    cluster.image.features().level(name)
}

/// The refusals Kafka 4.4 gives on a freshly formatted cluster, word for word.
#[test]
fn refusals_are_kafkas() {
    let mut cluster = Cluster::with_brokers(&[1, 2]);
    let cases: &[(&[Update], &str)] = &[
        (
            &[("transaction.version", 1, UPGRADE)],
            "Invalid update version 1 for feature transaction.version. Can't downgrade the version of this feature \
             without setting the upgrade type to either safe or unsafe downgrade.",
        ),
        (
            &[("group.version", 2, UPGRADE)],
            "Invalid update version 2 for feature group.version. Local controller 1 only supports versions 0-1",
        ),
        (
            &[("foo.version", 1, UPGRADE)],
            "Invalid update version 1 for feature foo.version. Local controller 1 does not support this feature.",
        ),
        (
            &[("foo.version", 0, SAFE_DOWNGRADE)],
            "Invalid update version 0 for feature foo.version. Feature foo.version not found.",
        ),
        (
            &[("metadata.version", 30, SAFE_DOWNGRADE)],
            "Unsupported metadata.version downgrade from 33 to 30. Refusing to perform the requested downgrade \
             because it might delete metadata information.",
        ),
        (
            &[("metadata.version", 32, UNSAFE_DOWNGRADE)],
            "Unsupported metadata.version downgrade from 33 to 32. Unsafe metadata downgrade is not supported in \
             this version.",
        ),
        (
            &[("metadata.version", 0, SAFE_DOWNGRADE)],
            "Invalid update version 0 for feature metadata.version. Local controller 1 only supports versions 7-33",
        ),
        (
            &[("group.version", 1, 0)],
            "Invalid update version 1 for feature group.version. The controller does not support the given upgrade type.",
        ),
        (
            &[("group.version", -1, SAFE_DOWNGRADE)],
            "Invalid update version -1 for feature group.version. A feature version cannot be less than 0.",
        ),
        (
            &[("kraft.version", 1, SAFE_DOWNGRADE)],
            "Invalid update version 1 for feature kraft.version. Can't downgrade to a newer version.",
        ),
    ];
    for (updates, message) in cases {
        check(&mut cluster, updates, (95, message));
    }
    // `downgrade --release-version 3.9-IV0`: two updates fail; Kafka names kraft.version's.
    let release_3_9: &[Update] = &[
        ("metadata.version", 21, SAFE_DOWNGRADE),
        ("eligible.leader.replicas.version", 0, SAFE_DOWNGRADE),
        ("group.version", 0, SAFE_DOWNGRADE),
        ("kraft.version", 1, SAFE_DOWNGRADE),
        ("share.version", 0, SAFE_DOWNGRADE),
        ("streams.version", 0, SAFE_DOWNGRADE),
        ("transaction.version", 0, SAFE_DOWNGRADE),
    ];
    check(
        &mut cluster,
        release_3_9,
        (95, "Invalid update version 1 for feature kraft.version. Can't downgrade to a newer version."),
    );
    assert_eq!((level(&cluster, "group.version"), level(&cluster, "transaction.version")), (1, 2), "nothing applied");
}

/// Downgrades, disabling and upgrades are FeatureLevelRecords that the image replays; a
/// validate-only request and a no-op kraft.version update write nothing.
#[test]
fn changes_are_records_replayed_into_the_image() {
    let mut cluster = Cluster::with_brokers(&[1]);
    let dry = update_features(&cluster.image, &request(&[("transaction.version", 1, SAFE_DOWNGRADE)], true), 2, NODE);
    assert_eq!((dry.response.error_code, dry.records.len()), (0, 0), "{dry:?}");
    check(&mut cluster, &[("transaction.version", 1, SAFE_DOWNGRADE)], (0, ""));
    assert_eq!(level(&cluster, "transaction.version"), 1);
    check(&mut cluster, &[("group.version", 0, SAFE_DOWNGRADE), ("transaction.version", 2, UPGRADE)], (0, ""));
    assert_eq!((level(&cluster, "group.version"), level(&cluster, "transaction.version")), (0, 2));
    assert!(!cluster.image.features().finalized().contains_key("group.version"), "level 0 is not finalized");
    check(&mut cluster, &[("group.version", 1, UPGRADE)], (0, ""));
    assert_eq!(level(&cluster, "group.version"), 1);
    let unchanged = check(&mut cluster, &[("kraft.version", 0, SAFE_DOWNGRADE)], (0, ""));
    assert!(unchanged.results.is_empty(), "v2 answers at the top only");
}

/// kraft.version: an upgrade the quorum's voters refuse fails with the quorum's words as they
/// stand (Kafka 4.4's message, recorded with a voter down), before anything is written; one they
/// allow is a `FeatureLevelRecord` (where ApiVersions reads levels from); a downgrade is refused.
#[test]
fn kraft_version_rises_when_the_voters_allow_it() {
    let mut cluster = Cluster::with_brokers(&[1]);
    let refusal = "Invalid upgrade of kraft.version to KRAFT_VERSION_1 because not all of the voters support it";
    let voters_refuse = LocalController { kraft_upgrade_refusal: Some(refusal), ..NODE };
    for validate_only in [true, false] {
        let request = request(&[("kraft.version", 1, UPGRADE), ("group.version", 0, SAFE_DOWNGRADE)], validate_only);
        let refused = update_features(&cluster.image, &request, 2, voters_refuse);
        assert_eq!(refused.response.error_code, 95, "{refused:?}");
        assert_eq!(refused.response.error_message, Some(format!("{FAILED}{refusal}")));
        assert!(refused.records.is_empty());
    }
    check(&mut cluster, &[("kraft.version", 0, UPGRADE)], (0, ""));
    check(&mut cluster, &[("kraft.version", 1, UPGRADE)], (0, ""));
    assert_eq!(level(&cluster, "kraft.version"), 1);
    let downgrade = "Invalid update version 0 for feature kraft.version. Can't downgrade the version of this feature.";
    check(&mut cluster, &[("kraft.version", 0, SAFE_DOWNGRADE)], (95, downgrade));
    check(&mut cluster, &[("kraft.version", 1, UPGRADE)], (0, ""));
}

/// A registered broker that supports less than this controller bounds the levels.
#[test]
fn every_registered_broker_must_support_the_level() {
    let mut cluster = Cluster::with_brokers(&[1]);
    check(&mut cluster, &[("group.version", 0, SAFE_DOWNGRADE)], (0, ""));
    let mut old = registration(2);
    old.features.retain(|f| f.name != "group.version");
    let registered = register(&cluster.image, &old, InitialFencing::Unfenced);
    cluster.apply(&registered.records);
    check(
        &mut cluster,
        &[("group.version", 1, UPGRADE)],
        (95, "Invalid update version 1 for feature group.version. Broker 2 does not support this feature."),
    );
}

/// Versions 0 and 1 list every feature with NONE; version 0's allow_downgrade is a safe downgrade.
#[test]
fn old_versions_answer_per_feature() {
    let mut cluster = Cluster::with_brokers(&[1]);
    let mut v0 = request(&[("transaction.version", 1, 0)], false);
    v0.feature_updates[0].allow_downgrade = true;
    let result = update_features(&cluster.image, &v0, 0, NODE);
    assert_eq!(result.response.error_code, 0, "{result:?}");
    let results: Vec<_> = result
        .response
        .results
        .iter()
        .map(|r| (r.feature.as_str(), r.error_code, r.error_message.as_deref()))
        .collect();
    assert_eq!(results, [("transaction.version", 0, Some("NONE"))]);
    cluster.apply(&result.records);
    assert_eq!(level(&cluster, "transaction.version"), 1);
}

fn controller_registration(id: i32, group_version_max: i16) -> ControllerRegistrationRequest {
    let feature = |name: &str, min: i16, max: i16| Feature {
        name: name.to_owned(),
        min_supported_version: min,
        max_supported_version: max,
        ..Default::default()
    };
    ControllerRegistrationRequest {
        controller_id: id,
        incarnation_id: Uuid([u8::try_from(id).unwrap_or(0); 16]),
        listeners: vec![Listener {
            name: "CONTROLLER".into(),
            host: format!("c{id}"),
            port: 9093,
            ..Default::default()
        }],
        features: vec![
            feature("metadata.version", 7, 33),
            feature("group.version", 0, group_version_max),
            feature("transaction.version", 0, 2),
        ],
        ..Default::default()
    }
}

/// Controllers are checked by their registrations (Kafka's `reasonNotSupported`): a voter that
/// has not registered fails an update, then one that registered without the level does; the
/// registrations are records that a snapshot keeps.
#[test]
fn every_voter_must_have_registered_and_support_the_level() {
    let mut cluster = Cluster::with_brokers(&[1]);
    let local = LocalController { voters: &[1, 2, 3], ..NODE };
    let decide = |cluster: &Cluster, updates: &[Update]| {
        let response = update_features(&cluster.image, &request(updates, true), 2, local).response;
        response.error_message.unwrap_or_default().trim_start_matches(FAILED).to_owned()
    };
    for (id, group_version_max) in [(1, 1), (2, 1)] {
        let registered = register_controller(&cluster.image, &controller_registration(id, group_version_max));
        assert_eq!(registered.response.error_code, 0, "{registered:?}");
        cluster.apply(&registered.records);
    }
    let downgrade: &[Update] = &[("group.version", 0, SAFE_DOWNGRADE)];
    assert_eq!(
        decide(&cluster, downgrade),
        "Invalid update version 0 for feature group.version. controller 3 has not registered, and may not support \
         this feature"
    );
    let registered = register_controller(&cluster.image, &controller_registration(3, 0));
    cluster.apply(&registered.records);
    assert_eq!(decide(&cluster, downgrade), "", "every controller supports level 0");
    assert_eq!(
        decide(&cluster, &[("group.version", 1, UPGRADE)]),
        "Invalid update version 1 for feature group.version. Controller 3 does not support this feature."
    );
    let registration = cluster.image.cluster().controller(3).expect("registered");
    assert_eq!((registration.endpoints[0].host.as_str(), registration.endpoints[0].port), ("c3", 9093));
    assert_eq!(common::from_snapshot_records(&cluster.image), cluster.image, "a snapshot keeps registrations");
}

/// Turning eligible leader replicas on writes Kafka's `maybeGenerateElrSafetyRecords` first, in
/// the same batch: the cluster-level `min.insync.replicas` (the controller's static value) when
/// none is set, and every broker's own one deleted; a cluster that already has them gets only the
/// feature record, and a validate-only request writes nothing.
#[test]
fn enabling_elr_writes_its_safety_records_first() {
    use strand_metadata::image::ConfigResource;
    use strand_protocol::messages::ConfigRecord;
    use strand_protocol::messages::records::MetadataRecord;

    let mut cluster = Cluster::with_brokers(&[1, 2]);
    cluster.set_elr_level(0);
    let broker_min_isr = |node: &str, value: &str| {
        let record = ConfigRecord {
            resource_type: 4,
            resource_name: node.to_owned(),
            name: "min.insync.replicas".to_owned(),
            value: Some(value.to_owned()),
            ..Default::default()
        };
        strand_metadata::controller::ApiMessageAndVersion::latest(MetadataRecord::ConfigRecord(record))
    };
    // Broker 1's own value, and one left by broker 7, which never registered here.
    cluster.apply(&[broker_min_isr("1", "2"), broker_min_isr("7", "3")]);
    let enable: &[Update] = &[("eligible.leader.replicas.version", 1, UPGRADE)];
    let local = LocalController { static_min_insync_replicas: 2, ..NODE };
    let dry = update_features(&cluster.image, &request(enable, true), 2, local);
    assert_eq!((dry.response.error_code, dry.records.len()), (0, 0), "{dry:?}");

    let result = update_features(&cluster.image, &request(enable, false), 2, local);
    assert_eq!(result.response.error_code, 0, "{result:?}");
    let written: Vec<String> = result
        .records
        .iter()
        .map(|r| match &r.record {
            MetadataRecord::ConfigRecord(c) => {
                format!("config {}:{} {}={:?}", c.resource_type, c.resource_name, c.name, c.value)
            }
            MetadataRecord::FeatureLevelRecord(f) => format!("feature {}={}", f.name, f.feature_level),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        written,
        [
            "config 4: min.insync.replicas=Some(\"2\")",
            "config 4:1 min.insync.replicas=None",
            "config 4:7 min.insync.replicas=None",
            "feature eligible.leader.replicas.version=1",
        ]
    );
    cluster.apply(&result.records);
    let configs = cluster.image.configs();
    assert_eq!(configs.value(&ConfigResource::cluster_default(), "min.insync.replicas"), Some("2"));
    assert_eq!(configs.value(&ConfigResource::broker("1"), "min.insync.replicas"), None);
    assert_eq!(level(&cluster, "eligible.leader.replicas.version"), 1);

    // Off and on again: the cluster-level value stays and nothing else needs removing.
    check(&mut cluster, &[("eligible.leader.replicas.version", 0, SAFE_DOWNGRADE)], (0, ""));
    let again = update_features(&cluster.image, &request(enable, false), 2, local);
    assert_eq!(again.records.len(), 1, "only the feature record: {again:?}");
}
