//! The log's only door to the file system: positioned reads and appends, `fdatasync`, truncation,
//! and the free space of a log directory's file system.
//!
//! Every byte the log reads or writes goes through [`SegmentFile`], so another I/O backend
//! (io_uring, direct I/O) can be tried by changing this file alone. Reads are positioned
//! (`pread`), so readers never move a shared cursor and can run beside the appender.
//!
//! Open descriptors are what a node runs out of first when it hosts many partitions, so a file
//! holds one only while it needs it (see [`SegmentFile`]): an index opens its file for each write
//! and closes it (its entries are in memory), a segment's `.log` stays open while it is appended
//! to, and a cold `.log` is opened on demand through a small process-wide cache of at most
//! [`COLD_SEGMENT_FILES_MAX`] descriptors, the least recently used closed first.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

/// The most cold segment `.log` files (segments not being appended to) the process keeps open at
/// once for reads; past it the least recently read is closed, and opened again when read again.
/// A fetch's [`crate::segment::SegmentSlice`] shares the descriptor, so closing it here never cuts
/// a response short.
pub const COLD_SEGMENT_FILES_MAX: usize = 128;

/// The `len` bytes of `file` from `position`, copied into memory: a fetched record set for a
/// TLS connection, an in-process follower or a test, where `sendfile` cannot serve it.
pub fn read_range(file: &File, position: u64, len: u64) -> io::Result<bytes::Bytes> {
    let len = usize::try_from(len).map_err(|_| io::Error::other("a file range larger than memory"))?;
    let mut buf = vec![0u8; len];
    file.read_exact_at(&mut buf, position)?;
    Ok(bytes::Bytes::from(buf))
}

/// How long a [`SegmentFile`] keeps its descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Residency {
    /// Open for as long as the `SegmentFile` lives (a one-off reader).
    Always,
    /// Another handle's `.log`, read through the cold-file cache under that handle's key; never
    /// written, and dropping it leaves the cache alone (the log cleaner's reader).
    Borrowed,
    /// A segment's `.log`: held open from its first write until [`SegmentFile::release`] (the
    /// active segment), read through the cold-file cache otherwise.
    WhileWritten,
    /// An index: opened for each operation and closed after it; its entries live in memory.
    PerOperation,
}

/// A data file of the log: a segment's `.log`, or one of its index files. Whether it holds an
/// open descriptor depends on what it is (see the module's doc).
#[derive(Debug)]
pub struct SegmentFile {
    path: PathBuf,
    /// The bytes written so far; appends go here. May be less than the file's length on disk while
    /// the file is preallocated (indexes).
    len: u64,
    residency: Residency,
    /// The descriptor held, if any. Shared so a fetch can keep sending from a segment that is
    /// rolled, closed or deleted meanwhile.
    held: Option<Arc<File>>,
    /// This file's key in the cold-file cache (renames keep it: the descriptor follows the file).
    id: u64,
}

impl SegmentFile {
    /// Opens `path`, creating it if `create`, and holds it open as long as it lives; its current
    /// length is where appends continue.
    pub fn open(path: &Path, create: bool) -> io::Result<SegmentFile> {
        let file = open_file(path, create)?;
        let len = file.metadata()?.len();
        Ok(SegmentFile { path: path.to_owned(), len, residency: Residency::Always, held: Some(Arc::new(file)), id: 0 })
    }

    /// A segment's `.log` at `path` (created if `create`): held open once written to, until
    /// [`SegmentFile::release`]; read through the cold-file cache meanwhile.
    pub fn open_log(path: &Path, create: bool) -> io::Result<SegmentFile> {
        Self::open_closed(path, create, Residency::WhileWritten)
    }

    /// An index file at `path` (created if `create`), opened for each operation only.
    pub fn open_index(path: &Path, create: bool) -> io::Result<SegmentFile> {
        Self::open_closed(path, create, Residency::PerOperation)
    }

    /// A new index file at `path`, emptied if it exists, and extended to `preallocated` bytes
    /// (sparse, as [`SegmentFile::preallocate`]) through the one descriptor that creates it: a
    /// new segment's index costs one `openat` and one `ftruncate`, not a probe, a create and a
    /// reopen. Held open for no operation after, as [`SegmentFile::open_index`].
    pub fn create_index(path: &Path, preallocated: u64) -> io::Result<SegmentFile> {
        let file = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(path)?;
        if preallocated > 0 {
            file.set_len(preallocated)?;
        }
        let id = NEXT_FILE_ID.fetch_add(1, Ordering::Relaxed);
        Ok(SegmentFile { path: path.to_owned(), len: 0, residency: Residency::PerOperation, held: None, id })
    }

    fn open_closed(path: &Path, create: bool, residency: Residency) -> io::Result<SegmentFile> {
        let len = open_file(path, create)?.metadata()?.len();
        let id = NEXT_FILE_ID.fetch_add(1, Ordering::Relaxed);
        Ok(SegmentFile { path: path.to_owned(), len, residency, held: None, id })
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

    /// A descriptor to read (or cut) the file with: the one held, else the cold-file cache's
    /// (`.log`), else a new one closed when the caller drops it (an index).
    fn handle(&self) -> io::Result<Arc<File>> {
        if let Some(file) = &self.held {
            return Ok(Arc::clone(file));
        }
        match self.residency {
            Residency::WhileWritten | Residency::Borrowed => COLD_FILES.get_or_open(self.id, &self.path),
            Residency::Always | Residency::PerOperation => Ok(Arc::new(open_file(&self.path, false)?)),
        }
    }

    /// A descriptor to write with: a `.log` keeps it from now on (it is the active segment).
    fn write_handle(&mut self) -> io::Result<Arc<File>> {
        if self.held.is_none() && self.residency == Residency::WhileWritten {
            let file = match COLD_FILES.take(self.id) {
                Some(file) => file,
                None => Arc::new(open_file(&self.path, false)?),
            };
            self.held = Some(file);
        }
        self.handle()
    }

    /// Gives up the descriptor a `.log` holds since it was written (the segment is no longer
    /// active): it goes to the cold-file cache, where recent segments are read most.
    pub fn release(&mut self) {
        if self.residency == Residency::WhileWritten
            && let Some(file) = self.held.take()
        {
            COLD_FILES.put(self.id, file);
        }
    }

    /// A shared handle on the file, which stays readable after the log closes, drops or deletes
    /// it, for zero-copy sends (`sendfile`) by the server.
    pub fn shared(&self) -> io::Result<Arc<File>> {
        self.handle()
    }

    /// A second handle on the same file that reads the bytes written so far and no more, for a
    /// reader that does not hold the log's lock (the log cleaner). Nothing is ever written through
    /// it. A cold `.log` is read through the cold-file cache, so a pass over many segments holds
    /// no descriptor of its own; once the file is deleted, a read through it may fail (the
    /// cleaner's pass is aborted then anyway). A file that holds its descriptor shares it.
    pub(crate) fn reader(&self) -> SegmentFile {
        let (residency, held) = match (&self.held, self.residency) {
            (None, Residency::WhileWritten) => (Residency::Borrowed, None),
            (held, _) => (Residency::Always, held.clone()),
        };
        SegmentFile { path: self.path.clone(), len: self.len, residency, held, id: self.id }
    }

    /// Appends `bytes` at the end of what was written; returns the position they start at.
    pub fn append(&mut self, bytes: &[u8]) -> io::Result<u64> {
        let position = self.len;
        self.write_handle()?.write_all_at(bytes, position)?;
        self.len += bytes.len() as u64;
        Ok(position)
    }

    /// Writes `bytes` at `position`, which must be within what was written (index rewrites).
    pub fn write_at(&mut self, bytes: &[u8], position: u64) -> io::Result<()> {
        self.write_handle()?.write_all_at(bytes, position)?;
        self.len = self.len.max(position + bytes.len() as u64);
        Ok(())
    }

    /// Fills `buf` from `position`; fails if the file ends first.
    pub fn read_exact_at(&self, buf: &mut [u8], position: u64) -> io::Result<()> {
        self.handle()?.read_exact_at(buf, position)
    }

    /// Reads `len` bytes from `position`, or fewer if the written bytes end first.
    pub fn read_at(&self, position: u64, len: usize) -> io::Result<Vec<u8>> {
        let available = self.len.saturating_sub(position).min(len as u64) as usize;
        let mut buf = vec![0u8; available];
        self.handle()?.read_exact_at(&mut buf, position)?;
        Ok(buf)
    }

    /// The first position at or after `from` the file system holds as data (`lseek` with
    /// `SEEK_DATA`), or `None` when only holes follow (read, they are zeros). A file system that
    /// does not track holes answers `from` itself.
    pub fn next_data(&self, from: u64) -> io::Result<Option<u64>> {
        match rustix::fs::seek(&*self.handle()?, rustix::fs::SeekFrom::Data(from)) {
            Ok(data) => Ok(Some(data)),
            Err(e) if e == rustix::io::Errno::NXIO => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// `fdatasync`: the written bytes survive a power cut once this returns.
    pub fn sync_data(&self) -> io::Result<()> {
        sync_through_door(&*self.handle()?, &self.path, SyncKind::Data)
    }

    /// A handle to `fdatasync` this file with, away from whoever owns it (see
    /// [`crate::log::LogFlush`]): the descriptor held, or the path, opened when it syncs.
    pub fn sync_target(&self) -> SyncTarget {
        let kind = match &self.held {
            Some(file) => TargetKind::Open(Arc::clone(file)),
            None => TargetKind::File,
        };
        SyncTarget { kind, path: self.path.clone() }
    }

    /// Cuts the file (and what counts as written) to `len` bytes.
    pub fn truncate(&mut self, len: u64) -> io::Result<()> {
        self.handle()?.set_len(len)?;
        self.len = len;
        Ok(())
    }

    /// Reserves `size` bytes on disk without counting them as written (a sparse extension, as
    /// Kafka preallocates index files); [`SegmentFile::trim`] gives them back.
    pub fn preallocate(&mut self, size: u64) -> io::Result<()> {
        if size > self.len {
            self.handle()?.set_len(size)?;
        }
        Ok(())
    }

    /// Shrinks the file on disk to what was written.
    pub fn trim(&mut self) -> io::Result<()> {
        self.handle()?.set_len(self.len)
    }

    /// The file's length on disk, preallocation included.
    pub fn disk_len(&self) -> io::Result<u64> {
        match &self.held {
            Some(file) => Ok(file.metadata()?.len()),
            None => Ok(std::fs::metadata(&self.path)?.len()),
        }
    }

    /// Renames the file (segment deletion renames to `.deleted` first, as Kafka does).
    pub fn rename(&mut self, to: &Path) -> io::Result<()> {
        std::fs::rename(&self.path, to)?;
        self.path = to.to_owned();
        Ok(())
    }
}

impl Drop for SegmentFile {
    /// A `.log` dropped (its segment deleted or its log closed) leaves the cold-file cache, so a
    /// deleted file's blocks are freed once no fetch still sends from it.
    fn drop(&mut self) {
        if self.residency == Residency::WhileWritten {
            COLD_FILES.remove(self.id);
        }
    }
}

/// Opens `path` for reading and writing, creating it if `create`.
fn open_file(path: &Path, create: bool) -> io::Result<File> {
    OpenOptions::new().read(true).write(true).create(create).truncate(false).open(path)
}

/// Keys of the cold-file cache, one per `.log` file opened.
static NEXT_FILE_ID: AtomicU64 = AtomicU64::new(1);

/// The process's cache of cold `.log` descriptors.
static COLD_FILES: LazyLock<ColdFiles> = LazyLock::new(ColdFiles::default);

/// The descriptors of cold `.log` files, at most [`COLD_SEGMENT_FILES_MAX`], by file key, with
/// when each was last used; the least recently used is closed first. Eviction scans the entries,
/// which the limit keeps few.
#[derive(Debug, Default)]
struct ColdFiles {
    inner: Mutex<ColdEntries>,
}

#[derive(Debug, Default)]
struct ColdEntries {
    files: HashMap<u64, (Arc<File>, u64)>,
    clock: u64,
}

impl ColdFiles {
    fn entries(&self) -> std::sync::MutexGuard<'_, ColdEntries> {
        // The entries stay consistent whatever panicked while holding the lock.
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn get_or_open(&self, id: u64, path: &Path) -> io::Result<Arc<File>> {
        {
            let mut entries = self.entries();
            entries.clock += 1;
            let now = entries.clock;
            if let Some((file, used)) = entries.files.get_mut(&id) {
                *used = now;
                return Ok(Arc::clone(file));
            }
        }
        // Opened without the lock; a reader racing on the same file keeps whichever lands last.
        let file = Arc::new(open_file(path, false)?);
        self.put(id, Arc::clone(&file));
        Ok(file)
    }

    fn put(&self, id: u64, file: Arc<File>) {
        let mut entries = self.entries();
        entries.clock += 1;
        let now = entries.clock;
        entries.files.insert(id, (file, now));
        while entries.files.len() > COLD_SEGMENT_FILES_MAX {
            let oldest = entries.files.iter().min_by_key(|(_, (_, used))| *used).map(|(id, _)| *id);
            if let Some(oldest) = oldest {
                entries.files.remove(&oldest);
            }
        }
    }

    fn take(&self, id: u64) -> Option<Arc<File>> {
        self.entries().files.remove(&id).map(|(file, _)| file)
    }

    fn remove(&self, id: u64) {
        // Dropped after the lock is released: closing a descriptor is a system call.
        let removed = self.take(id);
        drop(removed);
    }
}

/// How many cold `.log` descriptors the process's cache holds now (at most
/// [`COLD_SEGMENT_FILES_MAX`]).
pub fn cold_segment_files_open() -> usize {
    COLD_FILES.entries().files.len()
}

/// A file to `fdatasync` without the lock of the log that writes it: the shared handle stays
/// valid if the file is renamed or deleted meanwhile (syncing it is then harmless), and its path
/// names it in errors. Or a directory, opened and `fsync`ed when synced, which makes its entries
/// (files created or renamed in it) durable.
#[derive(Debug)]
pub struct SyncTarget {
    kind: TargetKind,
    path: PathBuf,
}

#[derive(Debug)]
enum TargetKind {
    /// A file's open descriptor.
    Open(Arc<File>),
    /// A file that holds no descriptor (an index, a cold `.log`): opened by path to sync. On
    /// Linux an `fdatasync` through any descriptor writes the file's dirty pages back, whoever
    /// wrote them, and reports a writeback error no one has seen yet (since 4.16), so closing the
    /// writer's descriptor first loses nothing. A file gone by then was deleted (or renamed away
    /// by a truncation or a cleaner's swap, which keep the recovery point from moving past it):
    /// nothing there needs to be durable.
    File,
    /// A directory, opened and `fsync`ed when synced.
    Directory,
}

impl SyncTarget {
    /// The directory `dir`.
    pub fn directory(dir: &Path) -> SyncTarget {
        SyncTarget { kind: TargetKind::Directory, path: dir.to_owned() }
    }

    /// `fdatasync` of a file, `fsync` of a directory: what was written (or created in it)
    /// before this call survives a power cut once it returns.
    pub fn sync(&self) -> crate::Result<()> {
        self.sync_io().map_err(|e| crate::LogError::io(&self.path, e))
    }

    fn sync_io(&self) -> io::Result<()> {
        // Tests make a flush's sync fail here (`fail::cfg("log::sync", "return")`); skipping one
        // (`log::sync_skipped`) is the door's, below, for every sync.
        fail::fail_point!("log::sync", |_| Err(io::Error::other("injected fdatasync failure")));
        // Only the metadata log's syncs (a test of the quorum's failure beside healthy data logs).
        fail::fail_point!("log::sync_metadata", in_metadata_log(&self.path), |_| {
            Err(io::Error::other("injected fsync failure of the metadata log"))
        });
        match &self.kind {
            TargetKind::Open(file) => sync_through_door(file, &self.path, SyncKind::Data),
            TargetKind::File => match File::open(&self.path) {
                Ok(file) => sync_through_door(&file, &self.path, SyncKind::Data),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(e),
            },
            // Likewise a directory gone by then: its log was deleted or moved to another log dir
            // (whose swap synced the moved files itself).
            TargetKind::Directory => match sync_dir(&self.path) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                other => other,
            },
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
    write_replacing(path, contents)?;
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

/// [`write_atomically`] without its directory `fsync`: the file is whole, old or new, after a
/// crash, but which one (or, for a new file, whether it is there at all) is durable only once
/// its directory is synced, which the caller owes before anything depends on it (a partition's
/// files written when it is created or its leader changes: its log's next flush syncs the
/// partition directory, `crate::log::Log::begin_flush`, before the flush acknowledges anything).
pub fn write_replacing(path: &Path, contents: &[u8]) -> io::Result<()> {
    let tmp = temporary_path(path);
    {
        let file = OpenOptions::new().write(true).create(true).truncate(true).open(&tmp)?;
        file.write_all_at(contents, 0)?;
        fail::fail_point!("log::sync_metadata", in_metadata_log(path), |_| {
            Err(io::Error::other("injected fsync failure of the metadata log"))
        });
        sync_through_door(&file, &tmp, SyncKind::Replacement)?;
    }
    std::fs::rename(&tmp, path)
}

/// Whether `path` is in the KRaft metadata log's directory (`__cluster_metadata-0`), for the
/// `log::sync_metadata` failpoint.
#[allow(dead_code)] // Called only where failpoints are compiled in (tests).
fn in_metadata_log(path: &Path) -> bool {
    let metadata = strand_base::topic::CLUSTER_METADATA_TOPIC;
    path.components().any(|c| c.as_os_str().to_str().is_some_and(|name| name.starts_with(metadata)))
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
    sync_through_door(&File::open(dir)?, dir, SyncKind::Directory)
}

/// What a sync makes durable, as the crash-simulation tests tell syncs apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncKind {
    /// `fdatasync` of a segment's `.log` or index file: the bytes written to it.
    Data,
    /// `fsync` of a directory: the entries created, renamed or deleted in it.
    Directory,
    /// `fsync` of a file [`write_replacing`] staged (`<name>.tmp`), before it is renamed over
    /// `<name>`: the new contents, whole.
    Replacement,
}

/// The one door every sync of the log goes through: the `log::sync_skipped` failpoint (claims
/// success without syncing, to show that the crash tests notice a missing sync), the sync
/// itself, then the watcher ([`watch_syncs`]).
fn sync_through_door(file: &File, path: &Path, kind: SyncKind) -> io::Result<()> {
    fail::fail_point!("log::sync_skipped", |_| Ok(()));
    match kind {
        SyncKind::Data => file.sync_data()?,
        SyncKind::Directory | SyncKind::Replacement => file.sync_all()?,
    }
    synced(path, kind);
    Ok(())
}

/// Watches every sync the log makes, by path (a file's data, a staged replacement or a
/// directory's entries) and kind, once it succeeded: what a crash-simulation test needs to know
/// what a power cut would keep. `None` stops watching. Process-wide; nothing watches outside
/// tests.
pub fn watch_syncs(watcher: Option<SyncWatcher>) {
    if let Ok(mut current) = SYNC_WATCHER.write() {
        *current = watcher;
    }
}

/// A watcher of syncs ([`watch_syncs`]).
pub type SyncWatcher = Arc<dyn Fn(&Path, SyncKind) + Send + Sync>;

static SYNC_WATCHER: std::sync::RwLock<Option<SyncWatcher>> = std::sync::RwLock::new(None);

fn synced(path: &Path, kind: SyncKind) {
    let watcher = SYNC_WATCHER.read().ok().and_then(|w| w.clone());
    if let Some(watcher) = watcher {
        watcher(path, kind);
    }
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
    /// Whoever owns the directory says why it failed (the metadata quorum, which stops the node).
    reported_by_owner: bool,
}

impl DirHealth {
    /// A health whose failure is not logged here: its owner reports it in its own words.
    pub fn reported_by_owner() -> DirHealth {
        DirHealth { reported_by_owner: true, ..DirHealth::default() }
    }

    /// Takes the directory offline for `reason` (the first reason is kept); logs it once.
    pub fn fail(&self, reason: &str) {
        if !self.offline.swap(true, std::sync::atomic::Ordering::SeqCst) {
            if !self.reported_by_owner {
                tracing::error!("{reason}: the log directory is offline until a restart");
            }
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
