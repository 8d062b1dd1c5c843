//! `DescribeDelegationTokenRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeDelegationTokenRequest`, versions 1-3.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeDelegationTokenRequest {
    /// Versions 1-3; nullable 1-3.
    pub owners: Option<Vec<DescribeDelegationTokenOwner>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeDelegationTokenRequest {
    fn default() -> Self {
        DescribeDelegationTokenRequest { owners: Some(Vec::new()), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for DescribeDelegationTokenRequest {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = DescribeDelegationTokenRequest::default();
        this.owners = d.nullable_array(flexible, DescribeDelegationTokenOwner::ENCODED_SIZE_MIN, |d| {
            DescribeDelegationTokenOwner::decode(d, version)
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
        let flexible = version >= 2;
        match &self.owners {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "owners")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "owners")?;
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

impl Message for DescribeDelegationTokenRequest {
    const NAME: &'static str = "DescribeDelegationTokenRequest";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 3 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeDelegationTokenRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.owners =
            g.nullable(|g| g.vec(|g| <DescribeDelegationTokenOwner as crate::sample::Sample>::sample(g, version)));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribeDelegationTokenOwner`, versions 1-3.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeDelegationTokenOwner {
    /// Versions 1-3.
    pub principal_type: String,
    /// Versions 1-3.
    pub principal_name: String,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeDelegationTokenOwner {
    fn default() -> Self {
        DescribeDelegationTokenOwner {
            principal_type: String::new(),
            principal_name: String::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeDelegationTokenOwner {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = DescribeDelegationTokenOwner::default();
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
impl crate::sample::Sample for DescribeDelegationTokenOwner {
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
