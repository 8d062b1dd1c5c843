//! Kafka's text checkpoint files: small files of entries, one a line, rewritten whole.
//!
//! ```text
//! 0              <- version
//! 2              <- number of entries
//! orders 0 42    <- one entry a line, in the entry type's own text form
//! orders 1 17
//! ```
//!
//! Every line ends with `\n`, as Java's `BufferedWriter.newLine` writes on Linux. Readers accept
//! what Kafka's `CheckpointFile.CheckpointReadBuffer` accepts, which is more than writers produce:
//! an empty file, or one holding only the version line, reads as no entries, and lines may end
//! with `\r\n`.
//!
//! - [`CheckpointFile`]: the generic reader and writer; [`CheckpointEntry`] formats and parses
//!   one line. Writes go through [`crate::file::write_atomically`], so a crash leaves the old file
//!   or the new one, never a mix.
//! - [`OffsetCheckpointFile`]: the log directory's `recovery-point-offset-checkpoint`,
//!   `log-start-offset-checkpoint`, `cleaner-offset-checkpoint` and
//!   `replication-offset-checkpoint` (entries
//!   `topic partition offset`).
//! - [`LeaderEpochCheckpointFile`]: a partition's `leader-epoch-checkpoint` (entries
//!   `epoch startOffset`), the backing file of [`crate::epoch_cache::LeaderEpochCache`].
//!
//! What this module is not: it holds no state between calls and no lock; the owner of each file
//! (the log manager, one partition's log) serializes its writes.
//!
//! Checked against Apache Kafka's `server-common/.../CheckpointFile.java`,
//! `storage/.../checkpoint/OffsetCheckpointFile.java` and `LeaderEpochCheckpointFile.java`.

use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use strand_base::{LeaderEpoch, Offset, TopicPartition};

use crate::file::{write_atomically, write_replacing};
use crate::{LogError, Result};

/// The log directory's file of per-partition recovery points: below each, the log is known to be
/// flushed, so recovery after an unclean stop starts there.
pub const RECOVERY_POINT_CHECKPOINT_FILE: &str = "recovery-point-offset-checkpoint";
/// The log directory's file of per-partition log start offsets (advanced by retention and
/// DeleteRecords past a segment boundary).
pub const LOG_START_OFFSET_CHECKPOINT_FILE: &str = "log-start-offset-checkpoint";
/// The log directory's file of per-partition first dirty offsets: where the log cleaner's next
/// pass over each compacted partition starts.
pub const CLEANER_OFFSET_CHECKPOINT_FILE: &str = "cleaner-offset-checkpoint";
/// The log directory's file of per-partition high watermarks.
pub const REPLICATION_OFFSET_CHECKPOINT_FILE: &str = "replication-offset-checkpoint";
/// A partition directory's file of leader epochs and their start offsets.
pub const LEADER_EPOCH_CHECKPOINT_FILE: &str = "leader-epoch-checkpoint";

/// The version of both the offset checkpoints and the leader-epoch checkpoint.
pub const CHECKPOINT_VERSION: i32 = 0;

/// One entry of a checkpoint file: its line without the line ending, and back.
pub trait CheckpointEntry: Sized {
    /// The entry's line, without the line ending.
    fn to_line(&self) -> String;
    /// The entry a line holds, or `None` if the line is malformed.
    fn parse_line(line: &str) -> Option<Self>;
}

/// A checkpoint file at `path` holding entries of type `T` under format `version`. The struct
/// only names the file; each [`CheckpointFile::write`] replaces it whole and each
/// [`CheckpointFile::read`] reads it afresh.
#[derive(Debug, Clone)]
pub struct CheckpointFile<T> {
    path: PathBuf,
    version: i32,
    entry: PhantomData<fn() -> T>,
}

impl<T: CheckpointEntry> CheckpointFile<T> {
    pub fn new(path: impl Into<PathBuf>, version: i32) -> Self {
        CheckpointFile { path: path.into(), version, entry: PhantomData }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Replaces the file with `entries`, atomically and durably.
    pub fn write(&self, entries: &[T]) -> Result<()> {
        let text = encode(self.version, entries);
        write_atomically(&self.path, text.as_bytes()).map_err(|e| LogError::io(&self.path, e))
    }

    /// Replaces the file with `entries` atomically; durable once the caller syncs its directory
    /// ([`crate::file::write_replacing`]).
    pub fn write_replacing(&self, entries: &[T]) -> Result<()> {
        let text = encode(self.version, entries);
        write_replacing(&self.path, text.as_bytes()).map_err(|e| LogError::io(&self.path, e))
    }

    /// The file's entries, in file order. A missing file reads as no entries: Kafka creates an
    /// empty one when it first opens a checkpoint, and an empty file holds none.
    pub fn read(&self) -> Result<Vec<T>> {
        let text = match std::fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(LogError::io(&self.path, e)),
        };
        let text = String::from_utf8(text).map_err(|_| LogError::corrupt(&self.path, "not UTF-8 text"))?;
        decode(&self.path, self.version, &text)
    }
}

/// The text of a checkpoint: version line, count line, one line per entry.
pub fn encode<T: CheckpointEntry>(version: i32, entries: &[T]) -> String {
    let mut text = format!("{version}\n{}\n", entries.len());
    for entry in entries {
        text.push_str(&entry.to_line());
        text.push('\n');
    }
    text
}

/// Parses the text of a checkpoint; `path` only names the file in errors.
pub fn decode<T: CheckpointEntry>(path: &Path, version: i32, text: &str) -> Result<Vec<T>> {
    let mut lines = text.lines();
    let Some(version_line) = lines.next() else { return Ok(Vec::new()) };
    let found_version: i32 = parse_int(path, version_line)?;
    if found_version != version {
        return Err(LogError::corrupt(path, format!("version {found_version}, expected {version}")));
    }
    let Some(count_line) = lines.next() else { return Ok(Vec::new()) };
    let expected: i32 = parse_int(path, count_line)?;
    let entries =
        lines.map(|line| T::parse_line(line).ok_or_else(|| malformed(path, line))).collect::<Result<Vec<T>>>()?;
    if usize::try_from(expected).ok() != Some(entries.len()) {
        let reason = format!("expected {expected} entries but found {}", entries.len());
        return Err(LogError::corrupt(path, reason));
    }
    Ok(entries)
}

fn parse_int(path: &Path, line: &str) -> Result<i32> {
    line.parse().map_err(|_| malformed(path, line))
}

fn malformed(path: &Path, line: &str) -> LogError {
    LogError::corrupt(path, format!("malformed line {line:?}"))
}

/// One partition's offset in an offset checkpoint: the line `topic partition offset`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicPartitionOffset {
    pub topic_partition: TopicPartition,
    pub offset: Offset,
}

impl CheckpointEntry for TopicPartitionOffset {
    fn to_line(&self) -> String {
        format!("{} {} {}", self.topic_partition.topic, self.topic_partition.partition, self.offset)
    }

    /// Fields are split on runs of whitespace, as Kafka's `\s+` split does.
    fn parse_line(line: &str) -> Option<Self> {
        let mut fields = line.split_whitespace();
        let (topic, partition, offset) = (fields.next()?, fields.next()?, fields.next()?);
        if fields.next().is_some() {
            return None;
        }
        let topic_partition = TopicPartition::new(topic, partition.parse().ok()?);
        Some(TopicPartitionOffset { topic_partition, offset: offset.parse().ok()? })
    }
}

/// A log directory's offset checkpoint (recovery points, log start offsets or high watermarks):
/// version 0, one `topic partition offset` line per partition, partitions in their sort order.
#[derive(Debug, Clone)]
pub struct OffsetCheckpointFile {
    file: CheckpointFile<TopicPartitionOffset>,
}

impl OffsetCheckpointFile {
    /// The checkpoint at `path`, normally `<log.dir>/` joined with one of
    /// [`RECOVERY_POINT_CHECKPOINT_FILE`], [`LOG_START_OFFSET_CHECKPOINT_FILE`] or
    /// [`REPLICATION_OFFSET_CHECKPOINT_FILE`].
    pub fn new(path: impl Into<PathBuf>) -> Self {
        OffsetCheckpointFile { file: CheckpointFile::new(path, CHECKPOINT_VERSION) }
    }

    pub fn path(&self) -> &Path {
        self.file.path()
    }

    pub fn write(&self, offsets: &BTreeMap<TopicPartition, Offset>) -> Result<()> {
        let entries: Vec<TopicPartitionOffset> =
            offsets.iter().map(|(tp, &offset)| TopicPartitionOffset { topic_partition: tp.clone(), offset }).collect();
        self.file.write(&entries)
    }

    /// The offsets by partition; a partition listed twice keeps its last line, as Kafka's map does.
    pub fn read(&self) -> Result<BTreeMap<TopicPartition, Offset>> {
        Ok(self.file.read()?.into_iter().map(|entry| (entry.topic_partition, entry.offset)).collect())
    }
}

/// The first offset written in a leader epoch: one line `epoch startOffset` of
/// `leader-epoch-checkpoint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EpochEntry {
    pub epoch: LeaderEpoch,
    pub start_offset: Offset,
}

impl EpochEntry {
    pub fn new(epoch: LeaderEpoch, start_offset: Offset) -> Self {
        EpochEntry { epoch, start_offset }
    }
}

impl CheckpointEntry for EpochEntry {
    fn to_line(&self) -> String {
        format!("{} {}", self.epoch, self.start_offset)
    }

    fn parse_line(line: &str) -> Option<Self> {
        let mut fields = line.split_whitespace();
        let (epoch, start_offset) = (fields.next()?, fields.next()?);
        if fields.next().is_some() {
            return None;
        }
        Some(EpochEntry { epoch: epoch.parse().ok()?, start_offset: start_offset.parse().ok()? })
    }
}

/// A partition's `leader-epoch-checkpoint`: version 0, one `epoch startOffset` line per epoch,
/// in epoch order. Read and written only by [`crate::epoch_cache::LeaderEpochCache`].
#[derive(Debug, Clone)]
pub struct LeaderEpochCheckpointFile {
    file: CheckpointFile<EpochEntry>,
}

impl LeaderEpochCheckpointFile {
    /// The checkpoint in the partition directory `partition_dir`.
    pub fn in_dir(partition_dir: &Path) -> Self {
        LeaderEpochCheckpointFile {
            file: CheckpointFile::new(partition_dir.join(LEADER_EPOCH_CHECKPOINT_FILE), CHECKPOINT_VERSION),
        }
    }

    pub fn path(&self) -> &Path {
        self.file.path()
    }

    pub fn write(&self, entries: &[EpochEntry]) -> Result<()> {
        self.file.write(entries)
    }

    /// [`CheckpointFile::write_replacing`]: the partition directory's sync is the caller's.
    pub fn write_replacing(&self, entries: &[EpochEntry]) -> Result<()> {
        self.file.write_replacing(entries)
    }

    pub fn read(&self) -> Result<Vec<EpochEntry>> {
        self.file.read()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type TestResult = std::result::Result<(), Box<dyn std::error::Error>>;

    fn decode_offsets(text: &str) -> Result<Vec<TopicPartitionOffset>> {
        decode(Path::new("test-checkpoint"), 0, text)
    }

    fn tpo(topic: &str, partition: i32, offset: Offset) -> TopicPartitionOffset {
        TopicPartitionOffset { topic_partition: TopicPartition::new(topic, partition), offset }
    }

    fn assert_corrupt(result: Result<Vec<TopicPartitionOffset>>, reason_part: &str) {
        match result {
            Err(LogError::Corrupt { reason, .. }) => assert!(reason.contains(reason_part), "{reason}"),
            other => panic!("expected a corrupt-file error containing {reason_part:?}, got {other:?}"),
        }
    }

    /// The offset checkpoint text is byte for byte what Kafka's `OffsetCheckpointFile` writes.
    #[test]
    fn offset_checkpoint_text_matches_kafka() {
        let text = encode(0, &[tpo("orders", 0, 42), tpo("orders", 1, 7)]);
        assert_eq!(text, "0\n2\norders 0 42\norders 1 7\n");
        assert_eq!(encode::<TopicPartitionOffset>(0, &[]), "0\n0\n");
    }

    /// The leader-epoch checkpoint text is byte for byte what Kafka's `LeaderEpochCheckpointFile`
    /// writes.
    #[test]
    fn epoch_checkpoint_text_matches_kafka() {
        let text = encode(0, &[EpochEntry::new(0, 0), EpochEntry::new(3, 1500)]);
        assert_eq!(text, "0\n2\n0 0\n3 1500\n");
    }

    /// Reading accepts exactly what Kafka's reader accepts: empty files, a missing count line,
    /// runs of whitespace between fields, CRLF line endings.
    #[test]
    fn reader_accepts_what_kafka_accepts() -> TestResult {
        assert_eq!(decode_offsets("")?, vec![]);
        assert_eq!(decode_offsets("0\n")?, vec![]);
        assert_eq!(decode_offsets("0\n1\norders  3\t9\n")?, vec![tpo("orders", 3, 9)]);
        assert_eq!(decode_offsets("0\r\n1\r\na 0 1\r\n")?, vec![tpo("a", 0, 1)]);
        Ok(())
    }

    /// Wrong versions, bad counts and malformed lines are corrupt-file errors, never panics.
    #[test]
    fn bad_files_are_corrupt() {
        assert_corrupt(decode_offsets("1\n0\n"), "version 1");
        assert_corrupt(decode_offsets("x\n0\n"), "malformed");
        assert_corrupt(decode_offsets("0\nx\n"), "malformed");
        assert_corrupt(decode_offsets("0\n2\na 0 1\n"), "expected 2 entries but found 1");
        assert_corrupt(decode_offsets("0\n-1\n"), "expected -1 entries");
        assert_corrupt(decode_offsets("0\n1\na 0\n"), "malformed");
        assert_corrupt(decode_offsets("0\n1\na 0 1 2\n"), "malformed");
        assert_corrupt(decode_offsets("0\n1\na x 1\n"), "malformed");
        assert_corrupt(decode_offsets("0\n1\na 0 99999999999999999999\n"), "malformed");
        assert_corrupt(decode_offsets("0\n1\na 0 1\n\n"), "malformed");
    }

    /// A written offset checkpoint reads back as the same map, and a missing file as an empty one.
    #[test]
    fn offset_checkpoint_round_trips_through_a_file() -> TestResult {
        let dir = tempfile::tempdir()?;
        let file = OffsetCheckpointFile::new(dir.path().join(RECOVERY_POINT_CHECKPOINT_FILE));
        assert!(file.read()?.is_empty());
        let offsets = BTreeMap::from([
            (TopicPartition::new("orders", 1), 7),
            (TopicPartition::new("__consumer_offsets", 12), 0),
            (TopicPartition::new("orders", 0), 42),
        ]);
        file.write(&offsets)?;
        assert_eq!(file.read()?, offsets);
        let text = std::fs::read_to_string(file.path())?;
        assert_eq!(text, "0\n3\n__consumer_offsets 12 0\norders 0 42\norders 1 7\n");
        Ok(())
    }

    /// A leader-epoch checkpoint file round-trips in file order.
    #[test]
    fn epoch_checkpoint_round_trips_through_a_file() -> TestResult {
        let dir = tempfile::tempdir()?;
        let file = LeaderEpochCheckpointFile::in_dir(dir.path());
        let entries = vec![EpochEntry::new(1, 0), EpochEntry::new(4, 100)];
        file.write(&entries)?;
        assert_eq!(file.read()?, entries);
        assert_eq!(file.path().file_name(), Some(std::ffi::OsStr::new("leader-epoch-checkpoint")));
        Ok(())
    }
}
