//! Eligible leader replicas (KIP-966 part 1) in a partition change, as Kafka 4.4's
//! `PartitionChangeBuilder` with `eligible.leader.replicas.version` 1:
//!
//! - while the target ISR is smaller than the topic's effective `min.insync.replicas`, the ELR
//!   is every replica of the current ISR or ELR that leaves the ISR, less the replicas that
//!   just came back from an unclean shutdown (`maybePopulateTargetElr`); an ISR at or above the
//!   minimum clears it. Since the leader's high watermark does not advance while the ISR is
//!   below the minimum (the broker's strict min ISR), each such replica holds every committed
//!   record and may lead again without data loss;
//! - the ISR may become empty (the partition then has no leader, and its ELR says who may lead);
//! - an election with an empty ISR may pick an acceptable ELR member, a clean election whose new
//!   ISR is that replica alone;
//! - with ISR and ELR both empty, the last known leader (the only member of the last known ELR)
//!   is elected if it is acceptable, as an unclean election: Kafka 4.4's "balanced recovery"
//!   default (`useLastKnownLeaderInBalancedRecovery`, which nothing in Kafka turns off), so the
//!   last known ELR holds the last leader only;
//! - the last known ELR is set to the leader when the ISR first becomes empty, and cleared once
//!   the partition has a leader again (`maybeUpdateLastKnownLeader`).
//!
//! With the feature at 0 the ELR is cleared wherever a change finds one, and nothing else here
//! applies.

use strand_base::BrokerId;

use super::super::ControllerDefaults;
use crate::image::topic_configs::MIN_INSYNC_REPLICAS;
use crate::image::{ELIGIBLE_LEADER_REPLICAS_VERSION, MetadataImage, NO_LEADER, TopicImage};

/// What a partition change needs to know of ELR: whether the feature is on, and the topic's
/// effective `min.insync.replicas` (Kafka's `getTopicEffectiveMinIsr`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ElrRules {
    pub enabled: bool,
    /// The topic's `min.insync.replicas`, at most its replication factor.
    pub min_isr: usize,
}

impl ElrRules {
    /// ELR off: today's rules (an ISR never empties, an ELR found is cleared).
    #[cfg(test)]
    pub(crate) const OFF: ElrRules = ElrRules { enabled: false, min_isr: 1 };

    /// The rules for `topic` in `image`; `defaults` supplies the static `min.insync.replicas`.
    pub(crate) fn for_topic(image: &MetadataImage, topic: &TopicImage, defaults: &ControllerDefaults) -> ElrRules {
        let configured = defaults.topic_configs(image).topic(&topic.name).long(MIN_INSYNC_REPLICAS);
        // Kafka reads partition 0's replica count; every partition of a topic has the same.
        let factor = topic.partitions.values().next().map_or(0, |p| p.replicas.len());
        let configured = usize::try_from(configured).unwrap_or(1).max(1);
        ElrRules { enabled: elr_enabled(image), min_isr: configured.min(factor.max(1)) }
    }
}

/// Whether `eligible.leader.replicas.version` is finalized at 1 or more (Kafka's
/// `FeatureControlManager.isElrFeatureEnabled`).
pub(crate) fn elr_enabled(image: &MetadataImage) -> bool {
    image.features().level(ELIGIBLE_LEADER_REPLICAS_VERSION) >= 1
}

/// Kafka's `maybePopulateTargetElr`: the ELR for `target_isr`, from the current ISR and ELR.
/// Sorted by broker id (Kafka's small-integer hash order). Unlike Kafka, only replicas the
/// partition keeps (`target_replicas`) are eligible: a reassignment that completes below min ISR
/// would otherwise leave the removed replicas in the ELR, where no election can use them.
pub(super) fn target_elr(
    rules: ElrRules,
    current_isr: &[BrokerId],
    current_elr: &[BrokerId],
    target: (&[BrokerId], &[BrokerId]),
    unclean_shutdown: &[BrokerId],
) -> Vec<BrokerId> {
    let (target_replicas, target_isr) = target;
    if !rules.enabled {
        return current_elr.to_vec();
    }
    if target_isr.len() >= rules.min_isr {
        return Vec::new();
    }
    let mut elr: Vec<BrokerId> = current_elr
        .iter()
        .chain(current_isr)
        .copied()
        .filter(|b| !target_isr.contains(b) && !unclean_shutdown.contains(b) && target_replicas.contains(b))
        .collect();
    elr.sort_unstable();
    elr.dedup();
    elr
}

/// Kafka's `maybeUpdateLastKnownLeader`: the last known ELR a change sets, if any. `new_isr` is
/// the ISR the record sets (`None`: unchanged), `new_leader` its leader field.
pub(super) fn last_known_leader(
    rules: ElrRules,
    current_leader: BrokerId,
    current_last_known: &[BrokerId],
    new_isr: Option<&[BrokerId]>,
    new_leader: BrokerId,
) -> Option<Vec<BrokerId>> {
    if !rules.enabled {
        return None;
    }
    if new_isr.is_some_and(<[BrokerId]>::is_empty) && current_last_known != [current_leader] {
        // The partition becomes leaderless for the first time: remember who led it.
        return Some(vec![current_leader]);
    }
    let will_have_leader = new_leader.0 >= 0 || (current_leader != NO_LEADER && new_leader != NO_LEADER);
    (will_have_leader && !current_last_known.is_empty()).then(Vec::new)
}
