//! SCRAM-SHA-256 and SCRAM-SHA-512: the server against this crate's client, and against
//! hand-made messages for each of Kafka's refusals.

use std::collections::HashMap;
use std::sync::Arc;

use strand_security::KafkaPrincipal;
use strand_security::delegation_token::DelegationTokenSettings;
use strand_security::sasl::scram::{ScramClient, ScramServer};
use strand_security::sasl::{
    AuthFailure, ClientStep, CredentialStore, SaslClient, SaslServer, ScramCredential, Step, TokenCredential,
};
use strand_security::scram::ScramMechanism;

#[derive(Debug, Default)]
struct Table(HashMap<(String, &'static str), ScramCredential>);

impl CredentialStore for Table {
    fn scram_credential(&self, user: &str, mechanism: &str) -> Option<ScramCredential> {
        self.0.iter().find(|((u, m), _)| u == user && *m == mechanism).map(|(_, credential)| credential.clone())
    }
}

fn store(users: &[(&str, &str, u32)]) -> Arc<Table> {
    let mut table = Table::default();
    for mechanism in ScramMechanism::ALL {
        for (user, password, iterations) in users {
            let credential = mechanism.credential_from_password(password, b"salt-of-the-earth", *iterations);
            table.0.insert(((*user).to_owned(), mechanism.name()), credential);
        }
    }
    Arc::new(table)
}

fn generic(mechanism: ScramMechanism) -> String {
    format!(
        "Authentication failed during authentication due to invalid credentials with SASL mechanism {}",
        mechanism.name()
    )
}

/// Runs the client against the server to the end; the principal, or where it failed.
fn run(
    mechanism: ScramMechanism,
    store: Arc<Table>,
    user: &str,
    password: &str,
) -> Result<KafkaPrincipal, AuthFailure> {
    let mut server = ScramServer::new(mechanism, store);
    let mut client = ScramClient::new(mechanism, user, password);
    let Step::Challenge(server_first) = server.step(&client.initial_response())? else {
        panic!("SCRAM answers the client-first message with a challenge");
    };
    let ClientStep::Respond(client_final) = client.step(&server_first)? else {
        panic!("the client answers the server-first message");
    };
    let Step::Done { principal, response, lifetime } = server.step(&client_final)? else {
        panic!("SCRAM ends after the client-final message");
    };
    assert_eq!(lifetime, None);
    assert_eq!(client.step(&response), Ok(ClientStep::Done), "the client verifies the server signature");
    Ok(principal)
}

/// Both mechanisms authenticate a user with the right password, escaped names included.
#[test]
fn client_and_server_agree() {
    let users = store(&[("alice", "alice-secret", 4096), ("we,ird=name", "pw", 8192)]);
    for mechanism in ScramMechanism::ALL {
        assert_eq!(run(mechanism, users.clone(), "alice", "alice-secret"), Ok(KafkaPrincipal::user("alice")));
        assert_eq!(run(mechanism, users.clone(), "we,ird=name", "pw"), Ok(KafkaPrincipal::user("we,ird=name")));
    }
}

/// A wrong password and an unknown user tell the client the same generic message, never the
/// password; the unknown user fails at the first message, as in Kafka.
#[test]
fn wrong_password_and_unknown_user_look_alike() {
    let users = store(&[("alice", "alice-secret", 4096)]);
    for mechanism in ScramMechanism::ALL {
        let wrong = run(mechanism, users.clone(), "alice", "guess").expect_err("wrong password");
        assert_eq!(wrong.message, generic(mechanism));
        assert_eq!(wrong.detail.as_deref(), Some("Invalid client credentials"));
        assert_eq!(wrong.claimed_user.as_deref(), Some("alice"));
        assert!(!format!("{wrong:?}").contains("guess"));

        let mut server = ScramServer::new(mechanism, users.clone());
        let unknown = server.step(b"n,,n=mallory,r=abc").expect_err("unknown user");
        assert_eq!(unknown.message, generic(mechanism));
        assert_eq!(unknown.detail.as_deref(), Some("Authentication failed: Invalid user credentials"));
        assert_eq!(unknown.claimed_user.as_deref(), Some("mallory"));
    }
}

/// Each refusal of the first message, with Kafka's reason and what the client is told.
#[test]
fn client_first_refusals() {
    let users = store(&[("alice", "pw", 4096), ("weak", "pw", 1000)]);
    let mechanism = ScramMechanism::Sha512;
    let told = "Authentication failed: Client requested an authorization id that is different from username";
    let cases: [(&[u8], &str, &str); 6] = [
        (b"y,,n=alice,r=abc", "Invalid SCRAM client first message format: y,,n=alice,r=abc", "generic"),
        (
            b"p=tls-server-end-point,,n=alice,r=abc",
            "Invalid SCRAM client first message format: p=tls-server-end-point,,n=alice,r=abc",
            "generic",
        ),
        (b"n,,n=alice,r=abc,tokenauth=true", "Token Authentication failed: Invalid tokenId : alice", "generic"),
        (b"n,,n=weak,r=abc", "Iterations 1000 is less than the minimum 4096 for SCRAM-SHA-512", "generic"),
        (b"n,,n=al=ice,r=abc", "Invalid SCRAM client first message format: n,,n=al=ice,r=abc", "generic"),
        (b"n,a=bob,n=alice,r=abc", "", told),
    ];
    for (message, detail, client_message) in cases {
        let mut server = ScramServer::new(mechanism, users.clone());
        let failure = server.step(message).expect_err("refused");
        if client_message == "generic" {
            assert_eq!(failure.message, generic(mechanism));
            assert_eq!(failure.detail.as_deref(), Some(detail));
        } else {
            assert_eq!(failure.message, client_message);
        }
        assert!(server.step(b"c=biws,r=abc,p=AAAA").is_err(), "a failed exchange stays failed");
    }
}

/// The final message must carry the server's nonce and a well-formed proof; the client refuses
/// a server that does not know its password.
#[test]
fn client_final_refusals_and_server_proof() {
    let users = store(&[("alice", "pw", 4096)]);
    let mechanism = ScramMechanism::Sha256;
    for (final_message, detail) in [
        ("c=biws,r=other,p=AAAA", "Invalid client nonce in the final client message."),
        ("c=biws,r={nonce},p=AAAA", "Invalid client credentials"),
        ("c=biws,r={nonce}", "Invalid SCRAM client final message format"),
    ] {
        let mut server = ScramServer::new(mechanism, users.clone());
        let Ok(Step::Challenge(first)) = server.step(b"n,,n=alice,r=abc") else { panic!("challenge") };
        let nonce = String::from_utf8(first).expect("UTF-8")[2..].split(',').next().expect("nonce").to_owned();
        assert!(nonce.starts_with("abc") && nonce.len() == 3 + 32, "the server appends 32 random characters");
        let failure = server.step(final_message.replace("{nonce}", &nonce).as_bytes()).expect_err("refused");
        assert_eq!(failure.detail.as_deref(), Some(detail));
    }

    // A server holding another password's credential cannot produce the right signature.
    let impostor = store(&[("alice", "not-pw", 4096)]);
    let mut server = ScramServer::new(mechanism, impostor);
    let mut client = ScramClient::new(mechanism, "alice", "pw");
    let Ok(Step::Challenge(first)) = server.step(&client.initial_response()) else { panic!("challenge") };
    let Ok(ClientStep::Respond(_)) = client.step(&first) else { panic!("client-final") };
    let forged = format!("v={}", "A".repeat(43) + "=");
    assert_eq!(
        client.step(forged.as_bytes()).map_err(|e| e.message),
        Err("Invalid server signature in server final message".into())
    );
}

/// A message over the limit is refused before it is parsed.
#[test]
fn oversized_messages_are_refused() {
    let mut server = ScramServer::new(ScramMechanism::Sha256, store(&[]));
    let mut message = b"n,,n=alice,r=".to_vec();
    message.resize(strand_security::sasl::scram::SCRAM_MESSAGE_BYTES_MAX + 1, b'a');
    let failure = server.step(&message).expect_err("refused");
    assert!(failure.detail.is_some_and(|d| d.contains("is over")));
}

/// Tokens of [`DelegationTokenSettings`]: `tok1` of alice, and no users.
#[derive(Debug)]
struct Tokens(DelegationTokenSettings);

impl CredentialStore for Tokens {
    fn scram_credential(&self, _user: &str, _mechanism: &str) -> Option<ScramCredential> {
        None
    }

    fn token_credential(&self, token_id: &str, mechanism: &str) -> Option<TokenCredential> {
        let mechanism = ScramMechanism::from_name(mechanism)?;
        (token_id == "tok1").then(|| TokenCredential {
            credential: self.0.scram_credential(token_id, mechanism),
            owner: KafkaPrincipal::user("alice"),
            lifetime: std::time::Duration::from_secs(60),
        })
    }
}

/// The client's side of one exchange by hand, as Kafka's `ScramSaslClient` sends it with the
/// `tokenauth=true` extension: the server's last answer.
fn token_exchange(
    server: &mut ScramServer,
    mechanism: ScramMechanism,
    user: &str,
    password: &str,
) -> Result<Step, AuthFailure> {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;
    let bare = format!("n={user},r=clientnonce,tokenauth=true");
    let Step::Challenge(server_first) = server.step(format!("n,,{bare}").as_bytes())? else { panic!("a challenge") };
    let server_first = String::from_utf8(server_first).expect("text");
    let field = |name: &str| server_first.split(',').find_map(|f| f.strip_prefix(name)).expect("field").to_owned();
    let (nonce, salt, iterations) = (field("r="), STANDARD.decode(field("s=")).expect("salt"), field("i="));
    let salted = mechanism.salted_password(password.as_bytes(), &salt, iterations.parse().expect("iterations"));
    let client_key = mechanism.hmac(&salted, b"Client Key");
    let without_proof = format!("c=biws,r={nonce}");
    let auth_message = format!("{bare},{server_first},{without_proof}");
    let signature = mechanism.hmac(&mechanism.hash(&client_key), auth_message.as_bytes());
    let proof: Vec<u8> = client_key.iter().zip(&signature).map(|(k, s)| k ^ s).collect();
    server.step(format!("{without_proof},p={}", STANDARD.encode(proof)).as_bytes())
}

/// With `tokenauth=true` the user is a token id and the password its base64 HMAC; the session
/// is the token's owner, flagged token-authenticated. A wrong HMAC or an unknown token fails.
#[test]
fn a_delegation_token_authenticates_as_its_owner() {
    let settings = DelegationTokenSettings {
        secret_key: "secret".to_owned(),
        max_lifetime_ms: 1,
        expiry_time_ms: 1,
        expiry_check_interval_ms: 1,
    };
    let password = settings.password("tok1");
    let tokens = Arc::new(Tokens(settings));
    for mechanism in ScramMechanism::ALL {
        let mut server = ScramServer::new(mechanism, tokens.clone());
        let Ok(Step::Done { principal, lifetime, .. }) = token_exchange(&mut server, mechanism, "tok1", &password)
        else {
            panic!("the token authenticates")
        };
        assert_eq!(lifetime, Some(std::time::Duration::from_secs(60)), "the session ends with the token");
        assert_eq!(principal, KafkaPrincipal::user("alice"));
        assert!(principal.token_authenticated);

        let mut server = ScramServer::new(mechanism, tokens.clone());
        let wrong = token_exchange(&mut server, mechanism, "tok1", "guess").expect_err("wrong hmac");
        assert_eq!(wrong.message, generic(mechanism));
        let mut server = ScramServer::new(mechanism, tokens.clone());
        let unknown = server.step(b"n,,n=tok2,r=abc,tokenauth=true").expect_err("unknown token");
        assert_eq!(unknown.detail.as_deref(), Some("Token Authentication failed: Invalid tokenId : tok2"));
        // Without the extension, a token id is no user.
        assert!(run(mechanism, Arc::new(Table::default()), "tok1", &password).is_err());
    }
}
