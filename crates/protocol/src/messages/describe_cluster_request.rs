//! `DescribeClusterRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeClusterRequest`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeClusterRequest {
    /// Versions 0-2.
    pub include_cluster_authorized_operations: bool,
    /// Versions 1-2.
    pub endpoint_type: i8,
    /// Versions 2.
    pub include_fenced_brokers: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeClusterRequest {
    fn default() -> Self {
        DescribeClusterRequest {
            include_cluster_authorized_operations: false,
            endpoint_type: 1,
            include_fenced_brokers: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeClusterRequest {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DescribeClusterRequest::default();
        this.include_cluster_authorized_operations = d.bool()?;
        if version >= 1 {
            this.endpoint_type = d.i8()?;
        }
        if version >= 2 {
            this.include_fenced_brokers = d.bool()?;
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
        out.put_bool(self.include_cluster_authorized_operations);
        if version >= 1 {
            out.put_i8(self.endpoint_type);
        } else {
            if self.endpoint_type != 1 {
                return Err(EncodeError::FieldNotInVersion { field: "endpoint_type", version });
            }
        }
        if version >= 2 {
            out.put_bool(self.include_fenced_brokers);
        } else {
            if self.include_fenced_brokers {
                return Err(EncodeError::FieldNotInVersion { field: "include_fenced_brokers", version });
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

impl Message for DescribeClusterRequest {
    const NAME: &'static str = "DescribeClusterRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeClusterRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.include_cluster_authorized_operations = g.bool();
        if version >= 1 {
            this.endpoint_type = g.i8();
        }
        if version >= 2 {
            this.include_fenced_brokers = g.bool();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
