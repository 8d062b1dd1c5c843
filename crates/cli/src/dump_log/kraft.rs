//! The KRaft control records of a `__cluster_metadata` segment, printed as the JSON of Kafka's
//! generated `JsonConverter`s (fields in schema order, camelCase names, tagged fields Kafka
//! does not know left out): `LeaderChangeMessage`, `KRaftVersionRecord`, `VotersRecord`. Each
//! message starts with its `Version` field, the version Kafka reads the rest at.

use bytes::Bytes;
use serde_json::Value;
use strand_protocol::Message;
use strand_protocol::messages::kraft_version_record::KRaftVersionRecord;
use strand_protocol::messages::leader_change_message::{LeaderChangeMessage, Voter as LeaderChangeVoter};
use strand_protocol::messages::voters_record::VotersRecord;

/// A LeaderChange control record's JSON; `None` if it does not decode.
pub fn leader_change(value: &[u8]) -> Option<String> {
    let (version, message) = decode::<LeaderChangeMessage>(value)?;
    let voters = |voters: &[LeaderChangeVoter]| {
        let entries: Vec<String> = voters
            .iter()
            .map(|v| match version {
                0 => format!("{{\"voterId\":{}}}", v.voter_id),
                _ => format!("{{\"voterId\":{},\"voterDirectoryId\":\"{}\"}}", v.voter_id, v.voter_directory_id),
            })
            .collect();
        entries.join(",")
    };
    Some(format!(
        "{{\"version\":{},\"leaderId\":{},\"voters\":[{}],\"grantingVoters\":[{}]}}",
        message.version,
        message.leader_id.0,
        voters(&message.voters),
        voters(&message.granting_voters)
    ))
}

/// A KRaftVersion control record's JSON.
pub fn kraft_version(value: &[u8]) -> Option<String> {
    let (_, record) = decode::<KRaftVersionRecord>(value)?;
    Some(format!("{{\"version\":{},\"kRaftVersion\":{}}}", record.version, record.kraft_version))
}

/// A KRaftVoters control record's JSON.
pub fn voters(value: &[u8]) -> Option<String> {
    let (_, record) = decode::<VotersRecord>(value)?;
    let voters: Vec<String> = record
        .voters
        .iter()
        .map(|v| {
            let endpoints: Vec<String> = v
                .endpoints
                .iter()
                .map(|e| format!("{{\"name\":{},\"host\":{},\"port\":{}}}", text(&e.name), text(&e.host), e.port))
                .collect();
            format!(
                "{{\"voterId\":{},\"voterDirectoryId\":\"{}\",\"endpoints\":[{}],\"kRaftVersionFeature\":\
                 {{\"minSupportedVersion\":{},\"maxSupportedVersion\":{}}}}}",
                v.voter_id.0,
                v.voter_directory_id,
                endpoints.join(","),
                v.kraft_version_feature.min_supported_version,
                v.kraft_version_feature.max_supported_version
            )
        })
        .collect();
    Some(format!("{{\"version\":{},\"voters\":[{}]}}", record.version, voters.join(",")))
}

/// A control record's message, whose first field (`Version`) is the version it is read at.
fn decode<M: Message>(value: &[u8]) -> Option<(i16, M)> {
    let version = i16::from_be_bytes([*value.first()?, *value.get(1)?]);
    let message = M::decode_exact(Bytes::copy_from_slice(value), version).ok()?;
    Some((version, message))
}

fn text(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}
