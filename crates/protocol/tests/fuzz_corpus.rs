//! Replays the request fuzzer's corpus (`fuzz/corpus/decode_request/`) on stable Rust, so every
//! input the fuzzer ever kept, crashes it found included, is checked on each `cargo test` without
//! nightly or libFuzzer. The property is `strand_protocol::fuzzing::check_request_frame`'s.

use std::path::{Path, PathBuf};

use strand_protocol::fuzzing::check_request_frame;

/// Fewer files than this means the corpus went missing, not that it shrank: the seeds alone are
/// one frame per API and version.
const CORPUS_FILES_MIN: usize = 100;

fn corpus_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/decode_request");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.unwrap_or_else(|e| panic!("listing {}: {e}", dir.display())).path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

/// Every corpus input reads without a panic, and every one that decodes re-encodes and decodes
/// again to an equal header and body.
#[test]
fn every_corpus_input_holds_the_request_properties() {
    let files = corpus_files();
    assert!(files.len() >= CORPUS_FILES_MIN, "only {} corpus files; is fuzz/corpus missing?", files.len());
    // The failures are reported together below, each with its file, rather than one backtrace each.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let failures: Vec<String> = files.iter().filter_map(|path| check_file(path)).collect();
    std::panic::set_hook(hook);
    assert!(failures.is_empty(), "{} of {} corpus inputs fail:\n{}", failures.len(), files.len(), failures.join("\n"));
}

/// Runs the property on one file; `Some(file: panic message)` when it fails.
fn check_file(path: &Path) -> Option<String> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let data = match std::fs::read(path) {
        Ok(data) => data,
        Err(e) => return Some(format!("{name}: unreadable: {e}")),
    };
    let payload = std::panic::catch_unwind(|| check_request_frame(&data)).err()?;
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("(no message)");
    Some(format!("{name}: {}", message.lines().next().unwrap_or_default()))
}
