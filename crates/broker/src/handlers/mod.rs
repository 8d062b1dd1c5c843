//! One module per API. [`SERVED`] lists the APIs this node answers; ApiVersions advertises
//! exactly these, so a client never negotiates an API that is not there.

pub mod api_versions;

use strand_protocol::messages::api::ApiKey;

/// The APIs with a handler.
pub const SERVED: &[ApiKey] = &[ApiKey::ApiVersions];
