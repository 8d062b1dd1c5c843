//! Delegation tokens as Kafka's `DelegationTokenControlManager` decides them (KIP-48), on a
//! manual clock (`now_ms` passed in): creation bounded by the maximum lifetime, renewal never
//! past it, expiry, the periodic removal of expired tokens, the error codes in Kafka's order,
//! and the image's replay and snapshot of token records.

mod common;

use bytes::Bytes;
use common::{Cluster, from_snapshot_records};
use strand_metadata::controller::{
    TokenContext, create_delegation_token, expire_delegation_token, expired_tokens, renew_delegation_token,
};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::create_delegation_token_request::CreatableRenewers;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{
    CreateDelegationTokenRequest, ExpireDelegationTokenRequest, RenewDelegationTokenRequest,
};
use strand_security::KafkaPrincipal;
use strand_security::delegation_token::DelegationTokenSettings;

const HOUR_MS: i64 = 3_600_000;
const DAY_MS: i64 = 24 * HOUR_MS;
const T0: i64 = 1_000_000;

fn settings() -> DelegationTokenSettings {
    DelegationTokenSettings {
        secret_key: "secret".to_owned(),
        max_lifetime_ms: 7 * DAY_MS,
        expiry_time_ms: DAY_MS,
        expiry_check_interval_ms: HOUR_MS,
    }
}

fn context<'a>(settings: &'a DelegationTokenSettings, who: &'a KafkaPrincipal, now_ms: i64) -> TokenContext<'a> {
    TokenContext { settings: Some(settings), requester: who, now_ms }
}

/// A cluster holding token `t1` of alice, renewable by bob, created at [`T0`].
fn with_token(max_lifetime_ms: i64) -> (Cluster, Bytes) {
    let mut cluster = Cluster::new();
    let settings = settings();
    let alice = KafkaPrincipal::user("alice");
    let request = CreateDelegationTokenRequest {
        renewers: vec![CreatableRenewers {
            principal_type: "User".to_owned(),
            principal_name: "bob".to_owned(),
            ..Default::default()
        }],
        max_lifetime_ms,
        ..Default::default()
    };
    let result = create_delegation_token(&cluster.image, &request, context(&settings, &alice, T0), "t1".to_owned());
    assert_eq!(result.response.error_code, 0);
    cluster.apply(&result.records);
    (cluster, result.response.hmac)
}

/// A new token expires after `delegation.token.expiry.time.ms`, lives at most the lesser of the
/// requested and configured lifetimes, and carries HmacSHA512(secret, id).
#[test]
fn creation_bounds_the_token_by_its_lifetimes() {
    let (cluster, hmac) = with_token(-1);
    let token = cluster.image.delegation_tokens().token("t1").expect("created").clone();
    assert_eq!((token.issue_timestamp_ms, token.expiry_timestamp_ms), (T0, T0 + DAY_MS));
    assert_eq!(token.max_timestamp_ms, T0 + 7 * DAY_MS);
    assert_eq!((token.owner.to_string(), token.requester.to_string()), ("User:alice".into(), "User:alice".into()));
    assert_eq!(hmac.as_ref(), settings().hmac("t1").as_slice());

    let (short, _) = with_token(HOUR_MS);
    let token = short.image.delegation_tokens().token("t1").expect("created");
    assert_eq!((token.expiry_timestamp_ms, token.max_timestamp_ms), (T0 + HOUR_MS, T0 + HOUR_MS));
    let (long, _) = with_token(30 * DAY_MS);
    assert_eq!(long.image.delegation_tokens().token("t1").expect("created").max_timestamp_ms, T0 + 7 * DAY_MS);
}

/// KIP-373: a token created for another owner names the requester apart; a renewer that is not
/// a User is INVALID_PRINCIPAL_TYPE; without the secret key, DELEGATION_TOKEN_AUTH_DISABLED.
#[test]
fn creation_for_another_owner_and_refusals() {
    let cluster = Cluster::new();
    let (settings, admin) = (settings(), KafkaPrincipal::user("admin"));
    let request = CreateDelegationTokenRequest {
        owner_principal_type: Some("User".to_owned()),
        owner_principal_name: Some("carol".to_owned()),
        ..Default::default()
    };
    let result = create_delegation_token(&cluster.image, &request, context(&settings, &admin, T0), "t2".into());
    assert_eq!(
        (result.response.principal_name.as_str(), result.response.token_requester_principal_name.as_str()),
        ("carol", "admin")
    );
    let MetadataRecord::DelegationTokenRecord(record) = &result.records[0].record else { panic!("a token record") };
    assert_eq!((record.owner.as_str(), record.requester.as_str()), ("User:carol", "User:admin"));

    let mut bad = request.clone();
    bad.renewers.push(CreatableRenewers {
        principal_type: "Group".into(),
        principal_name: "g".into(),
        ..Default::default()
    });
    let result = create_delegation_token(&cluster.image, &bad, context(&settings, &admin, T0), "t3".into());
    assert_eq!((result.response.error_code, result.records.len()), (ErrorCode::InvalidPrincipalType.code(), 0));

    let disabled = TokenContext { settings: None, requester: &admin, now_ms: T0 };
    let result = create_delegation_token(&cluster.image, &request, disabled, "t4".into());
    assert_eq!((result.response.error_code, result.records.len()), (ErrorCode::DelegationTokenAuthDisabled.code(), 0));
}

/// Renewal moves the expiry to now plus the period (at most the configured expiry time) and
/// never past the maximum timestamp; only the owner or a renewer may renew; an unknown HMAC is
/// NOT_FOUND, a token past its expiry EXPIRED.
#[test]
fn renewal_never_passes_the_maximum_lifetime() {
    let (mut cluster, hmac) = with_token(-1);
    let settings = settings();
    let (alice, bob, eve) = (KafkaPrincipal::user("alice"), KafkaPrincipal::user("bob"), KafkaPrincipal::user("eve"));
    let renew =
        |period: i64| RenewDelegationTokenRequest { hmac: hmac.clone(), renew_period_ms: period, ..Default::default() };

    let now = T0 + 12 * HOUR_MS;
    let result = renew_delegation_token(&cluster.image, &renew(HOUR_MS), context(&settings, &bob, now));
    assert_eq!((result.response.error_code, result.response.expiry_timestamp_ms), (0, now + HOUR_MS));
    cluster.apply(&result.records);
    assert_eq!(cluster.image.delegation_tokens().token("t1").expect("kept").expiry_timestamp_ms, now + HOUR_MS);
    let result = renew_delegation_token(&cluster.image, &renew(10 * DAY_MS), context(&settings, &alice, now));
    assert_eq!(result.response.expiry_timestamp_ms, now + DAY_MS, "capped by delegation.token.expiry.time.ms");
    cluster.apply(&result.records);

    // Renewed day after day, the token stops at its maximum timestamp.
    let mut now = T0;
    for _ in 0..8 {
        now += DAY_MS - HOUR_MS;
        let result = renew_delegation_token(&cluster.image, &renew(-1), context(&settings, &alice, now));
        assert_eq!(result.response.error_code, 0, "renewal at {now}");
        assert_eq!(result.response.expiry_timestamp_ms, (now + DAY_MS).min(T0 + 7 * DAY_MS));
        cluster.apply(&result.records);
        if now + DAY_MS > T0 + 7 * DAY_MS {
            break;
        }
    }

    let code = |request: &RenewDelegationTokenRequest, who: &KafkaPrincipal, now: i64| {
        renew_delegation_token(&cluster.image, request, context(&settings, who, now)).response.error_code
    };
    assert_eq!(code(&renew(-1), &eve, now), ErrorCode::DelegationTokenOwnerMismatch.code());
    let unknown = RenewDelegationTokenRequest { hmac: Bytes::from_static(b"nope"), ..Default::default() };
    assert_eq!(code(&unknown, &alice, now), ErrorCode::DelegationTokenNotFound.code());
    assert_eq!(code(&renew(-1), &alice, T0 + 7 * DAY_MS + 1), ErrorCode::DelegationTokenExpired.code());
}

/// A negative period removes the token at once (the response echoes the period); a period
/// moves its expiry, never past the maximum; the expiry check then removes what has expired.
#[test]
fn expiry_now_later_and_by_the_periodic_check() {
    let (mut cluster, hmac) = with_token(-1);
    let (settings, alice) = (settings(), KafkaPrincipal::user("alice"));
    let expire = |period: i64| ExpireDelegationTokenRequest {
        hmac: hmac.clone(),
        expiry_time_period_ms: period,
        ..Default::default()
    };

    let later = expire_delegation_token(&cluster.image, &expire(HOUR_MS), context(&settings, &alice, T0));
    assert_eq!((later.response.error_code, later.response.expiry_timestamp_ms), (0, T0 + HOUR_MS));
    cluster.apply(&later.records);
    assert!(expired_tokens(&cluster.image, T0 + HOUR_MS, 10).is_empty(), "not yet past its expiry");
    let removals = expired_tokens(&cluster.image, T0 + HOUR_MS + 1, 10);
    assert_eq!(removals.len(), 1);
    let mut swept = Cluster::new();
    swept.apply(&later.records);
    swept.apply(&removals);
    assert!(swept.image.delegation_tokens().is_empty());

    let (mut cluster, _) = with_token(-1);
    let now = expire_delegation_token(&cluster.image, &expire(-1), context(&settings, &alice, T0));
    assert_eq!((now.response.error_code, now.response.expiry_timestamp_ms), (0, -1));
    cluster.apply(&now.records);
    assert!(cluster.image.delegation_tokens().token("t1").is_none());
    let again = expire_delegation_token(&cluster.image, &expire(-1), context(&settings, &alice, T0));
    assert_eq!(again.response.error_code, ErrorCode::DelegationTokenNotFound.code());
}

/// Tokens survive a snapshot: the image loaded from its own records holds the same tokens.
#[test]
fn tokens_load_from_a_snapshot() {
    let (cluster, _) = with_token(-1);
    let loaded = from_snapshot_records(&cluster.image);
    assert_eq!(loaded.delegation_tokens(), cluster.image.delegation_tokens());
    assert!(!loaded.delegation_tokens().is_empty());
}

/// Before `metadata.version` 3.6-IV2 (level 14) every token request is UNSUPPORTED_VERSION, as
/// Kafka's `isDelegationTokenSupported` decides.
#[test]
fn tokens_need_metadata_version_3_6_iv2() {
    let mut cluster = Cluster::new();
    let record = strand_protocol::messages::FeatureLevelRecord {
        name: strand_metadata::image::METADATA_VERSION.to_owned(),
        feature_level: 13,
        ..Default::default()
    };
    cluster.apply(&[strand_metadata::controller::ApiMessageAndVersion::latest(MetadataRecord::FeatureLevelRecord(
        record,
    ))]);
    let (settings, alice) = (settings(), KafkaPrincipal::user("alice"));
    let request = CreateDelegationTokenRequest::default();
    let result = create_delegation_token(&cluster.image, &request, context(&settings, &alice, T0), "t".into());
    assert_eq!((result.response.error_code, result.records.len()), (ErrorCode::UnsupportedVersion.code(), 0));
    let renew = RenewDelegationTokenRequest::default();
    let result = renew_delegation_token(&cluster.image, &renew, context(&settings, &alice, T0));
    assert_eq!(result.response.error_code, ErrorCode::UnsupportedVersion.code());
}
