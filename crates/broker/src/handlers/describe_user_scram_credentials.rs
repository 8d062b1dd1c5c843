//! DescribeUserScramCredentials (KIP-554): answered from this node's image, as Kafka's
//! `ScramImage.describe`: each user's mechanisms and iteration counts, never a salt or key.
//!
//! No user named (a null or empty list) describes every user with a credential, in name order.
//! Named users are answered in the order first named: RESOURCE_NOT_FOUND for a user with no
//! credential, DUPLICATE_RESOURCE for a user named twice, with Kafka's messages.

use std::collections::BTreeMap;

use strand_metadata::image::MetadataImage;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::describe_user_scram_credentials_response::{
    CredentialInfo, DescribeUserScramCredentialsResult,
};
use strand_protocol::messages::{DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse};

use strand_security::Session;
use strand_security::acl::AclOperation;

use super::admin_apis::AdminApis;

/// Kafka's `ScramImage.DESCRIBE_USER_THAT_DOES_NOT_EXIST`, followed by the user's name.
const USER_NOT_FOUND: &str = "Attempt to describe a user credential that does not exist: ";
/// Kafka's `ScramImage.DESCRIBE_DUPLICATE_USER`, followed by the user's name.
const USER_REPEATED: &str = "Cannot describe SCRAM credentials for the same user twice in a single request: ";

/// Needs DESCRIBE on the cluster (CLUSTER_AUTHORIZATION_FAILED for the request).
pub fn handle(
    apis: &AdminApis<'_>,
    request: DescribeUserScramCredentialsRequest,
    session: &Session,
) -> DescribeUserScramCredentialsResponse {
    if !apis.authorize_cluster(session, AclOperation::Describe) {
        let code = ErrorCode::ClusterAuthorizationFailed;
        let error_message = Some(code.message().to_owned());
        return DescribeUserScramCredentialsResponse { error_code: code.code(), error_message, ..Default::default() };
    }
    describe(&apis.image(), &request)
}

/// The answer to `request` from `image`.
pub fn describe(
    image: &MetadataImage,
    request: &DescribeUserScramCredentialsRequest,
) -> DescribeUserScramCredentialsResponse {
    let named: Vec<&str> = request.users.iter().flatten().map(|user| user.name.as_str()).collect();
    let users: Vec<(&str, bool)> = if named.is_empty() {
        image.scram().users().map(|(name, _)| (name, false)).collect()
    } else {
        let mut users: Vec<(&str, bool)> = Vec::new();
        let mut index: BTreeMap<&str, usize> = BTreeMap::new();
        for name in named {
            match index.get(name) {
                Some(&at) => users[at].1 = true,
                None => {
                    index.insert(name, users.len());
                    users.push((name, false));
                }
            }
        }
        users
    };
    let results = users.into_iter().map(|(user, repeated)| result(image, user, repeated)).collect();
    DescribeUserScramCredentialsResponse { results, ..Default::default() }
}

fn result(image: &MetadataImage, user: &str, repeated: bool) -> DescribeUserScramCredentialsResult {
    let failed = |code: ErrorCode, message: &str| DescribeUserScramCredentialsResult {
        user: user.to_owned(),
        error_code: code.code(),
        error_message: Some(format!("{message}{user}")),
        ..Default::default()
    };
    if repeated {
        return failed(ErrorCode::DuplicateResource, USER_REPEATED);
    }
    let Some(credentials) = image.scram().user(user) else {
        return failed(ErrorCode::ResourceNotFound, USER_NOT_FOUND);
    };
    let credential_infos = credentials
        .iter()
        .map(|(mechanism, credential)| CredentialInfo {
            mechanism: mechanism.id(),
            iterations: i32::try_from(credential.iterations).unwrap_or(i32::MAX),
            ..Default::default()
        })
        .collect();
    DescribeUserScramCredentialsResult { user: user.to_owned(), credential_infos, ..Default::default() }
}
