//! The process shell: configuration, listeners, connections, lifecycle.
//!
//! (Being filled in: `config`, `node`.)

pub mod config;
pub mod connection;
pub mod group_writer;
pub mod inter_node;
pub mod log_dirs;
pub mod metadata_replay;
pub mod node;
pub mod publisher;
mod registration;
mod shutdown;
mod tasks;
