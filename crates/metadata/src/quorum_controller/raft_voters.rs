//! The controller's side of AddRaftVoter, RemoveRaftVoter and UpdateRaftVoter (KIP-853): Kafka's
//! checks of the request, then a static quorum's refusal (`controller::raft_voters`) or a dynamic
//! quorum's change ([`DynamicVoters`], the quorum's `voters`). A static quorum's leader keeps what
//! UpdateRaftVoter says for its `kraft.version` upgrade ([`KraftVersionUpgrade`], the quorum's
//! `kraft_upgrade`). They are the quorum's state, not decisions on the image: they take no
//! decision lock and commit no metadata records of their own.

use std::time::Duration;

use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::{
    AddRaftVoterRequest, AddRaftVoterResponse, DescribeQuorumRequest, DescribeQuorumResponse, RemoveRaftVoterRequest,
    RemoveRaftVoterResponse, UpdateRaftVoterRequest, UpdateRaftVoterResponse,
};

use super::{BoxFuture, ControllerError, ControllerLog, QuorumController};
use crate::controller::{self, ApiMessageAndVersion};
use crate::image::KRAFT_VERSION;
use crate::quorum::{CurrentVoter, NewVoter, Quorum, QuorumError, VoterChangeError};

/// The longest a voter change may wait for the new voter to catch up or the change to commit
/// (AddRaftVoter's own timeout is used when shorter).
const VOTER_CHANGE_WAIT_MAX: Duration = Duration::from_secs(30);

/// A dynamic quorum's voter changes, as the controller asks them.
pub trait DynamicVoters: Send + Sync {
    /// See [`Quorum::add_voter`].
    fn add_voter(&self, voter: NewVoter, timeout: Duration) -> BoxFuture<'_, Result<(), VoterChangeError>>;
    /// See [`Quorum::remove_voter`].
    fn remove_voter(
        &self,
        id: i32,
        directory_id: strand_base::Uuid,
        timeout: Duration,
    ) -> BoxFuture<'_, Result<(), VoterChangeError>>;
    /// See [`Quorum::update_voter`].
    fn update_voter(&self, voter: NewVoter, timeout: Duration) -> BoxFuture<'_, Result<(), VoterChangeError>>;
    /// See [`Quorum::current_voters`].
    fn current_voters(&self) -> Vec<CurrentVoter>;
}

/// A quorum's `kraft.version` and its upgrade from a static quorum (KIP-853, KAFKA-16538).
pub trait KraftVersionUpgrade: Send + Sync {
    /// See [`Quorum::kraft_version`].
    fn kraft_version(&self) -> i16;
    /// See [`Quorum::kraft_upgrade_refusal`].
    fn kraft_upgrade_refusal(&self, level: i16) -> Option<String>;
    /// See [`Quorum::upgrade_kraft_version`].
    fn upgrade_kraft_version(&self, level: i16, timeout: Duration) -> BoxFuture<'_, Result<(), String>>;
    /// See [`Quorum::report_voter`].
    fn report_voter(&self, voter: NewVoter, kraft_versions: (i16, i16)) -> Result<(), VoterChangeError>;
}

impl KraftVersionUpgrade for Quorum {
    fn kraft_version(&self) -> i16 {
        Quorum::kraft_version(self)
    }

    fn kraft_upgrade_refusal(&self, level: i16) -> Option<String> {
        Quorum::kraft_upgrade_refusal(self, level)
    }

    fn upgrade_kraft_version(&self, level: i16, timeout: Duration) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(Quorum::upgrade_kraft_version(self, level, timeout))
    }

    fn report_voter(&self, voter: NewVoter, kraft_versions: (i16, i16)) -> Result<(), VoterChangeError> {
        Quorum::report_voter(self, voter, kraft_versions)
    }
}

impl DynamicVoters for Quorum {
    fn add_voter(&self, voter: NewVoter, timeout: Duration) -> BoxFuture<'_, Result<(), VoterChangeError>> {
        Box::pin(Quorum::add_voter(self, voter, timeout))
    }

    fn remove_voter(
        &self,
        id: i32,
        directory_id: strand_base::Uuid,
        timeout: Duration,
    ) -> BoxFuture<'_, Result<(), VoterChangeError>> {
        Box::pin(Quorum::remove_voter(self, id, directory_id, timeout))
    }

    fn update_voter(&self, voter: NewVoter, timeout: Duration) -> BoxFuture<'_, Result<(), VoterChangeError>> {
        Box::pin(Quorum::update_voter(self, voter, timeout))
    }

    fn current_voters(&self) -> Vec<CurrentVoter> {
        Quorum::current_voters(self)
    }
}

impl ControllerLog for Quorum {
    fn append(&self, records: Vec<ApiMessageAndVersion>) -> BoxFuture<'_, Result<i64, QuorumError>> {
        Box::pin(Quorum::append(self, records.into_iter().map(|r| (r.record, r.version)).collect()))
    }

    fn leader_caught_up(&self, timeout: Duration) -> BoxFuture<'_, Result<i64, QuorumError>> {
        Box::pin(Quorum::leader_caught_up(self, timeout))
    }

    fn is_leader(&self) -> bool {
        Quorum::is_leader(self)
    }

    fn leader_epoch(&self) -> i32 {
        Quorum::leader_epoch(self)
    }

    fn next_offset(&self) -> i64 {
        self.high_watermark()
    }

    fn describe(&self, request: &DescribeQuorumRequest) -> Result<DescribeQuorumResponse, QuorumError> {
        Quorum::describe(self, request)
    }

    fn voters(&self) -> Option<&dyn DynamicVoters> {
        self.is_dynamic().then_some(self as &dyn DynamicVoters)
    }

    fn kraft(&self) -> Option<&dyn KraftVersionUpgrade> {
        Some(self)
    }
}

/// Why a log without a quorum (tests' in-memory log) refuses to raise `kraft.version`.
pub(super) const NO_QUORUM_TO_UPGRADE: &str = "The metadata log has no quorum whose kraft.version could change";
/// The longest the `kraft.version` upgrade may wait for its voter set to commit.
const KRAFT_UPGRADE_WAIT_MAX: Duration = Duration::from_secs(30);

/// Whether `request` changes or updates a voter.
pub(super) fn is_voter_change(request: &RequestBody) -> bool {
    matches!(request, RequestBody::AddRaftVoter(_) | RequestBody::RemoveRaftVoter(_) | RequestBody::UpdateRaftVoter(_))
}

impl QuorumController {
    /// An UpdateFeatures raising `kraft.version` (not a dry run): decided on the current image
    /// first, and if it is refused, that is the answer; else the quorum is upgraded (its voter
    /// set written, Kafka's control batch) before the request is decided again as any other,
    /// whose `FeatureLevelRecord` then follows. `None`: go on with the request.
    pub(super) async fn upgrade_kraft_version_first(
        &self,
        request: &RequestBody,
        version: i16,
    ) -> Result<Option<(ResponseBody, i64)>, ControllerError> {
        let (RequestBody::UpdateFeatures(update), Some(kraft)) = (request, self.quorum.kraft()) else {
            return Ok(None);
        };
        // The last update of a name counts, as `update_features` reads them.
        let asked = update.feature_updates.iter().rev().find(|u| u.feature == KRAFT_VERSION);
        let Some(level) = asked.map(|u| u.max_version_level).filter(|l| *l > kraft.kraft_version()) else {
            return Ok(None);
        };
        if update.validate_only {
            return Ok(None);
        }
        let image = self.current_image().await?;
        let decided = self.decide(&image, request, version)?;
        if decided.records.is_empty() {
            return Ok(Some((decided.response, image.provenance().offset)));
        }
        if let Err(reason) = kraft.upgrade_kraft_version(level, KRAFT_UPGRADE_WAIT_MAX).await {
            if !self.quorum.is_leader() {
                return Err(ControllerError::NotController { leader_id: None });
            }
            tracing::warn!("kraft.version {level} refused: {reason}");
            let refused = ResponseBody::UpdateFeatures(controller::update_features_refused(&reason));
            return Ok(Some((refused, image.provenance().offset)));
        }
        Ok(None)
    }

    /// Answers a voter request (see the module doc).
    pub(super) async fn raft_voters(&self, request: RequestBody) -> ResponseBody {
        let image = self.images.borrow().clone();
        let cluster_id = self.settings.cluster_id.as_str();
        let Some(voters) = self.quorum.voters() else {
            return match (request, self.quorum.kraft()) {
                (RequestBody::UpdateRaftVoter(r), Some(kraft)) => {
                    ResponseBody::UpdateRaftVoter(report(kraft, cluster_id, r))
                }
                (RequestBody::AddRaftVoter(r), _) => {
                    ResponseBody::AddRaftVoter(controller::add_raft_voter(&image, cluster_id, &r))
                }
                (RequestBody::RemoveRaftVoter(r), _) => {
                    ResponseBody::RemoveRaftVoter(controller::remove_raft_voter(&image, cluster_id, &r))
                }
                (RequestBody::UpdateRaftVoter(r), None) => {
                    ResponseBody::UpdateRaftVoter(controller::update_raft_voter(&image, cluster_id, &r))
                }
                (other, _) => unreachable!("not a voter request: {:?}", other.api_key()),
            };
        };
        match request {
            RequestBody::AddRaftVoter(r) => ResponseBody::AddRaftVoter(add(voters, cluster_id, r).await),
            RequestBody::RemoveRaftVoter(r) => ResponseBody::RemoveRaftVoter(remove(voters, cluster_id, r).await),
            RequestBody::UpdateRaftVoter(r) => ResponseBody::UpdateRaftVoter(update(voters, cluster_id, r).await),
            other => unreachable!("not a voter request: {:?}", other.api_key()),
        }
    }
}

async fn add(voters: &dyn DynamicVoters, cluster_id: &str, request: AddRaftVoterRequest) -> AddRaftVoterResponse {
    let answer = |code: i16, message: Option<String>| AddRaftVoterResponse {
        error_code: code,
        error_message: message,
        ..AddRaftVoterResponse::default()
    };
    if let Err((code, message)) = controller::check_add(cluster_id, &request) {
        return answer(code.code(), Some(message));
    }
    let timeout = u64::try_from(request.timeout_ms).map_or(VOTER_CHANGE_WAIT_MAX, Duration::from_millis);
    let voter = NewVoter {
        id: request.voter_id,
        directory_id: request.voter_directory_id,
        listeners: request.listeners.into_iter().map(|l| (l.name, l.host, l.port)).collect(),
    };
    match voters.add_voter(voter, timeout.min(VOTER_CHANGE_WAIT_MAX)).await {
        Ok(()) => answer(0, None),
        Err(e) => answer(e.code.code(), Some(e.message)),
    }
}

async fn remove(
    voters: &dyn DynamicVoters,
    cluster_id: &str,
    request: RemoveRaftVoterRequest,
) -> RemoveRaftVoterResponse {
    let answer = |code: i16, message: Option<String>| RemoveRaftVoterResponse {
        error_code: code,
        error_message: message,
        ..RemoveRaftVoterResponse::default()
    };
    if let Err((code, message)) = controller::check_remove(cluster_id, &request) {
        return answer(code.code(), Some(message));
    }
    match voters.remove_voter(request.voter_id, request.voter_directory_id, VOTER_CHANGE_WAIT_MAX).await {
        Ok(()) => answer(0, None),
        Err(e) => answer(e.code.code(), Some(e.message)),
    }
}

/// A voter telling the leader its endpoints: its voter entry (found by id and directory id,
/// VOTER_NOT_FOUND otherwise) takes them ([`DynamicVoters::update_voter`]).
async fn update(
    voters: &dyn DynamicVoters,
    cluster_id: &str,
    request: UpdateRaftVoterRequest,
) -> UpdateRaftVoterResponse {
    let answer = |code: i16| UpdateRaftVoterResponse { error_code: code, ..UpdateRaftVoterResponse::default() };
    if let Err((code, _)) = controller::check_update(cluster_id, &request) {
        return answer(code.code());
    }
    let voter = NewVoter {
        id: request.voter_id,
        directory_id: request.voter_directory_id,
        listeners: request.listeners.into_iter().map(|l| (l.name, l.host, l.port)).collect(),
    };
    match voters.update_voter(voter, VOTER_CHANGE_WAIT_MAX).await {
        Ok(()) => answer(0),
        Err(e) => {
            tracing::info!("UpdateRaftVoter refused: {e}");
            answer(e.code.code())
        }
    }
}

/// A static quorum's voter describing itself to the leader (see [`KraftVersionUpgrade`]): kept
/// for the upgrade, nothing written.
fn report(
    kraft: &dyn KraftVersionUpgrade,
    cluster_id: &str,
    request: UpdateRaftVoterRequest,
) -> UpdateRaftVoterResponse {
    let answer = |code: i16| UpdateRaftVoterResponse { error_code: code, ..UpdateRaftVoterResponse::default() };
    if let Err((code, _)) = controller::check_update(cluster_id, &request) {
        return answer(code.code());
    }
    let range =
        (request.kraft_version_feature.min_supported_version, request.kraft_version_feature.max_supported_version);
    let voter = NewVoter {
        id: request.voter_id,
        directory_id: request.voter_directory_id,
        listeners: request.listeners.into_iter().map(|l| (l.name, l.host, l.port)).collect(),
    };
    match kraft.report_voter(voter, range) {
        Ok(()) => answer(0),
        Err(e) => {
            tracing::info!("UpdateRaftVoter refused: {e}");
            answer(e.code.code())
        }
    }
}
