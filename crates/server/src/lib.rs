//! The process shell: configuration, listeners, connections, lifecycle.
//!
//! (Being filled in: `config`, `node`.)

pub mod config;
pub mod connection;
pub mod node;
