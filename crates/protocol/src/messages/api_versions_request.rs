//! `ApiVersionsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ApiVersionsRequest`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiVersionsRequest {
    /// Versions 3-5; ignorable.
    pub client_software_name: String,
    /// Versions 3-5; ignorable.
    pub client_software_version: String,
    /// Versions 5; nullable 5; ignorable.
    pub cluster_id: Option<String>,
    /// Versions 5; ignorable.
    pub node_id: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ApiVersionsRequest {
    fn default() -> Self {
        ApiVersionsRequest {
            client_software_name: String::new(),
            client_software_version: String::new(),
            cluster_id: None,
            node_id: -1_i32,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ApiVersionsRequest {
    const ENCODED_SIZE_MIN: usize = 0;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = ApiVersionsRequest::default();
        if version >= 3 {
            this.client_software_name = d.string(flexible, "client_software_name")?;
        }
        if version >= 3 {
            this.client_software_version = d.string(flexible, "client_software_version")?;
        }
        if version >= 5 {
            this.cluster_id = d.nullable_string(flexible)?;
        }
        if version >= 5 {
            this.node_id = d.i32()?;
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
        if version >= 3 {
            out.put_string(flexible, &self.client_software_name, "client_software_name")?;
        }
        if version >= 3 {
            out.put_string(flexible, &self.client_software_version, "client_software_version")?;
        }
        if version >= 5 {
            match &self.cluster_id {
                Some(value) => {
                    out.put_string(flexible, value, "cluster_id")?;
                }
                None => {
                    out.put_length(flexible, true, None, "cluster_id")?;
                }
            }
        }
        if version >= 5 {
            out.put_i32(self.node_id);
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

impl Message for ApiVersionsRequest {
    const NAME: &'static str = "ApiVersionsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 5 };
    const FLEXIBLE_MIN: Option<i16> = Some(3);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ApiVersionsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        if version >= 3 {
            this.client_software_name = g.string();
        }
        if version >= 3 {
            this.client_software_version = g.string();
        }
        if version >= 5 {
            this.cluster_id = g.nullable(|g| g.string());
        }
        if version >= 5 {
            this.node_id = g.i32();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
