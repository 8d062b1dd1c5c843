//! Named limits with Kafka's defaults. Each one bounds something a client controls, so that no
//! request can make the broker allocate more than the operator allowed.

/// `socket.request.max.bytes`: the largest request frame a broker accepts (Kafka's default, 100 MiB).
pub const SOCKET_REQUEST_BYTES_MAX: usize = 104_857_600;

/// `message.max.bytes`: the largest record batch a broker accepts after decompression checks
/// (Kafka's default: 1 MiB plus the 12-byte log overhead).
pub const MESSAGE_BYTES_MAX: usize = 1_048_588;

/// The largest size a compressed batch may inflate to while the broker reads it. A batch that
/// decompresses past this is rejected instead of exhausting memory (a "zip bomb").
pub const DECOMPRESSED_BATCH_BYTES_MAX: usize = 64 * 1024 * 1024;
