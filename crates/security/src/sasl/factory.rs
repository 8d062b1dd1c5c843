//! A listener's SASL mechanisms: `sasl.enabled.mechanisms` checked at start-up (GSSAPI and
//! unknown names refused with a message naming them), then one [`SaslServer`] per connection
//! for the mechanism its SaslHandshake asked for.

use std::fmt;
use std::sync::Arc;

use strand_base::Clock;

use super::jaas::JaasEntry;
use super::oauthbearer::{OAUTHBEARER, OAuthBearerServer, TokenValidator};
use super::plain::{PLAIN, PlainClient, PlainServer, PlainUsers};
use super::scram::{ScramClient, ScramServer};
use super::{CredentialStore, SaslClient, SaslServer, ScramCredential};
use crate::scram::ScramMechanism;

/// A SASL mechanism Strand implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mechanism {
    Plain,
    Scram(ScramMechanism),
    OAuthBearer,
}

impl Mechanism {
    pub const ALL: [Mechanism; 4] = [
        Mechanism::Plain,
        Mechanism::Scram(ScramMechanism::Sha256),
        Mechanism::Scram(ScramMechanism::Sha512),
        Mechanism::OAuthBearer,
    ];

    /// The IANA name, as SaslHandshake and `sasl.enabled.mechanisms` spell it.
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Plain => PLAIN,
            Mechanism::Scram(scram) => scram.name(),
            Mechanism::OAuthBearer => OAUTHBEARER,
        }
    }

    /// A mechanism by its exact name (Kafka's names are case-sensitive).
    pub fn from_name(name: &str) -> Result<Mechanism, MechanismError> {
        match Mechanism::ALL.into_iter().find(|mechanism| mechanism.name() == name) {
            Some(mechanism) => Ok(mechanism),
            None if name == "GSSAPI" => Err(MechanismError::Gssapi),
            None => Err(MechanismError::Unknown(name.to_owned())),
        }
    }
}

impl fmt::Display for Mechanism {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a listener's mechanisms were refused, or a handshake's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MechanismError {
    #[error(
        "SASL mechanism GSSAPI (Kerberos) is not supported by Strand; enable PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or \
         OAUTHBEARER instead"
    )]
    Gssapi,
    #[error(
        "SASL mechanism '{0}' is not supported by Strand; supported: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER"
    )]
    Unknown(String),
    #[error("sasl.enabled.mechanisms is empty on a SASL listener")]
    NoneEnabled,
    #[error("SASL mechanism {mechanism} is enabled but {missing}")]
    Missing { mechanism: &'static str, missing: &'static str },
    /// The node's own links cannot log in with this mechanism or JAAS entry.
    #[error("{0}")]
    Client(String),
    /// A handshake asked for a mechanism the listener does not enable: Kafka's
    /// `UnsupportedSaslMechanismException` text (error UNSUPPORTED_SASL_MECHANISM).
    #[error("Unsupported SASL mechanism {0}")]
    NotEnabled(String),
}

/// Checks a listener's `sasl.enabled.mechanisms` at start-up: every name must be one Strand
/// implements, and there must be one. Duplicates are dropped, order kept.
pub fn check_enabled_mechanisms<S: AsRef<str>>(names: &[S]) -> Result<Vec<Mechanism>, MechanismError> {
    let mut mechanisms: Vec<Mechanism> = Vec::new();
    for name in names.iter().map(|name| name.as_ref().trim()).filter(|name| !name.is_empty()) {
        let mechanism = Mechanism::from_name(name)?;
        if !mechanisms.contains(&mechanism) {
            mechanisms.push(mechanism);
        }
    }
    if mechanisms.is_empty() {
        return Err(MechanismError::NoneEnabled);
    }
    Ok(mechanisms)
}

/// What a listener's mechanisms need, built once from its config.
#[derive(Debug, Clone)]
pub struct SaslSettings {
    pub mechanisms: Vec<Mechanism>,
    /// PLAIN's users (its JAAS entry's `user_NAME` options).
    pub plain_users: Option<Arc<PlainUsers>>,
    /// SCRAM's credentials (the metadata image's `UserScramCredentialRecord`s).
    pub scram_credentials: Option<Arc<dyn CredentialStore>>,
    /// OAUTHBEARER's validator: Kafka's unsecured one or a JWK set's.
    pub token_validator: Option<Arc<dyn TokenValidator>>,
    pub clock: Arc<dyn Clock>,
}

/// Makes the [`SaslServer`] of each connection of one listener.
#[derive(Debug, Clone)]
pub struct SaslServerFactory {
    settings: SaslSettings,
}

impl SaslServerFactory {
    /// Checks that every enabled mechanism has what it needs.
    pub fn new(settings: SaslSettings) -> Result<SaslServerFactory, MechanismError> {
        if settings.mechanisms.is_empty() {
            return Err(MechanismError::NoneEnabled);
        }
        for mechanism in &settings.mechanisms {
            let missing = match mechanism {
                Mechanism::Plain if settings.plain_users.is_none() => {
                    Some("its sasl.jaas.config (PlainLoginModule with user_NAME options) is missing")
                }
                Mechanism::Scram(_) if settings.scram_credentials.is_none() => Some("no credential store is given"),
                Mechanism::OAuthBearer if settings.token_validator.is_none() => {
                    Some("no token validator is configured")
                }
                _ => None,
            };
            if let Some(missing) = missing {
                return Err(MechanismError::Missing { mechanism: mechanism.name(), missing });
            }
        }
        Ok(SaslServerFactory { settings })
    }

    /// The enabled mechanisms' names, in config order: SaslHandshake's `mechanisms`.
    pub fn enabled_names(&self) -> Vec<&'static str> {
        self.settings.mechanisms.iter().map(|mechanism| mechanism.name()).collect()
    }

    /// `user`'s current SCRAM credential for `mechanism` in the listener's store (none without
    /// SCRAM): a cache of checked passwords compares it with the one it checked against.
    pub fn scram_credential(&self, user: &str, mechanism: &str) -> Option<ScramCredential> {
        self.settings.scram_credentials.as_ref()?.scram_credential(user, mechanism)
    }

    /// A fresh server for a connection whose handshake asked for `name`.
    pub fn create(&self, name: &str) -> Result<Box<dyn SaslServer>, MechanismError> {
        let mechanism = self
            .settings
            .mechanisms
            .iter()
            .copied()
            .find(|mechanism| mechanism.name() == name)
            .ok_or_else(|| MechanismError::NotEnabled(name.to_owned()))?;
        let settings = &self.settings;
        let missing = |missing| MechanismError::Missing { mechanism: mechanism.name(), missing };
        Ok(match mechanism {
            Mechanism::Plain => {
                let users = settings.plain_users.clone().ok_or_else(|| missing("its users are missing"))?;
                Box::new(PlainServer::new(users))
            }
            Mechanism::Scram(scram) => {
                let store =
                    settings.scram_credentials.clone().ok_or_else(|| missing("no credential store is given"))?;
                Box::new(ScramServer::new(scram, store))
            }
            Mechanism::OAuthBearer => {
                let validator = settings.token_validator.clone().ok_or_else(|| missing("no token validator"))?;
                Box::new(OAuthBearerServer::new(validator, Arc::clone(&settings.clock)))
            }
        })
    }
}

/// The client the node's own links (`sasl.mechanism.inter.broker.protocol`,
/// `sasl.mechanism.controller.protocol`) log in with: the `username` and `password` options of
/// the listener's JAAS entry, as Kafka's `PlainLoginModule` and `ScramLoginModule` give them.
pub fn client_from_jaas(mechanism: Mechanism, entry: &JaasEntry) -> Result<Box<dyn SaslClient>, MechanismError> {
    let option = |name: &str| {
        entry.option(name).map(str::to_owned).ok_or_else(|| {
            MechanismError::Client(format!(
                "sasl.jaas.config for {mechanism} has no '{name}' option for this node's own login"
            ))
        })
    };
    match mechanism {
        Mechanism::Plain => Ok(Box::new(PlainClient::new(option("username")?, option("password")?))),
        Mechanism::Scram(scram) => Ok(Box::new(ScramClient::new(scram, option("username")?, option("password")?))),
        Mechanism::OAuthBearer => Err(MechanismError::Client(
            "OAUTHBEARER is not supported for this node's own links; use PLAIN or SCRAM between nodes".into(),
        )),
    }
}
