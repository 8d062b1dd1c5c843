//! `ShareGroupMemberMetadataKey`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ShareGroupMemberMetadataKey`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareGroupMemberMetadataKey {
    /// Versions 0.
    pub group_id: String,
    /// Versions 0.
    pub member_id: String,
}

impl Default for ShareGroupMemberMetadataKey {
    fn default() -> Self {
        ShareGroupMemberMetadataKey { group_id: String::new(), member_id: String::new() }
    }
}

impl Struct for ShareGroupMemberMetadataKey {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = false;
        let mut this = ShareGroupMemberMetadataKey::default();
        this.group_id = d.string(flexible, "group_id")?;
        this.member_id = d.string(flexible, "member_id")?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, _version: i16) -> Result<(), EncodeError> {
        let flexible = false;
        out.put_string(flexible, &self.group_id, "group_id")?;
        out.put_string(flexible, &self.member_id, "member_id")?;
        Ok(())
    }
}

impl Message for ShareGroupMemberMetadataKey {
    const NAME: &'static str = "ShareGroupMemberMetadataKey";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = None;
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ShareGroupMemberMetadataKey {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let mut this = Self::default();
        this.group_id = g.string();
        this.member_id = g.string();
        this
    }
}
