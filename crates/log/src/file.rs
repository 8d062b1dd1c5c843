//! The log's only door to the file system: positioned reads and appends, `fdatasync`, truncation,
//! and the free space of a log directory's file system.
//!
//! Every byte the log reads or writes goes through [`SegmentFile`], so another I/O backend
//! (io_uring, direct I/O) can be tried by changing this file alone. Reads are positioned
//! (`pread`), so readers never move a shared cursor and can run beside the appender.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An open data file of the log: a segment's `.log`, or one of its index files.
#[derive(Debug)]
pub struct SegmentFile {
    /// Shared so a fetch can keep sending from a segment that is rolled or deleted meanwhile.
    file: Arc<File>,
    path: PathBuf,
    /// The bytes written so far; appends go here. May be less than the file's length on disk while
    /// the file is preallocated (indexes).
    len: u64,
}

impl SegmentFile {
    /// Opens `path`, creating it if `create`; its current length is where appends continue.
    pub fn open(path: &Path, create: bool) -> io::Result<SegmentFile> {
        let file = OpenOptions::new().read(true).write(true).create(create).truncate(false).open(path)?;
        let len = file.metadata()?.len();
        Ok(SegmentFile { file: Arc::new(file), path: path.to_owned(), len })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The bytes written (not the preallocated size).
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The underlying file, for zero-copy sends (`sendfile`) by the server.
    pub fn as_file(&self) -> &File {
        &self.file
    }

    /// A shared handle on the file, which stays readable after the log drops or deletes it.
    pub fn shared(&self) -> Arc<File> {
        Arc::clone(&self.file)
    }

    /// A second handle on the same open file that reads the bytes written so far and no more,
    /// for a reader that does not hold the log's lock (the log cleaner). Nothing is ever written
    /// through it; like [`SegmentFile::shared`], it stays readable after the file is deleted.
    pub(crate) fn reader(&self) -> SegmentFile {
        SegmentFile { file: Arc::clone(&self.file), path: self.path.clone(), len: self.len }
    }

    /// Appends `bytes` at the end of what was written; returns the position they start at.
    pub fn append(&mut self, bytes: &[u8]) -> io::Result<u64> {
        let position = self.len;
        self.file.write_all_at(bytes, position)?;
        self.len += bytes.len() as u64;
        Ok(position)
    }

    /// Writes `bytes` at `position`, which must be within what was written (index rewrites).
    pub fn write_at(&mut self, bytes: &[u8], position: u64) -> io::Result<()> {
        self.file.write_all_at(bytes, position)?;
        self.len = self.len.max(position + bytes.len() as u64);
        Ok(())
    }

    /// Fills `buf` from `position`; fails if the file ends first.
    pub fn read_exact_at(&self, buf: &mut [u8], position: u64) -> io::Result<()> {
        self.file.read_exact_at(buf, position)
    }

    /// Reads `len` bytes from `position`, or fewer if the written bytes end first.
    pub fn read_at(&self, position: u64, len: usize) -> io::Result<Vec<u8>> {
        let available = self.len.saturating_sub(position).min(len as u64) as usize;
        let mut buf = vec![0u8; available];
        self.file.read_exact_at(&mut buf, position)?;
        Ok(buf)
    }

    /// `fdatasync`: the written bytes survive a power cut once this returns.
    pub fn sync_data(&self) -> io::Result<()> {
        self.file.sync_data()
    }

    /// A handle to `fdatasync` this file with, away from whoever owns it (see
    /// [`crate::log::LogFlush`]).
    pub fn sync_target(&self) -> SyncTarget {
        SyncTarget { file: Some(Arc::clone(&self.file)), path: self.path.clone() }
    }

    /// Cuts the file (and what counts as written) to `len` bytes.
    pub fn truncate(&mut self, len: u64) -> io::Result<()> {
        self.file.set_len(len)?;
        self.len = len;
        Ok(())
    }

    /// Reserves `size` bytes on disk without counting them as written (a sparse extension, as
    /// Kafka preallocates index files); [`SegmentFile::trim`] gives them back.
    pub fn preallocate(&mut self, size: u64) -> io::Result<()> {
        if size > self.len {
            self.file.set_len(size)?;
        }
        Ok(())
    }

    /// Shrinks the file on disk to what was written.
    pub fn trim(&mut self) -> io::Result<()> {
        self.file.set_len(self.len)
    }

    /// The file's length on disk, preallocation included.
    pub fn disk_len(&self) -> io::Result<u64> {
        Ok(self.file.metadata()?.len())
    }

    /// Renames the file (segment deletion renames to `.deleted` first, as Kafka does).
    pub fn rename(&mut self, to: &Path) -> io::Result<()> {
        std::fs::rename(&self.path, to)?;
        self.path = to.to_owned();
        Ok(())
    }
}

/// A file to `fdatasync` without the lock of the log that writes it: the shared handle stays
/// valid if the file is renamed or deleted meanwhile (syncing it is then harmless), and its path
/// names it in errors. Or a directory, opened and `fsync`ed when synced, which makes its entries
/// (files created or renamed in it) durable.
#[derive(Debug)]
pub struct SyncTarget {
    /// `None` for a directory.
    file: Option<Arc<File>>,
    path: PathBuf,
}

impl SyncTarget {
    /// The directory `dir`.
    pub fn directory(dir: &Path) -> SyncTarget {
        SyncTarget { file: None, path: dir.to_owned() }
    }

    /// `fdatasync` of a file, `fsync` of a directory: what was written (or created in it)
    /// before this call survives a power cut once it returns.
    pub fn sync(&self) -> crate::Result<()> {
        self.sync_io().map_err(|e| crate::LogError::io(&self.path, e))
    }

    fn sync_io(&self) -> io::Result<()> {
        // Tests make a sync fail here (`fail::cfg("log::sync", "return")`).
        fail::fail_point!("log::sync", |_| Err(io::Error::other("injected fdatasync failure")));
        match &self.file {
            Some(file) => file.sync_data(),
            None => sync_dir(&self.path),
        }
    }

    /// The path it syncs.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Writes `contents` to `path` atomically: a temporary file, `fsync`, rename over, directory
/// `fsync`. Checkpoint and metadata files are always whole, old or new, after a crash.
pub fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    let tmp = temporary_path(path);
    {
        let file = OpenOptions::new().write(true).create(true).truncate(true).open(&tmp)?;
        file.write_all_at(contents, 0)?;
        file.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

/// Where [`write_atomically`] stages `path`: Kafka's `<name>.tmp`. Leftovers of a crash are
/// deleted when the log is opened.
pub fn temporary_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".tmp");
    path.with_file_name(name)
}

/// The size of a file system and the bytes still writable in it, as Java's `FileStore` reports
/// them (`getTotalSpace`, `getUsableSpace`): what Kafka's DescribeLogDirs answers for each log
/// directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileSystemSpace {
    /// Every block of the file system: `f_blocks × f_frsize`.
    pub total_bytes: u64,
    /// The free blocks an unprivileged process may write, those reserved for root not counted:
    /// `f_bavail × f_frsize`.
    pub usable_bytes: u64,
}

/// The space of the file system holding `path` (`statvfs(2)`).
pub fn file_system_space(path: &Path) -> io::Result<FileSystemSpace> {
    let stat = rustix::fs::statvfs(path)?;
    Ok(FileSystemSpace {
        total_bytes: stat.f_blocks.saturating_mul(stat.f_frsize),
        usable_bytes: stat.f_bavail.saturating_mul(stat.f_frsize),
    })
}

/// `fsync` of a directory, so that created, renamed and deleted entries survive a crash.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// A log directory's health, shared by every log in it (Kafka's `LogDirFailureChannel`): once
/// a sync of any of its files fails, the directory is offline until the node restarts and reads
/// it again from disk. An `fdatasync` that failed may have dropped the dirty pages it was given,
/// so a later sync that succeeds proves nothing about them ("fsyncgate"): nothing written there
/// is acknowledged again, and no recovery point moves past it.
#[derive(Debug, Default)]
pub struct DirHealth {
    offline: std::sync::atomic::AtomicBool,
    reason: std::sync::Mutex<Option<String>>,
}

impl DirHealth {
    /// Takes the directory offline for `reason` (the first reason is kept); logs it once.
    pub fn fail(&self, reason: &str) {
        if !self.offline.swap(true, std::sync::atomic::Ordering::SeqCst) {
            tracing::error!("{reason}: the log directory is offline until a restart");
            if let Ok(mut kept) = self.reason.lock() {
                *kept = Some(reason.to_owned());
            }
        }
    }

    pub fn is_offline(&self) -> bool {
        self.offline.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// An error naming why the directory is offline, if it is.
    pub fn check(&self, dir: &Path) -> crate::Result<()> {
        if !self.is_offline() {
            return Ok(());
        }
        let reason = self.reason.lock().ok().and_then(|r| r.clone()).unwrap_or_default();
        Err(crate::LogError::DirOffline { path: dir.to_owned(), reason })
    }
}

/// Kafka's lock file in every log directory.
pub const LOCK_FILE: &str = ".lock";

/// An exclusive `flock(2)` on a log directory's [`LOCK_FILE`], held until dropped (or the
/// process ends, however it ends): no second process can use the directory meanwhile. The file
/// holds the holder's pid, so a refused process can name it.
#[derive(Debug)]
pub struct DirLock {
    _file: File,
    dir: PathBuf,
}

impl DirLock {
    /// Locks `dir` (created if missing), or fails naming it and the pid that holds it.
    pub fn acquire(dir: &Path) -> io::Result<DirLock> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(LOCK_FILE);
        let file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path)?;
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => {}
            Err(e) if e == rustix::io::Errno::WOULDBLOCK => {
                let holder = std::fs::read_to_string(&path).unwrap_or_default();
                let holder = holder.trim();
                let holder = if holder.is_empty() { String::new() } else { format!(" (pid {holder})") };
                return Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    format!("{} is in use by another process{holder}", dir.display()),
                ));
            }
            Err(e) => return Err(e.into()),
        }
        file.set_len(0)?;
        file.write_all_at(std::process::id().to_string().as_bytes(), 0)?;
        Ok(DirLock { _file: file, dir: dir.to_owned() })
    }

    /// The directory it locks.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Appends land at the end, positioned reads see them, truncation and preallocation keep
    /// "written" apart from "on disk".
    #[test]
    fn appends_reads_and_preallocation() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let mut file = SegmentFile::open(&dir.path().join("a.index"), true)?;
        assert_eq!(file.append(b"hello")?, 0);
        assert_eq!(file.append(b" world")?, 5);
        assert_eq!(file.read_at(6, 100)?, b"world");
        file.preallocate(1024)?;
        assert_eq!((file.len(), file.disk_len()?), (11, 1024));
        file.trim()?;
        assert_eq!(file.disk_len()?, 11);
        file.truncate(5)?;
        assert_eq!(file.read_at(0, 100)?, b"hello");
        Ok(())
    }

    /// The file system of a temporary directory has some space, usable space within it, and a
    /// missing path is an error, not a zero.
    #[test]
    fn file_system_space_of_a_directory() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let space = file_system_space(dir.path())?;
        assert!(space.total_bytes > 0 && space.usable_bytes > 0, "{space:?}");
        assert!(space.total_bytes >= space.usable_bytes, "{space:?}");
        assert!(file_system_space(&dir.path().join("missing")).is_err());
        Ok(())
    }

    /// An atomic write replaces the whole file and leaves no temporary behind.
    #[test]
    fn atomic_write_replaces_whole_file() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("recovery-point-offset-checkpoint");
        write_atomically(&path, b"0\n0\n")?;
        write_atomically(&path, b"0\n1\nt 0 5\n")?;
        assert_eq!(std::fs::read(&path)?, b"0\n1\nt 0 5\n");
        assert!(!temporary_path(&path).exists());
        assert_eq!(temporary_path(&path).file_name(), Some("recovery-point-offset-checkpoint.tmp".as_ref()));
        Ok(())
    }
}
