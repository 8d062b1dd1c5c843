//! `AbortedTxn`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `AbortedTxn`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct AbortedTxn {
    /// Versions 0.
    pub producer_id: i64,
    /// Versions 0.
    pub first_offset: i64,
    /// Versions 0.
    pub last_offset: i64,
    /// Versions 0.
    pub last_stable_offset: i64,
}

impl Default for AbortedTxn {
    fn default() -> Self {
        AbortedTxn { producer_id: 0, first_offset: 0, last_offset: 0, last_stable_offset: 0 }
    }
}

impl Struct for AbortedTxn {
    const ENCODED_SIZE_MIN: usize = 32;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let mut this = AbortedTxn::default();
        this.producer_id = d.i64()?;
        this.first_offset = d.i64()?;
        this.last_offset = d.i64()?;
        this.last_stable_offset = d.i64()?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, _version: i16) -> Result<(), EncodeError> {
        out.put_i64(self.producer_id);
        out.put_i64(self.first_offset);
        out.put_i64(self.last_offset);
        out.put_i64(self.last_stable_offset);
        Ok(())
    }
}

impl Message for AbortedTxn {
    const NAME: &'static str = "AbortedTxn";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = None;
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for AbortedTxn {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let mut this = Self::default();
        this.producer_id = g.i64();
        this.first_offset = g.i64();
        this.last_offset = g.i64();
        this.last_stable_offset = g.i64();
        this
    }
}
