//! `DescribeTransactionsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeTransactionsRequest`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeTransactionsRequest {
    /// Versions 0.
    pub transactional_ids: Vec<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeTransactionsRequest {
    fn default() -> Self {
        DescribeTransactionsRequest { transactional_ids: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for DescribeTransactionsRequest {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DescribeTransactionsRequest::default();
        this.transactional_ids =
            d.array(flexible, 1, "transactional_ids", |d| d.string(flexible, "transactional_ids"))?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = true;
        out.put_length(flexible, false, Some(self.transactional_ids.len()), "transactional_ids")?;
        for item in &self.transactional_ids {
            out.put_string(flexible, item, "transactional_ids")?;
        }
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for DescribeTransactionsRequest {
    const NAME: &'static str = "DescribeTransactionsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeTransactionsRequest {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.transactional_ids = g.vec(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
