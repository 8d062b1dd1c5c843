//! BrokerHeartbeat, as Kafka's `ReplicationControlManager.processBrokerHeartbeat` and
//! `BrokerHeartbeatManager.calculateNextBrokerState`: a broker's state moves through
//! [`BrokerControlState`], and each move writes the records of fencing, unfencing or controlled
//! shutdown ([`super::broker_lifecycle`]); log directories the heartbeat reports offline
//! (KIP-858) then move the leaderships and ISR places of the replicas in them
//! ([`offline_dir_records`]).
//!
//! What it is not: the session clock. The caller records when each heartbeat arrived and fences
//! brokers whose session expired ([`BrokerHeartbeatTracker`](super::BrokerHeartbeatTracker) keeps
//! that state).

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{BrokerHeartbeatRequest, BrokerHeartbeatResponse};

use super::broker_lifecycle::{
    controlled_shutdown_records, fence_broker, has_leaderships, offline_dir_records, unfence_broker,
};
use super::cluster::check_broker_epoch;
use super::{ApiMessageAndVersion, ControllerDefaults, ControllerResult};
use crate::image::{BrokerRegistration, MetadataDelta, MetadataImage};

/// What a heartbeat decision needs beyond the image: the controller's soft state about broker
/// sessions, which Kafka keeps in its `BrokerHeartbeatManager` and never writes to the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeartbeatInputs {
    /// The offset of the last record of the batch that put this broker in controlled shutdown,
    /// if the controller saw it committed. `None` makes the image's own offset stand in, which is
    /// at or after it: the broker waits longer, never shorter.
    pub controlled_shutdown_offset: Option<i64>,
    /// The lowest `current_metadata_offset` the other active brokers (unfenced, not shutting
    /// down) last reported, `-1` for one not heard from, `i64::MAX` if there are none (Kafka's
    /// `lowestActiveOffset`). A broker in controlled shutdown may stop once every active broker
    /// has seen the records that moved its leaderships.
    pub active_metadata_offset_min: i64,
}

/// A broker's state as heartbeats see it (Kafka's `BrokerControlState`). The current state comes
/// from the image: fenced, else shutting down, else unfenced; [`BrokerControlState::ShutdownNow`]
/// is only ever a next state, whose records fence the broker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrokerControlState {
    Fenced,
    Unfenced,
    ControlledShutdown,
    ShutdownNow,
}

/// The facts of one heartbeat that decide the next state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeartbeatFacts {
    pub want_fence: bool,
    pub want_shut_down: bool,
    /// The broker's metadata offset reached its registration record.
    pub caught_up: bool,
    /// The broker still leads a partition.
    pub has_leaderships: bool,
    /// Every active broker has seen the batch that started this broker's controlled shutdown.
    pub shutdown_offset_reached: bool,
}

impl BrokerControlState {
    /// The state the image gives a registration.
    pub fn of(registration: &BrokerRegistration) -> BrokerControlState {
        if registration.fenced {
            BrokerControlState::Fenced
        } else if registration.in_controlled_shutdown {
            BrokerControlState::ControlledShutdown
        } else {
            BrokerControlState::Unfenced
        }
    }

    /// The states that may follow this one.
    pub fn next_states(self) -> &'static [BrokerControlState] {
        use BrokerControlState::{ControlledShutdown, Fenced, ShutdownNow, Unfenced};
        match self {
            Fenced => &[Fenced, Unfenced, ShutdownNow],
            Unfenced => &[Unfenced, Fenced, ControlledShutdown, ShutdownNow],
            ControlledShutdown => &[ControlledShutdown, ShutdownNow],
            ShutdownNow => &[],
        }
    }

    /// Kafka's `calculateNextBrokerState`: a fenced broker is unfenced once caught up unless it
    /// wants fencing, and stops at once if it wants to; an unfenced one is fenced on request, and
    /// on shutdown goes through controlled shutdown while it leads something; a broker in
    /// controlled shutdown stops once it leads nothing and the active brokers have caught up.
    pub fn next(self, facts: &HeartbeatFacts) -> BrokerControlState {
        use BrokerControlState::{ControlledShutdown, Fenced, ShutdownNow, Unfenced};
        match self {
            Fenced if facts.want_shut_down => ShutdownNow,
            Fenced if !facts.want_fence && facts.caught_up => Unfenced,
            Fenced => Fenced,
            Unfenced if facts.want_fence && facts.want_shut_down => ShutdownNow,
            Unfenced if facts.want_fence => Fenced,
            Unfenced if facts.want_shut_down && facts.has_leaderships => ControlledShutdown,
            Unfenced if facts.want_shut_down => ShutdownNow,
            Unfenced => Unfenced,
            ControlledShutdown if !facts.has_leaderships && facts.shutdown_offset_reached => ShutdownNow,
            ControlledShutdown => ControlledShutdown,
            ShutdownNow => ShutdownNow,
        }
    }

    /// Whether a broker in this state is fenced (the response's `is_fenced`).
    pub fn is_fenced(self) -> bool {
        matches!(self, BrokerControlState::Fenced | BrokerControlState::ShutdownNow)
    }

    /// The response's `should_shut_down`.
    pub fn should_shut_down(self) -> bool {
        self == BrokerControlState::ShutdownNow
    }
}

/// Handles one heartbeat: the broker's next [`BrokerControlState`], the records of the move
/// (fencing, unfencing with elections for leaderless partitions, or starting controlled shutdown
/// with its leaderships moved away), then those of its `offline_log_dirs` (as Kafka's
/// `processBrokerHeartbeat` calls `handleDirectoriesOffline` after the move), and the response: `is_caught_up` once
/// `current_metadata_offset` reaches the broker's registration record (its epoch), `is_fenced`
/// and `should_shut_down` from the next state.
///
/// STALE_BROKER_EPOCH (as Kafka, also for an unregistered broker id) when `broker_epoch` is not
/// the registration's. `defaults` supplies the static `unclean.leader.election.enable`.
pub fn broker_heartbeat(
    image: &MetadataImage,
    request: &BrokerHeartbeatRequest,
    inputs: &HeartbeatInputs,
    defaults: &ControllerDefaults,
) -> ControllerResult<BrokerHeartbeatResponse> {
    let broker = request.broker_id;
    if let Err(error) = check_broker_epoch(image, broker, request.broker_epoch) {
        return failed(error.code);
    }
    let Some(registration) = image.cluster().broker(broker) else { return failed(ErrorCode::StaleBrokerEpoch) };
    let current = BrokerControlState::of(registration);
    let next = current.next(&facts(image, request, inputs, registration));
    let mut records: Vec<ApiMessageAndVersion> = match next {
        _ if next == current => Vec::new(),
        BrokerControlState::Fenced | BrokerControlState::ShutdownNow => fence_broker(image, broker, defaults),
        BrokerControlState::Unfenced => unfence_broker(image, broker, defaults),
        BrokerControlState::ControlledShutdown => controlled_shutdown_records(image, broker, defaults),
    };
    if !request.offline_log_dirs.is_empty() {
        // Decided on the image the move's records leave, so no partition changes twice.
        let moved = with_records(image, &records);
        let decided_on = moved.as_ref().unwrap_or(image);
        records.extend(offline_dir_records(decided_on, broker, &request.offline_log_dirs, defaults));
    }
    let response = BrokerHeartbeatResponse {
        error_code: ErrorCode::None.code(),
        is_caught_up: request.current_metadata_offset >= registration.epoch,
        is_fenced: next.is_fenced(),
        should_shut_down: next.should_shut_down(),
        ..BrokerHeartbeatResponse::default()
    };
    ControllerResult { records, response }
}

/// `image` with `records` replayed, `None` when there are none (or, never expected for records
/// just decided on it, one does not replay: the caller then decides on `image` itself).
fn with_records(image: &MetadataImage, records: &[ApiMessageAndVersion]) -> Option<MetadataImage> {
    if records.is_empty() {
        return None;
    }
    let mut delta = MetadataDelta::new(image);
    for record in records {
        delta.replay(&record.record).ok()?;
    }
    Some(delta.apply(image.provenance()))
}

fn facts(
    image: &MetadataImage,
    request: &BrokerHeartbeatRequest,
    inputs: &HeartbeatInputs,
    registration: &BrokerRegistration,
) -> HeartbeatFacts {
    let shutting_down = registration.in_controlled_shutdown && !registration.fenced;
    let asks_shutdown = !registration.fenced && request.want_shut_down;
    let shutdown_offset = inputs.controlled_shutdown_offset.unwrap_or(image.provenance().offset);
    HeartbeatFacts {
        want_fence: request.want_fence,
        want_shut_down: request.want_shut_down,
        caught_up: request.current_metadata_offset >= registration.epoch,
        // Scanning the partitions only when the answer matters.
        has_leaderships: (shutting_down || asks_shutdown) && has_leaderships(image, request.broker_id),
        shutdown_offset_reached: shutdown_offset <= inputs.active_metadata_offset_min,
    }
}

fn failed(code: ErrorCode) -> ControllerResult<BrokerHeartbeatResponse> {
    ControllerResult {
        records: Vec::new(),
        response: BrokerHeartbeatResponse { error_code: code.code(), ..BrokerHeartbeatResponse::default() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use BrokerControlState::{ControlledShutdown, Fenced, ShutdownNow, Unfenced};

    fn all_facts() -> impl Iterator<Item = HeartbeatFacts> {
        (0..32_u8).map(|bits| HeartbeatFacts {
            want_fence: bits & 1 != 0,
            want_shut_down: bits & 2 != 0,
            caught_up: bits & 4 != 0,
            has_leaderships: bits & 8 != 0,
            shutdown_offset_reached: bits & 16 != 0,
        })
    }

    /// Every state and every combination of facts: the next state is one the state may move to,
    /// and the shutdown, fencing and unfencing rules hold.
    #[test]
    fn transitions_are_exhaustive() {
        for state in [Fenced, Unfenced, ControlledShutdown] {
            for facts in all_facts() {
                let next = state.next(&facts);
                assert!(state.next_states().contains(&next), "{state:?} -> {next:?} on {facts:?}");
                let expected_shutdown = match state {
                    Fenced | Unfenced => {
                        facts.want_shut_down && (state == Fenced || facts.want_fence || !facts.has_leaderships)
                    }
                    _ => !facts.has_leaderships && facts.shutdown_offset_reached,
                };
                assert_eq!(next == ShutdownNow, expected_shutdown, "{state:?} on {facts:?}");
                if state == Fenced && next == Unfenced {
                    assert!(facts.caught_up && !facts.want_fence);
                }
                if state == Unfenced && next == ControlledShutdown {
                    assert!(facts.has_leaderships && !facts.want_fence);
                }
            }
        }
        assert!(ShutdownNow.next_states().is_empty());
        assert!(ShutdownNow.is_fenced() && ShutdownNow.should_shut_down());
        assert!(Fenced.is_fenced() && !Unfenced.is_fenced() && !ControlledShutdown.is_fenced());
    }
}
