//! The records inside a batch, read as borrowed views.
//!
//! Each record in a (decompressed) records region is:
//!
//! ```text
//! length varint | attributes i8 | timestampDelta varlong | offsetDelta varint
//! | keyLength varint (-1 = null) | key | valueLength varint (-1 = null) | value
//! | headerCount varint | headers: keyLength varint | key (UTF-8) | valueLength varint (-1 = null) | value
//! ```
//!
//! [`RecordIter`] walks a region yielding [`Record`]s that borrow from it; each record is checked
//! completely (every length against the bytes left, the fields against the length prefix, header
//! keys as UTF-8) before it is yielded, so iterating its [`Header`]s cannot fail. Nothing is
//! allocated. The iterator stops after the declared count, and a region holding fewer or more
//! records than declared is an error, as in Kafka's `DefaultRecordBatch`.

use bytes::Bytes;

use super::RecordsError;
use crate::codec::DecodeError;
use crate::codec::varint::{read_varint, read_varlong};

/// The smallest record body: one byte each for attributes, timestamp delta, offset delta, a null
/// key, a null value and a zero header count.
const RECORD_BODY_BYTES_MIN: usize = 6;

/// One record, borrowing its key, value and headers from the records region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'a> {
    attributes: i8,
    timestamp_delta: i64,
    offset_delta: i32,
    key: Option<&'a [u8]>,
    value: Option<&'a [u8]>,
    header_count: u32,
    headers: &'a [u8],
}

impl<'a> Record<'a> {
    /// The record-level attributes byte; Kafka defines no bits in it yet.
    pub fn attributes(&self) -> i8 {
        self.attributes
    }

    /// The timestamp relative to the batch's base timestamp.
    pub fn timestamp_delta(&self) -> i64 {
        self.timestamp_delta
    }

    /// The offset relative to the batch's base offset.
    pub fn offset_delta(&self) -> i32 {
        self.offset_delta
    }

    pub fn key(&self) -> Option<&'a [u8]> {
        self.key
    }

    pub fn value(&self) -> Option<&'a [u8]> {
        self.value
    }

    pub fn header_count(&self) -> usize {
        self.header_count as usize
    }

    /// The headers in wire order; duplicate keys are kept, each where it was written.
    pub fn headers(&self) -> HeaderIter<'a> {
        HeaderIter { rest: self.headers, remaining: self.header_count }
    }
}

/// One record header. Kafka's header keys are strings; values are nullable bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Header<'a> {
    pub key: &'a str,
    pub value: Option<&'a [u8]>,
}

impl<'a> Header<'a> {
    pub fn key_bytes(&self) -> &'a [u8] {
        self.key.as_bytes()
    }
}

/// The headers of one record. The record was checked before it was yielded, so this iterator
/// has no error to report.
#[derive(Debug, Clone)]
pub struct HeaderIter<'a> {
    rest: &'a [u8],
    remaining: u32,
}

impl<'a> Iterator for HeaderIter<'a> {
    type Item = Header<'a>;

    fn next(&mut self) -> Option<Header<'a>> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let mut cursor = Cursor { buf: self.rest };
        // Checked when the record was read; a failure here would be a bug, and ends the headers.
        let header = read_header(&mut cursor).ok()?;
        self.rest = cursor.buf;
        Some(header)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.remaining as usize))
    }
}

/// The records of one batch, decompressed if the batch was compressed; otherwise a slice of the
/// batch. Iterate with [`BatchRecords::iter`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchRecords {
    region: Bytes,
    declared: i32,
}

impl BatchRecords {
    /// The records `region` of a batch declaring `declared` records.
    pub fn new(region: Bytes, declared: i32) -> Self {
        BatchRecords { region, declared }
    }

    /// The uncompressed records region.
    pub fn as_bytes(&self) -> &Bytes {
        &self.region
    }

    /// The record count the batch header declares.
    pub fn declared_count(&self) -> i32 {
        self.declared
    }

    pub fn iter(&self) -> RecordIter<'_> {
        RecordIter::new(&self.region, self.declared)
    }
}

impl<'a> IntoIterator for &'a BatchRecords {
    type Item = Result<Record<'a>, RecordsError>;
    type IntoIter = RecordIter<'a>;

    fn into_iter(self) -> RecordIter<'a> {
        self.iter()
    }
}

/// Reads the records of an uncompressed records region, at most the declared count. After the
/// first error it yields nothing more. Reading the last declared record fails if bytes remain
/// after it; running out of bytes before the count is reached fails too.
#[derive(Debug, Clone)]
pub struct RecordIter<'a> {
    rest: &'a [u8],
    declared: i32,
    read: i32,
    failed: bool,
}

impl<'a> RecordIter<'a> {
    /// Iterates `region`, which should hold exactly `declared` records.
    pub fn new(region: &'a [u8], declared: i32) -> Self {
        RecordIter { rest: region, declared, read: 0, failed: false }
    }

    fn read_next(&mut self) -> Result<Record<'a>, RecordsError> {
        if self.declared < 0 {
            return Err(RecordsError::NegativeRecordCount(self.declared));
        }
        if self.rest.is_empty() {
            return Err(RecordsError::RecordCountMismatch { declared: self.declared, found: self.read });
        }
        let (body, rest) = split_record(self.rest)?;
        let record = read_record_body(body)?;
        self.rest = rest;
        self.read += 1;
        if self.read == self.declared && !self.rest.is_empty() {
            return Err(RecordsError::TrailingRecordBytes(self.rest.len()));
        }
        Ok(record)
    }
}

impl<'a> Iterator for RecordIter<'a> {
    type Item = Result<Record<'a>, RecordsError>;

    fn next(&mut self) -> Option<Self::Item> {
        let done = self.declared >= 0 && self.read >= self.declared;
        if self.failed || done {
            return None;
        }
        let result = self.read_next();
        self.failed = result.is_err();
        Some(result)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = match self.declared {
            _ if self.failed => 0,
            // A negative count still yields its one error.
            declared if declared < 0 => 1,
            declared => (declared - self.read) as usize,
        };
        (0, Some(left))
    }
}

/// Checks that `region` holds exactly `declared` records by their length prefixes alone,
/// without decoding any record.
pub(super) fn count_records(region: &[u8], declared: i32) -> Result<(), RecordsError> {
    if declared < 0 {
        return Err(RecordsError::NegativeRecordCount(declared));
    }
    let mut rest = region;
    for found in 0..declared {
        if rest.is_empty() {
            return Err(RecordsError::RecordCountMismatch { declared, found });
        }
        rest = split_record(rest)?.1;
    }
    match rest.len() {
        0 => Ok(()),
        left => Err(RecordsError::TrailingRecordBytes(left)),
    }
}

/// Splits the next record off `buf`: its body (after the length prefix) and what follows it.
fn split_record(buf: &[u8]) -> Result<(&[u8], &[u8]), RecordsError> {
    let (length, prefix_len) = read_varint(buf)?;
    let rest = &buf[prefix_len..];
    let invalid = || RecordsError::RecordLengthInvalid { length, remaining: rest.len() };
    let length = usize::try_from(length).map_err(|_| invalid())?;
    if length < RECORD_BODY_BYTES_MIN || length > rest.len() {
        return Err(invalid());
    }
    Ok(rest.split_at(length))
}

/// Reads one record body, which its fields must fill exactly; headers are checked here so that
/// [`HeaderIter`] cannot fail later.
fn read_record_body(body: &[u8]) -> Result<Record<'_>, RecordsError> {
    let mut cursor = Cursor { buf: body };
    let attributes = cursor.i8()?;
    let timestamp_delta = cursor.varlong()?;
    let offset_delta = cursor.varint()?;
    let key = cursor.nullable_bytes("key")?;
    let value = cursor.nullable_bytes("value")?;
    let header_count = cursor.varint()?;
    let header_count = u32::try_from(header_count)
        .map_err(|_| RecordsError::FieldLengthInvalid { field: "header count", length: header_count })?;
    let headers = cursor.buf;
    for _ in 0..header_count {
        read_header(&mut cursor)?;
    }
    if !cursor.buf.is_empty() {
        return Err(RecordsError::RecordSizeMismatch { length: body.len(), read: body.len() - cursor.buf.len() });
    }
    Ok(Record { attributes, timestamp_delta, offset_delta, key, value, header_count, headers })
}

fn read_header<'a>(cursor: &mut Cursor<'a>) -> Result<Header<'a>, RecordsError> {
    let key = cursor
        .nullable_bytes("header key")?
        .ok_or(RecordsError::FieldLengthInvalid { field: "header key", length: -1 })?;
    let key = std::str::from_utf8(key).map_err(|_| RecordsError::HeaderKeyNotUtf8)?;
    let value = cursor.nullable_bytes("header value")?;
    Ok(Header { key, value })
}

/// A read position in a borrowed record body.
struct Cursor<'a> {
    buf: &'a [u8],
}

impl<'a> Cursor<'a> {
    fn i8(&mut self) -> Result<i8, RecordsError> {
        let (&first, rest) = self.buf.split_first().ok_or(DecodeError::Truncated { needed: 1, remaining: 0 })?;
        self.buf = rest;
        Ok(first as i8)
    }

    fn varint(&mut self) -> Result<i32, RecordsError> {
        let (value, len) = read_varint(self.buf)?;
        self.buf = &self.buf[len..];
        Ok(value)
    }

    fn varlong(&mut self) -> Result<i64, RecordsError> {
        let (value, len) = read_varlong(self.buf)?;
        self.buf = &self.buf[len..];
        Ok(value)
    }

    /// A varint length (-1 for null) and that many bytes.
    fn nullable_bytes(&mut self, field: &'static str) -> Result<Option<&'a [u8]>, RecordsError> {
        let length = self.varint()?;
        if length == -1 {
            return Ok(None);
        }
        match usize::try_from(length) {
            Ok(len) if len <= self.buf.len() => {
                let (bytes, rest) = self.buf.split_at(len);
                self.buf = rest;
                Ok(Some(bytes))
            }
            _ => Err(RecordsError::FieldLengthInvalid { field, length }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::varint::{put_varint, put_varlong};

    /// Encodes one record by hand, independently of the builder.
    fn encode(key: Option<&[u8]>, value: Option<&[u8]>, headers: &[(&str, Option<&[u8]>)]) -> Vec<u8> {
        let mut body = vec![0u8];
        put_varlong(&mut body, 5);
        put_varint(&mut body, 1);
        put_nullable(&mut body, key);
        put_nullable(&mut body, value);
        put_varint(&mut body, headers.len() as i32);
        for (key, value) in headers {
            put_nullable(&mut body, Some(key.as_bytes()));
            put_nullable(&mut body, *value);
        }
        let mut out = Vec::new();
        put_varint(&mut out, body.len() as i32);
        out.extend_from_slice(&body);
        out
    }

    fn put_nullable(out: &mut Vec<u8>, bytes: Option<&[u8]>) {
        match bytes {
            None => put_varint(out, -1),
            Some(bytes) => {
                put_varint(out, bytes.len() as i32);
                out.extend_from_slice(bytes);
            }
        }
    }

    fn collect(region: &[u8], declared: i32) -> Vec<Result<Record<'_>, RecordsError>> {
        RecordIter::new(region, declared).collect()
    }

    /// Fields, null key and value, and duplicate header keys come back in order.
    #[test]
    fn reads_fields_and_duplicate_headers() {
        let headers: &[(&str, Option<&[u8]>)] = &[("trace", Some(b"1")), ("k", None), ("trace", Some(b"2"))];
        let region = encode(None, Some(b"v"), headers);
        let records = collect(&region, 1);
        let record = records[0].as_ref().expect("valid record");
        assert_eq!(records.len(), 1);
        assert_eq!((record.timestamp_delta(), record.offset_delta()), (5, 1));
        assert_eq!((record.key(), record.value()), (None, Some(&b"v"[..])));
        let read: Vec<_> = record.headers().map(|h| (h.key, h.value)).collect();
        assert_eq!(read, headers.to_vec());
        assert_eq!(record.header_count(), 3);
    }

    /// Too few or too many records for the declared count are errors, and the walk that only
    /// reads length prefixes agrees with the full iterator.
    #[test]
    fn count_must_match_the_region() {
        let one = encode(Some(b"k"), None, &[]);
        let two = [one.clone(), one.clone()].concat();
        let check = |region: &[u8], declared: i32, expected: Result<(), RecordsError>| {
            assert_eq!(count_records(region, declared), expected);
            let last = collect(region, declared).pop().map(|r| r.map(|_| ()));
            assert_eq!(last.unwrap_or(Ok(())), expected, "declared {declared}");
        };
        check(&two, 2, Ok(()));
        check(&[], 0, Ok(()));
        check(&two, 3, Err(RecordsError::RecordCountMismatch { declared: 3, found: 2 }));
        check(&two, 1, Err(RecordsError::TrailingRecordBytes(one.len())));
        check(&two, -1, Err(RecordsError::NegativeRecordCount(-1)));
    }

    /// Each kind of malformed record is an error, not a panic, and iteration stops after it.
    #[test]
    fn malformed_records_are_errors() {
        let good = encode(Some(b"key"), Some(b"value"), &[("h", Some(b"x"))]);
        let check = |region: Vec<u8>, expected: RecordsError| {
            let results = collect(&region, 2);
            assert_eq!(results.last(), Some(&Err(expected)));
            assert!(results.len() <= 2);
        };
        // Length prefix longer than the bytes.
        let mut long = good.clone();
        long[0] += 2;
        check(long, RecordsError::RecordLengthInvalid { length: good[0] as i32 / 2 + 1, remaining: good.len() - 1 });
        // Fields shorter than the length prefix: pad the body by one byte.
        let mut padded = good.clone();
        padded[0] += 2;
        padded.push(0);
        check(padded, RecordsError::RecordSizeMismatch { length: good.len(), read: good.len() - 1 });
        // A key length running past the body.
        let mut key = good.clone();
        key[4] = 0x7e;
        check(key, RecordsError::FieldLengthInvalid { field: "key", length: 63 });
        // A header key that is not UTF-8.
        let mut utf8 = good.clone();
        let at = good.len() - 3;
        utf8[at] = 0xff;
        check(utf8, RecordsError::HeaderKeyNotUtf8);
        // A negative header count.
        let mut count = good;
        let at = count.len() - 5;
        count[at] = 0x01;
        check(count, RecordsError::FieldLengthInvalid { field: "header count", length: -1 });
    }

    /// A length prefix below the smallest possible record is refused by the walk and the iterator.
    #[test]
    fn tiny_record_lengths_are_refused() {
        let region = [0x0a, 0, 0, 0, 1, 1];
        let expected = RecordsError::RecordLengthInvalid { length: 5, remaining: 5 };
        assert_eq!(count_records(&region, 1), Err(expected.clone()));
        let errors: Vec<_> = collect(&region, 1).into_iter().map(Result::err).collect();
        assert_eq!(errors, vec![Some(expected)]);
    }
}
