//! The KRaft quorum's admin APIs (KIP-595, KIP-853, KIP-919) on real clusters: DescribeQuorum
//! through a broker (forwarded to the quorum's leader) and on a CONTROLLER listener, with the
//! leader, epoch, high watermark, voters and observers and their fetch times as Kafka reports
//! them; the CONTROLLER listener's ApiVersions and DescribeCluster; the raft voter APIs refused
//! as a static quorum refuses them; and the CONTROLLER listener authorizing Kafka requests by the
//! ACLs while Strand's own frames need CLUSTER_ACTION (`super.users`, or an ACL).

mod common;

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use common::cluster::Cluster;
use common::{Client, WAIT_MAX};
use strand_base::Uuid;
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_protocol::messages::create_acls_request::AclCreation;
use strand_protocol::messages::describe_quorum_request::{PartitionData, TopicData};
use strand_protocol::messages::incremental_alter_configs_request::{AlterConfigsResource, AlterableConfig};
use strand_protocol::messages::update_features_request::FeatureUpdateKey;
use strand_protocol::messages::{
    CreateAclsRequest, DescribeClusterRequest, DescribeClusterResponse, DescribeQuorumRequest, DescribeQuorumResponse,
    IncrementalAlterConfigsRequest, RemoveRaftVoterRequest, SaslAuthenticateRequest, SaslHandshakeRequest,
    UpdateFeaturesRequest,
};

/// DescribeQuorum v2 for `__cluster_metadata-0`, as the admin client asks it.
fn describe_quorum(client: &mut Client) -> DescribeQuorumResponse {
    let partitions = vec![PartitionData { partition_index: 0, ..Default::default() }];
    let topics = vec![TopicData { topic_name: "__cluster_metadata".into(), partitions, ..Default::default() }];
    let request = DescribeQuorumRequest { topics, ..Default::default() };
    let ResponseBody::DescribeQuorum(response) = client.call(RequestBody::DescribeQuorum(request), 2) else {
        panic!("not a DescribeQuorum response")
    };
    response
}

fn describe_cluster(client: &mut Client, endpoint_type: i8) -> DescribeClusterResponse {
    let request = DescribeClusterRequest { endpoint_type, ..Default::default() };
    let ResponseBody::DescribeCluster(response) = client.call(RequestBody::DescribeCluster(request), 2) else {
        panic!("not a DescribeCluster response")
    };
    response
}

/// Asks `client` until `done` holds for the answer.
fn until(client: &mut Client, what: &str, done: impl Fn(&DescribeQuorumResponse) -> bool) -> DescribeQuorumResponse {
    let poll = Duration::from_millis(100);
    for _ in 0..WAIT_MAX.as_millis() / poll.as_millis() {
        let response = describe_quorum(client);
        if done(&response) {
            return response;
        }
        std::thread::sleep(poll);
    }
    panic!("never {what} within {WAIT_MAX:?}: {:?}", describe_quorum(client))
}

fn controller_address(cluster: &Cluster, id: i32) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], cluster.controller_port(id)))
}

/// Three voters and a broker-only observer: DescribeQuorum through the observer's broker
/// listener and on a follower's CONTROLLER listener names the leader, its epoch and high
/// watermark, every voter with its log end offset and fetch times once it fetched, the observer,
/// and (v2) each voter's CONTROLLER endpoint; the CONTROLLER listener advertises and answers
/// DescribeCluster for controllers (the active one too) and refuses a broker one as Kafka does;
/// RemoveRaftVoter is UNSUPPORTED_VERSION on both listeners.
#[test]
fn describe_quorum_on_both_listeners() {
    let _serial = common::serial();
    let cluster = Cluster::start_with_voters(4, 3);
    let leader = cluster.wait_for_active_controller(None);
    let mut through_broker = cluster.node(4).connect();
    let all_fetched = |r: &DescribeQuorumResponse| {
        let Some(partition) = r.topics.first().and_then(|t| t.partitions.first()) else { return false };
        partition.leader_id.0 == leader
            && partition.current_voters.iter().all(|v| v.log_end_offset > 0 && v.last_caught_up_timestamp > 0)
            && partition.observers.iter().any(|o| o.replica_id.0 == 4 && o.log_end_offset > 0)
    };
    let response = until(&mut through_broker, "every voter and the observer fetched", all_fetched);
    assert_eq!((response.error_code, response.topics.len()), (0, 1), "{response:?}");
    let partition = &response.topics[0].partitions[0];
    assert_eq!(response.topics[0].topic_name, "__cluster_metadata");
    assert!(partition.leader_epoch >= 1 && partition.high_watermark > 0, "{partition:?}");
    let mut voters: Vec<i32> = partition.current_voters.iter().map(|v| v.replica_id.0).collect();
    voters.sort_unstable();
    assert_eq!(voters, [1, 2, 3]);
    for voter in &partition.current_voters {
        assert_eq!(voter.replica_directory_id, Uuid::default(), "a static quorum's voters have no directory id");
        assert!(voter.last_fetch_timestamp >= voter.last_caught_up_timestamp, "{voter:?}");
        if voter.replica_id.0 == leader {
            assert!(voter.log_end_offset >= partition.high_watermark, "the leader holds what it committed: {voter:?}");
        }
    }
    let observer = partition.observers.iter().find(|o| o.replica_id.0 == 4).expect("the observer");
    assert_ne!(observer.replica_directory_id, Uuid::default(), "an observer's metadata log dir, as Kafka's brokers");
    let mut nodes: Vec<(i32, String, String, u16)> = (response.nodes.iter())
        .map(|n| (n.node_id.0, n.listeners[0].name.clone(), n.listeners[0].host.clone(), n.listeners[0].port))
        .collect();
    nodes.sort();
    let expected: Vec<_> =
        (1..=3).map(|id| (id, "CONTROLLER".to_owned(), "127.0.0.1".to_owned(), cluster.controller_port(id))).collect();
    assert_eq!(nodes, expected);

    // A follower's CONTROLLER listener: Kafka's admin client's requests there.
    let follower = (1..=3).find(|id| *id != leader).expect("a follower");
    let mut controller = Client::connect(controller_address(&cluster, follower));
    let ResponseBody::ApiVersions(versions) =
        controller.call(RequestBody::ApiVersions(common::api_versions_request()), 3)
    else {
        panic!("not an ApiVersions response")
    };
    let advertised: Vec<i16> = versions.api_keys.iter().map(|a| a.api_key).collect();
    for api in [ApiKey::DescribeCluster, ApiKey::DescribeQuorum, ApiKey::DescribeConfigs, ApiKey::RemoveRaftVoter] {
        assert!(advertised.contains(&(api as i16)), "{api:?} advertised: {advertised:?}");
    }
    assert!(!advertised.contains(&(ApiKey::Produce as i16)), "only what the controller serves");
    assert!(versions.finalized_features.iter().any(|f| f.name == "metadata.version"), "{versions:?}");
    // The registered controllers (KIP-919): each registers once it runs, as Kafka's do.
    let registered: Vec<(i32, i32)> = (1..=3).map(|id| (id, i32::from(cluster.controller_port(id)))).collect();
    let poll = Duration::from_millis(100);
    let mut controllers = describe_cluster(&mut controller, 2);
    for _ in 0..WAIT_MAX.as_millis() / poll.as_millis() {
        let mut listed: Vec<(i32, i32)> = controllers.brokers.iter().map(|b| (b.broker_id.0, b.port)).collect();
        listed.sort_unstable();
        if listed == registered {
            break;
        }
        std::thread::sleep(poll);
        controllers = describe_cluster(&mut controller, 2);
    }
    assert_eq!((controllers.error_code, controllers.endpoint_type), (0, 2), "{controllers:?}");
    assert_eq!(controllers.controller_id.0, leader);
    let mut listed: Vec<(i32, i32)> = controllers.brokers.iter().map(|b| (b.broker_id.0, b.port)).collect();
    listed.sort_unstable();
    assert_eq!(listed, registered, "every controller's CONTROLLER endpoint");
    let mismatched = describe_cluster(&mut controller, 1);
    assert_eq!(mismatched.error_code, 114, "MISMATCHED_ENDPOINT_TYPE: {mismatched:?}");

    let on_controller = until(&mut controller, "the follower forwards to the leader", all_fetched);
    let described = &on_controller.topics[0].partitions[0];
    assert_eq!((described.leader_id.0, described.leader_epoch), (leader, partition.leader_epoch));
    assert!(described.high_watermark >= partition.high_watermark);

    for client in [&mut through_broker, &mut controller] {
        let request = RemoveRaftVoterRequest {
            cluster_id: None,
            voter_id: follower,
            voter_directory_id: Uuid([7; 16]),
            ..Default::default()
        };
        let ResponseBody::RemoveRaftVoter(refused) = client.call(RequestBody::RemoveRaftVoter(request), 0) else {
            panic!("not a RemoveRaftVoter response")
        };
        assert_eq!(refused.error_code, 35, "UNSUPPORTED_VERSION: {refused:?}");
    }
}

/// The CONTROLLER listener with SASL and an authorizer: a user that logs in but holds no ACL gets
/// CLUSTER_AUTHORIZATION_FAILED for DescribeQuorum, UpdateFeatures and a broker config change,
/// the described quorum once DESCRIBE on the cluster is granted to it, and is still closed for a
/// Strand frame (not in `super.users`) until an ACL grants it CLUSTER_ACTION.
#[test]
fn the_controller_listener_authorizes_kafka_requests() {
    let _serial = common::serial();
    let jaas = "listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.\
                PlainLoginModule required username=\"node\" password=\"node-secret\" user_node=\"node-secret\" \
                user_outsider=\"outsider-secret\";";
    let settings = [
        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:SASL_PLAINTEXT",
        "sasl.mechanism.controller.protocol=PLAIN",
        "listener.name.controller.sasl.enabled.mechanisms=PLAIN",
        jaas,
        "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users=User:node;User:ANONYMOUS",
        "connection.failed.authentication.delay.ms=0",
    ];
    let cluster = Cluster::start_configured(3, 3, &settings);
    let leader = cluster.wait_for_active_controller(None);
    let mut outsider = Client::connect(controller_address(&cluster, leader));
    let ResponseBody::ApiVersions(versions) =
        outsider.call(RequestBody::ApiVersions(common::api_versions_request()), 3)
    else {
        panic!("not an ApiVersions response")
    };
    assert_eq!(versions.error_code, 0, "ApiVersions before the SASL handshake, as Kafka clients send it");
    login(&mut outsider, "outsider", "outsider-secret");
    let refused = describe_quorum(&mut outsider);
    assert_eq!(refused.error_code, 31, "CLUSTER_AUTHORIZATION_FAILED: {refused:?}");
    let feature = FeatureUpdateKey {
        feature: "group.version".into(),
        max_version_level: 0,
        upgrade_type: 2,
        ..Default::default()
    };
    let request = UpdateFeaturesRequest { feature_updates: vec![feature], ..Default::default() };
    let ResponseBody::UpdateFeatures(refused) = outsider.call(RequestBody::UpdateFeatures(request), 1) else {
        panic!("not an UpdateFeatures response")
    };
    assert_eq!((refused.error_code, refused.results.len()), (31, 0), "ALTER on the cluster: {refused:?}");
    let config = AlterableConfig { name: "log.retention.ms".into(), value: Some("1".into()), ..Default::default() };
    let resource = AlterConfigsResource { resource_type: 4, configs: vec![config], ..Default::default() };
    let request = IncrementalAlterConfigsRequest { resources: vec![resource], ..Default::default() };
    let ResponseBody::IncrementalAlterConfigs(refused) =
        outsider.call(RequestBody::IncrementalAlterConfigs(request), 1)
    else {
        panic!("not an IncrementalAlterConfigs response")
    };
    assert_eq!(refused.responses[0].error_code, 31, "ALTER_CONFIGS on the cluster: {refused:?}");

    let creation = AclCreation {
        resource_type: 4,
        resource_name: "kafka-cluster".into(),
        resource_pattern_type: 3,
        principal: "User:outsider".into(),
        host: "*".into(),
        operation: 8,
        permission_type: 3,
        ..Default::default()
    };
    let request = CreateAclsRequest { creations: vec![creation.clone()], ..Default::default() };
    let ResponseBody::CreateAcls(created) = cluster.node(1).connect().call(RequestBody::CreateAcls(request), 3) else {
        panic!("not a CreateAcls response")
    };
    assert_eq!(created.results[0].error_code, 0, "{created:?}");
    let described = until(&mut outsider, "the grant reached the controller", |r| r.error_code == 0);
    assert_eq!(described.topics[0].partitions[0].leader_id.0, leader);

    // Strand's own frames need CLUSTER_ACTION on the cluster, which super users have and
    // outsider does not: the connection closes unanswered.
    assert!(!answers_a_strand_frame(&mut outsider), "no metadata without CLUSTER_ACTION");
    // Granted CLUSTER_ACTION, a new connection of outsider is served, as Kafka's controllers
    // authorize their peers' RPCs by the ACLs.
    let creation = AclCreation { operation: 9, ..creation };
    let request = CreateAclsRequest { creations: vec![creation], ..Default::default() };
    let ResponseBody::CreateAcls(created) = cluster.node(1).connect().call(RequestBody::CreateAcls(request), 3) else {
        panic!("not a CreateAcls response")
    };
    assert_eq!(created.results[0].error_code, 0, "{created:?}");
    let poll = Duration::from_millis(100);
    let served = (0..WAIT_MAX.as_millis() / poll.as_millis()).any(|_| {
        let mut peer = Client::connect(controller_address(&cluster, leader));
        login(&mut peer, "outsider", "outsider-secret");
        let served = answers_a_strand_frame(&mut peer);
        if !served {
            std::thread::sleep(poll);
        }
        served
    });
    assert!(served, "CLUSTER_ACTION granted by an ACL admits Strand's frames");
}

/// Sends a Strand metadata fetch on `client`: whether any answer comes back.
fn answers_a_strand_frame(client: &mut Client) -> bool {
    let mut frame = Vec::new();
    frame.extend_from_slice(&17i32.to_be_bytes());
    frame.extend_from_slice(&32_000i16.to_be_bytes());
    frame.extend_from_slice(&0i16.to_be_bytes());
    frame.extend_from_slice(&9i32.to_be_bytes());
    frame.push(2);
    frame.extend_from_slice(&0i64.to_be_bytes());
    let _ = client.stream.write_all(&frame);
    let _ = client.stream.flush();
    let mut byte = [0u8; 1];
    matches!(client.stream.read(&mut byte), Ok(n) if n > 0)
}

/// PLAIN's exchange on `client`.
fn login(client: &mut Client, user: &str, password: &str) {
    let handshake = SaslHandshakeRequest { mechanism: "PLAIN".into() };
    let ResponseBody::SaslHandshake(answer) = client.call(RequestBody::SaslHandshake(handshake), 1) else {
        panic!("not a SaslHandshake response")
    };
    assert_eq!(answer.error_code, 0, "{answer:?}");
    let token = format!("\0{user}\0{password}");
    let request = SaslAuthenticateRequest { auth_bytes: Bytes::from(token), ..Default::default() };
    let ResponseBody::SaslAuthenticate(response) = client.call(RequestBody::SaslAuthenticate(request), 2) else {
        panic!("not a SaslAuthenticate response")
    };
    assert_eq!(response.error_code, 0, "{response:?}");
}
