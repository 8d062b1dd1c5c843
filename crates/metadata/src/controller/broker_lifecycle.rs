//! What fencing, unfencing and controlled shutdown do to a broker's registration and to the
//! partitions it hosts, as Kafka's `ReplicationControlManager.handleBrokerFenced`,
//! `handleBrokerUnfenced` and `handleBrokerInControlledShutdown`.
//!
//! - [`fence_broker`]: the broker leaves every ISR (unless it is the last member, which stays so
//!   the ISR is never empty, with eligible leader replicas off; with them on it leaves, and
//!   stays in the partition's ELR), its leaderships move to the first active ISR member in replica order
//!   (or to nobody, or with `unclean.leader.election.enable` to any active replica), then the
//!   `BrokerRegistrationChangeRecord` that fences it. The caller calls it when the broker's
//!   session expires (`broker.session.timeout.ms`); heartbeats call it too.
//! - [`unfence_broker`]: the record that unfences it, then leaders for the partitions that have
//!   none (the broker counts as active for them, as it will be once the record is replayed).
//! - controlled shutdown: the record that marks the broker as shutting down, then the same ISR and
//!   leader moves as fencing, so the broker ends up leading nothing.
//! - [`offline_dir_records`]: log directories a broker reports offline in its heartbeat (KIP-858,
//!   Kafka's `handleDirectoriesOffline`): the same ISR and leader moves as fencing, for the
//!   partitions whose replica on that broker is in one of those directories, then the
//!   `BrokerRegistrationChangeRecord` that leaves the broker its remaining online directories.
//!
//! - [`unregister_broker`]: UnregisterBroker (KIP-631, decommissioning): the same ISR and leader
//!   moves as fencing, then the `UnregisterBrokerRecord` (Kafka's `handleBrokerUnregistered`).
//!
//! What it is not: no session tracking (see [`BrokerHeartbeatTracker`](super::BrokerHeartbeatTracker)). A replica whose directory is `UNASSIGNED` (on a broker with several log
//! dirs, until its AssignReplicasToDirs, [`super::assign_replicas_to_dirs`]) is in no directory.

use strand_base::{BrokerId, Uuid};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{
    BrokerRegistrationChangeRecord, UnregisterBrokerRecord, UnregisterBrokerRequest, UnregisterBrokerResponse,
};

use super::partition_change::{Election, ElrRules, PartitionChange, acceptable_leader, elr_enabled};
use super::{ApiMessageAndVersion, ControllerDefaults, ControllerResult};
use crate::image::{FencingChange, MetadataImage, NO_LEADER, PartitionImage, TopicImage};

/// The records that fence `broker` after its session expired: a `PartitionChangeRecord` per
/// partition whose ISR it is in (it leaves the ISR unless it is the last member; a partition it
/// led gets a new leader or none), then a `BrokerRegistrationChangeRecord` with `fenced = 1`.
///
/// Nothing for an unregistered or already fenced broker. `defaults` supplies the static
/// `unclean.leader.election.enable` (topic and dynamic cluster values come from the image).
pub fn fence_broker(
    image: &MetadataImage,
    broker: BrokerId,
    defaults: &ControllerDefaults,
) -> Vec<ApiMessageAndVersion> {
    let Some(registration) = image.cluster().broker(broker) else { return Vec::new() };
    if registration.fenced {
        return Vec::new();
    }
    let mut records = leave_isrs(image, broker, defaults);
    records.push(registration_change(broker, registration.epoch, FencingChange::Fence, false));
    records
}

/// UnregisterBroker: `broker` leaves every ISR (unless it is the last member) and every
/// leadership, as when fenced, then an `UnregisterBrokerRecord` at its current epoch removes its
/// registration. A broker that is not registered gets BROKER_ID_NOT_REGISTERED, with Kafka's
/// message. A live broker re-registers, as in Kafka.
pub fn unregister_broker(
    image: &MetadataImage,
    request: &UnregisterBrokerRequest,
    defaults: &ControllerDefaults,
) -> ControllerResult<UnregisterBrokerResponse> {
    let broker = request.broker_id;
    let Some(registration) = image.cluster().broker(broker) else {
        let response = UnregisterBrokerResponse {
            error_code: ErrorCode::BrokerIdNotRegistered.code(),
            error_message: Some(format!("Broker ID {} is not currently registered", broker.0)),
            ..Default::default()
        };
        return ControllerResult { records: Vec::new(), response };
    };
    let mut records = leave_isrs(image, broker, defaults);
    let unregister =
        UnregisterBrokerRecord { broker_id: broker, broker_epoch: registration.epoch, ..Default::default() };
    records.push(ApiMessageAndVersion::latest(MetadataRecord::UnregisterBrokerRecord(unregister)));
    ControllerResult { records, response: UnregisterBrokerResponse::default() }
}

/// The records that unfence `broker`: a `BrokerRegistrationChangeRecord` with `fenced = -1`,
/// then a leader for every partition without one, elected as if `broker` were already active
/// (Kafka's `handleBrokerUnfenced`). Nothing for an unregistered or unfenced broker.
///
/// Heartbeats call this once the broker has caught up with its registration
/// ([`broker_heartbeat`](super::broker_heartbeat)).
pub fn unfence_broker(
    image: &MetadataImage,
    broker: BrokerId,
    defaults: &ControllerDefaults,
) -> Vec<ApiMessageAndVersion> {
    let Some(registration) = image.cluster().broker(broker) else { return Vec::new() };
    if !registration.fenced {
        return Vec::new();
    }
    let mut records = vec![registration_change(broker, registration.epoch, FencingChange::Unfence, false)];
    // A broker still marked as shutting down is unfenced (as Kafka does) but never made a leader.
    let joining = !registration.in_controlled_shutdown;
    records
        .extend(leaderless_elections(image, defaults, &|b| (joining && b == broker) || image.cluster().is_active(b)));
    records
}

/// Leaders for the partitions that have none, among the ISR members `active` accepts (or, where
/// the topic allows unclean elections, any replica it accepts).
pub(crate) fn leaderless_elections(
    image: &MetadataImage,
    defaults: &ControllerDefaults,
    active: &dyn Fn(BrokerId) -> bool,
) -> Vec<ApiMessageAndVersion> {
    let mut records = Vec::new();
    for topic in image.topics().iter() {
        let election = Election::for_topic(image, &topic.name, defaults);
        let rules = ElrRules::for_topic(image, topic, defaults);
        for (index, partition) in topic.partitions.iter().filter(|(_, p)| p.leader == NO_LEADER) {
            let change = PartitionChange::new(partition, topic.id, *index, rules).election(election);
            records.extend(change.record(&|b| acceptable_leader(image, partition, b, active)).map(partition_record));
        }
    }
    records
}

/// The records that start `broker`'s controlled shutdown: a `BrokerRegistrationChangeRecord`
/// with `in_controlled_shutdown = 1` (unless it already is), then the ISR and leader moves of
/// [`fence_broker`], so it leads nothing.
pub(crate) fn controlled_shutdown_records(
    image: &MetadataImage,
    broker: BrokerId,
    defaults: &ControllerDefaults,
) -> Vec<ApiMessageAndVersion> {
    let Some(registration) = image.cluster().broker(broker) else { return Vec::new() };
    let mut records = Vec::new();
    if !registration.in_controlled_shutdown {
        records.push(registration_change(broker, registration.epoch, FencingChange::Unchanged, true));
    }
    records.extend(leave_isrs(image, broker, defaults));
    records
}

/// Whether `broker` leads any partition.
pub(crate) fn has_leaderships(image: &MetadataImage, broker: BrokerId) -> bool {
    image.topics().iter().any(|t| t.partitions.values().any(|p| p.leader == broker))
}

/// The records for `offline` directories reported by `broker` (Kafka's
/// `handleDirectoriesOffline`): nothing unless one of them is still among the broker's
/// registered directories; else every partition whose replica on `broker` sits in such a
/// directory loses `broker` from its ISR (unless it is the last member) and gets a leader other
/// than it, then a `BrokerRegistrationChangeRecord` lists the directories still online. When
/// none is (Kafka's broker halts then), the registration keeps its list, as an empty list
/// replays as no change in Kafka too.
pub fn offline_dir_records(
    image: &MetadataImage,
    broker: BrokerId,
    offline: &[Uuid],
    defaults: &ControllerDefaults,
) -> Vec<ApiMessageAndVersion> {
    let Some(registration) = image.cluster().broker(broker) else { return Vec::new() };
    let newly_offline: Vec<Uuid> = registration.log_dirs.iter().copied().filter(|d| offline.contains(d)).collect();
    if newly_offline.is_empty() {
        return Vec::new();
    }
    let in_offline_dir = |_: Uuid, _: i32, partition: &PartitionImage| {
        let index = partition.replicas.iter().position(|b| *b == broker);
        index.and_then(|i| partition.directories.get(i)).is_some_and(|d| newly_offline.contains(d))
    };
    let mut records = leave_isrs_where(image, broker, defaults, &in_offline_dir);
    let online: Vec<Uuid> = registration.log_dirs.iter().copied().filter(|d| !offline.contains(d)).collect();
    if !online.is_empty() {
        let record = BrokerRegistrationChangeRecord {
            broker_id: broker,
            broker_epoch: registration.epoch,
            log_dirs: online,
            ..BrokerRegistrationChangeRecord::default()
        };
        records.push(ApiMessageAndVersion::latest(MetadataRecord::BrokerRegistrationChangeRecord(record)));
    }
    records
}

/// Kafka's `generateLeaderAndIsrUpdates` with a broker to remove: every partition whose ISR
/// holds `broker` loses it (unless it is the last member), and gets a leader other than it.
pub(crate) fn leave_isrs(
    image: &MetadataImage,
    broker: BrokerId,
    defaults: &ControllerDefaults,
) -> Vec<ApiMessageAndVersion> {
    leave_isrs_where(image, broker, defaults, &|_, _, _| true)
}

/// [`leave_isrs`] for the partitions `selected` accepts (by topic id, index and image).
pub(crate) fn leave_isrs_where(
    image: &MetadataImage,
    broker: BrokerId,
    defaults: &ControllerDefaults,
    selected: &dyn Fn(Uuid, i32, &PartitionImage) -> bool,
) -> Vec<ApiMessageAndVersion> {
    let mut records = Vec::new();
    for topic in image.topics().iter() {
        let election = Election::for_topic(image, &topic.name, defaults);
        let rules = ElrRules::for_topic(image, topic, defaults);
        for (index, partition) in partitions_with_isr_member(topic, broker).filter(|(i, p)| selected(topic.id, *i, p)) {
            let change = PartitionChange::new(partition, topic.id, index, rules).isr_without(broker).election(election);
            let acceptable =
                |b: BrokerId| b != broker && acceptable_leader(image, partition, b, |b| image.cluster().is_active(b));
            records.extend(change.record(&acceptable).map(partition_record));
        }
    }
    records
}

/// Kafka's `handleBrokerShutdown` for a broker that registers again: with eligible leader
/// replicas on and a `previous_broker_epoch` that is not its last registration's (it did not shut
/// down cleanly, so its log may have lost unflushed records), it leaves every ISR and every ELR
/// and may not be elected; otherwise it leaves every ISR as when fenced ([`leave_isrs`]).
pub(crate) fn shutdown_records(
    image: &MetadataImage,
    broker: BrokerId,
    clean: bool,
    defaults: &ControllerDefaults,
) -> Vec<ApiMessageAndVersion> {
    if clean || !elr_enabled(image) {
        return leave_isrs(image, broker, defaults);
    }
    let mut records = Vec::new();
    for topic in image.topics().iter() {
        let election = Election::for_topic(image, &topic.name, defaults);
        let rules = ElrRules::for_topic(image, topic, defaults);
        let holding = topic.partitions.iter().filter(|(_, p)| p.isr.contains(&broker) || p.elr.contains(&broker));
        for (index, partition) in holding {
            let change = PartitionChange::new(partition, topic.id, *index, rules)
                .isr_without(broker)
                .unclean_shutdown(broker)
                .election(election);
            let acceptable =
                |b: BrokerId| b != broker && acceptable_leader(image, partition, b, |b| image.cluster().is_active(b));
            records.extend(change.record(&acceptable).map(partition_record));
        }
    }
    records
}

fn partitions_with_isr_member(topic: &TopicImage, broker: BrokerId) -> impl Iterator<Item = (i32, &PartitionImage)> {
    topic.partitions.iter().filter(move |(_, p)| p.isr.contains(&broker)).map(|(i, p)| (*i, p))
}

pub(crate) fn partition_record(record: strand_protocol::messages::PartitionChangeRecord) -> ApiMessageAndVersion {
    ApiMessageAndVersion::latest(MetadataRecord::PartitionChangeRecord(record))
}

fn registration_change(
    broker: BrokerId,
    epoch: i64,
    fencing: FencingChange,
    enter_controlled_shutdown: bool,
) -> ApiMessageAndVersion {
    let record = BrokerRegistrationChangeRecord {
        broker_id: broker,
        broker_epoch: epoch,
        fenced: fencing.wire(),
        in_controlled_shutdown: i8::from(enter_controlled_shutdown),
        ..BrokerRegistrationChangeRecord::default()
    };
    ApiMessageAndVersion::latest(MetadataRecord::BrokerRegistrationChangeRecord(record))
}
