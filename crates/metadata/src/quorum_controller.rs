//! The active controller: Kafka's `QuorumController` over the pure decisions of
//! [`crate::controller`]. It runs on every node with the controller role; only the quorum's
//! leader answers, every other voter says who leads.
//!
//! A request (a broker's registration or heartbeat, CreateTopics forwarded by a broker, ...) is
//! decided against the node's image, one decision at a time, and its records are appended
//! through the [`Quorum`]; the answer is released once they are committed and replayed into the
//! image. The next decision does not wait for that: it is made on the image with the records
//! not yet committed (`pipeline`, as Kafka's controller does), so the decision lock is held
//! while deciding, not through the metadata log's fsync. A newly elected leader first
//! waits until its image covers everything its log holds, which includes everything any earlier
//! leader committed.
//!
//! Brokers' heartbeat sessions are the controller's soft state, as in Kafka: the time of each
//! broker's last heartbeat, kept only on the leader and started afresh (at "now") for every
//! registered broker when a node becomes leader (`controller::BrokerHeartbeatTracker`). [`QuorumController::expire_sessions`], called
//! periodically by the server, fences a broker whose session is older than
//! `broker.session.timeout.ms`.
//!
//! What it is not: it opens no sockets and replays nothing itself (the server feeds the image it
//! reads from the quorum's committed records); it decides nothing itself (see
//! [`crate::controller`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use strand_base::background::{BACKGROUND_FRAME_BYTES, in_background, on_own_thread};
use strand_base::{Clock, Uuid};
use strand_protocol::codec::Decoder;
use strand_protocol::frame::decode_allocation_max;
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_protocol::messages::{BrokerHeartbeatRequest, DescribeQuorumRequest, DescribeQuorumResponse};
use tokio::sync::watch;

use crate::authorizer::AuthorizerSettings;
use crate::controller::authorization::{self, ForwardedCheck, Requester};
use crate::controller::screening;
use crate::controller::{
    self, ApiMessageAndVersion, BrokerHeartbeatTracker, ControllerDefaults, ControllerResult, InitialFencing,
    PreviousSession, RegisterBrokerInputs,
};
use crate::image::{KRAFT_VERSION, MetadataImage, supported_range};
#[cfg(doc)]
use crate::quorum::Quorum;
use crate::quorum::QuorumError;

mod answers;
mod pipeline;
mod raft_voters;
mod tokens;
use answers::{fail_successes, merged, too_large};
use pipeline::{Base, Pipeline};
pub use raft_voters::{DynamicVoters, KraftVersionUpgrade};
pub use tokens::TOKEN_REQUESTER_VERSION;

/// How long a new leader may take to commit and apply its log before it answers anything.
const LEADER_CATCH_UP_MAX: Duration = Duration::from_secs(30);
/// How many times a screened request is decided off the lock before, the image having moved
/// under every attempt, what is left of it is decided under the lock.
const SCREENING_ATTEMPTS_MAX: usize = 4;
/// Requests with more entries than this are decided with `block_in_place` off the lock.
const INLINE_DECISION_ENTRIES_MAX: usize = 1_000;
/// A CreateTopics whose decision writes more records than this is committed in chunks of whole
/// topics of about this many records ([`screening::split`]), the decision lock released between
/// them: committing and replaying 2,000 records held it 30-40 ms on a loaded 2-core machine.
const CHUNK_RECORDS_MAX: usize = 500;

/// A boxed future, as the [`ControllerLog`] trait object needs.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
/// A batch handed to the log: resolves with its last offset once committed.
pub type Committing = BoxFuture<'static, Result<i64, QuorumError>>;

/// The metadata log as the controller uses it: the [`Quorum`] in a node, an in-memory log that
/// replays at once in tests.
pub trait ControllerLog: Send + Sync + 'static {
    /// Appends `records` as one batch (leader only); resolves with the last one's offset once
    /// committed.
    fn append(&self, records: Vec<ApiMessageAndVersion>) -> BoxFuture<'_, Result<i64, QuorumError>>;
    /// [`ControllerLog::append`] in two steps: resolves once the batch is handed to the log
    /// (batches are logged in the order these resolve) with what resolves once it is committed.
    /// By default the whole append happens in the first step.
    fn submit(&self, records: Vec<ApiMessageAndVersion>) -> BoxFuture<'_, Result<Committing, QuorumError>> {
        Box::pin(async move {
            let committed = self.append(records).await;
            Ok(Box::pin(std::future::ready(committed)) as Committing)
        })
    }
    /// See [`Quorum::leader_caught_up`].
    fn leader_caught_up(&self, timeout: Duration) -> BoxFuture<'_, Result<i64, QuorumError>>;
    fn is_leader(&self) -> bool;
    /// The current leader epoch (a new one after every election).
    fn leader_epoch(&self) -> i32;
    /// The offset the next batch will get (at least): a new broker epoch.
    fn next_offset(&self) -> i64;
    /// See [`Quorum::describe`]; a log without a quorum describes none.
    fn describe(&self, _request: &DescribeQuorumRequest) -> Result<DescribeQuorumResponse, QuorumError> {
        Err(QuorumError::Unsupported("DescribeQuorum".into()))
    }
    /// The voter changes of a dynamic quorum (see `raft_voters`); none elsewhere.
    fn voters(&self) -> Option<&dyn DynamicVoters> {
        None
    }
    /// The quorum's `kraft.version` and its upgrade (see `raft_voters`); none for a log without a
    /// quorum, which refuses the upgrade.
    fn kraft(&self) -> Option<&dyn KraftVersionUpgrade> {
        None
    }
}

/// What the controller is configured with (Kafka's names in the field docs).
#[derive(Debug, Clone)]
pub struct ControllerSettings {
    /// The cluster id the node was formatted with; registrations must carry it.
    pub cluster_id: String,
    /// `num.partitions`, `default.replication.factor` and static topic configs for CreateTopics.
    pub defaults: ControllerDefaults,
    /// `broker.session.timeout.ms`.
    pub session_timeout_ms: i64,
    /// The records a new cluster starts with (the finalized features of
    /// [`controller::bootstrap_records`], cluster-level configs): the first leader of an empty
    /// log commits them before deciding anything.
    pub bootstrap: Vec<ApiMessageAndVersion>,
    /// Registered brokers start unfenced: only for a node that is its quorum's sole voter (its
    /// own controller and only broker), so a one-node cluster serves at once.
    pub unfence_on_registration: bool,
    /// This controller's node id, which UpdateFeatures' refusals name ("Local controller N").
    pub node_id: i32,
    /// Every voter's id (`controller.quorum.voters`), which UpdateFeatures expects registered.
    pub voters: Vec<i32>,
}

/// Why the controller gave no answer.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ControllerError {
    /// This node does not lead the quorum (Kafka's NOT_CONTROLLER); the leader if known.
    #[error("this node is not the active controller (leader: {leader_id:?})")]
    NotController { leader_id: Option<i32> },
    #[error("the controller does not serve {0:?}")]
    Unsupported(ApiKey),
    #[error("the metadata records could not be committed: {0}")]
    Commit(String),
    #[error("the metadata image stopped updating")]
    ImageStopped,
    #[error("malformed controller request: {0}")]
    Malformed(String),
}

impl From<QuorumError> for ControllerError {
    fn from(error: QuorumError) -> ControllerError {
        match error {
            QuorumError::NotLeader { leader_id } => ControllerError::NotController { leader_id },
            other => ControllerError::Commit(other.to_string()),
        }
    }
}

/// The controller role of one node.
pub struct QuorumController {
    quorum: Arc<dyn ControllerLog>,
    images: watch::Receiver<Arc<MetadataImage>>,
    clock: Arc<dyn Clock>,
    settings: ControllerSettings,
    new_topic_id: Box<dyn Fn() -> Uuid + Send + Sync>,
    /// Held from a decision until its records are handed to the quorum.
    decisions: tokio::sync::Mutex<()>,
    /// The batches handed to the quorum and not yet committed, and the image with them.
    pipeline: Pipeline,
    /// Held while a large request is decided off the decision lock.
    large_decisions: tokio::sync::Mutex<()>,
    /// Brokers' sessions, and the leader epoch they were started in: a new leadership starts
    /// afresh, as Kafka's newly active controller does.
    sessions: Mutex<(i32, BrokerHeartbeatTracker)>,
    /// `super.users` and `allow.everyone.if.no.acl.found` when an authorizer is configured:
    /// forwarded requests are checked with their client's principal.
    authorizer: Option<AuthorizerSettings>,
    /// `delegation.token.*` when `delegation.token.secret.key` is set (see [`tokens`]).
    delegation_tokens: Option<strand_security::delegation_token::DelegationTokenSettings>,
}

impl std::fmt::Debug for QuorumController {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuorumController").field("active", &self.is_active()).finish_non_exhaustive()
    }
}

impl QuorumController {
    /// `images` is the node's image, replayed from `quorum`'s committed records; `new_topic_id`
    /// draws topic ids (the one randomness decisions need).
    pub fn new(
        quorum: Arc<dyn ControllerLog>,
        images: watch::Receiver<Arc<MetadataImage>>,
        clock: Arc<dyn Clock>,
        settings: ControllerSettings,
        new_topic_id: Box<dyn Fn() -> Uuid + Send + Sync>,
    ) -> QuorumController {
        QuorumController {
            quorum,
            images,
            clock,
            settings,
            new_topic_id,
            decisions: tokio::sync::Mutex::new(()),
            pipeline: Pipeline::new(),
            large_decisions: tokio::sync::Mutex::new(()),
            sessions: Mutex::new((-1, BrokerHeartbeatTracker::new())),
            authorizer: None,
            delegation_tokens: None,
        }
    }

    /// Checks forwarded requests with `settings` over the image's bindings
    /// ([`controller::authorization`]); without it, the brokers' checks are the only ones.
    pub fn with_authorizer(mut self, settings: AuthorizerSettings) -> QuorumController {
        self.authorizer = Some(settings);
        self
    }

    /// Whether this node is the active controller now.
    pub fn is_active(&self) -> bool {
        self.quorum.is_leader()
    }

    /// Decides `request` (of `version`, which some decisions read), commits its records and
    /// returns the response with the offset of the last metadata record it depends on (a broker
    /// waits for its own image to reach it). Client admin requests are screened first (see
    /// [`controller::screening`]): the lock is held only for the entries that write records.
    pub async fn handle(&self, request: RequestBody, version: i16) -> Result<(ResponseBody, i64), ControllerError> {
        if let Some(refused) = self.upgrade_kraft_version_first(&request, version).await? {
            return Ok(refused);
        }
        if matches!(request, RequestBody::CreateTopics(_)) && screening::entries(&request) > CHUNK_RECORDS_MAX {
            // Its decisions and commits are milliseconds of CPU each, back to back: on a thread
            // of its own, so the kernel serves other clients' requests between them.
            return on_own_thread(self.handle_in_chunks(request, version)).await;
        }
        if screening::is_screened(request.api_key()) {
            let every_partition = screening::elects_every_partition(&request);
            let (mut response, offset) = self.handle_screened(request, version).await?;
            if every_partition {
                screening::leave_out_unneeded_elections(&mut response);
            }
            return Ok((response, offset));
        }
        let one_at_a_time = self.lock_decisions(request.api_key()).await;
        let base = self.decision_base().await?;
        let decided = self.decide(&base.image, &request, version)?;
        self.commit_decided(one_at_a_time, &base, decided).await
    }

    /// A large CreateTopics: decided whole off the lock first (what fails, or is refused whole for
    /// writing more than [`controller::RECORDS_PER_REQUEST_MAX`] records, is answered from that
    /// decision), then the topics answered NONE are created chunk by chunk, each chunk screened
    /// and committed on its own ([`QuorumController::handle_screened`]), so the decision lock is
    /// never held for more than one chunk's commit.
    async fn handle_in_chunks(
        &self,
        request: RequestBody,
        version: i16,
    ) -> Result<(ResponseBody, i64), ControllerError> {
        let Some(base) = self.screening_image().await? else { return self.handle_screened(request, version).await };
        let decided = self.decide_unlocked(&base.image, &request, version).await?;
        if decided.records.is_empty() {
            return Ok((decided.response, base.settled().await?));
        }
        if decided.records.len() > controller::RECORDS_PER_REQUEST_MAX {
            return Ok((too_large(decided.response), base.settled().await?));
        }
        let Some(narrowed) = screening::narrow(&request, &decided.response) else {
            return Ok((decided.response, base.settled().await?));
        };
        let mut offset = base.image.provenance().offset;
        let mut answers = Vec::new();
        for chunk in screening::split(narrowed, CHUNK_RECORDS_MAX) {
            let (answer, at) = self.handle_screened(chunk, version).await?;
            answers.push(answer);
            offset = offset.max(at);
        }
        let response = match screening::join(answers) {
            Some(inner) => screening::merge(decided.response, inner),
            None => decided.response,
        };
        Ok((response, offset))
    }

    /// Screening's loop: decide on the image at hand without the lock; answer at once what writes
    /// nothing; else take the lock and commit the decision if the image has not moved since, or
    /// narrow the request to its entries answered NONE and go round again. After
    /// [`SCREENING_ATTEMPTS_MAX`] rounds (the image kept moving) what is left is decided under
    /// the lock, as every other request is.
    async fn handle_screened(
        &self,
        request: RequestBody,
        version: i16,
    ) -> Result<(ResponseBody, i64), ControllerError> {
        let mut answered: Vec<ResponseBody> = Vec::new();
        let mut request = request;
        for _ in 0..SCREENING_ATTEMPTS_MAX {
            let Some(screened) = self.screening_image().await? else { break };
            let decided = self.decide_unlocked(&screened.image, &request, version).await?;
            if decided.records.is_empty() {
                return Ok((merged(answered, decided.response), screened.settled().await?));
            }
            if decided.records.len() > controller::RECORDS_PER_REQUEST_MAX {
                return Ok((merged(answered, too_large(decided.response)), screened.settled().await?));
            }
            let one_at_a_time = self.lock_decisions(request.api_key()).await;
            let current = self.decision_base().await?;
            if current.same(&screened) {
                let (response, offset) = self.commit_decided(one_at_a_time, &current, decided).await?;
                return Ok((merged(answered, response), offset));
            }
            let Some(narrowed) = screening::narrow(&request, &decided.response) else {
                drop(one_at_a_time);
                break;
            };
            answered.push(decided.response);
            request = narrowed;
            if screening::entries(&request) <= CHUNK_RECORDS_MAX {
                // Small enough to decide again at once under the lock, rather than race for the
                // lock again with a stream of others (a large creation's chunks).
                let (response, offset) = self.decide_and_commit(one_at_a_time, &current, &request, version).await?;
                return Ok((merged(answered, response), offset));
            }
            drop(one_at_a_time);
        }
        let one_at_a_time = self.lock_decisions(request.api_key()).await;
        let base = self.decision_base().await?;
        let (response, offset) = self.decide_and_commit(one_at_a_time, &base, &request, version).await?;
        Ok((merged(answered, response), offset))
    }

    /// Decides `request` on `base` (refused whole past the record bound) and commits it. Called
    /// under the lock, which it releases once the records are handed to the quorum.
    async fn decide_and_commit(
        &self,
        one_at_a_time: DecisionGuard<'_>,
        base: &Base,
        request: &RequestBody,
        version: i16,
    ) -> Result<(ResponseBody, i64), ControllerError> {
        let mut decided = self.decide(&base.image, request, version)?;
        if decided.records.len() > controller::RECORDS_PER_REQUEST_MAX {
            decided = Decided { records: Vec::new(), response: too_large(decided.response), heartbeat: None };
        }
        self.commit_decided(one_at_a_time, base, decided).await
    }

    /// Hands a decision's records (if any) to the quorum, releases the lock and returns the
    /// decision's response once they are committed, with the offset it depends on (a decision
    /// writing nothing on an uncommitted image waits for that image's records). A failed commit
    /// turns its successes into REQUEST_TIMED_OUT. An accepted heartbeat is recorded in the
    /// broker's session with the image it made, as Kafka's controller records it when deciding.
    async fn commit_decided(
        &self,
        one_at_a_time: DecisionGuard<'_>,
        base: &Base,
        decided: Decided,
    ) -> Result<(ResponseBody, i64), ControllerError> {
        let Decided { records, response, heartbeat } = decided;
        let after = if records.is_empty() {
            base.image.clone()
        } else {
            match self.submit(base, records).await {
                Ok((after, committing)) => {
                    self.record_heartbeat(&after.image, heartbeat.as_ref());
                    drop(one_at_a_time);
                    return match committing.await {
                        Ok(offset) => Ok((response, offset)),
                        Err(e) => self.not_committed(response, e),
                    };
                }
                Err(e) => return self.not_committed(response, e),
            }
        };
        self.record_heartbeat(&after, heartbeat.as_ref());
        drop(one_at_a_time);
        match base.settled().await {
            Ok(offset) => Ok((response, offset)),
            Err(e) => self.not_committed(response, e),
        }
    }

    fn record_heartbeat(&self, image: &MetadataImage, heartbeat: Option<&BrokerHeartbeatRequest>) {
        if let Some(heartbeat) = heartbeat {
            self.lock_sessions().heartbeat(image, heartbeat, self.clock.now_ms());
        }
    }

    /// The answer to a decision whose records (or those it was decided on) did not commit.
    fn not_committed(
        &self,
        mut response: ResponseBody,
        e: ControllerError,
    ) -> Result<(ResponseBody, i64), ControllerError> {
        if let ControllerError::NotController { .. } | ControllerError::ImageStopped = e {
            return Err(e);
        }
        tracing::warn!("{:?}: {e}", response.api_key());
        fail_successes(&mut response, &e.to_string());
        Ok((response, self.images.borrow().provenance().offset))
    }

    /// The image to screen a request on, without the lock: this node must lead and its image
    /// cover its log. `None` before the cluster is bootstrapped (the locked path bootstraps).
    async fn screening_image(&self) -> Result<Option<Base>, ControllerError> {
        if let Some(uncommitted) = self.pipeline.newest(self.quorum.leader_epoch()) {
            return Ok(Some(uncommitted));
        }
        let end = self.quorum.leader_caught_up(LEADER_CATCH_UP_MAX).await?;
        let image = self.image_at(end - 1).await?;
        let bootstrapped = image.features().metadata_version().is_some() || self.settings.bootstrap.is_empty();
        Ok(bootstrapped.then(|| Base::committed(image)))
    }

    /// The image to decide on under the lock: the newest uncommitted one while this leadership's
    /// records are in flight ([`pipeline`]), else the committed image covering the whole log.
    async fn decision_base(&self) -> Result<Base, ControllerError> {
        match self.pipeline.newest(self.quorum.leader_epoch()) {
            Some(uncommitted) => Ok(uncommitted),
            None => Ok(Base::committed(self.current_image().await?)),
        }
    }

    /// [`QuorumController::decide`] off the lock; a large request's decision runs with the worker
    /// thread's other tasks handed to the runtime meanwhile (`block_in_place`), on a thread of
    /// lower priority ([`strand_base::background::run_niced`]), so that deciding it does not hold up other connections'
    /// requests, and one at a time: Kafka's controller
    /// decides on one thread, and clients sending large requests back to back otherwise keep
    /// every core deciding.
    async fn decide_unlocked(
        &self,
        image: &MetadataImage,
        request: &RequestBody,
        version: i16,
    ) -> Result<Decided, ControllerError> {
        if screening::entries(request) <= INLINE_DECISION_ENTRIES_MAX {
            return self.decide(image, request, version);
        }
        let _one_large_at_a_time = self.large_decisions.lock().await;
        in_background(|| self.decide(image, request, version))
    }

    /// [`QuorumController::handle`] for a request as bytes: its api key, version and body, and
    /// the response body back, encoded at the same version.
    pub async fn handle_encoded(
        &self,
        api: ApiKey,
        version: i16,
        body: Bytes,
    ) -> Result<(Bytes, i64), ControllerError> {
        self.handle_forwarded(api, version, body, None).await
    }

    /// [`QuorumController::handle_encoded`] for a request a broker forwards for `requester` (a
    /// client; `None`: the broker itself), which the controller authorizes itself first.
    pub async fn handle_forwarded(
        &self,
        api: ApiKey,
        version: i16,
        body: Bytes,
        requester: Option<&Requester>,
    ) -> Result<(Bytes, i64), ControllerError> {
        let malformed = |e: &dyn std::fmt::Display| ControllerError::Malformed(format!("{api:?} v{version}: {e}"));
        if !api.versions().contains(version) {
            return Err(malformed(&"unsupported version"));
        }
        // Within a client request's allocation budget: this listener, too, hears strangers.
        let (budget, large) = (decode_allocation_max(body.len()), body.len() > BACKGROUND_FRAME_BYTES);
        let decode = move || RequestBody::decode(api, &mut Decoder::with_budget(body, budget), version);
        let request = if large { in_background(decode) } else { decode() };
        let request = request.map_err(|e| malformed(&e))?;
        let (response, offset) = match (requester, &self.authorizer) {
            // Decided with their requester; the broker made Kafka's checks.
            _ if Self::is_token_request(&request) => self.handle_token_request(request, version, requester).await?,
            // Authorized where they arrived (the CONTROLLER listener, a broker's handler).
            _ if raft_voters::is_voter_change(&request) => self.handle_trusted(request, version).await?,
            (Some(requester), Some(settings)) => self.handle_authorized(request, version, settings, requester).await?,
            _ => self.handle_trusted(request, version).await?,
        };
        let mut encoded = BytesMut::new();
        response.encode(&mut encoded, version).map_err(|e| malformed(&e))?;
        Ok((encoded.freeze(), offset))
    }

    /// A forwarded request checked on the controller's image: refused whole, decided with its
    /// refused entries answered so, or decided as it is.
    async fn handle_authorized(
        &self,
        request: RequestBody,
        version: i16,
        settings: &AuthorizerSettings,
        requester: &Requester,
    ) -> Result<(ResponseBody, i64), ControllerError> {
        let image = self.current_image().await?;
        let check = ForwardedCheck { settings, image: &image, requester };
        let refused_whole = check.refused_whole(&request);
        if refused_whole.is_none() && !check.refuses_an_entry(&request) {
            drop(image);
            return self.handle_trusted(request, version).await;
        }
        let offset = image.provenance().offset;
        tracing::info!(
            "controller: refused {:?} (or some of it) from {} forwarded for {}",
            request.api_key(),
            requester.principal,
            requester.host
        );
        let mut response = match &request {
            RequestBody::DescribeQuorum(_) => ResponseBody::DescribeQuorum(DescribeQuorumResponse::default()),
            request => self.decide_unlocked(&image, request, version).await?.response,
        };
        if let Some(code) = refused_whole {
            authorization::refuse_all(&mut response, code);
            return Ok((response, offset));
        }
        check.refuse_entries(&request, &mut response);
        drop(image);
        match screening::narrow(&request, &response) {
            Some(allowed) => {
                let (inner, offset) = self.handle(allowed, version).await?;
                Ok((screening::merge(response, inner), offset))
            }
            None => Ok((response, offset)),
        }
    }

    /// A request decided as it is.
    async fn handle_trusted(&self, request: RequestBody, version: i16) -> Result<(ResponseBody, i64), ControllerError> {
        Ok(match request {
            // The quorum's own state, not a decision: off the decision lock, depending on no record.
            RequestBody::DescribeQuorum(request) => {
                (ResponseBody::DescribeQuorum(self.quorum.describe(&request).map_err(ControllerError::from)?), -1)
            }
            request @ (RequestBody::AddRaftVoter(_)
            | RequestBody::RemoveRaftVoter(_)
            | RequestBody::UpdateRaftVoter(_)) => (self.raft_voters(request).await, -1),
            request => self.handle(request, version).await?,
        })
    }

    /// Fences every broker whose last heartbeat is older than `broker.session.timeout.ms`. Does
    /// nothing off the leader (and forgets the sessions, so a later leadership starts afresh).
    pub async fn expire_sessions(&self) -> Result<(), ControllerError> {
        if !self.is_active() {
            return Ok(());
        }
        let one_at_a_time = self.lock_decisions(ApiKey::BrokerHeartbeat).await;
        let mut base = self.decision_base().await?;
        let now = self.clock.now_ms();
        let expired = self.lock_sessions().expired(&base.image, now, self.settings.session_timeout_ms);
        let mut committing = Vec::new();
        for broker in expired {
            tracing::info!("fencing broker {broker}: no heartbeat for {} ms", self.settings.session_timeout_ms);
            let records = controller::fence_broker(&base.image, broker, &self.settings.defaults);
            if !records.is_empty() {
                let (after, committed) = self.submit(&base, records).await?;
                base = after;
                committing.push(committed);
            }
        }
        drop(one_at_a_time);
        for committed in committing {
            committed.await?;
        }
        Ok(())
    }

    /// Moves leadership back to each partition's preferred replica where it can lead (Kafka's
    /// `auto.leader.rebalance.enable`, as its KRaft controller does it: every such partition, the
    /// imbalance percentage not consulted), and elects a leader for leaderless partitions whose
    /// topic allows unclean election. Does nothing off the leader. The partitions moved.
    pub async fn balance_leaders(&self) -> Result<usize, ControllerError> {
        if !self.is_active() {
            return Ok(0);
        }
        let one_at_a_time = self.lock_decisions(ApiKey::ElectLeaders).await;
        let mut moved = 0;
        let mut base = self.decision_base().await?;
        let mut committing = Vec::new();
        loop {
            let image = base.image.clone();
            let rebalance = controller::LeaderRebalance {
                imbalance_per_broker_percentage: 0,
                elections_max: controller::ELECTIONS_PER_CALL_MAX,
            };
            let mut records = controller::preferred_leader_moves(&image, &rebalance, &self.settings.defaults);
            if records.is_empty() {
                records = controller::unclean_leader_moves(
                    &image,
                    &self.settings.defaults,
                    controller::ELECTIONS_PER_CALL_MAX,
                );
            }
            if records.is_empty() {
                break;
            }
            let batch = records.len();
            moved += batch;
            let (after, committed) = self.submit(&base, records).await?;
            base = after;
            committing.push(committed);
            if batch < controller::ELECTIONS_PER_CALL_MAX {
                break;
            }
        }
        drop(one_at_a_time);
        for committed in committing {
            committed.await?;
        }
        Ok(moved)
    }

    /// The image to decide on: once this node leads and its image covers its whole log.
    async fn current_image(&self) -> Result<Arc<MetadataImage>, ControllerError> {
        let end = self.quorum.leader_caught_up(LEADER_CATCH_UP_MAX).await?;
        let image = self.image_at(end - 1).await?;
        if image.features().metadata_version().is_some() || self.settings.bootstrap.is_empty() {
            return Ok(image);
        }
        tracing::info!("bootstrapping the cluster's metadata");
        let (_, committing) = self.submit(&Base::committed(image), self.settings.bootstrap.clone()).await?;
        self.image_at(committing.await?).await
    }

    async fn image_at(&self, offset: i64) -> Result<Arc<MetadataImage>, ControllerError> {
        let mut images = self.images.clone();
        let image = images.wait_for(|i| i.provenance().offset >= offset).await;
        image.map(|i| i.clone()).map_err(|_| ControllerError::ImageStopped)
    }

    /// Hands `records`, decided on `base`, to the quorum ([`Pipeline::submit`]): the image with
    /// them, and what resolves once they are committed. Called under the lock.
    async fn submit(
        &self,
        base: &Base,
        records: Vec<ApiMessageAndVersion>,
    ) -> Result<(Base, impl Future<Output = Result<i64, ControllerError>> + use<>), ControllerError> {
        self.pipeline.submit(self.quorum.as_ref(), self.images.clone(), base, records).await
    }

    /// Takes the decision lock; how long it is held is logged (debug) when released.
    async fn lock_decisions(&self, api: ApiKey) -> DecisionGuard<'_> {
        let guard = self.decisions.lock().await;
        DecisionGuard { _guard: guard, api, clock: self.clock.as_ref(), since_ns: self.clock.monotonic_ns() }
    }

    /// The session tracker of the current leadership (a fresh one after an election).
    fn lock_sessions(&self) -> SessionsGuard<'_> {
        let mut sessions = self.sessions.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let epoch = self.quorum.leader_epoch();
        if sessions.0 != epoch {
            *sessions = (epoch, BrokerHeartbeatTracker::new());
        }
        SessionsGuard(sessions)
    }

    fn decide(&self, image: &MetadataImage, request: &RequestBody, version: i16) -> Result<Decided, ControllerError> {
        use RequestBody as Rq;
        use ResponseBody as Rs;
        let defaults = &self.settings.defaults;
        Ok(match request {
            Rq::CreateTopics(r) => {
                let mut new_id = || (self.new_topic_id)();
                decided(controller::create_topics(image, r, defaults, &mut new_id), Rs::CreateTopics)
            }
            Rq::DeleteTopics(r) => decided(controller::delete_topics(image, r), Rs::DeleteTopics),
            Rq::CreatePartitions(r) => decided(controller::create_partitions(image, r), Rs::CreatePartitions),
            Rq::AlterConfigs(r) => decided(controller::alter_configs(image, r), Rs::AlterConfigs),
            Rq::IncrementalAlterConfigs(r) => {
                decided(controller::incremental_alter_configs(image, r), Rs::IncrementalAlterConfigs)
            }
            Rq::AlterUserScramCredentials(r) => {
                decided(controller::alter_user_scram_credentials(image, r), Rs::AlterUserScramCredentials)
            }
            Rq::CreateAcls(r) => {
                let mut new_id = || (self.new_topic_id)();
                decided(controller::create_acls(image, r, &mut new_id), Rs::CreateAcls)
            }
            Rq::DeleteAcls(r) => decided(controller::delete_acls(image, r), Rs::DeleteAcls),
            Rq::AlterClientQuotas(r) => decided(controller::alter_client_quotas(image, r), Rs::AlterClientQuotas),
            Rq::AllocateProducerIds(r) => {
                decided(controller::allocate_producer_ids(image, r.broker_id, r.broker_epoch), Rs::AllocateProducerIds)
            }
            Rq::BrokerRegistration(r) => {
                let (previous_session, initial_fencing) = if self.settings.unfence_on_registration {
                    // The sole voter is its only broker: its earlier incarnation is itself.
                    (PreviousSession::Expired, InitialFencing::Unfenced)
                } else {
                    let now = self.clock.now_ms();
                    let timeout = self.settings.session_timeout_ms;
                    let previous = self.lock_sessions().previous_session(image, r.broker_id, now, timeout);
                    (previous, InitialFencing::Fenced)
                };
                let inputs = RegisterBrokerInputs {
                    cluster_id: self.settings.cluster_id.clone(),
                    // Past the batches in flight when decided on an uncommitted image.
                    new_broker_epoch: self.quorum.next_offset().max(image.provenance().offset + 1),
                    previous_session,
                    initial_fencing,
                };
                decided(controller::register_broker(image, r, &inputs, defaults), Rs::BrokerRegistration)
            }
            Rq::BrokerHeartbeat(r) => {
                let inputs = self.lock_sessions().inputs(image, r.broker_id);
                let result = controller::broker_heartbeat(image, r, &inputs, defaults);
                let accepted = result.response.error_code == 0;
                let mut decided = decided(result, Rs::BrokerHeartbeat);
                decided.heartbeat = accepted.then(|| r.clone());
                decided
            }
            Rq::AlterPartition(r) => {
                decided(controller::alter_partition(image, r, version, defaults), Rs::AlterPartition)
            }
            Rq::ElectLeaders(r) => decided(controller::elect_leaders(image, r, defaults), Rs::ElectLeaders),
            Rq::UpdateFeatures(r) => {
                let static_min_isr =
                    defaults.static_topic_configs.get(crate::image::topic_configs::MIN_INSYNC_REPLICAS);
                let kraft_refusal = match self.quorum.kraft() {
                    Some(kraft) => kraft.kraft_upgrade_refusal(supported_range(KRAFT_VERSION).1),
                    None => Some(raft_voters::NO_QUORUM_TO_UPGRADE.to_owned()),
                };
                let local = controller::LocalController {
                    node_id: self.settings.node_id,
                    voters: &self.settings.voters,
                    // Kafka's default when the controller's configuration sets none.
                    static_min_insync_replicas: static_min_isr.and_then(|v| v.parse().ok()).unwrap_or(1),
                    kraft_upgrade_refusal: kraft_refusal.as_deref(),
                };
                decided(controller::update_features(image, r, version, local), Rs::UpdateFeatures)
            }
            Rq::ControllerRegistration(r) => {
                decided(controller::register_controller(image, r), Rs::ControllerRegistration)
            }
            Rq::UnregisterBroker(r) => decided(controller::unregister_broker(image, r, defaults), Rs::UnregisterBroker),
            Rq::AssignReplicasToDirs(r) => {
                decided(controller::assign_replicas_to_dirs(image, r, defaults), Rs::AssignReplicasToDirs)
            }
            Rq::AlterPartitionReassignments(r) => decided(
                controller::alter_partition_reassignments(image, r, version, defaults),
                Rs::AlterPartitionReassignments,
            ),
            Rq::ListPartitionReassignments(r) => {
                decided(controller::list_partition_reassignments(image, r), Rs::ListPartitionReassignments)
            }
            other => return Err(ControllerError::Unsupported(other.api_key())),
        })
    }
}

/// The decision lock, held: its hold time is logged at debug level on release.
struct DecisionGuard<'a> {
    _guard: tokio::sync::MutexGuard<'a, ()>,
    api: ApiKey,
    clock: &'a dyn Clock,
    since_ns: u64,
}

impl Drop for DecisionGuard<'_> {
    fn drop(&mut self) {
        let held_ms = self.clock.monotonic_ns().saturating_sub(self.since_ns) as f64 / 1e6;
        tracing::debug!("controller decision lock held {held_ms:.3} ms for {:?}", self.api);
    }
}

/// The session tracker, locked.
struct SessionsGuard<'a>(std::sync::MutexGuard<'a, (i32, BrokerHeartbeatTracker)>);

impl std::ops::Deref for SessionsGuard<'_> {
    type Target = BrokerHeartbeatTracker;

    fn deref(&self) -> &BrokerHeartbeatTracker {
        &self.0.1
    }
}

impl std::ops::DerefMut for SessionsGuard<'_> {
    fn deref_mut(&mut self) -> &mut BrokerHeartbeatTracker {
        &mut self.0.1
    }
}

/// A decision with its response made a [`ResponseBody`].
struct Decided {
    records: Vec<ApiMessageAndVersion>,
    response: ResponseBody,
    /// An accepted heartbeat, for the session tracker once its records are in the image.
    heartbeat: Option<strand_protocol::messages::BrokerHeartbeatRequest>,
}

fn decided<R>(result: ControllerResult<R>, wrap: impl FnOnce(R) -> ResponseBody) -> Decided {
    Decided { records: result.records, response: wrap(result.response), heartbeat: None }
}
