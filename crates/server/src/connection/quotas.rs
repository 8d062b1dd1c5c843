//! Kafka's `ConnectionQuotas` for the broker listeners: `max.connections`,
//! `max.connections.per.ip` (with `max.connections.per.ip.overrides`) and
//! `max.connection.creation.rate`, with Kafka's semantics:
//!
//! - at `max.connections` the listener stops accepting until a connection closes (new
//!   connections wait in the socket's backlog; Kafka's acceptor blocks the same way);
//! - past the creation rate the listener waits before its next accept, at most a second per
//!   connection (Kafka's bound on a throttle, `quota.window.size.seconds`);
//! - a connection from an address that already has its maximum is accepted and closed at once.
//!
//! The inter-broker listener, when it is not the only broker listener, is not held back by the
//! broker-wide count or rate (Kafka's "protected" listener), so followers can always fetch. Kafka
//! then also closes the least recently used connection of another listener to stay at the limit;
//! Strand does not: the broker-wide count can exceed `max.connections` by the inter-broker
//! connections.
//!
//! On top of these, KIP-612's per-IP creation rate (`connection_creation_rate` of an `ip`
//! client-quota entity, or of the `<default>` ip, from the metadata image): each accepted
//! connection is recorded against its address's rate over `quota.window.num` windows of
//! `quota.window.size.seconds`; past it the connection is closed once the throttle time has
//! passed (Kafka's delayed close of a throttled connection), at most
//! [`IP_RATE_SENSORS_MAX`] addresses measured at once.
//!
//! What it is not: per-listener limits (`listener.name.X.max.connections`), which configuration
//! refuses.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use strand_broker::quotas::{QuotaWindow, SampledRate};
use strand_metadata::image::client_quotas::ENTITY_IP;
use strand_metadata::image::{ClientQuotaEntity, ClientQuotasImage};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// The most addresses whose creation rate is measured at once: past it, the one idle longest is
/// forgotten.
pub const IP_RATE_SENSORS_MAX: usize = 65_536;
/// KIP-612's quota key.
const CONNECTION_CREATION_RATE: &str = "connection_creation_rate";

/// The longest an accept waits for the creation rate: Kafka bounds a connection's throttle by
/// `quota.window.size.seconds` (default 1 s).
const CREATION_THROTTLE_MAX: Duration = Duration::from_secs(1);

/// The settings, as configured.
#[derive(Debug, Clone)]
pub struct QuotaSettings {
    /// `max.connections`.
    pub connections_max: u32,
    /// `max.connections.per.ip`.
    pub connections_per_ip_max: u32,
    /// `max.connections.per.ip.overrides`, resolved to addresses.
    pub connections_per_ip_overrides: HashMap<IpAddr, u32>,
    /// `max.connection.creation.rate`, per second; `None` is unlimited (Kafka's default,
    /// `Integer.MAX_VALUE`).
    pub creation_rate_per_s: Option<u32>,
}

/// The node's connection counts, shared by its broker listeners.
#[derive(Debug)]
pub struct ConnectionQuotas {
    settings: QuotaSettings,
    /// One permit per connection `max.connections` allows.
    slots: Arc<Semaphore>,
    per_ip: Mutex<HashMap<IpAddr, u32>>,
    /// When the next connection may be accepted under the creation rate.
    next_creation: tokio::sync::Mutex<Option<Instant>>,
    /// KIP-612: each address's creation rate, with when it last connected (ms).
    ip_rates: Mutex<HashMap<IpAddr, (SampledRate, i64)>>,
    /// `quota.window.num` windows of `quota.window.size.seconds`.
    window: QuotaWindow,
}

/// What a connection holds while it is open: its slot and its address's count. Dropping it
/// gives both back.
#[derive(Debug)]
pub struct ConnectionPermit {
    quotas: Arc<ConnectionQuotas>,
    address: IpAddr,
    _slot: Option<OwnedSemaphorePermit>,
}

/// A slot under `max.connections`, taken before an accept.
#[derive(Debug)]
pub struct Slot(Option<OwnedSemaphorePermit>);

/// Why an accepted connection was refused: its address has its maximum already.
#[derive(Debug, PartialEq, Eq)]
pub struct TooManyConnections {
    pub address: IpAddr,
    pub max: u32,
}

impl std::fmt::Display for TooManyConnections {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "rejected connection from {}, address already has the configured maximum of {} connections \
             (max.connections.per.ip)",
            self.address, self.max
        )
    }
}

impl ConnectionQuotas {
    pub fn new(mut settings: QuotaSettings) -> Arc<ConnectionQuotas> {
        let overrides = std::mem::take(&mut settings.connections_per_ip_overrides);
        settings.connections_per_ip_overrides =
            overrides.into_iter().map(|(address, max)| (address.to_canonical(), max)).collect();
        let permits = usize::try_from(settings.connections_max).unwrap_or(usize::MAX).min(Semaphore::MAX_PERMITS);
        Arc::new(ConnectionQuotas {
            settings,
            slots: Arc::new(Semaphore::new(permits)),
            per_ip: Mutex::new(HashMap::new()),
            next_creation: tokio::sync::Mutex::new(None),
            ip_rates: Mutex::new(HashMap::new()),
            window: QuotaWindow::default(),
        })
    }

    /// The same quotas measuring IP creation rates over `window`.
    pub fn with_window(mut self: Arc<Self>, window: QuotaWindow) -> Arc<Self> {
        if let Some(quotas) = Arc::get_mut(&mut self) {
            quotas.window = window;
        }
        self
    }

    /// KIP-612: records a connection from `address` at `now_ms` against its creation rate quota
    /// in `quotas` (the address's own, else the default ip's); how long to hold the connection
    /// before closing it if that is past the quota, `None` to serve it.
    pub fn ip_creation_throttle(&self, quotas: &ClientQuotasImage, address: IpAddr, now_ms: i64) -> Option<Duration> {
        if !quotas.any_sets(CONNECTION_CREATION_RATE) {
            return None;
        }
        let address = address.to_canonical();
        let text = address.to_string();
        let named = ClientQuotaEntity::new([(ENTITY_IP, Some(text.as_str()))]);
        let default = ClientQuotaEntity::new([(ENTITY_IP, None)]);
        let bound =
            quotas.get(&named, CONNECTION_CREATION_RATE).or_else(|| quotas.get(&default, CONNECTION_CREATION_RATE))?;
        let mut rates = self.ip_rates.lock().unwrap_or_else(PoisonError::into_inner);
        if !rates.contains_key(&address) && rates.len() >= IP_RATE_SENSORS_MAX {
            let idlest = rates.iter().min_by_key(|(_, (_, last))| *last).map(|(ip, _)| *ip);
            if let Some(idlest) = idlest {
                rates.remove(&idlest);
            }
        }
        let (rate, last) = rates.entry(address).or_insert_with(|| (SampledRate::new(self.window), now_ms));
        *last = now_ms;
        rate.record(1.0, now_ms);
        let throttle_ms = rate.throttle_ms(bound, now_ms);
        (throttle_ms > 0).then(|| Duration::from_millis(u64::try_from(throttle_ms).unwrap_or(0)))
    }

    /// Waits until the listener may accept its next connection: the creation rate first, then a
    /// slot under `max.connections`. A protected (inter-broker) listener waits for neither.
    pub async fn wait_for_slot(&self, protected: bool) -> Slot {
        if protected {
            return Slot(None);
        }
        self.wait_for_creation_rate().await;
        match Arc::clone(&self.slots).acquire_owned().await {
            Ok(permit) => Slot(Some(permit)),
            // The semaphore is never closed; should it be, the count is not enforced.
            Err(_) => Slot(None),
        }
    }

    /// Counts an accepted connection from `address`, or refuses it if the address has its
    /// maximum already.
    pub fn admit(self: &Arc<Self>, slot: Slot, address: IpAddr) -> Result<ConnectionPermit, TooManyConnections> {
        let address = address.to_canonical();
        let max = self.settings.connections_per_ip_overrides.get(&address).copied();
        let max = max.unwrap_or(self.settings.connections_per_ip_max);
        let mut per_ip = self.per_ip.lock().unwrap_or_else(PoisonError::into_inner);
        let count = per_ip.entry(address).or_insert(0);
        if *count >= max {
            if *count == 0 {
                per_ip.remove(&address);
            }
            return Err(TooManyConnections { address, max });
        }
        *count += 1;
        Ok(ConnectionPermit { quotas: Arc::clone(self), address, _slot: slot.0 })
    }

    /// The open connections from `address`.
    pub fn count(&self, address: IpAddr) -> u32 {
        let per_ip = self.per_ip.lock().unwrap_or_else(PoisonError::into_inner);
        per_ip.get(&address.to_canonical()).copied().unwrap_or(0)
    }

    /// Spaces accepts `1 / max.connection.creation.rate` apart, allowing a burst of one second's
    /// worth after a quiet spell (a token bucket, kept as the time the next token is due).
    async fn wait_for_creation_rate(&self) {
        let Some(rate) = self.settings.creation_rate_per_s else { return };
        let interval = match rate {
            0 => CREATION_THROTTLE_MAX,
            rate => (Duration::from_secs(1) / rate).min(CREATION_THROTTLE_MAX),
        };
        let burst = interval * rate.saturating_sub(1);
        let mut due = self.next_creation.lock().await;
        let now = Instant::now();
        let next = due.map_or(now, |at| at.max(now));
        if let Some(wait_until) = next.checked_sub(burst).filter(|at| *at > now) {
            tokio::time::sleep_until(wait_until).await;
        }
        *due = Some(next + interval);
    }
}

impl Drop for ConnectionPermit {
    fn drop(&mut self) {
        let mut per_ip = self.quotas.per_ip.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = per_ip.get_mut(&self.address) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                per_ip.remove(&self.address);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quotas(per_ip: u32, overrides: &[(&str, u32)], rate: Option<u32>) -> Arc<ConnectionQuotas> {
        ConnectionQuotas::new(QuotaSettings {
            connections_max: 2,
            connections_per_ip_max: per_ip,
            connections_per_ip_overrides: overrides.iter().map(|(ip, n)| (ip.parse().expect("ip"), *n)).collect(),
            creation_rate_per_s: rate,
        })
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("ip")
    }

    /// The per-address count refuses the connection past its maximum, an override replaces the
    /// default for its address, and closing a connection gives its place back.
    #[tokio::test]
    async fn per_address_counts_follow_their_overrides() {
        let quotas = quotas(1, &[("10.0.0.2", 0), ("::ffff:10.0.0.3", 3)], None);
        let first = quotas.admit(Slot(None), ip("10.0.0.1")).expect("first");
        assert_eq!(
            quotas.admit(Slot(None), ip("10.0.0.1")).err(),
            Some(TooManyConnections { address: ip("10.0.0.1"), max: 1 })
        );
        assert!(quotas.admit(Slot(None), ip("10.0.0.2")).is_err(), "overridden to none");
        let held: Vec<_> = (0..3).map(|_| quotas.admit(Slot(None), ip("10.0.0.3")).expect("overridden to 3")).collect();
        assert!(quotas.admit(Slot(None), ip("::ffff:10.0.0.3")).is_err(), "a mapped address is the same address");
        drop(first);
        assert_eq!(quotas.count(ip("10.0.0.1")), 0);
        assert!(quotas.admit(Slot(None), ip("10.0.0.1")).is_ok(), "its place is back");
        drop(held);
    }

    /// At `max.connections` the next slot waits until a connection closes; a protected listener
    /// does not wait.
    #[tokio::test]
    async fn slots_wait_for_a_close() {
        let quotas = quotas(u32::MAX, &[], None);
        let a = quotas.admit(quotas.wait_for_slot(false).await, ip("10.0.0.1")).expect("a");
        let _b = quotas.admit(quotas.wait_for_slot(false).await, ip("10.0.0.1")).expect("b");
        let _protected = quotas.wait_for_slot(true).await;
        let third = tokio::spawn({
            let quotas = Arc::clone(&quotas);
            async move { quotas.wait_for_slot(false).await }
        });
        tokio::task::yield_now().await;
        assert!(!third.is_finished(), "no slot while two connections are open");
        drop(a);
        third.await.expect("a slot once one closed");
    }

    /// KIP-612: an address past its own creation rate (or the default ip's) is throttled, others
    /// not; the rate is its own per address.
    #[test]
    fn ip_creation_rates_follow_their_quotas() {
        use strand_metadata::image::{MetadataDelta, MetadataImage, MetadataProvenance};
        use strand_protocol::messages::ClientQuotaRecord;
        use strand_protocol::messages::client_quota_record::EntityData;
        use strand_protocol::messages::records::MetadataRecord;
        let mut delta = MetadataDelta::new(&MetadataImage::empty());
        for (name, value) in [(Some("10.0.0.1"), 1.0), (None, 100.0)] {
            let entity = vec![EntityData {
                entity_type: "ip".into(),
                entity_name: name.map(str::to_owned),
                ..Default::default()
            }];
            let record =
                ClientQuotaRecord { entity, key: CONNECTION_CREATION_RATE.into(), value, ..Default::default() };
            delta.replay(&MetadataRecord::ClientQuotaRecord(record)).expect("replays");
        }
        let image = delta.apply(MetadataProvenance { offset: 0, epoch: 0 });
        let quotas = quotas(u32::MAX, &[], None);
        let throttled = |address: &str, count: usize| {
            (0..count).filter(|_| quotas.ip_creation_throttle(image.client_quotas(), ip(address), 0).is_some()).count()
        };
        // 1 a second over a window of at least 10 s: 10 pass, the 11th is throttled.
        assert_eq!(throttled("10.0.0.1", 10), 0);
        assert_eq!(
            quotas.ip_creation_throttle(image.client_quotas(), ip("10.0.0.1"), 0),
            Some(Duration::from_millis(1000))
        );
        assert_eq!(throttled("10.0.0.2", 50), 0, "the default ip's 100 a second");
        assert_eq!(throttled("10.0.0.2", 1000), 1000 - 950, "past 1000 in 10 s");
        let none = ClientQuotasImage::default();
        assert_eq!(quotas.ip_creation_throttle(&none, ip("10.0.0.1"), 0), None, "no quota: never");
    }

    /// Accepts are spaced by the creation rate after a burst of one second's worth.
    #[tokio::test(start_paused = true)]
    async fn creation_rate_spaces_accepts() {
        let quotas = quotas(u32::MAX, &[], Some(4));
        let start = Instant::now();
        for _ in 0..4 {
            quotas.wait_for_creation_rate().await;
        }
        assert!(start.elapsed() < Duration::from_millis(250), "a burst of one second's worth");
        for _ in 0..4 {
            quotas.wait_for_creation_rate().await;
        }
        assert!(start.elapsed() >= Duration::from_millis(750), "then 250 ms apart: {:?}", start.elapsed());
    }
}
