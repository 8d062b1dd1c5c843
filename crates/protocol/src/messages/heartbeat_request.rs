//! `HeartbeatRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `HeartbeatRequest`, versions 0-4.
#[derive(Debug, Clone, PartialEq)]
pub struct HeartbeatRequest {
    /// Versions 0-4.
    pub group_id: String,
    /// Versions 0-4.
    pub generation_id: i32,
    /// Versions 0-4.
    pub member_id: String,
    /// Versions 3-4; nullable 3-4.
    pub group_instance_id: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for HeartbeatRequest {
    fn default() -> Self {
        HeartbeatRequest {
            group_id: String::new(),
            generation_id: 0,
            member_id: String::new(),
            group_instance_id: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for HeartbeatRequest {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = HeartbeatRequest::default();
        this.group_id = d.string(flexible, "group_id")?;
        this.generation_id = d.i32()?;
        this.member_id = d.string(flexible, "member_id")?;
        if version >= 3 {
            this.group_instance_id = d.nullable_string(flexible)?;
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
        let flexible = version >= 4;
        out.put_string(flexible, &self.group_id, "group_id")?;
        out.put_i32(self.generation_id);
        out.put_string(flexible, &self.member_id, "member_id")?;
        if version >= 3 {
            match &self.group_instance_id {
                Some(value) => {
                    out.put_string(flexible, value, "group_instance_id")?;
                }
                None => {
                    out.put_length(flexible, true, None, "group_instance_id")?;
                }
            }
        } else {
            if self.group_instance_id.is_some() {
                return Err(EncodeError::FieldNotInVersion { field: "group_instance_id", version });
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

impl Message for HeartbeatRequest {
    const NAME: &'static str = "HeartbeatRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 4 };
    const FLEXIBLE_MIN: Option<i16> = Some(4);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for HeartbeatRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.group_id = g.string();
        this.generation_id = g.i32();
        this.member_id = g.string();
        if version >= 3 {
            this.group_instance_id = g.nullable(|g| g.string());
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
