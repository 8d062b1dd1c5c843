//! Kafka's default OAUTHBEARER validator, `OAuthBearerUnsecuredValidatorCallbackHandler` over
//! `OAuthBearerUnsecuredJws`: unsigned tokens (`alg: none`, empty signature), for development
//! and tests only, as Kafka's docs warn. Options come from the `OAuthBearerLoginModule` JAAS
//! entry: `unsecuredValidatorPrincipalClaimName` (default `sub`),
//! `unsecuredValidatorScopeClaimName` (default `scope`), `unsecuredValidatorRequiredScope`
//! (space-separated) and `unsecuredValidatorAllowableClockSkewMs` (default 0).

use std::collections::BTreeSet;

use base64::Engine;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde_json::{Map, Value};

use super::{TokenRefusal, TokenValidator, ValidatedToken};
use crate::sasl::jaas::JaasEntry;

/// Base64url with or without padding, as JWS sections come.
const BASE64_URL: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Kafka's unsecured validator with its options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsecuredValidator {
    pub principal_claim_name: String,
    pub scope_claim_name: String,
    pub required_scope: Vec<String>,
    pub allowable_clock_skew_ms: i64,
}

impl Default for UnsecuredValidator {
    fn default() -> UnsecuredValidator {
        UnsecuredValidator {
            principal_claim_name: "sub".into(),
            scope_claim_name: "scope".into(),
            required_scope: Vec::new(),
            allowable_clock_skew_ms: 0,
        }
    }
}

impl UnsecuredValidator {
    /// The validator of a listener's OAUTHBEARER JAAS entry; a bad clock skew is refused with
    /// Kafka's `OAuthBearerConfigException` text.
    pub fn from_jaas(entry: &JaasEntry) -> Result<UnsecuredValidator, String> {
        let option = |name: &str| entry.option(name).map(str::trim).filter(|value| !value.is_empty());
        let mut validator = UnsecuredValidator::default();
        if let Some(name) = option("unsecuredValidatorPrincipalClaimName") {
            validator.principal_claim_name = name.to_owned();
        }
        if let Some(name) = option("unsecuredValidatorScopeClaimName") {
            validator.scope_claim_name = name.to_owned();
        }
        if let Some(scope) = option("unsecuredValidatorRequiredScope") {
            validator.required_scope = scope.split(' ').filter(|s| !s.is_empty()).map(str::to_owned).collect();
        }
        if let Some(skew) = option("unsecuredValidatorAllowableClockSkewMs") {
            let skew_ms: i32 = skew.parse().map_err(|_| format!("For input string: \"{skew}\""))?;
            if skew_ms < 0 {
                return Err(format!("Allowable clock skew millis must not be negative: {skew}"));
            }
            validator.allowable_clock_skew_ms = i64::from(skew_ms);
        }
        Ok(validator)
    }
}

impl TokenValidator for UnsecuredValidator {
    fn validate(&self, token: &str, now_ms: i64) -> Result<ValidatedToken, TokenRefusal> {
        let jws = UnsecuredJws::parse(token, &self.principal_claim_name, &self.scope_claim_name)?;
        let skew = self.allowable_clock_skew_ms;
        if let Some(issued_at) = jws.start_time_ms
            && issued_at > now_ms.saturating_add(skew)
        {
            return Err(TokenRefusal::invalid(format!(
                "The Issued At value ({issued_at} ms) was after the indicated time ({now_ms} ms) plus allowable clock \
                 skew ({skew} ms)"
            )));
        }
        if now_ms.saturating_sub(skew) >= jws.lifetime_ms {
            return Err(TokenRefusal::invalid(format!(
                "The indicated time ({now_ms} ms) minus allowable clock skew ({skew} ms) was on or after the \
                 Expiration Time value ({} ms)",
                jws.lifetime_ms
            )));
        }
        if let Some(issued_at) = jws.start_time_ms
            && jws.lifetime_ms <= issued_at
        {
            return Err(TokenRefusal::invalid(format!(
                "The Expiration Time time ({} ms) was not after the Issued At time ({issued_at} ms)",
                jws.lifetime_ms
            )));
        }
        if let Some(missing) = self.required_scope.iter().find(|scope| !jws.scope.contains(*scope)) {
            let required = format!("[{}]", self.required_scope.join(", "));
            return Err(TokenRefusal {
                status: "insufficient_scope",
                detail: format!(
                    "The provided scope ({:?}) was missing a required scope ({missing}).  All required scope \
                     elements: {required}",
                    jws.scope
                ),
                scope: Some(required),
            });
        }
        Ok(ValidatedToken {
            principal_name: jws.principal_name,
            scope: jws.scope,
            lifetime_ms: jws.lifetime_ms,
            start_time_ms: jws.start_time_ms,
        })
    }
}

/// What `OAuthBearerUnsecuredJws` reads from a token.
struct UnsecuredJws {
    principal_name: String,
    scope: BTreeSet<String>,
    lifetime_ms: i64,
    start_time_ms: Option<i64>,
}

impl UnsecuredJws {
    fn parse(token: &str, principal_claim: &str, scope_claim: &str) -> Result<UnsecuredJws, TokenRefusal> {
        if token.contains("..") {
            return Err(TokenRefusal::invalid("Malformed compact serialization contains '..'"));
        }
        let splits: Vec<&str> = token.split('.').collect();
        if splits.len() != 3 {
            return Err(TokenRefusal::invalid(
                "Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values",
            ));
        }
        let header = json_object(splits[0])?;
        let claims = json_object(splits[1])?;
        match header.get("alg") {
            None | Some(Value::Null) => return Err(TokenRefusal::invalid("JWS header must have an Algorithm value")),
            Some(Value::String(alg)) if alg == "none" => {}
            Some(_) => return Err(TokenRefusal::invalid("Unsecured JWS must have 'none' for an algorithm")),
        }
        if !splits[2].is_empty() {
            return Err(TokenRefusal::invalid("Unsecured JWS must not contain a digital signature"));
        }
        let scope = scope(&claims, scope_claim)?;
        let Some(expiration) = number_claim(&claims, "exp")? else {
            return Err(TokenRefusal::invalid("No expiration time in JWT"));
        };
        let principal_name = match claims.get(principal_claim) {
            None | Some(Value::Null) => None,
            Some(Value::String(name)) => Some(name.clone()),
            Some(other) => return Err(wrong_type(principal_claim, "String", other)),
        };
        let Some(principal_name) = principal_name.filter(|name| !name.trim().is_empty()) else {
            return Err(TokenRefusal::invalid(format!("No principal name in JWT claim: {principal_claim}")));
        };
        let start_time_ms = number_claim(&claims, "iat")?.map(seconds_to_ms);
        Ok(UnsecuredJws { principal_name, scope, lifetime_ms: seconds_to_ms(expiration), start_time_ms })
    }
}

fn json_object(section: &str) -> Result<Map<String, Value>, TokenRefusal> {
    let bytes = BASE64_URL.decode(section).map_err(|_| TokenRefusal::invalid("malformed Base64 URL encoded value"))?;
    match serde_json::from_slice(&bytes) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(TokenRefusal::invalid("malformed JSON")),
    }
}

fn wrong_type(claim: &str, expected: &str, value: &Value) -> TokenRefusal {
    let actual = match value {
        Value::Bool(_) => "Boolean",
        Value::Number(_) => "Number",
        Value::String(_) => "String",
        Value::Array(_) => "List",
        Value::Object(_) | Value::Null => "Object",
    };
    TokenRefusal::invalid(format!("The '{claim}' claim was not of type {expected}: {actual}"))
}

fn number_claim(claims: &Map<String, Value>, name: &str) -> Result<Option<f64>, TokenRefusal> {
    match claims.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(number)) => Ok(number.as_f64()),
        Some(other) => Err(wrong_type(name, "Number", other)),
    }
}

/// Kafka's `Math.round(seconds * 1000)`, saturating.
fn seconds_to_ms(seconds: f64) -> i64 {
    (seconds * 1000.0).round() as i64
}

/// A string scope claim is one scope; a list claim is its non-blank elements, trimmed.
fn scope(claims: &Map<String, Value>, name: &str) -> Result<BTreeSet<String>, TokenRefusal> {
    match claims.get(name) {
        None | Some(Value::Null) => Ok(BTreeSet::new()),
        Some(Value::String(scope)) if scope.trim().is_empty() => Ok(BTreeSet::new()),
        Some(Value::String(scope)) => Ok(BTreeSet::from([scope.trim().to_owned()])),
        Some(Value::Array(items)) => Ok(items
            .iter()
            .map(|item| match item {
                Value::String(text) => text.trim().to_owned(),
                other => other.to_string(),
            })
            .filter(|scope| !scope.is_empty())
            .collect()),
        Some(other) => Err(wrong_type(name, "List", other)),
    }
}
