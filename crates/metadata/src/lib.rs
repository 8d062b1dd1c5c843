//! Cluster metadata: the records of `__cluster_metadata`, the immutable [`image::MetadataImage`]
//! they build, the controller's decisions as pure functions, and the Raft quorum that commits them.
//!
//! (Being filled in: `image`, `controller`, `quorum`.)

pub mod controller;
pub mod image;
pub mod quorum;
pub mod quorum_controller;
