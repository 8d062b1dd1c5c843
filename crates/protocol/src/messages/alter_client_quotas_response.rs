//! `AlterClientQuotasResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `AlterClientQuotasResponse`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterClientQuotasResponse {
    /// Versions 0-1.
    pub throttle_time_ms: i32,
    /// Versions 0-1.
    pub entries: Vec<EntryData>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AlterClientQuotasResponse {
    fn default() -> Self {
        AlterClientQuotasResponse { throttle_time_ms: 0, entries: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for AlterClientQuotasResponse {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = AlterClientQuotasResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.entries = d.array(flexible, EntryData::ENCODED_SIZE_MIN, "entries", |d| EntryData::decode(d, version))?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 1;
        out.put_i32(self.throttle_time_ms);
        out.put_length(flexible, false, Some(self.entries.len()), "entries")?;
        for item in &self.entries {
            item.encode(out, version)?;
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

impl Message for AlterClientQuotasResponse {
    const NAME: &'static str = "AlterClientQuotasResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(1);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for AlterClientQuotasResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.entries = g.vec(|g| <EntryData as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `EntityData`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityData {
    /// Versions 0-1.
    pub entity_type: String,
    /// Versions 0-1; nullable 0-1.
    pub entity_name: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for EntityData {
    fn default() -> Self {
        EntityData { entity_type: String::new(), entity_name: Some(String::new()), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for EntityData {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = EntityData::default();
        this.entity_type = d.string(flexible, "entity_type")?;
        this.entity_name = d.nullable_string(flexible)?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 1;
        out.put_string(flexible, &self.entity_type, "entity_type")?;
        match &self.entity_name {
            Some(value) => {
                out.put_string(flexible, value, "entity_name")?;
            }
            None => {
                out.put_length(flexible, true, None, "entity_name")?;
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

#[cfg(feature = "sample")]
impl crate::sample::Sample for EntityData {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.entity_type = g.string();
        this.entity_name = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `EntryData`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryData {
    /// Versions 0-1.
    pub error_code: i16,
    /// Versions 0-1; nullable 0-1.
    pub error_message: Option<String>,
    /// Versions 0-1.
    pub entity: Vec<EntityData>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for EntryData {
    fn default() -> Self {
        EntryData {
            error_code: 0,
            error_message: Some(String::new()),
            entity: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for EntryData {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = EntryData::default();
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.entity = d.array(flexible, EntityData::ENCODED_SIZE_MIN, "entity", |d| EntityData::decode(d, version))?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 1;
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
            }
        }
        out.put_length(flexible, false, Some(self.entity.len()), "entity")?;
        for item in &self.entity {
            item.encode(out, version)?;
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

#[cfg(feature = "sample")]
impl crate::sample::Sample for EntryData {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        this.entity = g.vec(|g| <EntityData as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
