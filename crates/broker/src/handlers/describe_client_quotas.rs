//! DescribeClientQuotas: the filter checked as Kafka's `ClientQuotasImage.describe` checks it,
//! and no entries, since Strand keeps no client quotas (AlterClientQuotas is not served, and
//! `ClientQuotaRecord`s are not pictured in the image). Served because Kafka's `kafka-configs
//! --describe --entity-type users` asks it before it describes users' SCRAM credentials.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::describe_client_quotas_request::ComponentData;
use strand_protocol::messages::{DescribeClientQuotasRequest, DescribeClientQuotasResponse};

/// Kafka's `ClientQuotaFilterComponent` match types.
const MATCH_TYPE_EXACT: i8 = 0;
const MATCH_TYPE_DEFAULT: i8 = 1;
const MATCH_TYPE_SPECIFIED: i8 = 2;
/// Kafka's `ClientQuotaEntity` types.
const ENTITY_TYPES: [&str; 3] = ["user", "client-id", "ip"];

pub fn handle(request: &DescribeClientQuotasRequest) -> DescribeClientQuotasResponse {
    match check_filter(&request.components) {
        Ok(()) => DescribeClientQuotasResponse { entries: Some(Vec::new()), ..Default::default() },
        Err((code, message)) => DescribeClientQuotasResponse {
            error_code: code.code(),
            error_message: Some(message),
            entries: None,
            ..Default::default()
        },
    }
}

/// The filter's rules: each entity type known and named once, a match string exactly when the
/// match type is EXACT, and `ip` never beside `user` or `client-id`.
fn check_filter(components: &[ComponentData]) -> Result<(), (ErrorCode, String)> {
    let invalid = |message: String| Err((ErrorCode::InvalidRequest, message));
    let mut seen: Vec<&str> = Vec::new();
    for component in components {
        let kind = component.entity_type.as_str();
        if kind.is_empty() {
            return invalid("Invalid empty entity type.".to_owned());
        }
        if seen.contains(&kind) {
            return invalid(format!("Entity type {kind} cannot appear more than once in the filter."));
        }
        if !ENTITY_TYPES.contains(&kind) {
            return Err((ErrorCode::UnsupportedVersion, format!("Unsupported entity type {kind}")));
        }
        match (component.match_type, component.r#match.is_some()) {
            (MATCH_TYPE_EXACT, false) => {
                return invalid("Request specified MATCH_TYPE_EXACT, but set match string to null.".to_owned());
            }
            (MATCH_TYPE_DEFAULT, true) => {
                return invalid("Request specified MATCH_TYPE_DEFAULT, but also specified a match string.".to_owned());
            }
            (MATCH_TYPE_SPECIFIED, true) => {
                return invalid(
                    "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.".to_owned(),
                );
            }
            (MATCH_TYPE_EXACT | MATCH_TYPE_DEFAULT | MATCH_TYPE_SPECIFIED, _) => {}
            (other, _) => return invalid(format!("Unknown match type {other}")),
        }
        seen.push(kind);
    }
    if seen.contains(&"ip") && (seen.contains(&"user") || seen.contains(&"client-id")) {
        return invalid(
            "Invalid entity filter component combination. IP filter component should not be used with user or \
             clientId filter component."
                .to_owned(),
        );
    }
    Ok(())
}
