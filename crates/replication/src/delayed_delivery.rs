//! Delayed delivery's driver on this node (ARCHITECTURE.md, "Delayed delivery"): the partitions
//! this node leads that hold pending records, and the pass that appends each one's due records.
//! The records and what was delivered live in the partition's log (`strand_log::delayed`); this
//! only remembers which partitions to look at, so a pass costs nothing for the others.

use std::collections::BTreeSet;
use std::sync::Mutex;

use strand_base::TopicPartition;
use strand_base::metric_names::{DELAYED_NEXT_DUE_MS, DELAYED_PENDING_RECORDS};
use tokio::sync::Notify;

use crate::manager::ReplicaManager;

/// The partitions to look at, and the driver's wake-up.
#[derive(Debug, Default)]
pub(crate) struct DelayedPartitions {
    partitions: Mutex<BTreeSet<TopicPartition>>,
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
        delayed.partitions.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(tp.clone());
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
        let noted: Vec<TopicPartition> = {
            let set = self.shared.delayed.partitions.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            set.iter().cloned().collect()
        };
        let mut pass = DeliveryPass { now, ..DeliveryPass::default() };
        let mut done = Vec::new();
        for tp in noted {
            let Ok(partition) = self.shared.partition(&tp) else {
                done.push(tp);
                continue;
            };
            match partition.deliver_due(now) {
                Ok(Some((delivered, next, pending))) => {
                    pass.delivered += delivered;
                    gauges(&tp, pending, next);
                    match next {
                        Some(next) => pass.next_due = Some(pass.next_due.map_or(next, |n| n.min(next))),
                        None => done.push(tp),
                    }
                }
                Ok(None) => {
                    gauges(&tp, 0, None);
                    done.push(tp);
                }
                Err(e) => {
                    tracing::warn!("could not deliver the due records of {tp}: {e}");
                    pass.next_due = Some(pass.next_due.map_or(now + 1000, |n| n.min(now + 1000)));
                }
            }
        }
        if !done.is_empty() {
            let mut set = self.shared.delayed.partitions.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            for tp in done {
                set.remove(&tp);
            }
        }
        pass
    }
}

/// The partition's delayed-delivery gauges (`/metrics`).
fn gauges(tp: &TopicPartition, pending: usize, next_due: Option<i64>) {
    let labels = [("topic", tp.topic.to_string()), ("partition", tp.partition.to_string())];
    metrics::gauge!(DELAYED_PENDING_RECORDS, &labels).set(pending as f64);
    metrics::gauge!(DELAYED_NEXT_DUE_MS, &labels).set(next_due.unwrap_or(0) as f64);
}
