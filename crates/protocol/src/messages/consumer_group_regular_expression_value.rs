//! `ConsumerGroupRegularExpressionValue`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ConsumerGroupRegularExpressionValue`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsumerGroupRegularExpressionValue {
    /// Versions 0.
    pub topics: Vec<String>,
    /// Versions 0.
    pub version: i64,
    /// Versions 0.
    pub timestamp: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ConsumerGroupRegularExpressionValue {
    fn default() -> Self {
        ConsumerGroupRegularExpressionValue {
            topics: Vec::new(),
            version: 0,
            timestamp: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ConsumerGroupRegularExpressionValue {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ConsumerGroupRegularExpressionValue::default();
        this.topics = d.array(flexible, 1, "topics", |d| d.string(flexible, "topics"))?;
        this.version = d.i64()?;
        this.timestamp = d.i64()?;
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
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
            out.put_string(flexible, item, "topics")?;
        }
        out.put_i64(self.version);
        out.put_i64(self.timestamp);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for ConsumerGroupRegularExpressionValue {
    const NAME: &'static str = "ConsumerGroupRegularExpressionValue";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ConsumerGroupRegularExpressionValue {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topics = g.vec(|g| g.string());
        this.version = g.i64();
        this.timestamp = g.i64();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
