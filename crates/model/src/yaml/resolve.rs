//! goyaml.v2's scalar resolution (`resolve.go`, `decoder.scalar`), YAML 1.1 as kubectl applies
//! it: a plain scalar may be null (`~`, `null`, empty), a boolean (`y`, `yes`, `on`, `true` and
//! their negatives, in three capitalisations), an integer (`0644` octal, `0x1F`, `0o17`, `0b101`,
//! `1_000`), a float (`1e3`, `.5`, `.inf`, `.nan`) or a string; a quoted or block scalar is a
//! string; a core-schema tag (`!!str`, `!!int`, ...) asks for a type and fails when the text is
//! not one; any other tag leaves the text a string.

/// A resolved scalar, as goyaml.v2 hands it to `sigs.k8s.io/yaml`.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Scalar {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    Str(String),
}

const CORE: &str = "tag:yaml.org,2002:";
const STR: &str = "tag:yaml.org,2002:str";
const BINARY: &str = "tag:yaml.org,2002:binary";
const FLOAT: &str = "tag:yaml.org,2002:float";
const TIMESTAMP: &str = "tag:yaml.org,2002:timestamp";
/// The merge key's tag (`!!merge <<`).
pub(super) const MERGE: &str = "tag:yaml.org,2002:merge";

/// The tags goyaml.v2 resolves text for; any other leaves the text a string.
fn resolvable(tag: &str) -> bool {
    matches!(
        tag.strip_prefix(CORE),
        Some("str" | "bool" | "int" | "float" | "null" | "timestamp")
    )
}

/// `!!int` for `tag:yaml.org,2002:int`, as goyaml.v2 words its errors.
fn short(tag: &str) -> String {
    tag.strip_prefix(CORE)
        .map_or_else(|| tag.to_owned(), |t| format!("!!{t}"))
}

/// Resolve a scalar written `text`, plain or not, with `tag` (long form) if any.
pub(super) fn scalar(text: &str, plain: bool, tag: Option<&str>) -> Result<Scalar, String> {
    match tag {
        None if !plain => Ok(Scalar::Str(text.to_owned())),
        None => Ok(untagged(text).1),
        Some(BINARY) => decode_base64(text)
            .map(Scalar::Str)
            .ok_or_else(|| "!!binary value contains invalid base64 data".to_owned()),
        Some(STR) => Ok(Scalar::Str(text.to_owned())),
        Some(tag) if !resolvable(tag) => Ok(Scalar::Str(text.to_owned())),
        Some(TIMESTAMP) if looks_like_timestamp(text) => Ok(Scalar::Str(text.to_owned())),
        Some(tag) => {
            let (found, value) = untagged(text);
            match value {
                _ if found == tag => Ok(value),
                Scalar::Int(i) if tag == FLOAT => Ok(Scalar::Float(i as f64)),
                Scalar::Uint(u) if tag == FLOAT => Ok(Scalar::Float(u as f64)),
                _ => Err(format!(
                    "cannot decode {} `{text}` as a {}",
                    short(found),
                    short(tag)
                )),
            }
        }
    }
}

/// Whether goyaml.v2 reads the plain scalar `text` as the string `text` (not a null, boolean or
/// number).
pub(super) fn plain_is_string(text: &str) -> bool {
    matches!(untagged(text).1, Scalar::Str(_))
}

/// goyaml.v2's `resolve("", text)`: the tag found and the value.
fn untagged(text: &str) -> (&'static str, Scalar) {
    const NULL: &str = "tag:yaml.org,2002:null";
    const BOOL: &str = "tag:yaml.org,2002:bool";
    const INT: &str = "tag:yaml.org,2002:int";
    let Some(&first) = text.as_bytes().first() else {
        return (NULL, Scalar::Null);
    };
    match first {
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => match keyword(text) {
            Some(Some(b)) => (BOOL, Scalar::Bool(b)),
            Some(None) => (NULL, Scalar::Null),
            None => (STR, Scalar::Str(text.to_owned())),
        },
        b'.' => match special_float(text).or_else(|| go_parse_float(text)) {
            Some(f) => (FLOAT, Scalar::Float(f)),
            None => (STR, Scalar::Str(text.to_owned())),
        },
        b'0'..=b'9' | b'+' | b'-' => {
            if let Some(f) = special_float(text) {
                return (FLOAT, Scalar::Float(f));
            }
            let plain = text.replace('_', "");
            if let Some(i) = go_parse_int(&plain) {
                (INT, Scalar::Int(i))
            } else if let Some(u) = go_parse_uint(&plain) {
                (INT, Scalar::Uint(u))
            } else if let Some(f) = yaml_style_float(&plain).then(|| go_parse_float(&plain)).flatten() {
                (FLOAT, Scalar::Float(f))
            } else if let Some(i) = plain
                .strip_prefix("-0b")
                .and_then(|b| i64::from_str_radix(&format!("-{b}"), 2).ok())
            {
                (INT, Scalar::Int(i))
            } else {
                (STR, Scalar::Str(text.to_owned()))
            }
        }
        _ => (STR, Scalar::Str(text.to_owned())),
    }
}

/// The words goyaml.v2 resolves by table: `Some(Some(bool))`, `Some(None)` for null.
fn keyword(text: &str) -> Option<Option<bool>> {
    match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => Some(Some(true)),
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Some(Some(false))
        }
        "~" | "null" | "Null" | "NULL" => Some(None),
        _ => None,
    }
}

/// `.inf`, `-.inf`, `.nan` and their capitalisations (goyaml.v2's table).
fn special_float(text: &str) -> Option<f64> {
    match text {
        ".nan" | ".NaN" | ".NAN" => Some(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Some(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`, goyaml.v2's `yamlStyleFloat`.
fn yaml_style_float(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let digits = |s: &str| s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => !frac.is_empty() && digits(frac) == frac.len(),
        Some((int, frac)) => !int.is_empty() && digits(int) == int.len() && digits(frac) == frac.len(),
        None => !mantissa.is_empty() && digits(mantissa) == mantissa.len(),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits(e) == e.len()
    });
    mantissa_ok && exponent_ok
}

/// Go's `strconv.ParseFloat(s, 64)` for the decimal forms goyaml.v2 hands it: `None` when it is
/// not one or is out of range.
fn go_parse_float(s: &str) -> Option<f64> {
    let ok = s
        .bytes()
        .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'));
    let f: f64 = s.parse().ok().filter(|_| ok)?;
    f.is_finite().then_some(f)
}

/// Go's `strconv.ParseUint(s, 0, 64)`: a base prefix `0x`, `0o`, `0b`, or `0` for octal.
fn go_parse_uint(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let (radix, digits) = match b {
        [b'0', p, _, ..] if p.eq_ignore_ascii_case(&b'x') => (16, &s[2..]),
        [b'0', p, _, ..] if p.eq_ignore_ascii_case(&b'o') => (8, &s[2..]),
        [b'0', p, _, ..] if p.eq_ignore_ascii_case(&b'b') => (2, &s[2..]),
        [b'0'] => return Some(0),
        [b'0', ..] => (8, &s[1..]),
        _ => (10, s),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// Go's `strconv.ParseInt(s, 0, 64)`: an optional sign, then [`go_parse_uint`]'s forms.
fn go_parse_int(s: &str) -> Option<i64> {
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let magnitude = i128::from(go_parse_uint(rest)?);
    i64::try_from(if negative { -magnitude } else { magnitude }).ok()
}

/// goyaml.v2's quick test before it tries its timestamp layouts: `YYYY-` and more.
fn looks_like_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() > 5 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-'
}

/// Go's `base64.StdEncoding.DecodeString` (padded standard alphabet; `\r`, `\n` skipped).
fn decode_base64(text: &str) -> Option<String> {
    let symbols: Vec<u8> = text.bytes().filter(|c| !matches!(c, b'\r' | b'\n')).collect();
    if !symbols.len().is_multiple_of(4) {
        return None;
    }
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(symbols.len() / 4 * 3);
    let groups = symbols.len() / 4;
    for (g, quad) in symbols.chunks(4).enumerate() {
        let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && g + 1 != groups) {
            return None;
        }
        let mut n = 0u32;
        for &c in &quad[..4 - pad] {
            n = (n << 6) | u32::from(value(c)?);
        }
        n <<= 6 * pad as u32;
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..4 - pad]);
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(s: &str) -> Scalar {
        scalar(s, true, None).unwrap()
    }

    #[test]
    fn yaml_1_1_plain_scalars() {
        use Scalar::*;
        for (text, want) in [
            ("", Null),
            ("~", Null),
            ("NULL", Null),
            ("yes", Bool(true)),
            ("Y", Bool(true)),
            ("On", Bool(true)),
            ("n", Bool(false)),
            ("OFF", Bool(false)),
            ("yEs", Str("yEs".into())),
            ("0644", Int(420)),
            ("0o17", Int(15)),
            ("0x1F", Int(31)),
            ("-0x1F", Int(-31)),
            ("0b101", Int(5)),
            ("1_000", Int(1000)),
            ("08", Float(8.0)),
            ("1e3", Float(1000.0)),
            ("1.5e9", Float(1.5e9)),
            (".5", Float(0.5)),
            ("1.", Float(1.0)),
            ("+1", Int(1)),
            ("9223372036854775808", Uint(9_223_372_036_854_775_808)),
            ("-9223372036854775809", Float(-9_223_372_036_854_775_809.0)),
            ("1e400", Str("1e400".into())),
            ("1:30", Str("1:30".into())),
            ("2001-12-14", Str("2001-12-14".into())),
            ("+", Str("+".into())),
            ("0x", Str("0x".into())),
            (".5_0", Str(".5_0".into())),
            ("nan", Str("nan".into())),
        ] {
            assert_eq!(plain(text), want, "{text}");
        }
        assert!(matches!(plain(".inf"), Float(f) if f == f64::INFINITY));
        assert!(matches!(plain(".NaN"), Float(f) if f.is_nan()));
    }

    #[test]
    fn quoted_and_tagged_scalars() {
        assert_eq!(scalar("0644", false, None).unwrap(), Scalar::Str("0644".into()));
        assert_eq!(scalar("yes", true, Some(STR)).unwrap(), Scalar::Str("yes".into()));
        assert_eq!(
            scalar("5", false, Some("tag:yaml.org,2002:int")).unwrap(),
            Scalar::Int(5)
        );
        assert_eq!(scalar("5", true, Some(FLOAT)).unwrap(), Scalar::Float(5.0));
        assert_eq!(
            scalar("5", true, Some("!custom")).unwrap(),
            Scalar::Str("5".into())
        );
        assert_eq!(
            scalar("abc", true, Some("tag:yaml.org,2002:int")).unwrap_err(),
            "cannot decode !!str `abc` as a !!int"
        );
        assert_eq!(
            scalar("aGk=", true, Some(BINARY)).unwrap(),
            Scalar::Str("hi".into())
        );
        assert!(scalar("a", true, Some(BINARY)).is_err());
    }
}
