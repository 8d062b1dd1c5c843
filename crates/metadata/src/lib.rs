//! Cluster metadata: the records of `__cluster_metadata`, the immutable [`image::MetadataImage`]
//! they build, the controller's decisions as pure functions, and the Raft quorum that commits them.
//!
//! (Being filled in: `image`, `controller`, `quorum`.) With feature `testkit` (tests only),
//! [`testkit`]: broker registrations and committed batches as tests build them.

pub mod controller;
pub mod image;
pub mod quorum;
pub mod quorum_controller;
#[cfg(feature = "testkit")]
pub mod testkit;
