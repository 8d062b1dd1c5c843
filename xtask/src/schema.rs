//! The shape of Kafka's JSON message schemas, as read by the generator, and the checks that make
//! a schema safe to generate from.
//!
//! Kafka's schema files carry `//` line comments (its parser allows them), so they are stripped
//! before parsing. Only the structure is kept: no `about` text reaches the generated code.

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

/// One schema file: a request, response, header, metadata record, coordinator record or data type.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Schema {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub api_key: Option<i16>,
    pub valid_versions: String,
    #[serde(default)]
    pub flexible_versions: Option<String>,
    #[serde(default)]
    pub latest_version_unstable: bool,
    #[serde(default)]
    pub listeners: Vec<String>,
    #[serde(default)]
    pub fields: Vec<Field>,
    #[serde(default)]
    pub common_structs: Vec<CommonStruct>,
}

#[derive(Debug, Deserialize)]
pub struct CommonStruct {
    pub name: String,
    pub versions: String,
    pub fields: Vec<Field>,
}

/// One field of a struct. Unknown keys (`about`, `zeroCopy`, ...) are ignored.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Field {
    pub name: String,
    #[serde(rename = "type")]
    pub type_name: String,
    /// Absent on fields that are only tagged: then their tagged versions.
    #[serde(default)]
    pub versions: Option<String>,
    #[serde(default)]
    pub nullable_versions: Option<String>,
    #[serde(default)]
    pub tagged_versions: Option<String>,
    #[serde(default)]
    pub tag: Option<u32>,
    #[serde(default)]
    pub flexible_versions: Option<String>,
    /// `Some(Value::Null)` for an explicit JSON `null`, which means the same as `"null"`.
    #[serde(default, deserialize_with = "explicit_null")]
    pub default: Option<serde_json::Value>,
    #[serde(default)]
    pub ignorable: bool,
    #[serde(default)]
    pub map_key: bool,
    #[serde(default)]
    pub entity_type: Option<String>,
    #[serde(default)]
    pub fields: Option<Vec<Field>>,
}

fn explicit_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<serde_json::Value>, D::Error> {
    serde_json::Value::deserialize(d).map(Some)
}

/// An inclusive version range; `None` is Kafka's `"none"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Versions {
    pub min: i16,
    pub max: i16,
}

pub const VERSION_MAX: i16 = i16::MAX;

impl Versions {
    /// Parses `"3"`, `"3-12"`, `"3+"` or `"none"` (which is `None`).
    pub fn parse(text: &str) -> Result<Option<Versions>> {
        let text = text.trim();
        if text == "none" {
            return Ok(None);
        }
        let parse = |s: &str| s.trim().parse::<i16>().with_context(|| format!("bad version {text:?}"));
        let range = if let Some(min) = text.strip_suffix('+') {
            Versions { min: parse(min)?, max: VERSION_MAX }
        } else if let Some((min, max)) = text.split_once('-') {
            Versions { min: parse(min)?, max: parse(max)? }
        } else {
            let v = parse(text)?;
            Versions { min: v, max: v }
        };
        if range.min > range.max {
            bail!("empty version range {text:?}");
        }
        Ok(Some(range))
    }

    pub fn intersect(self, other: Versions) -> Option<Versions> {
        let min = self.min.max(other.min);
        let max = self.max.min(other.max);
        (min <= max).then_some(Versions { min, max })
    }

    pub fn contains_all(self, other: Versions) -> bool {
        self.min <= other.min && other.max <= self.max
    }
}

/// Reads one schema file, stripping Kafka's `//` comment lines.
pub fn read(path: &Path) -> Result<Schema> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let json: String = text.lines().filter(|line| !line.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    serde_json::from_str(&json).with_context(|| format!("parsing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every spelling of a version range Kafka's schemas use.
    #[test]
    fn version_ranges_parse() {
        let v = |min, max| Some(Versions { min, max });
        assert_eq!(Versions::parse("0+").ok(), Some(v(0, VERSION_MAX)));
        assert_eq!(Versions::parse("3-12").ok(), Some(v(3, 12)));
        assert_eq!(Versions::parse("7").ok(), Some(v(7, 7)));
        assert_eq!(Versions::parse("none").ok(), Some(None));
        assert!(Versions::parse("5-2").is_err());
        assert!(Versions::parse("x").is_err());
    }
}
