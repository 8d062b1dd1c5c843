//! The controller mutation quota (`controller_mutation_rate`, KIP-599) as CreateTopics,
//! CreatePartitions and DeleteTopics spend it: one credit per partition created or deleted.
//!
//! Kafka's controller applies it; here the broker does before it forwards, with the same effect
//! for the client. In **strict** mode (CreateTopics v6+, CreatePartitions v3+, DeleteTopics v5+)
//! each topic in request order is refused THROTTLING_QUOTA_EXCEEDED once the client's bucket is
//! in debt, and otherwise spends its partitions (given back if the controller then fails the
//! topic, since Kafka spends only for topics that pass validation). In **permissive** mode
//! (older versions, which clients do not retry on that error) nothing is refused and the
//! topics that succeeded spend. Either way the response carries the time the debt takes to
//! repay as `throttle_time_ms`, and the connection is muted for it.

use super::MutationQuota;
use crate::Broker;
use crate::dispatch::Client;

/// One request's mutation quota, if its client has one.
pub(crate) struct Mutations<'a> {
    broker: &'a Broker,
    quota: Option<MutationQuota>,
}

impl Broker {
    /// The mutation quota of `client`'s request at `version`, strict from `strict_since`.
    pub(crate) fn mutations(&self, client: &Client<'_>, version: i16, strict_since: i16) -> Mutations<'_> {
        let image = self.image();
        let user = &client.session.principal.name;
        let strict = version >= strict_since;
        let quota = self.quotas.mutation_quota(image.client_quotas(), user, client.id.unwrap_or_default(), strict);
        Mutations { broker: self, quota }
    }
}

impl Mutations<'_> {
    /// Whether a topic of `partitions` mutations goes ahead: in strict mode, not once the bucket
    /// is in debt (and then it spends them).
    pub fn admit(&self, partitions: i32) -> bool {
        let Some(quota) = self.quota.as_ref().filter(|q| q.strict) else { return true };
        let now_ms = self.broker.clock.now_ms();
        let quotas = &self.broker.quotas;
        if quotas.mutation_exceeded(quota, now_ms) {
            return false;
        }
        quotas.record_mutations(quota, f64::from(partitions.max(0)), now_ms);
        true
    }

    /// Settles the request once the controller answered: strict mode gives back what admitted
    /// topics that failed spent, permissive mode spends what succeeded. The throttle in ms.
    pub fn settle(&self, admitted_but_failed: i32, succeeded: i32) -> i32 {
        let Some(quota) = &self.quota else { return 0 };
        let now_ms = self.broker.clock.now_ms();
        let quotas = &self.broker.quotas;
        let spent = if quota.strict { -admitted_but_failed } else { succeeded };
        if spent != 0 {
            quotas.record_mutations(quota, f64::from(spent), now_ms);
        }
        i32::try_from(quotas.mutation_throttle_ms(quota, now_ms)).unwrap_or(i32::MAX)
    }
}
