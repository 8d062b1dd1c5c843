//! Request dispatch: a frame in, a frame (or nothing, or a closed connection) out.
//!
//! [`Broker::handle`] reads the request header, refuses what this node does not serve (the
//! ApiVersions v0 fallback of KIP-511 for an ApiVersions version it does not know; a closed
//! connection with a log line for anything else it cannot read), decodes the body and hands it to
//! the API's handler in [`handlers`], one file per API, each thin: validate, call a domain crate,
//! build the response.
//!
//! What it is not: it opens no sockets and runs no runtime (the server crate does both), and it
//! holds no state of its own beyond what its handlers need to reach the log and the metadata.

pub mod handlers;
pub mod validation;

use bytes::Bytes;
use strand_base::BrokerId;
use strand_protocol::frame::{
    RequestError, api_versions_fallback, decode_request_body, encode_response, parse_request,
};
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};

/// What the connection does with a request's outcome.
#[derive(Debug)]
pub enum Outcome {
    /// Send this frame (size prefix included).
    Respond(Bytes),
    /// Send nothing (Produce with `acks=0`).
    NoResponse,
    /// Close the connection, logging why.
    Close(String),
}

/// A finalized feature and its level, as ApiVersions reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeatureLevel {
    pub name: String,
    pub level: i16,
}

/// The node's identity and what it reports about itself.
#[derive(Debug, Clone)]
pub struct BrokerIdentity {
    pub node_id: BrokerId,
    pub cluster_id: String,
}

/// The request handlers of one node.
#[derive(Debug)]
pub struct Broker {
    identity: BrokerIdentity,
    finalized_features: Vec<FeatureLevel>,
    finalized_features_epoch: i64,
}

impl Broker {
    pub fn new(identity: BrokerIdentity, finalized_features: Vec<FeatureLevel>, finalized_features_epoch: i64) -> Self {
        Broker { identity, finalized_features, finalized_features_epoch }
    }

    pub fn identity(&self) -> &BrokerIdentity {
        &self.identity
    }

    /// Handles one request frame (without its size prefix).
    pub async fn handle(&self, frame: Bytes) -> Outcome {
        let request = match parse_request(frame) {
            Ok(request) => request,
            Err(RequestError::UnsupportedVersion { api: ApiKey::ApiVersions, correlation_id, .. }) => {
                return respond(api_versions_fallback(correlation_id, handlers::api_versions::served_versions()));
            }
            Err(e) => return Outcome::Close(e.to_string()),
        };
        if !handlers::SERVED.contains(&request.api_key) {
            return Outcome::Close(format!("{:?} is not served by this node", request.api_key));
        }
        let body = match decode_request_body(&request) {
            Ok(body) => body,
            Err(e) => return Outcome::Close(e.to_string()),
        };
        let version = request.api_version();
        let response: Option<ResponseBody> = match body {
            RequestBody::ApiVersions(r) => Some(ResponseBody::ApiVersions(handlers::api_versions::handle(self, &r))),
            other => return Outcome::Close(format!("{:?} has no handler", other.api_key())),
        };
        match response {
            Some(body) => respond(encode_response(request.correlation_id(), &body, version)),
            None => Outcome::NoResponse,
        }
    }
}

fn respond(frame: Result<Bytes, strand_protocol::EncodeError>) -> Outcome {
    match frame {
        Ok(frame) => Outcome::Respond(frame),
        Err(e) => Outcome::Close(format!("could not encode the response: {e}")),
    }
}
