//! `OffsetCommitKey`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `OffsetCommitKey`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetCommitKey {
    /// Versions 0.
    pub group: String,
    /// Versions 0.
    pub topic: String,
    /// Versions 0.
    pub partition: i32,
}

impl Default for OffsetCommitKey {
    fn default() -> Self {
        OffsetCommitKey { group: String::new(), topic: String::new(), partition: 0 }
    }
}

impl Struct for OffsetCommitKey {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = false;
        let mut this = OffsetCommitKey::default();
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

impl Message for OffsetCommitKey {
    const NAME: &'static str = "OffsetCommitKey";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = None;
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for OffsetCommitKey {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let mut this = Self::default();
        this.group = g.string();
        this.topic = g.string();
        this.partition = g.i32();
        this
    }
}
