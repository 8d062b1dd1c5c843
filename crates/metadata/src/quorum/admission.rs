//! What a voter lets through to openraft from the network. The CONTROLLER listener serves anyone
//! who knows the cluster id (Metadata hands it out), and openraft trusts what it is given: a
//! term it cannot store, or an entry its state machine cannot apply, stops its core for good,
//! and a vote saved before the failure stops it again after every restart. So every
//! [`RaftRpc`] is checked here first, and refused whole if any part of it is not something a
//! voter of this cluster would send:
//!
//! - **Who.** The sender must be another voter (the configured ones; in a dynamic quorum, or a
//!   static one upgraded to `kraft.version` 1, those of this node's newest membership, anyone
//!   while it has none), and the vote it carries must
//!   name it (a candidate's own vote, a leader's own leadership). An RPC naming another metadata log
//!   directory for this node than its own is for the voter this node replaced (a failed disk
//!   formatted anew under the same id) and is refused: its empty log is not that voter's.
//! - **Terms.** Every term (the vote's, each log id's) must be at most [`TERM_MAX`]: a Kafka
//!   epoch is an `i32`, and a voter that accepts a term must still be able to stand in the next.
//! - **Entries.** Consecutive indexes right after `prev_log_id`, terms never going back and never
//!   past the vote's; every metadata record frame decodes (applying it must not fail); a
//!   membership entry names exactly the configured voters, unless it is at `kraft.version` 1
//!   (a voter whose log names others refuses to open, see `Quorum::open`, until the upgrade).
//! - **Snapshots.** InstallSnapshot chunks are assembled here, not by openraft: each chunk must
//!   continue the snapshot being received (a chunk at another offset is a mismatch the leader
//!   recovers from by starting over), the whole stays within [`SNAPSHOT_BYTES_MAX`], and the
//!   complete snapshot must decode into an image at the log id and voters its metadata states
//!   before openraft installs it (its file is what the next start loads).
//!
//! What it is not: authentication. Anyone who can reach the listener can still claim to be a
//! voter; the checks keep such a sender from leaving state this node cannot run or start from,
//! not from disturbing elections.

use std::collections::BTreeSet;
use std::sync::Mutex;

use bytes::Bytes;
use openraft::raft::InstallSnapshotRequest;
use openraft::{Entry, EntryPayload, LogId, Membership, SnapshotMeta, Vote};

use super::entry::{TypeConfig, VoterNode, decode_frame, kraft_version};
use super::transport::{RaftRpc, RpcBody};

/// The highest term a voter accepts: one below `i32::MAX`, so a voter that adopts it can still
/// stand for election in the next term, whose epoch still fits Kafka's `i32`.
pub(crate) const TERM_MAX: u64 = (i32::MAX - 1) as u64;
/// The largest snapshot a voter receives: far above any metadata image (a million partitions
/// make a few hundred megabytes of records), and a bound on what a sender can make it hold.
pub(crate) const SNAPSHOT_BYTES_MAX: u64 = 1 << 30;

/// The checks of one voter, and the snapshot it is receiving.
#[derive(Debug)]
pub(crate) struct Admission {
    cluster_id: String,
    node_id: i32,
    /// This node's metadata log directory id (all zeros: unknown, not checked).
    directory_id: [u8; 16],
    /// The configured voters, as openraft numbers them; `None` in a dynamic quorum, whose voters
    /// change (the caller passes the current ones, and a membership may name any voters).
    voters: Option<BTreeSet<u64>>,
    receiving: Mutex<Option<ReceivingSnapshot>>,
}

/// A snapshot whose chunks are arriving.
#[derive(Debug)]
struct ReceivingSnapshot {
    snapshot_id: String,
    bytes: Vec<u8>,
}

/// What one InstallSnapshot chunk amounts to.
#[derive(Debug)]
pub(crate) enum SnapshotChunk {
    /// More is to come.
    Partial,
    /// The last chunk: the whole snapshot's bytes.
    Complete(Bytes),
    /// Not the continuation of the snapshot being received: the sender should start over.
    Mismatch { expected_offset: u64 },
}

impl Admission {
    pub(crate) fn new(cluster_id: &str, node_id: i32, voters: Option<BTreeSet<u64>>) -> Admission {
        Admission {
            cluster_id: cluster_id.to_owned(),
            node_id,
            directory_id: [0; 16],
            voters,
            receiving: Mutex::new(None),
        }
    }

    /// Checks the directory id senders name for this node too (see [`RaftRpc`]).
    pub(crate) fn with_directory_id(mut self, directory_id: [u8; 16]) -> Admission {
        self.directory_id = directory_id;
        self
    }

    /// Why `rpc` must not reach openraft, if it must not. `current_voters`: in a dynamic quorum,
    /// the voters of this node's newest membership (empty before it has one: a new node learns
    /// them from whoever leads).
    pub(crate) fn check(&self, rpc: &RaftRpc, current_voters: &BTreeSet<u64>) -> Result<(), String> {
        if rpc.cluster_id() != self.cluster_id {
            return Err(format!("cluster id {:?} is not this cluster's ({:?})", rpc.cluster_id(), self.cluster_id));
        }
        if rpc.target() != self.node_id {
            return Err(format!("an rpc for node {} reached node {}", rpc.target(), self.node_id));
        }
        let (meant, own) = (rpc.target_directory_id(), self.directory_id);
        if meant != [0; 16] && own != [0; 16] && meant != own {
            return Err(format!(
                "an rpc for node {}'s directory {} reached its directory {}",
                self.node_id,
                strand_base::Uuid(meant),
                strand_base::Uuid(own)
            ));
        }
        // A static quorum upgraded to `kraft.version` 1 passes its current voters: the log's rule.
        let voters = (!current_voters.is_empty()).then_some(current_voters).or(self.voters.as_ref());
        let source = u64::try_from(rpc.source())
            .ok()
            .filter(|source| voters.is_none_or(|v| v.contains(source)) && rpc.source() != self.node_id)
            .ok_or_else(|| format!("node {} is not another voter of this cluster", rpc.source()))?;
        match rpc.body() {
            RpcBody::Vote(request) | RpcBody::PreVote(request) => {
                let term = check_vote(&request.vote, source)?;
                check_log_id("last_log_id", request.last_log_id.as_ref(), term)
            }
            RpcBody::AppendEntries(request) => {
                let term = check_vote(&request.vote, source)?;
                check_log_id("prev_log_id", request.prev_log_id.as_ref(), term)?;
                check_log_id("leader_commit", request.leader_commit.as_ref(), term)?;
                self.check_entries(request.prev_log_id.as_ref(), &request.entries, term)
            }
            RpcBody::InstallSnapshot(request) => {
                let term = check_vote(&request.vote, source)?;
                self.check_snapshot_meta(&request.meta, term)
            }
        }
    }

    fn check_entries(&self, prev: Option<&LogId<u64>>, entries: &[Entry<TypeConfig>], term: u64) -> Result<(), String> {
        let mut expected_index = match prev {
            Some(prev) => prev.index.checked_add(1).ok_or("prev_log_id is the last index there is")?,
            None => 0,
        };
        let mut previous_term = prev.map_or(0, |prev| prev.leader_id.term);
        for entry in entries {
            let id = entry.log_id;
            if id.index != expected_index {
                return Err(format!("entry {id} where index {expected_index} was due"));
            }
            check_log_id("an entry", Some(&id), term)?;
            if id.leader_id.term < previous_term {
                return Err(format!("entry {id} goes back from term {previous_term}"));
            }
            match &entry.payload {
                EntryPayload::Blank => {}
                EntryPayload::Normal(frames) => {
                    for frame in &frames.frames {
                        decode_frame(frame).map_err(|e| format!("entry {id}: {e}"))?;
                    }
                }
                EntryPayload::Membership(membership) => self.check_membership(membership)?,
            }
            expected_index = id.index.saturating_add(1);
            previous_term = id.leader_id.term;
        }
        Ok(())
    }

    fn check_snapshot_meta(&self, meta: &SnapshotMeta<u64, VoterNode>, term: u64) -> Result<(), String> {
        if meta.last_log_id.is_none() {
            return Err("a snapshot of nothing".into());
        }
        check_log_id("the snapshot's last_log_id", meta.last_log_id.as_ref(), term)?;
        check_log_id("the snapshot's membership", meta.last_membership.log_id().as_ref(), term)?;
        self.check_membership(meta.last_membership.membership())
    }

    /// No voter set may be empty. While the voters are static (`controller.quorum.voters`), a
    /// membership must name exactly them, unless it is at `kraft.version` 1 (the upgrade, and
    /// every voter change after it): from then on the log's voter set rules, as `Quorum::open`
    /// has it.
    pub(crate) fn check_membership(&self, membership: &Membership<u64, VoterNode>) -> Result<(), String> {
        let configs = membership.get_joint_config();
        let learners = membership.learner_ids().count();
        if configs.iter().any(BTreeSet::is_empty) {
            return Err(format!("a membership of {configs:?} with an empty voter set"));
        }
        let Some(voters) = self.voters.as_ref().filter(|_| kraft_version(membership) == 0) else {
            return Ok(());
        };
        if configs.len() != 1 || configs[0] != *voters || learners > 0 {
            return Err(format!("a membership of {configs:?} ({learners} learners), not the voters {voters:?}"));
        }
        Ok(())
    }

    /// Adds a checked chunk to the snapshot being received. A chunk at offset 0 starts a new one
    /// (replacing any other); a later one must start where the received bytes end, or inside
    /// them (a resent chunk).
    pub(crate) fn receive_chunk(&self, request: &InstallSnapshotRequest<TypeConfig>) -> Result<SnapshotChunk, String> {
        let mut receiving = self.receiving.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let snapshot_id = &request.meta.snapshot_id;
        if request.offset == 0 {
            *receiving = Some(ReceivingSnapshot { snapshot_id: snapshot_id.clone(), bytes: Vec::new() });
        }
        let Some(stream) = receiving.as_mut().filter(|s| s.snapshot_id == *snapshot_id) else {
            return Ok(SnapshotChunk::Mismatch { expected_offset: 0 });
        };
        let received = stream.bytes.len() as u64;
        if request.offset > received {
            return Ok(SnapshotChunk::Mismatch { expected_offset: received });
        }
        let end = request.offset.saturating_add(request.data.len() as u64);
        if end > SNAPSHOT_BYTES_MAX {
            *receiving = None;
            return Err(format!("a snapshot of more than {SNAPSHOT_BYTES_MAX} bytes"));
        }
        // In bounds: `offset <= received`, and `end` fits the limit.
        stream.bytes.truncate(request.offset as usize);
        stream.bytes.extend_from_slice(&request.data);
        if !request.done {
            return Ok(SnapshotChunk::Partial);
        }
        let complete = receiving.take().map(|s| s.bytes).unwrap_or_default();
        Ok(SnapshotChunk::Complete(Bytes::from(complete)))
    }
}

/// The vote's term, if it fits and names `source` (the candidate, or the leader).
fn check_vote(vote: &Vote<u64>, source: u64) -> Result<u64, String> {
    let term = vote.leader_id.term;
    if term > TERM_MAX {
        return Err(format!("term {term} exceeds {TERM_MAX}, the highest a Kafka epoch leaves room after"));
    }
    if vote.leader_id.voted_for != Some(source) {
        return Err(format!("vote {vote} is not node {source}'s own"));
    }
    Ok(term)
}

/// A log id in an rpc of `term` can be no later than it.
fn check_log_id(what: &str, log_id: Option<&LogId<u64>>, term: u64) -> Result<(), String> {
    match log_id {
        Some(id) if id.leader_id.term > term => Err(format!("{what} {id} is later than the rpc's term {term}")),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use openraft::raft::{AppendEntriesRequest, VoteRequest};
    use openraft::{CommittedLeaderId, StoredMembership};
    use strand_protocol::messages::TopicRecord;
    use strand_protocol::messages::records::MetadataRecord;

    use super::*;
    use crate::quorum::entry::{MetadataFrames, encode_frame};

    const CLUSTER: &str = "MkU3OEVBNTcwNTJENDM2Qg";

    /// `admission`'s check with no current membership (static quorums, and a dynamic quorum's
    /// node before it learns its voters).
    fn check(admission: &Admission, rpc: &RaftRpc) -> Result<(), String> {
        admission.check(rpc, &BTreeSet::new())
    }

    /// Voter 2 of voters 1, 2, 3.
    fn admission() -> Admission {
        Admission::new(CLUSTER, 2, Some([1, 2, 3].into()))
    }

    fn log_id(term: u64, index: u64) -> LogId<u64> {
        LogId::new(CommittedLeaderId::new(term, 0), index)
    }

    fn membership(voters: &[u64]) -> Membership<u64, VoterNode> {
        let nodes: BTreeMap<u64, VoterNode> = voters.iter().map(|id| (*id, VoterNode::default())).collect();
        Membership::new(vec![nodes.keys().copied().collect()], nodes)
    }

    fn frame() -> Vec<u8> {
        let record = TopicRecord { name: "t".into(), ..TopicRecord::default() };
        encode_frame(&MetadataRecord::TopicRecord(record), 0).expect("frames")
    }

    fn normal(term: u64, index: u64, frames: Vec<Vec<u8>>) -> Entry<TypeConfig> {
        Entry {
            log_id: log_id(term, index),
            payload: EntryPayload::Normal(MetadataFrames { append_time_ms: 1, frames }),
        }
    }

    /// What leader 1 of `term` sends after entry 4 of term 2.
    fn append(term: u64, entries: Vec<Entry<TypeConfig>>) -> RaftRpc {
        let request = AppendEntriesRequest {
            vote: Vote::new_committed(term, 1),
            prev_log_id: Some(log_id(2, 4)),
            entries,
            leader_commit: Some(log_id(2, 4)),
        };
        RaftRpc::new(CLUSTER, 1, 2, RpcBody::AppendEntries(request))
    }

    fn good_entries(term: u64) -> Vec<Entry<TypeConfig>> {
        vec![
            Entry { log_id: log_id(term, 5), payload: EntryPayload::Blank },
            normal(term, 6, vec![frame(), frame()]),
            Entry { log_id: log_id(term, 7), payload: EntryPayload::Membership(membership(&[1, 2, 3])) },
        ]
    }

    fn snapshot(
        vote: Vote<u64>,
        voters: &[u64],
        offset: u64,
        data: &[u8],
        done: bool,
    ) -> InstallSnapshotRequest<TypeConfig> {
        let meta = SnapshotMeta {
            last_log_id: Some(log_id(3, 9)),
            last_membership: StoredMembership::new(Some(log_id(1, 0)), membership(voters)),
            snapshot_id: "12-3".into(),
        };
        InstallSnapshotRequest { vote, meta, offset, data: data.to_vec(), done }
    }

    /// What a voter of this cluster sends gets through.
    #[test]
    fn a_voters_rpcs_pass() {
        let admission = admission();
        assert_eq!(check(&admission, &append(3, good_entries(3))), Ok(()));
        assert_eq!(check(&admission, &append(3, Vec::new())), Ok(()));
        assert_eq!(check(&admission, &append(TERM_MAX, good_entries(TERM_MAX))), Ok(()));
        let vote = VoteRequest::new(Vote::new(4, 3), Some(log_id(2, 4)));
        assert_eq!(check(&admission, &RaftRpc::new(CLUSTER, 3, 2, RpcBody::Vote(vote))), Ok(()));
        let install = snapshot(Vote::new_committed(3, 1), &[1, 2, 3], 0, b"x", false);
        assert_eq!(check(&admission, &RaftRpc::new(CLUSTER, 1, 2, RpcBody::InstallSnapshot(install))), Ok(()));
    }

    /// A dynamic quorum's node refuses an rpc naming another directory of its id (the voter a
    /// new disk replaced), takes one naming its own or none, and any sender and voter set.
    #[test]
    fn an_rpc_for_a_replaced_directory_is_refused() {
        let admission = Admission::new(CLUSTER, 2, None).with_directory_id([7; 16]);
        let mut rpc = append(3, good_entries(3));
        assert_eq!(check(&admission, &rpc), Ok(()), "no directory named");
        rpc.target_directory_id = [7; 16];
        assert_eq!(check(&admission, &rpc), Ok(()), "its own directory");
        rpc.target_directory_id = [8; 16];
        assert!(check(&admission, &rpc).is_err(), "another directory of node 2");
        let from_new_voter = RaftRpc::new(
            CLUSTER,
            9,
            2,
            RpcBody::AppendEntries(AppendEntriesRequest {
                vote: Vote::new_committed(3, 9),
                prev_log_id: None,
                entries: Vec::new(),
                leader_commit: None,
            }),
        );
        assert_eq!(check(&admission, &from_new_voter), Ok(()), "a node with no membership yet hears any node");
    }

    /// In a dynamic quorum a sender must be a voter of the receiver's newest membership: a node
    /// that was never added, or was removed, is refused (issue 15, finding 7).
    #[test]
    fn a_dynamic_quorums_sender_must_be_a_current_voter() {
        let admission = Admission::new(CLUSTER, 2, None);
        let from = |source: i32| {
            let request = AppendEntriesRequest {
                vote: Vote::new_committed(3, source as u64),
                prev_log_id: None,
                entries: Vec::new(),
                leader_commit: None,
            };
            RaftRpc::new(CLUSTER, source, 2, RpcBody::AppendEntries(request))
        };
        let voters: BTreeSet<u64> = [1, 2, 3].into();
        assert_eq!(admission.check(&from(3), &voters), Ok(()));
        let stranger = admission.check(&from(9), &voters).expect_err("a node outside the membership");
        assert!(stranger.contains("node 9 is not another voter"), "{stranger}");
        let removed: BTreeSet<u64> = [1, 2].into();
        assert!(admission.check(&from(3), &removed).is_err(), "a removed voter");
        assert_eq!(admission.check(&from(9), &BTreeSet::new()), Ok(()), "no membership known yet");
    }

    /// A term no Kafka epoch (with one more after it) holds is refused wherever it is: these are
    /// the terms that stopped every voter's Raft core for good.
    #[test]
    fn terms_past_an_epoch_are_refused() {
        let admission = admission();
        for term in [TERM_MAX + 1, 1 << 31, 1 << 62, u64::MAX] {
            let refused = check(&admission, &append(term, Vec::new())).expect_err("refused");
            assert!(refused.contains(&format!("term {term} exceeds")), "{refused}");
            let vote = VoteRequest::new(Vote::new(term, 1), None);
            assert!(check(&admission, &RaftRpc::new(CLUSTER, 1, 2, RpcBody::Vote(vote))).is_err(), "vote at {term}");
            let install = snapshot(Vote::new_committed(term, 1), &[1, 2, 3], 0, b"", false);
            assert!(check(&admission, &RaftRpc::new(CLUSTER, 1, 2, RpcBody::InstallSnapshot(install))).is_err());
            // A log id later than the rpc's own term.
            assert!(check(&admission, &append(3, vec![normal(term, 5, vec![frame()])])).is_err(), "entry at {term}");
            let vote = VoteRequest::new(Vote::new(4, 1), Some(log_id(term, 4)));
            assert!(check(&admission, &RaftRpc::new(CLUSTER, 1, 2, RpcBody::Vote(vote))).is_err());
        }
    }

    /// Only another voter, speaking for itself, is heard.
    #[test]
    fn strangers_and_impostors_are_refused() {
        let admission = admission();
        let from = |source: i32, vote: Vote<u64>| {
            let request = AppendEntriesRequest { vote, prev_log_id: None, entries: Vec::new(), leader_commit: None };
            check(&admission, &RaftRpc::new(CLUSTER, source, 2, RpcBody::AppendEntries(request)))
        };
        assert_eq!(from(1, Vote::new_committed(3, 1)), Ok(()));
        for (source, vote) in [
            (7, Vote::new_committed(3, 7)),
            (-1, Vote::new_committed(3, 1)),
            (2, Vote::new_committed(3, 2)),
            (1, Vote::new_committed(3, 7)),
            (1, Vote::new_committed(3, 3)),
        ] {
            assert!(from(source, vote).is_err(), "from {source} with {vote}");
        }
        let request = AppendEntriesRequest {
            vote: Vote::new_committed(3, 1),
            prev_log_id: None,
            entries: Vec::new(),
            leader_commit: None,
        };
        assert!(check(&admission, &RaftRpc::new("another", 1, 2, RpcBody::AppendEntries(request))).is_err());
        assert!(
            Admission::new(CLUSTER, 3, Some([1, 2, 3].into())).check(&append(3, Vec::new()), &BTreeSet::new()).is_err(),
            "for node 2"
        );
    }

    /// Entries a leader never sends are refused: gaps, terms going back, records that cannot be
    /// applied, other voters.
    #[test]
    fn entries_no_leader_sends_are_refused() {
        let admission = admission();
        let cases: Vec<(&str, Vec<Entry<TypeConfig>>)> = vec![
            ("a gap", vec![normal(3, 6, vec![frame()])]),
            ("an overlap", vec![normal(3, 4, vec![frame()])]),
            ("out of order", vec![normal(3, 5, vec![frame()]), normal(3, 5, vec![frame()])]),
            ("a term going back", vec![normal(1, 5, vec![frame()])]),
            ("a frame that does not decode", vec![normal(3, 5, vec![frame(), vec![1, 99, 0, 7]])]),
            ("an empty frame", vec![normal(3, 5, vec![Vec::new()])]),
            (
                "other voters",
                vec![Entry { log_id: log_id(3, 5), payload: EntryPayload::Membership(membership(&[1, 2, 7])) }],
            ),
            (
                "learners",
                vec![Entry {
                    log_id: log_id(3, 5),
                    payload: EntryPayload::Membership(Membership::new(
                        vec![[1, 2, 3].into()],
                        [1, 2, 3, 4].into_iter().map(|id| (id, VoterNode::default())).collect::<BTreeMap<_, _>>(),
                    )),
                }],
            ),
        ];
        for (what, entries) in cases {
            assert!(check(&admission, &append(3, entries)).is_err(), "{what} was let through");
        }
        let request = AppendEntriesRequest {
            vote: Vote::new_committed(3, 1),
            prev_log_id: Some(log_id(2, u64::MAX)),
            entries: vec![normal(3, 0, vec![frame()])],
            leader_commit: None,
        };
        assert!(check(&admission, &RaftRpc::new(CLUSTER, 1, 2, RpcBody::AppendEntries(request))).is_err());
    }

    /// A static quorum's voter takes the membership its `kraft.version` upgrade writes (every
    /// voter with a directory id) and the voter changes after it, from the log's voters once it
    /// has them; a membership of other voters without directory ids is still refused.
    #[test]
    fn a_static_quorum_takes_its_upgrade_and_the_changes_after() {
        let admission = admission();
        let upgraded = |voters: &[u64]| {
            let node = |id: u64| VoterNode { directory_id: [id as u8; 16], ..VoterNode::default() };
            let nodes: BTreeMap<u64, VoterNode> = voters.iter().map(|&id| (id, node(id))).collect();
            Membership::new(vec![nodes.keys().copied().collect()], nodes)
        };
        let entry = |membership| vec![Entry { log_id: log_id(3, 5), payload: EntryPayload::Membership(membership) }];
        assert_eq!(check(&admission, &append(3, entry(upgraded(&[1, 2, 3])))), Ok(()), "the upgrade");
        assert_eq!(check(&admission, &append(3, entry(upgraded(&[1, 2, 3, 4])))), Ok(()), "a voter added after");
        assert!(check(&admission, &append(3, entry(membership(&[1, 2, 4])))).is_err(), "still static");
        assert!(check(&admission, &append(3, entry(upgraded(&[])))).is_err(), "no voters");
        let from_added = |source: i32| {
            let request = AppendEntriesRequest {
                vote: Vote::new_committed(3, source as u64),
                prev_log_id: None,
                entries: Vec::new(),
                leader_commit: None,
            };
            RaftRpc::new(CLUSTER, source, 2, RpcBody::AppendEntries(request))
        };
        assert!(check(&admission, &from_added(4)).is_err(), "static: only the configured voters");
        let upgraded_voters: BTreeSet<u64> = [1, 2, 4].into();
        assert_eq!(admission.check(&from_added(4), &upgraded_voters), Ok(()), "upgraded: the log's voters");
        assert!(admission.check(&from_added(3), &upgraded_voters).is_err(), "a removed voter");
    }

    /// A snapshot naming other voters, or nothing, is refused.
    #[test]
    fn snapshots_of_other_voters_are_refused() {
        let admission = admission();
        let install = snapshot(Vote::new_committed(3, 1), &[1, 2, 9], 0, b"", false);
        assert!(check(&admission, &RaftRpc::new(CLUSTER, 1, 2, RpcBody::InstallSnapshot(install))).is_err());
        let mut install = snapshot(Vote::new_committed(3, 1), &[1, 2, 3], 0, b"", false);
        install.meta.last_log_id = None;
        assert!(check(&admission, &RaftRpc::new(CLUSTER, 1, 2, RpcBody::InstallSnapshot(install))).is_err());
    }

    /// Chunks assemble in order (a resent one replaces what it covers); a chunk past the received
    /// bytes, or of another snapshot, is a mismatch and allocates nothing; the whole is bounded.
    #[test]
    fn snapshot_chunks_assemble_in_order_and_within_bounds() {
        let admission = admission();
        let vote = Vote::new_committed(3, 1);
        let chunk =
            |offset, data: &[u8], done| admission.receive_chunk(&snapshot(vote, &[1, 2, 3], offset, data, done));
        assert!(matches!(chunk(5, b"late", false), Ok(SnapshotChunk::Mismatch { expected_offset: 0 })));
        assert!(matches!(chunk(0, b"abc", false), Ok(SnapshotChunk::Partial)));
        assert!(matches!(chunk(1 << 40, b"x", false), Ok(SnapshotChunk::Mismatch { expected_offset: 3 })));
        assert!(matches!(chunk(2, b"CD", false), Ok(SnapshotChunk::Partial)));
        let mut other = snapshot(vote, &[1, 2, 3], 4, b"z", false);
        other.meta.snapshot_id = "99-3".into();
        assert!(matches!(admission.receive_chunk(&other), Ok(SnapshotChunk::Mismatch { expected_offset: 0 })));
        match chunk(4, b"e", true) {
            Ok(SnapshotChunk::Complete(bytes)) => assert_eq!(&bytes[..], b"abCDe"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(chunk(1, b"x", true), Ok(SnapshotChunk::Mismatch { expected_offset: 0 })), "it is gone");

        // Never written to: refused before any byte is copied.
        let mut over = snapshot(vote, &[1, 2, 3], 0, b"", false);
        over.data = vec![0; usize::try_from(SNAPSHOT_BYTES_MAX + 1).expect("fits")];
        assert!(admission.receive_chunk(&over).is_err(), "over {SNAPSHOT_BYTES_MAX} bytes");
    }
}
