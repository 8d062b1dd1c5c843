//! The delegation-token handlers (KIP-48, KIP-373) through `Broker::handle`, the controller in
//! process: which sessions may ask (DELEGATION_TOKEN_REQUEST_NOT_ALLOWED), tokens disabled
//! (DELEGATION_TOKEN_AUTH_DISABLED), a token for another owner (CREATE_TOKENS on the User), what
//! DescribeDelegationToken shows to whom (owner, requester, renewer, DESCRIBE on the token,
//! DESCRIBE_TOKENS on the owner), and the requester left out before v3.

mod common;

use common::{Node, TableAuthorizer, session, session_of};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_delegation_token_request::CreatableRenewers;
use strand_protocol::messages::describe_delegation_token_request::DescribeDelegationTokenOwner;
use strand_protocol::messages::{
    CreateDelegationTokenRequest, CreateDelegationTokenResponse, DescribeDelegationTokenRequest,
    ExpireDelegationTokenRequest, RenewDelegationTokenRequest,
};
use strand_security::Session;
use strand_security::acl::{AclOperation, ResourceType};
use strand_security::delegation_token::DelegationTokenSettings;

fn tokens() -> DelegationTokenSettings {
    DelegationTokenSettings {
        secret_key: "secret".to_owned(),
        max_lifetime_ms: 7 * 86_400_000,
        expiry_time_ms: 86_400_000,
        expiry_check_interval_ms: 3_600_000,
    }
}

async fn create(
    node: &mut Node,
    session: &Session,
    request: CreateDelegationTokenRequest,
    version: i16,
) -> CreateDelegationTokenResponse {
    let ResponseBody::CreateDelegationToken(response) =
        node.call_as(session, RequestBody::CreateDelegationToken(request), version).await
    else {
        panic!("a CreateDelegationToken response")
    };
    response
}

fn for_owner(name: &str) -> CreateDelegationTokenRequest {
    CreateDelegationTokenRequest {
        owner_principal_type: Some("User".to_owned()),
        owner_principal_name: Some(name.to_owned()),
        max_lifetime_ms: -1,
        ..Default::default()
    }
}

/// The error code of each token API, and the ids described, for `session`.
async fn codes(node: &mut Node, session: &Session) -> [i16; 4] {
    let hmac = bytes::Bytes::from_static(b"hmac");
    let created = create(node, session, CreateDelegationTokenRequest::default(), 3).await.error_code;
    let renew =
        RequestBody::RenewDelegationToken(RenewDelegationTokenRequest { hmac: hmac.clone(), ..Default::default() });
    let ResponseBody::RenewDelegationToken(renewed) = node.call_as(session, renew, 2).await else { panic!() };
    let expire = RequestBody::ExpireDelegationToken(ExpireDelegationTokenRequest { hmac, ..Default::default() });
    let ResponseBody::ExpireDelegationToken(expired) = node.call_as(session, expire, 2).await else { panic!() };
    let described = describe(node, session, None).await;
    [created, renewed.error_code, expired.error_code, described.0]
}

/// The error code and the token ids `session` is shown for `owners`.
async fn describe(node: &mut Node, session: &Session, owners: Option<&[&str]>) -> (i16, Vec<String>) {
    let owners = owners.map(|owners| {
        (owners.iter())
            .map(|o| DescribeDelegationTokenOwner {
                principal_type: "User".into(),
                principal_name: (*o).into(),
                ..Default::default()
            })
            .collect()
    });
    let request = RequestBody::DescribeDelegationToken(DescribeDelegationTokenRequest { owners, ..Default::default() });
    let ResponseBody::DescribeDelegationToken(response) = node.call_as(session, request, 3).await else { panic!() };
    (response.error_code, response.tokens.into_iter().map(|t| t.token_id).collect())
}

/// PLAINTEXT, 1-way SSL (ANONYMOUS) and token-authenticated sessions are refused every token
/// API; with tokens disabled an authenticated session gets DELEGATION_TOKEN_AUTH_DISABLED.
#[tokio::test]
async fn who_may_ask_and_tokens_disabled() {
    let not_allowed = ErrorCode::DelegationTokenRequestNotAllowed.code();
    let mut node = Node::with_delegation_tokens(tokens());
    assert_eq!(codes(&mut node, &session()).await, [not_allowed; 4]);
    let one_way_ssl = Session { protocol: strand_security::SecurityProtocol::Ssl, ..session() };
    assert_eq!(codes(&mut node, &one_way_ssl).await, [not_allowed; 4]);
    let mut by_token = session_of("alice");
    by_token.principal.token_authenticated = true;
    assert_eq!(codes(&mut node, &by_token).await, [not_allowed; 4]);

    let disabled = ErrorCode::DelegationTokenAuthDisabled.code();
    let mut node = Node::new();
    assert_eq!(codes(&mut node, &session_of("alice")).await, [disabled; 4]);
}

/// A token for another owner needs CREATE_TOKENS on that User (else
/// DELEGATION_TOKEN_AUTHORIZATION_FAILED); Describe shows a token to its owner, requester and
/// renewers, and to whoever may DESCRIBE it or DESCRIBE_TOKENS its owner; an empty owner list
/// shows nothing.
#[tokio::test]
async fn creation_for_others_and_who_sees_what() {
    let authorizer = TableAuthorizer::default()
        .allow("admin", AclOperation::CreateTokens, ResourceType::User, "User:carol")
        .allow("eve", AclOperation::DescribeTokens, ResourceType::User, "User:alice");
    let mut node = Node::with_delegation_tokens(tokens()).with_authorizer(std::sync::Arc::new(authorizer));
    let (alice, admin) = (session_of("alice"), session_of("admin"));

    let mut own = for_owner("");
    own.renewers.push(CreatableRenewers {
        principal_type: "User".into(),
        principal_name: "ren".into(),
        ..Default::default()
    });
    let alices = create(&mut node, &alice, own, 3).await;
    assert_eq!(
        (alices.error_code, alices.principal_name.as_str(), alices.token_requester_principal_name.as_str()),
        (0, "alice", "alice")
    );
    let refused = create(&mut node, &admin, for_owner("dave"), 3).await;
    assert_eq!(refused.error_code, ErrorCode::DelegationTokenAuthorizationFailed.code());
    assert_eq!((refused.principal_name.as_str(), refused.token_requester_principal_name.as_str()), ("dave", "admin"));
    let carols = create(&mut node, &admin, for_owner("carol"), 3).await;
    assert_eq!(
        (carols.error_code, carols.principal_name.as_str(), carols.token_requester_principal_name.as_str()),
        (0, "carol", "admin")
    );
    let (a, c) = (alices.token_id.clone(), carols.token_id.clone());

    assert_eq!(describe(&mut node, &alice, None).await, (0, vec![a.clone()]));
    assert_eq!(describe(&mut node, &session_of("ren"), None).await, (0, vec![a.clone()]));
    assert_eq!(describe(&mut node, &admin, None).await, (0, vec![c.clone()]), "the requester sees carol's");
    assert_eq!(describe(&mut node, &session_of("carol"), None).await, (0, vec![c.clone()]));
    assert_eq!(describe(&mut node, &session_of("bob"), None).await, (0, vec![]));
    assert_eq!(describe(&mut node, &session_of("eve"), None).await, (0, vec![a.clone()]), "DESCRIBE_TOKENS on alice");
    assert_eq!(describe(&mut node, &admin, Some(&["alice", "carol"])).await, (0, vec![c.clone()]));
    assert_eq!(describe(&mut node, &admin, Some(&[])).await, (0, vec![]));

    let authorizer = TableAuthorizer::default().allow("bob", AclOperation::Describe, ResourceType::DelegationToken, &a);
    let mut node_b = node.with_authorizer(std::sync::Arc::new(authorizer));
    assert_eq!(describe(&mut node_b, &session_of("bob"), None).await, (0, vec![a.clone()]), "DESCRIBE on the token");
    assert_eq!(describe(&mut node_b, &alice, Some(&["alice", "ren"])).await.1, vec![a]);
}

/// Before v3 the responses name no requester (the fields do not exist there).
#[tokio::test]
async fn the_requester_is_left_out_before_v3() {
    let mut node = Node::with_delegation_tokens(tokens());
    for version in [1, 2] {
        // v1 and v2 name no owner either (KIP-373's field is v3's).
        let own = CreateDelegationTokenRequest { max_lifetime_ms: -1, ..Default::default() };
        let created = create(&mut node, &session_of("alice"), own.clone(), version).await;
        assert_eq!((created.error_code, created.token_requester_principal_name.as_str()), (0, ""));
        let refused = create(&mut node, &session(), own, version).await;
        assert_eq!(refused.error_code, ErrorCode::DelegationTokenRequestNotAllowed.code());
    }
    let all = DescribeDelegationTokenRequest { owners: None, ..Default::default() };
    let request = RequestBody::DescribeDelegationToken(all);
    let ResponseBody::DescribeDelegationToken(described) = node.call_as(&session_of("alice"), request, 2).await else {
        panic!()
    };
    assert_eq!(described.tokens.len(), 2);
    assert!(described.tokens.iter().all(|t| t.token_requester_principal_name.is_empty()));
}
