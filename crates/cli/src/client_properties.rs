//! The one table of Kafka client properties the client tools take (`--command-config`,
//! `--consumer.config`, `--producer.config`, `--producer-props`, `--producer-property`,
//! `--command-property`) and what each tool does with one: a property Strand's client reads, or
//! the tool reads, is honoured; one that only tunes the Java client's internals is accepted
//! ([`NO_EFFECT`]); any other Kafka client property is refused naming it, never ignored; a name
//! that is no Kafka client property at all gets Kafka's warning line and is otherwise ignored,
//! as Kafka's `AbstractConfig.logUnused` does.

use std::collections::BTreeMap;
use std::path::Path;

use strand_client::ClientConfig;

use crate::tool::Failure;

/// Which Kafka client a tool stands for: a property of the other one is unknown to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Consumer,
    Producer,
    /// A tool that runs a producer and a consumer from one file (`e2e-latency`).
    Both,
}

/// What [`strand_client::ClientConfig::from_properties`] reads: honoured by every tool.
const CLIENT_READS: &[&str] = &[
    "bootstrap.servers",
    "client.id",
    "security.protocol",
    "request.timeout.ms",
    "default.api.timeout.ms",
    "socket.connection.setup.timeout.ms",
    "retry.backoff.ms",
    "retry.backoff.max.ms",
    "ssl.endpoint.identification.algorithm",
    "ssl.truststore.type",
    "ssl.truststore.location",
    "ssl.truststore.password",
    "ssl.truststore.certificates",
    "ssl.keystore.type",
    "ssl.keystore.location",
    "ssl.keystore.password",
    "ssl.keystore.certificate.chain",
    "ssl.keystore.key",
    "ssl.key.password",
    "sasl.mechanism",
    "sasl.jaas.config",
];

/// Properties that change nothing observable here: the Java client's socket, reconnect and
/// metrics tuning (any value), and settings whose listed values (case-insensitive) are what
/// the tools do anyway: bytes or UTF-8 text in and out, no idempotence, no compression, no
/// client telemetry.
const NO_EFFECT: &[(&str, Option<&[&str]>)] = &[
    ("send.buffer.bytes", None),
    ("receive.buffer.bytes", None),
    ("reconnect.backoff.ms", None),
    ("reconnect.backoff.max.ms", None),
    ("connections.max.idle.ms", None),
    ("socket.connection.setup.timeout.max.ms", None),
    ("metadata.max.age.ms", None),
    ("metrics.num.samples", None),
    ("metrics.sample.window.ms", None),
    ("metrics.recording.level", None),
    ("client.dns.lookup", Some(&["use_all_dns_ips"])),
    ("enable.metrics.push", Some(&["false"])),
    ("enable.idempotence", Some(&["false"])),
    ("compression.type", Some(&["none"])),
    ("key.serializer", Some(SERIALIZERS)),
    ("value.serializer", Some(SERIALIZERS)),
    ("key.deserializer", Some(DESERIALIZERS)),
    ("value.deserializer", Some(DESERIALIZERS)),
];

const SERIALIZERS: &[&str] = &[
    "org.apache.kafka.common.serialization.ByteArraySerializer",
    "org.apache.kafka.common.serialization.StringSerializer",
];
const DESERIALIZERS: &[&str] = &[
    "org.apache.kafka.common.serialization.ByteArrayDeserializer",
    "org.apache.kafka.common.serialization.StringDeserializer",
];

/// Kafka 4.4's properties of both clients (`ProducerConfig` and `ConsumerConfig`), besides
/// every `ssl.*` and `sasl.*` one.
const KAFKA_COMMON: &[&str] = &[
    "bootstrap.resolve.timeout.ms",
    "bootstrap.servers",
    "client.dns.lookup",
    "client.id",
    "client.rack",
    "config.providers",
    "connections.max.idle.ms",
    "enable.metrics.push",
    "interceptor.classes",
    "metadata.cluster.check.enable",
    "metadata.max.age.ms",
    "metadata.recovery.rebootstrap.trigger.ms",
    "metadata.recovery.strategy",
    "metric.reporters",
    "metrics.num.samples",
    "metrics.recording.level",
    "metrics.sample.window.ms",
    "receive.buffer.bytes",
    "reconnect.backoff.max.ms",
    "reconnect.backoff.ms",
    "request.timeout.ms",
    "retry.backoff.max.ms",
    "retry.backoff.ms",
    "security.protocol",
    "security.providers",
    "send.buffer.bytes",
    "socket.connection.setup.timeout.max.ms",
    "socket.connection.setup.timeout.ms",
];

/// Kafka 4.4's consumer-only properties.
const KAFKA_CONSUMER: &[&str] = &[
    "allow.auto.create.topics",
    "auto.commit.interval.ms",
    "auto.offset.reset",
    "check.crcs",
    "default.api.timeout.ms",
    "enable.auto.commit",
    "exclude.internal.topics",
    "fetch.max.bytes",
    "fetch.max.wait.ms",
    "fetch.min.bytes",
    "group.id",
    "group.instance.id",
    "group.protocol",
    "group.remote.assignor",
    "heartbeat.interval.ms",
    "internal.throw.on.fetch.stable.offset.unsupported",
    "isolation.level",
    "key.deserializer",
    "max.partition.fetch.bytes",
    "max.poll.interval.ms",
    "max.poll.records",
    "partition.assignment.strategy",
    "session.timeout.ms",
    "share.acknowledgement.mode",
    "share.acquire.mode",
    "value.deserializer",
];

/// Kafka 4.4's producer-only properties.
const KAFKA_PRODUCER: &[&str] = &[
    "acks",
    "batch.size",
    "buffer.memory",
    "buffer.memory.allocation.strategy",
    "compression.gzip.level",
    "compression.lz4.level",
    "compression.type",
    "compression.zstd.level",
    "delivery.timeout.ms",
    "enable.idempotence",
    "key.serializer",
    "linger.ms",
    "max.block.ms",
    "max.in.flight.requests.per.connection",
    "max.request.size",
    "metadata.max.idle.ms",
    "partitioner.adaptive.partitioning.enable",
    "partitioner.availability.timeout.ms",
    "partitioner.class",
    "partitioner.ignore.keys",
    "partitioner.rack.aware",
    "retries",
    "transaction.timeout.ms",
    "transaction.two.phase.commit.enable",
    "transactional.id",
    "value.serializer",
];

/// What becomes of one property in a tool of `role` that itself reads `read_here`.
#[derive(Debug, PartialEq, Eq)]
enum Fate {
    Honoured,
    Refused,
    Unknown,
}

fn fate(key: &str, value: &str, role: Role, read_here: &[&str]) -> Fate {
    if CLIENT_READS.contains(&key) || read_here.contains(&key) {
        return Fate::Honoured;
    }
    let harmless = NO_EFFECT.iter().any(|(name, values)| {
        *name == key && values.is_none_or(|values| values.iter().any(|v| v.eq_ignore_ascii_case(value.trim())))
    });
    if harmless {
        return Fate::Honoured;
    }
    let kafka = key.starts_with("ssl.")
        || key.starts_with("sasl.")
        || KAFKA_COMMON.contains(&key)
        || (role != Role::Producer && KAFKA_CONSUMER.contains(&key))
        || (role != Role::Consumer && KAFKA_PRODUCER.contains(&key));
    if kafka { Fate::Refused } else { Fate::Unknown }
}

/// Checks a tool's client properties: the first Kafka client property that would change
/// nothing is refused naming it; names Kafka's client does not know are listed in Kafka's
/// warning line on stderr and otherwise ignored. `read_here` are the properties the tool itself
/// reads (or, as in Kafka's tool, overrides with its flags).
pub fn vet(properties: &BTreeMap<String, String>, role: Role, read_here: &[&str]) -> Result<(), Failure> {
    let mut unknown = Vec::new();
    for (key, value) in properties {
        match fate(key, value, role, read_here) {
            Fate::Honoured => {}
            Fate::Refused => {
                return Err(Failure::Operation(format!("{key} is not supported by this version of Strand")));
            }
            Fate::Unknown => unknown.push(key.as_str()),
        }
    }
    if !unknown.is_empty() {
        eprintln!("WARN These configurations '[{}]' were supplied but are not used yet.", unknown.join(", "));
    }
    Ok(())
}

/// A client tool's properties: the `file`'s, then `overrides` (the command line's `key=value`
/// pairs win, as in Kafka), with `bootstrap.servers` from the flag; vetted, and made into the
/// client's configuration.
pub fn gather(
    bootstrap: &str,
    file: Option<&Path>,
    overrides: BTreeMap<String, String>,
    role: Role,
    read_here: &[&str],
) -> Result<(BTreeMap<String, String>, ClientConfig), Failure> {
    let mut properties = match file {
        Some(path) => ClientConfig::read_properties(path).map_err(|e| Failure::Operation(e.to_string()))?,
        None => BTreeMap::new(),
    };
    properties.extend(overrides);
    properties.insert("bootstrap.servers".to_owned(), bootstrap.to_owned());
    vet(&properties, role, read_here)?;
    let config = ClientConfig::from_properties(&properties).map_err(|e| Failure::Operation(e.to_string()))?;
    Ok((properties, config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_property_is_honoured_refused_or_unknown() {
        let consumer = |key: &str, value: &str| fate(key, value, Role::Consumer, &["max.poll.records"]);
        assert_eq!(consumer("client.id", "x"), Fate::Honoured);
        assert_eq!(consumer("max.poll.records", "3"), Fate::Honoured);
        assert_eq!(consumer("fetch.min.bytes", "1000"), Fate::Refused);
        assert_eq!(consumer("client.rack", "r1"), Fate::Refused);
        assert_eq!(consumer("sasl.kerberos.service.name", "kafka"), Fate::Refused);
        assert_eq!(
            consumer("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer"),
            Fate::Honoured
        );
        assert_eq!(consumer("value.deserializer", "com.example.Avro"), Fate::Refused);
        // A producer property is not the consumer's: Kafka's consumer only warns.
        assert_eq!(consumer("linger.ms", "5"), Fate::Unknown);
        assert_eq!(consumer("no.such.thing", "1"), Fate::Unknown);
        let producer = |key: &str, value: &str| fate(key, value, Role::Producer, &[]);
        assert_eq!(producer("compression.type", "NONE"), Fate::Honoured);
        assert_eq!(producer("compression.type", "gzip"), Fate::Refused);
        assert_eq!(producer("transactional.id", "t"), Fate::Refused);
        assert_eq!(producer("fetch.min.bytes", "1"), Fate::Unknown);
        assert_eq!(fate("fetch.min.bytes", "1", Role::Both, &[]), Fate::Refused);
    }
}
