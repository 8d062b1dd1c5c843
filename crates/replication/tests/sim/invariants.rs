//! The invariants, checked after every step (and after each metadata image a broker applies):
//! one leader per leader epoch (the one the controller named), a high watermark that never goes
//! back within a leader epoch on its leader, and the committed log, learnt from the leaders' high
//! watermarks, that never changes and that every acknowledged record, every running ISR member,
//! every node below its own high watermark and every reader agree with. The consumer-visible
//! high watermark is checked where readers poll (`clients.rs`).
//!
//! Each node's log is read incrementally into a [`LogCache`]: one step either appends to a log
//! or truncates it, never both, so comparing the end offset with the cache's length finds every
//! change.

use std::collections::BTreeMap;

use strand_base::{BrokerId, Offset, TopicPartition};
use strand_metadata::image::PartitionImage;
use strand_replication::{PartitionStatus, ReplicaRole};

use super::clients::Reader;
use super::clients::records_of;
use super::controller::Controller;
use super::nodes::Node;
use super::{Sim, ids, manager_of};

/// A node's log of one partition as the checks last read it: the value at each offset.
#[derive(Debug, Default)]
pub(super) struct LogCache {
    pub(super) incarnation: u32,
    pub(super) values: Vec<u64>,
}

/// What the checks know of one partition.
#[derive(Debug)]
pub(super) struct Track {
    pub(super) tp: TopicPartition,
    /// The committed log: every value below the highest high watermark any leader showed.
    pub(super) committed: Vec<u64>,
    /// Every acks=all-acknowledged record: offset → value.
    pub(super) acked: BTreeMap<Offset, u64>,
    /// Acknowledged since the last check.
    pub(super) new_acks: Vec<(Offset, u64)>,
    /// Leader epoch → (its leader, the highest high watermark it showed).
    pub(super) leader_hw: BTreeMap<i32, (BrokerId, Offset)>,
    pub(super) logs: BTreeMap<BrokerId, LogCache>,
}

impl Track {
    pub(super) fn new(tp: TopicPartition) -> Track {
        Track {
            tp,
            committed: Vec::new(),
            acked: BTreeMap::new(),
            new_acks: Vec::new(),
            leader_hw: BTreeMap::new(),
            logs: BTreeMap::new(),
        }
    }
}

impl Sim {
    /// Brings the cached copies of every running node's logs up to date.
    pub(super) fn refresh_logs(&mut self) -> Result<(), String> {
        for part in 0..self.parts.len() {
            for i in 0..self.nodes.len() {
                let node = &self.nodes[i];
                let Some(manager) = node.manager.as_ref() else { continue };
                let track = &mut self.parts[part];
                let Ok(end) = manager.log_end_offset(&track.tp) else { continue };
                let cache = track.logs.entry(node.id).or_default();
                if cache.incarnation != node.incarnation {
                    *cache = LogCache { incarnation: node.incarnation, values: Vec::new() };
                }
                let len = cache.values.len() as Offset;
                if end < len {
                    cache.values.truncate(usize::try_from(end).unwrap_or(0));
                    self.stats.truncations += 1;
                } else if end > len {
                    let slice = manager
                        .read_local(&track.tp, len, u64::MAX >> 2)
                        .map_err(|e| format!("reading node {}'s {}: {e}", node.id, track.tp))?;
                    let bytes = slice.map(|s| s.read().expect("read")).unwrap_or_default();
                    for (offset, value) in records_of(bytes)? {
                        if offset != cache.values.len() as Offset {
                            return Err(format!("node {}'s {} has offset {offset} after {}", node.id, track.tp, len));
                        }
                        cache.values.push(value);
                    }
                    if cache.values.len() as Offset != end {
                        return Err(format!("node {}'s {} ends at {end} but holds {}", node.id, track.tp, len));
                    }
                }
            }
        }
        Ok(())
    }

    /// Every partition's status on every running node.
    pub(super) fn statuses(&self, tp: &TopicPartition) -> Vec<(BrokerId, PartitionStatus)> {
        self.nodes.iter().filter_map(|n| Some((n.id, n.manager.as_ref()?.partition_status(tp).ok()?))).collect()
    }

    /// The leaders' side of the invariants, which also learns the committed log from them. Run
    /// after every step, and after each metadata image a node applies (one step may apply
    /// several, and a leader's high watermark may move in between).
    pub(super) fn observe_leaders(&mut self) -> Result<(), String> {
        self.refresh_logs()?;
        for part in 0..self.parts.len() {
            let tp = self.parts[part].tp.clone();
            let statuses = self.statuses(&tp);
            let track = &mut self.parts[part];
            // At most one leader per leader epoch, the one the controller named; its high
            // watermark never goes back within the epoch; below it, the log is committed.
            let mut leaders: BTreeMap<i32, BrokerId> = BTreeMap::new();
            for (id, status) in statuses.iter().filter(|(_, s)| s.role == ReplicaRole::Leader) {
                let epoch = status.leader_epoch;
                if let Some(other) = leaders.insert(epoch, *id) {
                    return Err(format!("{tp}: {other} and {id} both lead leader epoch {epoch}"));
                }
                let named = self.controller.epoch_leaders.get(&(part as i32, epoch));
                if named != Some(id) {
                    return Err(format!(
                        "{tp}: {id} leads leader epoch {epoch}, which the controller gave to {named:?}"
                    ));
                }
                let hw = status.high_watermark;
                match track.leader_hw.get(&epoch) {
                    Some((node, _)) if node != id => {
                        return Err(format!("{tp}: leader epoch {epoch} was led by {node}, now by {id}"));
                    }
                    Some((_, before)) if hw < *before => {
                        return Err(format!(
                            "{tp}: the high watermark went back from {before} to {hw} within leader epoch {epoch} on \
                             its leader {id}"
                        ));
                    }
                    None => self.stats.leader_epochs += 1,
                    Some(_) => {}
                }
                let best = track.leader_hw.get(&epoch).map_or(hw, |(_, h)| hw.max(*h));
                track.leader_hw.insert(epoch, (*id, best));
                let log = &track.logs[id].values;
                let hw = usize::try_from(hw).unwrap_or(0);
                let what = format!("{tp}: leader {id} (epoch {epoch}, high watermark {hw})");
                agrees(&what, log, &track.committed, hw.min(track.committed.len()))?;
                if hw > track.committed.len() {
                    let from = track.committed.len();
                    track.committed.extend_from_slice(&log[from..hw]);
                }
            }
        }
        Ok(())
    }

    /// Every invariant (see the module doc).
    pub(super) fn check(&mut self) -> Result<(), String> {
        if let Some(v) = self.violations.first().or(self.controller.violations.first()) {
            return Err(v.clone());
        }
        self.observe_leaders()?;
        let image = self.controller.image().clone();
        for part in 0..self.parts.len() {
            let statuses = self.statuses(&self.parts[part].tp);
            let track = &mut self.parts[part];
            below_high_watermarks(track, &statuses)?;
            acknowledged(track)?;
            in_sync_replicas(track, Controller::partition(&image, part), &self.nodes)?;
            consumed(track, &self.readers, part)?;
        }
        Ok(())
    }
}

/// Whether `log` holds `committed[..upto]`; `what` names it in the complaint.
fn agrees(what: &str, log: &[u64], committed: &[u64], upto: usize) -> Result<(), String> {
    if log.len() < upto {
        return Err(format!("{what} ends at {}, below the committed {upto}", log.len()));
    }
    match log[..upto].iter().zip(&committed[..upto]).position(|(x, y)| x != y) {
        None => Ok(()),
        Some(offset) => {
            Err(format!("{what} has v{} at {offset}, where v{} was committed", log[offset], committed[offset]))
        }
    }
}

/// Every node's log below its own high watermark is committed: consumers never read past it.
fn below_high_watermarks(track: &Track, statuses: &[(BrokerId, PartitionStatus)]) -> Result<(), String> {
    let tp = &track.tp;
    for (id, status) in statuses {
        let hw = usize::try_from(status.high_watermark).unwrap_or(0);
        if hw > track.committed.len() {
            return Err(format!("{tp}: {id}'s high watermark {hw} is past every leader's ({})", track.committed.len()));
        }
        let what = format!("{tp}: {id} (high watermark {hw})");
        agrees(&what, &track.logs[id].values, &track.committed, hw)?;
    }
    Ok(())
}

/// Acknowledged (acks=all) writes are committed.
fn acknowledged(track: &mut Track) -> Result<(), String> {
    for (offset, value) in std::mem::take(&mut track.new_acks) {
        let committed = track.committed.get(usize::try_from(offset).unwrap_or(usize::MAX));
        if committed != Some(&value) {
            return Err(format!(
                "{}: v{value} was acknowledged (acks=all) at offset {offset} but the committed log has {committed:?} \
                 there (committed length {})",
                track.tp,
                track.committed.len()
            ));
        }
    }
    Ok(())
}

/// Every running member of the controller's ISR holds the whole committed log, every
/// acknowledged record included: any of them may be elected.
fn in_sync_replicas(track: &Track, p: &PartitionImage, nodes: &[Node]) -> Result<(), String> {
    for member in &p.isr {
        let Some(cache) = track.logs.get(member).filter(|_| manager_of(nodes, *member).is_some()) else { continue };
        let n = track.committed.len();
        let lost: Vec<_> = track.acked.range(cache.values.len() as Offset..).take(5).collect();
        let what = format!(
            "{}: ISR member {member} (controller: leader {} epoch {} isr {:?}; acknowledged past its end: {lost:?})",
            track.tp,
            p.leader,
            p.leader_epoch,
            ids(&p.isr)
        );
        agrees(&what, &cache.values, &track.committed, n)?;
    }
    Ok(())
}

/// What readers consumed is committed.
fn consumed(track: &Track, readers: &[Reader], part: usize) -> Result<(), String> {
    for (r, reader) in readers.iter().enumerate() {
        let values = &reader.parts[part].values;
        if values.len() > track.committed.len() {
            let n = track.committed.len();
            return Err(format!("{}: reader {r} consumed {} records, past the committed {n}", track.tp, values.len()));
        }
        agrees(&format!("{}: what reader {r} consumed", track.tp), values, &track.committed, values.len())?;
    }
    Ok(())
}
