//! The small metadata files of log directories and partition directories, in Kafka's formats.
//!
//! - [`MetaProperties`]: `<log.dir>/meta.properties`, a Java properties file naming the node,
//!   the cluster and the directory. KRaft writes version 1:
//!   ```text
//!   #
//!   #<comment>
//!   version=1
//!   cluster.id=<cluster id>
//!   node.id=<node id>
//!   directory.id=<uuid, base64>
//!   ```
//!   Version 0 (ZooKeeper era, or migrated clusters) has `broker.id` instead of `node.id`, and
//!   any field may be missing.
//! - [`PartitionMetadata`]: `<partition dir>/partition.metadata`, exactly
//!   `version: 0\ntopic_id: <uuid, base64>` with no final newline.
//! - The clean-shutdown marker `<log.dir>/.kafka_cleanshutdown`: its presence means every log of
//!   the directory was closed cleanly and needs no recovery. Since KIP-966 Kafka writes the JSON
//!   body `{"version":0,"brokerEpoch":<epoch>}`; older Kafka wrote an empty file.
//!
//! What this module is not: it checks formats only. Whether a directory's cluster id or node id
//! matches the configuration, or a partition's topic id matches the metadata, is the caller's
//! decision. All writes are atomic (temporary file, fsync, rename, directory fsync).
//!
//! Checked against Apache Kafka's `metadata/.../properties/MetaProperties.java`,
//! `PropertiesUtils.java`, `storage/.../checkpoint/PartitionMetadataFile.java`,
//! `PartitionMetadataReadBuffer.java` and `CleanShutdownFileHandler.java`, and against
//! `java.util.Properties.load`/`store` and `java.util.Base64.getUrlDecoder`.

use std::path::{Path, PathBuf};

use strand_base::Uuid;

use crate::file::{write_atomically, write_replacing};
use crate::{LogError, Result};

/// The log directory's identity file.
pub const META_PROPERTIES_FILE: &str = "meta.properties";
/// A partition directory's topic id file.
pub const PARTITION_METADATA_FILE: &str = "partition.metadata";
/// The log directory's clean-shutdown marker.
pub const CLEAN_SHUTDOWN_FILE: &str = ".kafka_cleanshutdown";

/// The format version of a `meta.properties` file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaPropertiesVersion {
    /// ZooKeeper era (and clusters migrated from it): `broker.id`, every field optional.
    V0,
    /// KRaft: `node.id` and `cluster.id` always present.
    V1,
}

impl MetaPropertiesVersion {
    pub fn number(self) -> u32 {
        match self {
            MetaPropertiesVersion::V0 => 0,
            MetaPropertiesVersion::V1 => 1,
        }
    }
}

/// The contents of a log directory's `meta.properties`. Values are kept as read; properties this
/// struct does not name are ignored, as Kafka does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaProperties {
    pub version: MetaPropertiesVersion,
    /// Always present in V1.
    pub cluster_id: Option<String>,
    /// `node.id` in V1 (always present), `broker.id` in V0.
    pub node_id: Option<i32>,
    pub directory_id: Option<Uuid>,
}

impl MetaProperties {
    /// KRaft's version-1 properties.
    pub fn v1(cluster_id: impl Into<String>, node_id: i32, directory_id: Uuid) -> Self {
        MetaProperties {
            version: MetaPropertiesVersion::V1,
            cluster_id: Some(cluster_id.into()),
            node_id: Some(node_id),
            directory_id: Some(directory_id),
        }
    }

    /// Reads `<log_dir>/meta.properties`; `Ok(None)` if there is none (an unformatted directory).
    pub fn read(log_dir: &Path) -> Result<Option<MetaProperties>> {
        let path = log_dir.join(META_PROPERTIES_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(LogError::io(&path, e)),
        };
        Self::parse(&bytes).map(Some).map_err(|reason| LogError::corrupt(&path, reason))
    }

    /// Writes `<log_dir>/meta.properties` atomically.
    pub fn write(&self, log_dir: &Path) -> Result<()> {
        let path = log_dir.join(META_PROPERTIES_FILE);
        write_atomically(&path, self.to_text().as_bytes()).map_err(|e| LogError::io(&path, e))
    }

    /// The file's text: a blank comment line (Java's `Properties.store` with an empty comment),
    /// a comment naming the writer where Java puts the date (Strand keeps files deterministic),
    /// then the properties. Values are escaped as `Properties.store` escapes them, non-ASCII as
    /// `\uXXXX`, so the file reads the same in ISO-8859-1 (how Kafka reads it) as in UTF-8.
    pub fn to_text(&self) -> String {
        let mut text = String::from("#\n#Written by Strand\n");
        let mut put = |key: &str, value: &str| {
            text.push_str(key);
            text.push('=');
            text.push_str(&escape_property_value(value));
            text.push('\n');
        };
        put("version", &self.version.number().to_string());
        if let Some(cluster_id) = &self.cluster_id {
            put("cluster.id", cluster_id);
        }
        let node_key = if self.version == MetaPropertiesVersion::V0 { "broker.id" } else { "node.id" };
        if let Some(node_id) = self.node_id {
            put(node_key, &node_id.to_string());
        }
        if let Some(directory_id) = self.directory_id {
            put("directory.id", &directory_id.to_string());
        }
        text
    }

    /// Parses a file's bytes as Kafka does: `Properties.load` (ISO-8859-1), then the fields of
    /// `MetaProperties.Builder`. A missing `version` means V0.
    pub fn parse(bytes: &[u8]) -> std::result::Result<MetaProperties, String> {
        let props = parse_properties(bytes);
        let get = |key: &str| props.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        let version = match get("version").map(str::trim) {
            None | Some("0") => MetaPropertiesVersion::V0,
            Some("1") => MetaPropertiesVersion::V1,
            Some(other) => return Err(format!("unknown meta.properties version {other:?}")),
        };
        let node_key = if version == MetaPropertiesVersion::V0 { "broker.id" } else { "node.id" };
        let node_id = match get(node_key) {
            Some(value) => Some(value.parse::<i32>().map_err(|_| format!("{node_key} {value:?} is not a number"))?),
            None => None,
        };
        let cluster_id = get("cluster.id").map(str::to_owned);
        if version == MetaPropertiesVersion::V1 && (node_id.is_none() || cluster_id.is_none()) {
            return Err("version 1 needs both node.id and cluster.id".to_owned());
        }
        let directory_id = match get("directory.id") {
            Some(value) => Some(parse_uuid(value).ok_or_else(|| format!("directory.id {value:?} is not a uuid"))?),
            None => None,
        };
        Ok(MetaProperties { version, cluster_id, node_id, directory_id })
    }
}

/// The contents of a partition directory's `partition.metadata`: the topic id the partition
/// belongs to, so a directory left from a deleted topic of the same name is recognized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionMetadata {
    /// Version 0 is written; readers accept any version `>= 0` (downgrade compatibility).
    pub version: i32,
    pub topic_id: Uuid,
}

impl PartitionMetadata {
    pub const VERSION: i32 = 0;

    pub fn new(topic_id: Uuid) -> Self {
        PartitionMetadata { version: Self::VERSION, topic_id }
    }

    /// The path of the file in `partition_dir`.
    pub fn path(partition_dir: &Path) -> PathBuf {
        partition_dir.join(PARTITION_METADATA_FILE)
    }

    /// Reads `<partition_dir>/partition.metadata`; `Ok(None)` if there is none.
    pub fn read(partition_dir: &Path) -> Result<Option<PartitionMetadata>> {
        let path = Self::path(partition_dir);
        let text = match std::fs::read(&path) {
            Ok(bytes) => String::from_utf8(bytes).map_err(|_| LogError::corrupt(&path, "not UTF-8 text"))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(LogError::io(&path, e)),
        };
        Self::parse(&text).map(Some).map_err(|reason| LogError::corrupt(&path, reason))
    }

    /// Writes `<partition_dir>/partition.metadata` atomically.
    pub fn write(&self, partition_dir: &Path) -> Result<()> {
        let path = Self::path(partition_dir);
        write_atomically(&path, self.to_text().as_bytes()).map_err(|e| LogError::io(&path, e))
    }

    /// Writes `<partition_dir>/partition.metadata` atomically but leaves its directory's sync to
    /// the caller ([`crate::file::write_replacing`]): the partition's log syncs it with its next
    /// flush ([`crate::Log::defer_partition_metadata`]).
    pub fn write_replacing(&self, partition_dir: &Path) -> Result<()> {
        let path = Self::path(partition_dir);
        write_replacing(&path, self.to_text().as_bytes()).map_err(|e| LogError::io(&path, e))
    }

    /// `version: 0\ntopic_id: <id>`, without a final newline, as Kafka's `PartitionMetadata.encode`.
    pub fn to_text(&self) -> String {
        format!("version: {}\ntopic_id: {}", self.version, self.topic_id)
    }

    /// Parses the text as Kafka's `PartitionMetadataReadBuffer`: each of the first two lines
    /// split at `:` followed by whitespace into exactly two parts; the zero uuid is invalid.
    pub fn parse(text: &str) -> std::result::Result<PartitionMetadata, String> {
        let mut lines = text.lines();
        let malformed = |line: &str| format!("malformed line {line:?}");
        let version_line = lines.next().unwrap_or_default();
        let version: i32 =
            split_field(version_line).and_then(|v| v.parse().ok()).ok_or_else(|| malformed(version_line))?;
        if version < Self::VERSION {
            return Err(format!("unrecognized version {version}"));
        }
        let topic_line = lines.next().unwrap_or_default();
        let topic_id = split_field(topic_line).ok_or_else(|| malformed(topic_line))?;
        let topic_id = parse_uuid(topic_id).ok_or_else(|| malformed(topic_line))?;
        if topic_id == Uuid::ZERO {
            return Err("invalid topic id (zero)".to_owned());
        }
        Ok(PartitionMetadata { version, topic_id })
    }
}

/// Writes the clean-shutdown marker of `log_dir` with the broker epoch of the session that is
/// ending, as `{"version":0,"brokerEpoch":<epoch>}` (Kafka's Jackson output for its `Content`).
pub fn write_clean_shutdown(log_dir: &Path, broker_epoch: i64) -> Result<()> {
    let path = log_dir.join(CLEAN_SHUTDOWN_FILE);
    let body = format!("{{\"version\":0,\"brokerEpoch\":{broker_epoch}}}");
    write_atomically(&path, body.as_bytes()).map_err(|e| LogError::io(&path, e))
}

/// Whether `log_dir` was shut down cleanly: its marker exists, whatever its body.
pub fn clean_shutdown_exists(log_dir: &Path) -> bool {
    log_dir.join(CLEAN_SHUTDOWN_FILE).exists()
}

/// The broker epoch stored in the clean-shutdown marker. `Ok(None)` when there is no marker or
/// its body holds no readable epoch (an empty marker from older Kafka): like Kafka's `read`, a
/// bad body is not an error, since the marker's presence is what counts.
pub fn read_clean_shutdown(log_dir: &Path) -> Result<Option<i64>> {
    let path = log_dir.join(CLEAN_SHUTDOWN_FILE);
    match std::fs::read(&path) {
        Ok(bytes) => Ok(std::str::from_utf8(&bytes).ok().and_then(json_broker_epoch)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(LogError::io(&path, e)),
    }
}

/// Removes the clean-shutdown marker (done at startup, so a crash from then on is unclean).
/// Removing a marker that is not there is not an error. The directory is synced so the removal
/// is durable before any log is written.
pub fn remove_clean_shutdown(log_dir: &Path) -> Result<()> {
    let path = log_dir.join(CLEAN_SHUTDOWN_FILE);
    match std::fs::remove_file(&path) {
        Ok(()) => crate::file::sync_dir(log_dir).map_err(|e| LogError::io(log_dir, e)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(LogError::io(&path, e)),
    }
}

/// `brokerEpoch` of a flat JSON object such as `{"version":0,"brokerEpoch":12}`; `None` if the
/// text is not such an object or the field is missing, null or not an integer. Only flat objects
/// of string keys and scalar values are understood, which is all Kafka writes here.
fn json_broker_epoch(text: &str) -> Option<i64> {
    let body = text.trim().strip_prefix('{')?.strip_suffix('}')?;
    let mut epoch = None;
    for member in body.split(',').filter(|m| !m.trim().is_empty()) {
        let (key, value) = member.split_once(':')?;
        let key = key.trim().strip_prefix('"')?.strip_suffix('"')?;
        if key == "brokerEpoch" {
            epoch = value.trim().parse::<i64>().ok();
        }
    }
    epoch
}

/// The value after the first `:` followed by whitespace, if the line has exactly one such
/// separator (Kafka splits on the regex `:\s+` and wants two parts).
fn split_field(line: &str) -> Option<&str> {
    let separators: Vec<usize> = line
        .match_indices(':')
        .filter(|(i, _)| line[i + 1..].starts_with(|c: char| c.is_whitespace()))
        .map(|(i, _)| i)
        .collect();
    let [at] = separators[..] else { return None };
    let value = line[at + 1..].trim_start();
    (!value.is_empty()).then_some(value)
}

/// Parses Kafka's uuid text, as `Uuid.fromString` does: URL-safe base64 of 16 bytes, 22
/// characters without padding or 24 with `==`.
pub fn parse_uuid(text: &str) -> Option<Uuid> {
    let digits = match text.len() {
        22 => text,
        24 => text.strip_suffix("==")?,
        _ => return None,
    };
    let mut bytes = [0u8; 16];
    let (mut bits, mut bit_count, mut filled) = (0u32, 0u32, 0usize);
    for c in digits.bytes() {
        bits = (bits << 6) | base64_url_value(c)?;
        bit_count += 6;
        if bit_count >= 8 {
            bit_count -= 8;
            // 22 digits carry 132 bits: 16 bytes and 4 unused bits, which Java ignores.
            bytes[filled] = (bits >> bit_count) as u8;
            filled += 1;
            bits &= (1 << bit_count) - 1;
        }
    }
    Some(Uuid(bytes))
}

fn base64_url_value(c: u8) -> Option<u32> {
    let value = match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'-' => 62,
        b'_' => 63,
        _ => return None,
    };
    Some(u32::from(value))
}

/// Escapes a value as `Properties.store` does, plus non-ASCII as `\uXXXX`.
fn escape_property_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for (i, c) in value.chars().enumerate() {
        match c {
            ' ' if i == 0 => out.push_str("\\ "),
            '\\' | '=' | ':' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\x0c' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04X}"));
                }
            }
        }
    }
    out
}

/// The key-value pairs of a Java properties file, in file order, read as
/// `Properties.load(InputStream)` reads: ISO-8859-1, `#` and `!` comments, `\` line
/// continuations, keys ending at an unescaped `=`, `:` or whitespace, and escapes.
fn parse_properties(bytes: &[u8]) -> Vec<(String, String)> {
    let text: String = bytes.iter().map(|&b| char::from(b)).collect();
    let text = text.replace("\r\n", "\n");
    let mut pairs = Vec::new();
    let mut lines = text.split(['\n', '\r']);
    while let Some(first) = lines.next() {
        let first = first.trim_start_matches([' ', '\t', '\x0c']);
        if first.is_empty() || first.starts_with(['#', '!']) {
            continue;
        }
        let mut logical = first.to_owned();
        while ends_with_odd_backslashes(&logical) {
            logical.pop();
            match lines.next() {
                Some(next) => logical.push_str(next.trim_start_matches([' ', '\t', '\x0c'])),
                None => break,
            }
        }
        pairs.push(split_property(&logical));
    }
    pairs
}

fn ends_with_odd_backslashes(line: &str) -> bool {
    line.chars().rev().take_while(|&c| c == '\\').count() % 2 == 1
}

/// Splits a logical line into its unescaped key and value.
fn split_property(line: &str) -> (String, String) {
    let chars: Vec<char> = line.chars().collect();
    let mut key_end = chars.len();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '=' | ':' | ' ' | '\t' | '\x0c' => {
                key_end = i;
                break;
            }
            _ => {}
        }
        i += 1;
    }
    let mut value_start = key_end.min(chars.len());
    while value_start < chars.len() && matches!(chars[value_start], ' ' | '\t' | '\x0c') {
        value_start += 1;
    }
    if value_start < chars.len() && matches!(chars[value_start], '=' | ':') {
        value_start += 1;
        while value_start < chars.len() && matches!(chars[value_start], ' ' | '\t' | '\x0c') {
            value_start += 1;
        }
    }
    (unescape(&chars[..key_end.min(chars.len())]), unescape(&chars[value_start..]))
}

fn unescape(chars: &[char]) -> String {
    let mut out = String::with_capacity(chars.len());
    let mut units: Vec<u16> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c != '\\' || i == chars.len() {
            out.extend(char::decode_utf16(units.drain(..)).map(|r| r.unwrap_or('\u{fffd}')));
            out.push(c);
            continue;
        }
        let escaped = chars[i];
        i += 1;
        if escaped == 'u' {
            let hex: String = chars[i..chars.len().min(i + 4)].iter().collect();
            i += hex.len();
            units.push(u16::from_str_radix(&hex, 16).unwrap_or(0xfffd));
            continue;
        }
        out.extend(char::decode_utf16(units.drain(..)).map(|r| r.unwrap_or('\u{fffd}')));
        out.push(match escaped {
            't' => '\t',
            'n' => '\n',
            'r' => '\r',
            'f' => '\x0c',
            other => other,
        });
    }
    out.extend(char::decode_utf16(units.drain(..)).map(|r| r.unwrap_or('\u{fffd}')));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    type TestResult = std::result::Result<(), Box<dyn std::error::Error>>;

    const TOPIC_ID_TEXT: &str = "vTKbSOFgTj-LNy6UfK0G0w";

    fn uuid(text: &str) -> std::result::Result<Uuid, String> {
        parse_uuid(text).ok_or_else(|| format!("{text:?} is not a uuid"))
    }

    /// Uuid parsing inverts `Uuid`'s Display for Kafka's base64 form, with or without padding,
    /// and rejects wrong lengths and non-URL-safe characters.
    #[test]
    fn uuid_text_round_trips() -> TestResult {
        for bytes in [[0u8; 16], [0xff; 16], *b"0123456789abcdef"] {
            let id = Uuid(bytes);
            assert_eq!(uuid(&id.to_string())?, id);
            assert_eq!(uuid(&format!("{id}=="))?, id);
        }
        assert_eq!(uuid(TOPIC_ID_TEXT)?.to_string(), TOPIC_ID_TEXT);
        for bad in ["", "AAAA", "AAAAAAAAAAAAAAAAAAAAA+", "AAAAAAAAAAAAAAAAAAAAAA=", "AAAAAAAAAAAAAAAAAAAAAAAA"] {
            assert_eq!(parse_uuid(bad), None, "{bad:?}");
        }
        Ok(())
    }

    /// A KRaft meta.properties is written in Kafka's properties format and reads back the same.
    #[test]
    fn meta_properties_round_trip() -> TestResult {
        let dir = tempfile::tempdir()?;
        assert_eq!(MetaProperties::read(dir.path())?, None);
        let props = MetaProperties::v1("MkU3OEVBNTcwNTJENDM2Qg", 1, uuid(TOPIC_ID_TEXT)?);
        props.write(dir.path())?;
        let text = std::fs::read_to_string(dir.path().join(META_PROPERTIES_FILE))?;
        let expected = "#\n#Written by Strand\nversion=1\ncluster.id=MkU3OEVBNTcwNTJENDM2Qg\nnode.id=1\n\
                        directory.id=vTKbSOFgTj-LNy6UfK0G0w\n";
        assert_eq!(text, expected);
        assert_eq!(MetaProperties::read(dir.path())?, Some(props));
        Ok(())
    }

    /// A file as Kafka's `kafka-storage.sh format` writes it (dated comment, any key order) reads
    /// back its values.
    #[test]
    fn meta_properties_reads_kafka_written_file() -> TestResult {
        let text = "#\n#Tue Oct 01 12:00:00 UTC 2024\nnode.id=3\ndirectory.id=vTKbSOFgTj-LNy6UfK0G0w\n\
                    version=1\ncluster.id=4L6g3nShT-eMCtK--X86sw\n";
        let props = MetaProperties::parse(text.as_bytes())?;
        assert_eq!(props, MetaProperties::v1("4L6g3nShT-eMCtK--X86sw", 3, uuid(TOPIC_ID_TEXT)?));
        let v0 = MetaProperties::parse(b"broker.id=7\ncluster.id = abc\n")?;
        let expected = MetaProperties {
            version: MetaPropertiesVersion::V0,
            cluster_id: Some("abc".into()),
            node_id: Some(7),
            directory_id: None,
        };
        assert_eq!(v0, expected);
        Ok(())
    }

    /// Java properties syntax: escapes, separators, continuations and comments read as Java does.
    #[test]
    fn properties_syntax_matches_java() {
        let text = b"! comment\n  a\\:b = x\\ty\nc:d\\\n   e\nf g\nh\\u00e9=\\u0041\\\\\n";
        let pairs = parse_properties(text);
        let expected = [("a:b", "x\ty"), ("c", "de"), ("f", "g"), ("h\u{e9}", "A\\")];
        let expected: Vec<(String, String)> = expected.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        assert_eq!(pairs, expected);
        let odd = "é: #=!\\ x";
        let escaped = escape_property_value(odd);
        assert_eq!(escaped, "\\u00E9\\: \\#\\=\\!\\\\ x");
        assert_eq!(parse_properties(format!("k={escaped}").as_bytes()), vec![("k".to_string(), odd.to_string())]);
    }

    /// Version 1 without node.id or cluster.id, an unknown version, or a bad directory id is
    /// corrupt, never a panic.
    #[test]
    fn bad_meta_properties_are_corrupt() -> TestResult {
        for bad in [
            "version=1\nnode.id=1\n",
            "version=1\ncluster.id=x\n",
            "version=2\n",
            "version=1\nnode.id=x\ncluster.id=a\n",
        ] {
            assert!(MetaProperties::parse(bad.as_bytes()).is_err(), "{bad:?}");
        }
        let dir = tempfile::tempdir()?;
        std::fs::write(dir.path().join(META_PROPERTIES_FILE), "version=0\ndirectory.id=nope\n")?;
        assert!(matches!(MetaProperties::read(dir.path()), Err(LogError::Corrupt { .. })));
        Ok(())
    }

    /// partition.metadata is byte for byte Kafka's, with no final newline, and reads back.
    #[test]
    fn partition_metadata_round_trip() -> TestResult {
        let dir = tempfile::tempdir()?;
        assert_eq!(PartitionMetadata::read(dir.path())?, None);
        let metadata = PartitionMetadata::new(uuid(TOPIC_ID_TEXT)?);
        metadata.write(dir.path())?;
        let bytes = std::fs::read(PartitionMetadata::path(dir.path()))?;
        assert_eq!(bytes, b"version: 0\ntopic_id: vTKbSOFgTj-LNy6UfK0G0w");
        assert_eq!(PartitionMetadata::read(dir.path())?, Some(metadata));
        Ok(())
    }

    /// partition.metadata errors match Kafka's reader: bad separators, versions, ids and the zero
    /// id are corrupt; a newer version and a final newline are accepted.
    #[test]
    fn partition_metadata_parse_cases() -> TestResult {
        let ok = PartitionMetadata::parse("version: 1\ntopic_id:  vTKbSOFgTj-LNy6UfK0G0w\n")?;
        assert_eq!(ok, PartitionMetadata { version: 1, topic_id: uuid(TOPIC_ID_TEXT)? });
        for bad in [
            "",
            "version:0\ntopic_id: vTKbSOFgTj-LNy6UfK0G0w",
            "version: -1\ntopic_id: vTKbSOFgTj-LNy6UfK0G0w",
            "version: 0",
            "version: 0\ntopic_id: short",
            "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA",
            "version: 0\ntopic_id: a: vTKbSOFgTj-LNy6UfK0G0w",
        ] {
            assert!(PartitionMetadata::parse(bad).is_err(), "{bad:?}");
        }
        let dir = tempfile::tempdir()?;
        std::fs::write(PartitionMetadata::path(dir.path()), "garbage")?;
        assert!(matches!(PartitionMetadata::read(dir.path()), Err(LogError::Corrupt { .. })));
        Ok(())
    }

    /// The clean-shutdown marker carries Kafka's JSON body; empty or foreign bodies read as no
    /// epoch, and removal is idempotent.
    #[test]
    fn clean_shutdown_marker_lifecycle() -> TestResult {
        let dir = tempfile::tempdir()?;
        assert!(!clean_shutdown_exists(dir.path()));
        assert_eq!(read_clean_shutdown(dir.path())?, None);
        write_clean_shutdown(dir.path(), 42)?;
        assert_eq!(std::fs::read_to_string(dir.path().join(CLEAN_SHUTDOWN_FILE))?, r#"{"version":0,"brokerEpoch":42}"#);
        assert!(clean_shutdown_exists(dir.path()));
        assert_eq!(read_clean_shutdown(dir.path())?, Some(42));
        std::fs::write(dir.path().join(CLEAN_SHUTDOWN_FILE), "")?;
        assert_eq!(read_clean_shutdown(dir.path())?, None);
        std::fs::write(dir.path().join(CLEAN_SHUTDOWN_FILE), " { \"brokerEpoch\" : -1 , \"version\" : 0 } ")?;
        assert_eq!(read_clean_shutdown(dir.path())?, Some(-1));
        remove_clean_shutdown(dir.path())?;
        remove_clean_shutdown(dir.path())?;
        assert!(!clean_shutdown_exists(dir.path()));
        Ok(())
    }
}
