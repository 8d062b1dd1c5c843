//! `ConsumerGroupMemberMetadataValue`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ConsumerGroupMemberMetadataValue`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsumerGroupMemberMetadataValue {
    /// Versions 0; nullable 0.
    pub instance_id: Option<String>,
    /// Versions 0; nullable 0.
    pub rack_id: Option<String>,
    /// Versions 0.
    pub client_id: String,
    /// Versions 0.
    pub client_host: String,
    /// Versions 0.
    pub subscribed_topic_names: Vec<String>,
    /// Versions 0; nullable 0.
    pub subscribed_topic_regex: Option<String>,
    /// Versions 0.
    pub rebalance_timeout_ms: i32,
    /// Versions 0; nullable 0.
    pub server_assignor: Option<String>,
    /// Tagged only; nullable 0; tag 0 in 0+.
    pub classic_member_metadata: Option<ClassicMemberMetadata>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ConsumerGroupMemberMetadataValue {
    fn default() -> Self {
        ConsumerGroupMemberMetadataValue {
            instance_id: Some(String::new()),
            rack_id: Some(String::new()),
            client_id: String::new(),
            client_host: String::new(),
            subscribed_topic_names: Vec::new(),
            subscribed_topic_regex: Some(String::new()),
            rebalance_timeout_ms: -1_i32,
            server_assignor: Some(String::new()),
            classic_member_metadata: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ConsumerGroupMemberMetadataValue {
    const ENCODED_SIZE_MIN: usize = 12;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ConsumerGroupMemberMetadataValue::default();
        this.instance_id = d.nullable_string(flexible)?;
        this.rack_id = d.nullable_string(flexible)?;
        this.client_id = d.string(flexible, "client_id")?;
        this.client_host = d.string(flexible, "client_host")?;
        this.subscribed_topic_names =
            d.array(flexible, 1, "subscribed_topic_names", |d| d.string(flexible, "subscribed_topic_names"))?;
        this.subscribed_topic_regex = d.nullable_string(flexible)?;
        this.rebalance_timeout_ms = d.i32()?;
        this.server_assignor = d.nullable_string(flexible)?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 => {
                        let d = &mut field;
                        this.classic_member_metadata =
                            if d.struct_marker()? { Some(ClassicMemberMetadata::decode(d, version)?) } else { None };
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
        out.put_length(flexible, false, Some(self.subscribed_topic_names.len()), "subscribed_topic_names")?;
        for item in &self.subscribed_topic_names {
            out.put_string(flexible, item, "subscribed_topic_names")?;
        }
        match &self.subscribed_topic_regex {
            Some(value) => {
                out.put_string(flexible, value, "subscribed_topic_regex")?;
            }
            None => {
                out.put_length(flexible, true, None, "subscribed_topic_regex")?;
            }
        }
        out.put_i32(self.rebalance_timeout_ms);
        match &self.server_assignor {
            Some(value) => {
                out.put_string(flexible, value, "server_assignor")?;
            }
            None => {
                out.put_length(flexible, true, None, "server_assignor")?;
            }
        }
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if self.classic_member_metadata.is_some() {
                let out = tagged.field(0);
                match &self.classic_member_metadata {
                    Some(value) => {
                        out.put_i8(1);
                        value.encode(out, version)?;
                    }
                    None => {
                        out.put_i8(-1);
                    }
                }
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for ConsumerGroupMemberMetadataValue {
    const NAME: &'static str = "ConsumerGroupMemberMetadataValue";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ConsumerGroupMemberMetadataValue {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.instance_id = g.nullable(|g| g.string());
        this.rack_id = g.nullable(|g| g.string());
        this.client_id = g.string();
        this.client_host = g.string();
        this.subscribed_topic_names = g.vec(|g| g.string());
        this.subscribed_topic_regex = g.nullable(|g| g.string());
        this.rebalance_timeout_ms = g.i32();
        this.server_assignor = g.nullable(|g| g.string());
        if g.bool() {
            this.classic_member_metadata =
                g.nullable(|g| <ClassicMemberMetadata as crate::sample::Sample>::sample(g, version));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ClassicProtocol`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassicProtocol {
    /// Versions 0.
    pub name: String,
    /// Versions 0.
    pub metadata: Bytes,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ClassicProtocol {
    fn default() -> Self {
        ClassicProtocol { name: String::new(), metadata: Bytes::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ClassicProtocol {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ClassicProtocol::default();
        this.name = d.string(flexible, "name")?;
        this.metadata = d.bytes(flexible, "metadata")?;
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
        out.put_string(flexible, &self.name, "name")?;
        out.put_bytes_field(flexible, &self.metadata, "metadata")?;
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
impl crate::sample::Sample for ClassicProtocol {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.metadata = g.bytes();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ClassicMemberMetadata`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassicMemberMetadata {
    /// Versions 0.
    pub session_timeout_ms: i32,
    /// Versions 0.
    pub supported_protocols: Vec<ClassicProtocol>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ClassicMemberMetadata {
    fn default() -> Self {
        ClassicMemberMetadata {
            session_timeout_ms: 0,
            supported_protocols: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ClassicMemberMetadata {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ClassicMemberMetadata::default();
        this.session_timeout_ms = d.i32()?;
        this.supported_protocols =
            d.array(flexible, ClassicProtocol::ENCODED_SIZE_MIN, "supported_protocols", |d| {
                ClassicProtocol::decode(d, version)
            })?;
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
        out.put_i32(self.session_timeout_ms);
        out.put_length(flexible, false, Some(self.supported_protocols.len()), "supported_protocols")?;
        for item in &self.supported_protocols {
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

#[cfg(feature = "sample")]
impl crate::sample::Sample for ClassicMemberMetadata {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.session_timeout_ms = g.i32();
        this.supported_protocols = g.vec(|g| <ClassicProtocol as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
