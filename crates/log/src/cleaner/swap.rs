//! Crash safety of the cleaner's segment swap, as Kafka's: cleaned segments are written under
//! `<name>.cleaned`, renamed `<name>.swap` once complete and synced (the commit point), then the
//! segments they replace are deleted and the `.swap` suffix is dropped. [`Log::open`] finishes
//! whatever a crash interrupted:
//!
//! - `.cleaned` files: an unfinished pass; deleted (the old segments are intact).
//! - a `<base>.log.swap`: a committed swap. Every other segment file whose base offset is in
//!   `[base, the swap's next offset)` belongs to a segment it replaced and is deleted; then the
//!   swap's files lose their suffix. Index `.swap` files without their `.log.swap` are deleted.
//!
//! As in Kafka, the replaced range is read from the swap itself, so a replaced segment whose
//! records were all cleaned away and that lies past the swap's last batch survives a crash
//! between the commit and its deletion. The log is still consistent (that segment's records
//! are each a record of the log at its own offset, superseded later in the log), merely less
//! compacted until the next pass.
//!
//! [`Log::open`]: crate::Log::open

use std::path::{Path, PathBuf};

use strand_base::Offset;

use crate::file::{SegmentFile, sync_dir};
use crate::{LogError, Result};

/// Kafka's `CleanedFileSuffix`.
pub const CLEANED_SUFFIX: &str = ".cleaned";
/// Kafka's `SwapFileSuffix`.
pub const SWAP_SUFFIX: &str = ".swap";

/// The files of a segment, by extension; their stem is the 20-digit base offset.
const SEGMENT_EXTENSIONS: [&str; 4] = ["log", "index", "timeindex", "txnindex"];

/// Finishes or rolls back an interrupted swap in `dir` (see the module doc).
pub(crate) fn complete_interrupted_swaps(dir: &Path) -> Result<()> {
    let mut log_swaps: Vec<(Offset, PathBuf)> = Vec::new();
    let mut index_swaps: Vec<(Offset, PathBuf)> = Vec::new();
    let mut others: Vec<(Offset, PathBuf)> = Vec::new();
    let mut changed = false;
    for entry in std::fs::read_dir(dir).map_err(|e| LogError::io(dir, e))? {
        let path = entry.map_err(|e| LogError::io(dir, e))?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()).map(str::to_owned) else { continue };
        if name.ends_with(CLEANED_SUFFIX) {
            std::fs::remove_file(&path).map_err(|e| LogError::io(&path, e))?;
            changed = true;
        } else if let Some((base, extension)) = segment_file(name.strip_suffix(SWAP_SUFFIX).unwrap_or(&name)) {
            match (name.ends_with(SWAP_SUFFIX), extension == "log") {
                (true, true) => log_swaps.push((base, path)),
                (true, false) => index_swaps.push((base, path)),
                (false, _) => others.push((base, path)),
            }
        }
    }
    let mut ranges = Vec::new();
    for (base, path) in &log_swaps {
        ranges.push((*base, next_offset(path, *base)?.max(base + 1)));
    }
    for (base, path) in others {
        if ranges.iter().any(|(from, to)| (*from..*to).contains(&base)) {
            std::fs::remove_file(&path).map_err(|e| LogError::io(&path, e))?;
        }
    }
    for (base, path) in index_swaps {
        if log_swaps.iter().any(|(b, _)| *b == base) {
            drop_suffix(&path)?;
        } else {
            std::fs::remove_file(&path).map_err(|e| LogError::io(&path, e))?;
        }
    }
    for (_, path) in &log_swaps {
        drop_suffix(path)?;
    }
    if changed || !ranges.is_empty() {
        sync_dir(dir).map_err(|e| LogError::io(dir, e))?;
    }
    Ok(())
}

/// Deletes those of the `.cleaned` files of the segment at `base` in `dir` that exist: the output
/// of a pass abandoned before its swap (a missing directory, the log deleted, is no error).
pub(crate) fn delete_cleaned(dir: &Path, base: Offset) -> Result<()> {
    for extension in SEGMENT_EXTENSIONS {
        let path = dir.join(crate::segment::file_name(base, &format!(".{extension}{CLEANED_SUFFIX}")));
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(LogError::io(&path, e)),
            _ => {}
        }
    }
    Ok(())
}

/// `00000000000000000042.index` → (42, "index"), for the segment files only (not `.snapshot`).
fn segment_file(name: &str) -> Option<(Offset, &str)> {
    let (stem, extension) = name.split_once('.')?;
    let base = stem.parse::<Offset>().ok().filter(|_| stem.len() == 20)?;
    SEGMENT_EXTENSIONS.contains(&extension).then_some((base, extension))
}

fn drop_suffix(path: &Path) -> Result<()> {
    let name = path.to_string_lossy();
    let to = PathBuf::from(name.strip_suffix(SWAP_SUFFIX).unwrap_or(&name));
    std::fs::rename(path, &to).map_err(|e| LogError::io(path, e))
}

/// The offset after the last whole batch of the `.log` file at `path` (its base if it has none).
fn next_offset(path: &Path, base: Offset) -> Result<Offset> {
    let file = SegmentFile::open(path, false).map_err(|e| LogError::io(path, e))?;
    let mut header = [0u8; 27];
    let (mut position, mut next) = (0u64, base);
    while position + header.len() as u64 <= file.len() {
        file.read_exact_at(&mut header, position).map_err(|e| LogError::io(path, e))?;
        let word = |at: usize| i32::from_be_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]]);
        let base_offset = i64::from_be_bytes(header[..8].try_into().unwrap_or_default());
        let (length, last_delta) = (word(8), word(23));
        let end = position + 12 + u64::try_from(length).unwrap_or(0);
        if length <= 0 || end > file.len() {
            break;
        }
        next = base_offset + i64::from(last_delta) + 1;
        position = end;
    }
    Ok(next)
}
