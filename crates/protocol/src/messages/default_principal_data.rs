//! `DefaultPrincipalData`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DefaultPrincipalData`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct DefaultPrincipalData {
    /// Versions 0.
    pub r#type: String,
    /// Versions 0.
    pub name: String,
    /// Versions 0.
    pub token_authenticated: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DefaultPrincipalData {
    fn default() -> Self {
        DefaultPrincipalData {
            r#type: String::new(),
            name: String::new(),
            token_authenticated: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DefaultPrincipalData {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DefaultPrincipalData::default();
        this.r#type = d.string(flexible, "type")?;
        this.name = d.string(flexible, "name")?;
        this.token_authenticated = d.bool()?;
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
        out.put_string(flexible, &self.r#type, "type")?;
        out.put_string(flexible, &self.name, "name")?;
        out.put_bool(self.token_authenticated);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for DefaultPrincipalData {
    const NAME: &'static str = "DefaultPrincipalData";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DefaultPrincipalData {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.r#type = g.string();
        this.name = g.string();
        this.token_authenticated = g.bool();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
