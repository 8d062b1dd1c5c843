//! `LegacyOffsetCommitValue`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `LegacyOffsetCommitValue`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct LegacyOffsetCommitValue {
    /// Versions 0.
    pub offset: i64,
    /// Versions 0.
    pub metadata: String,
    /// Versions 0.
    pub commit_timestamp: i64,
}

impl Default for LegacyOffsetCommitValue {
    fn default() -> Self {
        LegacyOffsetCommitValue { offset: 0, metadata: String::new(), commit_timestamp: 0 }
    }
}

impl Struct for LegacyOffsetCommitValue {
    const ENCODED_SIZE_MIN: usize = 17;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = false;
        let mut this = LegacyOffsetCommitValue::default();
        this.offset = d.i64()?;
        this.metadata = d.string(flexible, "metadata")?;
        this.commit_timestamp = d.i64()?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, _version: i16) -> Result<(), EncodeError> {
        let flexible = false;
        out.put_i64(self.offset);
        out.put_string(flexible, &self.metadata, "metadata")?;
        out.put_i64(self.commit_timestamp);
        Ok(())
    }
}

impl Message for LegacyOffsetCommitValue {
    const NAME: &'static str = "LegacyOffsetCommitValue";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = None;
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for LegacyOffsetCommitValue {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let mut this = Self::default();
        this.offset = g.i64();
        this.metadata = g.string();
        this.commit_timestamp = g.i64();
        this
    }
}
