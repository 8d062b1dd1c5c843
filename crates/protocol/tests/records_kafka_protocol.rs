//! Cross-checks our record batches against an independent implementation, the `kafka-protocol`
//! crate: batches we build, it decodes; batches it encodes, we read; with every codec.
//!
//! Its records keep headers in a map, so these batches use distinct header keys (duplicates are
//! covered by `records_roundtrip.rs`). Its encoder takes the smallest timestamp as the base and
//! never sets LogAppendTime, so only what both sides define is compared.

use bytes::{Bytes, BytesMut};
use kafka_protocol::indexmap::IndexMap;
use kafka_protocol::protocol::StrBytes;
use kafka_protocol::records::{
    Compression as TheirCompression, Record as TheirRecord, RecordBatchDecoder, RecordBatchEncoder,
    RecordEncodeOptions, TimestampType as TheirTimestampType,
};
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use strand_base::ProducerId;
use strand_protocol::records::{Compression, Header, NewRecord, RecordBatch, RecordBatchBuilder, RecordBatches};

/// One record in a form both sides can produce and compare.
#[derive(Debug, Clone, PartialEq)]
struct Plain {
    offset: i64,
    timestamp_ms: i64,
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    headers: Vec<(String, Option<Vec<u8>>)>,
}

/// The batch-level fields both sides set.
#[derive(Debug, Clone, PartialEq)]
struct Producer {
    id: i64,
    epoch: i16,
    base_sequence: i32,
    transactional: bool,
}

fn theirs(codec: Compression) -> TheirCompression {
    match codec {
        Compression::None => TheirCompression::None,
        Compression::Gzip => TheirCompression::Gzip,
        Compression::Snappy => TheirCompression::Snappy,
        Compression::Lz4 => TheirCompression::Lz4,
        Compression::Zstd => TheirCompression::Zstd,
    }
}

/// Records at offset 0; [`at_offsets`] places them.
fn plain_records() -> impl Strategy<Value = Vec<Plain>> {
    let bytes = |len| prop::option::weighted(0.8, vec(any::<u8>(), 0..len));
    let headers = btree_map("[a-z]{0,6}", bytes(12), 0..4).prop_map(|h| h.into_iter().collect());
    let record = (0i64..4_000_000_000_000, bytes(24), bytes(200), headers)
        .prop_map(|(timestamp_ms, key, value, headers)| Plain { offset: 0, timestamp_ms, key, value, headers });
    vec(record, 1..16)
}

fn producer() -> impl Strategy<Value = Producer> {
    (0i64..1_000_000, 0i16..100, 0i32..1_000_000, any::<bool>())
        .prop_map(|(id, epoch, base_sequence, transactional)| Producer { id, epoch, base_sequence, transactional })
}

/// Our builder's batch for `records` at consecutive offsets from `base_offset`.
fn build_ours(codec: Compression, base_offset: i64, producer: &Producer, records: &[Plain]) -> Bytes {
    let mut builder = RecordBatchBuilder::new()
        .base_offset(base_offset)
        .partition_leader_epoch(5)
        .producer(ProducerId(producer.id), producer.epoch, producer.base_sequence)
        .compression(codec);
    if producer.transactional {
        builder = builder.transactional();
    }
    for record in records {
        let headers: Vec<Header<'_>> =
            record.headers.iter().map(|(k, v)| Header { key: k, value: v.as_deref() }).collect();
        let new = NewRecord {
            timestamp_ms: record.timestamp_ms,
            key: record.key.as_deref(),
            value: record.value.as_deref(),
            headers: &headers,
        };
        builder.append(&new).expect("record fits");
    }
    builder.build().expect("batch builds")
}

/// Their encoder's batch for the same records.
fn build_theirs(codec: Compression, producer: &Producer, records: &[Plain]) -> Bytes {
    let base_offset = records[0].offset;
    let theirs_records: Vec<TheirRecord> = records
        .iter()
        .map(|r| TheirRecord {
            transactional: producer.transactional,
            control: false,
            delete_horizon: false,
            partition_leader_epoch: 5,
            producer_id: producer.id,
            producer_epoch: producer.epoch,
            timestamp_type: TheirTimestampType::Creation,
            offset: r.offset,
            sequence: producer.base_sequence + (r.offset - base_offset) as i32,
            timestamp: r.timestamp_ms,
            key: r.key.clone().map(Bytes::from),
            value: r.value.clone().map(Bytes::from),
            headers: r
                .headers
                .iter()
                .map(|(k, v)| (StrBytes::from_string(k.clone()), v.clone().map(Bytes::from)))
                .collect::<IndexMap<_, _>>(),
        })
        .collect();
    let mut out = BytesMut::new();
    let options = RecordEncodeOptions { version: 2, compression: theirs(codec) };
    RecordBatchEncoder::encode(&mut out, &theirs_records, &options).expect("they encode");
    out.freeze()
}

/// What their decoder reads from `bytes`, in the shared form.
fn read_with_theirs(mut bytes: Bytes) -> (Producer, Vec<Plain>) {
    let set = RecordBatchDecoder::decode(&mut bytes).expect("they decode our batch");
    let first = &set.records[0];
    let producer = Producer {
        id: first.producer_id,
        epoch: first.producer_epoch,
        base_sequence: first.sequence,
        transactional: first.transactional,
    };
    let records = set
        .records
        .iter()
        .map(|r| Plain {
            offset: r.offset,
            timestamp_ms: r.timestamp,
            key: r.key.as_ref().map(|b| b.to_vec()),
            value: r.value.as_ref().map(|b| b.to_vec()),
            headers: r.headers.iter().map(|(k, v)| (k.to_string(), v.as_ref().map(|b| b.to_vec()))).collect(),
        })
        .collect();
    (producer, records)
}

/// What we read from `bytes`, checking the CRC and, uncompressed, the record count on the way.
fn read_with_ours(bytes: Bytes) -> (Compression, Producer, Vec<Plain>) {
    let mut batches = RecordBatches::new(bytes);
    let batch: RecordBatch = batches.next().expect("one batch").expect("we parse their batch");
    assert!(batches.next().is_none() && !batches.partial_tail());
    assert!(batch.crc_is_valid());
    let codec = batch.attributes().compression().expect("known codec");
    if codec == Compression::None {
        assert_eq!(batch.validate_uncompressed_record_count(), Ok(()));
    }
    let producer = Producer {
        id: batch.producer_id().0,
        epoch: batch.producer_epoch(),
        base_sequence: batch.base_sequence(),
        transactional: batch.attributes().is_transactional(),
    };
    let records = batch.records().expect("records region");
    let records = records
        .iter()
        .map(|r| {
            let r = r.expect("we read their record");
            Plain {
                offset: batch.record_offset(&r),
                timestamp_ms: batch.record_timestamp(&r),
                key: r.key().map(<[u8]>::to_vec),
                value: r.value().map(<[u8]>::to_vec),
                headers: r.headers().map(|h| (h.key.to_owned(), h.value.map(<[u8]>::to_vec))).collect(),
            }
        })
        .collect();
    (codec, producer, records)
}

fn at_offsets(base_offset: i64, records: Vec<Plain>) -> Vec<Plain> {
    records.into_iter().enumerate().map(|(i, record)| Plain { offset: base_offset + i as i64, ..record }).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Batches we build decode with `kafka-protocol` to the same records, for every codec.
    #[test]
    fn they_read_our_batches(codec in prop::sample::select(Compression::ALL.to_vec()), base_offset in 0i64..1 << 40, producer in producer(), raw in plain_records()) {
        let records = at_offsets(base_offset, raw);
        let (their_producer, their_records) = read_with_theirs(build_ours(codec, base_offset, &producer, &records));
        prop_assert_eq!(their_producer, producer);
        prop_assert_eq!(their_records, records);
    }

    /// Batches `kafka-protocol` encodes read with ours to the same records, for every codec.
    #[test]
    fn we_read_their_batches(codec in prop::sample::select(Compression::ALL.to_vec()), base_offset in 0i64..1 << 40, producer in producer(), raw in plain_records()) {
        let records = at_offsets(base_offset, raw);
        let (our_codec, our_producer, our_records) = read_with_ours(build_theirs(codec, &producer, &records));
        prop_assert_eq!(our_codec, codec);
        prop_assert_eq!(our_producer, producer);
        prop_assert_eq!(our_records, records);
    }
}
