//! OAUTHBEARER end to end: initial responses built as Kafka's client builds them, tokens made
//! here (unsigned ones, and JWTs signed by RSA and EC keys generated at test time), checked by
//! Kafka's unsecured validator and by the JWK-set validator, against a clock the test sets.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use strand_base::testkit::ManualClock;
use strand_security::KafkaPrincipal;
use strand_security::sasl::jaas;
use strand_security::sasl::oauthbearer::{
    CurrentJwks, JwksSettings, JwksValidator, OAuthBearerServer, TokenValidator, UnsecuredValidator,
};
use strand_security::sasl::{SaslServer, Step};

/// The test's "now": 2026-01-01T00:00:00Z.
const NOW_MS: i64 = 1_767_225_600_000;
const NOW_S: i64 = NOW_MS / 1000;

fn initial_response(token: &str, extensions: &[(&str, &str)]) -> Vec<u8> {
    let mut text = format!("n,,\u{1}auth=Bearer {token}\u{1}");
    for (key, value) in extensions {
        text.push_str(&format!("{key}={value}\u{1}"));
    }
    text.push('\u{1}');
    text.into_bytes()
}

fn unsecured_token(claims: &Value) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none"}"#);
    format!("{header}.{}.", URL_SAFE_NO_PAD.encode(claims.to_string()))
}

fn server(validator: impl TokenValidator + 'static) -> OAuthBearerServer {
    OAuthBearerServer::new(Arc::new(validator), Arc::new(ManualClock::new(NOW_MS)))
}

/// Runs one exchange: the principal and lifetime, or the JSON error the client was finally told.
fn exchange(validator: impl TokenValidator + 'static, token: &str) -> Result<(String, Duration), String> {
    exchange_with_reason(validator, token).map_err(|(message, _)| message)
}

/// As [`exchange`], with the validator's reason (for the log) beside a refusal.
fn exchange_with_reason(
    validator: impl TokenValidator + 'static,
    token: &str,
) -> Result<(String, Duration), (String, String)> {
    let mut server = server(validator);
    match server.step(&initial_response(token, &[])) {
        Ok(Step::Done { principal, response, lifetime }) => {
            assert!(response.is_empty());
            Ok((principal.name, lifetime.expect("OAUTHBEARER sets a lifetime")))
        }
        Ok(Step::Challenge(json)) => {
            let failure = server.step(&[0x01]).expect_err("the exchange fails after the client's \\x01");
            assert_eq!(failure.message.as_bytes(), json.as_slice(), "the failure is the JSON challenge");
            let reason = failure.detail.expect("the validator's reason is kept for the log");
            Err((failure.message, reason))
        }
        Err(failure) => panic!("unexpected immediate failure {failure:?}"),
    }
}

const INVALID: &str = r#"{"status":"invalid_token"}"#;

/// An unsigned token passes Kafka's default validator; the lifetime is its expiry minus now, and
/// the extensions the client sent are exposed.
#[test]
fn unsecured_token_is_accepted() {
    let token = unsecured_token(&json!({"sub": "alice", "iat": NOW_S - 10, "exp": NOW_S + 3600, "scope": ["a", "b"]}));
    let mut server = server(UnsecuredValidator::default());
    let step = server.step(&initial_response(&token, &[("traceId", "t-1"), ("tenant", "blue")])).expect("accepted");
    let expected = Step::Done {
        principal: KafkaPrincipal::user("alice"),
        response: Vec::new(),
        lifetime: Some(Duration::from_secs(3600)),
    };
    assert_eq!(step, expected);
    let extensions: Vec<(&str, &str)> = server.extensions().iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(extensions, [("tenant", "blue"), ("traceId", "t-1")]);
}

/// Each token Kafka's unsecured validator refuses gets the JSON error, then fails.
#[test]
fn unsecured_refusals() {
    let expired = unsecured_token(&json!({"sub": "alice", "exp": NOW_S}));
    let no_sub = unsecured_token(&json!({"exp": NOW_S + 60}));
    let blank_sub = unsecured_token(&json!({"sub": " ", "exp": NOW_S + 60}));
    let future = unsecured_token(&json!({"sub": "alice", "iat": NOW_S + 60, "exp": NOW_S + 120}));
    let no_exp = unsecured_token(&json!({"sub": "alice"}));
    let signed = format!("{}sig", unsecured_token(&json!({"sub": "alice", "exp": NOW_S + 60})));
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"RS256"}"#);
    let claims = URL_SAFE_NO_PAD.encode(json!({"sub": "alice", "exp": NOW_S + 60}).to_string());
    let wrong_alg = format!("{header}.{claims}.");
    for token in [expired, no_sub, blank_sub, future, no_exp, signed, wrong_alg, "a.b".into(), "a..b".into()] {
        assert_eq!(exchange(UnsecuredValidator::default(), &token), Err(INVALID.into()), "{token}");
    }
}

/// The JAAS options set the claim names, the required scope (answered with
/// `insufficient_scope` and Kafka's list) and the clock skew.
#[test]
fn unsecured_options_from_jaas() {
    let entry = jaas::parse_single(
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required \
         unsecuredValidatorPrincipalClaimName=\"user\" unsecuredValidatorScopeClaimName=\"roles\" \
         unsecuredValidatorRequiredScope=\"read write\" unsecuredValidatorAllowableClockSkewMs=\"5000\";",
    )
    .expect("valid JAAS");
    let validator = UnsecuredValidator::from_jaas(&entry).expect("valid options");
    let ok = unsecured_token(&json!({"user": "bob", "exp": NOW_S - 2, "roles": ["read", "write"]}));
    assert_eq!(exchange(validator.clone(), &ok), Ok(("bob".into(), Duration::ZERO)), "within the 5 s skew");
    let partial = unsecured_token(&json!({"user": "bob", "exp": NOW_S + 60, "roles": "read"}));
    let expected = r#"{"status":"insufficient_scope", "scope":"[read, write]"}"#;
    assert_eq!(exchange(validator, &partial), Err(expected.into()));

    let bad = jaas::parse_single(
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required \
         unsecuredValidatorAllowableClockSkewMs=\"-1\";",
    )
    .expect("valid JAAS");
    assert_eq!(UnsecuredValidator::from_jaas(&bad), Err("Allowable clock skew millis must not be negative: -1".into()));
}

/// A key pair made now: the signing key and its public JWK.
fn rsa_key(kid: &str) -> (EncodingKey, Jwk) {
    use rsa::pkcs1::EncodeRsaPrivateKey;
    let mut rng = p256::elliptic_curve::common::getrandom::SysRng;
    let key = rsa::PrivateKey::new(&mut rng, 2048).expect("RSA key");
    let der = key.to_pkcs1_der().expect("PKCS#1 DER");
    let encoding = EncodingKey::from_rsa_der(der.as_bytes());
    with_kid(encoding, Algorithm::RS256, kid)
}

fn ec_key(kid: &str) -> (EncodingKey, Jwk) {
    use p256::elliptic_curve::Generate;
    use p256::pkcs8::EncodePrivateKey;
    let der = p256::SecretKey::generate().to_pkcs8_der().expect("PKCS#8 DER");
    with_kid(EncodingKey::from_ec_der(der.as_bytes()), Algorithm::ES256, kid)
}

fn signing_jwk(key: &EncodingKey) -> Jwk {
    Jwk::from_encoding_key(key, Algorithm::ES256).expect("public JWK")
}

fn with_kid(encoding: EncodingKey, alg: Algorithm, kid: &str) -> (EncodingKey, Jwk) {
    let mut jwk = Jwk::from_encoding_key(&encoding, alg).expect("public JWK");
    jwk.common.key_id = Some(kid.into());
    (encoding, jwk)
}

fn signed(key: &EncodingKey, alg: Algorithm, kid: &str, claims: &Value) -> String {
    let mut header = Header::new(alg);
    header.kid = Some(kid.into());
    jsonwebtoken::encode(&header, claims, key).expect("signed JWT")
}

fn settings() -> JwksSettings {
    JwksSettings {
        expected_audience: vec!["kafka".into()],
        expected_issuer: Some("https://idp.example".into()),
        ..JwksSettings::default()
    }
}

fn claims(sub: &str, exp: i64) -> Value {
    json!({"sub": sub, "iat": NOW_S - 5, "exp": exp, "aud": "kafka", "iss": "https://idp.example", "scope": "produce"})
}

/// Signed tokens against the JWK set: RSA and EC accepted; every KIP-768 refusal answered with
/// `invalid_token`; an unsigned token that Kafka's default validator accepts is refused.
#[test]
fn jwks_validator_accepts_signed_tokens_and_refuses_the_rest() {
    let (rsa, rsa_jwk) = rsa_key("rsa-1");
    let (ec, ec_jwk) = ec_key("ec-1");
    let (other, _) = ec_key("ec-1");
    let rsa_public = serde_json::to_vec(&rsa_jwk).expect("JSON");
    let jwks = Arc::new(CurrentJwks::new(JwkSet { keys: vec![rsa_jwk, ec_jwk] }));
    let validator = JwksValidator::new(Arc::clone(&jwks), settings());

    let token = signed(&rsa, Algorithm::RS256, "rsa-1", &claims("alice", NOW_S + 600));
    assert_eq!(exchange(validator.clone(), &token), Ok(("alice".into(), Duration::from_secs(600))));
    let token = signed(&ec, Algorithm::ES256, "ec-1", &claims("bob", NOW_S + 60));
    assert_eq!(exchange(validator.clone(), &token), Ok(("bob".into(), Duration::from_secs(60))));
    let token = signed(&ec, Algorithm::ES256, "ec-1", &claims("bob", NOW_S - 20));
    assert_eq!(exchange(validator.clone(), &token), Ok(("bob".into(), Duration::ZERO)), "within the 30 s skew");

    let mut wrong_audience = claims("alice", NOW_S + 600);
    wrong_audience["aud"] = json!("other");
    let mut wrong_issuer = claims("alice", NOW_S + 600);
    wrong_issuer["iss"] = json!("https://evil.example");
    let mut no_sub = claims("alice", NOW_S + 600);
    no_sub.as_object_mut().map(|c| c.remove("sub"));
    let mut no_iat = claims("alice", NOW_S + 600);
    no_iat.as_object_mut().map(|c| c.remove("iat"));
    let refused = [
        ("no longer valid", signed(&rsa, Algorithm::RS256, "rsa-1", &claims("alice", NOW_S - 31))),
        ("InvalidAudience", signed(&rsa, Algorithm::RS256, "rsa-1", &wrong_audience)),
        ("InvalidIssuer", signed(&rsa, Algorithm::RS256, "rsa-1", &wrong_issuer)),
        ("sub value must be non-null", signed(&rsa, Algorithm::RS256, "rsa-1", &no_sub)),
        ("No Issued At", signed(&rsa, Algorithm::RS256, "rsa-1", &no_iat)),
        ("InvalidSignature", signed(&other, Algorithm::ES256, "ec-1", &claims("alice", NOW_S + 600))),
        (
            "Unable to find a suitable verification key",
            signed(&ec, Algorithm::ES256, "ec-9", &claims("alice", NOW_S + 600)),
        ),
        ("unknown variant `none`", unsecured_token(&claims("alice", NOW_S + 600))),
        ("Unable to find a suitable verification key", hmac_with_public_key(&rsa_public, "rsa-1")),
    ];
    for (reason, token) in refused {
        let (message, detail) = exchange_with_reason(validator.clone(), &token).expect_err(reason);
        assert_eq!(message, INVALID, "{reason}");
        assert!(detail.contains(reason), "{reason}: {detail}");
    }
    let unsecured = unsecured_token(&claims("alice", NOW_S + 600));
    assert!(exchange(UnsecuredValidator::default(), &unsecured).is_ok(), "Kafka's default accepts it");
}

/// An HS256 token keyed with the RSA key's public JWK: the algorithm-confusion attack.
fn hmac_with_public_key(public_jwk: &[u8], kid: &str) -> String {
    let key = EncodingKey::from_secret(public_jwk).expect("HMAC key");
    signed(&key, Algorithm::HS256, kid, &claims("alice", NOW_S + 600))
}

/// A rotated JWK set is used by the next validation: the old key's tokens are refused.
#[test]
fn jwks_rotation_takes_effect() {
    let (old, old_jwk) = ec_key("k1");
    let (new, new_jwk) = ec_key("k2");
    let jwks = Arc::new(CurrentJwks::new(JwkSet { keys: vec![old_jwk] }));
    let validator = JwksValidator::new(Arc::clone(&jwks), settings());
    let old_token = signed(&old, Algorithm::ES256, "k1", &claims("alice", NOW_S + 60));
    let new_token = signed(&new, Algorithm::ES256, "k2", &claims("alice", NOW_S + 60));
    assert!(exchange(validator.clone(), &old_token).is_ok());
    assert_eq!(exchange(validator.clone(), &new_token), Err(INVALID.into()));

    let document = serde_json::to_vec(&JwkSet { keys: vec![new_jwk] }).expect("JSON");
    jwks.replace(CurrentJwks::parse(&document).expect("valid JWKS"));
    assert!(exchange(validator.clone(), &new_token).is_ok());
    assert_eq!(exchange(validator, &old_token), Err(INVALID.into()));
    assert!(CurrentJwks::parse(b"{\"keys\": 7}").is_err());
    let mut for_encryption = serde_json::to_value(signing_jwk(&new)).expect("JSON");
    for_encryption["use"] = json!("enc");
    let mixed = json!({"keys": [{"kty": "XYZ", "kid": "odd"}, {"kty": "EC", "crv": "P-256", "x": 1}, for_encryption, signing_jwk(&new)]});
    let parsed = CurrentJwks::parse(mixed.to_string().as_bytes()).expect("valid JWKS");
    assert_eq!(parsed.keys, [signing_jwk(&new)], "keys that cannot verify signatures are skipped");
}

/// A token naming a `kid` the set lacks is refused and reported to the hook (the server's cue to
/// refresh early); a known `kid`, even with a bad signature, is not reported.
#[test]
fn missing_key_ids_are_reported() {
    let (known, known_jwk) = ec_key("k1");
    let (other, _) = ec_key("k1");
    let jwks = Arc::new(CurrentJwks::new(JwkSet { keys: vec![known_jwk] }));
    let reported = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = Arc::clone(&reported);
    jwks.on_missing_key(move |kid| sink.lock().expect("lock").push(kid.to_owned()));
    let validator = JwksValidator::new(Arc::clone(&jwks), settings());
    let unknown = signed(&known, Algorithm::ES256, "k9", &claims("alice", NOW_S + 60));
    assert_eq!(exchange(validator.clone(), &unknown), Err(INVALID.into()));
    let forged = signed(&other, Algorithm::ES256, "k1", &claims("alice", NOW_S + 60));
    assert_eq!(exchange(validator.clone(), &forged), Err(INVALID.into()));
    assert!(exchange(validator, &signed(&known, Algorithm::ES256, "k1", &claims("alice", NOW_S + 60))).is_ok());
    assert_eq!(*reported.lock().expect("lock"), ["k9"]);
}

/// An authorization id other than the token's principal is refused with Kafka's told message;
/// a malformed response fails at once behind the generic message.
#[test]
fn authzid_and_malformed_responses() {
    let token = unsecured_token(&json!({"sub": "alice", "exp": NOW_S + 60}));
    let mut server = server(UnsecuredValidator::default());
    let response = format!("n,a=mallory,\u{1}auth=Bearer {token}\u{1}\u{1}");
    let failure = server.step(response.as_bytes()).expect_err("refused");
    assert_eq!(
        failure.message,
        "Authentication failed: Client requested an authorization id (mallory) that is different from the token's \
         principal name (alice)"
    );

    let mut server = server_with_default();
    let failure = server.step(b"n,,\x01auth=Bearer\x01\x01").expect_err("refused");
    assert_eq!(
        failure.message,
        "Authentication failed during authentication due to invalid credentials with SASL mechanism OAUTHBEARER"
    );
    assert_eq!(failure.detail.as_deref(), Some("Invalid OAUTHBEARER client first message: invalid 'auth' format"));
    assert_eq!(
        failure.in_reauthentication().message,
        "Authentication failed during re-authentication due to invalid credentials with SASL mechanism OAUTHBEARER"
    );
}

fn server_with_default() -> OAuthBearerServer {
    server(UnsecuredValidator::default())
}

/// After an error challenge, a new initial response is a new attempt (as in Kafka), a bounded
/// number of times.
#[test]
fn retries_after_an_error_are_bounded() {
    let bad = unsecured_token(&json!({"exp": NOW_S + 60}));
    let good = unsecured_token(&json!({"sub": "alice", "exp": NOW_S + 60}));
    let mut server = server_with_default();
    assert_eq!(server.step(&initial_response(&bad, &[])), Ok(Step::Challenge(INVALID.as_bytes().to_vec())));
    assert!(matches!(server.step(&initial_response(&good, &[])), Ok(Step::Done { .. })));

    let mut server = server_with_default();
    for _ in 0..3 {
        assert!(matches!(server.step(&initial_response(&bad, &[])), Ok(Step::Challenge(_))));
    }
    assert!(server.step(&initial_response(&good, &[])).is_err(), "the fourth attempt is refused");
}
