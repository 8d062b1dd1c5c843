//! Users' SCRAM credentials through the broker (KIP-554): AlterUserScramCredentials forwarded to
//! the controller, DescribeUserScramCredentials answered from the image, the image's credentials
//! as the SCRAM mechanisms see them, and DescribeClientQuotas' filter rules.

mod common;

use bytes::Bytes;
use common::Node;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::alter_user_scram_credentials_request::{
    ScramCredentialDeletion, ScramCredentialUpsertion,
};
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_protocol::messages::describe_client_quotas_request::ComponentData;
use strand_protocol::messages::describe_user_scram_credentials_request::UserName;
use strand_protocol::messages::{
    AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse, DescribeClientQuotasRequest,
    DescribeClientQuotasResponse, DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse,
};
use strand_security::sasl::CredentialStore;
use strand_security::scram::ScramMechanism;

const SHA256: i8 = 1;
const SHA512: i8 = 2;

fn upsertion(name: &str, mechanism: ScramMechanism, iterations: i32, password: &str) -> ScramCredentialUpsertion {
    let salt = format!("salt-of-{name}");
    let salted = mechanism.salted_password(password.as_bytes(), salt.as_bytes(), iterations as u32);
    ScramCredentialUpsertion {
        name: name.to_owned(),
        mechanism: mechanism.id(),
        iterations,
        salt: Bytes::from(salt.into_bytes()),
        salted_password: Bytes::from(salted),
        ..Default::default()
    }
}

async fn alter(
    node: &mut Node,
    deletions: Vec<ScramCredentialDeletion>,
    upsertions: Vec<ScramCredentialUpsertion>,
) -> AlterUserScramCredentialsResponse {
    let request = AlterUserScramCredentialsRequest { deletions, upsertions, ..Default::default() };
    let ResponseBody::AlterUserScramCredentials(response) =
        node.call(RequestBody::AlterUserScramCredentials(request), 0).await
    else {
        panic!("not an AlterUserScramCredentials response");
    };
    response
}

async fn describe(node: &mut Node, users: Option<&[&str]>) -> DescribeUserScramCredentialsResponse {
    let users =
        users.map(|names| names.iter().map(|n| UserName { name: (*n).to_owned(), ..Default::default() }).collect());
    let request = DescribeUserScramCredentialsRequest { users, ..Default::default() };
    let ResponseBody::DescribeUserScramCredentials(response) =
        node.call(RequestBody::DescribeUserScramCredentials(request), 0).await
    else {
        panic!("not a DescribeUserScramCredentials response");
    };
    response
}

/// Each described user: name, error code, message, and (mechanism, iterations) pairs.
type Described = (String, i16, Option<String>, Vec<(i8, i32)>);

fn described(response: &DescribeUserScramCredentialsResponse) -> Vec<Described> {
    assert_eq!(response.error_code, 0);
    response
        .results
        .iter()
        .map(|r| {
            let infos = r.credential_infos.iter().map(|i| (i.mechanism, i.iterations)).collect();
            (r.user.clone(), r.error_code, r.error_message.clone(), infos)
        })
        .collect()
}

/// A described user with no error: Kafka leaves the message at its schema default, "".
fn ok(user: &str, infos: &[(i8, i32)]) -> Described {
    (user.to_owned(), 0, Some(String::new()), infos.to_vec())
}

/// ApiVersions advertises the SCRAM admin APIs and DescribeClientQuotas at Kafka 4.4's ranges.
#[tokio::test]
async fn scram_apis_are_advertised() {
    let mut node = Node::new();
    let ResponseBody::ApiVersions(response) =
        node.call(RequestBody::ApiVersions(common::api_versions_request()), 3).await
    else {
        panic!("not an ApiVersions response");
    };
    let expected = [
        (ApiKey::DescribeUserScramCredentials, 0, 0),
        (ApiKey::AlterUserScramCredentials, 0, 0),
        (ApiKey::DescribeClientQuotas, 0, 1),
    ];
    for (api, min, max) in expected {
        let advertised =
            response.api_keys.iter().find(|k| k.api_key == api as i16).map(|k| (k.min_version, k.max_version));
        assert_eq!(advertised, Some((min, max)), "{api:?}");
    }
}

/// An upsertion through the controller reaches the image: Describe shows mechanism and
/// iterations, and the credential store yields keys that verify the password; a deletion takes
/// it away again.
#[tokio::test]
async fn altered_credentials_are_described_and_authenticate() {
    let mut node = Node::new();
    let response = alter(
        &mut node,
        Vec::new(),
        vec![
            upsertion("alice", ScramMechanism::Sha512, 8192, "alice-secret"),
            upsertion("bob", ScramMechanism::Sha256, 4096, "b"),
        ],
    )
    .await;
    let codes: Vec<(&str, i16)> = response.results.iter().map(|r| (r.user.as_str(), r.error_code)).collect();
    assert_eq!(codes, [("alice", 0), ("bob", 0)]);

    assert_eq!(
        described(&describe(&mut node, None).await),
        [ok("alice", &[(SHA512, 8192)]), ok("bob", &[(SHA256, 4096)])]
    );
    assert_eq!(described(&describe(&mut node, Some(&[])).await).len(), 2, "an empty list describes everyone");

    let store = node.broker.credentials();
    let stored = store.scram_credential("alice", "SCRAM-SHA-512").expect("alice's credential");
    let expected = ScramMechanism::Sha512.credential_from_password("alice-secret", b"salt-of-alice", 8192);
    assert_eq!(stored, expected);
    assert_eq!(store.scram_credential("alice", "SCRAM-SHA-256"), None);
    assert_eq!(store.scram_credential("alice", "PLAIN"), None);

    let deletion = ScramCredentialDeletion { name: "alice".into(), mechanism: SHA512, ..Default::default() };
    let response = alter(&mut node, vec![deletion], Vec::new()).await;
    assert_eq!(response.results[0].error_code, 0);
    assert_eq!(store.scram_credential("alice", "SCRAM-SHA-512"), None, "the store follows the live image");
    assert_eq!(described(&describe(&mut node, None).await), [ok("bob", &[(SHA256, 4096)])]);
}

/// Named users: an unknown one is RESOURCE_NOT_FOUND and a repeated one DUPLICATE_RESOURCE, with
/// Kafka's messages; each user answered once, in the order first named.
#[tokio::test]
async fn describe_named_users() {
    let mut node = Node::new();
    alter(&mut node, Vec::new(), vec![upsertion("alice", ScramMechanism::Sha256, 4096, "a")]).await;
    let response = describe(&mut node, Some(&["nobody", "alice", "twice", "twice"])).await;
    let not_found = ErrorCode::ResourceNotFound.code();
    let duplicate = ErrorCode::DuplicateResource.code();
    assert_eq!(
        described(&response),
        [
            (
                "nobody".into(),
                not_found,
                Some("Attempt to describe a user credential that does not exist: nobody".into()),
                vec![]
            ),
            ok("alice", &[(SHA256, 4096)]),
            (
                "twice".into(),
                duplicate,
                Some("Cannot describe SCRAM credentials for the same user twice in a single request: twice".into()),
                vec![]
            ),
        ]
    );
}

/// A refused alteration reaches the client with the controller's code and message.
#[tokio::test]
async fn refused_alterations_keep_kafkas_codes() {
    let mut node = Node::new();
    let response = alter(&mut node, Vec::new(), vec![upsertion("carol", ScramMechanism::Sha512, 100_000, "c")]).await;
    assert_eq!(response.results[0].error_code, ErrorCode::UnacceptableCredential.code());
    assert_eq!(response.results[0].error_message.as_deref(), Some("Too many iterations"));
    let deletion = ScramCredentialDeletion { name: "carol".into(), mechanism: SHA512, ..Default::default() };
    let response = alter(&mut node, vec![deletion], Vec::new()).await;
    assert_eq!(response.results[0].error_code, ErrorCode::ResourceNotFound.code());
    assert!(described(&describe(&mut node, None).await).is_empty());
}

/// DescribeClientQuotas: no quotas exist (the message at its schema default, "", as Kafka's), and a filter Kafka refuses gets Kafka's code and
/// message with null entries.
#[tokio::test]
async fn describe_client_quotas_checks_the_filter() {
    let mut node = Node::new();
    let component = |entity_type: &str, match_type: i8, name: Option<&str>| ComponentData {
        entity_type: entity_type.to_owned(),
        match_type,
        r#match: name.map(str::to_owned),
        ..Default::default()
    };
    let cases: Vec<(Vec<ComponentData>, ErrorCode, Option<&str>)> = vec![
        (vec![], ErrorCode::None, Some("")),
        (vec![component("user", 2, None)], ErrorCode::None, Some("")),
        (vec![component("user", 0, Some("alice")), component("client-id", 1, None)], ErrorCode::None, Some("")),
        (vec![component("", 2, None)], ErrorCode::InvalidRequest, Some("Invalid empty entity type.")),
        (
            vec![component("user", 2, None), component("user", 1, None)],
            ErrorCode::InvalidRequest,
            Some("Entity type user cannot appear more than once in the filter."),
        ),
        (vec![component("group", 2, None)], ErrorCode::UnsupportedVersion, Some("Unsupported entity type group")),
        (
            vec![component("user", 0, None)],
            ErrorCode::InvalidRequest,
            Some("Request specified MATCH_TYPE_EXACT, but set match string to null."),
        ),
        (
            vec![component("user", 1, Some("a"))],
            ErrorCode::InvalidRequest,
            Some("Request specified MATCH_TYPE_DEFAULT, but also specified a match string."),
        ),
        (
            vec![component("user", 2, Some("a"))],
            ErrorCode::InvalidRequest,
            Some("Request specified MATCH_TYPE_SPECIFIED, but also specified a match string."),
        ),
        (vec![component("user", 7, None)], ErrorCode::InvalidRequest, Some("Unknown match type 7")),
        (
            vec![component("ip", 2, None), component("user", 2, None)],
            ErrorCode::InvalidRequest,
            Some(
                "Invalid entity filter component combination. IP filter component should not be used with user or \
                 clientId filter component.",
            ),
        ),
    ];
    for (components, code, message) in cases {
        let request =
            DescribeClientQuotasRequest { components: components.clone(), strict: false, ..Default::default() };
        let ResponseBody::DescribeClientQuotas(response) =
            node.call(RequestBody::DescribeClientQuotas(request), 1).await
        else {
            panic!("not a DescribeClientQuotas response");
        };
        let DescribeClientQuotasResponse { error_code, error_message, entries, .. } = response;
        assert_eq!((error_code, error_message.as_deref()), (code.code(), message), "{components:?}");
        let expected_entries = (code == ErrorCode::None).then(Vec::new);
        assert_eq!(entries, expected_entries, "{components:?}");
    }
}

/// A commit that fails (no quorum) answers each accepted user REQUEST_TIMED_OUT, a refused one
/// keeps its own code, and nothing changes.
#[tokio::test]
async fn failed_commit_is_request_timed_out() {
    let mut node = Node::new();
    node.writer.failing.store(true, std::sync::atomic::Ordering::SeqCst);
    let upsertions =
        vec![upsertion("dave", ScramMechanism::Sha256, 4096, "d"), upsertion("", ScramMechanism::Sha256, 4096, "e")];
    let response = alter(&mut node, Vec::new(), upsertions).await;
    let codes: Vec<(&str, i16)> = response.results.iter().map(|r| (r.user.as_str(), r.error_code)).collect();
    assert_eq!(codes, [("dave", ErrorCode::RequestTimedOut.code()), ("", ErrorCode::UnacceptableCredential.code())]);
    assert!(node.broker.image().scram().is_empty());
}
