//! Kafka's wire protocol, as Strand speaks it.
//!
//! - [`codec`]: the primitive wire types, a bounded [`codec::Decoder`] and the writers.
//! - [`messages`]: every request, response, header, KRaft metadata record, coordinator record and
//!   data type of Apache Kafka 4.4, generated from Kafka's own JSON schemas by `xtask codegen`
//!   (see `NOTICE`). Never edit them by hand: change the generator and run `xtask/codegen.sh`.
//! - [`frame`]: size-prefixed frames, request headers read before bodies, response headers.
//! - [`versions`]: the version range advertised per API in ApiVersions.
//! - [`records`]: zero-copy views of magic-2 record batches, the record iterator, control records
//!   and the four compression codecs (every decompression capped). [`records::walk::summarize`]
//!   is the produce path's look at a batch's records: structure, count, offset deltas, timestamps
//!   and null keys, read in place or through a 16 KiB window of a streaming decompressor, no
//!   record built (cost in `bench/results/2026-12-02-produce-validation.md`).
//!
//! - `sample`, `fuzzing` (feature `sample`, tests and fuzzing only): random valid messages and the
//!   fuzzer's round-trip check.
//!
//! This crate does no I/O and reads no clock: it turns bytes into values and back. Nothing a peer
//! sends can make it panic or allocate more than a small multiple of the bytes it sent.

pub mod codec;
pub mod error;
pub mod frame;
#[cfg(feature = "sample")]
pub mod fuzzing;
pub mod messages;
pub mod records;
#[cfg(feature = "sample")]
pub mod sample;
pub mod versions;

pub use codec::{DecodeError, Decoder, EncodeError, Message, Struct, VersionRange};
