//! The broker listeners' accept loops (Kafka's `Acceptor`): each waits for the creation rate and a
//! slot under `max.connections`, accepts, counts the connection against its address's maximum
//! (closing it at once past that), and serves it on a task of its own, counted in the listener's
//! `connection-count` while it lasts.
//!
//! [`ClientConnections`] is what the loops of one node share: the connection limits, the memory
//! pool and the [`ConnectionQuotas`]. Building it resolves `max.connections.per.ip.overrides`'s
//! host names, as Kafka does when its socket server starts, and loads the JWK set of each
//! listener validating OAUTHBEARER tokens with one ([`JwksFeed`]), as Kafka's handler does when
//! it is configured.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use strand_base::SystemClock;
use strand_base::metric_names::CONNECTION_COUNT;
use strand_broker::Broker;
use strand_security::sasl::{CredentialStore, SaslServerFactory};
use strand_security::{SecurityProtocol, Session};
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tracing::{debug, info, warn};

use super::authenticate::SaslListener;
use super::quotas::{ConnectionQuotas, QuotaSettings};
use super::{ClientLimits, serve, serve_tls, set_nodelay};
use crate::config::ServerConfig;
use crate::config::sasl::SaslListenerConfig;
use crate::jwks::JwksFeed;
use crate::tls::{CLOSED_BEFORE_HANDSHAKE, ListenerTls};

/// How long a listener pauses after a failed accept (out of file descriptors, say) before the next.
const ACCEPT_RETRY_PAUSE: Duration = Duration::from_millis(100);

/// How long a TLS handshake may take when `request.timeout.ms` does not bound it.
pub const HANDSHAKE_MAX_DEFAULT: Duration = Duration::from_secs(30);

/// What the broker listeners of a node share.
#[derive(Debug, Clone)]
pub struct ClientConnections {
    pub limits: ClientLimits,
    pub quotas: Arc<ConnectionQuotas>,
    /// `inter.broker.listener.name` when it is one of several broker listeners: Kafka's protected
    /// listener, not held back by the broker-wide count and rate.
    protected_listener: Option<String>,
    /// The TLS of each SSL listener this node serves, by name.
    tls: Arc<BTreeMap<String, ListenerTls>>,
    /// Each broker listener's security protocol, by name.
    protocols: BTreeMap<String, SecurityProtocol>,
    /// The SASL listeners' settings, as configured.
    sasl_configs: Vec<SaslListenerConfig>,
    /// The SASL exchange of each SASL listener, by name ([`ClientConnections::authenticate_with`]).
    sasl: BTreeMap<String, Arc<SaslListener>>,
    /// Each SASL listener's mechanisms, for the HTTP listeners to check credentials with.
    sasl_factories: BTreeMap<String, SaslServerFactory>,
    /// The JWK sets of the listeners validating OAUTHBEARER tokens with one, by name.
    jwks: BTreeMap<String, Arc<strand_security::sasl::oauthbearer::CurrentJwks>>,
}

impl ClientConnections {
    /// The node's limits from its configuration, its listeners' TLS, and the feeds of the JWK sets
    /// its listeners validate with (each to run [`JwksFeed::refresh_forever`] on a task of its
    /// own); the error names an override host that does not resolve, the TLS setting or store at
    /// fault, or a JWK set that does not load.
    pub async fn from_config(config: &ServerConfig) -> Result<(ClientConnections, Vec<JwksFeed>), String> {
        let as_count = |value: i32| u32::try_from(value).unwrap_or(0);
        let settings = QuotaSettings {
            connections_max: as_count(config.max_connections),
            connections_per_ip_max: as_count(config.max_connections_per_ip),
            connections_per_ip_overrides: resolve_overrides(&config.max_connections_per_ip_overrides).await?,
            creation_rate_per_s: Some(config.max_connection_creation_rate)
                .filter(|&rate| rate != i32::MAX)
                .map(as_count),
        };
        let sasl_configs = config.sasl_listeners();
        let (mut jwks_feeds, mut jwks) = (Vec::new(), BTreeMap::new());
        for sasl in &sasl_configs {
            if let Some(endpoint) = sasl.jwks_endpoint().map_err(|e| e.to_string())? {
                let feed = JwksFeed::start(endpoint).await?;
                jwks.insert(sasl.listener.clone(), feed.keys());
                jwks_feeds.push(feed);
            }
        }
        let broker_listeners =
            config.listeners.iter().filter(|l| !config.controller_listener_names.contains(&l.listener_name)).count();
        let mut tls = BTreeMap::new();
        for endpoint in config.listeners.iter().filter(|l| l.security_protocol.uses_tls()) {
            if let Some(settings) = config.tls.get(&endpoint.listener_name) {
                tls.insert(endpoint.listener_name.clone(), ListenerTls::build(settings)?);
            }
        }
        let connections = ClientConnections {
            limits: ClientLimits::from_config(config),
            quotas: ConnectionQuotas::new(settings).with_window(strand_broker::quotas::QuotaWindow {
                samples: u32::try_from(config.quota_window_num).unwrap_or(1),
                sample_ms: i64::from(config.quota_window_size_seconds) * 1000,
            }),
            protected_listener: (broker_listeners > 1).then(|| config.inter_broker_listener_name.clone()),
            tls: Arc::new(tls),
            protocols: config.listeners.iter().map(|l| (l.listener_name.clone(), l.security_protocol)).collect(),
            sasl_configs,
            sasl: BTreeMap::new(),
            sasl_factories: BTreeMap::new(),
            jwks,
        };
        Ok((connections, jwks_feeds))
    }

    /// Makes each SASL listener's exchange, SCRAM reading `credentials` (the node's image).
    /// Until this is called a SASL listener serves no connection.
    pub fn authenticate_with(&mut self, credentials: Arc<dyn CredentialStore>) -> Result<(), String> {
        for config in &self.sasl_configs {
            let jwks = self.jwks.get(&config.listener).cloned();
            let factory =
                config.factory(Arc::clone(&credentials), Arc::new(SystemClock), jwks).map_err(|e| e.to_string())?;
            self.sasl_factories.insert(config.listener.clone(), factory.clone());
            let listener = SaslListener {
                mechanisms: factory.enabled_names().into_iter().map(str::to_owned).collect(),
                new_server: Arc::new(move |mechanism| factory.create(mechanism).ok()),
                reauth_max: config.reauth_max.clone(),
                failed_delay: config.failed_delay,
                receive_bytes_max: config.receive_bytes_max,
            };
            self.sasl.insert(config.listener.clone(), Arc::new(listener));
        }
        Ok(())
    }

    /// Each SASL listener's mechanisms, by name (after [`ClientConnections::authenticate_with`]).
    pub fn sasl_factories(&self) -> BTreeMap<String, SaslServerFactory> {
        self.sasl_factories.clone()
    }

    /// The TLS of every SSL listener, for their reloads.
    pub fn tls_listeners(&self) -> Vec<ListenerTls> {
        self.tls.values().cloned().collect()
    }

    /// Accepts connections on the broker listener `name` and serves each on a task of its own.
    /// The connections belong to this task: when it is aborted at shutdown they are aborted with
    /// it (dropping a `JoinSet` aborts its tasks), so an idle client cannot keep the broker, and
    /// with it the logs, from closing cleanly. An abort lands only at an await, never inside an
    /// append.
    pub async fn accept_forever(self, listener: TcpListener, name: String, broker: Arc<Broker>) {
        let protected = self.protected_listener.as_deref() == Some(name.as_str());
        let tls = self.tls.get(&name).cloned().map(Arc::new);
        let handshake_max = self.limits.connection.request_arrival_max.unwrap_or(HANDSHAKE_MAX_DEFAULT);
        let protocol = self.protocols.get(&name).copied().unwrap_or(SecurityProtocol::Plaintext);
        let mut connections = JoinSet::new();
        let open = metrics::gauge!(CONNECTION_COUNT, "listener" => name.clone());
        loop {
            let slot = reaping(&mut connections, self.quotas.wait_for_slot(protected)).await;
            let (stream, peer) = match reaping(&mut connections, listener.accept()).await {
                Ok(accepted) => accepted,
                Err(e) => {
                    warn!("accept failed on {name}: {e}");
                    tokio::time::sleep(ACCEPT_RETRY_PAUSE).await;
                    continue;
                }
            };
            let now_ms = strand_base::Clock::now_ms(&strand_base::SystemClock);
            if let Some(throttle) = self.quotas.ip_creation_throttle(broker.image().client_quotas(), peer.ip(), now_ms)
            {
                // Kafka closes a connection past its address's rate once the throttle has passed.
                info!(%peer, "closing connection in {throttle:?}: past its connection_creation_rate (KIP-612)");
                connections.spawn(async move {
                    tokio::time::sleep(throttle).await;
                    drop(stream);
                });
                continue;
            }
            match self.quotas.admit(slot, peer.ip()) {
                Ok(permit) => {
                    let (broker, limits, name, tls) = (broker.clone(), self.limits.clone(), name.clone(), tls.clone());
                    let sasl = self.sasl.get(&name).cloned();
                    if (protocol.uses_sasl() && sasl.is_none()) || (protocol.uses_tls() && tls.is_none()) {
                        // Never served as plaintext: a SASL listener before `authenticate_with`.
                        warn!(%peer, "closing connection: {protocol} listener {name} is not set up");
                        continue;
                    }
                    let counted = Counted::new(open.clone());
                    connections.spawn(async move {
                        let (_permit, _counted) = (permit, counted);
                        let Some(tls) = tls else {
                            let mut session = Session::anonymous(peer, name);
                            session.protocol = protocol;
                            return serve(stream, session, broker, limits, sasl).await;
                        };
                        set_nodelay(&stream, peer);
                        match tls.accept(stream, peer, handshake_max).await {
                            Ok((stream, mut session)) => {
                                session.protocol = protocol;
                                serve_tls(stream, session, broker, limits, sasl).await;
                            }
                            Err(reason) if reason == CLOSED_BEFORE_HANDSHAKE => debug!(%peer, "{name}: {reason}"),
                            Err(reason) => info!(%peer, "closing connection on {name}: {reason}"),
                        }
                    });
                }
                Err(refused) => info!(%peer, "{refused}"),
            }
        }
    }
}

/// A connection counted in its listener's `connection-count` until it is dropped (served to the
/// end, or aborted at shutdown).
struct Counted(metrics::Gauge);

impl Counted {
    fn new(gauge: metrics::Gauge) -> Counted {
        gauge.increment(1.0);
        Counted(gauge)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.decrement(1.0);
    }
}

/// Runs `work` while reaping finished connections, so the set holds only live ones.
async fn reaping<F: Future>(connections: &mut JoinSet<()>, work: F) -> F::Output {
    tokio::pin!(work);
    loop {
        tokio::select! {
            output = &mut work => return output,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

/// `max.connections.per.ip.overrides` by address: an IP literal as written, a host name as every
/// address it resolves to.
async fn resolve_overrides(
    overrides: &std::collections::BTreeMap<String, i32>,
) -> Result<HashMap<IpAddr, u32>, String> {
    let mut resolved = HashMap::new();
    for (host, &max) in overrides {
        let max = u32::try_from(max).unwrap_or(0);
        if let Ok(address) = host.parse::<IpAddr>() {
            resolved.insert(address, max);
            continue;
        }
        let addresses = tokio::net::lookup_host((host.as_str(), 0))
            .await
            .map_err(|e| format!("max.connections.per.ip.overrides: cannot resolve {host}: {e}"))?;
        for address in addresses {
            resolved.insert(address.ip(), max);
        }
    }
    Ok(resolved)
}
