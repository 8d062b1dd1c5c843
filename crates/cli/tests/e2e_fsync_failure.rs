//! A real `strand` whose syncs fail while it runs: the binary the tests build has the `fail`
//! crate's failpoints compiled in (a release build has none) and sets them once the file
//! `STRAND_FAILPOINTS_FILE` names appears. A failed sync of the metadata log stops the node with
//! exit code 1 and one ERROR line naming the directory, acknowledging nothing; a failed sync of
//! the only data dir stops it too (Kafka halts once every log dir failed), the acks=all produce
//! unacknowledged. Either way the next start recovers what was acknowledged. The file is applied
//! again whenever its text changes (a fault healed with `name=off`).

mod common;

use std::path::Path;
use std::process::ExitStatus;
use std::time::Duration;

use common::{Client, Server, WAIT_MAX, batch, create_topic, fetch_all, produce, serial};
use strand_protocol::messages::CreateTopicsRequest;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::CreatableTopic;

/// Starts a node over a fresh data dir that sets the failpoints of `<data>/failpoints` once the
/// file appears.
fn start(overrides: &[&str]) -> Server {
    let data = tempfile::tempdir().expect("temp dir");
    let file = data.path().join("failpoints").display().to_string();
    Server::spawn_with_env(data, overrides, &[("STRAND_FAILPOINTS_FILE", file)]).ready()
}

/// How often the waits below look again.
const POLL: Duration = Duration::from_millis(20);

/// Sets failpoints in the running node and waits until it says they are set.
fn set_failpoints(server: &Server, actions: &str) {
    let (tmp, file) = (server.data.path().join("failpoints.tmp"), server.data.path().join("failpoints"));
    std::fs::write(&tmp, actions).expect("write");
    std::fs::rename(&tmp, &file).expect("rename");
    wait_for_line(server, "failpoint ");
}

/// Waits (at most [`WAIT_MAX`]) for a log line containing `text`.
fn wait_for_line(server: &Server, text: &str) {
    for _ in 0..WAIT_MAX.as_millis() / POLL.as_millis() {
        if server.log.lock().is_ok_and(|lines| lines.iter().any(|l| l.contains(text))) {
            return;
        }
        // The node says it only in its log: nothing to wait on but its lines.
        std::thread::sleep(POLL);
    }
    panic!("no log line with {text:?}");
}

/// Waits (at most [`WAIT_MAX`]) for the process to exit on its own.
fn exit_status(server: &mut Server) -> ExitStatus {
    for _ in 0..WAIT_MAX.as_millis() / POLL.as_millis() {
        if let Some(status) = server.child.try_wait().expect("try_wait") {
            return status;
        }
        std::thread::sleep(POLL);
    }
    let lines = server.log.lock().map(|l| l.join("\n")).unwrap_or_default();
    panic!("strand kept running {WAIT_MAX:?} after the failure:\n{lines}");
}

/// CreateTopics of one partition: its error code, or `None` if the connection closed first.
fn try_create_topic(client: &mut Client, name: &str) -> Option<i16> {
    let topic = CreatableTopic { name: name.into(), num_partitions: 1, replication_factor: 1, ..Default::default() };
    let request = CreateTopicsRequest { topics: vec![topic], timeout_ms: 20_000, ..Default::default() };
    let call =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| client.call(RequestBody::CreateTopics(request), 7)));
    match call {
        Ok(ResponseBody::CreateTopics(response)) => response.topics.first().map(|t| t.error_code),
        _ => None,
    }
}

/// The names of the topics the node lists.
fn topics(client: &mut Client) -> Vec<String> {
    let request = strand_protocol::messages::MetadataRequest { topics: None, ..Default::default() };
    let ResponseBody::Metadata(response) = client.call(RequestBody::Metadata(request), 12) else { panic!() };
    response.topics.into_iter().filter_map(|t| t.name).collect()
}

fn lines_with(server: &Server, text: &str) -> Vec<String> {
    server.log.lock().map(|l| l.iter().filter(|l| l.contains(text)).cloned().collect()).unwrap_or_default()
}

/// A failed fsync of the metadata log while the node runs (a CreateTopics commits through it):
/// the topic is not acknowledged, the process exits 1 after one ERROR line naming the metadata
/// log's directory, and the next start has what was committed before.
#[test]
fn a_failed_metadata_log_sync_stops_the_process() {
    let _serial = serial();
    let mut server = start(&[]);
    let mut client = server.connect();
    assert_eq!(try_create_topic(&mut client, "before"), Some(0));
    set_failpoints(&server, "log::sync_metadata=return");
    let answer = try_create_topic(&mut client, "during");
    assert_ne!(answer, Some(0), "a topic whose metadata was not synced was acknowledged");
    let status = exit_status(&mut server);
    assert_eq!(status.code(), Some(1), "{status}");
    let metadata_dir = server.data.path().join("__cluster_metadata-0").display().to_string();
    let errors = lines_with(&server, " ERROR ");
    assert_eq!(errors.len(), 1, "one ERROR line: {errors:#?}");
    assert!(errors[0].contains(&metadata_dir) && errors[0].contains("injected fsync failure"), "{}", errors[0]);

    let data = server.kill();
    let server = Server::start_in(data);
    let mut client = server.connect();
    assert!(topics(&mut client).contains(&"before".to_owned()));
    server.terminate();
}

/// A failed fsync of the only data dir under an acks=all produce: not acknowledged, the process
/// exits 1 (every log dir failed), and the next start serves every acknowledged record.
#[test]
fn a_failed_data_log_sync_stops_the_process() {
    let _serial = serial();
    let mut server = start(&["log.flush.interval.messages=1"]);
    let mut client = server.connect();
    create_topic(&mut client, "t", 1);
    assert_eq!(produce(&mut client, "t", -1, batch(&["acknowledged"])).0, 0);
    set_failpoints(&server, "log::sync=return");
    let during = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        produce(&mut client, "t", -1, batch(&["unsynced"])).0
    }));
    assert!(!matches!(during, Ok(0)), "a batch whose sync failed was acknowledged");
    let status = exit_status(&mut server);
    assert_eq!(status.code(), Some(1), "{status}");
    let data_dir = server.data.path().display().to_string();
    assert!(lines_with(&server, " ERROR ").iter().any(|l| l.contains(&data_dir)), "no ERROR names {data_dir}");

    let data = server.kill();
    assert!(!Path::new(&data.path().join(".kafka_cleanshutdown")).exists(), "marked clean after a failed sync");
    let server = Server::start_in(data);
    let mut client = server.connect();
    let values = fetch_all(&mut client, "t");
    assert_eq!(values.first().map(String::as_str), Some("acknowledged"), "{values:?}");
    server.terminate();
}

/// The failpoints file is applied again each time its text changes, so a fault set through it can
/// be healed while the node runs (the nemesis's slow disk): syncs slowed, then back to normal,
/// and an acks=all produce acknowledged after each.
#[test]
fn a_changed_failpoints_file_is_applied_again() {
    let _serial = serial();
    let server = start(&["log.flush.interval.messages=1"]);
    let mut client = server.connect();
    create_topic(&mut client, "t", 1);
    set_failpoints(&server, "log::sync=sleep(20)");
    wait_for_line(&server, "failpoint log::sync set to sleep(20)");
    assert_eq!(produce(&mut client, "t", -1, batch(&["slow"])).0, 0);
    set_failpoints(&server, "log::sync=off");
    wait_for_line(&server, "failpoint log::sync set to off");
    assert_eq!(produce(&mut client, "t", -1, batch(&["healed"])).0, 0);
    assert_eq!(fetch_all(&mut client, "t"), vec!["slow".to_owned(), "healed".to_owned()]);
    server.terminate();
}
