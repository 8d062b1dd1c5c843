//! `ControlRecordTypeSchema`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ControlRecordTypeSchema`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ControlRecordTypeSchema {
    /// Versions 0.
    pub r#type: i16,
}

impl Default for ControlRecordTypeSchema {
    fn default() -> Self {
        ControlRecordTypeSchema { r#type: 0 }
    }
}

impl Struct for ControlRecordTypeSchema {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let mut this = ControlRecordTypeSchema::default();
        this.r#type = d.i16()?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, _version: i16) -> Result<(), EncodeError> {
        out.put_i16(self.r#type);
        Ok(())
    }
}

impl Message for ControlRecordTypeSchema {
    const NAME: &'static str = "ControlRecordTypeSchema";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = None;
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ControlRecordTypeSchema {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let mut this = Self::default();
        this.r#type = g.i16();
        this
    }
}
