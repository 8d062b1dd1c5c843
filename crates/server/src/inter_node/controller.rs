//! The broker's way to the active controller ([`strand_broker::ControllerChannel`]): the
//! controller in this process when this node is the quorum's leader, the leader's CONTROLLER
//! listener otherwise. A call follows leadership changes: a node that is no longer the leader
//! (NOT_CONTROLLER), an unknown leader or an unreachable one is retried, at the leader this node
//! learns of next, until the call's deadline; an attempt under way when another leader is learnt
//! of is given up and made again there.

use super::Link;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use strand_broker::{BoxFuture, ControllerChannel};
use strand_metadata::controller::authorization::Requester;
use strand_metadata::quorum::Leadership;
use strand_metadata::quorum_controller::{ControllerError, QuorumController};
use strand_protocol::messages::api::ApiKey;
use tokio::sync::watch;

use super::client::{CallError, NodeClient};
use super::controllers::ControllerAddresses;
use super::peers::PeerHealth;
use super::wire::{self, RpcKind};

/// The prefix of the error a controller that does not lead sends back; the caller retries.
pub const NOT_CONTROLLER: &str = "NOT_CONTROLLER";
/// How long to wait for news of a leader before trying again.
const RETRY_BACKOFF: Duration = Duration::from_millis(100);

/// Calls the active controller.
#[derive(Debug)]
pub struct ControllerClient {
    node_id: i32,
    /// This node's controller, if it has the role.
    local: Option<Arc<QuorumController>>,
    /// Who leads the quorum, as this node knows it.
    leadership: watch::Receiver<Leadership>,
    /// Each controller's CONTROLLER listener, `host:port`.
    controllers: ControllerAddresses,
    client: NodeClient,
    peers: Arc<PeerHealth>,
    /// `controller.quorum.request.timeout.ms`: one attempt.
    attempt_timeout: Duration,
    /// The whole call, retries included.
    deadline: Duration,
}

impl ControllerClient {
    pub fn new(
        node_id: i32,
        local: Option<Arc<QuorumController>>,
        leadership: watch::Receiver<Leadership>,
        controllers: ControllerAddresses,
        attempt_timeout: Duration,
        deadline: Duration,
        peers: Arc<PeerHealth>,
    ) -> ControllerClient {
        let client = NodeClient::new(attempt_timeout, strand_base::limits::SOCKET_REQUEST_BYTES_MAX, Link::default());
        ControllerClient { node_id, local, leadership, controllers, client, peers, attempt_timeout, deadline }
    }

    /// Dials the controllers over TLS and logs in, as their CONTROLLER listener asks.
    pub fn with_link(mut self, link: Link) -> ControllerClient {
        self.client = NodeClient::new(self.attempt_timeout, strand_base::limits::SOCKET_REQUEST_BYTES_MAX, link);
        self
    }

    /// One attempt at the leader this node knows of. `Ok(None)`: try again (no leader, not the
    /// leader any more, unreachable).
    async fn attempt(
        &self,
        api: ApiKey,
        version: i16,
        body: &Bytes,
        requester: Option<&Requester>,
    ) -> Result<Option<(Bytes, i64)>, String> {
        let leader = self.leadership.borrow().leader_id;
        match leader {
            None => Ok(None),
            Some(id) if id == self.node_id => {
                let Some(local) = &self.local else { return Ok(None) };
                match local.handle_forwarded(api, version, body.clone(), requester).await {
                    Ok(answer) => Ok(Some(answer)),
                    Err(ControllerError::NotController { .. }) => Ok(None),
                    Err(e) => Err(e.to_string()),
                }
            }
            Some(id) => {
                // A dynamic quorum's new leader may not have registered its listener yet.
                let Some(address) = self.controllers.get(id) else { return Ok(None) };
                let address = &address;
                let payload = wire::encode_controller_request(api as i16, version, requester, body)?;
                // Kafka's channel to the controller drops its connection when the controller
                // changes: an attempt at a controller that no longer leads (a paused one, say)
                // is given up at once instead of running out its timeout (which a heartbeat
                // cannot afford: the broker's session would end meanwhile).
                let mut leadership = self.leadership.clone();
                let deposed = leadership.wait_for(|now| now.leader_id != Some(id));
                let called = tokio::select! {
                    called = self.client.call(address, RpcKind::Controller, &payload, self.attempt_timeout) => called,
                    _ = deposed => return Ok(None),
                };
                match &called {
                    Ok(_) | Err(CallError::Refused { .. }) => self.peers.reached(id),
                    Err(e) => self.peers.call_failed(id, "controller", e),
                }
                match called {
                    Ok(answer) => {
                        wire::decode_controller_answer(answer).map(|(offset, response)| Some((response, offset)))
                    }
                    Err(CallError::Refused { message, .. }) if message.starts_with(NOT_CONTROLLER) => Ok(None),
                    Err(CallError::Refused { message, .. }) => Err(message),
                    Err(_) => Ok(None),
                }
            }
        }
    }
}

impl ControllerChannel for ControllerClient {
    fn call(
        &self,
        api: ApiKey,
        version: i16,
        body: Bytes,
        requester: Option<Requester>,
    ) -> BoxFuture<'_, Result<(Bytes, i64), String>> {
        Box::pin(async move {
            let mut leadership = self.leadership.clone();
            let attempts = async {
                loop {
                    leadership.borrow_and_update();
                    if let Some(answer) = self.attempt(api, version, &body, requester.as_ref()).await? {
                        return Ok(answer);
                    }
                    // A new leader, or a pause before asking the same one again.
                    let _ = tokio::time::timeout(RETRY_BACKOFF, leadership.changed()).await;
                }
            };
            match tokio::time::timeout(self.deadline, attempts).await {
                Ok(result) => result,
                Err(_) => Err(format!("no active controller answered {api:?} within {} ms", self.deadline.as_millis())),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    /// A controller on a free loopback port: answers every request with `answer` at offset 7,
    /// or (`None`) reads it and never answers, as a paused process. `received` fires at the
    /// first request.
    async fn controller(answer: Option<&'static [u8]>, received: tokio::sync::oneshot::Sender<()>) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address").to_string();
        tokio::spawn(async move {
            let mut received = Some(received);
            let (mut stream, _) = listener.accept().await.expect("accept");
            loop {
                let size = stream.read_i32().await.expect("size");
                let mut frame = vec![0; usize::try_from(size).expect("size")];
                stream.read_exact(&mut frame).await.expect("frame");
                if let Some(received) = received.take() {
                    let _ = received.send(());
                }
                let Some(answer) = answer else { continue };
                let request = wire::decode_request(Bytes::from(frame)).expect("a strand request");
                let payload = wire::encode_controller_answer(7, answer);
                let reply = wire::encode_reply(request.correlation_id, Ok(&payload)).expect("reply");
                stream.write_all(&reply).await.expect("write");
            }
        });
        address
    }

    /// A call at a controller that stops answering moves to the next leader as soon as it is
    /// known, long before the attempt's timeout.
    #[tokio::test]
    async fn an_attempt_at_a_deposed_controller_is_given_up() {
        let (paused_got, paused_received) = tokio::sync::oneshot::channel();
        let (next_got, _) = tokio::sync::oneshot::channel();
        let paused = controller(None, paused_got).await;
        let next = controller(Some(b"answered"), next_got).await;
        let (leadership, watched) = watch::channel(Leadership { epoch: 1, leader_id: Some(2) });
        let attempt_timeout = Duration::from_secs(60);
        let controllers = ControllerAddresses::new(std::collections::BTreeMap::from([(2, paused), (3, next)]));
        let peers = Arc::new(PeerHealth::new());
        let client = ControllerClient::new(1, None, watched, controllers, attempt_timeout, attempt_timeout * 2, peers);
        let call = tokio::spawn(async move {
            client.call(ApiKey::BrokerHeartbeat, 1, Bytes::from_static(b"heartbeat"), None).await
        });
        paused_received.await.expect("the paused controller got the request");
        leadership.send_replace(Leadership { epoch: 2, leader_id: Some(3) });
        let answered = tokio::time::timeout(Duration::from_secs(10), call).await;
        let answer = answered.expect("answered before the attempt's timeout").expect("the task");
        assert_eq!(answer, Ok((Bytes::from_static(b"answered"), 7)));
    }
}
