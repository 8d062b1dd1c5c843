//! Where new partitions' replicas go: deterministic round-robin placement over the brokers, and
//! the checks on manual assignments, as Kafka's `StripedReplicaPlacer` and
//! `ReplicationControlManager.validateManualPartitionAssignment`.
//!
//! Kafka starts each topic's placement at a random broker; Strand starts at a hash of the topic
//! name, so the same image and request always give the same assignment, and successive topics
//! still spread their leaders. Racks are not considered yet.

use strand_base::{BrokerId, Uuid};

use crate::image::{LeaderRecoveryState, MetadataImage, PartitionImage};

use super::ApiError;
use strand_protocol::error::ErrorCode;

/// The replicas of `count` new partitions starting at `first_partition`, each `replication_factor`
/// long. Active brokers come first (the first replica is the leader, so it is always active);
/// fenced brokers fill in only when there are too few active ones, as Kafka's placer does.
pub(crate) fn place(
    image: &MetadataImage,
    topic: &str,
    first_partition: i32,
    count: i32,
    replication_factor: i16,
) -> Result<Vec<Vec<BrokerId>>, String> {
    let cluster = image.cluster();
    let usable: Vec<_> = cluster.brokers().filter(|b| !b.in_controlled_shutdown).collect();
    let active: Vec<BrokerId> = usable.iter().filter(|b| !b.fenced).map(|b| b.id).collect();
    let fenced: Vec<BrokerId> = usable.iter().filter(|b| b.fenced).map(|b| b.id).collect();
    let rf = usize::try_from(replication_factor).unwrap_or(0);
    if rf == 0 {
        return Err(format!(
            "Invalid replication factor {replication_factor}: the replication factor must be positive."
        ));
    }
    if rf > usable.len() {
        return Err(format!(
            "The target replication factor of {replication_factor} cannot be reached because only {} broker(s) are \
             registered.",
            usable.len()
        ));
    }
    if active.is_empty() {
        return Err("All brokers are currently fenced.".to_owned());
    }
    let start = start_index(topic);
    let partitions = (first_partition..first_partition.saturating_add(count)).map(|partition| {
        let shift = start.wrapping_add(u64::try_from(partition).unwrap_or(0));
        rotated(&active, shift).chain(rotated(&fenced, shift)).take(rf).collect()
    });
    Ok(partitions.collect())
}

/// The new partition as Kafka's `buildPartitionRegistration` makes it: the ISR is the active
/// replicas, the leader the first of them, epochs 0, each replica in its broker's default dir.
/// `None` if no replica is active.
pub(crate) fn new_partition(image: &MetadataImage, replicas: Vec<BrokerId>) -> Option<PartitionImage> {
    let cluster = image.cluster();
    let isr: Vec<BrokerId> = replicas.iter().copied().filter(|id| cluster.is_active(*id)).collect();
    let leader = *isr.first()?;
    let directories = replicas
        .iter()
        .map(|id| cluster.broker(*id).map_or(crate::image::DIRECTORY_UNASSIGNED, |b| b.default_dir()))
        .collect::<Vec<Uuid>>();
    Some(PartitionImage {
        replicas,
        directories,
        isr,
        removing_replicas: Vec::new(),
        adding_replicas: Vec::new(),
        leader,
        leader_recovery_state: LeaderRecoveryState::Recovered,
        leader_epoch: 0,
        partition_epoch: 0,
        elr: Vec::new(),
        last_known_elr: Vec::new(),
    })
}

/// Kafka's checks on one manual assignment: not empty, every broker registered, no broker twice,
/// and as many replicas as the other partitions have.
pub(crate) fn validate_manual_assignment(
    image: &MetadataImage,
    replicas: &[BrokerId],
    replication_factor: Option<usize>,
) -> Result<(), ApiError> {
    let invalid = |message: String| ApiError::new(ErrorCode::InvalidReplicaAssignment, message);
    if replicas.is_empty() {
        return Err(invalid("The manual partition assignment includes an empty replica list.".to_owned()));
    }
    let mut sorted = replicas.to_vec();
    sorted.sort();
    for (i, id) in sorted.iter().enumerate() {
        if image.cluster().broker(*id).is_none() {
            return Err(invalid(format!(
                "The manual partition assignment includes broker {id}, but no such broker is registered."
            )));
        }
        if i > 0 && sorted[i - 1] == *id {
            return Err(invalid(format!("The manual partition assignment includes the broker {id} more than once.")));
        }
    }
    match replication_factor {
        Some(rf) if rf != sorted.len() => Err(invalid(format!(
            "The manual partition assignment includes a partition with {} replica(s), but this is not consistent \
             with previous partitions, which have {rf} replica(s).",
            sorted.len()
        ))),
        _ => Ok(()),
    }
}

fn rotated(brokers: &[BrokerId], shift: u64) -> impl Iterator<Item = BrokerId> + '_ {
    let n = brokers.len();
    let offset = if n == 0 { 0 } else { usize::try_from(shift % n as u64).unwrap_or(0) };
    brokers.iter().cycle().skip(offset).take(n).copied()
}

/// FNV-1a of the topic name: stable across runs and platforms, unlike `std`'s hasher.
fn start_index(topic: &str) -> u64 {
    topic.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rotation visits every broker once, from the shifted start.
    #[test]
    fn rotation_wraps() {
        let brokers = [BrokerId(1), BrokerId(2), BrokerId(3)];
        assert_eq!(rotated(&brokers, 4).collect::<Vec<_>>(), vec![BrokerId(2), BrokerId(3), BrokerId(1)]);
        assert_eq!(rotated(&[], 4).count(), 0);
    }
}
