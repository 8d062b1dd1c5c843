//! `InitProducerIdRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `InitProducerIdRequest`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct InitProducerIdRequest {
    /// Versions 0-5; nullable 0-5.
    pub transactional_id: Option<String>,
    /// Versions 0-5.
    pub transaction_timeout_ms: i32,
    /// Versions 3-5.
    pub producer_id: ProducerId,
    /// Versions 3-5.
    pub producer_epoch: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for InitProducerIdRequest {
    fn default() -> Self {
        InitProducerIdRequest {
            transactional_id: Some(String::new()),
            transaction_timeout_ms: 0,
            producer_id: ProducerId(-1_i64),
            producer_epoch: -1_i16,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for InitProducerIdRequest {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = InitProducerIdRequest::default();
        this.transactional_id = d.nullable_string(flexible)?;
        this.transaction_timeout_ms = d.i32()?;
        if version >= 3 {
            this.producer_id = d.i64().map(ProducerId)?;
        }
        if version >= 3 {
            this.producer_epoch = d.i16()?;
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
        let flexible = version >= 2;
        match &self.transactional_id {
            Some(value) => {
                out.put_string(flexible, value, "transactional_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "transactional_id")?;
            }
        }
        out.put_i32(self.transaction_timeout_ms);
        if version >= 3 {
            out.put_i64(self.producer_id.0);
        } else {
            if self.producer_id != ProducerId(-1_i64) {
                return Err(EncodeError::FieldNotInVersion { field: "producer_id", version });
            }
        }
        if version >= 3 {
            out.put_i16(self.producer_epoch);
        } else {
            if self.producer_epoch != -1_i16 {
                return Err(EncodeError::FieldNotInVersion { field: "producer_epoch", version });
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

impl Message for InitProducerIdRequest {
    const NAME: &'static str = "InitProducerIdRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 5 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for InitProducerIdRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.transactional_id = g.nullable(|g| g.string());
        this.transaction_timeout_ms = g.i32();
        if version >= 3 {
            this.producer_id = ProducerId(g.i64());
        }
        if version >= 3 {
            this.producer_epoch = g.i16();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
