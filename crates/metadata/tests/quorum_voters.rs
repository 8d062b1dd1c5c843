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

/// UpdateRaftVoter (KIP-853): the leader gives a voter the CONTROLLER listeners it now names,
/// and every voter's membership holds them once the change commits; the quorum goes on
/// committing. An unknown voter, or a known id with another directory, is VOTER_NOT_FOUND; a
/// follower answers NOT_LEADER_OR_FOLLOWER.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_voter_update_changes_its_endpoints_everywhere() {
    use strand_metadata::quorum::NewVoter;
    use strand_protocol::error::ErrorCode;
    let cluster = Cluster::dynamic();
    cluster.start_all().await;
    let (_, leader) = cluster.agreed_leader(&VOTERS).await;
    let updated = VOTERS.into_iter().find(|&id| id != leader).expect("a follower");
    let listeners = vec![("CONTROLLER".to_owned(), "localhost".to_owned(), 19_093)];
    let voter = |id: i32, directory_id| NewVoter { id, directory_id, listeners: listeners.clone() };
    let quorum = cluster.quorum(leader);
    bounded("the update", quorum.update_voter(voter(updated, Cluster::directory_id(updated)), WAIT))
        .await
        .expect("the leader updates the voter");
    // A record appended after the change: a voter that committed it holds the change before it
    // (a membership takes effect in a log once appended there).
    cluster.append(&VOTERS, topic("after the update")).await;
    for id in VOTERS {
        data_batches(&cluster.quorum(id), 1).await;
        let voters = cluster.quorum(id).current_voters();
        let holds = voters.iter().any(|v| v.id == updated && v.listeners == listeners);
        assert!(holds, "voter {id} holds the new endpoints: {voters:?}");
    }

    let unknown = quorum.update_voter(voter(9, Cluster::directory_id(9)), WAIT).await.expect_err("an unknown voter");
    assert_eq!(unknown.code, ErrorCode::VoterNotFound);
    let other_disk =
        quorum.update_voter(voter(updated, Cluster::directory_id(9)), WAIT).await.expect_err("another directory");
    assert_eq!(other_disk.code, ErrorCode::VoterNotFound);
    let follower = cluster.quorum(updated);
    let refused = follower.update_voter(voter(updated, Cluster::directory_id(updated)), WAIT).await;
    assert_eq!(refused.expect_err("a follower").code, ErrorCode::NotLeaderOrFollower);
    cluster.check_one_leader_per_epoch();
    cluster.stop_all().await;
}
