//! The simulated disk of the crash tests: what a power cut would keep of a log directory.
//!
//! Every sync the log makes passes one door in `strand_log::file`, which reports it by path and
//! kind to a watcher (`strand_log::file::watch_syncs`). [`Disk`] remembers, for each sync, a
//! file's bytes (a segment's `fdatasync`, a staged replacement's `fsync`) or a directory's
//! entries (a directory's `fsync`). A crash image keeps exactly those, plus a random prefix of
//! what each file gained since (a page cache that wrote some of it back). Files whose directory
//! entry was never synced are gone; a file renamed over another counts only once its directory
//! is synced; a file cut (`ftruncate`) since its last sync comes back whole.
//!
//! A power cut falls between two operations (the image taken then), or inside one: right after
//! one of its syncs ([`watch_and_cut`], the image taken inside that sync's report).
//!
//! A [`Dropped`] filter makes the disk ignore chosen syncs, as if the log had never made them:
//! the tests that show each sync is needed.

pub mod model;

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use strand_log::file::SyncKind;

/// Which syncs the disk ignores (`true`: as if never made).
pub type Dropped = fn(&Path, SyncKind) -> bool;

/// Keeps every sync.
pub fn keep_all(_: &Path, _: SyncKind) -> bool {
    false
}

/// What a power cut would keep: each file's bytes as of its last sync, each directory's entries
/// (names and the files they name) as of its last sync. Files are told apart by inode, not name,
/// so a file renamed over another (a checkpoint's atomic replace) counts only once its directory
/// is synced: until then the name still holds the old file.
pub struct Disk {
    files: HashMap<FileKey, Vec<u8>>,
    dirs: HashMap<PathBuf, BTreeMap<OsString, FileKey>>,
    dropped: Dropped,
}

/// A file's identity: its inode, and its birth time so a reused inode number is another file.
type FileKey = (u64, Option<std::time::SystemTime>);

fn file_key(metadata: &std::fs::Metadata) -> FileKey {
    use std::os::unix::fs::MetadataExt;
    (metadata.ino(), metadata.created().ok())
}

impl Disk {
    /// A disk on which everything under `root` is durable (a fresh directory, or what a power cut
    /// left, read back after the restart).
    pub fn durable(root: &Path, dropped: Dropped) -> Disk {
        let mut disk = Disk { files: HashMap::new(), dirs: HashMap::new(), dropped };
        disk.record_tree(root);
        disk
    }

    fn record_tree(&mut self, dir: &Path) {
        self.record_dir(dir);
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                self.record_tree(&path);
            } else {
                self.record_file(&path);
            }
        }
    }

    /// One sync, unless the filter drops it.
    fn record(&mut self, path: &Path, kind: SyncKind) {
        if (self.dropped)(path, kind) {
            return;
        }
        match kind {
            SyncKind::Directory => self.record_dir(path),
            SyncKind::Data | SyncKind::Replacement => self.record_file(path),
        }
    }

    fn record_dir(&mut self, path: &Path) {
        let entries = std::fs::read_dir(path)
            .map(|it| it.flatten().filter_map(|e| Some((e.file_name(), file_key(&e.metadata().ok()?)))).collect());
        self.dirs.insert(path.to_owned(), entries.unwrap_or_default());
    }

    fn record_file(&mut self, path: &Path) {
        if let (Ok(metadata), Ok(bytes)) = (std::fs::metadata(path), std::fs::read(path)) {
            self.files.insert(file_key(&metadata), bytes);
        }
    }

    /// Writes into `image` what survives of `live` (a directory the disk has seen synced).
    pub fn crash_image(&self, live: &Path, image: &Path, rng: &mut Rng) {
        std::fs::create_dir_all(image).expect("image dir");
        let Some(entries) = self.dirs.get(live) else { return };
        for (name, key) in entries {
            let (from, to) = (live.join(name), image.join(name));
            if self.dirs.contains_key(&from) || from.is_dir() {
                self.crash_image(&from, &to, rng);
                continue;
            }
            let durable = self.files.get(key).cloned().unwrap_or_default();
            let mut kept = durable.clone();
            let same_file = std::fs::metadata(&from).is_ok_and(|m| file_key(&m) == *key);
            if let Ok(now) = std::fs::read(&from)
                && same_file
                && now.starts_with(&durable)
            {
                let extra = rng.below(now.len() - durable.len() + 1);
                kept.extend_from_slice(&now[durable.len()..durable.len() + extra]);
            }
            std::fs::write(&to, kept).expect("image file");
        }
    }
}

/// A new directory for a simulated disk: in memory (`/dev/shm`) where there is one, since the
/// simulation, not the device, decides what a power cut keeps, and real syncs would cost most
/// of the run's time.
pub fn tempdir() -> tempfile::TempDir {
    let in_memory = Path::new("/dev/shm");
    let dir = if in_memory.is_dir() {
        tempfile::Builder::new().prefix("strand-crash").tempdir_in(in_memory)
    } else {
        Err(std::io::ErrorKind::NotFound.into())
    };
    dir.or_else(|_| tempfile::tempdir()).expect("temporary dir")
}

/// Watches every sync into `disk` until `watch_syncs(None)`.
pub fn watch(disk: &Arc<Mutex<Disk>>) {
    let watching = Arc::clone(disk);
    strand_log::file::watch_syncs(Some(Arc::new(move |path: &Path, kind: SyncKind| {
        if let Ok(mut disk) = watching.lock() {
            disk.record(path, kind);
        }
    })));
}

/// Watches every sync into `disk`, as [`watch`] does, and cuts the power right after the
/// `after`-th from now (counted as the log makes them, dropped ones too): the crash image of
/// `live` (`seed` drawing how much of each unsynced tail the page cache wrote back) is taken there,
/// inside that sync's report, so nothing the log writes or syncs after it is in it, and later
/// syncs are not watched. The returned slot holds the image once the power was cut; it stays
/// empty if fewer syncs came.
pub fn watch_and_cut(disk: &Arc<Mutex<Disk>>, live: &Path, after: usize, seed: u64) -> Arc<Mutex<PowerCut>> {
    assert!(after > 0, "a power cut before an operation's first sync is a crash before it");
    let cut = Arc::new(Mutex::new(PowerCut { syncs_left: after, image: None }));
    let (watching, cutting, live) = (Arc::clone(disk), Arc::clone(&cut), live.to_owned());
    strand_log::file::watch_syncs(Some(Arc::new(move |path: &Path, kind: SyncKind| {
        let (Ok(mut disk), Ok(mut cut)) = (watching.lock(), cutting.lock()) else { return };
        if cut.image.is_some() {
            return;
        }
        disk.record(path, kind);
        cut.syncs_left = cut.syncs_left.saturating_sub(1);
        if cut.syncs_left == 0 {
            let image = tempdir();
            disk.crash_image(&live, image.path(), &mut Rng::new(seed));
            cut.image = Some(image);
        }
    })));
    cut
}

/// A power cut [`watch_and_cut`] waits for: the syncs still to come before it, then the image
/// of what it kept.
pub struct PowerCut {
    syncs_left: usize,
    pub image: Option<tempfile::TempDir>,
}

/// xorshift64*, seeded: how much of each unsynced tail a crash keeps, the same on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }
}

/// The failpoints and the sync watcher are process-wide: one test (or one case) at a time.
pub static SERIAL: Mutex<()> = Mutex::new(());

/// Takes [`SERIAL`], whatever a failed test left.
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
