//! `FindCoordinatorRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `FindCoordinatorRequest`, versions 0-6.
#[derive(Debug, Clone, PartialEq)]
pub struct FindCoordinatorRequest {
    /// Versions 0-3.
    pub key: String,
    /// Versions 1-6.
    pub key_type: i8,
    /// Versions 4-6.
    pub coordinator_keys: Vec<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for FindCoordinatorRequest {
    fn default() -> Self {
        FindCoordinatorRequest {
            key: String::new(),
            key_type: 0,
            coordinator_keys: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for FindCoordinatorRequest {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = FindCoordinatorRequest::default();
        if version <= 3 {
            this.key = d.string(flexible, "key")?;
        }
        if version >= 1 {
            this.key_type = d.i8()?;
        }
        if version >= 4 {
            this.coordinator_keys =
                d.array(flexible, 1, "coordinator_keys", |d| d.string(flexible, "coordinator_keys"))?;
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
        let flexible = version >= 3;
        if version <= 3 {
            out.put_string(flexible, &self.key, "key")?;
        } else {
            if !self.key.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "key", version });
            }
        }
        if version >= 1 {
            out.put_i8(self.key_type);
        } else {
            if self.key_type != 0 {
                return Err(EncodeError::FieldNotInVersion { field: "key_type", version });
            }
        }
        if version >= 4 {
            out.put_length(flexible, false, Some(self.coordinator_keys.len()), "coordinator_keys")?;
            for item in &self.coordinator_keys {
                out.put_string(flexible, item, "coordinator_keys")?;
            }
        } else {
            if !self.coordinator_keys.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "coordinator_keys", version });
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

impl Message for FindCoordinatorRequest {
    const NAME: &'static str = "FindCoordinatorRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 6 };
    const FLEXIBLE_MIN: Option<i16> = Some(3);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for FindCoordinatorRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        if version <= 3 {
            this.key = g.string();
        }
        if version >= 1 {
            this.key_type = g.i8();
        }
        if version >= 4 {
            this.coordinator_keys = g.vec(|g| g.string());
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
