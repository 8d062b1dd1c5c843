//! Every generated message, at every generated version, survives encode → decode → encode with
//! equal values and identical bytes, starting from seeded random instances.

use strand_protocol::Message;
use strand_protocol::messages;
use strand_protocol::sample::{MessageVisitor, Sample, SampleGen};

/// Random instances per message and version.
const SEEDS: u64 = 24;

#[derive(Default)]
struct RoundTrip {
    failures: Vec<String>,
    cases: usize,
    messages: usize,
}

impl RoundTrip {
    fn check<M: Message>(&mut self, value: &M, version: i16, seed: u64) {
        self.cases += 1;
        let tag = format!("{} v{version} seed {seed}", M::NAME);
        let bytes = match value.encode_to_bytes(version) {
            Ok(bytes) => bytes,
            Err(e) => return self.failures.push(format!("{tag}: encode failed: {e}")),
        };
        let decoded = match M::decode_exact(bytes.clone(), version) {
            Ok(decoded) => decoded,
            Err(e) => return self.failures.push(format!("{tag}: decode failed: {e}")),
        };
        if &decoded != value {
            return self.failures.push(format!("{tag}: decoded value differs\n{value:?}\n{decoded:?}"));
        }
        match decoded.encode_to_bytes(version) {
            Ok(again) if again == bytes => {}
            Ok(_) => self.failures.push(format!("{tag}: re-encoded bytes differ")),
            Err(e) => self.failures.push(format!("{tag}: re-encode failed: {e}")),
        }
    }
}

impl MessageVisitor for RoundTrip {
    fn visit<M: Message + Sample>(&mut self) {
        self.messages += 1;
        for version in M::VERSIONS.min..=M::VERSIONS.max {
            self.check(&M::default(), version, 0);
            for seed in 1..=SEEDS {
                let mut g = SampleGen::new(seed.wrapping_mul(0x1000) ^ version as u64);
                let value = M::sample(&mut g, version);
                self.check(&value, version, seed);
            }
        }
    }
}

/// Every message at every version round-trips, defaults included (the bytes are canonical).
#[test]
fn every_message_round_trips_at_every_version() {
    let mut run = RoundTrip::default();
    messages::visit_all(&mut run);
    assert!(run.messages > 250, "only {} messages visited", run.messages);
    let shown: Vec<_> = run.failures.iter().take(10).collect();
    assert!(run.failures.is_empty(), "{} of {} cases failed:\n{shown:#?}", run.failures.len(), run.cases);
}

/// A field that does not exist at a version cannot be silently dropped unless Kafka's schema says
/// it is ignorable: encoding fails instead.
#[test]
fn a_field_set_outside_its_versions_is_an_encode_error() {
    use strand_protocol::EncodeError;
    use strand_protocol::messages::{FetchRequest, FetchResponse, fetch_request::FetchTopic};
    // FetchResponse.SessionId exists from v7 and is not ignorable.
    let response = FetchResponse { session_id: 42, ..FetchResponse::default() };
    assert!(response.encode_to_bytes(7).is_ok());
    let err = response.encode_to_bytes(6).err();
    assert_eq!(err, Some(EncodeError::FieldNotInVersion { field: "session_id", version: 6 }));
    // FetchTopic.Topic (names, before topic ids in v13) is ignorable: dropped, as Kafka does.
    let request = FetchRequest {
        topics: vec![FetchTopic { topic: "orders".into(), ..FetchTopic::default() }],
        ..FetchRequest::default()
    };
    assert!(request.encode_to_bytes(13).is_ok());
}

/// The visitor reaches every schema family, so the round trip above covers them all.
#[test]
fn visit_all_covers_every_family() {
    struct Names(Vec<&'static str>);
    impl MessageVisitor for Names {
        fn visit<M: Message + Sample>(&mut self) {
            self.0.push(M::NAME);
        }
    }
    let mut names = Names(Vec::new());
    messages::visit_all(&mut names);
    for expected in [
        "ProduceRequest",
        "FetchResponse",
        "RequestHeader",
        "ResponseHeader",
        "TopicRecord",
        "PartitionChangeRecord",
        "OffsetCommitKey",
        "LegacyOffsetCommitValue",
        "TransactionLogValue",
        "ShareSnapshotValue",
        "LeaderChangeMessage",
        "VotersRecord",
        "QuorumStateData",
        "ConsumerProtocolSubscription",
    ] {
        assert!(names.0.contains(&expected), "{expected} is not generated");
    }
}
