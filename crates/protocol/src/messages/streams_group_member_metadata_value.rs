//! `StreamsGroupMemberMetadataValue`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `StreamsGroupMemberMetadataValue`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamsGroupMemberMetadataValue {
    /// Versions 0; nullable 0.
    pub instance_id: Option<String>,
    /// Versions 0; nullable 0.
    pub rack_id: Option<String>,
    /// Versions 0.
    pub client_id: String,
    /// Versions 0.
    pub client_host: String,
    /// Versions 0.
    pub rebalance_timeout_ms: i32,
    /// Versions 0.
    pub topology_epoch: i32,
    /// Versions 0.
    pub process_id: String,
    /// Versions 0; nullable 0.
    pub user_endpoint: Option<Endpoint>,
    /// Versions 0.
    pub client_tags: Vec<KeyValue>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for StreamsGroupMemberMetadataValue {
    fn default() -> Self {
        StreamsGroupMemberMetadataValue {
            instance_id: Some(String::new()),
            rack_id: Some(String::new()),
            client_id: String::new(),
            client_host: String::new(),
            rebalance_timeout_ms: -1_i32,
            topology_epoch: 0,
            process_id: String::new(),
            user_endpoint: None,
            client_tags: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for StreamsGroupMemberMetadataValue {
    const ENCODED_SIZE_MIN: usize = 16;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = StreamsGroupMemberMetadataValue::default();
        this.instance_id = d.nullable_string(flexible)?;
        this.rack_id = d.nullable_string(flexible)?;
        this.client_id = d.string(flexible, "client_id")?;
        this.client_host = d.string(flexible, "client_host")?;
        this.rebalance_timeout_ms = d.i32()?;
        this.topology_epoch = d.i32()?;
        this.process_id = d.string(flexible, "process_id")?;
        this.user_endpoint = if d.struct_marker()? { Some(Endpoint::decode(d, version)?) } else { None };
        this.client_tags =
            d.array(flexible, KeyValue::ENCODED_SIZE_MIN, "client_tags", |d| KeyValue::decode(d, version))?;
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
        match &self.instance_id {
            Some(value) => {
                out.put_string(flexible, value, "instance_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "instance_id")?;
            }
        }
        match &self.rack_id {
            Some(value) => {
                out.put_string(flexible, value, "rack_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "rack_id")?;
            }
        }
        out.put_string(flexible, &self.client_id, "client_id")?;
        out.put_string(flexible, &self.client_host, "client_host")?;
        out.put_i32(self.rebalance_timeout_ms);
        out.put_i32(self.topology_epoch);
        out.put_string(flexible, &self.process_id, "process_id")?;
        match &self.user_endpoint {
            Some(value) => {
                out.put_i8(1);
                value.encode(out, version)?;
            }
            None => {
                out.put_i8(-1);
            }
        }
        out.put_length(flexible, false, Some(self.client_tags.len()), "client_tags")?;
        for item in &self.client_tags {
            item.encode(out, version)?;
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

impl Message for StreamsGroupMemberMetadataValue {
    const NAME: &'static str = "StreamsGroupMemberMetadataValue";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for StreamsGroupMemberMetadataValue {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.instance_id = g.nullable(|g| g.string());
        this.rack_id = g.nullable(|g| g.string());
        this.client_id = g.string();
        this.client_host = g.string();
        this.rebalance_timeout_ms = g.i32();
        this.topology_epoch = g.i32();
        this.process_id = g.string();
        this.user_endpoint = g.nullable(|g| <Endpoint as crate::sample::Sample>::sample(g, version));
        this.client_tags = g.vec(|g| <KeyValue as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `Endpoint`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    /// Versions 0.
    pub host: String,
    /// Versions 0.
    pub port: u16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Endpoint {
    fn default() -> Self {
        Endpoint { host: String::new(), port: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for Endpoint {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Endpoint::default();
        this.host = d.string(flexible, "host")?;
        this.port = d.u16()?;
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
        out.put_string(flexible, &self.host, "host")?;
        out.put_u16(self.port);
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
impl crate::sample::Sample for Endpoint {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.host = g.string();
        this.port = g.u16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `KeyValue`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyValue {
    /// Versions 0.
    pub key: String,
    /// Versions 0.
    pub value: String,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for KeyValue {
    fn default() -> Self {
        KeyValue { key: String::new(), value: String::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for KeyValue {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = KeyValue::default();
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
impl crate::sample::Sample for KeyValue {
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
