//! `bootstrap.checkpoint`: Strand's file round-trips, and the batches Kafka 4.4's
//! `kafka-storage format --add-scram` wrote read back with the credentials Strand would derive.

use bytes::Bytes;
use strand_metadata::controller::{BootstrapFeatures, bootstrap_records};
use strand_metadata::quorum::{decode_bootstrap, encode_bootstrap, read_bootstrap, write_bootstrap};
use strand_protocol::messages::UserScramCredentialRecord;
use strand_protocol::messages::records::MetadataRecord;
use strand_security::scram::ScramMechanism;

/// Kafka 4.4.0's `kafka-storage format -t q1Sh-9_ISia_zwGINzRvyQ --add-scram
/// 'SCRAM-SHA-256=[name=alice,password=alice-secret]' --add-scram
/// 'SCRAM-SHA-512=[name=bob,iterations=8192,salt="c2FsdA==",saltedpassword="YWJj"]'`: its
/// `__cluster_metadata-0/00000000000000000000-0000000000.checkpoint`.
const KAFKA_FILE: &[u8] = include_bytes!("data/kafka-4.4-bootstrap.checkpoint");

fn scram(records: &[(MetadataRecord, i16)]) -> Vec<&UserScramCredentialRecord> {
    records
        .iter()
        .filter_map(|(record, _)| match record {
            MetadataRecord::UserScramCredentialRecord(r) => Some(r),
            _ => None,
        })
        .collect()
}

/// Kafka's file decodes: six feature levels, then the two credentials, whose keys are those
/// Strand derives from the same salted password (bob) and password (alice).
#[test]
fn kafka_bootstrap_file_reads_with_the_same_keys() {
    let records = decode_bootstrap(Bytes::from_static(KAFKA_FILE)).expect("Kafka's file decodes");
    assert_eq!(records.len(), 8);
    assert!(
        matches!(&records[0].0, MetadataRecord::FeatureLevelRecord(f) if f.name == "metadata.version" && f.feature_level == 33)
    );
    let [alice, bob] = scram(&records)[..] else { panic!("two credentials: {records:?}") };
    assert_eq!((alice.name.as_str(), alice.mechanism, alice.iterations), ("alice", 1, 4096));
    let derived = ScramMechanism::Sha256.credential_from_password("alice-secret", &alice.salt, 4096);
    assert_eq!(
        (alice.stored_key.as_ref(), alice.server_key.as_ref()),
        (&derived.stored_key[..], &derived.server_key[..])
    );
    assert_eq!((bob.name.as_str(), bob.mechanism, bob.iterations, bob.salt.as_ref()), ("bob", 2, 8192, &b"salt"[..]));
    let derived = ScramMechanism::Sha512.credential(b"abc", b"salt", 8192);
    assert_eq!((bob.stored_key.as_ref(), bob.server_key.as_ref()), (&derived.stored_key[..], &derived.server_key[..]));
}

/// What Strand writes reads back unchanged, whole or not at all; no file reads as `None`; a
/// damaged file is an error, not a bootstrap.
#[test]
fn strand_bootstrap_file_round_trips() {
    let dir = tempfile::tempdir().expect("temp dir");
    assert_eq!(read_bootstrap(dir.path()).expect("no file is fine"), None);
    let credential = ScramMechanism::Sha512.credential_from_password("pw", b"salty", 4096);
    let mut records: Vec<(MetadataRecord, i16)> =
        bootstrap_records(&BootstrapFeatures::default()).into_iter().map(|r| (r.record, r.version)).collect();
    let user = UserScramCredentialRecord {
        name: "admin".into(),
        mechanism: 2,
        salt: Bytes::from(credential.salt),
        stored_key: Bytes::from(credential.stored_key),
        server_key: Bytes::from(credential.server_key),
        iterations: 4096,
        ..Default::default()
    };
    records.push((MetadataRecord::UserScramCredentialRecord(user), 0));
    write_bootstrap(dir.path(), &records, 1_700_000_000_000).expect("write");
    assert_eq!(read_bootstrap(dir.path()).expect("read"), Some(records.clone()));

    let mut bytes = encode_bootstrap(&records, 0).expect("encode");
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    assert!(decode_bootstrap(Bytes::from(bytes.clone())).is_err(), "a flipped byte fails the CRC");
    bytes.truncate(last - 10);
    assert!(decode_bootstrap(Bytes::from(bytes)).is_err(), "a torn file");
    assert!(decode_bootstrap(Bytes::new()).is_err(), "an empty file");
}
