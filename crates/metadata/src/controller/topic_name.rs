//! Topic name rules, as Kafka's `Topic.validate` and its collision check.

use crate::image::MetadataImage;

/// The longest legal topic name (Kafka's `Topic.MAX_NAME_LENGTH`).
pub const TOPIC_NAME_LENGTH_MAX: usize = 249;

/// `Ok` for a legal name; otherwise Kafka's INVALID_TOPIC_EXCEPTION message. Legal names are
/// 1 to 249 characters of `[a-zA-Z0-9._-]`, other than `.` and `..`.
pub fn validate_topic_name(name: &str) -> Result<(), String> {
    let reason = if name.is_empty() {
        "the empty string is not allowed".to_owned()
    } else if name == "." {
        "'.' is not allowed".to_owned()
    } else if name == ".." {
        "'..' is not allowed".to_owned()
    } else if name.encode_utf16().count() > TOPIC_NAME_LENGTH_MAX {
        format!("the length of '{name}' is longer than the max allowed length {TOPIC_NAME_LENGTH_MAX}")
    } else if !name.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-')) {
        format!("'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'")
    } else {
        return Ok(());
    };
    Err(format!("Topic name is invalid: {reason}"))
}

/// The name with `.` read as `_`: two topics whose names unify collide in metric names, so Kafka
/// refuses the second (Kafka's `Topic.unifyCollisionChars`).
pub fn unify_collision_chars(name: &str) -> String {
    name.replace('.', "_")
}

/// An existing topic that `name` collides with, other than `name` itself: a lookup in the
/// image's index of names by unified spelling.
pub fn colliding_topic<'a>(image: &'a MetadataImage, name: &str) -> Option<&'a str> {
    image.topics().colliding_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka's rules: length, `.` and `..`, and the legal characters, with Kafka's messages.
    #[test]
    fn names_validate_as_kafka() {
        assert_eq!(validate_topic_name("orders.v1_x-2"), Ok(()));
        assert_eq!(validate_topic_name(&"a".repeat(249)), Ok(()));
        assert!(validate_topic_name(&"a".repeat(250)).is_err());
        assert_eq!(validate_topic_name(""), Err("Topic name is invalid: the empty string is not allowed".to_owned()));
        assert_eq!(validate_topic_name(".."), Err("Topic name is invalid: '..' is not allowed".to_owned()));
        assert_eq!(
            validate_topic_name("a b"),
            Err("Topic name is invalid: 'a b' contains one or more characters other than ASCII alphanumerics, \
                 '.', '_' and '-'"
                .to_owned())
        );
        assert!(validate_topic_name("caf\u{e9}").is_err());
    }
}
