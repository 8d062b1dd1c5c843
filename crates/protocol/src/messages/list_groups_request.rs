//! `ListGroupsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ListGroupsRequest`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct ListGroupsRequest {
    /// Versions 4-5.
    pub states_filter: Vec<String>,
    /// Versions 5.
    pub types_filter: Vec<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ListGroupsRequest {
    fn default() -> Self {
        ListGroupsRequest { states_filter: Vec::new(), types_filter: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ListGroupsRequest {
    const ENCODED_SIZE_MIN: usize = 0;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = ListGroupsRequest::default();
        if version >= 4 {
            this.states_filter = d.array(flexible, 1, "states_filter", |d| d.string(flexible, "states_filter"))?;
        }
        if version >= 5 {
            this.types_filter = d.array(flexible, 1, "types_filter", |d| d.string(flexible, "types_filter"))?;
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
        let flexible = version >= 3;
        if version >= 4 {
            out.put_length(flexible, false, Some(self.states_filter.len()), "states_filter")?;
            for item in &self.states_filter {
                out.put_string(flexible, item, "states_filter")?;
            }
        } else {
            if !self.states_filter.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "states_filter", version });
            }
        }
        if version >= 5 {
            out.put_length(flexible, false, Some(self.types_filter.len()), "types_filter")?;
            for item in &self.types_filter {
                out.put_string(flexible, item, "types_filter")?;
            }
        } else {
            if !self.types_filter.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "types_filter", version });
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

impl Message for ListGroupsRequest {
    const NAME: &'static str = "ListGroupsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 5 };
    const FLEXIBLE_MIN: Option<i16> = Some(3);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ListGroupsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        if version >= 4 {
            this.states_filter = g.vec(|g| g.string());
        }
        if version >= 5 {
            this.types_filter = g.vec(|g| g.string());
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
