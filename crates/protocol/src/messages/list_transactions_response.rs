//! `ListTransactionsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ListTransactionsResponse`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct ListTransactionsResponse {
    /// Versions 0-2.
    pub throttle_time_ms: i32,
    /// Versions 0-2.
    pub error_code: i16,
    /// Versions 0-2.
    pub unknown_state_filters: Vec<String>,
    /// Versions 0-2.
    pub transaction_states: Vec<TransactionState>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ListTransactionsResponse {
    fn default() -> Self {
        ListTransactionsResponse {
            throttle_time_ms: 0,
            error_code: 0,
            unknown_state_filters: Vec::new(),
            transaction_states: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ListTransactionsResponse {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ListTransactionsResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        this.unknown_state_filters =
            d.array(flexible, 1, "unknown_state_filters", |d| d.string(flexible, "unknown_state_filters"))?;
        this.transaction_states = d.array(flexible, TransactionState::ENCODED_SIZE_MIN, "transaction_states", |d| {
            TransactionState::decode(d, version)
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
        out.put_i32(self.throttle_time_ms);
        out.put_i16(self.error_code);
        out.put_length(flexible, false, Some(self.unknown_state_filters.len()), "unknown_state_filters")?;
        for item in &self.unknown_state_filters {
            out.put_string(flexible, item, "unknown_state_filters")?;
        }
        out.put_length(flexible, false, Some(self.transaction_states.len()), "transaction_states")?;
        for item in &self.transaction_states {
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

impl Message for ListTransactionsResponse {
    const NAME: &'static str = "ListTransactionsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ListTransactionsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        this.unknown_state_filters = g.vec(|g| g.string());
        this.transaction_states = g.vec(|g| <TransactionState as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TransactionState`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct TransactionState {
    /// Versions 0-2.
    pub transactional_id: String,
    /// Versions 0-2.
    pub producer_id: ProducerId,
    /// Versions 0-2.
    pub transaction_state: String,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TransactionState {
    fn default() -> Self {
        TransactionState {
            transactional_id: String::new(),
            producer_id: ProducerId(0),
            transaction_state: String::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TransactionState {
    const ENCODED_SIZE_MIN: usize = 11;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TransactionState::default();
        this.transactional_id = d.string(flexible, "transactional_id")?;
        this.producer_id = d.i64().map(ProducerId)?;
        this.transaction_state = d.string(flexible, "transaction_state")?;
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
        out.put_string(flexible, &self.transactional_id, "transactional_id")?;
        out.put_i64(self.producer_id.0);
        out.put_string(flexible, &self.transaction_state, "transaction_state")?;
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
impl crate::sample::Sample for TransactionState {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.transactional_id = g.string();
        this.producer_id = ProducerId(g.i64());
        this.transaction_state = g.string();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
