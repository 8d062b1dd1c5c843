//! `TransactionLogValue`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `TransactionLogValue`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct TransactionLogValue {
    /// Versions 0-1.
    pub producer_id: i64,
    /// Tagged only; tag 0 in 1+.
    pub previous_producer_id: i64,
    /// Tagged only; tag 1 in 1+.
    pub next_producer_id: i64,
    /// Versions 0-1.
    pub producer_epoch: i16,
    /// Tagged only; tag 3 in 1+.
    pub next_producer_epoch: i16,
    /// Versions 0-1.
    pub transaction_timeout_ms: i32,
    /// Versions 0-1.
    pub transaction_status: i8,
    /// Versions 0-1; nullable 0-1.
    pub transaction_partitions: Option<Vec<PartitionsSchema>>,
    /// Versions 0-1.
    pub transaction_last_update_timestamp_ms: i64,
    /// Versions 0-1.
    pub transaction_start_timestamp_ms: i64,
    /// Tagged only; tag 2 in 1+.
    pub client_transaction_version: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TransactionLogValue {
    fn default() -> Self {
        TransactionLogValue {
            producer_id: 0,
            previous_producer_id: -1_i64,
            next_producer_id: -1_i64,
            producer_epoch: 0,
            next_producer_epoch: -1_i16,
            transaction_timeout_ms: 0,
            transaction_status: 0,
            transaction_partitions: Some(Vec::new()),
            transaction_last_update_timestamp_ms: 0,
            transaction_start_timestamp_ms: 0,
            client_transaction_version: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TransactionLogValue {
    const ENCODED_SIZE_MIN: usize = 32;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = TransactionLogValue::default();
        this.producer_id = d.i64()?;
        this.producer_epoch = d.i16()?;
        this.transaction_timeout_ms = d.i32()?;
        this.transaction_status = d.i8()?;
        this.transaction_partitions =
            d.nullable_array(flexible, PartitionsSchema::ENCODED_SIZE_MIN, |d| PartitionsSchema::decode(d, version))?;
        this.transaction_last_update_timestamp_ms = d.i64()?;
        this.transaction_start_timestamp_ms = d.i64()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 if version >= 1 => {
                        let d = &mut field;
                        this.previous_producer_id = d.i64()?;
                        d.finish_tagged(tag)?;
                    }
                    1 if version >= 1 => {
                        let d = &mut field;
                        this.next_producer_id = d.i64()?;
                        d.finish_tagged(tag)?;
                    }
                    3 if version >= 1 => {
                        let d = &mut field;
                        this.next_producer_epoch = d.i16()?;
                        d.finish_tagged(tag)?;
                    }
                    2 if version >= 1 => {
                        let d = &mut field;
                        this.client_transaction_version = d.i16()?;
                        d.finish_tagged(tag)?;
                    }
                    _ => this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() }),
                }
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 1;
        out.put_i64(self.producer_id);
        out.put_i16(self.producer_epoch);
        out.put_i32(self.transaction_timeout_ms);
        out.put_i8(self.transaction_status);
        match &self.transaction_partitions {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "transaction_partitions")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "transaction_partitions")?;
            }
        }
        out.put_i64(self.transaction_last_update_timestamp_ms);
        out.put_i64(self.transaction_start_timestamp_ms);
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if version >= 1 && self.previous_producer_id != -1_i64 {
                let out = tagged.field(0);
                out.put_i64(self.previous_producer_id);
            } else {
                if self.previous_producer_id != -1_i64 {
                    return Err(EncodeError::FieldNotInVersion { field: "previous_producer_id", version });
                }
            }
            if version >= 1 && self.next_producer_id != -1_i64 {
                let out = tagged.field(1);
                out.put_i64(self.next_producer_id);
            } else {
                if self.next_producer_id != -1_i64 {
                    return Err(EncodeError::FieldNotInVersion { field: "next_producer_id", version });
                }
            }
            if version >= 1 && self.next_producer_epoch != -1_i16 {
                let out = tagged.field(3);
                out.put_i16(self.next_producer_epoch);
            } else {
                if self.next_producer_epoch != -1_i16 {
                    return Err(EncodeError::FieldNotInVersion { field: "next_producer_epoch", version });
                }
            }
            if version >= 1 && self.client_transaction_version != 0 {
                let out = tagged.field(2);
                out.put_i16(self.client_transaction_version);
            } else {
                if self.client_transaction_version != 0 {
                    return Err(EncodeError::FieldNotInVersion { field: "client_transaction_version", version });
                }
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for TransactionLogValue {
    const NAME: &'static str = "TransactionLogValue";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(1);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for TransactionLogValue {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.producer_id = g.i64();
        if version >= 1 && g.bool() {
            this.previous_producer_id = g.i64();
        }
        if version >= 1 && g.bool() {
            this.next_producer_id = g.i64();
        }
        this.producer_epoch = g.i16();
        if version >= 1 && g.bool() {
            this.next_producer_epoch = g.i16();
        }
        this.transaction_timeout_ms = g.i32();
        this.transaction_status = g.i8();
        this.transaction_partitions =
            g.nullable(|g| g.vec(|g| <PartitionsSchema as crate::sample::Sample>::sample(g, version)));
        this.transaction_last_update_timestamp_ms = g.i64();
        this.transaction_start_timestamp_ms = g.i64();
        if version >= 1 && g.bool() {
            this.client_transaction_version = g.i16();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `PartitionsSchema`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionsSchema {
    /// Versions 0-1.
    pub topic: String,
    /// Versions 0-1.
    pub partition_ids: Vec<i32>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionsSchema {
    fn default() -> Self {
        PartitionsSchema { topic: String::new(), partition_ids: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for PartitionsSchema {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = PartitionsSchema::default();
        this.topic = d.string(flexible, "topic")?;
        this.partition_ids = d.array(flexible, 4, "partition_ids", |d| d.i32())?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 1;
        out.put_string(flexible, &self.topic, "topic")?;
        out.put_length(flexible, false, Some(self.partition_ids.len()), "partition_ids")?;
        for item in &self.partition_ids {
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
impl crate::sample::Sample for PartitionsSchema {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.topic = g.string();
        this.partition_ids = g.vec(|g| g.i32());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
