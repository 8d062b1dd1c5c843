//! `ListConfigResourcesRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ListConfigResourcesRequest`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct ListConfigResourcesRequest {
    /// Versions 1.
    pub resource_types: Vec<i8>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ListConfigResourcesRequest {
    fn default() -> Self {
        ListConfigResourcesRequest { resource_types: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ListConfigResourcesRequest {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ListConfigResourcesRequest::default();
        if version >= 1 {
            this.resource_types = d.array(flexible, 1, "resource_types", |d| d.i8())?;
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
        if version >= 1 {
            out.put_length(flexible, false, Some(self.resource_types.len()), "resource_types")?;
            for item in &self.resource_types {
                out.put_i8(*item);
            }
        } else {
            if !self.resource_types.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "resource_types", version });
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

impl Message for ListConfigResourcesRequest {
    const NAME: &'static str = "ListConfigResourcesRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ListConfigResourcesRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        if version >= 1 {
            this.resource_types = g.vec(|g| g.i8());
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
