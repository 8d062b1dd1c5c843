//! AllocateProducerIds, as Kafka's `ProducerIdControlManager.generateNextProducerId`.

use strand_base::{BrokerId, ProducerId};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{AllocateProducerIdsResponse, ProducerIdsRecord};

use super::cluster::check_broker_epoch;
use super::{ApiMessageAndVersion, ControllerResult};
use crate::image::{MetadataImage, PRODUCER_ID_BLOCK_SIZE};

/// Hands `broker_id` the next block of [`PRODUCER_ID_BLOCK_SIZE`] producer ids: a
/// `ProducerIdsRecord` whose `next_producer_id` is the end of the block. The block is persisted
/// before the broker uses it, so a restart never hands an id out twice.
///
/// STALE_BROKER_EPOCH if the broker is not registered with `broker_epoch`; UNKNOWN_SERVER_ERROR
/// once the 64-bit id space is exhausted.
pub fn allocate_producer_ids(
    image: &MetadataImage,
    broker_id: BrokerId,
    broker_epoch: i64,
) -> ControllerResult<AllocateProducerIdsResponse> {
    let failed = |code: ErrorCode| ControllerResult {
        records: Vec::new(),
        response: AllocateProducerIdsResponse { error_code: code.code(), ..AllocateProducerIdsResponse::default() },
    };
    if let Err(error) = check_broker_epoch(image, broker_id, broker_epoch) {
        return failed(error.code);
    }
    let start = image.producer_ids().next_block_start();
    let Some(next) = start.checked_add(i64::from(PRODUCER_ID_BLOCK_SIZE)) else {
        return failed(ErrorCode::UnknownServerError);
    };
    let record = ProducerIdsRecord { broker_id, broker_epoch, next_producer_id: next, ..ProducerIdsRecord::default() };
    ControllerResult {
        records: vec![ApiMessageAndVersion::latest(MetadataRecord::ProducerIdsRecord(record))],
        response: AllocateProducerIdsResponse {
            error_code: ErrorCode::None.code(),
            producer_id_start: ProducerId(start),
            producer_id_len: PRODUCER_ID_BLOCK_SIZE,
            ..AllocateProducerIdsResponse::default()
        },
    }
}
