//! Kafka's `SecurityProtocol`.

use std::fmt;

/// A listener's security protocol, Kafka's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SecurityProtocol {
    Plaintext,
    Ssl,
    SaslPlaintext,
    SaslSsl,
}

impl SecurityProtocol {
    /// Kafka's name (`PLAINTEXT`, `SSL`, `SASL_PLAINTEXT`, `SASL_SSL`).
    pub fn name(self) -> &'static str {
        match self {
            SecurityProtocol::Plaintext => "PLAINTEXT",
            SecurityProtocol::Ssl => "SSL",
            SecurityProtocol::SaslPlaintext => "SASL_PLAINTEXT",
            SecurityProtocol::SaslSsl => "SASL_SSL",
        }
    }

    /// Kafka's id (`SecurityProtocol.id`), as BrokerRegistration carries it.
    pub fn id(self) -> i16 {
        match self {
            SecurityProtocol::Plaintext => 0,
            SecurityProtocol::Ssl => 1,
            SecurityProtocol::SaslPlaintext => 2,
            SecurityProtocol::SaslSsl => 3,
        }
    }

    /// Parses a name in any case, as `SecurityProtocol.forName` does.
    pub fn from_name(name: &str) -> Option<SecurityProtocol> {
        [SecurityProtocol::Plaintext, SecurityProtocol::Ssl, SecurityProtocol::SaslPlaintext, SecurityProtocol::SaslSsl]
            .into_iter()
            .find(|protocol| protocol.name().eq_ignore_ascii_case(name))
    }

    /// Whether the protocol is TLS or SASL (Kafka then adds no implicit controller mappings).
    pub fn is_ssl_or_sasl(self) -> bool {
        self != SecurityProtocol::Plaintext
    }

    /// Whether connections start with a TLS handshake.
    pub fn uses_tls(self) -> bool {
        matches!(self, SecurityProtocol::Ssl | SecurityProtocol::SaslSsl)
    }

    /// Whether connections authenticate with SASL before their first other request.
    pub fn uses_sasl(self) -> bool {
        matches!(self, SecurityProtocol::SaslPlaintext | SecurityProtocol::SaslSsl)
    }
}

impl fmt::Display for SecurityProtocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
