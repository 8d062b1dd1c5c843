//! `queued.max.request.bytes`: the memory pool of requests in flight, as Kafka's `MemoryPool`.
//!
//! A connection reads a frame's size prefix, then reserves the frame's memory here before it reads
//! a byte of the body; while the pool has no room the connection reads nothing more (Kafka mutes
//! it). A reservation is the frame and what decoding it may allocate beside it
//! ([`MemoryPool::request_reservation_bytes`]: the decoder's budget for the request's API, read
//! from the body's first two bytes, which the decoder refuses to exceed), so the pool bounds
//! decoded requests too. It is released when the request has been handled (its response exists or,
//! for an acks=all Produce, its records are appended), as Kafka releases the buffer after
//! `KafkaApis.handle`.
//!
//! Two rules keep ordinary clients served when large frames fill the pool, which Kafka's pool does
//! not (there, an exhausted pool mutes every connection):
//! - a *large* reservation (above [`SMALL_RESERVATION_BYTES_MAX`]) is admitted only while large
//!   reservations together stay within three quarters of the pool, so small requests always find
//!   at least a quarter free of large ones;
//! - when no large reservation is held, one is admitted whatever its size, so the largest frame
//!   `socket.request.max.bytes` allows always gets in (Kafka's pool, being non-strict, likewise
//!   lets one allocation overshoot).
//!
//! Reservations held are therefore at most the pool, or one large reservation plus a quarter of
//! the pool. The pool only counts: a frame's buffer still grows as its bytes arrive, so a
//! connection that reserved much and sent little holds little.

use std::sync::{Arc, Mutex, PoisonError};

use strand_protocol::frame::{decode_allocation_max, request_decode_allocation_max};
use tokio::sync::Notify;

/// The largest reservation that counts as small: a 1 MiB frame's, the default `max.request.size`
/// of Kafka's producer and above any request but a large Produce.
pub const SMALL_RESERVATION_BYTES_MAX: usize = MemoryPool::reservation_bytes(1024 * 1024);

/// The share of the pool large reservations may hold together, in quarters.
const LARGE_SHARE_QUARTERS: usize = 3;

/// The pool, shared by every client connection of the node. `capacity` `None` is unbounded
/// (`queued.max.request.bytes` -1): reservations are not counted.
#[derive(Debug)]
pub struct MemoryPool {
    capacity: Option<usize>,
    held: Mutex<Held>,
    /// Wakes waiting small reservations: on every release.
    small_room: Notify,
    /// Wakes waiting large reservations: only on a release after which one may fit, so that the
    /// many large frames a flood leaves waiting are not woken by every small request's release.
    large_room: Notify,
}

#[derive(Debug, Default, Clone, Copy)]
struct Held {
    small: usize,
    large: usize,
}

/// Memory reserved for one request; released when dropped.
#[derive(Debug)]
pub struct Reservation {
    pool: Option<Arc<MemoryPool>>,
    bytes: usize,
    large: bool,
}

impl MemoryPool {
    /// A pool of `capacity` bytes; `None` is unbounded.
    pub fn new(capacity: Option<usize>) -> Arc<MemoryPool> {
        Arc::new(MemoryPool {
            capacity,
            held: Mutex::new(Held::default()),
            small_room: Notify::new(),
            large_room: Notify::new(),
        })
    }

    /// The pool of `queued.max.request.bytes`: bounded when positive, as Kafka's.
    pub fn from_setting(queued_max_request_bytes: i64) -> Arc<MemoryPool> {
        let capacity = usize::try_from(queued_max_request_bytes).ok().filter(|&bytes| bytes > 0);
        MemoryPool::new(capacity)
    }

    /// The reservation a frame of `frame_bytes` needs: the frame, and the most decoding it may
    /// allocate (records stay slices of the frame; other fields are built beside it).
    pub const fn reservation_bytes(frame_bytes: usize) -> usize {
        frame_bytes.saturating_add(decode_allocation_max(frame_bytes))
    }

    /// The reservation a request frame of `frame_bytes` for `api_key` needs: the frame, and the
    /// most decoding that API's request may allocate (a Produce's records stay in the frame).
    pub const fn request_reservation_bytes(api_key: i16, frame_bytes: usize) -> usize {
        frame_bytes.saturating_add(request_decode_allocation_max(api_key, frame_bytes))
    }

    /// Reserves `bytes`, waiting while the pool has no room for them.
    pub async fn reserve(self: &Arc<Self>, bytes: usize) -> Reservation {
        let room = if bytes > SMALL_RESERVATION_BYTES_MAX { &self.large_room } else { &self.small_room };
        loop {
            let released = room.notified();
            tokio::pin!(released);
            // Registered before the check, so a release between the check and the wait is not lost.
            released.as_mut().enable();
            if let Some(reservation) = self.try_reserve(bytes) {
                return reservation;
            }
            released.await;
        }
    }

    /// Reserves `bytes` if the pool has room for them now.
    pub fn try_reserve(self: &Arc<Self>, bytes: usize) -> Option<Reservation> {
        let Some(capacity) = self.capacity else {
            return Some(Reservation { pool: None, bytes, large: false });
        };
        let large = bytes > SMALL_RESERVATION_BYTES_MAX;
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        if !admits(*held, capacity, bytes, large) {
            return None;
        }
        if large {
            held.large += bytes;
        } else {
            held.small += bytes;
        }
        Some(Reservation { pool: Some(Arc::clone(self)), bytes, large })
    }

    /// The bytes reserved now.
    pub fn reserved_bytes(&self) -> usize {
        let held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        held.small + held.large
    }

    fn release(&self, bytes: usize, large: bool) {
        let large_may_fit = {
            let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
            let class = if large { &mut held.large } else { &mut held.small };
            *class = class.saturating_sub(bytes);
            let capacity = self.capacity.unwrap_or(usize::MAX);
            large || admits(*held, capacity, SMALL_RESERVATION_BYTES_MAX + 1, true)
        };
        self.small_room.notify_waiters();
        if large_may_fit {
            self.large_room.notify_waiters();
        }
    }
}

/// The admission rules of the module doc.
fn admits(held: Held, capacity: usize, bytes: usize, large: bool) -> bool {
    let total = held.small + held.large;
    let fits_pool = total.saturating_add(bytes) <= capacity;
    if large {
        let large_share = capacity / 4 * LARGE_SHARE_QUARTERS;
        held.large == 0 || (fits_pool && held.large + bytes <= large_share)
    } else {
        fits_pool || held.small.saturating_add(bytes) <= capacity / 4
    }
}

impl Reservation {
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if let Some(pool) = self.pool.take() {
            pool.release(self.bytes, self.large);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1024 * 1024;

    /// Large reservations share three quarters of the pool; small ones always find the last
    /// quarter; one large reservation is admitted whatever its size when no other is held.
    #[test]
    fn admission_keeps_a_quarter_for_small_requests() {
        let check = |held: Held, bytes: usize, expected: bool| {
            let large = bytes > SMALL_RESERVATION_BYTES_MAX;
            assert_eq!(admits(held, 100 * MIB, bytes, large), expected, "{held:?} + {bytes}");
        };
        let none = Held::default();
        check(none, 200 * MIB, true);
        check(Held { small: 0, large: 10 * MIB }, 70 * MIB, false);
        check(Held { small: 0, large: 10 * MIB }, 64 * MIB, true);
        check(Held { small: 30 * MIB, large: 10 * MIB }, 64 * MIB, false);
        check(Held { small: 0, large: 200 * MIB }, MIB, true);
        check(Held { small: 24 * MIB, large: 200 * MIB }, 2 * MIB, false);
        check(Held { small: 98 * MIB, large: 0 }, 2 * MIB, true);
        check(Held { small: 99 * MIB, large: 0 }, 2 * MIB, false);
    }

    /// A waiting reservation is admitted when another is released; an unbounded pool never waits.
    #[tokio::test]
    async fn a_release_admits_a_waiting_reservation() {
        let pool = MemoryPool::new(Some(8 * MIB));
        let first = pool.try_reserve(5 * MIB).expect("room for the first");
        assert!(pool.try_reserve(5 * MIB).is_none(), "no room for a second large one");
        let waiting = tokio::spawn({
            let pool = Arc::clone(&pool);
            async move { pool.reserve(5 * MIB).await.bytes() }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        drop(first);
        assert_eq!(waiting.await.expect("admitted"), 5 * MIB);
        assert_eq!(pool.reserved_bytes(), 0, "released again when the waiter's reservation dropped");
        let unbounded = MemoryPool::from_setting(-1);
        let _held = unbounded.try_reserve(usize::MAX).expect("unbounded");
        assert_eq!(unbounded.reserved_bytes(), 0);
    }
}
