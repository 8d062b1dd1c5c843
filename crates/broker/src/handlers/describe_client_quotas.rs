//! DescribeClientQuotas (KIP-546), answered from this node's image as Kafka's
//! `ClientQuotasImage.describe` answers it: the filter checked, then every entity it matches
//! (exact names, `<default>` as a null name, or merely the type's presence; under `strict` no
//! other type) with its quotas, entities in order. It needs DESCRIBE_CONFIGS on the cluster
//! (else CLUSTER_AUTHORIZATION_FAILED).

use strand_metadata::image::ClientQuotaFilter;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::describe_client_quotas_request::ComponentData;
use strand_protocol::messages::describe_client_quotas_response::{EntityData, EntryData, ValueData};
use strand_protocol::messages::{DescribeClientQuotasRequest, DescribeClientQuotasResponse};

use strand_security::Session;
use strand_security::acl::AclOperation;

use crate::Broker;

/// Kafka's `ClientQuotaFilterComponent` match types.
const MATCH_TYPE_EXACT: i8 = 0;
const MATCH_TYPE_DEFAULT: i8 = 1;
const MATCH_TYPE_SPECIFIED: i8 = 2;
/// Kafka's `ClientQuotaEntity` types.
const ENTITY_TYPES: [&str; 3] = ["user", "client-id", "ip"];

pub fn handle(
    broker: &Broker,
    request: &DescribeClientQuotasRequest,
    session: &Session,
) -> DescribeClientQuotasResponse {
    if !broker.authorize_cluster(session, AclOperation::DescribeConfigs) {
        let code = ErrorCode::ClusterAuthorizationFailed;
        return DescribeClientQuotasResponse {
            error_code: code.code(),
            error_message: Some(code.message().to_owned()),
            entries: None,
            ..Default::default()
        };
    }
    match check_filter(&request.components) {
        Ok(()) => {
            let filter = filter(request);
            let image = broker.image();
            let entries =
                image.client_quotas().describe(&filter).map(|(entity, quotas)| entry(entity, quotas)).collect();
            DescribeClientQuotasResponse { entries: Some(entries), ..Default::default() }
        }
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

/// The checked filter as the image matches it.
fn filter(request: &DescribeClientQuotasRequest) -> ClientQuotaFilter {
    let mut filter = ClientQuotaFilter { strict: request.strict, ..Default::default() };
    for component in &request.components {
        let kind = component.entity_type.clone();
        match component.match_type {
            MATCH_TYPE_EXACT => {
                filter.exact.insert(kind, component.r#match.clone());
            }
            MATCH_TYPE_DEFAULT => {
                filter.exact.insert(kind, None);
            }
            _ => filter.specified.push(kind),
        }
    }
    filter
}

fn entry(
    entity: &strand_metadata::image::ClientQuotaEntity,
    quotas: &std::collections::BTreeMap<String, f64>,
) -> EntryData {
    EntryData {
        entity: entity
            .parts()
            .map(|(kind, name)| EntityData {
                entity_type: kind.to_owned(),
                entity_name: name.map(str::to_owned),
                ..Default::default()
            })
            .collect(),
        values: quotas
            .iter()
            .map(|(key, value)| ValueData { key: key.clone(), value: *value, ..Default::default() })
            .collect(),
        ..Default::default()
    }
}
