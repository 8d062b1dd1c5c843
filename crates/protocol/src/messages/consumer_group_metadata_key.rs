//! `ConsumerGroupMetadataKey`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ConsumerGroupMetadataKey`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsumerGroupMetadataKey {
    /// Versions 0.
    pub group_id: String,
}

impl Default for ConsumerGroupMetadataKey {
    fn default() -> Self {
        ConsumerGroupMetadataKey { group_id: String::new() }
    }
}

impl Struct for ConsumerGroupMetadataKey {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = false;
        let mut this = ConsumerGroupMetadataKey::default();
        this.group_id = d.string(flexible, "group_id")?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, _version: i16) -> Result<(), EncodeError> {
        let flexible = false;
        out.put_string(flexible, &self.group_id, "group_id")?;
        Ok(())
    }
}

impl Message for ConsumerGroupMetadataKey {
    const NAME: &'static str = "ConsumerGroupMetadataKey";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = None;
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ConsumerGroupMetadataKey {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let mut this = Self::default();
        this.group_id = g.string();
        this
    }
}
