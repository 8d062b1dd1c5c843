//! AlterClientQuotas as Kafka's `ClientQuotaControlManager` decides it (KIP-546), and the quota
//! part of the image: replay, removal, DescribeClientQuotas matching, snapshots.

mod common;

use common::{Cluster, from_snapshot_records};
use strand_metadata::controller::alter_client_quotas;
use strand_metadata::image::{ClientQuotaEntity, ClientQuotaFilter};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::AlterClientQuotasRequest;
use strand_protocol::messages::alter_client_quotas_request::{EntityData, EntryData, OpData};

const OK: ErrorCode = ErrorCode::None;
const INVALID: ErrorCode = ErrorCode::InvalidRequest;

/// One entry: the entity's `(type, name)` pairs and `(key, Some(value))` sets or `(key, None)`
/// removals.
type Entry<'a> = (&'a [(&'a str, Option<&'a str>)], &'a [(&'a str, Option<f64>)]);

fn request(entries: &[Entry<'_>], validate_only: bool) -> AlterClientQuotasRequest {
    let entries = entries
        .iter()
        .map(|(entity, ops)| EntryData {
            entity: entity
                .iter()
                .map(|(kind, name)| EntityData {
                    entity_type: (*kind).to_owned(),
                    entity_name: name.map(str::to_owned),
                    ..Default::default()
                })
                .collect(),
            ops: ops
                .iter()
                .map(|(key, value)| OpData {
                    key: (*key).to_owned(),
                    value: value.unwrap_or(0.0),
                    remove: value.is_none(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        })
        .collect();
    AlterClientQuotasRequest { entries, validate_only, ..Default::default() }
}

/// A cluster where user alice has `producer_byte_rate=1024`.
fn with_alice() -> Cluster {
    let mut cluster = Cluster::new();
    let alice: Entry<'_> = (&[("user", Some("alice"))], &[("producer_byte_rate", Some(1024.0))]);
    let result = alter_client_quotas(&cluster.image, &request(&[alice], false));
    cluster.apply(&result.records);
    cluster
}

/// Decides `entries` on [`with_alice`]: each entry's code and message, and how many records.
fn check(entries: &[Entry<'_>], expected: &[(ErrorCode, Option<&str>)], records: usize) {
    let cluster = with_alice();
    let result = alter_client_quotas(&cluster.image, &request(entries, false));
    let actual: Vec<(ErrorCode, Option<&str>)> = result
        .response
        .entries
        .iter()
        .map(|e| (ErrorCode::from_code(e.error_code).expect("a known code"), e.error_message.as_deref()))
        .collect();
    assert_eq!(actual, expected, "{entries:?}");
    assert_eq!(result.records.len(), records, "{entries:?}");
}

/// Every rule of `ClientQuotaControlManager.alterClientQuotas`, with Kafka's codes and messages.
#[test]
fn alter_client_quotas_rules() {
    let user: &[(&str, Option<&str>)] = &[("user", Some("bob"))];
    let set = |key, value| -> Vec<(&str, Option<f64>)> { vec![(key, Some(value))] };
    check(&[(user, &set("producer_byte_rate", 100.0))], &[(OK, None)], 1);
    check(&[(user, &set("request_percentage", 12.5))], &[(OK, None)], 1);
    check(&[(user, &set("controller_mutation_rate", 0.5))], &[(OK, None)], 1);
    // A default user, a client id, both, a default client of a user.
    check(&[(&[("user", None)], &set("consumer_byte_rate", 10.0))], &[(OK, None)], 1);
    check(&[(&[("client-id", Some("c"))], &set("consumer_byte_rate", 10.0))], &[(OK, None)], 1);
    check(&[(&[("user", Some("u")), ("client-id", None)], &set("producer_byte_rate", 1.0))], &[(OK, None)], 1);
    check(&[(&[("ip", Some("10.0.0.1"))], &set("connection_creation_rate", 5.0))], &[(OK, None)], 1);
    check(&[(&[("ip", Some("::1"))], &set("connection_creation_rate", 5.0))], &[(OK, None)], 1);
    check(&[(&[("ip", None)], &set("connection_creation_rate", 5.0))], &[(OK, None)], 1);
    // The value alice already has writes nothing; removing what is not set writes nothing.
    check(&[(&[("user", Some("alice"))], &set("producer_byte_rate", 1024.0))], &[(OK, None)], 0);
    check(&[(&[("user", Some("alice"))], &[("producer_byte_rate", None)])], &[(OK, None)], 1);
    check(&[(&[("user", Some("alice"))], &[("consumer_byte_rate", None)])], &[(OK, None)], 0);
    // Entities.
    let invalid = |m: &'static str| [(INVALID, Some(m))];
    check(&[(&[], &set("producer_byte_rate", 1.0))], &invalid("Invalid empty client quota entity"), 0);
    check(
        &[(&[("group", Some("g"))], &set("producer_byte_rate", 1.0))],
        &invalid("Unhandled client quota entity type: group"),
        0,
    );
    check(&[(&[("user", Some(""))], &set("producer_byte_rate", 1.0))], &invalid("Empty user not supported"), 0);
    check(
        &[(&[("user", Some("u")), ("ip", Some("1.2.3.4"))], &set("producer_byte_rate", 1.0))],
        &invalid("Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId"),
        0,
    );
    check(
        &[(&[("ip", Some("not an ip"))], &set("connection_creation_rate", 1.0))],
        &invalid("not an ip is not a valid IP or resolvable host."),
        0,
    );
    // Keys and values.
    check(
        &[(user, &set("connection_creation_rate", 1.0))],
        &invalid("Invalid configuration key connection_creation_rate"),
        0,
    );
    check(
        &[(&[("ip", None)], &set("producer_byte_rate", 1.0))],
        &invalid("Invalid configuration key producer_byte_rate"),
        0,
    );
    check(&[(user, &set("producer_byte_rate", 0.0))], &invalid("Quota producer_byte_rate must be greater than 0"), 0);
    check(&[(user, &set("request_percentage", -1.0))], &invalid("Quota request_percentage must be greater than 0"), 0);
    check(&[(user, &set("producer_byte_rate", 1.5))], &invalid("producer_byte_rate cannot be a fractional value."), 0);
    check(
        &[(&[("ip", None)], &set("connection_creation_rate", 3e9))],
        &invalid("Proposed value for connection_creation_rate is too large for an INT."),
        0,
    );
    check(
        &[(user, &set("producer_byte_rate", 1e19))],
        &invalid("Proposed value for producer_byte_rate is too large for a LONG."),
        0,
    );
    // One bad key fails the entity whole; other entities stand.
    check(
        &[
            (user, &[("producer_byte_rate", Some(5.0)), ("consumer_byte_rate", Some(-5.0))]),
            (&[("client-id", Some("c"))], &set("producer_byte_rate", 7.0)),
        ],
        &[(INVALID, Some("Quota consumer_byte_rate must be greater than 0")), (OK, None)],
        1,
    );
    // A key twice, or an entity twice (whose first entry's records stand).
    let dup = "Ignoring duplicate entity ClientQuotaEntity(entries={user=bob})";
    check(&[(user, &[("producer_byte_rate", Some(5.0)), ("producer_byte_rate", Some(6.0))])], &invalid(dup), 0);
    check(&[(user, &set("producer_byte_rate", 5.0)), (user, &set("consumer_byte_rate", 6.0))], &invalid(dup), 1);
}

/// `validate_only` answers as the real request would and writes nothing.
#[test]
fn validate_only_writes_nothing() {
    let cluster = with_alice();
    let entries: [Entry<'_>; 2] = [
        (&[("user", Some("bob"))], &[("producer_byte_rate", Some(5.0))]),
        (&[("user", Some("carol"))], &[("producer_byte_rate", Some(0.0))]),
    ];
    let result = alter_client_quotas(&cluster.image, &request(&entries, true));
    let codes: Vec<i16> = result.response.entries.iter().map(|e| e.error_code).collect();
    assert_eq!(codes, [0, INVALID.code()]);
    assert!(result.records.is_empty());
}

/// Replayed quotas reach the image, removals empty it, snapshots recreate it, and describe
/// filters match as Kafka's `ClientQuotasImage` does.
#[test]
fn quotas_replay_describe_and_survive_snapshots() {
    let mut cluster = with_alice();
    let entries: [Entry<'_>; 4] = [
        (&[("user", Some("alice")), ("client-id", Some("app"))], &[("consumer_byte_rate", Some(2048.0))]),
        (&[("user", None)], &[("producer_byte_rate", Some(100.0))]),
        (&[("client-id", Some("app"))], &[("request_percentage", Some(50.0))]),
        (&[("ip", Some("127.0.0.1"))], &[("connection_creation_rate", Some(10.0))]),
    ];
    cluster.apply(&alter_client_quotas(&cluster.image, &request(&entries, false)).records);
    let quotas = cluster.image.client_quotas();
    let alice = ClientQuotaEntity::new([("user", Some("alice"))]);
    assert_eq!(quotas.get(&alice, "producer_byte_rate"), Some(1024.0));
    assert_eq!(quotas.get(&ClientQuotaEntity::new([("user", None)]), "producer_byte_rate"), Some(100.0));
    assert_eq!(from_snapshot_records(&cluster.image), cluster.image);
    assert!(quotas.any_sets("consumer_byte_rate") && quotas.any_sets("connection_creation_rate"));
    assert!(!quotas.any_sets("controller_mutation_rate"));

    let names = |filter: &ClientQuotaFilter| -> Vec<String> {
        quotas.describe(filter).map(|(entity, _)| entity.to_string()).collect()
    };
    let exact = |pairs: &[(&str, Option<&str>)], strict| ClientQuotaFilter {
        exact: pairs.iter().map(|(k, v)| ((*k).to_owned(), v.map(str::to_owned))).collect(),
        specified: Vec::new(),
        strict,
    };
    let e = |s: &str| format!("ClientQuotaEntity(entries={{{s}}})");
    assert_eq!(names(&exact(&[("user", Some("alice"))], false)), [e("client-id=app, user=alice"), e("user=alice")]);
    assert_eq!(names(&exact(&[("user", Some("alice"))], true)), [e("user=alice")]);
    assert_eq!(names(&exact(&[("user", None)], true)), [e("user=null")]);
    let specified = ClientQuotaFilter { specified: vec!["client-id".to_owned()], ..Default::default() };
    assert_eq!(names(&specified), [e("client-id=app"), e("client-id=app, user=alice")]);
    assert_eq!(names(&ClientQuotaFilter::default()).len(), 5, "no component, not strict: everything");
    assert!(names(&ClientQuotaFilter { strict: true, ..Default::default() }).is_empty());

    let remove: [Entry<'_>; 1] = [(&[("user", Some("alice"))], &[("producer_byte_rate", None)])];
    cluster.apply(&alter_client_quotas(&cluster.image, &request(&remove, false)).records);
    assert_eq!(cluster.image.client_quotas().quotas(&alice), None, "an entity with no quota left is gone");
    let user_default = [(&[("user", None)][..], &[("producer_byte_rate", None)][..])];
    cluster.apply(&alter_client_quotas(&cluster.image, &request(&user_default, false)).records);
    assert!(!cluster.image.client_quotas().any_sets("producer_byte_rate"), "the last producer_byte_rate removed");
    assert_eq!(from_snapshot_records(&cluster.image), cluster.image);
}
