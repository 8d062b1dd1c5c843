//! Pipelined decisions, as Kafka's controller makes them: a decision's records are handed to the
//! quorum under the decision lock (so batches are logged in decision order), replayed at once
//! onto the image they were decided on, and the lock is released before they commit. The next
//! decision is made on that uncommitted image, so the lock is never held through the metadata
//! log's fsync and a majority's acknowledgement, only through deciding.
//!
//! Why this is safe: Raft commits a leader's log as a prefix, so a batch decided on an earlier
//! one's uncommitted effects commits only if that one does. A batch that fails (the leadership
//! was lost) fails every later one of the same leadership too; the uncommitted image is then
//! dropped, and so is one of an earlier leadership. An answer decided on an uncommitted image
//! that writes nothing (a refusal, a read) waits for the newest batch to commit before it goes
//! out, as Kafka's answers wait for its highest pending offset.

use std::future::Future;
use std::sync::{Arc, Mutex};

use tokio::sync::{Semaphore, watch};

use super::{ControllerError, ControllerLog};
use crate::controller::ApiMessageAndVersion;
use crate::image::{MetadataDelta, MetadataImage, MetadataProvenance};

/// How many batches may be handed to the quorum and not yet committed; the next decision
/// waits (holding the lock) for the oldest to commit. Bounds the tasks awaiting commits when
/// the quorum stalls.
pub(super) const IN_FLIGHT_BATCHES_MAX: usize = 64;

/// How a batch in flight ended: its last offset, in the image, or why not.
type Outcome = Option<Result<i64, ControllerError>>;

/// The newest decision's image while its records are not committed.
#[derive(Clone)]
struct Uncommitted {
    /// The leadership its records were handed to; worthless in any other.
    epoch: i32,
    image: Arc<MetadataImage>,
    /// The offset the next batch gets at least.
    next_offset: i64,
    /// The newest batch's outcome once known.
    outcome: watch::Receiver<Outcome>,
}

/// What a decision is made on: the committed image, or the newest uncommitted one.
#[derive(Clone)]
pub(super) struct Base {
    pub(super) image: Arc<MetadataImage>,
    in_flight: Option<Uncommitted>,
}

impl Base {
    pub(super) fn committed(image: Arc<MetadataImage>) -> Base {
        Base { image, in_flight: None }
    }

    /// Whether `other` is this very image (nothing was decided between the two).
    pub(super) fn same(&self, other: &Base) -> bool {
        Arc::ptr_eq(&self.image, &other.image)
    }

    /// The offset an answer decided on this image depends on, once it may be given: at once
    /// for a committed image, after the newest batch committed for an uncommitted one (an
    /// error if it could not be).
    pub(super) async fn settled(&self) -> Result<i64, ControllerError> {
        match &self.in_flight {
            None => Ok(self.image.provenance().offset),
            Some(in_flight) => outcome(in_flight.outcome.clone()).await,
        }
    }

    /// The offset the next batch decided on this image gets at least, per the log.
    fn next_offset(&self, log: &dyn ControllerLog) -> i64 {
        let in_flight = self.in_flight.as_ref().map_or(i64::MIN, |u| u.next_offset);
        log.next_offset().max(in_flight)
    }
}

/// The controller's batches in flight (see the module doc).
pub(super) struct Pipeline {
    newest: Arc<Mutex<Option<Uncommitted>>>,
    slots: Arc<Semaphore>,
}

impl Pipeline {
    pub(super) fn new() -> Pipeline {
        Pipeline { newest: Arc::new(Mutex::new(None)), slots: Arc::new(Semaphore::new(IN_FLIGHT_BATCHES_MAX)) }
    }

    /// The newest uncommitted image of leadership `epoch`, if one of its batches is in flight.
    pub(super) fn newest(&self, epoch: i32) -> Option<Base> {
        let newest = lock(&self.newest).clone().filter(|u| u.epoch == epoch)?;
        Some(Base { image: newest.image.clone(), in_flight: Some(newest) })
    }

    /// Hands `records`, decided on `base`, to `log` and makes the image with them the newest.
    /// Call under the decision lock. Returns that image (to decide on next) and what resolves once the batch is in
    /// the committed image (`images`) with its last offset. Records that do not replay onto
    /// `base` (a decision's bug) are refused, nothing written.
    pub(super) async fn submit(
        &self,
        log: &dyn ControllerLog,
        images: watch::Receiver<Arc<MetadataImage>>,
        base: &Base,
        records: Vec<ApiMessageAndVersion>,
    ) -> Result<(Base, impl Future<Output = Result<i64, ControllerError>> + use<>), ControllerError> {
        let mut delta = MetadataDelta::new(&base.image);
        for record in &records {
            delta.replay(&record.record).map_err(|e| {
                tracing::error!("controller: a decision's {record:?} does not replay on its image: {e}");
                ControllerError::Commit(format!("the decision does not replay on its image: {e}"))
            })?;
        }
        let slot = Arc::clone(&self.slots).acquire_owned().await.map_err(|_| ControllerError::ImageStopped)?;
        let count = i64::try_from(records.len()).unwrap_or(i64::MAX);
        let next_offset = base.next_offset(log).saturating_add(count);
        let epoch = log.leader_epoch();
        let committing = log.submit(records).await?;
        let image = Arc::new(delta.apply(MetadataProvenance { offset: next_offset - 1, epoch }));
        let (sender, receiver) = watch::channel(None);
        let newest = Uncommitted { epoch, image: image.clone(), next_offset, outcome: receiver.clone() };
        *lock(&self.newest) = Some(newest.clone());
        let after = Base { image: image.clone(), in_flight: Some(newest) };
        let newest = Arc::clone(&self.newest);
        let mine = image.clone();
        // Its own task, so the batch's outcome is recorded (and the pipeline left) even when
        // the request that decided it is dropped.
        tokio::spawn(async move {
            let result = match committing.await {
                Ok(offset) => in_image(images, offset).await,
                Err(e) => Err(ControllerError::from(e)),
            };
            {
                let mut newest = lock(&newest);
                let still_mine = newest.as_ref().is_some_and(|u| Arc::ptr_eq(&u.image, &mine));
                if still_mine || result.is_err() {
                    *newest = None;
                }
            }
            sender.send_replace(Some(result));
            drop(slot);
        });
        Ok((after, outcome(receiver)))
    }
}

/// `offset`, once the committed image has it.
async fn in_image(mut images: watch::Receiver<Arc<MetadataImage>>, offset: i64) -> Result<i64, ControllerError> {
    match images.wait_for(|i| i.provenance().offset >= offset).await {
        Ok(_) => Ok(offset),
        Err(_) => Err(ControllerError::ImageStopped),
    }
}

/// A batch's outcome, once known.
async fn outcome(mut outcome: watch::Receiver<Outcome>) -> Result<i64, ControllerError> {
    match outcome.wait_for(Option::is_some).await {
        Ok(known) => known.clone().unwrap_or(Err(ControllerError::ImageStopped)),
        // The task recording it is gone: the runtime is shutting down.
        Err(_) => Err(ControllerError::ImageStopped),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
