//! `EndTxnMarker`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `EndTxnMarker`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct EndTxnMarker {
    /// Versions 0.
    pub coordinator_epoch: i32,
}

impl Default for EndTxnMarker {
    fn default() -> Self {
        EndTxnMarker { coordinator_epoch: 0 }
    }
}

impl Struct for EndTxnMarker {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let mut this = EndTxnMarker::default();
        this.coordinator_epoch = d.i32()?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, _version: i16) -> Result<(), EncodeError> {
        out.put_i32(self.coordinator_epoch);
        Ok(())
    }
}

impl Message for EndTxnMarker {
    const NAME: &'static str = "EndTxnMarker";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = None;
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for EndTxnMarker {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let mut this = Self::default();
        this.coordinator_epoch = g.i32();
        this
    }
}
