//! Delayed delivery's driver on this node (ARCHITECTURE.md, "Delayed delivery"): the partitions
//! this node leads that hold pending records, and the pass that appends each one's due records.
//! The records and what was delivered live in the partition's log (`strand_log::delayed`); this
//! only remembers which partitions to look at, so a pass costs nothing for the others.

use std::collections::BTreeMap;
use std::sync::Mutex;

use strand_base::TopicPartition;
use strand_base::metric_names::{DELAYED_NEXT_DUE_MS, DELAYED_PENDING_RECORDS};
use tokio::sync::Notify;

use crate::manager::ReplicaManager;

/// A partition to look at in the next pass.
const NOTED: i64 = i64::MIN;
/// A partition the pass under way looks at.
const LOOKING: i64 = i64::MIN + 1;

/// The partitions to look at, each with when to look next ([`NOTED`]: at the next pass), and
/// the driver's wake-up. A pass locks only the partitions whose time has come.
#[derive(Debug, Default)]
pub(crate) struct DelayedPartitions {
    partitions: Mutex<BTreeMap<TopicPartition, i64>>,
    wake: Notify,
}

/// What one pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeliveryPass {
    /// Records appended to their topics.
    pub delivered: usize,
    /// The earliest due time still waiting on this node, if any.
    pub next_due: Option<i64>,
    /// The time the pass ran at.
    pub now: i64,
}

impl ReplicaManager {
    /// `tp` may hold pending records this node is to deliver (a pending batch was appended, or
    /// this node became its leader): the next pass looks at it.
    pub fn note_delayed(&self, tp: &TopicPartition) {
        let delayed = &self.shared.delayed;
        delayed.partitions.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(tp.clone(), NOTED);
        delayed.wake.notify_one();
    }

    /// Resolves when [`ReplicaManager::note_delayed`] was called since the last wait.
    pub async fn delayed_noted(&self) {
        self.shared.delayed.wake.notified().await;
    }

    /// Appends the due records of every noted partition this node leads (blocking: reads and
    /// writes logs). A partition it no longer leads, or with nothing pending, is forgotten.
    pub fn deliver_delayed(&self) -> DeliveryPass {
        let now = self.shared.clock.now_ms();
        let (noted, mut pass) = {
            let mut set = self.shared.delayed.partitions.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let next_due = set.values().filter(|due| **due > now).min().copied();
            let mut due = Vec::new();
            for (tp, at) in set.iter_mut().filter(|(_, at)| **at <= now) {
                // Marked as looked at by this pass; a note meanwhile sets it back to `NOTED`.
                *at = LOOKING;
                due.push(tp.clone());
            }
            (due, DeliveryPass { now, next_due, ..DeliveryPass::default() })
        };
        let mut looked = Vec::new();
        for tp in noted {
            let Ok(partition) = self.shared.partition(&tp) else {
                looked.push((tp, None));
                continue;
            };
            let next = match deliver_backlog(&partition, now) {
                Ok(Some((delivered, next, pending))) => {
                    pass.delivered += delivered;
                    gauges(&tp, pending, next);
                    next
                }
                Ok(None) => {
                    gauges(&tp, 0, None);
                    None
                }
                Err(e) => {
                    tracing::warn!("could not deliver the due records of {tp}: {e}");
                    Some(now + 1000)
                }
            };
            if let Some(next) = next {
                pass.next_due = Some(pass.next_due.map_or(next, |n| n.min(next)));
            }
            looked.push((tp, next));
        }
        if !looked.is_empty() {
            let mut set = self.shared.delayed.partitions.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            for (tp, next) in looked {
                match (next, set.get_mut(&tp)) {
                    (Some(next), Some(at)) if *at == LOOKING => *at = next,
                    (None, Some(at)) if *at == LOOKING => {
                        set.remove(&tp);
                    }
                    // Noted again during the pass: looked at again at the next one.
                    _ => {}
                }
            }
        }
        pass
    }
}

/// At most this many deliveries (of up to `DELIVERY_RECORDS_MAX` records each) for one partition
/// in one pass, so a backlog drains at disk speed while other partitions get their turn.
const DELIVERIES_PER_PASS_MAX: usize = 16;

/// Delivers `partition`'s due records, several deliveries in a row while a backlog is due.
fn deliver_backlog(
    partition: &crate::partition::Partition,
    now: i64,
) -> Result<Option<(usize, Option<i64>, usize)>, crate::ReplicaError> {
    let mut total = 0;
    for _ in 0..DELIVERIES_PER_PASS_MAX {
        match partition.deliver_due(now)? {
            None => return Ok(None),
            Some((delivered, next, pending)) if delivered == 0 || next.is_none_or(|n| n > now + 1) => {
                return Ok(Some((total + delivered, next, pending)));
            }
            Some((delivered, _, _)) => total += delivered,
        }
    }
    partition.deliver_due(now).map(|answer| answer.map(|(delivered, next, pending)| (total + delivered, next, pending)))
}

/// The partition's delayed-delivery gauges (`/metrics`).
fn gauges(tp: &TopicPartition, pending: usize, next_due: Option<i64>) {
    let labels = [("topic", tp.topic.to_string()), ("partition", tp.partition.to_string())];
    metrics::gauge!(DELAYED_PENDING_RECORDS, &labels).set(pending as f64);
    metrics::gauge!(DELAYED_NEXT_DUE_MS, &labels).set(next_due.unwrap_or(0) as f64);
}
