//! A Fetch answers record sets as regions of their segment files, which the connection sends with
//! `sendfile`: the handler never copies record bytes into the response (design §4).

mod common;

use common::Node;
use strand_base::TopicPartition;
use strand_broker::{Outcome, frame_to_bytes};
use strand_protocol::frame::{FrameChunk, decode_response, encode_request};
use strand_protocol::messages::FetchRequest;
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use strand_protocol::records::RecordBatches;

#[tokio::test]
async fn fetched_records_are_file_regions() {
    let mut node = Node::new();
    node.create_topic("zero-copy", 2).await;
    let tp = TopicPartition::new("zero-copy", 0);
    node.append(&tp, 0);
    node.append(&tp, 0);
    let partitions = (0..2)
        .map(|partition| FetchPartition {
            partition,
            fetch_offset: 0,
            partition_max_bytes: 1 << 20,
            ..Default::default()
        })
        .collect();
    let topic = FetchTopic { topic: "zero-copy".into(), partitions, ..Default::default() };
    let request = FetchRequest { max_wait_ms: 0, max_bytes: 1 << 20, topics: vec![topic], ..Default::default() };
    let version = 12;
    let frame = encode_request(1, Some("zero-copy"), &RequestBody::Fetch(request), version).expect("encode");
    let Outcome::Respond(response) = node.broker.handle(frame.slice(4..), &common::session()).await else {
        panic!("no response");
    };

    let regions: Vec<_> = response
        .chunks
        .iter()
        .filter_map(|chunk| match chunk {
            FrameChunk::File(region) => Some(region),
            FrameChunk::Bytes(_) => None,
        })
        .collect();
    assert_eq!(regions.len(), 1, "one partition has records: {:?}", response.chunks);
    assert_eq!(regions[0].position, 0, "the first batch starts the segment");

    let bytes = frame_to_bytes(&response).expect("regions readable");
    assert_eq!(bytes.len(), response.len());
    let (_, body) = decode_response(ApiKey::Fetch, version, bytes.slice(4..)).expect("decodes");
    let ResponseBody::Fetch(fetch) = body else { panic!("not a Fetch response") };
    let partitions = &fetch.responses[0].partitions;
    let records = partitions[0].records.as_ref().and_then(|r| r.as_bytes()).expect("records").clone();
    assert_eq!(records.len(), regions[0].len as usize);
    let offsets: Vec<_> = RecordBatches::new(records).map(|b| b.expect("batch").base_offset()).collect();
    assert_eq!(offsets, [0, 1]);
    assert!(partitions[1].records.as_ref().is_some_and(|r| r.is_empty()), "partition 1 is empty");
}
