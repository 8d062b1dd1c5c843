//! Workspace tasks. `cargo run -p xtask -- codegen --schemas DIR --out DIR` generates the
//! `strand-protocol` messages from Apache Kafka's JSON message schemas.
//!
//! `DIR` holds one sub-directory per schema origin (`clients`, `metadata`, `raft`,
//! `group-coordinator`, `transaction-coordinator`, `share-coordinator`), as `xtask/codegen.sh`
//! extracts them from the Kafka jars on Maven Central. The generated Rust is committed; the JSON is
//! not. Nothing from the schemas' `about` text is copied: only their structure.
//!
//! Modules: `schema` (the JSON's shape, version ranges), `model` (resolved structs and fields:
//! types, versions, nullability, tags, defaults, entity types, minimum encoded sizes),
//! `emit_struct` (one module per schema), `emit_registry` (`mod.rs`, `api.rs`, `records.rs`),
//! `names`.
//!
//! What it does with the schema format:
//! - versions: `validVersions` less an unstable latest version (`latestVersionUnstable`); a
//!   response is capped at its request's stable versions; fields that exist only below a
//!   message's floor (KIP-896 removals) and APIs with `validVersions: none` are not generated;
//! - flexible versions: compact strings, bytes and arrays, tagged-field sections; a field's own
//!   `flexibleVersions: none` (the request header's client id) keeps the classic encoding;
//! - tagged fields: decoded by tag where the version has them, written only when not default, in
//!   tag order; unknown tags kept as `RawTaggedField` and re-encoded unchanged;
//! - nullable strings, bytes, records, arrays and structs (`Option`, with Kafka's -1 marker for
//!   structs), including fields nullable only from some version;
//! - defaults (`"null"`, numbers, hex, booleans, strings, JSON `null`) in each struct's `Default`;
//! - common structs; `mapKey` arrays kept as `Vec` in wire order (documented as map keys);
//! - entity types `brokerId` and `producerId` become `BrokerId`/`ProducerId`;
//! - a field set to a non-default value at a version that lacks it is an encode error unless the
//!   schema marks it ignorable (Kafka's `UnsupportedVersionException` rule).

mod emit_registry;
mod emit_struct;
mod model;
mod names;
mod schema;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use model::{Component, MessageDef};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("codegen") => {
            let schemas = flag(&args, "--schemas")?;
            let out = flag(&args, "--out")?;
            codegen(&schemas, &out)
        }
        _ => bail!("usage: xtask codegen --schemas DIR --out DIR"),
    }
}

fn flag(args: &[String], name: &str) -> Result<PathBuf> {
    let at = args.iter().position(|a| a == name).with_context(|| format!("missing {name}"))?;
    let value = args.get(at + 1).with_context(|| format!("{name} needs a value"))?;
    Ok(PathBuf::from(value))
}

fn codegen(schemas: &Path, out: &Path) -> Result<()> {
    let mut messages = load(schemas)?;
    cap_response_versions(&mut messages);
    check_names(&messages)?;
    std::fs::create_dir_all(out)?;
    let mut written = Vec::new();
    for message in &messages {
        let file = out.join(format!("{}.rs", emit_registry::module_name(message)));
        write(&file, &emit_struct::message_module(message)?)?;
        written.push(file);
    }
    for (name, text) in [
        ("mod.rs", emit_registry::mod_rs(&messages)?),
        ("api.rs", emit_registry::api_rs(&messages)?),
        ("records.rs", emit_registry::records_rs(&messages)?),
    ] {
        let file = out.join(name);
        write(&file, &text)?;
        written.push(file);
    }
    remove_stale(out, &written)?;
    println!("generated {} messages into {}", messages.len(), out.display());
    Ok(())
}

fn load(schemas: &Path) -> Result<Vec<MessageDef>> {
    let mut by_name = BTreeMap::new();
    let mut dirs: Vec<_> = std::fs::read_dir(schemas)
        .with_context(|| format!("reading {}", schemas.display()))?
        .collect::<Result<_, _>>()?;
    dirs.sort_by_key(|e| e.file_name());
    for dir in dirs {
        let component = Component::from_dir_name(&dir.file_name().to_string_lossy())?;
        let mut files: Vec<_> = std::fs::read_dir(dir.path())?.collect::<Result<_, _>>()?;
        files.sort_by_key(|e| e.file_name());
        for file in files.iter().filter(|f| f.path().extension().is_some_and(|e| e == "json")) {
            let parsed = schema::read(&file.path())?;
            let resolved = model::resolve(parsed, component).with_context(|| format!("{}", file.path().display()))?;
            let Some(resolved) = resolved else { continue };
            if by_name.insert(resolved.name.clone(), resolved).is_some() {
                bail!("schema {} appears twice", file.path().display());
            }
        }
    }
    if by_name.is_empty() {
        bail!("no schemas under {}", schemas.display());
    }
    Ok(by_name.into_values().collect())
}

/// A response is generated at the versions its request is: an unstable request version makes the
/// same response version unstable.
fn cap_response_versions(messages: &mut [MessageDef]) {
    let request_max: BTreeMap<i16, i16> =
        messages.iter().filter(|m| m.kind == "request").filter_map(|m| Some((m.api_key?, m.versions.max))).collect();
    for m in messages.iter_mut().filter(|m| m.kind == "response") {
        if let Some(&max) = m.api_key.and_then(|k| request_max.get(&k)) {
            m.versions.max = m.versions.max.min(max);
        }
    }
}

fn check_names(messages: &[MessageDef]) -> Result<()> {
    for m in messages {
        for s in &m.structs {
            if emit_registry::PRELUDE_NAMES.contains(&s.name.as_str()) {
                bail!("{}: struct {} collides with a prelude name", m.name, s.name);
            }
        }
    }
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

fn remove_stale(out: &Path, written: &[PathBuf]) -> Result<()> {
    for entry in std::fs::read_dir(out)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "rs") && !written.contains(&path) {
            std::fs::remove_file(&path)?;
        }
    }
    Ok(())
}
