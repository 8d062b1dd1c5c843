//! Run-time changes of a listener's TLS key and trust stores through the metadata log: Kafka's
//! per-broker dynamic configs `listener.name.<listener>.ssl.keystore.location` and the rest of
//! `strand_metadata::controller::LISTENER_TLS_STORE_KEYS`, set with `kafka-configs
//! --entity-type brokers --entity-name <id> --alter`.
//!
//! - Before the change is forwarded to the controller, the broker the request names loads the
//!   new stores ([`DynamicTls`] as the broker's `BrokerReconfiguration`): a store that does not
//!   load, a listener this node has no TLS on, or a certificate whose subject or alternative
//!   names differ from the one served now (Kafka's `ssl.allow.dn.changes` and
//!   `ssl.allow.san.changes` are false) fails the request.
//! - [`DynamicTls::apply_forever`]: once committed, the node's image carries the change and every
//!   [`ListenerTls`] of that listener (the one it serves and the one it dials peers with) is
//!   rebuilt from `server.properties` under the dynamic keys; a store that no longer loads then
//!   keeps the previous one, with one WARN line. The file poll of `ListenerTls::reload_forever`
//!   goes on beside it.

use std::collections::BTreeMap;
use std::sync::Arc;

use strand_base::BrokerId;
use strand_broker::{BoxFuture, BrokerReconfiguration};
use strand_metadata::controller::listener_tls_store_key;
use strand_metadata::image::{ConfigResource, MetadataImage};
use tokio::sync::watch;

use super::ListenerTls;
use crate::config::ServerConfig;
use crate::config::tls::{TlsSettings, listener_settings_with};

/// This node's TLS listeners, rebuilt when their dynamic store configs change.
#[derive(Debug, Clone)]
pub struct DynamicTls {
    config: Arc<ServerConfig>,
    node: BrokerId,
    /// Every `ListenerTls` of the node: its TLS listeners and its links to peers.
    listeners: Vec<ListenerTls>,
    image: watch::Receiver<Arc<MetadataImage>>,
}

/// Dynamic configs by full key.
type Dynamic = BTreeMap<String, String>;

impl DynamicTls {
    pub fn new(
        config: Arc<ServerConfig>,
        node: BrokerId,
        listeners: Vec<ListenerTls>,
        image: watch::Receiver<Arc<MetadataImage>>,
    ) -> DynamicTls {
        DynamicTls { config, node, listeners, image }
    }

    /// This broker's dynamic TLS store keys in `image`.
    fn dynamic(&self, image: &MetadataImage) -> Dynamic {
        let resource = ConfigResource::broker(self.node.0.to_string());
        let configs = image.configs().resource(&resource).cloned().unwrap_or_default();
        configs.into_iter().filter(|(key, _)| listener_tls_store_key(key).is_some()).collect()
    }

    /// The settings of `listener` (upper-case) under `dynamic`.
    fn settings(&self, listener: &str, dynamic: &Dynamic) -> Result<TlsSettings, String> {
        let serves = self.config.listeners.iter().any(|l| l.listener_name == listener);
        listener_settings_with(&self.config, listener, serves, dynamic).map_err(|e| e.to_string())
    }

    /// The listeners whose keys differ between `before` and `after`, upper-case.
    fn changed(before: &Dynamic, after: &Dynamic) -> Vec<String> {
        let keys = before.keys().chain(after.keys()).filter(|key| before.get(*key) != after.get(*key));
        let mut names: Vec<String> =
            keys.filter_map(|key| listener_tls_store_key(key)).map(|(l, _)| l.to_uppercase()).collect();
        names.dedup();
        names
    }

    fn instances<'a>(&'a self, listener: &'a str) -> impl Iterator<Item = &'a ListenerTls> + 'a {
        self.listeners.iter().filter(move |tls| tls.settings().listener == listener)
    }

    /// Checks `changes` against the current image: each listener named has TLS here, and its
    /// new settings load and keep the certificate's names.
    fn check(&self, changes: &BTreeMap<String, Option<String>>) -> Result<(), String> {
        let before = self.dynamic(&self.image.borrow());
        let mut after = before.clone();
        for (key, value) in changes {
            match value {
                Some(value) => after.insert(key.clone(), value.clone()),
                None => after.remove(key),
            };
        }
        for listener in DynamicTls::changed(&before, &after) {
            let mut instances = self.instances(&listener).peekable();
            if instances.peek().is_none() {
                return Err(format!("listener {listener} does not use SSL on this node"));
            }
            let settings = self.settings(&listener, &after)?;
            for tls in instances {
                tls.check_reconfiguration(&settings)?;
            }
        }
        Ok(())
    }

    /// Rebuilds the listeners whose dynamic store configs changed, at each new image, until
    /// aborted.
    pub async fn apply_forever(self) {
        let mut image = self.image.clone();
        let mut applied = self.dynamic(&image.borrow_and_update());
        while image.changed().await.is_ok() {
            let next = self.dynamic(&image.borrow_and_update());
            if next == applied {
                continue;
            }
            let listeners = DynamicTls::changed(&applied, &next);
            applied = next.clone();
            let this = self.clone();
            let outcome = tokio::task::spawn_blocking(move || this.apply(&listeners, &next)).await;
            if let Err(e) = outcome {
                tracing::warn!("TLS reconfiguration stopped: {e}");
            }
        }
    }

    fn apply(&self, listeners: &[String], dynamic: &Dynamic) {
        for listener in listeners {
            let rebuilt = self
                .settings(listener, dynamic)
                .and_then(|settings| self.instances(listener).try_for_each(|tls| tls.reconfigure(&settings)));
            match rebuilt {
                Ok(()) => {
                    tracing::info!("listener {listener}: TLS stores reconfigured from the dynamic broker configs")
                }
                Err(e) => tracing::warn!("listener {listener}: kept the previous TLS stores: {e}"),
            }
        }
    }
}

impl BrokerReconfiguration for DynamicTls {
    fn validate(&self, changes: BTreeMap<String, Option<String>>) -> BoxFuture<'_, Result<(), String>> {
        let this = self.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || this.check(&changes))
                .await
                .map_err(|e| format!("the check stopped: {e}"))?
        })
    }
}
