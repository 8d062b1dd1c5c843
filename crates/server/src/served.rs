//! [`ServedBroker`]: the node's request handlers once it serves its Kafka listeners, for what
//! runs beside the node in the same process (the HTTP gateway of `strand-http`, started by the
//! CLI), so that it sends its requests through the same handlers, authorizer and quotas.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock, Weak};

use strand_broker::Broker;
use strand_security::sasl::SaslServerFactory;

/// Empty until the node serves; holds no strong reference, so the handlers are gone once the
/// node shut down.
#[derive(Debug, Default)]
pub struct ServedBroker {
    broker: OnceLock<Weak<Broker>>,
    /// Each SASL listener's mechanisms, as its connections authenticate (SCRAM over the image
    /// with delegation tokens, OAUTHBEARER with the listener's JWK set), by listener name.
    sasl: OnceLock<BTreeMap<String, SaslServerFactory>>,
}

impl ServedBroker {
    /// The node's handlers, while it serves.
    pub fn get(&self) -> Option<Arc<Broker>> {
        self.broker.get().and_then(Weak::upgrade)
    }

    /// The mechanisms of SASL listener `name`, once the node authenticates its clients.
    pub fn sasl_factory(&self, name: &str) -> Option<SaslServerFactory> {
        self.sasl.get()?.get(name).cloned()
    }

    /// Records the SASL listeners' mechanisms; only the first call counts.
    pub(crate) fn set_sasl(&self, factories: BTreeMap<String, SaslServerFactory>) {
        let _ = self.sasl.set(factories);
    }

    /// Records the handlers; only the first call counts.
    pub(crate) fn set(&self, broker: &Arc<Broker>) {
        let _ = self.broker.set(Arc::downgrade(broker));
    }
}
