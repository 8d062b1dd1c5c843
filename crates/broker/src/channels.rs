//! The broker's links to the rest of the node, as traits the server implements (and tests):
//! the active controller ([`ControllerChannel`]), transaction coordinators' KIP-890 checks
//! ([`TxnVerifier`]) and the check of changes to what the server reconfigures itself
//! ([`BrokerReconfiguration`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use strand_metadata::controller::authorization::Requester;
use strand_metadata::image::MetadataImage;
use strand_protocol::codec::Message;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{ApiKey, Request};
use strand_security::Session;
use tokio::sync::watch;

/// A boxed future, as trait objects need.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Reaches the active controller. Implemented by the server (the controller in this process
/// when it is active, another node's over its CONTROLLER listener otherwise) and by tests.
pub trait ControllerChannel: Send + Sync + std::fmt::Debug {
    /// Sends a request (its api key, version and encoded body) to the active controller and
    /// resolves with the encoded response body and the offset of the last metadata record the
    /// response depends on. `requester`: the client the request is forwarded for, whom the
    /// controller authorizes it for (Kafka's Envelope principal); `None` for the node's own
    /// requests. `Err`: no controller answered (the reason, for logs and messages).
    fn call(
        &self,
        api: ApiKey,
        version: i16,
        body: Bytes,
        requester: Option<Requester>,
    ) -> BoxFuture<'_, Result<(Bytes, i64), String>>;
}

/// The client `session` is, as a forwarded request names it to the controller.
pub fn requester(session: &Session) -> Requester {
    Requester { principal: session.principal.clone(), host: session.peer.ip() }
}

/// Sends `request` at `version` through `channel`: the controller's response and the offset of
/// the last metadata record it depends on. `Err`: no controller answered, or the answer could
/// not be read.
pub async fn call_controller<R: Request>(
    channel: &dyn ControllerChannel,
    request: &R,
    version: i16,
) -> Result<(R::Response, i64), String> {
    call_controller_for(channel, request, version, None).await
}

/// [`call_controller`] for a client's request, which the controller authorizes for `requester`.
pub async fn call_controller_for<R: Request>(
    channel: &dyn ControllerChannel,
    request: &R,
    version: i16,
    requester: Option<Requester>,
) -> Result<(R::Response, i64), String> {
    let mut body = bytes::BytesMut::new();
    request.encode(&mut body, version).map_err(|e| format!("cannot encode {:?}: {e}", R::KEY))?;
    let (response, offset) = channel.call(R::KEY, version, body.freeze(), requester).await?;
    let response = <R::Response as Message>::decode_exact(response, version)
        .map_err(|e| format!("unreadable {:?} response from the controller: {e}", R::KEY))?;
    Ok((response, offset))
}

/// How long [`ask_controller`] waits for this node's image to reach the controller's answer (the
/// records are committed by then; only replay remains).
const IMAGE_CATCH_UP_MAX: std::time::Duration = std::time::Duration::from_secs(30);

/// [`call_controller_for`], then waits until `image` holds the records the response depends on,
/// so the client's next request to this node sees them.
pub async fn ask_controller<R: Request>(
    channel: &dyn ControllerChannel,
    image: &watch::Receiver<Arc<MetadataImage>>,
    request: &R,
    version: i16,
    requester: Option<Requester>,
) -> Result<R::Response, String> {
    let (response, offset) = call_controller_for(channel, request, version, requester).await?;
    let mut image = image.clone();
    let caught_up = tokio::time::timeout(IMAGE_CATCH_UP_MAX, image.wait_for(|i| i.provenance().offset >= offset));
    match caught_up.await {
        Ok(Ok(_)) => Ok(response),
        Ok(Err(_)) => Err("the metadata image stopped updating".to_owned()),
        Err(_) => Err(format!("this node's metadata did not reach offset {offset} in time")),
    }
}

/// One KIP-890 check of a produce request's first transactional writes to some partitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnVerification {
    pub transactional_id: String,
    pub producer_id: strand_base::ProducerId,
    pub producer_epoch: i16,
    pub partitions: Vec<strand_base::TopicPartition>,
    /// Transactions V2 (Produce v12 and later): add the partitions to the transaction, rather
    /// than only check that the producer added them.
    pub add: bool,
}

/// Reaches the transaction coordinator of a transactional id, on this node or another, for
/// KIP-890's check that a transactional write belongs to an ongoing transaction (Kafka's
/// `AddPartitionsToTxnManager`). Implemented by the server and by tests.
pub trait TxnVerifier: Send + Sync + std::fmt::Debug {
    /// The partitions that are not in the transaction, or could not be checked, each with the
    /// coordinator's error; empty when every partition is in it.
    fn verify(&self, verification: TxnVerification) -> BoxFuture<'_, Vec<(strand_base::TopicPartition, ErrorCode)>>;
}

/// A node with no transaction coordinator to ask: every check is COORDINATOR_NOT_AVAILABLE.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTxnCoordinator;

impl TxnVerifier for NoTxnCoordinator {
    fn verify(&self, verification: TxnVerification) -> BoxFuture<'_, Vec<(strand_base::TopicPartition, ErrorCode)>> {
        let failed = verification.partitions.into_iter().map(|tp| (tp, ErrorCode::CoordinatorNotAvailable)).collect();
        Box::pin(std::future::ready(failed))
    }
}

/// How a share-partition's leader writes a batch of dead-letter records (KIP-1191) to a partition
/// of its group's dead-letter topic, wherever that partition's leader is. Implemented by the
/// server (a Produce with acks=all to the leader) and by tests.
pub trait DeadLetterWriter: Send + Sync + std::fmt::Debug {
    /// Appends `batch` (one magic-2 batch) to `tp`; `Err`: the partition's error, or
    /// NETWORK_EXCEPTION when no answer came (the write may then have happened).
    fn write(&self, tp: strand_base::TopicPartition, batch: Bytes) -> BoxFuture<'_, Result<(), ErrorCode>>;
}

/// Partition leaders' link to the share coordinator (Kafka's `Persister`): a share-partition's
/// state read, initialized and written with the *ShareGroupState RPCs at the coordinator of its
/// key (the leader of its `__share_group_state` partition).
pub trait SharePersister: Send + Sync + std::fmt::Debug {
    /// The persisted state; `None` if it was never initialized.
    fn read(
        &self,
        key: strand_coordinator::share::state::ShareKey,
        leader_epoch: i32,
    ) -> BoxFuture<'_, Result<Option<strand_coordinator::share::state::PersistedState>, ErrorCode>>;

    /// Initializes the state at `start_offset`.
    fn initialize(
        &self,
        key: strand_coordinator::share::state::ShareKey,
        state_epoch: i32,
        start_offset: i64,
    ) -> BoxFuture<'_, Result<(), ErrorCode>>;

    /// Writes the state (its batches merged over the stored ones).
    fn write(
        &self,
        key: strand_coordinator::share::state::ShareKey,
        state: strand_coordinator::share::state::PersistedState,
    ) -> BoxFuture<'_, Result<(), ErrorCode>>;

    /// The state's start offset and epochs; `None` if it was never initialized.
    fn summary(
        &self,
        key: strand_coordinator::share::state::ShareKey,
    ) -> BoxFuture<'_, Result<Option<strand_coordinator::share::state::StateSummary>, ErrorCode>>;

    /// Deletes the state.
    fn delete(&self, key: strand_coordinator::share::state::ShareKey) -> BoxFuture<'_, Result<(), ErrorCode>>;
}

/// Checks a change of this node's own dynamic broker configs that the server applies itself (a
/// listener's TLS key and trust stores) before the request goes to the controller: Kafka's
/// `DynamicBrokerConfig.validate`, run by the broker the request names.
pub trait BrokerReconfiguration: Send + Sync + std::fmt::Debug {
    /// `changes`: `listener.name.<listener>.ssl.*` store keys, each set (`Some`) or deleted
    /// (`None`). `Err`: why they cannot be applied, for the client.
    fn validate(
        &self,
        changes: std::collections::BTreeMap<String, Option<String>>,
    ) -> BoxFuture<'_, Result<(), String>>;
}
