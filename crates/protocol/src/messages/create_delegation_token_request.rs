//! `CreateDelegationTokenRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `CreateDelegationTokenRequest`, versions 1-3.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateDelegationTokenRequest {
    /// Versions 3; nullable 3.
    pub owner_principal_type: Option<String>,
    /// Versions 3; nullable 3.
    pub owner_principal_name: Option<String>,
    /// Versions 1-3.
    pub renewers: Vec<CreatableRenewers>,
    /// Versions 1-3.
    pub max_lifetime_ms: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for CreateDelegationTokenRequest {
    fn default() -> Self {
        CreateDelegationTokenRequest {
            owner_principal_type: Some(String::new()),
            owner_principal_name: Some(String::new()),
            renewers: Vec::new(),
            max_lifetime_ms: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for CreateDelegationTokenRequest {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = CreateDelegationTokenRequest::default();
        if version >= 3 {
            this.owner_principal_type = d.nullable_string(flexible)?;
        }
        if version >= 3 {
            this.owner_principal_name = d.nullable_string(flexible)?;
        }
        this.renewers = d.array(flexible, CreatableRenewers::ENCODED_SIZE_MIN, "renewers", |d| {
            CreatableRenewers::decode(d, version)
        })?;
        this.max_lifetime_ms = d.i64()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 2;
        if version >= 3 {
            match &self.owner_principal_type {
                Some(value) => {
                    out.put_string(flexible, value, "owner_principal_type")?;
                }
                None => {
                    out.put_length(flexible, true, None, "owner_principal_type")?;
                }
            }
        } else {
            if self.owner_principal_type != Some(String::new()) {
                return Err(EncodeError::FieldNotInVersion { field: "owner_principal_type", version });
            }
        }
        if version >= 3 {
            match &self.owner_principal_name {
                Some(value) => {
                    out.put_string(flexible, value, "owner_principal_name")?;
                }
                None => {
                    out.put_length(flexible, true, None, "owner_principal_name")?;
                }
            }
        } else {
            if self.owner_principal_name != Some(String::new()) {
                return Err(EncodeError::FieldNotInVersion { field: "owner_principal_name", version });
            }
        }
        out.put_length(flexible, false, Some(self.renewers.len()), "renewers")?;
        for item in &self.renewers {
            item.encode(out, version)?;
        }
        out.put_i64(self.max_lifetime_ms);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for CreateDelegationTokenRequest {
    const NAME: &'static str = "CreateDelegationTokenRequest";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 3 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for CreateDelegationTokenRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        if version >= 3 {
            this.owner_principal_type = g.nullable(|g| g.string());
        }
        if version >= 3 {
            this.owner_principal_name = g.nullable(|g| g.string());
        }
        this.renewers = g.vec(|g| <CreatableRenewers as crate::sample::Sample>::sample(g, version));
        this.max_lifetime_ms = g.i64();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `CreatableRenewers`, versions 1-3.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatableRenewers {
    /// Versions 1-3.
    pub principal_type: String,
    /// Versions 1-3.
    pub principal_name: String,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for CreatableRenewers {
    fn default() -> Self {
        CreatableRenewers {
            principal_type: String::new(),
            principal_name: String::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for CreatableRenewers {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = CreatableRenewers::default();
        this.principal_type = d.string(flexible, "principal_type")?;
        this.principal_name = d.string(flexible, "principal_name")?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 2;
        out.put_string(flexible, &self.principal_type, "principal_type")?;
        out.put_string(flexible, &self.principal_name, "principal_name")?;
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
impl crate::sample::Sample for CreatableRenewers {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.principal_type = g.string();
        this.principal_name = g.string();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
