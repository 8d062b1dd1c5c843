//! Bad input gets a clear answer and loses nothing: garbage, a truncated frame, a 2 GB size
//! prefix, an unknown API key, an unsupported version, a corrupt batch, a batch whose record count
//! disagrees with its bytes, and an array declaring 2^31 elements in a few bytes each get Kafka's
//! error code or a closed connection; other connections keep working; the broker's memory does not
//! grow by the sizes the input declares.

mod common;

use bytes::{BufMut, Bytes, BytesMut};
use common::Server;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::ProduceRequest;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = (body.len() as i32).to_be_bytes().to_vec();
    out.extend_from_slice(body);
    out
}

/// A request header (v1) for `api` at `version`, then `rest`.
fn request(api: i16, version: i16, rest: &[u8]) -> Vec<u8> {
    let mut body = BytesMut::new();
    body.put_i16(api);
    body.put_i16(version);
    body.put_i32(7);
    body.put_i16(-1);
    body.put_slice(rest);
    frame(&body)
}

fn api_versions_works(address: std::net::SocketAddr) {
    let mut client = common::Client::connect(address);
    let ResponseBody::ApiVersions(response) = client.call(RequestBody::ApiVersions(common::api_versions_request()), 3)
    else {
        panic!("not an ApiVersions response")
    };
    assert_eq!(response.error_code, 0);
}

fn produce(client: &mut common::Client, records: Bytes) -> i16 {
    let request = ProduceRequest {
        acks: 1,
        timeout_ms: 5_000,
        topic_data: vec![TopicProduceData {
            name: "t".into(),
            partition_data: vec![PartitionProduceData { index: 0, records: Some(records), ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::Produce(response) = client.call(RequestBody::Produce(request), 9) else { panic!() };
    response.responses[0].partition_responses[0].error_code
}

fn good_batch() -> Bytes {
    let mut builder = RecordBatchBuilder::new();
    for value in ["one", "two", "three"] {
        builder
            .append(&NewRecord {
                timestamp_ms: 1_700_000_000_000,
                key: None,
                value: Some(value.as_bytes()),
                headers: &[],
            })
            .expect("record");
    }
    builder.build().expect("batch")
}

/// Each kind of malformed frame closes its own connection; a fresh one still works afterwards.
/// Apache Kafka 4.4.0 closes the connection for each of these too: recorded by running this test
/// against it (`STRAND_TEST_BROKER=127.0.0.1:<port> cargo test -p strand-cli --test e2e_bad_input
/// malformed`, the `compat/broker/kafka-server.properties` oracle).
#[test]
fn malformed_frames_close_only_their_connection() {
    let _serial = common::serial();
    let oracle = std::env::var("STRAND_TEST_BROKER").ok().map(|a| a.parse().expect("STRAND_TEST_BROKER is host:port"));
    let server = oracle.is_none().then(Server::start);
    let address = oracle.unwrap_or_else(|| server.as_ref().expect("server").address);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("garbage", frame(&[0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06])),
        ("2 GB size prefix", vec![0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0]),
        ("negative size prefix", vec![0xff, 0xff, 0xff, 0xf0]),
        ("unknown api key", request(999, 0, &[])),
        ("unsupported Produce version", request(0, 99, &[0; 16])),
        // Metadata v4: topics array count i32::MAX in the first four body bytes.
        ("2^31 array elements", request(3, 4, &[0x7f, 0xff, 0xff, 0xff, 0])),
        ("truncated body", request(3, 4, &[0, 0, 0, 1])),
    ];
    let mut open = common::Client::connect(address);
    for (name, bytes) in cases {
        let mut client = common::Client::connect(address);
        client.send_raw(&bytes);
        assert!(client.is_closed_by_server(), "{name}: the connection stayed open");
        api_versions_works(address);
    }
    // A frame cut short by the client going away does not disturb anyone either.
    let mut cut = common::Client::connect(address);
    cut.send_raw(&[0, 0, 1, 0, 0, 3]);
    drop(cut);
    let ResponseBody::ApiVersions(_) = open.call(RequestBody::ApiVersions(common::api_versions_request()), 3) else {
        panic!()
    };
}

/// An ApiVersions version newer than any served gets the KIP-511 answer: a v0 response with
/// UNSUPPORTED_VERSION and the versions served.
#[test]
fn unknown_api_versions_version_gets_the_v0_fallback() {
    let _serial = common::serial();
    let server = Server::start();
    let mut client = server.connect();
    // ApiVersions v99 with a v2 header: client id, then no tagged fields.
    client.send_raw(&request(18, 99, &[0]));
    let response = client.read_frame().expect("a response");
    let (header, body) =
        strand_protocol::frame::decode_response(strand_protocol::messages::api::ApiKey::ApiVersions, 0, response)
            .expect("a v0 ApiVersions response");
    assert_eq!(header.correlation_id, 7);
    let ResponseBody::ApiVersions(body) = body else { panic!() };
    assert_eq!(body.error_code, ErrorCode::UnsupportedVersion.code());
    assert!(body.api_keys.iter().any(|k| k.api_key == 18));
}

/// A corrupt CRC gets CORRUPT_MESSAGE; a record count that disagrees with the records and a cut
/// batch get INVALID_RECORD (Kafka 4.4's answers to the same bytes, `e2e_lying_batches.rs`);
/// nothing of them is stored, and a good batch afterwards lands at offset 0.
#[test]
fn corrupt_batches_are_refused_and_nothing_is_stored() {
    let _serial = common::serial();
    let server = Server::start();
    let mut client = server.connect();
    common::create_topic(&mut client, "t", 1);

    let mut bad_crc = good_batch().to_vec();
    let last = bad_crc.len() - 1;
    bad_crc[last] ^= 0xff;
    assert_eq!(produce(&mut client, Bytes::from(bad_crc)), ErrorCode::CorruptMessage.code());

    // Claim four records where there are three, with the CRC fixed up so only the count is wrong.
    let mut bad_count = good_batch().to_vec();
    bad_count[57..61].copy_from_slice(&4i32.to_be_bytes());
    let crc = crc32c::crc32c(&bad_count[21..]);
    bad_count[17..21].copy_from_slice(&crc.to_be_bytes());
    assert_eq!(produce(&mut client, Bytes::from(bad_count)), ErrorCode::InvalidRecord.code());

    let mut cut = good_batch().to_vec();
    cut.truncate(cut.len() - 4);
    assert_eq!(produce(&mut client, Bytes::from(cut)), ErrorCode::InvalidRecord.code());

    let request = ProduceRequest {
        acks: 1,
        timeout_ms: 5_000,
        topic_data: vec![TopicProduceData {
            name: "t".into(),
            partition_data: vec![PartitionProduceData { index: 0, records: Some(good_batch()), ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::Produce(response) = client.call(RequestBody::Produce(request), 9) else { panic!() };
    let partition = &response.responses[0].partition_responses[0];
    assert_eq!((partition.error_code, partition.base_offset), (0, 0));
}

/// Declaring a 100 MB frame (within socket.request.max.bytes) and sending a few bytes, on many
/// connections at once, does not make the broker reserve those sizes.
#[test]
fn declared_sizes_do_not_grow_memory() {
    let _serial = common::serial();
    let server = Server::start();
    api_versions_works(server.address);
    let before = server.rss_kib();
    let mut clients = Vec::new();
    for _ in 0..20 {
        let mut client = server.connect();
        client.send_raw(&[0x06, 0x3f, 0xff, 0x00, 0, 3, 0, 0]);
        clients.push(client);
    }
    api_versions_works(server.address);
    let after = server.rss_kib();
    // 20 × 100 MB declared: an allocation by declared size would add ~2 GB.
    assert!(after < before + 64 * 1024, "resident memory grew from {before} KiB to {after} KiB");
}
