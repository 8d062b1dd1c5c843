//! `--describe --output json`: the groups as one JSON array, for scripts (Strand's addition; Kafka's
//! tool prints only its tables). Each group: its id, type, state, coordinator, assignment
//! strategy, epochs and member count; with `--members` its members, with `--offsets` (the
//! default) its partitions' offsets and lag; with `--state` nothing more. Missing values are
//! `null`, never Kafka's `-`. A group that does not exist is reported on stderr and left out.

use serde_json::{Value, json};
use strand_client::Admin;
use strand_client::admin_groups::{ConsumerGroupDescription, MemberDescription, TopicPartition};

use super::{GroupsArgs, MISSING, PartitionRow, offset_rows};
use crate::tool::Failure;

pub(super) async fn print(
    admin: &Admin,
    args: &GroupsArgs,
    described: Vec<ConsumerGroupDescription>,
) -> Result<(), Failure> {
    let mut documents = Vec::new();
    for group in described {
        if group.state == "Dead" {
            // On stderr: stdout holds the JSON document alone.
            eprintln!("Error: Consumer group '{}' does not exist.", group.group_id);
            continue;
        }
        let mut document = summary(&group);
        if args.members {
            document["members"] = group.members.iter().map(member).collect();
        } else if args.state.is_none() {
            document["offsets"] = offset_rows(admin, &group).await?.iter().map(offset).collect();
        }
        documents.push(document);
    }
    println!("{}", Value::from(documents));
    Ok(())
}

fn summary(group: &ConsumerGroupDescription) -> Value {
    json!({
        "group": group.group_id,
        "type": group.group_type,
        "state": group.state,
        "coordinator": {"id": group.coordinator.id, "host": group.coordinator.host, "port": group.coordinator.port},
        "assignmentStrategy": (!group.assignor.is_empty()).then_some(&group.assignor),
        "groupEpoch": group.group_epoch,
        "targetAssignmentEpoch": group.target_assignment_epoch,
        "memberCount": group.members.len(),
    })
}

fn member(member: &MemberDescription) -> Value {
    json!({
        "consumerId": member.member_id,
        "groupInstanceId": member.group_instance_id.as_deref().filter(|id| !id.is_empty()),
        "host": member.host,
        "clientId": member.client_id,
        "memberEpoch": member.member_epoch,
        "assignment": partitions(&member.assignment),
        "targetAssignment": member.target_assignment.as_deref().map(partitions),
    })
}

fn partitions(list: &[TopicPartition]) -> Value {
    let mut sorted = list.to_vec();
    sorted.sort();
    sorted.into_iter().map(|(topic, partition)| json!({"topic": topic, "partition": partition})).collect()
}

fn offset(row: &PartitionRow) -> Value {
    let known = |text: &str| (text != MISSING).then(|| text.to_owned());
    json!({
        "topic": row.topic,
        "partition": row.partition,
        "currentOffset": row.current().filter(|o| *o != -1),
        "logEndOffset": row.log_end,
        "lag": row.lag(),
        "leaderEpoch": row.committed.as_ref().and_then(|c| c.leader_epoch),
        "consumerId": known(&row.consumer),
        "host": known(&row.host),
        "clientId": known(&row.client),
    })
}
