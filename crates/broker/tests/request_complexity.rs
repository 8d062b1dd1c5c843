//! A test of growth, not of speed (issue 15, finding 2: a request's work is at worst O(n log n)
//! in its size): each request kind whose lists a client controls is sent at `n` entries and at
//! [`GROWTH`] times as many, and the CPU time the process spent handling the large one must stay
//! far below [`GROWTH`] squared times the small one's. The entries are the worst cases for
//! duplicate checks, lookups and merges: names repeated many times, unknown names, each a new
//! one, and names the session may not use (refused and merged back into the answer).
//!
//! What is measured: the process's CPU time (`CLOCK_PROCESS_CPUTIME_ID`, every thread of it)
//! from the request's frame going into `Broker::handle` to the response's frame coming out:
//! decoding, authorization, the handler, the controller behind it (in process, over the metadata
//! log in memory), the group coordinator, the image updates and the encoding of the answer.
//! Building the request and decoding the answer are outside it.
//!
//! Why CPU time and not wall time: the rules here forbid timed tests of performance, and CI runs
//! this binary on 2 cores next to other test binaries. Wall time counts whatever else runs; this
//! process's CPU time counts only its own work (the only test of this binary runs alone, so no
//! other test burns CPU meanwhile), so it grows with that work whatever the machine's load. Only
//! ratios are compared, each the median of [`REPETITIONS`] after a warm-up, against a threshold
//! with a wide margin on both sides ([`RATIO_MAX`]). Sizes are large enough that fixed costs do
//! not flatten the ratio, and every frame stays under 1 MiB (larger ones are handled on a thread
//! of their own, see `large_requests.rs`).

mod common;

use std::sync::Arc;

use common::Node;
use strand_base::Uuid;
use strand_base::background::BACKGROUND_FRAME_BYTES;
use strand_broker::{Outcome, frame_to_bytes};
use strand_protocol::frame::{decode_response, encode_request};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::CreatableTopic;
use strand_protocol::messages::delete_topics_request::DeleteTopicState;
use strand_protocol::messages::describe_configs_request::DescribeConfigsResource;
use strand_protocol::messages::describe_producers_request::TopicRequest;
use strand_protocol::messages::elect_leaders_request::TopicPartitions;
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use strand_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use strand_protocol::messages::metadata_request::MetadataRequestTopic;
use strand_protocol::messages::offset_commit_request::{OffsetCommitRequestPartition, OffsetCommitRequestTopic};
use strand_protocol::messages::offset_fetch_request::{OffsetFetchRequestGroup, OffsetFetchRequestTopics};
use strand_protocol::messages::{
    AlterConfigsRequest, CreateTopicsRequest, DeleteGroupsRequest, DeleteTopicsRequest, DescribeConfigsRequest,
    DescribeGroupsRequest, DescribeProducersRequest, ElectLeadersRequest, FetchRequest, FindCoordinatorRequest,
    IncrementalAlterConfigsRequest, ListOffsetsRequest, MetadataRequest, OffsetCommitRequest, OffsetFetchRequest,
    alter_configs_request, incremental_alter_configs_request,
};
use strand_security::Session;
use strand_security::acl::{AclOperation, Action, Authorizer, ResourceType};

/// How many times more entries the large request of a pair has than the small one.
const GROWTH: usize = 8;
/// The most the large request may cost per the small one's CPU time. With [`GROWTH`] 8, a
/// handler linear in its entries costs about 8x, an O(n log n) one up to about 11x, and one
/// quadratic in its entries 64x once its quadratic part dominates; before that, (8 + 64q) /
/// (1 + q) for a quadratic part q times the linear one at the small size, so 20x catches any
/// quadratic part above 0.27 of the rest at the small size (2.2 times it at the large one).
/// Measured in debug: every kind 6-10x; a Vec::contains dedupe planted in DeleteTopics 31x;
/// OffsetFetch of many groups before one read per coordinator partition, 34x. 20x sits about
/// halfway (geometrically) between, leaving 2x headroom above the linear ratios for noise
/// (a shared core's caches, an allocator's growth, an outlier past the median).
const RATIO_MAX: f64 = 20.0;
/// Measurements per size; the median is compared, so one stalled repetition does not count.
const REPETITIONS: usize = 3;

/// A topic of many partitions, led by this node.
const WIDE: &str = "wide";
const WIDE_PARTITIONS: i32 = 256;
/// Small topics `t-00` .. (two partitions each), named again and again.
const TOPICS: usize = 32;
/// Groups `g-0` .. with committed offsets.
const GROUPS: usize = 8;
/// The prefix of names [`DenyMarked`] refuses.
const DENIED: &str = "denied-";

/// One request kind, with the entries that make it large.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Names each given four times (INVALID_REQUEST at the controller; nothing is created), half
    /// of them refused.
    CreateTopicsRepeated,
    /// Distinct names that are not legal topic names (INVALID_TOPIC_EXCEPTION).
    CreateTopicsInvalid,
    /// Distinct new names, `validate_only` (placed, not created).
    CreateTopicsValidateOnly,
    /// Distinct unknown names and ids.
    DeleteTopicsUnknown,
    /// Existing, unknown and refused names, each given twice (nothing is deleted).
    DeleteTopicsRepeated,
    /// Topics by name: existing ones repeated, unknown and refused ones.
    Metadata,
    /// Partitions of the wide topic (some past its end, repeated), of small topics named many
    /// times, of unknown and of refused topics; so for every kind of partition list below.
    ListOffsets,
    /// Topic resources (existing repeated, unknown, refused) and this broker, repeated.
    DescribeConfigs,
    /// Existing groups repeated, unknown and refused groups.
    DescribeGroups,
    OffsetCommit,
    /// One group, many partitions.
    OffsetFetch,
    /// Many groups (existing repeated, unknown, refused), one partition each.
    OffsetFetchGroups,
    /// A full fetch opening a session.
    FetchSession,
    /// An incremental fetch adding the partitions to a session of one.
    FetchIncremental,
    DescribeProducers,
    /// Topic and broker resources each given twice, and one resource naming a key many times.
    AlterConfigs,
    /// As AlterConfigs, each key set.
    IncrementalAlterConfigs,
    ElectLeaders,
    /// Last: its first call deletes the existing groups the others use.
    DeleteGroups,
}

const KINDS: [Kind; 19] = [
    Kind::CreateTopicsRepeated,
    Kind::CreateTopicsInvalid,
    Kind::CreateTopicsValidateOnly,
    Kind::DeleteTopicsUnknown,
    Kind::DeleteTopicsRepeated,
    Kind::Metadata,
    Kind::ListOffsets,
    Kind::DescribeConfigs,
    Kind::DescribeGroups,
    Kind::OffsetCommit,
    Kind::OffsetFetch,
    Kind::OffsetFetchGroups,
    Kind::FetchSession,
    Kind::FetchIncremental,
    Kind::DescribeProducers,
    Kind::AlterConfigs,
    Kind::IncrementalAlterConfigs,
    Kind::ElectLeaders,
    Kind::DeleteGroups,
];

/// No request kind's CPU time grows quadratically in its entries: the large request of each pair
/// costs less than [`RATIO_MAX`] times the small one.
#[tokio::test]
async fn no_request_grows_quadratically_in_its_entries() {
    let node = node().await;
    let mut report = Vec::new();
    for kind in KINDS {
        report.push(growth(&node, kind).await);
    }
    let table: Vec<String> = report.iter().map(Growth::to_string).collect();
    eprintln!("{}", table.join("\n"));
    let quadratic: Vec<&str> =
        report.iter().zip(&table).filter(|(g, _)| g.ratio() >= RATIO_MAX).map(|(_, t)| t.as_str()).collect();
    assert!(quadratic.is_empty(), "{RATIO_MAX}x or more for {GROWTH}x the entries:\n{}", quadratic.join("\n"));
}

/// One kind's measurement: the median CPU time of the small and of the large request.
#[derive(Debug)]
struct Growth {
    kind: Kind,
    entries: usize,
    small_ns: u64,
    large_ns: u64,
}

impl Growth {
    fn ratio(&self) -> f64 {
        self.large_ns as f64 / self.small_ns.max(1) as f64
    }
}

impl std::fmt::Display for Growth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = |ns: u64| ns as f64 / 1e6;
        write!(
            f,
            "{:<26} {:>6} entries {:>8.2} ms, {:>6}: {:>8.2} ms, {:>5.1}x",
            format!("{:?}", self.kind),
            self.entries,
            ms(self.small_ns),
            self.entries * GROWTH,
            ms(self.large_ns),
            self.ratio()
        )
    }
}

async fn growth(node: &Node, kind: Kind) -> Growth {
    let (small, large) = (kind.entries(), kind.entries() * GROWTH);
    cost(node, kind, small).await;
    cost(node, kind, large).await;
    let (mut smalls, mut larges) = (Vec::new(), Vec::new());
    for _ in 0..REPETITIONS {
        smalls.push(cost(node, kind, small).await);
        larges.push(cost(node, kind, large).await);
    }
    Growth { kind, entries: small, small_ns: median(smalls), large_ns: median(larges) }
}

fn median(mut samples: Vec<u64>) -> u64 {
    samples.sort_unstable();
    samples[samples.len() / 2]
}

/// The CPU time the process spent handling one request of `kind` with `n` entries.
async fn cost(node: &Node, kind: Kind, n: usize) -> u64 {
    if kind == Kind::FetchIncremental {
        let opening = fetch((0, 0), vec![("t-00".to_owned(), vec![0])]);
        let (_, ResponseBody::Fetch(opened)) = handled(node, &opening, 12).await else { panic!("not a Fetch") };
        assert_ne!(opened.session_id, 0, "a session opened");
        let (spent, response) = handled(node, &fetch((opened.session_id, 1), partitions(n)), 12).await;
        let ResponseBody::Fetch(response) = response else { panic!("not a Fetch") };
        assert_eq!((response.error_code, response.session_id), (0, opened.session_id), "the session grew");
        return spent;
    }
    let (spent, response) = handled(node, &kind.request(n), kind.version()).await;
    check(kind, &response);
    spent
}

/// What the measurement relies on: nothing created or deleted, a session opened.
fn check(kind: Kind, response: &ResponseBody) {
    match (kind, response) {
        (Kind::CreateTopicsValidateOnly, ResponseBody::CreateTopics(r)) => {
            let ok = r.topics.iter().filter(|t| t.error_code == 0).count();
            assert!(ok > 0 && r.topics.iter().all(|t| t.error_code == 0 || t.name.starts_with(DENIED)));
        }
        (_, ResponseBody::CreateTopics(r)) => {
            assert!(
                r.topics.iter().all(|t| t.error_code != 0),
                "created: {:?}",
                r.topics.iter().find(|t| t.error_code == 0)
            );
        }
        (_, ResponseBody::DeleteTopics(r)) => assert!(r.responses.iter().all(|t| t.error_code != 0), "deleted"),
        (_, ResponseBody::AlterConfigs(r)) => assert!(r.responses.iter().all(|c| c.error_code != 0), "altered"),
        (_, ResponseBody::IncrementalAlterConfigs(r)) => {
            assert!(r.responses.iter().all(|c| c.error_code != 0), "altered")
        }
        (_, ResponseBody::Fetch(r)) => assert!(r.error_code == 0 && r.session_id != 0, "a session opened"),
        _ => {}
    }
}

/// The process's CPU time so far (all its threads), in nanoseconds.
fn cpu_ns() -> u64 {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    let seconds = u64::try_from(now.tv_sec).expect("a CPU time is not negative");
    seconds * 1_000_000_000 + u64::try_from(now.tv_nsec).expect("nanoseconds are not negative")
}

/// Sends `body` at `version` as a frame through `Broker::handle`: the CPU time from the frame to
/// the response's frame, and the decoded response.
async fn handled(node: &Node, body: &RequestBody, version: i16) -> (u64, ResponseBody) {
    let api = body.api_key();
    let frame = encode_request(1, Some("complexity"), body, version).expect("encode request").slice(4..);
    assert!(frame.len() < BACKGROUND_FRAME_BYTES, "{api:?}: a frame of {} bytes", frame.len());
    let start = cpu_ns();
    let outcome = node.broker.handle(frame, &common::session()).await;
    let spent = cpu_ns() - start;
    let Outcome::Respond(response) = outcome else { panic!("{api:?} v{version}: {outcome:?}") };
    let response = frame_to_bytes(&response).expect("file regions readable");
    let (_, body) = decode_response(api, version, response.slice(4..)).expect("decode response");
    (spent, body)
}

/// Allows everything but what is done to resources whose names start with [`DENIED`], and
/// CREATE and DELETE on the cluster (so that CreateTopics and DeleteTopics check each topic).
#[derive(Debug)]
struct DenyMarked;

impl Authorizer for DenyMarked {
    fn authorize(&self, _: &Session, action: &Action) -> bool {
        let cluster_wide = action.resource_type == ResourceType::Cluster
            && matches!(action.operation, AclOperation::Create | AclOperation::Delete);
        !cluster_wide && !action.name.starts_with(DENIED)
    }

    fn authorize_any(&self, _: &Session, _: AclOperation, _: ResourceType) -> bool {
        true
    }
}

/// A node with the wide topic, the small topics and the groups (offsets committed for each).
async fn node() -> Node {
    let mut node = Node::new();
    node.create_topic(WIDE, WIDE_PARTITIONS).await;
    for topic in 0..TOPICS {
        node.create_topic(&format!("t-{topic:02}"), 2).await;
    }
    let mut node = node.with_authorizer(Arc::new(DenyMarked));
    for group in 0..GROUPS {
        let group = format!("g-{group}");
        let find = FindCoordinatorRequest { key: group.clone(), ..Default::default() };
        let ResponseBody::FindCoordinator(found) = node.call(RequestBody::FindCoordinator(find), 3).await else {
            panic!("not FindCoordinator")
        };
        assert_eq!(found.error_code, 0, "{found:?}");
        // The coordinator answers COORDINATOR_LOAD_IN_PROGRESS until its partition is loaded.
        for attempt in 0.. {
            let commit = commit(&group, vec![("t-00".to_owned(), vec![0])]);
            let ResponseBody::OffsetCommit(response) = node.call(commit, 9).await else { panic!("not OffsetCommit") };
            if response.topics[0].partitions[0].error_code == 0 {
                break;
            }
            assert!(attempt < 1000, "the coordinator never loaded: {response:?}");
            tokio::task::yield_now().await;
        }
    }
    node
}

impl Kind {
    /// The small request's entries (the large one has [`GROWTH`] times as many): large enough
    /// that the fixed cost of a request is a small part of it, small enough that the large
    /// frame stays under 1 MiB and a fetch session under its 10,000 partitions.
    fn entries(self) -> usize {
        match self {
            Kind::CreateTopicsValidateOnly => 250,
            Kind::DescribeConfigs => 1_000,
            Kind::FetchSession | Kind::FetchIncremental => 1_200,
            Kind::CreateTopicsInvalid | Kind::AlterConfigs | Kind::IncrementalAlterConfigs => 2_000,
            Kind::CreateTopicsRepeated | Kind::DeleteTopicsUnknown | Kind::DeleteTopicsRepeated => 3_000,
            Kind::OffsetCommit | Kind::OffsetFetchGroups | Kind::DeleteGroups => 3_000,
            Kind::Metadata => 3_500,
            Kind::ListOffsets | Kind::DescribeGroups => 4_000,
            Kind::ElectLeaders => 5_000,
            Kind::OffsetFetch | Kind::DescribeProducers => 8_000,
        }
    }

    fn version(self) -> i16 {
        match self {
            Kind::CreateTopicsRepeated | Kind::CreateTopicsInvalid | Kind::CreateTopicsValidateOnly => 7,
            Kind::DeleteTopicsUnknown | Kind::DeleteTopicsRepeated => 6,
            Kind::Metadata => 12,
            Kind::ListOffsets => 7,
            Kind::DescribeConfigs => 4,
            Kind::DescribeGroups => 5,
            Kind::OffsetCommit | Kind::OffsetFetch | Kind::OffsetFetchGroups => 9,
            Kind::FetchSession | Kind::FetchIncremental => 12,
            Kind::DescribeProducers => 0,
            Kind::AlterConfigs | Kind::ElectLeaders | Kind::DeleteGroups => 2,
            Kind::IncrementalAlterConfigs => 1,
        }
    }

    /// The request with `n` entries (names, partitions, groups or resources).
    fn request(self, n: usize) -> RequestBody {
        match self {
            Kind::CreateTopicsRepeated => {
                let name = |i: usize| format!("{}{:06}", if i % 8 < 4 { "fresh-" } else { DENIED }, i / 4);
                create_topics((0..n).map(name), false)
            }
            Kind::CreateTopicsInvalid => create_topics((0..n).map(|i| format!("bad name {i:06}")), false),
            Kind::CreateTopicsValidateOnly => create_topics((0..n).map(|i| format!("fresh-{i:06}")), true),
            Kind::DeleteTopicsUnknown => delete_topics((0..n).map(|i| {
                let id = Uuid(u128::try_from(i + 1).expect("small").to_be_bytes());
                if i % 2 == 0 { (Some(format!("unknown-{i:06}")), Uuid::ZERO) } else { (None, id) }
            })),
            Kind::DeleteTopicsRepeated => {
                let names: Vec<_> = names(n / 2).collect();
                delete_topics(names.iter().chain(&names).map(|name| (Some(name.clone()), Uuid::ZERO)))
            }
            Kind::Metadata => {
                let topics = names(n).map(|name| MetadataRequestTopic { name: Some(name), ..Default::default() });
                RequestBody::Metadata(MetadataRequest { topics: Some(topics.collect()), ..Default::default() })
            }
            Kind::ListOffsets => RequestBody::ListOffsets(list_offsets(n)),
            Kind::DescribeConfigs => RequestBody::DescribeConfigs(describe_configs(n)),
            Kind::DescribeGroups => {
                RequestBody::DescribeGroups(DescribeGroupsRequest { groups: groups(n).collect(), ..Default::default() })
            }
            Kind::DeleteGroups => RequestBody::DeleteGroups(DeleteGroupsRequest {
                groups_names: groups(n).collect(),
                ..Default::default()
            }),
            Kind::OffsetCommit => commit("g-0", partitions(n)),
            Kind::OffsetFetch => offset_fetch(std::iter::once(("g-0".to_owned(), partitions(n)))),
            Kind::OffsetFetchGroups => offset_fetch(groups(n).map(|g| (g, vec![("t-00".to_owned(), vec![0])]))),
            Kind::FetchSession | Kind::FetchIncremental => fetch((0, 0), partitions(n)),
            Kind::DescribeProducers => {
                let topics = partitions(n).into_iter().map(|(name, partition_indexes)| TopicRequest {
                    name,
                    partition_indexes,
                    ..Default::default()
                });
                RequestBody::DescribeProducers(DescribeProducersRequest {
                    topics: topics.collect(),
                    ..Default::default()
                })
            }
            Kind::AlterConfigs => RequestBody::AlterConfigs(alter_configs(n)),
            Kind::IncrementalAlterConfigs => RequestBody::IncrementalAlterConfigs(incremental_alter_configs(n)),
            Kind::ElectLeaders => {
                let topics = partitions(n).into_iter().map(|(topic, partitions)| TopicPartitions {
                    topic,
                    partitions,
                    ..Default::default()
                });
                let request = ElectLeadersRequest { topic_partitions: Some(topics.collect()), ..Default::default() };
                RequestBody::ElectLeaders(request)
            }
        }
    }
}

/// `n` topic names: small topics named again and again, the wide topic, distinct unknown names
/// and refused names (repeated).
fn names(n: usize) -> impl Iterator<Item = String> {
    (0..n).map(|i| match i % 4 {
        0 => format!("t-{:02}", i % TOPICS),
        1 => WIDE.to_owned(),
        2 => format!("unknown-{i:06}"),
        _ => format!("{DENIED}{:02}", i % 64),
    })
}

/// `n` group ids: the existing groups again and again, distinct unknown ids and refused ones.
fn groups(n: usize) -> impl Iterator<Item = String> {
    (0..n).map(|i| match i % 3 {
        0 => format!("g-{}", i % GROUPS),
        1 => format!("nobody-{i:06}"),
        _ => format!("{DENIED}{:02}", i % 64),
    })
}

/// About `n` partitions in topic entries of four: the wide topic's (some past its end, each
/// named again once `n` passes its partitions), the small topics' (each topic named many times,
/// half of its partitions past its end), unknown topics' (each a new name) and refused topics'.
fn partitions(n: usize) -> Vec<(String, Vec<i32>)> {
    (0..n.div_ceil(4))
        .map(|j| {
            let step = i32::try_from(j).expect("small") * 4;
            match j % 4 {
                0 => (WIDE.to_owned(), (0..4).map(|p| (step + p) % (WIDE_PARTITIONS + 32)).collect()),
                1 => (format!("t-{:02}", j % TOPICS), (0..4).collect()),
                2 => (format!("unknown-{j:06}"), (0..4).collect()),
                _ => (format!("{DENIED}{:02}", j % 64), (0..4).collect()),
            }
        })
        .collect()
}

fn create_topics(names: impl Iterator<Item = String>, validate_only: bool) -> RequestBody {
    let topics =
        names.map(|name| CreatableTopic { name, num_partitions: 1, replication_factor: 1, ..Default::default() });
    let request =
        CreateTopicsRequest { topics: topics.collect(), timeout_ms: 1_000, validate_only, ..Default::default() };
    RequestBody::CreateTopics(request)
}

fn delete_topics(topics: impl Iterator<Item = (Option<String>, Uuid)>) -> RequestBody {
    let topics = topics.map(|(name, topic_id)| DeleteTopicState { name, topic_id, ..Default::default() });
    RequestBody::DeleteTopics(DeleteTopicsRequest { topics: topics.collect(), timeout_ms: 1_000, ..Default::default() })
}

fn list_offsets(n: usize) -> ListOffsetsRequest {
    let topics = partitions(n).into_iter().map(|(name, partitions)| ListOffsetsTopic {
        name,
        partitions: (partitions.into_iter())
            .map(|partition_index| ListOffsetsPartition { partition_index, timestamp: -1, ..Default::default() })
            .collect(),
        ..Default::default()
    });
    ListOffsetsRequest { replica_id: strand_base::BrokerId(-1), topics: topics.collect(), ..Default::default() }
}

const TOPIC_RESOURCE: i8 = 2;
const BROKER_RESOURCE: i8 = 4;

/// `n` resources: topics (as [`names`] gives them) and this broker, every fourth; half of them
/// asking for two keys, the others for all.
fn describe_configs(n: usize) -> DescribeConfigsRequest {
    let resources = names(n).enumerate().map(|(i, name)| {
        let (resource_type, resource_name) =
            if i % 4 == 1 { (BROKER_RESOURCE, "1".to_owned()) } else { (TOPIC_RESOURCE, name) };
        let keys = ["retention.ms", "cleanup.policy"].map(str::to_owned);
        DescribeConfigsResource {
            resource_type,
            resource_name,
            configuration_keys: (i % 2 == 0).then(|| keys.to_vec()),
            ..Default::default()
        }
    });
    DescribeConfigsRequest { resources: resources.collect(), ..Default::default() }
}

/// A resource's type and name, and the (key, value) pairs set on it.
type ConfigChange = (i8, String, Vec<(&'static str, &'static str)>);

/// About `n` resources and their changes: the resources of [`describe_configs`] but the wide
/// topic, each given twice (so the controller refuses them all and nothing changes), and the wide
/// topic once, setting one key `n` / 4 times (refused for its repeated key).
fn config_changes(n: usize) -> Vec<ConfigChange> {
    let once: Vec<ConfigChange> = names(n * 3 / 8)
        .enumerate()
        .map(|(i, name)| match i % 4 {
            1 => (BROKER_RESOURCE, "1".to_owned(), vec![("log.cleaner.delete.retention.ms", "1000")]),
            _ => (TOPIC_RESOURCE, name, vec![("retention.ms", "1000")]),
        })
        .collect();
    let repeated_key = (TOPIC_RESOURCE, WIDE.to_owned(), vec![("retention.ms", "1000"); n / 4]);
    once.iter().chain(&once).cloned().chain(std::iter::once(repeated_key)).collect()
}

fn alter_configs(n: usize) -> AlterConfigsRequest {
    let resources = config_changes(n).into_iter().map(|(resource_type, resource_name, configs)| {
        alter_configs_request::AlterConfigsResource {
            resource_type,
            resource_name,
            configs: (configs.into_iter())
                .map(|(name, value)| alter_configs_request::AlterableConfig {
                    name: name.to_owned(),
                    value: Some(value.to_owned()),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    });
    AlterConfigsRequest { resources: resources.collect(), validate_only: false, ..Default::default() }
}

fn incremental_alter_configs(n: usize) -> IncrementalAlterConfigsRequest {
    let resources = config_changes(n).into_iter().map(|(resource_type, resource_name, configs)| {
        incremental_alter_configs_request::AlterConfigsResource {
            resource_type,
            resource_name,
            configs: (configs.into_iter())
                .map(|(name, value)| incremental_alter_configs_request::AlterableConfig {
                    name: name.to_owned(),
                    config_operation: 0,
                    value: Some(value.to_owned()),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    });
    IncrementalAlterConfigsRequest { resources: resources.collect(), validate_only: false, ..Default::default() }
}

/// A simple (generationless) commit of offset 1 to `partitions` for `group`.
fn commit(group: &str, partitions: Vec<(String, Vec<i32>)>) -> RequestBody {
    let topics = partitions.into_iter().map(|(name, partitions)| OffsetCommitRequestTopic {
        name,
        partitions: (partitions.into_iter())
            .map(|partition_index| OffsetCommitRequestPartition {
                partition_index,
                committed_offset: 1,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    });
    let request = OffsetCommitRequest {
        group_id: group.to_owned(),
        generation_id_or_member_epoch: -1,
        topics: topics.collect(),
        ..Default::default()
    };
    RequestBody::OffsetCommit(request)
}

fn offset_fetch(groups: impl Iterator<Item = (String, Vec<(String, Vec<i32>)>)>) -> RequestBody {
    let groups = groups.map(|(group_id, partitions)| OffsetFetchRequestGroup {
        group_id,
        topics: Some(
            (partitions.into_iter())
                .map(|(name, partition_indexes)| OffsetFetchRequestTopics {
                    name,
                    partition_indexes,
                    ..Default::default()
                })
                .collect(),
        ),
        ..Default::default()
    });
    RequestBody::OffsetFetch(OffsetFetchRequest { groups: groups.collect(), ..Default::default() })
}

/// A fetch that does not wait, in session `session_id` at `epoch`.
fn fetch((session_id, session_epoch): (i32, i32), partitions: Vec<(String, Vec<i32>)>) -> RequestBody {
    let topics = partitions.into_iter().map(|(topic, partitions)| FetchTopic {
        topic,
        partitions: (partitions.into_iter())
            .map(|partition| FetchPartition { partition, partition_max_bytes: 1 << 20, ..Default::default() })
            .collect(),
        ..Default::default()
    });
    RequestBody::Fetch(FetchRequest {
        replica_id: strand_base::BrokerId(-1),
        max_wait_ms: 0,
        min_bytes: 1,
        max_bytes: 1 << 20,
        session_id,
        session_epoch,
        topics: topics.collect(),
        ..Default::default()
    })
}
