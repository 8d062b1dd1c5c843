//! The generator's resolved view of a schema: every struct with its fields' types, version ranges,
//! nullability, tags and defaults worked out, ready to be written as Rust.

use std::collections::BTreeMap;

use anyhow::{Context, Result, bail};

use crate::schema::{Field, Schema, Versions};

/// Where a schema came from; decides which registry enum it joins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Component {
    Clients,
    Metadata,
    Raft,
    GroupCoordinator,
    TransactionCoordinator,
    ShareCoordinator,
}

impl Component {
    pub fn from_dir_name(name: &str) -> Result<Component> {
        Ok(match name {
            "clients" => Component::Clients,
            "metadata" => Component::Metadata,
            "raft" => Component::Raft,
            "group-coordinator" => Component::GroupCoordinator,
            "transaction-coordinator" => Component::TransactionCoordinator,
            "share-coordinator" => Component::ShareCoordinator,
            other => bail!("unknown schema component directory {other:?}"),
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ty {
    Bool,
    Int8,
    Int16,
    Uint16,
    Int32,
    Int64,
    Float64,
    Uuid,
    String,
    Bytes,
    Records,
    Struct(String),
    Array(Box<Ty>),
}

impl Ty {
    fn parse(text: &str) -> Ty {
        if let Some(inner) = text.strip_prefix("[]") {
            return Ty::Array(Box::new(Ty::parse(inner)));
        }
        match text {
            "bool" => Ty::Bool,
            "int8" => Ty::Int8,
            "int16" => Ty::Int16,
            "uint16" => Ty::Uint16,
            "int32" => Ty::Int32,
            "int64" => Ty::Int64,
            "float64" => Ty::Float64,
            "uuid" => Ty::Uuid,
            "string" => Ty::String,
            "bytes" => Ty::Bytes,
            "records" => Ty::Records,
            other => Ty::Struct(other.to_owned()),
        }
    }

    /// The fewest bytes a value of this type takes, whatever the version's encoding.
    pub fn encoded_size_min(&self, nullable: bool, structs: &BTreeMap<String, usize>) -> usize {
        match self {
            Ty::Bool | Ty::Int8 => 1,
            Ty::Int16 | Ty::Uint16 => 2,
            Ty::Int32 => 4,
            Ty::Int64 | Ty::Float64 => 8,
            Ty::Uuid => 16,
            Ty::String | Ty::Bytes | Ty::Records | Ty::Array(_) => 1,
            Ty::Struct(_) if nullable => 1,
            Ty::Struct(name) => structs.get(name).copied().unwrap_or(0),
        }
    }
}

/// A field's Kafka entity type, where Strand gives it a newtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entity {
    BrokerId,
    ProducerId,
}

#[derive(Debug, Clone)]
pub struct FieldDef {
    pub name: String,
    pub ty: Ty,
    /// Where the field is on the wire (regular or tagged); `None` if never within the message.
    pub versions: Option<Versions>,
    pub nullable: Option<Versions>,
    /// The tag and the versions in which the field is tagged.
    pub tagged: Option<(u32, Versions)>,
    /// `flexibleVersions: none` on the field: always the classic encoding (the request header's
    /// client id).
    pub never_compact: bool,
    pub default: Option<serde_json::Value>,
    pub ignorable: bool,
    pub map_key: bool,
    pub entity: Option<Entity>,
}

impl FieldDef {
    pub fn is_nullable_type(&self) -> bool {
        self.nullable.is_some()
    }

    /// The versions in which the field is a regular (untagged) field.
    pub fn regular_versions(&self) -> Option<Versions> {
        let versions = self.versions?;
        match self.tagged {
            None => Some(versions),
            Some((_, tagged)) if tagged.contains_all(versions) => None,
            Some((_, tagged)) if tagged.min > versions.min => {
                versions.intersect(Versions { min: versions.min, max: tagged.min - 1 })
            }
            Some(_) => None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct StructDef {
    pub name: String,
    /// The versions in which this struct can be decoded (its parent field's, within the message's).
    pub versions: Versions,
    pub fields: Vec<FieldDef>,
}

/// One schema, resolved.
#[derive(Debug, Clone)]
pub struct MessageDef {
    pub name: String,
    pub kind: String,
    pub component: Component,
    pub api_key: Option<i16>,
    /// The versions generated: `validVersions` less an unstable latest version.
    pub versions: Versions,
    pub flexible_min: Option<i16>,
    pub listeners: Vec<String>,
    /// The top-level struct first, then nested and common structs in definition order.
    pub structs: Vec<StructDef>,
}

impl MessageDef {
    pub fn is_flexible_at_all(&self) -> bool {
        self.flexible_min.is_some_and(|f| f <= self.versions.max)
    }

    /// `ENCODED_SIZE_MIN` of each struct: the minimum over its versions of the sum of its regular
    /// fields' minimum sizes (plus the tagged-field count byte when flexible).
    pub fn encoded_sizes_min(&self) -> BTreeMap<String, usize> {
        let mut sizes = BTreeMap::new();
        // Nested structs are defined after their parents, so resolve children first.
        for def in self.structs.iter().rev() {
            let mut best = usize::MAX;
            for version in def.versions.min..=def.versions.max {
                let flexible = self.flexible_min.is_some_and(|f| version >= f);
                let mut size = usize::from(flexible);
                for field in &def.fields {
                    let regular = field.regular_versions();
                    if regular.is_some_and(|r| r.min <= version && version <= r.max) {
                        let nullable = field.nullable.is_some_and(|n| n.min <= version && version <= n.max);
                        size += field.ty.encoded_size_min(nullable, &sizes);
                    }
                }
                best = best.min(size);
            }
            sizes.insert(def.name.clone(), if best == usize::MAX { 0 } else { best });
        }
        sizes
    }
}

/// Resolves a parsed schema; `None` for an API Kafka removed (`validVersions: none`).
pub fn resolve(schema: Schema, component: Component) -> Result<Option<MessageDef>> {
    let Some(valid) = Versions::parse(&schema.valid_versions)? else { return Ok(None) };
    let versions = if schema.latest_version_unstable {
        if valid.max == valid.min {
            bail!("{}: its only version is unstable", schema.name);
        }
        Versions { min: valid.min, max: valid.max - 1 }
    } else {
        valid
    };
    let flexible_min = match &schema.flexible_versions {
        None => None,
        Some(text) => Versions::parse(text)?.map(|f| f.min),
    };
    let mut structs = Vec::new();
    let top = resolve_struct(&schema.name, &schema.fields, versions, &mut structs)?;
    structs.insert(0, top);
    for common in &schema.common_structs {
        let declared = Versions::parse(&common.versions)?.context("common struct versions none")?;
        let within = declared.intersect(versions).unwrap_or(versions);
        let def = resolve_struct(&common.name, &common.fields, within, &mut structs)?;
        structs.push(def);
    }
    check_unique_struct_names(&schema.name, &structs)?;
    if schema.kind != "response" {
        // Only a broker's responses carry file regions (`Records`); elsewhere a record set is bytes.
        for field in structs.iter_mut().flat_map(|s| s.fields.iter_mut()) {
            if field.ty == Ty::Records {
                field.ty = Ty::Bytes;
            }
        }
    }
    Ok(Some(MessageDef {
        name: schema.name,
        kind: schema.kind,
        component,
        api_key: schema.api_key,
        versions,
        flexible_min,
        listeners: schema.listeners,
        structs,
    }))
}

fn check_unique_struct_names(message: &str, structs: &[StructDef]) -> Result<()> {
    let mut seen = std::collections::BTreeSet::new();
    for def in structs {
        if !seen.insert(def.name.as_str()) {
            bail!("{message}: struct {} is defined twice", def.name);
        }
    }
    Ok(())
}

fn resolve_struct(name: &str, fields: &[Field], within: Versions, out: &mut Vec<StructDef>) -> Result<StructDef> {
    let mut defs = Vec::new();
    for field in fields {
        let def = resolve_field(field, within).with_context(|| format!("{name}.{}", field.name))?;
        if def.versions.is_none() {
            // Only in versions below the message's floor (KIP-896 removed them): not generated.
            continue;
        }
        if let Some(children) = &field.fields {
            let element = match &def.ty {
                Ty::Struct(n) => n.clone(),
                Ty::Array(inner) => match inner.as_ref() {
                    Ty::Struct(n) => n.clone(),
                    other => bail!("{name}.{}: fields on an array of {other:?}", field.name),
                },
                other => bail!("{name}.{}: fields on a {other:?}", field.name),
            };
            let child_within = def.versions.unwrap_or(within);
            let child = resolve_struct(&element, children, child_within, out)?;
            out.push(child);
        }
        defs.push(def);
    }
    Ok(StructDef { name: name.to_owned(), versions: within, fields: defs })
}

fn resolve_field(field: &Field, within: Versions) -> Result<FieldDef> {
    let ty = Ty::parse(&field.type_name);
    let declared = match (&field.versions, &field.tagged_versions) {
        (Some(text), _) | (None, Some(text)) => Versions::parse(text)?,
        (None, None) => bail!("no versions"),
    };
    let versions = declared.and_then(|v| v.intersect(within));
    let nullable = match &field.nullable_versions {
        Some(text) => Versions::parse(text)?,
        None => None,
    };
    if nullable.is_some() && !matches!(ty, Ty::String | Ty::Bytes | Ty::Records | Ty::Array(_) | Ty::Struct(_)) {
        bail!("nullable {ty:?} is not supported by Kafka's encoding");
    }
    let tagged = match (&field.tagged_versions, field.tag) {
        (Some(text), Some(tag)) => Versions::parse(text)?.map(|v| (tag, v)),
        (None, None) => None,
        _ => bail!("tag and taggedVersions must come together"),
    };
    let never_compact = match &field.flexible_versions {
        Some(text) => Versions::parse(text)?.is_none(),
        None => false,
    };
    let entity = match (field.entity_type.as_deref(), &ty) {
        (Some("brokerId"), Ty::Int32) => Some(Entity::BrokerId),
        (Some("brokerId"), Ty::Array(inner)) if **inner == Ty::Int32 => Some(Entity::BrokerId),
        (Some("producerId"), Ty::Int64) => Some(Entity::ProducerId),
        (Some("producerId"), Ty::Array(inner)) if **inner == Ty::Int64 => Some(Entity::ProducerId),
        (Some("brokerId" | "producerId"), other) => bail!("entity type on a {other:?}"),
        _ => None,
    };
    Ok(FieldDef {
        name: field.name.clone(),
        ty,
        versions,
        nullable,
        tagged,
        never_compact,
        default: field.default.clone(),
        ignorable: field.ignorable,
        map_key: field.map_key,
        entity,
    })
}
