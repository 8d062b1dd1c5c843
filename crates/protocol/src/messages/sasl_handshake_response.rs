//! `SaslHandshakeResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `SaslHandshakeResponse`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct SaslHandshakeResponse {
    /// Versions 0-1.
    pub error_code: i16,
    /// Versions 0-1.
    pub mechanisms: Vec<String>,
}

impl Default for SaslHandshakeResponse {
    fn default() -> Self {
        SaslHandshakeResponse { error_code: 0, mechanisms: Vec::new() }
    }
}

impl Struct for SaslHandshakeResponse {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = false;
        let mut this = SaslHandshakeResponse::default();
        this.error_code = d.i16()?;
        this.mechanisms = d.array(flexible, 1, "mechanisms", |d| d.string(flexible, "mechanisms"))?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, _version: i16) -> Result<(), EncodeError> {
        let flexible = false;
        out.put_i16(self.error_code);
        out.put_length(flexible, false, Some(self.mechanisms.len()), "mechanisms")?;
        for item in &self.mechanisms {
            out.put_string(flexible, item, "mechanisms")?;
        }
        Ok(())
    }
}

impl Message for SaslHandshakeResponse {
    const NAME: &'static str = "SaslHandshakeResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = None;
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for SaslHandshakeResponse {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let mut this = Self::default();
        this.error_code = g.i16();
        this.mechanisms = g.vec(|g| g.string());
        this
    }
}
