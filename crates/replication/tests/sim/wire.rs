//! The network as the simulation holds it: every follower Fetch and every leader AlterPartition
//! waits in a [`Wire`] until a step delivers, answers, delays (by not choosing it) or drops it.
//! [`SimTransport`] and [`SimIsrChannel`] are what the replica managers see; the `Sim` methods here
//! are the steps that move messages: a leader answers a fetch (encoded and decoded at
//! `REPLICA_FETCH_VERSION`, file regions read at once, as a connection sends them), the answer
//! reaches its follower, the controller decides an AlterPartition (its answer delivered now, later
//! or never), or a message is lost.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use strand_base::BrokerId;
use strand_metadata::controller::alter_partition;
use strand_protocol::Message;
use strand_protocol::codec::Records;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{FetchRequest, FetchResponse};
use strand_replication::{
    AlterPartitionItem, BoxFuture, IsrChannel, LeaderAndIsr, REPLICA_FETCH_VERSION, ReplicaTransport, TransportError,
};
use tokio::sync::oneshot;

use super::{ALTER_PARTITION_VERSION, Sim, ids, lock};

/// Messages in flight, as the simulation holds them.
#[derive(Debug, Default)]
pub(super) struct Wire {
    pub(super) fetches: Vec<WireFetch>,
    pub(super) alters: Vec<WireAlter>,
}

/// A follower's Fetch: waiting for its leader, then (answered) for delivery back.
#[derive(Debug)]
pub(super) struct WireFetch {
    pub(super) from: BrokerId,
    pub(super) incarnation: u32,
    pub(super) to: BrokerId,
    /// As the follower encoded it.
    pub(super) request: Bytes,
    /// The leader's answer, encoded, once it answered.
    pub(super) response: Option<Bytes>,
    /// Set while the leader holds it (a long poll): neither deliverable nor answered yet.
    pub(super) held: Option<u64>,
    /// Whether the leader held it (its answer is described when delivered, not when taken).
    pub(super) was_held: bool,
    pub(super) reply: oneshot::Sender<Result<FetchResponse, TransportError>>,
}

/// A leader's AlterPartition: waiting for the controller, then (decided) for delivery back.
#[derive(Debug)]
pub(super) struct WireAlter {
    pub(super) from: BrokerId,
    pub(super) incarnation: u32,
    pub(super) broker_epoch: i64,
    pub(super) item: AlterPartitionItem,
    pub(super) answer: Option<Result<LeaderAndIsr, ErrorCode>>,
    pub(super) reply: oneshot::Sender<Result<LeaderAndIsr, ErrorCode>>,
}

impl Wire {
    /// Forgets messages nobody waits for (their fetcher or task ended), and orders the rest by
    /// content, so that the order tasks happened to send them in does not matter.
    pub(super) fn tidy(&mut self) {
        self.fetches.retain(|f| !f.reply.is_closed());
        self.alters.retain(|a| !a.reply.is_closed());
        self.fetches.sort_by(|a, b| {
            (a.from, a.to, a.incarnation, &a.request, &a.response).cmp(&(
                b.from,
                b.to,
                b.incarnation,
                &b.request,
                &b.response,
            ))
        });
        self.alters.sort_by_key(alter_key);
    }
}

pub(super) fn alter_key(a: &WireAlter) -> (BrokerId, u32, i32, i32, i32, Vec<BrokerId>, bool) {
    let item = &a.item;
    (
        a.from,
        a.incarnation,
        item.topic_partition.partition,
        item.leader_epoch,
        item.partition_epoch,
        item.isr(),
        a.answer.is_some(),
    )
}

/// A node incarnation's fetches, into the [`Wire`].
#[derive(Debug)]
pub(super) struct SimTransport {
    pub(super) from: BrokerId,
    pub(super) incarnation: u32,
    pub(super) wire: Arc<Mutex<Wire>>,
}

impl ReplicaTransport for SimTransport {
    fn fetch(
        &self,
        leader: BrokerId,
        request: FetchRequest,
    ) -> BoxFuture<'static, Result<FetchResponse, TransportError>> {
        let (reply, answer) = oneshot::channel();
        let request = request.encode_to_bytes(REPLICA_FETCH_VERSION).expect("the fetcher's request encodes");
        lock(&self.wire).fetches.push(WireFetch {
            from: self.from,
            incarnation: self.incarnation,
            to: leader,
            request,
            response: None,
            held: None,
            was_held: false,
            reply,
        });
        Box::pin(async move { answer.await.unwrap_or_else(|_| Err(TransportError("connection lost".into()))) })
    }
}

/// A node incarnation's AlterPartitions, into the [`Wire`]. Once the incarnation is dead, every
/// submission is refused at once, so that its retrying tasks end.
#[derive(Debug)]
pub(super) struct SimIsrChannel {
    pub(super) from: BrokerId,
    pub(super) incarnation: u32,
    pub(super) broker_epoch: i64,
    pub(super) alive: Arc<AtomicBool>,
    pub(super) wire: Arc<Mutex<Wire>>,
}

impl IsrChannel for SimIsrChannel {
    fn submit(&self, item: AlterPartitionItem) -> BoxFuture<'static, Result<LeaderAndIsr, ErrorCode>> {
        if !self.alive.load(Ordering::SeqCst) {
            return Box::pin(std::future::ready(Err(ErrorCode::OperationNotAttempted)));
        }
        let (reply, answer) = oneshot::channel();
        lock(&self.wire).alters.push(WireAlter {
            from: self.from,
            incarnation: self.incarnation,
            broker_epoch: self.broker_epoch,
            item,
            answer: None,
            reply,
        });
        Box::pin(async move { answer.await.unwrap_or(Err(ErrorCode::RequestTimedOut)) })
    }
}

/// The response with its file regions read into memory at once, as a connection sends them
/// (the leader's file may be truncated later).
pub(super) fn in_memory(mut response: FetchResponse) -> FetchResponse {
    for topic in &mut response.responses {
        for partition in &mut topic.partitions {
            if let Some(Records::File(region)) = &partition.records {
                use std::os::unix::fs::FileExt;
                let mut buf = vec![0u8; region.len as usize];
                region.file.read_exact_at(&mut buf, region.position).expect("read region");
                partition.records = Some(Records::Bytes(Bytes::from(buf)));
            }
        }
    }
    response
}

/// How the controller's answer to an AlterPartition travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AnswerFate {
    Now,
    Later,
    Lost,
}

impl Sim {
    /// The indices of the fetches waiting for their leader (`answered` false) or for delivery.
    pub(super) fn fetches(&self, answered: bool) -> Vec<usize> {
        let wire = lock(&self.wire);
        let ready = |f: &WireFetch| f.held.is_none() && f.response.is_some() == answered;
        (0..wire.fetches.len()).filter(|k| ready(&wire.fetches[*k])).collect()
    }

    pub(super) fn alters(&self, answered: bool) -> Vec<usize> {
        let wire = lock(&self.wire);
        (0..wire.alters.len()).filter(|k| wire.alters[*k].answer.is_some() == answered).collect()
    }

    /// One of the fetches `ks`, each as likely as its follower is fast.
    pub(super) fn pick_fetch(&mut self, ks: &[usize]) -> usize {
        let weights: Vec<u32> = {
            let wire = lock(&self.wire);
            ks.iter().map(|k| self.nodes[Self::index(wire.fetches[*k].from)].speed).collect()
        };
        let mut roll = (self.rng.next_u64() % u64::from(weights.iter().sum::<u32>())) as u32;
        for (k, w) in ks.iter().zip(&weights) {
            if roll < *w {
                return *k;
            }
            roll -= w;
        }
        ks[ks.len() - 1]
    }

    /// Whether fetch `k` can reach a running leader now.
    pub(super) fn deliverable(&self, k: usize) -> bool {
        let wire = lock(&self.wire);
        let f = &wire.fetches[k];
        self.linked(f.from, f.to)
            && self.nodes[Self::index(f.from)].incarnation == f.incarnation
            && self.running(f.to).is_some()
    }

    pub(super) fn lose_fetch(&mut self, k: usize, why: &str) {
        let fetch = lock(&self.wire).fetches.remove(k);
        self.stats.fetches_lost += 1;
        self.note(format!("fetch {} -> {} lost ({why})", fetch.from, fetch.to));
        let _ = fetch.reply.send(Err(TransportError(why.to_owned())));
    }

    /// The leader answers fetch `k` (it stays on the wire until delivered).
    pub(super) async fn fetch_to_leader(&mut self, k: usize) {
        let (from, incarnation, to, request) = {
            let wire = lock(&self.wire);
            let f = &wire.fetches[k];
            (f.from, f.incarnation, f.to, f.request.clone())
        };
        let from_now = &self.nodes[Self::index(from)];
        if !self.linked(from, to) || from_now.incarnation != incarnation {
            return self.lose_fetch(k, "unreachable");
        }
        let Some(leader) = self.nodes[Self::index(to)].manager.clone() else {
            return self.lose_fetch(k, "connection refused");
        };
        let request = FetchRequest::decode_exact(request, REPLICA_FETCH_VERSION).expect("the request decodes");
        let asked = describe_request(&request);
        if self.shape.fetch_wait_ms > 0 {
            // A long poll: the leader answers on its own time, on a task.
            let id = self.next_fetch_id;
            self.next_fetch_id += 1;
            let mut wire = lock(&self.wire);
            (wire.fetches[k].held, wire.fetches[k].was_held) = (Some(id), true);
            drop(wire);
            let wire = self.wire.clone();
            let task = tokio::spawn(async move {
                let response = leader.replica_fetch(request, REPLICA_FETCH_VERSION).await;
                let encoded = in_memory(response).encode_to_bytes(REPLICA_FETCH_VERSION).expect("the response encodes");
                if let Some(f) = lock(&wire).fetches.iter_mut().find(|f| f.held == Some(id)) {
                    f.response = Some(encoded);
                    f.held = None;
                }
            });
            self.held.insert(id, (to, task));
            self.stats.fetches_answered += 1;
            self.note(format!("fetch {from} -> {to} {asked} held by the leader (#{id})"));
            return;
        }
        let response = leader.replica_fetch(request, REPLICA_FETCH_VERSION).await;
        let answered = describe_response(&response);
        let encoded = in_memory(response).encode_to_bytes(REPLICA_FETCH_VERSION).expect("the response encodes");
        lock(&self.wire).fetches[k].response = Some(encoded);
        self.stats.fetches_answered += 1;
        self.note(format!("fetch {from} -> {to} {asked} answered: {answered}"));
    }

    /// The fetches leader `id` holds end with it: their followers' connections break.
    pub(super) async fn end_held_fetches(&mut self, id: BrokerId) {
        let ended: Vec<u64> = self.held.iter().filter(|(_, (leader, _))| *leader == id).map(|(k, _)| *k).collect();
        for key in ended {
            let Some((_, task)) = self.held.remove(&key) else { continue };
            task.abort();
            let _ = task.await;
            let mut wire = lock(&self.wire);
            if let Some(k) = wire.fetches.iter().position(|f| f.held == Some(key)) {
                let fetch = wire.fetches.remove(k);
                let _ = fetch.reply.send(Err(TransportError("the leader went away".into())));
            }
        }
    }

    /// Fetch `k`'s answer reaches its follower.
    pub(super) fn fetch_to_follower(&mut self, k: usize) {
        let (from, incarnation, to) = {
            let wire = lock(&self.wire);
            let f = &wire.fetches[k];
            (f.from, f.incarnation, f.to)
        };
        if !self.linked(from, to) || self.nodes[Self::index(from)].incarnation != incarnation {
            return self.lose_fetch(k, "the answer was cut off");
        }
        let fetch = lock(&self.wire).fetches.remove(k);
        let bytes = fetch.response.expect("answered");
        let response = FetchResponse::decode_exact(bytes, REPLICA_FETCH_VERSION).expect("the response decodes");
        let answered = if fetch.was_held { format!(": {}", describe_response(&response)) } else { String::new() };
        let _ = fetch.reply.send(Ok(response));
        self.note(format!("fetch answer {to} -> {from} delivered{answered}"));
    }

    /// The controller decides AlterPartition `k`.
    pub(super) fn alter_at_controller(&mut self, k: usize, fate: AnswerFate) {
        let mut alter = lock(&self.wire).alters.remove(k);
        let i = Self::index(alter.from);
        if !self.reaches_controller(i) || self.nodes[i].incarnation != alter.incarnation {
            self.stats.alters_lost += 1;
            self.note(format!("AlterPartition from {} lost on the way", alter.from));
            let _ = alter.reply.send(Err(ErrorCode::RequestTimedOut));
            return;
        }
        let item = &alter.item;
        let request = item.request(alter.from, alter.broker_epoch);
        let image = self.controller.image().clone();
        let result = alter_partition(&image, &request, ALTER_PARTITION_VERSION, &self.controller.defaults);
        self.controller.apply(&result.records);
        let answer = LeaderAndIsr::from_response(&result.response);
        self.stats.alters_decided += 1;
        if answer.is_ok() {
            self.stats.alters_accepted += 1;
        }
        self.note(format!(
            "AlterPartition from {} for p{} (epochs {}/{}) isr {:?}: {:?}, answer {fate:?}",
            alter.from,
            item.topic_partition.partition,
            item.leader_epoch,
            item.partition_epoch,
            ids(&item.isr()),
            answer.as_ref().map(|a| (ids(&a.isr), a.partition_epoch)),
        ));
        match fate {
            AnswerFate::Now => {
                let _ = alter.reply.send(answer);
            }
            AnswerFate::Later => {
                alter.answer = Some(answer);
                lock(&self.wire).alters.push(alter);
            }
            AnswerFate::Lost => {
                self.stats.alters_lost += 1;
                let _ = alter.reply.send(Err(ErrorCode::RequestTimedOut));
            }
        }
    }

    pub(super) fn alter_answer(&mut self, k: usize) {
        let alter = lock(&self.wire).alters.remove(k);
        let i = Self::index(alter.from);
        let answer = alter.answer.expect("decided");
        if self.reaches_controller(i) && self.nodes[i].incarnation == alter.incarnation {
            self.note(format!("AlterPartition answer to {} delivered", alter.from));
            let _ = alter.reply.send(answer);
        } else {
            self.stats.alters_lost += 1;
            self.note(format!("AlterPartition answer to {} lost", alter.from));
            let _ = alter.reply.send(Err(ErrorCode::RequestTimedOut));
        }
    }

    pub(super) fn alter_lost(&mut self, k: usize) {
        let alter = lock(&self.wire).alters.remove(k);
        self.stats.alters_lost += 1;
        self.note(format!("AlterPartition from {} lost (answered: {})", alter.from, alter.answer.is_some()));
        let _ = alter.reply.send(Err(ErrorCode::RequestTimedOut));
    }
}

/// A fetch's partitions, as (partition, fetch offset, leader epoch), for the trace.
fn describe_request(request: &FetchRequest) -> String {
    let partitions: Vec<(i32, i64, i32)> = request
        .topics
        .iter()
        .flat_map(|t| t.partitions.iter().map(|p| (p.partition, p.fetch_offset, p.current_leader_epoch)))
        .collect();
    format!("(partition, offset, epoch) {partitions:?}")
}

/// A fetch answer's partitions (error, high watermark, bytes, diverging epoch), for the trace.
fn describe_response(response: &FetchResponse) -> String {
    let partitions: Vec<String> = response
        .responses
        .iter()
        .flat_map(|t| t.partitions.iter())
        .map(|p| {
            let len = p.records.as_ref().map_or(0, Records::len);
            let diverging = &p.diverging_epoch;
            let diverging = if diverging.epoch >= 0 {
                format!(" diverging ({}, {})", diverging.epoch, diverging.end_offset)
            } else {
                String::new()
            };
            format!("p{} err {} hw {} {len}B{diverging}", p.partition_index, p.error_code, p.high_watermark)
        })
        .collect();
    format!("{partitions:?}")
}
