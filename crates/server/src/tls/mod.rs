//! TLS with rustls (ring): one [`ListenerTls`] per listener that uses it, built at start-up from
//! its [`TlsSettings`]: the server side (its key store, and its trust store when
//! `ssl.client.auth` asks for client certificates) and the client side this node dials the
//! listener with (its trust store, its key store for mutual TLS, host name verification per
//! `ssl.endpoint.identification.algorithm`).
//!
//! - [`ListenerTls::accept`]: a client's handshake, bounded in time, and its [`Session`]: the
//!   principal is the client certificate's subject (Java's RFC 2253 form) mapped by
//!   `ssl.principal.mapping.rules`, `User:ANONYMOUS` without a certificate.
//! - [`ListenerTls::connect`]: this node's own outgoing TLS.
//! - [`ListenerTls::reload_forever`]: every [`STORE_POLL_INTERVAL`] the store files are read
//!   again; when one changed, both sides are rebuilt from them and used by every later handshake
//!   (connections already open keep theirs). A store that no longer loads keeps the previous
//!   ones, with one WARN line per change.
//! - `reconfigure`: [`DynamicTls`], run-time changes of the stores through the metadata log
//!   (Kafka's per-broker `listener.name.<l>.ssl.keystore.*` dynamic configs).
//! - `stores`: reading PEM (its key maybe encrypted, PKCS#8 PBES2) and PKCS12 stores.
//!
//! What it is not: no JKS (refused at start-up by `config::tls`), and no check that a store file
//! changed in place keeps its certificate's subject (a dynamic config change is checked).

mod reconfigure;
mod stores;

pub use reconfigure::DynamicTls;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, ring};
use rustls::server::WebPkiClientVerifier;
use rustls::{CertificateError, DigitallySignedStruct, SignatureScheme, SupportedCipherSuite};
use rustls_pki_types::{CertificateDer, ServerName, UnixTime};
use strand_security::{KafkaPrincipal, SecurityProtocol, Session};
use tokio::net::TcpStream;
use tokio_rustls::{TlsAcceptor, TlsConnector};

use crate::config::tls::{ClientAuth, Keystore, PemSource, TlsProtocol, TlsSettings, Truststore};
pub use stores::STORE_FILE_BYTES_MAX;

/// How often the store files are read again to see whether they changed.
pub const STORE_POLL_INTERVAL: Duration = Duration::from_secs(30);

/// A TLS connection a listener accepted.
pub type ServerStream = tokio_rustls::server::TlsStream<TcpStream>;
/// A TLS connection this node opened.
pub type ClientStream = tokio_rustls::client::TlsStream<TcpStream>;

/// One listener's TLS, both ways; clones share the current contexts (a reload reaches them all).
#[derive(Clone)]
pub struct ListenerTls {
    current: Arc<RwLock<Contexts>>,
    /// The store files' contents the current contexts were built from.
    stores: Arc<Mutex<Vec<Vec<u8>>>>,
}

/// Both sides, built from one reading of the stores, with the settings they were built from.
#[derive(Clone)]
struct Contexts {
    settings: Arc<TlsSettings>,
    /// `None` for a listener this node only dials.
    acceptor: Option<TlsAcceptor>,
    connector: Option<TlsConnector>,
    /// The key store's own certificate, whose names a run-time change must keep.
    certificate: Option<CertificateDer<'static>>,
}

impl std::fmt::Debug for ListenerTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let settings = self.settings();
        f.debug_struct("ListenerTls")
            .field("listener", &settings.listener)
            .field("client_auth", &settings.client_auth)
            .finish()
    }
}

/// Why a connection closed when its peer hung up before completing a TLS handshake.
pub const CLOSED_BEFORE_HANDSHAKE: &str = "the peer closed the connection before its TLS handshake";

impl ListenerTls {
    /// Reads the listener's stores and builds both sides; the error names the setting at fault.
    pub fn build(settings: &TlsSettings) -> Result<ListenerTls, String> {
        let stores = read_store_files(settings);
        let current = contexts(settings)?;
        Ok(ListenerTls { current: Arc::new(RwLock::new(current)), stores: Arc::new(Mutex::new(stores)) })
    }

    /// The settings the current contexts were built from.
    pub fn settings(&self) -> Arc<TlsSettings> {
        self.current().settings
    }

    /// Whether `settings` (this listener's, with new stores) load and keep the names of the
    /// certificate served now, as Kafka requires of a run-time change (`ssl.allow.dn.changes` and
    /// `ssl.allow.san.changes` are false). Reads the stores: call it off the runtime's threads.
    pub fn check_reconfiguration(&self, settings: &TlsSettings) -> Result<(), String> {
        let next = contexts(settings)?;
        match (self.current().certificate, next.certificate) {
            (Some(old), Some(new)) => same_names(&old, &new),
            _ => Ok(()),
        }
    }

    /// Replaces the settings and both sides with `settings`' (checked by
    /// [`ListenerTls::check_reconfiguration`]); later handshakes use them, open connections keep
    /// theirs. Reads the stores: call it off the runtime's threads.
    pub fn reconfigure(&self, settings: &TlsSettings) -> Result<(), String> {
        self.check_reconfiguration(settings)?;
        let stores = read_store_files(settings);
        let next = contexts(settings)?;
        *self.stores.lock().unwrap_or_else(PoisonError::into_inner) = stores;
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = next;
        Ok(())
    }

    /// Reads the store files again every [`STORE_POLL_INTERVAL`] and reloads on a change, until
    /// aborted.
    pub async fn reload_forever(self) {
        loop {
            tokio::time::sleep(STORE_POLL_INTERVAL).await;
            let listener = self.settings().listener.clone();
            match self.reload_if_changed().await {
                Ok(true) => tracing::info!("listener {listener}: TLS key and trust stores reloaded"),
                Ok(false) => {}
                Err(e) => tracing::warn!("listener {listener}: kept the previous TLS stores: {e}"),
            }
        }
    }

    /// Rebuilds both sides if a store file changed since the last build; whether it did.
    pub async fn reload_if_changed(&self) -> Result<bool, String> {
        let settings = self.settings();
        let rebuilt = tokio::task::spawn_blocking(move || {
            let stores = read_store_files(&settings);
            (contexts(&settings), stores)
        })
        .await
        .map_err(|e| e.to_string())?;
        let (built, stores) = rebuilt;
        {
            let mut known = self.stores.lock().unwrap_or_else(PoisonError::into_inner);
            if *known == stores {
                return Ok(false);
            }
            // A store that fails is reported once per change, not at every poll.
            *known = stores;
        }
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = built?;
        Ok(true)
    }

    fn current(&self) -> Contexts {
        self.current.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Runs a client's handshake within `handshake_max` and settles its session; `Err` is the
    /// one line to log before the connection closes ([`CLOSED_BEFORE_HANDSHAKE`]: at DEBUG).
    pub async fn accept(
        &self,
        stream: TcpStream,
        peer: SocketAddr,
        handshake_max: Duration,
    ) -> Result<(ServerStream, Session), String> {
        let current = self.current();
        let listener = &current.settings.listener;
        let acceptor = current.acceptor.ok_or_else(|| format!("listener {listener} serves no TLS"))?;
        let stream = match tokio::time::timeout(handshake_max, acceptor.accept(stream)).await {
            Ok(Ok(stream)) => stream,
            // A health check or port probe connects and closes: not worth a line at INFO.
            Ok(Err(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                return Err(CLOSED_BEFORE_HANDSHAKE.to_owned());
            }
            Ok(Err(e)) => return Err(format!("TLS handshake failed: {e}")),
            Err(_) => return Err(format!("no TLS handshake within {} ms", handshake_max.as_millis())),
        };
        let connection = stream.get_ref().1;
        // What the benchmark compares with Kafka's (whose SslTransportLayer logs it at DEBUG too).
        tracing::debug!(
            %peer,
            listener = %listener,
            "TLS handshake completed: {:?} {:?}",
            connection.protocol_version(),
            connection.negotiated_cipher_suite().map(|suite| suite.suite())
        );
        let principal = principal(&current.settings, connection.peer_certificates())?;
        let session = Session { principal, peer, listener: listener.clone(), protocol: SecurityProtocol::Ssl };
        Ok((stream, session))
    }

    /// Opens TLS over `stream`, a connection this node made to `host`, within `handshake_max`.
    pub async fn connect(
        &self,
        stream: TcpStream,
        host: &str,
        handshake_max: Duration,
    ) -> Result<ClientStream, String> {
        let current = self.current();
        let listener = &current.settings.listener;
        let connector = current.connector.ok_or_else(|| format!("listener {listener}: no trust store"))?;
        let name = ServerName::try_from(host.to_owned()).map_err(|e| format!("host name {host}: {e}"))?;
        match tokio::time::timeout(handshake_max, connector.connect(name, stream)).await {
            Ok(Ok(stream)) => Ok(stream),
            Ok(Err(e)) => Err(format!("TLS handshake with {host} failed: {e}")),
            Err(_) => Err(format!("no TLS handshake with {host} within {} ms", handshake_max.as_millis())),
        }
    }
}

/// The principal of a client that showed `certificates` (its own first), as Kafka's
/// `DefaultKafkaPrincipalBuilder` makes it for SSL.
fn principal(settings: &TlsSettings, certificates: Option<&[CertificateDer<'_>]>) -> Result<KafkaPrincipal, String> {
    let Some(certificate) = certificates.and_then(<[_]>::first) else {
        return Ok(KafkaPrincipal::anonymous());
    };
    let name = strand_security::x500::subject_name(certificate)?;
    let mapped = settings.principal_mapper.name(&name).map_err(|e| format!("authentication failed: {e}"))?;
    Ok(KafkaPrincipal::user(mapped))
}

/// Whether `new` has `old`'s subject and subject alternative names.
fn same_names(old: &CertificateDer<'_>, new: &CertificateDer<'_>) -> Result<(), String> {
    let subject = strand_security::x500::subject_name;
    let (old_subject, new_subject) = (subject(old)?, subject(new)?);
    if old_subject != new_subject {
        return Err(format!(
            "Keystore DistinguishedName does not match: existing={{{old_subject}}}, new={{{new_subject}}}"
        ));
    }
    let (old_names, new_names) = (alternative_names(old)?, alternative_names(new)?);
    if old_names != new_names {
        return Err(format!(
            "Keystore SubjectAltNames do not match: existing={{{old_names:?}}}, new={{{new_names:?}}}"
        ));
    }
    Ok(())
}

/// A certificate's subject alternative names, as text, sorted.
fn alternative_names(certificate: &CertificateDer<'_>) -> Result<Vec<String>, String> {
    let (_, parsed) = x509_parser::parse_x509_certificate(certificate)
        .map_err(|e| format!("the key store's certificate cannot be read: {e}"))?;
    let extension = parsed.subject_alternative_name().map_err(|e| format!("subject alternative names: {e}"))?;
    let mut names: Vec<String> =
        extension.map(|e| e.value.general_names.iter().map(ToString::to_string).collect()).unwrap_or_default();
    names.sort();
    Ok(names)
}

/// The contents of the listener's store files (empty for one that cannot be read: the build
/// reports why).
fn read_store_files(settings: &TlsSettings) -> Vec<Vec<u8>> {
    let keystore = match &settings.keystore {
        Some(Keystore::Pem { source: PemSource::File(path), .. } | Keystore::Pkcs12 { path, .. }) => Some(path),
        _ => None,
    };
    let truststore = match &settings.truststore {
        Some(Truststore::Pem(PemSource::File(path)) | Truststore::Pkcs12 { path, .. }) => Some(path),
        _ => None,
    };
    let read = |path: &PathBuf| stores::read_file(path, "").unwrap_or_default();
    [keystore, truststore].into_iter().flatten().map(read).collect()
}

/// Both sides from the listener's stores; the error names the setting at fault.
fn contexts(settings: &TlsSettings) -> Result<Contexts, String> {
    let fail = |e: String| format!("TLS on listener {}: {e}", settings.listener);
    let provider = Arc::new(provider(settings));
    let versions = versions(settings);
    let identity = settings.keystore.as_ref().map(stores::read_keystore).transpose().map_err(fail)?;
    let certificate = identity.as_ref().and_then(|identity| identity.chain.first().cloned());
    let roots = settings.truststore.as_ref().map(stores::read_truststore).transpose().map_err(fail)?.map(Arc::new);
    let acceptor = match &identity {
        Some(identity) => {
            let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
                .with_protocol_versions(&versions)
                .map_err(|e| fail(format!("ssl.enabled.protocols and ssl.cipher.suites: {e}")))?;
            let builder = match (settings.client_auth, &roots) {
                (ClientAuth::None, _) | (_, None) => builder.with_no_client_auth(),
                (auth, Some(roots)) => {
                    // No CA names in the CertificateRequest: a client then sends the certificate
                    // it has and an untrusted one is refused as unknown_ca, as Kafka's clients see
                    // it, instead of withholding it and getting certificate_required.
                    let verifier = WebPkiClientVerifier::builder_with_provider(roots.clone(), provider.clone())
                        .clear_root_hint_subjects();
                    let verifier =
                        if auth == ClientAuth::Requested { verifier.allow_unauthenticated() } else { verifier };
                    builder.with_client_cert_verifier(verifier.build().map_err(|e| fail(e.to_string()))?)
                }
            };
            let config = builder
                .with_single_cert(identity.chain.clone(), identity.key.clone_key())
                .map_err(|e| fail(format!("the key store's key and certificate: {e}")))?;
            Some(TlsAcceptor::from(Arc::new(config)))
        }
        None => None,
    };
    let connector = match roots {
        Some(roots) => {
            let verifier = WebPkiServerVerifier::builder_with_provider(roots, provider.clone())
                .build()
                .map_err(|e| fail(e.to_string()))?;
            let verifier: Arc<dyn ServerCertVerifier> = match settings.endpoint_identification {
                true => verifier,
                false => Arc::new(AnyHostName(verifier)),
            };
            let builder = rustls::ClientConfig::builder_with_provider(provider)
                .with_protocol_versions(&versions)
                .map_err(|e| fail(e.to_string()))?
                .dangerous()
                .with_custom_certificate_verifier(verifier);
            let config = match identity {
                Some(identity) => {
                    builder.with_client_auth_cert(identity.chain, identity.key).map_err(|e| fail(e.to_string()))?
                }
                None => builder.with_no_client_auth(),
            };
            Some(TlsConnector::from(Arc::new(config)))
        }
        None => None,
    };
    Ok(Contexts { settings: Arc::new(settings.clone()), acceptor, connector, certificate })
}

/// ring's provider, its suites narrowed to `ssl.cipher.suites` when set.
fn provider(settings: &TlsSettings) -> CryptoProvider {
    let mut provider = ring::default_provider();
    if !settings.cipher_suites.is_empty() {
        provider.cipher_suites = settings.cipher_suites.iter().filter_map(|name| suite(name)).collect();
    }
    provider
}

/// A Kafka (IANA) cipher suite name as ring's suite; the names are `config::tls::CIPHER_SUITES`.
fn suite(name: &str) -> Option<SupportedCipherSuite> {
    use ring::cipher_suite as s;
    Some(match name {
        "TLS_AES_256_GCM_SHA384" => s::TLS13_AES_256_GCM_SHA384,
        "TLS_AES_128_GCM_SHA256" => s::TLS13_AES_128_GCM_SHA256,
        "TLS_CHACHA20_POLY1305_SHA256" => s::TLS13_CHACHA20_POLY1305_SHA256,
        "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384" => s::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256" => s::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256" => s::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
        "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384" => s::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256" => s::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256" => s::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
        _ => return None,
    })
}

fn versions(settings: &TlsSettings) -> Vec<&'static rustls::SupportedProtocolVersion> {
    settings
        .protocols
        .iter()
        .map(|protocol| match protocol {
            TlsProtocol::V1_2 => &rustls::version::TLS12,
            TlsProtocol::V1_3 => &rustls::version::TLS13,
        })
        .collect()
}

/// `ssl.endpoint.identification.algorithm` empty: the chain is verified against the trust store,
/// the host name is not.
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

#[cfg(test)]
mod tests;
