//! Framing: Kafka's size-prefixed frames, the request header read before the body, and responses
//! written with the header version their API and version call for.
//!
//! A broker reads a 4-byte size (checked against `socket.request.max.bytes` before any buffer is
//! sized), then the frame. [`parse_request`] reads only the header, so a request for an API or
//! version this build does not serve can be answered (UNSUPPORTED_VERSION, or the ApiVersions v0
//! fallback of KIP-511) without decoding a body it does not know. [`decode_request_body`] then
//! decodes the body, whose record sets stay zero-copy slices of the frame.
//!
//! Decoding a request, header and body, allocates at most [`decode_allocation_max`] of its frame's
//! size: [`DECODE_ALLOCATION_PER_FRAME_BYTE`] bytes per frame byte plus
//! [`DECODE_ALLOCATION_SLACK_BYTES`] ([`PRODUCE_DECODE_ALLOCATION_PER_FRAME_BYTE`] for a Produce,
//! whose records are slices of the frame: [`request_decode_allocation_max`]); a request that would need more is refused as malformed (the
//! decoder's allocation budget, see [`crate::codec`]). Without it, arrays of tiny elements would
//! cost far more than their bytes: an empty topic name is one byte on the wire and a 24-byte
//! `String` in memory. The node's memory pool reserves this much beside each frame.

use bytes::{BufMut, Bytes, BytesMut};

use crate::codec::{DecodeError, Decoder, EncodeError, FileRegion, Records, Struct, WireWrite};
use crate::messages::api::{ApiKey, RequestBody, ResponseBody};
use crate::messages::api_versions_response::ApiVersion;
use crate::messages::{ApiVersionsResponse, RequestHeader, ResponseHeader};

/// The bytes of a frame's size prefix.
pub const SIZE_PREFIX_BYTES: usize = 4;

/// What decoding a request may allocate per byte of its frame, counted as the heap gives it
/// ([`crate::codec::heap_bytes`]). Real clients' requests grown a thousandfold need at most 7.5
/// (`tests/golden_frames.rs`, six clients: a Java AdminClient's DescribeConfigs, each resource an
/// 11-character name in 15 bytes on the wire and 112 in memory; OffsetCommit and ListOffsets
/// 3.3 to 4.6, Fetch 2.9, Produce well under 1, its records being slices of the frame). 16 leaves
/// room for shorter names; what it refuses are arrays of empty or one-character strings in the
/// thousands (24 bytes and more per wire byte), which no client sends.
pub const DECODE_ALLOCATION_PER_FRAME_BYTE: usize = 16;

/// What decoding a request may allocate whatever its frame's size: a tiny request's vectors of
/// one element cost more than four times their few bytes.
pub const DECODE_ALLOCATION_SLACK_BYTES: usize = 1024;

/// The most decoding a request frame of `frame_bytes` may allocate.
pub const fn decode_allocation_max(frame_bytes: usize) -> usize {
    frame_bytes.saturating_mul(DECODE_ALLOCATION_PER_FRAME_BYTE).saturating_add(DECODE_ALLOCATION_SLACK_BYTES)
}

/// What decoding a Produce may allocate per byte of its frame: its records stay slices of the
/// frame, so only its topics and partitions are built (real clients' Produce requests grown a
/// thousandfold need under 0.5; a partition of one tiny record batch about 3). Produce is the
/// request whose frames are large, so the pool reserves it this much rather than
/// [`DECODE_ALLOCATION_PER_FRAME_BYTE`].
pub const PRODUCE_DECODE_ALLOCATION_PER_FRAME_BYTE: usize = 4;

/// The most decoding a request frame of `frame_bytes` for `api_key` (the frame's first two
/// bytes) may allocate: a Produce's [`PRODUCE_DECODE_ALLOCATION_PER_FRAME_BYTE`], any other
/// request's [`decode_allocation_max`].
pub const fn request_decode_allocation_max(api_key: i16, frame_bytes: usize) -> usize {
    if api_key == ApiKey::Produce as i16 {
        frame_bytes
            .saturating_mul(PRODUCE_DECODE_ALLOCATION_PER_FRAME_BYTE)
            .saturating_add(DECODE_ALLOCATION_SLACK_BYTES)
    } else {
        decode_allocation_max(frame_bytes)
    }
}

/// Kafka's UNSUPPORTED_VERSION error code.
pub const UNSUPPORTED_VERSION: i16 = 35;

/// Why a frame's size prefix was refused. The connection cannot continue after either.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("frame size {0} is negative")]
    Negative(i32),
    #[error("frame of {size} bytes exceeds the limit of {max} (socket.request.max.bytes)")]
    TooLarge { size: usize, max: usize },
}

/// Reads a frame's size prefix and checks it against `size_max`.
pub fn frame_size(prefix: [u8; SIZE_PREFIX_BYTES], size_max: usize) -> Result<usize, FrameError> {
    let size = i32::from_be_bytes(prefix);
    let size = usize::try_from(size).map_err(|_| FrameError::Negative(size))?;
    if size > size_max {
        return Err(FrameError::TooLarge { size, max: size_max });
    }
    Ok(size)
}

/// A request whose header has been read and whose body has not.
#[derive(Debug, Clone)]
pub struct RequestFrame {
    pub api_key: ApiKey,
    pub header: RequestHeader,
    /// The body's bytes: a slice of the frame.
    pub body: Bytes,
    /// What decoding the body may allocate: the frame's [`decode_allocation_max`] less what the
    /// header took.
    pub decode_budget: usize,
}

impl RequestFrame {
    pub fn api_version(&self) -> i16 {
        self.header.request_api_version
    }

    pub fn correlation_id(&self) -> i32 {
        self.header.correlation_id
    }
}

/// Why a request could not be read. Every variant but `Truncated` carries the correlation id, so
/// the broker can still answer (or log) it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("frame of {0} bytes is shorter than a request header")]
    Truncated(usize),
    #[error("unknown api key {api_key}")]
    UnknownApiKey { api_key: i16, correlation_id: i32 },
    #[error("{api:?} v{version} is not supported")]
    UnsupportedVersion { api: ApiKey, version: i16, correlation_id: i32 },
    #[error("malformed request header: {source}")]
    Header { correlation_id: i32, source: DecodeError },
    #[error("malformed {api:?} v{version} request: {source}")]
    Body { api: ApiKey, version: i16, correlation_id: i32, source: DecodeError },
}

/// Reads a request frame's header (without its size prefix), leaving the body undecoded.
pub fn parse_request(frame: Bytes) -> Result<RequestFrame, RequestError> {
    if frame.len() < 8 {
        return Err(RequestError::Truncated(frame.len()));
    }
    let api_key = i16::from_be_bytes([frame[0], frame[1]]);
    let version = i16::from_be_bytes([frame[2], frame[3]]);
    let correlation_id = i32::from_be_bytes([frame[4], frame[5], frame[6], frame[7]]);
    let Some(api) = ApiKey::from_i16(api_key) else {
        return Err(RequestError::UnknownApiKey { api_key, correlation_id });
    };
    if !api.versions().contains(version) {
        return Err(RequestError::UnsupportedVersion { api, version, correlation_id });
    }
    let budget = request_decode_allocation_max(api_key, frame.len());
    let mut d = Decoder::with_budget(frame, budget);
    let header = RequestHeader::decode(&mut d, api.request_header_version(version))
        .map_err(|source| RequestError::Header { correlation_id, source })?;
    let decode_budget = d.budget_left().unwrap_or(0);
    Ok(RequestFrame { api_key: api, header, body: d.into_bytes(), decode_budget })
}

/// Decodes a request's body within the frame's allocation budget. Bytes left after it are
/// ignored, as Kafka ignores them: librdkafka 2.x sends Metadata v13 requests with a field of v8-10
/// and a stray tagged field after the body Kafka reads, and Kafka serves them.
pub fn decode_request_body(frame: &RequestFrame) -> Result<RequestBody, RequestError> {
    let version = frame.api_version();
    let error =
        |source| RequestError::Body { api: frame.api_key, version, correlation_id: frame.correlation_id(), source };
    let mut d = Decoder::with_budget(frame.body.clone(), frame.decode_budget);
    RequestBody::decode(frame.api_key, &mut d, version).map_err(error)
}

/// Writes a whole request frame, size prefix included. The header's api key and version are
/// taken from `body` and `version`.
pub fn encode_request(
    correlation_id: i32,
    client_id: Option<&str>,
    body: &RequestBody,
    version: i16,
) -> Result<Bytes, EncodeError> {
    let api = body.api_key();
    let header = RequestHeader {
        request_api_key: api as i16,
        request_api_version: version,
        correlation_id,
        client_id: client_id.map(str::to_owned),
        ..RequestHeader::default()
    };
    let mut out = BytesMut::new();
    out.put_i32(0);
    header.encode(&mut out, api.request_header_version(version))?;
    body.encode(&mut out, version)?;
    finish_frame(out)
}

/// Writes a whole response frame, size prefix included, with the header version that `api` and
/// `version` call for (always v0 for ApiVersions).
pub fn encode_response(correlation_id: i32, body: &ResponseBody, version: i16) -> Result<Bytes, EncodeError> {
    let api = body.api_key();
    let mut out = BytesMut::new();
    out.put_i32(0);
    let header = ResponseHeader { correlation_id, ..ResponseHeader::default() };
    header.encode(&mut out, api.response_header_version(version))?;
    body.encode(&mut out, version)?;
    finish_frame(out)
}

/// Writes a whole response frame like [`encode_response`], but leaves every file region in a
/// `records` field as its own chunk for the connection to send from the file (`sendfile`).
pub fn encode_response_frame(
    correlation_id: i32,
    body: &ResponseBody,
    version: i16,
) -> Result<ResponseFrame, EncodeError> {
    let api = body.api_key();
    let mut out = FrameWriter::new();
    out.put_i32(0);
    let header = ResponseHeader { correlation_id, ..ResponseHeader::default() };
    header.encode(&mut out, api.response_header_version(version))?;
    body.encode(&mut out, version)?;
    out.finish()
}

/// One piece of a response frame.
#[derive(Debug, Clone, PartialEq)]
pub enum FrameChunk {
    Bytes(Bytes),
    File(FileRegion),
}

impl FrameChunk {
    pub fn len(&self) -> usize {
        match self {
            FrameChunk::Bytes(bytes) => bytes.len(),
            FrameChunk::File(region) => region.len as usize,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A response frame, size prefix included, as the chunks to send in order: bytes written by the
/// encoder and file regions to be sent from their files.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ResponseFrame {
    pub chunks: Vec<FrameChunk>,
}

impl ResponseFrame {
    /// The frame's length in bytes, size prefix included.
    pub fn len(&self) -> usize {
        self.chunks.iter().map(FrameChunk::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }
}

impl From<Bytes> for ResponseFrame {
    fn from(bytes: Bytes) -> Self {
        ResponseFrame { chunks: vec![FrameChunk::Bytes(bytes)] }
    }
}

/// A writer that encodes into memory but keeps file regions apart: at each one it closes the bytes
/// written so far as a chunk and records the region as the next.
#[derive(Debug, Default)]
pub struct FrameWriter {
    done: Vec<(BytesMut, Option<FileRegion>)>,
    current: BytesMut,
}

impl FrameWriter {
    pub fn new() -> Self {
        FrameWriter::default()
    }

    /// The chunks, with the frame's size written into its first four bytes (which the caller
    /// reserved with a zero before encoding anything else). A frame whose size does not fit the
    /// `i32` prefix is an error, never a wrapped size.
    fn finish(mut self) -> Result<ResponseFrame, EncodeError> {
        let region_bytes = |region: &Option<FileRegion>| region.as_ref().map_or(0, |r| r.len as usize);
        let total = self.done.iter().map(|(bytes, region)| bytes.len() + region_bytes(region));
        let size = total.sum::<usize>() + self.current.len() - SIZE_PREFIX_BYTES;
        let prefix = size_prefix(size)?;
        let first = match self.done.first_mut() {
            Some((bytes, _)) => bytes,
            None => &mut self.current,
        };
        first[..SIZE_PREFIX_BYTES].copy_from_slice(&prefix);
        let mut chunks = Vec::with_capacity(self.done.len() * 2 + 1);
        for (bytes, region) in self.done {
            chunks.push(FrameChunk::Bytes(bytes.freeze()));
            chunks.extend(region.map(FrameChunk::File));
        }
        if !self.current.is_empty() {
            chunks.push(FrameChunk::Bytes(self.current.freeze()));
        }
        Ok(ResponseFrame { chunks })
    }
}

// SAFETY: every method forwards to the inner `BytesMut`, whose implementation upholds `BufMut`'s
// contract; `FrameWriter` adds no state that the contract concerns.
#[allow(unsafe_code)]
unsafe impl BufMut for FrameWriter {
    fn remaining_mut(&self) -> usize {
        self.current.remaining_mut()
    }

    // SAFETY: the caller's promise (the next `cnt` bytes are initialised) is passed on unchanged.
    unsafe fn advance_mut(&mut self, cnt: usize) {
        // SAFETY: as above: the same buffer the caller initialised through `chunk_mut`.
        unsafe { self.current.advance_mut(cnt) }
    }

    fn chunk_mut(&mut self) -> &mut bytes::buf::UninitSlice {
        self.current.chunk_mut()
    }

    fn put_slice(&mut self, src: &[u8]) {
        self.current.extend_from_slice(src);
    }
}

impl WireWrite for FrameWriter {
    fn put_records(&mut self, compact: bool, value: Option<&Records>, field: &'static str) -> Result<(), EncodeError> {
        match value {
            Some(Records::File(region)) => {
                self.put_length(compact, false, Some(region.len as usize), field)?;
                let written = self.current.split();
                self.done.push((written, Some(region.clone())));
                Ok(())
            }
            Some(Records::Bytes(bytes)) => self.put_nullable_bytes_field(compact, Some(bytes), field),
            None => self.put_nullable_bytes_field(compact, None, field),
        }
    }
}

/// Reads a response frame (without its size prefix) to a request of `api` at `version`.
pub fn decode_response(api: ApiKey, version: i16, frame: Bytes) -> Result<(ResponseHeader, ResponseBody), DecodeError> {
    let mut d = Decoder::new(frame);
    let header = ResponseHeader::decode(&mut d, api.response_header_version(version))?;
    let body = ResponseBody::decode(api, &mut d, version)?;
    d.finish()?;
    Ok((header, body))
}

/// The answer to an ApiVersions request of a version this build does not know (KIP-511): a v0
/// response with UNSUPPORTED_VERSION and the versions served, which every client can read.
pub fn api_versions_fallback(correlation_id: i32, api_keys: Vec<ApiVersion>) -> Result<Bytes, EncodeError> {
    let body = ApiVersionsResponse { error_code: UNSUPPORTED_VERSION, api_keys, ..ApiVersionsResponse::default() };
    encode_response(correlation_id, &ResponseBody::ApiVersions(body), 0)
}

fn finish_frame(mut out: BytesMut) -> Result<Bytes, EncodeError> {
    let prefix = size_prefix(out.len() - SIZE_PREFIX_BYTES)?;
    out[..SIZE_PREFIX_BYTES].copy_from_slice(&prefix);
    Ok(out.freeze())
}

/// A frame's size prefix; a size past `i32::MAX` cannot be framed.
fn size_prefix(size: usize) -> Result<[u8; SIZE_PREFIX_BYTES], EncodeError> {
    let size = i32::try_from(size).map_err(|_| EncodeError::TooLong { field: "frame", length: size })?;
    Ok(size.to_be_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::{ApiVersionsRequest, MetadataRequest};

    fn request_frame(body: &RequestBody, version: i16) -> Bytes {
        let frame = encode_request(7, Some("client-1"), body, version).expect("encodes");
        frame.slice(SIZE_PREFIX_BYTES..)
    }

    /// A response with a file region in its records encodes to the same bytes as with those bytes
    /// in memory, with the region left as a chunk of its own; a plain buffer refuses the region.
    #[test]
    fn file_regions_become_chunks_of_the_frame() {
        use std::io::Write;

        use crate::messages::FetchResponse;
        use crate::messages::fetch_response::{FetchableTopicResponse, PartitionData};

        let mut file = tempfile::tempfile().expect("temp file");
        file.write_all(b"..record-bytes..").expect("written");
        let region = FileRegion { file: std::sync::Arc::new(file), position: 2, len: 12 };
        let response = |records: Records| {
            let partitions = vec![
                PartitionData { partition_index: 0, records: Some(records), ..PartitionData::default() },
                PartitionData { partition_index: 1, records: Some(Records::default()), ..PartitionData::default() },
            ];
            let topic = FetchableTopicResponse { topic: "t".into(), partitions, ..FetchableTopicResponse::default() };
            ResponseBody::Fetch(FetchResponse { responses: vec![topic], ..FetchResponse::default() })
        };
        for version in [4, 12, 16] {
            let in_memory =
                encode_response(9, &response(Bytes::from_static(b"record-bytes").into()), version).expect("encodes");
            let frame = encode_response_frame(9, &response(Records::File(region.clone())), version).expect("encodes");
            assert_eq!(frame.len(), in_memory.len(), "v{version}");
            let [FrameChunk::Bytes(head), FrameChunk::File(file), FrameChunk::Bytes(tail)] = &frame.chunks[..] else {
                panic!("v{version}: chunks {:?}", frame.chunks);
            };
            assert_eq!(file, &region);
            let mut joined = head.to_vec();
            joined.extend_from_slice(b"record-bytes");
            joined.extend_from_slice(tail);
            assert_eq!(joined, in_memory, "v{version}");
            let plain = encode_response(9, &response(Records::File(region.clone())), version);
            assert_eq!(plain, Err(EncodeError::FileRecords { field: "records" }));
        }
    }

    /// A response whose file regions add up past `i32::MAX` bytes cannot be framed: encoding
    /// fails instead of writing a wrapped (negative) size prefix.
    #[test]
    fn a_frame_too_large_for_its_prefix_is_an_error() {
        use crate::messages::FetchResponse;
        use crate::messages::fetch_response::{FetchableTopicResponse, PartitionData};

        let file = std::sync::Arc::new(tempfile::tempfile().expect("temp file"));
        let region = |len| Records::File(FileRegion { file: file.clone(), position: 0, len });
        let partition =
            |index, len| PartitionData { partition_index: index, records: Some(region(len)), ..Default::default() };
        let partitions = vec![partition(0, 1_500_000_000), partition(1, 1_500_000_000)];
        let topic = FetchableTopicResponse { topic: "t".into(), partitions, ..FetchableTopicResponse::default() };
        let body = ResponseBody::Fetch(FetchResponse { responses: vec![topic], ..FetchResponse::default() });
        let error = encode_response_frame(9, &body, 16).err();
        assert!(matches!(error, Some(EncodeError::TooLong { field: "frame", .. })), "{error:?}");
        assert_eq!(size_prefix(i32::MAX as usize), Ok(i32::MAX.to_be_bytes()));
    }

    /// A DeleteTopics v5 of empty names (one byte each on the wire, a 24-byte `String` in memory)
    /// is refused for its allocation budget, with the rest of a malformed request's error; the
    /// same request of 20-character names, and a Metadata v12 of as many topics, decode.
    #[test]
    fn an_amplifying_request_is_refused_for_its_allocation_budget() {
        use crate::messages::DeleteTopicsRequest;
        use crate::messages::metadata_request::MetadataRequestTopic;

        let delete = |name: &str| {
            let topic_names = vec![name.to_owned(); 100_000];
            RequestBody::DeleteTopics(DeleteTopicsRequest { topic_names, timeout_ms: 30_000, ..Default::default() })
        };
        let frame = parse_request(request_frame(&delete(""), 5)).expect("the header parses");
        let refused = decode_request_body(&frame);
        assert!(
            matches!(
                refused,
                Err(RequestError::Body { api: ApiKey::DeleteTopics, source: DecodeError::AllocationBudget { .. }, .. })
            ),
            "{refused:?}"
        );
        let normal = delete("orders-eu-west-1-0001");
        let frame = parse_request(request_frame(&normal, 5)).expect("the header parses");
        assert_eq!(decode_request_body(&frame), Ok(normal));
        let topic = MetadataRequestTopic { name: Some("orders-eu-west-1-0001".into()), ..Default::default() };
        let metadata =
            RequestBody::Metadata(MetadataRequest { topics: Some(vec![topic; 100_000]), ..Default::default() });
        let frame = parse_request(request_frame(&metadata, 12)).expect("the header parses");
        assert_eq!(decode_request_body(&frame), Ok(metadata));
    }

    /// Sizes over the limit and negative sizes are refused before any buffer is sized.
    #[test]
    fn frame_sizes_are_bounded() {
        assert_eq!(frame_size(100i32.to_be_bytes(), 100), Ok(100));
        assert_eq!(frame_size(101i32.to_be_bytes(), 100), Err(FrameError::TooLarge { size: 101, max: 100 }));
        assert_eq!(frame_size((-1i32).to_be_bytes(), 100), Err(FrameError::Negative(-1)));
    }

    /// A request round-trips through the frame writer and the header-first reader, with the
    /// header version (v1 classic, v2 flexible) chosen by the API's version.
    #[test]
    fn requests_round_trip_with_the_right_header_version() {
        let body = RequestBody::Metadata(MetadataRequest { topics: None, ..MetadataRequest::default() });
        for version in [1, 8, 9, 13] {
            let frame = parse_request(request_frame(&body, version)).expect("parses");
            assert_eq!(frame.api_key, ApiKey::Metadata);
            assert_eq!(frame.correlation_id(), 7);
            assert_eq!(frame.header.client_id.as_deref(), Some("client-1"));
            assert_eq!(decode_request_body(&frame), Ok(body.clone()), "v{version}");
        }
    }

    /// Unknown APIs and versions are reported with their correlation id, before the body is read.
    #[test]
    fn unknown_api_and_version_keep_the_correlation_id() {
        let mut frame = request_frame(&RequestBody::ApiVersions(ApiVersionsRequest::default()), 3).to_vec();
        frame[2..4].copy_from_slice(&99i16.to_be_bytes());
        assert_eq!(
            parse_request(Bytes::from(frame.clone())).err(),
            Some(RequestError::UnsupportedVersion { api: ApiKey::ApiVersions, version: 99, correlation_id: 7 })
        );
        frame[0..2].copy_from_slice(&999i16.to_be_bytes());
        assert_eq!(
            parse_request(Bytes::from(frame)).err(),
            Some(RequestError::UnknownApiKey { api_key: 999, correlation_id: 7 })
        );
        assert_eq!(parse_request(Bytes::from_static(&[0, 1, 2])).err(), Some(RequestError::Truncated(3)));
    }

    /// The ApiVersions response header is v0 even for flexible versions (no tagged fields), and the
    /// KIP-511 fallback is a v0 body with UNSUPPORTED_VERSION.
    #[test]
    fn api_versions_responses_use_header_v0() {
        let body = ResponseBody::ApiVersions(ApiVersionsResponse::default());
        let frame = encode_response(9, &body, 3).expect("encodes");
        // size, correlation id, then the body's error code straight away: no header tagged fields.
        assert_eq!(&frame[4..8], &9i32.to_be_bytes());
        assert_eq!(&frame[8..10], &0i16.to_be_bytes());
        let (header, decoded) = decode_response(ApiKey::ApiVersions, 3, frame.slice(4..)).expect("decodes");
        assert_eq!(header.correlation_id, 9);
        assert_eq!(decoded, body);

        let versions = vec![ApiVersion { api_key: 18, min_version: 0, max_version: 4, ..ApiVersion::default() }];
        let fallback = api_versions_fallback(11, versions.clone()).expect("encodes");
        let (_, decoded) = decode_response(ApiKey::ApiVersions, 0, fallback.slice(4..)).expect("decodes");
        let ResponseBody::ApiVersions(decoded) = decoded else { panic!("not ApiVersions") };
        assert_eq!(decoded.error_code, UNSUPPORTED_VERSION);
        assert_eq!(decoded.api_keys, versions);
    }

    /// Bytes after a body are ignored as Kafka ignores them: librdkafka's all-topics Metadata v13
    /// (captured) carries three; a body cut short is still an error.
    #[test]
    fn trailing_bytes_after_a_body_are_ignored_as_kafka_does() {
        let librdkafka = "0003000d00000003000772646b61666b610000000000010000";
        let bytes: Vec<u8> = (0..librdkafka.len())
            .step_by(2)
            .filter_map(|i| u8::from_str_radix(&librdkafka[i..i + 2], 16).ok())
            .collect();
        let parsed = parse_request(Bytes::from(bytes)).expect("header parses");
        let Ok(RequestBody::Metadata(metadata)) = decode_request_body(&parsed) else { panic!("not decoded") };
        assert_eq!(metadata.topics, None, "all topics");
        let mut cut = request_frame(&RequestBody::Metadata(MetadataRequest::default()), 12).to_vec();
        cut.pop();
        let parsed = parse_request(Bytes::from(cut)).expect("header parses");
        assert!(matches!(decode_request_body(&parsed), Err(RequestError::Body { .. })));
    }
}
