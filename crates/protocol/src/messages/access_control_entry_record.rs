//! `AccessControlEntryRecord`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `AccessControlEntryRecord`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct AccessControlEntryRecord {
    /// Versions 0.
    pub id: Uuid,
    /// Versions 0.
    pub resource_type: i8,
    /// Versions 0.
    pub resource_name: String,
    /// Versions 0.
    pub pattern_type: i8,
    /// Versions 0.
    pub principal: String,
    /// Versions 0.
    pub host: String,
    /// Versions 0.
    pub operation: i8,
    /// Versions 0.
    pub permission_type: i8,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AccessControlEntryRecord {
    fn default() -> Self {
        AccessControlEntryRecord {
            id: Uuid::ZERO,
            resource_type: 0,
            resource_name: String::new(),
            pattern_type: 0,
            principal: String::new(),
            host: String::new(),
            operation: 0,
            permission_type: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AccessControlEntryRecord {
    const ENCODED_SIZE_MIN: usize = 24;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = AccessControlEntryRecord::default();
        this.id = d.uuid()?;
        this.resource_type = d.i8()?;
        this.resource_name = d.string(flexible, "resource_name")?;
        this.pattern_type = d.i8()?;
        this.principal = d.string(flexible, "principal")?;
        this.host = d.string(flexible, "host")?;
        this.operation = d.i8()?;
        this.permission_type = d.i8()?;
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
        out.put_uuid(&self.id);
        out.put_i8(self.resource_type);
        out.put_string(flexible, &self.resource_name, "resource_name")?;
        out.put_i8(self.pattern_type);
        out.put_string(flexible, &self.principal, "principal")?;
        out.put_string(flexible, &self.host, "host")?;
        out.put_i8(self.operation);
        out.put_i8(self.permission_type);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for AccessControlEntryRecord {
    const NAME: &'static str = "AccessControlEntryRecord";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for AccessControlEntryRecord {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.id = g.uuid();
        this.resource_type = g.i8();
        this.resource_name = g.string();
        this.pattern_type = g.i8();
        this.principal = g.string();
        this.host = g.string();
        this.operation = g.i8();
        this.permission_type = g.i8();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
