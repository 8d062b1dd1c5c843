//! `ShareGroupHeartbeatRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ShareGroupHeartbeatRequest`, versions 1.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareGroupHeartbeatRequest {
    /// Versions 1.
    pub group_id: String,
    /// Versions 1.
    pub member_id: String,
    /// Versions 1.
    pub member_epoch: i32,
    /// Versions 1; nullable 1.
    pub rack_id: Option<String>,
    /// Versions 1; nullable 1.
    pub subscribed_topic_names: Option<Vec<String>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ShareGroupHeartbeatRequest {
    fn default() -> Self {
        ShareGroupHeartbeatRequest {
            group_id: String::new(),
            member_id: String::new(),
            member_epoch: 0,
            rack_id: None,
            subscribed_topic_names: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ShareGroupHeartbeatRequest {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ShareGroupHeartbeatRequest::default();
        this.group_id = d.string(flexible, "group_id")?;
        this.member_id = d.string(flexible, "member_id")?;
        this.member_epoch = d.i32()?;
        this.rack_id = d.nullable_string(flexible)?;
        this.subscribed_topic_names =
            d.nullable_array(flexible, 1, |d| d.string(flexible, "subscribed_topic_names"))?;
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
        out.put_string(flexible, &self.group_id, "group_id")?;
        out.put_string(flexible, &self.member_id, "member_id")?;
        out.put_i32(self.member_epoch);
        match &self.rack_id {
            Some(value) => {
                out.put_string(flexible, value, "rack_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "rack_id")?;
            }
        }
        match &self.subscribed_topic_names {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "subscribed_topic_names")?;
                for item in value {
                    out.put_string(flexible, item, "subscribed_topic_names")?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "subscribed_topic_names")?;
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

impl Message for ShareGroupHeartbeatRequest {
    const NAME: &'static str = "ShareGroupHeartbeatRequest";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ShareGroupHeartbeatRequest {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.group_id = g.string();
        this.member_id = g.string();
        this.member_epoch = g.i32();
        this.rack_id = g.nullable(|g| g.string());
        this.subscribed_topic_names = g.nullable(|g| g.vec(|g| g.string()));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
