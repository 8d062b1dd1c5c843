//! Random sequences of transaction operations (InitProducerId with and without KIP-360 pairs,
//! adds, V1 and V2 ends with current and stale epochs, marker completions, clock jumps and
//! sweeps) on one shard: replaying the bytes of every record it wrote rebuilds it exactly, and
//! every record it wrote was a legal transition of the id it names.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use strand_base::TopicPartition;
use strand_coordinator::txn::{
    SequentialProducerIds, TxnConfig, TxnMetadata, TxnRecord, TxnResult, TxnShard, TxnState,
};

const T0: i64 = 1_700_000_000_000;
const IDS: [&str; 3] = ["a", "b", "c"];

#[derive(Debug, Clone)]
enum Op {
    Init { id: usize, with_pair: bool },
    Add { id: usize, partition: i32, stale: bool },
    End { id: usize, commit: bool, v2: bool, stale: bool },
    MarkersWritten { id: usize },
    Advance { ms: i64 },
    Timer,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..3usize, any::<bool>()).prop_map(|(id, with_pair)| Op::Init { id, with_pair }),
        (0..3usize, 0..4i32, proptest::bool::weighted(0.1)).prop_map(|(id, partition, stale)| Op::Add {
            id,
            partition,
            stale
        }),
        (0..3usize, any::<bool>(), any::<bool>(), proptest::bool::weighted(0.2))
            .prop_map(|(id, commit, v2, stale)| Op::End { id, commit, v2, stale }),
        (0..3usize).prop_map(|id| Op::MarkersWritten { id }),
        (1..40_000i64).prop_map(|ms| Op::Advance { ms }),
        Just(Op::Timer),
    ]
}

fn durable(shard: &TxnShard) -> BTreeMap<String, TxnMetadata> {
    shard
        .transactions()
        .map(|(id, txn)| (id.to_owned(), TxnMetadata { last_producer_epoch: -1, ..txn.clone() }))
        .collect()
}

/// Runs `ops`; returns the shard and every record it wrote, in order.
fn run(ops: &[Op]) -> (TxnShard, Vec<TxnRecord>) {
    let config = TxnConfig {
        transaction_max_timeout_ms: 100_000,
        transactional_id_expiration_ms: 200_000,
        ..TxnConfig::default()
    };
    let mut shard = TxnShard::new(config, 1);
    shard.on_loaded(T0);
    let mut ids = SequentialProducerIds::starting_at(1);
    let mut now = T0;
    let mut log = Vec::new();
    for op in ops {
        let before = shard.clone();
        let records = match op.clone() {
            Op::Init { id, with_pair } => {
                let pair = shard.transaction(IDS[id]).filter(|_| with_pair).map(|t| (t.producer_id, t.producer_epoch));
                shard.init_producer_id(now, &mut ids, IDS[id], 50_000, pair).expect("ids given").records
            }
            Op::Add { id, partition, stale } => {
                let Some((pid, epoch)) = producer(&shard, id, stale) else { continue };
                let partitions = BTreeSet::from([TopicPartition::new("t", partition)]);
                shard.add_partitions(now, IDS[id], pid, epoch, &partitions, 0).records
            }
            Op::End { id, commit, v2, stale } => {
                let Some((pid, epoch)) = producer(&shard, id, stale) else { continue };
                let result = if commit { TxnResult::Commit } else { TxnResult::Abort };
                let tv = if v2 { 2 } else { 0 };
                shard.end_txn(now, &mut ids, IDS[id], (pid, epoch), result, tv).expect("ids given").records
            }
            Op::MarkersWritten { id } => {
                let Some(marker) = shard.pending_markers().into_iter().find(|m| m.transactional_id == IDS[id]) else {
                    continue;
                };
                shard
                    .complete_transaction(now, IDS[id], marker.producer_id, marker.producer_epoch, marker.result)
                    .records
            }
            Op::Advance { ms } => {
                now += ms;
                continue;
            }
            Op::Timer => shard.on_timer(now).records,
        };
        for record in &records {
            check_legal(&before, record);
        }
        log.extend(records);
    }
    (shard, log)
}

fn producer(shard: &TxnShard, id: usize, stale: bool) -> Option<(i64, i16)> {
    let txn = shard.transaction(IDS[id])?;
    Some((txn.producer_id, if stale { txn.producer_epoch.saturating_sub(1) } else { txn.producer_epoch }))
}

/// A record moves its id along Kafka's table (a fence's PrepareAbort from Ongoing included:
/// Ongoing -> PrepareEpochFence -> PrepareAbort, written as one record), or removes an id that
/// may expire.
fn check_legal(before: &TxnShard, record: &TxnRecord) {
    let from = before.transaction(&record.transactional_id).map(|t| t.state);
    match (&record.value, from) {
        (None, Some(from)) => {
            assert!(from.is_expiration_allowed(), "tombstone of {} in {from}", record.transactional_id)
        }
        (None, None) => panic!("tombstone of an unknown id"),
        (Some((_, next)), None) => assert_eq!(next.state, TxnState::Empty, "a new id starts Empty"),
        (Some((_, next)), Some(from)) => {
            assert!(next.state.can_follow(from), "{} moved {from} -> {}", record.transactional_id, next.state);
            assert!(next.producer_epoch >= 0, "a written epoch is never negative");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The state built live equals the replay of the bytes of every record written.
    #[test]
    fn replaying_the_log_rebuilds_the_shard(ops in proptest::collection::vec(op(), 1..80)) {
        let (live, log) = run(&ops);
        let mut replayed = TxnShard::new(live.config().clone(), 1);
        for record in &log {
            let key = record.encode_key().expect("key encodes");
            let value = record.encode_value().expect("value encodes");
            replayed.replay(&TxnRecord::decode(key, value).expect("record decodes"));
        }
        prop_assert_eq!(durable(&replayed), durable(&live));
    }
}
