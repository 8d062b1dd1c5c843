//! Share sessions (KIP-932): what a share consumer fetches from this leader, by group and member,
//! with the epoch its next request must carry. ShareFetch at epoch 0 opens (or reopens) a session
//! with the partitions it names; a later ShareFetch or ShareAcknowledge must carry the session's
//! next epoch (INVALID_SHARE_SESSION_EPOCH otherwise, SHARE_SESSION_NOT_FOUND with no session),
//! and a ShareFetch adds its partitions and drops its forgotten ones; epoch -1 closes it. At most
//! `group.share.max.share.sessions` sessions (SHARE_SESSION_LIMIT_REACHED); when full, a new one
//! first evicts those unused for longer than the share group session timeout (their consumer is
//! gone: it would have heartbeated and fetched meanwhile), which Kafka does by tying sessions to
//! connections.

use std::collections::{BTreeMap, BTreeSet};

use strand_base::Uuid;

/// The epoch that opens a session.
pub const INITIAL_EPOCH: i32 = 0;
/// The epoch that closes one.
pub const FINAL_EPOCH: i32 = -1;

/// A partition of a session, by topic id.
pub type SessionPartition = (Uuid, i32);

/// Why a request does not fit the sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionError {
    NotFound,
    InvalidEpoch,
    LimitReached,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct ShareSession {
    next_epoch: i32,
    /// When a request last used it.
    used_ms: i64,
    partitions: BTreeSet<SessionPartition>,
}

/// The share sessions of this node.
#[derive(Debug)]
pub struct ShareSessions {
    max_sessions: usize,
    /// How long an unused session is kept once the cache is full.
    idle_ms_max: i64,
    sessions: BTreeMap<(String, String), ShareSession>,
}

impl ShareSessions {
    pub fn new(max_sessions: usize, idle_ms_max: i64) -> ShareSessions {
        ShareSessions { max_sessions, idle_ms_max, sessions: BTreeMap::new() }
    }

    /// Opens the session of `group_id` / `member_id` with `partitions`, replacing one it had.
    pub fn open(
        &mut self,
        group_id: &str,
        member_id: &str,
        partitions: BTreeSet<SessionPartition>,
        now_ms: i64,
    ) -> Result<(), SessionError> {
        let key = (group_id.to_owned(), member_id.to_owned());
        if !self.sessions.contains_key(&key) && self.sessions.len() >= self.max_sessions {
            let idle_ms_max = self.idle_ms_max;
            self.sessions.retain(|_, s| now_ms.saturating_sub(s.used_ms) <= idle_ms_max);
            if self.sessions.len() >= self.max_sessions {
                return Err(SessionError::LimitReached);
            }
        }
        self.sessions.insert(key, ShareSession { next_epoch: 1, used_ms: now_ms, partitions });
        Ok(())
    }

    /// Checks `epoch` against the session, moves it on and applies `added` and `forgotten`;
    /// returns the session's partitions.
    pub fn advance(
        &mut self,
        group_id: &str,
        member_id: &str,
        epoch: i32,
        added: &BTreeSet<SessionPartition>,
        forgotten: &BTreeSet<SessionPartition>,
        now_ms: i64,
    ) -> Result<BTreeSet<SessionPartition>, SessionError> {
        let session =
            self.sessions.get_mut(&(group_id.to_owned(), member_id.to_owned())).ok_or(SessionError::NotFound)?;
        if session.next_epoch != epoch {
            return Err(SessionError::InvalidEpoch);
        }
        // Kafka's `ShareRequestMetadata.nextEpoch`: after Integer.MAX_VALUE comes 1.
        session.next_epoch = if epoch == i32::MAX { 1 } else { epoch + 1 };
        session.used_ms = now_ms;
        session.partitions.extend(added.iter().copied());
        session.partitions.retain(|p| !forgotten.contains(p));
        Ok(session.partitions.clone())
    }

    /// Closes the session; returns its partitions.
    pub fn close(&mut self, group_id: &str, member_id: &str) -> Result<BTreeSet<SessionPartition>, SessionError> {
        self.sessions
            .remove(&(group_id.to_owned(), member_id.to_owned()))
            .map(|s| s.partitions)
            .ok_or(SessionError::NotFound)
    }

    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }
}
