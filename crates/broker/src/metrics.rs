//! The broker's series, recorded through the `metrics` facade under Kafka's names
//! (`strand_base::metric_names`): clients' traffic by topic (Kafka's `BrokerTopicMetrics`) and
//! requests by API (Kafka's `RequestMetrics`).
//!
//! Every handle is taken once (the first time its topic, API or version is seen) and kept:
//! recording is then an atomic add, without a registry lookup. Per-topic series are bounded by
//! `metrics_topics_max` (`BrokerSettings`): past it, a new topic counts only in the all-topics
//! series, so a node with many topics keeps a bounded scrape.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use metrics::{Counter, Histogram, counter, histogram};
use strand_base::metric_names::{BYTES_IN, BYTES_OUT, MESSAGES_IN, REQUEST_TOTAL_TIME_MS, REQUESTS};
use strand_protocol::messages::api::ApiKey;

/// The broker's series.
#[derive(Debug)]
pub(crate) struct BrokerMetrics {
    pub topics: BrokerTopicMetrics,
    pub requests: RequestMetrics,
}

impl BrokerMetrics {
    pub fn new(topics_max: usize) -> BrokerMetrics {
        BrokerMetrics { topics: BrokerTopicMetrics::new(topics_max), requests: RequestMetrics::new() }
    }
}

/// One topic's (or all topics') traffic counters.
#[derive(Debug)]
struct TopicCounters {
    messages_in: Counter,
    bytes_in: Counter,
    bytes_out: Counter,
}

impl TopicCounters {
    fn new(labels: &[(&'static str, String)]) -> TopicCounters {
        TopicCounters {
            messages_in: counter!(MESSAGES_IN, labels),
            bytes_in: counter!(BYTES_IN, labels),
            bytes_out: counter!(BYTES_OUT, labels),
        }
    }
}

/// Kafka's `BrokerTopicStats`: clients' records and bytes in, and bytes out, over all topics and
/// by topic (for at most `topics_max` topics).
#[derive(Debug)]
pub(crate) struct BrokerTopicMetrics {
    all: TopicCounters,
    /// Read-locked once per partition of a request to find its topic's counters; written only
    /// the first time a topic is seen.
    topics: RwLock<HashMap<String, Arc<TopicCounters>>>,
    topics_max: usize,
}

impl BrokerTopicMetrics {
    fn new(topics_max: usize) -> BrokerTopicMetrics {
        BrokerTopicMetrics { all: TopicCounters::new(&[]), topics: RwLock::new(HashMap::new()), topics_max }
    }

    /// A client's records appended to a partition of `topic`: `messages` records in `bytes` of
    /// record set, as the request carried it (Kafka's `bytesInRate`, `messagesInRate`).
    pub fn record_in(&self, topic: &str, messages: u64, bytes: u64) {
        self.all.messages_in.increment(messages);
        self.all.bytes_in.increment(bytes);
        if let Some(counters) = self.topic(topic) {
            counters.messages_in.increment(messages);
            counters.bytes_in.increment(bytes);
        }
    }

    /// Record bytes of `topic` sent in a consumer's Fetch response (Kafka's `bytesOutRate`).
    pub fn record_out(&self, topic: &str, bytes: u64) {
        self.all.bytes_out.increment(bytes);
        if let Some(counters) = self.topic(topic) {
            counters.bytes_out.increment(bytes);
        }
    }

    /// `topic`'s counters, made on first sight while fewer than `topics_max` topics have some.
    fn topic(&self, topic: &str) -> Option<Arc<TopicCounters>> {
        // A poisoned lock only means a panic elsewhere mid-insert: the map is still whole.
        if let Some(found) = self.topics.read().unwrap_or_else(|e| e.into_inner()).get(topic) {
            return Some(found.clone());
        }
        let mut topics = self.topics.write().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = topics.get(topic) {
            return Some(found.clone());
        }
        if topics.len() >= self.topics_max {
            return None;
        }
        let counters = Arc::new(TopicCounters::new(&[("topic", topic.to_owned())]));
        topics.insert(topic.to_owned(), counters.clone());
        Some(counters)
    }
}

/// Kafka's `RequestMetrics`: requests by API and version, and each API's total time. A series
/// appears once its API (and version) is first answered, as Kafka registers them on first use.
#[derive(Debug)]
pub(crate) struct RequestMetrics {
    /// By API key; `None` for an API this node does not serve.
    by_api: Vec<Option<ApiRequestMetrics>>,
}

#[derive(Debug)]
struct ApiRequestMetrics {
    name: &'static str,
    /// By version, from 0 to the highest served.
    requests: Vec<OnceLock<Counter>>,
    total_time_ms: OnceLock<Histogram>,
}

impl RequestMetrics {
    fn new() -> RequestMetrics {
        let mut by_api: Vec<Option<ApiRequestMetrics>> = Vec::new();
        for &api in crate::handlers::SERVED {
            let Ok(index) = usize::try_from(api as i16) else { continue };
            if by_api.len() <= index {
                by_api.resize_with(index + 1, || None);
            }
            let versions = usize::try_from(api.versions().max).map_or(0, |max| max + 1);
            let requests = (0..versions).map(|_| OnceLock::new()).collect();
            by_api[index] = Some(ApiRequestMetrics { name: api.name(), requests, total_time_ms: OnceLock::new() });
        }
        RequestMetrics { by_api }
    }

    /// A request of `api` at `version` answered `elapsed_ns` after its frame reached the broker.
    pub fn record(&self, api: ApiKey, version: i16, elapsed_ns: u64) {
        let found = usize::try_from(api as i16).ok().and_then(|index| self.by_api.get(index)?.as_ref());
        let Some(metrics) = found else { return };
        let name = metrics.name;
        if let Some(slot) = usize::try_from(version).ok().and_then(|v| metrics.requests.get(v)) {
            slot.get_or_init(|| counter!(REQUESTS, "request" => name, "version" => version.to_string())).increment(1);
        }
        let total_time_ms = metrics.total_time_ms.get_or_init(|| histogram!(REQUEST_TOTAL_TIME_MS, "request" => name));
        total_time_ms.record(elapsed_ns as f64 / 1_000_000.0);
    }
}

#[cfg(test)]
mod tests {
    use metrics_exporter_prometheus::PrometheusBuilder;
    use strand_protocol::messages::api::ApiKey;

    use super::BrokerMetrics;

    /// The lines of `name` in `text`.
    fn lines<'a>(text: &'a str, name: &'a str) -> Vec<&'a str> {
        text.lines().filter(|l| l.strip_prefix(name).is_some_and(|rest| rest.starts_with(['{', ' ']))).collect()
    }

    /// Traffic counts over all topics and by topic, but only the first `topics_max` topics get
    /// series of their own; requests count by API and version, their times by API; an API the
    /// node does not serve records nothing.
    #[test]
    fn series_are_counted_and_topics_bounded() {
        let recorder = PrometheusBuilder::new().build_recorder();
        let handle = recorder.handle();
        metrics::with_local_recorder(&recorder, || {
            let metrics = BrokerMetrics::new(2);
            metrics.topics.record_in("a", 3, 100);
            metrics.topics.record_in("b", 1, 10);
            metrics.topics.record_in("c", 2, 50);
            metrics.topics.record_in("a", 1, 7);
            metrics.topics.record_out("c", 5);
            metrics.topics.record_out("a", 40);
            metrics.requests.record(ApiKey::Produce, 9, 2_000_000);
            metrics.requests.record(ApiKey::Produce, 9, 1_000);
            metrics.requests.record(ApiKey::Produce, 11, 1_000);
            metrics.requests.record(ApiKey::Produce, i16::MAX, 1_000);
            metrics.requests.record(ApiKey::Fetch, 17, 3_000_000);
        });
        let text = handle.render();
        let messages_in = lines(&text, strand_base::metric_names::MESSAGES_IN);
        let mut expected = vec![
            "kafka_server_brokertopicmetrics_messagesin_total 7",
            "kafka_server_brokertopicmetrics_messagesin_total{topic=\"a\"} 4",
            "kafka_server_brokertopicmetrics_messagesin_total{topic=\"b\"} 1",
        ];
        let mut found = messages_in.clone();
        found.sort_unstable();
        expected.sort_unstable();
        assert_eq!(found, expected, "{text}");
        assert!(text.contains("kafka_server_brokertopicmetrics_bytesin_total 167\n"), "{text}");
        assert!(text.contains("kafka_server_brokertopicmetrics_bytesout_total 45\n"), "{text}");
        assert!(text.contains("kafka_server_brokertopicmetrics_bytesout_total{topic=\"a\"} 40\n"), "{text}");
        let produce_9 = "kafka_network_requestmetrics_requests_total{request=\"Produce\",version=\"9\"} 2\n";
        assert!(text.contains(produce_9), "{text}");
        assert!(text.contains("requests_total{request=\"Produce\",version=\"11\"} 1\n"), "{text}");
        assert!(text.contains("kafka_network_requestmetrics_totaltimems_count{request=\"Produce\"} 4\n"), "{text}");
        assert!(text.contains("kafka_network_requestmetrics_totaltimems_count{request=\"Fetch\"} 1\n"), "{text}");
    }
}
