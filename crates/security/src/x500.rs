//! A certificate's subject as Java's `X500Principal.getName()` writes it (RFC 2253): the last
//! RDN first, `CN=client,OU=eng,O=acme`. This is the name `ssl.principal.mapping.rules` sees and
//! `DEFAULT` makes the principal, so it must be Java's byte for byte.
//!
//! Java's rules, followed here: RDNs in reverse order of the encoding, joined by `,`; the
//! attributes of a multi-valued RDN joined by `+`; the keywords `CN`, `C`, `L`, `ST`, `O`, `OU`,
//! `STREET`, `DC`, `UID`, and any other type as its dotted OID with its value as `#` and the hex
//! of its DER encoding; in string values `,` `+` `"` `\` `<` `>` `;` and `=` escaped with a
//! backslash, and a leading `#` or space and a trailing space too.

use x509_parser::asn1_rs::{Tag, ToDer};
use x509_parser::certificate::X509Certificate;
use x509_parser::prelude::FromDer;
use x509_parser::x509::AttributeTypeAndValue;

/// The subject of the DER certificate `der` in RFC 2253 form.
pub fn subject_name(der: &[u8]) -> Result<String, String> {
    let (_, certificate) =
        X509Certificate::from_der(der).map_err(|e| format!("the certificate does not parse: {e}"))?;
    let mut rdns = Vec::new();
    for rdn in certificate.subject().iter() {
        let attributes: Vec<String> = rdn.iter().map(attribute).collect::<Result<_, _>>()?;
        rdns.push(attributes.join("+"));
    }
    rdns.reverse();
    Ok(rdns.join(","))
}

/// RFC 2253's keywords, the ones Java's `getName()` writes by name.
const KEYWORDS: [(&str, &str); 9] = [
    ("2.5.4.3", "CN"),
    ("2.5.4.6", "C"),
    ("2.5.4.7", "L"),
    ("2.5.4.8", "ST"),
    ("2.5.4.10", "O"),
    ("2.5.4.11", "OU"),
    ("2.5.4.9", "STREET"),
    ("0.9.2342.19200300.100.1.25", "DC"),
    ("0.9.2342.19200300.100.1.1", "UID"),
];

fn attribute(attribute: &AttributeTypeAndValue<'_>) -> Result<String, String> {
    let oid = attribute.attr_type().to_id_string();
    let keyword = KEYWORDS.iter().find(|(known, _)| *known == oid).map(|(_, keyword)| *keyword);
    let text = keyword.and_then(|_| string_value(attribute));
    Ok(match (keyword, text) {
        (Some(keyword), Some(text)) => format!("{keyword}={}", escape(&text)),
        (keyword, _) => {
            let der = attribute.attr_value().to_der_vec().map_err(|e| format!("an attribute does not encode: {e}"))?;
            let hex: String = der.iter().map(|b| format!("{b:02x}")).collect();
            format!("{}=#{hex}", keyword.map_or(oid.as_str(), |k| k))
        }
    })
}

/// The attribute's value as text, for the string types a distinguished name uses.
fn string_value(attribute: &AttributeTypeAndValue<'_>) -> Option<String> {
    let value = attribute.attr_value();
    match value.tag() {
        Tag::Utf8String | Tag::PrintableString | Tag::Ia5String | Tag::NumericString | Tag::TeletexString => {
            String::from_utf8(value.data.to_vec()).ok()
        }
        Tag::BmpString => {
            let units: Vec<u16> = value.data.chunks_exact(2).map(|p| u16::from_be_bytes([p[0], p[1]])).collect();
            String::from_utf16(&units).ok()
        }
        _ => None,
    }
}

fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let last = value.chars().count().saturating_sub(1);
    for (i, c) in value.chars().enumerate() {
        let special = matches!(c, ',' | '+' | '"' | '\\' | '<' | '>' | ';' | '=')
            || (i == 0 && matches!(c, '#' | ' '))
            || (i == last && c == ' ');
        if special {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use rcgen::{CertificateParams, DistinguishedName, DnType, DnValue, KeyPair};

    use super::*;

    fn certificate(subject: &[(DnType, DnValue)]) -> Vec<u8> {
        let mut params = CertificateParams::default();
        let mut name = DistinguishedName::new();
        for (kind, value) in subject {
            name.push(kind.clone(), value.clone());
        }
        params.distinguished_name = name;
        let key = KeyPair::generate().expect("key");
        params.self_signed(&key).expect("certificate").der().to_vec()
    }

    /// The last RDN of the encoding comes first, with Java's keywords.
    #[test]
    fn names_read_as_javas_rfc_2253() {
        let der = certificate(&[
            (DnType::OrganizationName, DnValue::Utf8String("acme".into())),
            (DnType::OrganizationalUnitName, DnValue::PrintableString("eng".try_into().expect("printable"))),
            (DnType::CommonName, DnValue::Utf8String("client".into())),
        ]);
        assert_eq!(subject_name(&der).as_deref(), Ok("CN=client,OU=eng,O=acme"));
    }

    /// Special characters are escaped; a type without an RFC 2253 keyword is its OID and DER.
    #[test]
    fn specials_are_escaped_and_other_types_are_hex() {
        let der = certificate(&[
            (DnType::CountryName, DnValue::PrintableString("US".try_into().expect("printable"))),
            (DnType::CommonName, DnValue::Utf8String("Doe, John+1 ".into())),
            (
                DnType::CustomDnType(vec![1, 2, 840, 113549, 1, 9, 1]),
                DnValue::Ia5String("a@b".try_into().expect("ia5")),
            ),
        ]);
        assert_eq!(subject_name(&der).as_deref(), Ok(r"1.2.840.113549.1.9.1=#1603614062,CN=Doe\, John\+1\ ,C=US"));
    }
}
