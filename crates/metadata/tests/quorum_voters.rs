//! A dynamic quorum's voter changes (KIP-853) as the voters themselves see them, over the
//! in-process quorum of `quorum_common`.

mod quorum_common;

use quorum_common::*;

/// The leader removed from the voters while it keeps running stops naming itself the leader:
/// openraft's vote still names it at its last epoch, and observers that asked it (a broker
/// rotating through the voters) believed it and followed its frozen log instead of the new
/// leader. The remaining two elect a leader among themselves and commit without it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removed_leader_no_longer_names_itself_the_leader() {
    let cluster = Cluster::dynamic();
    cluster.start_all().await;
    let (_, removed) = cluster.agreed_leader(&VOTERS).await;
    cluster.append(&VOTERS, topic("before")).await;
    let quorum = cluster.quorum(removed);
    bounded("the removal", quorum.remove_voter(removed, Cluster::directory_id(removed), WAIT))
        .await
        .expect("the leader removes itself");

    let remaining: Vec<i32> = VOTERS.into_iter().filter(|&id| id != removed).collect();
    let (_, leader) = cluster.agreed_leader(&remaining).await;
    assert_ne!(leader, removed);
    cluster.append(&remaining, topic("after")).await;
    let named = cluster
        .wait_until("the removed voter to stop naming itself", |c| {
            let named = c.quorum(removed).leadership().borrow().leader_id;
            (named != Some(removed) && c.quorum(removed).leader_id() != Some(removed)).then_some(named)
        })
        .await;
    assert!(named.is_none() || named == Some(leader), "the removed voter names {named:?}, the leader is {leader}");
    assert!(!quorum.is_leader());
    cluster.check_one_leader_per_epoch();
    cluster.stop_all().await;
}
