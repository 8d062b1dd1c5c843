//! `sasl.jaas.config` values, parsed as Kafka's `JaasConfig` does: Java's `StreamTokenizer` over
//! `LoginModuleClass controlFlag key=value ... ;`, once per login module.
//!
//! The tokenizer's rules are Kafka's: a word is any run of characters from `!` to `\x80` or from
//! `\xA0` up, but `;`, `=`, `/` and quotes (so class names and most values need no quotes);
//! quoted values take Java's escapes; `/` starts a comment (`//`, `/* */`, or a lone `/` to the
//! line's end). Options hold passwords, so [`JaasEntry`]'s `Debug` shows their keys only.

use std::collections::BTreeMap;
use std::fmt;

/// The login module of `PLAIN`.
pub const PLAIN_LOGIN_MODULE: &str = "org.apache.kafka.common.security.plain.PlainLoginModule";
/// The login module of `SCRAM-SHA-256` and `SCRAM-SHA-512`.
pub const SCRAM_LOGIN_MODULE: &str = "org.apache.kafka.common.security.scram.ScramLoginModule";
/// The login module of `OAUTHBEARER`.
pub const OAUTHBEARER_LOGIN_MODULE: &str = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";

/// The longest `sasl.jaas.config` value parsed; a config, not a peer's input, but bounded alike.
pub const JAAS_CONFIG_CHARS_MAX: usize = 1 << 20;

/// JAAS's `LoginModuleControlFlag`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlFlag {
    Required,
    Requisite,
    Sufficient,
    Optional,
}

/// One login module of a JAAS config: Kafka's `AppConfigurationEntry`.
#[derive(Clone, PartialEq, Eq)]
pub struct JaasEntry {
    pub login_module: String,
    pub control_flag: ControlFlag,
    /// Option names to values; a repeated name keeps its last value, as Kafka's `HashMap` does.
    pub options: BTreeMap<String, String>,
}

impl JaasEntry {
    pub fn option(&self, name: &str) -> Option<&str> {
        self.options.get(name).map(String::as_str)
    }
}

impl fmt::Debug for JaasEntry {
    /// Option values are passwords (`password`, `user_alice`): only their names are shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JaasEntry")
            .field("login_module", &self.login_module)
            .field("control_flag", &self.control_flag)
            .field("options", &self.options.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Why a JAAS config was refused: Kafka's `IllegalArgumentException` texts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct JaasError(pub String);

/// Parses every login module of a JAAS config value.
pub fn parse(text: &str) -> Result<Vec<JaasEntry>, JaasError> {
    if text.len() > JAAS_CONFIG_CHARS_MAX {
        return Err(JaasError(format!("JAAS config is longer than {JAAS_CONFIG_CHARS_MAX} bytes")));
    }
    let mut tokens = Tokenizer::new(text);
    let mut entries = Vec::new();
    loop {
        match tokens.next() {
            Token::Eof => break,
            first => entries.push(parse_entry(first, &mut tokens)?),
        }
    }
    if entries.is_empty() {
        return Err(JaasError("Login module not specified in JAAS config".into()));
    }
    Ok(entries)
}

/// Parses a broker's `sasl.jaas.config` (listener- and mechanism-prefixed), which must hold
/// exactly one login module, as Kafka's `JaasContext.load` requires.
pub fn parse_single(text: &str) -> Result<JaasEntry, JaasError> {
    let mut entries = parse(text)?;
    if entries.len() != 1 {
        return Err(JaasError(format!(
            "JAAS config property contains {} login modules, should be 1 module",
            entries.len()
        )));
    }
    Ok(entries.remove(0))
}

fn parse_entry(first: Token, tokens: &mut Tokenizer<'_>) -> Result<JaasEntry, JaasError> {
    let Some(login_module) = first.text() else {
        return Err(JaasError("Login module not specified in JAAS config".into()));
    };
    let control_flag = match tokens.next() {
        Token::Eof => return Err(JaasError("Login module control flag not specified in JAAS config".into())),
        token => parse_control_flag(&token)?,
    };
    let mut options = BTreeMap::new();
    loop {
        let key = match tokens.next() {
            Token::Eof | Token::Char(';') => break,
            token => token,
        };
        let key_text = key.text().unwrap_or_else(|| key.describe());
        if tokens.next() != Token::Char('=') {
            return Err(value_not_specified(&key_text));
        }
        match tokens.next().text() {
            Some(value) => options.insert(key_text, value),
            None => return Err(value_not_specified(&key_text)),
        };
    }
    if tokens.last != Token::Char(';') {
        return Err(JaasError("JAAS config entry not terminated by semi-colon".into()));
    }
    Ok(JaasEntry { login_module, control_flag, options })
}

fn value_not_specified(key: &str) -> JaasError {
    JaasError(format!("Value not specified for key '{key}' in JAAS config"))
}

fn parse_control_flag(token: &Token) -> Result<ControlFlag, JaasError> {
    let Some(text) = token.text() else {
        return Err(JaasError("Login module control flag is not available in the JAAS config".into()));
    };
    match text.to_uppercase().as_str() {
        "REQUIRED" => Ok(ControlFlag::Required),
        "REQUISITE" => Ok(ControlFlag::Requisite),
        "SUFFICIENT" => Ok(ControlFlag::Sufficient),
        "OPTIONAL" => Ok(ControlFlag::Optional),
        _ => Err(JaasError(format!("Invalid login module control flag '{text}' in JAAS config"))),
    }
}

/// A `StreamTokenizer` token.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Eof,
    Word(String),
    Quoted(String),
    /// An ordinary character (`;`, `=`, `\x81`-`\x9F`): Java gives it no string value.
    Char(char),
}

impl Token {
    /// `sval`: what a word or quoted string holds; numbers and single characters have none.
    fn text(&self) -> Option<String> {
        match self {
            Token::Word(text) | Token::Quoted(text) => Some(text.clone()),
            Token::Eof | Token::Char(_) => None,
        }
    }

    fn describe(&self) -> String {
        match self {
            Token::Eof => "EOF".into(),
            Token::Word(text) | Token::Quoted(text) => text.clone(),
            Token::Char(c) => c.to_string(),
        }
    }
}

/// Java's `StreamTokenizer` as Kafka's `JaasConfig` configures it (`resetSyntax`, word characters
/// 32-128 and 160-255, `;` and `=` ordinary, 0-32 whitespace, `/` comments, both quotes); Java
/// treats every character past 255 as a word character.
struct Tokenizer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    last: Token,
}

fn is_word_char(c: char) -> bool {
    let code = c as u32;
    ((0x21..=0x80).contains(&code) && !matches!(c, ';' | '=' | '/' | '"' | '\'')) || code >= 0xA0
}

impl<'a> Tokenizer<'a> {
    fn new(text: &'a str) -> Tokenizer<'a> {
        Tokenizer { chars: text.chars().peekable(), last: Token::Eof }
    }

    fn next(&mut self) -> Token {
        let token = self.read();
        self.last = token.clone();
        token
    }

    fn read(&mut self) -> Token {
        loop {
            let Some(c) = self.chars.next() else { return Token::Eof };
            match c {
                c if (c as u32) <= 0x20 => continue,
                '/' => self.skip_comment(),
                '"' | '\'' => return Token::Quoted(self.quoted(c)),
                c if is_word_char(c) => return Token::Word(self.rest_of_word(c)),
                c => return Token::Char(c),
            }
        }
    }

    /// After a `/`: `/* ... */` or, like `//` and a lone `/` (Java's default comment
    /// character), the rest of the line.
    fn skip_comment(&mut self) {
        if self.chars.peek() == Some(&'*') {
            self.chars.next();
            let mut previous = '\0';
            for c in self.chars.by_ref() {
                if previous == '*' && c == '/' {
                    return;
                }
                previous = c;
            }
        } else {
            for c in self.chars.by_ref() {
                if c == '\n' || c == '\r' {
                    return;
                }
            }
        }
    }

    fn rest_of_word(&mut self, first: char) -> String {
        let mut word = String::from(first);
        while let Some(&c) = self.chars.peek() {
            if !is_word_char(c) {
                break;
            }
            word.push(c);
            self.chars.next();
        }
        word
    }

    /// A quoted string up to its closing quote, a line end or the end; Java's escapes.
    fn quoted(&mut self, quote: char) -> String {
        let mut text = String::new();
        while let Some(c) = self.chars.next() {
            match c {
                c if c == quote => break,
                '\n' | '\r' => break,
                '\\' => match self.chars.next() {
                    Some(escaped) => text.push(self.escape(escaped)),
                    None => break,
                },
                c => text.push(c),
            }
        }
        text
    }

    fn escape(&mut self, c: char) -> char {
        match c {
            'a' => '\u{7}',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            '0'..='7' => {
                let mut value = c.to_digit(8).unwrap_or(0);
                let digits_max = if c <= '3' { 2 } else { 1 };
                for _ in 0..digits_max {
                    match self.chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(digit) => {
                            value = value * 8 + digit;
                            self.chars.next();
                        }
                        None => break,
                    }
                }
                char::from_u32(value).unwrap_or('\u{fffd}')
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(entry: &JaasEntry) -> Vec<(&str, &str)> {
        entry.options.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
    }

    /// The broker PLAIN config from Kafka's docs parses into its module, flag and options.
    #[test]
    fn kafka_docs_plain_config_parses() {
        let entry = parse_single(
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" \
             password=\"admin-secret\" user_admin=\"admin-secret\" user_alice=\"alice-secret\";",
        )
        .expect("valid config");
        assert_eq!(entry.login_module, PLAIN_LOGIN_MODULE);
        assert_eq!(entry.control_flag, ControlFlag::Required);
        assert_eq!(
            options(&entry),
            [
                ("password", "admin-secret"),
                ("user_admin", "admin-secret"),
                ("user_alice", "alice-secret"),
                ("username", "admin")
            ]
        );
        assert!(!format!("{entry:?}").contains("secret"), "Debug must not show option values");
    }

    /// Unquoted words, single quotes, escapes, comments and any case of the flag are accepted.
    #[test]
    fn tokenizer_follows_stream_tokenizer() {
        let entry = parse_single(
            "/* c */ org.example.Module OPTIONAL a=word-1_$x@y:z b='single' c=\"q\\\"\\n\\101\" // end\n d=4096 e=x/y\n;",
        )
        .expect("valid config");
        assert_eq!(entry.control_flag, ControlFlag::Optional);
        assert_eq!(
            options(&entry),
            [("a", "word-1_$x@y:z"), ("b", "single"), ("c", "q\"\nA"), ("d", "4096"), ("e", "x")]
        );
    }

    /// Each refusal carries Kafka's message.
    #[test]
    fn bad_configs_get_kafkas_messages() {
        let cases = [
            ("", "Login module not specified in JAAS config"),
            ("  // only a comment", "Login module not specified in JAAS config"),
            ("Module", "Login module control flag not specified in JAAS config"),
            ("Module mandatory;", "Invalid login module control flag 'mandatory' in JAAS config"),
            ("Module required a=;", "Value not specified for key 'a' in JAAS config"),
            ("Module ;", "Login module control flag is not available in the JAAS config"),
            ("Module required a;", "Value not specified for key 'a' in JAAS config"),
            ("Module required a=b", "JAAS config entry not terminated by semi-colon"),
            ("A required; B required;", "JAAS config property contains 2 login modules, should be 1 module"),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_single(text), Err(JaasError(expected.into())), "{text:?}");
        }
        assert_eq!(parse("A required; B sufficient x=\"1\";").map(|e| e.len()), Ok(2));
    }
}
