//! Users' SCRAM credentials, from `UserScramCredentialRecord`s and their removals, as Kafka's
//! `ScramImage` (KIP-554): per user and mechanism, the salt, StoredKey, ServerKey and iteration
//! count. The salted password and the password never reach the log, so never this image.

use std::collections::BTreeMap;

use bytes::Bytes;
use strand_protocol::messages::{RemoveUserScramCredentialRecord, UserScramCredentialRecord};
use strand_security::sasl::ScramCredential;
use strand_security::scram::ScramMechanism;

use super::ReplayError;

/// Every user's credentials, by user name then mechanism. A user with none is absent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScramImage {
    users: BTreeMap<String, BTreeMap<ScramMechanism, ScramCredential>>,
}

impl ScramImage {
    /// `user`'s credential for `mechanism`, if it has one.
    pub fn credential(&self, user: &str, mechanism: ScramMechanism) -> Option<&ScramCredential> {
        self.users.get(user)?.get(&mechanism)
    }

    /// `user`'s credentials by mechanism (SHA-256 first), `None` if it has none.
    pub fn user(&self, user: &str) -> Option<&BTreeMap<ScramMechanism, ScramCredential>> {
        self.users.get(user)
    }

    /// Every user with a credential, in name order.
    pub fn users(&self) -> impl Iterator<Item = (&str, &BTreeMap<ScramMechanism, ScramCredential>)> {
        self.users.iter().map(|(name, credentials)| (name.as_str(), credentials))
    }

    pub fn is_empty(&self) -> bool {
        self.users.is_empty()
    }

    /// The records that recreate this image, users in name order, mechanisms by id.
    pub(super) fn to_records(&self) -> impl Iterator<Item = UserScramCredentialRecord> + '_ {
        self.users.iter().flat_map(|(name, credentials)| {
            credentials.iter().map(move |(mechanism, credential)| UserScramCredentialRecord {
                name: name.clone(),
                mechanism: mechanism.id(),
                salt: Bytes::copy_from_slice(&credential.salt),
                stored_key: Bytes::copy_from_slice(&credential.stored_key),
                server_key: Bytes::copy_from_slice(&credential.server_key),
                iterations: i32::try_from(credential.iterations).unwrap_or(i32::MAX),
                ..Default::default()
            })
        })
    }

    /// Creates or replaces a credential, as Kafka's `ScramControlManager.replay`.
    pub(super) fn replay(&mut self, record: &UserScramCredentialRecord) -> Result<(), ReplayError> {
        let mechanism = mechanism(record.mechanism)?;
        let iterations = u32::try_from(record.iterations).map_err(|_| ReplayError::InvalidScramIterations {
            user: record.name.clone(),
            iterations: record.iterations,
        })?;
        let credential = ScramCredential {
            salt: record.salt.to_vec(),
            stored_key: record.stored_key.to_vec(),
            server_key: record.server_key.to_vec(),
            iterations,
        };
        self.users.entry(record.name.clone()).or_default().insert(mechanism, credential);
        Ok(())
    }

    /// Deletes a credential; one that is not there is an error, as in Kafka's controller (it
    /// never writes such a removal).
    pub(super) fn replay_remove(&mut self, record: &RemoveUserScramCredentialRecord) -> Result<(), ReplayError> {
        let mechanism = mechanism(record.mechanism)?;
        let missing = || ReplayError::UnknownScramCredential { user: record.name.clone(), mechanism: mechanism.name() };
        let credentials = self.users.get_mut(&record.name).ok_or_else(missing)?;
        credentials.remove(&mechanism).ok_or_else(missing)?;
        if credentials.is_empty() {
            self.users.remove(&record.name);
        }
        Ok(())
    }
}

fn mechanism(id: i8) -> Result<ScramMechanism, ReplayError> {
    ScramMechanism::from_id(id).ok_or(ReplayError::UnknownScramMechanism(id))
}
