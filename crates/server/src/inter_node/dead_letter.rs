//! [`ProduceDeadLetterWriter`]: how a share-partition's leader writes dead-letter records
//! (KIP-1191) to a partition of the group's dead-letter topic: a Produce (acks=all) to that
//! partition's leader over the inter-broker listener, this very node included, as Kafka's
//! `ShareGroupDLQStateManager` sends one.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use strand_base::{BrokerId, TopicPartition};
use strand_broker::{BoxFuture, DeadLetterWriter};
use strand_metadata::image::MetadataImage;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::ProduceRequest;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use tokio::sync::watch;

use super::Link;
use super::brokers::BrokerDirectory;
use super::client::NodeClient;

/// Produce v11: topics by name, the last version before topic ids.
const PRODUCE_VERSION: i16 = 11;

/// Dead-letter writes over TCP.
#[derive(Debug)]
pub struct ProduceDeadLetterWriter {
    brokers: BrokerDirectory,
    client: NodeClient,
    /// `request.timeout.ms`: how long one write may take.
    timeout: Duration,
}

impl ProduceDeadLetterWriter {
    pub fn new(
        image: watch::Receiver<Arc<MetadataImage>>,
        inter_broker_listener: String,
        connect_timeout: Duration,
        timeout: Duration,
        link: Link,
    ) -> ProduceDeadLetterWriter {
        ProduceDeadLetterWriter {
            brokers: BrokerDirectory::new(image, inter_broker_listener),
            client: NodeClient::new(connect_timeout, strand_base::limits::SOCKET_REQUEST_BYTES_MAX, link),
            timeout,
        }
    }

    async fn produce(&self, tp: &TopicPartition, batch: Bytes) -> Result<(), ErrorCode> {
        let image = self.brokers.image();
        let leader = image
            .topics()
            .by_name(&tp.topic)
            .and_then(|t| t.partitions.get(&tp.partition))
            .map(|p| p.leader)
            .filter(|&l| l != BrokerId::NONE)
            .ok_or(ErrorCode::LeaderNotAvailable)?;
        let address = self.brokers.address(leader).map_err(|reason| {
            tracing::debug!("dead-letter write to {tp}: {reason}");
            ErrorCode::LeaderNotAvailable
        })?;
        let request = RequestBody::Produce(ProduceRequest {
            acks: -1,
            timeout_ms: i32::try_from(self.timeout.as_millis()).unwrap_or(i32::MAX),
            topic_data: vec![TopicProduceData {
                name: tp.topic.clone(),
                partition_data: vec![PartitionProduceData {
                    index: tp.partition,
                    records: Some(batch),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        });
        match self.client.call_kafka(&address, &request, PRODUCE_VERSION, self.timeout).await {
            Ok(ResponseBody::Produce(response)) => {
                let code = response
                    .responses
                    .first()
                    .and_then(|t| t.partition_responses.first())
                    .map_or(ErrorCode::UnknownServerError, |p| {
                        ErrorCode::from_code(p.error_code).unwrap_or(ErrorCode::UnknownServerError)
                    });
                if code == ErrorCode::None { Ok(()) } else { Err(code) }
            }
            Ok(other) => {
                tracing::warn!("dead-letter write to {tp}: Produce answered with {:?}", other.api_key());
                Err(ErrorCode::UnknownServerError)
            }
            Err(e) => {
                tracing::debug!("dead-letter write to {tp}: {e}");
                Err(ErrorCode::NetworkException)
            }
        }
    }
}

impl DeadLetterWriter for ProduceDeadLetterWriter {
    fn write(&self, tp: TopicPartition, batch: Bytes) -> BoxFuture<'_, Result<(), ErrorCode>> {
        Box::pin(async move { self.produce(&tp, batch).await })
    }
}
