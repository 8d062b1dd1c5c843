//! Broker registrations, from `RegisterBrokerRecord` and the fencing records, and controller
//! registrations, from `RegisterControllerRecord` (KIP-919), as Kafka's `ClusterImage`.

use std::collections::BTreeMap;

use strand_base::{BrokerId, Uuid};
use strand_protocol::messages::{
    BrokerRegistrationChangeRecord, FenceBrokerRecord, RegisterBrokerRecord, RegisterControllerRecord,
    UnfenceBrokerRecord, UnregisterBrokerRecord, UnregisterControllerRecord,
};

use super::ReplayError;
use super::topics::{DIRECTORY_MIGRATING, DIRECTORY_UNASSIGNED};

/// One listener a broker advertises.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerEndpoint {
    pub name: String,
    pub host: String,
    pub port: u16,
    /// Kafka's `SecurityProtocol` id: 0 PLAINTEXT, 1 SSL, 2 SASL_PLAINTEXT, 3 SASL_SSL.
    pub security_protocol: i16,
}

/// The feature levels a broker can run, inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SupportedFeatureRange {
    pub min: i16,
    pub max: i16,
}

/// A registered broker, as its latest `RegisterBrokerRecord` and fencing changes leave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerRegistration {
    pub id: BrokerId,
    /// The offset of the registration record that began this incarnation's epoch.
    pub epoch: i64,
    pub incarnation_id: Uuid,
    pub endpoints: Vec<BrokerEndpoint>,
    pub supported_features: BTreeMap<String, SupportedFeatureRange>,
    pub rack: Option<String>,
    /// A fenced broker leads nothing and is kept out of ISRs.
    pub fenced: bool,
    pub in_controlled_shutdown: bool,
    pub log_dirs: Vec<Uuid>,
}

impl BrokerRegistration {
    /// Kafka's `isActive`: unfenced and not shutting down, so it may lead and be in an ISR.
    pub fn is_active(&self) -> bool {
        !self.fenced && !self.in_controlled_shutdown
    }

    /// The directory new replicas on this broker are assigned to (Kafka's
    /// `ClusterControlManager.defaultDir`): its only log dir, `MIGRATING` if it reported none,
    /// `UNASSIGNED` (the broker picks) if it has several.
    pub fn default_dir(&self) -> Uuid {
        match self.log_dirs.as_slice() {
            [] => DIRECTORY_MIGRATING,
            [only] => *only,
            _ => DIRECTORY_UNASSIGNED,
        }
    }

    fn from_record(record: &RegisterBrokerRecord) -> BrokerRegistration {
        let endpoints = record
            .end_points
            .iter()
            .map(|e| BrokerEndpoint {
                name: e.name.clone(),
                host: e.host.clone(),
                port: e.port,
                security_protocol: e.security_protocol,
            })
            .collect();
        let supported_features = record
            .features
            .iter()
            .map(|f| {
                (f.name.clone(), SupportedFeatureRange { min: f.min_supported_version, max: f.max_supported_version })
            })
            .collect();
        BrokerRegistration {
            id: record.broker_id,
            epoch: record.broker_epoch,
            incarnation_id: record.incarnation_id,
            endpoints,
            supported_features,
            rack: record.rack.clone(),
            fenced: record.fenced,
            in_controlled_shutdown: record.in_controlled_shutdown,
            log_dirs: record.log_dirs.clone(),
        }
    }
}

/// A registered controller: its CONTROLLER listeners and the feature levels it can run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerRegistration {
    pub id: i32,
    pub incarnation_id: Uuid,
    pub endpoints: Vec<BrokerEndpoint>,
    pub supported_features: BTreeMap<String, SupportedFeatureRange>,
}

impl ControllerRegistration {
    fn from_record(record: &RegisterControllerRecord) -> ControllerRegistration {
        let endpoints = record.end_points.iter().map(|e| BrokerEndpoint {
            name: e.name.clone(),
            host: e.host.clone(),
            port: e.port,
            security_protocol: e.security_protocol,
        });
        let features = record.features.iter().map(|f| {
            (f.name.clone(), SupportedFeatureRange { min: f.min_supported_version, max: f.max_supported_version })
        });
        ControllerRegistration {
            id: record.controller_id,
            incarnation_id: record.incarnation_id,
            endpoints: endpoints.collect(),
            supported_features: features.collect(),
        }
    }
}

/// A `BrokerRegistrationChangeRecord`'s `fenced` field: Kafka's `BrokerRegistrationFencingChange`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FencingChange {
    /// `-1`: the broker may lead again.
    Unfence,
    /// `0`: fencing unchanged.
    Unchanged,
    /// `1`: the broker is fenced.
    Fence,
}

impl FencingChange {
    /// The change a wire value means, `None` for a value Kafka does not define.
    pub fn from_wire(value: i8) -> Option<FencingChange> {
        match value {
            -1 => Some(FencingChange::Unfence),
            0 => Some(FencingChange::Unchanged),
            1 => Some(FencingChange::Fence),
            _ => None,
        }
    }

    /// The wire value.
    pub fn wire(self) -> i8 {
        match self {
            FencingChange::Unfence => -1,
            FencingChange::Unchanged => 0,
            FencingChange::Fence => 1,
        }
    }

    fn apply(self, fenced: bool) -> bool {
        match self {
            FencingChange::Unfence => false,
            FencingChange::Unchanged => fenced,
            FencingChange::Fence => true,
        }
    }
}

/// Every registered broker and controller by id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterImage {
    brokers: BTreeMap<BrokerId, BrokerRegistration>,
    controllers: BTreeMap<i32, ControllerRegistration>,
}

impl ClusterImage {
    /// The registration of `id`, if it is registered.
    pub fn broker(&self, id: BrokerId) -> Option<&BrokerRegistration> {
        self.brokers.get(&id)
    }

    /// Every registration, by ascending id.
    pub fn brokers(&self) -> impl Iterator<Item = &BrokerRegistration> {
        self.brokers.values()
    }

    /// Brokers that may lead and be in an ISR, by ascending id.
    pub fn active_brokers(&self) -> impl Iterator<Item = &BrokerRegistration> {
        self.brokers.values().filter(|b| b.is_active())
    }

    /// Whether `id` is registered, unfenced and not shutting down.
    pub fn is_active(&self, id: BrokerId) -> bool {
        self.brokers.get(&id).is_some_and(BrokerRegistration::is_active)
    }

    /// Whether no broker is registered.
    pub fn is_empty(&self) -> bool {
        self.brokers.is_empty()
    }

    /// The registration of controller `id`, if it registered.
    pub fn controller(&self, id: i32) -> Option<&ControllerRegistration> {
        self.controllers.get(&id)
    }

    /// Every controller registration, by ascending id.
    pub fn controllers(&self) -> impl Iterator<Item = &ControllerRegistration> {
        self.controllers.values()
    }

    /// A controller's new registration replaces its old one whole.
    pub(super) fn replay_register_controller(&mut self, record: &RegisterControllerRecord) {
        self.controllers.insert(record.controller_id, ControllerRegistration::from_record(record));
    }

    pub(super) fn replay_unregister_controller(&mut self, record: &UnregisterControllerRecord) {
        self.controllers.remove(&record.controller_id);
    }

    /// A new registration replaces the old one whole.
    pub(super) fn replay_register(&mut self, record: &RegisterBrokerRecord) {
        self.brokers.insert(record.broker_id, BrokerRegistration::from_record(record));
    }

    pub(super) fn replay_unregister(&mut self, record: &UnregisterBrokerRecord) -> Result<(), ReplayError> {
        self.broker_at_epoch(record.broker_id, record.broker_epoch)?;
        self.brokers.remove(&record.broker_id);
        Ok(())
    }

    pub(super) fn replay_fence(&mut self, record: &FenceBrokerRecord) -> Result<(), ReplayError> {
        self.broker_at_epoch(record.id, record.epoch)?.fenced = true;
        Ok(())
    }

    pub(super) fn replay_unfence(&mut self, record: &UnfenceBrokerRecord) -> Result<(), ReplayError> {
        self.broker_at_epoch(record.id, record.epoch)?.fenced = false;
        Ok(())
    }

    /// Kafka's `ClusterDelta.replay(BrokerRegistrationChangeRecord)`: fencing and controlled
    /// shutdown change only when the record says so; a non-empty log dir list replaces the old.
    pub(super) fn replay_change(&mut self, record: &BrokerRegistrationChangeRecord) -> Result<(), ReplayError> {
        let fencing =
            FencingChange::from_wire(record.fenced).ok_or(ReplayError::InvalidFencingChange(record.fenced))?;
        let shutdown = match record.in_controlled_shutdown {
            0 => None,
            1 => Some(true),
            other => return Err(ReplayError::InvalidControlledShutdownChange(other)),
        };
        let broker = self.broker_at_epoch(record.broker_id, record.broker_epoch)?;
        broker.fenced = fencing.apply(broker.fenced);
        if let Some(in_controlled_shutdown) = shutdown {
            broker.in_controlled_shutdown = in_controlled_shutdown;
        }
        if !record.log_dirs.is_empty() {
            broker.log_dirs = record.log_dirs.clone();
        }
        Ok(())
    }

    fn broker_at_epoch(&mut self, id: BrokerId, epoch: i64) -> Result<&mut BrokerRegistration, ReplayError> {
        let broker = self.brokers.get_mut(&id).ok_or(ReplayError::UnknownBroker(id))?;
        if broker.epoch != epoch {
            return Err(ReplayError::StaleBrokerEpoch { broker: id, registered: broker.epoch, record: epoch });
        }
        Ok(broker)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every wire value of a fencing change, from both fencing states: -1 unfences, 0 keeps, 1
    /// fences, anything else is refused.
    #[test]
    fn fencing_changes_are_exhaustive() {
        for fenced in [false, true] {
            for value in i8::MIN..=i8::MAX {
                let expected = match value {
                    -1 => Some(false),
                    0 => Some(fenced),
                    1 => Some(true),
                    _ => None,
                };
                assert_eq!(FencingChange::from_wire(value).map(|c| c.apply(fenced)), expected, "{fenced} {value}");
            }
        }
        for change in [FencingChange::Unfence, FencingChange::Unchanged, FencingChange::Fence] {
            assert_eq!(FencingChange::from_wire(change.wire()), Some(change));
        }
    }
}
