//! One shard's task, for either coordinator: load the partition, then serve commands, the
//! kind's events and timers one at a time, appending each operation's records and releasing its
//! effects once they are committed ([`ShardContext::carry_out`]). A failed append reloads the
//! shard or, once leadership is lost, ends the task.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use strand_base::{LeaderEpoch, TopicPartition};
use strand_protocol::records::{RecordBatch, RecordsError};
use tokio::sync::{mpsc, oneshot, watch};

use super::load::read_partition;
use super::registry::Runtime;
use super::{Append, Command, ShardKind, ShardStatus};
use crate::writer::WriteError;

/// Why loading a shard failed.
#[derive(Debug, thiserror::Error)]
enum LoadError<E: std::error::Error + 'static> {
    #[error("reading the partition: {0}")]
    Write(#[from] WriteError),
    #[error("a batch of the partition is unreadable: {0}")]
    Records(#[from] RecordsError),
    #[error("a record of the partition is unreadable: {0}")]
    Record(E),
}

/// How the serving loop ended.
enum Next {
    /// The shard is ahead of its log after a failed append: load it again.
    Reload,
    /// Resigned, lost leadership, or the coordinator is gone.
    Stop,
}

/// The task owning one shard.
pub(super) struct ShardTask<K: ShardKind> {
    context: ShardContext<K>,
    status: watch::Sender<ShardStatus>,
    kind: K,
}

/// Where a shard task stands: its partition, the epoch it leads it at, and what it shares with
/// the coordinator. Given to the kind's methods, for the clock and for appending.
pub(crate) struct ShardContext<K: ShardKind> {
    runtime: Arc<Runtime<K>>,
    pub(crate) tp: TopicPartition,
    pub(crate) leader_epoch: LeaderEpoch,
}

impl<K: ShardKind> ShardTask<K> {
    pub(super) fn new(
        runtime: Arc<Runtime<K>>,
        partition: i32,
        leader_epoch: LeaderEpoch,
        status: watch::Sender<ShardStatus>,
    ) -> Self {
        let context = ShardContext { runtime, tp: TopicPartition::new(K::TOPIC, partition), leader_epoch };
        let kind = K::new(&context);
        ShardTask { context, status, kind }
    }

    pub(super) async fn run(mut self, mut commands: mpsc::Receiver<Command<K>>, mut stop: oneshot::Receiver<()>) {
        loop {
            self.status.send_replace(ShardStatus::Loading);
            let loaded = tokio::select! {
                biased;
                _ = &mut stop => break,
                loaded = self.load() => loaded,
            };
            if let Err(error) = loaded {
                tracing::error!(partition = %self.context.tp, %error, "could not load the {} shard", K::NAME);
                break;
            }
            self.status.send_replace(ShardStatus::Active);
            match self.serve(&mut commands, &mut stop).await {
                Next::Reload => continue,
                Next::Stop => break,
            }
        }
        self.status.send_replace(ShardStatus::NotLed);
        // What waits on the shard and queued commands are dropped: their callers answer
        // NOT_COORDINATOR.
        self.kind.stop();
        commands.close();
        self.context.runtime.forget(self.context.tp.partition, self.context.leader_epoch);
    }

    /// Replays the partition from its start into a fresh shard: everything earlier leaders wrote
    /// is waited for (until committed) and read.
    async fn load(&mut self) -> Result<(), LoadError<K::RecordError>> {
        let ShardTask { context, kind, .. } = self;
        kind.reset(context);
        let writer = &*context.runtime.writer;
        let next = read_partition(writer, &context.tp, |batch| replay_batch(kind, &context.tp, batch)).await?;
        kind.on_loaded(context, context.now_ms(), next);
        Ok(())
    }

    /// Serves commands, events and timers until the shard must be reloaded or stopped.
    async fn serve(&mut self, commands: &mut mpsc::Receiver<Command<K>>, stop: &mut oneshot::Receiver<()>) -> Next {
        let ShardTask { context, kind, .. } = self;
        loop {
            let sleep = context.time_until(kind.next_deadline());
            let step = tokio::select! {
                biased;
                _ = &mut *stop => return Next::Stop,
                event = kind.next_event() => kind.on_event(context, event).await,
                _ = sleep_for(sleep) => {
                    let now_ms = context.now_ms();
                    let (records, effects) = kind.on_timer(now_ms);
                    context.carry_out(kind, records, effects, now_ms).await
                }
                command = commands.recv() => match command {
                    None => return Next::Stop,
                    Some(Command::Read(op)) => {
                        op(kind.shard(), context.now_ms());
                        Ok(())
                    }
                    Some(Command::Write(write)) => kind.write(context, write).await,
                },
            };
            if let Err(error) = step {
                return if error.lost_leadership() { Next::Stop } else { Next::Reload };
            }
        }
    }
}

impl<K: ShardKind> ShardContext<K> {
    pub(crate) fn shared(&self) -> &K::Shared {
        &self.runtime.shared
    }

    pub(crate) fn now_ms(&self) -> i64 {
        self.runtime.clock.now_ms()
    }

    /// Appends an operation's records as one batch, then releases its effects; on failure fails
    /// them with the error Kafka gives and returns the error, for the task to reload or stop.
    pub(crate) async fn carry_out(
        &self,
        kind: &mut K,
        records: Vec<K::Record>,
        effects: K::Effects,
        now_ms: i64,
    ) -> Result<(), WriteError> {
        let appended = match (!records.is_empty()).then(|| K::encode(&records, &effects, now_ms)) {
            None => Ok(()),
            Some(Ok(batch)) => self.append(batch).await,
            Some(Err(error)) => Err(error),
        };
        match appended {
            Ok(()) => {
                kind.release(effects);
                Ok(())
            }
            Err(error) => {
                tracing::warn!(partition = %self.tp, %error, "could not append {} records; reloading", K::NAME);
                kind.fail(effects, error.response_error());
                Err(error)
            }
        }
    }

    /// Appends `batch` as leader at the task's epoch and waits for it to be committed.
    pub(crate) async fn append(&self, batch: Append) -> Result<(), WriteError> {
        let writer = &self.runtime.writer;
        let appended = match batch {
            Append::Plain(batch) => writer.append(&self.tp, self.leader_epoch, batch).await,
            Append::Transactional(batch, verification) => {
                writer.append_transactional(&self.tp, self.leader_epoch, batch, verification).await
            }
        };
        appended.map(|_| ())
    }

    /// How long until `deadline`, as the clock reads; `None` without one.
    fn time_until(&self, deadline: Option<i64>) -> Option<Duration> {
        let wait_ms = deadline?.saturating_sub(self.now_ms()).max(0);
        Some(Duration::from_millis(u64::try_from(wait_ms).unwrap_or(0)))
    }
}

/// Replays one batch: a control batch (a transaction marker) as the kind replays markers; the
/// records of any other batch one by one, with its producer if it is transactional. Records
/// without a key, or of types and versions this build does not know, are skipped.
fn replay_batch<K: ShardKind>(
    kind: &mut K,
    tp: &TopicPartition,
    batch: &RecordBatch,
) -> Result<(), LoadError<K::RecordError>> {
    if batch.attributes().is_control() {
        return Ok(kind.replay_control(batch)?);
    }
    let producer_id = batch.attributes().is_transactional().then(|| batch.producer_id());
    for record in batch.records()?.iter() {
        let record = record?;
        let Some(key) = record.key() else {
            tracing::warn!(partition = %tp, "skipping a record without a key");
            continue;
        };
        let key = Bytes::copy_from_slice(key);
        let value = record.value().map(Bytes::copy_from_slice);
        match K::decode(key, value) {
            Ok(record) => kind.replay(&record, producer_id),
            Err(error) if K::is_unknown(&error) => {
                tracing::warn!(partition = %tp, %error, "skipping a record this build does not know");
            }
            Err(error) => return Err(LoadError::Record(error)),
        }
    }
    Ok(())
}

/// Sleeps for `duration`, or forever without one: a shard task's wait for its next timer.
async fn sleep_for(duration: Option<Duration>) {
    match duration {
        Some(duration) => tokio::time::sleep(duration).await,
        None => std::future::pending().await,
    }
}
