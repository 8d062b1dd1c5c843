//! Following the committed metadata log without voting (Kafka's observers, design §4): a task
//! that fetches committed batches from the voters ([`super::Quorum::read_committed`] on their
//! side, reached through a [`MetadataFetcher`] the server implements) and feeds the same
//! [`CommittedBatch`]es a voter's subscriber gets, with the leadership the voters report.
//!
//! It asks the leader when it knows one and the voters in turn otherwise; any voter's committed
//! batches are the same. A voter holds a fetch until something new is committed (or a short
//! wait passes), so an idle cluster costs one round trip per wait.
//!
//! A voter whose log no longer holds the offset asked for (a snapshot replaced it) answers with
//! its newest snapshot, which the observer passes on as one batch marked
//! [`CommittedBatch::snapshot`] before going on from the snapshot's end.
//!
//! What it is not: it votes on nothing and keeps no copy of the log on disk (a restarted observer
//! reads the voters' newest snapshot and the log after it again).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use strand_protocol::records::RecordBatch;
use tokio::sync::{mpsc, watch};

use super::subscriber::{SUBSCRIBER_BATCHES_MAX, committed_batch};
use super::{CommittedBatch, CommittedRead, Leadership};

/// How long to wait before asking the next voter after a failure.
const RETRY_BACKOFF: Duration = Duration::from_millis(200);

/// What a voter answered a metadata fetch with.
#[derive(Debug, Clone)]
pub struct MetadataFetch {
    /// Whole committed batches, as stored, from the one holding the requested offset; or the
    /// voter's newest snapshot when its log no longer holds that offset.
    pub read: CommittedRead,
    /// Who leads, as that voter knows it.
    pub leadership: Leadership,
}

/// Why a fetch brought nothing.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct ObserverError(pub String);

/// Fetches committed metadata from one voter (the server implements it over the voters'
/// CONTROLLER listeners).
pub trait MetadataFetcher: Send + Sync + std::fmt::Debug + 'static {
    fn fetch(
        &self,
        voter: i32,
        from_offset: i64,
    ) -> Pin<Box<dyn Future<Output = Result<MetadataFetch, ObserverError>> + Send + 'static>>;

    /// Whether this fetcher can reach `voter` although it is not one of the voters the observer
    /// was given (a dynamic quorum's leader, known by its registration): the observer then
    /// fetches from the leader, as Kafka's observers do.
    fn reaches(&self, _voter: i32) -> bool {
        false
    }
}

/// Starts following the committed log from `from_offset`: the committed batches in order (the
/// channel holds at most [`SUBSCRIBER_BATCHES_MAX`]; the task ends when the receiver is dropped),
/// and the leadership as the voters report it.
pub fn observe(
    voters: Vec<i32>,
    fetcher: Arc<dyn MetadataFetcher>,
    from_offset: i64,
) -> (mpsc::Receiver<CommittedBatch>, watch::Receiver<Leadership>) {
    let (tx, rx) = mpsc::channel(SUBSCRIBER_BATCHES_MAX);
    let (leadership_tx, leadership) = watch::channel(Leadership { epoch: 0, leader_id: None });
    tokio::spawn(follow(voters, fetcher, from_offset.max(0), tx, leadership_tx));
    (rx, leadership)
}

/// Whether the leadership `voter` reported replaces what the observer knows: a newer epoch, or
/// another leader in the same one; or, even at an older epoch, `voter` saying it leads now, or a
/// leader named while the observer knows none. The newer epoch known may be a candidate's that
/// never won (a candidate's epoch runs ahead; voters restarting without it elect at a lower one):
/// holding on to it left an observer without a leader, unable to reach the controller, until it
/// was fenced. A leader named this way that is stale answers NOT_CONTROLLER, and the observer asks
/// it next, so the leader itself soon says who leads.
fn adopts(current: &Leadership, reported: &Leadership, voter: i32) -> bool {
    let newer =
        reported.epoch > current.epoch || (reported.epoch == current.epoch && reported.leader_id != current.leader_id);
    let leads_now = reported.leader_id == Some(voter) && reported != current;
    let fills_gap = current.leader_id.is_none() && reported.leader_id.is_some();
    newer || leads_now || fills_gap
}

async fn follow(
    voters: Vec<i32>,
    fetcher: Arc<dyn MetadataFetcher>,
    mut next: i64,
    tx: mpsc::Sender<CommittedBatch>,
    leadership: watch::Sender<Leadership>,
) {
    let mut turn = 0usize;
    loop {
        let leader = leadership.borrow().leader_id.filter(|id| voters.contains(id) || fetcher.reaches(*id));
        let Some(voter) = leader.or_else(|| voters.get(turn % voters.len().max(1)).copied()) else {
            tracing::error!("no voters to follow the metadata log from");
            return;
        };
        let fetched = tokio::select! {
            fetched = fetcher.fetch(voter, next) => fetched,
            () = tx.closed() => return,
        };
        let fetch = match fetched {
            Ok(fetch) => fetch,
            Err(e) => {
                tracing::debug!("metadata fetch from voter {voter}: {e}");
                turn = turn.wrapping_add(1);
                leadership.send_if_modified(|l| l.leader_id.take().is_some());
                tokio::time::sleep(RETRY_BACKOFF).await;
                continue;
            }
        };
        leadership.send_if_modified(|current| {
            let adopted = adopts(current, &fetch.leadership, voter);
            if adopted {
                *current = fetch.leadership;
            }
            adopted
        });
        if leadership.borrow().leader_id.is_none() {
            // Still no leader known: the next voter may know it. A voter that was removed from the
            // quorum answers from its frozen log and knows no leader; asking it forever would
            // never reach the new leader.
            turn = turn.wrapping_add(1);
        }
        let batches = match fetch.read {
            CommittedRead::Batches(batches) => batches,
            CommittedRead::Snapshot { end_offset, epoch, bytes } => {
                if end_offset <= next {
                    tracing::warn!("voter {voter} sent snapshot ending at {end_offset} for offset {next}");
                    turn = turn.wrapping_add(1);
                    tokio::time::sleep(RETRY_BACKOFF).await;
                    continue;
                }
                match CommittedRead::snapshot_batch(end_offset, epoch, bytes) {
                    Ok(snapshot) => {
                        next = end_offset;
                        if tx.send(snapshot).await.is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        tracing::warn!("unreadable metadata snapshot from voter {voter}: {e}");
                        turn = turn.wrapping_add(1);
                        tokio::time::sleep(RETRY_BACKOFF).await;
                    }
                }
                continue;
            }
        };
        for bytes in batches {
            let batch = match RecordBatch::parse(bytes)
                .map_err(|e| e.to_string())
                .and_then(|batch| committed_batch(&batch).map(|c| (batch.next_offset(), c)).map_err(|e| e.to_string()))
            {
                Ok(batch) => batch,
                Err(e) => {
                    tracing::warn!("unreadable metadata batch from voter {voter} at offset {next}: {e}");
                    turn = turn.wrapping_add(1);
                    break;
                }
            };
            let (after, committed) = batch;
            if committed.last_offset < next {
                continue;
            }
            next = after;
            if tx.send(committed).await.is_err() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn led(epoch: i32, leader_id: Option<i32>) -> Leadership {
        Leadership { epoch, leader_id }
    }

    #[test]
    fn newer_epochs_and_other_leaders_replace_the_known_leadership() {
        assert!(adopts(&led(2, Some(1)), &led(3, Some(2)), 3), "a newer epoch, from any voter");
        assert!(adopts(&led(2, Some(1)), &led(3, None), 3), "a newer epoch without a leader yet");
        assert!(adopts(&led(3, None), &led(3, Some(2)), 3), "the leader of the known epoch");
        assert!(!adopts(&led(3, Some(2)), &led(2, Some(1)), 3), "an older epoch from a voter that does not lead");
        assert!(!adopts(&led(3, Some(2)), &led(3, Some(2)), 2), "nothing new");
    }

    /// A candidate that never won reported epoch 4; the voters that restarted without it elected
    /// voter 1 at epoch 3. Their answers must win, or the observer never finds the leader.
    #[test]
    fn a_voter_that_leads_now_replaces_a_newer_leaderless_epoch() {
        assert!(adopts(&led(4, None), &led(3, Some(1)), 1), "from the leader itself");
        assert!(adopts(&led(4, None), &led(3, Some(1)), 2), "from a follower of it: no leader was known");
        assert!(adopts(&led(4, Some(2)), &led(3, Some(1)), 1), "the leader answering wins over a newer name");
        assert!(!adopts(&led(4, Some(2)), &led(3, Some(1)), 3), "but a follower's older news does not");
    }
}
