//! Frames captured from real clients (the Java client and Kafka's tools, librdkafka, sarama,
//! franz-go, kafkajs) talking to Apache Kafka 4.4.0, with Kafka's responses: each decodes and
//! re-encodes to the identical bytes, and the record batches they carry pass their CRC check.
//! See `tests/data/golden/README.md` for how they were captured.

use std::path::{Path, PathBuf};

use bytes::{Bytes, BytesMut};
use strand_protocol::Struct;
use strand_protocol::frame::{decode_request_body, decode_response, parse_request};
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_protocol::records::RecordBatches;

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
