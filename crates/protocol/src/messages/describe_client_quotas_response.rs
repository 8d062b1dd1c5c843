//! `DescribeClientQuotasResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeClientQuotasResponse`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeClientQuotasResponse {
    /// Versions 0-1.
    pub throttle_time_ms: i32,
    /// Versions 0-1.
    pub error_code: i16,
    /// Versions 0-1; nullable 0-1.
    pub error_message: Option<String>,
    /// Versions 0-1; nullable 0-1.
    pub entries: Option<Vec<EntryData>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeClientQuotasResponse {
    fn default() -> Self {
        DescribeClientQuotasResponse {
            throttle_time_ms: 0,
            error_code: 0,
            error_message: Some(String::new()),
            entries: Some(Vec::new()),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeClientQuotasResponse {
    const ENCODED_SIZE_MIN: usize = 8;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = DescribeClientQuotasResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.entries = d.nullable_array(flexible, EntryData::ENCODED_SIZE_MIN, |d| EntryData::decode(d, version))?;
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
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
            }
        }
        match &self.entries {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "entries")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "entries")?;
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

impl Message for DescribeClientQuotasResponse {
    const NAME: &'static str = "DescribeClientQuotasResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(1);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeClientQuotasResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        this.entries = g.nullable(|g| g.vec(|g| <EntryData as crate::sample::Sample>::sample(g, version)));
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

/// `ValueData`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueData {
    /// Versions 0-1.
    pub key: String,
    /// Versions 0-1.
    pub value: f64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ValueData {
    fn default() -> Self {
        ValueData { key: String::new(), value: 0.0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ValueData {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = ValueData::default();
        this.key = d.string(flexible, "key")?;
        this.value = d.f64()?;
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
        out.put_string(flexible, &self.key, "key")?;
        out.put_f64(self.value);
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
impl crate::sample::Sample for ValueData {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.key = g.string();
        this.value = g.f64();
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
    pub entity: Vec<EntityData>,
    /// Versions 0-1.
    pub values: Vec<ValueData>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for EntryData {
    fn default() -> Self {
        EntryData { entity: Vec::new(), values: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for EntryData {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = EntryData::default();
        this.entity = d.array(flexible, EntityData::ENCODED_SIZE_MIN, "entity", |d| EntityData::decode(d, version))?;
        this.values = d.array(flexible, ValueData::ENCODED_SIZE_MIN, "values", |d| ValueData::decode(d, version))?;
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
        out.put_length(flexible, false, Some(self.entity.len()), "entity")?;
        for item in &self.entity {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.values.len()), "values")?;
        for item in &self.values {
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
        this.entity = g.vec(|g| <EntityData as crate::sample::Sample>::sample(g, version));
        this.values = g.vec(|g| <ValueData as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
