//! Quotas around one request, as Kafka's `KafkaApis` applies them, called by dispatch before and
//! after the handler ([`Broker::quota_start`], [`Broker::quota_finish`]):
//!
//! - **Produce** (`producer_byte_rate`): the request's size is recorded when it arrives (Kafka
//!   records it when the acks are in, a moment later), so an acks=all Produce knows its
//!   throttle before its wait.
//! - **Fetch from a consumer** (`consumer_byte_rate`): its `max_bytes` is capped at what the
//!   quota's whole window allows; the encoded response's size is recorded; a throttled consumer
//!   gets its response with no partitions (and the record is taken back), as Kafka's
//!   `getThrottledResponse`. A follower's Fetch is never measured.
//! - **Request time** (`request_percentage`, KIP-124): the handler's time in percent of a second,
//!   the throttle capped at one window, for every API but ApiVersions, SASL, a follower's Fetch
//!   and WriteTxnMarkers (Kafka's exempt ones) and a consumer's Fetch, whose handler time is
//!   mostly its long poll (Kafka counts only its thread time, which Strand does not separate).
//! - **Controller mutations** (KIP-599) are the CreateTopics, CreatePartitions and DeleteTopics
//!   handlers' ([`super::ClientQuotas::mutation_quota`]); they write their throttle into their
//!   response, which this reads back.
//!
//! The largest throttle is written into the response's `throttle_time_ms` (KIP-219) and the
//! outcome tells the connection to read nothing more from the client for that long
//! ([`Outcome::Throttled`]).

use std::time::Duration;

use strand_protocol::frame::encode_response_frame;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_security::Session;

use super::{QuotaKind, set_throttle_time_ms, throttle_time_ms};
use crate::{Broker, Outcome};

/// How a request is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Measured {
    /// Exempt from client quotas.
    Exempt,
    /// Its handling time, against `request_percentage`.
    RequestTime,
    /// A consumer's Fetch: its response's bytes, against `consumer_byte_rate`.
    ConsumerFetch,
}

/// What a request's quotas decided before its handler ran, for [`Broker::quota_finish`].
#[derive(Debug, Clone)]
pub(crate) struct QuotaCharge {
    user: String,
    client_id: String,
    measured: Measured,
    started_ns: u64,
    /// The throttle decided so far (Produce's bytes, request time), in ms.
    pub(crate) throttle_ms: i64,
}

impl Broker {
    /// Measures what is known before the handler runs: a Produce's bytes, and caps a consumer's
    /// fetch size by its quota window.
    pub(crate) fn quota_start(
        &self,
        body: &mut RequestBody,
        version: i16,
        frame_bytes: usize,
        session: &Session,
        client_id: Option<&str>,
    ) -> QuotaCharge {
        let user = session.principal.name.clone();
        let client_id = client_id.unwrap_or_default().to_owned();
        let image = self.image();
        let quotas = image.client_quotas();
        let now_ms = self.clock.now_ms();
        let mut throttle_ms = 0;
        let measured = match body {
            RequestBody::ApiVersions(_)
            | RequestBody::SaslHandshake(_)
            | RequestBody::SaslAuthenticate(_)
            | RequestBody::WriteTxnMarkers(_) => Measured::Exempt,
            RequestBody::Fetch(r) if strand_replication::fetch_replica(r, version).0.0 >= 0 => Measured::Exempt,
            RequestBody::Fetch(r) => {
                let window = self.quotas.window_quota(quotas, QuotaKind::Fetch, &user, &client_id);
                if let Some(window) = window {
                    r.max_bytes = r.max_bytes.min(window.clamp(1.0, f64::from(i32::MAX)) as i32);
                }
                Measured::ConsumerFetch
            }
            RequestBody::Produce(_) => {
                let bytes = frame_bytes as f64;
                throttle_ms = self.quotas.record(quotas, QuotaKind::Produce, &user, &client_id, bytes, now_ms);
                Measured::RequestTime
            }
            _ => Measured::RequestTime,
        };
        QuotaCharge { user, client_id, measured, started_ns: self.clock.monotonic_ns(), throttle_ms }
    }

    /// Records the handler's time (once it answered, or began waiting for replicas).
    pub(crate) fn quota_handled(&self, charge: &mut QuotaCharge) {
        if charge.measured != Measured::RequestTime {
            return;
        }
        let image = self.image();
        let elapsed_ns = self.clock.monotonic_ns().saturating_sub(charge.started_ns);
        // Percent of one second: 100 per 1e9 ns.
        let percent = elapsed_ns as f64 * 1e-7;
        let (kind, now_ms) = (QuotaKind::Request, self.clock.now_ms());
        let throttle =
            self.quotas.record(image.client_quotas(), kind, &charge.user, &charge.client_id, percent, now_ms);
        // Kafka's ClientRequestQuotaManager throttles for one window at most.
        charge.throttle_ms = charge.throttle_ms.max(throttle.min(self.settings.quota_window.sample_ms));
    }

    /// The outcome of a handled request: its response with the throttle written into it (a
    /// consumer's Fetch measured first), or nothing for acks=0.
    pub(crate) fn quota_finish(
        &self,
        charge: &QuotaCharge,
        body: Option<ResponseBody>,
        correlation_id: i32,
        version: i16,
    ) -> Outcome {
        let mut throttle_ms = charge.throttle_ms;
        let Some(mut body) = body else {
            return match throttle_ms {
                0 => Outcome::NoResponse,
                ms => Outcome::Throttled(None, mute(ms)),
            };
        };
        if charge.measured == Measured::ConsumerFetch {
            throttle_ms = throttle_ms.max(self.charge_fetch(charge, &mut body, correlation_id, version, throttle_ms));
        }
        throttle_ms = throttle_ms.max(i64::from(throttle_time_ms(&body)));
        if throttle_ms > 0 {
            set_throttle_time_ms(&mut body, i32::try_from(throttle_ms).unwrap_or(i32::MAX));
        }
        match encode_response_frame(correlation_id, &body, version) {
            Ok(frame) if throttle_ms > 0 => Outcome::Throttled(Some(frame), mute(throttle_ms)),
            Ok(frame) => Outcome::Respond(frame),
            Err(e) => Outcome::Close(format!("could not encode the response: {e}")),
        }
    }

    /// Records a consumer's fetched bytes; when it (or `throttle_ms` already) throttles, takes
    /// the record back and empties the response. Its own throttle.
    fn charge_fetch(
        &self,
        charge: &QuotaCharge,
        body: &mut ResponseBody,
        correlation_id: i32,
        version: i16,
        throttle_ms: i64,
    ) -> i64 {
        let image = self.image();
        let quotas = image.client_quotas();
        if super::quota_for(quotas, QuotaKind::Fetch, &charge.user, &charge.client_id).is_none() {
            return 0;
        }
        let Ok(frame) = encode_response_frame(correlation_id, body, version) else { return 0 };
        let (bytes, now_ms) = (frame.len() as f64, self.clock.now_ms());
        let (user, client) = (&charge.user, &charge.client_id);
        let throttle = self.quotas.record(quotas, QuotaKind::Fetch, user, client, bytes, now_ms);
        if throttle > 0 || throttle_ms > 0 {
            self.quotas.unrecord(quotas, QuotaKind::Fetch, user, client, bytes, now_ms);
            if let ResponseBody::Fetch(fetch) = body {
                fetch.responses.clear();
            }
        }
        throttle
    }
}

fn mute(ms: i64) -> Duration {
    Duration::from_millis(u64::try_from(ms).unwrap_or(0))
}
