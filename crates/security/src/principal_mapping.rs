//! Kafka's `SslPrincipalMapper`: `ssl.principal.mapping.rules`, turning a client certificate's
//! subject (RFC 2253, as Java's `X500Principal.getName()`) into a principal's name.
//!
//! The rules are a comma-separated list, tried in order; the first that applies names the
//! principal, and a name no rule applies to fails the authentication:
//! - `DEFAULT`: the distinguished name itself;
//! - `RULE:pattern/replacement/` with an optional `L` or `U` after the last slash (lower or upper
//!   case the result): applies when `pattern` matches the whole name, which is then rewritten with
//!   `replacement` (`$1` for the first group, as Java's `replaceAll`). A `/` inside the pattern or
//!   the replacement is written `\/`; the pattern may hold commas.
//!
//! Patterns are Rust `regex` syntax, which reads Java's as long as the pattern uses no
//! back-references or look-around (refused at start-up with the regex error).

use std::fmt;

use regex::Regex;

/// Kafka's default: the distinguished name as the principal's name.
pub const DEFAULT_RULES: &str = "DEFAULT";

/// Parsed `ssl.principal.mapping.rules`.
#[derive(Debug, Clone)]
pub struct SslPrincipalMapper {
    rules: Vec<Rule>,
}

#[derive(Debug, Clone)]
enum Rule {
    Default,
    /// `anchored` is `pattern` made to match whole names only (Java's `matches()`).
    Rewrite {
        pattern: Regex,
        anchored: Regex,
        replacement: String,
        case: Case,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Case {
    Keep,
    Lower,
    Upper,
}

/// A name no rule applies to (Kafka's `NoMatchingRule`): the connection does not authenticate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("No rules apply to {name}, rules {rules}")]
pub struct NoMatchingRule {
    pub name: String,
    pub rules: String,
}

impl SslPrincipalMapper {
    /// Parses the rules as Kafka does; the error is Kafka's `Invalid rule: ...` message (or the
    /// pattern's regex error).
    pub fn parse(text: &str) -> Result<SslPrincipalMapper, String> {
        let mut rules = Vec::new();
        let mut rest = text.trim();
        while !rest.is_empty() {
            let (rule, after) = next_rule(rest)?;
            rules.extend(rule);
            rest = after.trim_start();
        }
        Ok(SslPrincipalMapper { rules })
    }

    /// The principal name for `distinguished_name`.
    pub fn name(&self, distinguished_name: &str) -> Result<String, NoMatchingRule> {
        self.rules
            .iter()
            .find_map(|rule| rule.apply(distinguished_name))
            .ok_or_else(|| NoMatchingRule { name: distinguished_name.to_owned(), rules: self.to_string() })
    }
}

impl Default for SslPrincipalMapper {
    fn default() -> SslPrincipalMapper {
        SslPrincipalMapper { rules: vec![Rule::Default] }
    }
}

impl Rule {
    fn apply(&self, name: &str) -> Option<String> {
        let (pattern, replacement, case, anchored) = match self {
            Rule::Default => return Some(name.to_owned()),
            Rule::Rewrite { pattern, anchored, replacement, case } => (pattern, replacement, *case, anchored),
        };
        if !anchored.is_match(name) {
            return None;
        }
        let groups = pattern.captures_len() - 1;
        let mut out = String::new();
        let mut last = 0;
        for captures in pattern.captures_iter(name) {
            let Some(found) = captures.get(0) else { continue };
            out.push_str(&name[last..found.start()]);
            expand(replacement, &captures, groups, &mut out);
            last = found.end();
        }
        out.push_str(&name[last..]);
        Some(match case {
            Case::Keep => out,
            Case::Lower => out.to_lowercase(),
            Case::Upper => out.to_uppercase(),
        })
    }
}

/// Java's `Matcher.appendReplacement` syntax: `$n` a group (the longest number not past the
/// group count, Kafka's `escapeLiteralBackReferences` making a `$n` past it literal), `\c` the
/// character `c`.
fn expand(replacement: &str, captures: &regex::Captures<'_>, groups: usize, out: &mut String) {
    let mut chars = replacement.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            '$' if chars.peek().is_some_and(char::is_ascii_digit) && groups > 0 => {
                let mut index = 0usize;
                let mut digits = String::new();
                while let Some(&d) = chars.peek() {
                    let Some(value) = d.to_digit(10) else { break };
                    let next = index * 10 + value as usize;
                    if !digits.is_empty() && next > groups {
                        break;
                    }
                    index = next;
                    digits.push(d);
                    chars.next();
                }
                if index > groups {
                    out.push('$');
                    out.push_str(&digits);
                } else if let Some(group) = captures.get(index) {
                    out.push_str(group.as_str());
                }
            }
            c => out.push(c),
        }
    }
}

/// Splits the first rule off `text` (trimmed at its start): the rule (`None` for an empty one)
/// and what follows its separating comma.
fn next_rule(text: &str) -> Result<(Option<Rule>, &str), String> {
    if let Some(after) = text.strip_prefix("DEFAULT")
        && let Some(rest) = separator(after)
    {
        return Ok((Some(Rule::Default), rest));
    }
    if let Some(body) = text.strip_prefix("RULE:")
        && let Some((pattern, after_pattern)) = until_slash(body)
        && let Some((replacement, after_replacement)) = until_slash(after_pattern)
    {
        let (case, tail) = match after_replacement.chars().next() {
            Some('L') => (Case::Lower, &after_replacement[1..]),
            Some('U') => (Case::Upper, &after_replacement[1..]),
            _ => (Case::Keep, after_replacement),
        };
        let (unmatched, rest) = tail.split_once(',').unwrap_or((tail, ""));
        let unmatched = unmatched.trim_end();
        let rule_text = &text[..text.len() - tail.len() + unmatched.len()];
        if !unmatched.is_empty() {
            return Err(format!("Invalid rule: `{rule_text}`, unmatched substring: `{unmatched}`"));
        }
        let invalid = |e: regex::Error| format!("Invalid rule: `{rule_text}`: {e}");
        let anchored = Regex::new(&format!("^(?:{pattern})$")).map_err(invalid)?;
        let pattern = Regex::new(pattern).map_err(invalid)?;
        let replacement = replacement.to_owned();
        return Ok((Some(Rule::Rewrite { pattern, anchored, replacement, case }), rest));
    }
    let (rule, rest) = text.split_once(',').unwrap_or((text, ""));
    match rule.trim_end() {
        "" => Ok((None, rest)),
        rule => Err(format!("Invalid rule: {rule}")),
    }
}

/// What follows optional spaces and a comma (or the end) at the start of `text`.
fn separator(text: &str) -> Option<&str> {
    let text = text.trim_start();
    if text.is_empty() { Some(text) } else { text.strip_prefix(',') }
}

/// `text` up to its first `/` not escaped by a backslash, and what follows that slash.
fn until_slash(text: &str) -> Option<(&str, &str)> {
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '/' => return Some((&text[..i], &text[i + 1..])),
            _ => {}
        }
    }
    None
}

impl fmt::Display for SslPrincipalMapper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rules: Vec<String> = self
            .rules
            .iter()
            .map(|rule| match rule {
                Rule::Default => "DEFAULT".to_owned(),
                Rule::Rewrite { pattern, replacement, case, .. } => {
                    let case = match case {
                        Case::Keep => "",
                        Case::Lower => "/L",
                        Case::Upper => "/U",
                    };
                    format!("RULE:{pattern}/{replacement}{case}")
                }
            })
            .collect();
        write!(f, "[{}]", rules.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(rules: &str, cases: &[(&str, &str)]) {
        let mapper = SslPrincipalMapper::parse(rules).unwrap_or_else(|e| panic!("{rules}: {e}"));
        for (dn, expected) in cases {
            assert_eq!(mapper.name(dn).as_deref(), Ok(*expected), "{rules} on {dn}");
        }
    }

    /// The example of Kafka's documentation (`ssl.principal.mapping.rules`, "Customizing SSL
    /// User Name"), and its other mapping tests.
    #[test]
    fn kafka_documentation_examples_map_as_documented() {
        let documented = "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,\
                          RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,\
                          RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L,\
                          DEFAULT";
        check(
            documented,
            &[
                ("CN=serviceuser,OU=ServiceUsers,O=Unknown,L=Unknown,ST=Unknown,C=Unknown", "serviceuser"),
                ("CN=adminUser,OU=Admin,O=Unknown,L=Unknown,ST=Unknown,C=Unknown", "adminuser@admin"),
                ("CN=kafka1,O=Apache", "kafka1"),
                ("OU=NoCommonName", "OU=NoCommonName"),
            ],
        );
        check("RULE:^CN=(.*?),OU=(.*?)$/$1@$2/U, DEFAULT", &[("CN=duke,OU=JavaSoft", "DUKE@JAVASOFT")]);
        check(DEFAULT_RULES, &[("CN=client,OU=eng,O=acme", "CN=client,OU=eng,O=acme")]);
    }

    /// Escaped slashes, commas and spaces around rules, and a `$n` past the group count kept
    /// literally (Kafka's `escapeLiteralBackReferences`).
    #[test]
    fn syntax_corners_follow_kafka() {
        check(r"RULE:^CN=(.*?)\/(.*)$/$1\/$2/", &[("CN=a/b", "a/b")]);
        check("  RULE:^CN=([^,]*),.*$/$1/L ,  DEFAULT  ", &[("CN=Alice,O=x", "alice"), ("O=x", "O=x")]);
        check("RULE:^CN=(.*)$/$1@$4/", &[("CN=bob", "bob@$4")]);
        check("RULE:^CN=(.*)$/$12/", &[("CN=bob", "bob2")]);
    }

    /// Malformed rules are refused with Kafka's message; a name no rule applies to is an error.
    #[test]
    fn bad_rules_and_unmatched_names_fail() {
        for bad in ["RULE:abc", "DEFAULTX", "RULE:a/b/Lxyz", "foo", "RULE:(/x/"] {
            assert!(SslPrincipalMapper::parse(bad).is_err(), "{bad} accepted");
        }
        let err = SslPrincipalMapper::parse("RULE:a/b/Lxyz").err().unwrap_or_default();
        assert_eq!(err, "Invalid rule: `RULE:a/b/Lxyz`, unmatched substring: `xyz`");
        let mapper = SslPrincipalMapper::parse("RULE:^CN=(.*)$/$1/").expect("valid");
        let err = mapper.name("O=acme").expect_err("no rule applies");
        assert!(err.to_string().starts_with("No rules apply to O=acme"), "{err}");
        assert!(SslPrincipalMapper::parse("").expect("empty").name("CN=x").is_err());
    }
}
