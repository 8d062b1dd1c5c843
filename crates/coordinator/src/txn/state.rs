//! [`TxnState`]: the lifecycle of a transactional id, as Kafka's `TransactionState` defines it:
//! each state's id (the `TransactionStatus` byte of `TransactionLogValue`), its name (what
//! DescribeTransactions and ListTransactions show) and the states it may be entered from.
//!
//! The moves (each target lists its legal sources in [`TxnState::valid_previous_states`]):
//! - InitProducerId: Empty/CompleteCommit/CompleteAbort -> Empty (epoch bumped); on Ongoing,
//!   Ongoing -> PrepareEpochFence -> PrepareAbort (the transaction is aborted first; under
//!   transactions V2 Ongoing -> PrepareAbort, the abort's epoch bump being the fence);
//! - AddPartitionsToTxn, AddOffsetsToTxn: Empty/Ongoing/Complete* -> Ongoing;
//! - EndTxn: Ongoing -> PrepareCommit or PrepareAbort; under transactions V2 also
//!   Empty/Complete* -> PrepareAbort (an abort with no partitions);
//! - markers written: PrepareCommit -> CompleteCommit, PrepareAbort -> CompleteAbort;
//! - a timeout: as InitProducerId on Ongoing;
//! - `transactional.id.expiration.ms`: Empty/Complete* -> Dead.
//!
//! Strand never writes `PrepareEpochFence` or `Dead`, as Kafka never does: fencing an ongoing
//! transaction writes its `PrepareAbort` with the bumped epoch, and expiring an id writes a
//! tombstone. Both states exist so that every record Kafka could have written is read, and so
//! that the transition table is Kafka's whole table.

use std::fmt;

/// The state of one transactional id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TxnState {
    /// No transaction open: after InitProducerId.
    Empty,
    /// Partitions (or a group's offsets) were added; records may be written.
    Ongoing,
    /// The commit is decided and durable; markers are being written.
    PrepareCommit,
    /// The abort is decided and durable; markers are being written.
    PrepareAbort,
    /// Every partition has its commit marker.
    CompleteCommit,
    /// Every partition has its abort marker.
    CompleteAbort,
    /// The id expired and is being removed.
    Dead,
    /// An ongoing transaction is being fenced: its epoch bumped before it is aborted.
    PrepareEpochFence,
}

impl TxnState {
    /// Every state, in id order.
    pub const ALL: [TxnState; 8] = [
        TxnState::Empty,
        TxnState::Ongoing,
        TxnState::PrepareCommit,
        TxnState::PrepareAbort,
        TxnState::CompleteCommit,
        TxnState::CompleteAbort,
        TxnState::Dead,
        TxnState::PrepareEpochFence,
    ];

    /// The `TransactionStatus` byte written to the log.
    pub fn id(self) -> i8 {
        match self {
            TxnState::Empty => 0,
            TxnState::Ongoing => 1,
            TxnState::PrepareCommit => 2,
            TxnState::PrepareAbort => 3,
            TxnState::CompleteCommit => 4,
            TxnState::CompleteAbort => 5,
            TxnState::Dead => 6,
            TxnState::PrepareEpochFence => 7,
        }
    }

    /// The state with the log's `TransactionStatus` byte `id`.
    pub fn from_id(id: i8) -> Option<TxnState> {
        TxnState::ALL.into_iter().find(|s| s.id() == id)
    }

    /// The name DescribeTransactions and ListTransactions use.
    pub fn name(self) -> &'static str {
        match self {
            TxnState::Empty => "Empty",
            TxnState::Ongoing => "Ongoing",
            TxnState::PrepareCommit => "PrepareCommit",
            TxnState::PrepareAbort => "PrepareAbort",
            TxnState::CompleteCommit => "CompleteCommit",
            TxnState::CompleteAbort => "CompleteAbort",
            TxnState::Dead => "Dead",
            TxnState::PrepareEpochFence => "PrepareEpochFence",
        }
    }

    /// The state named `name` (ListTransactions' state filter).
    pub fn from_name(name: &str) -> Option<TxnState> {
        TxnState::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The states this one may be entered from (Kafka's `validPreviousStates`). Under
    /// transactions V2, PrepareAbort may also follow Empty and the Complete states: a client
    /// unsure of the coordinator's state aborts anyway.
    pub fn valid_previous_states(self) -> &'static [TxnState] {
        use TxnState::*;
        match self {
            Empty => &[Empty, CompleteCommit, CompleteAbort],
            Ongoing => &[Ongoing, Empty, CompleteCommit, CompleteAbort],
            PrepareCommit => &[Ongoing],
            PrepareAbort => &[Ongoing, PrepareEpochFence, Empty, CompleteCommit, CompleteAbort],
            CompleteCommit => &[PrepareCommit],
            CompleteAbort => &[PrepareAbort],
            Dead => &[Empty, CompleteAbort, CompleteCommit],
            PrepareEpochFence => &[Ongoing],
        }
    }

    /// Whether a transactional id in `from` may move to `self`.
    pub fn can_follow(self, from: TxnState) -> bool {
        self.valid_previous_states().contains(&from)
    }

    /// Whether an id left in this state may expire after `transactional.id.expiration.ms`.
    pub fn is_expiration_allowed(self) -> bool {
        matches!(self, TxnState::Empty | TxnState::CompleteCommit | TxnState::CompleteAbort)
    }

    /// Whether markers are being written: the coordinator must finish the transaction.
    pub fn is_prepare(self) -> bool {
        matches!(self, TxnState::PrepareCommit | TxnState::PrepareAbort)
    }
}

impl fmt::Display for TxnState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::TxnState::{self, *};

    /// Every (from, to) pair against Kafka's table, written out as the legal pairs.
    #[test]
    fn every_transition_is_legal_exactly_when_kafka_allows_it() {
        let legal: &[(TxnState, TxnState)] = &[
            (Empty, Empty),
            (CompleteCommit, Empty),
            (CompleteAbort, Empty),
            (Ongoing, Ongoing),
            (Empty, Ongoing),
            (CompleteCommit, Ongoing),
            (CompleteAbort, Ongoing),
            (Ongoing, PrepareCommit),
            (Ongoing, PrepareAbort),
            (PrepareEpochFence, PrepareAbort),
            (Empty, PrepareAbort),
            (CompleteCommit, PrepareAbort),
            (CompleteAbort, PrepareAbort),
            (PrepareCommit, CompleteCommit),
            (PrepareAbort, CompleteAbort),
            (Empty, Dead),
            (CompleteAbort, Dead),
            (CompleteCommit, Dead),
            (Ongoing, PrepareEpochFence),
        ];
        let mut checked = 0;
        for from in TxnState::ALL {
            for to in TxnState::ALL {
                let expected = legal.contains(&(from, to));
                assert_eq!(to.can_follow(from), expected, "{from} -> {to}");
                checked += 1;
            }
        }
        assert_eq!(checked, 64);
    }

    /// Ids and names are Kafka's, and each maps back to its state.
    #[test]
    fn ids_and_names_round_trip() {
        let expected = [
            "Empty",
            "Ongoing",
            "PrepareCommit",
            "PrepareAbort",
            "CompleteCommit",
            "CompleteAbort",
            "Dead",
            "PrepareEpochFence",
        ];
        for (i, state) in TxnState::ALL.into_iter().enumerate() {
            assert_eq!(i64::from(state.id()), i as i64);
            assert_eq!(state.name(), expected[i]);
            assert_eq!(TxnState::from_id(state.id()), Some(state));
            assert_eq!(TxnState::from_name(state.name()), Some(state));
        }
        assert_eq!(TxnState::from_id(8), None);
        assert_eq!(TxnState::from_name("ongoing"), None);
    }

    /// Only settled states expire.
    #[test]
    fn expiration_is_allowed_in_settled_states_only() {
        let expirable: Vec<TxnState> = TxnState::ALL.into_iter().filter(|s| s.is_expiration_allowed()).collect();
        assert_eq!(expirable, vec![Empty, CompleteCommit, CompleteAbort]);
    }
}
