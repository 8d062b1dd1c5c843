//! `nemesis`: a Jepsen-style fault harness for Strand (tools/nemesis/README.md). It starts a
//! three-node cluster behind per-link proxies, runs the franz-go workload (`workload/`) against
//! it while a seeded schedule of faults runs, then checks the workload's history.
//!
//! A harness, not part of the deterministic core: it reads the wall clock and opens sockets.
#![allow(clippy::disallowed_methods)]

mod checker;
mod cluster;
mod faults;
mod proxy;
mod report;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Parser, Subcommand};
use rand::Rng;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rustix::process::Signal;

use crate::cluster::{Cluster, NODES};
use crate::faults::{DISK_KINDS, Fault, KINDS, Nemesis, now_ns};

#[derive(Parser, Debug)]
#[command(about = "A Jepsen-style fault harness for a three-node strand cluster")]
struct Cli {
    #[command(subcommand)]
    command: Commands,
}

#[derive(Subcommand, Debug)]
enum Commands {
    /// Start a cluster, run the workload under faults, check the history and write a report.
    Run(RunArgs),
    /// Check a history again (a run directory's history.jsonl and faults.jsonl).
    Check { dir: PathBuf },
}

#[derive(clap::Args, Debug)]
struct RunArgs {
    /// The strand binary.
    #[arg(long, default_value = "target/release/strand")]
    bin: PathBuf,
    /// The workload binary (`go build` of tools/nemesis/workload).
    #[arg(long)]
    workload: PathBuf,
    /// Run faults for this long (faults drawn at random from --faults).
    #[arg(long, conflicts_with = "smoke")]
    minutes: Option<f64>,
    /// Each kind of --faults exactly once, in a seeded order, with short faults.
    #[arg(long)]
    smoke: bool,
    /// Comma-separated fault kinds, or `all`.
    #[arg(long, default_value = "all")]
    faults: String,
    #[arg(long)]
    seed: Option<u64>,
    /// Also write the report here.
    #[arg(long)]
    report: Option<PathBuf>,
    /// The run's directory (node data, logs, history); a new one under the temp dir if absent,
    /// deleted after a clean run.
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Records a second the producer sends.
    #[arg(long, default_value_t = 200)]
    rate: u32,
    #[arg(long, default_value_t = 4)]
    partitions: u32,
    /// Also run the transactional workload (producers, an exactly-once chain, read_committed reads).
    #[arg(long)]
    txn: bool,
}

const TOPIC: &str = "nemesis";
/// Healthy time before the first fault and after the last heal.
const SETTLE: Duration = Duration::from_secs(5);
/// How long the workload may take to flush, let its groups catch up and read everything back.
const WORKLOAD_DRAIN_MAX: Duration = Duration::from_secs(180);

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Commands::Run(args) => run(args),
        Commands::Check { dir } => check_dir(&dir),
    };
    match result {
        Ok(true) => std::process::ExitCode::SUCCESS,
        Ok(false) => std::process::ExitCode::from(1),
        Err(e) => {
            eprintln!("nemesis: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}

fn check_dir(dir: &std::path::Path) -> anyhow::Result<bool> {
    let history = std::fs::read_to_string(dir.join("history.jsonl")).context("reading history.jsonl")?;
    let verdict = checker::check_text(&history);
    let faults = read_faults(dir)?;
    let (ops, _) = checker::parse(&history);
    let avail = report::availability(&ops, &faults);
    let info = report::RunInfo {
        seed: 0,
        command: format!("nemesis check {}", dir.display()),
        started: faults.first().map_or(0, |f| f.start),
        minutes: 0.0,
        errors: Vec::new(),
        txn: ops.iter().any(|o| o.f == "txn"),
        kinds: "as in faults.jsonl".to_owned(),
    };
    println!("{}", report::markdown(&info, &verdict, &faults, &avail));
    Ok(verdict.total() == 0)
}

fn read_faults(dir: &std::path::Path) -> anyhow::Result<Vec<Fault>> {
    let text = std::fs::read_to_string(dir.join("faults.jsonl")).unwrap_or_default();
    text.lines().map(|l| serde_json::from_str(l).context("a faults.jsonl line")).collect()
}

fn run(args: RunArgs) -> anyhow::Result<bool> {
    let seed = args.seed.unwrap_or_else(|| rand::thread_rng().r#gen::<u32>().into());
    let bin = std::fs::canonicalize(&args.bin).with_context(|| format!("the strand binary {}", args.bin.display()))?;
    let failpoints = cluster::has_failpoints(&bin)?;
    // `all`: the disk faults too when the binary has failpoints.
    let kinds: Vec<&str> = match args.faults.as_str() {
        "all" => KINDS.iter().copied().filter(|k| failpoints || !DISK_KINDS.contains(k)).collect(),
        list => list.split(',').map(str::trim).collect(),
    };
    if let Some(bad) = kinds.iter().find(|k| !KINDS.contains(k)) {
        anyhow::bail!("unknown fault kind '{bad}' (kinds: {}, or all)", KINDS.join(", "));
    }
    if let Some(disk) = kinds.iter().find(|k| DISK_KINDS.contains(k) && !failpoints) {
        anyhow::bail!(
            "the fault '{disk}' needs a strand with failpoints (a test build: cargo test -p strand-cli --no-run \
             makes target/debug/strand); {} has none",
            bin.display()
        );
    }
    if !args.smoke && args.minutes.is_none() {
        anyhow::bail!("give --minutes N or --smoke");
    }
    let command: Vec<String> = std::env::args().collect();
    let command = format!("{} (seed {seed})", command.join(" "));
    eprintln!("nemesis: seed {seed}");
    let workload = std::fs::canonicalize(&args.workload).context("the workload binary")?;
    let (dir, scratch) = match &args.dir {
        Some(d) => (d.clone(), None),
        None => {
            let t = tempfile::Builder::new().prefix("nemesis-run-").tempdir()?;
            (t.path().to_owned(), Some(t))
        }
    };
    std::fs::create_dir_all(&dir)?;
    eprintln!("nemesis: run directory {}", dir.display());

    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let net = proxy::Net::new();
    let started = now_ns();
    let begun = Instant::now();
    let mut cluster = Cluster::start(&bin, &dir, &runtime, net.clone())?;
    eprintln!("nemesis: cluster serving after {:?}", begun.elapsed());

    let workload_log = std::fs::File::create(dir.join("workload.log"))?;
    let stop_file = dir.join("stop");
    let mut workload = Command::new(&workload)
        .arg(format!("--brokers={}", cluster.bootstrap.join(",")))
        .arg(format!("--topic={TOPIC}"))
        .arg(format!("--partitions={}", args.partitions))
        .arg(format!("--rate={}", args.rate))
        .arg(format!("--history={}", dir.join("history.jsonl").display()))
        .arg(format!("--stop-file={}", stop_file.display()))
        .args(args.txn.then_some("--txn"))
        .stdin(Stdio::null())
        .stdout(workload_log.try_clone()?)
        .stderr(workload_log)
        .spawn()
        .context("starting the workload")?;

    let mut rng = StdRng::seed_from_u64(seed);
    let mut errors = Vec::new();
    let mut faults = Vec::new();
    let mut faults_file = std::fs::File::create(dir.join("faults.jsonl"))?;
    {
        let duration = if args.smoke { (4, 6) } else { (5, 20) };
        let mut nemesis = Nemesis {
            cluster: &mut cluster,
            net: &net,
            bin: &bin,
            topic: TOPIC,
            rng: StdRng::seed_from_u64(seed),
            duration,
        };
        // The workload creates the topic; faults start once it is in sync.
        let ready = wait_for_topic(&nemesis, &mut workload);
        if let Err(e) = ready {
            errors.push(format!("before the first fault: {e:#}"));
        } else {
            std::thread::sleep(SETTLE);
            let mut order = kinds.clone();
            order.shuffle(&mut rng);
            let deadline = args.minutes.map(|m| begun + Duration::from_secs_f64(m * 60.0));
            let mut i = 0;
            loop {
                let kind = match deadline {
                    None if i < order.len() => order[i],
                    None => break,
                    Some(d) if Instant::now() < d => *kinds.choose(&mut rng).context("no fault kinds")?,
                    Some(_) => break,
                };
                i += 1;
                eprintln!("nemesis: fault {i}: {kind}");
                match nemesis.run(kind) {
                    Ok(fault) => {
                        eprintln!(
                            "nemesis:   {} {} for {} ms",
                            fault.kind,
                            fault.target,
                            (fault.heal - fault.start) / 1_000_000
                        );
                        writeln!(faults_file, "{}", serde_json::to_string(&fault)?)?;
                        faults.push(fault);
                    }
                    Err(e) => {
                        errors.push(format!("fault {i} ({kind}): {e:#}"));
                        break;
                    }
                }
                let exited = nemesis.cluster.exited();
                if !exited.is_empty() {
                    errors.push(format!("nodes exited by themselves: {exited:?}"));
                    break;
                }
                if let Ok(Some(status)) = workload.try_wait() {
                    errors.push(format!("the workload exited early ({status})"));
                    break;
                }
                let gap = if args.smoke { 1000..=2000 } else { 3000..=8000 };
                std::thread::sleep(Duration::from_millis(rng.gen_range(gap)));
            }
        }
        // Heal everything that might still be faulted.
        net.heal();
        for id in 1..=NODES {
            if nemesis.cluster.is_up(id) {
                let _ = nemesis.cluster.signal(id, Signal::CONT);
            } else if let Err(e) = nemesis.cluster.spawn(&bin, id) {
                errors.push(format!("restarting node {id} at the end: {e:#}"));
            }
        }
    }
    std::thread::sleep(SETTLE);
    std::fs::write(&stop_file, b"stop\n")?;
    let drain_deadline = Instant::now() + WORKLOAD_DRAIN_MAX;
    let status = loop {
        if let Some(status) = workload.try_wait()? {
            break Some(status);
        }
        if Instant::now() > drain_deadline {
            let _ = workload.kill();
            let _ = workload.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    match status {
        Some(s) if s.success() => {}
        Some(s) => errors.push(format!("the workload failed ({s}); see workload.log")),
        None => errors.push(format!("the workload did not finish within {WORKLOAD_DRAIN_MAX:?} of the stop")),
    }
    cluster.stop();
    drop(cluster);
    runtime.shutdown_timeout(Duration::from_secs(1));

    let history = std::fs::read_to_string(dir.join("history.jsonl")).unwrap_or_default();
    let verdict = checker::check_text(&history);
    let (ops, _) = checker::parse(&history);
    let avail = report::availability(&ops, &faults);
    let info = report::RunInfo {
        seed,
        command,
        started,
        minutes: begun.elapsed().as_secs_f64() / 60.0,
        errors: errors.clone(),
        txn: args.txn,
        kinds: format!(
            "{} (strand {}, {})",
            kinds.join(", "),
            bin.display(),
            if failpoints { "with failpoints" } else { "no failpoints: no disk faults" }
        ),
    };
    let text = report::markdown(&info, &verdict, &faults, &avail);
    std::fs::write(dir.join("report.md"), &text)?;
    if let Some(path) = &args.report {
        std::fs::write(path, &text).with_context(|| format!("writing {}", path.display()))?;
    }
    println!("{text}");
    let clean = verdict.total() == 0 && errors.is_empty() && verdict.acked > 0;
    println!(
        "nemesis: {} anomalies, {} run errors, {} acknowledged writes, {} faults (seed {seed}): {}",
        verdict.total(),
        errors.len(),
        verdict.acked,
        faults.len(),
        if clean { "PASS" } else { "FAIL" }
    );
    if !clean {
        print_tails(&dir);
    }
    match (clean, scratch) {
        (true, Some(t)) => drop(t),
        (_, Some(t)) => eprintln!("nemesis: kept the run directory {}", t.keep().display()),
        _ => {}
    }
    Ok(clean)
}

/// The last lines of each node's log and of the workload's, to stderr (CI deletes the run
/// directory with its scratch space).
fn print_tails(dir: &std::path::Path) {
    const LINES: usize = 40;
    let mut files: Vec<PathBuf> = (1..=NODES).map(|id| dir.join(format!("node-{id}")).join("stderr")).collect();
    files.push(dir.join("workload.log"));
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        eprintln!("--- the last {LINES} lines of {}:", file.display());
        for line in &lines[lines.len().saturating_sub(LINES)..] {
            eprintln!("{line}");
        }
    }
}

/// Waits until the workload's topic exists with every partition in sync.
fn wait_for_topic(nemesis: &Nemesis<'_>, workload: &mut std::process::Child) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(90);
    while nemesis.cluster.leaders(TOPIC).is_empty() {
        if let Some(status) = workload.try_wait()? {
            anyhow::bail!("the workload exited ({status}); see workload.log");
        }
        if Instant::now() > deadline {
            anyhow::bail!("the workload's topic did not appear within 90 s");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    nemesis.await_in_sync()
}
