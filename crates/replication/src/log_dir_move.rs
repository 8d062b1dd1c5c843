//! Moving a hosted replica between the node's log directories (AlterReplicaLogDirs), as Kafka's
//! `ReplicaManager.alterReplicaLogDirs` and `ReplicaAlterLogDirsThread`: a future log is created
//! in the destination (`strand_log::future_log`), and a mover task per moving partition copies
//! into it, [`COPY_STEP_BYTES_MAX`] per step on a blocking thread, until it has caught up; the
//! swap then happens under the partition's log lock, so produce goes on throughout and loses
//! nothing. A future log found at startup (a crash or a stop mid-move) has its mover started by
//! [`ReplicaManager::resume_log_dir_moves`]. After a swap the hosting watch fires, so the shell
//! tells the controller the replica's new directory (KIP-858's AssignReplicasToDirs).
//!
//! The throttle: `replica.alter.log.dirs.io.max.bytes.per.second` bounds the bytes every mover
//! copies together (Kafka's `ALTER_LOG_DIRS_REPLICATION` quota, measured as the replication
//! throttles are, `quota.rs`): a mover waits [`THROTTLED_WAIT`] while the quota is exceeded, and
//! a throttled step reads at most a second's worth. The last copy, under the partition's lock
//! before the swap, is never held back (it is what produce appended since the step before).
//!
//! A partition not hosted yet is answered REPLICA_NOT_AVAILABLE, and its destination remembered:
//! its log is created there when this node is given it (Kafka's `maybeUpdatePreferredLogDir`).
//!
//! What it is not: the copy and swap themselves (`strand_log::future_log`), nor the request.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use strand_base::TopicPartition;
use strand_log::future_log::{COPY_STEP_BYTES_MAX, FutureCreated, copy_step};
use strand_log::manager::{SharedLog, lock};
use strand_log::{LogError, LogManager};
use strand_protocol::error::ErrorCode;

use crate::error::ReplicaError;
use crate::hosted::Shared;
use crate::manager::ReplicaManager;

/// The longest topic name whose replicas can move: Kafka's limit, so that the future
/// directory's name (`<topic>-<partition>.<32 hex>-future`) fits in a file name.
const MOVABLE_TOPIC_NAME_LEN_MAX: usize = 255;

/// How long a mover waits before looking at an exceeded throttle again.
const THROTTLED_WAIT: std::time::Duration = std::time::Duration::from_millis(50);

impl ReplicaManager {
    /// Moves `tp`'s replica to the log directory `dir` (Kafka's `alterReplicaLogDirs`, for one
    /// partition), answering as Kafka does: NONE once the move is under way or when the replica
    /// is already there, LOG_DIR_NOT_FOUND for a directory not in `log.dirs`,
    /// KAFKA_STORAGE_ERROR when it or the replica is offline, REPLICA_NOT_AVAILABLE for a
    /// partition not hosted here, INVALID_TOPIC_EXCEPTION for a name too long to move.
    pub fn alter_log_dir(&self, tp: &TopicPartition, dir: &Path) -> ErrorCode {
        if tp.topic.len() > MOVABLE_TOPIC_NAME_LEN_MAX {
            return ErrorCode::InvalidTopicException;
        }
        let dest = match self.with_logs(|logs| Ok(logs.dir_index(dir).map(|i| (i, logs.is_dir_offline(i))))) {
            Ok(Some((_, true))) => return ErrorCode::KafkaStorageError,
            Ok(Some((index, false))) => index,
            Ok(None) => return ErrorCode::LogDirNotFound,
            Err(e) => return e.code(),
        };
        match self.shared.partition(tp) {
            Ok(partition) if partition.is_offline() => return ErrorCode::KafkaStorageError,
            Ok(_) => {}
            Err(_) if self.offline().contains(tp) => return ErrorCode::KafkaStorageError,
            Err(_) => {
                // Its log goes there when this node is given it; the tool asks again until then.
                let remembered = self.with_logs(|logs| {
                    logs.set_preferred_dir(tp, dest);
                    Ok(())
                });
                if let Err(e) = remembered {
                    tracing::warn!("remembering the log dir of {tp}: {e}");
                }
                return ErrorCode::ReplicaNotAvailable;
            }
        }
        let created = self.with_logs(|logs| {
            let created = logs.create_future(tp, dest)?;
            Ok((created, logs.future(tp)))
        });
        match created {
            Ok((FutureCreated::Created, Some(future))) => {
                tracing::info!("moving {tp} to log dir {}", dir.display());
                self.spawn_mover(tp.clone(), future);
                ErrorCode::None
            }
            Ok(_) => ErrorCode::None,
            Err(e) => {
                tracing::warn!("cannot move {tp} to log dir {}: {e}", dir.display());
                ErrorCode::KafkaStorageError
            }
        }
    }

    /// Starts the mover of every future log the log manager loaded (a move a stop or a crash
    /// interrupted), as Kafka's `maybeAddLogDirFetchers` does. Needs a tokio runtime.
    pub fn resume_log_dir_moves(&self) {
        let futures = self.with_logs(|logs| Ok(logs.futures())).unwrap_or_default();
        for (tp, future) in futures {
            tracing::info!("resuming the move of {tp} to another log dir");
            self.spawn_mover(tp, future);
        }
    }

    /// The log directory holding each hosted replica's log (for AssignReplicasToDirs).
    pub fn replica_dirs(&self) -> Result<BTreeMap<TopicPartition, PathBuf>, ReplicaError> {
        self.with_logs(|logs| Ok(logs.log_dir_paths()))
    }

    fn spawn_mover(&self, tp: TopicPartition, future: SharedLog) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!("cannot move {tp} between log dirs: no runtime");
            return;
        };
        runtime.spawn(move_forever(Arc::clone(&self.logs), Arc::clone(&self.shared), tp, future));
    }
}

/// What one step of a move did.
enum Step {
    /// This many bytes copied; not caught up yet.
    Copied(u64),
    Swapped,
    /// The move was cancelled or the partition deleted: `future` is no longer its future log.
    Gone,
}

/// A mover: copy steps until the future log has caught up, then the swap.
async fn move_forever(
    logs: Arc<Mutex<Option<LogManager>>>,
    shared: Arc<Shared>,
    tp: TopicPartition,
    future: SharedLog,
) {
    loop {
        let quota = &shared.quotas.alter_log_dirs;
        while quota.is_exceeded(shared.clock.now_ms()) {
            tokio::time::sleep(THROTTLED_WAIT).await;
        }
        let max_bytes = quota.bound().map_or(COPY_STEP_BYTES_MAX, |bound| bound.clamp(1, COPY_STEP_BYTES_MAX));
        let (stepping_logs, stepping_tp, stepping_future) = (Arc::clone(&logs), tp.clone(), Arc::clone(&future));
        let step =
            tokio::task::spawn_blocking(move || step(&stepping_logs, &stepping_tp, &stepping_future, max_bytes)).await;
        match step {
            Ok(Ok(Step::Copied(bytes))) => quota.record(bytes, shared.clock.now_ms()),
            Ok(Ok(Step::Swapped)) => {
                tracing::info!("moved {tp} to its new log dir");
                shared.hosting_changed();
                return;
            }
            Ok(Ok(Step::Gone)) => return,
            Ok(Err(e)) => {
                tracing::warn!("moving {tp} between log dirs failed, the move is abandoned: {e}");
                if let Ok(mut logs) = logs.lock()
                    && let Some(logs) = logs.as_mut()
                    && logs.future(&tp).is_some_and(|f| Arc::ptr_eq(&f, &future))
                    && let Err(e) = logs.remove_future(&tp)
                {
                    tracing::warn!("removing the future log of {tp}: {e}");
                }
                return;
            }
            Err(e) => {
                tracing::warn!("the mover of {tp} stopped: {e}");
                return;
            }
        }
    }
}

/// One copy step of at most `max_bytes`, or the swap once the future log has caught up.
/// Blocks. The log manager's lock is held throughout (a bounded step), so a shutdown never
/// closes the logs under a step.
fn step(
    logs: &Mutex<Option<LogManager>>,
    tp: &TopicPartition,
    future: &SharedLog,
    max_bytes: u64,
) -> Result<Step, LogError> {
    let mut logs = logs.lock().map_err(|_| LogError::Invalid("the log manager's lock is poisoned".into()))?;
    let Some(logs) = logs.as_mut() else { return Ok(Step::Gone) };
    let still_moving = logs.future(tp).is_some_and(|f| Arc::ptr_eq(&f, future));
    let Some(current) = logs.get(tp).filter(|_| still_moving) else { return Ok(Step::Gone) };
    let copied = copy_step(&*lock(&current)?, &mut *lock(future)?, max_bytes)?;
    if !copied.caught_up {
        return Ok(Step::Copied(copied.copied_bytes));
    }
    Ok(if logs.swap_in_future(tp, future)? { Step::Swapped } else { Step::Gone })
}
