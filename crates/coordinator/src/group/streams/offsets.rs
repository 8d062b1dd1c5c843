//! Offsets of a streams group, as Kafka's `StreamsGroup.validateOffsetCommit` and
//! `validateOffsetFetch` check them: a member commits and fetches with its current member epoch.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::offset_fetch_request::OffsetFetchRequestGroup;
use strand_protocol::messages::{OffsetCommitRequest, TxnOffsetCommitRequest};

use super::StreamsGroup;

/// The first OffsetCommit version that carries a member epoch.
const MEMBER_EPOCH_VERSION: i16 = 9;

/// OffsetCommit: from outside the group (epoch below 0) only while it is empty; else from a
/// member at its epoch (STALE_MEMBER_EPOCH otherwise), at v9 or later.
pub fn validate_commit(group: &StreamsGroup, request: &OffsetCommitRequest, version: i16) -> Result<(), ErrorCode> {
    let epoch = request.generation_id_or_member_epoch;
    if epoch < 0 && group.is_empty() {
        return Ok(());
    }
    let member = group.member(&request.member_id).ok_or(ErrorCode::UnknownMemberId)?;
    if version < MEMBER_EPOCH_VERSION {
        return Err(ErrorCode::UnsupportedVersion);
    }
    if epoch != member.member_epoch {
        return Err(ErrorCode::StaleMemberEpoch);
    }
    Ok(())
}

/// TxnOffsetCommit: as OffsetCommit, a stale epoch answered ILLEGAL_GENERATION (which
/// TxnOffsetCommit clients know); a request without member fields is not checked.
pub fn validate_txn_commit(group: &StreamsGroup, request: &TxnOffsetCommitRequest) -> Result<(), ErrorCode> {
    let epoch = request.generation_id_or_member_epoch;
    if epoch < 0 && group.is_empty() {
        return Ok(());
    }
    if epoch == -1 && request.member_id.is_empty() && request.group_instance_id.is_none() {
        return Ok(());
    }
    let member = group.member(&request.member_id).ok_or(ErrorCode::UnknownMemberId)?;
    if epoch != member.member_epoch {
        return Err(ErrorCode::IllegalGeneration);
    }
    Ok(())
}

/// OffsetFetch: a member names itself with its epoch (STALE_MEMBER_EPOCH otherwise); a fetch
/// naming no member is not checked.
pub fn validate_fetch(group: &StreamsGroup, request: &OffsetFetchRequestGroup) -> Result<(), ErrorCode> {
    let Some(member_id) = request.member_id.as_deref() else {
        return if request.member_epoch < 0 { Ok(()) } else { Err(ErrorCode::UnknownMemberId) };
    };
    if member_id.is_empty() && request.member_epoch < 0 {
        return Ok(());
    }
    let member = group.member(member_id).ok_or(ErrorCode::UnknownMemberId)?;
    if member.member_epoch != request.member_epoch {
        return Err(ErrorCode::StaleMemberEpoch);
    }
    Ok(())
}
