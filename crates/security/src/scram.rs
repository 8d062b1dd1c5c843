//! SCRAM credentials (RFC 5802 §3, RFC 7677): what a node stores for a user instead of a
//! password, and how it is derived. Shared by the SCRAM mechanisms, `AlterUserScramCredentials`
//! (whose clients send the salted password) and `strand storage format --add-scram` (given the
//! password itself).

use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256, Sha512};

use crate::sasl::ScramCredential;

/// Kafka's SCRAM mechanisms, with the ids `ScramMechanism.type()` gives them on the wire and in
/// `UserScramCredentialRecord`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScramMechanism {
    Sha256,
    Sha512,
}

impl ScramMechanism {
    /// Kafka's minimum iteration count (`ScramMechanism.minIterations`).
    pub const ITERATIONS_MIN: u32 = 4096;
    /// Kafka's maximum iteration count for AlterUserScramCredentials (`ScramMechanism.maxIterations`
    /// in the controller's `ScramControlManager`).
    pub const ITERATIONS_MAX: u32 = 16384;

    pub const ALL: [ScramMechanism; 2] = [ScramMechanism::Sha256, ScramMechanism::Sha512];

    /// The IANA name: `SCRAM-SHA-256`, `SCRAM-SHA-512`.
    pub fn name(self) -> &'static str {
        match self {
            ScramMechanism::Sha256 => "SCRAM-SHA-256",
            ScramMechanism::Sha512 => "SCRAM-SHA-512",
        }
    }

    /// Kafka's wire id: 1 for SHA-256, 2 for SHA-512 (0 is UNKNOWN).
    pub fn id(self) -> i8 {
        match self {
            ScramMechanism::Sha256 => 1,
            ScramMechanism::Sha512 => 2,
        }
    }

    pub fn from_id(id: i8) -> Option<ScramMechanism> {
        ScramMechanism::ALL.into_iter().find(|mechanism| mechanism.id() == id)
    }

    pub fn from_name(name: &str) -> Option<ScramMechanism> {
        ScramMechanism::ALL.into_iter().find(|mechanism| mechanism.name() == name)
    }

    /// The hash's output length in bytes.
    pub fn digest_len(self) -> usize {
        match self {
            ScramMechanism::Sha256 => 32,
            ScramMechanism::Sha512 => 64,
        }
    }

    /// `Hi(password, salt, i)`: PBKDF2 with this mechanism's HMAC.
    pub fn salted_password(self, password: &[u8], salt: &[u8], iterations: u32) -> Vec<u8> {
        let mut out = vec![0; self.digest_len()];
        match self {
            ScramMechanism::Sha256 => pbkdf2::pbkdf2_hmac::<Sha256>(password, salt, iterations, &mut out),
            ScramMechanism::Sha512 => pbkdf2::pbkdf2_hmac::<Sha512>(password, salt, iterations, &mut out),
        }
        out
    }

    /// `HMAC(key, data)`.
    pub fn hmac(self, key: &[u8], data: &[u8]) -> Vec<u8> {
        match self {
            ScramMechanism::Sha256 => hmac::<Hmac<Sha256>>(key, data),
            ScramMechanism::Sha512 => hmac::<Hmac<Sha512>>(key, data),
        }
    }

    /// `H(data)`.
    pub fn hash(self, data: &[u8]) -> Vec<u8> {
        match self {
            ScramMechanism::Sha256 => Sha256::digest(data).to_vec(),
            ScramMechanism::Sha512 => Sha512::digest(data).to_vec(),
        }
    }

    /// The stored credential for a salted password: `StoredKey = H(HMAC(SaltedPassword,
    /// "Client Key"))`, `ServerKey = HMAC(SaltedPassword, "Server Key")`.
    pub fn credential(self, salted_password: &[u8], salt: &[u8], iterations: u32) -> ScramCredential {
        let client_key = self.hmac(salted_password, b"Client Key");
        ScramCredential {
            salt: salt.to_vec(),
            stored_key: self.hash(&client_key),
            server_key: self.hmac(salted_password, b"Server Key"),
            iterations,
        }
    }

    /// The stored credential for a password.
    pub fn credential_from_password(self, password: &str, salt: &[u8], iterations: u32) -> ScramCredential {
        self.credential(&self.salted_password(password.as_bytes(), salt, iterations), salt, iterations)
    }
}

/// `HMAC(key, data)` with `M`. An HMAC takes a key of any length (a long one is hashed first), so
/// `new_from_slice` never refuses it.
fn hmac<M: Mac + KeyInit>(key: &[u8], data: &[u8]) -> Vec<u8> {
    match <M as KeyInit>::new_from_slice(key) {
        Ok(mut mac) => {
            mac.update(data);
            mac.finalize().into_bytes().to_vec()
        }
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// RFC 7677 §3's example: user "user", password "pencil", salt W22ZaJ0SNY7soEsUEjb6gQ==,
    /// 4096 iterations. Its ServerSignature (v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=) is
    /// HMAC(ServerKey, AuthMessage); the ServerKey below is what that signature implies.
    #[test]
    fn sha256_keys_match_rfc_7677() {
        let salt = [0x5b, 0x6d, 0x99, 0x68, 0x9d, 0x12, 0x35, 0x8e, 0xec, 0xa0, 0x4b, 0x14, 0x12, 0x36, 0xfa, 0x81];
        let mechanism = ScramMechanism::Sha256;
        let credential = mechanism.credential_from_password("pencil", &salt, 4096);
        let auth_message = "n=user,r=rOprNGfwEbeRWgbNEkqO,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,\
                            s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
        let server_signature = mechanism.hmac(&credential.server_key, auth_message.as_bytes());
        assert_eq!(hex(&server_signature), "eabae24d1062db75a9451ff0b6ea7e98c8546549ff741e672d3251b2397de46e");
        assert_eq!(credential.stored_key.len(), 32);
    }

    #[test]
    fn ids_and_names_round_trip() {
        for mechanism in ScramMechanism::ALL {
            assert_eq!(ScramMechanism::from_id(mechanism.id()), Some(mechanism));
            assert_eq!(ScramMechanism::from_name(mechanism.name()), Some(mechanism));
            assert_eq!(
                mechanism.credential_from_password("pw", b"salt", 4096).server_key.len(),
                mechanism.digest_len()
            );
        }
        assert_eq!(ScramMechanism::from_id(0), None);
    }
}
