//! The process's metrics recorder: `metrics-exporter-prometheus` installed as the `metrics`
//! facade's global recorder, so every crate's counters land in one registry that `/metrics`
//! renders.

use std::time::Duration;

use metrics::Unit;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use strand_base::metric_names as names;

/// The buckets of the request-time histograms, in milliseconds: from a cached Metadata answer to
/// an acks=all Produce waiting out a slow follower (`request.timeout.ms` is 30 s).
pub const REQUEST_TIME_MS_BUCKETS: &[f64] =
    &[0.5, 1.0, 2.5, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 500.0, 1000.0, 2500.0, 5000.0, 10000.0, 30000.0];

/// How often the recorder folds histogram samples into their buckets: between scrapes, samples
/// wait in a queue; this bounds what that queue holds when nobody scrapes.
pub const UPKEEP_INTERVAL: Duration = Duration::from_secs(5);

/// Every series Strand records, with the Kafka MBean (and attribute) it stands for and its
/// Prometheus type: the metric list of the docs, and the `# HELP` lines `/metrics` shows.
pub const KAFKA_METRICS: &[(&str, &str, &str)] = &[
    (names::MESSAGES_IN, "counter", "kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec Count"),
    (names::BYTES_IN, "counter", "kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec Count"),
    (names::BYTES_OUT, "counter", "kafka.server:type=BrokerTopicMetrics,name=BytesOutPerSec Count"),
    (names::REQUESTS, "counter", "kafka.network:type=RequestMetrics,name=RequestsPerSec,request=*,version=* Count"),
    (names::REQUEST_TOTAL_TIME_MS, "histogram", "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=*"),
    (names::UNDER_REPLICATED_PARTITIONS, "gauge", "kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions"),
    (names::PARTITION_COUNT, "gauge", "kafka.server:type=ReplicaManager,name=PartitionCount"),
    (names::LEADER_COUNT, "gauge", "kafka.server:type=ReplicaManager,name=LeaderCount"),
    (names::ISR_SHRINKS, "counter", "kafka.server:type=ReplicaManager,name=IsrShrinksPerSec Count"),
    (names::ISR_EXPANDS, "counter", "kafka.server:type=ReplicaManager,name=IsrExpandsPerSec Count"),
    (names::ACTIVE_CONTROLLER_COUNT, "gauge", "kafka.controller:type=KafkaController,name=ActiveControllerCount"),
    (names::OFFLINE_PARTITIONS_COUNT, "gauge", "kafka.controller:type=KafkaController,name=OfflinePartitionsCount"),
    (names::CONNECTION_COUNT, "gauge", "kafka.server:type=socket-server-metrics,listener=* connection-count"),
    (names::DELAYED_PENDING_RECORDS, "gauge", "none: Strand's delayed delivery, records not delivered yet"),
    (names::DELAYED_NEXT_DUE_MS, "gauge", "none: Strand's delayed delivery, the earliest due time"),
];

/// The installed recorder, to render. Cloning shares it.
#[derive(Debug, Clone)]
pub struct MetricsRegistry {
    handle: PrometheusHandle,
}

impl MetricsRegistry {
    /// Installs the Prometheus recorder as the process's global `metrics` recorder. Call it
    /// before anything takes a metric handle (a handle taken earlier records nowhere); it fails
    /// when a recorder is already installed.
    pub fn install() -> Result<MetricsRegistry, String> {
        let handle = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Full(names::REQUEST_TOTAL_TIME_MS.into()), REQUEST_TIME_MS_BUCKETS)
            .and_then(PrometheusBuilder::install_recorder)
            .map_err(|e| format!("cannot install the metrics recorder: {e}"))?;
        for (name, kind, mbean) in KAFKA_METRICS {
            let help = format!("Kafka's {mbean}");
            match *kind {
                "counter" => metrics::describe_counter!(*name, help),
                "gauge" => metrics::describe_gauge!(*name, help),
                _ => metrics::describe_histogram!(*name, Unit::Milliseconds, help),
            }
        }
        Ok(MetricsRegistry { handle })
    }

    /// Every series in Prometheus's text format (version 0.0.4).
    pub fn render(&self) -> String {
        self.handle.render()
    }

    /// Folds histogram samples into their buckets every [`UPKEEP_INTERVAL`], forever.
    pub async fn upkeep_forever(self) {
        let mut ticks = tokio::time::interval(UPKEEP_INTERVAL);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            self.handle.run_upkeep();
        }
    }
}
