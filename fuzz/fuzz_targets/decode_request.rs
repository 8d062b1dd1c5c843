//! Feeds arbitrary bytes to the broker's request reader as one frame (without its size prefix);
//! see `strand_protocol::fuzzing::check_request_frame` for the properties checked.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| strand_protocol::fuzzing::check_request_frame(data));
