//! The value of a response's `records` field: bytes in memory, or a range of a file that the
//! connection sends without copying it through user space.
//!
//! Decoding always yields [`Records::Bytes`] (a zero-copy slice of the frame). A broker answering a
//! Fetch puts a [`FileRegion`] of a segment file in the field instead; encoding it into a plain
//! buffer is an error ([`EncodeError::FileRecords`](super::EncodeError::FileRecords)), and only a
//! [`FrameWriter`](crate::frame::FrameWriter) accepts it, leaving the region as its own chunk of the
//! response frame. Nothing here reads the file: the process shell does, with `sendfile` (or a
//! positioned read where the transport needs the bytes, such as TLS).

use std::fs::File;
use std::sync::Arc;

use bytes::Bytes;

/// A range of an open file: where a record set lies in a segment.
#[derive(Debug, Clone)]
pub struct FileRegion {
    /// Shared with the segment, so the range stays readable if the segment is rolled or deleted
    /// while the response is being sent.
    pub file: Arc<File>,
    /// The range's first byte in the file.
    pub position: u64,
    /// The range's length; a record set in a frame is at most `i32::MAX` bytes.
    pub len: u32,
}

/// Two regions are equal when they name the same bytes of the same open file.
impl PartialEq for FileRegion {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.file, &other.file) && self.position == other.position && self.len == other.len
    }
}

/// A record set: what Kafka's schemas call a `records` field, in a response.
#[derive(Debug, Clone, PartialEq)]
pub enum Records {
    Bytes(Bytes),
    File(FileRegion),
}

impl Records {
    /// The record set's length in bytes.
    pub fn len(&self) -> usize {
        match self {
            Records::Bytes(bytes) => bytes.len(),
            Records::File(region) => region.len as usize,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes, when they are in memory (always so for a decoded response).
    pub fn as_bytes(&self) -> Option<&Bytes> {
        match self {
            Records::Bytes(bytes) => Some(bytes),
            Records::File(_) => None,
        }
    }
}

impl Default for Records {
    fn default() -> Self {
        Records::Bytes(Bytes::new())
    }
}

impl From<Bytes> for Records {
    fn from(bytes: Bytes) -> Self {
        Records::Bytes(bytes)
    }
}
