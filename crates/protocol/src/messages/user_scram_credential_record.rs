//! `UserScramCredentialRecord`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `UserScramCredentialRecord`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct UserScramCredentialRecord {
    /// Versions 0.
    pub name: String,
    /// Versions 0.
    pub mechanism: i8,
    /// Versions 0.
    pub salt: Bytes,
    /// Versions 0.
    pub stored_key: Bytes,
    /// Versions 0.
    pub server_key: Bytes,
    /// Versions 0.
    pub iterations: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for UserScramCredentialRecord {
    fn default() -> Self {
        UserScramCredentialRecord {
            name: String::new(),
            mechanism: 0,
            salt: Bytes::new(),
            stored_key: Bytes::new(),
            server_key: Bytes::new(),
            iterations: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for UserScramCredentialRecord {
    const ENCODED_SIZE_MIN: usize = 10;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = UserScramCredentialRecord::default();
        this.name = d.string(flexible, "name")?;
        this.mechanism = d.i8()?;
        this.salt = d.bytes(flexible, "salt")?;
        this.stored_key = d.bytes(flexible, "stored_key")?;
        this.server_key = d.bytes(flexible, "server_key")?;
        this.iterations = d.i32()?;
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
        out.put_string(flexible, &self.name, "name")?;
        out.put_i8(self.mechanism);
        out.put_bytes_field(flexible, &self.salt, "salt")?;
        out.put_bytes_field(flexible, &self.stored_key, "stored_key")?;
        out.put_bytes_field(flexible, &self.server_key, "server_key")?;
        out.put_i32(self.iterations);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for UserScramCredentialRecord {
    const NAME: &'static str = "UserScramCredentialRecord";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for UserScramCredentialRecord {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.mechanism = g.i8();
        this.salt = g.bytes();
        this.stored_key = g.bytes();
        this.server_key = g.bytes();
        this.iterations = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
