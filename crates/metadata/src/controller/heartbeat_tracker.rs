//! [`BrokerHeartbeatTracker`]: the active controller's soft state about broker sessions, as
//! Kafka's `BrokerHeartbeatManager`: when each broker was last heard from, the metadata offset it
//! last reported, and where its controlled shutdown began. It feeds the heartbeat and fencing
//! decisions ([`HeartbeatInputs`], expired sessions, [`PreviousSession`]).
//!
//! Not in the image and never written to the log: a controller that becomes active starts with an
//! empty tracker, and every unfenced broker gets a full session from the first time the tracker
//! looks at it, as Kafka's new active controller does.
//!
//! What it is not: a clock. Times are the caller's milliseconds (from its `Clock`), so tests drive
//! sessions deterministically; the caller decides when to look for expired sessions.

use std::collections::BTreeMap;

use strand_base::BrokerId;
use strand_protocol::messages::BrokerHeartbeatRequest;

use super::{HeartbeatInputs, PreviousSession};
use crate::image::MetadataImage;

/// Sessions by broker id. See the module docs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BrokerHeartbeatTracker {
    sessions: BTreeMap<BrokerId, Session>,
}

/// One broker incarnation's session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Session {
    /// The registration's epoch: a new incarnation starts a new session.
    epoch: i64,
    last_contact_ms: i64,
    /// The `current_metadata_offset` of its last heartbeat, -1 before the first.
    metadata_offset: i64,
    controlled_shutdown_offset: Option<i64>,
}

impl Session {
    fn new(epoch: i64, now_ms: i64) -> Session {
        Session { epoch, last_contact_ms: now_ms, metadata_offset: -1, controlled_shutdown_offset: None }
    }
}

impl BrokerHeartbeatTracker {
    pub fn new() -> BrokerHeartbeatTracker {
        BrokerHeartbeatTracker::default()
    }

    /// The soft state [`broker_heartbeat`](super::broker_heartbeat) needs for `broker`.
    pub fn inputs(&self, image: &MetadataImage, broker: BrokerId) -> HeartbeatInputs {
        let epoch = image.cluster().broker(broker).map(|b| b.epoch);
        let controlled_shutdown_offset =
            self.sessions.get(&broker).filter(|s| Some(s.epoch) == epoch).and_then(|s| s.controlled_shutdown_offset);
        let active_metadata_offset_min = image
            .cluster()
            .active_brokers()
            .filter(|b| b.id != broker)
            .map(|b| self.sessions.get(&b.id).filter(|s| s.epoch == b.epoch).map_or(-1, |s| s.metadata_offset))
            .min()
            .unwrap_or(i64::MAX);
        HeartbeatInputs { controlled_shutdown_offset, active_metadata_offset_min }
    }

    /// Records a successful heartbeat received at `now_ms`. Pass the image that includes the
    /// heartbeat's own records (the same image if it wrote none): a broker it shows in
    /// controlled shutdown gets that image's offset as where its shutdown began, once; a fenced
    /// broker leaves controlled shutdown. A heartbeat whose epoch is not the registration's is
    /// ignored.
    pub fn heartbeat(&mut self, image: &MetadataImage, request: &BrokerHeartbeatRequest, now_ms: i64) {
        let Some(registration) = image.cluster().broker(request.broker_id) else { return };
        if registration.epoch != request.broker_epoch {
            return;
        }
        let session = self.session(request.broker_id, registration.epoch, now_ms);
        session.last_contact_ms = now_ms;
        session.metadata_offset = request.current_metadata_offset;
        if registration.fenced {
            session.controlled_shutdown_offset = None;
        } else if registration.in_controlled_shutdown && session.controlled_shutdown_offset.is_none() {
            session.controlled_shutdown_offset = Some(image.provenance().offset);
        }
    }

    /// The brokers whose session expired at `now_ms`, oldest contact first: unfenced in `image`
    /// and not heard from for more than `session_timeout_ms` (`broker.session.timeout.ms`). Fence
    /// them one at a time ([`fence_broker`](super::fence_broker)), each decided on the image that
    /// includes the previous one, as Kafka does.
    ///
    /// Sessions of brokers no longer registered are dropped; an unfenced broker never heard from
    /// gets a session starting at `now_ms`.
    pub fn expired(&mut self, image: &MetadataImage, now_ms: i64, session_timeout_ms: i64) -> Vec<BrokerId> {
        self.sessions.retain(|id, _| image.cluster().broker(*id).is_some());
        let mut expired = Vec::new();
        for broker in image.cluster().brokers().filter(|b| !b.fenced) {
            let session = *self.session(broker.id, broker.epoch, now_ms);
            if session.last_contact_ms.saturating_add(session_timeout_ms) < now_ms {
                expired.push((session.last_contact_ms, broker.id));
            }
        }
        expired.sort();
        expired.into_iter().map(|(_, id)| id).collect()
    }

    /// [`register_broker`](super::register_broker)'s `previous_session` for `broker` at `now_ms`
    /// (Kafka's `hasValidSession`): live while its registration is unfenced and was heard from
    /// within `session_timeout_ms` (or is unfenced and not yet tracked: its session starts now).
    pub fn previous_session(
        &mut self,
        image: &MetadataImage,
        broker: BrokerId,
        now_ms: i64,
        session_timeout_ms: i64,
    ) -> PreviousSession {
        match image.cluster().broker(broker).filter(|b| !b.fenced) {
            Some(registration) => {
                let session = self.session(broker, registration.epoch, now_ms);
                if session.last_contact_ms.saturating_add(session_timeout_ms) >= now_ms {
                    PreviousSession::Live
                } else {
                    PreviousSession::Expired
                }
            }
            None => PreviousSession::Expired,
        }
    }

    /// The session of `broker` at `epoch`, a new one from `now_ms` if it has none at that epoch.
    fn session(&mut self, broker: BrokerId, epoch: i64, now_ms: i64) -> &mut Session {
        let session = self.sessions.entry(broker).or_insert_with(|| Session::new(epoch, now_ms));
        if session.epoch != epoch {
            *session = Session::new(epoch, now_ms);
        }
        session
    }
}
