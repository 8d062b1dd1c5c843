//! Request decoding cost: a 1 MiB Produce (one partition, one 1 MiB record set) decoded from its
//! frame, and the header-only parse the broker does first. Record sets are zero-copy slices, so
//! decoding should cost the same whatever the records' size.

use std::hint::black_box;

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use strand_base::Uuid;
use strand_protocol::frame::{SIZE_PREFIX_BYTES, decode_request_body, encode_request, parse_request};
use strand_protocol::messages::ProduceRequest;
use strand_protocol::messages::api::RequestBody;
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};

const RECORDS_BYTES: usize = 1024 * 1024;

fn produce_frame(version: i16) -> Bytes {
    let records: Bytes = (0..RECORDS_BYTES).map(|i| i as u8).collect();
    let request = ProduceRequest {
        acks: -1,
        timeout_ms: 30_000,
        topic_data: vec![TopicProduceData {
            name: if version < 13 { "bench".into() } else { String::new() },
            topic_id: if version >= 13 { Uuid([7; 16]) } else { Uuid::ZERO },
            partition_data: vec![PartitionProduceData { index: 0, records: Some(records), ..Default::default() }],
            ..Default::default()
        }],
        ..ProduceRequest::default()
    };
    let frame = encode_request(1, Some("bench"), &RequestBody::Produce(request), version).expect("encodes");
    frame.slice(SIZE_PREFIX_BYTES..)
}

fn decode(c: &mut Criterion) {
    let mut group = c.benchmark_group("produce_1mib");
    for version in [9, 13] {
        let frame = produce_frame(version);
        group.throughput(Throughput::Bytes(frame.len() as u64));
        group.bench_function(format!("decode_v{version}"), |b| {
            b.iter(|| {
                let parsed = parse_request(black_box(frame.clone())).expect("header");
                decode_request_body(&parsed).expect("body")
            })
        });
        group.bench_function(format!("header_only_v{version}"), |b| {
            b.iter(|| parse_request(black_box(frame.clone())).expect("header"))
        });
    }
    group.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
