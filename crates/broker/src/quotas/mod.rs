//! Client quotas enforced as Kafka's `ClientQuotaManager` family enforces them (KIP-13, KIP-55,
//! KIP-124, KIP-219, KIP-599), read from the metadata image's client quotas.
//!
//! - [`QuotaKind`]: the four quota keys a (user, client id) pair may be held to.
//! - [`quota_for`]: Kafka's precedence (`DefaultQuotaCallback`): the first of
//!   `/users/<user>/clients/<client-id>`, `/users/<user>/clients/<default>`, `/users/<user>`,
//!   `/users/<default>/clients/<client-id>`, `/users/<default>/clients/<default>`,
//!   `/users/<default>`, `/clients/<client-id>`, `/clients/<default>` that sets the key. What is
//!   measured together follows the entity that matched: a `/users/<user>` quota is shared by all
//!   that user's clients, a `/clients/<default>` one is per client id.
//! - [`ClientQuotas`]: the node's sensors, one per quota kind and measured pair, each a
//!   [`SampledRate`] (or a [`TokenBucket`] for controller mutations) over `quota.window.num`
//!   windows of `quota.window.size.seconds`; a record returns the throttle time in ms.
//!
//! - [`set_throttle_time_ms`]: a throttle written into any response that has the field.
//!
//! Nothing is measured for a kind no entity sets: enforcement costs one image lookup then.
//! Sensors idle for an hour are dropped (Kafka's inactive-sensor expiry), and at most
//! [`QUOTA_SENSORS_MAX`] are kept.

mod enforce;
mod mutations;
mod rate;
mod throttle_time;

use std::collections::HashMap;
use std::sync::Mutex;

use strand_metadata::image::ClientQuotaEntity;
use strand_metadata::image::ClientQuotasImage;
use strand_metadata::image::client_quotas::{ENTITY_CLIENT_ID, ENTITY_USER};

pub(crate) use enforce::QuotaCharge;
pub use rate::{QuotaWindow, SampledRate, TokenBucket};
pub use throttle_time::{set_throttle_time_ms, throttle_time_ms};

/// The most sensors kept at once (client ids are the client's to choose): past it, the one idle
/// longest is dropped.
pub const QUOTA_SENSORS_MAX: usize = 65_536;
/// How long an unused sensor is kept (Kafka's `InactiveSensorExpirationTimeSeconds`, 1 hour).
const SENSOR_IDLE_MAX_MS: i64 = 3_600_000;

/// A quota key enforced per (user, client id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QuotaKind {
    /// `producer_byte_rate`: bytes of Produce requests per second.
    Produce,
    /// `consumer_byte_rate`: bytes of consumers' Fetch responses per second.
    Fetch,
    /// `request_percentage`: request handling time, in percent of one thread.
    Request,
    /// `controller_mutation_rate`: partitions created or deleted per second.
    ControllerMutation,
}

impl QuotaKind {
    pub fn key(self) -> &'static str {
        match self {
            QuotaKind::Produce => "producer_byte_rate",
            QuotaKind::Fetch => "consumer_byte_rate",
            QuotaKind::Request => "request_percentage",
            QuotaKind::ControllerMutation => "controller_mutation_rate",
        }
    }
}

/// The pair a quota is measured for (Kafka's metric tags): empty strings for the part the
/// matched entity does not name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct QuotaTags {
    pub user: String,
    pub client_id: String,
}

/// The quota that applies to `user` / `client_id` for `kind`, with the pair it is measured for;
/// `None` when no entity sets it.
pub fn quota_for(quotas: &ClientQuotasImage, kind: QuotaKind, user: &str, client_id: &str) -> Option<(QuotaTags, f64)> {
    if !quotas.any_sets(kind.key()) {
        return None;
    }
    let entity = |user: Option<Option<&str>>, client: Option<Option<&str>>| {
        let parts = [(ENTITY_USER, user), (ENTITY_CLIENT_ID, client)];
        ClientQuotaEntity::new(parts.into_iter().filter_map(|(kind, name)| Some((kind, name?))))
    };
    let (named_user, named_client) = (Some(Some(user)), Some(Some(client_id)));
    let both = QuotaTags { user: user.to_owned(), client_id: client_id.to_owned() };
    let user_only = QuotaTags { user: user.to_owned(), client_id: String::new() };
    let client_only = QuotaTags { user: String::new(), client_id: client_id.to_owned() };
    let precedence = [
        (entity(named_user, named_client), &both),
        (entity(named_user, Some(None)), &both),
        (entity(named_user, None), &user_only),
        (entity(Some(None), named_client), &both),
        (entity(Some(None), Some(None)), &both),
        (entity(Some(None), None), &user_only),
        (entity(None, named_client), &client_only),
        (entity(None, Some(None)), &client_only),
    ];
    precedence.into_iter().find_map(|(entity, tags)| Some((tags.clone(), quotas.get(&entity, kind.key())?)))
}

#[derive(Debug)]
struct Sensor {
    rate: SampledRate,
    bucket: TokenBucket,
    last_ms: i64,
}

/// The node's quota sensors. Locked only for a record's arithmetic.
#[derive(Debug)]
pub struct ClientQuotas {
    window: QuotaWindow,
    /// `controller.quota.window.*`: the mutation quota's bucket holds this window's worth.
    controller_window: QuotaWindow,
    sensors: Mutex<HashMap<(QuotaKind, QuotaTags), Sensor>>,
}

/// A mutation quota as a request of CreateTopics, CreatePartitions or DeleteTopics spends it.
#[derive(Debug, Clone, PartialEq)]
pub struct MutationQuota {
    tags: QuotaTags,
    rate: f64,
    /// Strict (refuse once in debt) or permissive (record, only throttle afterwards), by version.
    pub strict: bool,
}

impl ClientQuotas {
    /// Byte and request quotas measured over `window` (`quota.window.*`), mutation quotas over
    /// `controller_window` (`controller.quota.window.*`).
    pub fn new(window: QuotaWindow, controller_window: QuotaWindow) -> ClientQuotas {
        ClientQuotas { window, controller_window, sensors: Mutex::new(HashMap::new()) }
    }

    /// Records `value` for `kind` of `user` / `client_id` at `now_ms`; the throttle time in ms
    /// (0 within the quota, or with no quota).
    pub fn record(
        &self,
        quotas: &ClientQuotasImage,
        kind: QuotaKind,
        user: &str,
        client_id: &str,
        value: f64,
        now_ms: i64,
    ) -> i64 {
        let Some((tags, bound)) = quota_for(quotas, kind, user, client_id) else { return 0 };
        self.with_sensor(kind, tags, now_ms, |sensor| {
            sensor.rate.record(value, now_ms);
            sensor.rate.throttle_ms(bound, now_ms)
        })
    }

    /// Takes back a record (a throttled Fetch is answered with no data).
    pub fn unrecord(
        &self,
        quotas: &ClientQuotasImage,
        kind: QuotaKind,
        user: &str,
        client_id: &str,
        value: f64,
        now_ms: i64,
    ) {
        if let Some((tags, _)) = quota_for(quotas, kind, user, client_id) {
            self.with_sensor(kind, tags, now_ms, |sensor| sensor.rate.record(-value, now_ms));
        }
    }

    /// The most `kind` units the quota's whole window allows `user` / `client_id` (Kafka caps a
    /// consumer's fetch size by it); `None` without a quota.
    pub fn window_quota(
        &self,
        quotas: &ClientQuotasImage,
        kind: QuotaKind,
        user: &str,
        client_id: &str,
    ) -> Option<f64> {
        let (_, bound) = quota_for(quotas, kind, user, client_id)?;
        Some(SampledRate::new(self.window).window_quota(bound))
    }

    /// The controller mutation quota of `user` / `client_id`, if one applies.
    pub fn mutation_quota(
        &self,
        quotas: &ClientQuotasImage,
        user: &str,
        client_id: &str,
        strict: bool,
    ) -> Option<MutationQuota> {
        let (tags, rate) = quota_for(quotas, QuotaKind::ControllerMutation, user, client_id)?;
        Some(MutationQuota { tags, rate, strict })
    }

    /// Whether `quota`'s bucket is in debt (a strict request refuses its next topic then).
    pub fn mutation_exceeded(&self, quota: &MutationQuota, now_ms: i64) -> bool {
        self.with_sensor(QuotaKind::ControllerMutation, quota.tags.clone(), now_ms, |s| {
            s.bucket.is_exceeded(quota.rate, now_ms)
        })
    }

    /// Spends `partitions` mutations.
    pub fn record_mutations(&self, quota: &MutationQuota, partitions: f64, now_ms: i64) {
        self.with_sensor(QuotaKind::ControllerMutation, quota.tags.clone(), now_ms, |s| {
            s.bucket.record(partitions, quota.rate, now_ms)
        });
    }

    /// How long the client waits for its debt to be repaid.
    pub fn mutation_throttle_ms(&self, quota: &MutationQuota, now_ms: i64) -> i64 {
        self.with_sensor(QuotaKind::ControllerMutation, quota.tags.clone(), now_ms, |s| {
            s.bucket.throttle_ms(quota.rate, now_ms)
        })
    }

    fn with_sensor<T>(&self, kind: QuotaKind, tags: QuotaTags, now_ms: i64, f: impl FnOnce(&mut Sensor) -> T) -> T {
        let mut sensors = self.sensors.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let key = (kind, tags);
        if !sensors.contains_key(&key) && sensors.len() >= QUOTA_SENSORS_MAX {
            sensors.retain(|_, s| now_ms - s.last_ms < SENSOR_IDLE_MAX_MS);
            if sensors.len() >= QUOTA_SENSORS_MAX {
                let idlest = sensors.iter().min_by_key(|(_, s)| s.last_ms).map(|(k, _)| k.clone());
                if let Some(idlest) = idlest {
                    sensors.remove(&idlest);
                }
            }
        }
        let (window, controller_window) = (self.window, self.controller_window);
        let sensor = sensors.entry(key).or_insert_with(|| Sensor {
            rate: SampledRate::new(window),
            bucket: TokenBucket::new(controller_window),
            last_ms: now_ms,
        });
        sensor.last_ms = now_ms;
        f(sensor)
    }
}

#[cfg(test)]
mod tests {
    use strand_metadata::image::{MetadataDelta, MetadataImage, MetadataProvenance};
    use strand_protocol::messages::ClientQuotaRecord;
    use strand_protocol::messages::client_quota_record::EntityData;
    use strand_protocol::messages::records::MetadataRecord;

    use super::*;

    /// An entity as `(type, name)` pairs, `None` the default.
    type Entity<'a> = &'a [(&'a str, Option<&'a str>)];

    /// An image whose entities (`(type, name)` pairs, `None` the default) set `producer_byte_rate`.
    fn image(entities: &[(Entity<'_>, f64)]) -> MetadataImage {
        image_of("producer_byte_rate", entities)
    }

    /// An image whose entities set quota `key`.
    fn image_of(key: &str, entities: &[(Entity<'_>, f64)]) -> MetadataImage {
        let mut delta = MetadataDelta::new(&MetadataImage::empty());
        for (entity, value) in entities {
            let entity = entity
                .iter()
                .map(|(kind, name)| EntityData {
                    entity_type: (*kind).to_owned(),
                    entity_name: name.map(str::to_owned),
                    ..Default::default()
                })
                .collect();
            let record = ClientQuotaRecord { entity, key: key.to_owned(), value: *value, ..Default::default() };
            delta.replay(&MetadataRecord::ClientQuotaRecord(record)).expect("replays");
        }
        delta.apply(MetadataProvenance { offset: 0, epoch: 0 })
    }

    /// Kafka's eight levels, each winning over those below it, with the pair it measures.
    #[test]
    fn precedence_follows_kafka_from_user_and_client_down_to_defaults() {
        let levels: [(Entity<'_>, f64, (&str, &str)); 8] = [
            (&[("user", Some("u")), ("client-id", Some("c"))], 1.0, ("u", "c")),
            (&[("user", Some("u")), ("client-id", None)], 2.0, ("u", "c")),
            (&[("user", Some("u"))], 3.0, ("u", "")),
            (&[("user", None), ("client-id", Some("c"))], 4.0, ("u", "c")),
            (&[("user", None), ("client-id", None)], 5.0, ("u", "c")),
            (&[("user", None)], 6.0, ("u", "")),
            (&[("client-id", Some("c"))], 7.0, ("", "c")),
            (&[("client-id", None)], 8.0, ("", "c")),
        ];
        for from in 0..levels.len() {
            let entities: Vec<(Entity<'_>, f64)> = levels[from..].iter().map(|(e, v, _)| (*e, *v)).collect();
            let image = image(&entities);
            let (tags, bound) = quota_for(image.client_quotas(), QuotaKind::Produce, "u", "c").expect("a quota");
            let (user, client) = levels[from].2;
            assert_eq!(
                (tags.user.as_str(), tags.client_id.as_str(), bound),
                (user, client, levels[from].1),
                "level {from}"
            );
        }
        let other = image(&[(&[("user", Some("someone-else"))], 1.0)]);
        assert_eq!(quota_for(other.client_quotas(), QuotaKind::Produce, "u", "c"), None);
        assert_eq!(quota_for(other.client_quotas(), QuotaKind::Fetch, "someone-else", "c"), None, "another key");
    }

    /// A user's quota is shared by its clients; a default client quota is per client id.
    #[test]
    fn sensors_are_shared_as_the_matched_entity_says() {
        let window = QuotaWindow::default();
        let shared = image(&[(&[("user", Some("u"))], 1000.0)]);
        let quotas = ClientQuotas::new(window, window);
        assert_eq!(quotas.record(shared.client_quotas(), QuotaKind::Produce, "u", "a", 10_000.0, 0), 0);
        let throttle = quotas.record(shared.client_quotas(), QuotaKind::Produce, "u", "b", 10_000.0, 0);
        assert_eq!(throttle, 10_000, "20 kB in 10 s at 1000/s: client b pays for a's bytes too");

        let per_client = image(&[(&[("client-id", None)], 1000.0)]);
        let quotas = ClientQuotas::new(window, window);
        assert_eq!(quotas.record(per_client.client_quotas(), QuotaKind::Produce, "u", "a", 10_000.0, 0), 0);
        assert_eq!(quotas.record(per_client.client_quotas(), QuotaKind::Produce, "u", "b", 10_000.0, 0), 0);
        assert_eq!(quotas.record(per_client.client_quotas(), QuotaKind::Produce, "u", "a", 10_000.0, 0), 10_000);
    }

    /// The mutation quota's burst is `controller.quota.window.*`'s, not `quota.window.*`'s: at 5
    /// partitions a second over 2 windows of 1 s, 10 mutations at once are within it, 11 are not.
    #[test]
    fn the_mutation_burst_is_the_controller_window() {
        let controller_window = QuotaWindow { samples: 2, sample_ms: 1000 };
        let quotas = ClientQuotas::new(QuotaWindow::default(), controller_window);
        let image = image_of("controller_mutation_rate", &[(&[("user", Some("u"))], 5.0)]);
        let quota = quotas.mutation_quota(image.client_quotas(), "u", "c", true).expect("a quota");
        quotas.record_mutations(&quota, 10.0, 0);
        assert!(!quotas.mutation_exceeded(&quota, 0), "10 = 5/s x 2 s, within the burst");
        quotas.record_mutations(&quota, 1.0, 0);
        assert!(quotas.mutation_exceeded(&quota, 0), "one past the burst");
        assert_eq!(quotas.mutation_throttle_ms(&quota, 0), 200, "1 partition's debt at 5/s");
    }
}
