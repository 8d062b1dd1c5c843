//! What a quorum member is told when it opens: its node id, the cluster id, the static voter set
//! (Kafka's `controller.quorum.voters`) and the Raft timeouts (Kafka's
//! `controller.quorum.election.timeout.ms` and `controller.quorum.fetch.timeout.ms`).
//!
//! **Timeouts.** Kafka has two; openraft three, and its own election timer, which Strand turns
//! off for one of its own (see `election`). They map as follows:
//!
//! | Strand / openraft | from | why |
//! |---|---|---|
//! | a follower stands after hearing nothing from its leader for | `fetch_timeout_ms` + random `[0, election_timeout_ms)` | Kafka's fetch timeout, randomized so that followers of a dead leader rarely stand together (2 to 3 s by default) |
//! | a candidate whose election failed stands again after | `election_timeout_ms` + random `[0, election_timeout_ms)` | Kafka's randomized election timeout (1 to 2 s by default) |
//! | openraft `election_timeout_max`, its leader lease | `fetch_timeout_ms` | a voter that heard its leader within the fetch timeout refuses other candidates |
//! | openraft `election_timeout_min`, a vote request's timeout | `election_timeout_ms` | a vote that takes longer has missed its election anyway |
//! | openraft `heartbeat_interval` | `fetch_timeout_ms / 4` | the leader speaks to each follower well within the lease (Kafka's followers fetch at least every 500 ms by default) |
//!
//! A lone voter elects itself at once, whatever the timeouts.

use std::collections::BTreeMap;
use std::time::Duration;

use strand_base::Uuid;

use super::QuorumError;
use super::election::ElectionTimeouts;

/// Kafka's default `controller.quorum.election.timeout.ms`.
pub const ELECTION_TIMEOUT_MS_DEFAULT: u64 = 1_000;
/// Kafka's default `controller.quorum.fetch.timeout.ms`.
pub const FETCH_TIMEOUT_MS_DEFAULT: u64 = 2_000;
/// The most voters a static quorum may name (Kafka sets none; a handful is the norm).
pub const VOTERS_MAX: usize = 64;
/// Kafka's default `metadata.log.max.record.bytes.between.snapshots` (20 MiB).
pub const SNAPSHOT_MAX_BYTES_BETWEEN_DEFAULT: u64 = 20 * 1024 * 1024;
/// Kafka's default `metadata.log.max.snapshot.interval.ms` (one hour).
pub const SNAPSHOT_INTERVAL_MS_DEFAULT: u64 = 3_600_000;
/// How many entries before the newest snapshot a voter keeps for lagging voters, which it can
/// then catch up entry by entry rather than with the whole snapshot (openraft's default).
pub const SNAPSHOT_ENTRIES_KEPT_DEFAULT: u64 = 1_000;

/// When a voter snapshots its metadata log (see `snapshot`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotSettings {
    /// `metadata.log.max.record.bytes.between.snapshots`: a snapshot once this many bytes of
    /// records were committed since the last one.
    pub max_bytes_between: u64,
    /// `metadata.log.max.snapshot.interval.ms`: a snapshot once this long has passed since the
    /// last one and anything was committed meanwhile; 0 turns the timer off.
    pub interval_ms: u64,
    /// Entries kept in the log before the newest snapshot (see [`SNAPSHOT_ENTRIES_KEPT_DEFAULT`]).
    pub entries_kept: u64,
}

impl Default for SnapshotSettings {
    fn default() -> Self {
        SnapshotSettings {
            max_bytes_between: SNAPSHOT_MAX_BYTES_BETWEEN_DEFAULT,
            interval_ms: SNAPSHOT_INTERVAL_MS_DEFAULT,
            entries_kept: SNAPSHOT_ENTRIES_KEPT_DEFAULT,
        }
    }
}

/// How a quorum member opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuorumConfig {
    /// This node's `node.id`. For now it must be one of the voters (brokers that only observe the
    /// metadata log come later).
    pub node_id: i32,
    /// The cluster id from `meta.properties`; every Raft RPC carries it and a member refuses RPCs
    /// of another cluster.
    pub cluster_id: String,
    pub voters: QuorumVoters,
    /// `controller.quorum.election.timeout.ms`.
    pub election_timeout_ms: u64,
    /// `controller.quorum.fetch.timeout.ms`.
    pub fetch_timeout_ms: u64,
    pub snapshots: SnapshotSettings,
    /// A dynamic quorum (KIP-853, `kraft.version` 1): `voters` are the initial voters
    /// `strand storage format` recorded (none when formatted with `--no-initial-controllers`), the
    /// metadata log's `VotersRecord`s are the voter set from then on, and this node need not be
    /// a voter (it waits to be added).
    pub dynamic: bool,
    /// This node's metadata log directory id (`meta.properties`), which other voters' RPCs must
    /// name when their voter set has one for it; zero: not checked.
    pub directory_id: Uuid,
}

impl QuorumConfig {
    /// The one-node cluster: this node is the only voter, with Kafka's default timeouts.
    pub fn lone_voter(node_id: i32, cluster_id: &str) -> QuorumConfig {
        QuorumConfig {
            node_id,
            cluster_id: cluster_id.to_owned(),
            voters: QuorumVoters::lone(node_id),
            election_timeout_ms: ELECTION_TIMEOUT_MS_DEFAULT,
            fetch_timeout_ms: FETCH_TIMEOUT_MS_DEFAULT,
            snapshots: SnapshotSettings::default(),
            dynamic: false,
            directory_id: Uuid::ZERO,
        }
    }

    /// Whether this node is the quorum's only voter (it elects itself at once).
    pub fn is_lone_voter(&self) -> bool {
        self.voters.ids().eq([self.node_id])
    }

    /// When this voter stands for election (see the module doc). `never_voted`: its log holds no
    /// vote (its first start); the lowest voter then stands first (`election.rs`).
    pub(crate) fn election_timeouts(&self, never_voted: bool) -> ElectionTimeouts {
        ElectionTimeouts {
            leader_silence: Duration::from_millis(self.election_timeout_max_ms()),
            election: Duration::from_millis(self.election_timeout_ms.max(1)),
            stands_first: never_voted && self.voters.ids().min() == Some(self.node_id),
        }
    }

    /// openraft's `election_timeout_min`, the timeout of a vote request (see the module doc).
    pub(crate) fn election_timeout_min_ms(&self) -> u64 {
        self.election_timeout_ms.min(self.election_timeout_max_ms() - 1).max(self.heartbeat_interval_ms() + 1)
    }

    /// openraft's `election_timeout_max`, its leader lease (see the module doc).
    pub(crate) fn election_timeout_max_ms(&self) -> u64 {
        self.fetch_timeout_ms.max(self.heartbeat_interval_ms() + 2)
    }

    /// How often the leader heartbeats each follower.
    pub(crate) fn heartbeat_interval_ms(&self) -> u64 {
        (self.fetch_timeout_ms / 4).max(1)
    }
}

/// One voter of `controller.quorum.voters`: `id@host:port`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuorumVoter {
    pub id: i32,
    /// The CONTROLLER listener's address; `None` for a lone voter, which needs no listener.
    pub address: Option<(String, u16)>,
}

/// A voter set, ordered by id, with the name of the listener the voters' addresses belong to
/// (the first of `controller.listener.names`), as the log's `VotersRecord` names it: the static
/// `controller.quorum.voters`, or a dynamic quorum's initial voters with their directory ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuorumVoters {
    voters: BTreeMap<i32, Option<(String, u16)>>,
    /// Each voter's metadata log directory id (KIP-853); absent: Kafka's zero uuid.
    directory_ids: BTreeMap<i32, Uuid>,
    listener_name: String,
}

impl QuorumVoters {
    /// A quorum of one voter without a listener.
    pub fn lone(node_id: i32) -> QuorumVoters {
        QuorumVoters {
            voters: BTreeMap::from([(node_id, None)]),
            directory_ids: BTreeMap::new(),
            listener_name: String::new(),
        }
    }

    /// No voters: a dynamic quorum's node formatted with `--no-initial-controllers`.
    pub fn none(listener_name: &str) -> QuorumVoters {
        QuorumVoters {
            voters: BTreeMap::new(),
            directory_ids: BTreeMap::new(),
            listener_name: listener_name.to_owned(),
        }
    }

    /// Parses `--initial-controllers` as Kafka's `DynamicVoters.parse` does: comma-separated
    /// `id@host:port:directory-id` entries (IPv6 hosts in brackets), with Kafka's messages.
    pub fn parse_dynamic(text: &str, listener_name: &str) -> Result<QuorumVoters, String> {
        let mut parsed = QuorumVoters::none(listener_name);
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (id, host, port, directory_id) = parse_dynamic_voter(entry)?;
            if parsed.voters.insert(id, Some((host, port))).is_some() {
                return Err(format!("Node id {id} was specified more than once."));
            }
            parsed.directory_ids.insert(id, directory_id);
        }
        if parsed.voters.is_empty() {
            return Err("No voters given.".into());
        }
        if parsed.voters.len() > VOTERS_MAX {
            return Err(format!("{} voters, at most {VOTERS_MAX}", parsed.voters.len()));
        }
        Ok(parsed)
    }

    /// Adds (or replaces) a voter with its directory id.
    pub fn insert(&mut self, id: i32, address: Option<(String, u16)>, directory_id: Uuid) {
        self.voters.insert(id, address);
        self.directory_ids.insert(id, directory_id);
    }

    /// A voter's directory id (Kafka's zero uuid when it has none).
    pub fn directory_id(&self, id: i32) -> Uuid {
        self.directory_ids.get(&id).copied().unwrap_or_default()
    }

    /// Parses `controller.quorum.voters`: comma-separated `id@host:port` entries (IPv6 hosts in
    /// brackets), ids distinct and non-negative, at most [`VOTERS_MAX`].
    pub fn parse(text: &str, listener_name: &str) -> Result<QuorumVoters, QuorumError> {
        let mut voters = BTreeMap::new();
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let invalid = |reason: &str| QuorumError::InvalidVoters(format!("{entry:?}: {reason}"));
            let (id, address) = entry.split_once('@').ok_or_else(|| invalid("expected id@host:port"))?;
            let id: i32 = id.trim().parse().map_err(|_| invalid("the id is not an integer"))?;
            if id < 0 {
                return Err(invalid("the id is negative"));
            }
            let (host, port) = address.rsplit_once(':').ok_or_else(|| invalid("expected host:port"))?;
            let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
            let port: u16 = port.parse().map_err(|_| invalid("the port is not a number from 0 to 65535"))?;
            if host.is_empty() {
                return Err(invalid("the host is empty"));
            }
            if voters.insert(id, Some((host.to_owned(), port))).is_some() {
                return Err(invalid("the id appears twice"));
            }
        }
        if voters.is_empty() {
            return Err(QuorumError::InvalidVoters("no voters".into()));
        }
        if voters.len() > VOTERS_MAX {
            return Err(QuorumError::InvalidVoters(format!("{} voters, at most {VOTERS_MAX}", voters.len())));
        }
        Ok(QuorumVoters { voters, directory_ids: BTreeMap::new(), listener_name: listener_name.to_owned() })
    }

    /// The voter ids, ascending.
    pub fn ids(&self) -> impl Iterator<Item = i32> + '_ {
        self.voters.keys().copied()
    }

    pub fn len(&self) -> usize {
        self.voters.len()
    }

    pub fn is_empty(&self) -> bool {
        self.voters.is_empty()
    }

    pub fn contains(&self, id: i32) -> bool {
        self.voters.contains_key(&id)
    }

    /// Each voter, ascending by id.
    pub fn iter(&self) -> impl Iterator<Item = QuorumVoter> + '_ {
        self.voters.iter().map(|(id, address)| QuorumVoter { id: *id, address: address.clone() })
    }

    pub fn listener_name(&self) -> &str {
        &self.listener_name
    }
}

/// One `id@host:port:directory-id` of `--initial-controllers`, as Kafka's `DynamicVoter.parse`.
fn parse_dynamic_voter(entry: &str) -> Result<(i32, String, u16, Uuid), String> {
    let (id, rest) = entry.split_once('@').ok_or("No @ found in dynamic voter string.")?;
    if id.is_empty() {
        return Err("Invalid @ at beginning of dynamic voter string.".into());
    }
    let id: i32 = id.parse().map_err(|_| "Failed to parse node id in dynamic voter string.")?;
    if id < 0 {
        return Err(format!("Invalid negative node id {id} in dynamic voter string."));
    }
    if rest.is_empty() {
        return Err("No hostname found after node id.".into());
    }
    let (host, rest) = if let Some(bracketed) = rest.strip_prefix('[') {
        bracketed.split_once(']').ok_or("Hostname began with left bracket, but no right bracket was found.")?
    } else {
        let colon = rest.find(':').ok_or("No colon following hostname could be found.")?;
        (&rest[..colon], &rest[colon..])
    };
    let rest = rest.strip_prefix(':').ok_or("Port section must start with a colon.")?;
    let (port, directory_id) = rest.split_once(':').ok_or("No colon following port could be found.")?;
    let port: i64 = port.parse().map_err(|_| "Failed to parse port in dynamic voter string.")?;
    let port = u16::try_from(port).map_err(|_| format!("Invalid port {port} in dynamic voter string."))?;
    let directory_id =
        strand_log::dir::parse_uuid(directory_id).ok_or("Failed to parse directory ID in dynamic voter string.")?;
    Ok((id, host.to_owned(), port, directory_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expected: Result<Vec<(i32, &str, u16)>, ()>) {
        let parsed = QuorumVoters::parse(text, "CONTROLLER").map(|voters| {
            voters.iter().map(|v| v.address.map(|(h, p)| (v.id, h, p))).collect::<Option<Vec<_>>>().expect("address")
        });
        match (parsed, expected) {
            (Ok(parsed), Ok(expected)) => {
                let expected: Vec<_> = expected.into_iter().map(|(i, h, p)| (i, h.to_owned(), p)).collect();
                assert_eq!(parsed, expected, "{text}");
            }
            (Err(_), Err(())) => {}
            (parsed, expected) => panic!("{text}: parsed {parsed:?}, expected {expected:?}"),
        }
    }

    /// `controller.quorum.voters` parses as Kafka writes it, and malformed entries are refused.
    #[test]
    fn parses_controller_quorum_voters() {
        check("1@localhost:9093", Ok(vec![(1, "localhost", 9093)]));
        check(" 3@c:3, 1@a:1 ,2@b:2", Ok(vec![(1, "a", 1), (2, "b", 2), (3, "c", 3)]));
        check("1@[::1]:9093", Ok(vec![(1, "::1", 9093)]));
        for bad in ["", "1", "1@host", "x@h:1", "-1@h:1", "1@:9", "1@h:70000", "1@h:1,1@h:2"] {
            check(bad, Err(()));
        }
        let many: Vec<String> = (0..=VOTERS_MAX).map(|i| format!("{i}@h:1")).collect();
        check(&many.join(","), Err(()));
    }

    /// `--initial-controllers` parses as Kafka's `DynamicVoters`, with Kafka's refusals.
    #[test]
    fn parses_initial_controllers() {
        let voters = QuorumVoters::parse_dynamic(
            "0@localhost:8020:K90IZ-0DRNazJ49kCZ1EMQ,1@[::1]:8030:aUARLskQTCW4qCZDtS_cwA",
            "CONTROLLER",
        )
        .expect("parses");
        assert_eq!(voters.ids().collect::<Vec<_>>(), [0, 1]);
        assert_eq!(voters.directory_id(1).to_string(), "aUARLskQTCW4qCZDtS_cwA");
        assert_eq!(voters.iter().nth(1).and_then(|v| v.address), Some(("::1".to_owned(), 8030)));
        for (bad, message) in [
            ("", "No voters given."),
            ("0localhost:1:K90IZ-0DRNazJ49kCZ1EMQ", "No @ found in dynamic voter string."),
            ("@h:1:K90IZ-0DRNazJ49kCZ1EMQ", "Invalid @ at beginning of dynamic voter string."),
            ("-1@h:1:K90IZ-0DRNazJ49kCZ1EMQ", "Invalid negative node id -1 in dynamic voter string."),
            ("0@h:1", "No colon following port could be found."),
            ("0@h:x:K90IZ-0DRNazJ49kCZ1EMQ", "Failed to parse port in dynamic voter string."),
            ("0@h:1:nope", "Failed to parse directory ID in dynamic voter string."),
            ("0@h:1:K90IZ-0DRNazJ49kCZ1EMQ,0@h:2:aUARLskQTCW4qCZDtS_cwA", "Node id 0 was specified more than once."),
        ] {
            assert_eq!(QuorumVoters::parse_dynamic(bad, "C"), Err(message.to_owned()), "{bad}");
        }
    }

    /// A lone voter's config says so; a three-voter one does not.
    #[test]
    fn lone_voter_is_recognised() {
        assert!(QuorumConfig::lone_voter(4, "c").is_lone_voter());
        let voters = QuorumVoters::parse("1@a:1,2@b:2,3@c:3", "CONTROLLER").expect("parses");
        let config = QuorumConfig { voters, ..QuorumConfig::lone_voter(1, "c") };
        assert!(!config.is_lone_voter());
    }
}
