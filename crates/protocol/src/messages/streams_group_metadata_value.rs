//! `StreamsGroupMetadataValue`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `StreamsGroupMetadataValue`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamsGroupMetadataValue {
    /// Versions 0.
    pub epoch: i32,
    /// Versions 0.
    pub metadata_hash: i64,
    /// Tagged only; tag 0 in 0+.
    pub validated_topology_epoch: i32,
    /// Tagged only; nullable 0; tag 1 in 0+.
    pub last_assignment_configs: Option<Vec<LastAssignmentConfig>>,
    /// Tagged only; tag 2 in 0+.
    pub stored_description_topology_epoch: i32,
    /// Tagged only; tag 3 in 0+.
    pub failed_description_topology_epoch: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for StreamsGroupMetadataValue {
    fn default() -> Self {
        StreamsGroupMetadataValue {
            epoch: 0,
            metadata_hash: 0,
            validated_topology_epoch: -1_i32,
            last_assignment_configs: None,
            stored_description_topology_epoch: -1_i32,
            failed_description_topology_epoch: -1_i32,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for StreamsGroupMetadataValue {
    const ENCODED_SIZE_MIN: usize = 13;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = StreamsGroupMetadataValue::default();
        this.epoch = d.i32()?;
        this.metadata_hash = d.i64()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 => {
                        let d = &mut field;
                        this.validated_topology_epoch = d.i32()?;
                        d.finish_tagged(tag)?;
                    }
                    1 => {
                        let d = &mut field;
                        this.last_assignment_configs =
                            d.nullable_array(true, LastAssignmentConfig::ENCODED_SIZE_MIN, |d| {
                                LastAssignmentConfig::decode(d, version)
                            })?;
                        d.finish_tagged(tag)?;
                    }
                    2 => {
                        let d = &mut field;
                        this.stored_description_topology_epoch = d.i32()?;
                        d.finish_tagged(tag)?;
                    }
                    3 => {
                        let d = &mut field;
                        this.failed_description_topology_epoch = d.i32()?;
                        d.finish_tagged(tag)?;
                    }
                    _ => this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() }),
                }
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = true;
        out.put_i32(self.epoch);
        out.put_i64(self.metadata_hash);
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if self.validated_topology_epoch != -1_i32 {
                let out = tagged.field(0);
                out.put_i32(self.validated_topology_epoch);
            }
            if self.last_assignment_configs.is_some() {
                let out = tagged.field(1);
                match &self.last_assignment_configs {
                    Some(value) => {
                        out.put_length(true, false, Some(value.len()), "last_assignment_configs")?;
                        for item in value {
                            item.encode(out, version)?;
                        }
                    }
                    None => {
                        out.put_length(true, false, None, "last_assignment_configs")?;
                    }
                }
            }
            if self.stored_description_topology_epoch != -1_i32 {
                let out = tagged.field(2);
                out.put_i32(self.stored_description_topology_epoch);
            }
            if self.failed_description_topology_epoch != -1_i32 {
                let out = tagged.field(3);
                out.put_i32(self.failed_description_topology_epoch);
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for StreamsGroupMetadataValue {
    const NAME: &'static str = "StreamsGroupMetadataValue";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for StreamsGroupMetadataValue {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.epoch = g.i32();
        this.metadata_hash = g.i64();
        if g.bool() {
            this.validated_topology_epoch = g.i32();
        }
        if g.bool() {
            this.last_assignment_configs =
                g.nullable(|g| g.vec(|g| <LastAssignmentConfig as crate::sample::Sample>::sample(g, version)));
        }
        if g.bool() {
            this.stored_description_topology_epoch = g.i32();
        }
        if g.bool() {
            this.failed_description_topology_epoch = g.i32();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `LastAssignmentConfig`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct LastAssignmentConfig {
    /// Versions 0.
    pub key: String,
    /// Versions 0.
    pub value: String,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for LastAssignmentConfig {
    fn default() -> Self {
        LastAssignmentConfig { key: String::new(), value: String::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for LastAssignmentConfig {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = LastAssignmentConfig::default();
        this.key = d.string(flexible, "key")?;
        this.value = d.string(flexible, "value")?;
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
        out.put_string(flexible, &self.key, "key")?;
        out.put_string(flexible, &self.value, "value")?;
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
impl crate::sample::Sample for LastAssignmentConfig {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.key = g.string();
        this.value = g.string();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
