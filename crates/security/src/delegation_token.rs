//! Delegation tokens (KIP-48): the settings that enable them and the token's secret half, as
//! Kafka computes it. A token is an id (a random UUID in Kafka's base64 form) and an HMAC: the
//! HmacSHA512 of the id under `delegation.token.secret.key`. A client authenticates with SCRAM,
//! username the token id and password the HMAC in standard base64, flagging the exchange with
//! the `tokenauth=true` SCRAM extension; every node holding the same secret key derives the
//! same password, so no node stores it.
//!
//! What it is not: the tokens themselves (owner, renewers, timestamps) are metadata records,
//! pictured by the metadata crate and decided by its controller.

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use rand::RngCore;
use rand::rngs::OsRng;
use sha2::Sha512;

use crate::sasl::ScramCredential;
use crate::scram::ScramMechanism;

/// The SCRAM extension a client sends to authenticate with a token (Kafka's
/// `ScramLoginModule.TOKEN_AUTH_CONFIG`).
pub const TOKEN_AUTH_EXTENSION: &str = "tokenauth";

/// Bytes of the random salt of a token's SCRAM credential (Kafka's `ScramFormatter.secureRandomBytes`
/// draws as many).
const TOKEN_SALT_BYTES: usize = 32;

/// `delegation.token.*`: present only when `delegation.token.secret.key` is set, which is what
/// enables tokens in Kafka (without it every token API answers DELEGATION_TOKEN_AUTH_DISABLED).
#[derive(Clone, PartialEq, Eq)]
pub struct DelegationTokenSettings {
    /// `delegation.token.secret.key`: the HMAC key, the same on every node.
    pub secret_key: String,
    /// `delegation.token.max.lifetime.ms`: no token outlives its issue time by more (7 days).
    pub max_lifetime_ms: i64,
    /// `delegation.token.expiry.time.ms`: how far a creation or a renewal without a period
    /// pushes a token's expiry (1 day).
    pub expiry_time_ms: i64,
    /// `delegation.token.expiry.check.interval.ms`: how often the active controller removes
    /// expired tokens (1 hour).
    pub expiry_check_interval_ms: i64,
}

impl fmt::Debug for DelegationTokenSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DelegationTokenSettings")
            .field("secret_key", &"[hidden]")
            .field("max_lifetime_ms", &self.max_lifetime_ms)
            .field("expiry_time_ms", &self.expiry_time_ms)
            .field("expiry_check_interval_ms", &self.expiry_check_interval_ms)
            .finish()
    }
}

impl DelegationTokenSettings {
    /// The token's HMAC: HmacSHA512 over the UTF-8 token id, keyed by the UTF-8 secret key.
    pub fn hmac(&self, token_id: &str) -> Vec<u8> {
        token_hmac(&self.secret_key, token_id)
    }

    /// The password a client presents for `token_id`: its HMAC in standard base64.
    pub fn password(&self, token_id: &str) -> String {
        STANDARD.encode(self.hmac(token_id))
    }

    /// A SCRAM credential for `token_id`'s password, with a fresh random salt and the minimum
    /// iterations, as Kafka's `DelegationTokenCache` prepares one per mechanism.
    pub fn scram_credential(&self, token_id: &str, mechanism: ScramMechanism) -> ScramCredential {
        let mut salt = vec![0; TOKEN_SALT_BYTES];
        OsRng.fill_bytes(&mut salt);
        mechanism.credential_from_password(&self.password(token_id), &salt, ScramMechanism::ITERATIONS_MIN)
    }
}

/// HmacSHA512(`secret_key`, `token_id`), both as UTF-8 (Kafka's `DelegationTokenManager.createHmac`).
pub fn token_hmac(secret_key: &str, token_id: &str) -> Vec<u8> {
    match <Hmac<Sha512> as KeyInit>::new_from_slice(secret_key.as_bytes()) {
        Ok(mut mac) => {
            mac.update(token_id.as_bytes());
            mac.finalize().into_bytes().to_vec()
        }
        // An HMAC accepts a key of any length: unreachable, and no token would match.
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The HMAC is RFC 4231's HMAC-SHA-512 (test case 2: key "Jefe").
    #[test]
    fn the_hmac_is_hmac_sha512_of_the_token_id() {
        let hmac = token_hmac("Jefe", "what do ya want for nothing?");
        let hex: String = hmac.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
        );
    }

    /// A token's SCRAM credential verifies the base64 HMAC as its password.
    #[test]
    fn the_scram_credential_takes_the_base64_hmac_as_password() {
        let settings = DelegationTokenSettings {
            secret_key: "secret".to_owned(),
            max_lifetime_ms: 1,
            expiry_time_ms: 1,
            expiry_check_interval_ms: 1,
        };
        let credential = settings.scram_credential("token-1", ScramMechanism::Sha256);
        let expected =
            ScramMechanism::Sha256.credential_from_password(&settings.password("token-1"), &credential.salt, 4096);
        assert_eq!(credential, expected);
        assert!(!format!("{settings:?}").contains("secret\""));
    }
}
