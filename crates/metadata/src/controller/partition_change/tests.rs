use super::*;

fn partition(replicas: &[i32], isr: &[i32], leader: i32) -> PartitionImage {
    PartitionImage {
        replicas: replicas.iter().copied().map(BrokerId).collect(),
        directories: vec![DIRECTORY_MIGRATING; replicas.len()],
        isr: isr.iter().copied().map(BrokerId).collect(),
        removing_replicas: Vec::new(),
        adding_replicas: Vec::new(),
        leader: BrokerId(leader),
        leader_recovery_state: LeaderRecoveryState::Recovered,
        leader_epoch: 3,
        partition_epoch: 7,
        elr: Vec::new(),
        last_known_elr: Vec::new(),
    }
}

fn ids(ids: &[i32]) -> Vec<BrokerId> {
    ids.iter().copied().map(BrokerId).collect()
}

/// (leader, isr, recovery state) after the change, or None for no record.
fn check(
    change: &PartitionChange<'_>,
    acceptable: &[i32],
    expected: Option<(i32, Option<&[i32]>, i8)>,
) -> Option<PartitionChangeRecord> {
    let record = change.record(&|b: BrokerId| acceptable.contains(&b.0));
    let got = record.as_ref().map(|r| {
        (r.leader.0, r.isr.as_ref().map(|i| i.iter().map(|b| b.0).collect::<Vec<_>>()), r.leader_recovery_state)
    });
    let expected = expected.map(|(l, i, s)| (l, i.map(<[i32]>::to_vec), s));
    assert_eq!(got, expected, "{change:?}");
    record
}

/// Online elections keep a valid leader, else take the first valid replica, else none; the
/// ISR never becomes empty.
#[test]
fn online_elections() {
    let p = partition(&[1, 2, 3], &[1, 2, 3], 1);
    let change = |isr: &[i32]| PartitionChange::new(&p, Uuid::ZERO, 0, ElrRules::OFF).isr(ids(isr));
    check(&change(&[1, 2, 3]), &[1, 2, 3], None);
    check(&change(&[1, 2]), &[1, 2, 3], Some((-2, Some(&[1, 2]), -1)));
    check(&change(&[2, 3]), &[2, 3], Some((2, Some(&[2, 3]), -1)));
    check(&change(&[3]), &[2, 3], Some((3, Some(&[3]), -1)));
    check(&change(&[]), &[1, 2, 3], Some((-1, None, -1)));
    check(&change(&[2, 3]), &[], Some((-1, Some(&[2, 3]), -1)));
}

/// A preferred election moves to the first replica only when it is valid.
#[test]
fn preferred_elections() {
    let p = partition(&[1, 2, 3], &[1, 2, 3], 2);
    let preferred = PartitionChange::new(&p, Uuid::ZERO, 0, ElrRules::OFF).election(Election::Preferred);
    check(&preferred, &[1, 2, 3], Some((1, None, -1)));
    check(&preferred, &[2, 3], None);
    check(&preferred, &[3], Some((3, None, -1)));
}

/// An unclean election takes any acceptable replica, alone in the ISR, as RECOVERING.
#[test]
fn unclean_elections() {
    let p = partition(&[1, 2, 3], &[1], 1);
    let unclean =
        PartitionChange::new(&p, Uuid::ZERO, 0, ElrRules::OFF).isr_without(BrokerId(1)).election(Election::Unclean);
    check(&unclean, &[3], Some((3, Some(&[3]), 1)));
    check(&unclean, &[], Some((-1, None, -1)));
    let online = PartitionChange::new(&p, Uuid::ZERO, 0, ElrRules::OFF).isr_without(BrokerId(1));
    check(&online, &[3], Some((-1, None, -1)));
}

/// Kafka's completion rule: every replica that stays is in the ISR less the removing
/// replicas, which must not be empty; the removing replicas then leave both lists.
#[test]
fn reassignment_completion() {
    let assignment = |replicas: &[i32], isr: &[i32], removing: &[i32], adding: &[i32]| Assignment {
        replicas: ids(replicas),
        isr: ids(isr),
        removing: ids(removing),
        adding: ids(adding),
    };
    let completed = |a: Assignment| a.completed().map(|c| (c.replicas, c.isr, c.removing, c.adding));
    assert_eq!(completed(assignment(&[1, 2, 3], &[1, 2, 3], &[], &[])), None, "nothing in progress");
    assert_eq!(completed(assignment(&[2, 3, 1], &[1, 2], &[1], &[2, 3])), None, "3 not in sync");
    let done = Some((ids(&[2, 3]), ids(&[2, 3]), Vec::new(), Vec::new()));
    assert_eq!(completed(assignment(&[2, 3, 1], &[1, 2, 3], &[1], &[2, 3])), done);
    assert_eq!(completed(assignment(&[1, 2, 3], &[3], &[3], &[])), None, "no staying replica in sync");
    let grown = Some((ids(&[1, 2, 3]), ids(&[3, 1, 2]), Vec::new(), Vec::new()));
    assert_eq!(completed(assignment(&[1, 2, 3], &[3, 1, 2], &[], &[3])), grown);
}

/// A recovery state change alone is a record; an ELR left by Kafka is cleared.
#[test]
fn recovery_and_elr() {
    let mut p = partition(&[1, 2], &[1], 1);
    p.leader_recovery_state = LeaderRecoveryState::Recovering;
    let recovered = PartitionChange::new(&p, Uuid::ZERO, 0, ElrRules::OFF).recovery(LeaderRecoveryState::Recovered);
    check(&recovered, &[1, 2], Some((-2, None, 0)));
    p.elr = ids(&[2]);
    let record = check(&PartitionChange::new(&p, Uuid::ZERO, 0, ElrRules::OFF), &[1, 2], Some((-2, None, -1)));
    assert_eq!(record.and_then(|r| r.eligible_leader_replicas), Some(Vec::new()));
}

/// ELR on, `min.insync.replicas` 2.
const ELR_MIN_2: ElrRules = ElrRules { enabled: true, min_isr: 2 };

fn with_elr(mut p: PartitionImage, elr: &[i32], last_known: &[i32]) -> PartitionImage {
    p.elr = ids(elr);
    p.last_known_elr = ids(last_known);
    p
}

/// What an ELR change wrote: leader, ISR, ELR, last known ELR (`None`: the field is not set)
/// and recovery state; `None` for no record.
type ElrOutcome<'a> = Option<(i32, Option<&'a [i32]>, Option<&'a [i32]>, Option<&'a [i32]>, i8)>;

fn check_elr(change: &PartitionChange<'_>, acceptable: &[i32], expected: ElrOutcome<'_>) {
    let record = change.record(&|b: BrokerId| acceptable.contains(&b.0));
    let list = |l: &Option<Vec<BrokerId>>| l.as_ref().map(|l| l.iter().map(|b| b.0).collect::<Vec<_>>());
    let got = record.as_ref().map(|r| {
        (r.leader.0, list(&r.isr), list(&r.eligible_leader_replicas), list(&r.last_known_elr), r.leader_recovery_state)
    });
    let owned = |l: Option<&[i32]>| l.map(<[i32]>::to_vec);
    let expected = expected.map(|(l, i, e, k, s)| (l, owned(i), owned(e), owned(k), s));
    assert_eq!(got, expected, "{change:?}");
}

/// Replicas leaving an ISR below min ISR become eligible; an ISR at min ISR has no ELR; the
/// last member may leave (no leader), and the last known ELR then names the last leader.
#[test]
fn elr_follows_isr_shrinks() {
    let full = partition(&[1, 2, 3], &[1, 2, 3], 1);
    let change = PartitionChange::new(&full, Uuid::ZERO, 0, ELR_MIN_2).isr_without(BrokerId(3));
    check_elr(&change, &[1, 2], Some((-2, Some(&[1, 2]), None, None, -1)));
    let two = partition(&[1, 2, 3], &[1, 2], 1);
    let change = PartitionChange::new(&two, Uuid::ZERO, 0, ELR_MIN_2).isr_without(BrokerId(2));
    check_elr(&change, &[1], Some((-2, Some(&[1]), Some(&[2]), None, -1)));
    let one = with_elr(partition(&[1, 2, 3], &[1], 1), &[3, 2], &[]);
    let change = PartitionChange::new(&one, Uuid::ZERO, 0, ELR_MIN_2).isr_without(BrokerId(1));
    check_elr(&change, &[], Some((-1, Some(&[]), Some(&[1, 2, 3]), Some(&[1]), -1)));
    let min_one = ElrRules { enabled: true, min_isr: 1 };
    let alone = partition(&[1, 2], &[1], 1);
    let change = PartitionChange::new(&alone, Uuid::ZERO, 0, min_one).isr_without(BrokerId(1));
    check_elr(&change, &[2], Some((-1, Some(&[]), Some(&[1]), Some(&[1]), -1)));
}

/// An ISR back at min ISR clears the ELR; one still below it keeps the members that left.
#[test]
fn elr_clears_at_min_isr() {
    let p = with_elr(partition(&[1, 2, 3], &[2], 2), &[1, 3], &[]);
    let grown = PartitionChange::new(&p, Uuid::ZERO, 0, ELR_MIN_2).isr(ids(&[2, 3]));
    check_elr(&grown, &[1, 2, 3], Some((-2, Some(&[2, 3]), Some(&[]), None, -1)));
    let same = PartitionChange::new(&p, Uuid::ZERO, 0, ELR_MIN_2);
    check_elr(&same, &[1, 2, 3], None);
}

/// With an empty ISR an unfenced ELR member is elected cleanly: it alone is the ISR, it leaves
/// the ELR, and the last known ELR is cleared; a fenced one is not.
#[test]
fn elr_member_elected_when_isr_empty() {
    let p = with_elr(partition(&[1, 2, 3], &[], -1), &[1, 2], &[1]);
    let online = PartitionChange::new(&p, Uuid::ZERO, 0, ELR_MIN_2);
    check_elr(&online, &[2], Some((2, Some(&[2]), Some(&[1]), Some(&[]), -1)));
    check_elr(&online, &[3], None);
    let preferred = PartitionChange::new(&p, Uuid::ZERO, 0, ELR_MIN_2).election(Election::Preferred);
    check_elr(&preferred, &[1, 2], Some((1, Some(&[1]), Some(&[2]), Some(&[]), -1)));
    // Without ELR the same partition has no one to elect, and its ELR is cleared.
    check_elr(&PartitionChange::new(&p, Uuid::ZERO, 0, ElrRules::OFF), &[2], Some((-2, None, Some(&[]), None, -1)));
}

/// A replica back from an unclean shutdown leaves the ELR (it may have lost unflushed records)
/// but stays the last known leader.
#[test]
fn unclean_shutdown_leaves_elr() {
    let p = with_elr(partition(&[1, 2, 3], &[], -1), &[1, 2], &[1]);
    let change = PartitionChange::new(&p, Uuid::ZERO, 0, ELR_MIN_2).unclean_shutdown(BrokerId(1));
    check_elr(&change, &[], Some((-2, None, Some(&[2]), None, -1)));
    let in_isr = partition(&[1, 2, 3], &[1, 2], 1);
    let change =
        PartitionChange::new(&in_isr, Uuid::ZERO, 0, ELR_MIN_2).isr_without(BrokerId(1)).unclean_shutdown(BrokerId(1));
    check_elr(&change, &[2], Some((2, Some(&[2]), None, None, -1)));
}

/// With ISR and ELR empty, the last known leader is elected once acceptable, uncleanly
/// (RECOVERING); an unclean election takes any replica only after it, and clears the ELR.
#[test]
fn last_known_leader_and_unclean_elections() {
    let p = with_elr(partition(&[1, 2, 3], &[], -1), &[], &[3]);
    let online = PartitionChange::new(&p, Uuid::ZERO, 0, ELR_MIN_2);
    check_elr(&online, &[3], Some((3, Some(&[3]), None, Some(&[]), 1)));
    check_elr(&online, &[1, 2], None);
    let unclean = online.clone().election(Election::Unclean);
    check_elr(&unclean, &[1, 2], Some((1, Some(&[1]), None, Some(&[]), 1)));
    let fenced_elr = with_elr(partition(&[1, 2, 3], &[], -1), &[2], &[3]);
    let unclean = PartitionChange::new(&fenced_elr, Uuid::ZERO, 0, ELR_MIN_2).election(Election::Unclean);
    check_elr(&unclean, &[1, 3], Some((1, Some(&[1]), Some(&[]), Some(&[]), 1)));
}
