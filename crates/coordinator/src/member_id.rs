//! Where new member ids come from. Kafka names a member `client_id-<random UUID>` (KIP-394); the
//! random part is an input to the coordinator so that tests choose it.

use std::sync::atomic::{AtomicU64, Ordering};

/// Draws the random part of new member ids.
pub trait MemberIdGenerator: Send + Sync + std::fmt::Debug {
    /// A fresh UUID in Java's `UUID.toString` form: 36 lowercase hex digits and hyphens.
    fn next_uuid(&self) -> String;
}

/// Random version-4 UUIDs from the OS (`/dev/urandom`), as Java's `UUID.randomUUID`. Without OS
/// randomness it falls back to a process-wide counter, still unique on this node.
#[derive(Debug, Default)]
pub struct RandomMemberIds;

impl MemberIdGenerator for RandomMemberIds {
    fn next_uuid(&self) -> String {
        let mut bytes = [0u8; 16];
        let drawn = std::fs::File::open("/dev/urandom").and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes));
        if drawn.is_err() {
            static FALLBACK: AtomicU64 = AtomicU64::new(1);
            bytes[..8].copy_from_slice(&u64::from(std::process::id()).to_be_bytes());
            bytes[8..].copy_from_slice(&FALLBACK.fetch_add(1, Ordering::Relaxed).to_be_bytes());
        }
        bytes[6] = (bytes[6] & 0x0f) | 0x40;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        format_uuid(&bytes)
    }
}

/// UUIDs counting up from 1 (`00000000-0000-0000-0000-000000000001`, ...): deterministic ids for
/// tests.
#[derive(Debug, Default)]
pub struct SequentialMemberIds {
    next: AtomicU64,
}

impl MemberIdGenerator for SequentialMemberIds {
    fn next_uuid(&self) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let mut bytes = [0u8; 16];
        bytes[8..].copy_from_slice(&n.to_be_bytes());
        format_uuid(&bytes)
    }
}

/// Java's `UUID.toString`: 8-4-4-4-12 lowercase hex digits.
pub fn format_uuid(bytes: &[u8; 16]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random ids have Java's shape and the version-4 bits; sequential ones count up.
    #[test]
    fn ids_have_javas_uuid_shape() {
        let id = RandomMemberIds.next_uuid();
        assert_eq!(id.len(), 36);
        assert_eq!(id.as_bytes()[14], b'4', "version 4: {id}");
        assert!(matches!(id.as_bytes()[19], b'8' | b'9' | b'a' | b'b'), "variant bits: {id}");
        assert_ne!(id, RandomMemberIds.next_uuid());
        let ids = SequentialMemberIds::default();
        assert_eq!(ids.next_uuid(), "00000000-0000-0000-0000-000000000001");
        assert_eq!(ids.next_uuid(), "00000000-0000-0000-0000-000000000002");
    }
}
