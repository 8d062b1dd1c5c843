//! `ConsumerGroupRegularExpressionKey`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ConsumerGroupRegularExpressionKey`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsumerGroupRegularExpressionKey {
    /// Versions 0.
    pub group_id: String,
    /// Versions 0.
    pub regular_expression: String,
}

impl Default for ConsumerGroupRegularExpressionKey {
    fn default() -> Self {
        ConsumerGroupRegularExpressionKey { group_id: String::new(), regular_expression: String::new() }
    }
}

impl Struct for ConsumerGroupRegularExpressionKey {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = false;
        let mut this = ConsumerGroupRegularExpressionKey::default();
        this.group_id = d.string(flexible, "group_id")?;
        this.regular_expression = d.string(flexible, "regular_expression")?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, _version: i16) -> Result<(), EncodeError> {
        let flexible = false;
        out.put_string(flexible, &self.group_id, "group_id")?;
        out.put_string(flexible, &self.regular_expression, "regular_expression")?;
        Ok(())
    }
}

impl Message for ConsumerGroupRegularExpressionKey {
    const NAME: &'static str = "ConsumerGroupRegularExpressionKey";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = None;
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ConsumerGroupRegularExpressionKey {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let mut this = Self::default();
        this.group_id = g.string();
        this.regular_expression = g.string();
        this
    }
}
