//! Where other brokers listen: each registered broker's endpoint on one listener (the
//! inter-broker listener), read from the metadata image at every call, so a broker that
//! restarted on another port is found there.

use std::sync::Arc;

use strand_base::BrokerId;
use strand_metadata::image::MetadataImage;
use tokio::sync::watch;

/// The brokers' addresses on one listener.
#[derive(Debug, Clone)]
pub struct BrokerDirectory {
    image: watch::Receiver<Arc<MetadataImage>>,
    listener_name: String,
}

impl BrokerDirectory {
    pub fn new(image: watch::Receiver<Arc<MetadataImage>>, listener_name: String) -> BrokerDirectory {
        BrokerDirectory { image, listener_name }
    }

    /// `host:port` of `broker` on the listener; why not, when it is not registered or has no such
    /// listener.
    pub fn address(&self, broker: BrokerId) -> Result<String, String> {
        let image = self.image.borrow();
        let registration =
            image.cluster().broker(broker).ok_or_else(|| format!("broker {broker} is not registered"))?;
        let endpoint = registration
            .endpoints
            .iter()
            .find(|e| e.name == self.listener_name)
            .ok_or_else(|| format!("broker {broker} has no {} listener", self.listener_name))?;
        Ok(format!("{}:{}", endpoint.host, endpoint.port))
    }

    /// The current metadata image.
    pub fn image(&self) -> Arc<MetadataImage> {
        self.image.borrow().clone()
    }
}
