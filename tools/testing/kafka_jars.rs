//! Test support shared by the crates whose tests run Apache Kafka's own code as an oracle
//! (DumpLogSegments, the coordinator's record serde): where Kafka 4.4's jars are, and the
//! workspace root. Included with `#[path]` by those tests, so it is not a crate of its own.

use std::path::{Path, PathBuf};

/// The directory holding Kafka's runtime classpath (`STRAND_KAFKA_LIBS`, else
/// `target/kafka-libs` as `compat/kafka/fetch-jars.sh` fills it). Fails, never skips, when a jar
/// named by one of `required` prefixes is missing.
pub fn kafka_libs(required: &[&str]) -> PathBuf {
    let libs = std::env::var_os("STRAND_KAFKA_LIBS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/kafka-libs"));
    let names: Vec<String> = std::fs::read_dir(&libs)
        .map(|dir| dir.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    for prefix in required {
        assert!(
            names.iter().any(|n| n.starts_with(prefix) && n.ends_with(".jar")),
            "Apache Kafka's jars are missing: no {prefix}*.jar in {}. Run compat/kafka/fetch-jars.sh \
             (or set STRAND_KAFKA_LIBS to a directory holding Kafka 4.4.0's runtime classpath).",
            libs.display()
        );
    }
    libs
}

/// The workspace root: every crate sits in `crates/<name>`.
pub fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.ancestors().nth(2).expect("crates sit two levels below the workspace root").to_owned()
}
