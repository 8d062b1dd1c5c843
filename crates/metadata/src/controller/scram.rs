//! AlterUserScramCredentials (KIP-554), as Kafka's `ScramControlManager.alterCredentials`.
//!
//! A user may be named once per request (deletions and upsertions together): a second mention
//! fails the user with DUPLICATE_RESOURCE and drops its first alteration too. A user name must not
//! be empty and a mechanism must be SCRAM-SHA-256 or SCRAM-SHA-512 (UNACCEPTABLE_CREDENTIAL,
//! UNSUPPORTED_SASL_MECHANISM); an upsertion's iterations must lie in 4096..=16384
//! (UNACCEPTABLE_CREDENTIAL); a deletion must name a credential that exists (RESOURCE_NOT_FOUND).
//!
//! The client sends the salt and the salted password; the record keeps the salt, StoredKey and
//! ServerKey derived from it (RFC 5802) and the iterations, never the salted password.
//!
//! Results come as Kafka orders them: successful deletions, successful upsertions, then the
//! failed users (here in the order the request first named them, where Kafka's follow a hash
//! map's).

use bytes::Bytes;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::alter_user_scram_credentials_request::{
    ScramCredentialDeletion, ScramCredentialUpsertion,
};
use strand_protocol::messages::alter_user_scram_credentials_response::AlterUserScramCredentialsResult;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{
    AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse, RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
};
use strand_security::scram::ScramMechanism;

use super::{ApiError, ApiMessageAndVersion, ControllerResult};
use crate::image::MetadataImage;

/// Deletes and upserts users' SCRAM credentials: one record per accepted alteration, all in one
/// batch.
pub fn alter_user_scram_credentials(
    image: &MetadataImage,
    request: &AlterUserScramCredentialsRequest,
) -> ControllerResult<AlterUserScramCredentialsResponse> {
    let mut accepted = Accepted::default();
    let mut failed: Vec<(String, ApiError)> = Vec::new();
    let is_failed = |failed: &[(String, ApiError)], name: &str| failed.iter().any(|(user, _)| user == name);
    for deletion in &request.deletions {
        if is_failed(&failed, &deletion.name) {
            continue;
        }
        if accepted.take(&deletion.name) {
            failed.push((deletion.name.clone(), duplicate()));
        } else if let Err(error) = validate_deletion(image, deletion) {
            failed.push((deletion.name.clone(), error));
        } else {
            accepted.deletions.push(deletion);
        }
    }
    for upsertion in &request.upsertions {
        if is_failed(&failed, &upsertion.name) {
            continue;
        }
        if accepted.take(&upsertion.name) {
            failed.push((upsertion.name.clone(), duplicate()));
        } else {
            match validate_upsertion(upsertion) {
                Ok(valid) => accepted.upsertions.push(valid),
                Err(error) => failed.push((upsertion.name.clone(), error)),
            }
        }
    }
    let mut records = Vec::new();
    let mut results = Vec::new();
    for deletion in accepted.deletions {
        let record = RemoveUserScramCredentialRecord {
            name: deletion.name.clone(),
            mechanism: deletion.mechanism,
            ..Default::default()
        };
        records.push(ApiMessageAndVersion::latest(MetadataRecord::RemoveUserScramCredentialRecord(record)));
        results.push(result(&deletion.name, None));
    }
    for upsertion in accepted.upsertions {
        records.push(ApiMessageAndVersion::latest(MetadataRecord::UserScramCredentialRecord(upsertion.record())));
        results.push(result(&upsertion.request.name, None));
    }
    results.extend(failed.iter().map(|(user, error)| result(user, Some(error))));
    ControllerResult { records, response: AlterUserScramCredentialsResponse { results, ..Default::default() } }
}

/// The alterations that passed validation so far, in request order.
#[derive(Default)]
struct Accepted<'a> {
    deletions: Vec<&'a ScramCredentialDeletion>,
    upsertions: Vec<ValidUpsertion<'a>>,
}

/// An upsertion whose mechanism and iterations passed validation.
struct ValidUpsertion<'a> {
    request: &'a ScramCredentialUpsertion,
    mechanism: ScramMechanism,
    iterations: u32,
}

impl ValidUpsertion<'_> {
    /// The record: StoredKey and ServerKey derived from the salted password, which stays out.
    fn record(&self) -> UserScramCredentialRecord {
        let request = self.request;
        let credential = self.mechanism.credential(&request.salted_password, &request.salt, self.iterations);
        UserScramCredentialRecord {
            name: request.name.clone(),
            mechanism: self.mechanism.id(),
            salt: request.salt.clone(),
            stored_key: Bytes::from(credential.stored_key),
            server_key: Bytes::from(credential.server_key),
            iterations: request.iterations,
            ..Default::default()
        }
    }
}

impl Accepted<'_> {
    /// Drops `user`'s accepted alteration; whether it had one (the user is named twice).
    fn take(&mut self, user: &str) -> bool {
        let before = self.deletions.len() + self.upsertions.len();
        self.deletions.retain(|d| d.name != user);
        self.upsertions.retain(|u| u.request.name != user);
        before != self.deletions.len() + self.upsertions.len()
    }
}

fn duplicate() -> ApiError {
    ApiError::new(ErrorCode::DuplicateResource, "A user credential cannot be altered twice in the same request")
}

fn validate_user_and_mechanism(user: &str, mechanism: i8) -> Result<ScramMechanism, ApiError> {
    if user.is_empty() {
        return Err(ApiError::new(ErrorCode::UnacceptableCredential, "Username must not be empty"));
    }
    ScramMechanism::from_id(mechanism)
        .ok_or_else(|| ApiError::new(ErrorCode::UnsupportedSaslMechanism, "Unknown SCRAM mechanism"))
}

fn validate_deletion(image: &MetadataImage, deletion: &ScramCredentialDeletion) -> Result<(), ApiError> {
    let mechanism = validate_user_and_mechanism(&deletion.name, deletion.mechanism)?;
    if image.scram().credential(&deletion.name, mechanism).is_none() {
        return Err(ApiError::new(
            ErrorCode::ResourceNotFound,
            "Attempt to delete a user credential that does not exist",
        ));
    }
    Ok(())
}

fn validate_upsertion(upsertion: &ScramCredentialUpsertion) -> Result<ValidUpsertion<'_>, ApiError> {
    let mechanism = validate_user_and_mechanism(&upsertion.name, upsertion.mechanism)?;
    let iterations = u32::try_from(upsertion.iterations).unwrap_or(0);
    if iterations < ScramMechanism::ITERATIONS_MIN {
        return Err(ApiError::new(ErrorCode::UnacceptableCredential, "Too few iterations"));
    }
    if iterations > ScramMechanism::ITERATIONS_MAX {
        return Err(ApiError::new(ErrorCode::UnacceptableCredential, "Too many iterations"));
    }
    Ok(ValidUpsertion { request: upsertion, mechanism, iterations })
}

fn result(user: &str, error: Option<&ApiError>) -> AlterUserScramCredentialsResult {
    AlterUserScramCredentialsResult {
        user: user.to_owned(),
        error_code: error.map_or(0, |e| e.code.code()),
        error_message: error.and_then(|e| e.message.clone()),
        ..Default::default()
    }
}
