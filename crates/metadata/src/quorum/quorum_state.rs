//! `quorum-state`: the Raft vote (term, voted for, whether it elected a leader), in Kafka's
//! `FileQuorumStateStore` format: one line of `QuorumStateData` as JSON plus `data_version`,
//! replaced atomically (temporary file, fsync, rename, directory fsync).
//!
//! ```text
//! {"leaderId":1,"leaderEpoch":3,"votedId":1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}
//! ```
//!
//! Version 1 is written (the version of `kraft.version` 1, whose log holds `VotersRecord`s); 0 and
//! 1 are read. The mapping to openraft's `Vote` (with `single-term-leader`, a vote is a term, an
//! optional candidate and a committed flag):
//!
//! | openraft | `leaderEpoch` | `votedId` | `leaderId` |
//! |---|---|---|---|
//! | `Vote { term, voted_for, committed: false }` | term | voted for, or -1 | -1 |
//! | `Vote { term, voted_for: Some(n), committed: true }` | term | n | n |
//!
//! `votedDirectoryId` is always the zero uuid: voters have no directory ids yet.

use std::path::{Path, PathBuf};

use openraft::{LeaderId, Vote};
use serde::{Deserialize, Serialize};
use strand_base::Uuid;
use strand_protocol::messages::QuorumStateData;

use super::QuorumError;
use super::entry::node_id_to_wire;

/// Kafka's file name, in the `__cluster_metadata-0` directory.
pub(crate) const QUORUM_STATE_FILE: &str = "quorum-state";

/// The `data_version` written.
const DATA_VERSION: i16 = 1;

/// The JSON object, field for field as Kafka's `QuorumStateDataJsonConverter` names them;
/// version-0 fields are read and ignored.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct QuorumStateJson {
    leader_id: i32,
    leader_epoch: i32,
    voted_id: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    voted_directory_id: Option<String>,
    #[serde(rename = "data_version")]
    data_version: i16,
}

/// The `quorum-state` file of one metadata log directory.
#[derive(Debug)]
pub(crate) struct QuorumStateFile {
    path: PathBuf,
}

impl QuorumStateFile {
    pub(crate) fn new(dir: &Path) -> QuorumStateFile {
        QuorumStateFile { path: dir.join(QUORUM_STATE_FILE) }
    }

    /// The saved state; `None` if the file does not exist (a voter that never voted).
    pub(crate) fn read(&self) -> Result<Option<QuorumStateData>, QuorumError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(QuorumError::io(&self.path, e)),
        };
        let corrupt = |reason: String| QuorumError::CorruptLog(format!("{}: {reason}", self.path.display()));
        let line = text.lines().next().unwrap_or_default();
        let json: QuorumStateJson = serde_json::from_str(line).map_err(|e| corrupt(e.to_string()))?;
        if !(0..=DATA_VERSION).contains(&json.data_version) {
            return Err(corrupt(format!("data_version {} is not 0 or 1", json.data_version)));
        }
        Ok(Some(QuorumStateData {
            leader_id: json.leader_id,
            leader_epoch: json.leader_epoch,
            voted_id: json.voted_id,
            ..QuorumStateData::default()
        }))
    }

    /// Replaces the file with `state`, durably.
    pub(crate) fn write(&self, state: &QuorumStateData) -> Result<(), QuorumError> {
        let json = QuorumStateJson {
            leader_id: state.leader_id,
            leader_epoch: state.leader_epoch,
            voted_id: state.voted_id,
            voted_directory_id: Some(state.voted_directory_id.to_string()),
            data_version: DATA_VERSION,
        };
        let text = serde_json::to_string(&json).map_err(|e| QuorumError::Encode(e.to_string()))?;
        strand_log::file::write_atomically(&self.path, text.as_bytes()).map_err(|e| QuorumError::io(&self.path, e))
    }
}

/// The quorum state that records `vote`.
pub(crate) fn vote_state(vote: &Vote<u64>) -> Result<QuorumStateData, QuorumError> {
    let term = vote.leader_id.term;
    let leader_epoch = i32::try_from(term).map_err(|_| QuorumError::Encode(format!("term {term} exceeds an epoch")))?;
    let voted_id = vote.leader_id.voted_for.map_or(-1, node_id_to_wire);
    let leader_id = if vote.committed { voted_id } else { -1 };
    Ok(QuorumStateData {
        leader_id,
        leader_epoch,
        voted_id,
        voted_directory_id: Uuid::ZERO,
        ..QuorumStateData::default()
    })
}

/// The vote a quorum state records; `None` for an epoch below 0 (no vote yet).
pub(crate) fn state_vote(state: &QuorumStateData) -> Option<Vote<u64>> {
    let term = u64::try_from(state.leader_epoch).ok()?;
    let candidate = if state.voted_id >= 0 { state.voted_id } else { state.leader_id };
    let voted_for = u64::try_from(candidate).ok();
    let committed = state.leader_id >= 0;
    Some(Vote { leader_id: LeaderId { term, voted_for }, committed })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Votes survive the file, committed or not, and the file reads as Kafka writes it.
    #[test]
    fn votes_round_trip_through_the_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = QuorumStateFile::new(dir.path());
        assert_eq!(file.read().expect("reads"), None);
        for vote in [
            Vote::new(1, 4),
            Vote::new_committed(7, 4),
            Vote { leader_id: LeaderId { term: 2, voted_for: None }, committed: false },
        ] {
            file.write(&vote_state(&vote).expect("fits")).expect("writes");
            let state = file.read().expect("reads").expect("present");
            assert_eq!(state_vote(&state), Some(vote));
        }
        let text = std::fs::read_to_string(dir.path().join(QUORUM_STATE_FILE)).expect("file");
        assert_eq!(
            text,
            r#"{"leaderId":-1,"leaderEpoch":2,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}"#
        );
    }

    /// Kafka's version-0 example reads too.
    #[test]
    fn reads_version_zero() {
        let dir = tempfile::tempdir().expect("tempdir");
        let text = r#"{"clusterId":"","leaderId":1,"leaderEpoch":2,"votedId":-1,"appliedOffset":0,"currentVoters":[],"data_version":0}"#;
        std::fs::write(dir.path().join(QUORUM_STATE_FILE), text).expect("writes");
        let state = QuorumStateFile::new(dir.path()).read().expect("reads").expect("present");
        assert_eq!(state_vote(&state), Some(Vote::new_committed(2, 1)));
    }
}
