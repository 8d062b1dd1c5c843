//! The REST gateway: Confluent REST Proxy's v3 API under `/v3/clusters` (design §10), so HTTP
//! clients written for it work unchanged. It never bypasses the broker: each route builds the
//! Kafka requests an admin client or producer would send (Metadata, DescribeCluster,
//! CreateTopics, DeleteTopics, DescribeConfigs, IncrementalAlterConfigs, ListGroups,
//! DescribeGroups, FindCoordinator, OffsetFetch, ListOffsets, Produce), hands each to the node's
//! [`Broker::handle`] as a frame, exactly as a connection does, and turns the answer into
//! Confluent's JSON. Authorization, validation and quotas are therefore the Kafka listeners'.
//!
//! Map: `mod.rs` ([`Gateway`], the per-request [`Ctx`] and its Kafka calls), `error.rs`
//! (Confluent's error JSON and its mapping of Kafka's errors), `json.rs` (resource shapes, links,
//! timestamps), `clusters.rs` (clusters, brokers, broker configs), `topics.rs` (topics,
//! partitions, replicas), `configs.rs` (topic configs), `groups.rs` (consumer groups, consumers,
//! lags), `produce.rs` (records, streaming mode), `routes.rs` (the route table).
//!
//! Who the caller is: the principal its `Authorization` header proves ([`crate::auth`]: Basic
//! against the node's PLAIN and SCRAM users, Bearer as an OAUTHBEARER token), acting on the
//! node's authenticating broker listener; without credentials `User:ANONYMOUS` on the first
//! PLAINTEXT broker listener when `http.anonymous.allowed`, else 401 (error code 40101): the
//! gateway is never an unauthenticated way around the Kafka listeners' authentication.

mod clusters;
mod configs;
mod error;
mod groups;
mod json;
mod produce;
mod routes;
mod topics;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

use axum::http::HeaderMap;
use axum::http::header::HOST;
use bytes::Bytes;
use strand_base::{Clock, SystemClock};
use strand_broker::{BoxFuture, Broker, Handled, Outcome};
use strand_protocol::frame::{decode_response, encode_request};
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_security::Session;

use crate::auth::HttpAccess;

pub use error::RestError;
pub(crate) use error::check as check_kafka;
pub(crate) use groups::assigned as member_assignment;
pub(crate) use json::{iso_timestamp, parse_timestamp};
pub use routes::Peer;
pub(crate) use routes::router;

/// Where the gateway finds the node's request handlers: `None` until the node serves its Kafka
/// listeners (the gateway answers 503 meanwhile) and after it shut down.
pub trait Brokers: Send + Sync + 'static {
    fn broker(&self) -> Option<Arc<Broker>>;
}

/// The client id the gateway's Kafka requests carry (quotas and logs see it).
pub const GATEWAY_CLIENT_ID: &str = "strand-rest-gateway";

/// The gateway of one node.
pub struct Gateway {
    brokers: Arc<dyn Brokers>,
    /// Who may call, and how credentials are checked.
    access: Arc<HttpAccess>,
    correlation_id: AtomicI32,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway").field("access", &self.access).finish_non_exhaustive()
    }
}

impl Gateway {
    /// A gateway over `brokers`, its callers admitted by `access`.
    pub fn new(brokers: Arc<dyn Brokers>, access: Arc<HttpAccess>) -> Gateway {
        Gateway { brokers, access, correlation_id: AtomicI32::new(0), clock: Arc::new(SystemClock) }
    }

    /// Whether `/metrics` may be served to this request (401 if not).
    pub(crate) async fn metrics_allowed(&self, headers: &HeaderMap, peer: SocketAddr) -> Result<(), RestError> {
        self.access.metrics_allowed(headers, peer).await
    }

    /// The context of one request from `peer`: its caller, the node's broker, the base of its
    /// links (`https://` when `secure`). Refuses an unauthenticated caller (401) and a node not serving yet (503).
    pub(crate) async fn ctx(
        self: &Arc<Self>,
        headers: &HeaderMap,
        peer: SocketAddr,
        secure: bool,
    ) -> Result<Ctx, RestError> {
        let broker = self.brokers.broker().ok_or_else(RestError::not_serving)?;
        let session = self.access.session(headers, peer).await?;
        let host = headers.get(HOST).and_then(|h| h.to_str().ok()).filter(|h| !h.is_empty() && !h.contains('/'));
        let host = host.map_or_else(|| peer.to_string(), str::to_owned);
        let cluster_id = broker.identity().cluster_id.clone();
        Ok(Ctx {
            gateway: self.clone(),
            session,
            base: format!("{}://{host}/v3", if secure { "https" } else { "http" }),
            cluster_id,
            broker,
        })
    }
}

/// One REST request's view of the node.
pub(crate) struct Ctx {
    gateway: Arc<Gateway>,
    broker: Arc<Broker>,
    session: Session,
    /// `http://host/v3` (`https://` over TLS), the start of every link.
    pub base: String,
    pub cluster_id: String,
}

impl Ctx {
    /// The cluster's own URL, `{base}/clusters/{id}`.
    pub fn cluster_url(&self) -> String {
        format!("{}/clusters/{}", self.base, self.cluster_id)
    }

    /// Checks the `{cluster_id}` of a path (404, as Confluent answers, for another cluster).
    pub fn check_cluster(&self, cluster_id: &str) -> Result<(), RestError> {
        if cluster_id == self.cluster_id {
            Ok(())
        } else {
            Err(RestError::not_found(format!("Cluster {cluster_id} cannot be found.")))
        }
    }

    /// This node's id.
    pub fn node_id(&self) -> i32 {
        self.broker.identity().node_id.0
    }

    pub fn now_ms(&self) -> i64 {
        self.gateway.clock.now_ms()
    }

    /// Sends `body` at `version` to the node as one request frame, as a connection would, and
    /// returns the decoded answer. A throttled answer is held back for its throttle time, as the
    /// connection mutes a throttled client.
    pub async fn call(&self, body: RequestBody, version: i16) -> Result<ResponseBody, RestError> {
        self.start(body, version).await?.await
    }

    /// [`Ctx::call`] in two steps, as a connection pipelines: returns once the node has done what
    /// the request changes (an acks=all Produce: appended), with the wait for the rest (its
    /// replicas) and the answer. Requests started one after another apply in that order.
    pub async fn start(
        &self,
        body: RequestBody,
        version: i16,
    ) -> Result<BoxFuture<'static, Result<ResponseBody, RestError>>, RestError> {
        let correlation_id = self.gateway.correlation_id.fetch_add(1, Ordering::Relaxed);
        let api = body.api_key();
        let frame = encode_request(correlation_id, Some(GATEWAY_CLIENT_ID), &body, version)
            .map_err(|e| RestError::internal(format!("cannot encode {api:?}: {e}")))?;
        let outcome: BoxFuture<'static, Outcome> =
            match self.broker.handle_pipelined(frame.slice(4..), &self.session).await {
                Handled::Done(outcome) => Box::pin(std::future::ready(outcome)),
                Handled::Waiting(wait) => wait,
            };
        Ok(Box::pin(async move { answer_of(api, version, outcome.await).await }))
    }
}

/// The decoded answer of an outcome.
async fn answer_of(api: ApiKey, version: i16, outcome: Outcome) -> Result<ResponseBody, RestError> {
    let response = match outcome {
        Outcome::Respond(frame) => frame,
        Outcome::Throttled(Some(frame), pause) => {
            tokio::time::sleep(pause).await;
            frame
        }
        Outcome::RespondAndClose(_, reason) | Outcome::Close(reason) => {
            return Err(RestError::internal(format!("{api:?} refused: {reason}")));
        }
        Outcome::NoResponse | Outcome::Throttled(None, _) => {
            return Err(RestError::internal(format!("{api:?} had no answer")));
        }
    };
    let bytes: Bytes = strand_broker::frame_to_bytes(&response)
        .map_err(|e| RestError::internal(format!("cannot read the {api:?} answer: {e}")))?;
    let (_, body) = decode_response(api, version, bytes.slice(4..))
        .map_err(|e| RestError::internal(format!("cannot decode the {api:?} answer: {e}")))?;
    Ok(body)
}

/// Unwraps the answer of a [`Ctx::call`] to the response type of its request.
macro_rules! answer {
    ($ctx:expr, $variant:ident, $request:expr, $version:expr) => {
        match $ctx.call(::strand_protocol::messages::api::RequestBody::$variant($request), $version).await? {
            ::strand_protocol::messages::api::ResponseBody::$variant(response) => response,
            other => {
                return Err($crate::gateway::RestError::internal(format!(
                    "{} answered with {:?}",
                    stringify!($variant),
                    other.api_key()
                )))
            }
        }
    };
}
pub(crate) use answer;
