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
//! failed users; within each, in the order the request first named them (Kafka's failures follow
//! a hash map's order).

use std::collections::BTreeMap;

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
    let mut users = Users::default();
    for deletion in &request.deletions {
        users.mention(&deletion.name, || match validate_deletion(image, deletion) {
            Ok(()) => Alteration::Delete(deletion),
            Err(error) => Alteration::Failed(error),
        });
    }
    for upsertion in &request.upsertions {
        users.mention(&upsertion.name, || match validate_upsertion(upsertion) {
            Ok(valid) => Alteration::Upsert(valid),
            Err(error) => Alteration::Failed(error),
        });
    }
    let mut records = Vec::new();
    let mut results = Vec::new();
    for (user, alteration) in &users.alterations {
        if let Alteration::Delete(deletion) = alteration {
            let record = RemoveUserScramCredentialRecord {
                name: deletion.name.clone(),
                mechanism: deletion.mechanism,
                ..Default::default()
            };
            records.push(ApiMessageAndVersion::latest(MetadataRecord::RemoveUserScramCredentialRecord(record)));
            results.push(result(user, None));
        }
    }
    for (user, alteration) in &users.alterations {
        if let Alteration::Upsert(upsertion) = alteration {
            records.push(ApiMessageAndVersion::latest(MetadataRecord::UserScramCredentialRecord(upsertion.record())));
            results.push(result(user, None));
        }
    }
    for (user, alteration) in &users.alterations {
        if let Alteration::Failed(error) = alteration {
            results.push(result(user, Some(error)));
        }
    }
    ControllerResult { records, response: AlterUserScramCredentialsResponse { results, ..Default::default() } }
}

/// What the request asks for one user, once validated.
enum Alteration<'a> {
    Delete(&'a ScramCredentialDeletion),
    Upsert(ValidUpsertion<'a>),
    Failed(ApiError),
}

/// Each user the request names, in the order first named, with its alteration.
#[derive(Default)]
struct Users<'a> {
    alterations: Vec<(&'a str, Alteration<'a>)>,
    /// Where each user is in `alterations`.
    index: BTreeMap<&'a str, usize>,
}

impl<'a> Users<'a> {
    /// A user's first mention takes `validated()`; a second fails the user whole (its first
    /// alteration dropped) unless it had already failed, which then stays as it was.
    fn mention(&mut self, user: &'a str, validated: impl FnOnce() -> Alteration<'a>) {
        match self.index.get(user) {
            Some(&at) => {
                if !matches!(self.alterations[at].1, Alteration::Failed(_)) {
                    self.alterations[at].1 = Alteration::Failed(duplicate());
                }
            }
            None => {
                self.index.insert(user, self.alterations.len());
                self.alterations.push((user, validated()));
            }
        }
    }
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
