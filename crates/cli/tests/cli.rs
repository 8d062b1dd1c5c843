//! The `strand` binary at its boundary, run as a process: `storage random-uuid` and
//! `storage format` as Kafka's `kafka-storage.sh`, and `strand server`'s configuration errors,
//! warnings and first-start formatting.
//!
//! A `server` that gets past its checks runs a node until stopped, so those tests read its log
//! until the line they expect, then kill it (it listens on an ephemeral loopback port and keeps
//! its data in a temporary directory).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The longest a test waits for a server's log line.
const LOG_LINE_WAIT: Duration = Duration::from_secs(60);

/// Without a file the node serves HTTP on localhost:8080; nodes of tests running side by side
/// turn it off.
const NO_HTTP: &str = "http.listeners=";

fn strand(args: &[&str]) -> std::io::Result<Output> {
    Command::new(env!("CARGO_BIN_EXE_strand")).args(args).output()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `strand args`, reads its stderr until a line containing `needle` (or the end), stops it,
/// and returns the lines read.
fn server_until(args: &[&str], needle: &str) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    // Server processes run one at a time (2 cores).
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _serial = SERIAL.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut child = Command::new(env!("CARGO_BIN_EXE_strand"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    let stderr = child.stderr.take().ok_or("no stderr")?;
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    let mut lines = Vec::new();
    while let Ok(line) = receiver.recv_timeout(LOG_LINE_WAIT) {
        let found = line.contains(needle);
        lines.push(line);
        if found {
            break;
        }
    }
    // The node may still be running (or have exited already, which makes kill an error to ignore).
    let _ = child.kill();
    child.wait()?;
    Ok(lines)
}

/// Waits for `child` to exit by itself, killing it (and failing) after `limit`.
fn exit_within(child: std::process::Child, limit: Duration) -> Result<Output, Box<dyn std::error::Error>> {
    let pid = child.id().to_string();
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || sender.send(child.wait_with_output()));
    match receiver.recv_timeout(limit) {
        Ok(output) => Ok(output?),
        Err(_) => {
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
            Err("the process did not exit".into())
        }
    }
}

/// A server.properties for a sole-voter node with its data under `dir`.
fn write_config(dir: &Path, extra: &str) -> std::io::Result<std::path::PathBuf> {
    let path = dir.join("server.properties");
    let body = format!(
        "process.roles=broker,controller\nnode.id=3\nlisteners=PLAINTEXT://localhost:0\n\
         log.dirs={0}/a,{0}/b\nmetadata.log.dir={0}/meta\n{extra}",
        dir.display()
    );
    std::fs::write(&path, body)?;
    Ok(path)
}

fn meta_properties(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("meta.properties")).unwrap_or_default()
}

/// `storage random-uuid` prints a fresh 22-character URL-safe base64 Kafka uuid each time.
#[test]
fn random_uuid_prints_a_kafka_uuid() -> TestResult {
    let first = strand(&["storage", "random-uuid"])?;
    let second = strand(&["storage", "random-uuid"])?;
    assert!(first.status.success(), "{}", text(&first.stderr));
    let (a, b) = (text(&first.stdout), text(&second.stdout));
    for id in [a.trim_end(), b.trim_end()] {
        assert_eq!(id.len(), 22, "{id:?}");
        assert!(id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'), "{id:?}");
        assert!(!id.starts_with('-'), "{id:?}");
    }
    assert!(a.ends_with('\n'));
    assert_ne!(a, b);
    Ok(())
}

/// `storage format` writes meta.properties into every log dir and the metadata dir with Kafka's
/// output lines, refuses a second run, and with --ignore-formatted says all are formatted.
#[test]
fn format_writes_meta_properties_once() -> TestResult {
    let dir = tempfile::tempdir()?;
    let config = write_config(dir.path(), "")?;
    let config = config.to_str().ok_or("path")?;
    let cluster_id = "MkU3OEVBNTcwNTJENDM2Qg";
    let output = strand(&["storage", "format", "-t", cluster_id, "-c", config])?;
    assert!(output.status.success(), "{}", text(&output.stderr));
    let d = dir.path().display();
    let expected = format!(
        "Formatting data directory {d}/a with metadata.version 4.4-IV2.\n\
         Formatting data directory {d}/b with metadata.version 4.4-IV2.\n\
         Formatting metadata directory {d}/meta with metadata.version 4.4-IV2.\n"
    );
    assert_eq!(text(&output.stdout), expected);
    let mut directory_ids = Vec::new();
    for sub in ["a", "b", "meta"] {
        let meta = meta_properties(&dir.path().join(sub));
        assert!(meta.contains("version=1\n") && meta.contains(&format!("cluster.id={cluster_id}\n")), "{meta}");
        assert!(meta.contains("node.id=3\n"), "{meta}");
        directory_ids.extend(meta.lines().filter(|line| line.starts_with("directory.id=")).map(str::to_owned));
    }
    directory_ids.sort();
    directory_ids.dedup();
    assert_eq!(directory_ids.len(), 3);

    let again = strand(&["storage", "format", "-t", cluster_id, "-c", config])?;
    assert_eq!(again.status.code(), Some(1));
    let expected = format!("Log directory {d}/a is already formatted. Use --ignore-formatted");
    assert!(text(&again.stderr).contains(&expected), "{}", text(&again.stderr));

    let ignored = strand(&["storage", "format", "-t", cluster_id, "-c", config, "--ignore-formatted"])?;
    assert!(ignored.status.success(), "{}", text(&ignored.stderr));
    assert_eq!(text(&ignored.stdout), "All of the log directories are already formatted.\n");

    let other = strand(&["storage", "format", "-t", "AAAAAAAAAAAAAAAAAAAAAQ", "-c", config, "-g"])?;
    assert_eq!(other.status.code(), Some(1));
    assert!(text(&other.stderr).contains("Invalid cluster.id in:"), "{}", text(&other.stderr));
    Ok(())
}

/// The bootstrap file goes into the metadata dir only; a refused `--add-scram` (Kafka's message)
/// formats nothing.
#[test]
fn format_writes_bootstrap_and_refuses_bad_scram_first() -> TestResult {
    let dir = tempfile::tempdir()?;
    let config = write_config(dir.path(), "")?;
    let config = config.to_str().ok_or("path")?;
    let cluster_id = "MkU3OEVBNTcwNTJENDM2Qg";
    let refused = strand(&["storage", "format", "-t", cluster_id, "-c", config, "-S", "SCRAM-SHA-256=[name=a]"])?;
    assert_eq!(refused.status.code(), Some(1));
    let message = "You must supply one of 'password' or 'saltedpassword' to add-scram";
    assert!(text(&refused.stderr).contains(message), "{}", text(&refused.stderr));
    assert!(["a", "b", "meta"].iter().all(|sub| !dir.path().join(sub).exists()), "nothing was formatted");

    let scram = "SCRAM-SHA-512=[name=admin,password=admin-secret]";
    let output = strand(&["storage", "format", "-t", cluster_id, "-c", config, "--add-scram", scram])?;
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(dir.path().join("meta/bootstrap.checkpoint").is_file());
    assert!(!dir.path().join("a/bootstrap.checkpoint").exists() && !dir.path().join("b/bootstrap.checkpoint").exists());
    let bytes = std::fs::read(dir.path().join("meta/bootstrap.checkpoint"))?;
    assert!(!bytes.windows(b"admin-secret".len()).any(|w| w == b"admin-secret"), "the password is not stored");
    Ok(())
}

/// An invalid value stops `server` before anything starts: exit code 1 and a message naming the
/// key and the value, from an override or from the file.
#[test]
fn server_refuses_invalid_values() -> TestResult {
    let output = strand(&["server", "--override", "num.partitions=abc"])?;
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("invalid value \"abc\" for num.partitions"), "{stderr}");

    let dir = tempfile::tempdir()?;
    let config = write_config(dir.path(), "log.segment.bytes=12\n")?;
    let output = strand(&["server", config.to_str().ok_or("path")?])?;
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("log.segment.bytes"), "{}", text(&output.stderr));
    assert!(!dir.path().join("a").exists(), "nothing was formatted");

    let output = strand(&["server", "--override", "no-equals-sign"])?;
    assert_eq!(output.status.code(), Some(2), "a malformed argument is a usage error");
    Ok(())
}

/// A security setting Strand does not implement stops `server` before anything starts, naming
/// it, rather than serving without the security a user asked for: a node login Strand cannot
/// make, a JKS store it cannot read, Kerberos, a JAAS entry Kafka's brokers would ignore.
#[test]
fn server_refuses_security_it_does_not_implement() -> TestResult {
    let dir = tempfile::tempdir()?;
    let sasl_listener = "listeners=SASL_SSL://127.0.0.1:0\nsecurity.inter.broker.protocol=SASL_SSL\n\
                         sasl.enabled.mechanisms=SCRAM-SHA-512\n";
    let jks = "listeners=SSL://127.0.0.1:0\nsecurity.inter.broker.protocol=SSL\nssl.keystore.location=/k.jks\n";
    let cases = [
        (sasl_listener, "sasl.mechanism.inter.broker.protocol must be included in sasl.enabled.mechanisms"),
        (jks, "-srcstoretype JKS -destkeystore store.p12 -deststoretype PKCS12"),
        (
            "ssl.engine.factory.class=x.Factory\n",
            "ssl.engine.factory.class: Strand's TLS supports only Kafka's default",
        ),
        ("sasl.jaas.config=x\n", "sasl.jaas.config: a broker reads sasl.jaas.config only per listener"),
        (
            "listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:1\nsasl.enabled.mechanisms=GSSAPI\n",
            "GSSAPI (Kerberos",
        ),
        (
            "authorizer.class.name=kafka.security.authorizer.AclAuthorizer\n",
            "authorizer class kafka.security.authorizer.AclAuthorizer is not supported",
        ),
    ];
    for (index, (settings, expected)) in cases.into_iter().enumerate() {
        let data = dir.path().join(format!("data-{index}"));
        let file = format!("{settings}log.dirs={}\n", data.display());
        let config = write_config(dir.path(), &file)?;
        let output = strand(&["server", config.to_str().ok_or("path")?])?;
        assert_eq!(output.status.code(), Some(1), "{settings}");
        let stderr = text(&output.stderr);
        assert!(stderr.contains(expected), "{settings}: {stderr}");
        assert!(!data.exists(), "{settings}: nothing was formatted");
    }
    Ok(())
}

/// An unknown key is logged as Kafka's warning, and the node goes on to format its dirs.
#[test]
fn server_warns_about_unknown_keys() -> TestResult {
    let dir = tempfile::tempdir()?;
    let data = dir.path().join("data");
    let log_dirs = format!("log.dirs={}", data.display());
    let args =
        ["server", "--override", "listeners=PLAINTEXT://localhost:0", "--override", &log_dirs, "--override", NO_HTTP];
    let lines = server_until(&[&args[..], &["--override", "no.such.key=1"]].concat(), "Formatted")?;
    let warning = "The configuration 'no.such.key' was supplied but isn't a known config.";
    assert!(lines.iter().any(|line| line.contains("WARN") && line.contains(warning)), "{lines:#?}");
    Ok(())
}

/// On first start a sole voter formats its empty dirs with a fresh random cluster id, or with
/// `cluster.id` when given.
#[test]
fn server_formats_on_first_start() -> TestResult {
    let dir = tempfile::tempdir()?;
    let data = dir.path().join("data");
    let log_dirs = format!("log.dirs={}", data.display());
    let args =
        ["server", "--override", "listeners=PLAINTEXT://localhost:0", "--override", &log_dirs, "--override", NO_HTTP];
    let lines = server_until(&args, "Formatted")?;
    assert!(lines.iter().any(|line| line.contains("Formatted metadata directory")), "{lines:#?}");
    let meta = meta_properties(&data);
    assert!(meta.contains("node.id=1\n"), "{meta}");
    let cluster_line = meta.lines().find(|line| line.starts_with("cluster.id=")).unwrap_or_default().to_owned();
    assert_eq!(cluster_line.len(), "cluster.id=".len() + 22, "{meta}");

    let chosen = dir.path().join("chosen");
    let chosen_dirs = format!("log.dirs={}", chosen.display());
    let args = [
        "server",
        "--override",
        &chosen_dirs,
        "--override",
        "cluster.id=4L6g3nShT-eMCtK--X86sw",
        "--override",
        NO_HTTP,
    ];
    server_until(&[&args[..], &["--override", "listeners=PLAINTEXT://localhost:0"]].concat(), "Formatted")?;
    assert!(meta_properties(&chosen).contains("cluster.id=4L6g3nShT-eMCtK--X86sw\n"));
    Ok(())
}

/// A node of a larger quorum with empty dirs and no cluster.id refuses to start and says how to
/// set one; it formats nothing.
#[test]
fn server_without_cluster_id_in_a_quorum_refuses() -> TestResult {
    let dir = tempfile::tempdir()?;
    let quorum = "controller.quorum.voters=3@localhost:9093,4@localhost:9095\ncontroller.listener.names=CONTROLLER\n";
    let config = write_config(dir.path(), quorum)?;
    let listeners = "listeners=PLAINTEXT://localhost:0,CONTROLLER://localhost:9093";
    let output = strand(&["server", config.to_str().ok_or("path")?, "--override", listeners])?;
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("strand storage format -t <cluster-id>") && stderr.contains("cluster.id="), "{stderr}");
    assert!(meta_properties(&dir.path().join("a")).is_empty());
    Ok(())
}

/// A node whose meta.properties names another cluster than `cluster.id` refuses to start.
#[test]
fn server_refuses_another_clusters_data() -> TestResult {
    let dir = tempfile::tempdir()?;
    let config = write_config(dir.path(), "")?;
    let config = config.to_str().ok_or("path")?;
    let format = strand(&["storage", "format", "-t", "MkU3OEVBNTcwNTJENDM2Qg", "-c", config])?;
    assert!(format.status.success(), "{}", text(&format.stderr));
    let output = strand(&["server", config, "--override", "cluster.id=4L6g3nShT-eMCtK--X86sw"])?;
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    let expected = "names cluster MkU3OEVBNTcwNTJENDM2Qg, but cluster.id is 4L6g3nShT-eMCtK--X86sw";
    assert!(stderr.contains(expected), "{stderr}");
    Ok(())
}

/// A second `strand` pointed at a running node's log dirs is refused, naming the directory and
/// the running node's pid, and writes nothing there (no clean-shutdown marker, no coordinator
/// loads); the running node is unaffected.
#[test]
fn a_second_server_on_the_same_dirs_is_refused() -> TestResult {
    let dir = tempfile::tempdir()?;
    let data = dir.path().join("data");
    let log_dirs = format!("log.dirs={}", data.display());
    let mut first = Command::new(env!("CARGO_BIN_EXE_strand"))
        .args([
            "server",
            "--override",
            "listeners=PLAINTEXT://127.0.0.1:0",
            "--override",
            &log_dirs,
            "--override",
            NO_HTTP,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    let stderr = first.stderr.take().ok_or("no stderr")?;
    let mut lines = BufReader::new(stderr).lines();
    let ready = lines.by_ref().map_while(Result::ok).any(|line| line.contains("listening on"));
    let second = Command::new(env!("CARGO_BIN_EXE_strand"))
        .args([
            "server",
            "--override",
            "listeners=PLAINTEXT://127.0.0.1:0",
            "--override",
            &log_dirs,
            "--override",
            NO_HTTP,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    let second = exit_within(second, LOG_LINE_WAIT)?;
    let running = first.try_wait()?.is_none();
    let _ = first.kill();
    first.wait()?;
    assert!(ready && running, "the first node did not start or did not survive the second");
    assert_eq!(second.status.code(), Some(1));
    let message = text(&second.stderr);
    let expected = format!("{} is in use by another process (pid {})", data.display(), first.id());
    assert!(message.contains(&expected), "{message}");
    assert!(!data.join(".kafka_cleanshutdown").exists(), "the second node wrote into the first's dir");
    Ok(())
}

/// A first start refused because its port is taken leaves its dirs unformatted, so the next
/// start does not inherit a random cluster id nobody used.
#[test]
#[allow(clippy::disallowed_methods)] // The test holds the port the node wants.
fn a_refused_first_start_formats_nothing() -> TestResult {
    let taken = std::net::TcpListener::bind("127.0.0.1:0")?;
    let port = taken.local_addr()?.port();
    let dir = tempfile::tempdir()?;
    let data = dir.path().join("data");
    let log_dirs = format!("log.dirs={}", data.display());
    let listeners = format!("listeners=PLAINTEXT://127.0.0.1:{port}");
    let output = strand(&["server", "--override", &listeners, "--override", &log_dirs, "--override", NO_HTTP])?;
    assert_eq!(output.status.code(), Some(1));
    let message = text(&output.stderr);
    assert!(message.contains(&format!("cannot listen on 127.0.0.1:{port}")), "{message}");
    assert!(meta_properties(&data).is_empty(), "formatted by a refused start: {}", meta_properties(&data));
    Ok(())
}

/// `strand completions SHELL` prints a script the shell takes: bash registers it for `strand`
/// and completes subcommands and a subcommand's flags from it; zsh's and fish's name strand.
#[test]
fn completions_for_each_shell() -> TestResult {
    let bash = strand(&["completions", "bash"])?;
    assert!(bash.status.success(), "{}", text(&bash.stderr));
    let script = tempfile::NamedTempFile::new()?;
    std::fs::write(script.path(), &bash.stdout)?;
    // What bash offers after `strand consumer-gr` and after `strand topics --bootstrap-s`.
    let complete = |line: &str| -> std::io::Result<String> {
        let words: Vec<&str> = line.split(' ').collect();
        // Bash calls the function with the command, the word being completed and the one before.
        let (current, previous) = (words[words.len() - 1], words[words.len() - 2]);
        let program = format!(
            "source {}; COMP_WORDS=({line}); COMP_CWORD={}; COMP_LINE='{line}'; COMP_POINT={}; \
             _strand strand {current} {previous}; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.path().display(),
            words.len() - 1,
            line.len()
        );
        Ok(text(&Command::new("bash").args(["-c", &program]).output()?.stdout))
    };
    assert_eq!(complete("strand consumer-gr")?.trim(), "consumer-groups");
    assert!(complete("strand topics --bootstrap-s")?.lines().any(|w| w.trim() == "--bootstrap-server"));
    let registered = Command::new("bash")
        .args(["-c", &format!("source {}; complete -p strand", script.path().display())])
        .output()?;
    assert!(text(&registered.stdout).contains("strand"), "{}", text(&registered.stderr));
    let zsh = strand(&["completions", "zsh"])?;
    assert!(text(&zsh.stdout).starts_with("#compdef strand"), "{}", text(&zsh.stdout));
    let fish = strand(&["completions", "fish"])?;
    assert!(text(&fish.stdout).contains("complete -c strand"), "{}", text(&fish.stdout));
    let unknown = strand(&["completions", "tcsh"])?;
    assert_eq!(unknown.status.code(), Some(2), "{}", text(&unknown.stderr));
    Ok(())
}

/// Every subcommand `strand --help` lists shows at least one example in its own `--help`.
#[test]
fn every_subcommand_s_help_has_an_example() -> TestResult {
    let help = text(&strand(&["--help"])?.stdout);
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .collect();
    assert!(commands.len() > 20, "{help}");
    let missing: Vec<&str> = commands
        .into_iter()
        .filter(|name| strand(&[name, "--help"]).map_or(true, |out| !text(&out.stdout).contains("Example")))
        .collect();
    assert!(missing.is_empty(), "no example in the help of {missing:?}");
    Ok(())
}
