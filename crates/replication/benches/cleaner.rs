//! The log cleaner's throughput, and produce throughput into a compacted partition with and without
//! the cleaner running beside it (issue 8's closing note). `bench/cleaner.sh` runs it and writes
//! the report to `bench/results/`; it prints markdown on stdout. Never run by `test.sh` or CI.
//!
//! 1. **A cleaner pass**: a compacted log of `--clean-mib` MiB in `--segment-mib` segments (plus
//!    the active one, which is never cleaned), every record dirty, keys drawn from `--keys`, values
//!    of `--value-bytes`, `--batch-records` to a batch; one pass (`Cleaner::prepare`, the map, every
//!    group cleaned and swapped, `finish`) with the server's default cleaner settings (128 MiB
//!    map). MiB/s is the log bytes the pass rewrote over its wall time, as Kafka's cleaner reports
//!    "MB of log processed". The phases a server runs under the partition's lock (prepare, each
//!    swap, finish) are timed alone: how long a pass can hold up an append.
//! 2. **Produce beside the cleaner**: a standalone `ReplicaManager` hosting one compacted partition
//!    (`min.cleanable.dirty.ratio` 0.5, Kafka's default), filled with `--prefill-mib` and compacted
//!    once (not timed), then one producer thread appends `--produce-mib` through
//!    `ReplicaManager::append` (validation, the partition's lock, the log append; acks=1, page
//!    cache only), each append timed. Three modes, alternating run by run:
//!    - `off`: no cleaner;
//!    - `on`: a thread running `ReplicaManager::apply_compaction` back to back (sleeping
//!      `CLEANER_BACKOFF` only when nothing was due), the partition's lock held only to prepare a
//!      pass and to swap each group in;
//!    - `locked`: the same thread running `Cleaner::clean` while holding the partition's lock for
//!      the whole pass, as `apply_compaction` did before issue 8's change: the reference.
//!
//! Batches are built before they are timed, from a pool holding every key once in a shuffled
//! order (so the compacted log holds every key, `--keys` × `--value-bytes`), and cycled. Each run
//! uses a fresh directory under `--dir` (default: the system's temporary directory), deleted after
//! it. Before each measurement the benchmark waits, up to `--quiet-wait-s` (60 s), while other
//! processes keep more than 20% of the machine busy, as `bench/run.sh` does; every run reports
//! that reading and the share of the machine's CPU other processes used during it (`/proc/stat`
//! less this process's own time; the kernel's work for it, writeback and the journal, counts as
//! others'). The figures are only as good as the machine is quiet: on two cores, the cleaner's
//! thread and the producer's need both.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bytes::BytesMut;
use strand_base::{Clock, SystemClock, TopicPartition, Uuid};
use strand_log::cleaner::{CleanStats, Cleaner, CleanerConfig};
use strand_log::log::{LogCheckpoints, ValidatedBatch};
use strand_log::manager::{SharedLog, lock};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{Log, LogConfig, LogManager, NodeIdentity};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};
use strand_replication::{Acks, ReplicaManager};

const MIB: u64 = 1 << 20;
/// How long the cleaner thread sleeps when no pass was due (Kafka's `log.cleaner.backoff.ms` is
/// 15 s; shorter here so that a pass starts soon after one becomes due).
const CLEANER_BACKOFF: Duration = Duration::from_millis(50);
/// Record timestamps: a fixed instant, so no segment rolls by time.
const TIMESTAMP_MS: i64 = 1_700_000_000_000;
/// A machine busier than this (other processes' share of every core) is not quiet.
const QUIET_BUSY_PCT: f64 = 20.0;

/// The benchmark's settings (`--name value` on the command line).
#[derive(Debug, Clone)]
struct Options {
    keys: usize,
    value_bytes: usize,
    batch_records: usize,
    segment_mib: u64,
    clean_mib: u64,
    clean_runs: usize,
    prefill_mib: u64,
    produce_mib: u64,
    runs: usize,
    dir: Option<PathBuf>,
    /// Before each measurement, wait up to this long while other processes keep more than
    /// `QUIET_BUSY_PCT` of the CPU busy (bench/run.sh's rule).
    quiet_wait_s: u64,
    /// Run by `cargo bench`, which passes `--bench`; `cargo test --benches` does not, and then
    /// nothing is measured.
    bench: bool,
}

impl Options {
    fn parse() -> Options {
        let mut options = Options {
            keys: 100_000,
            value_bytes: 1024,
            batch_records: 16,
            segment_mib: 32,
            clean_mib: 256,
            clean_runs: 3,
            prefill_mib: 256,
            produce_mib: 1024,
            runs: 5,
            dir: None,
            quiet_wait_s: 60,
            bench: false,
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let mut value = || args.next().unwrap_or_else(|| panic!("{arg} needs a value"));
            let number = |v: String| v.parse::<u64>().unwrap_or_else(|_| panic!("{arg}: not a number: {v}"));
            match arg.as_str() {
                "--keys" => options.keys = number(value()) as usize,
                "--value-bytes" => options.value_bytes = number(value()) as usize,
                "--batch-records" => options.batch_records = number(value()) as usize,
                "--segment-mib" => options.segment_mib = number(value()),
                "--clean-mib" => options.clean_mib = number(value()),
                "--clean-runs" => options.clean_runs = number(value()) as usize,
                "--prefill-mib" => options.prefill_mib = number(value()),
                "--produce-mib" => options.produce_mib = number(value()),
                "--runs" => options.runs = number(value()) as usize,
                "--dir" => options.dir = Some(PathBuf::from(value())),
                "--quiet-wait-s" => options.quiet_wait_s = number(value()),
                "--bench" => options.bench = true,
                other => panic!("unknown option {other} (see the source's doc)"),
            }
        }
        options
    }

    fn topic_config(&self) -> LogConfig {
        LogConfig {
            segment_bytes: self.segment_mib * MIB,
            compact_enabled: true,
            delete_enabled: false,
            ..LogConfig::default()
        }
    }

    fn temp_dir(&self) -> tempfile::TempDir {
        match &self.dir {
            Some(dir) => tempfile::tempdir_in(dir),
            None => tempfile::tempdir(),
        }
        .expect("a temporary directory")
    }
}

fn main() {
    let options = Options::parse();
    if !options.bench {
        eprintln!("cleaner: measures only under `cargo bench` (see bench/cleaner.sh)");
        return;
    }
    let pool = batch_pool(&options);
    println!("{}", settings(&options, &pool));
    let passes: Vec<PassFigures> = (1..=options.clean_runs).map(|run| clean_pass(&options, &pool, run)).collect();
    println!("{}", pass_report(&passes));
    let mut runs = Vec::new();
    for run in 1..=options.runs {
        for mode in [Mode::Off, Mode::On, Mode::Locked] {
            eprintln!("produce run {run}, cleaner {}", mode.name());
            runs.push(produce_run(&options, &pool, mode, run));
        }
    }
    println!("{}", produce_report(&runs));
}

/// Batches of `batch_records` records holding every key once, in a shuffled order (a fixed seed).
fn batch_pool(options: &Options) -> Vec<BytesMut> {
    let mut keys: Vec<usize> = (0..options.keys).collect();
    let mut random = 0x9E37_79B9_7F4A_7C15_u64;
    for i in (1..keys.len()).rev() {
        // xorshift64*: a fixed sequence, so every run appends the same batches.
        random ^= random >> 12;
        random ^= random << 25;
        random ^= random >> 27;
        let draw = random.wrapping_mul(0x2545_F491_4F6C_DD1D);
        keys.swap(i, (draw % (i as u64 + 1)) as usize);
    }
    keys.chunks(options.batch_records)
        .map(|chunk| {
            let mut builder = RecordBatchBuilder::new();
            for key in chunk {
                let name = format!("key-{key:08}");
                let value: Vec<u8> = (0..options.value_bytes).map(|i| (key.wrapping_add(i) % 251) as u8).collect();
                let record = NewRecord {
                    timestamp_ms: TIMESTAMP_MS,
                    key: Some(name.as_bytes()),
                    value: Some(&value),
                    headers: &[],
                };
                builder.append(&record).expect("record");
            }
            BytesMut::from(&builder.build().expect("batch")[..])
        })
        .collect()
}

fn settings(options: &Options, pool: &[BytesMut]) -> String {
    let batch_bytes = pool.first().map_or(0, |b| b.len());
    format!(
        "Settings: {} keys, {} B values, {} records a batch ({batch_bytes} B), {} MiB segments; pass: {} MiB \
         cleaned, {} runs; produce: {} MiB prefilled, {} MiB timed, {} runs of each mode.\n",
        options.keys,
        options.value_bytes,
        options.batch_records,
        options.segment_mib,
        options.clean_mib,
        options.clean_runs,
        options.prefill_mib,
        options.produce_mib,
        options.runs
    )
}

fn client() -> AppendContext {
    AppendContext::client(VerificationGuard::SENTINEL)
}

fn now_ns() -> u64 {
    SystemClock.monotonic_ns()
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / MIB as f64
}

/// What one cleaner pass did and took.
#[derive(Debug)]
struct PassFigures {
    run: usize,
    stats: CleanStats,
    map_s: f64,
    rewrite_s: f64,
    /// The phases that need the log, each of which a server runs under the partition's lock:
    /// prepare, every swap, finish (milliseconds).
    prepare_ms: f64,
    swaps_ms: Vec<f64>,
    finish_ms: f64,
    busy_before: Option<f64>,
    others_pct: Option<f64>,
}

impl PassFigures {
    fn total_s(&self) -> f64 {
        self.map_s + self.rewrite_s
    }

    fn mib_per_s(&self) -> f64 {
        mib(self.stats.bytes_read) / self.total_s()
    }
}

/// One pass over a fresh log of `clean_mib` MiB, every record dirty.
fn clean_pass(options: &Options, pool: &[BytesMut], run: usize) -> PassFigures {
    let dir = options.temp_dir();
    let mut log =
        Log::open(dir.path(), options.topic_config(), LogCheckpoints::default(), Arc::new(SystemClock)).expect("a log");
    let target = (options.clean_mib + options.segment_mib) * MIB;
    for batch in pool.iter().cycle() {
        if log.size() >= target && log.segment_count() as u64 > options.clean_mib / options.segment_mib {
            break;
        }
        let batch = ValidatedBatch::validate(batch.clone()).expect("valid");
        log.append_as_leader(batch, 0, client()).expect("append");
    }
    let high_watermark = log.log_end_offset();
    log.flush_to(high_watermark).expect("flush");
    let mut cleaner = Cleaner::new(CleanerConfig::default());
    eprintln!("cleaner pass {run}: {:.0} MiB in {} segments", mib(log.size()), log.segment_count());

    let busy_before = wait_quiet(options);
    let cpu = CpuSample::take();
    let start = now_ns();
    let mut pass = Cleaner::prepare(&mut log, high_watermark).expect("prepare").expect("something to clean");
    let prepared = now_ns();
    assert!(cleaner.build_offset_map(&mut pass).expect("map"), "the map covers a dirty section");
    let mapped = now_ns();
    let mut swaps_ms = Vec::new();
    while let Some(group) = cleaner.clean_next_group(&mut pass).expect("clean") {
        let swap = now_ns();
        assert!(pass.swap(&mut log, group).expect("swap"), "nothing changes the log meanwhile");
        swaps_ms.push(milliseconds(swap, now_ns()));
    }
    let finish = now_ns();
    let stats = pass.finish(&mut log).expect("a pass ran");
    let finished = now_ns();
    // Closes the last handles on the replaced segments' files (outside a server's lock).
    drop(pass);
    let end = now_ns();
    let others_pct = cpu.and_then(|before| before.others_pct_since());
    PassFigures {
        run,
        stats,
        map_s: milliseconds(start, mapped) / 1e3,
        rewrite_s: milliseconds(mapped, end) / 1e3,
        prepare_ms: milliseconds(start, prepared),
        swaps_ms,
        finish_ms: milliseconds(finish, finished),
        busy_before,
        others_pct,
    }
}

fn milliseconds(from_ns: u64, to_ns: u64) -> f64 {
    to_ns.saturating_sub(from_ns) as f64 / 1e6
}

fn pass_report(passes: &[PassFigures]) -> String {
    let mut out = String::from(
        "## A cleaner pass\n\n\
         `map s` includes the first phase (the range and the segment handles, taken with the log); `rewrite \
         and swap s` the groups, their swaps, the last phase, and dropping the pass (its handles are the last \
         on the replaced segments' files, whose blocks the file system frees then; a server drops it without \
         the lock). The phases a server runs under the partition's lock are timed alone in the last three \
         columns.\n\n\
         | run | log MiB rewritten | MiB written | records read | records kept | keys mapped | map s | \
         rewrite and swap s | total s | MiB/s | machine busy before / others during | prepare ms | swaps: n, longest ms, all ms \
         | finish ms |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for p in passes {
        out += &format!(
            "| {} | {:.1} | {:.1} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.1} | {} / {} | {:.2} | {}, {:.1}, {:.1} | \
             {:.2} |\n",
            p.run,
            mib(p.stats.bytes_read),
            mib(p.stats.bytes_written),
            p.stats.records_read,
            p.stats.records_kept,
            p.stats.keys_mapped,
            p.map_s,
            p.rewrite_s,
            p.total_s(),
            p.mib_per_s(),
            percent(p.busy_before),
            percent(p.others_pct),
            p.prepare_ms,
            p.swaps_ms.len(),
            p.swaps_ms.iter().copied().fold(0.0, f64::max),
            p.swaps_ms.iter().sum::<f64>(),
            p.finish_ms
        );
    }
    let median_rate = median(passes.iter().map(PassFigures::mib_per_s).collect());
    let median_s = median(passes.iter().map(PassFigures::total_s).collect());
    out += &format!("\nMedian: **{median_rate:.1} MiB/s** ({median_s:.2} s a pass).\n");
    out
}

/// Whether and how a cleaner runs beside the producer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Off,
    On,
    Locked,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Off => "off",
            Mode::On => "on",
            Mode::Locked => "locked",
        }
    }
}

/// What one produce run measured.
#[derive(Debug)]
struct ProduceFigures {
    mode: Mode,
    run: usize,
    bytes: u64,
    seconds: f64,
    /// Every append's time, in nanoseconds, sorted.
    latencies_ns: Vec<u64>,
    cleaner: CleanerActivity,
    /// The machine's busy share when the run started (after the quiet wait).
    busy_before: Option<f64>,
    others_pct: Option<f64>,
}

impl ProduceFigures {
    fn mib_per_s(&self) -> f64 {
        mib(self.bytes) / self.seconds
    }

    /// The latency at quantile `q`, in microseconds.
    fn latency_us(&self, q: f64) -> f64 {
        let index = ((self.latencies_ns.len() as f64 * q).ceil() as usize).clamp(1, self.latencies_ns.len()) - 1;
        self.latencies_ns[index] as f64 / 1e3
    }
}

/// What the cleaner thread did during a run.
#[derive(Debug, Default, Clone, Copy)]
struct CleanerActivity {
    passes: usize,
    abandoned: usize,
    bytes_read: u64,
}

impl CleanerActivity {
    fn add(&mut self, stats: &CleanStats) {
        self.passes += 1;
        self.abandoned += usize::from(stats.abandoned);
        self.bytes_read += stats.bytes_read;
    }
}

/// One run: a prefilled, compacted partition, then `produce_mib` appended with the cleaner in
/// `mode` beside it.
fn produce_run(options: &Options, pool: &[BytesMut], mode: Mode, run: usize) -> ProduceFigures {
    let dir = options.temp_dir();
    let (replicas, tp, log) = host_partition(options, dir.path());
    let mut next = pool.iter().cycle();
    let mut appended = 0;
    while appended < options.prefill_mib * MIB {
        let batch = next.next().expect("a batch");
        appended += batch.len() as u64;
        replicas
            .append(&tp, ValidatedBatch::validate(batch.clone()).expect("valid"), 0, Acks::Leader, client())
            .expect("append");
    }
    let cleaner = CleanerConfig::default();
    let report = replicas.apply_compaction(cleaner);
    assert!(report.failed.is_empty() && !report.changed.is_empty(), "the prefill is compacted: {report:?}");

    let stop = Arc::new(AtomicBool::new(false));
    let cleaning = match mode {
        Mode::Off => None,
        Mode::On => {
            let replicas = replicas.clone();
            Some(spawn_cleaner(stop.clone(), move || {
                let report = replicas.apply_compaction(cleaner);
                assert!(report.failed.is_empty() && report.checkpoint_failed.is_none(), "{report:?}");
                report.changed.into_iter().map(|(_, stats)| stats).collect()
            }))
        }
        Mode::Locked => {
            let mut locked = Cleaner::new(cleaner);
            Some(spawn_cleaner(stop.clone(), move || {
                let mut log = lock(&log).expect("the partition's lock");
                let high_watermark = log.log_end_offset();
                if !Cleaner::is_due(&log, high_watermark) {
                    return Vec::new();
                }
                locked.clean(&mut log, high_watermark).expect("a pass").into_iter().collect()
            }))
        }
    };
    let count = (options.produce_mib * MIB).div_ceil(pool[0].len() as u64) as usize;
    let mut latencies_ns = Vec::with_capacity(count);
    let mut bytes = 0;
    let busy_before = wait_quiet(options);
    let cpu = CpuSample::take();
    let start = now_ns();
    for batch in next.take(count) {
        let batch = batch.clone();
        bytes += batch.len() as u64;
        let before = now_ns();
        let batch = ValidatedBatch::validate(batch).expect("valid");
        replicas.append(&tp, batch, 0, Acks::Leader, client()).expect("append");
        latencies_ns.push(now_ns() - before);
    }
    let seconds = (now_ns() - start) as f64 / 1e9;
    let others_pct = cpu.and_then(|before| before.others_pct_since());
    stop.store(true, Ordering::SeqCst);
    let cleaner = cleaning.map(|thread| thread.join().expect("the cleaner thread")).unwrap_or_default();
    latencies_ns.sort_unstable();
    ProduceFigures { mode, run, bytes, seconds, latencies_ns, cleaner, busy_before, others_pct }
}

/// A standalone replica manager over a fresh directory, hosting one compacted partition; the
/// partition's log is returned too, for the `locked` mode's cleaner.
fn host_partition(options: &Options, dir: &Path) -> (Arc<ReplicaManager>, TopicPartition, SharedLog) {
    let identity = NodeIdentity { cluster_id: "bench".into(), node_id: 1 };
    let mut logs = LogManager::open(&[dir.to_owned()], &identity, LogConfig::default(), Arc::new(SystemClock))
        .expect("log manager");
    let tp = TopicPartition::new("compacted", 0);
    let log = logs.get_or_create(&tp, Uuid([7; 16]), options.topic_config()).expect("a partition");
    (Arc::new(ReplicaManager::new(logs, false)), tp, log)
}

/// Runs `pass` on a new thread until `stop` is set, sleeping `CLEANER_BACKOFF` whenever it
/// cleaned nothing; the thread returns what the passes did.
fn spawn_cleaner(
    stop: Arc<AtomicBool>,
    mut pass: impl FnMut() -> Vec<CleanStats> + Send + 'static,
) -> std::thread::JoinHandle<CleanerActivity> {
    std::thread::spawn(move || {
        let mut activity = CleanerActivity::default();
        while !stop.load(Ordering::SeqCst) {
            let done = pass();
            if done.is_empty() {
                std::thread::sleep(CLEANER_BACKOFF);
            }
            for stats in &done {
                activity.add(stats);
            }
        }
        activity
    })
}

fn produce_report(runs: &[ProduceFigures]) -> String {
    let mut out = String::from(
        "## Produce beside the cleaner\n\n\
         One producer thread, `ReplicaManager::append` of each batch (validation, the partition's lock, the \
         append), acks=1, page cache only. Latency: one append call.\n\n\
         | run | cleaner | MiB/s | appends | p50 µs | p99 µs | p99.9 µs | max ms | cleaner passes (abandoned) | \
         cleaner MiB read | machine busy before / others during |\n\
         |---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in runs {
        out += &format!(
            "| {} | {} | {:.1} | {} | {:.0} | {:.0} | {:.0} | {:.1} | {} ({}) | {:.0} | {} / {} |\n",
            r.run,
            r.mode.name(),
            r.mib_per_s(),
            r.latencies_ns.len(),
            r.latency_us(0.5),
            r.latency_us(0.99),
            r.latency_us(0.999),
            r.latency_us(1.0) / 1e3,
            r.cleaner.passes,
            r.cleaner.abandoned,
            mib(r.cleaner.bytes_read),
            percent(r.busy_before),
            percent(r.others_pct)
        );
    }
    out += "\n### Medians over the runs\n\n\
            | cleaner | MiB/s | ratio to off | p50 µs | p99 µs | p99.9 µs | max ms |\n\
            |---|---:|---:|---:|---:|---:|---:|\n";
    let of = |mode: Mode, figure: &dyn Fn(&ProduceFigures) -> f64| {
        median(runs.iter().filter(|r| r.mode == mode).map(figure).collect())
    };
    let off = of(Mode::Off, &ProduceFigures::mib_per_s);
    for mode in [Mode::Off, Mode::On, Mode::Locked] {
        let rate = of(mode, &ProduceFigures::mib_per_s);
        out += &format!(
            "| {} | {rate:.1} | {:.2} | {:.0} | {:.0} | {:.0} | {:.1} |\n",
            mode.name(),
            rate / off,
            of(mode, &|r| r.latency_us(0.5)),
            of(mode, &|r| r.latency_us(0.99)),
            of(mode, &|r| r.latency_us(0.999)),
            of(mode, &|r| r.latency_us(1.0) / 1e3)
        );
    }
    out
}

/// The median of `values` (the mean of the middle two for an even count); NaN for none.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "?".to_owned(), |v| format!("{v:.0}%"))
}

/// CPU time so far, in clock ticks: the machine's busy and total time (`/proc/stat`) and this
/// process's own, every thread (`/proc/self/stat`). `None` where `/proc` cannot be read.
#[derive(Debug, Clone, Copy)]
struct CpuSample {
    busy: u64,
    total: u64,
    own: u64,
}

impl CpuSample {
    fn take() -> Option<CpuSample> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        // cpu user nice system idle iowait irq softirq steal (guest time is inside user already)
        let fields: Vec<u64> =
            stat.lines().next()?.split_whitespace().skip(1).take(8).map(|f| f.parse().ok()).collect::<Option<_>>()?;
        let total: u64 = fields.iter().sum();
        let idle = fields.get(3)? + fields.get(4)?;
        let own_stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        // After the command's name: the state is field 3, utime and stime are fields 14 and 15.
        let rest: Vec<&str> = own_stat.rsplit_once(") ")?.1.split_whitespace().collect();
        let own = rest.get(11)?.parse::<u64>().ok()? + rest.get(12)?.parse::<u64>().ok()?;
        Some(CpuSample { busy: total - idle, total, own })
    }

    /// The share of the machine's CPU time since this sample that other processes used, in
    /// percent of every core.
    fn others_pct_since(&self) -> Option<f64> {
        let now = CpuSample::take()?;
        let total = now.total.checked_sub(self.total)?.max(1);
        let others = now.busy.saturating_sub(self.busy).saturating_sub(now.own.saturating_sub(self.own));
        Some(100.0 * others as f64 / total as f64)
    }
}

/// Waits (up to `--quiet-wait-s`) while the machine is busier than `QUIET_BUSY_PCT`: nothing of
/// this benchmark runs then, so the busy time is other processes'. Returns the last reading.
fn wait_quiet(options: &Options) -> Option<f64> {
    let deadline = now_ns() + options.quiet_wait_s * 1_000_000_000;
    loop {
        let before = CpuSample::take()?;
        std::thread::sleep(Duration::from_secs(1));
        let busy = before.others_pct_since()?;
        if busy <= QUIET_BUSY_PCT || now_ns() >= deadline {
            return Some(busy);
        }
    }
}
