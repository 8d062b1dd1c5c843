//! Screening: how a client request whose size the client picks (thousands of topics, configs or
//! partitions in one frame) is decided without holding the controller's one-decision-at-a-time
//! lock for work proportional to its size.
//!
//! The active controller first decides such a request on the image it arrived to, outside the
//! lock. Entries that fail (unknown names, repeats, bad values) and requests that write nothing
//! (validate-only, all failures, ListPartitionReassignments) are answered from that decision:
//! they change nothing, so the answer is the one the request would have had at that image. Only
//! the entries answered NONE can write records; [`narrow`] makes a request of just those, which is
//! decided again once the lock is held and the image has moved (Kafka's DeleteTopics likewise
//! resolves names in one controller event and deletes in another), and [`merge`] puts their new
//! answers in place of the first ones. A decision writes at most
//! [`RECORDS_PER_REQUEST_MAX`](super::RECORDS_PER_REQUEST_MAX) records, so what is decided under
//! the lock stays small whatever the request held.
//!
//! What it is not: the decisions themselves (pure functions of the image and the request, in the
//! sibling modules) and the lock (the `QuorumController`). Pure: no I/O, no clock.

use std::collections::BTreeSet;

use strand_base::Uuid;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::CreatableTopic;
use strand_protocol::messages::delete_topics_request::DeleteTopicState;
use strand_protocol::messages::elect_leaders_request::TopicPartitions;
use strand_protocol::messages::{
    AlterConfigsRequest, AlterPartitionReassignmentsRequest, CreatePartitionsRequest, CreateTopicsRequest,
    DeleteTopicsRequest, ElectLeadersRequest, IncrementalAlterConfigsRequest,
};

const NONE: i16 = 0;

/// Whether `api` is decided by screening: the admin requests a client sends, each a list of
/// entries that succeed or fail one by one.
pub fn is_screened(api: ApiKey) -> bool {
    matches!(
        api,
        ApiKey::CreateTopics
            | ApiKey::DeleteTopics
            | ApiKey::CreatePartitions
            | ApiKey::AlterConfigs
            | ApiKey::IncrementalAlterConfigs
            | ApiKey::ElectLeaders
            | ApiKey::AlterPartitionReassignments
            | ApiKey::ListPartitionReassignments
    )
}

/// How many entries `request` lists (topics, names, ids, resources, partitions): what deciding it
/// costs, give or take a logarithm. A topic to create or grow counts its partitions too (each is
/// placed and written), up to the most one request may create: ten topics of 1,000 partitions
/// cost as much to decide as 10,000 topics.
pub fn entries(request: &RequestBody) -> usize {
    match request {
        RequestBody::CreateTopics(r) => r.topics.iter().map(topic_cost).sum(),
        RequestBody::CreatePartitions(r) => {
            r.topics.iter().map(|t| 1 + partitions(t.count, t.assignments.as_ref().map_or(0, Vec::len))).sum()
        }
        RequestBody::DeleteTopics(r) => r.topics.len() + r.topic_names.len(),
        RequestBody::AlterConfigs(r) => r.resources.iter().map(|c| 1 + c.configs.len()).sum(),
        RequestBody::IncrementalAlterConfigs(r) => r.resources.iter().map(|c| 1 + c.configs.len()).sum(),
        RequestBody::ElectLeaders(r) => r.topic_partitions.iter().flatten().map(|t| 1 + t.partitions.len()).sum(),
        RequestBody::AlterPartitionReassignments(r) => r.topics.iter().map(|t| 1 + t.partitions.len()).sum(),
        RequestBody::ListPartitionReassignments(r) => {
            r.topics.iter().flatten().map(|t| 1 + t.partition_indexes.len()).sum()
        }
        _ => 1,
    }
}

/// What creating `topic` costs to decide: the topic, its configs and its partitions.
fn topic_cost(topic: &CreatableTopic) -> usize {
    1 + topic.configs.len() + partitions(topic.num_partitions, topic.assignments.len())
}

/// The partitions a request asks for (a count, or as many as it assigns), up to the most one
/// request may create.
fn partitions(count: i32, assigned: usize) -> usize {
    let max = usize::try_from(super::PARTITIONS_PER_REQUEST_MAX).unwrap_or(usize::MAX);
    usize::try_from(count).unwrap_or(0).max(assigned).min(max)
}

/// The entries of `request` that its decision `response` answered NONE, as a request of the same
/// kind (and the same other fields); `None` when there are none, or for an API not screened.
pub fn narrow(request: &RequestBody, response: &ResponseBody) -> Option<RequestBody> {
    let narrowed = match (request, response) {
        (RequestBody::CreateTopics(rq), ResponseBody::CreateTopics(rs)) => {
            let ok: BTreeSet<&str> =
                rs.topics.iter().filter(|t| t.error_code == NONE).map(|t| t.name.as_str()).collect();
            let topics = rq.topics.iter().filter(|t| ok.contains(t.name.as_str())).cloned().collect();
            RequestBody::CreateTopics(CreateTopicsRequest { topics, ..rq.clone_without_entries() })
        }
        (RequestBody::DeleteTopics(rq), ResponseBody::DeleteTopics(rs)) => {
            // By id: the decision resolved each name; the id is what is deleted.
            let topics = rs
                .responses
                .iter()
                .filter(|t| t.error_code == NONE && t.topic_id != Uuid::ZERO)
                .map(|t| DeleteTopicState { name: None, topic_id: t.topic_id, ..Default::default() })
                .collect();
            RequestBody::DeleteTopics(DeleteTopicsRequest {
                topics,
                topic_names: Vec::new(),
                ..rq.clone_without_entries()
            })
        }
        (RequestBody::CreatePartitions(rq), ResponseBody::CreatePartitions(rs)) => {
            let ok: BTreeSet<&str> =
                rs.results.iter().filter(|t| t.error_code == NONE).map(|t| t.name.as_str()).collect();
            let topics = rq.topics.iter().filter(|t| ok.contains(t.name.as_str())).cloned().collect();
            RequestBody::CreatePartitions(CreatePartitionsRequest { topics, ..rq.clone_without_entries() })
        }
        (RequestBody::AlterConfigs(rq), ResponseBody::AlterConfigs(rs)) => {
            let ok: BTreeSet<(i8, &str)> = rs
                .responses
                .iter()
                .filter(|r| r.error_code == NONE)
                .map(|r| (r.resource_type, r.resource_name.as_str()))
                .collect();
            let resources = rq
                .resources
                .iter()
                .filter(|r| ok.contains(&(r.resource_type, r.resource_name.as_str())))
                .cloned()
                .collect();
            RequestBody::AlterConfigs(AlterConfigsRequest { resources, ..rq.clone_without_entries() })
        }
        (RequestBody::IncrementalAlterConfigs(rq), ResponseBody::IncrementalAlterConfigs(rs)) => {
            let ok: BTreeSet<(i8, &str)> = rs
                .responses
                .iter()
                .filter(|r| r.error_code == NONE)
                .map(|r| (r.resource_type, r.resource_name.as_str()))
                .collect();
            let resources = rq
                .resources
                .iter()
                .filter(|r| ok.contains(&(r.resource_type, r.resource_name.as_str())))
                .cloned()
                .collect();
            RequestBody::IncrementalAlterConfigs(IncrementalAlterConfigsRequest {
                resources,
                ..rq.clone_without_entries()
            })
        }
        (RequestBody::ElectLeaders(rq), ResponseBody::ElectLeaders(rs)) => {
            // The response names every partition decided (with a null list, those that needed an
            // election), so the narrowed request lists them explicitly.
            let topic_partitions = rs
                .replica_election_results
                .iter()
                .map(|t| TopicPartitions {
                    topic: t.topic.clone(),
                    partitions: t
                        .partition_result
                        .iter()
                        .filter(|p| p.error_code == NONE)
                        .map(|p| p.partition_id)
                        .collect(),
                    ..Default::default()
                })
                .filter(|t| !t.partitions.is_empty())
                .collect();
            RequestBody::ElectLeaders(ElectLeadersRequest {
                topic_partitions: Some(topic_partitions),
                ..rq.clone_without_entries()
            })
        }
        (RequestBody::AlterPartitionReassignments(rq), ResponseBody::AlterPartitionReassignments(rs)) => {
            // The response mirrors the request entry for entry (a partition listed twice twice).
            let mut topics = Vec::new();
            for (topic, answered) in rq.topics.iter().zip(&rs.responses) {
                let partitions: Vec<_> = topic
                    .partitions
                    .iter()
                    .zip(&answered.partitions)
                    .filter(|(_, a)| a.error_code == NONE)
                    .map(|(p, _)| p.clone())
                    .collect();
                if !partitions.is_empty() {
                    topics.push(strand_protocol::messages::alter_partition_reassignments_request::ReassignableTopic {
                        name: topic.name.clone(),
                        partitions,
                        ..Default::default()
                    });
                }
            }
            RequestBody::AlterPartitionReassignments(AlterPartitionReassignmentsRequest {
                topics,
                ..rq.clone_without_entries()
            })
        }
        _ => return None,
    };
    (entries(&narrowed) > 0 && !is_empty(&narrowed)).then_some(narrowed)
}

/// A CreateTopics split into requests of whole topics, each costing at most `cost_max`
/// [`entries`] (a topic that costs more is a request of its own), in order; any other request
/// whole. The controller commits a large creation chunk by chunk, its lock released between
/// them, each chunk decided afresh if the image moved meanwhile.
pub fn split(request: RequestBody, cost_max: usize) -> Vec<RequestBody> {
    let RequestBody::CreateTopics(rq) = request else { return vec![request] };
    let mut chunks: Vec<CreateTopicsRequest> = Vec::new();
    let mut cost = 0;
    for topic in &rq.topics {
        let topic_cost = topic_cost(topic);
        match chunks.last_mut() {
            Some(chunk) if cost + topic_cost <= cost_max => chunk.topics.push(topic.clone()),
            _ => {
                chunks.push(CreateTopicsRequest { topics: vec![topic.clone()], ..rq.clone_without_entries() });
                cost = 0;
            }
        }
        cost += topic_cost;
    }
    chunks.into_iter().map(RequestBody::CreateTopics).collect()
}

/// The answers to [`split`]'s requests as one answer to the request they were split from.
pub fn join(answers: Vec<ResponseBody>) -> Option<ResponseBody> {
    let mut answers = answers.into_iter();
    let mut joined = answers.next()?;
    for answer in answers {
        if let (ResponseBody::CreateTopics(all), ResponseBody::CreateTopics(more)) = (&mut joined, answer) {
            all.topics.extend(more.topics);
        }
    }
    Some(joined)
}

/// `outer` with each entry it answered NONE replaced by `inner`'s answer for it, `inner` being the
/// decision of [`narrow`]`(request, outer)`: in order, entry for entry, except DeleteTopics, whose
/// answers have no order (Kafka shuffles them) and whose inner answers are all taken.
pub fn merge(outer: ResponseBody, inner: ResponseBody) -> ResponseBody {
    match (outer, inner) {
        (ResponseBody::CreateTopics(mut o), ResponseBody::CreateTopics(i)) => {
            replace_ok(o.topics.iter_mut(), i.topics, |t| t.error_code);
            ResponseBody::CreateTopics(o)
        }
        (ResponseBody::DeleteTopics(mut o), ResponseBody::DeleteTopics(i)) => {
            o.responses.retain(|t| t.error_code != NONE);
            o.responses.extend(i.responses);
            ResponseBody::DeleteTopics(o)
        }
        (ResponseBody::CreatePartitions(mut o), ResponseBody::CreatePartitions(i)) => {
            replace_ok(o.results.iter_mut(), i.results, |t| t.error_code);
            ResponseBody::CreatePartitions(o)
        }
        (ResponseBody::AlterConfigs(mut o), ResponseBody::AlterConfigs(i)) => {
            replace_ok(o.responses.iter_mut(), i.responses, |r| r.error_code);
            ResponseBody::AlterConfigs(o)
        }
        (ResponseBody::IncrementalAlterConfigs(mut o), ResponseBody::IncrementalAlterConfigs(i)) => {
            replace_ok(o.responses.iter_mut(), i.responses, |r| r.error_code);
            ResponseBody::IncrementalAlterConfigs(o)
        }
        (ResponseBody::ElectLeaders(mut o), ResponseBody::ElectLeaders(i)) => {
            let outer = o.replica_election_results.iter_mut().flat_map(|t| t.partition_result.iter_mut());
            let inner = i.replica_election_results.into_iter().flat_map(|t| t.partition_result);
            replace_ok(outer, inner, |p| p.error_code);
            ResponseBody::ElectLeaders(o)
        }
        (ResponseBody::AlterPartitionReassignments(mut o), ResponseBody::AlterPartitionReassignments(i)) => {
            let outer = o.responses.iter_mut().flat_map(|t| t.partitions.iter_mut());
            let inner = i.responses.into_iter().flat_map(|t| t.partitions);
            replace_ok(outer, inner, |p| p.error_code);
            ResponseBody::AlterPartitionReassignments(o)
        }
        (outer, _) => outer,
    }
}

/// Whether `request` is an ElectLeaders for every partition (a null list): Kafka reports only the
/// partitions that needed an election, in one decision. Screening decides in rounds, and one
/// found needing it in an early round may need none in a later one (a concurrent election took
/// care of it): [`leave_out_unneeded_elections`] then leaves it out as Kafka would have.
pub fn elects_every_partition(request: &RequestBody) -> bool {
    matches!(request, RequestBody::ElectLeaders(r) if r.topic_partitions.is_none())
}

/// Drops the ELECTION_NOT_NEEDED partitions of an ElectLeaders response (see
/// [`elects_every_partition`]).
pub fn leave_out_unneeded_elections(response: &mut ResponseBody) {
    if let ResponseBody::ElectLeaders(r) = response {
        for topic in &mut r.replica_election_results {
            topic.partition_result.retain(|p| p.error_code != ErrorCode::ElectionNotNeeded.code());
        }
    }
}

/// Fails every entry of `response` with `code` and `message`, and the response itself where it has
/// an error of its own (Kafka's `getErrorResponse`): a decision refused whole.
pub fn fail_all(response: &mut ResponseBody, code: ErrorCode, message: &str) {
    let fail = |error_code: &mut i16, error_message: &mut Option<String>| {
        *error_code = code.code();
        *error_message = Some(message.to_owned());
    };
    match response {
        ResponseBody::CreateTopics(r) => r.topics.iter_mut().for_each(|t| {
            fail(&mut t.error_code, &mut t.error_message);
            t.topic_id = Uuid::ZERO;
            t.num_partitions = -1;
            t.replication_factor = -1;
            t.configs = Some(Vec::new());
        }),
        ResponseBody::DeleteTopics(r) => {
            r.responses.iter_mut().for_each(|t| fail(&mut t.error_code, &mut t.error_message))
        }
        ResponseBody::CreatePartitions(r) => {
            r.results.iter_mut().for_each(|t| fail(&mut t.error_code, &mut t.error_message))
        }
        ResponseBody::AlterConfigs(r) => {
            r.responses.iter_mut().for_each(|t| fail(&mut t.error_code, &mut t.error_message))
        }
        ResponseBody::IncrementalAlterConfigs(r) => {
            r.responses.iter_mut().for_each(|t| fail(&mut t.error_code, &mut t.error_message))
        }
        ResponseBody::ElectLeaders(r) => {
            r.error_code = code.code();
            r.replica_election_results
                .iter_mut()
                .flat_map(|t| t.partition_result.iter_mut())
                .for_each(|p| fail(&mut p.error_code, &mut p.error_message));
        }
        ResponseBody::AlterPartitionReassignments(r) => {
            fail(&mut r.error_code, &mut r.error_message);
            r.responses
                .iter_mut()
                .flat_map(|t| t.partitions.iter_mut())
                .for_each(|p| fail(&mut p.error_code, &mut p.error_message));
        }
        ResponseBody::AlterUserScramCredentials(r) => {
            r.results.iter_mut().for_each(|u| fail(&mut u.error_code, &mut u.error_message))
        }
        ResponseBody::AlterClientQuotas(r) => {
            r.entries.iter_mut().for_each(|e| fail(&mut e.error_code, &mut e.error_message))
        }
        _ => {}
    }
}

/// Replaces, in order, each entry of `outer` answered NONE by the next of `inner`.
fn replace_ok<'a, T: 'a>(
    outer: impl Iterator<Item = &'a mut T>,
    inner: impl IntoIterator<Item = T>,
    error_code: impl Fn(&T) -> i16,
) {
    let mut inner = inner.into_iter();
    for entry in outer.filter(|e| error_code(e) == NONE) {
        match inner.next() {
            Some(answer) => *entry = answer,
            None => return,
        }
    }
}

/// Whether a narrowed request lists nothing to decide.
fn is_empty(request: &RequestBody) -> bool {
    match request {
        RequestBody::ElectLeaders(r) => r.topic_partitions.as_ref().is_some_and(Vec::is_empty),
        RequestBody::AlterPartitionReassignments(r) => r.topics.is_empty(),
        _ => false,
    }
}

/// A request's own fields with its entry list emptied: the narrowed request's starting point
/// (written out, so that the entries are not copied only to be dropped).
trait CloneWithoutEntries {
    fn clone_without_entries(&self) -> Self;
}

impl CloneWithoutEntries for CreateTopicsRequest {
    fn clone_without_entries(&self) -> Self {
        CreateTopicsRequest {
            timeout_ms: self.timeout_ms,
            validate_only: self.validate_only,
            unknown_tagged_fields: self.unknown_tagged_fields.clone(),
            ..Default::default()
        }
    }
}

impl CloneWithoutEntries for DeleteTopicsRequest {
    fn clone_without_entries(&self) -> Self {
        DeleteTopicsRequest {
            timeout_ms: self.timeout_ms,
            unknown_tagged_fields: self.unknown_tagged_fields.clone(),
            ..Default::default()
        }
    }
}

impl CloneWithoutEntries for CreatePartitionsRequest {
    fn clone_without_entries(&self) -> Self {
        CreatePartitionsRequest {
            timeout_ms: self.timeout_ms,
            validate_only: self.validate_only,
            unknown_tagged_fields: self.unknown_tagged_fields.clone(),
            ..Default::default()
        }
    }
}

impl CloneWithoutEntries for AlterConfigsRequest {
    fn clone_without_entries(&self) -> Self {
        AlterConfigsRequest {
            validate_only: self.validate_only,
            unknown_tagged_fields: self.unknown_tagged_fields.clone(),
            ..Default::default()
        }
    }
}

impl CloneWithoutEntries for IncrementalAlterConfigsRequest {
    fn clone_without_entries(&self) -> Self {
        IncrementalAlterConfigsRequest {
            validate_only: self.validate_only,
            unknown_tagged_fields: self.unknown_tagged_fields.clone(),
            ..Default::default()
        }
    }
}

impl CloneWithoutEntries for ElectLeadersRequest {
    fn clone_without_entries(&self) -> Self {
        ElectLeadersRequest {
            election_type: self.election_type,
            timeout_ms: self.timeout_ms,
            unknown_tagged_fields: self.unknown_tagged_fields.clone(),
            ..Default::default()
        }
    }
}

impl CloneWithoutEntries for AlterPartitionReassignmentsRequest {
    fn clone_without_entries(&self) -> Self {
        AlterPartitionReassignmentsRequest {
            timeout_ms: self.timeout_ms,
            allow_replication_factor_change: self.allow_replication_factor_change,
            unknown_tagged_fields: self.unknown_tagged_fields.clone(),
            ..Default::default()
        }
    }
}
