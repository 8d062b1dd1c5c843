//! Request dispatch: a frame in, a frame (or nothing, or a closed connection) out (see the
//! crate doc), and the table of the APIs this node serves.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use strand_base::background::{BACKGROUND_FRAME_BYTES, in_background};
use strand_protocol::frame::{
    FrameChunk, RequestError, ResponseFrame, api_versions_fallback, decode_request_body, parse_request,
};
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_security::Session;

use crate::channels::BoxFuture;
use crate::{Broker, handlers};

/// What the connection does with a request's outcome.
#[derive(Debug)]
pub enum Outcome {
    /// Send this frame (size prefix included): its bytes and, for Fetch, file regions to send
    /// from their segment files.
    Respond(ResponseFrame),
    /// Send nothing (Produce with `acks=0`).
    NoResponse,
    /// Close the connection, logging why.
    Close(String),
    /// A throttled client's answer (KIP-219): send the frame if any (acks=0 has none), then
    /// read nothing more from the connection for the duration.
    Throttled(Option<ResponseFrame>, std::time::Duration),
    /// Send this frame, then close the connection, logging why (a failed SASL
    /// re-authentication's answer).
    RespondAndClose(ResponseFrame, String),
}

/// How far a request got before an acks=all Produce waits for its replicas (it waits on nothing
/// it changes): `Done` with its result, or `Waiting` with what finishes it. One shape for that
/// hand-off at every level, from the Produce handler ([`handlers::produce::Produced`]) up to the
/// connection ([`Handled`]). Everything the request changes is done before it waits; what the
/// connection handles meanwhile comes after it.
pub enum Progress<T, W> {
    Done(T),
    Waiting(W),
}

/// A request as the connection gets it: its outcome, or a future resolving to it.
pub type Handled = Progress<Outcome, BoxFuture<'static, Outcome>>;

impl<T, W> Progress<T, W> {
    /// The same hand-off with its `Done` result changed by `f`.
    pub fn map_done<U>(self, f: impl FnOnce(T) -> U) -> Progress<U, W> {
        match self {
            Progress::Done(done) => Progress::Done(f(done)),
            Progress::Waiting(wait) => Progress::Waiting(wait),
        }
    }
}

impl<T: std::fmt::Debug, W> std::fmt::Debug for Progress<T, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Progress::Done(done) => f.debug_tuple("Done").field(done).finish(),
            Progress::Waiting(_) => f.write_str("Waiting"),
        }
    }
}

/// An acks=all Produce's wait, with what encoding its response needs after it.
struct ProduceWait {
    wait: handlers::produce::ReplicaWait,
    correlation_id: i32,
    version: i16,
    quota: crate::quotas::QuotaCharge,
    /// When the frame reached the broker (the clock's monotonic reading), for the request's
    /// total time.
    started_ns: u64,
}

impl Broker {
    /// Handles one request frame (without its size prefix) from the client at `peer`, waits
    /// included.
    pub async fn handle(&self, frame: Bytes, session: &Session) -> Outcome {
        match self.start(frame, session).await {
            Progress::Done(outcome) => outcome,
            Progress::Waiting(ProduceWait { wait, correlation_id, version, quota, started_ns }) => {
                let body = ResponseBody::Produce(wait.finish(self).await);
                self.request_answered(ApiKey::Produce, version, started_ns);
                self.quota_finish(&quota, Some(body), correlation_id, version)
            }
        }
    }

    /// Handles one request frame like [`Broker::handle`], but returns an acks=all Produce once
    /// it is appended, with its wait for the replicas to finish ([`Handled::Waiting`]), for the
    /// connection whose handshake settled `session`.
    pub async fn handle_pipelined(self: &Arc<Self>, frame: Bytes, session: &Session) -> Handled {
        match self.start(frame, session).await {
            Progress::Done(outcome) => Handled::Done(outcome),
            // A throttled producer is not pipelined: the connection reads nothing more until
            // its answer and mute (Kafka reads one request at a time and mutes after it).
            Progress::Waiting(ProduceWait { wait, correlation_id, version, quota, started_ns })
                if quota.throttle_ms > 0 =>
            {
                let body = ResponseBody::Produce(wait.finish(self).await);
                self.request_answered(ApiKey::Produce, version, started_ns);
                Handled::Done(self.quota_finish(&quota, Some(body), correlation_id, version))
            }
            Progress::Waiting(ProduceWait { wait, correlation_id, version, quota, started_ns }) => {
                let broker = Arc::clone(self);
                Handled::Waiting(Box::pin(async move {
                    let body = ResponseBody::Produce(wait.finish(&broker).await);
                    broker.request_answered(ApiKey::Produce, version, started_ns);
                    broker.quota_finish(&quota, Some(body), correlation_id, version)
                }))
            }
        }
    }

    /// Parses, checks and dispatches a request, up to an acks=all Produce's wait.
    async fn start(&self, frame: Bytes, session: &Session) -> Progress<Outcome, ProduceWait> {
        let started_ns = self.clock.monotonic_ns();
        let frame_bytes = frame.len();
        let request = match parse_request(frame) {
            Ok(request) => request,
            Err(RequestError::UnsupportedVersion { api: ApiKey::ApiVersions, correlation_id, .. }) => {
                let fallback = api_versions_fallback(correlation_id, handlers::api_versions::served_versions());
                return Progress::Done(respond(fallback));
            }
            Err(e) => return Progress::Done(Outcome::Close(e.to_string())),
        };
        if !handlers::SERVED.contains(&request.api_key) {
            return Progress::Done(Outcome::Close(format!("{:?} is not served by this node", request.api_key)));
        }
        let large = frame_bytes > BACKGROUND_FRAME_BYTES && request.api_key != ApiKey::Produce;
        let decoded =
            if large { in_background(|| decode_request_body(&request)) } else { decode_request_body(&request) };
        let mut body = match decoded {
            Ok(body) => body,
            Err(e) => return Progress::Done(Outcome::Close(e.to_string())),
        };
        let (correlation_id, version) = (request.correlation_id(), request.api_version());
        let client_id = request.header.client_id.as_deref();
        let mut quota = self.quota_start(&mut body, version, frame_bytes, session, client_id);
        let client = Client {
            id: request.header.client_id.as_deref(),
            peer: session.peer,
            listener: &session.listener,
            session,
        };
        let api = request.api_key;
        // A follower's fetch is replication: never lowered (a consumer's of > 1 MiB is).
        let follower = |body: &RequestBody| matches!(body, RequestBody::Fetch(f) if strand_replication::fetch_replica(f, version).0.0 >= 0);
        let dispatched = if large && !follower(&body) {
            self.dispatch_in_background(body, version, client).await
        } else {
            self.dispatch(body, version, client).await
        };
        self.quota_handled(&mut quota);
        match dispatched {
            Ok(Progress::Done(body)) => {
                self.request_answered(api, version, started_ns);
                Progress::Done(self.quota_finish(&quota, body, correlation_id, version))
            }
            Ok(Progress::Waiting(wait)) => {
                Progress::Waiting(ProduceWait { wait, correlation_id, version, quota, started_ns })
            }
            Err(reason) => Progress::Done(Outcome::Close(reason)),
        }
    }

    /// [`Broker::dispatch`] of a large request (a frame over [`BACKGROUND_FRAME_BYTES`] but a
    /// Produce or a follower's Fetch: an admin request or a consumer's Fetch naming tens of
    /// thousands of topics, partitions or groups) on a thread of lowered
    /// priority, so that its work (sets of names, authorization, copies, the answer) does not
    /// take the CPU from other clients' requests; at most [`BACKGROUND_REQUESTS_MAX`] at a time,
    /// the others waiting for a place. Inline on a current-thread runtime (tests), which cannot
    /// lend its thread.
    async fn dispatch_in_background(
        &self,
        body: RequestBody,
        version: i16,
        client: Client<'_>,
    ) -> Result<Progress<Option<ResponseBody>, handlers::produce::ReplicaWait>, String> {
        let runtime = tokio::runtime::Handle::current();
        if runtime.runtime_flavor() != tokio::runtime::RuntimeFlavor::MultiThread {
            return self.dispatch(body, version, client).await;
        }
        // The semaphore is never closed.
        let _place = self.background.acquire().await.map_err(|e| e.to_string())?;
        in_background(|| runtime.block_on(self.dispatch(body, version, client)))
    }

    /// Counts a request of `api` at `version` whose answer is ready (or, acks=0, needs none), and
    /// its total time since `started_ns`. A request that closes its connection is not counted.
    fn request_answered(&self, api: ApiKey, version: i16, started_ns: u64) {
        let elapsed_ns = self.clock.monotonic_ns().saturating_sub(started_ns);
        self.metrics.requests.record(api, version, elapsed_ns);
    }
}

/// How many large requests ([`Broker::dispatch_in_background`]) a node handles at once: each
/// holds a thread while it waits (for the controller, say), and a client sending them back to
/// back from many connections would otherwise keep every core busy with them.
pub const BACKGROUND_REQUESTS_MAX: usize = 2;

/// Who sent a request.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Client<'a> {
    /// The request header's client id.
    pub id: Option<&'a str>,
    pub peer: SocketAddr,
    /// The listener the request arrived on: the endpoints Metadata, DescribeCluster and
    /// FindCoordinator answer with, as Kafka does.
    pub listener: &'a str,
    /// The connection's identity, for [`Broker::authorize`].
    pub session: &'a Session,
}

fn respond(frame: Result<Bytes, strand_protocol::EncodeError>) -> Outcome {
    match frame {
        Ok(frame) => Outcome::Respond(frame.into()),
        Err(e) => Outcome::Close(format!("could not encode the response: {e}")),
    }
}

/// The frame's bytes in memory, file regions read with positioned reads: for transports that
/// cannot send from a file (TLS) and for tests. Fails if a file is shorter than its region (it
/// was truncated meanwhile).
pub fn frame_to_bytes(frame: &ResponseFrame) -> std::io::Result<Bytes> {
    let mut out = Vec::with_capacity(frame.len());
    for chunk in &frame.chunks {
        match chunk {
            FrameChunk::Bytes(bytes) => out.extend_from_slice(bytes),
            FrameChunk::File(region) => out.extend_from_slice(&strand_log::file::read_range(
                &region.file,
                region.position,
                u64::from(region.len),
            )?),
        }
    }
    Ok(Bytes::from(out))
}
