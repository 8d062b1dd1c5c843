//! `bootstrap.checkpoint`: Strand's file round-trips, and the batches Kafka 4.4's
//! `kafka-storage format --add-scram` wrote read back with the credentials Strand would derive;
//! a dynamic quorum's initial voters (`--initial-controllers`) read from Kafka's file and
//! round-trip through Strand's.

use bytes::Bytes;
use strand_metadata::controller::{BootstrapFeatures, bootstrap_records};
use strand_metadata::quorum::{
    Bootstrap, QuorumVoters, decode_bootstrap, encode_bootstrap, read_bootstrap, write_bootstrap,
};
use strand_protocol::messages::UserScramCredentialRecord;
use strand_protocol::messages::records::MetadataRecord;
use strand_security::scram::ScramMechanism;

/// Kafka 4.4.0's `kafka-storage format -t q1Sh-9_ISia_zwGINzRvyQ --add-scram
/// 'SCRAM-SHA-256=[name=alice,password=alice-secret]' --add-scram
/// 'SCRAM-SHA-512=[name=bob,iterations=8192,salt="c2FsdA==",saltedpassword="YWJj"]'`: its
/// `__cluster_metadata-0/00000000000000000000-0000000000.checkpoint`.
const KAFKA_FILE: &[u8] = include_bytes!("data/kafka-4.4-bootstrap.checkpoint");
/// Kafka 4.4.0's `kafka-storage format -t MkU3OEVBNTcwNTJENDM2Qg --initial-controllers
/// 1@127.0.0.1:9093:K90IZ-0DRNazJ49kCZ1EMQ,2@127.0.0.1:9094:aUARLskQTCW4qCZDtS_cwA` on node 1
/// (`controller.listener.names=CONTROLLER`): the same file.
const KAFKA_DYNAMIC_FILE: &[u8] = include_bytes!("data/kafka-4.4-initial-controllers.checkpoint");
const INITIAL_CONTROLLERS: &str = "1@127.0.0.1:9093:K90IZ-0DRNazJ49kCZ1EMQ,2@127.0.0.1:9094:aUARLskQTCW4qCZDtS_cwA";

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
    let bootstrap = decode_bootstrap(Bytes::from_static(KAFKA_FILE)).expect("Kafka's file decodes");
    assert_eq!(bootstrap.dynamic_voters, None, "a static quorum's file");
    let records = bootstrap.records;
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
    let bootstrap = Bootstrap { records, dynamic_voters: None };
    write_bootstrap(dir.path(), &bootstrap, 1_700_000_000_000).expect("write");
    assert_eq!(read_bootstrap(dir.path()).expect("read"), Some(bootstrap.clone()));

    let mut bytes = encode_bootstrap(&bootstrap, 0).expect("encode");
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    assert!(decode_bootstrap(Bytes::from(bytes.clone())).is_err(), "a flipped byte fails the CRC");
    bytes.truncate(last - 10);
    assert!(decode_bootstrap(Bytes::from(bytes)).is_err(), "a torn file");
    assert!(decode_bootstrap(Bytes::new()).is_err(), "an empty file");
}

/// Kafka's dynamic-quorum file holds the initial voters, each with its directory id and
/// CONTROLLER endpoint, and kraft.version 1; Strand writes the same voters back, and
/// `--no-initial-controllers`' empty set too.
#[test]
fn initial_controllers_read_from_kafka_and_round_trip() {
    let expected = QuorumVoters::parse_dynamic(INITIAL_CONTROLLERS, "CONTROLLER").expect("parses");
    let kafka = decode_bootstrap(Bytes::from_static(KAFKA_DYNAMIC_FILE)).expect("Kafka's file decodes");
    assert_eq!(kafka.dynamic_voters.as_ref(), Some(&expected));
    let feature = |(record, _): &(MetadataRecord, i16)| match record {
        MetadataRecord::FeatureLevelRecord(f) => Some(f.name.clone()),
        _ => None,
    };
    let features: Vec<String> = kafka.records.iter().filter_map(feature).collect();
    assert!(features.contains(&"metadata.version".to_owned()), "{features:?}");

    for voters in [expected, QuorumVoters::none("")] {
        let bootstrap = Bootstrap { records: kafka.records.clone(), dynamic_voters: Some(voters) };
        let bytes = encode_bootstrap(&bootstrap, 1_700_000_000_000).expect("encode");
        assert_eq!(decode_bootstrap(Bytes::from(bytes)).expect("decode"), bootstrap);
    }
}
