//! The group APIs hand their requests to the group coordinator (`strand-coordinator`), which
//! validates, decides and answers: JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit,
//! OffsetFetch, OffsetDelete, ListGroups, DescribeGroups and DeleteGroups go straight from
//! [`Broker::dispatch`](crate::Broker) to it. This module adds what only the broker knows: who the
//! client is (JoinGroup records it per member), and topic ids from the metadata image (OffsetCommit
//! and OffsetFetch v10 name topics by id). FindCoordinator has its own module, and so has
//! TxnOffsetCommit (`txn_offset_commit.rs`), which answers unknown partitions first.

use std::net::SocketAddr;
use std::sync::Arc;

use strand_base::Uuid;
use strand_coordinator::{ClientInfo, TopicIds};
use strand_metadata::image::MetadataImage;

/// Topic names and ids from a metadata image.
pub(crate) struct ImageTopics(pub Arc<MetadataImage>);

impl TopicIds for ImageTopics {
    fn name(&self, id: Uuid) -> Option<String> {
        self.0.topics().by_id(id).map(|t| t.name.clone())
    }

    fn id(&self, name: &str) -> Option<Uuid> {
        self.0.topics().by_name(name).map(|t| t.id)
    }
}

/// The client as Kafka records a member: its client id, and its address as Java prints one.
pub(crate) fn client(client_id: Option<&str>, peer: SocketAddr) -> ClientInfo {
    ClientInfo { client_id: client_id.unwrap_or_default().to_owned(), client_host: format!("/{}", peer.ip()) }
}
