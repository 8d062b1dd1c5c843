//! Confluent's error JSON, `{"error_code": ..., "message": ...}`, and its mapping of Kafka's
//! errors to an HTTP status and an error code, as Confluent's REST Proxy maps the client
//! exceptions (its `KafkaExceptionMapper`): authentication 401/40101, authorization 403/40301,
//! an unknown topic or partition 404/40403, bad requests (an existing topic, a bad replication
//! factor, partitions, config or request, a policy, an unsupported version, an unknown server
//! error) 400/40002, a broker not available 503/50302, other retriable errors 500/50003, and any
//! other Kafka error 500/50002. The gateway's own refusals use the HTTP status as the code, as
//! Confluent's do (404 for an unknown cluster, 400 for a body it cannot read, ...).

use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use strand_protocol::error::ErrorCode;

/// A refused request, as Confluent answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestError {
    pub status: StatusCode,
    pub error_code: u32,
    pub message: String,
}

impl RestError {
    pub fn new(status: StatusCode, error_code: u32, message: impl Into<String>) -> RestError {
        RestError { status, error_code, message: message.into() }
    }

    /// A 404 of the gateway's own (an unknown cluster, broker, partition or group).
    pub fn not_found(message: impl Into<String>) -> RestError {
        RestError::new(StatusCode::NOT_FOUND, 404, message)
    }

    /// A request body or parameter the gateway cannot use.
    pub fn bad_request(message: impl Into<String>) -> RestError {
        RestError::new(StatusCode::BAD_REQUEST, 400, message)
    }

    pub fn internal(message: impl Into<String>) -> RestError {
        RestError::new(StatusCode::INTERNAL_SERVER_ERROR, 500, message)
    }

    /// Credentials missing or refused: 401 with Confluent's 40101 (answered with the
    /// `WWW-Authenticate` challenges).
    pub fn unauthenticated(message: impl Into<String>) -> RestError {
        RestError::new(StatusCode::UNAUTHORIZED, 40101, message)
    }

    /// Every credential check slot is taken (an unauthenticated flood, or a burst of new
    /// callers): 429 Too Many Requests (RFC 6585), as Confluent's REST Proxy answers its own rate
    /// limit, rather than 503: the node serves, this caller is to retry later.
    pub fn busy(message: impl Into<String>) -> RestError {
        RestError::new(StatusCode::TOO_MANY_REQUESTS, 429, message)
    }

    /// The node does not serve requests (starting or stopping).
    pub fn not_serving() -> RestError {
        RestError::new(StatusCode::SERVICE_UNAVAILABLE, 50302, "The broker is not serving requests yet")
    }

    /// Kafka's error `code` with the broker's message (or Kafka's default one), mapped as
    /// Confluent maps it; `None` for success.
    pub fn kafka(code: i16, message: Option<&str>) -> Option<RestError> {
        if code == 0 {
            return None;
        }
        let known = ErrorCode::from_code(code);
        let message = message
            .filter(|m| !m.is_empty())
            .map(str::to_owned)
            .unwrap_or_else(|| known.map_or_else(|| format!("Kafka error {code}"), |k| k.message().to_owned()));
        let (status, error_code) = match known {
            Some(k) => status_of(k),
            None => (StatusCode::INTERNAL_SERVER_ERROR, 50002),
        };
        Some(RestError { status, error_code, message })
    }

    /// The error as one JSON object, for a streamed produce's delivery reports.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({ "error_code": self.error_code, "message": self.message })
    }
}

/// `Ok(())` for success, else the mapped error.
pub fn check(code: i16, message: Option<&str>) -> Result<(), RestError> {
    RestError::kafka(code, message).map_or(Ok(()), Err)
}

fn status_of(code: ErrorCode) -> (StatusCode, u32) {
    use ErrorCode as E;
    match code {
        E::SaslAuthenticationFailed | E::IllegalSaslState | E::UnsupportedSaslMechanism => {
            (StatusCode::UNAUTHORIZED, 40101)
        }
        E::TopicAuthorizationFailed
        | E::GroupAuthorizationFailed
        | E::ClusterAuthorizationFailed
        | E::TransactionalIdAuthorizationFailed
        | E::DelegationTokenAuthorizationFailed => (StatusCode::FORBIDDEN, 40301),
        E::BrokerNotAvailable => (StatusCode::SERVICE_UNAVAILABLE, 50302),
        E::UnknownTopicOrPartition => (StatusCode::NOT_FOUND, 40403),
        E::InvalidReplicationFactor
        | E::SecurityDisabled
        | E::UnsupportedVersion
        | E::InvalidPartitions
        | E::InvalidRequest
        | E::UnknownServerError
        | E::PolicyViolation
        | E::TopicAlreadyExists
        | E::InvalidConfig => (StatusCode::BAD_REQUEST, 40002),
        other if other.is_retriable() => (StatusCode::INTERNAL_SERVER_ERROR, 50003),
        _ => (StatusCode::INTERNAL_SERVER_ERROR, 50002),
    }
}

impl IntoResponse for RestError {
    fn into_response(self) -> Response {
        let body = self.to_json().to_string();
        let mut response = (self.status, [(CONTENT_TYPE, "application/json")], body).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            crate::auth::challenge(response.headers_mut());
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka's errors land on Confluent's statuses and codes.
    #[test]
    fn kafka_errors_map_as_confluent_maps_them() {
        let mapped = |code: ErrorCode| RestError::kafka(code as i16, None).map(|e| (e.status.as_u16(), e.error_code));
        assert_eq!(mapped(ErrorCode::None), None);
        assert_eq!(mapped(ErrorCode::UnknownTopicOrPartition), Some((404, 40403)));
        assert_eq!(mapped(ErrorCode::TopicAlreadyExists), Some((400, 40002)));
        assert_eq!(mapped(ErrorCode::InvalidReplicationFactor), Some((400, 40002)));
        assert_eq!(mapped(ErrorCode::TopicAuthorizationFailed), Some((403, 40301)));
        assert_eq!(mapped(ErrorCode::SaslAuthenticationFailed), Some((401, 40101)));
        assert_eq!(mapped(ErrorCode::BrokerNotAvailable), Some((503, 50302)));
        assert_eq!(mapped(ErrorCode::NotLeaderOrFollower), Some((500, 50003)));
        assert_eq!(mapped(ErrorCode::InvalidTopicException), Some((500, 50002)));
        let message = RestError::kafka(ErrorCode::UnknownTopicOrPartition as i16, None).map(|e| e.message);
        assert_eq!(message.as_deref(), Some("This server does not host this topic-partition."));
    }
}
