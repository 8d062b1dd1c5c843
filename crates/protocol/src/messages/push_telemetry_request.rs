//! `PushTelemetryRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `PushTelemetryRequest`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct PushTelemetryRequest {
    /// Versions 0.
    pub client_instance_id: Uuid,
    /// Versions 0.
    pub subscription_id: i32,
    /// Versions 0.
    pub terminating: bool,
    /// Versions 0.
    pub compression_type: i8,
    /// Versions 0.
    pub metrics: Bytes,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PushTelemetryRequest {
    fn default() -> Self {
        PushTelemetryRequest {
            client_instance_id: Uuid::ZERO,
            subscription_id: 0,
            terminating: false,
            compression_type: 0,
            metrics: Bytes::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for PushTelemetryRequest {
    const ENCODED_SIZE_MIN: usize = 24;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = PushTelemetryRequest::default();
        this.client_instance_id = d.uuid()?;
        this.subscription_id = d.i32()?;
        this.terminating = d.bool()?;
        this.compression_type = d.i8()?;
        this.metrics = d.bytes(flexible, "metrics")?;
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
        out.put_uuid(&self.client_instance_id);
        out.put_i32(self.subscription_id);
        out.put_bool(self.terminating);
        out.put_i8(self.compression_type);
        out.put_bytes_field(flexible, &self.metrics, "metrics")?;
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for PushTelemetryRequest {
    const NAME: &'static str = "PushTelemetryRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for PushTelemetryRequest {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.client_instance_id = g.uuid();
        this.subscription_id = g.i32();
        this.terminating = g.bool();
        this.compression_type = g.i8();
        this.metrics = g.bytes();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
