//! `AlterUserScramCredentialsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `AlterUserScramCredentialsRequest`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterUserScramCredentialsRequest {
    /// Versions 0.
    pub deletions: Vec<ScramCredentialDeletion>,
    /// Versions 0.
    pub upsertions: Vec<ScramCredentialUpsertion>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AlterUserScramCredentialsRequest {
    fn default() -> Self {
        AlterUserScramCredentialsRequest {
            deletions: Vec::new(),
            upsertions: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AlterUserScramCredentialsRequest {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = AlterUserScramCredentialsRequest::default();
        this.deletions = d.array(flexible, ScramCredentialDeletion::ENCODED_SIZE_MIN, "deletions", |d| {
            ScramCredentialDeletion::decode(d, version)
        })?;
        this.upsertions = d.array(flexible, ScramCredentialUpsertion::ENCODED_SIZE_MIN, "upsertions", |d| {
            ScramCredentialUpsertion::decode(d, version)
        })?;
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
        out.put_length(flexible, false, Some(self.deletions.len()), "deletions")?;
        for item in &self.deletions {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.upsertions.len()), "upsertions")?;
        for item in &self.upsertions {
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

impl Message for AlterUserScramCredentialsRequest {
    const NAME: &'static str = "AlterUserScramCredentialsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for AlterUserScramCredentialsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.deletions = g.vec(|g| <ScramCredentialDeletion as crate::sample::Sample>::sample(g, version));
        this.upsertions = g.vec(|g| <ScramCredentialUpsertion as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ScramCredentialDeletion`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ScramCredentialDeletion {
    /// Versions 0.
    pub name: String,
    /// Versions 0.
    pub mechanism: i8,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ScramCredentialDeletion {
    fn default() -> Self {
        ScramCredentialDeletion { name: String::new(), mechanism: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ScramCredentialDeletion {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ScramCredentialDeletion::default();
        this.name = d.string(flexible, "name")?;
        this.mechanism = d.i8()?;
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
impl crate::sample::Sample for ScramCredentialDeletion {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.mechanism = g.i8();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ScramCredentialUpsertion`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ScramCredentialUpsertion {
    /// Versions 0.
    pub name: String,
    /// Versions 0.
    pub mechanism: i8,
    /// Versions 0.
    pub iterations: i32,
    /// Versions 0.
    pub salt: Bytes,
    /// Versions 0.
    pub salted_password: Bytes,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ScramCredentialUpsertion {
    fn default() -> Self {
        ScramCredentialUpsertion {
            name: String::new(),
            mechanism: 0,
            iterations: 0,
            salt: Bytes::new(),
            salted_password: Bytes::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ScramCredentialUpsertion {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ScramCredentialUpsertion::default();
        this.name = d.string(flexible, "name")?;
        this.mechanism = d.i8()?;
        this.iterations = d.i32()?;
        this.salt = d.bytes(flexible, "salt")?;
        this.salted_password = d.bytes(flexible, "salted_password")?;
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
        out.put_i32(self.iterations);
        out.put_bytes_field(flexible, &self.salt, "salt")?;
        out.put_bytes_field(flexible, &self.salted_password, "salted_password")?;
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
impl crate::sample::Sample for ScramCredentialUpsertion {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.mechanism = g.i8();
        this.iterations = g.i32();
        this.salt = g.bytes();
        this.salted_password = g.bytes();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
