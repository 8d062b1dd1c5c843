//! A classic group's member: its identity, timeouts, protocols with their metadata, assignment,
//! and the requests it has parked.

use std::collections::BTreeSet;

use bytes::Bytes;
use strand_protocol::messages::describe_groups_response::DescribedGroupMember;
use strand_protocol::messages::join_group_request::JoinGroupRequestProtocol;

use crate::group::PendingId;

/// One protocol a member supports (an assignor, for consumers) and its metadata for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protocol {
    pub name: String,
    pub metadata: Bytes,
}

impl Protocol {
    pub fn from_request(protocols: &[JoinGroupRequestProtocol]) -> Vec<Protocol> {
        protocols.iter().map(|p| Protocol { name: p.name.clone(), metadata: p.metadata.clone() }).collect()
    }
}

/// A member of a classic group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicMember {
    pub member_id: String,
    /// Set for a static member (KIP-345).
    pub group_instance_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    pub rebalance_timeout_ms: i32,
    pub session_timeout_ms: i32,
    pub protocol_type: String,
    /// In the member's order of preference.
    pub protocols: Vec<Protocol>,
    /// What the leader assigned it for the current generation (empty before the first sync).
    pub assignment: Bytes,
    /// Its parked JoinGroup, if any.
    pub(super) awaiting_join: Option<PendingId>,
    /// Its parked SyncGroup, if any.
    pub(super) awaiting_sync: Option<PendingId>,
    /// Joined during the current rebalance: its session does not yet count as satisfied.
    pub(super) is_new: bool,
}

impl ClassicMember {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        member_id: String,
        group_instance_id: Option<String>,
        client_id: String,
        client_host: String,
        rebalance_timeout_ms: i32,
        session_timeout_ms: i32,
        protocol_type: String,
        protocols: Vec<Protocol>,
    ) -> Self {
        ClassicMember {
            member_id,
            group_instance_id,
            client_id,
            client_host,
            rebalance_timeout_ms,
            session_timeout_ms,
            protocol_type,
            protocols,
            assignment: Bytes::new(),
            awaiting_join: None,
            awaiting_sync: None,
            is_new: false,
        }
    }

    pub fn is_awaiting_join(&self) -> bool {
        self.awaiting_join.is_some()
    }

    pub fn is_awaiting_sync(&self) -> bool {
        self.awaiting_sync.is_some()
    }

    pub fn is_static(&self) -> bool {
        self.group_instance_id.is_some()
    }

    /// The metadata the member sent for `protocol`, if it supports it.
    pub fn metadata(&self, protocol: &str) -> Option<&Bytes> {
        self.protocols.iter().find(|p| p.name == protocol).map(|p| &p.metadata)
    }

    pub fn supports(&self, protocol: &str) -> bool {
        self.protocols.iter().any(|p| p.name == protocol)
    }

    /// Whether the member's session needs no heartbeat now: a member parked in a rebalance is
    /// alive by definition, unless it is new (it may have gone away while parked).
    pub fn has_satisfied_heartbeat(&self) -> bool {
        !self.is_new && (self.is_awaiting_join() || self.is_awaiting_sync())
    }

    /// Whether the member sent exactly these protocols, with the same metadata, in the same order.
    pub fn matches(&self, protocols: &[JoinGroupRequestProtocol]) -> bool {
        self.protocols.len() == protocols.len()
            && self.protocols.iter().zip(protocols).all(|(a, b)| a.name == b.name && a.metadata == b.metadata)
    }

    /// The member's first protocol among `candidates` (its vote).
    pub(super) fn vote<'a>(&'a self, candidates: &BTreeSet<&str>) -> Option<&'a str> {
        self.protocols.iter().map(|p| p.name.as_str()).find(|name| candidates.contains(name))
    }

    pub fn describe(&self, protocol: Option<&str>) -> DescribedGroupMember {
        DescribedGroupMember {
            member_id: self.member_id.clone(),
            group_instance_id: self.group_instance_id.clone(),
            client_id: self.client_id.clone(),
            client_host: self.client_host.clone(),
            member_metadata: protocol.and_then(|p| self.metadata(p)).cloned().unwrap_or_default(),
            member_assignment: self.assignment.clone(),
            ..DescribedGroupMember::default()
        }
    }
}
