//! The names of the series a node records through the `metrics` facade: Kafka's MBeans as the
//! Prometheus JMX exporter's standard Kafka rules (`example_configs/kafka-2_0_0.yml`,
//! `lowercaseOutputName`) turn them into Prometheus names, so dashboards made for Kafka read
//! Strand. `strand_http::KAFKA_METRICS` lists each with its MBean; the labels are Kafka's MBean
//! keys (`topic`, `request`, `version`, `listener`).

/// `kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec[,topic=T]`: records appended
/// from clients' Produce requests.
pub const MESSAGES_IN: &str = "kafka_server_brokertopicmetrics_messagesin_total";
/// `...name=BytesInPerSec[,topic=T]`: the record-set bytes of those Produce requests.
pub const BYTES_IN: &str = "kafka_server_brokertopicmetrics_bytesin_total";
/// `...name=BytesOutPerSec[,topic=T]`: the record bytes of consumers' Fetch responses (not
/// followers').
pub const BYTES_OUT: &str = "kafka_server_brokertopicmetrics_bytesout_total";
/// `kafka.network:type=RequestMetrics,name=RequestsPerSec,request=R,version=V`.
pub const REQUESTS: &str = "kafka_network_requestmetrics_requests_total";
/// `kafka.network:type=RequestMetrics,name=TotalTimeMs,request=R`, as a histogram in ms.
pub const REQUEST_TOTAL_TIME_MS: &str = "kafka_network_requestmetrics_totaltimems";
/// `kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions`.
pub const UNDER_REPLICATED_PARTITIONS: &str = "kafka_server_replicamanager_underreplicatedpartitions";
/// `kafka.server:type=ReplicaManager,name=PartitionCount`.
pub const PARTITION_COUNT: &str = "kafka_server_replicamanager_partitioncount";
/// `kafka.server:type=ReplicaManager,name=LeaderCount`.
pub const LEADER_COUNT: &str = "kafka_server_replicamanager_leadercount";
/// `kafka.server:type=ReplicaManager,name=IsrShrinksPerSec`.
pub const ISR_SHRINKS: &str = "kafka_server_replicamanager_isrshrinks_total";
/// `kafka.server:type=ReplicaManager,name=IsrExpandsPerSec`.
pub const ISR_EXPANDS: &str = "kafka_server_replicamanager_isrexpands_total";
/// `kafka.controller:type=KafkaController,name=ActiveControllerCount`.
pub const ACTIVE_CONTROLLER_COUNT: &str = "kafka_controller_kafkacontroller_activecontrollercount";
/// `kafka.controller:type=KafkaController,name=OfflinePartitionsCount`.
pub const OFFLINE_PARTITIONS_COUNT: &str = "kafka_controller_kafkacontroller_offlinepartitionscount";
/// `kafka.server:type=socket-server-metrics,listener=L,networkProcessor=N` `connection-count`
/// (Strand has no network processors: one series per listener).
pub const CONNECTION_COUNT: &str = "kafka_server_socket_server_metrics_connection_count";
/// Strand's delayed delivery (no Kafka MBean): records of a partition led here not delivered
/// yet, labelled `topic` and `partition`.
pub const DELAYED_PENDING_RECORDS: &str = "strand_delayed_pending_records";
/// The earliest due time (epoch milliseconds) of those records, 0 when none.
pub const DELAYED_NEXT_DUE_MS: &str = "strand_delayed_next_due_timestamp_ms";
