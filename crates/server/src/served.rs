//! [`ServedBroker`]: the node's request handlers once it serves its Kafka listeners, for what
//! runs beside the node in the same process (the HTTP gateway of `strand-http`, started by the
//! CLI), so that it sends its requests through the same handlers, authorizer and quotas.

use std::sync::{Arc, OnceLock, Weak};

use strand_broker::Broker;

/// Empty until the node serves; holds no strong reference, so the handlers are gone once the
/// node shut down.
#[derive(Debug, Default)]
pub struct ServedBroker {
    broker: OnceLock<Weak<Broker>>,
}

impl ServedBroker {
    /// The node's handlers, while it serves.
    pub fn get(&self) -> Option<Arc<Broker>> {
        self.broker.get().and_then(Weak::upgrade)
    }

    /// Records the handlers; only the first call counts.
    pub(crate) fn set(&self, broker: &Arc<Broker>) {
        let _ = self.broker.set(Arc::downgrade(broker));
    }
}
