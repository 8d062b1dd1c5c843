//! Whatever a peer sends, no mechanism panics: random tokens, and tokens drawn from each
//! grammar's own characters so they get past the first checks, at every step.

use std::sync::Arc;

use proptest::prelude::*;
use strand_base::testkit::ManualClock;
use strand_security::sasl::oauthbearer::{OAuthBearerServer, UnsecuredValidator};
use strand_security::sasl::plain::{PlainServer, PlainUsers};
use strand_security::sasl::scram::{ScramClient, ScramServer};
use strand_security::sasl::{CredentialStore, SaslClient, SaslServer, ScramCredential, Step};
use strand_security::scram::ScramMechanism;

#[derive(Debug)]
struct OneUser(ScramCredential);

impl CredentialStore for OneUser {
    fn scram_credential(&self, user: &str, _mechanism: &str) -> Option<ScramCredential> {
        (user == "u").then(|| self.0.clone())
    }
}

/// One store for every case: deriving the credential (4096 PBKDF2 rounds) dominates otherwise.
fn scram_server() -> ScramServer {
    static STORE: std::sync::OnceLock<Arc<OneUser>> = std::sync::OnceLock::new();
    let store =
        STORE.get_or_init(|| Arc::new(OneUser(ScramMechanism::Sha256.credential_from_password("pw", b"salt", 4096))));
    ScramServer::new(ScramMechanism::Sha256, Arc::clone(store) as Arc<dyn CredentialStore>)
}

/// Tokens of SCRAM's and OAUTHBEARER's own characters, so parsers are reached past the prefix.
fn grammar_token() -> impl Strategy<Value = Vec<u8>> {
    let pieces = prop::sample::select(vec![
        "n,",
        ",",
        "a=",
        "n=u",
        "r=",
        "c=biws",
        "p=",
        "AAAA",
        "=",
        "=2C",
        "=3D",
        "m=x",
        "tokenauth=true",
        "\u{1}",
        "auth=",
        "Bearer ",
        "x.y.",
        "e30",
        "ey",
        "s=",
        "i=4096",
        "v=",
        " ",
        "\u{0}",
        "é",
    ]);
    prop::collection::vec(pieces, 0..24).prop_map(|pieces| pieces.concat().into_bytes())
}

fn any_token() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![prop::collection::vec(any::<u8>(), 0..256), grammar_token()]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// PLAIN: any token is an answer, and only the right password is accepted.
    #[test]
    fn plain_never_panics(token in any_token()) {
        let users = Arc::new(PlainUsers::from_pairs([("u", "pw")]));
        let result = PlainServer::new(users).step(&token);
        if result.is_ok() {
            prop_assert!(token.ends_with(b"\0u\0pw"));
        }
    }

    /// A refused PLAIN password appears nowhere in the failure, message or log detail.
    #[test]
    fn plain_failures_never_carry_the_password(password in "[a-zA-Z0-9]{12,40}") {
        let users = Arc::new(PlainUsers::from_pairs([("u", "right-password")]));
        for user in ["u", "nobody", ""] {
            let token = format!("\0{user}\0{password}");
            let failure = PlainServer::new(users.clone()).step(token.as_bytes()).expect_err("refused");
            let shown = format!("{failure:?}");
            prop_assert!(!shown.contains(&password));
        }
    }

    /// SCRAM server: any first message, and any final message after a valid first one, whose
    /// text (it carries the proof) the failure never quotes.
    #[test]
    fn scram_server_never_panics(first in any_token(), last in any_token()) {
        let _ = scram_server().step(&first);
        let mut server = scram_server();
        let challenge = server.step(b"n,,n=u,r=abc");
        prop_assert!(matches!(challenge, Ok(Step::Challenge(_))));
        let failure = server.step(&last).expect_err("no forged final message is accepted");
        if let Ok(text) = std::str::from_utf8(&last) && text.len() >= 8 {
            let shown = format!("{failure:?}");
            prop_assert!(!shown.contains(text));
        }
    }

    /// SCRAM client: any server-first and server-final message.
    #[test]
    fn scram_client_never_panics(first in any_token(), last in any_token()) {
        let mut client = ScramClient::new(ScramMechanism::Sha256, "u", "pw");
        client.initial_response();
        if client.step(&first).is_ok() {
            prop_assert!(client.step(&last).is_err(), "no forged server signature is accepted");
        }
    }

    /// OAUTHBEARER: any response, then any second response.
    #[test]
    fn oauthbearer_never_panics(first in any_token(), second in any_token()) {
        let mut server = OAuthBearerServer::new(Arc::new(UnsecuredValidator::default()), Arc::new(ManualClock::new(0)));
        if let Ok(Step::Challenge(_)) = server.step(&first) {
            let _ = server.step(&second);
        }
    }
}
