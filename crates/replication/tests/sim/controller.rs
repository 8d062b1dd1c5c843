//! The active controller of the simulation: the metadata log as a list of images, each batch of
//! records a decision of `strand-metadata` returned committed at once and replayed into the next
//! image, the session tracker, and the leader each leader epoch was given (which the checks hold
//! the brokers to). Also the registrations the server builds around those decisions.

use std::collections::BTreeMap;
use std::sync::Arc;

use strand_base::{BrokerId, Uuid};
use strand_metadata::controller::{
    ApiMessageAndVersion, BootstrapFeatures, BrokerHeartbeatTracker, ControllerDefaults, InitialFencing,
    bootstrap_records, create_topics,
};
use strand_metadata::image::{MetadataImage, PartitionImage};
use strand_metadata::testkit::{committed, register};
use strand_protocol::messages::create_topics_request::{
    CreatableReplicaAssignment, CreatableTopic, CreatableTopicConfig,
};
use strand_protocol::messages::{BrokerRegistrationRequest, CreateTopicsRequest};

use super::{Shape, TOPIC};

/// The active controller: the metadata log as a list of images (every decision's records are
/// committed at once), the session tracker, and the leader each leader epoch was given.
#[derive(Debug)]
pub(super) struct Controller {
    /// `history[i]` is the image after the `i`-th batch; the last is the current one.
    pub(super) history: Vec<Arc<MetadataImage>>,
    pub(super) tracker: BrokerHeartbeatTracker,
    pub(super) defaults: ControllerDefaults,
    /// (partition, leader epoch) → the leader the controller named for it.
    pub(super) epoch_leaders: BTreeMap<(i32, i32), BrokerId>,
    pub(super) violations: Vec<String>,
}

impl Controller {
    /// A formatted cluster with `shape.nodes` brokers registered and unfenced, and the topic
    /// [`TOPIC`] with `shape.partitions` partitions of `shape.replication_factor` replicas, the
    /// preferred leaders spread over the brokers, and `shape.min_insync_replicas` as its
    /// `min.insync.replicas`. The brokers' epochs too.
    pub(super) fn bootstrap(shape: &Shape) -> (Controller, Vec<i64>) {
        let mut controller = Controller {
            history: vec![Arc::new(MetadataImage::empty())],
            tracker: BrokerHeartbeatTracker::new(),
            defaults: ControllerDefaults::default(),
            epoch_leaders: BTreeMap::new(),
            violations: Vec::new(),
        };
        controller.apply(&bootstrap_records(&BootstrapFeatures::default()));
        let mut epochs = Vec::new();
        for id in 1..=shape.nodes as i32 {
            let result = register(controller.image(), &registration(id, 0), InitialFencing::Unfenced);
            controller.apply(&result.records);
            epochs.push(result.response.broker_epoch);
        }
        let assignments = (0..shape.partitions)
            .map(|p| CreatableReplicaAssignment {
                partition_index: p as i32,
                broker_ids: (0..shape.replication_factor)
                    .map(|k| BrokerId(((p + k) % shape.nodes) as i32 + 1))
                    .collect(),
                ..Default::default()
            })
            .collect();
        let min_insync_replicas = CreatableTopicConfig {
            name: "min.insync.replicas".to_owned(),
            value: Some(shape.min_insync_replicas.to_string()),
            ..Default::default()
        };
        let topic = CreatableTopic {
            name: TOPIC.to_owned(),
            num_partitions: -1,
            replication_factor: -1,
            assignments,
            configs: vec![min_insync_replicas],
            ..Default::default()
        };
        let request = CreateTopicsRequest { topics: vec![topic], ..Default::default() };
        let image = controller.image().clone();
        let created = create_topics(&image, &request, &controller.defaults, &mut || Uuid([0x5a; 16]));
        assert_eq!(created.response.topics[0].error_code, 0, "creating the topic");
        controller.apply(&created.records);
        (controller, epochs)
    }

    pub(super) fn image(&self) -> &Arc<MetadataImage> {
        self.history.last().expect("an image")
    }

    /// Commits `records` as one batch.
    pub(super) fn apply(&mut self, records: &[ApiMessageAndVersion]) {
        if records.is_empty() {
            return;
        }
        let next = committed(self.image(), records);
        if let Some(topic) = next.topics().by_name(TOPIC) {
            for (index, p) in &topic.partitions {
                let named = *self.epoch_leaders.entry((*index, p.leader_epoch)).or_insert(p.leader);
                if named != p.leader {
                    self.violations.push(format!(
                        "the controller named two leaders for {TOPIC}-{index} in leader epoch {}: {named} and {}",
                        p.leader_epoch, p.leader
                    ));
                }
            }
        }
        self.history.push(Arc::new(next));
    }

    pub(super) fn partition(image: &MetadataImage, index: usize) -> &PartitionImage {
        let topic = image.topics().by_name(TOPIC).expect("the topic");
        topic.partitions.get(&(index as i32)).expect("the partition")
    }
}

/// A registration for incarnation `incarnation` of broker `id`: the test kit's, its incarnation
/// id varied by `incarnation` in the first four bytes.
pub(super) fn registration(id: i32, incarnation: u32) -> BrokerRegistrationRequest {
    let mut request = strand_metadata::testkit::registration(id);
    request.incarnation_id.0[..4].copy_from_slice(&incarnation.to_be_bytes());
    request
}
