//! The JSON files of `kafka-reassign-partitions`: the reassignment plan
//! (`{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2],"log_dirs":["any","any"]}]}`,
//! `log_dirs` optional) read by `--execute`, `--verify` and `--cancel` and printed by
//! `--generate` and `--execute`, and the topics file of `--generate`
//! (`{"version":1,"topics":[{"topic":"t"}]}`), with Kafka's checks and messages.
//!
//! Printing is Jackson's compact form, partitions sorted by topic then partition, as Kafka's
//! `formatAsReassignmentJson`.

use std::collections::BTreeMap;

use serde_json::Value;
use strand_client::admin_groups::TopicPartition;
use strand_client::admin_reassign::TopicPartitionReplica;

use super::{Failure, admin_command_failed, admin_operation};

/// A log dir entry meaning "wherever the broker likes".
pub const ANY_LOG_DIR: &str = "any";

/// A reassignment file as read: each partition's target replicas in file order (duplicates
/// kept, for the checks), and the log dir each replica must move to where one is named.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    pub partitions: Vec<(TopicPartition, Vec<i32>)>,
    pub log_dirs: BTreeMap<TopicPartitionReplica, String>,
}

/// Kafka's `parsePartitionReassignmentData`.
pub fn parse_plan(text: &str) -> Result<Plan, Failure> {
    let json: Value = serde_json::from_str(text).map_err(|e| admin_operation(&format!("{e}")))?;
    check_version(&json)?;
    let mut plan = Plan::default();
    let Some(entries) = field(&json, "partitions") else { return Ok(plan) };
    for entry in array(entries)? {
        let topic = string(required(entry, "topic")?)?;
        let partition = int(required(entry, "partition")?)?;
        let replicas: Vec<i32> = array(required(entry, "replicas")?)?.iter().map(int).collect::<Result<_, _>>()?;
        let dirs: Vec<String> = match field(entry, "log_dirs") {
            Some(dirs) => array(dirs)?.iter().map(string).collect::<Result<_, _>>()?,
            None => vec![ANY_LOG_DIR.to_owned(); replicas.len()],
        };
        if dirs.len() != replicas.len() {
            return Err(admin_command_failed(&format!(
                "Size of replicas list {} is different from size of log dirs list {} for partition {topic}-{partition}",
                java_list(&replicas),
                java_list(&dirs)
            )));
        }
        for (replica, dir) in replicas.iter().zip(dirs) {
            if dir != ANY_LOG_DIR {
                plan.log_dirs.insert((topic.clone(), partition, *replica), dir);
            }
        }
        plan.partitions.push(((topic, partition), replicas));
    }
    Ok(plan)
}

/// Kafka's `parseExecuteAssignmentArgs`: a plan `--execute` accepts, as a map.
pub fn check_executable(plan: &Plan) -> Result<BTreeMap<TopicPartition, Vec<i32>>, Failure> {
    if plan.partitions.is_empty() {
        return Err(admin_command_failed("Partition reassignment list cannot be empty"));
    }
    if plan.partitions.iter().any(|(_, replicas)| replicas.is_empty()) {
        return Err(admin_command_failed("Partition replica list cannot be empty"));
    }
    let names: Vec<String> = plan.partitions.iter().map(|((t, p), _)| format!("{t}-{p}")).collect();
    let duplicated = duplicates(&names);
    if !duplicated.is_empty() {
        return Err(admin_command_failed(&format!(
            "Partition reassignment contains duplicate topic partitions: {}",
            duplicated.join(",")
        )));
    }
    let repeated: Vec<String> = plan
        .partitions
        .iter()
        .filter_map(|((topic, partition), replicas)| {
            let twice = duplicates(replicas);
            let twice: Vec<String> = twice.iter().map(i32::to_string).collect();
            (!twice.is_empty())
                .then(|| format!("{topic}-{partition} contains multiple entries for {}", twice.join(",")))
        })
        .collect();
    if !repeated.is_empty() {
        return Err(admin_command_failed(&format!(
            "Partition replica lists may not contain duplicate entries: {}",
            repeated.join(". ")
        )));
    }
    Ok(plan.partitions.iter().cloned().collect())
}

/// Kafka's `parseTopicsData`: the topics of a `--topics-to-move-json-file`.
pub fn parse_topics(text: &str) -> Result<Vec<String>, Failure> {
    let json: Value =
        serde_json::from_str(text).map_err(|_| admin_operation("The input string is not a valid JSON"))?;
    check_version(&json)?;
    let Some(entries) = field(&json, "topics") else { return Ok(Vec::new()) };
    array(entries)?.iter().map(|entry| string(required(entry, "topic")?)).collect()
}

/// Kafka's `formatAsReassignmentJson`: each partition with its replicas and, per replica, its
/// log dir from `dirs` or "any".
pub fn format_plan(
    partitions: &BTreeMap<TopicPartition, Vec<i32>>,
    dirs: &BTreeMap<TopicPartitionReplica, String>,
) -> String {
    let entries: Vec<String> = partitions
        .iter()
        .map(|((topic, partition), replicas)| {
            let dirs: Vec<String> = replicas
                .iter()
                .map(|r| {
                    let dir = dirs.get(&(topic.clone(), *partition, *r)).map_or(ANY_LOG_DIR, String::as_str);
                    json_string(dir)
                })
                .collect();
            let replicas: Vec<String> = replicas.iter().map(i32::to_string).collect();
            format!(
                "{{\"topic\":{},\"partition\":{partition},\"replicas\":[{}],\"log_dirs\":[{}]}}",
                json_string(topic),
                replicas.join(","),
                dirs.join(",")
            )
        })
        .collect();
    format!("{{\"version\":1,\"partitions\":[{}]}}", entries.join(","))
}

/// The entries of `items` that occur more than once, each once, in first-seen order (Kafka's
/// `ToolsUtils.duplicates`).
pub fn duplicates<T: PartialEq + Clone>(items: &[T]) -> Vec<T> {
    let mut seen: Vec<&T> = Vec::new();
    let mut twice: Vec<T> = Vec::new();
    for item in items {
        if seen.contains(&item) {
            if !twice.contains(item) {
                twice.push(item.clone());
            }
        } else {
            seen.push(item);
        }
    }
    twice
}

/// A `java.util.List`'s `toString`: `[a, b]`.
pub fn java_list<T: std::fmt::Display>(items: &[T]) -> String {
    let items: Vec<String> = items.iter().map(ToString::to_string).collect();
    format!("[{}]", items.join(", "))
}

fn check_version(json: &Value) -> Result<(), Failure> {
    match field(json, "version") {
        None => Ok(()),
        Some(version) => match int(version)? {
            1 => Ok(()),
            other => Err(admin_operation(&format!("Not supported version field value {other}"))),
        },
    }
}

fn field<'a>(json: &'a Value, name: &str) -> Option<&'a Value> {
    json.as_object().and_then(|o| o.get(name))
}

fn required<'a>(json: &'a Value, name: &str) -> Result<&'a Value, Failure> {
    field(json, name).ok_or_else(|| json_mapping(&format!("No such field exists: `{name}`")))
}

fn array(json: &Value) -> Result<&Vec<Value>, Failure> {
    json.as_array().ok_or_else(|| json_mapping(&format!("Expected JSON array, received {json}")))
}

fn int(json: &Value) -> Result<i32, Failure> {
    json.as_i64()
        .and_then(|n| i32::try_from(n).ok())
        .ok_or_else(|| json_mapping(&format!("Expected `Integer` value, received {json}")))
}

fn string(json: &Value) -> Result<String, Failure> {
    json.as_str().map(str::to_owned).ok_or_else(|| json_mapping(&format!("Expected `String` value, received {json}")))
}

fn json_string(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

/// Jackson's `JsonMappingException`, as Kafka's JSON decoders throw it.
fn json_mapping(message: &str) -> Failure {
    super::error("com.fasterxml.jackson.databind.JsonMappingException", message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(failure: Failure) -> String {
        match failure {
            Failure::Usage(text) | Failure::Operation(text) => text,
        }
    }

    /// A plan read back prints as Kafka prints it; log dirs other than "any" are kept per replica.
    #[test]
    fn plans_round_trip_in_kafka_s_format() {
        let json = r#"{"version":1,"partitions":[{"topic":"b","partition":1,"replicas":[3,1]},
            {"topic":"a","partition":0,"replicas":[1,2],"log_dirs":["any","/d/2"]}]}"#;
        let plan = parse_plan(json).expect("a plan");
        assert_eq!(plan.log_dirs, BTreeMap::from([(("a".to_owned(), 0, 2), "/d/2".to_owned())]));
        let partitions = check_executable(&plan).expect("executable");
        assert_eq!(
            format_plan(&partitions, &plan.log_dirs),
            r#"{"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[1,2],"log_dirs":["any","/d/2"]},{"topic":"b","partition":1,"replicas":[3,1],"log_dirs":["any","any"]}]}"#
        );
    }

    /// Kafka's refusals of a plan, with its messages.
    #[test]
    fn bad_plans_are_refused_with_kafka_s_messages() {
        let check = |json: &str, expected: &str| {
            let outcome = parse_plan(json).and_then(|plan| check_executable(&plan).map(|_| ()));
            let message = text(outcome.expect_err(json));
            assert!(message.starts_with(&format!("Error: {expected}\n")), "{json}: {message}");
        };
        check(r#"{"version":1,"partitions":[]}"#, "Partition reassignment list cannot be empty");
        check(
            r#"{"partitions":[{"topic":"a","partition":0,"replicas":[]}]}"#,
            "Partition replica list cannot be empty",
        );
        check(r#"{"version":2}"#, "Not supported version field value 2");
        check(
            r#"{"partitions":[{"topic":"a","partition":0,"replicas":[1]},{"topic":"a","partition":0,"replicas":[2]}]}"#,
            "Partition reassignment contains duplicate topic partitions: a-0",
        );
        check(
            r#"{"partitions":[{"topic":"a","partition":0,"replicas":[1,1,2,2]},{"topic":"b","partition":3,"replicas":[4,4]}]}"#,
            "Partition replica lists may not contain duplicate entries: a-0 contains multiple entries for 1,2. \
             b-3 contains multiple entries for 4",
        );
        check(
            r#"{"partitions":[{"topic":"a","partition":0,"replicas":[1,2],"log_dirs":["any"]}]}"#,
            "Size of replicas list [1, 2] is different from size of log dirs list [any] for partition a-0",
        );
        check(r#"{"partitions":[{"partition":0,"replicas":[1]}]}"#, "No such field exists: `topic`");
    }

    /// The topics of a `--generate` file, in file order.
    #[test]
    fn topics_files_are_read() {
        assert_eq!(
            parse_topics(r#"{"topics":[{"topic":"b"},{"topic":"a"}],"version":1}"#).expect("topics"),
            ["b", "a"]
        );
        let message = text(parse_topics("{").expect_err("not JSON"));
        assert!(message.starts_with("Error: The input string is not a valid JSON\n"), "{message}");
    }
}
