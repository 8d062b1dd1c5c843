//! Random but valid instances of every generated message, for tests, fuzz seeds and benchmarks.
//! Only built with the `sample` feature.
//!
//! [`SampleGen`] is a small seeded generator (SplitMix64), so a failing case is reproduced from
//! its seed alone. Values are kept small (short strings, arrays of at most three elements, nesting
//! cut off past a depth) so that a sample of any message stays a few kilobytes.

use bytes::Bytes;
use strand_base::Uuid;

use crate::codec::{Message, RawTaggedField};

/// A type that can make a random instance of itself, valid at `version`: fields absent at that
/// version keep their defaults, so encoding at `version` never fails.
pub trait Sample: Sized {
    fn sample(g: &mut SampleGen, version: i16) -> Self;
}

/// Something to do with each generated message type; see `messages::visit_all`.
pub trait MessageVisitor {
    fn visit<M: Message + Sample>(&mut self);
}

/// The deepest arrays nest before the generator stops filling them.
const DEPTH_MAX: u32 = 6;
/// The longest array the generator makes.
const ARRAY_LEN_MAX: u64 = 3;

/// A seeded SplitMix64 generator with helpers for each wire type.
#[derive(Debug, Clone)]
pub struct SampleGen {
    state: u64,
    depth: u32,
}

impl SampleGen {
    pub fn new(seed: u64) -> Self {
        SampleGen { state: seed, depth: 0 }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    pub fn bool(&mut self) -> bool {
        self.below(2) == 1
    }

    pub fn i8(&mut self) -> i8 {
        self.next_u64() as i8
    }

    pub fn i16(&mut self) -> i16 {
        self.next_u64() as i16
    }

    pub fn u16(&mut self) -> u16 {
        self.next_u64() as u16
    }

    pub fn i32(&mut self) -> i32 {
        self.next_u64() as i32
    }

    pub fn i64(&mut self) -> i64 {
        self.next_u64() as i64
    }

    /// A finite float (NaN would not compare equal to itself after a round trip).
    pub fn f64(&mut self) -> f64 {
        (self.i32() as f64) / 7.0
    }

    pub fn uuid(&mut self) -> Uuid {
        let mut id = [0u8; 16];
        id[..8].copy_from_slice(&self.next_u64().to_be_bytes());
        id[8..].copy_from_slice(&self.next_u64().to_be_bytes());
        Uuid(id)
    }

    pub fn string(&mut self) -> String {
        let len = self.below(9);
        (0..len).map(|_| char::from(b'a' + self.below(26) as u8)).collect()
    }

    pub fn bytes(&mut self) -> Bytes {
        let len = self.below(17);
        (0..len).map(|_| self.next_u64() as u8).collect()
    }

    /// `None` one time in four.
    pub fn nullable<T>(&mut self, value: impl FnOnce(&mut Self) -> T) -> Option<T> {
        if self.below(4) == 0 { None } else { Some(value(self)) }
    }

    pub fn vec<T>(&mut self, mut item: impl FnMut(&mut Self) -> T) -> Vec<T> {
        if self.depth >= DEPTH_MAX {
            return Vec::new();
        }
        self.depth += 1;
        let len = self.below(ARRAY_LEN_MAX + 1);
        let items = (0..len).map(|_| item(self)).collect();
        self.depth -= 1;
        items
    }

    /// Unknown tagged fields, sometimes: tags far above any Kafka uses, in ascending order, as a
    /// decoder would produce them.
    pub fn unknown_tagged_fields(&mut self) -> Vec<RawTaggedField> {
        if self.below(4) != 0 {
            return Vec::new();
        }
        let mut tag = 10_000 + self.below(100) as u32;
        let mut fields = Vec::new();
        for _ in 0..=self.below(2) {
            fields.push(RawTaggedField { tag, data: self.bytes() });
            tag += 1 + self.below(100) as u32;
        }
        fields
    }
}
