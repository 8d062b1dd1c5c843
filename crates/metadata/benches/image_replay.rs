//! What replaying one batch of new topics costs as the image grows: 500 topics of one partition
//! each (a CreateTopics chunk, `quorum_controller`'s `CHUNK_RECORDS_MAX` records or so) onto
//! an image of 1,000, 10,000 and 50,000 topics. Every node pays this for every batch it replays,
//! and the active controller once more to decide on the batch's uncommitted records.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use strand_base::{BrokerId, Uuid};
use strand_metadata::image::{MetadataDelta, MetadataImage, MetadataProvenance};
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{PartitionRecord, TopicRecord};

/// The records creating topics `from..to`, one partition each on broker 1.
fn creations(from: u64, to: u64) -> Vec<MetadataRecord> {
    let mut records = Vec::new();
    for n in from..to {
        let mut id = [0u8; 16];
        id[8..].copy_from_slice(&(n + 1).to_be_bytes());
        let topic_id = Uuid(id);
        records.push(MetadataRecord::TopicRecord(TopicRecord {
            name: format!("topic-{n}"),
            topic_id,
            ..Default::default()
        }));
        records.push(MetadataRecord::PartitionRecord(PartitionRecord {
            partition_id: 0,
            topic_id,
            replicas: vec![BrokerId(1)],
            isr: vec![1],
            leader: BrokerId(1),
            ..Default::default()
        }));
    }
    records
}

fn replayed(base: &MetadataImage, records: &[MetadataRecord]) -> MetadataImage {
    let mut delta = MetadataDelta::new(base);
    for record in records {
        delta.replay(record).expect("replays");
    }
    delta.apply(MetadataProvenance { offset: base.provenance().offset + records.len() as i64, epoch: 1 })
}

fn replay(c: &mut Criterion) {
    let mut group = c.benchmark_group("replay_500_new_topics");
    for topics in [1_000u64, 10_000, 50_000] {
        let base = replayed(&MetadataImage::empty(), &creations(0, topics));
        let batch = creations(topics, topics + 500);
        group.bench_with_input(BenchmarkId::from_parameter(topics), &topics, |b, _| {
            b.iter(|| black_box(replayed(&base, &batch)))
        });
    }
    group.finish();
}

criterion_group!(benches, replay);
criterion_main!(benches);
