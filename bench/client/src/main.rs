//! The benchmark's native Kafka client (librdkafka through `rdkafka`), run by bench/run.sh against
//! Apache Kafka and Strand alike. Two commands, each printing one `RESULT key=value ...` line:
//!
//! - `produce`: sends `--records` records of `--record-size` bytes (null keys, one payload) as
//!   fast as librdkafka takes them, waits for every delivery report, and reports records/s, MiB/s,
//!   the send-to-acknowledgement latency percentiles and this process's own CPU time
//!   (`getrusage`, librdkafka's threads included), so a run limited by the client shows.
//! - `consume`: reads `--records` records from the beginning of the topic's `--partitions`
//!   partitions (assigned, no group), and reports records/s, MiB/s and its own CPU time.
//! - `e2e`: end-to-end latency the way Kafka's `EndToEndLatency` tool measures it, with
//!   microsecond percentiles (that tool prints whole milliseconds): one record at a time, sent
//!   with `linger.ms=0` and awaited, then consumed (`fetch.wait.max.ms=0`) from the topic's single
//!   partition; the latency is from before the send to the record's arrival.
//! - `first-ack`: measures start-up. Given the instant the broker process (or a cluster's
//!   processes) was started (`--since-unix-ns`), it waits for every bootstrap address to accept,
//!   then produces one record with `acks=all` (the topic is auto-created) until it is
//!   acknowledged, and reports the milliseconds from the start to that acknowledgement.
//! - `topic-ready`: waits until the topic has `--partitions` partitions, each with a leader and
//!   `--replicas` replicas all in its ISR (as the Metadata response tells them), so a cluster
//!   workload starts on a fully replicated topic.
//!
//! Options common to all: `--bootstrap HOST:PORT[,HOST:PORT...]`, `--topic NAME`, and any number
//! of `--set key=value` librdkafka settings applied last.

// A benchmark client: it reads the clock and opens sockets (the repository's clippy.toml forbids
// both in the broker's deterministic crates, which this is not).
#![allow(clippy::disallowed_methods)]

use std::collections::HashMap;
use std::net::{TcpStream, ToSocketAddrs};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::Message;
use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer, ProducerContext};
use rdkafka::{ClientConfig, ClientContext, Offset, TopicPartitionList};

const USAGE: &str = "usage:
  bench-client produce --bootstrap HOST:PORT --topic T --records N --record-size BYTES [--acks 1|all] [--set k=v]...
  bench-client consume --bootstrap HOST:PORT --topic T --records N --partitions P [--set k=v]...
  bench-client e2e --bootstrap HOST:PORT --topic T --records N --record-size BYTES [--acks 1|all] [--set k=v]...
  bench-client first-ack --bootstrap HOST:PORT[,...] --topic T --since-unix-ns NS [--timeout-s S] [--set k=v]...
  bench-client topic-ready --bootstrap HOST:PORT[,...] --topic T --partitions P --replicas R [--timeout-s S] [--set k=v]...";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("produce") => Options::parse(&args[1..]).and_then(|o| produce(&o)),
        Some("consume") => Options::parse(&args[1..]).and_then(|o| consume(&o)),
        Some("e2e") => Options::parse(&args[1..]).and_then(|o| end_to_end(&o)),
        Some("first-ack") => Options::parse(&args[1..]).and_then(|o| first_ack(&o)),
        Some("topic-ready") => Options::parse(&args[1..]).and_then(|o| topic_ready(&o)),
        _ => Err(USAGE.to_owned()),
    };
    match result {
        Ok(line) => {
            println!("RESULT {line}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("bench-client: {error}");
            ExitCode::FAILURE
        }
    }
}

/// `--name value` pairs; `--set` may repeat.
struct Options {
    values: HashMap<String, String>,
    settings: Vec<(String, String)>,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options, String> {
        let mut values = HashMap::new();
        let mut settings = Vec::new();
        let mut rest = args.iter();
        while let Some(name) = rest.next() {
            let name = name.strip_prefix("--").ok_or_else(|| format!("expected an option, got '{name}'\n{USAGE}"))?;
            let value = rest.next().ok_or_else(|| format!("--{name} needs a value"))?;
            if name == "set" {
                let (key, value) = value.split_once('=').ok_or_else(|| format!("--set {value}: expected key=value"))?;
                settings.push((key.to_owned(), value.to_owned()));
            } else {
                values.insert(name.to_owned(), value.clone());
            }
        }
        Ok(Options { values, settings })
    }

    fn text(&self, name: &str) -> Result<&str, String> {
        self.values.get(name).map(String::as_str).ok_or_else(|| format!("--{name} is required\n{USAGE}"))
    }

    fn number(&self, name: &str) -> Result<u64, String> {
        self.text(name)?.parse().map_err(|e| format!("--{name}: {e}"))
    }

    fn number_or(&self, name: &str, default: u64) -> Result<u64, String> {
        if self.values.contains_key(name) { self.number(name) } else { Ok(default) }
    }

    /// librdkafka's configuration: the bootstrap server, `base` settings, then every `--set`.
    fn client_config(&self, base: &[(&str, &str)]) -> Result<ClientConfig, String> {
        let mut config = ClientConfig::new();
        config.set("bootstrap.servers", self.text("bootstrap")?);
        for (key, value) in base {
            config.set(*key, *value);
        }
        for (key, value) in &self.settings {
            config.set(key, value);
        }
        Ok(config)
    }
}

/// Delivery reports: each record's latency, in microseconds, from `send` to its report.
struct Deliveries {
    start: Instant,
    latencies_us: Mutex<Vec<u32>>,
    failed: AtomicU64,
    first_error: Mutex<Option<String>>,
}

impl ClientContext for Deliveries {}

impl ProducerContext for Deliveries {
    /// Microseconds from `start` to the record's `send`.
    type DeliveryOpaque = usize;

    fn delivery(&self, result: &DeliveryResult<'_>, sent_us: usize) {
        match result {
            Ok(_) => {
                let now_us = self.start.elapsed().as_micros() as usize;
                let latency = u32::try_from(now_us.saturating_sub(sent_us)).unwrap_or(u32::MAX);
                self.latencies_us.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(latency);
            }
            Err((error, _)) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                let mut first = self.first_error.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                first.get_or_insert_with(|| error.to_string());
            }
        }
    }
}

fn produce(options: &Options) -> Result<String, String> {
    let topic = options.text("topic")?;
    let records = options.number("records")?;
    let record_size = usize::try_from(options.number("record-size")?).map_err(|e| e.to_string())?;
    let acks = options.values.get("acks").map_or("all", String::as_str);
    let config = options.client_config(&[("acks", acks)])?;
    let deliveries = Deliveries {
        start: Instant::now(),
        latencies_us: Mutex::new(Vec::with_capacity(usize::try_from(records).unwrap_or(0))),
        failed: AtomicU64::new(0),
        first_error: Mutex::new(None),
    };
    let producer: BaseProducer<Deliveries> =
        config.create_with_context(deliveries).map_err(|e| format!("creating the producer: {e}"))?;
    let payload = payload(record_size);

    let start = producer.context().start;
    for sent in 0..records {
        let sent_us = start.elapsed().as_micros() as usize;
        let mut record = BaseRecord::<(), [u8], usize>::with_opaque_to(topic, sent_us).payload(&payload);
        loop {
            match producer.send(record) {
                Ok(()) => break,
                // librdkafka's queue is full: serve delivery reports until there is room.
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                    record = back;
                    producer.poll(Duration::from_millis(1));
                }
                Err((error, _)) => return Err(format!("send failed after {sent} records: {error}")),
            }
        }
        if sent % 1024 == 0 {
            producer.poll(Duration::ZERO);
        }
    }
    // Not `flush()`: the wrapper's flush waits in slices of 100 ms before serving the last
    // delivery reports, which would add up to 100 ms to every run whatever the broker. Polling
    // serves each report as it arrives (`poll` blocks until one does, at most 1 ms).
    let deadline = Instant::now() + Duration::from_secs(300);
    while producer.in_flight_count() > 0 {
        if Instant::now() > deadline {
            return Err(format!("{} records still in flight after 300 s", producer.in_flight_count()));
        }
        producer.poll(Duration::from_millis(1));
    }
    let seconds = start.elapsed().as_secs_f64();
    let (user_s, system_s) = cpu_seconds();

    let context = producer.context();
    let failed = context.failed.load(Ordering::Relaxed);
    if failed > 0 {
        let first = context.first_error.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        return Err(format!("{failed} of {records} records failed; first error: {}", first.unwrap_or_default()));
    }
    let mut latencies =
        std::mem::take(&mut *context.latencies_us.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
    latencies.sort_unstable();
    let delivered = latencies.len() as f64;
    let mean_ms = latencies.iter().map(|&l| f64::from(l)).sum::<f64>() / delivered.max(1.0) / 1000.0;
    let mib = delivered * record_size as f64 / (1024.0 * 1024.0);
    Ok(format!(
        "records={} seconds={seconds:.3} records_per_s={:.1} mib_per_s={:.2} avg_ms={mean_ms:.3} p50_ms={:.3} \
         p99_ms={:.3} p999_ms={:.3} max_ms={:.3} client_user_s={user_s:.3} client_sys_s={system_s:.3}",
        latencies.len(),
        delivered / seconds,
        mib / seconds,
        percentile_ms(&latencies, 0.50),
        percentile_ms(&latencies, 0.99),
        percentile_ms(&latencies, 0.999),
        percentile_ms(&latencies, 1.0),
    ))
}

/// A record's value: `size` bytes of letters (the same every record, uncompressed anyway).
fn payload(size: usize) -> Vec<u8> {
    let mut state: u32 = 0x9e37_79b9;
    (0..size)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            b'A' + (state % 26) as u8
        })
        .collect()
}

/// The `p` quantile of sorted microsecond latencies, in milliseconds.
fn percentile_ms(sorted_us: &[u32], p: f64) -> f64 {
    if sorted_us.is_empty() {
        return f64::NAN;
    }
    let rank = ((p * sorted_us.len() as f64).ceil() as usize).clamp(1, sorted_us.len());
    f64::from(sorted_us[rank - 1]) / 1000.0
}

/// This process's user and system CPU seconds so far, every thread included.
fn cpu_seconds() -> (f64, f64) {
    // SAFETY: getrusage writes into the zeroed struct it is given and reads nothing else.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (seconds(usage.ru_utime), seconds(usage.ru_stime))
}

fn first_ack(options: &Options) -> Result<String, String> {
    let since_ns = u128::from(options.number("since-unix-ns")?);
    let timeout = Duration::from_secs(options.number_or("timeout-s", 120)?);
    let topic = options.text("topic")?;
    let bootstrap = options.text("bootstrap")?;
    let waited_ms = || {
        let now_ns = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        now_ns.saturating_sub(since_ns) as f64 / 1e6
    };
    let deadline = Instant::now() + timeout;
    // Every node of a cluster: port_open_ms is when the last of them accepts.
    for server in bootstrap.split(',') {
        let address = server
            .to_socket_addrs()
            .map_err(|e| format!("{server}: {e}"))?
            .next()
            .ok_or_else(|| format!("{server}: no address"))?;
        // Poll the port every 2 ms: librdkafka's own reconnect back-off would blur the measurement.
        while TcpStream::connect_timeout(&address, Duration::from_millis(100)).is_err() {
            if Instant::now() > deadline {
                return Err(format!("{server} did not accept a connection within {timeout:?}"));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    let port_open_ms = waited_ms();

    let config = options.client_config(&[
        ("acks", "all"),
        ("linger.ms", "0"),
        ("reconnect.backoff.ms", "5"),
        ("reconnect.backoff.max.ms", "20"),
        ("retry.backoff.ms", "5"),
        ("retry.backoff.max.ms", "20"),
        ("topic.metadata.refresh.fast.interval.ms", "5"),
        ("message.timeout.ms", "5000"),
    ])?;
    let deliveries = Deliveries {
        start: Instant::now(),
        latencies_us: Mutex::new(Vec::new()),
        failed: AtomicU64::new(0),
        first_error: Mutex::new(None),
    };
    let producer: BaseProducer<Deliveries> =
        config.create_with_context(deliveries).map_err(|e| format!("creating the producer: {e}"))?;
    let mut attempts = 0;
    loop {
        attempts += 1;
        let record = BaseRecord::<(), [u8], usize>::with_opaque_to(topic, 0).payload(b"first");
        producer.send(record).map_err(|(e, _)| format!("send: {e}"))?;
        while producer.in_flight_count() > 0 && Instant::now() < deadline {
            producer.poll(Duration::from_millis(1));
        }
        let acknowledged =
            !producer.context().latencies_us.lock().unwrap_or_else(std::sync::PoisonError::into_inner).is_empty();
        if acknowledged {
            return Ok(format!("first_ack_ms={:.1} port_open_ms={port_open_ms:.1} attempts={attempts}", waited_ms()));
        }
        if Instant::now() >= deadline {
            let error =
                producer.context().first_error.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
            return Err(format!("no acknowledged produce within {timeout:?}: {}", error.unwrap_or_default()));
        }
    }
}

/// Polls the topic's metadata until every partition has a leader and a full ISR.
fn topic_ready(options: &Options) -> Result<String, String> {
    let topic = options.text("topic")?;
    let partitions = usize::try_from(options.number("partitions")?).map_err(|e| e.to_string())?;
    let replicas = usize::try_from(options.number("replicas")?).map_err(|e| e.to_string())?;
    let timeout = Duration::from_secs(options.number_or("timeout-s", 60)?);
    let consumer: BaseConsumer = options
        .client_config(&[("topic.metadata.refresh.fast.interval.ms", "10")])?
        .create()
        .map_err(|e| format!("creating the client: {e}"))?;
    let start = Instant::now();
    loop {
        let last = match consumer.fetch_metadata(Some(topic), Duration::from_secs(5)) {
            Ok(metadata) => {
                let found = metadata.topics().iter().find(|t| t.name() == topic);
                match found {
                    Some(t) if t.error().is_none() && t.partitions().len() == partitions => {
                        let lagging: Vec<String> = t
                            .partitions()
                            .iter()
                            .filter(|p| {
                                p.error().is_some()
                                    || p.leader() < 0
                                    || p.replicas().len() != replicas
                                    || p.isr().len() != replicas
                            })
                            .map(|p| {
                                format!(
                                    "{}: leader {} replicas {:?} isr {:?}",
                                    p.id(),
                                    p.leader(),
                                    p.replicas(),
                                    p.isr()
                                )
                            })
                            .collect();
                        if lagging.is_empty() {
                            return Ok(format!("ready_ms={:.1}", start.elapsed().as_secs_f64() * 1000.0));
                        }
                        format!("partitions not ready: {}", lagging.join("; "))
                    }
                    Some(t) => format!("{} partitions, error {:?}", t.partitions().len(), t.error()),
                    None => "the topic is not in the metadata".to_owned(),
                }
            }
            Err(error) => format!("metadata: {error}"),
        };
        if start.elapsed() > timeout {
            return Err(format!("{topic} not fully replicated within {timeout:?}: {last}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn consume(options: &Options) -> Result<String, String> {
    let topic = options.text("topic")?;
    let records = options.number("records")?;
    let partitions = i32::try_from(options.number("partitions")?).map_err(|e| e.to_string())?;
    let consumer: BaseConsumer = options
        .client_config(&[("group.id", "bench-consume"), ("enable.auto.commit", "false")])?
        .create()
        .map_err(|e| format!("creating the consumer: {e}"))?;
    let mut assignment = TopicPartitionList::new();
    for partition in 0..partitions {
        assignment.add_partition_offset(topic, partition, Offset::Beginning).map_err(|e| e.to_string())?;
    }
    consumer.assign(&assignment).map_err(|e| format!("assign: {e}"))?;

    let idle_max = Duration::from_secs(30);
    let mut received = 0u64;
    let mut bytes = 0u64;
    let start = Instant::now();
    let mut last = start;
    // The rate is timed from the first record, as consumer-perf's fetch rate excludes its group
    // join: librdkafka spends a fixed ~0.5 s before it (its first fetch waits on a metadata
    // round and a back-off, on either broker), which is not the broker's fetch throughput.
    let mut first: Option<Instant> = None;
    while received < records {
        match consumer.poll(Duration::from_millis(100)) {
            Some(Ok(message)) => {
                received += 1;
                bytes += message.payload_len() as u64;
                last = Instant::now();
                first.get_or_insert(last);
            }
            Some(Err(error)) => return Err(format!("after {received} records: {error}")),
            None if last.elapsed() > idle_max => {
                return Err(format!("only {received} of {records} records arrived ({idle_max:?} without one)"));
            }
            None => {}
        }
    }
    let total_seconds = start.elapsed().as_secs_f64();
    let first_record_ms = first.map_or(0.0, |f| f.duration_since(start).as_secs_f64() * 1e3);
    let seconds = last.duration_since(first.unwrap_or(start)).as_secs_f64().max(1e-6);
    let (user_s, system_s) = cpu_seconds();
    Ok(format!(
        "records={received} seconds={seconds:.3} records_per_s={:.1} mib_per_s={:.2} total_seconds={total_seconds:.3} \
         total_records_per_s={:.1} first_record_ms={first_record_ms:.1} client_user_s={user_s:.3} client_sys_s={system_s:.3}",
        received as f64 / seconds,
        bytes as f64 / (1024.0 * 1024.0) / seconds,
        received as f64 / total_seconds,
    ))
}

fn end_to_end(options: &Options) -> Result<String, String> {
    let topic = options.text("topic")?;
    let records = options.number("records")?;
    let record_size = usize::try_from(options.number("record-size")?).map_err(|e| e.to_string())?;
    let acks = options.values.get("acks").map_or("all", String::as_str);
    let deliveries = Deliveries {
        start: Instant::now(),
        latencies_us: Mutex::new(Vec::new()),
        failed: AtomicU64::new(0),
        first_error: Mutex::new(None),
    };
    let producer: BaseProducer<Deliveries> = options
        .client_config(&[("acks", acks), ("linger.ms", "0")])?
        .create_with_context(deliveries)
        .map_err(|e| format!("creating the producer: {e}"))?;
    let consumer: BaseConsumer = options
        .client_config(&[("group.id", "bench-e2e"), ("enable.auto.commit", "false"), ("fetch.wait.max.ms", "0")])?
        .create()
        .map_err(|e| format!("creating the consumer: {e}"))?;
    // The topic is new and empty: reading from its beginning sees exactly the records sent here.
    let mut assignment = TopicPartitionList::new();
    assignment.add_partition_offset(topic, 0, Offset::Beginning).map_err(|e| e.to_string())?;
    consumer.assign(&assignment).map_err(|e| format!("assign: {e}"))?;

    let timeout = Duration::from_secs(60);
    let mut latencies_us = Vec::with_capacity(usize::try_from(records).unwrap_or(0));
    let mut payload = payload(record_size);
    let run_start = Instant::now();
    for sent in 0..records {
        // A different first byte each time, so a stale record cannot pass for this one.
        payload[0] = b'A' + (sent % 26) as u8;
        let begin = Instant::now();
        let record = BaseRecord::<(), [u8], usize>::with_opaque_to(topic, 0).payload(&payload);
        producer.send(record).map_err(|(e, _)| format!("send {sent}: {e}"))?;
        while producer.in_flight_count() > 0 {
            if begin.elapsed() > timeout {
                return Err(format!("record {sent} was not acknowledged within {timeout:?}"));
            }
            producer.poll(Duration::from_millis(1));
        }
        if producer.context().failed.load(Ordering::Relaxed) > 0 {
            let error =
                producer.context().first_error.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
            return Err(format!("record {sent} failed: {}", error.unwrap_or_default()));
        }
        loop {
            if begin.elapsed() > timeout {
                return Err(format!("record {sent} was not consumed within {timeout:?}"));
            }
            match consumer.poll(Duration::from_millis(100)) {
                None => {}
                Some(Err(error)) => return Err(format!("consuming record {sent}: {error}")),
                Some(Ok(message)) => {
                    let elapsed = begin.elapsed();
                    if message.offset() != sent as i64 || message.payload() != Some(&payload[..]) {
                        return Err(format!("expected record {sent}, read offset {}", message.offset()));
                    }
                    latencies_us.push(u32::try_from(elapsed.as_micros()).unwrap_or(u32::MAX));
                    break;
                }
            }
        }
    }
    let seconds = run_start.elapsed().as_secs_f64();
    let (user_s, system_s) = cpu_seconds();
    let mean_ms = latencies_us.iter().map(|&l| f64::from(l)).sum::<f64>() / (latencies_us.len().max(1) as f64) / 1000.0;
    latencies_us.sort_unstable();
    Ok(format!(
        "records={} seconds={seconds:.3} records_per_s={:.1} avg_ms={mean_ms:.3} p50_ms={:.3} p99_ms={:.3} \
         p999_ms={:.3} max_ms={:.3} client_user_s={user_s:.3} client_sys_s={system_s:.3}",
        latencies_us.len(),
        latencies_us.len() as f64 / seconds,
        percentile_ms(&latencies_us, 0.50),
        percentile_ms(&latencies_us, 0.99),
        percentile_ms(&latencies_us, 0.999),
        percentile_ms(&latencies_us, 1.0),
    ))
}
