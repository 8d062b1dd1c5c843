//! Kafka's CamelCase names turned into Rust's: `snake_case` fields and modules, with keywords
//! escaped as raw identifiers.

/// `TopicData` → `topic_data`, `ISRNodes` → `isr_nodes`, `Sha256Hash` → `sha256_hash`.
pub fn snake_case(name: &str) -> String {
    // "KRaft" is one word, not K + Raft.
    let name = name.replace("KRaft", "Kraft");
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1).copied();
            let after_lower = prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit());
            let acronym_end =
                prev.is_some_and(|p| p.is_ascii_uppercase()) && next.is_some_and(|n| n.is_ascii_lowercase());
            if after_lower || acronym_end {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A field name as a Rust identifier.
pub fn to_rust_field(name: &str) -> String {
    let snake = snake_case(name);
    if is_keyword(&snake) { format!("r#{snake}") } else { snake }
}

fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "as" | "break"
            | "const"
            | "continue"
            | "crate"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "self"
            | "static"
            | "struct"
            | "super"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "async"
            | "await"
            | "dyn"
            | "abstract"
            | "become"
            | "box"
            | "do"
            | "final"
            | "macro"
            | "override"
            | "priv"
            | "typeof"
            | "unsized"
            | "virtual"
            | "yield"
            | "try"
            | "gen"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka's spellings, acronyms and digits included, map to the snake case a reader expects.
    #[test]
    fn snake_case_handles_acronyms_and_digits() {
        for (kafka, rust) in [
            ("TopicData", "topic_data"),
            ("ISRNodes", "isr_nodes"),
            ("ThrottleTimeMs", "throttle_time_ms"),
            ("Sha256Hash", "sha256_hash"),
            ("TopicId", "topic_id"),
            ("ProducerIdsRecord", "producer_ids_record"),
            ("Type", "type"),
            ("KRaftVersionRecord", "kraft_version_record"),
        ] {
            assert_eq!(snake_case(kafka), rust);
        }
        assert_eq!(to_rust_field("Type"), "r#type");
        assert_eq!(to_rust_field("Match"), "r#match");
    }
}
