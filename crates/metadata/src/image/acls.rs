//! The cluster's ACLs, from `AccessControlEntryRecord`s and their removals, as Kafka's
//! `AclsImage`: every [`StandardAcl`] by its id, and an index by resource so that an
//! authorization decision reads the bindings of the resources that can match it, not every ACL
//! ([`AclsImage::matching`]).
//!
//! What it is not: the decision (that is [`crate::authorizer`]) or validation (the controller
//! only writes valid bindings; a record with codes Kafka does not define is kept as `Unknown`,
//! as Kafka's `StandardAcl.fromRecord` keeps it, and matches nothing).

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Bound;

use strand_base::Uuid;
use strand_protocol::messages::{AccessControlEntryRecord, RemoveAccessControlEntryRecord};
use strand_security::acl::{AclOperation, AclPermissionType, PatternType, ResourceType, WILDCARD_RESOURCE};

use super::ReplayError;

/// One ACL binding (Kafka's `StandardAcl`): a resource pattern and an entry saying who may or
/// may not do what, from where. The principal is Kafka's `Type:name` text (`User:*` for every
/// user); the host an IP address as Java prints it, or `*`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StandardAcl {
    pub resource_type: ResourceType,
    pub resource_name: String,
    pub pattern_type: PatternType,
    pub principal: String,
    pub host: String,
    pub operation: AclOperation,
    pub permission: AclPermissionType,
}

impl StandardAcl {
    /// The binding a record carries (Kafka's `StandardAcl.fromRecord`).
    pub fn from_record(record: &AccessControlEntryRecord) -> StandardAcl {
        StandardAcl {
            resource_type: ResourceType::from_code(record.resource_type),
            resource_name: record.resource_name.clone(),
            pattern_type: PatternType::from_code(record.pattern_type),
            principal: record.principal.clone(),
            host: record.host.clone(),
            operation: AclOperation::from_code(record.operation),
            permission: AclPermissionType::from_code(record.permission_type),
        }
    }

    /// The record that creates this binding with `id`.
    pub fn to_record(&self, id: Uuid) -> AccessControlEntryRecord {
        AccessControlEntryRecord {
            id,
            resource_type: self.resource_type.code(),
            resource_name: self.resource_name.clone(),
            pattern_type: self.pattern_type.code(),
            principal: self.principal.clone(),
            host: self.host.clone(),
            operation: self.operation.code(),
            permission_type: self.permission.code(),
            ..Default::default()
        }
    }
}

impl fmt::Display for StandardAcl {
    /// As Kafka's `StandardAcl.toString`, which its authorizer's log lines print.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "StandardAcl(resourceType={}, resourceName={}, patternType={}, principal={}, host={}, \
             operation={}, permissionType={})",
            self.resource_type,
            self.resource_name,
            self.pattern_type,
            self.principal,
            self.host,
            self.operation,
            self.permission
        )
    }
}

/// Every ACL, by id and by resource. Kafka's `AclCache` keeps one set sorted by resource type
/// then reversed name; here a map by (type, name) holds each resource's bindings, and the
/// bindings that can match a name are found by walking down from it ([`AclsImage::matching`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AclsImage {
    by_id: BTreeMap<Uuid, StandardAcl>,
    /// (type, name) → the ids of the bindings on that name, LITERAL and PREFIXED alike.
    by_resource: BTreeMap<(ResourceType, String), BTreeMap<Uuid, ()>>,
}

impl AclsImage {
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// The binding with `id`.
    pub fn get(&self, id: &Uuid) -> Option<&StandardAcl> {
        self.by_id.get(id)
    }

    /// Every binding with its id, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (&Uuid, &StandardAcl)> {
        self.by_id.iter()
    }

    /// Every binding in resource order (type, then name), as Kafka's cache iterates them.
    pub fn by_resource(&self) -> impl Iterator<Item = (&Uuid, &StandardAcl)> {
        self.by_resource.values().flat_map(|ids| ids.keys()).filter_map(|id| Some((id, self.by_id.get(id)?)))
    }

    /// Every binding on resources of `resource_type`, in name order.
    pub fn of_type(&self, resource_type: ResourceType) -> impl Iterator<Item = &StandardAcl> {
        let range = self.by_resource.range((resource_type, String::new())..);
        range
            .take_while(move |((kind, _), _)| *kind == resource_type)
            .flat_map(|(_, ids)| ids.keys())
            .filter_map(|id| self.by_id.get(id))
    }

    /// Whether the very binding `acl` exists (under any id).
    pub fn contains(&self, acl: &StandardAcl) -> bool {
        let key = (acl.resource_type, acl.resource_name.clone());
        let Some(ids) = self.by_resource.get(&key) else { return false };
        ids.keys().any(|id| self.by_id.get(id) == Some(acl))
    }

    /// The bindings of `resource_type` whose pattern can match the resource `name`: LITERAL
    /// bindings on `name` itself and on `*`, and PREFIXED bindings on every prefix of `name`.
    ///
    /// Cost: the names at or below `name` are walked down from it; past a name that is not a
    /// prefix of `name` the walk jumps to the longest prefix the two share, so at most one jump
    /// per character of `name`, plus one step per matching binding.
    pub fn matching<'a, 'n>(
        &'a self,
        resource_type: ResourceType,
        name: &'n str,
    ) -> impl Iterator<Item = &'a StandardAcl> + use<'a, 'n> {
        let mut found: Vec<&(ResourceType, String)> = Vec::new();
        let mut upper = name.to_owned();
        'jumps: loop {
            let range = self.by_resource.range((
                Bound::Included((resource_type, String::new())),
                Bound::Included((resource_type, upper.clone())),
            ));
            for (key, _) in range.rev() {
                if name.starts_with(key.1.as_str()) {
                    found.push(key);
                    continue;
                }
                let mut shared = key.1.bytes().zip(name.bytes()).take_while(|(a, b)| a == b).count();
                while !name.is_char_boundary(shared) {
                    shared -= 1;
                }
                upper = name[..shared].to_owned();
                continue 'jumps;
            }
            break;
        }
        let wildcard = (name != WILDCARD_RESOURCE)
            .then(|| self.by_resource.get_key_value(&(resource_type, WILDCARD_RESOURCE.to_owned())))
            .flatten()
            .map(|(key, _)| key);
        found.into_iter().chain(wildcard).flat_map(move |key| {
            let ids = &self.by_resource[key];
            ids.keys().filter_map(|id| self.by_id.get(id)).filter(move |acl| {
                let exact = acl.resource_name == name;
                match acl.pattern_type {
                    PatternType::Literal => exact || acl.resource_name == WILDCARD_RESOURCE,
                    PatternType::Prefixed => true,
                    _ => false,
                }
            })
        })
    }

    /// The records that recreate this image, in id order.
    pub(super) fn to_records(&self) -> impl Iterator<Item = AccessControlEntryRecord> + '_ {
        self.by_id.iter().map(|(id, acl)| acl.to_record(*id))
    }

    /// Adds a binding, as Kafka's `AclsDelta.replay`; a record with an id already in use
    /// replaces that binding.
    pub(super) fn replay(&mut self, record: &AccessControlEntryRecord) {
        self.remove(&record.id);
        let acl = StandardAcl::from_record(record);
        self.by_resource.entry((acl.resource_type, acl.resource_name.clone())).or_default().insert(record.id, ());
        self.by_id.insert(record.id, acl);
    }

    /// Removes a binding; an id that is not there is an error, as in Kafka (its controller never
    /// writes such a removal).
    pub(super) fn replay_remove(&mut self, record: &RemoveAccessControlEntryRecord) -> Result<(), ReplayError> {
        self.remove(&record.id).map(|_| ()).ok_or(ReplayError::UnknownAcl(record.id))
    }

    fn remove(&mut self, id: &Uuid) -> Option<StandardAcl> {
        let acl = self.by_id.remove(id)?;
        let key = (acl.resource_type, acl.resource_name.clone());
        if let Some(ids) = self.by_resource.get_mut(&key) {
            ids.remove(id);
            if ids.is_empty() {
                self.by_resource.remove(&key);
            }
        }
        Some(acl)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acl(pattern_type: PatternType, name: &str) -> StandardAcl {
        StandardAcl {
            resource_type: ResourceType::Topic,
            resource_name: name.to_owned(),
            pattern_type,
            principal: "User:alice".to_owned(),
            host: "*".to_owned(),
            operation: AclOperation::Read,
            permission: AclPermissionType::Allow,
        }
    }

    fn image(acls: &[StandardAcl]) -> AclsImage {
        let mut image = AclsImage::default();
        for (i, acl) in acls.iter().enumerate() {
            image.replay(&acl.to_record(Uuid((i as u128 + 1).to_be_bytes())));
        }
        image
    }

    fn matching(image: &AclsImage, name: &str) -> Vec<String> {
        let mut names: Vec<String> = image
            .matching(ResourceType::Topic, name)
            .map(|a| format!("{}:{}", a.pattern_type, a.resource_name))
            .collect();
        names.sort();
        names
    }

    /// The walk finds exactly the bindings a full scan with Kafka's rules would: prefixes at any
    /// depth behind non-matching names, the literal name, `*`, and nothing else.
    #[test]
    fn matching_finds_literal_prefixed_and_wildcard_bindings() {
        let image = image(&[
            acl(PatternType::Prefixed, "gar"),
            acl(PatternType::Prefixed, "foobar"),
            acl(PatternType::Literal, "foob"),
            acl(PatternType::Prefixed, "foo"),
            acl(PatternType::Prefixed, "fb"),
            acl(PatternType::Prefixed, "fa"),
            acl(PatternType::Prefixed, "f"),
            acl(PatternType::Literal, "eeee"),
            acl(PatternType::Literal, "foobar"),
            acl(PatternType::Literal, "*"),
            acl(PatternType::Prefixed, "foobarbaz"),
        ]);
        assert_eq!(
            matching(&image, "foobar"),
            vec!["LITERAL:*", "LITERAL:foobar", "PREFIXED:f", "PREFIXED:foo", "PREFIXED:foobar"]
        );
        assert_eq!(matching(&image, "foob"), vec!["LITERAL:*", "LITERAL:foob", "PREFIXED:f", "PREFIXED:foo"]);
        assert_eq!(matching(&image, "zzz"), vec!["LITERAL:*"]);
        assert_eq!(matching(&image, "é-topic"), vec!["LITERAL:*"]);
    }

    #[test]
    fn removal_of_an_unknown_id_is_an_error_and_a_removed_binding_is_gone() {
        let mut image = image(&[acl(PatternType::Literal, "orders")]);
        let remove = |id| RemoveAccessControlEntryRecord { id: Uuid(u128::to_be_bytes(id)), ..Default::default() };
        assert_eq!(image.replay_remove(&remove(9)), Err(ReplayError::UnknownAcl(Uuid(9u128.to_be_bytes()))));
        assert_eq!(image.replay_remove(&remove(1)), Ok(()));
        assert!(image.is_empty());
        assert_eq!(image, AclsImage::default());
    }
}
