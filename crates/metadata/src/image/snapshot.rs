//! An image as the records that recreate it, as Kafka's `MetadataImage.write` writes a metadata
//! snapshot: replaying [`MetadataImage::to_records`] onto an empty image gives back the same
//! image (its provenance aside, which the snapshot's offset carries).
//!
//! Order, as Kafka's: features (`metadata.version` first, since it says how to read the rest),
//! brokers, controllers, topics each followed by its partitions, configs, client quotas, the producer id block,
//! SCRAM credentials, then ACLs. Every record is written at the newest version of its schema.

use strand_base::BrokerId;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::register_broker_record::{BrokerEndpoint as EndpointRecord, BrokerFeature};
use strand_protocol::messages::register_controller_record::{ControllerEndpoint, ControllerFeature};
use strand_protocol::messages::{
    ConfigRecord, FeatureLevelRecord, ProducerIdsRecord, RegisterBrokerRecord, RegisterControllerRecord, TopicRecord,
};

use super::cluster::ControllerRegistration;
use super::{BrokerRegistration, METADATA_VERSION, MetadataImage};

/// A record at the newest version of its schema.
fn latest(record: MetadataRecord) -> (MetadataRecord, i16) {
    let version = MetadataRecord::versions(record.api_key()).map_or(0, |range| range.max);
    (record, version)
}

impl MetadataImage {
    /// The records that recreate this image from an empty one, in replay order.
    pub fn to_records(&self) -> Vec<(MetadataRecord, i16)> {
        let mut records = Vec::new();
        let levels = self.features().finalized();
        let metadata_version = levels.get_key_value(METADATA_VERSION);
        for (name, level) in metadata_version.into_iter().chain(levels.iter().filter(|(n, _)| *n != METADATA_VERSION)) {
            let record = FeatureLevelRecord { name: name.clone(), feature_level: *level, ..Default::default() };
            records.push(latest(MetadataRecord::FeatureLevelRecord(record)));
        }
        for broker in self.cluster().brokers() {
            records.push(latest(MetadataRecord::RegisterBrokerRecord(register_record(broker))));
        }
        for controller in self.cluster().controllers() {
            records.push(latest(MetadataRecord::RegisterControllerRecord(controller_record(controller))));
        }
        for topic in self.topics().iter() {
            let record = TopicRecord { name: topic.name.clone(), topic_id: topic.id, ..Default::default() };
            records.push(latest(MetadataRecord::TopicRecord(record)));
            for (&index, partition) in &topic.partitions {
                records.push(latest(MetadataRecord::PartitionRecord(partition.to_record(topic.id, index))));
            }
        }
        for (resource, keys) in self.configs().resources() {
            for (name, value) in keys {
                let record = ConfigRecord {
                    resource_type: resource.kind.wire(),
                    resource_name: resource.name.clone(),
                    name: name.clone(),
                    value: Some(value.clone()),
                    ..Default::default()
                };
                records.push(latest(MetadataRecord::ConfigRecord(record)));
            }
        }
        for record in self.client_quotas().to_records() {
            records.push(latest(MetadataRecord::ClientQuotaRecord(record)));
        }
        let next_producer_id = self.producer_ids().next_producer_id();
        if next_producer_id >= 0 {
            // Kafka's image keeps no owner of the last block: it writes broker -1, epoch -1.
            let record =
                ProducerIdsRecord { broker_id: BrokerId(-1), broker_epoch: -1, next_producer_id, ..Default::default() };
            records.push(latest(MetadataRecord::ProducerIdsRecord(record)));
        }
        for record in self.scram().to_records() {
            records.push(latest(MetadataRecord::UserScramCredentialRecord(record)));
        }
        for record in self.acls().to_records() {
            records.push(latest(MetadataRecord::AccessControlEntryRecord(record)));
        }
        for token in self.delegation_tokens().tokens() {
            records.push(latest(MetadataRecord::DelegationTokenRecord(token.to_record())));
        }
        records
    }
}

/// The `RegisterBrokerRecord` that recreates a registration, fencing and shutdown state included.
fn register_record(broker: &BrokerRegistration) -> RegisterBrokerRecord {
    let end_points = broker
        .endpoints
        .iter()
        .map(|e| EndpointRecord {
            name: e.name.clone(),
            host: e.host.clone(),
            port: e.port,
            security_protocol: e.security_protocol,
            ..Default::default()
        })
        .collect();
    let features = broker
        .supported_features
        .iter()
        .map(|(name, range)| BrokerFeature {
            name: name.clone(),
            min_supported_version: range.min,
            max_supported_version: range.max,
            ..Default::default()
        })
        .collect();
    RegisterBrokerRecord {
        broker_id: broker.id,
        is_migrating_zk_broker: false,
        incarnation_id: broker.incarnation_id,
        broker_epoch: broker.epoch,
        end_points,
        features,
        rack: broker.rack.clone(),
        fenced: broker.fenced,
        in_controlled_shutdown: broker.in_controlled_shutdown,
        log_dirs: broker.log_dirs.clone(),
        ..Default::default()
    }
}

/// The `RegisterControllerRecord` that recreates a controller's registration.
fn controller_record(controller: &ControllerRegistration) -> RegisterControllerRecord {
    let end_points = controller.endpoints.iter().map(|e| ControllerEndpoint {
        name: e.name.clone(),
        host: e.host.clone(),
        port: e.port,
        security_protocol: e.security_protocol,
        ..Default::default()
    });
    let features = controller.supported_features.iter().map(|(name, range)| ControllerFeature {
        name: name.clone(),
        min_supported_version: range.min,
        max_supported_version: range.max,
        ..Default::default()
    });
    RegisterControllerRecord {
        controller_id: controller.id,
        incarnation_id: controller.incarnation_id,
        zk_migration_ready: false,
        end_points: end_points.collect(),
        features: features.collect(),
        ..Default::default()
    }
}
