//! Who is on the other end of a connection, and how a node finds out.
//!
//! This crate owns the pure parts of Kafka's security layer, with no I/O and no metadata:
//! - [`SecurityProtocol`]: a listener's protocol (`PLAINTEXT`, `SSL`, `SASL_PLAINTEXT`,
//!   `SASL_SSL`), Kafka's names.
//! - [`KafkaPrincipal`]: who a connection authenticated as (`User:alice`), or `User:ANONYMOUS`.
//! - [`Session`]: the principal, peer address, listener and protocol of one connection, which
//!   every request carries to its handler.
//! - [`principal_mapping`]: Kafka's `SslPrincipalMapper` (`ssl.principal.mapping.rules`), and
//!   [`x500`]: a client certificate's subject as Java's RFC 2253 name, what the rules map.
//! - [`acl`]: Kafka's authorization vocabulary (operations, resources, patterns) and the
//!   [`acl::Authorizer`] handlers ask.
//! - [`delegation_token`]: the settings enabling delegation tokens and a token's HMAC.
//! - [`sasl`]: the server side of each SASL mechanism as a state machine fed the client's tokens.
//!
//! It must never open a socket or a file, nor read the metadata image: the connection feeds it
//! bytes, and credentials reach it through [`sasl::CredentialStore`].

pub mod acl;
pub mod delegation_token;
pub mod principal;
pub mod principal_mapping;
pub mod protocol;
pub mod sasl;
pub mod scram;
pub mod session;
pub mod x500;

pub use principal::KafkaPrincipal;
pub use principal_mapping::SslPrincipalMapper;
pub use protocol::SecurityProtocol;
pub use session::Session;
