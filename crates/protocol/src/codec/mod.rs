//! The primitive wire types of Kafka's protocol, read from and written to byte buffers: the
//! building blocks the generated messages are made of.
//!
//! Reading is bounded: every length or count read from the wire is checked against the bytes left
//! before anything is allocated, so a frame of `n` bytes can never make a decoder reserve more than
//! a small multiple of `n`. A decoder may also carry an allocation budget ([`Decoder::with_budget`]):
//! each vector, string and unknown tagged field it builds is charged against it before it is
//! allocated, and decoding stops with [`DecodeError::AllocationBudget`] once the budget would be
//! exceeded; the decoders of tagged fields split off it share it. Byte fields and record sets are
//! zero-copy [`Bytes`] slices of the frame and cost nothing.
//!
//! Key types: [`Decoder`] (a cursor over a frame), [`WireWrite`] (writers on [`BytesMut`]),
//! [`RawTaggedField`] (a tagged field this build does not know, kept to be re-encoded),
//! [`DecodeError`] and [`EncodeError`].

pub mod records;
pub mod varint;

pub use records::{FileRegion, Records};

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::{Buf, BufMut, Bytes, BytesMut};
use strand_base::Uuid;

/// Why a frame could not be decoded. Every variant is something a client can cause.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("needed {needed} bytes but only {remaining} remain")]
    Truncated { needed: usize, remaining: usize },
    #[error("length or count {length} is negative or exceeds the bytes that remain ({remaining})")]
    InvalidLength { length: i64, remaining: usize },
    #[error("field {field} is null but not nullable")]
    UnexpectedNull { field: &'static str },
    #[error("a string is not valid UTF-8")]
    InvalidUtf8,
    #[error("a varint is longer than its type allows")]
    VarintTooLong,
    #[error("tagged field {tag} left {left} of its bytes unread")]
    TaggedFieldSize { tag: u32, left: usize },
    #[error("{name} has no version {version}")]
    UnsupportedVersion { name: &'static str, version: i16 },
    #[error("unknown api key {0}")]
    UnknownApiKey(i16),
    #[error("{0} bytes left over after the message")]
    TrailingBytes(usize),
    #[error("tagged field {tag} does not come after tag {previous}")]
    TagOutOfOrder { tag: u32, previous: u32 },
    #[error("nullable struct marker {0} is neither -1 nor 1")]
    InvalidStructMarker(i8),
    #[error("{0}")]
    Invalid(&'static str),
    #[error("decoding needs {needed} more bytes of memory, over its allocation budget ({left} left)")]
    AllocationBudget { needed: usize, left: usize },
}

/// Why a message could not be encoded at a version. These are caller bugs or version mismatches
/// (Kafka's `UnsupportedVersionException`), never panics.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("{name} has no version {version}")]
    UnsupportedVersion { name: &'static str, version: i16 },
    #[error("field {field} is set but does not exist at version {version}")]
    FieldNotInVersion { field: &'static str, version: i16 },
    #[error("field {field} is null but not nullable at version {version}")]
    NullNotAllowed { field: &'static str, version: i16 },
    #[error("field {field} is too long for its length prefix ({length})")]
    TooLong { field: &'static str, length: usize },
    #[error("field {field} holds a file region, which only a frame writer can send")]
    FileRecords { field: &'static str },
}

/// A tagged field this build does not know, kept as raw bytes so it is re-encoded unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RawTaggedField {
    pub tag: u32,
    pub data: Bytes,
}

/// A cursor over the remaining bytes of a frame. Cloning the underlying [`Bytes`] is cheap, so
/// byte fields are handed out as slices sharing the frame's allocation.
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    buf: Bytes,
    /// The last tag read in the current tagged-field section: tags must strictly ascend, so a
    /// repeated or reordered tag is rejected rather than re-encoded differently.
    last_tag: Option<u32>,
    /// The bytes decoding may still allocate; `None` is unbounded. Shared, not copied, with the
    /// decoders [`Decoder::tagged_field`] splits off, which the generated code drops without
    /// handing anything back.
    budget: Option<Arc<AtomicUsize>>,
}

macro_rules! fixed_reader {
    ($name:ident, $ty:ty, $get:ident) => {
        #[doc = concat!("Reads a big-endian `", stringify!($ty), "`.")]
        pub fn $name(&mut self) -> Result<$ty, DecodeError> {
            self.need(std::mem::size_of::<$ty>())?;
            Ok(self.buf.$get())
        }
    };
}

impl Decoder {
    /// A decoder without an allocation budget, for bytes the node trusts as much as its own
    /// (its logs, its peers' responses).
    pub fn new(buf: Bytes) -> Self {
        Decoder { buf, last_tag: None, budget: None }
    }

    /// A decoder that may allocate at most `budget` bytes for the values it builds (see the
    /// module doc), for bytes a client sent.
    pub fn with_budget(buf: Bytes, budget: usize) -> Self {
        Decoder { buf, last_tag: None, budget: Some(Arc::new(AtomicUsize::new(budget))) }
    }

    /// The allocation budget left; `None` if unbounded.
    pub fn budget_left(&self) -> Option<usize> {
        self.budget.as_ref().map(|left| left.load(Ordering::Relaxed))
    }

    /// Takes an allocation of `bytes` from the allocation budget before it is made, counted as
    /// the heap gives it ([`heap_bytes`]).
    fn charge(&self, bytes: usize) -> Result<(), DecodeError> {
        let Some(left) = &self.budget else { return Ok(()) };
        let bytes = heap_bytes(bytes);
        let taken = left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| left.checked_sub(bytes));
        taken.map(|_| ()).map_err(|left| DecodeError::AllocationBudget { needed: bytes, left })
    }

    /// The bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.buf.len()
    }

    /// The unread bytes, consuming the decoder.
    pub fn into_bytes(self) -> Bytes {
        self.buf
    }

    /// Succeeds only if every byte was read: a message must fill its frame exactly.
    pub fn finish(&self) -> Result<(), DecodeError> {
        match self.buf.len() {
            0 => Ok(()),
            left => Err(DecodeError::TrailingBytes(left)),
        }
    }

    fn need(&self, needed: usize) -> Result<(), DecodeError> {
        if self.buf.len() < needed {
            return Err(DecodeError::Truncated { needed, remaining: self.buf.len() });
        }
        Ok(())
    }

    fixed_reader!(i8, i8, get_i8);
    fixed_reader!(i16, i16, get_i16);
    fixed_reader!(u16, u16, get_u16);
    fixed_reader!(i32, i32, get_i32);
    fixed_reader!(u32, u32, get_u32);
    fixed_reader!(i64, i64, get_i64);
    fixed_reader!(f64, f64, get_f64);

    /// Reads a boolean: any non-zero byte is true, as Kafka reads it.
    pub fn bool(&mut self) -> Result<bool, DecodeError> {
        Ok(self.i8()? != 0)
    }

    pub fn uuid(&mut self) -> Result<Uuid, DecodeError> {
        self.need(16)?;
        let mut id = [0u8; 16];
        self.buf.copy_to_slice(&mut id);
        Ok(Uuid(id))
    }

    pub fn unsigned_varint(&mut self) -> Result<u32, DecodeError> {
        let (value, len) = varint::read_unsigned_varint(&self.buf)?;
        self.buf.advance(len);
        Ok(value)
    }

    pub fn varint(&mut self) -> Result<i32, DecodeError> {
        let (value, len) = varint::read_varint(&self.buf)?;
        self.buf.advance(len);
        Ok(value)
    }

    pub fn varlong(&mut self) -> Result<i64, DecodeError> {
        let (value, len) = varint::read_varlong(&self.buf)?;
        self.buf.advance(len);
        Ok(value)
    }

    /// Splits off the next `len` bytes without copying.
    pub fn take(&mut self, len: usize) -> Result<Bytes, DecodeError> {
        self.need(len)?;
        Ok(self.buf.split_to(len))
    }

    /// Reads a length prefix: `i16` (classic strings), `i32` (classic bytes and arrays) or an
    /// unsigned varint holding length + 1 (compact forms). `None` is null. The length is checked
    /// against the bytes that remain, scaled by the smallest encoding of one element.
    fn length(&mut self, prefix: Prefix, element_size_min: usize) -> Result<Option<usize>, DecodeError> {
        let raw: i64 = match prefix {
            Prefix::I16 => i64::from(self.i16()?),
            Prefix::I32 => i64::from(self.i32()?),
            Prefix::Compact => i64::from(self.unsigned_varint()?) - 1,
        };
        if raw == -1 {
            return Ok(None);
        }
        let remaining = self.buf.len();
        let fits = usize::try_from(raw).ok().filter(|&len| len.saturating_mul(element_size_min.max(1)) <= remaining);
        match fits {
            Some(len) => Ok(Some(len)),
            None => Err(DecodeError::InvalidLength { length: raw, remaining }),
        }
    }

    /// Reads a nullable string: `i16` length (`compact` false) or compact varint length.
    pub fn nullable_string(&mut self, compact: bool) -> Result<Option<String>, DecodeError> {
        let prefix = if compact { Prefix::Compact } else { Prefix::I16 };
        let Some(len) = self.length(prefix, 1)? else {
            return Ok(None);
        };
        self.charge(len)?;
        let raw = self.buf.split_to(len);
        let text = std::str::from_utf8(&raw).map_err(|_| DecodeError::InvalidUtf8)?;
        Ok(Some(text.to_owned()))
    }

    /// Reads a string that must not be null.
    pub fn string(&mut self, compact: bool, field: &'static str) -> Result<String, DecodeError> {
        self.nullable_string(compact)?.ok_or(DecodeError::UnexpectedNull { field })
    }

    /// Reads nullable bytes (`i32` or compact length) as a zero-copy slice.
    pub fn nullable_bytes(&mut self, compact: bool) -> Result<Option<Bytes>, DecodeError> {
        let prefix = if compact { Prefix::Compact } else { Prefix::I32 };
        let Some(len) = self.length(prefix, 1)? else {
            return Ok(None);
        };
        Ok(Some(self.buf.split_to(len)))
    }

    /// Reads bytes that must not be null.
    pub fn bytes(&mut self, compact: bool, field: &'static str) -> Result<Bytes, DecodeError> {
        self.nullable_bytes(compact)?.ok_or(DecodeError::UnexpectedNull { field })
    }

    /// Reads a nullable array whose elements each take at least `element_size_min` bytes; the
    /// count is rejected before any allocation if the remaining bytes cannot hold it, and the
    /// vector's slots (`count` times the size of `T`) are charged to the budget before they are
    /// allocated. What each element allocates itself is charged as it is decoded.
    pub fn nullable_array<T>(
        &mut self,
        compact: bool,
        element_size_min: usize,
        mut element: impl FnMut(&mut Decoder) -> Result<T, DecodeError>,
    ) -> Result<Option<Vec<T>>, DecodeError> {
        let prefix = if compact { Prefix::Compact } else { Prefix::I32 };
        let Some(count) = self.length(prefix, element_size_min)? else {
            return Ok(None);
        };
        self.charge(count.saturating_mul(std::mem::size_of::<T>()))?;
        let mut items = Vec::with_capacity(count);
        for _ in 0..count {
            items.push(element(self)?);
        }
        Ok(Some(items))
    }

    /// Reads an array that must not be null.
    pub fn array<T>(
        &mut self,
        compact: bool,
        element_size_min: usize,
        field: &'static str,
        element: impl FnMut(&mut Decoder) -> Result<T, DecodeError>,
    ) -> Result<Vec<T>, DecodeError> {
        self.nullable_array(compact, element_size_min, element)?.ok_or(DecodeError::UnexpectedNull { field })
    }

    /// Reads the marker in front of a nullable struct: `false` for null (-1), `true` for present (1).
    pub fn struct_marker(&mut self) -> Result<bool, DecodeError> {
        match self.i8()? {
            -1 => Ok(false),
            1 => Ok(true),
            other => Err(DecodeError::InvalidStructMarker(other)),
        }
    }

    /// Reads the tagged-field section's count. Each field takes at least two bytes. The vector
    /// that would keep them all as unknown fields is charged to the budget: the generated code
    /// pushes them one by one, so its capacity doubles from four up to the count.
    pub fn tagged_field_count(&mut self) -> Result<usize, DecodeError> {
        let count = self.unsigned_varint()?;
        let remaining = self.buf.len();
        let count = usize::try_from(count).unwrap_or(usize::MAX);
        if count.saturating_mul(2) > remaining {
            return Err(DecodeError::InvalidLength { length: count as i64, remaining });
        }
        if count > 0 {
            let capacity = count.next_power_of_two().max(4);
            self.charge(capacity.saturating_mul(std::mem::size_of::<RawTaggedField>()))?;
        }
        self.last_tag = None;
        Ok(count)
    }

    /// Reads one tagged field's tag and hands back a decoder over exactly its bytes. Tags of one
    /// section must strictly ascend (Kafka writes them so and refuses to write them otherwise).
    pub fn tagged_field(&mut self) -> Result<(u32, Decoder), DecodeError> {
        let tag = self.unsigned_varint()?;
        if let Some(previous) = self.last_tag
            && tag <= previous
        {
            return Err(DecodeError::TagOutOfOrder { tag, previous });
        }
        self.last_tag = Some(tag);
        let size = self.unsigned_varint()? as usize;
        let field = self.take(size)?;
        Ok((tag, Decoder { buf: field, last_tag: None, budget: self.budget.clone() }))
    }

    /// Checks that a known tagged field's decoder consumed all of the field's bytes.
    pub fn finish_tagged(&self, tag: u32) -> Result<(), DecodeError> {
        match self.buf.len() {
            0 => Ok(()),
            left => Err(DecodeError::TaggedFieldSize { tag, left }),
        }
    }
}

/// What an allocation of `bytes` takes from the heap: glibc's malloc adds an 8-byte header, rounds
/// up to 16 and takes at least 32 (a one-byte string costs 32). Nothing for nothing: an empty
/// `String` or `Vec` does not allocate.
pub const fn heap_bytes(bytes: usize) -> usize {
    const CHUNK_MIN: usize = 32;
    if bytes == 0 {
        return 0;
    }
    let chunk = bytes.saturating_add(8 + 15) & !15;
    if chunk < CHUNK_MIN { CHUNK_MIN } else { chunk }
}

#[derive(Clone, Copy)]
enum Prefix {
    I16,
    I32,
    Compact,
}

/// Writers for Kafka's wire types, on any growable buffer.
pub trait WireWrite: BufMut {
    fn put_bool(&mut self, value: bool) {
        self.put_i8(i8::from(value));
    }

    fn put_uuid(&mut self, value: &Uuid) {
        self.put_slice(&value.0);
    }

    fn put_unsigned_varint(&mut self, value: u32)
    where
        Self: Sized,
    {
        varint::put_unsigned_varint(self, value);
    }

    /// Writes a length prefix for `len` items (or null): `i16`/`i32` classic, or compact `len + 1`.
    fn put_length(
        &mut self,
        compact: bool,
        classic_i16: bool,
        len: Option<usize>,
        field: &'static str,
    ) -> Result<(), EncodeError>
    where
        Self: Sized,
    {
        let too_long = |length| EncodeError::TooLong { field, length };
        match (compact, len) {
            (true, None) => self.put_unsigned_varint(0),
            (true, Some(n)) => {
                let n = u32::try_from(n).ok().filter(|&n| n < u32::MAX).ok_or(too_long(n))?;
                self.put_unsigned_varint(n + 1);
            }
            (false, None) if classic_i16 => self.put_i16(-1),
            (false, None) => self.put_i32(-1),
            (false, Some(n)) if classic_i16 => self.put_i16(i16::try_from(n).map_err(|_| too_long(n))?),
            (false, Some(n)) => self.put_i32(i32::try_from(n).map_err(|_| too_long(n))?),
        }
        Ok(())
    }

    fn put_nullable_string(
        &mut self,
        compact: bool,
        value: Option<&str>,
        field: &'static str,
    ) -> Result<(), EncodeError>
    where
        Self: Sized,
    {
        self.put_length(compact, true, value.map(str::len), field)?;
        if let Some(text) = value {
            self.put_slice(text.as_bytes());
        }
        Ok(())
    }

    fn put_string(&mut self, compact: bool, value: &str, field: &'static str) -> Result<(), EncodeError>
    where
        Self: Sized,
    {
        self.put_nullable_string(compact, Some(value), field)
    }

    fn put_nullable_bytes_field(
        &mut self,
        compact: bool,
        value: Option<&[u8]>,
        field: &'static str,
    ) -> Result<(), EncodeError>
    where
        Self: Sized,
    {
        self.put_length(compact, false, value.map(<[u8]>::len), field)?;
        if let Some(bytes) = value {
            self.put_slice(bytes);
        }
        Ok(())
    }

    fn put_bytes_field(&mut self, compact: bool, value: &[u8], field: &'static str) -> Result<(), EncodeError>
    where
        Self: Sized,
    {
        self.put_nullable_bytes_field(compact, Some(value), field)
    }

    /// A response's `records` field. Bytes are written in place; a file region only by a writer
    /// that can leave it for the connection to send ([`crate::frame::FrameWriter`]).
    fn put_records(&mut self, compact: bool, value: Option<&Records>, field: &'static str) -> Result<(), EncodeError>
    where
        Self: Sized,
    {
        match value {
            None => self.put_nullable_bytes_field(compact, None, field),
            Some(Records::Bytes(bytes)) => self.put_nullable_bytes_field(compact, Some(bytes), field),
            Some(Records::File(_)) => Err(EncodeError::FileRecords { field }),
        }
    }
}

impl WireWrite for BytesMut {}
impl WireWrite for Vec<u8> {}

/// Collects the tagged fields of one struct while it is encoded, then writes them in tag order,
/// merged with the unknown fields that were decoded into it.
#[derive(Debug, Default)]
pub struct TaggedFieldWriter {
    fields: Vec<(u32, BytesMut)>,
}

impl TaggedFieldWriter {
    pub fn new() -> Self {
        TaggedFieldWriter::default()
    }

    /// Starts a known field; write its value into the returned buffer.
    pub fn field(&mut self, tag: u32) -> &mut BytesMut {
        self.fields.push((tag, BytesMut::new()));
        let last = self.fields.len() - 1;
        &mut self.fields[last].1
    }

    /// Writes the count, then each field as tag, size, data, ordered by tag.
    pub fn finish<W: WireWrite>(mut self, out: &mut W, unknown: &[RawTaggedField]) -> Result<(), EncodeError> {
        let count = self.fields.len() + unknown.len();
        let count = u32::try_from(count).map_err(|_| EncodeError::TooLong { field: "tagged fields", length: count })?;
        out.put_unsigned_varint(count);
        if unknown.is_empty() && self.fields.is_empty() {
            return Ok(());
        }
        let mut all: Vec<(u32, &[u8])> = self.fields.iter().map(|(tag, data)| (*tag, &data[..])).collect();
        all.extend(unknown.iter().map(|field| (field.tag, &field.data[..])));
        all.sort_by_key(|(tag, _)| *tag);
        for (tag, data) in all {
            out.put_unsigned_varint(tag);
            let len = u32::try_from(data.len())
                .map_err(|_| EncodeError::TooLong { field: "tagged field", length: data.len() })?;
            out.put_unsigned_varint(len);
            out.put_slice(data);
        }
        self.fields.clear();
        Ok(())
    }
}

/// An inclusive range of versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionRange {
    pub min: i16,
    pub max: i16,
}

impl VersionRange {
    pub const fn contains(&self, version: i16) -> bool {
        self.min <= version && version <= self.max
    }
}

/// A struct of Kafka's protocol: every generated message and every struct nested in one.
pub trait Struct: Sized + Clone + Default + PartialEq + std::fmt::Debug {
    /// The fewest bytes one instance takes on the wire at any version; bounds array counts.
    const ENCODED_SIZE_MIN: usize;
    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError>;
    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError>;
}

/// A top-level schema: a request, response, header, metadata or coordinator record, or data type.
pub trait Message: Struct {
    const NAME: &'static str;
    /// The versions this build generates, without any version Kafka marks unstable.
    const VERSIONS: VersionRange;
    /// The first flexible version (compact encodings and tagged fields), if any.
    const FLEXIBLE_MIN: Option<i16>;

    /// Decodes a whole buffer, which must hold exactly one message.
    fn decode_exact(buf: Bytes, version: i16) -> Result<Self, DecodeError> {
        if !Self::VERSIONS.contains(version) {
            return Err(DecodeError::UnsupportedVersion { name: Self::NAME, version });
        }
        let mut d = Decoder::new(buf);
        let message = Self::decode(&mut d, version)?;
        d.finish()?;
        Ok(message)
    }

    /// Encodes into a fresh buffer.
    fn encode_to_bytes(&self, version: i16) -> Result<Bytes, EncodeError> {
        if !Self::VERSIONS.contains(version) {
            return Err(EncodeError::UnsupportedVersion { name: Self::NAME, version });
        }
        let mut out = BytesMut::new();
        self.encode(&mut out, version)?;
        Ok(out.freeze())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoder(bytes: &[u8]) -> Decoder {
        Decoder::new(Bytes::copy_from_slice(bytes))
    }

    /// An array count larger than the bytes left is refused before any allocation.
    #[test]
    fn oversized_array_count_is_rejected() {
        let mut d = decoder(&[0x7f, 0xff, 0xff, 0xff, 0, 0]);
        let result = d.array(false, 1, "items", |d| d.i8());
        assert_eq!(result, Err(DecodeError::InvalidLength { length: i32::MAX as i64, remaining: 2 }));
        // Four-byte elements: two bytes cannot hold even one.
        let mut d = decoder(&[0, 0, 0, 1, 0, 0]);
        assert!(d.array(false, 4, "items", |d| d.i32()).is_err());
    }

    /// An array's slots are charged before its vector is allocated: a count the bytes left could
    /// hold but the budget cannot is refused, and nothing is taken from the budget for it.
    #[test]
    fn array_slots_are_charged_before_they_are_allocated() {
        let mut bytes = vec![0, 0, 0, 20];
        bytes.extend([0u8; 20]);
        let mut d = Decoder::with_budget(Bytes::from(bytes.clone()), 100);
        let refused = d.array(false, 1, "items", |d| d.i8().map(i64::from));
        assert_eq!(refused, Err(DecodeError::AllocationBudget { needed: heap_bytes(160), left: 100 }));
        assert_eq!(d.budget_left(), Some(100));
        bytes[3] = 10;
        bytes.truncate(14);
        let mut d = Decoder::with_budget(Bytes::from(bytes), 100);
        assert_eq!(d.array(false, 1, "items", |d| d.i8().map(i64::from)).map(|items| items.len()), Ok(10));
        assert_eq!(d.budget_left(), Some(100 - heap_bytes(80)));
    }

    /// A tagged field's decoder spends its parent's budget: a known field's string and the
    /// section's unknown fields are charged to the one budget of the frame.
    #[test]
    fn tagged_fields_share_their_parents_budget() {
        // One tagged field, tag 0, of 4 bytes: a compact string of three.
        let mut d = Decoder::with_budget(Bytes::from_static(&[1, 0, 4, 4, b'a', b'b', b'c']), 1000);
        assert_eq!(d.tagged_field_count(), Ok(1));
        let unknown_vec = heap_bytes(4 * std::mem::size_of::<RawTaggedField>());
        assert_eq!(d.budget_left(), Some(1000 - unknown_vec));
        let (tag, mut field) = d.tagged_field().expect("a field");
        assert_eq!((tag, field.string(true, "name").as_deref()), (0, Ok("abc")));
        assert_eq!(d.budget_left(), Some(1000 - unknown_vec - heap_bytes(3)));
        assert_eq!(Decoder::new(Bytes::new()).budget_left(), None, "unbounded");
    }

    /// An allocation is counted as glibc's malloc takes it.
    #[test]
    fn heap_bytes_round_as_malloc_does() {
        assert_eq!([0, 1, 24, 25, 40, 41].map(heap_bytes), [0, 32, 32, 48, 48, 64]);
        assert_eq!(heap_bytes(usize::MAX), usize::MAX & !15);
    }

    /// Null and present strings in both encodings; a negative classic length other than -1 fails.
    #[test]
    fn strings_decode_in_both_forms() {
        assert_eq!(decoder(&[0xff, 0xff]).nullable_string(false), Ok(None));
        assert_eq!(decoder(&[0, 2, b'h', b'i']).nullable_string(false), Ok(Some("hi".into())));
        assert_eq!(decoder(&[0]).nullable_string(true), Ok(None));
        assert_eq!(decoder(&[3, b'h', b'i']).nullable_string(true), Ok(Some("hi".into())));
        assert!(decoder(&[0xff, 0xfe]).nullable_string(false).is_err());
        assert_eq!(decoder(&[0]).string(true, "name"), Err(DecodeError::UnexpectedNull { field: "name" }));
        assert_eq!(decoder(&[2, 0xff]).nullable_string(true), Err(DecodeError::InvalidUtf8));
    }

    /// Byte fields are slices of the frame, not copies.
    #[test]
    fn bytes_are_zero_copy() {
        let frame = Bytes::from_static(&[0, 0, 0, 3, 1, 2, 3]);
        let mut d = Decoder::new(frame.clone());
        let field = d.bytes(false, "records").ok();
        let field = field.as_deref().map(<[u8]>::as_ptr);
        assert_eq!(field, Some(frame[4..].as_ptr()));
    }

    /// A repeated or descending tag is an error: it could not be written back the same way.
    #[test]
    fn tagged_fields_must_ascend() {
        let mut d = decoder(&[2, 5, 0, 3, 0]);
        assert_eq!(d.tagged_field_count(), Ok(2));
        assert!(d.tagged_field().is_ok());
        assert_eq!(d.tagged_field().err(), Some(DecodeError::TagOutOfOrder { tag: 3, previous: 5 }));
        let mut d = decoder(&[2, 5, 0, 5, 0]);
        assert_eq!(d.tagged_field_count(), Ok(2));
        assert!(d.tagged_field().is_ok());
        assert_eq!(d.tagged_field().err(), Some(DecodeError::TagOutOfOrder { tag: 5, previous: 5 }));
    }

    /// Tagged fields come out in tag order whatever order they were added in.
    #[test]
    fn tagged_fields_are_written_in_tag_order() {
        let mut writer = TaggedFieldWriter::new();
        writer.field(5).put_u8(0xaa);
        let unknown = [RawTaggedField { tag: 2, data: Bytes::from_static(&[0xbb, 0xcc]) }];
        let mut out = BytesMut::new();
        assert!(writer.finish(&mut out, &unknown).is_ok());
        assert_eq!(&out[..], &[2, 2, 2, 0xbb, 0xcc, 5, 1, 0xaa]);
    }

    /// Length prefixes that do not fit their type are encode errors, not truncation.
    #[test]
    fn overlong_strings_fail_to_encode() {
        let long = "x".repeat(40_000);
        let mut out = BytesMut::new();
        assert!(matches!(out.put_string(false, &long, "name"), Err(EncodeError::TooLong { .. })));
        assert!(out.put_string(true, &long, "name").is_ok());
    }
}
