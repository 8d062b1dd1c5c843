//! From committed metadata records to the images a node reads: each [`CommittedBatch`] is
//! applied to the *raw* image (the controller decides on it), this node's hosted partitions and
//! coordinators are brought in line with it, and only then is it *published* to the request
//! handlers, so a client that sees a topic can use it.

use std::sync::Arc;

use strand_metadata::image::{MetadataDelta, MetadataImage, MetadataProvenance};
use strand_metadata::quorum::CommittedBatch;
use tokio::sync::{mpsc, oneshot, watch};
use tracing::{debug, error, info};

/// What brings the node's hosted replicas and coordinators in line with an image (the node's
/// `Hosts`; a stand-in in tests).
pub trait Reconcile: Send + Sync + 'static {
    fn reconcile(&self, image: &MetadataImage);
}

/// The node's hosts, handed to [`replay_forever`] once the node can host partitions;
/// `reconciled` fires once the image current then is reconciled.
pub struct Handoff<R> {
    pub hosts: R,
    pub reconciled: oneshot::Sender<()>,
}

impl<R> std::fmt::Debug for Handoff<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handoff").finish_non_exhaustive()
    }
}

/// Why a batch could not be replayed: a record that does not fit the image.
#[derive(Debug, thiserror::Error)]
#[error("metadata replay: {0}")]
pub struct ReplayFailed(String);

/// The image after `batch`: `image` changed by its records, or for a snapshot, the image its
/// records recreate.
pub fn apply(image: &MetadataImage, batch: &CommittedBatch) -> Result<MetadataImage, ReplayFailed> {
    let empty = MetadataImage::empty();
    let mut delta = MetadataDelta::new(if batch.snapshot { &empty } else { image });
    for (record, _) in &batch.records {
        delta.replay(record).map_err(|e| ReplayFailed(e.to_string()))?;
    }
    Ok(delta.apply(MetadataProvenance { offset: batch.last_offset, epoch: batch.epoch }))
}

/// Applies every committed batch: publishes the image to the controller at once, then
/// reconciles what this node hosts (once they are handed over) and publishes it to the handlers.
pub async fn replay_forever<R: Reconcile>(
    mut committed: mpsc::Receiver<CommittedBatch>,
    raw: watch::Sender<Arc<MetadataImage>>,
    published: watch::Sender<Arc<MetadataImage>>,
    mut handoff: mpsc::Receiver<Handoff<R>>,
) {
    let mut hosts: Option<R> = None;
    loop {
        tokio::select! {
            Some(given) = handoff.recv(), if hosts.is_none() => {
                let current = raw.borrow().clone();
                given.hosts.reconcile(&current);
                published.send_replace(current);
                hosts = Some(given.hosts);
                let _ = given.reconciled.send(());
            }
            batch = committed.recv() => {
                let Some(batch) = batch else { return };
                if batch.snapshot {
                    info!(
                        "metadata image loaded from the snapshot ending at offset {} (epoch {}): {} records",
                        batch.last_offset + 1,
                        batch.epoch,
                        batch.records.len()
                    );
                }
                let current = raw.borrow().clone();
                let started = tokio::time::Instant::now();
                match apply(&current, &batch) {
                    Ok(next) => {
                        let next = Arc::new(next);
                        let applied = started.elapsed();
                        raw.send_replace(next.clone());
                        if let Some(hosts) = &hosts {
                            hosts.reconcile(&next);
                        }
                        debug!(
                            "metadata batch of {} records: applied in {:.3} ms, reconciled in {:.3} ms",
                            batch.records.len(),
                            applied.as_secs_f64() * 1e3,
                            (started.elapsed() - applied).as_secs_f64() * 1e3
                        );
                        published.send_replace(next);
                    }
                    Err(e) => {
                        error!("stopping metadata replay: {e}");
                        return;
                    }
                }
            }
        }
    }
}
