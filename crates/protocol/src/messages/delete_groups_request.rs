//! `DeleteGroupsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DeleteGroupsRequest`, versions 0-3.
#[derive(Debug, Clone, PartialEq)]
pub struct DeleteGroupsRequest {
    /// Versions 0-3.
    pub groups_names: Vec<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DeleteGroupsRequest {
    fn default() -> Self {
        DeleteGroupsRequest { groups_names: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for DeleteGroupsRequest {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = DeleteGroupsRequest::default();
        this.groups_names = d.array(flexible, 1, "groups_names", |d| d.string(flexible, "groups_names"))?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 2;
        out.put_length(flexible, false, Some(self.groups_names.len()), "groups_names")?;
        for item in &self.groups_names {
            out.put_string(flexible, item, "groups_names")?;
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

impl Message for DeleteGroupsRequest {
    const NAME: &'static str = "DeleteGroupsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 3 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DeleteGroupsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.groups_names = g.vec(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
