//! Certificates made at test time (a CA and the certificates it signs; nothing committed that
//! could expire) and a rustls client over [`Client`], for the TLS and SASL_SSL tests.

use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DistinguishedName, DnType, IsCa, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};

use super::{Client, WAIT_MAX};

/// A certificate and its key.
pub struct Identity {
    pub chain: Vec<CertificateDer<'static>>,
    pub key: Vec<u8>,
}

impl Identity {
    pub fn key(&self) -> PrivateKeyDer<'static> {
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key.clone()))
    }

    /// The key and the chain in one PEM file (Kafka's PEM key store).
    pub fn pem(&self) -> String {
        let key = pem("PRIVATE KEY", &self.key);
        self.chain.iter().fold(key, |text, certificate| text + &pem("CERTIFICATE", certificate))
    }
}

pub fn pem(label: &str, der: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut encoded = String::new();
    for chunk in der.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            encoded.push(if i <= chunk.len() { ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char } else { '=' });
        }
    }
    let lines: Vec<&str> = encoded.as_bytes().chunks(64).map(|l| std::str::from_utf8(l).expect("ascii")).collect();
    format!("-----BEGIN {label}-----\n{}\n-----END {label}-----\n", lines.join("\n"))
}

/// A CA, and certificates it signed.
pub struct Pki {
    ca: CertifiedIssuer<'static, KeyPair>,
}

impl Pki {
    pub fn new(name: &str) -> Pki {
        let mut params = CertificateParams::default();
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let key = KeyPair::generate().expect("key");
        Pki { ca: CertifiedIssuer::self_signed(params, key).expect("CA") }
    }

    pub fn ca(&self) -> CertificateDer<'static> {
        self.ca.der().clone()
    }

    /// A certificate for `subject` (`(CN, OU, O)`), valid for localhost and 127.0.0.1.
    pub fn issue(&self, subject: (&str, &str, &str)) -> Identity {
        let mut params = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).expect("names");
        let mut name = DistinguishedName::new();
        name.push(DnType::OrganizationName, subject.2);
        name.push(DnType::OrganizationalUnitName, subject.1);
        name.push(DnType::CommonName, subject.0);
        params.distinguished_name = name;
        let key = KeyPair::generate().expect("key");
        let certificate = params.signed_by(&key, &self.ca).expect("signed");
        Identity { chain: vec![certificate.der().clone(), self.ca()], key: key.serialize_der() }
    }
}

/// A rustls client trusting `ca`, showing `identity` if given, connected to `address`.
pub fn tls_client(address: SocketAddr, ca: CertificateDer<'static>, identity: Option<&Identity>) -> Client {
    let (connection, socket) = tls_connection(address, ca, identity);
    Client::over(rustls::StreamOwned::new(connection, socket))
}

/// A rustls connection to `address` (as `localhost`) trusting `ca`, showing `identity` if given,
/// its handshake not yet run, and its socket.
#[allow(clippy::disallowed_methods)] // End-to-end tests are clients of a real server.
pub fn tls_connection(
    address: SocketAddr,
    ca: CertificateDer<'static>,
    identity: Option<&Identity>,
) -> (rustls::ClientConnection, TcpStream) {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca).expect("trusted");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_root_certificates(roots);
    let config = match identity {
        Some(identity) => builder.with_client_auth_cert(identity.chain.clone(), identity.key()).expect("identity"),
        None => builder.with_no_client_auth(),
    };
    let name = ServerName::try_from("localhost").expect("name");
    let connection = rustls::ClientConnection::new(Arc::new(config), name).expect("client");
    let socket = TcpStream::connect(address).expect("connect");
    socket.set_read_timeout(Some(WAIT_MAX)).expect("timeout");
    (connection, socket)
}
