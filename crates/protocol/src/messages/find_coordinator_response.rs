//! `FindCoordinatorResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `FindCoordinatorResponse`, versions 0-6.
#[derive(Debug, Clone, PartialEq)]
pub struct FindCoordinatorResponse {
    /// Versions 1-6; ignorable.
    pub throttle_time_ms: i32,
    /// Versions 0-3.
    pub error_code: i16,
    /// Versions 1-3; nullable 1-3; ignorable.
    pub error_message: Option<String>,
    /// Versions 0-3.
    pub node_id: BrokerId,
    /// Versions 0-3.
    pub host: String,
    /// Versions 0-3.
    pub port: i32,
    /// Versions 4-6.
    pub coordinators: Vec<Coordinator>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for FindCoordinatorResponse {
    fn default() -> Self {
        FindCoordinatorResponse {
            throttle_time_ms: 0,
            error_code: 0,
            error_message: Some(String::new()),
            node_id: BrokerId(0),
            host: String::new(),
            port: 0,
            coordinators: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for FindCoordinatorResponse {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = FindCoordinatorResponse::default();
        if version >= 1 {
            this.throttle_time_ms = d.i32()?;
        }
        if version <= 3 {
            this.error_code = d.i16()?;
        }
        if (1..=3).contains(&version) {
            this.error_message = d.nullable_string(flexible)?;
        }
        if version <= 3 {
            this.node_id = d.i32().map(BrokerId)?;
        }
        if version <= 3 {
            this.host = d.string(flexible, "host")?;
        }
        if version <= 3 {
            this.port = d.i32()?;
        }
        if version >= 4 {
            this.coordinators =
                d.array(flexible, Coordinator::ENCODED_SIZE_MIN, "coordinators", |d| Coordinator::decode(d, version))?;
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
        if version >= 1 {
            out.put_i32(self.throttle_time_ms);
        }
        if version <= 3 {
            out.put_i16(self.error_code);
        } else {
            if self.error_code != 0 {
                return Err(EncodeError::FieldNotInVersion { field: "error_code", version });
            }
        }
        if (1..=3).contains(&version) {
            match &self.error_message {
                Some(value) => {
                    out.put_string(flexible, value, "error_message")?;
                }
                None => {
                    out.put_length(flexible, true, None, "error_message")?;
                }
            }
        }
        if version <= 3 {
            out.put_i32(self.node_id.0);
        } else {
            if self.node_id != BrokerId(0) {
                return Err(EncodeError::FieldNotInVersion { field: "node_id", version });
            }
        }
        if version <= 3 {
            out.put_string(flexible, &self.host, "host")?;
        } else {
            if !self.host.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "host", version });
            }
        }
        if version <= 3 {
            out.put_i32(self.port);
        } else {
            if self.port != 0 {
                return Err(EncodeError::FieldNotInVersion { field: "port", version });
            }
        }
        if version >= 4 {
            out.put_length(flexible, false, Some(self.coordinators.len()), "coordinators")?;
            for item in &self.coordinators {
                item.encode(out, version)?;
            }
        } else {
            if !self.coordinators.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "coordinators", version });
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

impl Message for FindCoordinatorResponse {
    const NAME: &'static str = "FindCoordinatorResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 6 };
    const FLEXIBLE_MIN: Option<i16> = Some(3);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for FindCoordinatorResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        if version >= 1 {
            this.throttle_time_ms = g.i32();
        }
        if version <= 3 {
            this.error_code = g.i16();
        }
        if (1..=3).contains(&version) {
            this.error_message = g.nullable(|g| g.string());
        }
        if version <= 3 {
            this.node_id = BrokerId(g.i32());
        }
        if version <= 3 {
            this.host = g.string();
        }
        if version <= 3 {
            this.port = g.i32();
        }
        if version >= 4 {
            this.coordinators = g.vec(|g| <Coordinator as crate::sample::Sample>::sample(g, version));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `Coordinator`, versions 4-6.
#[derive(Debug, Clone, PartialEq)]
pub struct Coordinator {
    /// Versions 4-6.
    pub key: String,
    /// Versions 4-6.
    pub node_id: BrokerId,
    /// Versions 4-6.
    pub host: String,
    /// Versions 4-6.
    pub port: i32,
    /// Versions 4-6.
    pub error_code: i16,
    /// Versions 4-6; nullable 4-6; ignorable.
    pub error_message: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Coordinator {
    fn default() -> Self {
        Coordinator {
            key: String::new(),
            node_id: BrokerId(0),
            host: String::new(),
            port: 0,
            error_code: 0,
            error_message: Some(String::new()),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for Coordinator {
    const ENCODED_SIZE_MIN: usize = 14;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Coordinator::default();
        this.key = d.string(flexible, "key")?;
        this.node_id = d.i32().map(BrokerId)?;
        this.host = d.string(flexible, "host")?;
        this.port = d.i32()?;
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
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
        out.put_i32(self.node_id.0);
        out.put_string(flexible, &self.host, "host")?;
        out.put_i32(self.port);
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
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
impl crate::sample::Sample for Coordinator {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.key = g.string();
        this.node_id = BrokerId(g.i32());
        this.host = g.string();
        this.port = g.i32();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
