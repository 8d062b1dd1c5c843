//! [`ControllerAddresses`]: each controller's CONTROLLER listener, `host:port`, by node id, shared
//! by every link to the controllers (the quorum's transport, the controller client, observers'
//! metadata fetches).
//!
//! A static quorum's voters' addresses are `controller.quorum.voters`, fixed; controllers added
//! once it is upgraded to `kraft.version` 1 come from their registrations. A dynamic quorum's
//! (KIP-853) change: they start from the initial voters `strand storage format` recorded and from
//! `controller.quorum.bootstrap.servers` (under negative ids, as Kafka numbers bootstrap servers,
//! since their node ids are not known), and follow the controllers' registrations in the image
//! ([`follow_controller_registrations`]).

use std::collections::BTreeMap;
use std::sync::{Arc, PoisonError, RwLock};

use strand_metadata::image::MetadataImage;
use tokio::sync::watch;

/// The controllers' CONTROLLER listeners by node id. Cheap to clone; clones share one table.
#[derive(Debug, Clone, Default)]
pub struct ControllerAddresses {
    table: Arc<RwLock<BTreeMap<i32, String>>>,
}

impl ControllerAddresses {
    pub fn new(addresses: BTreeMap<i32, String>) -> ControllerAddresses {
        ControllerAddresses { table: Arc::new(RwLock::new(addresses)) }
    }

    /// The id Kafka gives the `index`th bootstrap server (`-2`, `-3`, ...).
    pub fn bootstrap_id(index: usize) -> i32 {
        -2 - i32::try_from(index).unwrap_or(i32::MAX - 2)
    }

    pub fn get(&self, id: i32) -> Option<String> {
        self.table.read().unwrap_or_else(PoisonError::into_inner).get(&id).cloned()
    }

    pub fn set(&self, id: i32, address: String) {
        self.table.write().unwrap_or_else(PoisonError::into_inner).insert(id, address);
    }
}

/// Keeps `addresses` up to date with the controllers' registrations in `image` (the endpoint
/// named `listener_name`, else the first), but for the `fixed` ids (`controller.quorum.voters`),
/// until the image's sender goes.
pub async fn follow_controller_registrations(
    addresses: ControllerAddresses,
    mut image: watch::Receiver<Arc<MetadataImage>>,
    listener_name: String,
    fixed: Vec<i32>,
) {
    loop {
        let found: Vec<(i32, String)> = {
            let image = image.borrow_and_update();
            image
                .cluster()
                .controllers()
                .filter(|controller| !fixed.contains(&controller.id))
                .filter_map(|controller| {
                    let named = controller.endpoints.iter().find(|e| e.name == listener_name);
                    let endpoint = named.or_else(|| controller.endpoints.first())?;
                    Some((controller.id, format!("{}:{}", endpoint.host, endpoint.port)))
                })
                .collect()
        };
        for (id, address) in found {
            if addresses.get(id).as_deref() != Some(address.as_str()) {
                addresses.set(id, address);
            }
        }
        if image.changed().await.is_err() {
            return;
        }
    }
}
