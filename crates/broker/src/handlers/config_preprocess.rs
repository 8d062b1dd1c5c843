//! The broker's own check of a config change before it goes to the controller (Kafka's
//! `ConfigAdminManager.preprocess`), for what this node applies itself: a BROKER resource naming
//! this node that changes its listeners' TLS stores (`listener.name.<l>.ssl.keystore.*`, ...) has
//! them loaded first, through the server's [`crate::BrokerReconfiguration`]. A failure answers
//! INVALID_REQUEST for that resource (Kafka's code for a config it cannot apply, KAFKA-13609),
//! which is then not forwarded.

use std::collections::BTreeMap;

use strand_metadata::controller::listener_tls_store_key;
use strand_metadata::image::{ConfigResource, ConfigResourceKind};
use strand_protocol::error::ErrorCode;

use crate::Broker;

/// A resource refused before it was forwarded: its error code and message.
pub(crate) type Refusal = (ErrorCode, String);

/// Checks one resource's changes, each key set (`Some`) or deleted (`None`); `None` when it may
/// be forwarded.
pub(crate) async fn check(
    broker: &Broker,
    resource_type: i8,
    name: &str,
    changes: impl Iterator<Item = (&str, Option<&str>)>,
) -> Option<Refusal> {
    if ConfigResourceKind::from_wire(resource_type) != Some(ConfigResourceKind::Broker)
        || name != broker.identity.node_id.0.to_string()
    {
        return None;
    }
    let stores: BTreeMap<String, Option<String>> = changes
        .filter(|(key, _)| listener_tls_store_key(key).is_some())
        .map(|(key, value)| (key.to_owned(), value.map(str::to_owned)))
        .collect();
    if stores.is_empty() {
        return None;
    }
    let outcome = match &broker.reconfiguration {
        Some(reconfiguration) => reconfiguration.validate(stores).await,
        None => Err("this node reloads no TLS stores".to_owned()),
    };
    outcome.err().map(|reason| {
        (ErrorCode::InvalidRequest, format!("Validation of dynamic config update of SSLFactory failed: {reason}"))
    })
}

/// The TLS store keys a legacy AlterConfigs of this node's resource deletes: those it has now
/// and the request leaves out (the request's set replaces the resource's).
pub(crate) fn left_out<'a>(broker: &Broker, name: &str, given: &[&str]) -> Vec<(String, Option<&'a str>)> {
    let image = broker.image();
    let current = image.configs().resource(&ConfigResource::broker(name)).cloned().unwrap_or_default();
    current
        .into_keys()
        .filter(|key| listener_tls_store_key(key).is_some() && !given.contains(&key.as_str()))
        .map(|key| (key, None))
        .collect()
}

/// `resources` without those at the `refused` positions: what goes to the controller.
pub(crate) fn unrefused<T, A>(resources: Vec<T>, refused: &BTreeMap<usize, A>) -> Vec<T> {
    resources.into_iter().enumerate().filter(|(index, _)| !refused.contains_key(index)).map(|(_, r)| r).collect()
}

/// The responses of a request whose resources at `refused` positions were answered here and
/// the rest by the controller (`forwarded`, in order): one per resource, in request order.
pub(crate) fn merge<T>(count: usize, refused: BTreeMap<usize, T>, forwarded: Vec<T>) -> Vec<T> {
    let mut refused = refused;
    let mut forwarded = forwarded.into_iter();
    (0..count).filter_map(|index| refused.remove(&index).or_else(|| forwarded.next())).collect()
}
