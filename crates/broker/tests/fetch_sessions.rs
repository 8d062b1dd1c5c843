//! Incremental fetch sessions (KIP-227) through `Broker::handle`: a session opens at epoch 0,
//! later fetches answer only what changed, forgotten partitions leave the session, unknown
//! sessions and wrong epochs are refused, epoch -1 closes, and a full cache answers sessionless.
//! Each scenario runs by topic name (v12) and by topic id (v16).

mod common;

use common::Node;
use strand_base::{TopicPartition, Uuid};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic, ForgottenTopic};
use strand_protocol::messages::{FetchRequest, FetchResponse};

const VERSIONS: [i16; 2] = [12, 16];
const TOPIC: &str = "sessions";

/// A node with topic `sessions` of three partitions; its topic id.
async fn node_with_topic(settings: strand_broker::BrokerSettings) -> (Node, Uuid) {
    let mut node = Node::with_settings(settings);
    let id = node.create_topic(TOPIC, 3).await;
    (node, id)
}

/// A fetch of `partitions` of the topic (from offset `offset`) in session `session_id` at
/// `epoch`, forgetting `forgotten`; it does not wait.
fn fetch(
    id: Uuid,
    version: i16,
    (session_id, session_epoch): (i32, i32),
    partitions: &[(i32, i64)],
    forgotten: &[i32],
) -> FetchRequest {
    let (topic, topic_id) = if version >= 13 { (String::new(), id) } else { (TOPIC.to_owned(), Uuid::ZERO) };
    let topics = (!partitions.is_empty())
        .then(|| FetchTopic {
            topic: topic.clone(),
            topic_id,
            partitions: partitions
                .iter()
                .map(|&(partition, fetch_offset)| FetchPartition {
                    partition,
                    fetch_offset,
                    partition_max_bytes: 1 << 20,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        })
        .into_iter()
        .collect();
    let forgotten_topics_data = (!forgotten.is_empty())
        .then(|| ForgottenTopic { topic, topic_id, partitions: forgotten.to_vec(), ..Default::default() })
        .into_iter()
        .collect();
    FetchRequest {
        max_wait_ms: 0,
        min_bytes: 1,
        max_bytes: 1 << 20,
        session_id,
        session_epoch,
        topics,
        forgotten_topics_data,
        ..Default::default()
    }
}

async fn call(node: &mut Node, request: FetchRequest, version: i16) -> FetchResponse {
    let ResponseBody::Fetch(response) = node.call(RequestBody::Fetch(request), version).await else {
        panic!("not a Fetch response");
    };
    response
}

/// The partitions answered, in order.
fn answered(response: &FetchResponse) -> Vec<i32> {
    response.responses.iter().flat_map(|t| &t.partitions).map(|p| p.partition_index).collect()
}

const ALL: [(i32, i64); 3] = [(0, 0), (1, 0), (2, 0)];

/// Epoch 0 opens a session (non-zero id, every partition answered); epoch 1 with nothing new
/// answers nothing; after an append only that partition; forgotten partitions are not read.
#[tokio::test]
async fn incremental_fetches_answer_what_changed() {
    for version in VERSIONS {
        let (mut node, id) = node_with_topic(common::settings()).await;
        let full = call(&mut node, fetch(id, version, (0, 0), &ALL, &[]), version).await;
        assert_eq!(full.error_code, 0, "v{version}");
        let session = full.session_id;
        assert!(session > 0, "v{version}: a session id, got {session}");
        assert_eq!(answered(&full), [0, 1, 2], "v{version}: the full fetch answers every partition");

        let quiet = call(&mut node, fetch(id, version, (session, 1), &[], &[]), version).await;
        assert_eq!((quiet.error_code, quiet.session_id), (0, session), "v{version}");
        assert_eq!(answered(&quiet), [0; 0], "v{version}: nothing changed");

        node.append(&TopicPartition::new(TOPIC, 1), 0);
        let changed = call(&mut node, fetch(id, version, (session, 2), &[], &[]), version).await;
        assert_eq!(answered(&changed), [1], "v{version}: only the appended partition");
        let data = &changed.responses[0].partitions[0];
        assert_eq!(data.high_watermark, 1, "v{version}");
        assert!(data.records.as_ref().is_some_and(|r| !r.is_empty()), "v{version}: its records");

        // The client moves past the record, and forgets partition 2; an append there is unseen.
        let moved = call(&mut node, fetch(id, version, (session, 3), &[(1, 1)], &[2]), version).await;
        assert_eq!(answered(&moved), [0; 0], "v{version}: a new offset with no new data answers nothing");
        node.append(&TopicPartition::new(TOPIC, 2), 0);
        let forgotten = call(&mut node, fetch(id, version, (session, 4), &[], &[]), version).await;
        assert_eq!(answered(&forgotten), [0; 0], "v{version}: partition 2 left the session");

        // Adding it back answers it, as a partition new to the session.
        let added = call(&mut node, fetch(id, version, (session, 5), &[(2, 0)], &[]), version).await;
        assert_eq!(answered(&added), [2], "v{version}");
    }
}

/// Forgetting every partition of a session closes it: answered sessionless, then unknown.
#[tokio::test]
async fn forgetting_every_partition_closes_the_session() {
    for version in VERSIONS {
        let (mut node, id) = node_with_topic(common::settings()).await;
        let session = call(&mut node, fetch(id, version, (0, 0), &ALL, &[]), version).await.session_id;
        let emptied = call(&mut node, fetch(id, version, (session, 1), &[], &[0, 1, 2]), version).await;
        assert_eq!((emptied.error_code, emptied.session_id, answered(&emptied)), (0, 0, vec![]), "v{version}");
        let after = call(&mut node, fetch(id, version, (session, 2), &[], &[]), version).await;
        assert_eq!(after.error_code, ErrorCode::FetchSessionIdNotFound.code(), "v{version}");
    }
}

/// An unknown session id is FETCH_SESSION_ID_NOT_FOUND and a wrong epoch
/// INVALID_FETCH_SESSION_EPOCH, both at the top level with no partitions and session id 0.
#[tokio::test]
async fn unknown_sessions_and_wrong_epochs_are_refused() {
    for version in VERSIONS {
        let (mut node, id) = node_with_topic(common::settings()).await;
        let session = call(&mut node, fetch(id, version, (0, 0), &ALL, &[]), version).await.session_id;
        let unknown = session.wrapping_add(1).max(1);
        for ((session_id, epoch), code) in [
            ((unknown, 1), ErrorCode::FetchSessionIdNotFound),
            ((0, 1), ErrorCode::FetchSessionIdNotFound),
            ((session, 2), ErrorCode::InvalidFetchSessionEpoch),
            ((session, 0x7fff), ErrorCode::InvalidFetchSessionEpoch),
        ] {
            let response = call(&mut node, fetch(id, version, (session_id, epoch), &[], &[]), version).await;
            assert_eq!(response.error_code, code.code(), "v{version}: session {session_id} at epoch {epoch}");
            assert_eq!((response.session_id, answered(&response)), (0, vec![]), "v{version}");
        }
        // A refused request leaves the session as it was.
        let ok = call(&mut node, fetch(id, version, (session, 1), &[], &[]), version).await;
        assert_eq!((ok.error_code, ok.session_id), (0, session), "v{version}");
    }
}

/// Epoch -1 with a session id closes it and answers sessionless (every partition, session 0);
/// the closed session is then unknown.
#[tokio::test]
async fn final_epoch_closes_the_session() {
    for version in VERSIONS {
        let (mut node, id) = node_with_topic(common::settings()).await;
        let session = call(&mut node, fetch(id, version, (0, 0), &ALL, &[]), version).await.session_id;
        let closing = call(&mut node, fetch(id, version, (session, -1), &ALL, &[]), version).await;
        assert_eq!((closing.error_code, closing.session_id), (0, 0), "v{version}");
        assert_eq!(answered(&closing), [0, 1, 2], "v{version}");
        let after = call(&mut node, fetch(id, version, (session, 1), &[], &[]), version).await;
        assert_eq!(after.error_code, ErrorCode::FetchSessionIdNotFound.code(), "v{version}");
        let sessionless = call(&mut node, fetch(id, version, (0, -1), &ALL, &[]), version).await;
        assert_eq!((sessionless.session_id, answered(&sessionless)), (0, vec![0, 1, 2]), "v{version}");
    }
}

/// With every slot taken by a young session, a new one is refused: the fetch is answered in full
/// with session id 0, and the existing session still works.
#[tokio::test]
async fn a_full_cache_answers_sessionless() {
    for version in VERSIONS {
        let settings = strand_broker::BrokerSettings { fetch_session_slots: 1, ..common::settings() };
        let (mut node, id) = node_with_topic(settings).await;
        let first = call(&mut node, fetch(id, version, (0, 0), &ALL, &[]), version).await.session_id;
        assert!(first > 0, "v{version}");
        let refused = call(&mut node, fetch(id, version, (0, 0), &ALL, &[]), version).await;
        assert_eq!((refused.error_code, refused.session_id), (0, 0), "v{version}");
        assert_eq!(answered(&refused), [0, 1, 2], "v{version}");
        let still = call(&mut node, fetch(id, version, (first, 1), &[], &[]), version).await;
        assert_eq!((still.error_code, still.session_id), (0, first), "v{version}");
    }
}

/// An incremental fetch with nothing new waits for an append, as any fetch short of `min_bytes`.
#[tokio::test]
async fn an_incremental_fetch_with_nothing_new_waits() {
    let version = 16;
    let (mut node, id) = node_with_topic(common::settings()).await;
    let session = call(&mut node, fetch(id, version, (0, 0), &ALL, &[]), version).await.session_id;
    let request = FetchRequest { max_wait_ms: 200, ..fetch(id, version, (session, 1), &[], &[]) };
    let started = tokio::time::Instant::now();
    let response = call(&mut node, request, version).await;
    assert!(started.elapsed() >= std::time::Duration::from_millis(200), "it waited out max_wait_ms");
    assert_eq!((response.error_code, answered(&response)), (0, vec![]));
}
