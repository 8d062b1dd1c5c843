//! A segment's indexes, in Kafka's on-disk layouts.

pub mod offset_index;
pub mod time_index;
pub mod txn_index;

pub use offset_index::{OffsetIndex, OffsetPosition};
pub use time_index::{TimeIndex, TimestampOffset};
pub use txn_index::{AbortedTxn, TxnIndex};
