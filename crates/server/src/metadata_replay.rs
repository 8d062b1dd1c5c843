//! From committed metadata records to the images a node reads, in two stages that never wait on
//! each other's work:
//!
//! - [`replay_forever`]'s replay: each [`CommittedBatch`] is applied to the *raw* image at once.
//!   The controller decides on it and waits for it before it releases its decision lock, so
//!   nothing slow runs here: only the replay itself.
//! - its reconcile: this node's hosted partitions and coordinators are brought in line with the
//!   newest raw image (creating a new partition's directory and files, deleting a deleted one's),
//!   on a blocking thread; only then is that image *published* to the request handlers, so a
//!   client that sees a topic can use it. A pass compares the newest image with the one the
//!   last pass visited (the publisher diffs them), so the images that arrive while one is
//!   reconciled are folded into the next pass, as Kafka's broker folds the deltas it has not
//!   published yet.
//!
//! A pass hosts a bounded number of new partitions (the publisher's
//! `NEW_REPLICAS_PER_PASS_MAX`): when it leaves some for later, its image is published all the
//! same and the next pass follows at once, so a CreateTopics of thousands of partitions (whose
//! answer waits for the published image) is answered after the first hundred exist, and the
//! rest are hosted pass after pass, each over the newest image. Until its pass, such a partition
//! answers as one not hosted here (NOT_LEADER_OR_FOLLOWER, a fetch waits), as a Kafka broker's
//! does between its metadata cache and its replica manager; one that cannot be hosted answers
//! KAFKA_STORAGE_ERROR.
//!
//! One task that replayed and reconciled each batch in turn made a CreateTopics of 1,000 topics
//! (seconds of directory and file creation on a busy disk) hold up the next batch's replay, and
//! with it the controller's decision lock, for as long
//! (`bench/results/2026-12-02-createtopics-stall.md`); the answer itself waited for every
//! partition's files (`bench/results/2026-12-03-create-rate.md`).

use std::sync::Arc;

use strand_metadata::image::{MetadataDelta, MetadataImage, MetadataProvenance};
use strand_metadata::quorum::CommittedBatch;
use tokio::sync::{mpsc, oneshot, watch};
use tracing::{debug, error, info};

/// What brings the node's hosted replicas and coordinators in line with an image (the node's
/// `BrokerMetadataPublisher`; a stand-in in tests).
pub trait Reconcile: Send + Sync + 'static {
    /// One pass over `image`; whether it is done, or left work (partitions to host) for a next
    /// pass.
    fn reconcile(&self, image: &MetadataImage) -> Reconciled;
}

/// What a [`Reconcile`] pass did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reconciled {
    /// The hosts are in line with the image.
    Done,
    /// Work is left for a next pass, which follows at once.
    Partly,
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

/// Applies every committed batch to the raw image as it comes and publishes each image once the
/// hosts (after their [`Handoff`]; at once before it) are reconciled with it. Stops at a batch
/// that does not replay, or if a reconcile panics.
pub async fn replay_forever<R: Reconcile>(
    committed: mpsc::Receiver<CommittedBatch>,
    raw: watch::Sender<Arc<MetadataImage>>,
    published: watch::Sender<Arc<MetadataImage>>,
    handoff: mpsc::Receiver<Handoff<R>>,
) {
    let raw_images = raw.subscribe();
    tokio::join!(replay(committed, raw), reconcile(raw_images, published, handoff));
}

/// Applies every committed batch to the raw image. Returns at a batch that does not replay (the
/// raw image then stops updating, and so does everything after it).
async fn replay(mut committed: mpsc::Receiver<CommittedBatch>, raw: watch::Sender<Arc<MetadataImage>>) {
    while let Some(batch) = committed.recv().await {
        if batch.snapshot {
            info!(
                "metadata image loaded from the snapshot ending at offset {} (epoch {}): {} records",
                batch.last_offset + 1,
                batch.epoch,
                batch.records.len()
            );
        }
        let started = tokio::time::Instant::now();
        let current = raw.borrow().clone();
        match apply(&current, &batch) {
            Ok(next) => {
                raw.send_replace(Arc::new(next));
                let ms = started.elapsed().as_secs_f64() * 1e3;
                debug!("metadata batch of {} records applied in {ms:.3} ms", batch.records.len());
            }
            Err(e) => {
                error!("stopping metadata replay: {e}");
                return;
            }
        }
    }
}

/// Publishes the newest raw image once the hosts are reconciled with it, one pass at a time on
/// a blocking thread. Returns when the raw image stops updating, or if a reconcile panics.
async fn reconcile<R: Reconcile>(
    mut raw: watch::Receiver<Arc<MetadataImage>>,
    published: watch::Sender<Arc<MetadataImage>>,
    mut handoff: mpsc::Receiver<Handoff<R>>,
) {
    let mut hosts: Option<Arc<R>> = None;
    let mut reconciled: Option<oneshot::Sender<()>> = None;
    loop {
        let next = raw.borrow_and_update().clone();
        let mut pass = Reconciled::Done;
        if let Some(hosts) = &hosts {
            let (hosts, image) = (hosts.clone(), next.clone());
            let started = tokio::time::Instant::now();
            match tokio::task::spawn_blocking(move || hosts.reconcile(&image)).await {
                Ok(done) => pass = done,
                Err(e) => {
                    error!("stopping metadata replay: reconciling the hosted partitions failed: {e}");
                    return;
                }
            }
            let ms = started.elapsed().as_secs_f64() * 1e3;
            debug!("hosts reconciled ({pass:?}) with the image at offset {} in {ms:.3} ms", next.provenance().offset);
        }
        published.send_replace(next);
        if pass == Reconciled::Partly {
            continue;
        }
        if let Some(done) = reconciled.take() {
            let _ = done.send(());
        }
        tokio::select! {
            changed = raw.changed() => {
                if changed.is_err() {
                    return;
                }
            }
            Some(given) = handoff.recv(), if hosts.is_none() => {
                hosts = Some(Arc::new(given.hosts));
                reconciled = Some(given.reconciled);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::Duration;

    use strand_base::Uuid;
    use strand_protocol::messages::TopicRecord;
    use strand_protocol::messages::records::MetadataRecord;

    use super::*;

    /// How long a test waits for an event that should come at once (a failsafe, not a pace).
    const EVENT_WAIT_MAX: Duration = Duration::from_secs(10);

    /// Hosts whose reconcile of the image at `blocked_offset` reports that it started and then
    /// holds its thread, as creating a thousand partitions' files on a busy disk does, until the
    /// test releases it (or drops the release, on a failed assertion).
    struct SlowHosts {
        blocked_offset: i64,
        entered: mpsc::UnboundedSender<i64>,
        release: Mutex<std::sync::mpsc::Receiver<()>>,
    }

    impl Reconcile for SlowHosts {
        fn reconcile(&self, image: &MetadataImage) -> Reconciled {
            let offset = image.provenance().offset;
            let _ = self.entered.send(offset);
            if offset == self.blocked_offset {
                let _ = self.release.lock().map(|release| release.recv());
            }
            Reconciled::Done
        }
    }

    /// Hosts whose first pass over the image at `offset` leaves work for later (as a CreateTopics
    /// of thousands of partitions does), and whose next pass reports that it started and then
    /// holds its thread until the test releases it.
    struct PartlyHosts {
        offset: i64,
        passes: std::sync::atomic::AtomicUsize,
        entered: mpsc::UnboundedSender<i64>,
        release: Mutex<std::sync::mpsc::Receiver<()>>,
    }

    impl Reconcile for PartlyHosts {
        fn reconcile(&self, image: &MetadataImage) -> Reconciled {
            if image.provenance().offset != self.offset {
                return Reconciled::Done;
            }
            let pass = self.passes.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let _ = self.entered.send(image.provenance().offset);
            if pass == 0 {
                return Reconciled::Partly;
            }
            let _ = self.release.lock().map(|release| release.recv());
            Reconciled::Done
        }
    }

    /// A pass that leaves partitions for later publishes its image all the same (a CreateTopics
    /// waiting for it is answered), and the next pass over the same image follows without a new
    /// batch.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_image_is_published_before_its_last_partitions_are_hosted() {
        let (committed_tx, committed) = mpsc::channel(16);
        let (raw_tx, _raw) = watch::channel(Arc::new(MetadataImage::empty()));
        let (published_tx, mut published) = watch::channel(Arc::new(MetadataImage::empty()));
        let (handoff_tx, handoff) = mpsc::channel(1);
        let replay = tokio::spawn(replay_forever(committed, raw_tx, published_tx, handoff));
        let (entered_tx, mut entered) = mpsc::unbounded_channel();
        let (release, release_rx) = std::sync::mpsc::channel();
        let passes = std::sync::atomic::AtomicUsize::new(0);
        let hosts = PartlyHosts { offset: 0, passes, entered: entered_tx, release: Mutex::new(release_rx) };
        let (reconciled_tx, reconciled) = oneshot::channel();
        handoff_tx.send(Handoff { hosts, reconciled: reconciled_tx }).await.expect("handoff");
        tokio::time::timeout(EVENT_WAIT_MAX, reconciled).await.expect("first reconcile in time").expect("reconciled");

        committed_tx.send(topic_batch(0)).await.expect("batch 0");
        for pass in 0..2 {
            let entered = tokio::time::timeout(EVENT_WAIT_MAX, entered.recv()).await;
            assert_eq!(entered.expect("a pass in time"), Some(0), "pass {pass} over the image at offset 0");
        }
        let seen = tokio::time::timeout(EVENT_WAIT_MAX, published.wait_for(|i| i.provenance().offset >= 0)).await;
        let image = seen.expect("published while the second pass holds its thread").expect("replay running").clone();
        assert!(image.topics().by_name("t0").is_some());
        release.send(()).expect("release the second pass");
        replay.abort();
    }

    /// A batch at `offset` creating one topic.
    fn topic_batch(offset: i64) -> CommittedBatch {
        let topic =
            TopicRecord { name: format!("t{offset}"), topic_id: Uuid([offset as u8 + 1; 16]), ..Default::default() };
        CommittedBatch {
            base_offset: offset,
            last_offset: offset,
            epoch: 1,
            append_time_ms: 0,
            records: vec![(MetadataRecord::TopicRecord(topic), 0)],
            snapshot: false,
        }
    }

    /// The controller's image keeps up with the log while this node's hosts take their time over
    /// an earlier image: the controller waits for that image before it releases its decision lock
    /// (issue 15, finding 2: a CreateTopics of 1,000 topics held it for seconds). The handlers'
    /// image still shows nothing the hosts have not reconciled.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_raw_image_does_not_wait_for_a_slow_reconcile() {
        let (committed_tx, committed) = mpsc::channel(16);
        let (raw_tx, mut raw) = watch::channel(Arc::new(MetadataImage::empty()));
        let (published_tx, mut published) = watch::channel(Arc::new(MetadataImage::empty()));
        let (handoff_tx, handoff) = mpsc::channel(1);
        let replay = tokio::spawn(replay_forever(committed, raw_tx, published_tx, handoff));

        let (entered_tx, mut entered) = mpsc::unbounded_channel();
        let (release, release_rx) = std::sync::mpsc::channel();
        let hosts = SlowHosts { blocked_offset: 0, entered: entered_tx, release: Mutex::new(release_rx) };
        let (reconciled_tx, reconciled) = oneshot::channel();
        handoff_tx.send(Handoff { hosts, reconciled: reconciled_tx }).await.expect("handoff");
        tokio::time::timeout(EVENT_WAIT_MAX, reconciled).await.expect("first reconcile in time").expect("reconciled");

        committed_tx.send(topic_batch(0)).await.expect("batch 0");
        let started = async {
            while let Some(offset) = entered.recv().await {
                if offset == 0 {
                    return;
                }
            }
        };
        tokio::time::timeout(EVENT_WAIT_MAX, started).await.expect("the reconcile of batch 0 started");
        committed_tx.send(topic_batch(1)).await.expect("batch 1");
        let raw_moved = tokio::time::timeout(EVENT_WAIT_MAX, raw.wait_for(|i| i.provenance().offset >= 1)).await;
        assert!(raw_moved.is_ok(), "the raw image waited for the hosts' reconcile of an earlier image");
        assert!(
            published.borrow().provenance().offset < 0,
            "an image was published before the hosts were reconciled with it"
        );

        release.send(()).expect("release the reconcile");
        let caught_up = tokio::time::timeout(EVENT_WAIT_MAX, published.wait_for(|i| i.provenance().offset >= 1)).await;
        let image = caught_up.expect("published in time").expect("replay running").clone();
        assert!(image.topics().by_name("t1").is_some());
        replay.abort();
    }
}
