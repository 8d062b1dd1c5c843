//! `ListTransactionsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ListTransactionsRequest`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct ListTransactionsRequest {
    /// Versions 0-2.
    pub state_filters: Vec<String>,
    /// Versions 0-2.
    pub producer_id_filters: Vec<ProducerId>,
    /// Versions 1-2.
    pub duration_filter: i64,
    /// Versions 2; nullable 2.
    pub transactional_id_pattern: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ListTransactionsRequest {
    fn default() -> Self {
        ListTransactionsRequest {
            state_filters: Vec::new(),
            producer_id_filters: Vec::new(),
            duration_filter: -1_i64,
            transactional_id_pattern: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ListTransactionsRequest {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ListTransactionsRequest::default();
        this.state_filters = d.array(flexible, 1, "state_filters", |d| d.string(flexible, "state_filters"))?;
        this.producer_id_filters = d.array(flexible, 8, "producer_id_filters", |d| d.i64().map(ProducerId))?;
        if version >= 1 {
            this.duration_filter = d.i64()?;
        }
        if version >= 2 {
            this.transactional_id_pattern = d.nullable_string(flexible)?;
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
        out.put_length(flexible, false, Some(self.state_filters.len()), "state_filters")?;
        for item in &self.state_filters {
            out.put_string(flexible, item, "state_filters")?;
        }
        out.put_length(flexible, false, Some(self.producer_id_filters.len()), "producer_id_filters")?;
        for item in &self.producer_id_filters {
            out.put_i64(item.0);
        }
        if version >= 1 {
            out.put_i64(self.duration_filter);
        } else {
            if self.duration_filter != -1_i64 {
                return Err(EncodeError::FieldNotInVersion { field: "duration_filter", version });
            }
        }
        if version >= 2 {
            match &self.transactional_id_pattern {
                Some(value) => {
                    out.put_string(flexible, value, "transactional_id_pattern")?;
                }
                None => {
                    out.put_length(flexible, true, None, "transactional_id_pattern")?;
                }
            }
        } else {
            if self.transactional_id_pattern.is_some() {
                return Err(EncodeError::FieldNotInVersion { field: "transactional_id_pattern", version });
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

impl Message for ListTransactionsRequest {
    const NAME: &'static str = "ListTransactionsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ListTransactionsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.state_filters = g.vec(|g| g.string());
        this.producer_id_filters = g.vec(|g| ProducerId(g.i64()));
        if version >= 1 {
            this.duration_filter = g.i64();
        }
        if version >= 2 {
            this.transactional_id_pattern = g.nullable(|g| g.string());
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
