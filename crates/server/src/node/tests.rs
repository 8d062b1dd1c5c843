//! Heartbeats' report of offline dirs and the dir assigner, against a recording controller.

use std::collections::BTreeMap;

use bytes::Bytes;
use strand_broker::BoxFuture;
use strand_protocol::codec::Struct;
use strand_protocol::messages::BrokerHeartbeatResponse;
use strand_protocol::messages::api::ApiKey;

use strand_metadata::image::{MetadataDelta, MetadataProvenance};

use super::*;
use strand_base::TopicPartition;
use strand_protocol::codec::Message;
use strand_protocol::messages::BrokerHeartbeatRequest;

/// A controller that answers every heartbeat "unfenced" and passes the requests on.
#[derive(Debug)]
struct RecordingController(mpsc::UnboundedSender<BrokerHeartbeatRequest>);

impl ControllerChannel for RecordingController {
    fn call(
        &self,
        api: ApiKey,
        version: i16,
        body: Bytes,
        _: Option<strand_metadata::controller::authorization::Requester>,
    ) -> BoxFuture<'_, Result<(Bytes, i64), String>> {
        Box::pin(async move {
            assert_eq!(api, ApiKey::BrokerHeartbeat);
            let request = BrokerHeartbeatRequest::decode_exact(body, version).map_err(|e| e.to_string())?;
            let _ = self.0.send(request);
            let mut out = bytes::BytesMut::new();
            let response = BrokerHeartbeatResponse { is_caught_up: true, is_fenced: false, ..Default::default() };
            response.encode(&mut out, version).map_err(|e| e.to_string())?;
            Ok((out.freeze(), 0))
        })
    }
}

/// A log dir going offline is reported in a heartbeat at once (Kafka's
/// `propagateDirectoryFailure`), not a heartbeat interval later, and in every later one.
#[tokio::test(start_paused = true)]
async fn heartbeats_report_offline_dirs_at_once() {
    let (requests_tx, mut requests) = mpsc::unbounded_channel();
    let channel: Arc<dyn ControllerChannel> = Arc::new(RecordingController(requests_tx));
    let (_images, image) = watch::channel(Arc::new(MetadataImage::empty()));
    let (offline_tx, offline_rx) = watch::channel(Vec::new());
    let interval = Duration::from_secs(3600);
    let beat = heartbeat_forever(channel, image, offline_rx, BrokerId(1), 7, interval);
    let task = tokio::spawn(beat);
    let first = requests.recv().await.expect("first heartbeat");
    assert!(first.offline_log_dirs.is_empty());
    let failed = Uuid([0x42; 16]);
    let before = tokio::time::Instant::now();
    offline_tx.send_replace(vec![failed]);
    let next = requests.recv().await.expect("heartbeat after the failure");
    assert_eq!(next.offline_log_dirs, [failed]);
    assert!(before.elapsed() < interval, "reported after {:?}", before.elapsed());
    let later = requests.recv().await.expect("a later heartbeat");
    assert_eq!(later.offline_log_dirs, [failed]);
    task.abort();
}

/// Broker 1 with dirs A and B: its replica the image leaves `UNASSIGNED` is placed in the
/// dir its log is in, and so is one the image places in A whose log moved to B; one already in
/// A, another broker's, and one not hosted yet are not.
#[test]
fn assignments_name_the_dir_of_each_unplaced_hosted_replica() {
    use strand_metadata::image::DIRECTORY_UNASSIGNED;
    use strand_protocol::messages::records::MetadataRecord;
    use strand_protocol::messages::{PartitionRecord, RegisterBrokerRecord, TopicRecord};
    let (a, b) = (Uuid([0xaa; 16]), Uuid([0xbb; 16]));
    let topic_id = Uuid([0x11; 16]);
    let partition = |index: i32, broker: i32, dir: Uuid| {
        MetadataRecord::PartitionRecord(PartitionRecord {
            partition_id: index,
            topic_id,
            replicas: vec![BrokerId(broker)],
            isr: vec![broker],
            leader: BrokerId(broker),
            directories: vec![dir],
            ..Default::default()
        })
    };
    let records = [
        MetadataRecord::RegisterBrokerRecord(RegisterBrokerRecord {
            broker_id: BrokerId(1),
            broker_epoch: 5,
            log_dirs: vec![a, b],
            ..Default::default()
        }),
        MetadataRecord::TopicRecord(TopicRecord { name: "t".into(), topic_id, ..Default::default() }),
        partition(0, 1, DIRECTORY_UNASSIGNED),
        partition(1, 1, a),
        partition(2, 2, DIRECTORY_UNASSIGNED),
        partition(3, 1, DIRECTORY_UNASSIGNED),
        partition(4, 1, a),
    ];
    let empty = MetadataImage::empty();
    let mut delta = MetadataDelta::new(&empty);
    for record in &records {
        delta.replay(record).expect("replay");
    }
    let image = delta.apply(MetadataProvenance { offset: 6, epoch: 1 });
    let (requests_tx, _requests) = mpsc::unbounded_channel();
    let assigner = DirAssigner {
        channel: Arc::new(RecordingController(requests_tx)),
        node: BrokerId(1),
        broker_epoch: 5,
        dirs: vec![("/data/a".into(), a), ("/data/b".into(), b)],
    };
    let located = BTreeMap::from([
        (TopicPartition::new("t", 0), std::path::PathBuf::from("/data/b")),
        (TopicPartition::new("t", 1), std::path::PathBuf::from("/data/a")),
        (TopicPartition::new("t", 4), std::path::PathBuf::from("/data/b")),
    ]);
    let unplaced = assigner.unplaced(&image, &located);
    let names: Vec<String> = unplaced.iter().map(|(_, tp)| tp.to_string()).collect();
    assert_eq!(names, ["t-0", "t-3", "t-4"], "t-4 moved from a to b (AlterReplicaLogDirs)");
    let request = assigner.request(&unplaced, &located).expect("a request");
    assert_eq!((request.broker_id, request.broker_epoch), (BrokerId(1), 5));
    let placed: Vec<(Uuid, Uuid, Vec<i32>)> = request
        .directories
        .iter()
        .flat_map(|d| {
            d.topics.iter().map(|t| (d.id, t.topic_id, t.partitions.iter().map(|p| p.partition_index).collect()))
        })
        .collect();
    assert_eq!(placed, [(b, topic_id, vec![0, 4])], "t-3 has no log yet");
    assert!(assigner.request(&unplaced[1..2], &located).is_none());
}
