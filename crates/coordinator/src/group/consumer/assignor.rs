//! The server-side assignors of consumer groups (`group.consumer.assignors`): `uniform` and `range`,
//! as Kafka's `UniformAssignor` and `RangeAssignor` compute them. An assignor is a pure function
//! of the members' subscriptions, their previous target assignment and the topics' partition
//! counts.
//!
//! - **range**: per topic, members subscribed to it sorted (static members first by instance id,
//!   then the others by member id) each get a contiguous range; the first `partitions % members`
//!   get one more. Bit for bit Kafka's.
//! - **uniform**: as even as possible, sticky (a member keeps what it had where the balance
//!   allows). When every member subscribes to the same topics this is Kafka's homogeneous
//!   builder, with members and topics visited in id order where Kafka visits hash-map order (so
//!   which member gets a leftover partition may differ from Kafka's, never how many). With
//!   different subscriptions it is Strand's own sticky balancing (Kafka's heterogeneous builder
//!   differs in its choices, not in its balance guarantees).

use std::collections::{BTreeMap, BTreeSet};

use strand_base::Uuid;

use super::Assignment;

/// What an assignor knows of one member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberSpec {
    pub member_id: String,
    pub instance_id: Option<String>,
    /// The ids of the existing topics it subscribes to.
    pub topics: BTreeSet<Uuid>,
    /// Its target assignment so far (stickiness).
    pub current: Assignment,
}

/// The input of an assignment: members (any order) and the partition count of every topic they
/// subscribe to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupSpec {
    pub members: Vec<MemberSpec>,
    pub partitions: BTreeMap<Uuid, i32>,
}

impl GroupSpec {
    /// Whether every member subscribes to the same topics (Kafka's HOMOGENEOUS subscription type).
    pub fn is_homogeneous(&self) -> bool {
        let mut topics = self.members.iter().map(|m| &m.topics);
        match topics.next() {
            Some(first) => topics.all(|t| t == first),
            None => true,
        }
    }
}

/// A server-side assignor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assignor {
    Uniform,
    Range,
}

impl Assignor {
    pub const NAMES: [&'static str; 2] = ["uniform", "range"];

    pub fn name(self) -> &'static str {
        match self {
            Assignor::Uniform => "uniform",
            Assignor::Range => "range",
        }
    }

    pub fn from_name(name: &str) -> Option<Assignor> {
        match name {
            "uniform" => Some(Assignor::Uniform),
            "range" => Some(Assignor::Range),
            _ => None,
        }
    }

    /// Every member's new target assignment (members without partitions map to an empty one).
    pub fn assign(self, spec: &GroupSpec) -> BTreeMap<String, Assignment> {
        let mut result: BTreeMap<String, Assignment> =
            spec.members.iter().map(|m| (m.member_id.clone(), Assignment::new())).collect();
        if spec.members.is_empty() {
            return result;
        }
        let assigned = match self {
            Assignor::Range => range(spec),
            Assignor::Uniform if spec.is_homogeneous() => uniform_homogeneous(spec),
            Assignor::Uniform => uniform_heterogeneous(spec),
        };
        for (member, assignment) in assigned {
            result.insert(member, assignment.into_iter().filter(|(_, p)| !p.is_empty()).collect());
        }
        result
    }
}

/// Kafka's range assignor.
fn range(spec: &GroupSpec) -> BTreeMap<String, Assignment> {
    let mut members: Vec<&MemberSpec> = spec.members.iter().collect();
    members.sort_by(|a, b| match (&a.instance_id, &b.instance_id) {
        (Some(x), Some(y)) => x.cmp(y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.member_id.cmp(&b.member_id),
    });
    // Per topic: (partitions, subscribers, next range start, extra partitions left).
    let mut topics: BTreeMap<Uuid, (i32, i32, i32, i32)> = BTreeMap::new();
    for member in &members {
        for topic in &member.topics {
            let partitions = spec.partitions.get(topic).copied().unwrap_or(0);
            topics.entry(*topic).or_insert((partitions, 0, 0, -1)).1 += 1;
        }
    }
    let mut result = BTreeMap::new();
    for member in &members {
        let mut assignment = Assignment::new();
        for topic in &member.topics {
            let Some((partitions, subscribers, next, extra)) = topics.get_mut(topic) else { continue };
            if *extra < 0 {
                *extra = *partitions % *subscribers;
            }
            let mut quota = *partitions / *subscribers;
            if *extra > 0 {
                quota += 1;
                *extra -= 1;
            }
            let start = *next;
            let end = (start + quota).min(*partitions);
            *next = end;
            if start < end {
                assignment.insert(*topic, (start..end).collect());
            }
        }
        result.insert(member.member_id.clone(), assignment);
    }
    result
}

/// Kafka's homogeneous uniform builder: quotas of `total / members` (the first `total % members`
/// members one more), each member keeps what fits its quota, the rest is handed out in order.
fn uniform_homogeneous(spec: &GroupSpec) -> BTreeMap<String, Assignment> {
    let mut members: Vec<&MemberSpec> = spec.members.iter().collect();
    members.sort_by(|a, b| a.member_id.cmp(&b.member_id));
    let subscribed = &members[0].topics;
    let mut total = 0usize;
    let mut unassigned: Vec<(Uuid, i32)> = Vec::new();
    let held: BTreeSet<(Uuid, i32)> =
        members.iter().flat_map(|m| m.current.iter().flat_map(|(t, ps)| ps.iter().map(move |p| (*t, *p)))).collect();
    for topic in subscribed {
        let count = spec.partitions.get(topic).copied().unwrap_or(0).max(0);
        total += count as usize;
        unassigned.extend((0..count).map(|p| (*topic, p)).filter(|tp| !held.contains(tp)));
    }
    let min_quota = total / members.len();
    let mut extra = total % members.len();
    let mut result: BTreeMap<String, Assignment> = BTreeMap::new();
    let mut unfilled: Vec<(String, usize)> = Vec::new();
    for member in &members {
        let mut quota = min_quota;
        if extra > 0 {
            quota += 1;
            extra -= 1;
        }
        let mut kept = Assignment::new();
        for (topic, partitions) in &member.current {
            let exists = spec.partitions.get(topic).copied().unwrap_or(0);
            if !subscribed.contains(topic) {
                continue;
            }
            for partition in partitions {
                if *partition >= exists {
                    continue;
                }
                if quota > 0 {
                    quota -= 1;
                    kept.entry(*topic).or_default().insert(*partition);
                } else {
                    unassigned.push((*topic, *partition));
                }
            }
        }
        if quota > 0 {
            unfilled.push((member.member_id.clone(), quota));
        }
        result.insert(member.member_id.clone(), kept);
    }
    let mut next = unassigned.into_iter();
    for (member_id, quota) in unfilled {
        let assignment = result.entry(member_id).or_default();
        for (topic, partition) in next.by_ref().take(quota) {
            assignment.entry(topic).or_default().insert(partition);
        }
    }
    result
}

/// Sticky balancing for members with different subscriptions: every partition goes to a member
/// subscribed to its topic; a member keeps its partitions unless another subscriber has at least
/// two fewer; partitions without an owner go to their least loaded subscriber.
fn uniform_heterogeneous(spec: &GroupSpec) -> BTreeMap<String, Assignment> {
    let mut members: Vec<&MemberSpec> = spec.members.iter().collect();
    members.sort_by(|a, b| a.member_id.cmp(&b.member_id));
    let mut owner: BTreeMap<(Uuid, i32), usize> = BTreeMap::new();
    for (index, member) in members.iter().enumerate() {
        for (topic, partitions) in &member.current {
            let exists = spec.partitions.get(topic).copied().unwrap_or(0);
            if !member.topics.contains(topic) {
                continue;
            }
            for partition in partitions.iter().filter(|p| **p < exists) {
                owner.entry((*topic, *partition)).or_insert(index);
            }
        }
    }
    let mut load: Vec<usize> = vec![0; members.len()];
    for index in owner.values() {
        load[*index] += 1;
    }
    // Unowned partitions, the most constrained topics (fewest subscribers) first.
    let subscribers = |topic: &Uuid| -> Vec<usize> {
        members.iter().enumerate().filter(|(_, m)| m.topics.contains(topic)).map(|(i, _)| i).collect()
    };
    let mut topics: Vec<(usize, Uuid)> = spec.partitions.keys().map(|t| (subscribers(t).len(), *t)).collect();
    topics.sort();
    for (count, topic) in &topics {
        if *count == 0 {
            continue;
        }
        let candidates = subscribers(topic);
        for partition in 0..spec.partitions.get(topic).copied().unwrap_or(0) {
            if owner.contains_key(&(*topic, partition)) {
                continue;
            }
            if let Some(best) = candidates.iter().copied().min_by_key(|i| (load[*i], *i)) {
                owner.insert((*topic, partition), best);
                load[best] += 1;
            }
        }
    }
    // Move partitions from loaded members to subscribers with at least two fewer, until none can.
    let mut moved = true;
    let mut rounds = 0usize;
    while moved && rounds <= owner.len() {
        moved = false;
        rounds += 1;
        let keys: Vec<(Uuid, i32)> = owner.keys().copied().collect();
        for key in keys {
            let from = owner[&key];
            let best = subscribers(&key.0).into_iter().min_by_key(|i| (load[*i], *i));
            if let Some(to) = best
                && load[to] + 1 < load[from]
            {
                owner.insert(key, to);
                load[from] -= 1;
                load[to] += 1;
                moved = true;
            }
        }
    }
    let mut result: BTreeMap<String, Assignment> = BTreeMap::new();
    for ((topic, partition), index) in owner {
        result.entry(members[index].member_id.clone()).or_default().entry(topic).or_default().insert(partition);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    const T1: Uuid = Uuid([1; 16]);
    const T2: Uuid = Uuid([2; 16]);

    fn member(id: &str, topics: &[Uuid], current: &[(Uuid, &[i32])]) -> MemberSpec {
        MemberSpec {
            member_id: id.to_owned(),
            instance_id: None,
            topics: topics.iter().copied().collect(),
            current: current.iter().map(|(t, ps)| (*t, ps.iter().copied().collect())).collect(),
        }
    }

    fn parts(assignment: &Assignment, topic: Uuid) -> Vec<i32> {
        assignment.get(&topic).map(|p| p.iter().copied().collect()).unwrap_or_default()
    }

    /// Range: contiguous ranges per topic, the first members getting the extra partitions.
    #[test]
    fn range_gives_contiguous_ranges() {
        let spec = GroupSpec {
            members: vec![member("b", &[T1, T2], &[]), member("a", &[T1, T2], &[]), member("c", &[T1], &[])],
            partitions: [(T1, 7), (T2, 3)].into_iter().collect(),
        };
        let result = Assignor::Range.assign(&spec);
        assert_eq!(parts(&result["a"], T1), vec![0, 1, 2]);
        assert_eq!(parts(&result["b"], T1), vec![3, 4]);
        assert_eq!(parts(&result["c"], T1), vec![5, 6]);
        assert_eq!(parts(&result["a"], T2), vec![0, 1]);
        assert_eq!(parts(&result["b"], T2), vec![2]);
        assert!(!result["c"].contains_key(&T2));
    }

    /// Uniform (homogeneous): balanced, and sticky when a member joins.
    #[test]
    fn uniform_is_balanced_and_sticky() {
        let spec = GroupSpec {
            members: vec![
                member("a", &[T1], &[(T1, &[0, 1, 2])]),
                member("b", &[T1], &[(T1, &[3, 4, 5])]),
                member("c", &[T1], &[]),
            ],
            partitions: [(T1, 6)].into_iter().collect(),
        };
        let result = Assignor::Uniform.assign(&spec);
        assert_eq!(parts(&result["a"], T1), vec![0, 1]);
        assert_eq!(parts(&result["b"], T1), vec![3, 4]);
        assert_eq!(parts(&result["c"], T1), vec![2, 5]);
    }

    /// Uniform (heterogeneous): each partition goes to a subscriber, loads within one.
    #[test]
    fn uniform_heterogeneous_respects_subscriptions() {
        let spec = GroupSpec {
            members: vec![
                member("a", &[T1, T2], &[(T1, &[0, 1, 2, 3])]),
                member("b", &[T2], &[]),
                member("c", &[T1], &[]),
            ],
            partitions: [(T1, 4), (T2, 2)].into_iter().collect(),
        };
        let result = Assignor::Uniform.assign(&spec);
        let count = |m: &str| result[m].values().map(BTreeSet::len).sum::<usize>();
        assert_eq!(count("a") + count("b") + count("c"), 6);
        assert!(!result["b"].contains_key(&T1) && !result["c"].contains_key(&T2));
        assert_eq!((count("a"), count("b"), count("c")), (2, 2, 2));
    }
}
