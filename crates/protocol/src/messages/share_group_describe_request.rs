//! `ShareGroupDescribeRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ShareGroupDescribeRequest`, versions 1.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareGroupDescribeRequest {
    /// Versions 1.
    pub group_ids: Vec<String>,
    /// Versions 1.
    pub include_authorized_operations: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ShareGroupDescribeRequest {
    fn default() -> Self {
        ShareGroupDescribeRequest {
            group_ids: Vec::new(),
            include_authorized_operations: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ShareGroupDescribeRequest {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ShareGroupDescribeRequest::default();
        this.group_ids = d.array(flexible, 1, "group_ids", |d| d.string(flexible, "group_ids"))?;
        this.include_authorized_operations = d.bool()?;
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
        out.put_length(flexible, false, Some(self.group_ids.len()), "group_ids")?;
        for item in &self.group_ids {
            out.put_string(flexible, item, "group_ids")?;
        }
        out.put_bool(self.include_authorized_operations);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for ShareGroupDescribeRequest {
    const NAME: &'static str = "ShareGroupDescribeRequest";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ShareGroupDescribeRequest {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.group_ids = g.vec(|g| g.string());
        this.include_authorized_operations = g.bool();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
