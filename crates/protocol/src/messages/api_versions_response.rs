//! `ApiVersionsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ApiVersionsResponse`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiVersionsResponse {
    /// Versions 0-5.
    pub error_code: i16,
    /// Versions 0-5.
    pub api_keys: Vec<ApiVersion>,
    /// Versions 1-5; ignorable.
    pub throttle_time_ms: i32,
    /// Tagged only; tag 0 in 3+; ignorable.
    pub supported_features: Vec<SupportedFeatureKey>,
    /// Tagged only; tag 1 in 3+; ignorable.
    pub finalized_features_epoch: i64,
    /// Tagged only; tag 2 in 3+; ignorable.
    pub finalized_features: Vec<FinalizedFeatureKey>,
    /// Tagged only; tag 3 in 3+; ignorable.
    pub zk_migration_ready: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ApiVersionsResponse {
    fn default() -> Self {
        ApiVersionsResponse {
            error_code: 0,
            api_keys: Vec::new(),
            throttle_time_ms: 0,
            supported_features: Vec::new(),
            finalized_features_epoch: -1_i64,
            finalized_features: Vec::new(),
            zk_migration_ready: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ApiVersionsResponse {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = ApiVersionsResponse::default();
        this.error_code = d.i16()?;
        this.api_keys =
            d.array(flexible, ApiVersion::ENCODED_SIZE_MIN, "api_keys", |d| ApiVersion::decode(d, version))?;
        if version >= 1 {
            this.throttle_time_ms = d.i32()?;
        }
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 if version >= 3 => {
                        let d = &mut field;
                        this.supported_features =
                            d.array(true, SupportedFeatureKey::ENCODED_SIZE_MIN, "supported_features", |d| {
                                SupportedFeatureKey::decode(d, version)
                            })?;
                        d.finish_tagged(tag)?;
                    }
                    1 if version >= 3 => {
                        let d = &mut field;
                        this.finalized_features_epoch = d.i64()?;
                        d.finish_tagged(tag)?;
                    }
                    2 if version >= 3 => {
                        let d = &mut field;
                        this.finalized_features =
                            d.array(true, FinalizedFeatureKey::ENCODED_SIZE_MIN, "finalized_features", |d| {
                                FinalizedFeatureKey::decode(d, version)
                            })?;
                        d.finish_tagged(tag)?;
                    }
                    3 if version >= 3 => {
                        let d = &mut field;
                        this.zk_migration_ready = d.bool()?;
                        d.finish_tagged(tag)?;
                    }
                    _ => this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() }),
                }
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 3;
        out.put_i16(self.error_code);
        out.put_length(flexible, false, Some(self.api_keys.len()), "api_keys")?;
        for item in &self.api_keys {
            item.encode(out, version)?;
        }
        if version >= 1 {
            out.put_i32(self.throttle_time_ms);
        }
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if version >= 3 && !self.supported_features.is_empty() {
                let out = tagged.field(0);
                out.put_length(true, false, Some(self.supported_features.len()), "supported_features")?;
                for item in &self.supported_features {
                    item.encode(out, version)?;
                }
            }
            if version >= 3 && self.finalized_features_epoch != -1_i64 {
                let out = tagged.field(1);
                out.put_i64(self.finalized_features_epoch);
            }
            if version >= 3 && !self.finalized_features.is_empty() {
                let out = tagged.field(2);
                out.put_length(true, false, Some(self.finalized_features.len()), "finalized_features")?;
                for item in &self.finalized_features {
                    item.encode(out, version)?;
                }
            }
            if version >= 3 && self.zk_migration_ready {
                let out = tagged.field(3);
                out.put_bool(self.zk_migration_ready);
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for ApiVersionsResponse {
    const NAME: &'static str = "ApiVersionsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 5 };
    const FLEXIBLE_MIN: Option<i16> = Some(3);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ApiVersionsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        this.error_code = g.i16();
        this.api_keys = g.vec(|g| <ApiVersion as crate::sample::Sample>::sample(g, version));
        if version >= 1 {
            this.throttle_time_ms = g.i32();
        }
        if version >= 3 && g.bool() {
            this.supported_features = g.vec(|g| <SupportedFeatureKey as crate::sample::Sample>::sample(g, version));
        }
        if version >= 3 && g.bool() {
            this.finalized_features_epoch = g.i64();
        }
        if version >= 3 && g.bool() {
            this.finalized_features = g.vec(|g| <FinalizedFeatureKey as crate::sample::Sample>::sample(g, version));
        }
        if version >= 3 && g.bool() {
            this.zk_migration_ready = g.bool();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ApiVersion`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiVersion {
    /// Versions 0-5; map key.
    pub api_key: i16,
    /// Versions 0-5.
    pub min_version: i16,
    /// Versions 0-5.
    pub max_version: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ApiVersion {
    fn default() -> Self {
        ApiVersion { api_key: 0, min_version: 0, max_version: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ApiVersion {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = ApiVersion::default();
        this.api_key = d.i16()?;
        this.min_version = d.i16()?;
        this.max_version = d.i16()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 3;
        out.put_i16(self.api_key);
        out.put_i16(self.min_version);
        out.put_i16(self.max_version);
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
impl crate::sample::Sample for ApiVersion {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        this.api_key = g.i16();
        this.min_version = g.i16();
        this.max_version = g.i16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `SupportedFeatureKey`, versions 3-5.
#[derive(Debug, Clone, PartialEq)]
pub struct SupportedFeatureKey {
    /// Versions 3-5; map key.
    pub name: String,
    /// Versions 3-5.
    pub min_version: i16,
    /// Versions 3-5.
    pub max_version: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for SupportedFeatureKey {
    fn default() -> Self {
        SupportedFeatureKey { name: String::new(), min_version: 0, max_version: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for SupportedFeatureKey {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = SupportedFeatureKey::default();
        this.name = d.string(flexible, "name")?;
        this.min_version = d.i16()?;
        this.max_version = d.i16()?;
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
        out.put_i16(self.min_version);
        out.put_i16(self.max_version);
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
impl crate::sample::Sample for SupportedFeatureKey {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.min_version = g.i16();
        this.max_version = g.i16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `FinalizedFeatureKey`, versions 3-5.
#[derive(Debug, Clone, PartialEq)]
pub struct FinalizedFeatureKey {
    /// Versions 3-5; map key.
    pub name: String,
    /// Versions 3-5.
    pub max_version_level: i16,
    /// Versions 3-5.
    pub min_version_level: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for FinalizedFeatureKey {
    fn default() -> Self {
        FinalizedFeatureKey {
            name: String::new(),
            max_version_level: 0,
            min_version_level: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for FinalizedFeatureKey {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = FinalizedFeatureKey::default();
        this.name = d.string(flexible, "name")?;
        this.max_version_level = d.i16()?;
        this.min_version_level = d.i16()?;
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
        out.put_i16(self.max_version_level);
        out.put_i16(self.min_version_level);
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
impl crate::sample::Sample for FinalizedFeatureKey {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.max_version_level = g.i16();
        this.min_version_level = g.i16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
