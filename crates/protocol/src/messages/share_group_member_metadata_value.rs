//! `ShareGroupMemberMetadataValue`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ShareGroupMemberMetadataValue`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareGroupMemberMetadataValue {
    /// Versions 0; nullable 0.
    pub rack_id: Option<String>,
    /// Versions 0.
    pub client_id: String,
    /// Versions 0.
    pub client_host: String,
    /// Versions 0.
    pub subscribed_topic_names: Vec<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ShareGroupMemberMetadataValue {
    fn default() -> Self {
        ShareGroupMemberMetadataValue {
            rack_id: Some(String::new()),
            client_id: String::new(),
            client_host: String::new(),
            subscribed_topic_names: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ShareGroupMemberMetadataValue {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ShareGroupMemberMetadataValue::default();
        this.rack_id = d.nullable_string(flexible)?;
        this.client_id = d.string(flexible, "client_id")?;
        this.client_host = d.string(flexible, "client_host")?;
        this.subscribed_topic_names =
            d.array(flexible, 1, "subscribed_topic_names", |d| d.string(flexible, "subscribed_topic_names"))?;
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
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for ShareGroupMemberMetadataValue {
    const NAME: &'static str = "ShareGroupMemberMetadataValue";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ShareGroupMemberMetadataValue {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.rack_id = g.nullable(|g| g.string());
        this.client_id = g.string();
        this.client_host = g.string();
        this.subscribed_topic_names = g.vec(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
