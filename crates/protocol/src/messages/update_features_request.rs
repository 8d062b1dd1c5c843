//! `UpdateFeaturesRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `UpdateFeaturesRequest`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateFeaturesRequest {
    /// Versions 0-2.
    pub timeout_ms: i32,
    /// Versions 0-2.
    pub feature_updates: Vec<FeatureUpdateKey>,
    /// Versions 1-2.
    pub validate_only: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for UpdateFeaturesRequest {
    fn default() -> Self {
        UpdateFeaturesRequest {
            timeout_ms: 60000,
            feature_updates: Vec::new(),
            validate_only: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for UpdateFeaturesRequest {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = UpdateFeaturesRequest::default();
        this.timeout_ms = d.i32()?;
        this.feature_updates = d.array(flexible, FeatureUpdateKey::ENCODED_SIZE_MIN, "feature_updates", |d| {
            FeatureUpdateKey::decode(d, version)
        })?;
        if version >= 1 {
            this.validate_only = d.bool()?;
        }
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
        out.put_i32(self.timeout_ms);
        out.put_length(flexible, false, Some(self.feature_updates.len()), "feature_updates")?;
        for item in &self.feature_updates {
            item.encode(out, version)?;
        }
        if version >= 1 {
            out.put_bool(self.validate_only);
        } else {
            if self.validate_only {
                return Err(EncodeError::FieldNotInVersion { field: "validate_only", version });
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

impl Message for UpdateFeaturesRequest {
    const NAME: &'static str = "UpdateFeaturesRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for UpdateFeaturesRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.timeout_ms = g.i32();
        this.feature_updates = g.vec(|g| <FeatureUpdateKey as crate::sample::Sample>::sample(g, version));
        if version >= 1 {
            this.validate_only = g.bool();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `FeatureUpdateKey`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureUpdateKey {
    /// Versions 0-2; map key.
    pub feature: String,
    /// Versions 0-2.
    pub max_version_level: i16,
    /// Versions 0.
    pub allow_downgrade: bool,
    /// Versions 1-2.
    pub upgrade_type: i8,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for FeatureUpdateKey {
    fn default() -> Self {
        FeatureUpdateKey {
            feature: String::new(),
            max_version_level: 0,
            allow_downgrade: false,
            upgrade_type: 1,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for FeatureUpdateKey {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = FeatureUpdateKey::default();
        this.feature = d.string(flexible, "feature")?;
        this.max_version_level = d.i16()?;
        if version <= 0 {
            this.allow_downgrade = d.bool()?;
        }
        if version >= 1 {
            this.upgrade_type = d.i8()?;
        }
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
        out.put_string(flexible, &self.feature, "feature")?;
        out.put_i16(self.max_version_level);
        if version <= 0 {
            out.put_bool(self.allow_downgrade);
        } else {
            if self.allow_downgrade {
                return Err(EncodeError::FieldNotInVersion { field: "allow_downgrade", version });
            }
        }
        if version >= 1 {
            out.put_i8(self.upgrade_type);
        } else {
            if self.upgrade_type != 1 {
                return Err(EncodeError::FieldNotInVersion { field: "upgrade_type", version });
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
impl crate::sample::Sample for FeatureUpdateKey {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.feature = g.string();
        this.max_version_level = g.i16();
        if version <= 0 {
            this.allow_downgrade = g.bool();
        }
        if version >= 1 {
            this.upgrade_type = g.i8();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
