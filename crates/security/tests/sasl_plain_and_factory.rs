//! PLAIN over a JAAS user table, and the factory a listener builds its servers with.

use std::sync::Arc;

use strand_base::testkit::ManualClock;
use strand_security::KafkaPrincipal;
use strand_security::sasl::oauthbearer::UnsecuredValidator;
use strand_security::sasl::plain::{PlainClient, PlainServer, PlainUsers};
use strand_security::sasl::{
    ClientStep, CredentialStore, Mechanism, MechanismError, SaslClient, SaslServer, SaslServerFactory, SaslSettings,
    ScramCredential, Step, check_enabled_mechanisms, client_from_jaas, jaas,
};
use strand_security::scram::ScramMechanism;

const JAAS: &str = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" \
                    password=\"admin-secret\" user_admin=\"admin-secret\" user_alice=\"alice-secret\";";

fn users() -> Arc<PlainUsers> {
    let entry = jaas::parse_single(JAAS).expect("valid JAAS");
    Arc::new(PlainUsers::from_jaas(&entry).expect("PLAIN entry"))
}

const GENERIC: &str =
    "Authentication failed during authentication due to invalid credentials with SASL mechanism PLAIN";

/// The client's token against the server: the JAAS users log in, as themselves only.
#[test]
fn plain_client_and_server_agree() {
    let mut client = PlainClient::new("alice", "alice-secret");
    let mut server = PlainServer::new(users());
    let done = Step::Done { principal: KafkaPrincipal::user("alice"), response: Vec::new(), lifetime: None };
    assert_eq!(server.step(&client.initial_response()), Ok(done));
    assert_eq!(client.step(b""), Ok(ClientStep::Done));
    assert!(!format!("{client:?} {:?}", users()).contains("secret"), "Debug never shows passwords");
}

/// Each PLAIN refusal: Kafka's told message, or the generic one with Kafka's reason for the log.
#[test]
fn plain_refusals() {
    let invalid = "Authentication failed: Invalid username or password";
    let authzid = "Authentication failed: Client requested an authorization id that is different from username";
    // (token, what the client is told, the reason logged, the claimed user)
    type Case<'a> = (&'a [u8], &'a str, Option<&'a str>, Option<&'a str>);
    let cases: [Case; 8] = [
        (b"\0alice\0guess", invalid, None, Some("alice")),
        (b"\0mallory\0alice-secret", invalid, None, Some("mallory")),
        (b"\0alice\0alice-secret\0", invalid, None, Some("alice")),
        (b"admin\0alice\0alice-secret", authzid, None, Some("alice")),
        (b"\0\0pw", GENERIC, Some("Authentication failed: username not specified"), None),
        (b"\0alice\0", GENERIC, Some("Authentication failed: password not specified"), Some("alice")),
        (b"\0alice", GENERIC, Some("Authentication failed: password not specified"), Some("alice")),
        (b"no-nul-at-all", GENERIC, Some("Authentication failed: username not specified"), None),
    ];
    for (token, message, detail, user) in cases {
        let failure = PlainServer::new(users()).step(token).expect_err("refused");
        assert_eq!(failure.message, message, "{token:?}");
        assert_eq!(failure.detail.as_deref(), detail, "{token:?}");
        assert_eq!(failure.claimed_user.as_deref(), user, "{token:?}");
        assert!(!failure.message.contains("secret") && !failure.message.contains("guess"));
    }
    let ok = PlainServer::new(users()).step(b"alice\0alice\0alice-secret");
    assert!(matches!(ok, Ok(Step::Done { .. })), "an authorization id equal to the user is accepted");
}

/// PLAIN needs Kafka's PlainLoginModule; another module is refused at start-up.
#[test]
fn plain_needs_its_login_module() {
    let entry = jaas::parse_single("com.example.Other required user_a=\"b\";").expect("valid JAAS");
    let error = PlainUsers::from_jaas(&entry).expect_err("refused");
    assert!(error.contains("org.apache.kafka.common.security.plain.PlainLoginModule"), "{error}");
}

#[derive(Debug)]
struct NoCredentials;

impl CredentialStore for NoCredentials {
    fn scram_credential(&self, _user: &str, _mechanism: &str) -> Option<ScramCredential> {
        None
    }
}

/// `sasl.enabled.mechanisms` is checked at start-up: GSSAPI and unknown names refused by name.
#[test]
fn enabled_mechanisms_are_checked() {
    assert_eq!(
        check_enabled_mechanisms(&["SCRAM-SHA-512", "PLAIN", " OAUTHBEARER ", "PLAIN"]),
        Ok(vec![Mechanism::Scram(ScramMechanism::Sha512), Mechanism::Plain, Mechanism::OAuthBearer])
    );
    let gssapi = check_enabled_mechanisms(&["PLAIN", "GSSAPI"]).expect_err("refused");
    assert_eq!(gssapi, MechanismError::Gssapi);
    assert!(gssapi.to_string().starts_with("SASL mechanism GSSAPI (Kerberos) is not supported by Strand"));
    let unknown = check_enabled_mechanisms(&["plain"]).expect_err("names are case-sensitive");
    assert_eq!(
        unknown.to_string(),
        "SASL mechanism 'plain' is not supported by Strand; supported: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER"
    );
    assert_eq!(check_enabled_mechanisms::<&str>(&[]), Err(MechanismError::NoneEnabled));
}

/// The factory makes a server per enabled mechanism, refuses others with Kafka's message, and
/// refuses at start-up a mechanism without what it needs.
#[test]
fn factory_makes_each_enabled_mechanism() {
    let settings = SaslSettings {
        mechanisms: check_enabled_mechanisms(&["PLAIN", "SCRAM-SHA-256", "OAUTHBEARER"]).expect("valid"),
        plain_users: Some(users()),
        scram_credentials: Some(Arc::new(NoCredentials)),
        token_validator: Some(Arc::new(UnsecuredValidator::default())),
        clock: Arc::new(ManualClock::new(0)),
    };
    let factory = SaslServerFactory::new(settings.clone()).expect("complete settings");
    assert_eq!(factory.enabled_names(), ["PLAIN", "SCRAM-SHA-256", "OAUTHBEARER"]);
    for name in factory.enabled_names() {
        assert_eq!(factory.create(name).expect("enabled").mechanism(), name);
    }
    let refused = factory.create("SCRAM-SHA-512").expect_err("not enabled");
    assert_eq!(refused.to_string(), "Unsupported SASL mechanism SCRAM-SHA-512");
    let mut server = factory.create("PLAIN").expect("enabled");
    assert!(matches!(server.step(b"\0admin\0admin-secret"), Ok(Step::Done { .. })));

    let missing = SaslServerFactory::new(SaslSettings { plain_users: None, ..settings }).expect_err("incomplete");
    assert!(matches!(missing, MechanismError::Missing { mechanism: "PLAIN", .. }), "{missing}");
}

/// The node's own login comes from the JAAS entry's `username` and `password`; it logs in to a
/// PLAIN listener configured by the same entry.
#[test]
fn inter_node_client_from_jaas() {
    let entry = jaas::parse_single(JAAS).expect("valid JAAS");
    let mut client = client_from_jaas(Mechanism::Plain, &entry).expect("PLAIN client");
    let step = PlainServer::new(users()).step(&client.initial_response());
    assert!(matches!(step, Ok(Step::Done { principal, .. }) if principal == KafkaPrincipal::user("admin")));

    let scram = jaas::parse_single("org.apache.kafka.common.security.scram.ScramLoginModule required username=\"a\";")
        .expect("valid JAAS");
    let missing = client_from_jaas(Mechanism::Scram(ScramMechanism::Sha256), &scram).expect_err("no password");
    assert_eq!(
        missing.to_string(),
        "sasl.jaas.config for SCRAM-SHA-256 has no 'password' option for this node's own login"
    );
    assert!(client_from_jaas(Mechanism::OAuthBearer, &entry).is_err());
}
