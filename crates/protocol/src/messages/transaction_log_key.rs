//! `TransactionLogKey`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `TransactionLogKey`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TransactionLogKey {
    /// Versions 0.
    pub transactional_id: String,
}

impl Default for TransactionLogKey {
    fn default() -> Self {
        TransactionLogKey { transactional_id: String::new() }
    }
}

impl Struct for TransactionLogKey {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = false;
        let mut this = TransactionLogKey::default();
        this.transactional_id = d.string(flexible, "transactional_id")?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, _version: i16) -> Result<(), EncodeError> {
        let flexible = false;
        out.put_string(flexible, &self.transactional_id, "transactional_id")?;
        Ok(())
    }
}

impl Message for TransactionLogKey {
    const NAME: &'static str = "TransactionLogKey";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = None;
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for TransactionLogKey {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let mut this = Self::default();
        this.transactional_id = g.string();
        this
    }
}
