//! Where new partitions' replicas go: Kafka's striped placement over racks and brokers, and the
//! checks on manual assignments, as Kafka's `StripedReplicaPlacer` and
//! `ReplicationControlManager.validateManualPartitionAssignment`.
//!
//! Striping: the usable brokers (registered and not in controlled shutdown, fenced ones included)
//! are grouped by rack (brokers without a rack form one rack). Each partition's first replica (its
//! leader) comes from the next rack with an unfenced broker; the others from the following racks
//! in turn, so replicas spread over racks before they double up on one. Within a rack, unfenced
//! brokers come before fenced ones, and each list rotates by one per partition; once as many
//! partitions as there are unfenced brokers are placed, racks and brokers are shuffled to avoid
//! repeating the same sets.
//!
//! Kafka draws the starting points and shuffles at random; Strand seeds a small generator with a
//! hash of the topic name and the first partition, so the same image and request always give the
//! same assignment, and successive topics still spread their leaders.

use std::collections::BTreeMap;

use strand_base::{BrokerId, Uuid};

use crate::image::{LeaderRecoveryState, MetadataImage, PartitionImage};

use super::ApiError;
use strand_protocol::error::ErrorCode;

/// The replicas of `count` new partitions starting at `first_partition`, each `replication_factor`
/// long, striped over racks (see the module docs). The first replica of each is an unfenced
/// broker; fenced brokers fill in only when there are too few unfenced ones, as Kafka's placer
/// does. The errors are Kafka's messages, in its order.
pub(crate) fn place(
    image: &MetadataImage,
    topic: &str,
    first_partition: i32,
    count: i32,
    replication_factor: i16,
) -> Result<Vec<Vec<BrokerId>>, String> {
    let seed = start_index(topic) ^ u64::try_from(first_partition).unwrap_or(0).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let brokers = image.cluster().brokers().filter(|b| !b.in_controlled_shutdown);
    let racks = RackList::new(brokers.map(|b| (b.id, b.rack.as_deref(), b.fenced)), seed);
    place_from(racks, count, replication_factor)
}

/// Kafka's `StripedReplicaPlacer` over `brokers` (id and rack, none fenced), as
/// `kafka-reassign-partitions --generate` runs it client-side: `count` partitions of
/// `replication_factor` replicas each, starting points and shuffles drawn from `seed`. The
/// errors are the placer's messages (Kafka 4.4's, which mention KIP-1066's cordoned dirs).
pub fn place_striped(
    brokers: &[(BrokerId, Option<String>)],
    count: i32,
    replication_factor: i16,
    seed: u64,
) -> Result<Vec<Vec<BrokerId>>, String> {
    let racks = RackList::new(brokers.iter().map(|(id, rack)| (*id, rack.as_deref(), false)), seed);
    place_from(racks, count, replication_factor)
}

/// Kafka's checks of the replication factor against the brokers, in its order, then the
/// placement of each partition.
fn place_from(mut racks: RackList, count: i32, replication_factor: i16) -> Result<Vec<Vec<BrokerId>>, String> {
    let Some(rf) = usize::try_from(replication_factor).ok().filter(|rf| *rf > 0) else {
        return Err(format!(
            "Invalid replication factor {replication_factor}: the replication factor must be positive."
        ));
    };
    if racks.unfenced == 0 {
        return Err("All brokers are currently fenced, or have all their log directories cordoned.".to_owned());
    }
    if rf > racks.total {
        return Err(format!(
            "The target replication factor of {replication_factor} cannot be reached because only {} broker(s) are \
             registered or some brokers have all their log directories cordoned.",
            racks.total
        ));
    }
    Ok((0..count.max(0)).map(|_| racks.place(rf)).collect())
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

/// FNV-1a of the topic name: stable across runs and platforms, unlike `std`'s hasher.
fn start_index(topic: &str) -> u64 {
    topic.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}

/// SplitMix64: a tiny deterministic generator for the placer's starting points and shuffles.
#[derive(Debug, Clone)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..bound` (`bound` > 0).
    fn below(&mut self, bound: usize) -> usize {
        usize::try_from(self.next() % u64::try_from(bound).unwrap_or(u64::MAX)).unwrap_or(0)
    }

    /// Fisher-Yates.
    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

/// Brokers handed out in rotation, each at most once per iteration epoch (Kafka's `BrokerList`).
#[derive(Debug, Clone, Default)]
struct BrokerList {
    brokers: Vec<BrokerId>,
    /// How many were handed out in the current epoch.
    index: usize,
    /// Where the rotation starts; moves by one each epoch.
    offset: usize,
    epoch: usize,
}

impl BrokerList {
    fn initialize(&mut self, random: &mut SplitMix64) {
        if !self.brokers.is_empty() {
            self.brokers.sort();
            self.offset = random.below(self.brokers.len());
        }
    }

    /// The next broker of `epoch`, `None` once each was handed out.
    fn next(&mut self, epoch: usize) -> Option<BrokerId> {
        let n = self.brokers.len();
        if n == 0 {
            return None;
        }
        if self.epoch != epoch {
            self.epoch = epoch;
            self.index = 0;
            self.offset = (self.offset + 1) % n;
        }
        let broker = self.brokers.get((self.index + self.offset) % n).copied().filter(|_| self.index < n)?;
        self.index += 1;
        Some(broker)
    }
}

/// One rack's brokers: unfenced ones first.
#[derive(Debug, Clone, Default)]
struct Rack {
    unfenced: BrokerList,
    fenced: BrokerList,
}

impl Rack {
    fn next(&mut self, epoch: usize) -> Option<BrokerId> {
        self.unfenced.next(epoch).or_else(|| self.fenced.next(epoch))
    }
}

/// The racks in name order (no rack first), and where the next partition starts (Kafka's
/// `RackList`).
#[derive(Debug, Clone)]
struct RackList {
    racks: Vec<Rack>,
    total: usize,
    unfenced: usize,
    epoch: usize,
    offset: usize,
    random: SplitMix64,
}

impl RackList {
    /// Over each broker's (id, rack, fenced).
    fn new<'a>(brokers: impl Iterator<Item = (BrokerId, Option<&'a str>, bool)>, seed: u64) -> RackList {
        let mut random = SplitMix64(seed);
        let mut by_rack: BTreeMap<Option<&str>, Rack> = BTreeMap::new();
        let (mut total, mut unfenced) = (0, 0);
        for (id, rack, fenced) in brokers {
            let rack = by_rack.entry(rack).or_default();
            if fenced {
                rack.fenced.brokers.push(id);
            } else {
                rack.unfenced.brokers.push(id);
                unfenced += 1;
            }
            total += 1;
        }
        let mut racks: Vec<Rack> = by_rack.into_values().collect();
        for rack in &mut racks {
            rack.unfenced.initialize(&mut random);
            rack.fenced.initialize(&mut random);
        }
        let offset = if racks.is_empty() { 0 } else { random.below(racks.len()) };
        RackList { racks, total, unfenced, epoch: 0, offset, random }
    }

    /// One partition's replicas. Needs `0 < rf <= total` and an unfenced broker.
    fn place(&mut self, rf: usize) -> Vec<BrokerId> {
        assert!(rf > 0 && rf <= self.total && self.unfenced > 0, "placement preconditions: rf {rf}");
        if self.epoch == self.unfenced && self.unfenced > 1 {
            self.shuffle();
            self.epoch = 0;
        }
        let n = self.racks.len();
        if self.offset == n {
            self.offset = 0;
        }
        let (first_rack, leader) = (0..n)
            .map(|i| (self.offset + i) % n)
            .find_map(|r| self.racks[r].unfenced.next(self.epoch).map(|b| (r, b)))
            .expect("some rack has an unfenced broker");
        let mut replicas = vec![leader];
        // Each rack hands out each broker once per epoch and there are `total >= rf` brokers,
        // so every remaining replica is found within this many visits.
        let mut visits = (self.offset..).map(|i| i % n).take(n * (rf + 1));
        let mut skip_first = true;
        while replicas.len() < rf {
            let rack = visits.next().expect("enough brokers for the replication factor");
            if rack == first_rack && skip_first {
                skip_first = false;
            } else if let Some(broker) = self.racks[rack].next(self.epoch) {
                replicas.push(broker);
            }
        }
        self.epoch += 1;
        self.offset += 1;
        replicas
    }

    fn shuffle(&mut self) {
        self.random.shuffle(&mut self.racks);
        for rack in &mut self.racks {
            self.random.shuffle(&mut rack.unfenced.brokers);
            self.random.shuffle(&mut rack.fenced.brokers);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::BrokerRegistration;

    fn broker(id: i32, rack: Option<&str>, fenced: bool) -> BrokerRegistration {
        BrokerRegistration {
            id: BrokerId(id),
            epoch: 0,
            incarnation_id: Uuid::ZERO,
            endpoints: Vec::new(),
            supported_features: BTreeMap::new(),
            rack: rack.map(str::to_owned),
            fenced,
            in_controlled_shutdown: false,
            log_dirs: Vec::new(),
        }
    }

    fn place_all(brokers: &[BrokerRegistration], partitions: usize, rf: usize, seed: u64) -> Vec<Vec<BrokerId>> {
        let mut racks = RackList::new(brokers.iter().map(|b| (b.id, b.rack.as_deref(), b.fenced)), seed);
        (0..partitions).map(|_| racks.place(rf)).collect()
    }

    /// With racks, every partition's replicas are on distinct racks, and leaderships rotate over
    /// the racks evenly.
    #[test]
    fn replicas_spread_over_racks() {
        let racks = ["a", "b", "c"];
        let brokers: Vec<_> =
            (0..9).map(|i| broker(i, Some(racks[usize::try_from(i).unwrap_or(0) % 3]), false)).collect();
        let rack_of = |b: BrokerId| racks[usize::try_from(b.0).unwrap_or(0) % 3];
        for seed in 0..20 {
            let placed = place_all(&brokers, 27, 3, seed);
            for replicas in &placed {
                let distinct: std::collections::BTreeSet<_> = replicas.iter().map(|b| rack_of(*b)).collect();
                assert_eq!(distinct.len(), 3, "seed {seed}: {replicas:?}");
            }
            for rack in racks {
                let led = placed.iter().filter(|r| rack_of(r[0]) == rack).count();
                assert_eq!(led, 9, "seed {seed}: rack {rack} leads a third");
            }
        }
    }

    /// Without racks, replicas are distinct and fenced brokers fill in only after every unfenced
    /// one, never as the first replica.
    #[test]
    fn fenced_brokers_fill_in_last() {
        let brokers = [broker(1, None, false), broker(2, None, true), broker(3, None, false), broker(4, None, false)];
        for seed in 0..20 {
            for replicas in place_all(&brokers, 10, 4, seed) {
                assert_eq!(replicas.iter().collect::<std::collections::BTreeSet<_>>().len(), 4);
                assert_eq!(replicas[3], BrokerId(2), "seed {seed}: {replicas:?}");
            }
            for replicas in place_all(&brokers, 10, 2, seed) {
                assert!(!replicas.contains(&BrokerId(2)), "seed {seed}: {replicas:?}");
            }
        }
    }

    /// Without racks, leaderships rotate over every unfenced broker.
    #[test]
    fn leaders_rotate_without_racks() {
        let brokers: Vec<_> = (1..=4).map(|i| broker(i, None, false)).collect();
        for seed in 0..20 {
            let leaders: std::collections::BTreeSet<_> = place_all(&brokers, 4, 2, seed).iter().map(|r| r[0]).collect();
            assert_eq!(leaders.len(), 4, "seed {seed}");
        }
    }

    /// Uneven racks: the lone broker of a small rack gets a replica of every partition, as
    /// Kafka's placer gives racks priority over brokers.
    #[test]
    fn racks_before_brokers() {
        let brokers = [broker(1, Some("a"), false), broker(2, Some("a"), false), broker(3, Some("b"), false)];
        for replicas in place_all(&brokers, 6, 2, 7) {
            assert!(replicas.contains(&BrokerId(3)), "{replicas:?}");
        }
    }
}
