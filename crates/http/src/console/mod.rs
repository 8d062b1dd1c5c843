//! The web console at `/` (design §10): server-rendered HTML pages over the node's own Kafka
//! handlers, plus one small script written here (`assets/console.js`: the live tail, the metric
//! charts) and one stylesheet, both compiled into the binary (`include_str!`); no CDN, no build
//! step.
//!
//! Like the REST gateway, it never reads the node's state itself: every page is made from the
//! Kafka requests an admin client would send (Metadata, DescribeCluster, DescribeQuorum,
//! DescribeConfigs, CreateTopics, DeleteTopics, ListOffsets, Fetch, Produce, ListGroups,
//! DescribeGroups, FindCoordinator, OffsetFetch, OffsetCommit), sent as the gateway's caller
//! (the principal its credentials prove, [`crate::auth`]), so ACLs and validation apply. A request
//! that must reach a partition's leader or a group's coordinator on another node goes there over
//! a Kafka connection to that node's same listener ([`peers`]), as any client's would.
//!
//! Map: `html.rs` (escaping, layout), `form.rs` (query and form parameters), `peers.rs` (calls
//! to a node), `overview.rs` (brokers, quorum, partition health), `topics.rs` (list, create,
//! delete, a topic's partitions and configs), `messages.rs` (the browser, produce, the tail's
//! JSON), `records.rs` (reading and showing fetched records), `groups.rs` (groups, members, lag,
//! offset resets), `charts.rs` (the metrics page).
//!
//! Limits: pages show at most [`RECORDS_SHOWN_MAX`] records, [`VALUE_BYTES_SHOWN_MAX`] bytes of
//! a key, value or header, read at most [`records::SCAN_BYTES_MAX`] bytes to find them, and list at
//! most [`groups::GROUPS_SHOWN_MAX`] groups; a form body is at most [`form::FORM_BYTES_MAX`].
//! State changes (create, delete, produce, reset) are POSTed forms, refused when a browser says
//! another site's page posted them.

mod charts;
mod form;
mod groups;
mod html;
mod messages;
mod overview;
mod peers;
mod records;
mod topics;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use axum::extract::FromRequestParts;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use strand_protocol::messages::api::{RequestBody, ResponseBody};

use crate::gateway::{Ctx, Gateway, Peer, RestError};
pub use form::FORM_BYTES_MAX;
pub use records::{RECORDS_SHOWN_MAX, VALUE_BYTES_SHOWN_MAX};

/// The console of one node: the gateway's way in, and connections to the other nodes.
pub(crate) struct Console {
    gateway: Arc<Gateway>,
    peers: peers::Peers,
}

/// One console request's view of the node: the gateway's context and the console's peers.
pub(crate) struct View {
    ctx: Ctx,
    console: Arc<Console>,
}

impl FromRequestParts<Arc<Console>> for View {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, console: &Arc<Console>) -> Result<View, Response> {
        if parts.method != Method::GET && parts.method != Method::HEAD && cross_site(&parts.headers) {
            let message = "A form posted from another site's page is refused (its Origin is not this console)";
            return Err(html::error_page(StatusCode::FORBIDDEN, "", message));
        }
        let peer = parts.extensions.get::<Peer>().map_or(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)), |p| p.0);
        match console
            .gateway
            .ctx(&parts.headers, peer, parts.extensions.get::<crate::Secure>().is_some_and(|s| s.0))
            .await
        {
            Ok(ctx) => Ok(View { ctx, console: console.clone() }),
            Err(e) => {
                let mut page = html::error_page(e.status, "", &e.message);
                if e.status == StatusCode::UNAUTHORIZED {
                    crate::auth::challenge(page.headers_mut());
                }
                Err(page)
            }
        }
    }
}

/// Whether a browser says the request comes from another site's page: `Sec-Fetch-Site:
/// cross-site`, or an `Origin` whose host is not the `Host` the request was sent to. A
/// state-changing form posted there is refused, so a page elsewhere cannot drive an operator's
/// browser to create, delete, produce or reset (a client that sends neither header, such as
/// `curl`, is not a browser on another site's page).
fn cross_site(headers: &HeaderMap) -> bool {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if text("sec-fetch-site") == Some("cross-site") {
        return true;
    }
    let Some(origin) = text("origin") else { return false };
    let origin_host = origin.split_once("://").map(|(_, host)| host.trim_end_matches('/'));
    origin_host.is_none_or(|host| Some(host) != text("host"))
}

impl View {
    /// Sends `body` to node `node`: through this node's handlers when it is this node, else over
    /// a connection to it.
    pub async fn call_node(&self, node: i32, body: RequestBody, version: i16) -> Result<ResponseBody, RestError> {
        if node == self.ctx.node_id() {
            return self.ctx.call(body, version).await;
        }
        self.console.peers.call(self, node, body, version).await
    }

    /// Sends `body` to this node's handlers.
    pub async fn call(&self, body: RequestBody, version: i16) -> Result<ResponseBody, RestError> {
        self.ctx.call(body, version).await
    }

    pub fn node_id(&self) -> i32 {
        self.ctx.node_id()
    }

    pub fn now_ms(&self) -> i64 {
        self.ctx.now_ms()
    }
}

/// Unwraps the answer of a [`View::call_node`] to the response type of its request.
macro_rules! ask {
    ($view:expr, $node:expr, $variant:ident, $request:expr, $version:expr) => {
        match $view
            .call_node($node, ::strand_protocol::messages::api::RequestBody::$variant($request), $version)
            .await?
        {
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
pub(crate) use ask;

/// A failed console request, shown as a page in its `section`.
pub(crate) struct Failed {
    section: &'static str,
    error: RestError,
}

impl Failed {
    pub fn in_section(section: &'static str) -> impl Fn(RestError) -> Failed {
        move |error| Failed { section, error }
    }

    /// A request the console refuses itself (400).
    pub fn bad(section: &'static str, message: impl Into<String>) -> Failed {
        Failed { section, error: RestError::bad_request(message) }
    }
}

impl IntoResponse for Failed {
    fn into_response(self) -> Response {
        html::error_page(self.error.status, self.section, &self.error.message)
    }
}

/// Every console route, with the state they share.
pub(crate) fn router(gateway: Arc<Gateway>) -> Router {
    let console = Arc::new(Console { gateway, peers: peers::Peers::default() });
    Router::new()
        .route("/", get(overview::overview))
        .route("/topics", get(topics::list).post(topics::create))
        .route("/topics/{topic}", get(topics::topic))
        .route("/topics/{topic}/delete", post(topics::delete))
        .route("/topics/{topic}/messages", get(messages::browse))
        .route("/topics/{topic}/produce", post(messages::produce))
        .route("/topics/{topic}/tail", get(messages::tail))
        .route("/groups", get(groups::list))
        .route("/groups/{group}", get(groups::group))
        .route("/groups/{group}/reset", post(groups::reset))
        .route("/charts", get(charts::charts))
        .route("/console/console.css", get(stylesheet))
        .route("/console/console.js", get(script))
        .with_state(console)
}

/// The stylesheet, compiled in.
async fn stylesheet() -> Response {
    asset("text/css; charset=utf-8", include_str!("assets/console.css"))
}

/// The script, compiled in.
async fn script() -> Response {
    asset("text/javascript; charset=utf-8", include_str!("assets/console.js"))
}

fn asset(kind: &'static str, text: &'static str) -> Response {
    (StatusCode::OK, [(CONTENT_TYPE, kind), (CACHE_CONTROL, "max-age=300")], text).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Forms posted from the console's own pages pass; from another site's, not.
    #[test]
    fn cross_site_forms_are_told_apart() {
        let headers = |pairs: &[(&'static str, &'static str)]| {
            let mut map = HeaderMap::new();
            for (name, value) in pairs {
                map.insert(*name, value.parse().expect("a header value"));
            }
            map
        };
        assert!(!cross_site(&headers(&[("host", "localhost:8080")])));
        assert!(!cross_site(&headers(&[("host", "localhost:8080"), ("origin", "http://localhost:8080")])));
        assert!(!cross_site(&headers(&[("host", "localhost:8080"), ("sec-fetch-site", "same-origin")])));
        assert!(cross_site(&headers(&[("host", "localhost:8080"), ("origin", "http://evil.example")])));
        assert!(cross_site(&headers(&[("host", "localhost:8080"), ("origin", "null")])));
        assert!(cross_site(&headers(&[("host", "localhost:8080"), ("sec-fetch-site", "cross-site")])));
    }
}
