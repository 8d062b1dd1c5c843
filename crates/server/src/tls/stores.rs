//! Reading the key and trust stores a listener's [`TlsSettings`] name: PEM (a file, or the text
//! inline) and PKCS12. Each failure says which store and why, for the start-up error.

use std::path::Path;

use p12_keystore::{KeyStore, Pkcs12Archive, Pkcs12ImportPolicy};
use rustls::RootCertStore;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::config::tls::{Keystore, PemSource, Truststore};

/// The most bytes read from a store file: far more than any certificate chain, and a guard
/// against a location pointing at something else (a device, a log).
pub const STORE_FILE_BYTES_MAX: u64 = 16 << 20;

/// A node's certificate chain (its own first) and private key.
#[derive(Debug)]
pub struct Identity {
    pub chain: Vec<CertificateDer<'static>>,
    pub key: PrivateKeyDer<'static>,
}

impl Clone for Identity {
    fn clone(&self) -> Identity {
        Identity { chain: self.chain.clone(), key: self.key.clone_key() }
    }
}

/// Reads `ssl.keystore.*`.
pub fn read_keystore(keystore: &Keystore) -> Result<Identity, String> {
    match keystore {
        Keystore::Pem { source: PemSource::File(path), key_password } => {
            let text = read_file(path, "ssl.keystore.location")?;
            let what = format!("ssl.keystore.location {}", path.display());
            Ok(Identity {
                chain: pem_certificates(&text, &what)?,
                key: pem_key(&text, &what, key_password.as_deref())?,
            })
        }
        Keystore::Pem { source: PemSource::Inline { certificates, key }, key_password } => {
            let chain = pem_certificates(certificates.as_bytes(), "ssl.keystore.certificate.chain")?;
            let key = pem_key(key.as_bytes(), "ssl.keystore.key", key_password.as_deref())?;
            Ok(Identity { chain, key })
        }
        Keystore::Pkcs12 { path, password } => {
            let what = format!("ssl.keystore.location {}", path.display());
            let data = read_file(path, "ssl.keystore.location")?;
            let store = KeyStore::from_pkcs12(&data, password, Pkcs12ImportPolicy::Strict)
                .map_err(|e| format!("{what}: not a PKCS12 store readable with ssl.keystore.password: {e}"))?;
            let (_, entry) = store
                .private_key_chain()
                .ok_or_else(|| format!("{what}: the store holds no private key with its chain"))?;
            let chain: Vec<_> = entry.certs().iter().map(|c| CertificateDer::from(c.as_der().to_vec())).collect();
            if chain.is_empty() {
                return Err(format!("{what}: the private key has no certificate"));
            }
            let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(entry.key().as_der().to_vec()));
            Ok(Identity { chain, key })
        }
    }
}

/// Reads `ssl.truststore.*`.
pub fn read_truststore(truststore: &Truststore) -> Result<RootCertStore, String> {
    let (certificates, what) = match truststore {
        Truststore::Pem(PemSource::File(path)) => {
            let what = format!("ssl.truststore.location {}", path.display());
            (pem_certificates(&read_file(path, "ssl.truststore.location")?, &what)?, what)
        }
        Truststore::Pem(PemSource::Inline { certificates, .. }) => {
            let what = "ssl.truststore.certificates".to_owned();
            (pem_certificates(certificates.as_bytes(), &what)?, what)
        }
        Truststore::Pkcs12 { path, password } => {
            let what = format!("ssl.truststore.location {}", path.display());
            let data = read_file(path, "ssl.truststore.location")?;
            let archive = Pkcs12Archive::from_pkcs12(&data, password)
                .map_err(|e| format!("{what}: not a PKCS12 store readable with ssl.truststore.password: {e}"))?;
            let certificates = archive.certs.iter().map(|c| CertificateDer::from(c.cert.as_der().to_vec())).collect();
            (certificates, what)
        }
    };
    let mut roots = RootCertStore::empty();
    for certificate in certificates {
        roots.add(certificate).map_err(|e| format!("{what}: a certificate cannot be trusted: {e}"))?;
    }
    if roots.is_empty() {
        return Err(format!("{what}: no certificate to trust"));
    }
    Ok(roots)
}

/// A store file's bytes, at most [`STORE_FILE_BYTES_MAX`]; the error names `key` and the path.
pub(super) fn read_file(path: &Path, key: &str) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("{key} {}: {e}", path.display()))?;
    let mut data = Vec::new();
    file.take(STORE_FILE_BYTES_MAX + 1).read_to_end(&mut data).map_err(|e| format!("{key} {}: {e}", path.display()))?;
    if data.len() as u64 > STORE_FILE_BYTES_MAX {
        return Err(format!("{key} {}: larger than {STORE_FILE_BYTES_MAX} bytes", path.display()));
    }
    Ok(data)
}

fn pem_certificates(text: &[u8], what: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let certificates = CertificateDer::pem_slice_iter(text)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{what}: bad PEM: {e}"))?;
    if certificates.is_empty() {
        return Err(format!("{what}: no PEM certificate (-----BEGIN CERTIFICATE-----)"));
    }
    Ok(certificates)
}

/// The private key of PEM text. With `password` (`ssl.key.password`) the key must be a PKCS#8
/// `ENCRYPTED PRIVATE KEY` (PBES2, as `openssl pkcs8 -topk8` writes it), decrypted with it; without,
/// a plain key. Kafka's `PemStore` asks the same.
fn pem_key(text: &[u8], what: &str, password: Option<&str>) -> Result<PrivateKeyDer<'static>, String> {
    let encrypted = encrypted_key_block(text);
    match (encrypted, password) {
        (None, None) => {
            PrivateKeyDer::from_pem_slice(text).map_err(|e| format!("{what}: no readable PEM private key: {e}"))
        }
        (Some(_), None) => Err(format!("{what}: the private key is encrypted and ssl.key.password is not set")),
        (None, Some(_)) => Err(format!(
            "{what}: ssl.key.password is set but the key is not an encrypted PKCS#8 key \
             (-----BEGIN ENCRYPTED PRIVATE KEY-----)"
        )),
        (Some(block), Some(password)) => {
            let (_, der) = pkcs8::der::pem::decode_vec(block.as_bytes())
                .map_err(|e| format!("{what}: bad encrypted PEM private key: {e}"))?;
            let info = pkcs8::EncryptedPrivateKeyInfoRef::try_from(der.as_slice())
                .map_err(|e| format!("{what}: bad encrypted PEM private key: {e}"))?;
            key_derivation_within_bounds(&info.encryption_algorithm).map_err(|e| format!("{what}: {e}"))?;
            let key = info
                .decrypt(password)
                .map_err(|e| format!("{what}: the private key cannot be decrypted with ssl.key.password: {e}"))?;
            Ok(PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.as_bytes().to_vec())))
        }
    }
}

/// The most PBKDF2 iterations an encrypted key may ask for: far above what `openssl` (2,048),
/// Java (10,000) or OWASP (600,000) use, and about a second of one core at the limit.
pub(crate) const PBKDF2_ITERATIONS_MAX: u32 = 2_000_000;

/// The most memory scrypt may ask for to derive a key (`128 · r · N` bytes, plus `p` blocks).
pub(crate) const SCRYPT_BYTES_MAX: u64 = 256 << 20;

/// Refuses a key derivation whose cost would stall a reload or exhaust memory: the parameters
/// come from the key file, so a corrupt or hostile one must not decide how long or how much.
fn key_derivation_within_bounds(scheme: &pkcs8::pkcs5::EncryptionScheme) -> Result<(), String> {
    use pkcs8::pkcs5::pbes2::Kdf;
    let pkcs8::pkcs5::EncryptionScheme::Pbes2(parameters) = scheme else {
        return Ok(()); // PBES1 is refused by the decryption itself.
    };
    match &parameters.kdf {
        Kdf::Pbkdf2(pbkdf2) if pbkdf2.iteration_count > PBKDF2_ITERATIONS_MAX => Err(format!(
            "the private key asks for {} PBKDF2 iterations, more than the {PBKDF2_ITERATIONS_MAX} Strand derives",
            pbkdf2.iteration_count
        )),
        Kdf::Scrypt(scrypt) => {
            let block = 128 * u64::from(scrypt.block_size);
            let bytes = block
                .checked_mul(scrypt.cost_parameter)
                .and_then(|memory| memory.checked_add(block * u64::from(scrypt.parallelization)));
            match bytes {
                Some(bytes) if bytes <= SCRYPT_BYTES_MAX => Ok(()),
                _ => Err(format!(
                    "the private key's scrypt parameters (N={}, r={}, p={}) need more than the {SCRYPT_BYTES_MAX} \
                     bytes Strand allows",
                    scrypt.cost_parameter, scrypt.block_size, scrypt.parallelization
                )),
            }
        }
        _ => Ok(()),
    }
}

/// The `ENCRYPTED PRIVATE KEY` block of PEM text, markers included.
fn encrypted_key_block(text: &[u8]) -> Option<&str> {
    const BEGIN: &str = "-----BEGIN ENCRYPTED PRIVATE KEY-----";
    const END: &str = "-----END ENCRYPTED PRIVATE KEY-----";
    let text = std::str::from_utf8(text).ok()?;
    let start = text.find(BEGIN)?;
    let end = start + text[start..].find(END)? + END.len();
    Some(&text[start..end])
}
