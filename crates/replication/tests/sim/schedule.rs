//! What happens when: [`Sim::random_step`] picks one step by weight among those that can happen
//! (messages delivered, delayed or lost; produces and polls; metadata, heartbeats, sessions, clock
//! jumps, ISR checks, checkpoints; crashes, controlled shutdowns, restarts, registrations,
//! network cuts; preferred elections; follower speeds), with faults only in storms between calm
//! spells; then [`Sim::converge`] heals everything and drives the cluster until it is whole
//! again, takes a new acks=all write, and a consumer finds every acknowledged record.

use strand_base::Clock;
use strand_metadata::controller::{
    ControllerDefaults, ELECTIONS_PER_CALL_MAX, LeaderRebalance, elect_leaders, preferred_leader_moves,
};
use strand_metadata::image::NO_LEADER;
use strand_protocol::messages::ElectLeadersRequest;
use strand_protocol::messages::elect_leaders_request::TopicPartitions;
use strand_replication::{Acks, Isolation, ReplicaRole};

use super::clients::records_of;
use super::controller::Controller;
use super::wire::AnswerFate;
use super::{CONVERGE_ROUNDS_MAX, Sim, TICK, TOPIC, ids, sorted};

/// The kinds of step, picked by weight among those that can happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    FetchToLeader,
    /// A fetch to a leader that is down or cut off (it fails).
    FetchToDeadEnd,
    FetchToFollower,
    FetchLost,
    AlterAtController,
    AlterAnswer,
    AlterLost,
    Produce,
    GiveUp,
    Poll,
    Metadata,
    Heartbeat,
    SessionCheck,
    AdvanceClock,
    IsrCheck,
    Checkpoint,
    Crash,
    Shutdown,
    Rebalance,
    ElectPreferred,
    Boot,
    Register,
    Isolate,
    CutController,
    Heal,
    /// The followers' speeds change.
    Weather,
}

/// What may happen at a step: the candidates of each kind (indices into the wire's fetches and
/// AlterPartitions, and into the nodes).
#[derive(Debug)]
struct Candidates {
    /// Fetches a running leader can answer now, and fetches bound to fail.
    requests: Vec<usize>,
    doomed: Vec<usize>,
    /// Answered fetches.
    responses: Vec<usize>,
    alters_new: Vec<usize>,
    alters_answered: Vec<usize>,
    /// Nodes behind on metadata that the controller reaches.
    lagging: Vec<usize>,
    down: Vec<usize>,
    unregistered: Vec<usize>,
    cut: Vec<usize>,
    up: Vec<usize>,
    running: Vec<usize>,
    stopping: bool,
}

impl Sim {
    /// One random step.
    pub(super) async fn random_step(&mut self) -> Result<(), String> {
        let candidates = self.candidates();
        self.next_phase();
        let kind = self.choose(&candidates);
        self.perform(kind, &candidates).await
    }

    fn candidates(&self) -> Candidates {
        let n = self.nodes.len();
        let nodes = |keep: &dyn Fn(usize) -> bool| (0..n).filter(|i| keep(*i)).collect::<Vec<_>>();
        let (requests, doomed) = self.fetches(false).into_iter().partition(|k| self.deliverable(*k));
        let latest = self.controller.history.len() - 1;
        Candidates {
            requests,
            doomed,
            responses: self.fetches(true),
            alters_new: self.alters(false),
            alters_answered: self.alters(true),
            lagging: nodes(&|i| self.reaches_controller(i) && self.nodes[i].applied < latest),
            down: nodes(&|i| !self.nodes[i].up),
            unregistered: nodes(&|i| self.reaches_controller(i) && self.nodes[i].broker_epoch.is_none()),
            cut: nodes(&|i| self.nodes[i].isolated || self.nodes[i].controller_cut),
            up: nodes(&|i| self.nodes[i].up),
            running: nodes(&|i| self.nodes[i].manager.is_some()),
            stopping: self.nodes.iter().any(|n| n.stopping),
        }
    }

    /// Faults come in storms (5 to 30 steps); in between (15 to 70 steps), the cluster recovers.
    fn next_phase(&mut self) {
        if self.step < self.phase_end {
            return;
        }
        self.storm = !self.storm;
        let length = if self.storm { self.rng.between(5, 30) } else { self.rng.between(15, 70) };
        self.phase_end = self.step + length as usize;
        let phase = if self.storm { "storm" } else { "calm" };
        self.note(format!("{phase} for {length} steps"));
    }

    /// A kind of step, by weight among those that can happen now.
    fn choose(&mut self, c: &Candidates) -> Kind {
        let n = self.nodes.len();
        let (storm, calm) = (u32::from(self.storm), u32::from(!self.storm));
        let chaos = self.shape.chaos * storm;
        let when = |possible: bool, weight: u32| if possible { weight } else { 0 };
        let any_fetch = !(c.requests.is_empty() && c.doomed.is_empty() && c.responses.is_empty());
        let any_alter = !(c.alters_new.is_empty() && c.alters_answered.is_empty());
        let may_fail = c.up.len() + 1 >= n && !c.up.is_empty();
        let weights: [(Kind, u32); 26] = [
            (Kind::FetchToLeader, when(!c.requests.is_empty(), 24)),
            (Kind::FetchToDeadEnd, when(!c.doomed.is_empty(), 2)),
            (Kind::FetchToFollower, when(!c.responses.is_empty(), 24)),
            (Kind::FetchLost, when(any_fetch, 2 * chaos)),
            (Kind::AlterAtController, when(!c.alters_new.is_empty(), 8)),
            (Kind::AlterAnswer, when(!c.alters_answered.is_empty(), 8)),
            (Kind::AlterLost, when(any_alter, chaos)),
            (Kind::Produce, 14),
            (Kind::GiveUp, when(!self.produces.is_empty(), 1)),
            (Kind::Poll, 6),
            (Kind::Metadata, when(!c.lagging.is_empty(), 12)),
            (Kind::Heartbeat, 3),
            (Kind::SessionCheck, 1),
            (Kind::AdvanceClock, 7),
            (Kind::IsrCheck, when(!c.running.is_empty(), 3)),
            (Kind::Checkpoint, when(!c.running.is_empty(), 1)),
            (Kind::Crash, when(may_fail, 2 * chaos)),
            (Kind::Shutdown, when(may_fail && !c.stopping && !c.running.is_empty(), storm)),
            (Kind::Rebalance, 1 + chaos),
            (Kind::ElectPreferred, 2 + chaos),
            (Kind::Boot, when(!c.down.is_empty(), 1 + 5 * calm)),
            (Kind::Register, when(!c.unregistered.is_empty(), 6)),
            (Kind::Isolate, when(c.cut.is_empty() && !c.up.is_empty(), chaos)),
            (Kind::CutController, when(c.cut.is_empty() && !c.up.is_empty(), chaos)),
            (Kind::Heal, when(!c.cut.is_empty(), 1 + 5 * calm)),
            (Kind::Weather, 2),
        ];
        let total: u32 = weights.iter().map(|(_, w)| w).sum();
        let mut roll = (self.rng.next_u64() % u64::from(total)) as u32;
        for (kind, weight) in weights {
            if roll < weight {
                return kind;
            }
            roll -= weight;
        }
        unreachable!("the roll is below the total")
    }

    async fn perform(&mut self, kind: Kind, c: &Candidates) -> Result<(), String> {
        match kind {
            Kind::FetchToLeader => {
                let k = self.pick_fetch(&c.requests);
                self.fetch_to_leader(k).await;
            }
            Kind::FetchToDeadEnd => {
                let k = self.rng.pick(&c.doomed);
                self.fetch_to_leader(k).await;
            }
            Kind::FetchToFollower => {
                let k = self.pick_fetch(&c.responses);
                self.fetch_to_follower(k);
            }
            Kind::FetchLost => {
                let all: Vec<usize> = c.requests.iter().chain(&c.doomed).chain(&c.responses).copied().collect();
                let k = self.rng.pick(&all);
                self.lose_fetch(k, "dropped");
            }
            Kind::AlterAtController => {
                let k = self.rng.pick(&c.alters_new);
                let fate = match self.rng.below(20) {
                    0..=13 => AnswerFate::Now,
                    19 if self.storm => AnswerFate::Lost,
                    _ => AnswerFate::Later,
                };
                self.alter_at_controller(k, fate);
            }
            Kind::AlterAnswer => {
                let k = self.rng.pick(&c.alters_answered);
                self.alter_answer(k);
            }
            Kind::AlterLost => {
                let all: Vec<usize> = c.alters_new.iter().chain(&c.alters_answered).copied().collect();
                let k = self.rng.pick(&all);
                self.alter_lost(k);
            }
            Kind::Produce => {
                let part = self.rng.below(self.shape.partitions);
                let acks = if self.rng.chance(75) { Acks::All } else { Acks::Leader };
                let stale = self.rng.chance(20);
                self.produce(part, acks, stale);
            }
            Kind::GiveUp => self.give_up(),
            Kind::Poll => {
                let r = self.rng.below(self.readers.len());
                let part = self.rng.below(self.shape.partitions);
                self.poll(r, part);
            }
            Kind::Metadata => {
                let i = self.rng.pick(&c.lagging);
                let latest = self.controller.history.len() - 1;
                let to = if self.rng.chance(60) { self.nodes[i].applied + 1 } else { latest };
                let id = self.nodes[i].id;
                self.note(format!("metadata to {id}: {} -> {to} of {latest}", self.nodes[i].applied));
                self.replay(i, to)?;
            }
            Kind::Heartbeat => {
                let i = self.rng.below(self.nodes.len());
                self.heartbeat(i).await?;
            }
            Kind::SessionCheck => self.session_check(),
            Kind::AdvanceClock => self.advance_clock().await?,
            Kind::IsrCheck => {
                let i = self.rng.pick(&c.running);
                self.isr_check(i);
            }
            Kind::Checkpoint => {
                let i = self.rng.pick(&c.running);
                self.checkpoint(i);
            }
            Kind::Crash => {
                let i = self.rng.pick(&c.up);
                self.stop(i, false).await;
            }
            Kind::Shutdown => {
                let i = self.rng.pick(&c.running);
                self.nodes[i].stopping = true;
                let id = self.nodes[i].id;
                self.note(format!("node {id} asked to stop (controlled shutdown)"));
                self.heartbeat(i).await?;
            }
            Kind::Rebalance => self.rebalance(),
            Kind::ElectPreferred => {
                let part = self.rng.below(self.shape.partitions);
                self.elect_preferred(part);
            }
            Kind::Boot => {
                let i = self.rng.pick(&c.down);
                self.boot(i);
            }
            Kind::Register => {
                let i = self.rng.pick(&c.unregistered);
                self.register(i);
            }
            Kind::Isolate | Kind::CutController => {
                let i = self.rng.pick(&c.up);
                let whom = if kind == Kind::Isolate { "the cluster" } else { "the controller" };
                self.nodes[i].isolated = kind == Kind::Isolate;
                self.nodes[i].controller_cut = kind == Kind::CutController;
                let id = self.nodes[i].id;
                self.note(format!("node {id} cut off from {whom}"));
            }
            Kind::Heal => {
                let i = self.rng.pick(&c.cut);
                self.nodes[i].isolated = false;
                self.nodes[i].controller_cut = false;
                let id = self.nodes[i].id;
                self.note(format!("node {id} reconnected"));
            }
            Kind::Weather => {
                for i in 0..self.nodes.len() {
                    self.nodes[i].speed = self.rng.pick(&[1, 3, 3, 8]);
                }
                let speeds: Vec<u32> = self.nodes.iter().map(|n| n.speed).collect();
                self.note(format!("fetch speeds {speeds:?}"));
            }
        }
        Ok(())
    }

    /// Cluster time passes: most live brokers heartbeat first (every
    /// `broker.heartbeat.interval.ms`), then the periodic tasks may run: ISR checks, checkpoints,
    /// and the controller's look for expired sessions.
    async fn advance_clock(&mut self) -> Result<(), String> {
        let jump = self.storm && self.rng.chance(5 * u64::from(self.shape.chaos));
        let ms = if jump { self.rng.between(2_000, 6_000) } else { self.rng.between(50, 1_200) };
        for i in 0..self.nodes.len() {
            if self.rng.chance(85) {
                self.heartbeat(i).await?;
            }
        }
        self.clock.advance(ms);
        self.note(format!("clock +{ms} ms"));
        for i in 0..self.nodes.len() {
            if self.nodes[i].manager.is_some() && self.rng.chance(50) {
                self.isr_check(i);
            }
            if self.nodes[i].manager.is_some() && self.rng.chance(15) {
                self.checkpoint(i);
            }
        }
        if self.rng.chance(60) {
            self.session_check();
        }
        Ok(())
    }

    /// `auto.leader.rebalance.enable`: every partition whose preferred replica can lead moves back.
    fn rebalance(&mut self) {
        let rebalance = LeaderRebalance { imbalance_per_broker_percentage: 0, elections_max: ELECTIONS_PER_CALL_MAX };
        let records = preferred_leader_moves(self.controller.image(), &rebalance, &ControllerDefaults::default());
        if !records.is_empty() {
            self.controller.apply(&records);
            self.stats.elections_requested += 1;
            let p = self.leaders_line();
            self.note(format!("preferred leaders restored: {p}"));
        }
    }

    /// ElectLeaders (preferred) for one partition.
    fn elect_preferred(&mut self, part: usize) {
        let request = ElectLeadersRequest {
            election_type: 0,
            topic_partitions: Some(vec![TopicPartitions {
                topic: TOPIC.to_owned(),
                partitions: vec![part as i32],
                ..Default::default()
            }]),
            ..Default::default()
        };
        let result = elect_leaders(self.controller.image(), &request, &ControllerDefaults::default());
        if !result.records.is_empty() {
            self.controller.apply(&result.records);
            self.stats.elections_requested += 1;
            let p = self.leaders_line();
            self.note(format!("preferred election for p{part}: {p}"));
        }
    }

    pub(super) fn isr_check(&mut self, i: usize) {
        let Some(manager) = self.nodes[i].manager.as_ref() else { return };
        let proposed = manager.maybe_shrink_isr(self.clock.now_ms());
        if proposed > 0 {
            let id = self.nodes[i].id;
            self.note(format!("node {id} proposes shrinking {proposed} ISRs"));
        }
    }

    pub(super) fn checkpoint(&mut self, i: usize) {
        let Some(manager) = self.nodes[i].manager.as_ref() else { return };
        manager.checkpoint().expect("checkpoint");
    }

    pub(super) async fn converge(&mut self) -> Result<(), String> {
        self.note("healing: every node reconnects and starts, every message is delivered".into());
        for node in &mut self.nodes {
            node.isolated = false;
            node.controller_cut = false;
        }
        let mut final_writes: Vec<u64> = Vec::new();
        let mut why = String::new();
        for round in 0..CONVERGE_ROUNDS_MAX {
            self.step = self.steps + round;
            self.healing_round().await?;
            self.stats.converge_rounds += 1;
            self.stats.converge_rounds_max = self.stats.converge_rounds_max.max(round as u64 + 1);
            if let Err(reason) = self.whole() {
                why = reason;
                continue;
            }
            if final_writes.is_empty() {
                for part in 0..self.shape.partitions {
                    let value = self.next_value;
                    self.produce(part, Acks::All, false);
                    if !self.produces.contains_key(&value) {
                        return Err(format!("the whole cluster refused a final acks=all write to p{part}"));
                    }
                    final_writes.push(value);
                }
                why = "the final acks=all writes are not acknowledged".into();
            } else if final_writes.iter().all(|v| !self.produces.contains_key(v)) {
                let acked = |v: &u64| self.parts.iter().any(|t| t.acked.values().any(|a| a == v));
                if !final_writes.iter().all(acked) {
                    return Err(format!(
                        "liveness: a final acks=all write to the whole cluster failed: {final_writes:?}"
                    ));
                }
                return self.final_checks(&final_writes);
            }
        }
        Err(format!("liveness: the healed cluster did not converge in {CONVERGE_ROUNDS_MAX} rounds: {why}"))
    }

    /// One round of healing: every node starts, registers, catches up with metadata and
    /// heartbeats; three times over, every AlterPartition is decided and answered and every fetch
    /// answered and delivered; then the leaders check their ISRs and cluster time passes.
    async fn healing_round(&mut self) -> Result<(), String> {
        let n = self.nodes.len();
        for i in 0..n {
            if !self.nodes[i].up {
                self.boot(i);
            }
            self.register(i);
        }
        let latest = self.controller.history.len() - 1;
        for i in 0..n {
            self.replay(i, latest)?;
        }
        // Quiescent before a heartbeat may stop a node (and yield to the tasks the replay woke).
        self.settle(TICK).await;
        for i in 0..n {
            self.heartbeat(i).await?;
        }
        for _ in 0..3 {
            let latest = self.controller.history.len() - 1;
            for i in 0..n {
                self.replay(i, latest)?;
            }
            while let Some(k) = self.alters(false).first().copied() {
                self.alter_at_controller(k, AnswerFate::Now);
            }
            // From the last, so that removing one leaves the indices of the others.
            for k in self.alters(true).into_iter().rev() {
                self.alter_answer(k);
            }
            for k in self.fetches(false).into_iter().rev() {
                self.fetch_to_leader(k).await;
            }
            for k in self.fetches(true).into_iter().rev() {
                self.fetch_to_follower(k);
            }
            self.settle(TICK).await;
            self.check()?;
        }
        for i in 0..n {
            self.isr_check(i);
        }
        self.clock.advance(400);
        // Long enough for AlterPartition retries (at most 5 s) to come round.
        self.settle(TICK * 100).await;
        self.check()
    }

    /// Whether every partition has its leader, a full ISR that the leader knows, every replica at
    /// the leader's end and the high watermark there.
    pub(super) fn whole(&self) -> Result<(), String> {
        let image = self.controller.image();
        let latest = self.controller.history.len() - 1;
        if let Some(node) = self.nodes.iter().find(|n| n.manager.is_none() || n.applied != latest) {
            return Err(format!("node {} is not running or behind on metadata", node.id));
        }
        for part in 0..self.shape.partitions {
            let p = Controller::partition(image, part);
            let tp = &self.parts[part].tp;
            let Some(leader) = (p.leader != NO_LEADER).then(|| self.running(p.leader)).flatten() else {
                return Err(format!("{tp} has no leader"));
            };
            let status = leader.partition_status(tp).map_err(|e| e.to_string())?;
            if status.role != ReplicaRole::Leader || status.leader_epoch != p.leader_epoch {
                return Err(format!("{tp}: {} does not lead yet: {status:?}", p.leader));
            }
            if p.isr.len() != p.replicas.len() || sorted(&status.isr) != sorted(&p.isr) || status.isr_change_in_flight {
                return Err(format!("{tp}: ISR {:?} (leader's {:?})", ids(&p.isr), ids(&status.isr)));
            }
            if status.high_watermark != status.log_end_offset {
                return Err(format!(
                    "{tp}: high watermark {} < log end {}",
                    status.high_watermark, status.log_end_offset
                ));
            }
            for replica in &p.replicas {
                let end = self.running(*replica).and_then(|m| m.log_end_offset(tp).ok());
                if end != Some(status.log_end_offset) {
                    return Err(format!(
                        "{tp}: replica {replica} ends at {end:?}, the leader at {}",
                        status.log_end_offset
                    ));
                }
            }
        }
        Ok(())
    }

    /// After healing: a consumer reads every partition from the start on its leader and finds
    /// the committed log, every acknowledged record included.
    pub(super) fn final_checks(&mut self, final_writes: &[u64]) -> Result<(), String> {
        for part in 0..self.shape.partitions {
            let tp = self.parts[part].tp.clone();
            let leader = Controller::partition(self.controller.image(), part).leader;
            let manager = self.running(leader).expect("a running leader");
            let read = manager.read(&tp, 0, u64::MAX >> 2, Isolation::ReadUncommitted).map_err(|e| e.to_string())?;
            let bytes = read.records.map(|slice| slice.read().expect("read")).unwrap_or_default();
            let values: Vec<u64> = records_of(bytes)?.into_iter().map(|(_, v)| v).collect();
            let track = &self.parts[part];
            if values != track.committed {
                return Err(format!(
                    "{tp}: a consumer reading the healed leader {leader} from 0 finds {} records, the committed \
                     log has {}",
                    values.len(),
                    track.committed.len()
                ));
            }
            for (offset, value) in &track.acked {
                if values.get(*offset as usize) != Some(value) {
                    return Err(format!("{tp}: acknowledged v{value} at {offset} is not on the healed leader"));
                }
            }
            if !final_writes.iter().any(|v| values.contains(v)) {
                return Err(format!("{tp}: the final write is missing"));
            }
        }
        self.note("healed: every acknowledged record is on the leaders".into());
        Ok(())
    }
}
