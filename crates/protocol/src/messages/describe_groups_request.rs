//! `DescribeGroupsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeGroupsRequest`, versions 0-6.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeGroupsRequest {
    /// Versions 0-6.
    pub groups: Vec<String>,
    /// Versions 3-6.
    pub include_authorized_operations: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeGroupsRequest {
    fn default() -> Self {
        DescribeGroupsRequest {
            groups: Vec::new(),
            include_authorized_operations: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeGroupsRequest {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 5;
        let mut this = DescribeGroupsRequest::default();
        this.groups = d.array(flexible, 1, "groups", |d| d.string(flexible, "groups"))?;
        if version >= 3 {
            this.include_authorized_operations = d.bool()?;
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
        let flexible = version >= 5;
        out.put_length(flexible, false, Some(self.groups.len()), "groups")?;
        for item in &self.groups {
            out.put_string(flexible, item, "groups")?;
        }
        if version >= 3 {
            out.put_bool(self.include_authorized_operations);
        } else {
            if self.include_authorized_operations {
                return Err(EncodeError::FieldNotInVersion { field: "include_authorized_operations", version });
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

impl Message for DescribeGroupsRequest {
    const NAME: &'static str = "DescribeGroupsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 6 };
    const FLEXIBLE_MIN: Option<i16> = Some(5);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeGroupsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 5;
        let mut this = Self::default();
        this.groups = g.vec(|g| g.string());
        if version >= 3 {
            this.include_authorized_operations = g.bool();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
