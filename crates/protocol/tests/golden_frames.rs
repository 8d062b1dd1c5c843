//! Frames captured from real clients (the Java client and Kafka's tools, librdkafka, sarama,
//! franz-go, kafkajs) talking to Apache Kafka 4.4.0, with Kafka's responses: each decodes and
//! re-encodes to the identical bytes, and the record batches they carry pass their CRC check.
//! See `tests/data/golden/README.md` for how they were captured.

use std::path::{Path, PathBuf};

use bytes::{Bytes, BytesMut};
use strand_protocol::frame::{
    DECODE_ALLOCATION_PER_FRAME_BYTE, decode_allocation_max, decode_request_body, decode_response, parse_request,
};
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_protocol::records::RecordBatches;
use strand_protocol::{Decoder, Struct};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden")
}

/// Every `(client, stem)` with a request and a response file.
fn pairs() -> Vec<(String, PathBuf)> {
    let mut pairs = Vec::new();
    let Ok(clients) = std::fs::read_dir(golden_dir()) else { return pairs };
    for client in clients.flatten().filter(|e| e.path().is_dir()) {
        let Ok(files) = std::fs::read_dir(client.path()) else { continue };
        for file in files.flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".request.bin") {
                pairs.push((client.file_name().to_string_lossy().into_owned(), client.path().join(stem)));
            }
        }
    }
    pairs.sort();
    pairs
}

fn read(stem: &Path, suffix: &str) -> Bytes {
    let path = PathBuf::from(format!("{}{suffix}", stem.display()));
    Bytes::from(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// Decodes and re-encodes a request frame; returns the API, version and decoded body.
fn request_round_trip(frame: Bytes) -> Result<(ApiKey, i16, RequestBody), String> {
    let parsed = parse_request(frame.clone()).map_err(|e| e.to_string())?;
    let body = decode_request_body(&parsed).map_err(|e| e.to_string())?;
    let (api, version) = (parsed.api_key, parsed.api_version());
    let mut out = BytesMut::new();
    parsed.header.encode(&mut out, api.request_header_version(version)).map_err(|e| e.to_string())?;
    body.encode(&mut out, version).map_err(|e| e.to_string())?;
    if out[..] != frame[..] {
        return Err(format!("re-encoded request differs ({} vs {} bytes)", out.len(), frame.len()));
    }
    Ok((api, version, body))
}

fn response_round_trip(api: ApiKey, version: i16, frame: Bytes) -> Result<ResponseBody, String> {
    let (header, body) = decode_response(api, version, frame.clone()).map_err(|e| e.to_string())?;
    let mut out = BytesMut::new();
    header.encode(&mut out, api.response_header_version(version)).map_err(|e| e.to_string())?;
    body.encode(&mut out, version).map_err(|e| e.to_string())?;
    if out[..] != frame[..] {
        return Err(format!("re-encoded response differs ({} vs {} bytes)", out.len(), frame.len()));
    }
    Ok(body)
}

/// Checks the CRC of every whole batch in a record set; returns how many were checked.
fn check_batches(records: &Bytes) -> Result<usize, String> {
    let mut checked = 0;
    for batch in RecordBatches::new(records.clone()) {
        let batch = batch.map_err(|e| e.to_string())?;
        if !batch.crc_is_valid() {
            return Err(format!("batch at offset {} fails its CRC", batch.base_offset()));
        }
        checked += 1;
    }
    Ok(checked)
}

fn batches_in_request(body: &RequestBody) -> Result<usize, String> {
    let RequestBody::Produce(produce) = body else { return Ok(0) };
    let mut checked = 0;
    for topic in &produce.topic_data {
        for partition in &topic.partition_data {
            if let Some(records) = &partition.records {
                checked += check_batches(records)?;
            }
        }
    }
    Ok(checked)
}

fn batches_in_response(body: &ResponseBody) -> Result<usize, String> {
    let ResponseBody::Fetch(fetch) = body else { return Ok(0) };
    let mut checked = 0;
    for topic in &fetch.responses {
        for partition in &topic.partitions {
            if let Some(records) = partition.records.as_ref().and_then(|r| r.as_bytes()) {
                checked += check_batches(records)?;
            }
        }
    }
    Ok(checked)
}

/// Every captured request and response decodes and re-encodes byte for byte, for every client,
/// and every record batch inside them has a valid CRC.
#[test]
fn golden_frames_round_trip_byte_for_byte() {
    let pairs = pairs();
    assert!(pairs.len() >= 150, "only {} golden pairs found under {}", pairs.len(), golden_dir().display());
    let mut failures = Vec::new();
    let mut clients = std::collections::BTreeSet::new();
    let (mut produce_batches, mut fetch_batches) = (0, 0);
    for (client, stem) in &pairs {
        let name = stem.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let result = request_round_trip(read(stem, ".request.bin")).and_then(|(api, version, request)| {
            produce_batches += batches_in_request(&request)?;
            let response = response_round_trip(api, version, read(stem, ".response.bin"))?;
            fetch_batches += batches_in_response(&response)?;
            Ok(())
        });
        match result {
            Ok(()) => {
                clients.insert(client.clone());
            }
            Err(e) => failures.push(format!("{client}/{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{} of {} pairs failed:\n{failures:#?}", failures.len(), pairs.len());
    assert_eq!(clients.len(), 6, "clients covered: {clients:?}");
    assert!(produce_batches > 0 && fetch_batches > 0, "batches: {produce_batches} produced, {fetch_batches} fetched");
}

/// The versions we advertise agree with what Kafka 4.4.0 itself advertised to the Java client.
#[test]
fn api_versions_match_what_kafka_advertised() {
    let pair = pairs()
        .into_iter()
        .find(|(client, stem)| client == "java" && stem.to_string_lossy().ends_with("-18-ApiVersions-v5"))
        .expect("a Java ApiVersions v5 capture");
    let (_, body) = decode_response(ApiKey::ApiVersions, 5, read(&pair.1, ".response.bin")).expect("decodes");
    let ResponseBody::ApiVersions(kafka) = body else { panic!("not an ApiVersions response") };
    let mut mismatches = Vec::new();
    for advertised in &kafka.api_keys {
        let Some(api) = ApiKey::from_i16(advertised.api_key) else {
            mismatches.push(format!("Kafka advertises unknown key {}", advertised.api_key));
            continue;
        };
        let ours = strand_protocol::versions::advertised(api);
        if (ours.min, ours.max) != (advertised.min_version, advertised.max_version) {
            mismatches.push(format!(
                "{api:?}: ours {}-{}, Kafka {}-{}",
                ours.min, ours.max, advertised.min_version, advertised.max_version
            ));
        }
    }
    assert!(kafka.api_keys.len() > 50, "Kafka advertised only {} APIs", kafka.api_keys.len());
    assert!(mismatches.is_empty(), "{mismatches:#?}");
}

/// Repeats a vector's elements until it holds `n` times as many.
fn repeat<T: Clone>(items: &mut Vec<T>, n: usize) {
    let one = std::mem::take(items);
    *items = (0..n).flat_map(|_| one.iter().cloned()).collect();
}

/// A real request grown to the size of a large one of its kind: its repeated entries (topics,
/// partitions, names, resources) repeated `n` times, each as the client wrote it.
fn scaled(body: &mut RequestBody, n: usize) -> bool {
    match body {
        RequestBody::Produce(r) => r.topic_data.iter_mut().for_each(|t| repeat(&mut t.partition_data, n)),
        RequestBody::Fetch(r) => r.topics.iter_mut().for_each(|t| repeat(&mut t.partitions, n)),
        RequestBody::ListOffsets(r) => r.topics.iter_mut().for_each(|t| repeat(&mut t.partitions, n)),
        RequestBody::Metadata(r) => r.topics.iter_mut().for_each(|topics| repeat(topics, n)),
        RequestBody::OffsetCommit(r) => r.topics.iter_mut().for_each(|t| repeat(&mut t.partitions, n)),
        RequestBody::TxnOffsetCommit(r) => r.topics.iter_mut().for_each(|t| repeat(&mut t.partitions, n)),
        RequestBody::OffsetFetch(r) => {
            r.topics.iter_mut().flatten().for_each(|t| repeat(&mut t.partition_indexes, n));
            let groups = r.groups.iter_mut().flat_map(|g| g.topics.iter_mut().flatten());
            groups.for_each(|t| repeat(&mut t.partition_indexes, n));
        }
        RequestBody::DeleteTopics(r) => {
            repeat(&mut r.topics, n);
            repeat(&mut r.topic_names, n);
        }
        RequestBody::CreateTopics(r) => repeat(&mut r.topics, n),
        RequestBody::DescribeConfigs(r) => repeat(&mut r.resources, n),
        RequestBody::IncrementalAlterConfigs(r) => repeat(&mut r.resources, n),
        RequestBody::DeleteRecords(r) => r.topics.iter_mut().for_each(|t| repeat(&mut t.partitions, n)),
        RequestBody::AddPartitionsToTxn(r) => {
            r.v3_and_below_topics.iter_mut().for_each(|t| repeat(&mut t.partitions, n));
            let topics = r.transactions.iter_mut().flat_map(|t| t.topics.iter_mut());
            topics.for_each(|t| repeat(&mut t.partitions, n));
        }
        _ => return false,
    }
    true
}

/// What decoding a request frame allocates, as its decoder's budget counts it.
fn decode_allocation(frame: Bytes) -> Result<usize, String> {
    let parsed = parse_request(frame.clone()).map_err(|e| e.to_string())?;
    let mut d = Decoder::with_budget(parsed.body.clone(), parsed.decode_budget);
    RequestBody::decode(parsed.api_key, &mut d, parsed.api_version()).map_err(|e| e.to_string())?;
    Ok(decode_allocation_max(frame.len()) - d.budget_left().unwrap_or(0))
}

/// Real clients' requests decode within the allocation budget, also grown a thousandfold in
/// their repeated entries, where the slack no longer helps: each allocates at most
/// `DECODE_ALLOCATION_PER_FRAME_BYTE` bytes per frame byte. The largest ratios are printed.
#[test]
fn real_requests_decode_within_the_allocation_budget() {
    let mut ratios = Vec::new();
    for (client, stem) in pairs() {
        let name = stem.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let frame = read(&stem, ".request.bin");
        let allocated = decode_allocation(frame.clone()).unwrap_or_else(|e| panic!("{client}/{name}: {e}"));
        assert!(allocated <= decode_allocation_max(frame.len()), "{client}/{name}");
        let parsed = parse_request(frame).unwrap_or_else(|e| panic!("{client}/{name}: {e}"));
        let Ok(mut body) = decode_request_body(&parsed) else { panic!("{client}/{name}: does not decode") };
        if !scaled(&mut body, 1000) {
            continue;
        }
        let (api, version) = (parsed.api_key, parsed.api_version());
        let mut out = BytesMut::new();
        let encoded = parsed.header.encode(&mut out, api.request_header_version(version));
        encoded.and_then(|()| body.encode(&mut out, version)).unwrap_or_else(|e| panic!("{client}/{name}: {e}"));
        let grown = out.len();
        let allocated = decode_allocation(out.freeze()).unwrap_or_else(|e| panic!("{client}/{name} grown: {e}"));
        assert!(
            allocated <= DECODE_ALLOCATION_PER_FRAME_BYTE * grown,
            "{client}/{name} grown: {allocated} for {grown}"
        );
        ratios.push((allocated as f64 / grown as f64, format!("{client}/{name} x1000: {allocated} bytes for {grown}")));
    }
    assert!(ratios.len() >= 50, "only {} requests grown", ratios.len());
    ratios.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (ratio, what) in ratios.iter().take(40) {
        println!("{ratio:.2} {what}");
    }
}
