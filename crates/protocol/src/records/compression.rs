//! The compression codecs of Kafka's record batches, with decompression always bounded.
//!
//! A compressed batch compresses its whole records region as one stream; the header stays plain.
//! [`decompress`] never produces, and never allocates for its output, more than the caller's limit:
//! a region that would inflate past it (a "zip bomb") is an error, found while inflating rather
//! than after. Codec state beyond the output is bounded too: an LZ4 block buffer (at most a few
//! MiB, set by the frame) and a zstd window of at most the larger of 8 MiB and the limit (a frame
//! asking for more is refused).
//!
//! Formats, as Kafka's Java client writes and reads them:
//! - gzip: RFC 1952, concatenated members accepted (Java's `GZIPInputStream` does).
//! - snappy: Java writes xerial framing (`0x82 "SNAPPY" 0x00`, int32 version 1, int32
//!   compatible version 1, then blocks of int32 length + raw snappy, 32 KiB of input each);
//!   librdkafka, sarama and franz-go may send one raw snappy block. Both are read, as Java's
//!   `SnappyInputStream` does; we write xerial framing.
//! - lz4: the LZ4 frame format with independent blocks (Kafka's reader refuses linked blocks).
//! - zstd: zstd frames, possibly several.

use std::fmt;
use std::io::{ErrorKind, Read, Write};

use super::RecordsError;

/// A record batch's compression codec, attributes bits 0-2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Compression {
    #[default]
    None,
    Gzip,
    Snappy,
    Lz4,
    Zstd,
}

impl Compression {
    /// Every codec, in id order.
    pub const ALL: [Compression; 5] =
        [Compression::None, Compression::Gzip, Compression::Snappy, Compression::Lz4, Compression::Zstd];

    /// The codec with attributes id `id`.
    pub fn from_id(id: u8) -> Result<Self, RecordsError> {
        Compression::ALL.get(usize::from(id)).copied().ok_or(RecordsError::UnknownCompression(id))
    }

    /// The id stored in a batch's attributes.
    pub fn id(self) -> u8 {
        self as u8
    }

    /// Kafka's name for the codec, as in `compression.type`.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Snappy => "snappy",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
        }
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Inflates `compressed` with `codec`, failing with [`RecordsError::DecompressedTooLarge`] as
/// soon as the output would pass `limit_bytes`. The output buffer never grows past the limit.
pub fn decompress(codec: Compression, compressed: &[u8], limit_bytes: usize) -> Result<Vec<u8>, RecordsError> {
    let limit = Limit { codec, limit_bytes };
    match codec {
        Compression::None => {
            let mut out = Vec::new();
            limit.reserve(&mut out, compressed.len())?;
            out.extend_from_slice(compressed);
            Ok(out)
        }
        Compression::Gzip => read_bounded(flate2::read::MultiGzDecoder::new(compressed), limit),
        Compression::Snappy => snappy::decompress(compressed, limit),
        Compression::Lz4 => read_bounded(lz4_flex::frame::FrameDecoder::new(compressed), limit),
        Compression::Zstd => zstd_decompress(compressed, limit),
    }
}

/// A streaming decompressor of `compressed`, for a reader that needs no more than a window of the
/// output at a time ([`super::walk`]). The codec's own state stays bounded as in [`decompress`]
/// (a raw snappy block, which must be decoded whole, counts against `limit_bytes`); the caller
/// bounds the total it reads.
pub(super) fn decoder<'a>(
    codec: Compression,
    compressed: &'a [u8],
    limit_bytes: usize,
) -> Result<Box<dyn Read + 'a>, RecordsError> {
    let limit = Limit { codec, limit_bytes };
    Ok(match codec {
        Compression::None => Box::new(compressed),
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(compressed)),
        Compression::Snappy => Box::new(snappy::BlockReader::new(compressed, limit)),
        Compression::Lz4 => Box::new(lz4_flex::frame::FrameDecoder::new(compressed)),
        Compression::Zstd => Box::new(zstd_decoder(compressed, limit)?),
    })
}

/// Compresses `data` with `codec` in the format Kafka's Java client writes, at each codec's
/// default level.
pub fn compress(codec: Compression, data: &[u8]) -> Result<Vec<u8>, RecordsError> {
    let failed = |error: std::io::Error| RecordsError::Compress { codec, reason: error.to_string() };
    let mut encoder = Encoder::new(TargetCompression { codec, level: None }, Vec::new()).map_err(failed)?;
    encoder.write_all(data).map_err(failed)?;
    encoder.finish().map_err(failed)
}

/// A codec at a level: what the broker compresses with (Kafka's `Compression`, KIP-390's
/// `compression.<codec>.level`). `None` is the codec's default level; a level is used as given
/// (its range is the config's to check): gzip 1 to 9 (-1: default), zstd zstd's levels, lz4's
/// ignored (one level here, see [`Encoder`]), snappy has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TargetCompression {
    pub codec: Compression,
    pub level: Option<i32>,
}

/// A streaming compressor writing `codec`'s format, as Kafka's Java client writes it, into a
/// sink; its own state is bounded: gzip's 32 KiB window, a 64 KiB LZ4 block, a 32 KiB snappy
/// block, a zstd window of at most 8 MiB (levels above 19 would take up to 128 MiB: their window
/// is capped at [`ZSTD_WINDOW_LOG_FLOOR`], which keeps it readable by every bounded reader).
///
/// LZ4 has one level: `lz4_flex` compresses in LZ4's fast mode only, which Kafka uses at its
/// default level 9 (any other level takes LZ4's high-compression mode there: the same format,
/// smaller output).
pub(crate) enum Encoder<W: Write> {
    None(W),
    Gzip(flate2::write::GzEncoder<W>),
    Snappy(Box<snappy::XerialWriter<W>>),
    Lz4(Box<lz4_flex::frame::FrameEncoder<W>>),
    Zstd(zstd::stream::write::Encoder<'static, W>),
}

impl<W: Write> Encoder<W> {
    /// Starts a stream of `target`'s format into `sink` (xerial snappy writes its header now).
    pub(crate) fn new(target: TargetCompression, sink: W) -> std::io::Result<Self> {
        Ok(match target.codec {
            Compression::None => Encoder::None(sink),
            Compression::Gzip => {
                let level = match target.level {
                    Some(level @ 0..=9) => flate2::Compression::new(level as u32),
                    _ => flate2::Compression::default(),
                };
                Encoder::Gzip(flate2::write::GzEncoder::new(sink, level))
            }
            Compression::Snappy => Encoder::Snappy(Box::new(snappy::XerialWriter::new(sink)?)),
            Compression::Lz4 => {
                use lz4_flex::frame::{BlockMode, BlockSize, FrameEncoder, FrameInfo};
                // As Kafka's `KafkaLZ4BlockOutputStream`: 64 KiB independent blocks, no block or
                // content checksums, no content size.
                let info = FrameInfo::new().block_size(BlockSize::Max64KB).block_mode(BlockMode::Independent);
                Encoder::Lz4(Box::new(FrameEncoder::with_frame_info(info, sink)))
            }
            Compression::Zstd => {
                let level = target.level.unwrap_or(ZSTD_LEVEL_DEFAULT);
                let mut encoder = zstd::stream::write::Encoder::new(sink, level)?;
                if level > ZSTD_LEVEL_BOUNDED_WINDOW_MAX {
                    encoder.window_log(ZSTD_WINDOW_LOG_FLOOR)?;
                }
                Encoder::Zstd(encoder)
            }
        })
    }

    /// Ends the stream (a gzip trailer, the last snappy or LZ4 block, a zstd frame's end) and
    /// returns the sink.
    pub(crate) fn finish(self) -> std::io::Result<W> {
        match self {
            Encoder::None(sink) => Ok(sink),
            Encoder::Gzip(encoder) => encoder.finish(),
            Encoder::Snappy(writer) => writer.finish(),
            Encoder::Lz4(encoder) => encoder.finish().map_err(std::io::Error::other),
            Encoder::Zstd(encoder) => encoder.finish(),
        }
    }

    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Encoder::None(sink) => sink,
            Encoder::Gzip(encoder) => encoder,
            Encoder::Snappy(writer) => writer.as_mut(),
            Encoder::Lz4(encoder) => encoder.as_mut(),
            Encoder::Zstd(encoder) => encoder,
        }
    }
}

impl<W: Write> Write for Encoder<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer().write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer().flush()
    }
}

/// zstd's own default level, which Kafka uses unless `compression.zstd.level` says otherwise.
const ZSTD_LEVEL_DEFAULT: i32 = zstd::DEFAULT_COMPRESSION_LEVEL;
/// The zstd window always allowed (8 MiB), whatever the limit: the window zstd's levels up to 19
/// pick for a stream of unknown size, which is how Kafka's Java client compresses.
const ZSTD_WINDOW_LOG_FLOOR: u32 = 23;
/// The highest zstd level whose window for a stream of unknown size is within
/// [`ZSTD_WINDOW_LOG_FLOOR`]; the "ultra" levels above it are capped to it.
const ZSTD_LEVEL_BOUNDED_WINDOW_MAX: i32 = 19;
/// zstd's largest window log (`ZSTD_WINDOWLOG_MAX_64`).
const ZSTD_WINDOW_LOG_MAX: u32 = 31;
/// How much output to ask a streaming decoder for at a time.
const READ_CHUNK_BYTES: usize = 64 * 1024;

/// The output bound of one decompression.
#[derive(Clone, Copy)]
struct Limit {
    codec: Compression,
    limit_bytes: usize,
}

impl Limit {
    fn exceeded(self) -> RecordsError {
        RecordsError::DecompressedTooLarge { codec: self.codec, limit_bytes: self.limit_bytes }
    }

    fn corrupt(self, reason: impl fmt::Display) -> RecordsError {
        RecordsError::Decompress { codec: self.codec, reason: reason.to_string() }
    }

    /// Makes room for `additional` more bytes, growing geometrically but never past the limit.
    fn reserve(self, out: &mut Vec<u8>, additional: usize) -> Result<(), RecordsError> {
        let needed = out.len().saturating_add(additional);
        if needed > self.limit_bytes {
            return Err(self.exceeded());
        }
        if needed > out.capacity() {
            let target = needed.max(out.capacity().saturating_mul(2).min(self.limit_bytes));
            out.reserve_exact(target - out.len());
        }
        Ok(())
    }
}

/// Drains a streaming decoder into a buffer bounded by `limit`. At the limit it reads one more
/// byte: if the stream has one, the output would be too large.
fn read_bounded(mut reader: impl Read, limit: Limit) -> Result<Vec<u8>, RecordsError> {
    let mut out = Vec::new();
    loop {
        let room = limit.limit_bytes - out.len();
        if room == 0 {
            let mut probe = [0u8; 1];
            return match read_some(&mut reader, &mut probe, limit)? {
                0 => Ok(out),
                _ => Err(limit.exceeded()),
            };
        }
        let want = room.min(READ_CHUNK_BYTES);
        limit.reserve(&mut out, want)?;
        let start = out.len();
        out.resize(start + want, 0);
        let read = read_some(&mut reader, &mut out[start..], limit)?;
        out.truncate(start + read);
        if read == 0 {
            return Ok(out);
        }
    }
}

fn read_some(reader: &mut impl Read, buf: &mut [u8], limit: Limit) -> Result<usize, RecordsError> {
    loop {
        match reader.read(buf) {
            Ok(read) => return Ok(read),
            Err(error) if error.kind() == ErrorKind::Interrupted => continue,
            Err(error) => return Err(limit.corrupt(error)),
        }
    }
}

/// zstd with its window capped near the limit, so a tiny frame declaring a huge window cannot
/// make the decoder reserve much more than the caller allowed. A first frame that declares a
/// content size past the limit is refused before decoding.
fn zstd_decompress(compressed: &[u8], limit: Limit) -> Result<Vec<u8>, RecordsError> {
    read_bounded(zstd_decoder(compressed, limit)?, limit)
}

/// The zstd stream decoder behind [`zstd_decompress`] and [`decoder`].
fn zstd_decoder(compressed: &[u8], limit: Limit) -> Result<zstd::stream::read::Decoder<'static, &[u8]>, RecordsError> {
    if let Ok(Some(declared)) = zstd::zstd_safe::get_frame_content_size(compressed)
        && declared > limit.limit_bytes as u64
    {
        return Err(limit.exceeded());
    }
    let mut decoder = zstd::stream::read::Decoder::with_buffer(compressed).map_err(|e| limit.corrupt(e))?;
    decoder.window_log_max(zstd_window_log_max(limit.limit_bytes)).map_err(|e| limit.corrupt(e))?;
    Ok(decoder)
}

/// The window log of the smallest power of two at or above `limit_bytes` (a frame holding exactly
/// the limit may need a window that large), but at least [`ZSTD_WINDOW_LOG_FLOOR`] and at most
/// zstd's largest.
fn zstd_window_log_max(limit_bytes: usize) -> u32 {
    let ceil_log2 = limit_bytes.max(1).next_power_of_two().trailing_zeros();
    ceil_log2.clamp(ZSTD_WINDOW_LOG_FLOOR, ZSTD_WINDOW_LOG_MAX)
}

/// Snappy, raw or in xerial framing.
mod snappy {
    use std::io::Write;

    use super::{Limit, RecordsError};

    /// `0x82 "SNAPPY" 0x00`: the start of xerial's stream header.
    const XERIAL_MAGIC: [u8; 8] = [0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0];
    /// Magic, int32 version, int32 compatible version.
    const XERIAL_HEADER_BYTES: usize = 16;
    /// The version and compatible version xerial (and so Kafka's Java client) writes.
    const XERIAL_VERSION: i32 = 1;
    const XERIAL_COMPATIBLE_VERSION: i32 = 1;
    /// Input bytes per block, `SnappyOutputStream.DEFAULT_BLOCK_SIZE`.
    const XERIAL_BLOCK_BYTES: usize = 32 * 1024;

    pub(super) fn decompress(compressed: &[u8], limit: Limit) -> Result<Vec<u8>, RecordsError> {
        let mut out = Vec::new();
        if is_xerial(compressed) {
            read_xerial_blocks(&compressed[XERIAL_HEADER_BYTES..], limit, &mut out)?;
        } else {
            read_raw_block(compressed, limit, &mut out)?;
        }
        Ok(out)
    }

    /// Java's `SnappyInputStream` treats anything without the full header as raw snappy.
    fn is_xerial(data: &[u8]) -> bool {
        data.len() >= XERIAL_HEADER_BYTES && data.starts_with(&XERIAL_MAGIC)
    }

    /// Blocks of int32 length + raw snappy, until the end. A "length" equal to the start of the
    /// magic begins another concatenated stream, as `SnappyInputStream` allows.
    fn read_xerial_blocks(mut rest: &[u8], limit: Limit, out: &mut Vec<u8>) -> Result<(), RecordsError> {
        while !rest.is_empty() {
            if is_xerial(rest) {
                rest = &rest[XERIAL_HEADER_BYTES..];
                continue;
            }
            let (block, after) = next_xerial_block(rest, limit)?;
            read_raw_block(block, limit, out)?;
            rest = after;
        }
        Ok(())
    }

    /// Appends one raw snappy block, checking its declared length against the limit before
    /// allocating for it.
    fn read_raw_block(block: &[u8], limit: Limit, out: &mut Vec<u8>) -> Result<(), RecordsError> {
        let length = snap::raw::decompress_len(block).map_err(|e| limit.corrupt(e))?;
        limit.reserve(out, length)?;
        let start = out.len();
        out.resize(start + length, 0);
        let written = snap::raw::Decoder::new().decompress(block, &mut out[start..]).map_err(|e| limit.corrupt(e))?;
        out.truncate(start + written);
        Ok(())
    }

    /// Raw or xerial-framed snappy as a stream, one block decoded at a time: the output a reader
    /// has not taken yet is one block (32 KiB from Java's producer; a raw stream is one block).
    pub(super) struct BlockReader<'a> {
        rest: &'a [u8],
        limit: Limit,
        xerial: bool,
        block: Vec<u8>,
        position: usize,
    }

    impl<'a> BlockReader<'a> {
        pub(super) fn new(compressed: &'a [u8], limit: Limit) -> Self {
            BlockReader { rest: compressed, limit, xerial: is_xerial(compressed), block: Vec::new(), position: 0 }
        }

        /// Decodes the next block into `self.block`; `false` when no block is left.
        fn next_block(&mut self) -> Result<bool, RecordsError> {
            self.block.clear();
            self.position = 0;
            if !self.xerial {
                let raw = std::mem::take(&mut self.rest);
                if raw.is_empty() && self.block.is_empty() {
                    return Ok(false);
                }
                read_raw_block(raw, self.limit, &mut self.block)?;
                return Ok(true);
            }
            while is_xerial(self.rest) {
                self.rest = &self.rest[XERIAL_HEADER_BYTES..];
            }
            if self.rest.is_empty() {
                return Ok(false);
            }
            let (block, after) = next_xerial_block(self.rest, self.limit)?;
            self.rest = after;
            read_raw_block(block, self.limit, &mut self.block)?;
            Ok(true)
        }
    }

    impl std::io::Read for BlockReader<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            while self.position == self.block.len() {
                if !self.next_block().map_err(std::io::Error::other)? {
                    return Ok(0);
                }
            }
            let n = buf.len().min(self.block.len() - self.position);
            buf[..n].copy_from_slice(&self.block[self.position..self.position + n]);
            self.position += n;
            Ok(n)
        }
    }

    /// Splits the next xerial block (int32 length + raw snappy) off `rest`.
    fn next_xerial_block(rest: &[u8], limit: Limit) -> Result<(&[u8], &[u8]), RecordsError> {
        let (length, after) =
            rest.split_first_chunk::<4>().ok_or_else(|| limit.corrupt("truncated xerial block length"))?;
        let length = u32::from_be_bytes(*length) as usize;
        if length > after.len() {
            return Err(limit.corrupt("xerial block longer than the data"));
        }
        Ok(after.split_at(length))
    }

    /// Xerial framing, as Kafka's Java producer writes it (`SnappyOutputStream`): the header,
    /// then each 32 KiB of input as int32 length + raw snappy. Holds one block of input.
    pub(crate) struct XerialWriter<W: Write> {
        sink: W,
        pending: Vec<u8>,
        encoder: snap::raw::Encoder,
    }

    impl<W: Write> XerialWriter<W> {
        pub(super) fn new(mut sink: W) -> std::io::Result<Self> {
            sink.write_all(&XERIAL_MAGIC)?;
            sink.write_all(&XERIAL_VERSION.to_be_bytes())?;
            sink.write_all(&XERIAL_COMPATIBLE_VERSION.to_be_bytes())?;
            let pending = Vec::with_capacity(XERIAL_BLOCK_BYTES);
            Ok(XerialWriter { sink, pending, encoder: snap::raw::Encoder::new() })
        }

        pub(super) fn finish(mut self) -> std::io::Result<W> {
            self.write_block()?;
            Ok(self.sink)
        }

        fn write_block(&mut self) -> std::io::Result<()> {
            if self.pending.is_empty() {
                return Ok(());
            }
            let block = self.encoder.compress_vec(&self.pending).map_err(std::io::Error::other)?;
            // A block holds at most max_compress_len(32 KiB) bytes, far below u32::MAX.
            self.sink.write_all(&(block.len() as u32).to_be_bytes())?;
            self.sink.write_all(&block)?;
            self.pending.clear();
            Ok(())
        }
    }

    impl<W: Write> Write for XerialWriter<W> {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let room = XERIAL_BLOCK_BYTES - self.pending.len();
            let taken = room.min(buf.len());
            self.pending.extend_from_slice(&buf[..taken]);
            if self.pending.len() == XERIAL_BLOCK_BYTES {
                self.write_block()?;
            }
            Ok(taken)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            self.sink.flush()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka's Java client's snappy output for one small record region (from the
    /// `kafka-protocol` crate's tests), and that region.
    const JAVA_SNAPPY: &[u8] =
        b"\x82SNAPPY\x00\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x0f\x0d\x30\x18\x00\x00\x00\x01\x0csdfdsf\x00";
    const JAVA_SNAPPY_PLAIN: &[u8] = b"\x18\x00\x00\x00\x01\x0csdfdsf\x00";

    fn sample(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i % 251) as u8 ^ (i / 1000) as u8).collect()
    }

    /// Every codec round-trips empty, small and multi-block inputs.
    #[test]
    fn every_codec_round_trips() {
        for codec in Compression::ALL {
            for len in [0, 1, 100, 100_000] {
                let data = sample(len);
                let compressed = compress(codec, &data).expect("compresses");
                let back = decompress(codec, &compressed, len.max(1)).expect("decompresses");
                assert_eq!(back, data, "{codec} with {len} bytes");
            }
        }
    }

    /// We write snappy exactly as Kafka's Java client does, and read what it writes.
    #[test]
    fn snappy_matches_java_xerial_framing() {
        assert_eq!(compress(Compression::Snappy, JAVA_SNAPPY_PLAIN).ok().as_deref(), Some(JAVA_SNAPPY));
        let back = decompress(Compression::Snappy, JAVA_SNAPPY, 1024).expect("valid");
        assert_eq!(back, JAVA_SNAPPY_PLAIN);
    }

    /// Raw snappy (as librdkafka, sarama and franz-go may send) is read too, including inputs
    /// longer than the xerial header.
    #[test]
    fn snappy_reads_raw_blocks() {
        let data = sample(5_000);
        let raw = snap::raw::Encoder::new().compress_vec(&data).expect("compresses");
        assert_eq!(decompress(Compression::Snappy, &raw, 5_000).ok(), Some(data));
    }

    /// Two xerial streams back to back decode as one, as Java's `SnappyInputStream` reads them.
    #[test]
    fn snappy_reads_concatenated_xerial_streams() {
        let both = [JAVA_SNAPPY, JAVA_SNAPPY].concat();
        let back = decompress(Compression::Snappy, &both, 1024).expect("valid");
        assert_eq!(back, [JAVA_SNAPPY_PLAIN, JAVA_SNAPPY_PLAIN].concat());
    }

    /// A small input that would inflate past the limit is refused, for every codec; a raw
    /// snappy header declaring 2 GiB is refused before anything is allocated.
    #[test]
    fn decompression_bombs_are_refused() {
        let zeros = vec![0u8; 4 * 1024 * 1024];
        for codec in Compression::ALL {
            let bomb = compress(codec, &zeros).expect("compresses");
            let result = decompress(codec, &bomb, 1024 * 1024);
            let expected = RecordsError::DecompressedTooLarge { codec, limit_bytes: 1024 * 1024 };
            assert_eq!(result, Err(expected), "{codec}: {} compressed bytes", bomb.len());
            assert_eq!(decompress(codec, &bomb, zeros.len()).map(|d| d.len()), Ok(zeros.len()));
        }
        // Java's zstd stream declares no content size: the bound is found while inflating.
        let stream = zstd::stream::encode_all(&zeros[..], 3).expect("compresses");
        assert!(matches!(
            decompress(Compression::Zstd, &stream, 1024 * 1024),
            Err(RecordsError::DecompressedTooLarge { .. })
        ));
        let lying_header = [0x80, 0x80, 0x80, 0x80, 0x08, 0x00];
        assert!(matches!(
            decompress(Compression::Snappy, &lying_header, 1 << 20),
            Err(RecordsError::DecompressedTooLarge { .. })
        ));
    }

    /// Garbage is a corrupt-data error for each codec, never a panic.
    #[test]
    fn garbage_is_an_error() {
        let garbage = b"definitely not compressed data, not even a little";
        for codec in [Compression::Gzip, Compression::Snappy, Compression::Lz4, Compression::Zstd] {
            assert!(matches!(decompress(codec, garbage, 1 << 20), Err(RecordsError::Decompress { .. })), "{codec}");
        }
        let truncated_xerial = &JAVA_SNAPPY[..JAVA_SNAPPY.len() - 3];
        assert!(decompress(Compression::Snappy, truncated_xerial, 1024).is_err());
    }

    /// Codec ids map both ways, and ids 5 to 7 are not codecs.
    #[test]
    fn codec_ids_round_trip() {
        for codec in Compression::ALL {
            assert_eq!(Compression::from_id(codec.id()), Ok(codec));
        }
        assert_eq!(Compression::from_id(5), Err(RecordsError::UnknownCompression(5)));
        assert_eq!(Compression::Lz4.to_string(), "lz4");
    }

    /// The zstd window cap follows the limit, within zstd's legal range.
    #[test]
    fn zstd_window_follows_the_limit() {
        assert_eq!(zstd_window_log_max(64 * 1024 * 1024), 26);
        assert_eq!(zstd_window_log_max(64 * 1024 * 1024 + 1), 27);
        assert_eq!(zstd_window_log_max(1000), 23);
        assert_eq!(zstd_window_log_max(usize::MAX / 2), 31);
    }
}
