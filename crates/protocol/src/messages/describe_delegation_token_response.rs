//! `DescribeDelegationTokenResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeDelegationTokenResponse`, versions 1-3.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeDelegationTokenResponse {
    /// Versions 1-3.
    pub error_code: i16,
    /// Versions 1-3.
    pub tokens: Vec<DescribedDelegationToken>,
    /// Versions 1-3.
    pub throttle_time_ms: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeDelegationTokenResponse {
    fn default() -> Self {
        DescribeDelegationTokenResponse {
            error_code: 0,
            tokens: Vec::new(),
            throttle_time_ms: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeDelegationTokenResponse {
    const ENCODED_SIZE_MIN: usize = 7;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = DescribeDelegationTokenResponse::default();
        this.error_code = d.i16()?;
        this.tokens = d.array(flexible, DescribedDelegationToken::ENCODED_SIZE_MIN, "tokens", |d| {
            DescribedDelegationToken::decode(d, version)
        })?;
        this.throttle_time_ms = d.i32()?;
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
        out.put_i16(self.error_code);
        out.put_length(flexible, false, Some(self.tokens.len()), "tokens")?;
        for item in &self.tokens {
            item.encode(out, version)?;
        }
        out.put_i32(self.throttle_time_ms);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for DescribeDelegationTokenResponse {
    const NAME: &'static str = "DescribeDelegationTokenResponse";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 3 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeDelegationTokenResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.error_code = g.i16();
        this.tokens = g.vec(|g| <DescribedDelegationToken as crate::sample::Sample>::sample(g, version));
        this.throttle_time_ms = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribedDelegationTokenRenewer`, versions 1-3.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribedDelegationTokenRenewer {
    /// Versions 1-3.
    pub principal_type: String,
    /// Versions 1-3.
    pub principal_name: String,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribedDelegationTokenRenewer {
    fn default() -> Self {
        DescribedDelegationTokenRenewer {
            principal_type: String::new(),
            principal_name: String::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribedDelegationTokenRenewer {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = DescribedDelegationTokenRenewer::default();
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
impl crate::sample::Sample for DescribedDelegationTokenRenewer {
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

/// `DescribedDelegationToken`, versions 1-3.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribedDelegationToken {
    /// Versions 1-3.
    pub principal_type: String,
    /// Versions 1-3.
    pub principal_name: String,
    /// Versions 3.
    pub token_requester_principal_type: String,
    /// Versions 3.
    pub token_requester_principal_name: String,
    /// Versions 1-3.
    pub issue_timestamp: i64,
    /// Versions 1-3.
    pub expiry_timestamp: i64,
    /// Versions 1-3.
    pub max_timestamp: i64,
    /// Versions 1-3.
    pub token_id: String,
    /// Versions 1-3.
    pub hmac: Bytes,
    /// Versions 1-3.
    pub renewers: Vec<DescribedDelegationTokenRenewer>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribedDelegationToken {
    fn default() -> Self {
        DescribedDelegationToken {
            principal_type: String::new(),
            principal_name: String::new(),
            token_requester_principal_type: String::new(),
            token_requester_principal_name: String::new(),
            issue_timestamp: 0,
            expiry_timestamp: 0,
            max_timestamp: 0,
            token_id: String::new(),
            hmac: Bytes::new(),
            renewers: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribedDelegationToken {
    const ENCODED_SIZE_MIN: usize = 29;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = DescribedDelegationToken::default();
        this.principal_type = d.string(flexible, "principal_type")?;
        this.principal_name = d.string(flexible, "principal_name")?;
        if version >= 3 {
            this.token_requester_principal_type = d.string(flexible, "token_requester_principal_type")?;
        }
        if version >= 3 {
            this.token_requester_principal_name = d.string(flexible, "token_requester_principal_name")?;
        }
        this.issue_timestamp = d.i64()?;
        this.expiry_timestamp = d.i64()?;
        this.max_timestamp = d.i64()?;
        this.token_id = d.string(flexible, "token_id")?;
        this.hmac = d.bytes(flexible, "hmac")?;
        this.renewers = d.array(flexible, DescribedDelegationTokenRenewer::ENCODED_SIZE_MIN, "renewers", |d| {
            DescribedDelegationTokenRenewer::decode(d, version)
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
        out.put_string(flexible, &self.principal_type, "principal_type")?;
        out.put_string(flexible, &self.principal_name, "principal_name")?;
        if version >= 3 {
            out.put_string(flexible, &self.token_requester_principal_type, "token_requester_principal_type")?;
        } else {
            if !self.token_requester_principal_type.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "token_requester_principal_type", version });
            }
        }
        if version >= 3 {
            out.put_string(flexible, &self.token_requester_principal_name, "token_requester_principal_name")?;
        } else {
            if !self.token_requester_principal_name.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "token_requester_principal_name", version });
            }
        }
        out.put_i64(self.issue_timestamp);
        out.put_i64(self.expiry_timestamp);
        out.put_i64(self.max_timestamp);
        out.put_string(flexible, &self.token_id, "token_id")?;
        out.put_bytes_field(flexible, &self.hmac, "hmac")?;
        out.put_length(flexible, false, Some(self.renewers.len()), "renewers")?;
        for item in &self.renewers {
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
impl crate::sample::Sample for DescribedDelegationToken {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.principal_type = g.string();
        this.principal_name = g.string();
        if version >= 3 {
            this.token_requester_principal_type = g.string();
        }
        if version >= 3 {
            this.token_requester_principal_name = g.string();
        }
        this.issue_timestamp = g.i64();
        this.expiry_timestamp = g.i64();
        this.max_timestamp = g.i64();
        this.token_id = g.string();
        this.hmac = g.bytes();
        this.renewers = g.vec(|g| <DescribedDelegationTokenRenewer as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
