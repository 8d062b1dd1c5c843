//! `GetTelemetrySubscriptionsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `GetTelemetrySubscriptionsResponse`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct GetTelemetrySubscriptionsResponse {
    /// Versions 0.
    pub throttle_time_ms: i32,
    /// Versions 0.
    pub error_code: i16,
    /// Versions 0.
    pub client_instance_id: Uuid,
    /// Versions 0.
    pub subscription_id: i32,
    /// Versions 0.
    pub accepted_compression_types: Vec<i8>,
    /// Versions 0.
    pub push_interval_ms: i32,
    /// Versions 0.
    pub telemetry_max_bytes: i32,
    /// Versions 0.
    pub delta_temporality: bool,
    /// Versions 0.
    pub requested_metrics: Vec<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for GetTelemetrySubscriptionsResponse {
    fn default() -> Self {
        GetTelemetrySubscriptionsResponse {
            throttle_time_ms: 0,
            error_code: 0,
            client_instance_id: Uuid::ZERO,
            subscription_id: 0,
            accepted_compression_types: Vec::new(),
            push_interval_ms: 0,
            telemetry_max_bytes: 0,
            delta_temporality: false,
            requested_metrics: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for GetTelemetrySubscriptionsResponse {
    const ENCODED_SIZE_MIN: usize = 38;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = GetTelemetrySubscriptionsResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        this.client_instance_id = d.uuid()?;
        this.subscription_id = d.i32()?;
        this.accepted_compression_types = d.array(flexible, 1, "accepted_compression_types", |d| d.i8())?;
        this.push_interval_ms = d.i32()?;
        this.telemetry_max_bytes = d.i32()?;
        this.delta_temporality = d.bool()?;
        this.requested_metrics =
            d.array(flexible, 1, "requested_metrics", |d| d.string(flexible, "requested_metrics"))?;
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
        out.put_i32(self.throttle_time_ms);
        out.put_i16(self.error_code);
        out.put_uuid(&self.client_instance_id);
        out.put_i32(self.subscription_id);
        out.put_length(flexible, false, Some(self.accepted_compression_types.len()), "accepted_compression_types")?;
        for item in &self.accepted_compression_types {
            out.put_i8(*item);
        }
        out.put_i32(self.push_interval_ms);
        out.put_i32(self.telemetry_max_bytes);
        out.put_bool(self.delta_temporality);
        out.put_length(flexible, false, Some(self.requested_metrics.len()), "requested_metrics")?;
        for item in &self.requested_metrics {
            out.put_string(flexible, item, "requested_metrics")?;
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

impl Message for GetTelemetrySubscriptionsResponse {
    const NAME: &'static str = "GetTelemetrySubscriptionsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for GetTelemetrySubscriptionsResponse {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        this.client_instance_id = g.uuid();
        this.subscription_id = g.i32();
        this.accepted_compression_types = g.vec(|g| g.i8());
        this.push_interval_ms = g.i32();
        this.telemetry_max_bytes = g.i32();
        this.delta_temporality = g.bool();
        this.requested_metrics = g.vec(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
