//! `strand storage format --add-scram`, as Kafka's `kafka-storage.sh format --add-scram`
//! (`ScramParser`): `MECHANISM=[name=NAME,password=PASSWORD]`, or with `iterations=N` (default
//! 4096, within 4096..=16384), `salt=BASE64`, or `saltedpassword=BASE64` (with `salt`) instead of
//! the password; a value may be quoted (`salt="c2FsdA=="`). Each becomes a
//! `UserScramCredentialRecord` holding the salt, StoredKey, ServerKey and iterations, never the
//! password. Errors carry Kafka's messages.

use std::collections::BTreeMap;

use anyhow::bail;
use strand_protocol::messages::UserScramCredentialRecord;
use strand_security::scram::ScramMechanism;

/// Kafka's default iteration count for `--add-scram`.
const ITERATIONS_DEFAULT: u32 = 4096;

/// The record for one `--add-scram` argument; `random_salt` draws a salt when none is given.
pub fn parse(
    argument: &str,
    random_salt: &mut dyn FnMut() -> anyhow::Result<Vec<u8>>,
) -> anyhow::Result<UserScramCredentialRecord> {
    let (mechanism, config) = split_mechanism(argument)?;
    let mut components = BTreeMap::new();
    for component in config.split(',') {
        let Some((key, value)) = component.split_once('=') else {
            bail!("No equals sign found in SCRAM component: {component}");
        };
        let value = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value);
        components.insert(key, value);
    }
    let Some(name) = components.remove("name") else { bail!("You must supply 'name' to add-scram") };
    let salt = match components.remove("salt") {
        Some(salt) => Some(base64_decode(salt).ok_or_else(|| anyhow::anyhow!("Failed to decode given salt: {salt}"))?),
        None => None,
    };
    let iterations = match components.remove("iterations") {
        Some(text) => text.parse::<i32>().map_err(|_| anyhow::anyhow!("Failed to parse iterations count: {text}"))?,
        None => ITERATIONS_DEFAULT as i32,
    };
    let secret = match (components.remove("password"), components.remove("saltedpassword")) {
        (Some(password), _) => Secret::Password(password),
        (None, None) => bail!("You must supply one of 'password' or 'saltedpassword' to add-scram"),
        (None, Some(_)) if salt.is_none() => bail!("You must supply 'salt' with 'saltedpassword' to add-scram"),
        (None, Some(salted)) => Secret::Salted(
            base64_decode(salted).ok_or_else(|| anyhow::anyhow!("Failed to decode given saltedPassword: {salted}"))?,
        ),
    };
    if !components.is_empty() {
        let unknown: Vec<&str> = components.keys().copied().collect();
        bail!("Unknown SCRAM configurations: {}", unknown.join(", "));
    }
    let salt = match salt {
        Some(salt) => salt,
        None => random_salt()?,
    };
    let enum_name = mechanism.name().replace('-', "_");
    if iterations < ScramMechanism::ITERATIONS_MIN as i32 {
        bail!("The 'iterations' value must be >= {} for add-scram using {enum_name}", ScramMechanism::ITERATIONS_MIN);
    }
    if iterations > ScramMechanism::ITERATIONS_MAX as i32 {
        bail!("The 'iterations' value must be <= {} for add-scram using {enum_name}", ScramMechanism::ITERATIONS_MAX);
    }
    let rounds = iterations.unsigned_abs();
    let credential = match secret {
        Secret::Password(password) => mechanism.credential_from_password(password, &salt, rounds),
        Secret::Salted(salted) => mechanism.credential(&salted, &salt, rounds),
    };
    Ok(UserScramCredentialRecord {
        name: name.to_owned(),
        mechanism: mechanism.id(),
        salt: credential.salt.into(),
        stored_key: credential.stored_key.into(),
        server_key: credential.server_key.into(),
        iterations,
        ..Default::default()
    })
}

/// A salt as Kafka's `ScramFormatter.secureRandomBytes` makes one: a random number below 2^130
/// written in base 36, as ASCII. `random` is 17 random bytes.
pub fn salt_from_random(mut random: [u8; 17]) -> Vec<u8> {
    random[0] &= 0x03;
    let mut digits = Vec::new();
    while random.iter().any(|&b| b != 0) {
        let mut remainder = 0u32;
        for byte in &mut random {
            let value = (remainder << 8) | u32::from(*byte);
            *byte = (value / 36) as u8;
            remainder = value % 36;
        }
        digits.push(b"0123456789abcdefghijklmnopqrstuvwxyz"[remainder as usize]);
    }
    if digits.is_empty() {
        digits.push(b'0');
    }
    digits.reverse();
    digits
}

enum Secret<'a> {
    Password(&'a str),
    Salted(Vec<u8>),
}

/// `MECHANISM=[CONFIG]` split into the mechanism and what is inside the brackets.
fn split_mechanism(argument: &str) -> anyhow::Result<(ScramMechanism, &str)> {
    let argument = argument.trim();
    let Some((name, config)) = argument.split_once('=') else {
        bail!("Failed to find equals sign in SCRAM argument '{argument}'");
    };
    let Some(mechanism) = ScramMechanism::from_name(name) else {
        bail!("The add-scram mechanism {name} is not supported.");
    };
    let Some(config) = config.strip_prefix('[') else { bail!("Expected configuration string to start with [") };
    let Some(config) = config.strip_suffix(']') else { bail!("Expected configuration string to end with ]") };
    Ok((mechanism, config))
}

/// RFC 4648 base64 as Java's `Base64.getDecoder()` reads it: the standard alphabet, padding
/// optional.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const JAVA: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    JAVA.decode(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed_salt() -> anyhow::Result<Vec<u8>> {
        Ok(b"fixed".to_vec())
    }

    fn check(argument: &str, expected: Result<(&str, i8, i32, &[u8]), &str>) {
        let actual = parse(argument, &mut fixed_salt)
            .map(|r| (r.name.clone(), r.mechanism, r.iterations, r.salt.to_vec()))
            .map_err(|e| e.to_string());
        let expected = expected.map(|(n, m, i, s)| (n.to_owned(), m, i, s.to_vec())).map_err(str::to_owned);
        assert_eq!(actual, expected, "{argument}");
    }

    /// Kafka 4.4's `kafka-storage format --add-scram` accepts and refuses the same arguments,
    /// with the same messages (run against Kafka 4.4.0's StorageTool).
    #[test]
    fn arguments_as_kafka_parses_them() {
        check("SCRAM-SHA-256=[name=alice,password=alice-secret]", Ok(("alice", 1, 4096, b"fixed")));
        check(
            "SCRAM-SHA-512=[name=bob,iterations=8192,salt=\"c2FsdA==\",saltedpassword=\"YWJj\"]",
            Ok(("bob", 2, 8192, b"salt")),
        );
        check("SCRAM-SHA-512=[name=a,password=x,iterations=16384,salt=c2FsdA]", Ok(("a", 2, 16384, b"salt")));
        let too_few = "The 'iterations' value must be >= 4096 for add-scram using SCRAM_SHA_256";
        check("SCRAM-SHA-256=[name=alice,password=x,iterations=100]", Err(too_few));
        let too_many = "The 'iterations' value must be <= 16384 for add-scram using SCRAM_SHA_256";
        check("SCRAM-SHA-256=[name=alice,password=x,iterations=20000]", Err(too_many));
        check("SCRAM-SHA-1=[name=a,password=b]", Err("The add-scram mechanism SCRAM-SHA-1 is not supported."));
        check("SCRAM-SHA-256=[password=b]", Err("You must supply 'name' to add-scram"));
        check("SCRAM-SHA-256=[name=a]", Err("You must supply one of 'password' or 'saltedpassword' to add-scram"));
        check(
            "SCRAM-SHA-256=[name=a,saltedpassword=abc]",
            Err("You must supply 'salt' with 'saltedpassword' to add-scram"),
        );
        check("SCRAM-SHA-256=[name=a,password=b,foo=1]", Err("Unknown SCRAM configurations: foo"));
        check("SCRAM-SHA-256=name=a", Err("Expected configuration string to start with ["));
        check("SCRAM-SHA-256=[name=a", Err("Expected configuration string to end with ]"));
        check("SCRAM-SHA-256", Err("Failed to find equals sign in SCRAM argument 'SCRAM-SHA-256'"));
        check("SCRAM-SHA-256=[name=a,password=b,iterations=x]", Err("Failed to parse iterations count: x"));
        check("SCRAM-SHA-256=[name=a,password=b,salt=%%%]", Err("Failed to decode given salt: %%%"));
        check("SCRAM-SHA-256=[name=a,foo]", Err("No equals sign found in SCRAM component: foo"));
    }

    /// The record's keys are the password's (or the salted password's), never the secret itself.
    #[test]
    fn records_hold_derived_keys() {
        let record = parse("SCRAM-SHA-256=[name=alice,password=alice-secret]", &mut fixed_salt).expect("parse");
        let expected = ScramMechanism::Sha256.credential_from_password("alice-secret", b"fixed", 4096);
        assert_eq!(record.stored_key.as_ref(), expected.stored_key.as_slice());
        assert_eq!(record.server_key.as_ref(), expected.server_key.as_slice());
        let salted = parse("SCRAM-SHA-512=[name=b,salt=c2FsdA==,saltedpassword=YWJj]", &mut fixed_salt).expect("parse");
        assert_eq!(salted.stored_key.as_ref(), ScramMechanism::Sha512.credential(b"abc", b"salt", 4096).stored_key);
    }

    /// Salts look like Kafka's: base 36 digits of a number below 2^130.
    #[test]
    fn salts_are_base_36_below_2_pow_130() {
        assert_eq!(salt_from_random([0; 17]), b"0");
        assert_eq!(salt_from_random([0xff; 17]), b"1omfro7zwmumr3umxudzyj6scf", "2^130 - 1");
        assert_eq!(base64_decode("YWJj"), Some(b"abc".to_vec()));
        assert_eq!(base64_decode("YQ"), Some(b"a".to_vec()));
        assert_eq!(base64_decode("Y"), None);
    }
}
