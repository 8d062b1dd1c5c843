//! [`per_leader`]: the loop of Kafka's admin calls that go to each partition's leader
//! (`listOffsets`, `deleteRecords`): the partitions are grouped by leader, each leader gets one
//! request for its group, and each partition keeps its own answer. A partition whose leader is
//! unknown or moved (a retriable error) is asked again after a fresh Metadata, with backoff,
//! until `default.api.timeout.ms`; one the fresh Metadata does not know fails at once.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;

use strand_protocol::messages::MetadataResponse;

use crate::admin_groups::TopicPartition;
use crate::{Client, ClientError};

/// A leader's answers: each partition's error code and value.
pub type LeaderAnswers<T> = HashMap<TopicPartition, (i16, T)>;

type Answers<T> = Vec<Option<Result<T, ClientError>>>;

const UNKNOWN_TOPIC_OR_PARTITION: i16 = 3;

/// Answers each of `partitions` (in their order) by calling `ask(leader, indexes)` for the
/// partitions each leader leads. Fails as a whole only when no Metadata can be had at all.
pub async fn per_leader<T, F, Fut>(
    client: &Client,
    partitions: &[TopicPartition],
    what: &str,
    mut ask: F,
) -> Result<Vec<Result<T, ClientError>>, ClientError>
where
    T: Clone,
    F: FnMut(i32, Vec<usize>) -> Fut,
    Fut: Future<Output = Result<LeaderAnswers<T>, ClientError>>,
{
    let config = client.config();
    let deadline = tokio::time::Instant::now() + config.api_timeout;
    let mut backoff = config.retry_backoff;
    let mut answers: Answers<T> = vec![None; partitions.len()];
    let mut topics: Vec<String> = partitions.iter().map(|(topic, _)| topic.clone()).collect();
    topics.sort();
    topics.dedup();
    loop {
        let mut last_failure = None;
        match client.refresh_metadata(Some(&topics)).await {
            Ok(metadata) => {
                let leaders = leaders_of(&metadata);
                for (leader, indexes) in pending_by_leader(partitions, &mut answers, &leaders) {
                    match ask(leader, indexes.clone()).await {
                        Ok(found) => record(partitions, &indexes, found, &mut answers),
                        Err(error) if error.is_retriable() => last_failure = Some(error),
                        Err(error) => indexes.iter().for_each(|&i| answers[i] = Some(Err(error.clone()))),
                    }
                }
            }
            Err(error) if !error.is_retriable() => return Err(error),
            Err(error) => last_failure = Some(error),
        }
        if answers.iter().all(Option::is_some) {
            break;
        }
        if tokio::time::Instant::now() + backoff >= deadline {
            let timeout = last_failure.unwrap_or_else(|| ClientError::Timeout(what.to_owned()));
            answers.iter_mut().filter(|a| a.is_none()).for_each(|a| *a = Some(Err(timeout.clone())));
            break;
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(config.retry_backoff_max);
    }
    Ok(answers.into_iter().map(|a| a.unwrap_or_else(|| Err(ClientError::Timeout(what.to_owned())))).collect())
}

/// Each partition's leader from a Metadata answer, or the error its partition has.
fn leaders_of(metadata: &MetadataResponse) -> HashMap<TopicPartition, Result<i32, i16>> {
    let mut leaders = HashMap::new();
    for topic in &metadata.topics {
        let Some(name) = &topic.name else { continue };
        for partition in &topic.partitions {
            let leader = partition.leader_id.0;
            let answer = if partition.error_code == 0 && leader >= 0 { Ok(leader) } else { Err(partition.error_code) };
            leaders.insert((name.clone(), partition.partition_index), answer);
        }
    }
    leaders
}

/// The partitions still unanswered, by leader. One whose leader is unknown waits for the next
/// round; one that the fresh Metadata does not know, or reports with a lasting error, gets that
/// error as its answer.
fn pending_by_leader<T>(
    partitions: &[TopicPartition],
    answers: &mut Answers<T>,
    leaders: &HashMap<TopicPartition, Result<i32, i16>>,
) -> BTreeMap<i32, Vec<usize>> {
    let mut by_leader: BTreeMap<i32, Vec<usize>> = BTreeMap::new();
    for (index, key) in partitions.iter().enumerate() {
        if answers[index].is_some() {
            continue;
        }
        let code = match leaders.get(key) {
            Some(Ok(leader)) => {
                by_leader.entry(*leader).or_default().push(index);
                continue;
            }
            Some(Err(code)) => *code,
            None => UNKNOWN_TOPIC_OR_PARTITION,
        };
        match ClientError::from_response(code, None) {
            Some(error) if code == UNKNOWN_TOPIC_OR_PARTITION || !error.is_retriable() => {
                answers[index] = Some(Err(error))
            }
            _ => {}
        }
    }
    by_leader
}

/// Stores a leader's answers: a value, a lasting error, or nothing (a retriable error or a
/// partition the leader left out: asked again next round).
fn record<T>(partitions: &[TopicPartition], indexes: &[usize], mut found: LeaderAnswers<T>, answers: &mut Answers<T>) {
    for &index in indexes {
        let Some((code, value)) = found.remove(&partitions[index]) else { continue };
        answers[index] = match ClientError::from_response(code, None) {
            None => Some(Ok(value)),
            Some(error) if error.is_retriable() => None,
            Some(error) => Some(Err(error)),
        };
    }
}
