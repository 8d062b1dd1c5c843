//! `LegacyOffsetCommitKey`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `LegacyOffsetCommitKey`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct LegacyOffsetCommitKey {
    /// Versions 0.
    pub group: String,
    /// Versions 0.
    pub topic: String,
    /// Versions 0.
    pub partition: i32,
}

impl Default for LegacyOffsetCommitKey {
    fn default() -> Self {
        LegacyOffsetCommitKey { group: String::new(), topic: String::new(), partition: 0 }
    }
}

impl Struct for LegacyOffsetCommitKey {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = false;
        let mut this = LegacyOffsetCommitKey::default();
        this.group = d.string(flexible, "group")?;
        this.topic = d.string(flexible, "topic")?;
        this.partition = d.i32()?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, _version: i16) -> Result<(), EncodeError> {
        let flexible = false;
        out.put_string(flexible, &self.group, "group")?;
        out.put_string(flexible, &self.topic, "topic")?;
        out.put_i32(self.partition);
        Ok(())
    }
}

impl Message for LegacyOffsetCommitKey {
    const NAME: &'static str = "LegacyOffsetCommitKey";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = None;
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for LegacyOffsetCommitKey {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let mut this = Self::default();
        this.group = g.string();
        this.topic = g.string();
        this.partition = g.i32();
        this
    }
}
