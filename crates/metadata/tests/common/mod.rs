//! A metadata log in memory for the boundary tests: decisions' records are replayed into the
//! next image, as the quorum will do once they are committed. Registrations come from
//! [`strand_metadata::testkit`].

#![allow(dead_code)]

use bytes::BytesMut;
use strand_base::Uuid;
use strand_metadata::controller::{
    ApiMessageAndVersion, BootstrapFeatures, ControllerDefaults, ControllerResult, InitialFencing, bootstrap_records,
    create_topics,
};
use strand_metadata::image::{MetadataDelta, MetadataImage};
use strand_metadata::testkit::{committed, register, registration};
use strand_protocol::Decoder;
use strand_protocol::messages::CreateTopicsRequest;
use strand_protocol::messages::create_topics_request::CreatableTopic;
use strand_protocol::messages::records::MetadataRecord;

/// An image and the offset of its last record.
#[derive(Debug)]
pub struct Cluster {
    pub image: MetadataImage,
    next_topic_id: u8,
}

impl Cluster {
    /// A formatted cluster: the bootstrap feature records and nothing else.
    pub fn new() -> Cluster {
        let mut cluster = Cluster { image: MetadataImage::empty(), next_topic_id: 0 };
        cluster.apply(&bootstrap_records(&BootstrapFeatures::default()));
        cluster
    }

    /// A formatted cluster with brokers `ids`, registered and unfenced.
    pub fn with_brokers(ids: &[i32]) -> Cluster {
        let mut cluster = Cluster::new();
        for id in ids {
            cluster.register(*id, InitialFencing::Unfenced);
        }
        cluster
    }

    /// Finalizes `eligible.leader.replicas.version` at `level` (new clusters start at 1), as
    /// UpdateFeatures would: level 0 keeps an ISR from emptying and tracks no ELR.
    pub fn set_elr_level(&mut self, level: i16) {
        let record = strand_protocol::messages::FeatureLevelRecord {
            name: strand_metadata::image::ELIGIBLE_LEADER_REPLICAS_VERSION.to_owned(),
            feature_level: level,
            ..Default::default()
        };
        self.apply(&[ApiMessageAndVersion::latest(MetadataRecord::FeatureLevelRecord(record))]);
    }

    /// Registers broker `id` with one log dir and every finalized feature supported.
    pub fn register(&mut self, id: i32, fencing: InitialFencing) -> ControllerResult<i64> {
        let result = register(&self.image, &registration(id), fencing);
        self.apply(&result.records);
        ControllerResult { records: result.records, response: result.response.broker_epoch }
    }

    /// Replays `records` as one committed batch; every record must also survive encoding at its
    /// version.
    pub fn apply(&mut self, records: &[ApiMessageAndVersion]) {
        records.iter().for_each(assert_round_trips);
        self.image = committed(&self.image, records);
    }

    /// A deterministic topic id generator: 1, 2, 3, ... in the last byte, above the reserved range.
    pub fn topic_ids(&mut self) -> impl FnMut() -> Uuid + '_ {
        move || {
            self.next_topic_id = self.next_topic_id.wrapping_add(1);
            let mut bytes = [0x11; 16];
            bytes[15] = self.next_topic_id;
            Uuid(bytes)
        }
    }

    /// Creates topic `name`, which must succeed, and returns its id.
    pub fn create_topic(&mut self, name: &str, partitions: i32, replication_factor: i16) -> Uuid {
        let request =
            CreateTopicsRequest { topics: vec![topic(name, partitions, replication_factor)], ..Default::default() };
        let image = self.image.clone();
        let result = create_topics(&image, &request, &ControllerDefaults::default(), &mut self.topic_ids());
        let created = &result.response.topics[0];
        assert_eq!(created.error_code, 0, "creating {name}: {:?}", created.error_message);
        self.apply(&result.records);
        created.topic_id
    }
}

/// `image` rebuilt from [`MetadataImage::to_records`] alone (a snapshot's records), with the same
/// provenance; each record must also survive encoding at its version.
pub fn from_snapshot_records(image: &MetadataImage) -> MetadataImage {
    let mut delta = MetadataDelta::new(&MetadataImage::empty());
    for (record, version) in image.to_records() {
        let record = ApiMessageAndVersion { record, version };
        assert_round_trips(&record);
        delta.replay(&record.record).unwrap_or_else(|e| panic!("replaying snapshot record {record:?}: {e}"));
    }
    delta.apply(image.provenance())
}

/// A CreateTopics entry with no assignments or configs.
pub fn topic(name: &str, num_partitions: i32, replication_factor: i16) -> CreatableTopic {
    CreatableTopic { name: name.to_owned(), num_partitions, replication_factor, ..Default::default() }
}

/// A record encodes at its version and decodes back unchanged.
pub fn assert_round_trips(record: &ApiMessageAndVersion) {
    let mut out = BytesMut::new();
    record.record.encode(&mut out, record.version).expect("encode");
    let mut decoder = Decoder::new(out.freeze());
    let decoded = MetadataRecord::decode(record.record.api_key(), &mut decoder, record.version).expect("decode");
    assert_eq!(decoded, record.record);
}
