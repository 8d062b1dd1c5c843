//! Delegation tokens (KIP-48), from `DelegationTokenRecord`s and their removals, as Kafka's
//! `DelegationTokenImage`: per token id, its owner, requester, renewers and timestamps. The
//! token's HMAC never reaches the log: every node derives it from `delegation.token.secret.key`.
//!
//! Principals are kept as the records write them (`User:alice`); one that does not parse is a
//! [`ReplayError`].

use std::collections::BTreeMap;

use strand_protocol::messages::DelegationTokenRecord;
use strand_security::KafkaPrincipal;

use super::ReplayError;

/// One token: Kafka's `TokenInformation`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenInformation {
    pub token_id: String,
    pub owner: KafkaPrincipal,
    /// Who created it (the owner unless created for another user, KIP-373).
    pub requester: KafkaPrincipal,
    pub renewers: Vec<KafkaPrincipal>,
    pub issue_timestamp_ms: i64,
    /// No renewal goes past this.
    pub max_timestamp_ms: i64,
    /// The token stops being usable (and is removed by the expiry check) after this.
    pub expiry_timestamp_ms: i64,
}

impl TokenInformation {
    /// Kafka's `ownerOrRenewer`: the owner, the requester and the renewers may describe it.
    pub fn owner_or_renewer(&self, principal: &KafkaPrincipal) -> bool {
        self.owner == *principal || self.requester == *principal || self.renewers.contains(principal)
    }

    /// Kafka's `allowedToRenew`: the owner and the renewers may renew or expire it.
    pub fn may_renew(&self, principal: &KafkaPrincipal) -> bool {
        self.owner == *principal || self.renewers.contains(principal)
    }

    /// Whether it is past its expiry or its maximum lifetime at `now_ms`.
    pub fn is_expired(&self, now_ms: i64) -> bool {
        self.max_timestamp_ms < now_ms || self.expiry_timestamp_ms < now_ms
    }

    /// The record that recreates it.
    pub fn to_record(&self) -> DelegationTokenRecord {
        DelegationTokenRecord {
            owner: self.owner.to_string(),
            requester: self.requester.to_string(),
            renewers: self.renewers.iter().map(ToString::to_string).collect(),
            issue_timestamp: self.issue_timestamp_ms,
            max_timestamp: self.max_timestamp_ms,
            expiration_timestamp: self.expiry_timestamp_ms,
            token_id: self.token_id.clone(),
            ..Default::default()
        }
    }
}

/// Every token, by id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DelegationTokensImage {
    tokens: BTreeMap<String, TokenInformation>,
}

impl DelegationTokensImage {
    pub fn token(&self, token_id: &str) -> Option<&TokenInformation> {
        self.tokens.get(token_id)
    }

    /// Every token, in id order.
    pub fn tokens(&self) -> impl Iterator<Item = &TokenInformation> {
        self.tokens.values()
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Creates or replaces (a renewal) a token.
    pub(super) fn replay(&mut self, record: &DelegationTokenRecord) -> Result<(), ReplayError> {
        let principal = |text: &str| {
            KafkaPrincipal::parse(text).ok_or_else(|| ReplayError::InvalidTokenPrincipal {
                token_id: record.token_id.clone(),
                principal: text.to_owned(),
            })
        };
        let renewers = record.renewers.iter().map(|r| principal(r)).collect::<Result<Vec<_>, _>>()?;
        let token = TokenInformation {
            token_id: record.token_id.clone(),
            owner: principal(&record.owner)?,
            requester: principal(&record.requester)?,
            renewers,
            issue_timestamp_ms: record.issue_timestamp,
            max_timestamp_ms: record.max_timestamp,
            expiry_timestamp_ms: record.expiration_timestamp,
        };
        self.tokens.insert(record.token_id.clone(), token);
        Ok(())
    }

    /// Removes a token; one already gone is no error, as in Kafka's `DelegationTokenCache`.
    pub(super) fn replay_remove(&mut self, token_id: &str) {
        self.tokens.remove(token_id);
    }
}
