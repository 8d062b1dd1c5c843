//! CreateTopics: the controller's decision (validation, placement, records), committed through
//! the quorum; the response once this node's metadata includes the new topics.

use strand_base::Uuid;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{CreateTopicsRequest, CreateTopicsResponse};

use crate::Broker;

pub async fn handle(broker: &Broker, request: CreateTopicsRequest) -> CreateTopicsResponse {
    let (mut response, failure) = create(broker, &request).await;
    if let Some(reason) = failure {
        tracing::warn!("CreateTopics could not commit its records: {reason}");
        for topic in &mut response.topics {
            if topic.error_code == 0 {
                topic.error_code = ErrorCode::RequestTimedOut.code();
                topic.error_message = Some(reason.clone());
            }
        }
    }
    response
}

/// Runs the controller's CreateTopics decision and commits its records (also for topics the
/// broker creates itself: auto-creation, `__consumer_offsets`). The decision's response and, if
/// the commit failed, why; once it returns without a failure the image holds the new topics.
pub(crate) async fn create(broker: &Broker, request: &CreateTopicsRequest) -> (CreateTopicsResponse, Option<String>) {
    let defaults = &broker.settings.controller_defaults;
    broker
        .decide(|image| strand_metadata::controller::create_topics(image, request, defaults, &mut random_topic_id))
        .await
}

/// A fresh topic id. Kafka draws a random UUID (never the all-zero id or the reserved ones);
/// here from the OS's random source, the one randomness the broker needs.
pub fn random_topic_id() -> Uuid {
    loop {
        let mut id = [0u8; 16];
        if getrandom(&mut id).is_err() {
            // No OS randomness: a process id and counter, still unique on this node.
            static FALLBACK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
            let n = FALLBACK.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            id[..8].copy_from_slice(&u64::from(std::process::id()).to_be_bytes());
            id[8..].copy_from_slice(&n.to_be_bytes());
        }
        // RFC 4122 version 4 bits, as Java's UUID.randomUUID sets them.
        id[6] = (id[6] & 0x0f) | 0x40;
        id[8] = (id[8] & 0x3f) | 0x80;
        let uuid = Uuid(id);
        if uuid != Uuid::ZERO {
            return uuid;
        }
    }
}

fn getrandom(buf: &mut [u8]) -> std::io::Result<()> {
    use std::io::Read;
    std::fs::File::open("/dev/urandom")?.read_exact(buf)
}
