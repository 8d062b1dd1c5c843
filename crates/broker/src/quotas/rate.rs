//! The measurements quotas are checked against, as Kafka's metrics library keeps them: a
//! [`SampledRate`] (Kafka's `Rate` over a `SampledStat`) for byte rates and request time, and a
//! [`TokenBucket`] for controller mutations (KIP-599). Pure arithmetic on times the caller
//! passes (milliseconds of a [`strand_base::Clock`]), so tests drive them by hand.

/// `quota.window.num` samples of `quota.window.size.seconds` each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuotaWindow {
    /// `quota.window.num` (Kafka's default 11).
    pub samples: u32,
    /// `quota.window.size.seconds` in milliseconds (Kafka's default 1 s).
    pub sample_ms: i64,
}

impl Default for QuotaWindow {
    fn default() -> Self {
        QuotaWindow { samples: 11, sample_ms: 1000 }
    }
}

impl QuotaWindow {
    fn samples(&self) -> usize {
        usize::try_from(self.samples.max(1)).unwrap_or(1)
    }

    fn sample_ms(&self) -> i64 {
        self.sample_ms.max(1)
    }
}

/// One sample: what was recorded since `start_ms`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Sample {
    start_ms: i64,
    value: f64,
}

/// A rate per second over the last `samples` windows, as Kafka's `Rate`: recording goes to the
/// current sample until it is `sample_ms` old, then to the next (the oldest, reset); samples
/// older than the whole window are reset when measured; the rate divides their sum by the time
/// they span, counted as at least `samples - 1` whole windows, so a burst in a fresh window is
/// measured against nearly the full window rather than the few milliseconds since it began.
#[derive(Debug, Clone, PartialEq)]
pub struct SampledRate {
    window: QuotaWindow,
    samples: Vec<Sample>,
    current: usize,
}

impl SampledRate {
    pub fn new(window: QuotaWindow) -> SampledRate {
        SampledRate { window, samples: Vec::new(), current: 0 }
    }

    /// Adds `value` at `now_ms` (negative: takes back an earlier record, as Fetch does when it
    /// answers a throttled request with no data).
    pub fn record(&mut self, value: f64, now_ms: i64) {
        if self.samples.is_empty() {
            self.samples.push(Sample { start_ms: now_ms, value: 0.0 });
            self.current = 0;
        }
        if now_ms - self.samples[self.current].start_ms >= self.window.sample_ms() {
            self.current = (self.current + 1) % self.window.samples();
            let fresh = Sample { start_ms: now_ms, value: 0.0 };
            match self.samples.get_mut(self.current) {
                Some(sample) => *sample = fresh,
                None => self.samples.push(fresh),
            }
        }
        self.samples[self.current].value += value;
    }

    /// The rate per second at `now_ms`.
    pub fn measure(&mut self, now_ms: i64) -> f64 {
        self.purge(now_ms);
        let total: f64 = self.samples.iter().map(|s| s.value).sum();
        total / (self.window_ms(now_ms) as f64 / 1000.0)
    }

    /// How long a throttled client waits (Kafka's `ClientQuotaManager.throttleTime`): the time
    /// for the measured window to come back to `bound` per second; 0 within the bound.
    pub fn throttle_ms(&mut self, bound: f64, now_ms: i64) -> i64 {
        let rate = self.measure(now_ms);
        if rate <= bound || bound <= 0.0 {
            return 0;
        }
        ((rate - bound) / bound * self.window_ms(now_ms) as f64).round() as i64
    }

    /// The bytes (or units) `samples - 1` windows hold at `bound` per second: Kafka caps a
    /// consumer's fetch size by it (`getMaxValueInQuotaWindow`), so one response cannot exceed
    /// what the measured window allows.
    pub fn window_quota(&self, bound: f64) -> f64 {
        bound * ((self.window.samples() - 1) as f64 * self.window.sample_ms() as f64) / 1000.0
    }

    /// The time the samples span, as Kafka's `Rate.windowSize`: at least `samples - 1` windows
    /// and at least 1 ms.
    fn window_ms(&mut self, now_ms: i64) -> i64 {
        self.purge(now_ms);
        let oldest = self.samples.iter().map(|s| s.start_ms).min().unwrap_or(now_ms);
        let mut elapsed = now_ms - oldest;
        let sample_ms = self.window.sample_ms();
        let full = elapsed / sample_ms;
        let full_min = i64::from(self.window.samples.max(1)) - 1;
        if full < full_min {
            elapsed += (full_min - full) * sample_ms;
        }
        elapsed.max(1)
    }

    /// Resets the samples older than the whole window (Kafka's `purgeObsoleteSamples`).
    fn purge(&mut self, now_ms: i64) {
        let expire_ms = self.window.sample_ms() * i64::from(self.window.samples.max(1));
        for sample in &mut self.samples {
            if now_ms - sample.start_ms >= expire_ms {
                *sample = Sample { start_ms: now_ms, value: 0.0 };
            }
        }
    }
}

/// Kafka's `TokenBucket` (KIP-599): credits refill at `rate` per second up to a burst of
/// `rate * samples * sample seconds`; each mutation spends credits and may take them below
/// zero, after which the client waits until they are back at zero.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenBucket {
    window: QuotaWindow,
    tokens: f64,
    last_ms: Option<i64>,
}

impl TokenBucket {
    pub fn new(window: QuotaWindow) -> TokenBucket {
        TokenBucket { window, tokens: 0.0, last_ms: None }
    }

    /// The credits at `now_ms`, refilled at `rate` since the last look. A bucket starts full.
    pub fn tokens(&mut self, rate: f64, now_ms: i64) -> f64 {
        let burst = self.burst(rate);
        self.tokens = match self.last_ms {
            None => burst,
            Some(last) => (self.tokens + rate * (now_ms - last).max(0) as f64 / 1000.0).min(burst),
        };
        self.last_ms = Some(now_ms);
        self.tokens
    }

    /// Whether the bucket is in debt at `now_ms` (Kafka's strict mode refuses a mutation then).
    pub fn is_exceeded(&mut self, rate: f64, now_ms: i64) -> bool {
        self.tokens(rate, now_ms) < 0.0
    }

    /// Spends `value` credits at `now_ms` (negative: gives them back, up to the burst).
    pub fn record(&mut self, value: f64, rate: f64, now_ms: i64) {
        self.tokens(rate, now_ms);
        self.tokens = (self.tokens - value).min(self.burst(rate));
    }

    fn burst(&self, rate: f64) -> f64 {
        rate * f64::from(self.window.samples.max(1)) * self.window.sample_ms() as f64 / 1000.0
    }

    /// How long until the debt is paid back at `rate` (0 without debt), as Kafka's
    /// `ControllerMutationQuotaManager.throttleTime`.
    pub fn throttle_ms(&mut self, rate: f64, now_ms: i64) -> i64 {
        let tokens = self.tokens(rate, now_ms);
        if tokens >= 0.0 || rate <= 0.0 {
            return 0;
        }
        (-tokens / rate * 1000.0).round() as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WINDOW: QuotaWindow = QuotaWindow { samples: 11, sample_ms: 1000 };

    /// A first record is measured against `samples - 1` whole windows, not the instant since it.
    #[test]
    fn a_fresh_rate_spans_nearly_the_whole_window() {
        let mut rate = SampledRate::new(WINDOW);
        rate.record(10_000.0, 0);
        assert_eq!(rate.measure(0), 1000.0, "10 kB over 10 s");
        assert_eq!(rate.measure(500), 10_000.0 / 10.5);
    }

    /// Over a long steady run the rate is what was recorded per second, and samples older than
    /// the whole window drop out.
    #[test]
    fn a_steady_rate_is_measured_exactly_and_old_samples_expire() {
        let mut rate = SampledRate::new(WINDOW);
        for second in 0..30 {
            rate.record(500.0, second * 1000);
        }
        let measured = rate.measure(29_999);
        assert!((measured - 500.0).abs() < 25.0, "{measured}");
        assert_eq!(rate.measure(29_000 + 11_000), 0.0, "every sample expired");
    }

    /// Kafka's throttle: (rate - bound) / bound * the window the rate was measured over.
    #[test]
    fn throttle_time_brings_the_rate_back_to_the_bound() {
        let mut rate = SampledRate::new(WINDOW);
        rate.record(20_000.0, 0);
        // 20 kB over 10 s is 2000/s; with a bound of 1000/s: (2000 - 1000) / 1000 * 10 s.
        assert_eq!(rate.throttle_ms(1000.0, 0), 10_000);
        assert_eq!(rate.throttle_ms(2000.0, 0), 0, "at the bound: no throttle");
        rate.record(-20_000.0, 0);
        assert_eq!(rate.throttle_ms(1000.0, 0), 0, "a record taken back");
    }

    /// The bucket starts with a full burst, goes into debt, and refills at the rate.
    #[test]
    fn token_bucket_bursts_then_throttles_until_repaid() {
        let mut bucket = TokenBucket::new(WINDOW);
        assert_eq!(bucket.tokens(2.0, 0), 22.0, "rate 2/s: a burst of 2 x 11 s");
        assert!(!bucket.is_exceeded(2.0, 0));
        bucket.record(30.0, 2.0, 0);
        assert!(bucket.is_exceeded(2.0, 0));
        assert_eq!(bucket.throttle_ms(2.0, 0), 4000, "8 in debt at 2/s");
        assert_eq!(bucket.throttle_ms(2.0, 3000), 1000);
        assert!(!bucket.is_exceeded(2.0, 4000));
        assert_eq!(bucket.tokens(2.0, 100_000), 22.0, "refills no further than the burst");
    }
}
