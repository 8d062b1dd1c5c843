//! `ShareSnapshotKey`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ShareSnapshotKey`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareSnapshotKey {
    /// Versions 0.
    pub group_id: String,
    /// Versions 0.
    pub topic_id: Uuid,
    /// Versions 0.
    pub partition: i32,
}

impl Default for ShareSnapshotKey {
    fn default() -> Self {
        ShareSnapshotKey { group_id: String::new(), topic_id: Uuid::ZERO, partition: 0 }
    }
}

impl Struct for ShareSnapshotKey {
    const ENCODED_SIZE_MIN: usize = 21;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = false;
        let mut this = ShareSnapshotKey::default();
        this.group_id = d.string(flexible, "group_id")?;
        this.topic_id = d.uuid()?;
        this.partition = d.i32()?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, _version: i16) -> Result<(), EncodeError> {
        let flexible = false;
        out.put_string(flexible, &self.group_id, "group_id")?;
        out.put_uuid(&self.topic_id);
        out.put_i32(self.partition);
        Ok(())
    }
}

impl Message for ShareSnapshotKey {
    const NAME: &'static str = "ShareSnapshotKey";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = None;
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ShareSnapshotKey {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let mut this = Self::default();
        this.group_id = g.string();
        this.topic_id = g.uuid();
        this.partition = g.i32();
        this
    }
}
