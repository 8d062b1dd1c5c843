//! AlterUserScramCredentials (KIP-554): decided by the active controller, as Kafka forwards it
//! (`ScramControlManager`); the answer comes once this node's image holds the new credentials.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::alter_user_scram_credentials_response::AlterUserScramCredentialsResult;
use strand_protocol::messages::{AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse};

use strand_security::Session;
use strand_security::acl::AclOperation;

use super::admin_apis::AdminApis;

pub async fn handle(
    apis: &AdminApis<'_>,
    request: AlterUserScramCredentialsRequest,
    version: i16,
    session: &Session,
) -> AlterUserScramCredentialsResponse {
    // Only ALTER on the cluster; refused, each user named answers the error once, in name order
    // (Kafka's `getErrorResponse`).
    if !apis.authorize_cluster(session, AclOperation::Alter) {
        let code = ErrorCode::ClusterAuthorizationFailed;
        let deleted = request.deletions.iter().map(|d| d.name.clone());
        let users: std::collections::BTreeSet<String> =
            deleted.chain(request.upsertions.iter().map(|u| u.name.clone())).collect();
        let results = (users.into_iter())
            .map(|user| AlterUserScramCredentialsResult {
                user,
                error_code: code.code(),
                error_message: Some(code.message().to_owned()),
                ..Default::default()
            })
            .collect();
        return AlterUserScramCredentialsResponse { results, ..Default::default() };
    }
    match apis.ask_controller(session, &request, version).await {
        Ok(response) => response,
        Err(reason) => {
            tracing::warn!("AlterUserScramCredentials: {reason}");
            let deleted = request.deletions.iter().map(|d| &d.name);
            let upserted = request.upsertions.iter().map(|u| &u.name);
            let mut named = std::collections::BTreeSet::new();
            let results = deleted
                .chain(upserted)
                .filter(|user| named.insert(*user))
                .map(|user| AlterUserScramCredentialsResult {
                    user: user.clone(),
                    error_code: ErrorCode::RequestTimedOut.code(),
                    error_message: Some(reason.clone()),
                    ..Default::default()
                })
                .collect();
            AlterUserScramCredentialsResponse { results, ..Default::default() }
        }
    }
}
