//! The parameters of a console request: a query string or an
//! `application/x-www-form-urlencoded` form body, read into [`Params`]. An empty field counts as
//! absent (an HTML form sends every field, filled or not).

use std::collections::BTreeMap;

use super::html::Part;

/// The most bytes of a form body the console reads (its largest field, a produced value, is
/// bounded by this too).
pub const FORM_BYTES_MAX: usize = 1 << 20;

/// Decoded `name=value` pairs; a repeated name keeps its values in order.
#[derive(Debug, Default, Clone)]
pub struct Params(BTreeMap<String, Vec<String>>);

impl Params {
    /// Reads `a=1&b=x+y&c=%3C`; a pair without `=` has an empty value.
    pub fn parse(text: &str) -> Params {
        let mut params = BTreeMap::<String, Vec<String>>::new();
        for pair in text.split('&').filter(|p| !p.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            params.entry(decode(name)).or_default().push(decode(value));
        }
        Params(params)
    }

    /// The first value of `name`, unless empty.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name)?.first().map(String::as_str).filter(|v| !v.is_empty())
    }

    /// The first value of `name`, trimmed, unless empty.
    pub fn trimmed(&self, name: &str) -> Option<&str> {
        self.get(name).map(str::trim).filter(|v| !v.is_empty())
    }

    /// `name` as an integer: `Ok(None)` when absent, an error naming it when not a number.
    pub fn int(&self, name: &str) -> Result<Option<i64>, String> {
        match self.trimmed(name) {
            None => Ok(None),
            Some(text) => text.parse().map(Some).map_err(|_| format!("{name} must be an integer, not '{text}'")),
        }
    }
}

impl Params {
    /// Every pair, by name.
    pub fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().flat_map(|(name, values)| values.iter().map(move |value| (name.as_str(), value.as_str())))
    }

    /// The parameters again as a query, without those in `names`.
    pub fn query_without(&self, names: &[&str]) -> String {
        let kept = self.pairs().filter(|(name, _)| !names.contains(name));
        kept.map(|(name, value)| format!("{}={}", Part(name), Part(value))).collect::<Vec<_>>().join("&")
    }
}

/// Percent-decoding with `+` as a space; invalid escapes are kept as written, invalid UTF-8 is
/// replaced.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(byte) => {
                        out.push(byte);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Forms and queries decode as browsers encode them.
    #[test]
    fn forms_decode() {
        let params = Params::parse("topic=a+b&key=%3Cscript%3E&empty=&n=%2012%20&bad=%zz%4&h=1&h=2&flag");
        assert_eq!(params.get("topic"), Some("a b"));
        assert_eq!(params.get("key"), Some("<script>"));
        assert_eq!(params.get("empty"), None);
        assert_eq!(params.int("n"), Ok(Some(12)));
        assert_eq!(params.get("bad"), Some("%zz%4"));
        assert_eq!(params.get("h"), Some("1"));
        assert_eq!(params.get("flag"), None);
        assert_eq!(params.int("missing"), Ok(None));
        assert!(params.int("topic").is_err());
        assert_eq!(Params::parse("v=%C3%A9%E2%82%AC").get("v"), Some("é€"));
    }
}
