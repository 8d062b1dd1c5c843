//! The transaction state machine driven directly on a hand-moved clock: InitProducerId (new ids,
//! epoch bumps, fencing an ongoing transaction, epoch exhaustion, KIP-360 retries),
//! AddPartitionsToTxn/AddOffsetsToTxn and KIP-890 verification, EndTxn under transactions V1
//! and V2 (retries, delayed requests, producer id rotation), markers as outputs, the timeout and
//! expiration sweeps, Describe/ListTransactions. After every step the shard must equal the
//! replay of the bytes of every record it wrote.

use std::collections::{BTreeMap, BTreeSet};

use strand_base::TopicPartition;
use strand_coordinator::txn::{
    ListFilter, SequentialProducerIds, TxnConfig, TxnMarkerRequest, TxnMetadata, TxnOutput, TxnRecord, TxnResult,
    TxnShard, TxnState,
};
use strand_protocol::error::ErrorCode;

const T0: i64 = 1_700_000_000_000;
const TIMEOUT_MS: i32 = 60_000;
const FIRST_ID: i64 = 1000;

/// A shard, its clock, its producer ids and every record it wrote.
struct Harness {
    shard: TxnShard,
    now_ms: i64,
    ids: SequentialProducerIds,
    log: Vec<TxnRecord>,
    markers: Vec<TxnMarkerRequest>,
}

impl Harness {
    fn new() -> Self {
        Self::with_config(TxnConfig::default())
    }

    fn with_config(config: TxnConfig) -> Self {
        let mut shard = TxnShard::new(config, 3);
        shard.on_loaded(T0);
        Harness {
            shard,
            now_ms: T0,
            ids: SequentialProducerIds::starting_at(FIRST_ID),
            log: Vec::new(),
            markers: Vec::new(),
        }
    }

    fn keep<R>(&mut self, output: TxnOutput<R>) -> R {
        self.log.extend(output.records);
        self.markers.extend(output.markers);
        self.check_replay();
        output.response
    }

    fn init(&mut self, id: &str, expected: Option<(i64, i16)>) -> Result<(i64, i16), ErrorCode> {
        let output =
            self.shard.init_producer_id(self.now_ms, &mut self.ids, id, TIMEOUT_MS, expected).expect("ids given");
        self.keep(output)
    }

    fn add(&mut self, id: &str, producer: (i64, i16), partitions: &[(&str, i32)], tv: i16) -> ErrorCode {
        let partitions: BTreeSet<TopicPartition> =
            partitions.iter().map(|(t, p)| TopicPartition::new(*t, *p)).collect();
        let output = self.shard.add_partitions(self.now_ms, id, producer.0, producer.1, &partitions, tv);
        self.keep(output)
    }

    fn end(&mut self, id: &str, producer: (i64, i16), result: TxnResult, tv: i16) -> Result<(i64, i16), ErrorCode> {
        let output = self.shard.end_txn(self.now_ms, &mut self.ids, id, producer, result, tv).expect("ids given");
        self.keep(output)
    }

    /// The markers of `id`'s prepared transaction are written: complete it.
    fn markers_written(&mut self, id: &str) {
        let request = self.markers.iter().rev().find(|m| m.transactional_id == id).expect("markers to write").clone();
        let output = self.shard.complete_transaction(
            self.now_ms,
            id,
            request.producer_id,
            request.producer_epoch,
            request.result,
        );
        assert_eq!(output.records.len(), 1, "completing {id} writes one record");
        self.keep(output);
    }

    fn txn(&self, id: &str) -> &TxnMetadata {
        self.shard.transaction(id).unwrap_or_else(|| panic!("{id} is known"))
    }

    fn records_written(&self) -> usize {
        self.log.len()
    }

    /// The shard equals a fresh one that replayed the bytes of every record written (the
    /// in-memory last epoch aside: it is not in Kafka's format).
    fn check_replay(&self) {
        let mut replayed = TxnShard::new(self.shard.config().clone(), 3);
        for record in &self.log {
            let key = record.encode_key().expect("key encodes");
            let value = record.encode_value().expect("value encodes");
            replayed.replay(&TxnRecord::decode(key, value).expect("record decodes"));
        }
        assert_eq!(durable(&replayed), durable(&self.shard));
    }
}

fn durable(shard: &TxnShard) -> BTreeMap<String, TxnMetadata> {
    shard
        .transactions()
        .map(|(id, txn)| (id.to_owned(), TxnMetadata { last_producer_epoch: -1, ..txn.clone() }))
        .collect()
}

/// A new transactional id gets a fresh producer id at epoch 0; each InitProducerId after that
/// bumps the epoch, fencing the older instance out of the transaction APIs.
#[test]
fn init_producer_id_assigns_then_bumps() {
    let mut h = Harness::new();
    assert_eq!(h.init("tx", None), Ok((FIRST_ID, 0)));
    assert_eq!((h.txn("tx").state, h.txn("tx").timeout_ms), (TxnState::Empty, TIMEOUT_MS));
    assert_eq!(h.init("tx", None), Ok((FIRST_ID, 1)));
    assert_eq!(h.add("tx", (FIRST_ID, 0), &[("t", 0)], 0), ErrorCode::ProducerFenced);
    assert_eq!(h.add("tx", (FIRST_ID, 1), &[("t", 0)], 0), ErrorCode::None);
    assert_eq!(h.init("other", None), Ok((FIRST_ID + 1, 0)));
}

/// Requests InitProducerId refuses before looking at any state.
#[test]
fn init_producer_id_rejects_bad_requests() {
    let mut h = Harness::new();
    assert_eq!(h.init("", None), Err(ErrorCode::InvalidRequest));
    let max = h.shard.config().transaction_max_timeout_ms;
    for timeout in [0, -5, max + 1] {
        let output = h.shard.init_producer_id(T0, &mut h.ids, "tx", timeout, None).expect("as set up");
        assert_eq!(output.response, Err(ErrorCode::InvalidTransactionTimeout), "timeout {timeout}");
        assert!(output.records.is_empty());
    }
    // A new id needs a producer id: with none at hand, the shell is asked for one.
    let mut empty_hand: Option<i64> = None;
    assert!(h.shard.init_producer_id(T0, &mut empty_hand, "tx", TIMEOUT_MS, None).is_err());
    assert!(h.shard.transaction("tx").is_none());
}

/// InitProducerId while a transaction is ongoing aborts it under an epoch bumped once (with
/// transactions V2 too: the abort's bump is the fence, as in Kafka 4.4), answers
/// CONCURRENT_TRANSACTIONS, and once the abort completed the retry bumps again.
#[test]
fn init_producer_id_fences_an_ongoing_transaction() {
    for (transaction_version, aborted_epoch) in [(2, 1), (1, 1)] {
        let mut h = Harness::with_config(TxnConfig { transaction_version, ..TxnConfig::default() });
        let producer = h.init("tx", None).expect("as set up");
        assert_eq!(h.add("tx", producer, &[("t", 0), ("t", 1)], 0), ErrorCode::None);
        assert_eq!(h.init("tx", None), Err(ErrorCode::ConcurrentTransactions));
        let txn = h.txn("tx");
        assert_eq!((txn.state, txn.producer_epoch), (TxnState::PrepareAbort, aborted_epoch), "TV{transaction_version}");
        let markers = h.markers.last().expect("as set up").clone();
        assert_eq!(
            (markers.result, markers.producer_epoch, markers.coordinator_epoch),
            (TxnResult::Abort, aborted_epoch, 3)
        );
        assert_eq!(markers.partitions, vec![TopicPartition::new("t", 0), TopicPartition::new("t", 1)]);
        // The fenced producer can neither add nor end.
        assert_eq!(h.add("tx", producer, &[("t", 2)], 0), ErrorCode::ProducerFenced);
        assert_eq!(h.init("tx", None), Err(ErrorCode::ConcurrentTransactions), "markers still being written");
        h.markers_written("tx");
        assert_eq!(h.txn("tx").state, TxnState::CompleteAbort);
        assert_eq!(h.init("tx", None), Ok((FIRST_ID, aborted_epoch + 1)));
    }
}

/// Transactions V2: a producer's own InitProducerId (KIP-360, naming its id and epoch, as
/// franz-go sends it to recover) while its transaction is ongoing aborts the transaction, and
/// the retry that follows CONCURRENT_TRANSACTIONS, naming the same epoch, is answered the
/// abort's epoch: Kafka 4.4 keeps the fenced epoch as the last one. The producer goes on with it.
#[test]
fn a_v2_producers_own_init_retry_after_its_fence_gets_the_abort_epoch() {
    let mut h = Harness::new();
    let producer = h.init("tx", None).expect("as set up");
    assert_eq!(h.add("tx", producer, &[("t", 0)], 2), ErrorCode::None);
    assert_eq!(h.init("tx", Some(producer)), Err(ErrorCode::ConcurrentTransactions));
    let txn = h.txn("tx");
    assert_eq!((txn.state, txn.producer_epoch, txn.last_producer_epoch), (TxnState::PrepareAbort, 1, 0));
    assert_eq!(h.markers.last().expect("as set up").producer_epoch, 1);
    assert_eq!(h.init("tx", Some(producer)), Err(ErrorCode::ConcurrentTransactions), "markers still being written");
    h.markers_written("tx");
    assert_eq!(h.init("tx", Some(producer)), Ok((FIRST_ID, 1)));
    assert_eq!(h.init("tx", Some(producer)), Ok((FIRST_ID, 1)), "retried again");
    let next = (FIRST_ID, 1);
    assert_eq!(h.add("tx", next, &[("t", 0)], 2), ErrorCode::None);
    assert_eq!(h.end("tx", next, TxnResult::Commit, 2), Ok((FIRST_ID, 2)));
}

/// Transactions V2: fencing an ongoing transaction whose epochs are exhausted moves the id to a
/// new producer id with the abort, and the fenced producer's retry gets it.
#[test]
fn a_v2_fence_at_the_last_epoch_rotates_the_producer_id() {
    let mut h = Harness::new();
    let mut near_end = TxnMetadata::new(FIRST_ID - 1, TIMEOUT_MS, T0);
    near_end.producer_epoch = i16::MAX - 1;
    let seed = TxnRecord::value("tx", 1, near_end);
    h.shard.replay(&seed);
    h.log.push(seed);
    let producer = (FIRST_ID - 1, i16::MAX - 1);
    assert_eq!(h.add("tx", producer, &[("t", 0)], 2), ErrorCode::None);
    assert_eq!(h.init("tx", Some(producer)), Err(ErrorCode::ConcurrentTransactions));
    let txn = h.txn("tx");
    assert_eq!((txn.producer_epoch, txn.next_producer_id), (i16::MAX, FIRST_ID));
    h.markers_written("tx");
    assert_eq!(h.init("tx", Some(producer)), Ok((FIRST_ID, 0)));
}

/// Transactions V2: a transaction the sweep aborts gets one new epoch, and its producer's EndTxn
/// abort under the old epoch is a retry of that abort, answered with the new epoch, as Kafka 4.4
/// answers it; the producer goes on.
#[test]
fn a_v2_producer_goes_on_after_the_sweep_aborted_its_transaction() {
    let mut h = Harness::new();
    let producer = h.init("tx", None).expect("as set up");
    assert_eq!(h.add("tx", producer, &[("t", 0)], 2), ErrorCode::None);
    h.now_ms = T0 + i64::from(TIMEOUT_MS) + 1;
    let output = h.shard.on_timer(h.now_ms);
    h.keep(output);
    let txn = h.txn("tx");
    assert_eq!((txn.state, txn.producer_epoch, txn.last_producer_epoch), (TxnState::PrepareAbort, 1, 0));
    assert_eq!(h.end("tx", producer, TxnResult::Abort, 2), Err(ErrorCode::ConcurrentTransactions));
    h.markers_written("tx");
    assert_eq!(h.end("tx", producer, TxnResult::Commit, 2), Err(ErrorCode::InvalidTxnState));
    assert_eq!(h.end("tx", producer, TxnResult::Abort, 2), Ok((FIRST_ID, 1)));
    let next = (FIRST_ID, 1);
    assert_eq!(h.add("tx", next, &[("t", 0)], 2), ErrorCode::None);
    assert_eq!(h.end("tx", next, TxnResult::Commit, 2), Ok((FIRST_ID, 2)));
}

/// Exhausted epochs move the id to a new producer id at epoch 0, and KIP-360's retry with the
/// old pair gets the same answer again rather than a second rotation.
#[test]
fn exhausted_epochs_rotate_the_producer_id() {
    let mut h = Harness::new();
    let mut near_end = TxnMetadata::new(FIRST_ID - 1, TIMEOUT_MS, T0);
    near_end.producer_epoch = i16::MAX - 2;
    let seed = TxnRecord::value("tx", 1, near_end);
    h.shard.replay(&seed);
    h.log.push(seed);
    assert_eq!(h.init("tx", Some((FIRST_ID - 1, i16::MAX - 2))), Ok((FIRST_ID - 1, i16::MAX - 1)));
    let rotated = h.init("tx", Some((FIRST_ID - 1, i16::MAX - 1)));
    assert_eq!(rotated, Ok((FIRST_ID, 0)));
    assert_eq!(h.txn("tx").previous_producer_id, FIRST_ID - 1);
    assert_eq!(h.init("tx", Some((FIRST_ID - 1, i16::MAX - 1))), Ok((FIRST_ID, 0)), "a retry of the rotation");
    assert_eq!(h.init("tx", Some((FIRST_ID - 1, 5))), Err(ErrorCode::ProducerFenced));
}

/// KIP-360: a producer names the id and epoch it had; a lost answer's retry gets the same epoch,
/// an older instance is fenced, and one without a pair always bumps.
#[test]
fn init_producer_id_with_the_producers_own_pair() {
    let mut h = Harness::new();
    let (id, _) = h.init("tx", None).expect("as set up");
    assert_eq!(h.init("tx", Some((id, 0))), Ok((id, 1)));
    assert_eq!(h.init("tx", Some((id, 0))), Ok((id, 1)), "retry of the bump whose answer was lost");
    assert_eq!(h.init("tx", Some((id + 50, 1))), Err(ErrorCode::ProducerFenced));
    assert_eq!(h.init("tx", None), Ok((id, 2)));
    assert_eq!(h.init("tx", Some((id, 0))), Err(ErrorCode::ProducerFenced), "fenced by the bump without a pair");
}

/// AddPartitionsToTxn's checks, table-driven, on an id with an ongoing transaction of t-0.
#[test]
fn add_partitions_checks_the_producer_and_state() {
    let mut h = Harness::new();
    let (id, epoch) = h.init("tx", None).expect("as set up");
    assert_eq!(h.add("tx", (id, epoch), &[("t", 0)], 0), ErrorCode::None);
    let start = h.txn("tx").start_timestamp_ms;
    let written = h.records_written();
    type Case<'a> = (&'a str, (i64, i16), &'a [(&'a str, i32)], ErrorCode);
    let cases: [Case; 5] = [
        ("unknown", (id, epoch), &[("t", 1)], ErrorCode::InvalidProducerIdMapping),
        ("tx", (id + 1, epoch), &[("t", 1)], ErrorCode::InvalidProducerIdMapping),
        ("tx", (id, epoch + 1), &[("t", 1)], ErrorCode::ProducerFenced),
        ("", (id, epoch), &[("t", 1)], ErrorCode::InvalidRequest),
        ("tx", (id, epoch), &[("t", 0)], ErrorCode::None),
    ];
    for (txn_id, producer, partitions, expected) in cases {
        assert_eq!(h.add(txn_id, producer, partitions, 0), expected, "{txn_id} {producer:?} {partitions:?}");
    }
    assert_eq!(h.records_written(), written, "nothing written: errors, and partitions already in");
    h.now_ms += 10;
    assert_eq!(h.add("tx", (id, epoch), &[("t", 1), ("u", 0)], 0), ErrorCode::None);
    assert_eq!(h.txn("tx").partitions.len(), 3);
    assert_eq!(h.txn("tx").start_timestamp_ms, start, "the transaction started with its first partition");
    assert_eq!(h.end("tx", (id, epoch), TxnResult::Commit, 0), Ok((-1, -1)));
    assert_eq!(h.add("tx", (id, epoch), &[("v", 0)], 0), ErrorCode::ConcurrentTransactions);
}

/// AddOffsetsToTxn adds the group's partition of `__consumer_offsets`, found by Kafka's hash.
#[test]
fn add_offsets_adds_the_groups_offsets_partition() {
    let mut h = Harness::new();
    let (id, epoch) = h.init("tx", None).expect("as set up");
    let output = h.shard.add_offsets(h.now_ms, "tx", id, epoch, "my-group");
    assert_eq!(h.keep(output), ErrorCode::None);
    // "my-group" hashes to partition 12 of 50 (Java's String.hashCode, Utils.abs).
    assert_eq!(h.txn("tx").partitions, BTreeSet::from([TopicPartition::new("__consumer_offsets", 12)]));
}

/// KIP-890 part 1: leaders learn whether a partition is already in the transaction.
#[test]
fn verification_answers_membership_without_writing() {
    let mut h = Harness::new();
    let (id, epoch) = h.init("tx", None).expect("as set up");
    h.add("tx", (id, epoch), &[("t", 0)], 0);
    let asked = [TopicPartition::new("t", 0), TopicPartition::new("t", 1)];
    let check = |h: &Harness, producer: (i64, i16), expected: [ErrorCode; 2]| {
        let answer = h.shard.verify_partitions("tx", producer.0, producer.1, &asked);
        let errors: Vec<ErrorCode> = answer.into_iter().map(|(_, e)| e).collect();
        assert_eq!(errors, expected, "{producer:?}");
    };
    check(&h, (id, epoch), [ErrorCode::None, ErrorCode::TransactionAbortable]);
    check(&h, (id, epoch + 1), [ErrorCode::ProducerFenced; 2]);
    check(&h, (id + 1, epoch), [ErrorCode::InvalidProducerIdMapping; 2]);
    h.end("tx", (id, epoch), TxnResult::Abort, 0).expect("as set up");
    check(&h, (id, epoch), [ErrorCode::ConcurrentTransactions; 2]);
    h.markers_written("tx");
    check(&h, (id, epoch), [ErrorCode::TransactionAbortable; 2]);
}

/// Transactions V1: EndTxn prepares under the same epoch, its markers name every partition, and
/// the settled states answer retries as Kafka's table says.
#[test]
fn end_txn_v1_commit_and_its_retries() {
    let mut h = Harness::new();
    let producer = h.init("tx", None).expect("as set up");
    h.add("tx", producer, &[("t", 1), ("t", 0)], 0);
    assert_eq!(h.end("tx", producer, TxnResult::Commit, 0), Ok((-1, -1)));
    assert_eq!((h.txn("tx").state, h.txn("tx").producer_epoch), (TxnState::PrepareCommit, 0));
    let markers = h.markers.last().expect("as set up");
    assert_eq!((markers.producer_id, markers.producer_epoch, markers.result), (producer.0, 0, TxnResult::Commit));
    assert_eq!(h.end("tx", producer, TxnResult::Commit, 0), Err(ErrorCode::ConcurrentTransactions));
    assert_eq!(h.end("tx", producer, TxnResult::Abort, 0), Err(ErrorCode::InvalidTxnState));
    h.markers_written("tx");
    let txn = h.txn("tx");
    assert_eq!((txn.state, txn.partitions.len()), (TxnState::CompleteCommit, 0));
    assert_eq!(h.end("tx", producer, TxnResult::Commit, 0), Ok((-1, -1)), "a retried commit");
    assert_eq!(h.end("tx", producer, TxnResult::Abort, 0), Err(ErrorCode::InvalidTxnState));
    assert_eq!(h.end("tx", (producer.0, 7), TxnResult::Commit, 0), Err(ErrorCode::ProducerFenced));
    assert_eq!(h.end("unknown", producer, TxnResult::Commit, 0), Err(ErrorCode::InvalidProducerIdMapping));
    // Empty takes no EndTxn under V1.
    let other = h.init("tx2", None).expect("as set up");
    assert_eq!(h.end("tx2", other, TxnResult::Abort, 0), Err(ErrorCode::InvalidTxnState));
}

/// KIP-890 part 2: each EndTxn v5 returns a new epoch; a retry (the old epoch) of an EndTxn that
/// completed is answered with the current epoch and writes nothing, and once the next
/// transaction began, that delayed EndTxn is fenced and cannot end it.
#[test]
fn end_txn_v2_delayed_retry_cannot_end_the_next_transaction() {
    let mut h = Harness::new();
    let (id, epoch) = h.init("tx", None).expect("as set up");
    h.add("tx", (id, epoch), &[("t", 0)], 2);
    assert_eq!(h.end("tx", (id, epoch), TxnResult::Commit, 2), Ok((id, epoch + 1)));
    assert_eq!(h.markers.last().expect("as set up").producer_epoch, epoch + 1, "markers carry the new epoch");
    assert_eq!(h.end("tx", (id, epoch), TxnResult::Commit, 2), Err(ErrorCode::ConcurrentTransactions));
    h.markers_written("tx");
    let written = h.records_written();
    assert_eq!(h.end("tx", (id, epoch), TxnResult::Commit, 2), Ok((id, epoch + 1)), "retry after completion");
    assert_eq!(h.records_written(), written);
    // The next transaction, under the new epoch.
    assert_eq!(h.add("tx", (id, epoch + 1), &[("t", 5)], 2), ErrorCode::None);
    for result in [TxnResult::Commit, TxnResult::Abort] {
        assert_eq!(h.end("tx", (id, epoch), result, 2), Err(ErrorCode::ProducerFenced), "delayed {result}");
    }
    assert_eq!(h.txn("tx").state, TxnState::Ongoing);
    assert_eq!(h.txn("tx").partitions, BTreeSet::from([TopicPartition::new("t", 5)]));
    assert_eq!(h.records_written(), written + 1);
}

/// Kafka's V2 table for the settled states (abort/commit, retry/current epoch).
#[test]
fn end_txn_v2_table_for_settled_states() {
    type Case = (TxnState, TxnResult, bool, Result<bool, ErrorCode>);
    // Ok(true): a new PrepareAbort is written; Ok(false): answered NONE without a write.
    let cases: [Case; 12] = [
        (TxnState::Empty, TxnResult::Abort, true, Err(ErrorCode::ProducerFenced)),
        (TxnState::Empty, TxnResult::Abort, false, Ok(true)),
        (TxnState::Empty, TxnResult::Commit, true, Err(ErrorCode::ProducerFenced)),
        (TxnState::Empty, TxnResult::Commit, false, Err(ErrorCode::InvalidTxnState)),
        (TxnState::CompleteAbort, TxnResult::Abort, true, Ok(false)),
        (TxnState::CompleteAbort, TxnResult::Abort, false, Ok(true)),
        (TxnState::CompleteAbort, TxnResult::Commit, true, Err(ErrorCode::InvalidTxnState)),
        (TxnState::CompleteAbort, TxnResult::Commit, false, Err(ErrorCode::InvalidTxnState)),
        (TxnState::CompleteCommit, TxnResult::Abort, true, Err(ErrorCode::InvalidTxnState)),
        (TxnState::CompleteCommit, TxnResult::Abort, false, Ok(true)),
        (TxnState::CompleteCommit, TxnResult::Commit, true, Ok(false)),
        (TxnState::CompleteCommit, TxnResult::Commit, false, Err(ErrorCode::InvalidTxnState)),
    ];
    for (state, result, retry, expected) in cases {
        let mut h = Harness::new();
        let mut txn = TxnMetadata::new(FIRST_ID, TIMEOUT_MS, T0);
        txn.producer_epoch = 5;
        txn.state = state;
        txn.client_transaction_version = 2;
        let seed = TxnRecord::value("tx", 1, txn);
        h.shard.replay(&seed);
        h.log.push(seed);
        let epoch = if retry { 4 } else { 5 };
        let written = h.records_written();
        let answer = h.end("tx", (FIRST_ID, epoch), result, 2);
        let outcome = answer.map(|_| h.records_written() > written);
        assert_eq!(outcome, expected, "{state} {result} retry={retry}");
        if expected == Ok(true) {
            let txn = h.txn("tx");
            assert_eq!((txn.state, txn.producer_epoch), (TxnState::PrepareAbort, 6));
            assert_eq!(h.markers.last().expect("as set up").partitions, Vec::<TopicPartition>::new());
        }
    }
}

/// A V2 transaction ending at the last epoch moves the producer to a new id at epoch 0, returned
/// by EndTxn; a retry across the move is recognised.
#[test]
fn end_txn_v2_overflow_rotates_and_recognises_the_retry() {
    let mut h = Harness::new();
    let mut txn = TxnMetadata::new(FIRST_ID - 1, TIMEOUT_MS, T0);
    txn.producer_epoch = i16::MAX - 1;
    let seed = TxnRecord::value("tx", 1, txn);
    h.shard.replay(&seed);
    h.log.push(seed);
    let old = (FIRST_ID - 1, i16::MAX - 1);
    h.add("tx", old, &[("t", 0)], 2);
    assert_eq!(h.end("tx", old, TxnResult::Commit, 2), Ok((FIRST_ID, 0)));
    let prepared = h.txn("tx");
    assert_eq!(
        (prepared.producer_id, prepared.producer_epoch, prepared.next_producer_id),
        (FIRST_ID - 1, i16::MAX, FIRST_ID)
    );
    h.markers_written("tx");
    let done = h.txn("tx");
    assert_eq!((done.producer_id, done.producer_epoch, done.previous_producer_id), (FIRST_ID, 0, FIRST_ID - 1));
    assert_eq!(h.end("tx", old, TxnResult::Commit, 2), Ok((FIRST_ID, 0)), "retry with the old id");
    assert_eq!(h.add("tx", (FIRST_ID, 0), &[("t", 0)], 2), ErrorCode::None);
}

/// Transactions older than their timeout are aborted at the next sweep, under a fenced epoch;
/// younger ones and settled ones are left alone.
#[test]
fn timed_out_transactions_are_aborted_by_the_sweep() {
    let mut h = Harness::new();
    let old = h.init("old", None).expect("as set up");
    h.add("old", old, &[("t", 0)], 0);
    h.now_ms += i64::from(TIMEOUT_MS) - 5_000;
    let young = h.init("young", None).expect("as set up");
    h.add("young", young, &[("t", 1)], 0);
    let idle = h.init("idle", None).expect("as set up");
    let interval = h.shard.config().abort_timed_out_transactions_interval_ms;
    assert_eq!(h.shard.next_deadline(), Some(T0 + interval));
    h.now_ms = T0 + i64::from(TIMEOUT_MS) + 1;
    let output = h.shard.on_timer(h.now_ms);
    h.keep(output);
    assert_eq!((h.txn("old").state, h.txn("old").producer_epoch), (TxnState::PrepareAbort, old.1 + 1));
    assert_eq!(h.markers.last().expect("as set up").transactional_id, "old");
    assert_eq!(h.txn("young").state, TxnState::Ongoing);
    assert_eq!(h.txn("idle").producer_epoch, idle.1);
    assert_eq!(h.end("old", old, TxnResult::Commit, 0), Err(ErrorCode::ProducerFenced));
    assert_eq!(h.shard.next_deadline(), Some(h.now_ms + interval));
}

/// Ids idle in a settled state for `transactional.id.expiration.ms` are tombstoned; ongoing ones
/// stay.
#[test]
fn idle_transactional_ids_expire() {
    let config = TxnConfig { transactional_id_expiration_ms: 1_000_000, ..TxnConfig::default() };
    let mut h = Harness::with_config(config);
    h.init("idle", None).expect("as set up");
    let busy = h.init("busy", None).expect("as set up");
    h.add("busy", busy, &[("t", 0)], 0);
    h.now_ms = T0 + h.shard.config().remove_expired_transactional_ids_interval_ms;
    let output = h.shard.on_timer(h.now_ms);
    assert!(output.records.contains(&TxnRecord::tombstone("idle")));
    h.keep(output);
    assert!(h.shard.transaction("idle").is_none());
    assert!(h.shard.transaction("busy").is_some(), "an ongoing transaction's id never expires");
    // The id starts afresh.
    assert_eq!(h.init("idle", None), Ok((FIRST_ID + 2, 0)));
}

/// DescribeTransactions shows state, producer, timeout, start and partitions by topic; unknown
/// ids are TRANSACTIONAL_ID_NOT_FOUND.
#[test]
fn describe_transaction() {
    let mut h = Harness::new();
    let producer = h.init("tx", None).expect("as set up");
    h.now_ms += 7;
    h.add("tx", producer, &[("b", 0), ("a", 2), ("a", 1)], 0);
    let described = h.shard.describe_transaction("tx");
    assert_eq!(described.error_code, 0);
    assert_eq!(described.transaction_state, "Ongoing");
    assert_eq!((described.producer_id.0, described.producer_epoch), producer);
    assert_eq!((described.transaction_timeout_ms, described.transaction_start_time_ms), (TIMEOUT_MS, T0 + 7));
    let topics: Vec<(String, Vec<i32>)> = described.topics.into_iter().map(|t| (t.topic, t.partitions)).collect();
    assert_eq!(topics, vec![("a".to_owned(), vec![1, 2]), ("b".to_owned(), vec![0])]);
    assert_eq!(h.shard.describe_transaction("nope").error_code, ErrorCode::TransactionalIdNotFound.code());
    assert_eq!(h.shard.describe_transaction("").error_code, ErrorCode::InvalidRequest.code());
}

/// ListTransactions' filters: states, producer ids, KIP-994's duration, an id pattern.
#[test]
fn list_transactions_filters() {
    let mut h = Harness::new();
    let a = h.init("a", None).expect("as set up");
    h.add("a", a, &[("t", 0)], 0);
    h.now_ms += 10_000;
    let b = h.init("b", None).expect("as set up");
    h.add("b", b, &[("t", 1)], 0);
    h.init("c", None).expect("as set up");
    let listed = |filter: ListFilter| -> Vec<String> {
        h.shard.list_transactions(T0 + 15_000, &filter).into_iter().map(|t| t.transactional_id).collect()
    };
    assert_eq!(listed(ListFilter { duration_ms: -1, ..ListFilter::default() }), ["a", "b", "c"]);
    assert_eq!(
        listed(ListFilter { states: vec![TxnState::Ongoing], duration_ms: -1, ..ListFilter::default() }),
        ["a", "b"]
    );
    assert_eq!(listed(ListFilter { producer_ids: vec![b.0], duration_ms: -1, ..ListFilter::default() }), ["b"]);
    let long_running = ListFilter { states: vec![TxnState::Ongoing], duration_ms: 10_000, ..ListFilter::default() };
    assert_eq!(listed(long_running), ["a"]);
    let pattern = regex::Regex::new("^(?:[ab])$").expect("as set up");
    assert_eq!(
        listed(ListFilter { transactional_id_pattern: Some(pattern), duration_ms: -1, ..ListFilter::default() }),
        ["a", "b"]
    );
}
