//! A member's way to its target assignment (Kafka's streams `CurrentAssignmentBuilder`):
//! - tasks it has that its target does not are revoked first: it keeps only the tasks it has
//!   that are in its target, stays at its epoch (UNREVOKED_TASKS), and moves on once a
//!   heartbeat reports that it no longer owns them;
//! - then it takes the assignment epoch and the target's tasks, except active tasks that
//!   another member still owns (UNRELEASED_TASKS), which it gets once they are released;
//! - with everything, it is STABLE.

use super::{MemberState, StreamsGroup, StreamsMember, TaskSets, Tasks};

/// The member after reconciling toward `target` at `target_epoch`. `owned`: the tasks the member
/// reported owning in this heartbeat, if it reported them.
pub fn reconcile(
    group: &StreamsGroup,
    member: &StreamsMember,
    target: &TaskSets,
    target_epoch: i32,
    owned: Option<&TaskSets>,
) -> StreamsMember {
    match member.state {
        MemberState::Stable if member.member_epoch == target_epoch => member.clone(),
        MemberState::UnrevokedTasks => {
            let still_owned = owned.is_none_or(|owned| owned.overlaps(&member.pending_revocation));
            if still_owned { member.clone() } else { next(group, member, target, target_epoch) }
        }
        MemberState::Stable | MemberState::UnreleasedTasks => next(group, member, target, target_epoch),
    }
}

fn next(group: &StreamsGroup, member: &StreamsMember, target: &TaskSets, target_epoch: i32) -> StreamsMember {
    let mut out = member.clone();
    let revoke = member.assigned.minus(target);
    if !revoke.is_empty() {
        out.state = MemberState::UnrevokedTasks;
        out.assigned = member.assigned.intersect(target);
        out.pending_revocation = revoke;
        return out;
    }
    let mut active = Tasks::new();
    let mut unreleased = false;
    for (subtopology, partitions) in &target.active {
        for &partition in partitions {
            if group.active_owned_by_other(&member.member_id, subtopology, partition) {
                unreleased = true;
            } else {
                active.entry(subtopology.clone()).or_default().insert(partition);
            }
        }
    }
    out.previous_member_epoch = member.member_epoch;
    out.member_epoch = target_epoch;
    out.pending_revocation = TaskSets::default();
    out.assigned = TaskSets { active, standby: target.standby.clone(), warmup: target.warmup.clone() };
    out.state = if unreleased { MemberState::UnreleasedTasks } else { MemberState::Stable };
    out
}

#[cfg(test)]
mod tests {
    use super::super::assignor::tasks_of;
    use super::*;

    fn member(id: &str, epoch: i32, active: Tasks) -> StreamsMember {
        StreamsMember {
            member_id: id.to_owned(),
            member_epoch: epoch,
            assigned: TaskSets { active, ..TaskSets::default() },
            ..StreamsMember::default()
        }
    }

    fn group(members: &[&StreamsMember]) -> StreamsGroup {
        let mut group = StreamsGroup::new("g");
        for m in members {
            group.members.insert(m.member_id.clone(), (*m).clone());
        }
        group
    }

    fn active(tasks: Tasks) -> TaskSets {
        TaskSets { active: tasks, ..TaskSets::default() }
    }

    #[test]
    fn a_stable_member_at_the_target_epoch_stays() {
        let a = member("a", 3, tasks_of([("0", 0)]));
        let g = group(&[&a]);
        assert_eq!(reconcile(&g, &a, &active(tasks_of([("0", 1)])), 3, None), a);
    }

    #[test]
    fn revocation_comes_before_the_new_epoch_and_the_new_tasks() {
        let a = member("a", 1, tasks_of([("0", 0), ("0", 1)]));
        let b = member("b", 1, Tasks::new());
        let g = group(&[&a, &b]);
        // a's target gives 0_1 to b.
        let a2 = reconcile(&g, &a, &active(tasks_of([("0", 0)])), 2, None);
        assert_eq!(a2.state, MemberState::UnrevokedTasks);
        assert_eq!(a2.member_epoch, 1, "the epoch waits for the revocation");
        assert_eq!(a2.assigned.active, tasks_of([("0", 0)]));
        assert_eq!(a2.pending_revocation.active, tasks_of([("0", 1)]));
        let g = group(&[&a2, &b]);
        // b may not take 0_1 while a owns it.
        let b2 = reconcile(&g, &b, &active(tasks_of([("0", 1)])), 2, None);
        assert_eq!((b2.state, b2.member_epoch), (MemberState::UnreleasedTasks, 2));
        assert!(b2.assigned.active.is_empty());
        // a heartbeats still owning 0_1: nothing moves; without reporting: nothing moves.
        let still = active(tasks_of([("0", 0), ("0", 1)]));
        assert_eq!(reconcile(&g, &a2, &active(tasks_of([("0", 0)])), 2, Some(&still)), a2);
        assert_eq!(reconcile(&g, &a2, &active(tasks_of([("0", 0)])), 2, None), a2);
        // a reports 0_1 gone: it is Stable at epoch 2.
        let a3 = reconcile(&g, &a2, &active(tasks_of([("0", 0)])), 2, Some(&active(tasks_of([("0", 0)]))));
        assert_eq!((a3.state, a3.member_epoch, a3.previous_member_epoch), (MemberState::Stable, 2, 1));
        assert!(a3.pending_revocation.is_empty());
        // Then b gets 0_1.
        let g = group(&[&a3, &b2]);
        let b3 = reconcile(&g, &b2, &active(tasks_of([("0", 1)])), 2, None);
        assert_eq!((b3.state, b3.assigned.active.clone()), (MemberState::Stable, tasks_of([("0", 1)])));
    }

    #[test]
    fn standby_tasks_are_revoked_too_but_never_wait_for_release() {
        let mut a = member("a", 1, Tasks::new());
        a.assigned.standby = tasks_of([("0", 2)]);
        let b = member("b", 1, tasks_of([("0", 2)]));
        let g = group(&[&a, &b]);
        let a2 = reconcile(&g, &a, &TaskSets::default(), 2, None);
        assert_eq!(a2.state, MemberState::UnrevokedTasks);
        assert_eq!(a2.pending_revocation.standby, tasks_of([("0", 2)]));
        let c = member("c", 0, Tasks::new());
        let g = group(&[&a, &b, &c]);
        let target = TaskSets { standby: tasks_of([("0", 2)]), ..TaskSets::default() };
        let c2 = reconcile(&g, &c, &target, 2, None);
        assert_eq!((c2.state, c2.assigned.standby.clone()), (MemberState::Stable, tasks_of([("0", 2)])));
    }
}
