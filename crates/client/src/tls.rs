//! The client's TLS: a rustls (ring) connector from the trust store (required: no roots are
//! bundled), the key store for mutual TLS, and host name verification unless
//! `ssl.endpoint.identification.algorithm` is empty. PEM and PKCS12 stores; JKS and encrypted
//! PEM keys are refused by `config`.

use std::sync::Arc;

use p12_keystore::{KeyStore, Pkcs12Archive, Pkcs12ImportPolicy};
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::ring;
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use tokio_rustls::TlsConnector;

use crate::ClientError;
use crate::config::{Store, TlsConfig};

/// The most bytes read from a store file.
const STORE_FILE_BYTES_MAX: u64 = 16 << 20;

/// The connector `config` describes.
pub fn connector(config: &TlsConfig) -> Result<TlsConnector, ClientError> {
    let provider = Arc::new(ring::default_provider());
    let truststore = config.truststore.as_ref().ok_or_else(|| {
        ClientError::Config("TLS needs ssl.truststore.location (or ssl.truststore.certificates)".into())
    })?;
    let mut roots = RootCertStore::empty();
    for certificate in trusted(truststore)? {
        roots.add(certificate).map_err(|e| ClientError::Config(format!("ssl.truststore: {e}")))?;
    }
    let verifier = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .map_err(|e| ClientError::Config(format!("ssl.truststore: {e}")))?;
    let verifier: Arc<dyn ServerCertVerifier> =
        if config.verify_host_name { verifier } else { Arc::new(AnyHostName(verifier)) };
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| ClientError::Config(e.to_string()))?
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    let tls = match &config.keystore {
        None => builder.with_no_client_auth(),
        Some(store) => {
            let (chain, key) = identity(store, config.keystore_key.as_deref())?;
            builder.with_client_auth_cert(chain, key).map_err(|e| ClientError::Config(format!("ssl.keystore: {e}")))?
        }
    };
    Ok(TlsConnector::from(Arc::new(tls)))
}

/// The name TLS checks for `address` (`host:port`).
pub fn server_name(address: &str) -> Result<ServerName<'static>, ClientError> {
    let host = address.rsplit_once(':').map_or(address, |(host, _)| host);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    ServerName::try_from(host.to_owned()).map_err(|e| ClientError::Config(format!("host name {host}: {e}")))
}

fn read(path: &std::path::Path, key: &str) -> Result<Vec<u8>, ClientError> {
    use std::io::Read;
    let failed = |e: std::io::Error| ClientError::Config(format!("{key} {}: {e}", path.display()));
    let mut data = Vec::new();
    std::fs::File::open(path).map_err(failed)?.take(STORE_FILE_BYTES_MAX).read_to_end(&mut data).map_err(failed)?;
    Ok(data)
}

fn pem_certificates(text: &[u8], what: &str) -> Result<Vec<CertificateDer<'static>>, ClientError> {
    let certificates = CertificateDer::pem_slice_iter(text)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ClientError::Config(format!("{what}: bad PEM: {e}")))?;
    if certificates.is_empty() {
        return Err(ClientError::Config(format!("{what}: no PEM certificate")));
    }
    Ok(certificates)
}

fn trusted(store: &Store) -> Result<Vec<CertificateDer<'static>>, ClientError> {
    match store {
        Store::PemFile(path) => pem_certificates(&read(path, "ssl.truststore.location")?, "ssl.truststore.location"),
        Store::PemInline(text) => pem_certificates(text.as_bytes(), "ssl.truststore.certificates"),
        Store::Pkcs12 { path, password } => {
            let data = read(path, "ssl.truststore.location")?;
            let archive = Pkcs12Archive::from_pkcs12(&data, password).map_err(|e| {
                ClientError::Config(format!("ssl.truststore.location: not a readable PKCS12 store: {e}"))
            })?;
            Ok(archive.certs.iter().map(|c| CertificateDer::from(c.cert.as_der().to_vec())).collect())
        }
    }
}

type Identity = (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>);

fn identity(store: &Store, inline_key: Option<&str>) -> Result<Identity, ClientError> {
    let bad_key = |e: rustls_pki_types::pem::Error| ClientError::Config(format!("ssl.keystore: no readable key: {e}"));
    match store {
        Store::PemFile(path) => {
            let text = read(path, "ssl.keystore.location")?;
            Ok((
                pem_certificates(&text, "ssl.keystore.location")?,
                PrivateKeyDer::from_pem_slice(&text).map_err(bad_key)?,
            ))
        }
        Store::PemInline(chain) => {
            let key = inline_key.ok_or_else(|| ClientError::Config("ssl.keystore.key is not set".into()))?;
            let chain = pem_certificates(chain.as_bytes(), "ssl.keystore.certificate.chain")?;
            Ok((chain, PrivateKeyDer::from_pem_slice(key.as_bytes()).map_err(bad_key)?))
        }
        Store::Pkcs12 { path, password } => {
            let data = read(path, "ssl.keystore.location")?;
            let store = KeyStore::from_pkcs12(&data, password, Pkcs12ImportPolicy::Strict)
                .map_err(|e| ClientError::Config(format!("ssl.keystore.location: not a readable PKCS12 store: {e}")))?;
            let (_, entry) = store
                .private_key_chain()
                .ok_or_else(|| ClientError::Config("ssl.keystore.location: no private key with its chain".into()))?;
            let chain = entry.certs().iter().map(|c| CertificateDer::from(c.as_der().to_vec())).collect();
            Ok((chain, PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(entry.key().as_der().to_vec()))))
        }
    }
}

/// Checks the chain and signatures but not the host name (`ssl.endpoint.identification.algorithm=`).
#[derive(Debug)]
struct AnyHostName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyHostName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.0.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}
