//! The group APIs.
