//! Struct-valued bad values as the API server prints them.
//!
//! apimachinery's `field.Error.ErrorBody` prints a bad value that is not a string, number or bool
//! as `json.Marshal` of the value, and the values validation reports are the server's **internal**
//! objects (`k8s.io/kubernetes/pkg/apis/core`), whose fields have no json tags: the API server says
//! `Invalid value: {"Name":"gpu","ResourceClaimName":null,"ResourceClaimTemplateName":null}` for
//! the `resourceClaims[0]` a user wrote as `{"name":"gpu"}`. podmut holds the external (`v1`)
//! object, so it prints the value through the internal type's layout ([`layout`], generated from the
//! Go types by `cargo xtask oracle layouts`): every field in Go's order under its Go name, absent
//! pointers, slices and maps as `null`, absent scalars as Go's zero value, map keys sorted,
//! quantities and times through their own `MarshalJSON`, strings escaped as `encoding/json` does.

pub mod decode;
#[rustfmt::skip]
#[expect(dead_code, reason = "the generated table describes every type a Pod reaches; rules print a few")]
pub mod layout;

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

/// A Go type, as far as `encoding/json` is concerned.
#[derive(Debug)]
pub enum Ty {
    /// A string (or a string-kinded named type).
    String,
    /// A bool.
    Bool,
    /// An integer.
    Int,
    /// `resource.Quantity`: its canonical string.
    Quantity,
    /// `metav1.Time` / `MicroTime`: RFC 3339 in UTC, `null` when zero.
    Time,
    /// `intstr.IntOrString`.
    IntOrString,
    /// Raw JSON (`metav1.FieldsV1`).
    Raw,
    /// A pointer: `null` when nil.
    Ptr(&'static Ty),
    /// A slice: `null` when nil.
    Slice(&'static Ty),
    /// A string-keyed map: `null` when nil, keys sorted.
    Map(&'static Ty),
    /// A struct.
    Struct(&'static Struct),
}

/// A struct's encoded fields (the table names each after its Go type, `core.SecurityContext` as
/// `CORE_SECURITY_CONTEXT`).
#[derive(Debug)]
pub struct Struct {
    /// In encoding order, embedded structs promoted in place.
    pub fields: &'static [Field],
}

/// One encoded field.
#[derive(Debug)]
pub struct Field {
    /// The key Go prints.
    pub(crate) key: &'static str,
    /// The json key of the same field in the external object (`None`: not there; Go's zero value).
    pub ext: Option<&'static str>,
    /// `omitempty`.
    pub(crate) omit_empty: bool,
    /// The releases that have the field (bit `i`: [`layout::RELEASES`]`[i]`).
    pub(crate) releases: u8,
    /// The field's type.
    pub ty: &'static Ty,
}

/// A bad value kept as the external JSON and the internal type it is printed as.
#[derive(Clone, Debug)]
pub struct GoValue {
    value: Value,
    ty: &'static Ty,
}

impl PartialEq for GoValue {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value && std::ptr::eq(self.ty, other.ty)
    }
}

impl GoValue {
    /// `value` (an external object, serialized) printed as the internal type `ty`.
    pub(crate) fn new<T: Serialize + ?Sized>(value: &T, ty: &'static Ty) -> Self {
        Self {
            value: serde_json::to_value(value).unwrap_or(Value::Null),
            ty,
        }
    }

    /// The text `json.Marshal` gives in `release`'s layout.
    pub(crate) fn render(&self, release: u8) -> String {
        let mut out = String::new();
        write_value(&mut out, Some(&self.value), self.ty, release_bit(release));
        out
    }

    /// The text in the newest layout pinned here (the newest release podmut supports).
    pub(crate) fn render_newest(&self) -> String {
        let mut out = String::new();
        let newest = 1u8 << (layout::RELEASES.len() - 1);
        write_value(&mut out, Some(&self.value), self.ty, newest);
        out
    }

    /// A v1 `PodSpec` (as JSON) printed as the internal `core.PodSpec`: what upstream's
    /// `diff.Diff` compares in "pod updates may not change fields" refusals.
    pub fn pod_spec(spec: &Value) -> Self {
        Self::new(spec, &layout::STRUCT_CORE_POD_SPEC)
    }

    /// The text `json.MarshalIndent(v, "", " ")` gives in the layout of Kubernetes
    /// `1.<release>`: the lines `diff.Diff` numbers.
    pub fn marshal_indent(&self, release: u8) -> String {
        indent(&self.render(release))
    }
}

/// `json.Indent(compact, "", " ")`: one line per member and element, one space per level, empty
/// objects and arrays kept as `{}` and `[]`.
fn indent(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = compact.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', depth));
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                let close = if c == '{' { '}' } else { ']' };
                if chars.peek() == Some(&close) {
                    out.push(close);
                    chars.next();
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c => out.push(c),
        }
    }
    out
}

/// The mask bit of the layout a release prints with: the newest pinned layout not newer than it
/// (releases before the first pinned one print with the first).
fn release_bit(minor: u8) -> u8 {
    let mut bit = 1u8;
    for (i, r) in layout::RELEASES.iter().enumerate() {
        let m = r
            .split('.')
            .nth(1)
            .and_then(|m| m.parse::<u8>().ok())
            .unwrap_or(0);
        if m <= minor {
            bit = 1 << i;
        }
    }
    bit
}

/// Quote a string the way Go's `strconv.Quote` (and `%q`) does.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_control() => {
                if (c as u32) <= 0xffff {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                } else {
                    let _ = write!(out, "\\U{:08x}", c as u32);
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn write_value(out: &mut String, v: Option<&Value>, ty: &Ty, bit: u8) {
    let v = v.filter(|v| !v.is_null());
    match ty {
        Ty::String => write_string(out, v.and_then(Value::as_str).unwrap_or("")),
        Ty::Bool => out.push_str(if v.and_then(Value::as_bool).unwrap_or(false) {
            "true"
        } else {
            "false"
        }),
        Ty::Int => match v {
            Some(Value::Number(n)) => {
                let _ = write!(out, "{n}");
            }
            _ => out.push('0'),
        },
        Ty::Quantity => write_quantity(out, v),
        Ty::Time => match v.and_then(Value::as_str) {
            Some(s) => write_string(out, s),
            None => out.push_str("null"),
        },
        Ty::IntOrString => match v {
            Some(Value::String(s)) => write_string(out, s),
            Some(Value::Number(n)) => {
                let _ = write!(out, "{n}");
            }
            _ => out.push('0'),
        },
        Ty::Raw => match v {
            Some(v) => write_raw(out, v),
            None => out.push_str("null"),
        },
        Ty::Ptr(inner) => match v {
            Some(_) => write_value(out, v, inner, bit),
            None => out.push_str("null"),
        },
        Ty::Slice(inner) => match v.and_then(Value::as_array) {
            Some(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_value(out, Some(item), inner, bit);
                }
                out.push(']');
            }
            None => out.push_str("null"),
        },
        Ty::Map(inner) => match v.and_then(Value::as_object) {
            Some(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(out, k);
                    out.push(':');
                    write_value(out, map.get(k), inner, bit);
                }
                out.push('}');
            }
            None => out.push_str("null"),
        },
        Ty::Struct(s) => write_struct(out, v, s, bit),
    }
}

fn write_struct(out: &mut String, v: Option<&Value>, s: &Struct, bit: u8) {
    let obj = v.and_then(Value::as_object);
    out.push('{');
    let mut first = true;
    for f in s.fields.iter().filter(|f| f.releases & bit != 0) {
        let fv = f.ext.and_then(|k| obj.and_then(|o| o.get(k)));
        if f.omit_empty && is_empty(fv, f.ty) {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        write_string(out, f.key);
        out.push(':');
        write_value(out, fv, f.ty, bit);
    }
    out.push('}');
}

/// `omitempty`'s emptiness: false, 0, "", nil, and empty slices and maps (never a struct).
fn is_empty(v: Option<&Value>, ty: &Ty) -> bool {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return !matches!(ty, Ty::Struct(_) | Ty::Quantity | Ty::Time | Ty::IntOrString);
    };
    match ty {
        Ty::String => v.as_str().is_some_and(str::is_empty),
        Ty::Bool => v.as_bool() == Some(false),
        Ty::Int => v.as_f64() == Some(0.0),
        Ty::Slice(_) => v.as_array().is_some_and(Vec::is_empty),
        Ty::Map(_) => v.as_object().is_some_and(serde_json::Map::is_empty),
        _ => false,
    }
}

fn write_quantity(out: &mut String, v: Option<&Value>) {
    let text = match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => "0".to_owned(),
    };
    match crate::quantity::Quantity::parse(text.trim()) {
        Ok(q) => write_string(out, &q.to_string()),
        Err(_) => write_string(out, &text),
    }
}

/// Raw JSON as Go re-encodes it (compact, keys in their order, strings escaped).
fn write_raw(out: &mut String, v: &Value) {
    match v {
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_raw(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_raw(out, item);
            }
            out.push('}');
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

/// A string as `encoding/json` writes it: HTML-safe (`<`, `>`, `&` as `\u003c`...), U+2028 and
/// U+2029 escaped, control characters as short or `\u00XX` escapes.
pub(crate) fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_quote_escapes() {
        assert_eq!(go_quote("a\tb\u{1}"), "\"a\\tb\\x01\"");
        assert_eq!(go_quote("ü"), "\"ü\"");
    }

    #[test]
    fn indents_as_go_marshal_indent_does() {
        let compact = r#"{"A":{},"B":[1,2],"C":"x,{\"y\":[]}","D":[]}"#;
        let want = r#"{
 "A": {},
 "B": [
  1,
  2
 ],
 "C": "x,{\"y\":[]}",
 "D": []
}"#;
        assert_eq!(indent(compact), want);
    }

    use serde_json::json;

    fn go(v: &Value, ty: &'static Ty) -> String {
        GoValue::new(v, ty).render(35)
    }

    #[test]
    fn structs_print_every_field_under_its_go_name() {
        assert_eq!(
            go(&json!({"name": "gpu"}), &layout::STRUCT_CORE_POD_RESOURCE_CLAIM),
            r#"{"Name":"gpu","ResourceClaimName":null,"ResourceClaimTemplateName":null}"#
        );
        assert_eq!(
            go(
                &json!([{"ip": "10.0.0.7"}, {"ip": "10.0.0.8"}]),
                &layout::SLICE_STRUCT_CORE_POD_IP
            ),
            r#"[{"IP":"10.0.0.7"},{"IP":"10.0.0.8"}]"#
        );
        assert_eq!(go(&Value::Null, &layout::SLICE_STRUCT_CORE_POD_IP), "null");
    }

    #[test]
    fn tagged_types_keep_their_tags_and_omitempty() {
        assert_eq!(
            go(
                &json!({"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "u"}),
                &layout::STRUCT_V1_OWNER_REFERENCE
            ),
            r#"{"apiVersion":"v1","kind":"Event","name":"e","uid":"u"}"#
        );
    }

    #[test]
    fn strings_are_escaped_like_encoding_json() {
        let mut s = String::new();
        write_string(&mut s, "a<b>&\"\\\n\u{1}\u{2028}");
        assert_eq!(s, r#""a\u003cb\u003e\u0026\"\\\n\u0001\u2028""#);
    }
}
