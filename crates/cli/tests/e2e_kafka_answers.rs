//! Requests a careless or hostile client sends that are well formed but wrong (a name given twice,
//! a partition asked for twice, a creation past the controller's record bound, timeouts at the
//! ends of their type, an offset commit larger than a batch may be): each gets the answer Apache
//! Kafka 4.4 gives for the same request, entry by entry (issue 15, findings 2 and 6).
//!
//! The expected answers were recorded from Kafka 4.4.0 (one node, KRaft, the
//! `compat/broker/kafka-server.properties` oracle) by running this file against it:
//! `STRAND_TEST_BROKER=127.0.0.1:<port> cargo test -p strand-cli --test e2e_kafka_answers` sends
//! the same requests to the broker at that address instead of a `strand` it starts. Where Strand
//! answers differently on purpose, the case says so and ARCHITECTURE.md lists the difference.

mod common;

use common::{Client, Server};
use strand_base::{BrokerId, Uuid};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::CreatableTopic;
use strand_protocol::messages::delete_topics_request::DeleteTopicState;
use strand_protocol::messages::describe_configs_request::DescribeConfigsResource;
use strand_protocol::messages::join_group_request::JoinGroupRequestProtocol;
use strand_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use strand_protocol::messages::metadata_request::MetadataRequestTopic;
use strand_protocol::messages::offset_commit_request::{OffsetCommitRequestPartition, OffsetCommitRequestTopic};
use strand_protocol::messages::{
    CreateTopicsRequest, DeleteGroupsRequest, DeleteTopicsRequest, DescribeConfigsRequest, FindCoordinatorRequest,
    JoinGroupRequest, ListOffsetsRequest, MetadataRequest, OffsetCommitRequest,
};

/// The external broker under test, if any (the oracle run).
fn external_broker() -> Option<std::net::SocketAddr> {
    std::env::var("STRAND_TEST_BROKER").ok().map(|a| a.parse().expect("STRAND_TEST_BROKER is host:port"))
}

/// A name no earlier run used, so a run against a long-lived oracle starts from nothing.
fn fresh(prefix: &str) -> String {
    let nanos = std::time::SystemTime::UNIX_EPOCH.elapsed().map(|d| d.as_nanos()).unwrap_or(0);
    format!("{prefix}-{nanos}")
}

/// A response reduced to what the comparison is about: each entry's name and error code, in the
/// order the broker answered them, `{name}` standing for the case's own fresh names.
type Answer = Vec<(String, i16)>;

fn creatable(name: &str, partitions: i32) -> CreatableTopic {
    CreatableTopic { name: name.to_owned(), num_partitions: partitions, replication_factor: 1, ..Default::default() }
}

fn create_topics(client: &mut Client, topics: Vec<CreatableTopic>, names: &[&str]) -> Answer {
    let request = CreateTopicsRequest { topics, timeout_ms: 30_000, ..Default::default() };
    let ResponseBody::CreateTopics(response) = client.call(RequestBody::CreateTopics(request), 7) else { panic!() };
    response.topics.iter().map(|t| (masked(&t.name, names), t.error_code)).collect()
}

fn delete_topics(client: &mut Client, topics: &[&str], names: &[&str]) -> Answer {
    let topics = topics.iter().map(|n| DeleteTopicState {
        name: Some((*n).to_owned()),
        topic_id: Uuid::ZERO,
        ..Default::default()
    });
    let request = DeleteTopicsRequest { topics: topics.collect(), timeout_ms: 30_000, ..Default::default() };
    let ResponseBody::DeleteTopics(response) = client.call(RequestBody::DeleteTopics(request), 6) else { panic!() };
    response.responses.iter().map(|t| (masked(t.name.as_deref().unwrap_or("-"), names), t.error_code)).collect()
}

/// `name` with each of the case's fresh `names` replaced by `{i}`, its place in `names`.
fn masked(name: &str, names: &[&str]) -> String {
    names.iter().position(|n| *n == name).map_or_else(|| name.to_owned(), |i| format!("{{{i}}}"))
}

/// Waits until `group`'s coordinator is ready (Kafka creates `__consumer_offsets` on the first
/// FindCoordinator and answers COORDINATOR_NOT_AVAILABLE until it is led).
fn coordinator_ready(client: &mut Client, group: &str) {
    for _ in 0..200 {
        let request = FindCoordinatorRequest { coordinator_keys: vec![group.to_owned()], ..Default::default() };
        let ResponseBody::FindCoordinator(response) = client.call(RequestBody::FindCoordinator(request), 4) else {
            panic!()
        };
        if response.coordinators.iter().all(|c| c.error_code == 0) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("no coordinator for {group}")
}

/// Codes a broker answers while a new topic or coordinator is still being set up.
const NOT_READY_YET: [i16; 4] = [3, 14, 15, 16];

/// `call`'s answer once it holds no [`NOT_READY_YET`] code (retried for up to 10 s).
fn settled(client: &mut Client, mut call: impl FnMut(&mut Client) -> Answer) -> Answer {
    let mut got = call(client);
    for _ in 0..200 {
        if !got.iter().any(|(_, code)| NOT_READY_YET.contains(code)) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        got = call(client);
    }
    got
}

fn answer(entries: &[(&str, i16)]) -> Answer {
    entries.iter().map(|(name, code)| ((*name).to_owned(), *code)).collect()
}

/// Every case: its name, what the broker answered, and what Kafka 4.4 answers.
fn cases(client: &mut Client) -> Vec<(&'static str, Answer, Answer)> {
    let mut out = Vec::new();

    // ApiVersions v3 not naming the client's software (KIP-511): INVALID_REQUEST, no versions.
    let unnamed = strand_protocol::messages::ApiVersionsRequest::default();
    let ResponseBody::ApiVersions(response) = client.call(RequestBody::ApiVersions(unnamed), 3) else { panic!() };
    let got = vec![(format!("{} api keys", response.api_keys.len()), response.error_code)];
    out.push(("ApiVersions v3 with an empty software name", got, answer(&[("0 api keys", 42)])));

    // A name given twice in one CreateTopics: INVALID_REQUEST once for the name, the others decided.
    let (a, b) = (fresh("twice"), fresh("once"));
    let got = create_topics(client, vec![creatable(&a, 1), creatable(&a, 1), creatable(&b, 1)], &[&a, &b]);
    out.push(("CreateTopics names a topic twice", got, answer(&[("{1}", 0), ("{0}", 42)])));

    // DeleteTopics naming an unknown topic twice, and an existing one twice.
    let unknown = fresh("unknown");
    let got = delete_topics(client, &[&unknown, &unknown], &[&unknown]);
    out.push(("DeleteTopics names an unknown topic twice", got, answer(&[("{0}", 42)])));
    let got = delete_topics(client, &[&b, &b], &[&b]);
    out.push(("DeleteTopics names an existing topic twice", got, answer(&[("{0}", 42)])));

    // ListOffsets asking for one partition twice: one INVALID_REQUEST for it, the other answered
    // (in an order of Kafka's hash map: compared sorted).
    let topic = fresh("offsets");
    common::create_topic(client, &topic, 2);
    let (code, _) = common::produce_when_led(client, &topic, 1, &["one"]);
    assert_eq!(code, 0, "the case's topic takes a record");
    let partition = |partition_index| ListOffsetsPartition { partition_index, timestamp: -1, ..Default::default() };
    let request = ListOffsetsRequest {
        replica_id: BrokerId(-1),
        topics: vec![ListOffsetsTopic {
            name: topic.clone(),
            partitions: vec![partition(0), partition(1), partition(0)],
            ..Default::default()
        }],
        ..Default::default()
    };
    let got = settled(client, |client| {
        let ResponseBody::ListOffsets(response) = client.call(RequestBody::ListOffsets(request.clone()), 7) else {
            panic!()
        };
        let mut got: Answer = response
            .topics
            .iter()
            .flat_map(|t| &t.partitions)
            .map(|p| (p.partition_index.to_string(), p.error_code))
            .collect();
        got.sort();
        got
    });
    out.push(("ListOffsets asks for a partition twice", got, answer(&[("0", 42), ("1", 0)])));

    // Metadata naming a topic twice describes it once.
    let named = || MetadataRequestTopic { name: Some(topic.clone()), ..Default::default() };
    let request = MetadataRequest { topics: Some(vec![named(), named()]), ..Default::default() };
    let ResponseBody::Metadata(response) = client.call(RequestBody::Metadata(request), 12) else { panic!() };
    let got =
        response.topics.iter().map(|t| (masked(t.name.as_deref().unwrap_or("-"), &[&topic]), t.error_code)).collect();
    out.push(("Metadata names a topic twice", got, answer(&[("{0}", 0)])));

    // DescribeConfigs naming a resource twice: described twice.
    let resource = || DescribeConfigsResource { resource_type: 2, resource_name: topic.clone(), ..Default::default() };
    let request = DescribeConfigsRequest { resources: vec![resource(), resource()], ..Default::default() };
    let ResponseBody::DescribeConfigs(response) = client.call(RequestBody::DescribeConfigs(request), 4) else {
        panic!()
    };
    let got = response.results.iter().map(|r| (masked(&r.resource_name, &[&topic]), r.error_code)).collect();
    out.push(("DescribeConfigs names a topic twice", got, answer(&[("{0}", 0), ("{0}", 0)])));

    // DeleteGroups naming an unknown group twice.
    let group = fresh("group");
    coordinator_ready(client, &group);
    let got = settled(client, |client| {
        let request = DeleteGroupsRequest { groups_names: vec![group.clone(), group.clone()], ..Default::default() };
        let ResponseBody::DeleteGroups(response) = client.call(RequestBody::DeleteGroups(request), 2) else { panic!() };
        response.results.iter().map(|r| (masked(&r.group_id, &[&group]), r.error_code)).collect()
    });
    out.push(("DeleteGroups names a group twice", got, answer(&[("{0}", 69)])));

    // A creation past the controller's bound of 10,000 records for one request.
    let large = fresh("large");
    let got = create_topics(client, vec![creatable(&large, 10_000)], &[&large]);
    out.push(("CreateTopics of 10,000 partitions (10,001 records)", got, answer(&[("{0}", 44)])));

    // JoinGroup with rebalance timeouts at the ends of their type: the first join of a v4+
    // member is answered MEMBER_ID_REQUIRED whatever its timeouts, the second joins.
    for rebalance_timeout_ms in [i32::MIN, -1, i32::MAX] {
        let group = fresh("rebalance");
        coordinator_ready(client, &group);
        let join = |member_id: String| JoinGroupRequest {
            group_id: group.clone(),
            session_timeout_ms: 10_000,
            rebalance_timeout_ms,
            member_id,
            protocol_type: "consumer".to_owned(),
            protocols: vec![JoinGroupRequestProtocol { name: "range".to_owned(), ..Default::default() }],
            ..Default::default()
        };
        let got = settled(client, |client| {
            let ResponseBody::JoinGroup(first) = client.call(RequestBody::JoinGroup(join(String::new())), 9) else {
                panic!()
            };
            let second = join(first.member_id.clone());
            let ResponseBody::JoinGroup(second) = client.call(RequestBody::JoinGroup(second), 9) else { panic!() };
            vec![("first".to_owned(), first.error_code), ("second".to_owned(), second.error_code)]
        });
        let case = match rebalance_timeout_ms {
            i32::MIN => "JoinGroup with rebalance timeout i32::MIN",
            -1 => "JoinGroup with rebalance timeout -1",
            _ => "JoinGroup with rebalance timeout i32::MAX",
        };
        out.push((case, got, answer(&[("first", 79), ("second", 0)])));
    }

    // An offset commit whose records together exceed message.max.bytes (1 MiB): 400 partitions
    // with 4,000 bytes of metadata each (within offset.metadata.max.bytes, 4,096).
    let commit_topic = fresh("commits");
    common::create_topic(client, &commit_topic, 400);
    let partitions = (0..400).map(|i| OffsetCommitRequestPartition {
        partition_index: i,
        committed_offset: 0,
        committed_leader_epoch: -1,
        committed_metadata: Some("m".repeat(4_000)),
        ..Default::default()
    });
    let committer = fresh("committer");
    coordinator_ready(client, &committer);
    let request = OffsetCommitRequest {
        group_id: committer,
        generation_id_or_member_epoch: -1,
        retention_time_ms: -1,
        topics: vec![OffsetCommitRequestTopic {
            name: commit_topic.clone(),
            partitions: partitions.collect(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let got = settled(client, |client| {
        let body = RequestBody::OffsetCommit(request.clone());
        let ResponseBody::OffsetCommit(response) = client.call(body, 8) else { panic!() };
        let mut codes: Vec<i16> = response.topics[0].partitions.iter().map(|p| p.error_code).collect();
        codes.sort_unstable();
        codes.dedup();
        codes.into_iter().map(|c| ("every partition".to_owned(), c)).collect()
    });
    out.push(("OffsetCommit of 1.6 MB of records", got, answer(&[("every partition", -1)])));

    out
}

#[test]
fn wrong_requests_get_kafkas_answers() {
    let _serial = common::serial();
    let oracle = external_broker();
    // As the oracle is configured (compat/broker/kafka-server.properties): a group's first
    // rebalance is not held back.
    let overrides = ["group.initial.rebalance.delay.ms=0"];
    let server = oracle.is_none().then(|| Server::start_with(tempfile::tempdir().expect("temp dir"), &overrides));
    let address = oracle.unwrap_or_else(|| server.as_ref().expect("server").address);
    let mut client = Client::connect(address);
    let mismatches: Vec<String> = cases(&mut client)
        .into_iter()
        .filter(|(_, got, expected)| got != expected)
        .map(|(case, got, expected)| format!("{case}: answered {got:?}, Kafka 4.4 answers {expected:?}"))
        .collect();
    assert!(mismatches.is_empty(), "answers differing from Kafka's:\n{}", mismatches.join("\n"));
}
