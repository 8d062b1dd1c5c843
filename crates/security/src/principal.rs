//! Kafka's `KafkaPrincipal`: a type and a name, written `Type:name`.

use std::fmt;

/// Who a connection authenticated as. Kafka's principal type is `User` for every built-in
/// authentication; the name is the SASL user, the mapped certificate name, or `ANONYMOUS`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KafkaPrincipal {
    pub principal_type: String,
    pub name: String,
}

impl KafkaPrincipal {
    /// Kafka's `KafkaPrincipal.USER_TYPE`.
    pub const USER_TYPE: &'static str = "User";

    /// `User:name`.
    pub fn user(name: impl Into<String>) -> KafkaPrincipal {
        KafkaPrincipal { principal_type: KafkaPrincipal::USER_TYPE.to_owned(), name: name.into() }
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
        (!principal_type.is_empty() && !name.is_empty())
            .then(|| KafkaPrincipal { principal_type: principal_type.to_owned(), name: name.to_owned() })
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
