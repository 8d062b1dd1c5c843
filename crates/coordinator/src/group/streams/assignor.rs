//! The sticky task assignor (Kafka's `StickyTaskAssignor`, correctness first): active tasks
//! balanced across members, each staying where it ran while balance allows; standby tasks, as
//! many per active task as configured, on members of other processes than the active's, staying
//! where they were when they can. Deterministic: ties go to the member that sorts first.

use std::collections::{BTreeMap, BTreeSet};

use super::{TaskSets, Tasks, holds};

/// One member as the assignor sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AssignorMember {
    pub process_id: String,
    /// What it had in the previous target assignment (its stickiness).
    pub previous: TaskSets,
}

/// Assigns the tasks of `subtopologies` (task count by subtopology id) to `members`, with
/// `standbys` standby replicas of each task where another process can hold them.
pub fn assign(
    subtopologies: &BTreeMap<String, i32>,
    members: &BTreeMap<String, AssignorMember>,
    standbys: usize,
) -> BTreeMap<String, TaskSets> {
    let mut out: BTreeMap<String, TaskSets> = members.keys().map(|id| (id.clone(), TaskSets::default())).collect();
    if members.is_empty() {
        return out;
    }
    let tasks: Vec<(String, i32)> =
        subtopologies.iter().flat_map(|(s, n)| (0..(*n).max(0)).map(move |p| (s.clone(), p))).collect();
    let member_count = members.len();
    let cap = tasks.len().div_ceil(member_count);
    let mut load: BTreeMap<&str, usize> = members.keys().map(|id| (id.as_str(), 0)).collect();
    let mut owner: BTreeMap<(String, i32), String> = BTreeMap::new();
    // 1. Stay where it ran, while that member is below the cap.
    for (subtopology, partition) in &tasks {
        let previous = members.iter().find(|(_, m)| holds(&m.previous.active, subtopology, *partition));
        if let Some((id, _)) = previous
            && load[id.as_str()] < cap
        {
            *load.get_mut(id.as_str()).expect("member") += 1;
            owner.insert((subtopology.clone(), *partition), id.clone());
        }
    }
    // 2. The rest to the least loaded (a previous standby of the task first, among equals).
    for (subtopology, partition) in &tasks {
        if owner.contains_key(&(subtopology.clone(), *partition)) {
            continue;
        }
        let chosen = members
            .iter()
            .min_by_key(|(id, m)| (load[id.as_str()], !holds(&m.previous.standby, subtopology, *partition), *id))
            .map(|(id, _)| id.clone())
            .expect("members");
        *load.get_mut(chosen.as_str()).expect("member") += 1;
        owner.insert((subtopology.clone(), *partition), chosen);
    }
    // 3. Even out: move from the most to the least loaded until they differ by at most one.
    loop {
        let (max_id, max) =
            load.iter().max_by_key(|(id, n)| (**n, std::cmp::Reverse(**id))).map(|(i, n)| (*i, *n)).expect("members");
        let (min_id, min) = load.iter().min_by_key(|(id, n)| (**n, **id)).map(|(i, n)| (*i, *n)).expect("members");
        if max <= min + 1 {
            break;
        }
        let moved = owner.iter().rev().find(|(_, o)| o.as_str() == max_id).map(|(task, _)| task.clone());
        let Some(task) = moved else { break };
        owner.insert(task, min_id.to_owned());
        *load.get_mut(max_id).expect("member") -= 1;
        *load.get_mut(min_id).expect("member") += 1;
    }
    for ((subtopology, partition), id) in &owner {
        out.get_mut(id).expect("member").active.entry(subtopology.clone()).or_default().insert(*partition);
    }
    if standbys > 0 {
        assign_standbys(&tasks, &owner, members, standbys, &mut out);
    }
    out
}

fn assign_standbys(
    tasks: &[(String, i32)],
    owner: &BTreeMap<(String, i32), String>,
    members: &BTreeMap<String, AssignorMember>,
    standbys: usize,
    out: &mut BTreeMap<String, TaskSets>,
) {
    let mut load: BTreeMap<String, usize> = members.keys().map(|id| (id.clone(), 0)).collect();
    for (subtopology, partition) in tasks {
        let active = &owner[&(subtopology.clone(), *partition)];
        let active_process = &members[active].process_id;
        let mut used_processes: BTreeSet<&str> = BTreeSet::from([active_process.as_str()]);
        for _ in 0..standbys {
            let candidates = members.iter().filter(|(_, m)| !used_processes.contains(m.process_id.as_str()));
            let chosen = candidates
                .min_by_key(|(id, m)| (!holds(&m.previous.standby, subtopology, *partition), load[id.as_str()], *id))
                .map(|(id, m)| (id.clone(), m.process_id.as_str()));
            let Some((id, process)) = chosen else { break };
            used_processes.insert(process);
            *load.get_mut(&id).expect("member") += 1;
            out.get_mut(&id).expect("member").standby.entry(subtopology.clone()).or_default().insert(*partition);
        }
    }
}

/// The active tasks of an assignment, each with its member, for checks.
pub fn active_owners(assignment: &BTreeMap<String, TaskSets>) -> BTreeMap<(String, i32), String> {
    let mut owners = BTreeMap::new();
    for (member, sets) in assignment {
        for (subtopology, partitions) in &sets.active {
            for partition in partitions {
                owners.insert((subtopology.clone(), *partition), member.clone());
            }
        }
    }
    owners
}

/// Tasks as a map, for tests and callers building them by hand.
pub fn tasks_of<'a>(pairs: impl IntoIterator<Item = (&'a str, i32)>) -> Tasks {
    let mut tasks = Tasks::new();
    for (subtopology, partition) in pairs {
        tasks.entry(subtopology.to_owned()).or_default().insert(partition);
    }
    tasks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(specs: &[(&str, &str, Tasks)]) -> BTreeMap<String, AssignorMember> {
        specs
            .iter()
            .map(|(id, process, active)| {
                let previous = TaskSets { active: active.clone(), ..TaskSets::default() };
                ((*id).to_owned(), AssignorMember { process_id: (*process).to_owned(), previous })
            })
            .collect()
    }

    fn counts(assignment: &BTreeMap<String, TaskSets>) -> Vec<usize> {
        assignment.values().map(|s| s.active.values().map(BTreeSet::len).sum()).collect()
    }

    #[test]
    fn every_task_has_one_owner_and_members_are_balanced() {
        let subtopologies = BTreeMap::from([("0".to_owned(), 4), ("1".to_owned(), 3)]);
        let m = members(&[("a", "p1", Tasks::new()), ("b", "p2", Tasks::new()), ("c", "p3", Tasks::new())]);
        let assignment = assign(&subtopologies, &m, 0);
        assert_eq!(active_owners(&assignment).len(), 7);
        let mut c = counts(&assignment);
        c.sort_unstable();
        assert_eq!(c, vec![2, 2, 3]);
        assert!(assignment.values().all(|s| s.standby.is_empty()));
    }

    #[test]
    fn tasks_stay_with_their_member_when_one_joins() {
        let subtopologies = BTreeMap::from([("0".to_owned(), 4)]);
        let alone = assign(&subtopologies, &members(&[("a", "p1", Tasks::new())]), 0);
        assert_eq!(counts(&alone), vec![4]);
        let a_had = alone["a"].active.clone();
        let two = assign(&subtopologies, &members(&[("a", "p1", a_had.clone()), ("b", "p2", Tasks::new())]), 0);
        assert_eq!(counts(&two), vec![2, 2]);
        // a keeps two of what it had, and b gets only tasks a gave up.
        assert_eq!(super::super::tasks_minus(&two["a"].active, &a_had), Tasks::new());
        let b_tasks = &two["b"].active;
        assert!(b_tasks.values().all(|p| p.len() == 2));
        // Unchanged membership: nothing moves.
        let again = assign(
            &subtopologies,
            &members(&[("a", "p1", two["a"].active.clone()), ("b", "p2", two["b"].active.clone())]),
            0,
        );
        assert_eq!(again["a"].active, two["a"].active);
        assert_eq!(again["b"].active, two["b"].active);
    }

    #[test]
    fn a_leaving_members_tasks_move_and_the_rest_stay() {
        let subtopologies = BTreeMap::from([("0".to_owned(), 6)]);
        let before = assign(
            &subtopologies,
            &members(&[("a", "p1", Tasks::new()), ("b", "p2", Tasks::new()), ("c", "p3", Tasks::new())]),
            0,
        );
        let after = assign(
            &subtopologies,
            &members(&[("a", "p1", before["a"].active.clone()), ("b", "p2", before["b"].active.clone())]),
            0,
        );
        assert_eq!(counts(&after), vec![3, 3]);
        for id in ["a", "b"] {
            assert_eq!(
                super::super::tasks_minus(&before[id].active, &after[id].active),
                Tasks::new(),
                "{id} kept its tasks"
            );
        }
    }

    #[test]
    fn standbys_go_to_other_processes_only() {
        let subtopologies = BTreeMap::from([("0".to_owned(), 3)]);
        let m = members(&[("a", "p1", Tasks::new()), ("a2", "p1", Tasks::new()), ("b", "p2", Tasks::new())]);
        let assignment = assign(&subtopologies, &m, 1);
        let owners = active_owners(&assignment);
        for ((subtopology, partition), active) in &owners {
            let holders: Vec<&String> = assignment
                .iter()
                .filter(|(_, s)| holds(&s.standby, subtopology, *partition))
                .map(|(id, _)| id)
                .collect();
            assert_eq!(holders.len(), 1, "one standby of {subtopology}_{partition}");
            assert_ne!(m[holders[0]].process_id, m[active].process_id, "not on the active's process");
        }
        // One process only: no standby is possible.
        let single = members(&[("a", "p1", Tasks::new()), ("a2", "p1", Tasks::new())]);
        assert!(assign(&subtopologies, &single, 1).values().all(|s| s.standby.is_empty()));
    }

    #[test]
    fn no_members_no_assignment() {
        let subtopologies = BTreeMap::from([("0".to_owned(), 3)]);
        assert!(assign(&subtopologies, &BTreeMap::new(), 1).is_empty());
    }
}
