//! `ConfigRecord`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ConfigRecord`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigRecord {
    /// Versions 0.
    pub resource_type: i8,
    /// Versions 0.
    pub resource_name: String,
    /// Versions 0.
    pub name: String,
    /// Versions 0; nullable 0.
    pub value: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ConfigRecord {
    fn default() -> Self {
        ConfigRecord {
            resource_type: 0,
            resource_name: String::new(),
            name: String::new(),
            value: Some(String::new()),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ConfigRecord {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ConfigRecord::default();
        this.resource_type = d.i8()?;
        this.resource_name = d.string(flexible, "resource_name")?;
        this.name = d.string(flexible, "name")?;
        this.value = d.nullable_string(flexible)?;
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
        out.put_i8(self.resource_type);
        out.put_string(flexible, &self.resource_name, "resource_name")?;
        out.put_string(flexible, &self.name, "name")?;
        match &self.value {
            Some(value) => {
                out.put_string(flexible, value, "value")?;
            }
            None => {
                out.put_length(flexible, true, None, "value")?;
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

impl Message for ConfigRecord {
    const NAME: &'static str = "ConfigRecord";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ConfigRecord {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.resource_type = g.i8();
        this.resource_name = g.string();
        this.name = g.string();
        this.value = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
