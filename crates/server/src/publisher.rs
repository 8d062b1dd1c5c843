//! The node's [`Reconcile`]: the broker's [`BrokerMetadataPublisher`] (which brings the replicas
//! and the coordinators' leaderships in line with each image), and what only the process knows
//! of, the open-files limit the hosted partitions may outgrow. The node's metadata replay
//! (`metadata_replay`) calls it on a blocking thread before it publishes each image to the
//! request handlers.

use strand_broker::{BrokerMetadataPublisher, NEW_REPLICAS_PER_PASS_MAX};
use strand_metadata::image::MetadataImage;

use crate::log_dirs::warn_if_open_files_too_few;
use crate::metadata_replay::{Reconcile, Reconciled};

impl Reconcile for BrokerMetadataPublisher {
    /// Publishes `image`, hosting at most [`NEW_REPLICAS_PER_PASS_MAX`] new partitions (the rest
    /// in the passes that follow; a partition that cannot be hosted is logged, and answers
    /// KAFKA_STORAGE_ERROR until it can), then warns if the partitions now hosted may need more
    /// open files than the process may have.
    fn reconcile(&self, image: &MetadataImage) -> Reconciled {
        let outcome = self.publish_within(image, NEW_REPLICAS_PER_PASS_MAX);
        warn_if_open_files_too_few(self.replicas().given_count());
        if outcome.deferred.is_empty() { Reconciled::Done } else { Reconciled::Partly }
    }
}
