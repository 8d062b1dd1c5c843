//! AlterUserScramCredentials as Kafka's `ScramControlManager` decides it (KIP-554), and the
//! SCRAM part of the image: replay, removal, snapshots.

mod common;

use bytes::Bytes;
use common::{Cluster, from_snapshot_records};
use strand_metadata::controller::alter_user_scram_credentials;
use strand_metadata::image::{MetadataDelta, MetadataImage, MetadataProvenance, ReplayError};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::AlterUserScramCredentialsRequest;
use strand_protocol::messages::alter_user_scram_credentials_request::{
    ScramCredentialDeletion, ScramCredentialUpsertion,
};
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{RemoveUserScramCredentialRecord, UserScramCredentialRecord};
use strand_security::scram::ScramMechanism;

const SHA256: i8 = 1;
const SHA512: i8 = 2;
const OK: ErrorCode = ErrorCode::None;

/// One alteration of a request, in the order the request lists it (deletions are sent first).
#[derive(Debug, Clone, Copy)]
enum Op<'a> {
    Delete(&'a str, i8),
    Upsert(&'a str, i8, i32),
}

fn request(ops: &[Op<'_>]) -> AlterUserScramCredentialsRequest {
    let mut request = AlterUserScramCredentialsRequest::default();
    for op in ops {
        match *op {
            Op::Delete(name, mechanism) => request.deletions.push(ScramCredentialDeletion {
                name: name.to_owned(),
                mechanism,
                ..Default::default()
            }),
            Op::Upsert(name, mechanism, iterations) => request.upsertions.push(ScramCredentialUpsertion {
                name: name.to_owned(),
                mechanism,
                iterations,
                salt: Bytes::from_static(b"salt"),
                salted_password: Bytes::from(format!("salted-{name}").into_bytes()),
                ..Default::default()
            }),
        }
    }
    request
}

/// A cluster where `alice` has a SCRAM-SHA-256 credential.
fn with_alice() -> Cluster {
    let mut cluster = Cluster::new();
    let result = alter_user_scram_credentials(&cluster.image, &request(&[Op::Upsert("alice", SHA256, 4096)]));
    cluster.apply(&result.records);
    cluster
}

/// Decides `ops` on a cluster where alice has a SCRAM-SHA-256 credential: each user's error code
/// and message in the response's order, and how many records were written.
fn check(ops: &[Op<'_>], expected: &[(&str, ErrorCode, Option<&str>)], records: usize) {
    let cluster = with_alice();
    let result = alter_user_scram_credentials(&cluster.image, &request(ops));
    let actual: Vec<(&str, ErrorCode, Option<&str>)> = result
        .response
        .results
        .iter()
        .map(|r| {
            (r.user.as_str(), ErrorCode::from_code(r.error_code).expect("a known code"), r.error_message.as_deref())
        })
        .collect();
    assert_eq!(actual, expected, "{ops:?}");
    assert_eq!(result.records.len(), records, "{ops:?}");
}

/// Every rule of `ScramControlManager.alterCredentials`, each with Kafka's code and message.
#[test]
fn alter_user_scram_credentials_rules() {
    use ErrorCode::{DuplicateResource, ResourceNotFound, UnacceptableCredential, UnsupportedSaslMechanism};
    let duplicate = Some("A user credential cannot be altered twice in the same request");
    let not_found = Some("Attempt to delete a user credential that does not exist");
    check(&[Op::Upsert("bob", SHA512, 8192)], &[("bob", OK, None)], 1);
    check(&[Op::Upsert("bob", SHA256, 4096)], &[("bob", OK, None)], 1);
    check(&[Op::Upsert("bob", SHA512, 16384)], &[("bob", OK, None)], 1);
    check(&[Op::Upsert("alice", SHA256, 8192)], &[("alice", OK, None)], 1);
    check(&[Op::Upsert("bob", SHA512, 4095)], &[("bob", UnacceptableCredential, Some("Too few iterations"))], 0);
    check(&[Op::Upsert("bob", SHA512, -1)], &[("bob", UnacceptableCredential, Some("Too few iterations"))], 0);
    check(&[Op::Upsert("bob", SHA512, 16385)], &[("bob", UnacceptableCredential, Some("Too many iterations"))], 0);
    let empty = Some("Username must not be empty");
    check(&[Op::Upsert("", SHA512, 8192)], &[("", UnacceptableCredential, empty)], 0);
    check(&[Op::Delete("", SHA512)], &[("", UnacceptableCredential, empty)], 0);
    let unknown = Some("Unknown SCRAM mechanism");
    check(&[Op::Upsert("bob", 0, 8192)], &[("bob", UnsupportedSaslMechanism, unknown)], 0);
    check(&[Op::Upsert("bob", 3, 8192)], &[("bob", UnsupportedSaslMechanism, unknown)], 0);
    check(&[Op::Delete("alice", 0)], &[("alice", UnsupportedSaslMechanism, unknown)], 0);
    check(&[Op::Delete("alice", SHA256)], &[("alice", OK, None)], 1);
    check(&[Op::Delete("alice", SHA512)], &[("alice", ResourceNotFound, not_found)], 0);
    check(&[Op::Delete("bob", SHA256)], &[("bob", ResourceNotFound, not_found)], 0);
    // A user named twice fails whole, its first alteration dropped with it.
    check(
        &[Op::Upsert("bob", SHA256, 4096), Op::Upsert("bob", SHA512, 4096)],
        &[("bob", DuplicateResource, duplicate)],
        0,
    );
    check(
        &[Op::Delete("alice", SHA256), Op::Upsert("alice", SHA512, 4096)],
        &[("alice", DuplicateResource, duplicate)],
        0,
    );
    check(&[Op::Delete("alice", SHA256), Op::Delete("alice", SHA256)], &[("alice", DuplicateResource, duplicate)], 0);
    // A user whose first alteration failed is not looked at again.
    check(&[Op::Delete("bob", SHA256), Op::Upsert("bob", SHA512, 4096)], &[("bob", ResourceNotFound, not_found)], 0);
    // Successful deletions, then successful upsertions, then failures.
    check(
        &[Op::Delete("alice", SHA256), Op::Upsert("x", SHA512, 1), Op::Upsert("bob", SHA512, 8192)],
        &[("alice", OK, None), ("bob", OK, None), ("x", UnacceptableCredential, Some("Too few iterations"))],
        2,
    );
}

/// The record holds the salt, StoredKey and ServerKey of the salted password (RFC 5802), and the
/// iterations; the salted password itself is in no record.
#[test]
fn upsertion_records_derived_keys_only() {
    let cluster = Cluster::new();
    let result = alter_user_scram_credentials(&cluster.image, &request(&[Op::Upsert("bob", SHA512, 8192)]));
    let [record] = result.records.as_slice() else { panic!("one record: {:?}", result.records) };
    let MetadataRecord::UserScramCredentialRecord(record) = &record.record else { panic!("{record:?}") };
    let expected = ScramMechanism::Sha512.credential(b"salted-bob", b"salt", 8192);
    assert_eq!((record.name.as_str(), record.mechanism, record.iterations), ("bob", SHA512, 8192));
    assert_eq!(record.salt.as_ref(), b"salt");
    assert_eq!(record.stored_key.as_ref(), expected.stored_key.as_slice());
    assert_eq!(record.server_key.as_ref(), expected.server_key.as_slice());
    assert_ne!(record.stored_key.as_ref(), b"salted-bob");
    assert_ne!(record.server_key.as_ref(), b"salted-bob");
}

/// Replayed upsertions and deletions change the image as the decision said; a snapshot of the
/// image recreates it.
#[test]
fn credentials_replay_and_survive_snapshots() {
    let mut cluster = with_alice();
    let upsert = request(&[Op::Upsert("bob", SHA512, 8192), Op::Upsert("alice", SHA256, 5000)]);
    let result = alter_user_scram_credentials(&cluster.image, &upsert);
    cluster.apply(&result.records);
    let scram = cluster.image.scram();
    let users: Vec<&str> = scram.users().map(|(name, _)| name).collect();
    assert_eq!(users, ["alice", "bob"]);
    assert_eq!(scram.credential("alice", ScramMechanism::Sha256).map(|c| c.iterations), Some(5000));
    assert_eq!(scram.credential("bob", ScramMechanism::Sha512).map(|c| c.iterations), Some(8192));
    assert_eq!(scram.credential("bob", ScramMechanism::Sha256), None);
    assert_eq!(from_snapshot_records(&cluster.image), cluster.image);

    let result = alter_user_scram_credentials(&cluster.image, &request(&[Op::Delete("alice", SHA256)]));
    cluster.apply(&result.records);
    assert_eq!(cluster.image.scram().user("alice"), None, "a user with no credential left is gone");
    assert!(cluster.image.scram().user("bob").is_some());
    assert_eq!(from_snapshot_records(&cluster.image), cluster.image);
}

/// Records Kafka's controller never writes do not load: a removal of a credential that is not
/// there (Kafka's replay throws), an unknown mechanism, negative iterations.
#[test]
fn inconsistent_scram_records_are_replay_errors() {
    let replay = |record: MetadataRecord| {
        let mut delta = MetadataDelta::new(&MetadataImage::empty());
        delta.replay(&record).map(|()| delta.apply(MetadataProvenance { offset: 0, epoch: 0 }))
    };
    let remove = |name: &str, mechanism| {
        MetadataRecord::RemoveUserScramCredentialRecord(RemoveUserScramCredentialRecord {
            name: name.to_owned(),
            mechanism,
            ..Default::default()
        })
    };
    let upsert = |mechanism, iterations| {
        MetadataRecord::UserScramCredentialRecord(UserScramCredentialRecord {
            name: "u".to_owned(),
            mechanism,
            iterations,
            ..Default::default()
        })
    };
    assert!(matches!(replay(remove("u", SHA256)), Err(ReplayError::UnknownScramCredential { .. })));
    assert_eq!(replay(remove("u", 9)), Err(ReplayError::UnknownScramMechanism(9)));
    assert_eq!(replay(upsert(0, 4096)), Err(ReplayError::UnknownScramMechanism(0)));
    assert!(matches!(replay(upsert(SHA256, -1)), Err(ReplayError::InvalidScramIterations { .. })));
    let image = replay(upsert(SHA256, 4096)).expect("a valid credential replays");
    assert!(!image.is_empty());
    assert_eq!(image.scram().credential("u", ScramMechanism::Sha256).map(|c| c.iterations), Some(4096));
}
