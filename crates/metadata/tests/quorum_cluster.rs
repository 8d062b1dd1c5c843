//! A quorum of three voters in one process, connected by an in-process [`QuorumTransport`] that
//! carries every RPC through its byte encoding and can cut links: elections (one leader per
//! epoch), commits seen identically by every voter's feed, failover when the leader stops, a
//! restarted voter catching up from its data directory, a cut-off leader unable to commit, and
//! votes kept across restarts; DescribeQuorum from the leader.
//!
//! Timeouts are lowered (fetch 400 ms, election 200 ms) so failover takes about a second. Waits
//! have upper bounds only ([`WAIT`]) and wait on events (leadership changes, feeds); nothing
//! sleeps. openraft's election timer is random (design §8), so which voter leads differs from run
//! to run; the assertions hold for any.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use strand_base::{SystemClock, Uuid};
use strand_metadata::quorum::{
    Quorum, QuorumConfig, QuorumError, QuorumTransport, RaftRpc, TransportError, TransportFuture,
};
use strand_protocol::messages::records::MetadataRecord;
use tokio::sync::watch;

mod quorum_common;

use quorum_common::*;

/// A new quorum does not wait out an election timeout for its first leader: the lowest voter,
/// never having voted, stands at once (after `FIRST_STAND_DELAY`, 100 ms) and the others, still
/// on their timeouts, vote for it. The clock is paused, so the elapsed virtual time is exact.
#[tokio::test(start_paused = true)]
async fn a_new_quorum_elects_its_lowest_voter_without_waiting() {
    let cluster = Cluster::new();
    let started = tokio::time::Instant::now();
    cluster.start_all().await;
    let (epoch, leader) = cluster.agreed_leader(&VOTERS).await;
    assert_eq!(leader, VOTERS[0], "the lowest voter stands first");
    assert!(epoch >= 1);
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_millis(200), "elected after {elapsed:?}, not after an election timeout (200 ms)");
    cluster.check_one_leader_per_epoch();
    cluster.stop_all().await;
}

/// Voters that restart at the same instant and run in lockstep still elect a leader within a few
/// election rounds. The runtime's clock is paused, so every voter's timers fire in the same
/// virtual instant: only a fresh random draw per attempt separates the candidates (they have all
/// voted before, so none stands first). (openraft's own timer, one draw per process checked on a
/// shared tick, split the vote in every round here.)
#[tokio::test(start_paused = true)]
async fn voters_in_lockstep_still_elect_a_leader() {
    let cluster = Cluster::new();
    cluster.start_all().await;
    cluster.agreed_leader(&VOTERS).await;
    cluster.stop_all().await;
    cluster.start_all().await;
    // Ten rounds of the longest wait between attempts (election timeout plus its random part).
    let rounds = Duration::from_millis(10 * 2 * 200);
    let (epoch, _) = tokio::time::timeout(rounds, cluster.agreed_leader(&VOTERS))
        .await
        .unwrap_or_else(|_| panic!("no leader after {rounds:?} of virtual time"));
    assert!(epoch >= 2, "a new election after the restart: epoch {epoch}");
    cluster.check_one_leader_per_epoch();
    cluster.stop_all().await;
}

/// Three voters started at once form one quorum: one leader, whom all follow; appends commit
/// through it (followers refuse, naming it) and reach every voter's feed identically.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_voters_elect_one_leader_and_replicate() {
    let cluster = Cluster::new();
    cluster.start_all().await;
    let (epoch, leader) = cluster.agreed_leader(&VOTERS).await;
    assert!(epoch >= 1);
    let follower = cluster.quorum(*VOTERS.iter().find(|&&id| id != leader).expect("a follower"));
    match follower.append(topic("refused")).await {
        Err(QuorumError::NotLeader { leader_id }) => assert_eq!(leader_id, Some(leader)),
        other => panic!("a follower appended: {other:?}"),
    }
    let lists: Vec<Records> = ["a", "bb", "ccc"].into_iter().map(topic).collect();
    let mut offsets = Vec::new();
    for list in &lists {
        offsets.push(cluster.append(&VOTERS, list.clone()).await);
    }
    let batches = check_feeds(&cluster, &VOTERS, &lists).await;
    assert_eq!(batches.iter().map(|b| b.last_offset).collect::<Vec<_>>(), offsets);
    for id in VOTERS {
        cluster.wait_until("high watermarks", |c| (c.quorum(id).high_watermark() > offsets[2]).then_some(())).await;
    }
    cluster.check_one_leader_per_epoch();
    cluster.stop_all().await;
}

/// When the leader stops, the other two elect a new one in a later epoch and appends continue;
/// the old leader, restarted from its directory, catches up on everything committed meanwhile
/// and follows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_and_restarted_voter_catches_up() {
    let cluster = Cluster::new();
    cluster.start_all().await;
    let mut lists = vec![topic("before")];
    cluster.append(&VOTERS, lists[0].clone()).await;
    let (epoch, old_leader) = cluster.agreed_leader(&VOTERS).await;

    cluster.stop(old_leader).await;
    let rest: Vec<i32> = VOTERS.into_iter().filter(|&id| id != old_leader).collect();
    let failover = tokio::time::timeout(FAILOVER_WAIT, cluster.agreed_leader(&rest)).await;
    let (new_epoch, new_leader) = failover.unwrap_or_else(|_| panic!("no new leader within {FAILOVER_WAIT:?}"));
    assert!(new_epoch > epoch && new_leader != old_leader, "epoch {new_epoch} leader {new_leader}");
    for name in ["during-1", "during-2"] {
        lists.push(topic(name));
        cluster.append(&rest, topic(name)).await;
    }
    check_feeds(&cluster, &rest, &lists).await;

    cluster.start(old_leader).await;
    lists.push(topic("after"));
    cluster.append(&VOTERS, topic("after")).await;
    check_feeds(&cluster, &VOTERS, &lists).await;
    assert!(cluster.quorum(old_leader).leader_epoch() >= new_epoch);
    cluster.check_one_leader_per_epoch();
    cluster.stop_all().await;
}

/// A leader cut off from the other two cannot commit: its append does not complete and its high
/// watermark stays; the majority elects a new leader and commits; after healing, the old leader's
/// append fails as not the leader, and its record is in no voter's log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partitioned_leader_cannot_commit() {
    let cluster = Cluster::new();
    cluster.start_all().await;
    let offset = cluster.append(&VOTERS, topic("first")).await;
    let (epoch, old_leader) = cluster.agreed_leader(&VOTERS).await;
    let isolated = cluster.quorum(old_leader);
    cluster.wait_until("the high watermark", |_| (isolated.high_watermark() > offset).then_some(())).await;
    let high_watermark = isolated.high_watermark();

    cluster.isolate(old_leader);
    let pending = tokio::spawn({
        let isolated = Arc::clone(&isolated);
        async move { isolated.append(topic("lost")).await }
    });
    let rest: Vec<i32> = VOTERS.into_iter().filter(|&id| id != old_leader).collect();
    let (new_epoch, _) = cluster.agreed_leader(&rest).await;
    assert!(new_epoch > epoch);
    cluster.append(&rest, topic("kept")).await;
    let passed = tokio::time::timeout(NO_COMMIT_WAIT, high_watermark_passes(&isolated, high_watermark)).await;
    assert!(passed.is_err(), "a cut-off leader's high watermark moved past {high_watermark}");
    assert!(!pending.is_finished(), "a cut-off leader's append completed");

    cluster.heal();
    let result = bounded("the cut-off append", pending).await.expect("the task");
    assert!(matches!(result, Err(QuorumError::NotLeader { .. })), "{result:?}");
    let lists = vec![topic("first"), topic("kept")];
    check_feeds(&cluster, &VOTERS, &lists).await;
    cluster.check_one_leader_per_epoch();
    cluster.stop_all().await;
}

/// Pre-Vote (KIP-996): a follower cut off from the others for several election timeouts asks
/// for votes nobody can give, so its epoch stays; when the link heals it follows the leader it
/// had, which was never deposed, and the cluster commits in the same epoch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_off_follower_neither_raises_its_epoch_nor_deposes_the_leader() {
    let cluster = Cluster::new();
    cluster.start_all().await;
    cluster.append(&VOTERS, topic("first")).await;
    let (epoch, leader) = cluster.agreed_leader(&VOTERS).await;
    let follower = VOTERS.into_iter().find(|&id| id != leader).expect("a follower");

    cluster.isolate(follower);
    // Three rounds of asking both others (a follower sends nothing else): without Pre-Vote each
    // would be an election in a new epoch.
    let dropped = |cluster: &Cluster| cluster.network.dropped.lock().expect("lock").get(&follower).copied();
    let before = dropped(&cluster).unwrap_or(0);
    cluster.wait_until("three rounds of the cut-off voter", |c| (dropped(c)? >= before + 6).then_some(())).await;
    assert_eq!(cluster.quorum(follower).leader_epoch(), epoch, "a cut-off voter's epoch stays");
    assert!(cluster.quorum(leader).is_leader(), "the majority kept its leader");

    cluster.heal();
    cluster.append(&VOTERS, topic("after")).await;
    assert_eq!(cluster.agreed_leader(&VOTERS).await, (epoch, leader), "the leader was not deposed");
    check_feeds(&cluster, &VOTERS, &[topic("first"), topic("after")]).await;
    cluster.check_one_leader_per_epoch();
    cluster.stop_all().await;
}

/// Each voter's vote is in its `quorum-state` file (Kafka's format) and survives a restart: the
/// reopened voters start from the saved epoch, and the next leader leads a later one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn votes_persist_across_restart() {
    let cluster = Cluster::new();
    cluster.start_all().await;
    cluster.append(&VOTERS, topic("kept")).await;
    let (epoch, leader) = cluster.agreed_leader(&VOTERS).await;
    cluster.stop_all().await;
    // A loaded machine may have started another election before the stop: then the files hold
    // that later epoch, never an earlier one.
    let mut saved = Vec::new();
    for id in VOTERS {
        let text = std::fs::read_to_string(cluster.dir(id).join("quorum-state")).expect("quorum-state");
        let expected = format!(r#"{{"leaderId":{leader},"leaderEpoch":{epoch},"votedId":{leader},"#);
        let saved_epoch = json_field(&text, "leaderEpoch");
        assert!(text.starts_with(&expected) || saved_epoch > i64::from(epoch), "voter {id}: {text}");
        saved.push((id, saved_epoch));
    }

    cluster.start_all().await;
    for (id, saved_epoch) in saved {
        assert!(i64::from(cluster.quorum(id).leader_epoch()) >= saved_epoch, "voter {id} forgot epoch {saved_epoch}");
    }
    let (new_epoch, _) = cluster.agreed_leader(&VOTERS).await;
    assert!(new_epoch > epoch);
    check_feeds(&cluster, &VOTERS, &[topic("kept")]).await;
    cluster.check_one_leader_per_epoch();
    cluster.stop_all().await;
}

/// A voter refuses RPCs of another cluster or meant for another node; a node outside the voter
/// set cannot open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strangers_are_refused() {
    let cluster = Cluster::new();
    let quorum = cluster.start(1).await;
    let other = tempfile::tempdir().expect("tempdir");
    let config = QuorumConfig { node_id: 4, ..Cluster::config(1) };
    let transport = Arc::new(InProcess { source: 4, network: Arc::clone(&cluster.network) });
    let result = Quorum::open(other.path(), config, transport, Arc::new(SystemClock)).await;
    assert!(matches!(result, Err(QuorumError::NotAVoter { node_id: 4, .. })), "{result:?}");

    // Voter 2 of another cluster: its vote requests reach voter 1 and are refused.
    let stranger = Arc::new(Refusals::default());
    let config = QuorumConfig { cluster_id: "another".into(), ..Cluster::config(2) };
    let open = Quorum::open(other.path(), config, Arc::clone(&stranger) as _, Arc::new(SystemClock));
    let foreign = bounded("open", open).await.expect("opens");
    stranger.target.lock().expect("lock").replace(Arc::clone(&quorum));
    let mut refused = stranger.refused.subscribe();
    bounded("a refusal", refused.wait_for(|n| *n > 0)).await.expect("counted");
    assert_eq!(quorum.leader_id(), None);
    bounded("shutdown", foreign.shutdown()).await.expect("shuts down");
    cluster.stop(1).await;
}

/// A transport to voter 1 only, counting the replies that refuse.
#[derive(Debug, Default)]
struct Refusals {
    target: Mutex<Option<Arc<Quorum>>>,
    refused: watch::Sender<u64>,
}

impl QuorumTransport for Refusals {
    fn call(&self, target: i32, rpc: RaftRpc) -> TransportFuture<'_> {
        Box::pin(async move {
            let quorum = self.target.lock().expect("lock").clone();
            let unreachable = TransportError::Unreachable { target, reason: "not voter 1".into() };
            let Some(quorum) = quorum.filter(|_| target == 1) else { return Err(unreachable) };
            let reply = quorum.handle_rpc(rpc).await;
            if reply.is_refused() {
                self.refused.send_modify(|n| *n += 1);
            }
            Ok(reply)
        })
    }
}

/// Resolves once `quorum` commits a batch at or past `offset` (never, if it cannot commit).
async fn high_watermark_passes(quorum: &Quorum, offset: i64) {
    let mut feed = quorum.subscribe(offset);
    while let Some(batch) = feed.recv().await {
        if batch.base_offset >= offset {
            return;
        }
    }
    std::future::pending::<()>().await;
}

/// The integer field `name` of a one-line JSON object.
fn json_field(text: &str, name: &str) -> i64 {
    let key = format!("\"{name}\":");
    let start = text.find(&key).unwrap_or_else(|| panic!("no {name} in {text}")) + key.len();
    let digits: String = text[start..].chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
    digits.parse().unwrap_or_else(|_| panic!("{name} is not a number in {text}"))
}

/// A voter that was down while the others snapshotted and purged their logs catches up from the
/// leader's snapshot, installed whole (Kafka's file, under Kafka's name), then entry by entry;
/// its feed from 0 recreates every record committed meanwhile.
#[tokio::test]
async fn a_voter_behind_the_purged_log_catches_up_from_a_snapshot() {
    let cluster = Cluster::new();
    cluster.start_all().await;
    cluster.agreed_leader(&VOTERS).await;
    cluster.append(&VOTERS, topic("a")).await;
    cluster.stop(3).await;
    let names = ["bb", "ccc", "dddd", "eeeee"];
    for name in names {
        cluster.append(&[1, 2], topic(name)).await;
    }
    let mut ends = BTreeSet::new();
    for id in [1, 2] {
        let quorum = cluster.quorum(id);
        ends.insert(bounded("snapshot", quorum.snapshot(WAIT)).await.expect("snapshots"));
    }
    let last = cluster.append(&[1, 2], topic("ffffff")).await;
    // Both purged what their snapshot holds (the leader once replication moved on).
    for (id, end) in [1, 2].into_iter().zip(&ends) {
        let start = cluster.quorum(id).wait_for_log_start(*end, WAIT).await.expect("purges");
        assert!(ends.contains(&start), "voter {id}'s log starts at {start}, its snapshot ends at {ends:?}");
    }

    let quorum = cluster.start(3).await;
    let (_, leader) = cluster.agreed_leader(&VOTERS).await;
    let leader_end = cluster.quorum(leader).log_start_offset();
    let installed = bounded("install", quorum.wait_for_snapshot(leader_end, WAIT)).await.expect("a snapshot");
    assert_eq!(installed, leader_end, "voter 3 holds the leader's snapshot");
    assert!(ends.contains(&installed));
    let files: Vec<String> = std::fs::read_dir(cluster.dir(3))
        .expect("lists")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".checkpoint"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");

    // Its feed from 0: the snapshot (every topic but the last), then the last topic's batch.
    let mut rx = quorum.subscribe(0);
    let mut topics = BTreeSet::new();
    bounded("voter 3's feed", async {
        loop {
            let batch = rx.recv().await.expect("the feed is open");
            if batch.snapshot {
                topics.clear();
            }
            for (record, _) in &batch.records {
                if let MetadataRecord::TopicRecord(t) = record {
                    topics.insert(t.name.clone());
                }
            }
            if batch.last_offset >= last {
                return;
            }
        }
    })
    .await;
    let expected: BTreeSet<String> = ["a", "bb", "ccc", "dddd", "eeeee", "ffffff"].map(String::from).into();
    assert_eq!(topics, expected);
    cluster.check_one_leader_per_epoch();
    cluster.stop_all().await;
}

/// A Raft RPC as anyone who can reach a CONTROLLER listener can write it: JSON, as the transport
/// encodes it, claiming to come from `source` and to be led by `leader` at `term`.
fn hostile_append(source: i32, target: i32, leader: i32, term: u64) -> RaftRpc {
    let json = format!(
        r#"{{"cluster_id":"{CLUSTER_ID}","source":{source},"target":{target},"body":{{"AppendEntries":{{"vote":{{"leader_id":{{"term":{term},"voted_for":{leader}}},"committed":true}},"prev_log_id":null,"entries":[],"leader_commit":null}}}}}}"#
    );
    RaftRpc::decode(json.as_bytes()).expect("a well-formed rpc")
}

fn hostile_vote(source: i32, target: i32, term: u64) -> RaftRpc {
    let json = format!(
        r#"{{"cluster_id":"{CLUSTER_ID}","source":{source},"target":{target},"body":{{"Vote":{{"vote":{{"leader_id":{{"term":{term},"voted_for":{source}}},"committed":false}},"last_log_id":null}}}}}}"#
    );
    RaftRpc::decode(json.as_bytes()).expect("a well-formed rpc")
}

/// One forged RPC used to stop the quorum for good: an AppendEntries at term 2^31-1 was
/// accepted and saved, every voter then died standing at 2^31 (no Kafka epoch), and again after
/// every restart; terms of 2^62 or 2^64-1 stopped the receiving voter at once. Now every voter
/// refuses them (and RPCs from nodes that are not voters) before Raft sees them: the quorum
/// keeps its epoch, commits, and starts again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_rpcs_cannot_stop_the_quorum() {
    let cluster = Cluster::new();
    cluster.start_all().await;
    cluster.append(&VOTERS, topic("before")).await;
    let (epoch, leader) = cluster.agreed_leader(&VOTERS).await;
    for target in VOTERS {
        let other = VOTERS.into_iter().find(|&id| id != target).expect("another voter");
        let forged = [
            hostile_append(other, target, other, i32::MAX as u64),
            hostile_append(other, target, other, 1 << 31),
            hostile_append(other, target, other, 1 << 62),
            hostile_append(other, target, other, u64::MAX),
            hostile_append(7, target, 7, u64::from(epoch as u32) + 1),
            hostile_append(other, target, 7, u64::from(epoch as u32) + 1),
            hostile_vote(other, target, i32::MAX as u64),
            hostile_vote(7, target, u64::from(epoch as u32) + 1),
        ];
        for rpc in forged {
            let reply = bounded("a forged rpc", cluster.quorum(target).handle_rpc(rpc)).await;
            assert!(reply.is_refused(), "voter {target} took a forged rpc: {reply:?}");
        }
    }
    assert_eq!(cluster.agreed_leader(&VOTERS).await, (epoch, leader), "nothing moved");
    cluster.append(&VOTERS, topic("after")).await;
    cluster.stop_all().await;
    cluster.start_all().await;
    cluster.append(&VOTERS, topic("restarted")).await;
    check_feeds(&cluster, &VOTERS, &[topic("before"), topic("after"), topic("restarted")]).await;
    for id in VOTERS {
        assert!(cluster.quorum(id).leader_epoch() < i32::MAX / 2, "voter {id} took a forged epoch");
    }
    cluster.check_one_leader_per_epoch();
    cluster.stop_all().await;
}

/// Writes voter `id`'s `quorum-state` as Kafka's format has it, at `epoch` with no vote.
fn save_epoch(cluster: &Cluster, id: i32, epoch: i32) {
    let text = format!(
        r#"{{"leaderId":-1,"leaderEpoch":{epoch},"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}}"#
    );
    std::fs::write(cluster.dir(id).join("quorum-state"), text).expect("quorum-state");
}

/// Voters one epoch below the highest a voter accepts (2^31-2, leaving room for one more under
/// Kafka's `i32`) elect a leader in it; when it stops, the others cannot stand in a later one
/// and say so, but their Raft keeps running (standing past an `i32` used to stop it: openraft
/// could not save the vote). A vote saved at 2^31-1 (as the forged RPCs left it) leaves no
/// epoch to stand in: the voter refuses to open with a message saying why, rather than dying at
/// its first election after every start.
#[tokio::test(start_paused = true)]
async fn the_last_epoch_is_led_and_never_passed() {
    let cluster = Cluster::new();
    cluster.start_all().await;
    cluster.agreed_leader(&VOTERS).await;
    cluster.stop_all().await;
    for id in VOTERS {
        save_epoch(&cluster, id, i32::MAX - 2);
    }
    cluster.start_all().await;
    let (epoch, leader) = cluster.agreed_leader(&VOTERS).await;
    assert_eq!(epoch, i32::MAX - 1);
    cluster.append(&VOTERS, topic("last")).await;

    cluster.stop(leader).await;
    // Many election timeouts (200 ms) of virtual time.
    tokio::time::sleep(Duration::from_secs(10)).await;
    for id in VOTERS.into_iter().filter(|&id| id != leader) {
        let quorum = cluster.quorum(id);
        assert_eq!(quorum.leader_epoch(), i32::MAX - 1);
        let refused = quorum.append(topic("nobody leads")).await;
        assert!(matches!(refused, Err(QuorumError::NotLeader { .. })), "voter {id}'s Raft: {refused:?}");
        cluster.stop(id).await;
    }

    save_epoch(&cluster, leader, i32::MAX);
    let transport = Arc::new(InProcess { source: leader, network: Arc::clone(&cluster.network) });
    let open = Quorum::open(cluster.dir(leader), Cluster::config(leader), transport, Arc::new(SystemClock)).await;
    match open {
        Err(e @ QuorumError::EpochsExhausted { epoch: 2_147_483_647 }) => {
            assert!(e.to_string().contains("could never stand for election again"), "{e}");
        }
        other => panic!("opened at the last epoch: {other:?}"),
    }
}

/// DescribeQuorum (Kafka's `handleDescribeQuorumRequest`): only the leader answers; it names
/// itself, its epoch and high watermark, each voter with its CONTROLLER endpoint and, once the
/// voter acknowledged the leader's appends, its log end offset and fetch times (-1 before), and
/// each observer that fetched; a request for another partition is UNKNOWN_TOPIC_OR_PARTITION.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_leader_describes_the_quorum() {
    use strand_protocol::messages::DescribeQuorumRequest;
    use strand_protocol::messages::describe_quorum_request::{PartitionData, TopicData};
    let request = |topic: &str, partition: i32| DescribeQuorumRequest {
        topics: vec![TopicData {
            topic_name: topic.into(),
            partitions: vec![PartitionData { partition_index: partition, ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let cluster = Cluster::new();
    cluster.start_all().await;
    let offset = cluster.append(&VOTERS, topic("described")).await;
    let (epoch, leader) = cluster.agreed_leader(&VOTERS).await;
    let follower = *VOTERS.iter().find(|&&id| id != leader).expect("a follower");
    match cluster.quorum(follower).describe(&request("__cluster_metadata", 0)) {
        Err(QuorumError::NotLeader { leader_id }) => assert_eq!(leader_id, Some(leader)),
        other => panic!("a follower described the quorum: {other:?}"),
    }
    let unknown = cluster.quorum(leader).describe(&request("__cluster_metadata", 1)).expect("answered");
    assert_eq!(unknown.topics[0].partitions[0].error_code, 3, "UNKNOWN_TOPIC_OR_PARTITION");

    cluster.quorum(leader).observer_fetched(7, Uuid([7; 16]), 2);
    // The followers' acknowledgements arrive with the heartbeats; nothing signals them.
    let described = bounded("every follower acknowledged the append", async {
        loop {
            let response = cluster.quorum(leader).describe(&request("__cluster_metadata", 0)).expect("leads");
            let partition = &response.topics[0].partitions[0];
            if partition.current_voters.iter().all(|v| v.log_end_offset > offset && v.last_fetch_timestamp > 0) {
                return response;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    let partition = &described.topics[0].partitions[0];
    assert_eq!((partition.leader_id.0, partition.leader_epoch), (leader, epoch));
    assert!(partition.high_watermark > offset);
    let ids: Vec<i32> = partition.current_voters.iter().map(|v| v.replica_id.0).collect();
    assert_eq!(ids, VOTERS);
    for voter in &partition.current_voters {
        assert!(voter.last_caught_up_timestamp > 0 && voter.last_caught_up_timestamp <= voter.last_fetch_timestamp);
    }
    let observers: Vec<(i32, Uuid, i64)> =
        partition.observers.iter().map(|o| (o.replica_id.0, o.replica_directory_id, o.log_end_offset)).collect();
    assert_eq!(observers, [(7, Uuid([7; 16]), 2)]);
    let endpoints: Vec<(i32, String, u16)> =
        described.nodes.iter().map(|n| (n.node_id.0, n.listeners[0].host.clone(), n.listeners[0].port)).collect();
    assert_eq!(
        endpoints,
        [(1, "localhost".into(), 9101), (2, "localhost".into(), 9102), (3, "localhost".into(), 9103)]
    );
    cluster.stop_all().await;
}
