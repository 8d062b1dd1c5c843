//! `GroupMetadataKey`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `GroupMetadataKey`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupMetadataKey {
    /// Versions 0.
    pub group: String,
}

impl Default for GroupMetadataKey {
    fn default() -> Self {
        GroupMetadataKey { group: String::new() }
    }
}

impl Struct for GroupMetadataKey {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = false;
        let mut this = GroupMetadataKey::default();
        this.group = d.string(flexible, "group")?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, _version: i16) -> Result<(), EncodeError> {
        let flexible = false;
        out.put_string(flexible, &self.group, "group")?;
        Ok(())
    }
}

impl Message for GroupMetadataKey {
    const NAME: &'static str = "GroupMetadataKey";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = None;
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for GroupMetadataKey {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let mut this = Self::default();
        this.group = g.string();
        this
    }
}
