//! Helpers for the replication decisions' tests (`controller_*.rs`): a cluster of brokers in
//! racks, topics with fixed assignments, and each decision applied to the image in memory.

#![allow(dead_code)]

use strand_base::{BrokerId, Uuid};
use strand_metadata::controller::{
    ApiMessageAndVersion, ControllerDefaults, HeartbeatInputs, InitialFencing, broker_heartbeat, create_topics,
    fence_broker,
};
use strand_metadata::image::{ConfigResourceKind, PartitionImage};
use strand_protocol::messages::create_topics_request::CreatableReplicaAssignment;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{
    BrokerHeartbeatRequest, BrokerHeartbeatResponse, ConfigRecord, CreateTopicsRequest, PartitionChangeRecord,
};

use strand_metadata::testkit::{register, registration};

use crate::common::{Cluster, topic};

/// Inputs under which a controlled shutdown may finish: no other active broker lags.
pub const CAUGHT_UP: HeartbeatInputs =
    HeartbeatInputs { controlled_shutdown_offset: None, active_metadata_offset_min: i64::MAX };

/// Brokers `ids`, registered unfenced, in the racks `racks` gives (`None` for no rack).
pub fn cluster_in_racks(ids: &[i32], racks: impl Fn(i32) -> Option<&'static str>) -> Cluster {
    let mut cluster = Cluster::new();
    for id in ids {
        register_in_rack(&mut cluster, *id, racks(*id), InitialFencing::Unfenced);
    }
    cluster
}

/// Registers a new incarnation of broker `id` (incarnation byte `incarnation`) in `rack`.
pub fn register_in_rack(cluster: &mut Cluster, id: i32, rack: Option<&str>, fencing: InitialFencing) -> i64 {
    register_incarnation(cluster, id, rack, fencing, 0)
}

/// Registers broker `id` with an incarnation id varied by `incarnation`: a new one replaces the
/// previous incarnation. Returns the broker epoch.
pub fn register_incarnation(
    cluster: &mut Cluster,
    id: i32,
    rack: Option<&str>,
    fencing: InitialFencing,
    incarnation: u8,
) -> i64 {
    let mut request = registration(id);
    request.rack = rack.map(str::to_owned);
    request.incarnation_id.0[0] = incarnation;
    let result = register(&cluster.image, &request, fencing);
    cluster.apply(&result.records);
    result.response.broker_epoch
}

/// Creates topic `name` with one partition per assignment, which must succeed.
pub fn create_assigned(cluster: &mut Cluster, name: &str, assignments: &[&[i32]]) -> Uuid {
    let mut creatable = topic(name, -1, -1);
    creatable.assignments = (0..)
        .zip(assignments)
        .map(|(index, brokers)| CreatableReplicaAssignment {
            partition_index: index,
            broker_ids: brokers.iter().copied().map(BrokerId).collect(),
            ..Default::default()
        })
        .collect();
    let request = CreateTopicsRequest { topics: vec![creatable], ..Default::default() };
    let image = cluster.image.clone();
    let result = create_topics(&image, &request, &ControllerDefaults::default(), &mut cluster.topic_ids());
    let created = &result.response.topics[0];
    assert_eq!(created.error_code, 0, "creating {name}: {:?}", created.error_message);
    cluster.apply(&result.records);
    created.topic_id
}

pub fn partition(cluster: &Cluster, name: &str, index: i32) -> PartitionImage {
    cluster.image.topics().by_name(name).and_then(|t| t.partitions.get(&index)).cloned().expect("partition exists")
}

/// Leader and ISR of a partition, as plain ids.
pub fn leader_and_isr(cluster: &Cluster, name: &str, index: i32) -> (i32, Vec<i32>) {
    let p = partition(cluster, name, index);
    (p.leader.0, p.isr.iter().map(|b| b.0).collect())
}

pub fn epoch(cluster: &Cluster, id: i32) -> i64 {
    cluster.image.cluster().broker(BrokerId(id)).expect("registered").epoch
}

pub fn ids(ids: &[i32]) -> Vec<BrokerId> {
    ids.iter().copied().map(BrokerId).collect()
}

/// Fences broker `id` (session expired) and applies the records.
pub fn fence(cluster: &mut Cluster, id: i32) -> Vec<ApiMessageAndVersion> {
    let records = fence_broker(&cluster.image, BrokerId(id), &ControllerDefaults::default());
    cluster.apply(&records);
    records
}

/// A heartbeat from broker `id` at its registered epoch.
pub fn heartbeat_request(
    cluster: &Cluster,
    id: i32,
    offset: i64,
    want_fence: bool,
    want_shut_down: bool,
) -> BrokerHeartbeatRequest {
    BrokerHeartbeatRequest {
        broker_id: BrokerId(id),
        broker_epoch: epoch(cluster, id),
        current_metadata_offset: offset,
        want_fence,
        want_shut_down,
        ..Default::default()
    }
}

/// A heartbeat from broker `id` (see [`heartbeat_request`]), decided and applied.
pub fn heartbeat(
    cluster: &mut Cluster,
    id: i32,
    offset: i64,
    want_fence: bool,
    want_shut_down: bool,
    inputs: &HeartbeatInputs,
) -> (BrokerHeartbeatResponse, Vec<ApiMessageAndVersion>) {
    let request = heartbeat_request(cluster, id, offset, want_fence, want_shut_down);
    apply_heartbeat(cluster, &request, inputs)
}

/// Decides a heartbeat, applies its records, and returns the response and the records.
pub fn apply_heartbeat(
    cluster: &mut Cluster,
    request: &BrokerHeartbeatRequest,
    inputs: &HeartbeatInputs,
) -> (BrokerHeartbeatResponse, Vec<ApiMessageAndVersion>) {
    let result = broker_heartbeat(&cluster.image, request, inputs, &ControllerDefaults::default());
    cluster.apply(&result.records);
    (result.response, result.records)
}

/// A caught-up heartbeat from broker `id` that wants nothing: unfences it if it was fenced.
pub fn rejoin(cluster: &mut Cluster, id: i32) -> BrokerHeartbeatResponse {
    let offset = cluster.image.provenance().offset;
    heartbeat(cluster, id, offset, false, false, &CAUGHT_UP).0
}

/// Sets `unclean.leader.election.enable` on topic `name`, or cluster-wide with `None`.
pub fn set_unclean(cluster: &mut Cluster, name: Option<&str>, value: Option<&str>) {
    let (kind, resource_name) = match name {
        Some(name) => (ConfigResourceKind::Topic, name.to_owned()),
        None => (ConfigResourceKind::Broker, String::new()),
    };
    let record = ConfigRecord {
        resource_type: kind.wire(),
        resource_name,
        name: "unclean.leader.election.enable".to_owned(),
        value: value.map(str::to_owned),
        ..Default::default()
    };
    cluster.apply(&[ApiMessageAndVersion::latest(MetadataRecord::ConfigRecord(record))]);
}

/// The partition changes among `records`.
pub fn partition_changes(records: &[ApiMessageAndVersion]) -> Vec<&PartitionChangeRecord> {
    records
        .iter()
        .filter_map(|r| match &r.record {
            MetadataRecord::PartitionChangeRecord(change) => Some(change),
            _ => None,
        })
        .collect()
}

/// The kinds of `records`, in order, by their schema names.
pub fn kinds(records: &[ApiMessageAndVersion]) -> Vec<&'static str> {
    records
        .iter()
        .map(|r| match &r.record {
            MetadataRecord::PartitionChangeRecord(_) => "PartitionChange",
            MetadataRecord::BrokerRegistrationChangeRecord(_) => "BrokerRegistrationChange",
            MetadataRecord::RegisterBrokerRecord(_) => "RegisterBroker",
            MetadataRecord::UnregisterBrokerRecord(_) => "UnregisterBroker",
            _ => "other",
        })
        .collect()
}
