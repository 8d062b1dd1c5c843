//! `ClientQuotaRecord`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ClientQuotaRecord`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientQuotaRecord {
    /// Versions 0.
    pub entity: Vec<EntityData>,
    /// Versions 0.
    pub key: String,
    /// Versions 0.
    pub value: f64,
    /// Versions 0.
    pub remove: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ClientQuotaRecord {
    fn default() -> Self {
        ClientQuotaRecord {
            entity: Vec::new(),
            key: String::new(),
            value: 0.0,
            remove: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ClientQuotaRecord {
    const ENCODED_SIZE_MIN: usize = 12;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ClientQuotaRecord::default();
        this.entity = d.array(flexible, EntityData::ENCODED_SIZE_MIN, "entity", |d| EntityData::decode(d, version))?;
        this.key = d.string(flexible, "key")?;
        this.value = d.f64()?;
        this.remove = d.bool()?;
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
        out.put_length(flexible, false, Some(self.entity.len()), "entity")?;
        for item in &self.entity {
            item.encode(out, version)?;
        }
        out.put_string(flexible, &self.key, "key")?;
        out.put_f64(self.value);
        out.put_bool(self.remove);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for ClientQuotaRecord {
    const NAME: &'static str = "ClientQuotaRecord";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ClientQuotaRecord {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.entity = g.vec(|g| <EntityData as crate::sample::Sample>::sample(g, version));
        this.key = g.string();
        this.value = g.f64();
        this.remove = g.bool();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `EntityData`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityData {
    /// Versions 0.
    pub entity_type: String,
    /// Versions 0; nullable 0.
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
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
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
        let flexible = true;
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
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.entity_type = g.string();
        this.entity_name = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
