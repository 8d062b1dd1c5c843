//! The active controller's part of a static quorum's `kraft.version` upgrade (KIP-853,
//! KAFKA-16538), through `QuorumController::handle_forwarded` as a broker or the CONTROLLER
//! listener hands requests on, over an in-memory log whose quorum is a stand-in that records what
//! it is asked: the quorum's refusal is the answer (nothing written); an allowed upgrade is made
//! in the quorum before the `FeatureLevelRecord` commits, never for a dry run; a quorum already at
//! 1 (a leader that failed between the two) gets the record only; UpdateRaftVoter on a static
//! quorum becomes the voter's report, after Kafka's checks of the request.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::BytesMut;
use common::Cluster;
use strand_base::{SystemClock, Uuid};
use strand_metadata::controller::{ApiMessageAndVersion, ControllerDefaults};
use strand_metadata::image::MetadataImage;
use strand_metadata::quorum::{NewVoter, QuorumError, VoterChangeError};
use strand_metadata::quorum_controller::{
    BoxFuture, ControllerLog, ControllerSettings, KraftVersionUpgrade, QuorumController,
};
use strand_metadata::testkit::{CLUSTER_ID, committed};
use strand_protocol::codec::Message;
use strand_protocol::messages::api::Request;
use strand_protocol::messages::update_features_request::FeatureUpdateKey;
use strand_protocol::messages::update_raft_voter_request::{KRaftVersionFeature, Listener};
use strand_protocol::messages::{UpdateFeaturesRequest, UpdateRaftVoterRequest};
use tokio::sync::watch;

const FAILED: &str = "The update failed for all features since the following feature had an error: ";
const NOT_ALL_SUPPORT: &str =
    "Invalid upgrade of kraft.version to KRAFT_VERSION_1 because not all of the voters support it";

/// The quorum's side, as the controller sees it: its level, what it answers, what it was asked.
struct StandInQuorum {
    level: Mutex<i16>,
    refusal: Option<&'static str>,
    upgrade_fails: Option<&'static str>,
    /// What it was asked, in order; an upgrade with the image's kraft.version level then.
    asked: Mutex<Vec<String>>,
    images: watch::Receiver<Arc<MetadataImage>>,
}

impl KraftVersionUpgrade for StandInQuorum {
    fn kraft_version(&self) -> i16 {
        *self.level.lock().expect("lock")
    }

    fn kraft_upgrade_refusal(&self, level: i16) -> Option<String> {
        (level > self.kraft_version()).then_some(self.refusal).flatten().map(str::to_owned)
    }

    fn upgrade_kraft_version(&self, level: i16, _timeout: Duration) -> BoxFuture<'_, Result<(), String>> {
        let image_level = self.images.borrow().features().level("kraft.version");
        self.asked.lock().expect("lock").push(format!("upgrade to {level} with the image at {image_level}"));
        if let Some(reason) = self.upgrade_fails {
            return Box::pin(std::future::ready(Err(reason.to_owned())));
        }
        *self.level.lock().expect("lock") = level;
        Box::pin(std::future::ready(Ok(())))
    }

    fn report_voter(&self, voter: NewVoter, kraft_versions: (i16, i16)) -> Result<(), VoterChangeError> {
        let report = format!("voter {} {} {:?} {kraft_versions:?}", voter.id, voter.directory_id, voter.listeners);
        self.asked.lock().expect("lock").push(report);
        Ok(())
    }
}

/// A metadata log in memory that commits and replays every append at once, over the stand-in.
struct MemoryLog {
    images: Mutex<watch::Sender<Arc<MetadataImage>>>,
    quorum: StandInQuorum,
}

impl ControllerLog for MemoryLog {
    fn append(&self, records: Vec<ApiMessageAndVersion>) -> BoxFuture<'_, Result<i64, QuorumError>> {
        Box::pin(async move {
            let images = self.images.lock().expect("image lock");
            let next = committed(&images.borrow(), &records);
            let offset = next.provenance().offset;
            images.send_replace(Arc::new(next));
            Ok(offset)
        })
    }

    fn leader_caught_up(&self, _timeout: Duration) -> BoxFuture<'_, Result<i64, QuorumError>> {
        Box::pin(async move { Ok(self.next_offset()) })
    }

    fn is_leader(&self) -> bool {
        true
    }

    fn leader_epoch(&self) -> i32 {
        1
    }

    fn next_offset(&self) -> i64 {
        self.images.lock().expect("image lock").borrow().provenance().offset + 1
    }

    fn kraft(&self) -> Option<&dyn KraftVersionUpgrade> {
        Some(&self.quorum)
    }
}

/// The active controller of a one-broker static cluster over a stand-in quorum at `level`.
fn controller(
    level: i16,
    refusal: Option<&'static str>,
    upgrade_fails: Option<&'static str>,
) -> (QuorumController, Arc<MemoryLog>) {
    let (images, receiver) = watch::channel(Arc::new(Cluster::with_brokers(&[1]).image));
    let quorum = StandInQuorum {
        level: Mutex::new(level),
        refusal,
        upgrade_fails,
        asked: Mutex::default(),
        images: receiver.clone(),
    };
    let log = Arc::new(MemoryLog { images: Mutex::new(images), quorum });
    let settings = ControllerSettings {
        cluster_id: CLUSTER_ID.to_owned(),
        defaults: ControllerDefaults::default(),
        session_timeout_ms: 9_000,
        bootstrap: Vec::new(),
        unfence_on_registration: true,
        node_id: 1,
        voters: vec![1],
    };
    let new_topic_id = Box::new(|| Uuid([1; 16]));
    let controller = QuorumController::new(log.clone(), receiver, Arc::new(SystemClock), settings, new_topic_id);
    (controller, log)
}

/// Sends `request` as a broker forwards it.
async fn forward<R: Request>(controller: &QuorumController, request: &R, version: i16) -> R::Response {
    let mut body = BytesMut::new();
    request.encode(&mut body, version).expect("encode");
    let (answer, _) = controller.handle_forwarded(R::KEY, version, body.freeze(), None).await.expect("answered");
    <R::Response as Message>::decode_exact(answer, version).expect("decode")
}

/// UpdateFeatures (v2) raising kraft.version to 1, with group.version 0 in the same request.
async fn upgrade(controller: &QuorumController, validate_only: bool) -> (i16, Option<String>) {
    let update = |feature: &str, max_version_level, upgrade_type| FeatureUpdateKey {
        feature: feature.to_owned(),
        max_version_level,
        upgrade_type,
        ..Default::default()
    };
    let updates = vec![update("kraft.version", 1, 1), update("group.version", 0, 2)];
    let request = UpdateFeaturesRequest { feature_updates: updates, validate_only, ..Default::default() };
    let response = forward(controller, &request, 2).await;
    (response.error_code, response.error_message)
}

fn levels(log: &MemoryLog) -> (i16, i16) {
    let image = log.images.lock().expect("lock").borrow().clone();
    (image.features().level("kraft.version"), image.features().level("group.version"))
}

fn asked(log: &MemoryLog) -> Vec<String> {
    log.quorum.asked.lock().expect("lock").clone()
}

/// The quorum's refusal is the whole request's answer, in Kafka's words, dry run or not, and
/// nothing is written or asked of the quorum.
#[tokio::test]
async fn the_quorums_refusal_is_the_answer() {
    let (controller, log) = controller(0, Some(NOT_ALL_SUPPORT), None);
    for validate_only in [true, false] {
        let answer = upgrade(&controller, validate_only).await;
        assert_eq!(answer, (95, Some(format!("{FAILED}{NOT_ALL_SUPPORT}"))));
    }
    assert_eq!(levels(&log), (0, 1));
    assert!(asked(&log).is_empty());
}

/// An allowed upgrade: the quorum first, with the image still at 0, then the records; a dry run
/// touches neither; a quorum that fails to upgrade fails the request, and nothing is written.
#[tokio::test]
async fn the_quorum_is_upgraded_before_the_record_commits() {
    let (upgrading, log) = controller(0, None, None);
    assert_eq!(upgrade(&upgrading, true).await, (0, None));
    assert!(asked(&log).is_empty(), "a dry run changes nothing");
    assert_eq!(upgrade(&upgrading, false).await, (0, None));
    assert_eq!(asked(&log), ["upgrade to 1 with the image at 0"]);
    assert_eq!(levels(&log), (1, 0));
    assert_eq!(upgrade(&upgrading, false).await, (0, None), "again: nothing to do");
    assert_eq!(asked(&log).len(), 1);

    let (failing, log) = controller(0, None, Some("Request timed out waiting for voters to commit"));
    let answer = upgrade(&failing, false).await;
    assert_eq!(answer, (95, Some(format!("{FAILED}Request timed out waiting for voters to commit"))));
    assert_eq!(levels(&log), (0, 1));
}

/// A quorum at 1 whose image says 0 (its leader failed between the two writes): the request
/// writes the record, and the quorum is not asked again.
#[tokio::test]
async fn a_quorum_already_upgraded_gets_its_record() {
    let (controller, log) = controller(1, Some(NOT_ALL_SUPPORT), None);
    assert_eq!(upgrade(&controller, false).await, (0, None));
    assert_eq!(levels(&log), (1, 0));
    assert!(asked(&log).is_empty());
}

/// UpdateRaftVoter on a static quorum: the voter's report, with its supported range, answered
/// NONE; another cluster's or one without listeners is refused first, as Kafka refuses them.
#[tokio::test]
async fn update_raft_voter_reports_a_static_voter() {
    let (controller, log) = controller(0, None, None);
    let listener = Listener { name: "CONTROLLER".into(), host: "h".into(), port: 9093, ..Default::default() };
    let request = |cluster_id: &str, listeners: Vec<Listener>| UpdateRaftVoterRequest {
        cluster_id: Some(cluster_id.to_owned()),
        current_leader_epoch: 1,
        voter_id: 2,
        voter_directory_id: Uuid([2; 16]),
        listeners,
        kraft_version_feature: KRaftVersionFeature {
            min_supported_version: 0,
            max_supported_version: 1,
            ..Default::default()
        },
        ..Default::default()
    };
    assert_eq!(forward(&controller, &request("another", vec![listener.clone()]), 0).await.error_code, 104);
    assert_eq!(forward(&controller, &request(CLUSTER_ID, Vec::new()), 0).await.error_code, 42);
    assert!(asked(&log).is_empty());
    assert_eq!(forward(&controller, &request(CLUSTER_ID, vec![listener]), 0).await.error_code, 0);
    let report = format!("voter 2 {} [(\"CONTROLLER\", \"h\", 9093)] (0, 1)", Uuid([2; 16]));
    assert_eq!(asked(&log), [report]);
}
