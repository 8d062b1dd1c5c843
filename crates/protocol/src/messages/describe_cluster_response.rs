//! `DescribeClusterResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeClusterResponse`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeClusterResponse {
    /// Versions 0-2.
    pub throttle_time_ms: i32,
    /// Versions 0-2.
    pub error_code: i16,
    /// Versions 0-2; nullable 0-2.
    pub error_message: Option<String>,
    /// Versions 1-2.
    pub endpoint_type: i8,
    /// Versions 0-2.
    pub cluster_id: String,
    /// Versions 0-2.
    pub controller_id: BrokerId,
    /// Versions 0-2.
    pub brokers: Vec<DescribeClusterBroker>,
    /// Versions 0-2.
    pub cluster_authorized_operations: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeClusterResponse {
    fn default() -> Self {
        DescribeClusterResponse {
            throttle_time_ms: 0,
            error_code: 0,
            error_message: None,
            endpoint_type: 1,
            cluster_id: String::new(),
            controller_id: BrokerId(-1_i32),
            brokers: Vec::new(),
            cluster_authorized_operations: -2147483648_i32,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeClusterResponse {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DescribeClusterResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        if version >= 1 {
            this.endpoint_type = d.i8()?;
        }
        this.cluster_id = d.string(flexible, "cluster_id")?;
        this.controller_id = d.i32().map(BrokerId)?;
        this.brokers = d.array(flexible, DescribeClusterBroker::ENCODED_SIZE_MIN, "brokers", |d| {
            DescribeClusterBroker::decode(d, version)
        })?;
        this.cluster_authorized_operations = d.i32()?;
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
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
            }
        }
        if version >= 1 {
            out.put_i8(self.endpoint_type);
        } else {
            if self.endpoint_type != 1 {
                return Err(EncodeError::FieldNotInVersion { field: "endpoint_type", version });
            }
        }
        out.put_string(flexible, &self.cluster_id, "cluster_id")?;
        out.put_i32(self.controller_id.0);
        out.put_length(flexible, false, Some(self.brokers.len()), "brokers")?;
        for item in &self.brokers {
            item.encode(out, version)?;
        }
        out.put_i32(self.cluster_authorized_operations);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for DescribeClusterResponse {
    const NAME: &'static str = "DescribeClusterResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeClusterResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        if version >= 1 {
            this.endpoint_type = g.i8();
        }
        this.cluster_id = g.string();
        this.controller_id = BrokerId(g.i32());
        this.brokers = g.vec(|g| <DescribeClusterBroker as crate::sample::Sample>::sample(g, version));
        this.cluster_authorized_operations = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribeClusterBroker`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeClusterBroker {
    /// Versions 0-2; map key.
    pub broker_id: BrokerId,
    /// Versions 0-2.
    pub host: String,
    /// Versions 0-2.
    pub port: i32,
    /// Versions 0-2; nullable 0-2.
    pub rack: Option<String>,
    /// Versions 2.
    pub is_fenced: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeClusterBroker {
    fn default() -> Self {
        DescribeClusterBroker {
            broker_id: BrokerId(0),
            host: String::new(),
            port: 0,
            rack: None,
            is_fenced: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeClusterBroker {
    const ENCODED_SIZE_MIN: usize = 11;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DescribeClusterBroker::default();
        this.broker_id = d.i32().map(BrokerId)?;
        this.host = d.string(flexible, "host")?;
        this.port = d.i32()?;
        this.rack = d.nullable_string(flexible)?;
        if version >= 2 {
            this.is_fenced = d.bool()?;
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
        out.put_i32(self.broker_id.0);
        out.put_string(flexible, &self.host, "host")?;
        out.put_i32(self.port);
        match &self.rack {
            Some(value) => {
                out.put_string(flexible, value, "rack")?;
            }
            None => {
                out.put_length(flexible, true, None, "rack")?;
            }
        }
        if version >= 2 {
            out.put_bool(self.is_fenced);
        } else {
            if self.is_fenced {
                return Err(EncodeError::FieldNotInVersion { field: "is_fenced", version });
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
impl crate::sample::Sample for DescribeClusterBroker {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.broker_id = BrokerId(g.i32());
        this.host = g.string();
        this.port = g.i32();
        this.rack = g.nullable(|g| g.string());
        if version >= 2 {
            this.is_fenced = g.bool();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
