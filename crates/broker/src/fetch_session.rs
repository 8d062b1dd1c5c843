//! Incremental fetch sessions (KIP-227): the broker remembers, per session, which partitions a
//! consumer fetches and what it last answered about each, so that the consumer's next request
//! names only the partitions it changes and the answer holds only the partitions that changed.
//!
//! Key types: [`FetchSessionCache`] (the bounded set of sessions of one node), [`FetchSession`]
//! (one consumer's partitions and next epoch), [`CachedPartition`] (one partition's last request
//! and last answer), [`PartitionAnswer`] (what a response said about a partition).
//!
//! Eviction follows Kafka's `FetchSessionCache` for the sessions this node serves (consumers
//! only: replica fetches are not served, so no session is privileged). When every slot is taken,
//! a new session may take the slot of (1) the least recently used session if it has been idle
//! for [`FETCH_SESSION_EVICTION_MS`], else (2) the smallest session (by partition count, then id)
//! that was older than [`FETCH_SESSION_EVICTION_MS`] when last used, if the new one holds more
//! partitions. Otherwise the new session is refused and the fetch answered sessionless (session
//! id 0), as Kafka does. The scan for a victim is linear, and only runs when the cache is full.
//!
//! What it is not: it reads no logs and no clock. The fetch handler passes the time (from the
//! broker's `Clock`) and the source of session ids, so the cache is deterministic under test.
//! Not thread-safe by itself: the broker holds it behind a mutex, never across an await.

use std::collections::HashMap;

use strand_base::Uuid;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::fetch_request::FetchPartition;

/// Kafka's default `max.incremental.fetch.session.cache.slots`.
pub const FETCH_SESSION_SLOTS_DEFAULT: usize = 1000;
/// Kafka's `MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS`: a session younger than this (or used
/// more recently) is not evicted for a new one.
pub const FETCH_SESSION_EVICTION_MS: i64 = 120_000;
/// The session id that means "no session" (Kafka's `INVALID_SESSION_ID`).
pub const SESSIONLESS_ID: i32 = 0;
/// The epoch that opens a session (Kafka's `INITIAL_EPOCH`).
pub const INITIAL_EPOCH: i32 = 0;
/// The epoch that closes a session, or asks for none (Kafka's `FINAL_EPOCH`).
pub const FINAL_EPOCH: i32 = -1;
/// Draws of a session id that may collide with a live one before creation gives up.
const SESSION_ID_DRAWS_MAX: usize = 16;

/// One partition of a session: by topic id (Fetch v13+, `topic` empty) or by name (older
/// versions, `topic_id` zero), as the request named it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionPartition {
    pub topic_id: Uuid,
    pub topic: String,
    pub partition: i32,
}

/// What a response said about one partition: enough to tell whether the next one must name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionAnswer {
    pub has_records: bool,
    pub error_code: i16,
    pub high_watermark: i64,
    pub log_start_offset: i64,
    pub last_stable_offset: i64,
}

/// A partition as the session holds it: the client's last fetch position and limits, and the
/// offsets of the last answer (`None` before the first, so a newly added partition is answered).
#[derive(Debug, Clone)]
pub struct CachedPartition {
    pub key: SessionPartition,
    /// The partition as the client last sent it (fetch offset, byte limit, epochs).
    pub request: FetchPartition,
    answered: Option<PartitionAnswer>,
}

impl CachedPartition {
    pub fn new(key: SessionPartition, request: FetchPartition) -> Self {
        CachedPartition { key, request, answered: None }
    }

    /// Records `answer`; true if the response must include the partition (records, an error, or
    /// a changed high watermark, log start offset or last stable offset), as Kafka's
    /// `CachedPartition.maybeUpdateResponseData` decides. After an error the cached high
    /// watermark is -1, so that the partition is answered again once the error clears.
    fn record(&mut self, answer: PartitionAnswer) -> bool {
        let offsets = |a: &PartitionAnswer| (a.high_watermark, a.log_start_offset, a.last_stable_offset);
        let changed = self.answered.is_none_or(|last| offsets(&last) != offsets(&answer));
        let failed = answer.error_code != 0;
        self.answered =
            Some(PartitionAnswer { high_watermark: if failed { -1 } else { answer.high_watermark }, ..answer });
        changed || answer.has_records || failed
    }
}

/// One consumer's session. `epoch` is the epoch its next request must carry.
#[derive(Debug)]
pub struct FetchSession {
    id: i32,
    epoch: i32,
    uses_topic_ids: bool,
    created_ms: i64,
    last_used_ms: i64,
    /// Old enough, when last used, to give its slot to a larger new session (Kafka's
    /// `evictableByAll`, decided on each use).
    evictable: bool,
    /// In answer order: partitions that returned something move to the back, so that under a
    /// byte limit the others are read first next time (Kafka's rotation).
    partitions: Vec<CachedPartition>,
}

impl FetchSession {
    fn upsert(&mut self, partition: CachedPartition) {
        match self.partitions.iter_mut().find(|p| p.key == partition.key) {
            Some(cached) => cached.request = partition.request,
            None => self.partitions.push(partition),
        }
    }
}

/// The partitions an incremental request adds or changes, and those it forgets.
#[derive(Debug, Default)]
pub struct SessionChanges {
    pub upserts: Vec<CachedPartition>,
    pub forgotten: Vec<SessionPartition>,
}

/// Why an incremental fetch cannot use its session; answered as the response's top-level error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionError {
    /// No session has this id (never created, evicted or closed).
    NotFound,
    /// The session exists but expects another epoch.
    InvalidEpoch,
    /// The session was created with topic ids and this request uses names, or the reverse.
    TopicIdMismatch,
    /// The request forgot the session's last partitions: the session is closed and the fetch
    /// answered sessionless (not an error on the wire).
    Emptied,
}

impl SessionError {
    pub fn code(self) -> ErrorCode {
        match self {
            SessionError::NotFound => ErrorCode::FetchSessionIdNotFound,
            SessionError::InvalidEpoch => ErrorCode::InvalidFetchSessionEpoch,
            SessionError::TopicIdMismatch => ErrorCode::FetchSessionTopicIdError,
            SessionError::Emptied => ErrorCode::None,
        }
    }
}

/// The sessions of one node, at most `slots_max` of them.
#[derive(Debug)]
pub struct FetchSessionCache {
    slots_max: usize,
    sessions: HashMap<i32, FetchSession>,
}

impl FetchSessionCache {
    pub fn new(slots_max: usize) -> Self {
        FetchSessionCache { slots_max, sessions: HashMap::new() }
    }

    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// Closes session `id` (a request at the initial or final epoch naming it); false if unknown.
    pub fn remove(&mut self, id: i32) -> bool {
        self.sessions.remove(&id).is_some()
    }

    /// Opens a session holding `partitions` with their first answers; its id, or `None` when no
    /// slot can be had (the fetch is then answered sessionless). `next_id` draws candidate ids
    /// (Kafka draws at random too); only positive ids not in use are taken.
    pub fn create(
        &mut self,
        partitions: Vec<(CachedPartition, PartitionAnswer)>,
        uses_topic_ids: bool,
        now_ms: i64,
        next_id: &mut dyn FnMut() -> i32,
    ) -> Option<i32> {
        if !self.make_room(partitions.len(), now_ms) {
            return None;
        }
        let id = (0..SESSION_ID_DRAWS_MAX)
            .map(|_| next_id())
            .find(|id| *id > SESSIONLESS_ID && !self.sessions.contains_key(id))?;
        let mut session = FetchSession {
            id,
            epoch: INITIAL_EPOCH + 1,
            uses_topic_ids,
            created_ms: now_ms,
            last_used_ms: now_ms,
            evictable: false,
            partitions: Vec::with_capacity(partitions.len()),
        };
        for (mut partition, answer) in partitions {
            partition.answered = Some(answer);
            session.upsert(partition);
        }
        self.sessions.insert(id, session);
        assert!(self.sessions.len() <= self.slots_max, "fetch session cache over its slots");
        Some(id)
    }

    /// Starts an incremental fetch on session `id` at `epoch`: applies `changes` (upserts first,
    /// then forgotten partitions, as Kafka does), advances the expected epoch and returns the
    /// session's partitions in the order to read them.
    pub fn begin_incremental(
        &mut self,
        id: i32,
        epoch: i32,
        uses_topic_ids: bool,
        changes: SessionChanges,
        now_ms: i64,
    ) -> Result<Vec<CachedPartition>, SessionError> {
        let session = self.sessions.get_mut(&id).ok_or(SessionError::NotFound)?;
        if session.epoch != epoch {
            return Err(SessionError::InvalidEpoch);
        }
        if session.uses_topic_ids != uses_topic_ids {
            return Err(SessionError::TopicIdMismatch);
        }
        for partition in changes.upserts {
            session.upsert(partition);
        }
        session.partitions.retain(|p| !changes.forgotten.contains(&p.key));
        if session.partitions.is_empty() {
            // Nothing left to fetch: Kafka closes the session and answers sessionless.
            self.sessions.remove(&id);
            return Err(SessionError::Emptied);
        }
        session.epoch = next_epoch(session.epoch);
        session.last_used_ms = now_ms;
        session.evictable = now_ms - session.created_ms > FETCH_SESSION_EVICTION_MS;
        Ok(session.partitions.clone())
    }

    /// Records the answers of an incremental fetch on session `id`; for each answer, whether the
    /// response must include its partition. Partitions answered move to the back of the session.
    /// A session closed meanwhile (by another request) filters nothing.
    pub fn finish_incremental(&mut self, id: i32, answers: &[(SessionPartition, PartitionAnswer)]) -> Vec<bool> {
        let Some(session) = self.sessions.get_mut(&id) else {
            return vec![true; answers.len()];
        };
        let include: Vec<bool> = answers
            .iter()
            .map(|(key, answer)| {
                session.partitions.iter_mut().find(|p| &p.key == key).is_none_or(|p| p.record(*answer))
            })
            .collect();
        let answered: Vec<&SessionPartition> =
            answers.iter().zip(&include).filter(|(_, include)| **include).map(|((key, _), _)| key).collect();
        let (mut quiet, loud): (Vec<_>, Vec<_>) =
            session.partitions.drain(..).partition(|p| !answered.contains(&&p.key));
        quiet.extend(loud);
        session.partitions = quiet;
        include
    }

    /// Frees a slot for a new session of `size` partitions; false if none may be freed (see the
    /// module docs for the rules).
    fn make_room(&mut self, size: usize, now_ms: i64) -> bool {
        if self.sessions.len() < self.slots_max {
            return true;
        }
        let stale = self
            .sessions
            .values()
            .min_by_key(|s| (s.last_used_ms, s.id))
            .filter(|s| now_ms - s.last_used_ms > FETCH_SESSION_EVICTION_MS)
            .map(|s| s.id);
        let smaller = || {
            self.sessions
                .values()
                .filter(|s| s.evictable)
                .min_by_key(|s| (s.partitions.len(), s.id))
                .filter(|s| size > s.partitions.len())
                .map(|s| s.id)
        };
        match stale.or_else(smaller) {
            Some(victim) => {
                self.sessions.remove(&victim);
                true
            }
            None => false,
        }
    }
}

/// The epoch after `epoch`, wrapping past `i32::MAX` to 1 (never to the initial or final epoch).
fn next_epoch(epoch: i32) -> i32 {
    if epoch < 0 {
        FINAL_EPOCH
    } else if epoch == i32::MAX {
        1
    } else {
        epoch + 1
    }
}

/// A fresh candidate session id from the OS's random source (as topic ids are drawn), positive;
/// without OS randomness, a process-wide counter, still unique on this node.
pub fn random_session_id() -> i32 {
    let mut bytes = [0u8; 4];
    let drawn = std::fs::File::open("/dev/urandom").and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes));
    if drawn.is_err() {
        static FALLBACK: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
        bytes = FALLBACK.fetch_add(1, std::sync::atomic::Ordering::Relaxed).to_be_bytes();
    }
    (u32::from_be_bytes(bytes) & 0x7fff_ffff) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(partition: i32) -> SessionPartition {
        SessionPartition { topic_id: Uuid::ZERO, topic: "t".to_owned(), partition }
    }

    fn answer(high_watermark: i64) -> PartitionAnswer {
        PartitionAnswer {
            has_records: false,
            error_code: 0,
            high_watermark,
            log_start_offset: 0,
            last_stable_offset: 0,
        }
    }

    fn session(partitions: i32) -> Vec<(CachedPartition, PartitionAnswer)> {
        (0..partitions).map(|p| (CachedPartition::new(key(p), FetchPartition::default()), answer(0))).collect()
    }

    fn counter(start: i32) -> impl FnMut() -> i32 {
        let mut next = start;
        move || {
            next += 1;
            next
        }
    }

    /// A full cache refuses a new session while every session is young and recently used, and
    /// evicts per Kafka's rules once one is stale or old and smaller.
    #[test]
    fn eviction_follows_kafka() {
        let mut cache = FetchSessionCache::new(1);
        assert_eq!(cache.create(session(2), false, 0, &mut counter(0)), Some(1));
        assert_eq!(cache.create(session(5), false, 1, &mut counter(1)), None, "young and fresh: refused");
        // Old when last used: only a session with more partitions may take its slot.
        cache.begin_incremental(1, 1, false, SessionChanges::default(), 150_000).expect("session 1");
        assert_eq!(cache.create(session(1), false, 200_000, &mut counter(1)), None, "smaller: refused");
        assert_eq!(cache.create(session(3), false, 200_000, &mut counter(1)), Some(2), "larger: evicts");
        // Stale (idle past the eviction time): any new session takes its slot.
        assert_eq!(cache.create(session(0), false, 400_000, &mut counter(2)), Some(3));
        assert_eq!(cache.len(), 1);
    }

    /// Ids that are not positive or already taken are drawn again; zero slots never create.
    #[test]
    fn session_ids_are_positive_and_unique() {
        let mut cache = FetchSessionCache::new(2);
        let mut ids = [-5, 0, 7, 7, 8].into_iter();
        assert_eq!(cache.create(session(1), false, 0, &mut || ids.next().unwrap_or(9)), Some(7));
        assert_eq!(cache.create(session(1), false, 0, &mut || ids.next().unwrap_or(9)), Some(8));
        assert_eq!(FetchSessionCache::new(0).create(session(1), false, 0, &mut counter(0)), None);
        assert!((0..100).all(|_| random_session_id() >= 0));
    }

    /// The epoch advances by one, wraps past i32::MAX to 1, and a closing epoch stays closing.
    #[test]
    fn epochs_advance() {
        for (epoch, next) in [(1, 2), (i32::MAX, 1), (-1, -1)] {
            assert_eq!(next_epoch(epoch), next, "after {epoch}");
        }
    }

    /// Unchanged partitions are left out; answered ones move to the back of the session.
    #[test]
    fn answers_filter_and_rotate() {
        let mut cache = FetchSessionCache::new(1);
        let id = cache.create(session(3), false, 0, &mut counter(0)).expect("created");
        let partitions = cache.begin_incremental(id, 1, false, SessionChanges::default(), 0).expect("begun");
        let answers: Vec<_> =
            partitions.iter().map(|p| (p.key.clone(), answer(if p.key.partition == 0 { 1 } else { 0 }))).collect();
        assert_eq!(cache.finish_incremental(id, &answers), [true, false, false]);
        let order = cache.begin_incremental(id, 2, false, SessionChanges::default(), 0).expect("begun");
        assert_eq!(order.iter().map(|p| p.key.partition).collect::<Vec<_>>(), [1, 2, 0]);
        assert_eq!(
            cache.begin_incremental(id, 2, false, SessionChanges::default(), 0).err(),
            Some(SessionError::InvalidEpoch)
        );
        assert_eq!(
            cache.begin_incremental(id, 3, true, SessionChanges::default(), 0).err(),
            Some(SessionError::TopicIdMismatch)
        );
    }

    /// A failed partition is answered each time, and once more when its error clears even with
    /// the offsets it had before the error.
    #[test]
    fn errors_are_answered_until_cleared() {
        let mut cached = CachedPartition::new(key(0), FetchPartition::default());
        let failed = PartitionAnswer { error_code: 1, ..answer(5) };
        assert_eq!(
            [answer(5), failed, failed, answer(5), answer(5)].map(|a| cached.record(a)),
            [true, true, true, true, false]
        );
    }

    /// Forgetting a session's last partitions closes it.
    #[test]
    fn an_emptied_session_closes() {
        let mut cache = FetchSessionCache::new(1);
        let id = cache.create(session(1), false, 0, &mut counter(0)).expect("created");
        let changes = SessionChanges { upserts: vec![], forgotten: vec![key(0)] };
        assert_eq!(cache.begin_incremental(id, 1, false, changes, 0).err(), Some(SessionError::Emptied));
        assert!(cache.is_empty());
    }
}
