//! Log directories a broker reports offline in BrokerHeartbeat (KIP-858), as Kafka's
//! `ReplicationControlManager.handleDirectoriesOffline`: the partitions whose replica on that
//! broker sits in a newly offline directory lose it from their ISR (unless it is the last member)
//! and get another leader; the registration keeps only the online directories; a directory
//! already offline or unknown writes nothing. Each case's records are replayed into the image and
//! checked there.

mod common;
mod controller_common;

use common::Cluster;
use controller_common::{
    CAUGHT_UP, apply_heartbeat, create_assigned, heartbeat_request, ids, kinds, leader_and_isr, partition,
};
use strand_base::{BrokerId, Uuid};
use strand_metadata::controller::{
    ApiMessageAndVersion, ControllerDefaults, InitialFencing, assign_replicas_to_dirs, offline_dir_records,
};
use strand_metadata::image::DIRECTORY_UNASSIGNED;
use strand_metadata::testkit::{CLUSTER_ID, committed, register, registration};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::AssignReplicasToDirsRequest;
use strand_protocol::messages::AssignReplicasToDirsResponse;
use strand_protocol::messages::assign_replicas_to_dirs_request::{DirectoryData, PartitionData, TopicData};
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{BrokerHeartbeatRequest, PartitionChangeRecord};

/// Directory `n` (0 or 1) of broker `id`.
fn dir(id: i32, n: u8) -> Uuid {
    let mut bytes = [0x44; 16];
    bytes[14] = u8::try_from(id).unwrap_or(0);
    bytes[15] = n;
    Uuid(bytes)
}

/// The partitions every case checks: `t`'s three, and `u`'s single-replica one.
const PARTITIONS: [(&str, i32); 4] = [("t", 0), ("t", 1), ("t", 2), ("u", 0)];

/// Brokers 1, 2 and 3, unfenced, each with directories 0 and 1; topic `t` whose partition i
/// prefers broker i+1 and topic `u` with one partition, only on broker 1. Every replica of broker 1
/// is placed in directory 0 except partition 1's (directory 1), as AssignReplicasToDirs would.
fn cluster() -> Cluster {
    let mut cluster = Cluster::new();
    for id in [1, 2, 3] {
        let mut request = registration(id);
        request.log_dirs = vec![dir(id, 0), dir(id, 1)];
        cluster.apply(&register(&cluster.image, &request, InitialFencing::Unfenced).records);
    }
    let t = create_assigned(&mut cluster, "t", &[&[1, 2, 3], &[2, 3, 1], &[3, 1, 2]]);
    let u = create_assigned(&mut cluster, "u", &[&[1]]);
    let placements: Vec<ApiMessageAndVersion> = PARTITIONS
        .iter()
        .map(|&(name, index)| {
            let replicas = controller_common::partition(&cluster, name, index).replicas;
            let in_dir_1 = |b: BrokerId| name == "t" && index == 1 && b.0 == 1;
            let directories = replicas.iter().map(|b| dir(b.0, u8::from(in_dir_1(*b)))).collect::<Vec<_>>();
            let topic_id = if name == "t" { t } else { u };
            let record = PartitionChangeRecord {
                topic_id,
                partition_id: index,
                directories: Some(directories),
                ..Default::default()
            };
            ApiMessageAndVersion::latest(MetadataRecord::PartitionChangeRecord(record))
        })
        .collect();
    cluster.apply(&placements);
    cluster
}

fn log_dirs(cluster: &Cluster, id: i32) -> Vec<Uuid> {
    cluster.image.cluster().broker(BrokerId(id)).expect("registered").log_dirs.clone()
}

fn leaders_and_isrs(cluster: &Cluster) -> Vec<(i32, Vec<i32>)> {
    PARTITIONS.iter().map(|&(name, index)| leader_and_isr(cluster, name, index)).collect()
}

struct Case {
    name: &'static str,
    /// Directories broker 1 reports offline.
    offline: Vec<Uuid>,
    /// Leader and ISR of [`PARTITIONS`] afterwards.
    expected: Vec<(i32, Vec<i32>)>,
    kinds: &'static [&'static str],
    /// Broker 1's registered directories afterwards.
    dirs_after: Vec<Uuid>,
}

/// Every case starts from [`cluster`]: broker 1 leads `t`-0 and `u`-0, follows `t`-1 and `t`-2.
fn cases() -> Vec<Case> {
    let untouched = vec![(1, vec![1, 2, 3]), (2, vec![2, 3, 1]), (3, vec![3, 1, 2]), (1, vec![1])];
    vec![
        Case {
            name: "directory 0: its partitions move, t-1 (directory 1) does not",
            offline: vec![dir(1, 0)],
            // `u`'s partition has no other replica: its ISR empties (broker 1 stays eligible, in
            // its ELR), without a leader.
            expected: vec![(2, vec![2, 3]), (2, vec![2, 3, 1]), (3, vec![3, 2]), (-1, vec![])],
            kinds: &["PartitionChange", "PartitionChange", "PartitionChange", "BrokerRegistrationChange"],
            dirs_after: vec![dir(1, 1)],
        },
        Case {
            name: "directory 1: only t-1, which broker 1 follows",
            offline: vec![dir(1, 1)],
            expected: vec![(1, vec![1, 2, 3]), (2, vec![2, 3]), (3, vec![3, 1, 2]), (1, vec![1])],
            kinds: &["PartitionChange", "BrokerRegistrationChange"],
            dirs_after: vec![dir(1, 0)],
        },
        Case {
            name: "both directories: every partition moves, the registration keeps its list",
            offline: vec![dir(1, 0), dir(1, 1)],
            expected: vec![(2, vec![2, 3]), (2, vec![2, 3]), (3, vec![3, 2]), (-1, vec![])],
            kinds: &["PartitionChange"; 4],
            dirs_after: vec![dir(1, 0), dir(1, 1)],
        },
        Case {
            name: "another broker's directory: nothing",
            offline: vec![dir(2, 0)],
            expected: untouched.clone(),
            kinds: &[],
            dirs_after: vec![dir(1, 0), dir(1, 1)],
        },
        Case {
            name: "no directory: nothing",
            offline: Vec::new(),
            expected: untouched,
            kinds: &[],
            dirs_after: vec![dir(1, 0), dir(1, 1)],
        },
    ]
}

fn offline_heartbeat(cluster: &Cluster, offline: Vec<Uuid>) -> BrokerHeartbeatRequest {
    let offset = cluster.image.provenance().offset;
    BrokerHeartbeatRequest { offline_log_dirs: offline, ..heartbeat_request(cluster, 1, offset, false, false) }
}

/// A heartbeat from broker 1 reporting `offline`, decided and applied.
fn report(
    cluster: &mut Cluster,
    offline: Vec<Uuid>,
    want_fence: bool,
) -> (strand_protocol::messages::BrokerHeartbeatResponse, Vec<ApiMessageAndVersion>) {
    let request = BrokerHeartbeatRequest { want_fence, ..offline_heartbeat(cluster, offline) };
    apply_heartbeat(cluster, &request, &CAUGHT_UP)
}

/// Each case through a heartbeat from broker 1: the records, the leaders and ISRs they leave,
/// and broker 1's directories; the same heartbeat again writes nothing (its partition changes
/// would be no-ops, and a directory no longer registered is not new).
#[test]
fn heartbeat_with_offline_dirs_moves_leaders_and_isrs() {
    for case in cases() {
        let mut cluster = cluster();
        let (response, records) = report(&mut cluster, case.offline.clone(), false);
        assert_eq!(response.error_code, 0, "{}", case.name);
        assert!(!response.is_fenced && !response.should_shut_down, "{}", case.name);
        assert_eq!(kinds(&records), case.kinds, "{}", case.name);
        assert_eq!(leaders_and_isrs(&cluster), case.expected, "{}", case.name);
        assert_eq!(log_dirs(&cluster, 1), case.dirs_after, "{}", case.name);
        let (_, again) = report(&mut cluster, case.offline.clone(), false);
        assert_eq!(kinds(&again), Vec::<&str>::new(), "{}: repeated", case.name);
    }
}

/// A new leader epoch only where the leader moved; an ISR shrink alone keeps it (Kafka's rule).
#[test]
fn leader_epochs_grow_only_where_leaders_move() {
    let mut cluster = cluster();
    let epochs = |cluster: &Cluster| -> Vec<i32> {
        PARTITIONS.iter().map(|&(name, i)| controller_common::partition(cluster, name, i).leader_epoch).collect()
    };
    let before = epochs(&cluster);
    report(&mut cluster, vec![dir(1, 0)], false);
    assert_eq!(epochs(&cluster), vec![before[0] + 1, before[1], before[2], before[3] + 1]);
}

/// A replica in an offline directory is not elected again (Kafka's `LeaderAcceptor` checks the
/// directory is online): broker 1 is fenced and unfenced, and `u`'s partition, whose only replica
/// is in its offline directory 0, stays leaderless although broker 1 is in its ELR.
#[test]
fn offline_replicas_are_not_elected() {
    let mut cluster = cluster();
    report(&mut cluster, vec![dir(1, 0)], false);
    report(&mut cluster, Vec::new(), true);
    let (response, _) = report(&mut cluster, Vec::new(), false);
    assert!(!response.is_fenced);
    assert_eq!(leader_and_isr(&cluster, "u", 0), (-1, vec![]), "its only replica's directory is offline");
    assert_eq!(partition(&cluster, "u", 0).elr, ids(&[1]));
}

/// A heartbeat that fences the broker and reports an offline directory: the fencing moves come
/// first and the directory's decisions are made on the image they leave, so no partition gets
/// two changes (two leader epochs) from one heartbeat.
#[test]
fn fencing_and_offline_dirs_in_one_heartbeat() {
    let mut cluster = cluster();
    let (response, records) = report(&mut cluster, vec![dir(1, 0)], true);
    assert!(response.is_fenced);
    let mut changed: Vec<i32> = controller_common::partition_changes(&records).iter().map(|c| c.partition_id).collect();
    let count = changed.len();
    changed.dedup();
    assert_eq!(changed.len(), count, "one change per partition: {records:?}");
    assert_eq!(
        kinds(&records),
        [
            "PartitionChange",
            "PartitionChange",
            "PartitionChange",
            "PartitionChange",
            "BrokerRegistrationChange",
            "BrokerRegistrationChange"
        ]
    );
    assert_eq!(log_dirs(&cluster, 1), vec![dir(1, 1)]);
    assert_eq!(leaders_and_isrs(&cluster)[0], (2, vec![2, 3]));
}

/// The function itself, for a broker that is not registered: nothing.
#[test]
fn unregistered_broker_writes_nothing() {
    let cluster = cluster();
    assert!(offline_dir_records(&cluster.image, BrokerId(9), &[dir(9, 0)], &ControllerDefaults::default()).is_empty());
}

/// AssignReplicasToDirs from broker 1, decided and applied.
fn assign_to(cluster: &mut Cluster, dir_id: Uuid, partitions: &[(Uuid, i32)]) -> AssignReplicasToDirsResponse {
    let topics = partitions
        .iter()
        .map(|&(topic_id, index)| TopicData {
            topic_id,
            partitions: vec![PartitionData { partition_index: index, ..Default::default() }],
            ..Default::default()
        })
        .collect();
    let request = AssignReplicasToDirsRequest {
        broker_id: BrokerId(1),
        broker_epoch: controller_common::epoch(cluster, 1),
        directories: vec![DirectoryData { id: dir_id, topics, ..Default::default() }],
        ..Default::default()
    };
    let result = assign_replicas_to_dirs(&cluster.image, &request, &ControllerDefaults::default());
    cluster.apply(&result.records);
    result.response
}

fn directory_of(cluster: &Cluster, name: &str, index: i32, broker: i32) -> Uuid {
    let p = controller_common::partition(cluster, name, index);
    let at = p.replicas.iter().position(|b| b.0 == broker).expect("a replica");
    p.directories[at]
}

/// Kafka's `handleAssignReplicasToDirs`: the directory is recorded per replica; unknown topics
/// and partitions, and partitions the broker does not replicate, are answered with their errors;
/// a stale broker epoch refuses the request. A broker with two dirs starts with its replicas
/// `UNASSIGNED`; once assigned, a heartbeat reporting a dir offline moves exactly those.
#[test]
fn assignments_place_replicas_so_an_offline_dir_names_them() {
    let mut cluster = Cluster::new();
    for id in [1, 2] {
        let mut request = registration(id);
        request.log_dirs = vec![dir(id, 0), dir(id, 1)];
        cluster.apply(&register(&cluster.image, &request, InitialFencing::Unfenced).records);
    }
    let t = create_assigned(&mut cluster, "t", &[&[1, 2], &[1, 2]]);
    let w = create_assigned(&mut cluster, "w", &[&[2]]);
    assert_eq!(directory_of(&cluster, "t", 0, 1), DIRECTORY_UNASSIGNED);

    let response = assign_to(&mut cluster, dir(1, 0), &[(t, 0), (t, 7), (Uuid([0x77; 16]), 0), (w, 0)]);
    let codes: Vec<i16> = response.directories[0].topics.iter().map(|t| t.partitions[0].error_code).collect();
    let expected = [
        ErrorCode::None,
        ErrorCode::UnknownTopicOrPartition,
        ErrorCode::UnknownTopicId,
        ErrorCode::NotLeaderOrFollower,
    ];
    assert_eq!(codes, expected.map(ErrorCode::code));
    assert_eq!(response.error_code, 0);
    assert_eq!(directory_of(&cluster, "t", 0, 1), dir(1, 0));
    assert_eq!(directory_of(&cluster, "t", 0, 2), DIRECTORY_UNASSIGNED, "broker 2's replica is its own business");
    assert_eq!(assign_to(&mut cluster, dir(1, 1), &[(t, 1)]).error_code, 0);

    let (_, records) = report(&mut cluster, vec![dir(1, 0)], false);
    assert_eq!(kinds(&records), ["PartitionChange", "BrokerRegistrationChange"]);
    assert_eq!(leader_and_isr(&cluster, "t", 0), (2, vec![2]));
    assert_eq!(leader_and_isr(&cluster, "t", 1), (1, vec![1, 2]));

    // A replica assigned to a dir already offline leaves its ISR and leadership at once.
    let response = assign_to(&mut cluster, dir(1, 0), &[(t, 1)]);
    assert_eq!(response.directories[0].topics[0].partitions[0].error_code, 0);
    assert_eq!(leader_and_isr(&cluster, "t", 1), (2, vec![2]));

    let stale = AssignReplicasToDirsRequest { broker_id: BrokerId(1), broker_epoch: -5, ..Default::default() };
    let refused = assign_replicas_to_dirs(&cluster.image, &stale, &ControllerDefaults::default());
    assert_eq!(refused.response.error_code, ErrorCode::StaleBrokerEpoch.code());
    assert!(refused.records.is_empty());
}

/// A metadata log in memory that commits and replays every append at once.
struct MemoryLog(std::sync::Mutex<tokio::sync::watch::Sender<std::sync::Arc<strand_metadata::image::MetadataImage>>>);

impl strand_metadata::quorum_controller::ControllerLog for MemoryLog {
    fn append(
        &self,
        records: Vec<ApiMessageAndVersion>,
    ) -> strand_metadata::quorum_controller::BoxFuture<'_, Result<i64, strand_metadata::quorum::QuorumError>> {
        Box::pin(async move {
            let images = self.0.lock().expect("image lock");
            let next = committed(&images.borrow(), &records);
            let offset = next.provenance().offset;
            images.send_replace(std::sync::Arc::new(next));
            Ok(offset)
        })
    }

    fn leader_caught_up(
        &self,
        _timeout: std::time::Duration,
    ) -> strand_metadata::quorum_controller::BoxFuture<'_, Result<i64, strand_metadata::quorum::QuorumError>> {
        Box::pin(async move { Ok(self.next_offset()) })
    }

    fn is_leader(&self) -> bool {
        true
    }

    fn leader_epoch(&self) -> i32 {
        1
    }

    fn next_offset(&self) -> i64 {
        self.0.lock().expect("image lock").borrow().provenance().offset + 1
    }
}

/// The bytes a broker sends: an AssignReplicasToDirs v0 and a BrokerHeartbeat v1 whose tagged
/// `OfflineLogDirs` names dir 1 of broker 1, through the active controller's
/// `handle_encoded`. The replica it placed there loses its leadership and ISR place.
#[tokio::test]
async fn the_active_controller_takes_both_requests_off_the_wire() {
    use strand_protocol::codec::{Message, Struct};
    use strand_protocol::messages::api::ApiKey;
    use strand_protocol::messages::{AssignReplicasToDirsResponse, BrokerHeartbeatResponse};

    // `cluster` placed broker 1's replica of t-1 in its dir 1; the request places it there again
    // (no record) and u-0 in dir 1 too (a record).
    let cluster = cluster();
    let t = cluster.image.topics().by_name("t").expect("t").id;
    let u = cluster.image.topics().by_name("u").expect("u").id;
    let epoch = controller_common::epoch(&cluster, 1);
    let (images, receiver) = tokio::sync::watch::channel(std::sync::Arc::new(cluster.image.clone()));
    let log = std::sync::Arc::new(MemoryLog(std::sync::Mutex::new(images)));
    let settings = strand_metadata::quorum_controller::ControllerSettings {
        cluster_id: CLUSTER_ID.to_owned(),
        defaults: ControllerDefaults::default(),
        session_timeout_ms: 9_000,
        bootstrap: Vec::new(),
        unfence_on_registration: false,
        node_id: 1,
        voters: Vec::new(),
    };
    let controller = strand_metadata::quorum_controller::QuorumController::new(
        log.clone(),
        receiver,
        std::sync::Arc::new(strand_base::SystemClock),
        settings,
        Box::new(|| Uuid([0x99; 16])),
    );
    let encode = |message: &dyn Fn(&mut bytes::BytesMut)| {
        let mut out = bytes::BytesMut::new();
        message(&mut out);
        out.freeze()
    };

    let partitions = |index: i32| vec![PartitionData { partition_index: index, ..Default::default() }];
    let assign = AssignReplicasToDirsRequest {
        broker_id: BrokerId(1),
        broker_epoch: epoch,
        directories: vec![DirectoryData {
            id: dir(1, 1),
            topics: vec![
                TopicData { topic_id: t, partitions: partitions(1), ..Default::default() },
                TopicData { topic_id: u, partitions: partitions(0), ..Default::default() },
            ],
            ..Default::default()
        }],
        ..Default::default()
    };
    let body = encode(&|out| assign.encode(out, 0).expect("encode"));
    let (answer, _) = controller.handle_encoded(ApiKey::AssignReplicasToDirs, 0, body).await.expect("handled");
    let answer = AssignReplicasToDirsResponse::decode_exact(answer, 0).expect("decode");
    assert_eq!(answer.error_code, 0);
    let codes: Vec<i16> = answer.directories[0].topics.iter().map(|t| t.partitions[0].error_code).collect();
    assert_eq!(codes, [0, 0]);

    let offset = log.0.lock().expect("image lock").borrow().provenance().offset;
    let heartbeat = BrokerHeartbeatRequest {
        broker_id: BrokerId(1),
        broker_epoch: epoch,
        current_metadata_offset: offset,
        offline_log_dirs: vec![dir(1, 1)],
        ..Default::default()
    };
    let body = encode(&|out| heartbeat.encode(out, 1).expect("encode"));
    let (answer, _) = controller.handle_encoded(ApiKey::BrokerHeartbeat, 1, body).await.expect("handled");
    let answer = BrokerHeartbeatResponse::decode_exact(answer, 1).expect("decode");
    assert_eq!(answer.error_code, 0);

    let image = log.0.lock().expect("image lock").borrow().clone();
    let leader_and_isr = |name: &str, index: i32| {
        let p = image.topics().by_name(name).and_then(|t| t.partitions.get(&index)).cloned().expect("partition");
        (p.leader.0, p.isr.iter().map(|b| b.0).collect::<Vec<_>>())
    };
    assert_eq!(leader_and_isr("t", 1), (2, vec![2, 3]), "broker 1's replica in dir 1 left the ISR");
    assert_eq!(leader_and_isr("u", 0), (-1, vec![]), "u-0, placed in dir 1, lost its only leader");
    assert_eq!(leader_and_isr("t", 0), (1, vec![1, 2, 3]), "t-0 is in dir 0");
    assert_eq!(image.cluster().broker(BrokerId(1)).expect("registered").log_dirs, [dir(1, 0)]);
}
