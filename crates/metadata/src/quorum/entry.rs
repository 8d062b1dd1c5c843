//! One Raft entry is one record batch of `__cluster_metadata-0`, in the layout Kafka's KRaft
//! writes, so Kafka's `DumpLogSegments --cluster-metadata-decoder` reads the log:
//!
//! | openraft entry | batch | records |
//! |---|---|---|
//! | `Normal` | data batch | one per metadata record: null key, value framed as Kafka's `MetadataRecordSerde` |
//! | `Blank` (a new leader's first entry) | control batch | one `LeaderChangeMessage` (control type 2) |
//! | `Membership` | control batch | a `KRaftVersionRecord` (type 5; the first entry, and one raising `kraft.version`), then one `VotersRecord` (type 6) per config |
//!
//! Every batch: partition leader epoch = the entry's term, producer id -1, no compression,
//! CreateTime (the append time). The Raft index is not stored: it is the batch's position in the
//! log (see [`super::log_store`]).
//!
//! A metadata record's value frame (Kafka's `AbstractApiMessageSerde`): unsigned varints frame
//! version (1), record type (`apiKey`), record version, then the record at that version.
//!
//! `kraft.version` ([`kraft_version`]) is 1 once every member is known by its metadata log
//! directory id, as KIP-853 needs; a static quorum's voters (`controller.quorum.voters`) are not,
//! so its level is 0 until the leader writes them with their directory ids (the upgrade, Kafka's
//! KAFKA-16538), in a batch that states the new level first, as Kafka's upgrade batch does.
//!
//! Membership: each config of openraft's (joint) membership is one `VotersRecord` (a joint
//! config, during a change of voters, writes the old then the new one, and Kafka readers take the
//! last). Learners (a controller being added to a dynamic quorum, catching up before it votes)
//! have no place in a `VotersRecord` (Kafka's observers are not in the log), so the last
//! `VotersRecord` carries them in a tagged field of Strand's ([`LEARNERS_TAG`]): a `VotersRecord`
//! of the learners, which Kafka's readers skip as an unknown tag.

use std::collections::{BTreeMap, BTreeSet};

use bytes::{Bytes, BytesMut};
use openraft::{CommittedLeaderId, Entry, EntryPayload, LogId, Membership};
use serde::{Deserialize, Serialize};
use strand_base::{BrokerId, Uuid};
use strand_protocol::codec::RawTaggedField;
use strand_protocol::codec::varint::put_unsigned_varint;
use strand_protocol::messages::kraft_version_record::KRaftVersionRecord;
use strand_protocol::messages::leader_change_message::{LeaderChangeMessage, Voter as LeaderChangeVoter};
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::voters_record::{Endpoint, KRaftVersionFeature, Voter, VotersRecord};
use strand_protocol::records::{ControlRecordType, NewRecord, RecordBatch, RecordBatchBuilder};
use strand_protocol::{Decoder, Message};

use super::QuorumError;
use super::config::QuorumVoters;

openraft::declare_raft_types!(
    /// The openraft types of the controller quorum. Node ids are Kafka's `node.id`s (as `u64`).
    pub(crate) TypeConfig:
        D = MetadataFrames,
        R = AppliedOffsets,
        NodeId = u64,
        Node = VoterNode,
        Entry = openraft::Entry<TypeConfig>,
        SnapshotData = std::io::Cursor<Vec<u8>>,
        AsyncRuntime = openraft::TokioRuntime,
        Responder = openraft::impls::OneshotResponder<TypeConfig>,
);

/// The payload of a normal entry: the value frames of its metadata records, encoded (and so
/// checked) before they are proposed, and the leader's clock when it proposed them (the batch's
/// timestamps), so every voter writes the same bytes. Frames travel between voters as hex.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct MetadataFrames {
    pub append_time_ms: i64,
    #[serde(with = "hex_frames")]
    pub frames: Vec<Vec<u8>>,
}

/// What applying a normal entry answers the proposer: the offset of its batch's last record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AppliedOffsets {
    pub last_offset: i64,
}

/// What a voter is besides its id, as a `VotersRecord` holds it: the log directory id and the
/// CONTROLLER listener endpoints. A lone voter has no CONTROLLER listener: no endpoints, and no
/// directory id (Kafka's zero uuid) until `meta.properties` hands one down.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct VoterNode {
    pub directory_id: [u8; 16],
    pub endpoints: Vec<VoterEndpoint>,
}

/// One listener of a voter: name, host, port.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct VoterEndpoint {
    pub name: String,
    pub host: String,
    pub port: u16,
}

/// The tag of Strand's learners in a membership's last `VotersRecord`, far above Kafka's own.
pub(crate) const LEARNERS_TAG: u32 = 10_000;

/// Kafka's `AbstractApiMessageSerde` frame version.
const FRAME_VERSION: u32 = 1;
/// The `kraft.version` a log with `VotersRecord`s has (KIP-853).
pub(crate) const KRAFT_VERSION: i16 = 1;
/// `ControlRecordUtils.LEADER_CHANGE_CURRENT_VERSION`: Kafka reads leader-change values at this
/// version whatever they say, so it is the only one written.
const LEADER_CHANGE_VERSION: i16 = 0;

/// Frames one metadata record as Kafka's `MetadataRecordSerde` writes a record value.
pub(crate) fn encode_frame(record: &MetadataRecord, version: i16) -> Result<Vec<u8>, QuorumError> {
    let api_key = record.api_key();
    let known = MetadataRecord::versions(api_key).is_some_and(|versions| versions.contains(version));
    let (Ok(wire_key), Ok(wire_version), true) = (u32::try_from(api_key), u32::try_from(version), known) else {
        return Err(QuorumError::UnsupportedRecordVersion { api_key, version });
    };
    let mut out = BytesMut::new();
    put_unsigned_varint(&mut out, FRAME_VERSION);
    put_unsigned_varint(&mut out, wire_key);
    put_unsigned_varint(&mut out, wire_version);
    record.encode(&mut out, version).map_err(|e| QuorumError::Encode(e.to_string()))?;
    Ok(out.to_vec())
}

/// Reads one record value framed by [`encode_frame`] (or by Kafka).
pub(crate) fn decode_frame(value: &[u8]) -> Result<(MetadataRecord, i16), QuorumError> {
    let corrupt = |reason: String| QuorumError::CorruptLog(format!("metadata record frame: {reason}"));
    let mut d = Decoder::new(Bytes::copy_from_slice(value));
    let frame_version = d.unsigned_varint().map_err(|e| corrupt(e.to_string()))?;
    if frame_version != FRAME_VERSION {
        return Err(corrupt(format!("frame version {frame_version}, only {FRAME_VERSION} is known")));
    }
    let api_key = d.unsigned_varint().map_err(|e| corrupt(e.to_string()))?;
    let version = d.unsigned_varint().map_err(|e| corrupt(e.to_string()))?;
    let (Ok(api_key), Ok(version)) = (i16::try_from(api_key), i16::try_from(version)) else {
        return Err(corrupt(format!("record type {api_key} or version {version} too large")));
    };
    let record = MetadataRecord::decode(api_key, &mut d, version).map_err(|e| corrupt(e.to_string()))?;
    d.finish().map_err(|e| corrupt(e.to_string()))?;
    Ok((record, version))
}

/// The facts a blank entry's `LeaderChangeMessage` states that the entry itself does not carry.
#[derive(Debug, Clone, Default)]
pub(crate) struct LeaderChange {
    /// The leader of the entry's term, if the vote names it.
    pub leader_id: Option<u64>,
    /// The voters of the latest membership in the log.
    pub voters: Vec<u64>,
}

/// The batch of one entry at `base_offset`. A normal entry's records carry its own append time;
/// control entries' records carry `timestamp_ms` (this voter's clock). `leader_change` is used
/// by blank entries only; `kraft_version_before`, the level of the latest membership before it,
/// by membership entries.
pub(crate) fn entry_batch(
    entry: &Entry<TypeConfig>,
    base_offset: i64,
    timestamp_ms: i64,
    leader_change: &LeaderChange,
    kraft_version_before: i16,
) -> Result<RecordBatch, QuorumError> {
    let epoch = i32::try_from(entry.log_id.leader_id.term)
        .map_err(|_| QuorumError::Encode(format!("term {} exceeds a leader epoch", entry.log_id.leader_id.term)))?;
    let builder = RecordBatchBuilder::new().base_offset(base_offset).partition_leader_epoch(epoch);
    let mut builder = match &entry.payload {
        EntryPayload::Normal(_) => builder,
        EntryPayload::Blank | EntryPayload::Membership(_) => builder.control(),
    };
    let timestamp_ms = match &entry.payload {
        EntryPayload::Normal(frames) => frames.append_time_ms,
        EntryPayload::Blank | EntryPayload::Membership(_) => timestamp_ms,
    };
    let records = match &entry.payload {
        EntryPayload::Normal(frames) => frames.frames.iter().map(|frame| (None, frame.clone())).collect(),
        EntryPayload::Blank => vec![leader_change_record(leader_change)?],
        EntryPayload::Membership(membership) => {
            let raised = kraft_version(membership) > kraft_version_before;
            membership_records(membership, entry.log_id.index == 0 || raised)?
        }
    };
    for (key, value) in &records {
        let record = NewRecord { timestamp_ms, key: key.as_ref().map(|k| &k[..]), value: Some(value), headers: &[] };
        builder.append(&record).map_err(|e| QuorumError::Encode(e.to_string()))?;
    }
    let bytes = builder.build().map_err(|e| QuorumError::Encode(e.to_string()))?;
    RecordBatch::parse(bytes).map_err(|e| QuorumError::Encode(e.to_string()))
}

/// A record as (key, value): control records have a key, metadata records a null one.
pub(crate) type KeyValue = (Option<[u8; ControlRecordType::KEY_BYTES]>, Vec<u8>);

fn leader_change_record(change: &LeaderChange) -> Result<KeyValue, QuorumError> {
    let voter = |id: u64| LeaderChangeVoter { voter_id: node_id_to_wire(id), ..LeaderChangeVoter::default() };
    let leader_id = change.leader_id.map_or(BrokerId::NONE, |id| BrokerId(node_id_to_wire(id)));
    let message = LeaderChangeMessage {
        version: LEADER_CHANGE_VERSION,
        leader_id,
        voters: change.voters.iter().copied().map(voter).collect(),
        // openraft does not say which other voters granted the vote; the leader's own is known.
        granting_voters: change.leader_id.into_iter().map(voter).collect(),
        unknown_tagged_fields: Vec::new(),
    };
    let value = message.encode_to_bytes(LEADER_CHANGE_VERSION).map_err(|e| QuorumError::Encode(e.to_string()))?;
    Ok((Some(ControlRecordType::LeaderChange.encode_key()), value.to_vec()))
}

/// The `kraft.version` `membership` stands for: [`KRAFT_VERSION`] once every voter and learner
/// has a metadata log directory id (Kafka's voter sets at level 1 must: KIP-853's replica keys);
/// 0 for a static quorum's voters, which `controller.quorum.voters` names without.
pub(crate) fn kraft_version(membership: &Membership<u64, VoterNode>) -> i16 {
    let mut nodes = membership.nodes().peekable();
    let known = nodes.peek().is_some() && nodes.all(|(_, node)| node.directory_id != [0; 16]);
    if known { KRAFT_VERSION } else { 0 }
}

/// A membership's control records: its `kraft.version` first when `with_kraft_version` (the log's
/// first entry, a snapshot, the upgrade), then its `VotersRecord`s.
pub(crate) fn membership_records(
    membership: &Membership<u64, VoterNode>,
    with_kraft_version: bool,
) -> Result<Vec<KeyValue>, QuorumError> {
    let mut records = Vec::new();
    if with_kraft_version {
        let level = kraft_version(membership);
        let record = KRaftVersionRecord { version: 0, kraft_version: level, unknown_tagged_fields: Vec::new() };
        let value = record.encode_to_bytes(0).map_err(|e| QuorumError::Encode(e.to_string()))?;
        records.push((Some(ControlRecordType::KraftVersion.encode_key()), value.to_vec()));
    }
    let node = |id: &u64| voter(*id, membership.get_node(id).cloned().unwrap_or_default());
    let configs = membership.get_joint_config();
    for (i, config) in configs.iter().enumerate() {
        let mut record =
            VotersRecord { version: 0, voters: config.iter().map(node).collect(), ..VotersRecord::default() };
        let learners: Vec<Voter> = membership.learner_ids().map(|id| node(&id)).collect();
        if i + 1 == configs.len() && !learners.is_empty() {
            let learners = VotersRecord { version: 0, voters: learners, ..VotersRecord::default() };
            let data = learners.encode_to_bytes(0).map_err(|e| QuorumError::Encode(e.to_string()))?;
            record.unknown_tagged_fields.push(RawTaggedField { tag: LEARNERS_TAG, data });
        }
        let value = record.encode_to_bytes(0).map_err(|e| QuorumError::Encode(e.to_string()))?;
        records.push((Some(ControlRecordType::KraftVoters.encode_key()), value.to_vec()));
    }
    Ok(records)
}

/// Each voter of `voters` as openraft's membership holds it.
pub(crate) fn voter_nodes(voters: &QuorumVoters) -> Result<BTreeMap<u64, VoterNode>, QuorumError> {
    let mut members = BTreeMap::new();
    for voter in voters.iter() {
        let id = u64::try_from(voter.id).map_err(|_| QuorumError::InvalidNodeId(voter.id))?;
        let endpoints =
            voter.address.map(|(host, port)| VoterEndpoint { name: voters.listener_name().to_owned(), host, port });
        let node =
            VoterNode { directory_id: voters.directory_id(voter.id).0, endpoints: endpoints.into_iter().collect() };
        members.insert(id, node);
    }
    Ok(members)
}

/// The `VotersRecord` of `voters` (the bootstrap file's initial voters).
pub(crate) fn voters_record(voters: &QuorumVoters) -> VotersRecord {
    let nodes = voter_nodes(voters).unwrap_or_default();
    let voters = nodes.into_iter().map(|(id, node)| voter(id, node)).collect();
    VotersRecord { version: 0, voters, unknown_tagged_fields: Vec::new() }
}

/// The voter set a `VotersRecord` names (each voter's first endpoint).
pub(crate) fn voters_from_record(record: VotersRecord) -> Result<QuorumVoters, QuorumError> {
    let listener_name =
        record.voters.iter().find_map(|v| v.endpoints.first()).map(|e| e.name.clone()).unwrap_or_default();
    let mut voters = QuorumVoters::none(&listener_name);
    for voter in record.voters {
        if voter.voter_id.0 < 0 {
            return Err(QuorumError::CorruptLog(format!("voter id {} is negative", voter.voter_id)));
        }
        let address = voter.endpoints.into_iter().next().map(|e| (e.host, e.port));
        voters.insert(voter.voter_id.0, address, voter.voter_directory_id);
    }
    Ok(voters)
}

fn voter(id: u64, node: VoterNode) -> Voter {
    let endpoint = |e: VoterEndpoint| Endpoint { name: e.name, host: e.host, port: e.port, ..Endpoint::default() };
    Voter {
        voter_id: BrokerId(node_id_to_wire(id)),
        voter_directory_id: Uuid(node.directory_id),
        endpoints: node.endpoints.into_iter().map(endpoint).collect(),
        kraft_version_feature: KRaftVersionFeature {
            min_supported_version: 0,
            max_supported_version: KRAFT_VERSION,
            unknown_tagged_fields: Vec::new(),
        },
        unknown_tagged_fields: Vec::new(),
    }
}

/// The entry the batch at Raft index `index` holds: the inverse of [`entry_batch`].
pub(crate) fn batch_entry(batch: &RecordBatch, index: u64) -> Result<Entry<TypeConfig>, QuorumError> {
    let term = u64::try_from(batch.partition_leader_epoch())
        .map_err(|_| corrupt_batch(batch, "negative partition leader epoch"))?;
    let log_id = LogId::new(CommittedLeaderId::new(term, 0), index);
    let records = batch.records().map_err(|e| corrupt_batch(batch, &e.to_string()))?;
    let mut frames = Vec::new();
    let mut blank = false;
    let mut configs = Vec::new();
    let mut learners = Vec::new();
    for record in records.iter() {
        let record = record.map_err(|e| corrupt_batch(batch, &e.to_string()))?;
        let value = record.value().unwrap_or_default();
        if !batch.attributes().is_control() {
            frames.push(value.to_vec());
            continue;
        }
        let key = record.key().ok_or_else(|| corrupt_batch(batch, "control record without a key"))?;
        match ControlRecordType::decode_key(key).map_err(|e| corrupt_batch(batch, &e.to_string()))? {
            ControlRecordType::LeaderChange => blank = true,
            ControlRecordType::KraftVersion => {}
            ControlRecordType::KraftVoters => {
                let record = VotersRecord::decode_exact(Bytes::copy_from_slice(value), 0)
                    .map_err(|e| corrupt_batch(batch, &e.to_string()))?;
                learners.clear();
                for field in record.unknown_tagged_fields.iter().filter(|f| f.tag == LEARNERS_TAG) {
                    let these = VotersRecord::decode_exact(field.data.clone(), 0)
                        .map_err(|e| corrupt_batch(batch, &format!("learners: {e}")))?;
                    learners.extend(these.voters);
                }
                configs.push(record.voters);
            }
            other => return Err(corrupt_batch(batch, &format!("unexpected control record {other:?}"))),
        }
    }
    let payload = match (batch.attributes().is_control(), blank, configs.is_empty()) {
        (false, _, _) => EntryPayload::Normal(MetadataFrames { append_time_ms: batch.max_timestamp(), frames }),
        (true, true, true) => EntryPayload::Blank,
        (true, false, false) => EntryPayload::Membership(membership(configs, learners)?),
        (true, _, _) => return Err(corrupt_batch(batch, "a control batch is either a leader change or voters")),
    };
    Ok(Entry { log_id, payload })
}

fn membership(configs: Vec<Vec<Voter>>, learners: Vec<Voter>) -> Result<Membership<u64, VoterNode>, QuorumError> {
    let mut nodes = BTreeMap::new();
    let mut joint = Vec::new();
    for (voters, is_config) in configs.into_iter().map(|c| (c, true)).chain([(learners, false)]) {
        let mut config = BTreeSet::new();
        for voter in voters {
            let id = u64::try_from(voter.voter_id.0)
                .map_err(|_| QuorumError::CorruptLog(format!("voter id {} is negative", voter.voter_id)))?;
            let endpoints = voter.endpoints.into_iter();
            let node = VoterNode {
                directory_id: voter.voter_directory_id.0,
                endpoints: endpoints.map(|e| VoterEndpoint { name: e.name, host: e.host, port: e.port }).collect(),
            };
            nodes.insert(id, node);
            config.insert(id);
        }
        if is_config {
            joint.push(config);
        }
    }
    Ok(Membership::new(joint, nodes))
}

/// The membership a membership entry's batch holds, or `None` for other batches.
pub(crate) fn batch_membership(batch: &RecordBatch) -> Result<Option<Membership<u64, VoterNode>>, QuorumError> {
    if !batch.attributes().is_control() {
        return Ok(None);
    }
    match batch_entry(batch, 0)?.payload {
        EntryPayload::Membership(membership) => Ok(Some(membership)),
        _ => Ok(None),
    }
}

/// The metadata records of a data batch, decoded.
pub(crate) fn batch_records(batch: &RecordBatch) -> Result<Vec<(MetadataRecord, i16)>, QuorumError> {
    let records = batch.records().map_err(|e| corrupt_batch(batch, &e.to_string()))?;
    let mut decoded = Vec::with_capacity(records.declared_count().max(0) as usize);
    for record in records.iter() {
        let record = record.map_err(|e| corrupt_batch(batch, &e.to_string()))?;
        decoded.push(decode_frame(record.value().unwrap_or_default())?);
    }
    Ok(decoded)
}

/// Record frames as a list of hex strings (half the size of JSON's arrays of numbers).
mod hex_frames {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    const DIGITS: &[u8; 16] = b"0123456789abcdef";

    pub(super) fn serialize<S: Serializer>(frames: &[Vec<u8>], serializer: S) -> Result<S::Ok, S::Error> {
        let hex = |frame: &Vec<u8>| -> Result<String, S::Error> {
            let mut digits = Vec::with_capacity(2 * frame.len());
            for b in frame {
                digits.extend_from_slice(&[DIGITS[usize::from(b >> 4)], DIGITS[usize::from(b & 0xf)]]);
            }
            String::from_utf8(digits).map_err(serde::ser::Error::custom)
        };
        frames.iter().map(hex).collect::<Result<Vec<String>, _>>()?.serialize(serializer)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Vec<u8>>, D::Error> {
        let strings = Vec::<String>::deserialize(deserializer)?;
        strings.iter().map(|s| decode(s.as_bytes()).ok_or_else(|| D::Error::custom("invalid hex frame"))).collect()
    }

    fn decode(hex: &[u8]) -> Option<Vec<u8>> {
        let digit = |c: u8| (c as char).to_digit(16).and_then(|d| u8::try_from(d).ok());
        if !hex.len().is_multiple_of(2) {
            return None;
        }
        hex.chunks_exact(2).map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?)).collect()
    }
}

/// A node id as Kafka's `int32` (ids are checked to fit when the quorum opens).
pub(crate) fn node_id_to_wire(id: u64) -> i32 {
    i32::try_from(id).unwrap_or(i32::MAX)
}

fn corrupt_batch(batch: &RecordBatch, reason: &str) -> QuorumError {
    QuorumError::CorruptLog(format!("batch at offset {}: {reason}", batch.base_offset()))
}

#[cfg(test)]
mod tests {
    use strand_protocol::messages::TopicRecord;

    use super::*;

    fn check_round_trip(payload: EntryPayload<TypeConfig>, index: u64) {
        let entry = Entry { log_id: LogId::new(CommittedLeaderId::new(3, 0), index), payload };
        let change = LeaderChange { leader_id: Some(1), voters: vec![1] };
        let batch = entry_batch(&entry, 42, 1_000, &change, 0).expect("encodes");
        assert!(batch.crc_is_valid());
        assert_eq!((batch.base_offset(), batch.partition_leader_epoch()), (42, 3));
        assert_eq!(batch_entry(&batch, index).expect("decodes"), entry);
    }

    /// Every kind of entry comes back from its batch with the same log id and payload.
    #[test]
    fn entries_round_trip_through_batches() {
        let topic = MetadataRecord::TopicRecord(TopicRecord { name: "orders".into(), ..TopicRecord::default() });
        let frames = MetadataFrames { append_time_ms: 77, frames: vec![encode_frame(&topic, 0).expect("frames"); 3] };
        check_round_trip(EntryPayload::Normal(frames), 7);
        check_round_trip(EntryPayload::Blank, 8);
        let one = Membership::new(vec![BTreeSet::from([1])], BTreeMap::from([(1, VoterNode::default())]));
        check_round_trip(EntryPayload::Membership(one), 0);
        let joint = Membership::new(vec![BTreeSet::from([1]), BTreeSet::from([1, 2, 3])], ());
        check_round_trip(EntryPayload::Membership(joint), 9);
        let node = |port| VoterNode {
            directory_id: [port as u8; 16],
            endpoints: vec![VoterEndpoint { name: "CONTROLLER".into(), host: "h".into(), port }],
        };
        let nodes = BTreeMap::from([(1, node(1)), (2, node(2)), (4, node(4))]);
        let learning = Membership::new(vec![BTreeSet::from([1, 2])], nodes);
        assert_eq!(learning.learner_ids().collect::<Vec<_>>(), [4]);
        check_round_trip(EntryPayload::Membership(learning), 10);
    }

    /// `kraft.version` 1 once every member has a directory id; a membership raising it states
    /// the new level first in its batch (Kafka's upgrade batch), one keeping it does not.
    #[test]
    fn a_membership_raising_kraft_version_states_it() {
        let node = |directory| VoterNode { directory_id: [directory; 16], ..VoterNode::default() };
        let static_voters = Membership::new(vec![BTreeSet::from([1, 2])], BTreeMap::from([(1, node(0)), (2, node(0))]));
        let half_known = Membership::new(vec![BTreeSet::from([1, 2])], BTreeMap::from([(1, node(1)), (2, node(0))]));
        let known = Membership::new(vec![BTreeSet::from([1, 2])], BTreeMap::from([(1, node(1)), (2, node(2))]));
        assert_eq!([&static_voters, &half_known, &known].map(kraft_version), [0, 0, 1]);
        let kraft_records = |membership: &Membership<u64, VoterNode>, index, before| {
            let entry = Entry {
                log_id: LogId::new(CommittedLeaderId::new(3, 0), index),
                payload: EntryPayload::Membership(membership.clone()),
            };
            let batch = entry_batch(&entry, 0, 1_000, &LeaderChange::default(), before).expect("encodes");
            let records = batch.records().expect("records");
            let levels: Vec<i16> = records
                .iter()
                .map(|r| r.expect("a record"))
                .filter(|r| {
                    r.key()
                        .is_some_and(|k| ControlRecordType::decode_key(k).ok() == Some(ControlRecordType::KraftVersion))
                })
                .map(|r| {
                    KRaftVersionRecord::decode_exact(Bytes::copy_from_slice(r.value().unwrap_or_default()), 0)
                        .expect("decodes")
                        .kraft_version
                })
                .collect();
            levels
        };
        assert_eq!(kraft_records(&static_voters, 0, 0), [0], "the first entry states its level");
        assert_eq!(kraft_records(&known, 9, 0), [1], "the upgrade");
        assert!(kraft_records(&known, 10, 1).is_empty(), "a change at the same level");
        assert!(kraft_records(&static_voters, 10, 0).is_empty());
    }

    /// A record's frame is Kafka's: frame version 1, type, version, then the record.
    #[test]
    fn frames_follow_metadata_record_serde() {
        let topic = MetadataRecord::TopicRecord(TopicRecord { name: "t".into(), ..TopicRecord::default() });
        let frame = encode_frame(&topic, 0).expect("frames");
        assert_eq!(&frame[..3], &[1, 2, 0]);
        assert_eq!(decode_frame(&frame).expect("decodes"), (topic.clone(), 0));
        assert!(matches!(encode_frame(&topic, 99), Err(QuorumError::UnsupportedRecordVersion { .. })));
        let mut bad = frame.clone();
        bad[0] = 0;
        assert!(decode_frame(&bad).is_err());
        let mut trailing = frame;
        trailing.push(0);
        assert!(decode_frame(&trailing).is_err());
    }
}
