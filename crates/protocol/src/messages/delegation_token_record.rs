//! `DelegationTokenRecord`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DelegationTokenRecord`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct DelegationTokenRecord {
    /// Versions 0.
    pub owner: String,
    /// Versions 0.
    pub requester: String,
    /// Versions 0.
    pub renewers: Vec<String>,
    /// Versions 0.
    pub issue_timestamp: i64,
    /// Versions 0.
    pub max_timestamp: i64,
    /// Versions 0.
    pub expiration_timestamp: i64,
    /// Versions 0.
    pub token_id: String,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DelegationTokenRecord {
    fn default() -> Self {
        DelegationTokenRecord {
            owner: String::new(),
            requester: String::new(),
            renewers: Vec::new(),
            issue_timestamp: 0,
            max_timestamp: 0,
            expiration_timestamp: 0,
            token_id: String::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DelegationTokenRecord {
    const ENCODED_SIZE_MIN: usize = 29;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DelegationTokenRecord::default();
        this.owner = d.string(flexible, "owner")?;
        this.requester = d.string(flexible, "requester")?;
        this.renewers = d.array(flexible, 1, "renewers", |d| d.string(flexible, "renewers"))?;
        this.issue_timestamp = d.i64()?;
        this.max_timestamp = d.i64()?;
        this.expiration_timestamp = d.i64()?;
        this.token_id = d.string(flexible, "token_id")?;
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
        out.put_string(flexible, &self.owner, "owner")?;
        out.put_string(flexible, &self.requester, "requester")?;
        out.put_length(flexible, false, Some(self.renewers.len()), "renewers")?;
        for item in &self.renewers {
            out.put_string(flexible, item, "renewers")?;
        }
        out.put_i64(self.issue_timestamp);
        out.put_i64(self.max_timestamp);
        out.put_i64(self.expiration_timestamp);
        out.put_string(flexible, &self.token_id, "token_id")?;
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for DelegationTokenRecord {
    const NAME: &'static str = "DelegationTokenRecord";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DelegationTokenRecord {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.owner = g.string();
        this.requester = g.string();
        this.renewers = g.vec(|g| g.string());
        this.issue_timestamp = g.i64();
        this.max_timestamp = g.i64();
        this.expiration_timestamp = g.i64();
        this.token_id = g.string();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
