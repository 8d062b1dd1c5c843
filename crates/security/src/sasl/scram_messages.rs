//! The four SCRAM messages (RFC 5802 §7) with the grammar of Kafka's `ScramMessages`: only the
//! gs2 header `n` (no channel binding), ASCII names with `=2C`/`=3D` escapes, printable nonces,
//! padded standard base64, `name=value` extensions. Parsers return `None` for anything else;
//! the caller words the failure.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// `SASLNAME`: `[\x01-\x7F]` but `=` and `,`, or the escapes `=2C` and `=3D`; at least one.
/// Kafka's OAUTHBEARER grammar reuses it.
pub(crate) fn is_sasl_name(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'=' if bytes[i + 1..].starts_with(b"2C") || bytes[i + 1..].starts_with(b"3D") => i += 3,
            b'=' | b',' | 0 | 0x80.. => return false,
            _ => i += 1,
        }
    }
    !bytes.is_empty()
}

/// `PRINTABLE`: `[\x21-\x7E]` but `,`; at least one.
fn is_printable(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| (0x21..=0x7E).contains(&b) && b != b',')
}

/// `VALUE`: `[\x01-\x7F]` but `,`; at least one.
fn is_value(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| (0x01..=0x7F).contains(&b) && b != b',')
}

/// One extension, `ALPHA=VALUE`.
fn extension(part: &str) -> Option<(String, String)> {
    let (name, value) = part.split_once('=')?;
    (!name.is_empty() && name.bytes().all(|b| b.is_ascii_alphabetic()) && is_value(value))
        .then(|| (name.to_owned(), value.to_owned()))
}

/// Kafka's `BASE64`: whole padded quads of the standard alphabet, possibly none.
fn base64(text: &str) -> Option<Vec<u8>> {
    let body = text.trim_end_matches('=');
    let padding = text.len() - body.len();
    let shape = text.len().is_multiple_of(4)
        && padding <= 2
        && body.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'/' || b == b'+');
    if !shape {
        return None;
    }
    STANDARD.decode(text).ok()
}

pub(super) fn encode_base64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// A saslname's user: `=2C` is `,` and `=3D` is `=`.
pub(super) fn username(sasl_name: &str) -> String {
    sasl_name.replace("=2C", ",").replace("=3D", "=")
}

/// A user's saslname, escaped for the client-first message.
pub(super) fn sasl_name(username: &str) -> String {
    username.replace('=', "=3D").replace(',', "=2C")
}

/// `gs2-header [reserved-mext ","] username "," nonce ["," extensions]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ClientFirst {
    pub authzid: String,
    pub sasl_name: String,
    pub nonce: String,
    pub extensions: Vec<(String, String)>,
    /// `client-first-message-bare`, as sent: part of the AuthMessage both sides sign.
    pub bare: String,
}

pub(super) fn parse_client_first(text: &str) -> Option<ClientFirst> {
    let rest = text.strip_prefix("n,")?;
    let (authzid_part, bare) = rest.split_once(',')?;
    let authzid = match authzid_part {
        "" => "",
        part => part.strip_prefix("a=").filter(|name| is_sasl_name(name))?,
    };
    let mut parts = bare.split(',').peekable();
    if let Some(reserved) = parts.peek().and_then(|part| part.strip_prefix("m=")) {
        if !is_value(reserved) {
            return None;
        }
        parts.next();
    }
    let sasl_name = parts.next()?.strip_prefix("n=").filter(|name| is_sasl_name(name))?;
    let nonce = parts.next()?.strip_prefix("r=").filter(|nonce| is_printable(nonce))?;
    let extensions = parts.map(extension).collect::<Option<Vec<_>>>()?;
    Some(ClientFirst {
        authzid: authzid.to_owned(),
        sasl_name: sasl_name.to_owned(),
        nonce: nonce.to_owned(),
        extensions,
        bare: bare.to_owned(),
    })
}

/// `channel-binding "," nonce ["," extensions] "," proof`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ClientFinal {
    pub nonce: String,
    pub proof: Vec<u8>,
    /// `client-final-message-without-proof`, as sent: part of the AuthMessage.
    pub without_proof: String,
}

pub(super) fn parse_client_final(text: &str) -> Option<ClientFinal> {
    let (without_proof, proof) = text.rsplit_once(",p=")?;
    let proof = base64(proof)?;
    let mut parts = without_proof.split(',');
    base64(parts.next()?.strip_prefix("c=")?)?;
    let nonce = parts.next()?.strip_prefix("r=").filter(|nonce| is_printable(nonce))?;
    parts.map(extension).collect::<Option<Vec<_>>>()?;
    Some(ClientFinal { nonce: nonce.to_owned(), proof, without_proof: without_proof.to_owned() })
}

/// `[reserved-mext ","] nonce "," salt "," iteration-count ["," extensions]`, for the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ServerFirst {
    pub nonce: String,
    pub salt: Vec<u8>,
    pub iterations: u32,
}

pub(super) fn parse_server_first(text: &str) -> Option<ServerFirst> {
    let mut parts = text.split(',').peekable();
    if parts.peek().is_some_and(|part| part.starts_with("m=")) {
        parts.next();
    }
    let nonce = parts.next()?.strip_prefix("r=").filter(|nonce| is_printable(nonce))?;
    let salt = base64(parts.next()?.strip_prefix("s=")?)?;
    let iterations = parts.next()?.strip_prefix("i=")?;
    if iterations.is_empty() || !iterations.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let iterations = iterations.parse::<u32>().ok().filter(|&i| i > 0)?;
    parts.map(extension).collect::<Option<Vec<_>>>()?;
    Some(ServerFirst { nonce: nonce.to_owned(), salt, iterations })
}

/// `("e=" server-error-value | "v=" verifier) ["," extensions]`, for the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ServerFinal {
    Error(String),
    Verifier(Vec<u8>),
}

pub(super) fn parse_server_final(text: &str) -> Option<ServerFinal> {
    if let Some(error) = text.strip_prefix("e=") {
        return (is_value(error) && !error.contains('=')).then(|| ServerFinal::Error(error.to_owned()));
    }
    let mut parts = text.split(',');
    let verifier = base64(parts.next()?.strip_prefix("v=")?)?;
    parts.map(extension).collect::<Option<Vec<_>>>()?;
    Some(ServerFinal::Verifier(verifier))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka's grammar: accepted and refused client-first messages.
    #[test]
    fn client_first_grammar() {
        let first = parse_client_first("n,a=al=2Cice,n=al=2Cice,r=abc,tokenauth=true").expect("valid");
        assert_eq!(
            (first.authzid.as_str(), first.sasl_name.as_str(), first.nonce.as_str()),
            ("al=2Cice", "al=2Cice", "abc")
        );
        assert_eq!(first.extensions, [("tokenauth".to_owned(), "true".to_owned())]);
        assert_eq!(first.bare, "n=al=2Cice,r=abc,tokenauth=true");
        assert_eq!(username(&first.sasl_name), "al,ice");
        assert!(parse_client_first("n,,m=x,n=u,r=a").is_some());
        for bad in [
            "y,,n=u,r=a",
            "p=tls-unique,,n=u,r=a",
            "n,,n=u",
            "n,,n=u=,r=a",
            "n,,n=,r=a",
            "n,,n=u,r=a b",
            "n,,n=u,r=a,1=x",
            "n,,n=ü,r=a",
            "n,x,n=u,r=a",
        ] {
            assert_eq!(parse_client_first(bad), None, "{bad}");
        }
    }

    /// Base64 must be whole padded quads; the proof is the last `,p=`.
    #[test]
    fn client_final_grammar() {
        let last = parse_client_final("c=biws,r=abc,x=1,p=AAAA").expect("valid");
        assert_eq!(
            (last.nonce.as_str(), last.proof.as_slice(), last.without_proof.as_str()),
            ("abc", &[0u8, 0, 0][..], "c=biws,r=abc,x=1")
        );
        for bad in ["c=biws,r=abc,p=AAA", "c=biw,r=abc,p=AAAA", "c=biws,p=AAAA", "c=biws,r=abc", "c=biws,r=a,b,p=AAAA"]
        {
            assert_eq!(parse_client_final(bad), None, "{bad}");
        }
        assert_eq!(sasl_name("a=b,c"), "a=3Db=2Cc");
    }
}
