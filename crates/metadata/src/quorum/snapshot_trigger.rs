//! When a voter snapshots its metadata log, as Kafka's `SnapshotGenerator` decides: once
//! `metadata.log.max.record.bytes.between.snapshots` bytes of records were applied since the
//! last snapshot, or `metadata.log.max.snapshot.interval.ms` passed since it with anything
//! applied meanwhile. openraft's own policy is off; this task asks openraft to build one.
//!
//! What it is not: the snapshot itself (`state_machine` builds it). It checks once a second at
//! most (and at least ten times per interval), so a snapshot may come that much later.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use openraft::Raft;

use super::config::SnapshotSettings;
use super::entry::TypeConfig;

/// The longest pause between two checks.
const CHECK_INTERVAL_MAX: Duration = Duration::from_secs(1);

/// Starts the trigger; it runs until aborted or Raft stops.
pub(crate) fn spawn(
    raft: Raft<TypeConfig>,
    settings: SnapshotSettings,
    bytes_since_snapshot: Arc<AtomicU64>,
) -> tokio::task::JoinHandle<()> {
    let check = if settings.interval_ms == 0 {
        CHECK_INTERVAL_MAX
    } else {
        Duration::from_millis(settings.interval_ms / 10).clamp(Duration::from_millis(1), CHECK_INTERVAL_MAX)
    };
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(check);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut since_snapshot = Duration::ZERO;
        loop {
            ticks.tick().await;
            since_snapshot += check;
            let bytes = bytes_since_snapshot.load(Ordering::Relaxed);
            let by_time = settings.interval_ms > 0 && since_snapshot.as_millis() >= u128::from(settings.interval_ms);
            if bytes == 0 || (bytes < settings.max_bytes_between && !by_time) {
                continue;
            }
            since_snapshot = Duration::ZERO;
            // The builder resets the count; until it has, the next checks see it still high and
            // ask again, which openraft ignores while a build runs.
            if raft.trigger().snapshot().await.is_err() {
                return;
            }
        }
    })
}
