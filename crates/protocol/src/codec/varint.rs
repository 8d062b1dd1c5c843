//! Kafka's variable-length integers over plain byte slices: unsigned varints (LEB128, as used by
//! compact lengths and tagged fields) and zigzag `varint`/`varlong` (as used inside records).
//!
//! Readers return the value and the number of bytes it took, so the record iterator can walk a
//! borrowed slice without a cursor type. A varint longer than its type allows is an error, never
//! a silent wrap-around.

use super::DecodeError;

/// The most bytes an unsigned 32-bit varint can take.
pub const VARINT_BYTES_MAX: usize = 5;
/// The most bytes a 64-bit varlong can take.
pub const VARLONG_BYTES_MAX: usize = 10;

/// Reads an unsigned varint (at most 5 bytes, 32 bits of payload).
pub fn read_unsigned_varint(buf: &[u8]) -> Result<(u32, usize), DecodeError> {
    let (value, len) = read_unsigned_varlong_max(buf, VARINT_BYTES_MAX)?;
    let value = u32::try_from(value).map_err(|_| DecodeError::VarintTooLong)?;
    Ok((value, len))
}

/// Reads an unsigned varlong (at most 10 bytes, 64 bits of payload).
pub fn read_unsigned_varlong(buf: &[u8]) -> Result<(u64, usize), DecodeError> {
    read_unsigned_varlong_max(buf, VARLONG_BYTES_MAX)
}

/// Reads a zigzag-encoded signed 32-bit varint.
pub fn read_varint(buf: &[u8]) -> Result<(i32, usize), DecodeError> {
    let (raw, len) = read_unsigned_varint(buf)?;
    Ok((((raw >> 1) as i32) ^ -((raw & 1) as i32), len))
}

/// Reads a zigzag-encoded signed 64-bit varlong.
pub fn read_varlong(buf: &[u8]) -> Result<(i64, usize), DecodeError> {
    let (raw, len) = read_unsigned_varlong(buf)?;
    Ok((((raw >> 1) as i64) ^ -((raw & 1) as i64), len))
}

fn read_unsigned_varlong_max(buf: &[u8], bytes_max: usize) -> Result<(u64, usize), DecodeError> {
    let mut value: u64 = 0;
    for (i, &byte) in buf.iter().take(bytes_max).enumerate() {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok((value, i + 1));
        }
    }
    if buf.len() < bytes_max {
        Err(DecodeError::Truncated { needed: buf.len() + 1, remaining: buf.len() })
    } else {
        Err(DecodeError::VarintTooLong)
    }
}

/// Appends an unsigned varint.
pub fn put_unsigned_varint(out: &mut impl bytes::BufMut, value: u32) {
    put_unsigned_varlong(out, u64::from(value));
}

/// Appends an unsigned varlong.
pub fn put_unsigned_varlong(out: &mut impl bytes::BufMut, mut value: u64) {
    while value >= 0x80 {
        out.put_u8((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.put_u8(value as u8);
}

/// Appends a zigzag-encoded signed 32-bit varint.
pub fn put_varint(out: &mut impl bytes::BufMut, value: i32) {
    put_unsigned_varint(out, ((value << 1) ^ (value >> 31)) as u32);
}

/// Appends a zigzag-encoded signed 64-bit varlong.
pub fn put_varlong(out: &mut impl bytes::BufMut, value: i64) {
    put_unsigned_varlong(out, ((value << 1) ^ (value >> 63)) as u64);
}

/// The encoded size of an unsigned varint.
pub fn unsigned_varint_len(value: u32) -> usize {
    unsigned_varlong_len(u64::from(value))
}

/// The encoded size of an unsigned varlong.
pub fn unsigned_varlong_len(value: u64) -> usize {
    let bits = 64 - (value | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// The encoded size of a zigzag varint.
pub fn varint_len(value: i32) -> usize {
    unsigned_varint_len(((value << 1) ^ (value >> 31)) as u32)
}

/// The encoded size of a zigzag varlong.
pub fn varlong_len(value: i64) -> usize {
    unsigned_varlong_len(((value << 1) ^ (value >> 63)) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known encodings from Kafka's ByteUtilsTest, both directions, with their lengths.
    #[test]
    fn zigzag_matches_kafka() {
        let cases: &[(i32, &[u8])] = &[
            (0, &[0x00]),
            (-1, &[0x01]),
            (1, &[0x02]),
            (-2, &[0x03]),
            (63, &[0x7e]),
            (-64, &[0x7f]),
            (64, &[0x80, 0x01]),
            (i32::MAX, &[0xfe, 0xff, 0xff, 0xff, 0x0f]),
            (i32::MIN, &[0xff, 0xff, 0xff, 0xff, 0x0f]),
        ];
        for &(value, bytes) in cases {
            let mut out = Vec::new();
            put_varint(&mut out, value);
            assert_eq!(out, bytes, "encoding {value}");
            assert_eq!(read_varint(bytes).ok(), Some((value, bytes.len())), "decoding {value}");
            assert_eq!(varint_len(value), bytes.len());
        }
    }

    /// Every i64 boundary survives a varlong round trip and reports its length.
    #[test]
    fn varlong_round_trips() {
        for value in [0, 1, -1, 300, -300, i64::from(i32::MAX) + 1, i64::MAX, i64::MIN] {
            let mut out = Vec::new();
            put_varlong(&mut out, value);
            assert_eq!(out.len(), varlong_len(value));
            assert_eq!(read_varlong(&out).ok(), Some((value, out.len())));
        }
    }

    /// A sixth continuation byte is rejected, and a cut-off varint says it is truncated.
    #[test]
    fn malformed_varints_are_errors() {
        assert_eq!(read_unsigned_varint(&[0x80; 6]), Err(DecodeError::VarintTooLong));
        assert_eq!(read_unsigned_varint(&[0xff, 0xff, 0xff, 0xff, 0x7f]), Err(DecodeError::VarintTooLong));
        assert!(matches!(read_unsigned_varint(&[0x80, 0x80]), Err(DecodeError::Truncated { .. })));
        assert!(matches!(read_unsigned_varint(&[]), Err(DecodeError::Truncated { .. })));
    }
}
