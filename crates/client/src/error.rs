//! [`ClientError`]: why a call brought no answer, worded as Kafka's client exceptions are where a
//! tool prints them.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::ApiKey;

/// Why a call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    /// A client property is missing, malformed or not supported.
    #[error("{0}")]
    Config(String),
    /// No connection to `address` (refused, unreachable, TLS failed).
    #[error("cannot connect to {address}: {reason}")]
    Connect { address: String, reason: String },
    /// The connection failed midway or the answer made no sense.
    #[error("connection to {address} failed: {reason}")]
    Io { address: String, reason: String },
    /// The SASL login was refused: a configuration to fix, never retried.
    #[error("{0}")]
    Authentication(String),
    /// The node serves no version of the API that this client speaks.
    #[error("The node does not support {0:?}")]
    UnsupportedVersion(ApiKey),
    /// The call did not finish within `default.api.timeout.ms`, retries included.
    #[error("Timed out waiting for a node assignment. Call: {0}")]
    Timeout(String),
    /// The cluster answered with an error: Kafka's exception message (the broker's, or the
    /// code's default).
    #[error("{message}")]
    Server { code: i16, message: String },
}

impl ClientError {
    /// The error a response's `error_code` and `error_message` make, or `None` for success.
    pub fn from_response(code: i16, message: Option<&str>) -> Option<ClientError> {
        if code == 0 {
            return None;
        }
        let message = match (message, ErrorCode::from_code(code)) {
            (Some(message), _) if !message.is_empty() => message.to_owned(),
            (_, Some(known)) => known.message().to_owned(),
            (_, None) => format!("Unknown error code {code}"),
        };
        Some(ClientError::Server { code, message })
    }

    /// Whether the same call may succeed if tried again (Kafka's `RetriableException`, and a
    /// connection that failed).
    pub fn is_retriable(&self) -> bool {
        match self {
            ClientError::Connect { .. } | ClientError::Io { .. } => true,
            ClientError::Server { code, .. } => ErrorCode::from_code(*code).is_some_and(ErrorCode::is_retriable),
            _ => false,
        }
    }

    /// The Kafka error code, for a server's answer.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            ClientError::Server { code, .. } => ErrorCode::from_code(*code),
            _ => None,
        }
    }
}
