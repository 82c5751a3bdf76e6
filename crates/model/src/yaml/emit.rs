//! Writing JSON values as YAML that kubectl reads back as the same value.
//!
//! Written by hand because the Rust YAML emitters resolve plain scalars by YAML 1.2 and leave
//! `y`, `no`, `on` or `1_000` unquoted, which kubectl's YAML 1.1 reading turns into booleans and
//! numbers. A string is written plain only when goyaml.v2 reads it back as that string and its
//! characters need no quoting; otherwise double-quoted, as JSON writes it (a JSON string is a YAML
//! double-quoted scalar).

use serde_json::Value;

use super::resolve::plain_is_string;

/// `value` as a block-style YAML document (maps and lists indented by two spaces, lists under a
/// key at the key's indentation, as kubectl prints them).
pub fn to_yaml(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(m) if !m.is_empty() => map(value, 0, &mut out),
        Value::Array(a) if !a.is_empty() => list(value, 0, &mut out),
        v => {
            out.push_str(&scalar(v));
            out.push('\n');
        }
    }
    out
}

/// Whether a value is written on lines of its own (a map or list with something in it).
fn is_block(v: &Value) -> bool {
    match v {
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    }
}

fn pad(indent: usize, out: &mut String) {
    out.extend(std::iter::repeat_n(' ', indent));
}

/// A map's entries at `indent`; the first entry's indentation is the caller's when it already
/// wrote it (after `- `).
fn map(v: &Value, indent: usize, out: &mut String) {
    map_from(v, indent, true, out);
}

fn map_from(v: &Value, indent: usize, pad_first: bool, out: &mut String) {
    let Value::Object(m) = v else { return };
    for (i, (k, item)) in m.iter().enumerate() {
        if i > 0 || pad_first {
            pad(indent, out);
        }
        out.push_str(&string(k));
        out.push(':');
        match item {
            Value::Object(_) if is_block(item) => {
                out.push('\n');
                map(item, indent + 2, out);
            }
            Value::Array(_) if is_block(item) => {
                out.push('\n');
                list(item, indent, out);
            }
            _ => {
                out.push(' ');
                out.push_str(&scalar(item));
                out.push('\n');
            }
        }
    }
}

fn list(v: &Value, indent: usize, out: &mut String) {
    let Value::Array(a) = v else { return };
    for item in a {
        pad(indent, out);
        out.push_str("- ");
        match item {
            Value::Object(_) if is_block(item) => map_from(item, indent + 2, false, out),
            Value::Array(_) if is_block(item) => {
                out.push('\n');
                list(item, indent + 2, out);
            }
            _ => {
                out.push_str(&scalar(item));
                out.push('\n');
            }
        }
    }
}

/// A scalar, or an empty map or list, on one line.
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => string(s),
        Value::Object(_) => "{}".to_owned(),
        Value::Array(_) => "[]".to_owned(),
        other => other.to_string(),
    }
}

/// A string: plain when that reads back as the same string, else double-quoted.
fn string(s: &str) -> String {
    if plain_is_safe(s) {
        s.to_owned()
    } else {
        Value::from(s).to_string()
    }
}

/// Whether `s` can be written as a plain scalar (in a block map or list, as a key or a value) and
/// read back by goyaml.v2 (and YAML 1.2 readers) as the string `s`.
fn plain_is_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    let starts_well = first.is_alphanumeric() || matches!(first, '/' | '.' | '_' | '$' | '(' | '^' | '+');
    let chars_ok = s.chars().all(|c| {
        !c.is_control()
            && !matches!(
                c,
                '#' | '\'' | '"' | '`' | '\u{feff}' | '\u{85}' | '\u{2028}' | '\u{2029}'
            )
    });
    starts_well
        && chars_ok
        && !s.ends_with([' ', ':'])
        && !s.contains(": ")
        && !s.contains([',', '[', ']', '{', '}'])
        && plain_is_string(s)
        && !looks_numeric_in_yaml_1_2(s)
}

/// Numbers and specials that YAML 1.2 readers resolve though goyaml.v2 does not (`0o17`, `1e3`
/// without a dot, `.NaN`, ...): quoted too, so every reader agrees.
fn looks_numeric_in_yaml_1_2(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    s.parse::<f64>().is_ok()
        || lower.starts_with("0o")
        || lower.starts_with("0x")
        || matches!(
            lower.as_str(),
            ".nan" | ".inf" | "-.inf" | "+.inf" | "nan" | "inf"
        )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn round_trip(v: &Value) {
        let text = to_yaml(v);
        let back = crate::yaml::read_stream(&text).unwrap();
        assert_eq!(back.len(), 1, "{text}");
        assert_eq!(&back[0].value, v, "{text}");
    }

    #[test]
    fn every_yaml_1_1_lookalike_is_quoted_and_reads_back() {
        let words = [
            "y",
            "n",
            "Y",
            "N",
            "yes",
            "no",
            "on",
            "off",
            "On",
            "OFF",
            "True",
            "~",
            "null",
            "0644",
            "0x1F",
            "1_000",
            "0b101",
            "1e3",
            "1.5",
            ".5",
            "+1",
            "-1",
            "12:30",
            "2001-12-14",
            "=",
            "<<",
            "",
            " x",
            "a: b",
            "-",
            "0o7",
            ".inf",
            "NaN",
            "a #b",
            "x:",
            "- a",
            "? q",
            "*a",
            "&a",
            "!t",
            "%p",
            "@a",
            "|",
            ">",
            "[a]",
            "{a}",
            "a,b",
            "line\nnext",
            "tab\there",
            "\"q\"",
            "'q'",
            "é",
            "nginx:1.27",
            "100m",
            "/dev/termination-log",
            "http://x:80/y",
            "a=b",
            "ClusterFirst",
        ];
        let v = json!({"strings": words.to_vec(), "keys": words.iter().map(|w| (w.to_string(), json!(w))).collect::<serde_json::Map<_, _>>()});
        round_trip(&v);
        let text = to_yaml(&json!({"v": ["y", "nginx:1.27", "100m", "1_000"]}));
        assert_eq!(text, "v:\n- \"y\"\n- nginx:1.27\n- 100m\n- \"1_000\"\n");
    }

    #[test]
    fn nesting_numbers_and_empty_collections_read_back() {
        let v = json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web", "labels": {}, "annotations": {"a": "1"}},
            "spec": {"containers": [{"name": "a", "ports": [{"containerPort": 80}], "args": [], "env": [{"name": "X", "value": "on"}]}],
                     "lists": [[1, 2], [], [{"a": null}]], "f": 1.5, "t": true, "big": 18446744073709551615u64}
        });
        round_trip(&v);
        round_trip(&json!("y"));
        round_trip(&json!([]));
        round_trip(&json!({}));
    }
}
