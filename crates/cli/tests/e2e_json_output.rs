//! `--output json` on the read commands besides `topics` (issue 21 item 5): `consumer-groups
//! --describe` (offsets, members, state), `get-offsets` and `metadata-quorum describe` (status,
//! replication), each checked against the text the same command prints for the same state, so
//! the JSON says what Kafka's output says.

mod common;

use std::process::Output;

use common::Server;
use common::goldens::strand_tool;
use serde_json::{Value, json};

fn json_of(output: &Output) -> Value {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)))
}

fn text_of(output: &Output) -> String {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn read_commands_print_what_their_text_says_as_json() {
    let _serial = common::serial();
    let server = Server::start();
    let created = strand_tool(&server, "topics", &["--create", "--topic", "json", "--partitions", "2"], None);
    assert!(created.status.success());
    let input = "a\nb\nc\nd\ne\nf\n";
    assert!(strand_tool(&server, "console-producer", &["--topic", "json"], Some(input)).status.success());

    // get-offsets: the same offsets as Kafka's TOPIC:PARTITION:OFFSET lines.
    let lines = text_of(&strand_tool(&server, "get-offsets", &["--topic", "json"], None));
    let from_text: Vec<(String, i64, i64)> = lines
        .lines()
        .map(|l| {
            let fields: Vec<&str> = l.split(':').collect();
            (fields[0].to_owned(), fields[1].parse().expect("a partition"), fields[2].parse().expect("an offset"))
        })
        .collect();
    let offsets = json_of(&strand_tool(&server, "get-offsets", &["--topic", "json", "--output", "json"], None));
    let from_json: Vec<(String, i64, i64)> = offsets
        .as_array()
        .expect("an array")
        .iter()
        .map(|o| {
            (
                o["topic"].as_str().expect("a topic").to_owned(),
                o["partition"].as_i64().expect("int"),
                o["offset"].as_i64().expect("int"),
            )
        })
        .collect();
    assert_eq!(from_json, from_text);
    assert_eq!(from_json.iter().map(|(_, _, offset)| offset).sum::<i64>(), 6);

    // consumer-groups: committed offsets of an inactive group, its lag, no members.
    let reset = ["--reset-offsets", "--group", "readers", "--topic", "json", "--to-earliest", "--execute"];
    text_of(&strand_tool(&server, "consumer-groups", &reset, None));
    let described = json_of(&strand_tool(
        &server,
        "consumer-groups",
        &["--describe", "--group", "readers", "--output", "json"],
        None,
    ));
    let group = &described[0];
    assert_eq!((group["group"].as_str(), group["state"].as_str()), (Some("readers"), Some("Empty")), "{group}");
    assert_eq!(group["memberCount"], 0);
    let rows = group["offsets"].as_array().expect("offsets");
    let lags: Vec<(i64, Value, Value, Value)> = rows
        .iter()
        .map(|r| {
            (
                r["partition"].as_i64().expect("int"),
                r["currentOffset"].clone(),
                r["lag"].clone(),
                r["consumerId"].clone(),
            )
        })
        .collect();
    let expected: Vec<(i64, Value, Value, Value)> =
        from_text.iter().map(|(_, partition, end)| (*partition, json!(0), json!(end), Value::Null)).collect();
    assert_eq!(lags, expected, "{group}");
    let text = text_of(&strand_tool(&server, "consumer-groups", &["--describe", "--group", "readers"], None));
    for (_, partition, end) in &from_text {
        // Kafka's columns: each at least 15 wide (the partition's 10), one space apart.
        let row = format!("{:<15} {:<15} {partition:<10} {:<15} {end:<15} {end:<15} -", "readers", "json", 0);
        assert!(text.contains(&row), "no {row:?} in\n{text}");
    }
    let state = json_of(&strand_tool(
        &server,
        "consumer-groups",
        &["--describe", "--group", "readers", "--state", "--output", "json"],
        None,
    ));
    assert!(state[0].get("offsets").is_none() && state[0].get("members").is_none(), "{state}");
    let members = json_of(&strand_tool(
        &server,
        "consumer-groups",
        &["--describe", "--group", "readers", "--members", "--output", "json"],
        None,
    ));
    assert_eq!(members[0]["members"], json!([]));
    let listed = strand_tool(&server, "consumer-groups", &["--list", "--output", "json"], None);
    assert_eq!(listed.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&listed.stderr).contains("--output json is only for --describe"));

    // metadata-quorum: the status lines' values and the replication table's rows.
    let status = text_of(&strand_tool(&server, "metadata-quorum", &["describe", "--status"], None));
    let field = |name: &str| {
        status.lines().find_map(|l| l.strip_prefix(&format!("{name}:"))).map(str::trim).expect("a field").to_owned()
    };
    let document =
        json_of(&strand_tool(&server, "metadata-quorum", &["describe", "--status", "--output", "json"], None));
    assert_eq!(document["clusterId"].as_str(), Some(field("ClusterId").as_str()));
    assert_eq!(document["leaderId"].to_string(), field("LeaderId"));
    assert_eq!(document["leaderEpoch"].to_string(), field("LeaderEpoch"));
    assert_eq!(document["currentVoters"][0]["id"].to_string(), field("LeaderId"));
    assert_eq!(document["maxFollowerLag"], 0);
    let table = text_of(&strand_tool(&server, "metadata-quorum", &["describe", "--replication"], None));
    let leader_row: Vec<&str> = table.lines().nth(1).expect("the leader's row").split('\t').map(str::trim).collect();
    let replication =
        json_of(&strand_tool(&server, "metadata-quorum", &["describe", "--replication", "--output", "json"], None));
    let leader = &replication[0];
    assert_eq!(leader["status"], "Leader");
    assert_eq!(leader["nodeId"].to_string(), leader_row[0]);
    // No directory id (a static quorum's: all zeros in the text) is null, as in --status.
    let directory = Some(leader_row[1]).filter(|id| *id != "AAAAAAAAAAAAAAAAAAAAAA");
    assert_eq!(leader["directoryId"].as_str(), directory, "{leader}");
    assert_eq!(leader["lag"], 0);
}
