//! What every Kafka tool subcommand shares: the admin client from `--bootstrap-server` and
//! `--command-config`, a small runtime, Kafka's failure lines and exit codes, and the order in
//! which Kafka's tools print what they gathered in a `java.util.HashMap`.
//!
//! Kafka's tools report two kinds of failure, both with exit code 1: a bad command line (the
//! reason on stderr, nothing on stdout) and a failed operation (`Error while executing <tool>
//! command : <message>` on stdout). [`Failure`] carries which.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use strand_client::{Admin, Client, ClientConfig, ClientError};
use strand_protocol::error::ErrorCode;

/// How a read command prints: `--output text|json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Output {
    /// Kafka's text, byte for byte.
    Text,
    /// One JSON document, for scripts.
    Json,
}

/// A progress bar for a long operation, on stderr, drawn only when stdout and stderr are both a
/// terminal: piped or redirected, a tool prints Kafka's lines and nothing else.
pub struct Progress(indicatif::ProgressBar);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress").field("done", &self.0.position()).finish()
    }
}

impl Progress {
    /// A bar to `total` `unit`s (records, bytes).
    pub fn new(total: u64, unit: &str) -> Progress {
        use std::io::IsTerminal;
        if !(std::io::stdout().is_terminal() && std::io::stderr().is_terminal()) {
            return Progress(indicatif::ProgressBar::hidden());
        }
        let template = format!("[{{bar:40}}] {{pos}}/{{len}} {unit} ({{per_sec}}, {{eta}} left)");
        let style = indicatif::ProgressStyle::with_template(&template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> ");
        Progress(indicatif::ProgressBar::new(total).with_style(style))
    }

    /// No bar: an operation with no known end.
    pub fn hidden() -> Progress {
        Progress(indicatif::ProgressBar::hidden())
    }

    /// Runs `print` (which writes to stdout) with the bar out of its way.
    pub fn suspend<R>(&self, print: impl FnOnce() -> R) -> R {
        self.0.suspend(print)
    }

    /// `done` units are done in all.
    pub fn set(&self, done: u64) {
        self.0.set_position(done);
    }

    /// `done` more units are done.
    pub fn advance(&self, done: u64) {
        self.0.inc(done);
    }

    /// Prints `line` on stdout, above the bar.
    pub fn println(&self, line: &str) {
        self.suspend(|| println!("{line}"));
    }

    /// Leaves the bar as it ends, and what follows on the next line (a bar dropped unfinished,
    /// on an error or an interrupt, is cleared instead).
    pub fn finish(&self) {
        self.0.finish();
        if !self.0.is_hidden() {
            eprintln!();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if !self.0.is_finished() {
            self.0.finish_and_clear();
        }
    }
}

/// Why a tool stopped.
#[derive(Debug)]
pub enum Failure {
    /// The command line is wrong: the reason goes to stderr.
    Usage(String),
    /// The operation failed: Kafka's message, printed after the tool's prefix on stdout.
    Operation(String),
}

impl From<ClientError> for Failure {
    fn from(error: ClientError) -> Failure {
        Failure::Operation(error.to_string())
    }
}

/// Prints `failure` as Kafka's tool `name` does and returns its exit code.
pub fn report(name: &str, outcome: Result<(), Failure>, help_hint: &str) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(reason)) => {
            eprintln!("{reason}");
            eprintln!("(see {help_hint} --help)");
            ExitCode::FAILURE
        }
        Err(Failure::Operation(message)) => {
            println!("Error while executing {name} command : {message}");
            ExitCode::FAILURE
        }
    }
}

/// Prints `failure` as Kafka's console tools do (everything on stderr) and returns the exit code.
pub fn report_plain(outcome: Result<(), Failure>) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(reason) | Failure::Operation(reason)) => {
            eprintln!("{reason}");
            ExitCode::FAILURE
        }
    }
}

/// The client configuration a tool runs with: the `--command-config` file's properties, with
/// `bootstrap.servers` from `--bootstrap-server`.
pub fn client_config(bootstrap: &str, command_config: Option<&Path>) -> Result<ClientConfig, Failure> {
    let mut properties = match command_config {
        Some(path) => ClientConfig::read_properties(path).map_err(|e| Failure::Operation(e.to_string()))?,
        None => BTreeMap::new(),
    };
    properties.insert("bootstrap.servers".to_owned(), bootstrap.to_owned());
    ClientConfig::from_properties(&properties).map_err(|e| Failure::Operation(e.to_string()))
}

/// The client configuration of a tool that takes `--bootstrap-server` or
/// `--bootstrap-controller` (KIP-919), exactly one, as Kafka's `initializeBootstrapProperties`.
pub fn client_config_either(
    server: Option<&str>,
    controller: Option<&str>,
    command_config: Option<&Path>,
) -> Result<ClientConfig, Failure> {
    let (key, value) = match (server, controller) {
        (Some(server), None) => ("bootstrap.servers", server),
        (None, Some(controller)) => ("bootstrap.controllers", controller),
        (Some(_), Some(_)) => {
            return Err(Failure::Usage(
                "You must specify either --bootstrap-controller or --bootstrap-server but not both.".into(),
            ));
        }
        (None, None) => {
            return Err(Failure::Usage("You must specify either --bootstrap-controller or --bootstrap-server.".into()));
        }
    };
    let mut properties = match command_config {
        Some(path) => ClientConfig::read_properties(path).map_err(|e| Failure::Operation(e.to_string()))?,
        None => BTreeMap::new(),
    };
    properties.remove("bootstrap.servers");
    properties.remove("bootstrap.controllers");
    properties.insert(key.to_owned(), value.to_owned());
    ClientConfig::from_properties(&properties).map_err(|e| Failure::Operation(e.to_string()))
}

/// Runs `work` on a single-threaded runtime (a tool makes a few calls; threads would only slow
/// its start).
pub fn block_on<T>(work: impl std::future::Future<Output = Result<T, Failure>>) -> Result<T, Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Operation(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(work)
}

/// A failed call as Kafka's tool prints the exception: its class, then its message.
pub fn exception(error: ClientError) -> String {
    let Some(code) = error.code() else { return error.to_string() };
    let class = match code {
        ErrorCode::NonEmptyGroup => "GroupNotEmptyException".to_owned(),
        ErrorCode::GroupAuthorizationFailed => "GroupAuthorizationException".to_owned(),
        ErrorCode::TopicAuthorizationFailed => "TopicAuthorizationException".to_owned(),
        ErrorCode::ClusterAuthorizationFailed => "ClusterAuthorizationException".to_owned(),
        other => format!("{other:?}Exception"),
    };
    format!("org.apache.kafka.common.errors.{class}: {error}")
}

/// An admin client connected to the cluster.
pub async fn admin(config: ClientConfig) -> Result<Admin, Failure> {
    Ok(Admin::new(Client::connect(config).await?))
}

/// Kafka's `ToolsUtils.prettyPrintTable`: each cell padded to its column's widest (headers
/// included), each followed by a tab, a line per row.
pub fn pretty_table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).chain([headers[i].chars().count()]).max();
    let widths: Vec<usize> = (0..headers.len()).map(|i| width(i).unwrap_or(0)).collect();
    let mut table = String::new();
    let header_row: Vec<String> = headers.iter().map(|h| (*h).to_owned()).collect();
    for row in std::iter::once(&header_row).chain(rows) {
        for (cell, width) in row.iter().zip(&widths) {
            table += &format!("{cell:<width$}\t");
        }
        table.push('\n');
    }
    table
}

/// Java's `String.hashCode`.
pub fn java_hash(text: &str) -> i32 {
    text.encode_utf16().fold(0i32, |hash, unit| hash.wrapping_mul(31).wrapping_add(i32::from(unit)))
}

/// `new String(bytes, UTF_8)` as Java decodes it, which Kafka's tools print: invalid bytes become
/// U+FFFD as in `String::from_utf8_lossy` (the maximal-subpart rule), except an encoded
/// surrogate (`ED A0..BF`), which Java replaces with one U+FFFD for the whole sequence (its
/// three bytes, or two when no continuation byte follows) where Rust replaces each byte.
pub fn java_utf8_lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    let surrogate = |at: usize| bytes[at] == 0xED && bytes.get(at + 1).is_some_and(|b| (0xA0..=0xBF).contains(b));
    if !(0..bytes.len()).any(surrogate) {
        return String::from_utf8_lossy(bytes);
    }
    let (mut text, mut start, mut at) = (String::with_capacity(bytes.len()), 0, 0);
    while at < bytes.len() {
        if surrogate(at) {
            text.push_str(&String::from_utf8_lossy(&bytes[start..at]));
            text.push(char::REPLACEMENT_CHARACTER);
            let continued = bytes.get(at + 2).is_some_and(|b| b & 0xC0 == 0x80);
            at += if continued { 3 } else { 2 };
            start = at;
        } else {
            at += 1;
        }
    }
    text.push_str(&String::from_utf8_lossy(&bytes[start..]));
    std::borrow::Cow::Owned(text)
}

/// Kafka's `TopicPartition.hashCode`.
pub fn partition_hash((topic, partition): &(String, i32)) -> i32 {
    31i32.wrapping_mul(31i32.wrapping_add(*partition)).wrapping_add(java_hash(topic))
}

/// The order in which a `java.util.HashMap` made with `new HashMap<>(expected)` iterates over
/// `keys` put into it in the given order: bucket by bucket (the spread hash masked by the table
/// size), within a bucket in insertion order, the table doubling as Java's does. Kafka's tools
/// print what they collected in such maps in this order. (A bucket of 8 keys or more in a table
/// of 64 or more becomes a tree in Java, whose order this does not follow: with String keys that
/// takes deliberate collisions.)
pub fn java_hash_map_order<T: AsRef<str>>(keys: Vec<T>, expected: usize) -> Vec<T> {
    java_hash_map_order_by(keys, expected, |key| java_hash(key.as_ref()))
}

/// [`java_hash_map_order`] of keys whose Java `hashCode` is `hash`.
pub fn java_hash_map_order_by<T>(keys: Vec<T>, expected: usize, hash: impl Fn(&T) -> i32) -> Vec<T> {
    const TREEIFY_THRESHOLD: usize = 8;
    const TREEIFY_CAPACITY_MIN: usize = 64;
    let spread = |key: &T| {
        let hash = hash(key) as u32;
        (hash ^ (hash >> 16)) as usize
    };
    let threshold_of = |capacity: usize| (capacity as f32 * 0.75) as usize;
    let mut capacity = expected.max(1).next_power_of_two();
    let mut threshold = threshold_of(capacity);
    let mut buckets: Vec<Vec<T>> = (0..capacity).map(|_| Vec::new()).collect();
    let mut size = 0;
    let resize = |buckets: &mut Vec<Vec<T>>, capacity: &mut usize, threshold: &mut usize| {
        let doubled = *capacity * 2;
        *threshold = if *capacity >= 16 { *threshold * 2 } else { threshold_of(doubled) };
        *capacity = doubled;
        let mut next: Vec<Vec<T>> = (0..doubled).map(|_| Vec::new()).collect();
        for key in buckets.drain(..).flatten() {
            next[spread(&key) & (doubled - 1)].push(key);
        }
        *buckets = next;
    };
    for key in keys {
        let index = spread(&key) & (capacity - 1);
        buckets[index].push(key);
        if buckets[index].len() >= TREEIFY_THRESHOLD && capacity < TREEIFY_CAPACITY_MIN {
            resize(&mut buckets, &mut capacity, &mut threshold);
        }
        size += 1;
        if size > threshold {
            resize(&mut buckets, &mut capacity, &mut threshold);
        }
    }
    buckets.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Invalid UTF-8 as Java 17's `new String(bytes, UTF_8)` decodes it (each case run through
    /// a JVM: the code points it printed).
    #[test]
    fn invalid_utf8_is_replaced_as_java_replaces_it() {
        let cases: [(&[u8], &[u32]); 12] = [
            (&[0xED, 0xA0, 0x80], &[0xFFFD]),
            (&[0xED, 0xA0, 0x41], &[0xFFFD, 0x41]),
            (&[0xED, 0xA0], &[0xFFFD]),
            (&[0xED, 0x9F, 0xBF], &[0xD7FF]),
            (&[0xE0, 0x80, 0x80], &[0xFFFD, 0xFFFD, 0xFFFD]),
            (&[0xF4, 0x90, 0x80, 0x80], &[0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD]),
            (&[0xF0, 0x90, 0x80], &[0xFFFD]),
            (&[0xC0, 0x80], &[0xFFFD, 0xFFFD]),
            (&[0x41, 0xED, 0xBF, 0xBF, 0x42], &[0x41, 0xFFFD, 0x42]),
            (&[0xE1, 0x80, 0xED], &[0xFFFD, 0xFFFD]),
            (&[0xED, 0xBF, 0x80, 0xED], &[0xFFFD, 0xFFFD]),
            (&[0xED, 0xA0, 0xED, 0xA0, 0x80], &[0xFFFD, 0xFFFD]),
        ];
        for (bytes, java) in cases {
            let decoded: Vec<u32> = java_utf8_lossy(bytes).chars().map(u32::from).collect();
            assert_eq!(decoded, java, "{bytes:02X?}");
        }
    }

    /// Java's `String.hashCode` and a HashMap's iteration order, as a JVM prints them
    /// (`new HashMap<>(n)`, then `keySet()`).
    #[test]
    fn hash_map_order_is_java_s() {
        assert_eq!(java_hash("first"), 97_440_432);
        assert_eq!(java_hash(""), 0);
        let keys = vec!["a", "b", "c"];
        assert_eq!(java_hash_map_order(keys, 3), ["a", "b", "c"]);
        // "Aa" and "BB" collide in Java: insertion order holds within the bucket.
        assert_eq!(java_hash_map_order(vec!["BB", "Aa"], 2), ["BB", "Aa"]);
        assert_eq!(java_hash_map_order(vec!["Aa", "BB"], 2), ["Aa", "BB"]);
        // As Java 17 prints them.
        let keys = vec!["first", "lines", "orders", "payments"];
        assert_eq!(java_hash_map_order(keys, 4), ["orders", "lines", "first", "payments"]);
        // 1,000 sorted names put into one map, then its keys into another (Kafka's describe).
        let mut names: Vec<String> = (0..1000).map(|i| format!("topic-{i}")).collect();
        names.sort();
        let twice = java_hash_map_order(java_hash_map_order(names, 1000), 1000);
        let expected = ["topic-720", "topic-962", "topic-961", "topic-960", "topic-724", "topic-966", "topic-723"];
        assert_eq!(twice[..7], expected);
    }
}
