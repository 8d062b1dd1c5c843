//! The JSON Kafka's generated converters print, written by hand in field order: an object
//! builder and the forms of Kafka's field types (Jackson's text escaping, bytes as base64,
//! uuids as Kafka's base64 form).

use std::fmt::Display;

use base64::Engine;
use strand_base::Uuid;

/// A JSON object written field by field in the order given (Jackson's `ObjectNode` keeps
/// insertion order; serde_json's map here would sort).
pub struct Object {
    out: String,
}

impl Object {
    pub fn new() -> Object {
        Object { out: String::from("{") }
    }

    /// Adds a field whose value is already JSON (a number, or text from [`text`], ...).
    pub fn field(&mut self, name: &str, json: impl Display) -> &mut Object {
        if self.out.len() > 1 {
            self.out.push(',');
        }
        self.out += &format!("\"{name}\":{json}");
        self
    }

    pub fn end(&mut self) -> String {
        let mut out = std::mem::take(&mut self.out);
        out.push('}');
        out
    }
}

pub fn text(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

pub fn optional_text(s: Option<&str>) -> String {
    s.map_or_else(|| "null".to_owned(), text)
}

/// Bytes as Jackson writes a `BinaryNode`: standard base64 with padding, in quotes.
pub fn binary(bytes: &[u8]) -> String {
    format!("\"{}\"", base64::engine::general_purpose::STANDARD.encode(bytes))
}

pub fn optional_binary(bytes: Option<&[u8]>) -> String {
    bytes.map_or_else(|| "null".to_owned(), binary)
}

pub fn uuid(id: &Uuid) -> String {
    text(&id.to_string())
}

pub fn list<T, J: Display>(items: &[T], each: impl Fn(&T) -> J) -> String {
    let items: Vec<String> = items.iter().map(|i| each(i).to_string()).collect();
    format!("[{}]", items.join(","))
}
