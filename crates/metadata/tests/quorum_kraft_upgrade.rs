//! A static quorum (`controller.quorum.voters`, `kraft.version` 0) upgraded to `kraft.version` 1
//! (KIP-853, Kafka's KAFKA-16538), as the voters themselves see it, over the in-process quorum of
//! `quorum_common`: the leader takes each voter's UpdateRaftVoter report and refuses the upgrade
//! until every voter reported supporting it, as Kafka's leader; the upgrade writes the reported
//! voters, and the quorum is then dynamic on every voter, even after a restart with the old
//! static configuration.

mod quorum_common;

use quorum_common::*;
use strand_base::Uuid;
use strand_metadata::quorum::{NewVoter, Quorum};
use strand_protocol::error::ErrorCode;

/// Kafka 4.4's refusal, as its `LeaderState` words it (checked against Kafka 4.4 with a voter
/// down through a leader's whole epoch).
const NOT_ALL_SUPPORT: &str =
    "Invalid upgrade of kraft.version to KRAFT_VERSION_1 because not all of the voters support it";

fn listeners(id: i32) -> Vec<(String, String, u16)> {
    vec![("CONTROLLER".to_owned(), "localhost".to_owned(), 9100 + u16::try_from(id).expect("small"))]
}

fn report(quorum: &Quorum, id: i32, kraft_versions: (i16, i16)) -> Result<(), ErrorCode> {
    let voter = NewVoter { id, directory_id: Cluster::directory_id(id), listeners: listeners(id) };
    quorum.report_voter(voter, kraft_versions).map_err(|e| e.code)
}

/// Every voter reports to the leader; it upgrades only then, and each voter's membership names
/// every voter's directory id and listeners once the upgrade commits; the quorum is dynamic on
/// each (a voter is removed), and stays so when the remaining voters restart with their old
/// `controller.quorum.voters`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_static_quorum_becomes_dynamic() {
    let cluster = Cluster::new();
    cluster.start_all().await;
    let (_, leader) = cluster.agreed_leader(&VOTERS).await;
    let quorum = cluster.quorum(leader);
    assert_eq!((quorum.kraft_version(), quorum.is_dynamic()), (0, false));
    assert_eq!(quorum.kraft_upgrade_refusal(1).as_deref(), Some(NOT_ALL_SUPPORT), "nobody reported yet");
    let removal = quorum.remove_voter(1, Uuid::ZERO, WAIT).await.expect_err("a static quorum's voters are fixed");
    assert_eq!(removal.code, ErrorCode::UnsupportedVersion);

    let follower = VOTERS.into_iter().find(|&id| id != leader).expect("a follower");
    assert_eq!(report(&cluster.quorum(follower), follower, (0, 1)), Err(ErrorCode::NotLeaderOrFollower));
    assert_eq!(report(&quorum, 9, (0, 1)), Err(ErrorCode::VoterNotFound));
    assert_eq!(report(&quorum, follower, (1, 1)), Err(ErrorCode::InvalidRequest), "kraft.version 0 unsupported");
    for id in VOTERS {
        report(&quorum, id, (0, if id == follower { 0 } else { 1 })).expect("a voter reports");
    }
    assert_eq!(quorum.kraft_upgrade_refusal(1).as_deref(), Some(NOT_ALL_SUPPORT), "{follower} supports only 0");
    let refused = quorum.upgrade_kraft_version(1, WAIT).await.expect_err("refused");
    assert_eq!(refused, NOT_ALL_SUPPORT);
    report(&quorum, follower, (0, 1)).expect("it reports again, upgraded");
    assert_eq!(quorum.kraft_upgrade_refusal(1), None);
    bounded("the upgrade", quorum.upgrade_kraft_version(1, WAIT)).await.expect("upgrades");
    assert_eq!(quorum.kraft_upgrade_refusal(1), None, "done: nothing to refuse");

    cluster.append(&VOTERS, topic("after the upgrade")).await;
    for id in VOTERS {
        let voter = cluster.quorum(id);
        data_batches(&voter, 1).await;
        assert_eq!((voter.kraft_version(), voter.is_dynamic()), (1, true), "voter {id}");
        let named: Vec<_> = voter.current_voters().into_iter().map(|v| (v.id, v.directory_id, v.listeners)).collect();
        let expected: Vec<_> = VOTERS.iter().map(|&v| (v, Cluster::directory_id(v), listeners(v))).collect();
        assert_eq!(named, expected, "voter {id}");
    }

    let removed = follower;
    bounded("the removal", quorum.remove_voter(removed, Cluster::directory_id(removed), WAIT))
        .await
        .expect("a dynamic quorum's voter is removed");
    let remaining: Vec<i32> = VOTERS.into_iter().filter(|&id| id != removed).collect();
    cluster.append(&remaining, topic("after the removal")).await;
    cluster.stop(removed).await;
    for id in &remaining {
        cluster.stop(*id).await;
    }
    for id in &remaining {
        cluster.start(*id).await;
    }
    let (_, leader) = cluster.agreed_leader(&remaining).await;
    cluster.append(&remaining, topic("after the restart")).await;
    for &id in &remaining {
        let voter = cluster.quorum(id);
        assert!(voter.is_dynamic(), "voter {id} restarted with its static configuration");
        let ids: Vec<i32> = voter.current_voters().iter().map(|v| v.id).collect();
        assert_eq!(ids, remaining, "the log's voters rule, not controller.quorum.voters");
        data_batches(&voter, 3).await;
    }
    assert!(remaining.contains(&leader));
    cluster.check_one_leader_per_epoch();
    for id in remaining {
        cluster.stop(id).await;
    }
}

/// A new leader has heard from nobody: reports are kept for the epoch they were made in, as
/// Kafka's leader keeps them, so the upgrade waits for every voter to report again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_leader_needs_every_report_again() {
    let cluster = Cluster::new();
    cluster.start_all().await;
    let (_, leader) = cluster.agreed_leader(&VOTERS).await;
    for id in VOTERS {
        report(&cluster.quorum(leader), id, (0, 1)).expect("reports");
    }
    assert_eq!(cluster.quorum(leader).kraft_upgrade_refusal(1), None);
    cluster.stop(leader).await;
    let others: Vec<i32> = VOTERS.into_iter().filter(|&id| id != leader).collect();
    let (_, next) = cluster.agreed_leader(&others).await;
    let quorum = cluster.quorum(next);
    for &id in &others {
        report(&quorum, id, (0, 1)).expect("reports");
    }
    assert_eq!(quorum.kraft_upgrade_refusal(1).as_deref(), Some(NOT_ALL_SUPPORT), "{leader} is down");
    assert_eq!(quorum.kraft_version(), 0);
    for id in others {
        cluster.stop(id).await;
    }
}
