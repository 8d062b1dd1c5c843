//! Writes one schema as a Rust module: a struct per Kafka struct, with `Default`, `Struct`
//! (decode/encode), `Message` for the top level, and `Sample` behind the `sample` feature.

use std::collections::BTreeMap;
use std::fmt::Write;

use anyhow::{Result, bail};

use crate::model::{Entity, FieldDef, MessageDef, StructDef, Ty};
use crate::names::{snake_case, to_rust_field};
use crate::schema::{VERSION_MAX, Versions};

/// The module text for one message.
pub fn message_module(message: &MessageDef) -> Result<String> {
    let sizes = message.encoded_sizes_min();
    let mut out = String::new();
    writeln!(out, "//! `{}`: generated from Kafka's schema by `xtask codegen`; do not edit.", message.name)?;
    writeln!(out)?;
    writeln!(out, "#[allow(unused_imports)]")?;
    writeln!(out, "use crate::messages::prelude::*;")?;
    for def in &message.structs {
        writeln!(out)?;
        let ctx = Ctx { message, def, sizes: &sizes };
        ctx.emit(&mut out)?;
    }
    Ok(out)
}

struct Ctx<'a> {
    message: &'a MessageDef,
    def: &'a StructDef,
    sizes: &'a BTreeMap<String, usize>,
}

/// The checks and names generated for one field.
struct FieldCode {
    rust: String,
    quoted: String,
    present: Option<String>,
    regular: Option<Versions>,
}

impl Ctx<'_> {
    fn has_tagged_section(&self) -> bool {
        self.message.is_flexible_at_all() && self.message.flexible_min.is_some_and(|f| f <= self.def.versions.max)
    }

    fn emit(&self, out: &mut String) -> Result<()> {
        self.emit_struct(out)?;
        self.emit_default(out)?;
        self.emit_decode_encode(out)?;
        if self.is_top() {
            self.emit_message(out)?;
        }
        self.emit_sample(out)?;
        Ok(())
    }

    fn is_top(&self) -> bool {
        self.def.name == self.message.name
    }

    fn emit_struct(&self, out: &mut String) -> Result<()> {
        let v = self.def.versions;
        writeln!(out, "/// `{}`, versions {}.", self.def.name, show(v))?;
        writeln!(out, "#[derive(Debug, Clone, PartialEq)]")?;
        writeln!(out, "pub struct {} {{", self.def.name)?;
        for field in &self.def.fields {
            writeln!(out, "    /// {}", field_doc(field))?;
            writeln!(out, "    pub {}: {},", to_rust_field(&field.name), rust_type(field))?;
        }
        if self.has_tagged_section() {
            writeln!(out, "    /// Tagged fields this build does not know, re-encoded unchanged.")?;
            writeln!(out, "    pub unknown_tagged_fields: Vec<RawTaggedField>,")?;
        }
        writeln!(out, "}}")?;
        Ok(())
    }

    fn emit_default(&self, out: &mut String) -> Result<()> {
        writeln!(out)?;
        writeln!(out, "impl Default for {} {{", self.def.name)?;
        writeln!(out, "    fn default() -> Self {{")?;
        writeln!(out, "        {} {{", self.def.name)?;
        for field in &self.def.fields {
            writeln!(out, "            {}: {},", to_rust_field(&field.name), default_expr(field)?)?;
        }
        if self.has_tagged_section() {
            writeln!(out, "            unknown_tagged_fields: Vec::new(),")?;
        }
        writeln!(out, "        }}\n    }}\n}}")?;
        Ok(())
    }

    fn field_code(&self, field: &FieldDef) -> FieldCode {
        let regular = field.regular_versions();
        FieldCode {
            rust: to_rust_field(&field.name),
            quoted: format!("\"{}\"", snake_case(&field.name)),
            present: regular.map(|r| condition(r, self.def.versions)).unwrap_or(Some("false".into())),
            regular,
        }
    }

    fn flexible_decl(&self, body: &str) -> String {
        if !uses_word(body, "flexible") {
            return String::new();
        }
        match self.message.flexible_min {
            Some(f) if f <= self.def.versions.min => "let flexible = true;\n".into(),
            Some(f) if f <= self.def.versions.max => format!("let flexible = version >= {f};\n"),
            _ => "let flexible = false;\n".into(),
        }
    }

    fn emit_decode_encode(&self, out: &mut String) -> Result<()> {
        let decode = self.decode_body()?;
        let encode = self.encode_body()?;
        let size = self.sizes.get(&self.def.name).copied().unwrap_or(0);
        writeln!(out)?;
        writeln!(out, "impl Struct for {} {{", self.def.name)?;
        writeln!(out, "    const ENCODED_SIZE_MIN: usize = {size};")?;
        writeln!(out)?;
        let decode = format!("{}{decode}", self.flexible_decl(&decode));
        let version_name = if uses_word(&decode, "version") { "version" } else { "_version" };
        writeln!(out, "    fn decode(d: &mut Decoder, {version_name}: i16) -> Result<Self, DecodeError> {{")?;
        write!(out, "{decode}")?;
        writeln!(out, "    }}")?;
        writeln!(out)?;
        let encode = format!("{}{encode}", self.flexible_decl(&encode));
        let version_name = if uses_word(&encode, "version") { "version" } else { "_version" };
        writeln!(
            out,
            "    fn encode<W: WireWrite>(&self, out: &mut W, {version_name}: i16) -> Result<(), EncodeError> {{"
        )?;
        write!(out, "{encode}")?;
        writeln!(out, "    }}\n}}")?;
        Ok(())
    }

    fn decode_body(&self) -> Result<String> {
        let mut body = String::new();
        let name = &self.def.name;
        let mut tagged_arms = String::new();
        let mut assigned = false;
        writeln!(body, "let mut this = {name}::default();")?;
        for field in &self.def.fields {
            let code = self.field_code(field);
            if code.regular.is_some() {
                assigned = true;
                let value = decode_expr(field, &compact_flag(field), self.nullable_state(field, code.regular), &code)?;
                match &code.present {
                    None => writeln!(body, "this.{} = {value};", code.rust)?,
                    Some(cond) => writeln!(body, "if {cond} {{ this.{} = {value}; }}", code.rust)?,
                }
            }
            if let Some((tag, tagged)) = field.tagged {
                let within = self.def.versions.intersect(tagged);
                let Some(within) = within else { continue };
                let guard = condition(within, self.def.versions).map(|c| format!(" if {c}")).unwrap_or_default();
                let value = decode_expr(field, "true", self.nullable_state(field, Some(within)), &code)?;
                writeln!(
                    tagged_arms,
                    "{tag}{guard} => {{ let d = &mut field; this.{} = {value}; d.finish_tagged(tag)?; }}",
                    code.rust
                )?;
            }
        }
        if self.has_tagged_section() {
            assigned = true;
            writeln!(body, "if flexible {{")?;
            writeln!(body, "for _ in 0..d.tagged_field_count()? {{")?;
            let binding = if tagged_arms.is_empty() { "field" } else { "mut field" };
            writeln!(body, "let (tag, {binding}) = d.tagged_field()?;")?;
            let unknown = "this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() })";
            if tagged_arms.is_empty() {
                writeln!(body, "{unknown};")?;
                writeln!(body, "}}\n}}")?;
            } else {
                writeln!(body, "match tag {{")?;
                write!(body, "{tagged_arms}")?;
                writeln!(body, "_ => {unknown},")?;
                writeln!(body, "}}\n}}\n}}")?;
            }
        }
        if !assigned {
            body = format!("let _ = d;\nlet this = {name}::default();\n");
        }
        writeln!(body, "Ok(this)")?;
        Ok(body)
    }

    fn encode_body(&self) -> Result<String> {
        let mut body = String::new();
        let mut tagged = String::new();
        for field in &self.def.fields {
            let code = self.field_code(field);
            let not_in_version = if field.ignorable {
                String::new()
            } else {
                format!(
                    "if {} {{ return Err(EncodeError::FieldNotInVersion {{ field: {}, version }}); }}",
                    differs_from_default(field, &code.rust)?,
                    code.quoted
                )
            };
            let tagged_within = field.tagged.and_then(|(tag, t)| Some((tag, self.def.versions.intersect(t)?)));
            if code.regular.is_some() {
                let write = encode_stmt(field, &compact_flag(field), self.nullable_state(field, code.regular), &code)?;
                match &code.present {
                    None => writeln!(body, "{write}")?,
                    Some(cond) if tagged_within.is_some() || not_in_version.is_empty() => {
                        writeln!(body, "if {cond} {{ {write} }}")?
                    }
                    Some(cond) => writeln!(body, "if {cond} {{ {write} }} else {{ {not_in_version} }}")?,
                }
            }
            match tagged_within {
                Some((tag, within)) => {
                    let write = encode_stmt(field, "true", self.nullable_state(field, Some(within)), &code)?;
                    let cond = condition(within, self.def.versions).unwrap_or_else(|| "true".into());
                    let differs = differs_from_default(field, &code.rust)?;
                    let set = format!("{differs} {{ let out = tagged.field({tag}); {write} }}");
                    match cond.as_str() {
                        "true" => write!(tagged, "if {set}")?,
                        _ => write!(tagged, "if {cond} && {set}")?,
                    }
                    if code.regular.is_none() && !not_in_version.is_empty() && within != self.def.versions {
                        write!(tagged, " else {{ {not_in_version} }}")?;
                    }
                    writeln!(tagged)?;
                }
                None if code.regular.is_none() && !not_in_version.is_empty() => writeln!(body, "{not_in_version}")?,
                None => {}
            }
        }
        if self.has_tagged_section() {
            writeln!(body, "if flexible {{")?;
            let binding = if tagged.is_empty() { "tagged" } else { "mut tagged" };
            writeln!(body, "let {binding} = TaggedFieldWriter::new();")?;
            write!(body, "{tagged}")?;
            writeln!(body, "tagged.finish(out, &self.unknown_tagged_fields)?;")?;
            writeln!(body, "}} else if !self.unknown_tagged_fields.is_empty() {{")?;
            writeln!(
                body,
                "return Err(EncodeError::FieldNotInVersion {{ field: \"unknown_tagged_fields\", version }});"
            )?;
            writeln!(body, "}}")?;
        }
        if body.is_empty() {
            writeln!(body, "let _ = out;")?;
        }
        writeln!(body, "Ok(())")?;
        Ok(body)
    }

    /// Whether the field may be null in the versions where this code runs.
    fn nullable_state(&self, field: &FieldDef, within: Option<Versions>) -> Nullability {
        let Some(within) = within else { return Nullability::Never };
        if !field.is_nullable_type() {
            return Nullability::NotOption;
        }
        match field.nullable.and_then(|n| n.intersect(within)) {
            None => Nullability::Never,
            Some(n) if n == within => Nullability::Always,
            Some(n) => Nullability::When(condition(n, within).unwrap_or_else(|| "true".into())),
        }
    }

    fn emit_message(&self, out: &mut String) -> Result<()> {
        let m = self.message;
        writeln!(out)?;
        writeln!(out, "impl Message for {} {{", m.name)?;
        writeln!(out, "    const NAME: &'static str = \"{}\";", m.name)?;
        writeln!(
            out,
            "    const VERSIONS: VersionRange = VersionRange {{ min: {}, max: {} }};",
            m.versions.min, m.versions.max
        )?;
        let flexible = match m.flexible_min {
            Some(f) if f <= m.versions.max => format!("Some({f})"),
            _ => "None".into(),
        };
        writeln!(out, "    const FLEXIBLE_MIN: Option<i16> = {flexible};")?;
        writeln!(out, "}}")?;
        Ok(())
    }

    fn emit_sample(&self, out: &mut String) -> Result<()> {
        let mut body = String::new();
        for field in &self.def.fields {
            let code = self.field_code(field);
            if code.regular.is_some() {
                let value = sample_expr(field, self.nullable_state(field, code.regular))?;
                match &code.present {
                    None => writeln!(body, "this.{} = {value};", code.rust)?,
                    Some(cond) => writeln!(body, "if {cond} {{ this.{} = {value}; }}", code.rust)?,
                }
            }
            if let Some((_, tagged)) = field.tagged
                && let Some(within) = self.def.versions.intersect(tagged)
            {
                let value = sample_expr(field, self.nullable_state(field, Some(within)))?;
                let cond = condition(within, self.def.versions).unwrap_or_else(|| "true".into());
                let cond = if cond == "true" { String::new() } else { format!("{cond} && ") };
                writeln!(body, "if {cond}g.bool() {{ this.{} = {value}; }}", code.rust)?;
            }
        }
        if self.has_tagged_section() {
            writeln!(body, "if flexible {{ this.unknown_tagged_fields = g.unknown_tagged_fields(); }}")?;
        }
        let mutable = if body.is_empty() { "" } else { "mut " };
        let body = format!("{}let {mutable}this = Self::default();\n{body}", self.flexible_decl(&body));
        let uses_g = body.contains("g.") || body.contains("(g");
        writeln!(out)?;
        writeln!(out, "#[cfg(feature = \"sample\")]")?;
        writeln!(out, "impl crate::sample::Sample for {} {{", self.def.name)?;
        let g = if uses_g { "g" } else { "_g" };
        let version_name = if uses_word(&body, "version") { "version" } else { "_version" };
        writeln!(out, "    fn sample({g}: &mut crate::sample::SampleGen, {version_name}: i16) -> Self {{")?;
        write!(out, "{body}")?;
        writeln!(out, "this\n    }}\n}}")?;
        Ok(())
    }
}

#[derive(Debug, Clone)]
enum Nullability {
    /// The Rust type is not an `Option`.
    NotOption,
    /// An `Option` that must be `Some` in these versions.
    Never,
    Always,
    When(String),
}

/// Whether `word` appears in `code` as a whole identifier.
fn uses_word(code: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '"';
    code.match_indices(word).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + word.len()..].chars().next();
        !before.is_some_and(|c| is_ident(c) || c == '.') && !after.is_some_and(is_ident)
    })
}

fn compact_flag(field: &FieldDef) -> String {
    if field.never_compact { "false".into() } else { "flexible".into() }
}

/// A Rust condition on `version` for `range`, or `None` when it holds in all of `within`.
fn condition(range: Versions, within: Versions) -> Option<String> {
    let Some(inside) = range.intersect(within) else { return Some("false".into()) };
    let lower = inside.min > within.min;
    let upper = inside.max < within.max;
    match (lower, upper) {
        (false, false) => None,
        (true, false) => Some(format!("version >= {}", inside.min)),
        (false, true) => Some(format!("version <= {}", inside.max)),
        (true, true) if inside.min == inside.max => Some(format!("version == {}", inside.min)),
        (true, true) => Some(format!("({}..={}).contains(&version)", inside.min, inside.max)),
    }
}

fn show(v: Versions) -> String {
    match (v.min, v.max) {
        (min, VERSION_MAX) => format!("{min}+"),
        (min, max) if min == max => format!("{min}"),
        (min, max) => format!("{min}-{max}"),
    }
}

fn field_doc(field: &FieldDef) -> String {
    let mut parts = vec![match field.regular_versions() {
        Some(v) => format!("Versions {}", show(v)),
        None => "Tagged only".into(),
    }];
    if let Some(n) = field.nullable.and_then(|n| field.versions.and_then(|v| n.intersect(v))) {
        parts.push(format!("nullable {}", show(n)));
    }
    if let Some((tag, v)) = field.tagged {
        parts.push(format!("tag {tag} in {}", show(v)));
    }
    if field.map_key {
        parts.push("map key".into());
    }
    if field.ignorable {
        parts.push("ignorable".into());
    }
    format!("{}.", parts.join("; "))
}

fn scalar_type(ty: &Ty, entity: Option<Entity>) -> Result<&'static str> {
    Ok(match (ty, entity) {
        (Ty::Int32, Some(Entity::BrokerId)) => "BrokerId",
        (Ty::Int64, Some(Entity::ProducerId)) => "ProducerId",
        (Ty::Bool, _) => "bool",
        (Ty::Int8, _) => "i8",
        (Ty::Int16, _) => "i16",
        (Ty::Uint16, _) => "u16",
        (Ty::Int32, _) => "i32",
        (Ty::Int64, _) => "i64",
        (Ty::Float64, _) => "f64",
        (Ty::Uuid, _) => "Uuid",
        (Ty::String, _) => "String",
        (Ty::Bytes, _) => "Bytes",
        (Ty::Records, _) => "Records",
        other => bail!("{other:?} is not a scalar"),
    })
}

fn element_type(ty: &Ty, entity: Option<Entity>) -> Result<String> {
    match ty {
        Ty::Struct(name) => Ok(name.clone()),
        Ty::Array(_) => bail!("arrays of arrays are not in Kafka's schemas"),
        other => Ok(scalar_type(other, entity)?.to_owned()),
    }
}

fn rust_type(field: &FieldDef) -> String {
    let inner = match &field.ty {
        Ty::Array(elem) => format!("Vec<{}>", element_type(elem, field.entity).unwrap_or_default()),
        other => element_type(other, field.entity).unwrap_or_default(),
    };
    if field.is_nullable_type() { format!("Option<{inner}>") } else { inner }
}

fn default_expr(field: &FieldDef) -> Result<String> {
    let text = match &field.default {
        None => None,
        Some(serde_json::Value::String(s)) => Some(s.clone()),
        Some(serde_json::Value::Null) => Some("null".to_owned()),
        Some(other) => Some(other.to_string()),
    };
    if field.is_nullable_type() && text.as_deref() == Some("null") {
        return Ok("None".into());
    }
    let value = match &field.ty {
        Ty::Bool => match text.as_deref() {
            None | Some("false") => "false".into(),
            Some("true") => "true".into(),
            Some(other) => bail!("bad bool default {other:?}"),
        },
        Ty::Int8 | Ty::Int16 | Ty::Uint16 | Ty::Int32 | Ty::Int64 => {
            let number = match text.as_deref() {
                None => 0,
                Some(t) => parse_int(t)?,
            };
            let ty = scalar_type(&field.ty, None)?;
            let literal = if number < 0 { format!("{number}_{ty}") } else { format!("{number}") };
            match field.entity {
                Some(Entity::BrokerId) => format!("BrokerId({literal})"),
                Some(Entity::ProducerId) => format!("ProducerId({literal})"),
                None => literal,
            }
        }
        Ty::Float64 => match text.as_deref() {
            None => "0.0".into(),
            Some(t) => format!("{:?}_f64", t.parse::<f64>()?),
        },
        Ty::Uuid => "Uuid::ZERO".into(),
        Ty::String => match text.as_deref() {
            None | Some("") => "String::new()".into(),
            Some(t) => format!("String::from({t:?})"),
        },
        Ty::Bytes => "Bytes::new()".into(),
        Ty::Records => "Records::default()".into(),
        Ty::Struct(name) => format!("{name}::default()"),
        Ty::Array(_) => "Vec::new()".into(),
    };
    Ok(if field.is_nullable_type() { format!("Some({value})") } else { value })
}

/// A condition that holds when `self.{rust}` differs from its default value.
fn differs_from_default(field: &FieldDef, rust: &str) -> Result<String> {
    let default = default_expr(field)?;
    Ok(match default.as_str() {
        "None" => format!("self.{rust}.is_some()"),
        "Vec::new()" | "String::new()" | "Bytes::new()" => format!("!self.{rust}.is_empty()"),
        "false" => format!("self.{rust}"),
        "true" => format!("!self.{rust}"),
        _ => format!("self.{rust} != {default}"),
    })
}

fn parse_int(text: &str) -> Result<i64> {
    let text = text.trim();
    Ok(match text.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16)?,
        None => text.parse()?,
    })
}

/// A scalar read from `d`, as an expression of type `Result<T, DecodeError>` (no `?`).
fn scalar_read(ty: &Ty, entity: Option<Entity>, compact: &str, quoted: &str) -> Result<String> {
    let raw = match ty {
        Ty::Bool => "d.bool()".into(),
        Ty::Int8 => "d.i8()".into(),
        Ty::Int16 => "d.i16()".into(),
        Ty::Uint16 => "d.u16()".into(),
        Ty::Int32 => "d.i32()".into(),
        Ty::Int64 => "d.i64()".into(),
        Ty::Float64 => "d.f64()".into(),
        Ty::Uuid => "d.uuid()".into(),
        Ty::String => format!("d.string({compact}, {quoted})"),
        Ty::Bytes => format!("d.bytes({compact}, {quoted})"),
        Ty::Records => format!("d.bytes({compact}, {quoted}).map(Records::Bytes)"),
        Ty::Struct(name) => format!("{name}::decode(d, version)"),
        Ty::Array(_) => bail!("nested array"),
    };
    Ok(match entity {
        Some(Entity::BrokerId) => format!("{raw}.map(BrokerId)"),
        Some(Entity::ProducerId) => format!("{raw}.map(ProducerId)"),
        None => raw,
    })
}

fn decode_expr(field: &FieldDef, compact: &str, nullable: Nullability, code: &FieldCode) -> Result<String> {
    let q = &code.quoted;
    let (non_null, nullable_read) = match &field.ty {
        Ty::String => (format!("d.string({compact}, {q})?"), format!("d.nullable_string({compact})?")),
        Ty::Bytes => (format!("d.bytes({compact}, {q})?"), format!("d.nullable_bytes({compact})?")),
        Ty::Records => (
            format!("Records::Bytes(d.bytes({compact}, {q})?)"),
            format!("d.nullable_bytes({compact})?.map(Records::Bytes)"),
        ),
        Ty::Struct(name) => (
            format!("{name}::decode(d, version)?"),
            format!("if d.struct_marker()? {{ Some({name}::decode(d, version)?) }} else {{ None }}"),
        ),
        Ty::Array(elem) => {
            let size = match elem.as_ref() {
                Ty::Struct(name) => format!("{name}::ENCODED_SIZE_MIN"),
                other => other.encoded_size_min(false, &BTreeMap::new()).to_string(),
            };
            let read = scalar_read(elem, field.entity, compact, q)?;
            (
                format!("d.array({compact}, {size}, {q}, |d| {read})?"),
                format!("d.nullable_array({compact}, {size}, |d| {read})?"),
            )
        }
        scalar => (format!("{}?", scalar_read(scalar, field.entity, compact, q)?), String::new()),
    };
    Ok(match nullable {
        Nullability::NotOption => non_null,
        Nullability::Never => format!("Some({non_null})"),
        Nullability::Always => nullable_read,
        Nullability::When(cond) => format!("if {cond} {{ {nullable_read} }} else {{ Some({non_null}) }}"),
    })
}

/// A value to write: a place owned by `self` (`self.x`) or a reference bound by a pattern.
#[derive(Clone, Copy)]
enum Place<'a> {
    Owned(&'a str),
    Ref(&'a str),
}

impl Place<'_> {
    fn copied(self) -> String {
        match self {
            Place::Owned(p) => p.to_owned(),
            Place::Ref(r) => format!("*{r}"),
        }
    }

    fn by_ref(self) -> String {
        match self {
            Place::Owned(p) => format!("&{p}"),
            Place::Ref(r) => r.to_owned(),
        }
    }
}

/// Statements writing `value` to `out`.
fn scalar_write(ty: &Ty, entity: Option<Entity>, compact: &str, q: &str, value: Place) -> Result<String> {
    let plain = match (entity, value) {
        (Some(_), Place::Owned(p) | Place::Ref(p)) => format!("{p}.0"),
        (None, _) => value.copied(),
    };
    let by_ref = value.by_ref();
    Ok(match ty {
        Ty::Bool => format!("out.put_bool({plain});"),
        Ty::Int8 => format!("out.put_i8({plain});"),
        Ty::Int16 => format!("out.put_i16({plain});"),
        Ty::Uint16 => format!("out.put_u16({plain});"),
        Ty::Int32 => format!("out.put_i32({plain});"),
        Ty::Int64 => format!("out.put_i64({plain});"),
        Ty::Float64 => format!("out.put_f64({plain});"),
        Ty::Uuid => format!("out.put_uuid({by_ref});"),
        Ty::String => format!("out.put_string({compact}, {by_ref}, {q})?;"),
        Ty::Bytes => format!("out.put_bytes_field({compact}, {by_ref}, {q})?;"),
        Ty::Records => format!("out.put_records({compact}, Some({by_ref}), {q})?;"),
        Ty::Struct(_) => match value {
            Place::Owned(p) | Place::Ref(p) => format!("{p}.encode(out, version)?;"),
        },
        Ty::Array(_) => bail!("nested array"),
    })
}

fn encode_stmt(field: &FieldDef, compact: &str, nullable: Nullability, code: &FieldCode) -> Result<String> {
    let q = &code.quoted;
    let rust = &code.rust;
    let write_value = |value: Place| -> Result<String> {
        match &field.ty {
            Ty::Array(elem) => Ok(format!(
                "out.put_length({compact}, false, Some({}.len()), {q})?; for item in {} {{ {} }}",
                match value {
                    Place::Owned(p) | Place::Ref(p) => p,
                },
                value.by_ref(),
                scalar_write(elem, field.entity, compact, q, Place::Ref("item"))?
            )),
            scalar => scalar_write(scalar, field.entity, compact, q, value),
        }
    };
    let write_null = match &field.ty {
        Ty::String => format!("out.put_length({compact}, true, None, {q})?;"),
        Ty::Struct(_) => "out.put_i8(-1);".into(),
        _ => format!("out.put_length({compact}, false, None, {q})?;"),
    };
    let marker = if matches!(field.ty, Ty::Struct(_)) { "out.put_i8(1); " } else { "" };
    let null_error = format!("return Err(EncodeError::NullNotAllowed {{ field: {q}, version }});");
    let owned = format!("self.{rust}");
    Ok(match nullable {
        Nullability::NotOption => write_value(Place::Owned(&owned))?,
        Nullability::Never => format!(
            "match &self.{rust} {{ Some(value) => {{ {} }} None => {{ {null_error} }} }}",
            write_value(Place::Ref("value"))?
        ),
        Nullability::Always => format!(
            "match &self.{rust} {{ Some(value) => {{ {marker}{} }} None => {{ {write_null} }} }}",
            write_value(Place::Ref("value"))?
        ),
        Nullability::When(cond) => format!(
            "match &self.{rust} {{ Some(value) => {{ {} {} }} None if {cond} => {{ {write_null} }} None => {{ {null_error} }} }}",
            if marker.is_empty() { String::new() } else { format!("if {cond} {{ {marker} }}") },
            write_value(Place::Ref("value"))?
        ),
    })
}

fn sample_scalar(ty: &Ty, entity: Option<Entity>) -> Result<String> {
    let raw = match ty {
        Ty::Bool => "g.bool()".into(),
        Ty::Int8 => "g.i8()".into(),
        Ty::Int16 => "g.i16()".into(),
        Ty::Uint16 => "g.u16()".into(),
        Ty::Int32 => "g.i32()".into(),
        Ty::Int64 => "g.i64()".into(),
        Ty::Float64 => "g.f64()".into(),
        Ty::Uuid => "g.uuid()".into(),
        Ty::String => "g.string()".into(),
        Ty::Bytes => "g.bytes()".into(),
        Ty::Records => "Records::Bytes(g.bytes())".into(),
        Ty::Struct(_) | Ty::Array(_) => bail!("{ty:?} is not a scalar"),
    };
    Ok(match entity {
        Some(Entity::BrokerId) => format!("BrokerId({raw})"),
        Some(Entity::ProducerId) => format!("ProducerId({raw})"),
        None => raw,
    })
}

fn sample_expr(field: &FieldDef, nullable: Nullability) -> Result<String> {
    let value = match &field.ty {
        Ty::Array(elem) => {
            let typed = match elem.as_ref() {
                Ty::Struct(name) => format!("<{name} as crate::sample::Sample>::sample(g, version)"),
                scalar => sample_scalar(scalar, field.entity)?,
            };
            format!("g.vec(|g| {typed})")
        }
        Ty::Struct(name) => format!("<{name} as crate::sample::Sample>::sample(g, version)"),
        scalar => sample_scalar(scalar, field.entity)?,
    };
    Ok(match nullable {
        Nullability::NotOption => value,
        Nullability::Never => format!("Some({value})"),
        Nullability::Always => format!("g.nullable(|g| {value})"),
        Nullability::When(cond) => format!("if {cond} {{ g.nullable(|g| {value}) }} else {{ Some({value}) }}"),
    })
}
