//! `WriteTxnMarkersRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `WriteTxnMarkersRequest`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteTxnMarkersRequest {
    /// Versions 1-2.
    pub markers: Vec<WritableTxnMarker>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for WriteTxnMarkersRequest {
    fn default() -> Self {
        WriteTxnMarkersRequest { markers: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for WriteTxnMarkersRequest {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = WriteTxnMarkersRequest::default();
        this.markers = d.array(flexible, WritableTxnMarker::ENCODED_SIZE_MIN, "markers", |d| {
            WritableTxnMarker::decode(d, version)
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
        out.put_length(flexible, false, Some(self.markers.len()), "markers")?;
        for item in &self.markers {
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

impl Message for WriteTxnMarkersRequest {
    const NAME: &'static str = "WriteTxnMarkersRequest";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(1);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for WriteTxnMarkersRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.markers = g.vec(|g| <WritableTxnMarker as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `WritableTxnMarkerTopic`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct WritableTxnMarkerTopic {
    /// Versions 1-2.
    pub name: String,
    /// Versions 1-2.
    pub partition_indexes: Vec<i32>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for WritableTxnMarkerTopic {
    fn default() -> Self {
        WritableTxnMarkerTopic { name: String::new(), partition_indexes: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for WritableTxnMarkerTopic {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = WritableTxnMarkerTopic::default();
        this.name = d.string(flexible, "name")?;
        this.partition_indexes = d.array(flexible, 4, "partition_indexes", |d| d.i32())?;
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
        out.put_length(flexible, false, Some(self.partition_indexes.len()), "partition_indexes")?;
        for item in &self.partition_indexes {
            out.put_i32(*item);
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
impl crate::sample::Sample for WritableTxnMarkerTopic {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.partition_indexes = g.vec(|g| g.i32());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `WritableTxnMarker`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct WritableTxnMarker {
    /// Versions 1-2.
    pub producer_id: ProducerId,
    /// Versions 1-2.
    pub producer_epoch: i16,
    /// Versions 1-2.
    pub transaction_result: bool,
    /// Versions 1-2.
    pub topics: Vec<WritableTxnMarkerTopic>,
    /// Versions 1-2.
    pub coordinator_epoch: i32,
    /// Versions 2; ignorable.
    pub transaction_version: i8,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for WritableTxnMarker {
    fn default() -> Self {
        WritableTxnMarker {
            producer_id: ProducerId(0),
            producer_epoch: 0,
            transaction_result: false,
            topics: Vec::new(),
            coordinator_epoch: 0,
            transaction_version: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for WritableTxnMarker {
    const ENCODED_SIZE_MIN: usize = 17;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = WritableTxnMarker::default();
        this.producer_id = d.i64().map(ProducerId)?;
        this.producer_epoch = d.i16()?;
        this.transaction_result = d.bool()?;
        this.topics = d.array(flexible, WritableTxnMarkerTopic::ENCODED_SIZE_MIN, "topics", |d| {
            WritableTxnMarkerTopic::decode(d, version)
        })?;
        this.coordinator_epoch = d.i32()?;
        if version >= 2 {
            this.transaction_version = d.i8()?;
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
        out.put_i64(self.producer_id.0);
        out.put_i16(self.producer_epoch);
        out.put_bool(self.transaction_result);
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
            item.encode(out, version)?;
        }
        out.put_i32(self.coordinator_epoch);
        if version >= 2 {
            out.put_i8(self.transaction_version);
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
impl crate::sample::Sample for WritableTxnMarker {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.producer_id = ProducerId(g.i64());
        this.producer_epoch = g.i16();
        this.transaction_result = g.bool();
        this.topics = g.vec(|g| <WritableTxnMarkerTopic as crate::sample::Sample>::sample(g, version));
        this.coordinator_epoch = g.i32();
        if version >= 2 {
            this.transaction_version = g.i8();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
