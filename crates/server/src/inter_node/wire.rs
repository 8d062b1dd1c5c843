//! The frames nodes exchange on the CONTROLLER listener beside Kafka's own: one Strand-private
//! API key, [`STRAND_RPC_API_KEY`], far above Kafka's keys, so a Kafka client that reaches the
//! listener by mistake is told nothing it could misread.
//!
//! A request is a Kafka-shaped frame (4-byte size, then `api_key: i16`, `api_version: i16`,
//! `correlation_id: i32`), followed by one byte naming the [`RpcKind`] and its payload. A reply is
//! a size, the correlation id, a status byte (0: the payload is the answer; 1: the payload is an
//! error message in UTF-8) and the payload. The payloads:
//!
//! - [`RpcKind::Raft`]: a `RaftRpc`, and a `RaftReply` back (the quorum's own bounded encoding).
//! - [`RpcKind::Controller`]: a Kafka request (a broker asking the active controller:
//!   BrokerRegistration, BrokerHeartbeat, AlterPartition, CreateTopics, ...) as `api_key: i16`,
//!   `api_version: i16`, the client it is forwarded for (Kafka's Envelope principal and client
//!   address: `i16` length and the UTF-8 `Type:name` principal, -1 for the node's own request,
//!   then `i16` length and the UTF-8 address), then the request body; and back the offset of the last metadata record the answer depends on (`i64`, -1 for none)
//!   followed by the Kafka response frame, so the broker can wait until its own image has it.
//! - [`RpcKind::MetadataFetch`]: an observer (a broker that is not a voter) asks for committed
//!   metadata from an offset (`i64`), naming itself (`i32` node id, then its metadata log dir's 16-byte directory id); back the voter's leader epoch (`i32`) and leader (`i32`, -1
//!   when unknown), a snapshot's end offset (`i64`, -1 for none) and epoch (`i32`), then either
//!   whole committed record batches as stored in `__cluster_metadata` or, when the voter's log no
//!   longer holds the offset, its newest snapshot file (Kafka's `.checkpoint` format).
//!
//! What it is not: no connection handling (see `client` and `listener`), no interpretation of
//! the payloads.

use bytes::{Buf, BufMut, Bytes, BytesMut};
use strand_metadata::controller::authorization::Requester;
use strand_metadata::quorum::CommittedRead;
use strand_security::KafkaPrincipal;

/// The API key of Strand's node-to-node requests.
pub const STRAND_RPC_API_KEY: i16 = 32_000;
/// The only version of it so far.
const STRAND_RPC_VERSION: i16 = 0;
/// Bytes before a request's payload: key, version, correlation id, kind.
const REQUEST_HEADER_BYTES: usize = 2 + 2 + 4 + 1;
/// Bytes before a reply's payload: correlation id, status.
const REPLY_HEADER_BYTES: usize = 4 + 1;

/// What a request's payload is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RpcKind {
    Raft = 0,
    Controller = 1,
    MetadataFetch = 2,
}

impl RpcKind {
    fn from_byte(byte: u8) -> Option<RpcKind> {
        match byte {
            0 => Some(RpcKind::Raft),
            1 => Some(RpcKind::Controller),
            2 => Some(RpcKind::MetadataFetch),
            _ => None,
        }
    }
}

/// A Strand request as the listener reads it.
#[derive(Debug, Clone)]
pub struct RpcRequest {
    pub correlation_id: i32,
    pub kind: RpcKind,
    pub payload: Bytes,
}

/// Whether a frame (without its size prefix) is a Strand request, judged by its first two bytes.
pub fn is_strand_rpc(frame: &[u8]) -> bool {
    frame.len() >= 2 && i16::from_be_bytes([frame[0], frame[1]]) == STRAND_RPC_API_KEY
}

/// A whole request frame, size prefix included.
pub fn encode_request(correlation_id: i32, kind: RpcKind, payload: &[u8]) -> Result<Bytes, String> {
    let size = frame_size(REQUEST_HEADER_BYTES + payload.len())?;
    let mut frame = BytesMut::with_capacity(4 + REQUEST_HEADER_BYTES + payload.len());
    frame.put_i32(size);
    frame.put_i16(STRAND_RPC_API_KEY);
    frame.put_i16(STRAND_RPC_VERSION);
    frame.put_i32(correlation_id);
    frame.put_u8(kind as u8);
    frame.put_slice(payload);
    Ok(frame.freeze())
}

/// Reads a request frame (without its size prefix).
pub fn decode_request(mut frame: Bytes) -> Result<RpcRequest, String> {
    if frame.len() < REQUEST_HEADER_BYTES {
        return Err(format!("a strand rpc of {} bytes is shorter than its header", frame.len()));
    }
    let api_key = frame.get_i16();
    let version = frame.get_i16();
    let correlation_id = frame.get_i32();
    let kind = frame.get_u8();
    if api_key != STRAND_RPC_API_KEY || version != STRAND_RPC_VERSION {
        return Err(format!("not a strand rpc: api key {api_key} version {version}"));
    }
    let kind = RpcKind::from_byte(kind).ok_or_else(|| format!("unknown strand rpc kind {kind}"))?;
    Ok(RpcRequest { correlation_id, kind, payload: frame })
}

/// A whole reply frame, size prefix included: the answer, or why there is none.
pub fn encode_reply(correlation_id: i32, answer: Result<&[u8], &str>) -> Result<Bytes, String> {
    let (status, payload) = match answer {
        Ok(payload) => (0u8, payload),
        Err(message) => (1u8, message.as_bytes()),
    };
    let size = frame_size(REPLY_HEADER_BYTES + payload.len())?;
    let mut frame = BytesMut::with_capacity(4 + REPLY_HEADER_BYTES + payload.len());
    frame.put_i32(size);
    frame.put_i32(correlation_id);
    frame.put_u8(status);
    frame.put_slice(payload);
    Ok(frame.freeze())
}

/// Reads a reply frame (without its size prefix): its correlation id and the answer, or the
/// error the other node sent.
pub fn decode_reply(mut frame: Bytes) -> Result<(i32, Result<Bytes, String>), String> {
    if frame.len() < REPLY_HEADER_BYTES {
        return Err(format!("a strand rpc reply of {} bytes is shorter than its header", frame.len()));
    }
    let correlation_id = frame.get_i32();
    match frame.get_u8() {
        0 => Ok((correlation_id, Ok(frame))),
        1 => Ok((correlation_id, Err(String::from_utf8_lossy(&frame).into_owned()))),
        status => Err(format!("unknown strand rpc reply status {status}")),
    }
}

/// The controller reply's payload: the offset, then the Kafka response frame.
pub fn encode_controller_answer(offset: i64, response: &[u8]) -> Bytes {
    let mut payload = BytesMut::with_capacity(8 + response.len());
    payload.put_i64(offset);
    payload.put_slice(response);
    payload.freeze()
}

/// A controller request's payload: see the module doc.
pub fn encode_controller_request(
    api_key: i16,
    version: i16,
    requester: Option<&Requester>,
    body: &[u8],
) -> Result<Bytes, String> {
    let text = requester.map(|r| (r.principal.to_string(), r.host.to_string()));
    let header = text.as_ref().map_or(2, |(p, h)| 4 + p.len() + h.len());
    let mut payload = BytesMut::with_capacity(4 + header + body.len());
    payload.put_i16(api_key);
    payload.put_i16(version);
    match &text {
        None => payload.put_i16(-1),
        Some((principal, host)) => {
            for field in [principal, host] {
                let len =
                    i16::try_from(field.len()).map_err(|_| format!("a requester field of {} bytes", field.len()))?;
                payload.put_i16(len);
                payload.put_slice(field.as_bytes());
            }
        }
    }
    payload.put_slice(body);
    Ok(payload.freeze())
}

/// A controller request's api key, version, requester and body.
pub fn decode_controller_request(mut payload: Bytes) -> Result<(i16, i16, Option<Requester>, Bytes), String> {
    if payload.len() < 6 {
        return Err("a controller request shorter than its api key, version and requester".into());
    }
    let (api_key, version) = (payload.get_i16(), payload.get_i16());
    let mut string = |what: &str| -> Result<Option<String>, String> {
        let len = if payload.len() >= 2 { payload.get_i16() } else { return Err(format!("no {what}")) };
        let Ok(len) = usize::try_from(len) else { return Ok(None) };
        if payload.len() < len {
            return Err(format!("a {what} past the end of the request"));
        }
        String::from_utf8(payload.split_to(len).to_vec()).map(Some).map_err(|_| format!("a {what} not in UTF-8"))
    };
    let requester = match string("principal")? {
        None => None,
        Some(principal) => {
            let principal = KafkaPrincipal::parse(&principal).ok_or_else(|| format!("a principal {principal:?}"))?;
            let host = string("client address")?.unwrap_or_default();
            let host = host.parse().map_err(|_| format!("a client address {host:?}"))?;
            Some(Requester { principal, host })
        }
    };
    Ok((api_key, version, requester, payload))
}

/// Splits a controller reply's payload into the offset and the Kafka response frame.
pub fn decode_controller_answer(mut payload: Bytes) -> Result<(i64, Bytes), String> {
    if payload.len() < 8 {
        return Err("a controller answer shorter than its offset".into());
    }
    let offset = payload.get_i64();
    Ok((offset, payload))
}

/// A metadata fetch's answer: the leadership, then the batches.
pub fn encode_metadata_answer(epoch: i32, leader_id: Option<i32>, read: &CommittedRead) -> Bytes {
    let (snapshot, body): ((i64, i32), &[Bytes]) = match read {
        CommittedRead::Batches(batches) => ((-1, -1), batches),
        CommittedRead::Snapshot { end_offset, epoch, bytes } => ((*end_offset, *epoch), std::slice::from_ref(bytes)),
    };
    let mut payload = BytesMut::with_capacity(20 + body.iter().map(Bytes::len).sum::<usize>());
    payload.put_i32(epoch);
    payload.put_i32(leader_id.unwrap_or(-1));
    payload.put_i64(snapshot.0);
    payload.put_i32(snapshot.1);
    for bytes in body {
        payload.put_slice(bytes);
    }
    payload.freeze()
}

/// A metadata fetch's answer: the voter's leadership, and the batches' bytes or a snapshot's.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataAnswer {
    pub epoch: i32,
    pub leader_id: Option<i32>,
    /// The snapshot's end offset and epoch when `bytes` is a snapshot file.
    pub snapshot: Option<(i64, i32)>,
    pub bytes: Bytes,
}

/// Splits a metadata fetch's answer into the leadership, the snapshot id and the bytes.
pub fn decode_metadata_answer(mut payload: Bytes) -> Result<MetadataAnswer, String> {
    if payload.len() < 20 {
        return Err("a metadata answer shorter than its leadership and snapshot id".into());
    }
    let epoch = payload.get_i32();
    let leader = payload.get_i32();
    let (end_offset, snapshot_epoch) = (payload.get_i64(), payload.get_i32());
    let snapshot = (end_offset >= 0).then_some((end_offset, snapshot_epoch));
    Ok(MetadataAnswer { epoch, leader_id: (leader >= 0).then_some(leader), snapshot, bytes: payload })
}

fn frame_size(len: usize) -> Result<i32, String> {
    i32::try_from(len).map_err(|_| format!("a frame of {len} bytes is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request and a reply read back as written; the size prefix counts the rest.
    #[test]
    fn frames_round_trip() {
        let frame = encode_request(7, RpcKind::Controller, b"payload").expect("encodes");
        assert_eq!(i32::from_be_bytes(frame[..4].try_into().expect("4 bytes")) as usize, frame.len() - 4);
        assert!(is_strand_rpc(&frame[4..]));
        let request = decode_request(frame.slice(4..)).expect("decodes");
        assert_eq!(
            (request.correlation_id, request.kind, &request.payload[..]),
            (7, RpcKind::Controller, &b"payload"[..])
        );

        let reply = encode_reply(7, Ok(b"answer")).expect("encodes");
        let (correlation_id, answer) = decode_reply(reply.slice(4..)).expect("decodes");
        assert_eq!((correlation_id, answer), (7, Ok(Bytes::from_static(b"answer"))));
        let reply = encode_reply(8, Err("no leader")).expect("encodes");
        assert_eq!(decode_reply(reply.slice(4..)).expect("decodes"), (8, Err("no leader".to_owned())));
    }

    /// Kafka requests are not mistaken for Strand's, and malformed frames are errors.
    #[test]
    fn foreign_and_malformed_frames_are_refused() {
        let api_versions = [0u8, 18, 0, 3, 0, 0, 0, 1];
        assert!(!is_strand_rpc(&api_versions));
        assert!(decode_request(Bytes::copy_from_slice(&api_versions)).is_err());
        let mut unknown_kind = encode_request(1, RpcKind::Raft, b"").expect("encodes").slice(4..).to_vec();
        unknown_kind[8] = 9;
        assert!(decode_request(Bytes::from(unknown_kind)).is_err());
        assert!(decode_reply(Bytes::from_static(&[0, 0, 0, 1, 5])).is_err());
        assert!(decode_controller_answer(Bytes::from_static(&[0, 1])).is_err());
        let (offset, response) = decode_controller_answer(encode_controller_answer(42, b"r")).expect("decodes");
        assert_eq!((offset, &response[..]), (42, &b"r"[..]));
    }

    /// A controller request names the client it is forwarded for, or none; a truncated one is
    /// refused.
    #[test]
    fn controller_requests_round_trip() {
        let alice = Requester { principal: KafkaPrincipal::user("alice"), host: "10.0.0.1".parse().expect("ip") };
        for requester in [None, Some(alice)] {
            let payload = encode_controller_request(19, 7, requester.as_ref(), b"body").expect("encodes");
            let decoded = decode_controller_request(payload.clone()).expect("decodes");
            assert_eq!(decoded, (19, 7, requester.clone(), Bytes::from_static(b"body")));
            if requester.is_some() {
                assert!(decode_controller_request(payload.slice(..8)).is_err());
            }
        }
        assert!(decode_controller_request(Bytes::from_static(&[0, 19, 0])).is_err());
    }

    /// A metadata answer carries batches or a snapshot, and says which.
    #[test]
    fn metadata_answers_round_trip() {
        let batches = CommittedRead::Batches(vec![Bytes::from_static(b"one"), Bytes::from_static(b"two")]);
        let answer = decode_metadata_answer(encode_metadata_answer(4, Some(2), &batches)).expect("decodes");
        assert_eq!(
            answer,
            MetadataAnswer { epoch: 4, leader_id: Some(2), snapshot: None, bytes: Bytes::from_static(b"onetwo") }
        );
        let snapshot = CommittedRead::Snapshot { end_offset: 90, epoch: 3, bytes: Bytes::from_static(b"file") };
        let answer = decode_metadata_answer(encode_metadata_answer(5, None, &snapshot)).expect("decodes");
        assert_eq!(
            answer,
            MetadataAnswer { epoch: 5, leader_id: None, snapshot: Some((90, 3)), bytes: Bytes::from_static(b"file") }
        );
        assert!(decode_metadata_answer(Bytes::from_static(&[0; 19])).is_err());
    }
}
