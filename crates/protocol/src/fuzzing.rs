//! The properties the request fuzzer checks, shared by the libFuzzer target in `fuzz/` and the
//! stable test that replays its corpus (`tests/fuzz_corpus.rs`). Only built with the `sample`
//! feature; never part of the broker.
//!
//! Not a fuzzer itself: [`check_request_frame`] is a pure function of its input that returns
//! quietly when the properties hold and panics with a description of the broken one when not.

use bytes::{Bytes, BytesMut};

use crate::Struct;
use crate::frame::{RequestFrame, decode_request_body, parse_request};
use crate::messages::api::RequestBody;

/// Checks one request frame (without its 4-byte size prefix), as a peer could send it.
///
/// Proves, for any input:
/// 1. reading the header and decoding the body never panics: bad input is an `Err`;
/// 2. a request that decodes can be written again, header and body, at the same version: the
///    decoder accepts nothing the encoder cannot express;
/// 3. what is written decodes to an equal header and body: no field is lost, reordered or
///    altered. Values are compared, not bytes, because a peer may send non-canonical encodings
///    (a bool byte of 2, a tagged field sent in a non-minimal varint) that still mean the same.
///
/// # Panics
/// When property 2 or 3 fails; that is a bug in the codec or the generated messages.
pub fn check_request_frame(data: &[u8]) {
    let Ok(frame) = parse_request(Bytes::copy_from_slice(data)) else { return };
    let Ok(body) = decode_request_body(&frame) else { return };
    let version = frame.api_version();
    let request = format!("{:?} v{version}", frame.api_key);

    let written =
        write_frame(&frame, &body).unwrap_or_else(|e| panic!("{request}: a decoded request fails to encode: {e}"));
    let again = parse_request(written)
        .unwrap_or_else(|e| panic!("{request}: the header written from a decoded request does not parse: {e}"));
    let body_again = decode_request_body(&again)
        .unwrap_or_else(|e| panic!("{request}: the body written from a decoded request does not decode: {e}"));

    assert_same(&request, "header", &frame.header, &again.header);
    assert_same(&request, "body", &body, &body_again);
}

/// Writes `frame`'s header and `body` as a frame without its size prefix, at the frame's version.
fn write_frame(frame: &RequestFrame, body: &RequestBody) -> Result<Bytes, crate::EncodeError> {
    let version = frame.api_version();
    let mut out = BytesMut::new();
    frame.header.encode(&mut out, frame.api_key.request_header_version(version))?;
    body.encode(&mut out, version)?;
    Ok(out.freeze())
}

/// Asserts two decodes are the same value. `PartialEq` alone is not enough: a float field (the
/// quota values of AlterClientQuotas) may hold NaN, which is unequal to itself though its bits
/// survive the round trip, so values that differ under `==` must still print identically.
fn assert_same<T: PartialEq + std::fmt::Debug>(request: &str, part: &str, first: &T, second: &T) {
    if first != second {
        let (first, second) = (format!("{first:?}"), format!("{second:?}"));
        assert_eq!(first, second, "{request}: the {part} changed in a decode → encode → decode round trip");
    }
}
