//! `SyncGroupResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `SyncGroupResponse`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct SyncGroupResponse {
    /// Versions 1-5; ignorable.
    pub throttle_time_ms: i32,
    /// Versions 0-5.
    pub error_code: i16,
    /// Versions 5; nullable 5; ignorable.
    pub protocol_type: Option<String>,
    /// Versions 5; nullable 5; ignorable.
    pub protocol_name: Option<String>,
    /// Versions 0-5.
    pub assignment: Bytes,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for SyncGroupResponse {
    fn default() -> Self {
        SyncGroupResponse {
            throttle_time_ms: 0,
            error_code: 0,
            protocol_type: None,
            protocol_name: None,
            assignment: Bytes::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for SyncGroupResponse {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = SyncGroupResponse::default();
        if version >= 1 {
            this.throttle_time_ms = d.i32()?;
        }
        this.error_code = d.i16()?;
        if version >= 5 {
            this.protocol_type = d.nullable_string(flexible)?;
        }
        if version >= 5 {
            this.protocol_name = d.nullable_string(flexible)?;
        }
        this.assignment = d.bytes(flexible, "assignment")?;
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
        if version >= 1 {
            out.put_i32(self.throttle_time_ms);
        }
        out.put_i16(self.error_code);
        if version >= 5 {
            match &self.protocol_type {
                Some(value) => {
                    out.put_string(flexible, value, "protocol_type")?;
                }
                None => {
                    out.put_length(flexible, true, None, "protocol_type")?;
                }
            }
        }
        if version >= 5 {
            match &self.protocol_name {
                Some(value) => {
                    out.put_string(flexible, value, "protocol_name")?;
                }
                None => {
                    out.put_length(flexible, true, None, "protocol_name")?;
                }
            }
        }
        out.put_bytes_field(flexible, &self.assignment, "assignment")?;
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for SyncGroupResponse {
    const NAME: &'static str = "SyncGroupResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 5 };
    const FLEXIBLE_MIN: Option<i16> = Some(4);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for SyncGroupResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        if version >= 1 {
            this.throttle_time_ms = g.i32();
        }
        this.error_code = g.i16();
        if version >= 5 {
            this.protocol_type = g.nullable(|g| g.string());
        }
        if version >= 5 {
            this.protocol_name = g.nullable(|g| g.string());
        }
        this.assignment = g.bytes();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
