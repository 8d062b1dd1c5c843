//! Decoding allocates in proportion to the bytes received, never to the lengths those bytes claim:
//! for any input of `n` bytes, the decoder allocates at most `ALLOC_PER_BYTE_MAX * n` bytes plus a
//! constant, and never panics; a request frame, at most its allocation budget
//! (`decode_allocation_max(n)`) plus that constant.
//!
//! A counting global allocator measures every allocation made on the decoding thread, so the
//! bound covers all of it: vectors, strings, unknown tagged fields and error values.

// A global allocator cannot be written without `unsafe`; this one only counts and delegates.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use bytes::Bytes;
use proptest::prelude::*;
use strand_protocol::Decoder;
use strand_protocol::frame::{decode_allocation_max, decode_request_body, parse_request};
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_protocol::sample::SampleGen;

/// The bound this test proves: bytes allocated per byte of input. The largest ratio of a struct's
/// in-memory size to its smallest encoding sets it: a ListGroups v3 group is three bytes on the
/// wire at least (two empty compact strings and a tag count) but 120 bytes in memory (four
/// `String`s and the unknown-tags `Vec`), a ratio of 40, seen at about 48 with the strings' own
/// bytes. Every count is checked against the bytes left times its element's smallest encoding.
const ALLOC_PER_BYTE_MAX: usize = 64;
/// Allocation allowed whatever the input size: an empty message's vectors, an error's text.
const ALLOC_SLACK_BYTES: usize = 1024;

struct Counting;

thread_local! {
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: delegates every call to the system allocator unchanged; it only adds to a thread-local
// counter, which needs no allocation (const-initialized, no destructor).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.with(|a| a.set(a.get() + layout.size()));
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATED.with(|a| a.set(a.get() + new_size));
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Bytes allocated on this thread while `f` runs.
fn allocated_by<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = ALLOCATED.with(Cell::get);
    let out = f();
    (out, ALLOCATED.with(Cell::get) - before)
}

fn check_request_frame(frame: Vec<u8>) -> Result<(), TestCaseError> {
    let n = frame.len();
    let frame = Bytes::from(frame);
    let (_, allocated) = allocated_by(|| parse_request(frame).and_then(|f| decode_request_body(&f).map(|_| ())));
    prop_assert!(
        allocated <= decode_allocation_max(n) + ALLOC_SLACK_BYTES,
        "{allocated} bytes allocated for a {n}-byte frame"
    );
    Ok(())
}

fn check_response_body(api: ApiKey, version: i16, body: Vec<u8>) -> Result<(), TestCaseError> {
    let n = body.len();
    let body = Bytes::from(body);
    let (_, allocated) = allocated_by(|| ResponseBody::decode(api, &mut Decoder::new(body), version).map(|_| ()));
    prop_assert!(
        allocated <= ALLOC_PER_BYTE_MAX * n + ALLOC_SLACK_BYTES,
        "{allocated} bytes allocated for a {n}-byte {api:?} v{version} response"
    );
    Ok(())
}

/// A valid request header for `api` at a version it has, followed by nothing.
fn header(api: ApiKey, version_pick: u16) -> (i16, Vec<u8>) {
    let range = api.versions();
    let span = (range.max - range.min + 1) as u16;
    let version = range.min + (version_pick % span) as i16;
    let mut frame = Vec::new();
    frame.extend_from_slice(&(api as i16).to_be_bytes());
    frame.extend_from_slice(&version.to_be_bytes());
    frame.extend_from_slice(&1i32.to_be_bytes());
    frame.extend_from_slice(&(-1i16).to_be_bytes()); // null client id
    if api.request_header_version(version) >= 2 {
        frame.push(0); // no tagged fields
    }
    (version, frame)
}

fn pick_api(index: usize) -> ApiKey {
    ApiKey::ALL[index % ApiKey::ALL.len()]
}

/// A random valid request body, encoded, then corrupted at a few places with length-like bytes.
fn mutated_request(api: ApiKey, version: i16, seed: u64, edits: &[(usize, u8)]) -> Vec<u8> {
    let mut g = SampleGen::new(seed);
    let body = RequestBody::sample(api, &mut g, version);
    let mut bytes = bytes::BytesMut::new();
    if body.encode(&mut bytes, version).is_err() {
        return Vec::new();
    }
    let mut bytes = bytes.to_vec();
    for &(at, byte) in edits {
        if !bytes.is_empty() {
            let at = at % bytes.len();
            bytes[at] = byte;
        }
    }
    bytes
}

proptest! {
    // A fixed seed keeps CI deterministic; change it locally to explore further.
    #![proptest_config(ProptestConfig {
        cases: 2000,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5743_414e_4400),
        ..ProptestConfig::default()
    })]

    /// Random bodies behind a valid header, for every API and version.
    #[test]
    fn random_request_bodies(api in 0usize..200, version in any::<u16>(), body in proptest::collection::vec(any::<u8>(), 0..512)) {
        let (_, mut frame) = header(pick_api(api), version);
        frame.extend_from_slice(&body);
        check_request_frame(frame)?;
    }

    /// Bodies made of huge-length-looking bytes: every count and length claims the maximum.
    #[test]
    fn length_bombs(api in 0usize..200, version in any::<u16>(), len in 0usize..64, fill in prop::sample::select(vec![0x7fu8, 0xff, 0x80, 0x01])) {
        let (_, mut frame) = header(pick_api(api), version);
        frame.extend(std::iter::repeat_n(fill, len));
        check_request_frame(frame)?;
    }

    /// Valid bodies with a few bytes overwritten: decoding gets deep before it meets the damage.
    #[test]
    fn mutated_valid_requests(
        api in 0usize..200,
        version in any::<u16>(),
        seed in any::<u64>(),
        edits in proptest::collection::vec((any::<usize>(), prop::sample::select(vec![0x7fu8, 0xff, 0x80, 0x00, 0x10])), 1..4),
    ) {
        let api = pick_api(api);
        let (version, mut frame) = header(api, version);
        frame.extend_from_slice(&mutated_request(api, version, seed, &edits));
        check_request_frame(frame)?;
    }

    /// Entirely random frames, header included.
    #[test]
    fn random_frames(frame in proptest::collection::vec(any::<u8>(), 0..256)) {
        check_request_frame(frame)?;
    }

    /// Random response bodies for every API and version (the client side decodes these).
    #[test]
    fn random_response_bodies(api in 0usize..200, version in any::<u16>(), body in proptest::collection::vec(any::<u8>(), 0..512)) {
        let api = pick_api(api);
        let (version, _) = header(api, version);
        check_response_body(api, version, body)?;
    }
}
