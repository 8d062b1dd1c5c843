//! `strand server [FILE] [--override key=value]...`: loads the configuration, sets up logging,
//! locks every log dir (Kafka's `.lock`: a second process on the same dirs is refused, naming the
//! holder's pid; a data dir that cannot even be locked, such as a file where the directory should
//! be, is left to the node, which runs without it as Kafka does), checks that its listeners' ports are free, formats empty log dirs on first start
//! ([`crate::storage::ensure_formatted`]), then runs the node on a multi-threaded tokio runtime
//! until it stops. Everything that can refuse a start runs before the formatting, so a refused
//! first start leaves no directory formatted with a cluster id nobody will use. With
//! `http.listeners`, it installs the metrics recorder, binds them (before the formatting too) and
//! serves `/metrics` and the REST gateway on the same runtime ([`strand_http`]; `https://` ones
//! with the node's `ssl.*` key store, reloaded on change as a Kafka listener's), the scrape
//! reading the node's gauges, the gateway sending its requests to the node's handlers.
//!
//! Logs go to stderr (so the operator commands' stdout stays clean for their output), filtered by
//! `RUST_LOG` (default `info`, without openraft's own lines).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use strand_http::auth::{FactoryOf, HttpAccess, SaslAccess};
use strand_http::gateway::Gateway;
use strand_http::{HttpListener, MetricsRegistry};
use strand_security::SecurityProtocol;
use strand_server::config::{ServerConfig, parse_override};
use strand_server::connection::acceptor::HANDSHAKE_MAX_DEFAULT;
use strand_server::metrics::NodeGauges;
use strand_server::served::ServedBroker;
use strand_server::tls::ListenerTls;
use tracing_subscriber::EnvFilter;

use crate::storage;

/// The arguments of `strand server`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  strand server
  strand server config/three-nodes/node-1.properties --override log.dirs=/tmp/node-1")]
pub struct ServerArgs {
    /// Kafka's server.properties; without it, a one-node cluster on localhost:9092 with its data
    /// in ./strand-data.
    file: Option<PathBuf>,
    /// Set a property, over the file's value (repeatable; the last one wins).
    #[arg(long = "override", value_name = "KEY=VALUE", value_parser = parse_override)]
    overrides: Vec<(String, String)>,
}

pub fn run(args: ServerArgs) -> anyhow::Result<()> {
    init_logging();
    test_failpoints();
    let mut config = ServerConfig::load(args.file.as_deref(), &args.overrides)?;
    for warning in &config.warnings {
        tracing::warn!("{warning}");
    }
    // Held until the process exits.
    let (_locks, unusable) = lock_log_dirs(&config)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("strand")
        .build()
        .context("cannot start the async runtime")?;
    // Bound before the log dirs are formatted, like the other listeners' ports are checked.
    let served = Arc::new(ServedBroker::default());
    let http = runtime.block_on(bind_http(&mut config, &served))?;
    config.cluster_id = Some(storage::ensure_formatted(&config, &unusable, check_listener_ports)?);
    let gauges = Arc::new(NodeGauges::default());
    if let Some((registry, listeners, access, tls)) = http {
        runtime.spawn(registry.clone().upkeep_forever());
        if let Some(tls) = tls {
            // The stores reload on change, as a Kafka SSL listener's do here.
            runtime.spawn(tls.reload_forever());
        }
        let gateway = Arc::new(Gateway::new(Arc::new(ServedNode(served.clone())), Arc::new(access)));
        for listener in listeners {
            let scrape = Arc::new(ScrapeNode(gauges.clone()));
            runtime.spawn(strand_http::serve_forever(listener, registry.clone(), scrape, Some(gateway.clone())));
        }
    }
    runtime.block_on(strand_server::node::run(config, gauges, served))?;
    Ok(())
}

/// Installs the metrics recorder (before the node takes any handle) and binds `http.listeners`,
/// which then name the addresses bound, for the start-up line; `None` without HTTP listeners.
async fn bind_http(
    config: &mut ServerConfig,
    served: &Arc<ServedBroker>,
) -> anyhow::Result<Option<(MetricsRegistry, Vec<HttpListener>, HttpAccess, Option<ListenerTls>)>> {
    if config.http.listeners.is_empty() {
        return Ok(None);
    }
    let access = http_access(config, served)?;
    let tls = match &config.http_tls {
        Some(settings) => Some(ListenerTls::build(settings).map_err(anyhow::Error::msg)?),
        None => None,
    };
    let registry = MetricsRegistry::install().map_err(anyhow::Error::msg)?;
    let mut listeners = Vec::new();
    for endpoint in &mut config.http.listeners {
        let listener = HttpListener::bind(&endpoint.host, endpoint.port)
            .await
            .with_context(|| format!("cannot listen on {endpoint} (http.listeners)"))?;
        (endpoint.host, endpoint.port) = (listener.address.ip().to_string(), listener.address.port());
        let listener = match (&tls, endpoint.tls) {
            (Some(tls), true) => listener.with_tls(Arc::new(Https(tls.clone()))),
            _ => listener,
        };
        listeners.push(listener);
    }
    Ok(Some((registry, listeners, access, tls)))
}

/// Who may use the HTTP listeners ([`strand_http::auth`]): credentials are checked by the first
/// SASL broker listener's mechanisms; requests without them act as `User:ANONYMOUS` on the first
/// PLAINTEXT broker listener when `http.anonymous.allowed` (by default: when there is one). The
/// start is refused when that setting would open HTTP on a node whose broker listeners all
/// authenticate their clients.
fn http_access(config: &ServerConfig, served: &Arc<ServedBroker>) -> anyhow::Result<HttpAccess> {
    use strand_server::config::http::{ANONYMOUS_ALLOWED, METRICS_ANONYMOUS_ALLOWED};
    let brokers = || config.listeners.iter().filter(|l| !config.controller_listener_names.contains(&l.listener_name));
    let plaintext = brokers().find(|l| l.security_protocol == SecurityProtocol::Plaintext);
    let anonymous = config.http.anonymous_allowed.unwrap_or(plaintext.is_some());
    let anonymous_listener = match (anonymous, plaintext) {
        (false, _) => None,
        (true, Some(listener)) => Some(listener.listener_name.clone()),
        (true, None) => anyhow::bail!(
            "{ANONYMOUS_ALLOWED}=true would serve http.listeners without authentication, but every broker listener \
             of this node (listeners) requires its clients to authenticate; set {ANONYMOUS_ALLOWED}=false (HTTP \
             then takes Basic or Bearer credentials, checked as the SASL listeners check them), or add a \
             PLAINTEXT broker listener"
        ),
    };
    let sasl = brokers().find(|l| l.security_protocol.uses_sasl()).map(|endpoint| {
        let (served, name) = (served.clone(), endpoint.listener_name.clone());
        let factory_of: FactoryOf = Box::new(move || {
            served.sasl_factory(&name).ok_or_else(|| format!("SASL listener {name} does not authenticate yet"))
        });
        let failed_delay = config
            .sasl_listeners()
            .into_iter()
            .find(|sasl| sasl.listener == endpoint.listener_name)
            .map_or(Duration::from_millis(100), |sasl| sasl.failed_delay);
        SaslAccess {
            listener: endpoint.listener_name.clone(),
            protocol: endpoint.security_protocol,
            factory_of,
            failed_delay,
        }
    });
    if anonymous_listener.is_none() && sasl.is_none() {
        tracing::warn!(
            "http.listeners answer 401 to every request but {METRICS_ANONYMOUS_ALLOWED}'s /metrics: \
             {ANONYMOUS_ALLOWED} is false and no SASL broker listener can check HTTP credentials"
        );
    }
    Ok(HttpAccess::new(anonymous_listener, sasl, config.http.metrics_anonymous_allowed))
}

/// The TLS of the `https://` HTTP listeners, with the handshake limit of a Kafka listener's.
struct Https(ListenerTls);

impl strand_http::HttpTls for Https {
    fn accept(
        &self,
        stream: tokio::net::TcpStream,
        peer: std::net::SocketAddr,
    ) -> strand_broker::BoxFuture<'static, Result<Box<dyn strand_http::HttpIo>, String>> {
        let tls = self.0.clone();
        Box::pin(async move {
            let (stream, _session) = tls.accept(stream, peer, HANDSHAKE_MAX_DEFAULT).await?;
            Ok(Box::new(stream) as Box<dyn strand_http::HttpIo>)
        })
    }
}

/// The node's handlers, for the REST gateway.
struct ServedNode(Arc<ServedBroker>);

impl strand_http::gateway::Brokers for ServedNode {
    fn broker(&self) -> Option<Arc<strand_broker::Broker>> {
        self.0.get()
    }
}

/// The node's gauges brought up to date at each scrape.
struct ScrapeNode(Arc<NodeGauges>);

impl strand_http::Scrape for ScrapeNode {
    fn before_scrape(&self) {
        self.0.record();
    }
}

/// Locks every log dir and the metadata log dir, as Kafka does with its `.lock` files. Another
/// process holding one refuses the start, and so does a metadata log dir that cannot be locked;
/// a data dir that cannot be locked for any other reason (a failed disk) is returned as unusable:
/// the node marks it offline and runs on the others, as Kafka's `LogManager` does.
fn lock_log_dirs(config: &ServerConfig) -> anyhow::Result<(Vec<strand_log::file::DirLock>, Vec<PathBuf>)> {
    let (mut locks, mut unusable) = (Vec::new(), Vec::new());
    for dir in config.all_log_dirs() {
        match strand_log::file::DirLock::acquire(&dir) {
            Ok(lock) => locks.push(lock),
            Err(e) if e.kind() != std::io::ErrorKind::WouldBlock && dir != config.metadata_log_dir => {
                unusable.push(dir)
            }
            Err(e) => return Err(e).with_context(|| format!("cannot lock log directory {}", dir.display())),
        }
    }
    Ok((locks, unusable))
}

/// Binds, and at once releases, every listener with a fixed port: on a first start, a port in use
/// refuses the start before the log dirs are formatted.
#[allow(clippy::disallowed_methods)] // A check before the node binds for real.
fn check_listener_ports(config: &ServerConfig) -> anyhow::Result<()> {
    for endpoint in config.listeners.iter().filter(|l| l.port != 0) {
        let host = if endpoint.host.is_empty() { "0.0.0.0" } else { endpoint.host.as_str() };
        std::net::TcpListener::bind((host, endpoint.port))
            .with_context(|| format!("cannot listen on {host}:{} ({})", endpoint.port, endpoint.listener_name))?;
    }
    Ok(())
}

/// How often a test build looks at `STRAND_FAILPOINTS_FILE`.
const FAILPOINTS_FILE_POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// Failpoints set from outside, for the e2e tests: a build of `strand` made for tests has the
/// `fail` crate's failpoints compiled in (the `failpoints` feature its dev-dependency turns on),
/// and sets them from `FAILPOINTS` at start and, once it appears and each time its text changes,
/// from the file `STRAND_FAILPOINTS_FILE` names (`name=actions` lines, `name=off` to clear one),
/// so a test or the nemesis can make a running node's syncs fail or slow and heal them; it logs
/// what it set. A release build has no failpoints: this does nothing there.
fn test_failpoints() {
    if !fail::has_failpoints() {
        return;
    }
    let set = |text: &str| {
        for (name, actions) in text.split(['\n', ';']).filter_map(|l| l.trim().split_once('=')) {
            match fail::cfg(name.trim(), actions.trim()) {
                Ok(()) => tracing::info!("failpoint {name} set to {actions}"),
                Err(e) => tracing::warn!("failpoint {name}: {e}"),
            }
        }
    };
    if let Ok(text) = std::env::var("FAILPOINTS") {
        set(&text);
    }
    let Some(file) = std::env::var_os("STRAND_FAILPOINTS_FILE").map(PathBuf::from) else { return };
    std::thread::spawn(move || {
        let mut applied: Option<String> = None;
        loop {
            if let Ok(text) = std::fs::read_to_string(&file)
                && applied.as_deref() != Some(text.as_str())
            {
                set(&text);
                applied = Some(text);
            }
            std::thread::sleep(FAILPOINTS_FILE_POLL);
        }
    });
}

/// Logging to stderr at `RUST_LOG` (default `info`, openraft's own lines off), colored only on a
/// terminal.
fn init_logging() {
    // openraft speaks in its own terms and at ERROR for a peer that is merely down (several lines
    // a second); Strand says what matters itself: elections and leaders (`quorum`), unreachable
    // peers (`inter_node::peers`), and Raft stopping on an error. `RUST_LOG=openraft=...` brings
    // openraft's lines back for debugging.
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,openraft=off"));
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    // Fails only when a subscriber is already installed, which is then the one to keep.
    let _ = subscriber.try_init();
}
