//! Binding an HTTP listener and serving it: HTTP/1.1 by hyper, routed by axum, on the caller's
//! tokio runtime.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Router};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use strand_broker::BoxFuture;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tracing::{debug, warn};

use crate::gateway::{Gateway, Peer};
use crate::registry::MetricsRegistry;

/// The most HTTP connections one listener holds open; more wait in the kernel's accept queue
/// until one closes.
pub const HTTP_CONNECTIONS_MAX: usize = 64;

/// How long a client has to send a request's head (hyper's `header_read_timeout`, also the idle
/// limit of a kept-alive connection): a connection that sends nothing gives its slot back.
pub const HTTP_HEADER_READ_MAX: Duration = Duration::from_secs(30);

/// The pause after a failed accept (out of descriptors) before the next.
const ACCEPT_RETRY_PAUSE: Duration = Duration::from_millis(100);

/// What the node does at each scrape before the registry is rendered: sets the gauges that are a
/// view of its state (Kafka computes those gauges when they are read, too).
pub trait Scrape: Send + Sync + 'static {
    fn before_scrape(&self);
}

/// A connection's byte stream: TCP, or TLS over it.
pub trait HttpIo: AsyncRead + AsyncWrite + Unpin + Send + 'static {}

impl<T: AsyncRead + AsyncWrite + Unpin + Send + 'static> HttpIo for T {}

/// The TLS of an `https://` listener: the handshake of each accepted connection (`Err`: the one
/// line to log before it closes).
pub trait HttpTls: Send + Sync + 'static {
    fn accept(&self, stream: TcpStream, peer: SocketAddr) -> BoxFuture<'static, Result<Box<dyn HttpIo>, String>>;
}

/// A bound HTTP listener.
pub struct HttpListener {
    listener: TcpListener,
    /// The address bound (the port chosen when `0` was asked for).
    pub address: SocketAddr,
    /// The TLS of an `https://` listener.
    tls: Option<Arc<dyn HttpTls>>,
}

impl std::fmt::Debug for HttpListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpListener").field("address", &self.address).field("tls", &self.tls.is_some()).finish()
    }
}

/// Whether a request arrived over TLS (set on each request of an `https://` listener).
#[derive(Debug, Clone, Copy)]
pub struct Secure(pub bool);

impl HttpListener {
    /// Binds `host:port` (an empty host is every interface).
    pub async fn bind(host: &str, port: u16) -> std::io::Result<HttpListener> {
        let host = if host.is_empty() { "0.0.0.0" } else { host };
        let listener = TcpListener::bind((host, port)).await?;
        let address = listener.local_addr()?;
        Ok(HttpListener { listener, address, tls: None })
    }

    /// Serves TLS (`https://`) with `tls`'s handshake.
    pub fn with_tls(mut self, tls: Arc<dyn HttpTls>) -> HttpListener {
        self.tls = Some(tls);
        self
    }
}

/// What every request handler shares.
struct Surface {
    registry: MetricsRegistry,
    scrape: Arc<dyn Scrape>,
    /// Who may read `/metrics` is the gateway's access to decide; without a gateway, anyone.
    gateway: Option<Arc<Gateway>>,
}

/// Serves `listener` forever: `GET /metrics`, and when there is a `gateway`, its `/v3` routes and
/// the web console at `/`; 404 elsewhere.
pub async fn serve_forever(
    listener: HttpListener,
    registry: MetricsRegistry,
    scrape: Arc<dyn Scrape>,
    gateway: Option<Arc<Gateway>>,
) {
    let surface = Surface { registry, scrape, gateway: gateway.clone() };
    let mut router = Router::new().route("/metrics", get(metrics)).with_state(Arc::new(surface));
    if let Some(gateway) = gateway {
        router = router.merge(crate::gateway::router(gateway.clone())).merge(crate::console::router(gateway));
    }
    let slots = Arc::new(Semaphore::new(HTTP_CONNECTIONS_MAX));
    loop {
        // The semaphore is never closed.
        let Ok(slot) = slots.clone().acquire_owned().await else { return };
        let (stream, peer) = match listener.listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                warn!("HTTP listener {}: accept failed: {e}", listener.address);
                tokio::time::sleep(ACCEPT_RETRY_PAUSE).await;
                continue;
            }
        };
        let secure = Secure(listener.tls.is_some());
        let service = TowerToHyperService::new(router.clone().layer(Extension(Peer(peer))).layer(Extension(secure)));
        let tls = listener.tls.clone();
        tokio::spawn(async move {
            let stream: Box<dyn HttpIo> = match tls {
                None => Box::new(stream),
                Some(tls) => match tls.accept(stream, peer).await {
                    Ok(stream) => stream,
                    Err(e) => {
                        debug!("HTTPS connection from {peer}: {e}");
                        return;
                    }
                },
            };
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HTTP_HEADER_READ_MAX)
                .serve_connection(TokioIo::new(stream), service);
            if let Err(e) = connection.await {
                debug!("HTTP connection from {peer}: {e}");
            }
            drop(slot);
        });
    }
}

/// `GET /metrics`: the node's gauges brought up to date, then every series in Prometheus's text
/// format, the process's own last.
/// Refused (401) without credentials unless `http.metrics.anonymous.allowed` or anonymous
/// callers are.
async fn metrics(State(surface): State<Arc<Surface>>, headers: HeaderMap, peer: Option<Extension<Peer>>) -> Response {
    if let Some(gateway) = &surface.gateway {
        let peer = peer.map_or(SocketAddr::from(([127, 0, 0, 1], 0)), |Extension(Peer(peer))| peer);
        if let Err(refused) = gateway.metrics_allowed(&headers, peer).await {
            return refused.into_response();
        }
    }
    surface.scrape.before_scrape();
    let mut body = surface.registry.render();
    crate::process::render(&mut body);
    ([(CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], body).into_response()
}
