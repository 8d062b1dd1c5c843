//! `SaslHandshakeRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `SaslHandshakeRequest`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct SaslHandshakeRequest {
    /// Versions 0-1.
    pub mechanism: String,
}

impl Default for SaslHandshakeRequest {
    fn default() -> Self {
        SaslHandshakeRequest { mechanism: String::new() }
    }
}

impl Struct for SaslHandshakeRequest {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = false;
        let mut this = SaslHandshakeRequest::default();
        this.mechanism = d.string(flexible, "mechanism")?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, _version: i16) -> Result<(), EncodeError> {
        let flexible = false;
        out.put_string(flexible, &self.mechanism, "mechanism")?;
        Ok(())
    }
}

impl Message for SaslHandshakeRequest {
    const NAME: &'static str = "SaslHandshakeRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = None;
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for SaslHandshakeRequest {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let mut this = Self::default();
        this.mechanism = g.string();
        this
    }
}
