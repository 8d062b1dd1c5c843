//! Incremental fetch sessions (KIP-227): the broker remembers, per session, which partitions a
//! consumer fetches and what it last answered about each, so that the consumer's next request
//! names only the partitions it changes and the answer holds only the partitions that changed.
//!
//! Key types: [`FetchSessionCache`] (the bounded set of sessions of one node), [`FetchSession`]
//! (one consumer's partitions and next epoch), [`CachedPartition`] (one partition's last request
//! and last answer), [`PartitionAnswer`] (what a response said about a partition).
//!
//! Bounds: at most `max.incremental.fetch.session.cache.slots` sessions, as Kafka, and at most
//! [`FETCH_SESSION_PARTITIONS_MAX`] partitions in one session, a Strand limit (Kafka has none): a
//! full fetch of more partitions is answered sessionless, and an incremental fetch that would grow
//! its session past it loses the session (FETCH_SESSION_ID_NOT_FOUND, as if it had been evicted;
//! the client then fetches in full).
//!
//! Eviction follows Kafka's `FetchSessionCache` for the sessions this node serves (consumers
//! only: replica fetches are not served, so no session is privileged). When every slot is taken,
//! a new session may take the slot of (1) the least recently used session if it has been idle
//! for [`FETCH_SESSION_EVICTION_MS`], else (2) the smallest session (by partition count, then id)
//! that was older than [`FETCH_SESSION_EVICTION_MS`] when last used, if the new one holds more
//! partitions. Otherwise the new session is refused and the fetch answered sessionless (session
//! id 0), as Kafka does. The scan for a victim is linear in the slots, and only runs when the
//! cache is full.
//!
//! Locking: the cache is thread-safe. Its own mutex covers the slots and their eviction facts
//! only, for O(1) work (or the eviction scan); a session's partitions are behind the session's
//! own mutex, so one consumer's bookkeeping (linear in its partitions, hashed) never holds up
//! another's. Neither is held across an await, and the cache's is never taken while a session's
//! is held.
//!
//! What it is not: it reads no logs and no clock. The fetch handler passes the time (from the
//! broker's `Clock`) and the source of session ids, so the cache is deterministic under test.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use strand_base::Uuid;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::fetch_request::FetchPartition;

/// Kafka's default `max.incremental.fetch.session.cache.slots`.
pub const FETCH_SESSION_SLOTS_DEFAULT: usize = 1000;
/// The most partitions one session holds (a Strand limit; Kafka has none). A cached partition
/// costs about 250 bytes, so a session at most about 2.5 MB.
pub const FETCH_SESSION_PARTITIONS_MAX: usize = 10_000;
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
    /// It named a preferred read replica (KIP-392): always answered, as the client must learn it.
    pub redirected: bool,
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

    /// Records `answer`; true if the response must include the partition (records, an error, a
    /// preferred read replica, or a changed high watermark, log start offset or last stable
    /// offset), as Kafka's `CachedPartition.maybeUpdateResponseData` decides. After an error the cached high
    /// watermark is -1, so that the partition is answered again once the error clears.
    fn record(&mut self, answer: PartitionAnswer) -> bool {
        let offsets = |a: &PartitionAnswer| (a.high_watermark, a.log_start_offset, a.last_stable_offset);
        let changed = self.answered.is_none_or(|last| offsets(&last) != offsets(&answer));
        let failed = answer.error_code != 0;
        self.answered =
            Some(PartitionAnswer { high_watermark: if failed { -1 } else { answer.high_watermark }, ..answer });
        changed || answer.has_records || answer.redirected || failed
    }
}

/// One consumer's session: its partitions in reading order, with an index by key, and the epoch
/// its next request must carry.
#[derive(Debug)]
pub struct FetchSession {
    epoch: i32,
    uses_topic_ids: bool,
    /// In answer order: partitions that returned something move to the back, so that under a
    /// byte limit the others are read first next time (Kafka's rotation).
    partitions: Vec<CachedPartition>,
    /// Where each key is in `partitions`.
    positions: HashMap<SessionPartition, usize>,
}

impl FetchSession {
    fn new(uses_topic_ids: bool) -> Self {
        FetchSession { epoch: INITIAL_EPOCH + 1, uses_topic_ids, partitions: Vec::new(), positions: HashMap::new() }
    }

    fn len(&self) -> usize {
        self.partitions.len()
    }

    /// Adds `partition`, or takes its new request if the session holds it. O(1).
    fn upsert(&mut self, partition: CachedPartition) {
        match self.positions.get(&partition.key) {
            Some(&at) => self.partitions[at].request = partition.request,
            None => {
                self.positions.insert(partition.key.clone(), self.partitions.len());
                self.partitions.push(partition);
            }
        }
    }

    /// Drops the `forgotten` partitions. Linear in the session.
    fn forget(&mut self, forgotten: &[SessionPartition]) {
        let before = self.positions.len();
        for key in forgotten {
            self.positions.remove(key);
        }
        if self.positions.len() != before {
            self.partitions.retain(|p| self.positions.contains_key(&p.key));
            self.reindex();
        }
    }

    /// Records each answer; for each, whether the response must include its partition. Answered
    /// partitions move to the back. Linear in the session and the answers.
    fn record_answers(&mut self, answers: &[(SessionPartition, PartitionAnswer)]) -> Vec<bool> {
        let mut loud = vec![false; self.partitions.len()];
        let include = answers
            .iter()
            .map(|(key, answer)| match self.positions.get(key) {
                Some(&at) => {
                    let include = self.partitions[at].record(*answer);
                    loud[at] |= include;
                    include
                }
                None => true,
            })
            .collect();
        let (mut quiet, answered): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.partitions).into_iter().zip(loud).partition(|(_, loud)| !loud);
        quiet.extend(answered);
        self.partitions = quiet.into_iter().map(|(p, _)| p).collect();
        self.reindex();
        include
    }

    fn reindex(&mut self) {
        for (at, partition) in self.partitions.iter().enumerate() {
            if let Some(position) = self.positions.get_mut(&partition.key) {
                *position = at;
            }
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
    /// The request would grow the session past [`FETCH_SESSION_PARTITIONS_MAX`]: the session is
    /// dropped, and the client told so as if it had been evicted.
    TooLarge,
}

impl SessionError {
    pub fn code(self) -> ErrorCode {
        match self {
            SessionError::NotFound | SessionError::TooLarge => ErrorCode::FetchSessionIdNotFound,
            SessionError::InvalidEpoch => ErrorCode::InvalidFetchSessionEpoch,
            SessionError::TopicIdMismatch => ErrorCode::FetchSessionTopicIdError,
            SessionError::Emptied => ErrorCode::None,
        }
    }
}

/// A session shared between the cache and the requests using it.
type SharedSession = Arc<Mutex<FetchSession>>;

/// One slot of the cache: a session and the facts eviction reads, kept here so that choosing a
/// victim never waits on a session's own lock.
#[derive(Debug)]
struct Slot {
    session: SharedSession,
    created_ms: i64,
    last_used_ms: i64,
    /// Old enough, when last used, to give its slot to a larger new session (Kafka's
    /// `evictableByAll`, decided on each use).
    evictable: bool,
    /// The session's partition count as of its last use.
    size: usize,
}

/// The sessions of one node, at most `slots_max` of them. Thread-safe (see the module docs).
#[derive(Debug)]
pub struct FetchSessionCache {
    slots_max: usize,
    slots: Mutex<HashMap<i32, Slot>>,
}

impl FetchSessionCache {
    pub fn new(slots_max: usize) -> Self {
        FetchSessionCache { slots_max, slots: Mutex::new(HashMap::new()) }
    }

    pub fn len(&self) -> usize {
        self.slots().len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots().is_empty()
    }

    /// Closes session `id` (a request at the initial or final epoch naming it); false if unknown.
    pub fn remove(&self, id: i32) -> bool {
        self.slots().remove(&id).is_some()
    }

    /// Opens a session holding `partitions` with their first answers; its id, or `None` when it
    /// would hold more than [`FETCH_SESSION_PARTITIONS_MAX`] or no slot can be had (the fetch is
    /// then answered sessionless). `next_id` draws candidate ids (Kafka draws at random too); only
    /// positive ids not in use are taken. The session is built before the cache is locked.
    pub fn create(
        &self,
        partitions: Vec<(CachedPartition, PartitionAnswer)>,
        uses_topic_ids: bool,
        now_ms: i64,
        next_id: &mut dyn FnMut() -> i32,
    ) -> Option<i32> {
        if partitions.len() > FETCH_SESSION_PARTITIONS_MAX {
            return None;
        }
        let mut session = FetchSession::new(uses_topic_ids);
        for (mut partition, answer) in partitions {
            partition.answered = Some(answer);
            session.upsert(partition);
        }
        let size = session.len();
        let mut slots = self.slots();
        if !make_room(&mut slots, self.slots_max, size, now_ms) {
            return None;
        }
        let id =
            (0..SESSION_ID_DRAWS_MAX).map(|_| next_id()).find(|id| *id > SESSIONLESS_ID && !slots.contains_key(id))?;
        let session = Arc::new(Mutex::new(session));
        slots.insert(id, Slot { session, created_ms: now_ms, last_used_ms: now_ms, evictable: false, size });
        assert!(slots.len() <= self.slots_max, "fetch session cache over its slots");
        Some(id)
    }

    /// Starts an incremental fetch on session `id` at `epoch`: applies `changes` (upserts first,
    /// then forgotten partitions, as Kafka does), advances the expected epoch and returns the
    /// session's partitions in the order to read them. Linear in the session and the changes,
    /// under the session's lock only.
    pub fn begin_incremental(
        &self,
        id: i32,
        epoch: i32,
        uses_topic_ids: bool,
        changes: SessionChanges,
        now_ms: i64,
    ) -> Result<Vec<CachedPartition>, SessionError> {
        let shared = self.session(id).ok_or(SessionError::NotFound)?;
        let begun = {
            let mut session = lock_session(&shared);
            begin(&mut session, epoch, uses_topic_ids, changes)
        };
        let mut slots = self.slots();
        let ours = slots.get(&id).is_some_and(|slot| Arc::ptr_eq(&slot.session, &shared));
        match &begun {
            Err(SessionError::Emptied | SessionError::TooLarge) if ours => {
                slots.remove(&id);
            }
            Ok(partitions) if ours => {
                if let Some(slot) = slots.get_mut(&id) {
                    slot.last_used_ms = now_ms;
                    slot.evictable = now_ms - slot.created_ms > FETCH_SESSION_EVICTION_MS;
                    slot.size = partitions.len();
                }
            }
            _ => {}
        }
        begun
    }

    /// Records the answers of an incremental fetch on session `id`; for each answer, whether the
    /// response must include its partition. Partitions answered move to the back of the session.
    /// A session closed meanwhile (by another request) filters nothing.
    pub fn finish_incremental(&self, id: i32, answers: &[(SessionPartition, PartitionAnswer)]) -> Vec<bool> {
        match self.session(id) {
            Some(shared) => lock_session(&shared).record_answers(answers),
            None => vec![true; answers.len()],
        }
    }

    fn session(&self, id: i32) -> Option<SharedSession> {
        self.slots().get(&id).map(|slot| slot.session.clone())
    }

    fn slots(&self) -> MutexGuard<'_, HashMap<i32, Slot>> {
        // Nothing under this lock can leave the slots half-changed: a poisoned lock is usable.
        self.slots.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// An incremental request's changes applied to its session (see
/// [`FetchSessionCache::begin_incremental`]); the session's partitions in reading order.
fn begin(
    session: &mut FetchSession,
    epoch: i32,
    uses_topic_ids: bool,
    changes: SessionChanges,
) -> Result<Vec<CachedPartition>, SessionError> {
    if session.epoch != epoch {
        return Err(SessionError::InvalidEpoch);
    }
    if session.uses_topic_ids != uses_topic_ids {
        return Err(SessionError::TopicIdMismatch);
    }
    for partition in changes.upserts {
        session.upsert(partition);
    }
    session.forget(&changes.forgotten);
    if session.partitions.is_empty() {
        // Nothing left to fetch: Kafka closes the session and answers sessionless.
        return Err(SessionError::Emptied);
    }
    if session.len() > FETCH_SESSION_PARTITIONS_MAX {
        return Err(SessionError::TooLarge);
    }
    session.epoch = next_epoch(session.epoch);
    Ok(session.partitions.clone())
}

fn lock_session(session: &SharedSession) -> MutexGuard<'_, FetchSession> {
    // A panic mid-update could only leave an index position stale, which `reindex` repairs.
    session.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Frees a slot for a new session of `size` partitions; false if none may be freed (see the
/// module docs for the rules).
fn make_room(slots: &mut HashMap<i32, Slot>, slots_max: usize, size: usize, now_ms: i64) -> bool {
    if slots.len() < slots_max {
        return true;
    }
    let stale = slots
        .iter()
        .min_by_key(|(id, s)| (s.last_used_ms, **id))
        .filter(|(_, s)| now_ms - s.last_used_ms > FETCH_SESSION_EVICTION_MS)
        .map(|(id, _)| *id);
    let smaller = || {
        slots
            .iter()
            .filter(|(_, s)| s.evictable)
            .min_by_key(|(id, s)| (s.size, **id))
            .filter(|(_, s)| size > s.size)
            .map(|(id, _)| *id)
    };
    match stale.or_else(smaller) {
        Some(victim) => {
            slots.remove(&victim);
            true
        }
        None => false,
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
            redirected: false,
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
        let cache = FetchSessionCache::new(1);
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
        let cache = FetchSessionCache::new(2);
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
        let cache = FetchSessionCache::new(1);
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
        let cache = FetchSessionCache::new(1);
        let id = cache.create(session(1), false, 0, &mut counter(0)).expect("created");
        let changes = SessionChanges { upserts: vec![], forgotten: vec![key(0)] };
        assert_eq!(cache.begin_incremental(id, 1, false, changes, 0).err(), Some(SessionError::Emptied));
        assert!(cache.is_empty());
    }
}
