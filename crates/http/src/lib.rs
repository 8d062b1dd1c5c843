//! The node's HTTP surface (design §10): the `http.listeners` a node serves beside its Kafka
//! listeners, on the node's own tokio runtime. Today it serves `GET /metrics`, the REST
//! gateway's Confluent v3 routes ([`gateway`]) and the web console at `/` ([`console`]); the v2
//! consumer API and WebSockets are later slices. Every request is authenticated as the Kafka
//! listeners authenticate their clients ([`auth`]); an `https://` listener runs the caller's TLS
//! handshake ([`HttpTls`], the node's Kafka listener TLS) before HTTP.
//!
//! Map:
//! - [`MetricsRegistry`] (`registry.rs`): the process's `metrics` recorder (the Prometheus
//!   exporter, installed once, before any handle is taken), its histogram buckets, its upkeep, and
//!   [`KAFKA_METRICS`], every series Strand records with the Kafka MBean it stands for, named as
//!   the Prometheus JMX exporter's standard Kafka rules (`kafka-2_0_0.yml`) name that MBean.
//! - `process.rs`: the process's own series (RSS, CPU seconds, open files), read from `/proc`
//!   at each scrape, named as Prometheus clients name them.
//! - [`HttpListener`], [`serve_forever`] (`serve.rs`): binding, TLS and the accept loop, with at most
//!   [`HTTP_CONNECTIONS_MAX`] connections and [`HTTP_HEADER_READ_MAX`] to send a request's head.
//!
//! What it is not: it never reads the node's state itself. The series that are a view of that
//! state (under-replicated partitions, the active controller) are set by the caller's
//! [`Scrape::before_scrape`] hook, run at each scrape; counters are set where things happen, in
//! the crates below, through the `metrics` facade (lock-free atomics once a handle is held).

pub mod auth;
pub mod console;
pub mod gateway;
mod process;
mod registry;
mod serve;

pub use registry::{KAFKA_METRICS, MetricsRegistry, REQUEST_TIME_MS_BUCKETS, UPKEEP_INTERVAL};
pub use serve::{
    HTTP_CONNECTIONS_MAX, HTTP_HEADER_READ_MAX, HttpIo, HttpListener, HttpTls, Scrape, Secure, serve_forever,
};
