//! Kafka's `KafkaPrincipal`: a type and a name, written `Type:name`.

use std::fmt;

/// Who a connection authenticated as. Kafka's principal type is `User` for every built-in
/// authentication; the name is the SASL user, the mapped certificate name, or `ANONYMOUS`.
///
/// `token_authenticated` marks a session that authenticated with a delegation token (KIP-48):
/// such a session may not create or renew tokens. As in Kafka's `KafkaPrincipal.equals`, it
/// plays no part in equality, ordering or hashing: a token's owner is the same principal to
/// the authorizer whichever way it authenticated.
#[derive(Debug, Clone)]
pub struct KafkaPrincipal {
    pub principal_type: String,
    pub name: String,
    pub token_authenticated: bool,
}

impl PartialEq for KafkaPrincipal {
    fn eq(&self, other: &KafkaPrincipal) -> bool {
        self.principal_type == other.principal_type && self.name == other.name
    }
}

impl Eq for KafkaPrincipal {}

impl std::hash::Hash for KafkaPrincipal {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.principal_type.hash(state);
        self.name.hash(state);
    }
}

impl PartialOrd for KafkaPrincipal {
    fn partial_cmp(&self, other: &KafkaPrincipal) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for KafkaPrincipal {
    fn cmp(&self, other: &KafkaPrincipal) -> std::cmp::Ordering {
        (&self.principal_type, &self.name).cmp(&(&other.principal_type, &other.name))
    }
}

impl KafkaPrincipal {
    /// Kafka's `KafkaPrincipal.USER_TYPE`.
    pub const USER_TYPE: &'static str = "User";

    /// `Type:name`, authenticated other than by a delegation token.
    pub fn new(principal_type: impl Into<String>, name: impl Into<String>) -> KafkaPrincipal {
        KafkaPrincipal { principal_type: principal_type.into(), name: name.into(), token_authenticated: false }
    }

    /// `User:name`.
    pub fn user(name: impl Into<String>) -> KafkaPrincipal {
        KafkaPrincipal::new(KafkaPrincipal::USER_TYPE, name)
    }

    /// `User:ANONYMOUS`, the principal of every PLAINTEXT connection and of an SSL connection
    /// whose client sent no certificate.
    pub fn anonymous() -> KafkaPrincipal {
        KafkaPrincipal::user("ANONYMOUS")
    }

    /// Parses `Type:name` (`super.users` entries), splitting at the first colon as Kafka's
    /// `SecurityUtils.parseKafkaPrincipal` does.
    pub fn parse(text: &str) -> Option<KafkaPrincipal> {
        let (principal_type, name) = text.trim().split_once(':')?;
        (!principal_type.is_empty() && !name.is_empty()).then(|| KafkaPrincipal::new(principal_type, name))
    }
}

impl fmt::Display for KafkaPrincipal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.principal_type, self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn principals_parse_at_the_first_colon() {
        assert_eq!(KafkaPrincipal::parse("User:alice"), Some(KafkaPrincipal::user("alice")));
        let dn = KafkaPrincipal::parse("User:CN=a:b,O=c").map(|p| p.name);
        assert_eq!(dn.as_deref(), Some("CN=a:b,O=c"));
        assert_eq!(KafkaPrincipal::parse("alice"), None);
        assert_eq!(KafkaPrincipal::parse("User:"), None);
        assert_eq!(KafkaPrincipal::anonymous().to_string(), "User:ANONYMOUS");
    }
}
