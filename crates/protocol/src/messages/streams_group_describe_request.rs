//! `StreamsGroupDescribeRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `StreamsGroupDescribeRequest`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamsGroupDescribeRequest {
    /// Versions 0-1.
    pub group_ids: Vec<String>,
    /// Versions 0-1.
    pub include_authorized_operations: bool,
    /// Versions 1.
    pub include_topology_description: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for StreamsGroupDescribeRequest {
    fn default() -> Self {
        StreamsGroupDescribeRequest {
            group_ids: Vec::new(),
            include_authorized_operations: false,
            include_topology_description: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for StreamsGroupDescribeRequest {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = StreamsGroupDescribeRequest::default();
        this.group_ids = d.array(flexible, 1, "group_ids", |d| d.string(flexible, "group_ids"))?;
        this.include_authorized_operations = d.bool()?;
        if version >= 1 {
            this.include_topology_description = d.bool()?;
        }
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
        if version >= 1 {
            out.put_bool(self.include_topology_description);
        } else {
            if self.include_topology_description {
                return Err(EncodeError::FieldNotInVersion { field: "include_topology_description", version });
            }
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

impl Message for StreamsGroupDescribeRequest {
    const NAME: &'static str = "StreamsGroupDescribeRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for StreamsGroupDescribeRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.group_ids = g.vec(|g| g.string());
        this.include_authorized_operations = g.bool();
        if version >= 1 {
            this.include_topology_description = g.bool();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
