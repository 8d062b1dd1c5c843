//! `DescribeClientQuotasRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeClientQuotasRequest`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeClientQuotasRequest {
    /// Versions 0-1.
    pub components: Vec<ComponentData>,
    /// Versions 0-1.
    pub strict: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeClientQuotasRequest {
    fn default() -> Self {
        DescribeClientQuotasRequest { components: Vec::new(), strict: false, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for DescribeClientQuotasRequest {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = DescribeClientQuotasRequest::default();
        this.components =
            d.array(flexible, ComponentData::ENCODED_SIZE_MIN, "components", |d| ComponentData::decode(d, version))?;
        this.strict = d.bool()?;
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
        out.put_length(flexible, false, Some(self.components.len()), "components")?;
        for item in &self.components {
            item.encode(out, version)?;
        }
        out.put_bool(self.strict);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for DescribeClientQuotasRequest {
    const NAME: &'static str = "DescribeClientQuotasRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(1);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeClientQuotasRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.components = g.vec(|g| <ComponentData as crate::sample::Sample>::sample(g, version));
        this.strict = g.bool();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ComponentData`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentData {
    /// Versions 0-1.
    pub entity_type: String,
    /// Versions 0-1.
    pub match_type: i8,
    /// Versions 0-1; nullable 0-1.
    pub r#match: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ComponentData {
    fn default() -> Self {
        ComponentData {
            entity_type: String::new(),
            match_type: 0,
            r#match: Some(String::new()),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ComponentData {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = ComponentData::default();
        this.entity_type = d.string(flexible, "entity_type")?;
        this.match_type = d.i8()?;
        this.r#match = d.nullable_string(flexible)?;
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
        out.put_i8(self.match_type);
        match &self.r#match {
            Some(value) => {
                out.put_string(flexible, value, "match")?;
            }
            None => {
                out.put_length(flexible, true, None, "match")?;
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
impl crate::sample::Sample for ComponentData {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.entity_type = g.string();
        this.match_type = g.i8();
        this.r#match = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
