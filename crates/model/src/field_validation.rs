//! Field validation like the API server's `fieldValidation` (kubectl `--validate`): unknown and
//! duplicate fields, reported with the API server's wording (`strict decoding error: unknown field
//! "spec.containers[0].resource"`).
//!
//! k8s-openapi's decoders silently skip fields they do not know, and both JSON and YAML readers
//! keep the last of two equal keys. A JSON Pod or Node (the common case) is read in one pass,
//! [`read_tracked`]: the component's one decoder, with tracking on ([`document::track`]), notes
//! the fields the type skips while it decodes. Anything else — YAML, lists, a repeated key, a
//! numeric quantity, a text that does not decode — is read in two steps, each reporting what the
//! API server's strict decoder (sigs.k8s.io/json) reports:
//! - [`parse_checked`] builds the JSON value with a visitor that notes every repeated key
//!   (duplicates can only be seen while the text is read);
//! - [`decode_checked`] decodes the value into its k8s-openapi type with the component's one
//!   decoder, which names the fields the type skips as in the one-pass read.
//!
//! Both name the same fields in the same order (a unit test compares them on every Pod of the
//! conformance cases and variants of them).
//!
//! This is the slow path on purpose: it runs only when validation is asked for (`strict`, `warn`).
//! Objects that come from the API server (the webhook's reviews) are already clean — the API server
//! decoded them into its own types — so the webhook's default is `ignore` and it keeps the one-pass
//! typed read ([`crate::document::read_json_directly`]); strict checking there could only flag
//! fields a newer API server knows and podmut does not.

use std::fmt;
use std::str::FromStr;

use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::document::{self, InputError};
use crate::field::Path;

/// What to do with unknown and duplicate fields (kubectl `--validate`, the API server's
/// `fieldValidation`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FieldValidation {
    /// Drop them silently (the API server's `Ignore`).
    #[default]
    Ignore,
    /// Accept the object and report each as a warning (`Warn`).
    Warn,
    /// Refuse the object (`Strict`, kubectl's default).
    Strict,
}

impl FieldValidation {
    /// The name `--validate` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            FieldValidation::Ignore => "ignore",
            FieldValidation::Warn => "warn",
            FieldValidation::Strict => "strict",
        }
    }
}

impl fmt::Display for FieldValidation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for FieldValidation {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // kubectl also takes true (strict) and false (ignore).
        match s {
            "strict" | "Strict" | "true" => Ok(FieldValidation::Strict),
            "warn" | "Warn" => Ok(FieldValidation::Warn),
            "ignore" | "Ignore" | "false" => Ok(FieldValidation::Ignore),
            other => Err(format!(
                "invalid value for --validate: {other:?}, expected strict, warn or ignore"
            )),
        }
    }
}

/// Unknown or duplicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProblemKind {
    /// A key the type does not have.
    Unknown,
    /// A key given twice in one object.
    Duplicate,
}

/// One unknown or duplicate field.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldProblem {
    /// Which.
    pub kind: ProblemKind,
    /// Where, from the object root (the document's keys and list indexes).
    pub path: Path,
}

impl FieldProblem {
    /// The path as the API server renders it: `spec.containers[0].resource`.
    pub(crate) fn field(&self) -> String {
        self.path.document_field()
    }

    /// The problem as seen from `prefix` (a list item's own view), when it lies under it.
    pub fn strip_prefix(&self, prefix: &Path) -> Option<Self> {
        Some(Self {
            kind: self.kind,
            path: self.path.strip_prefix(prefix)?,
        })
    }
}

impl fmt::Display for FieldProblem {
    /// The API server's wording: `unknown field "spec.x"`, `duplicate field "metadata.name"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            ProblemKind::Unknown => "unknown",
            ProblemKind::Duplicate => "duplicate",
        };
        write!(f, "{kind} field \"{}\"", self.field())
    }
}

/// The API server's strict-decoding message for a set of problems:
/// `strict decoding error: unknown field "spec.x", duplicate field "metadata.name"`.
pub(crate) fn strict_message(problems: &[FieldProblem]) -> String {
    let parts: Vec<String> = problems.iter().map(ToString::to_string).collect();
    format!("strict decoding error: {}", parts.join(", "))
}

/// Apply a validation level to the problems found in input `input`: `Err` under `strict` when
/// there are any, else the warnings to report (none under `ignore`).
pub fn enforce(
    level: FieldValidation,
    input: &str,
    problems: &[FieldProblem],
) -> Result<Vec<String>, InputError> {
    match level {
        _ if problems.is_empty() => Ok(Vec::new()),
        FieldValidation::Ignore => Ok(Vec::new()),
        FieldValidation::Warn => Ok(problems.iter().map(ToString::to_string).collect()),
        FieldValidation::Strict => Err(InputError::malformed(input, strict_message(problems))),
    }
}

// ---- step 1: the JSON value, noting duplicate keys -------------------------------------------

/// A path under construction, kept on the stack: rendered only when a problem is found.
#[derive(Clone, Copy, Debug)]
enum At<'a> {
    Root,
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl At<'_> {
    fn to_path(self) -> Path {
        match self {
            At::Root => Path::default(),
            At::Key(parent, k) => parent.to_path().child(k.to_owned()),
            At::Index(parent, i) => parent.to_path().index(i),
        }
    }
}

/// Builds a `serde_json::Value` like serde_json's own visitor, noting repeated keys.
struct Checked<'a, 'p> {
    at: At<'p>,
    duplicates: &'a mut Vec<FieldProblem>,
}

impl<'de> DeserializeSeed<'de> for Checked<'_, '_> {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Checked<'_, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        loop {
            let at = At::Index(&self.at, out.len());
            let seed = Checked {
                at,
                duplicates: &mut *self.duplicates,
            };
            match seq.next_element_seed(seed)? {
                Some(v) => out.push(v),
                None => break,
            }
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let at = At::Key(&self.at, &key);
            if out.contains_key(&key) {
                self.duplicates.push(FieldProblem {
                    kind: ProblemKind::Duplicate,
                    path: at.to_path(),
                });
            }
            let value = map.next_value_seed(Checked {
                at,
                duplicates: &mut *self.duplicates,
            })?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

/// A document's value and the duplicate keys in it.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedValue {
    /// The value (the last of repeated keys wins, as in the API server's non-strict decoding).
    pub value: Value,
    /// Every repeated key, in document order.
    pub duplicates: Vec<FieldProblem>,
}

/// Parse JSON or YAML text like [`document::parse_text`], noting duplicate keys. A YAML stream of
/// several documents gives one [`CheckedValue`] each.
pub fn parse_checked(text: &str, input: &str, max_bytes: u64) -> Result<Vec<CheckedValue>, InputError> {
    let yaml = match document::syntax(text, input, max_bytes)? {
        document::Syntax::Json(json) => {
            let mut duplicates = Vec::new();
            let mut de = serde_json::Deserializer::from_str(json);
            let value = Checked {
                at: At::Root,
                duplicates: &mut duplicates,
            }
            .deserialize(&mut de)
            .and_then(|v| de.end().map(|()| v))
            .map_err(|e| document::syntax_error(input, "JSON", &e.to_string()))?;
            return Ok(vec![CheckedValue { value, duplicates }]);
        }
        document::Syntax::Yaml(yaml) => yaml,
    };
    let docs = document::read_yaml(yaml, input)?;
    Ok(docs
        .into_iter()
        .map(|doc| CheckedValue {
            value: doc.value,
            duplicates: doc
                .duplicates
                .into_iter()
                .map(|path| FieldProblem {
                    kind: ProblemKind::Duplicate,
                    path,
                })
                .collect(),
        })
        .collect())
}

// ---- step 2: the typed decoding, naming the fields it skipped --------------------------------

/// Decode `value` into `T` (numeric quantities already normalized), naming the field on failure
/// like [`document::decode`] and appending every field `T` does not have to `unknown`, with
/// `prefix` in front of its path, in the value's key order. A value whose decoding fails adds
/// nothing (the API server too reports only the decoding error then).
pub fn decode_checked<T: DeserializeOwned>(
    value: &Value,
    input: &str,
    prefix: &Path,
    unknown: &mut Vec<FieldProblem>,
) -> Result<T, InputError> {
    let (object, skipped) = document::decode_tracked(value, input)?;
    unknown.extend(skipped.iter().map(|path| FieldProblem {
        kind: ProblemKind::Unknown,
        path: prefix.join(path),
    }));
    Ok(object)
}

/// A typed object read with validation: the object and its problems (duplicates first, then
/// unknown fields, each in document order).
#[derive(Clone, Debug)]
pub struct Validated<T> {
    /// The decoded object.
    pub object: T,
    /// Its unknown and duplicate fields.
    pub problems: Vec<FieldProblem>,
}

/// Decode a value already parsed by [`parse_checked`] into `T`, collecting its problems; `kind`
/// (e.g. `"Pod"`) is checked like [`document::expect_kind`].
pub fn validate_value<T: DeserializeOwned>(
    checked: CheckedValue,
    input: &str,
    api_version: &str,
    kind: &str,
) -> Result<Validated<T>, InputError> {
    let CheckedValue {
        mut value,
        duplicates,
    } = checked;
    document::expect_kind(&value, input, api_version, kind)?;
    document::normalize_quantities(&mut value);
    let mut problems = duplicates;
    let object = decode_checked(&value, input, &Path::default(), &mut problems)?;
    Ok(Validated { object, problems })
}

/// The common case in one pass: a JSON object (`json`, as [`document::syntax`] gives it) decoded
/// straight into `T`, noting the fields `T` does not have while it decodes
/// ([`document::track`]). They are ordered as [`decode_checked`] names them: depth first, an
/// object's keys in sorted order (serde_json's map), a list's elements in order.
///
/// `None` when the text is not one object, does not decode (a numeric quantity, a field of the
/// wrong type, another kind …) or repeats a key (which must read as its last value): the value
/// path ([`parse_checked`], [`validate_value`]) then reads it and words any error as before. A
/// text that decodes has no repeated key, so its problems are its unknown fields only, and its
/// `kind`/`apiVersion` are `T`'s (k8s-openapi checks them as [`document::expect_kind`] does).
pub fn read_tracked<T: DeserializeOwned>(json: &str) -> Option<Validated<T>> {
    if !json.starts_with('{') {
        return None;
    }
    let (object, mut unknown) = document::track::from_str_tracked::<T>(json);
    let object = object.ok().filter(|_| !document::track::has_repeated_key(json))?;
    // No path is a prefix of another (an unknown field is not looked into), so sorting by
    // segments gives the depth-first walk of sorted keys that decoding the value makes.
    unknown.sort_by(Path::cmp_elements);
    let problems = unknown
        .into_iter()
        .map(|path| FieldProblem {
            kind: ProblemKind::Unknown,
            path,
        })
        .collect();
    Some(Validated { object, problems })
}

/// Read one Pod document at `level`: the one-pass typed read under `ignore`
/// ([`document::parse_pod`]), else the checked read, returning the warnings under `warn` and the
/// API server's error under `strict`.
pub fn read_pod(
    text: &str,
    input: &str,
    level: FieldValidation,
    max_bytes: u64,
) -> Result<(k8s_openapi::api::core::v1::Pod, Vec<String>), InputError> {
    if level == FieldValidation::Ignore {
        return Ok((document::parse_pod(text, input, max_bytes)?, Vec::new()));
    }
    if let document::Syntax::Json(json) = document::syntax(text, input, max_bytes)?
        && let Some(v) = read_tracked::<k8s_openapi::api::core::v1::Pod>(json)
    {
        let warnings = enforce(level, input, &v.problems)?;
        return Ok((v.object, warnings));
    }
    let mut docs = parse_checked(text, input, max_bytes)?;
    if docs.len() != 1 {
        return Err(InputError::malformed(
            input,
            format!("expected one Pod, found {} documents", docs.len()),
        ));
    }
    let v: Validated<k8s_openapi::api::core::v1::Pod> = validate_value(docs.remove(0), input, "v1", "Pod")?;
    let warnings = enforce(level, input, &v.problems)?;
    Ok((v.object, warnings))
}

#[cfg(test)]
pub(crate) mod tests {
    use k8s_openapi::api::core::v1::{Node, Pod};

    use super::*;

    fn pod_problems(text: &str) -> Vec<String> {
        let mut docs = parse_checked(text, "pod", 1 << 20).unwrap();
        let v: Validated<Pod> = validate_value(docs.remove(0), "pod", "v1", "Pod").unwrap();
        v.problems.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_yaml_syntax_error_is_reported_once() {
        let e = parse_checked("apiVersion: v1\nkind: Pod\nspec: [unclosed\n", "new-pod", 1 << 20)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("new-pod: invalid YAML: "), "{e}");
        let e = parse_checked("kind: Pod\n---\nspec: [unclosed\n", "pods", 1 << 20)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("pods: invalid YAML in document 2: "), "{e}");
    }

    #[test]
    fn unknown_fields_are_named_like_the_api_server() {
        let p = pod_problems(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: web, labelz: {a: b}}\nspec:\n  containers:\n  - name: a\n    image: x\n    resource: {limits: {cpu: 1}}\n",
        );
        assert_eq!(
            p,
            [
                r#"unknown field "metadata.labelz""#,
                r#"unknown field "spec.containers[0].resource""#
            ]
        );
        assert!(pod_problems("{\"kind\":\"Pod\",\"spec\":{\"containers\":[{\"name\":\"a\"}]}}").is_empty());
    }

    #[test]
    fn a_null_is_unknown_only_where_the_type_has_no_such_field() {
        // kubectl's own output carries `creationTimestamp: null`, `resources: {}` and the like.
        let p = pod_problems(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: web, creationTimestamp: null, labels: null}\nspec:\n  securityContext: null\n  containers:\n  - {name: a, image: x, command: null, resources: null, ports: null, bogus: null}\n  - {name: b, image: x, command: null, bogus: null, livenessProbe: {httpGet: null, tcpSocket: {port: 80, hots: null}}}\n  nodeSelectr: null\nstatus: null\n",
        );
        assert_eq!(
            p,
            [
                r#"unknown field "spec.containers[0].bogus""#,
                r#"unknown field "spec.containers[1].bogus""#,
                r#"unknown field "spec.containers[1].livenessProbe.tcpSocket.hots""#,
                r#"unknown field "spec.nodeSelectr""#,
            ]
        );
    }

    #[test]
    fn a_field_of_the_wrong_type_reports_only_the_decoding_error() {
        let mut docs = parse_checked("spec: {bogus: 1, containers: [{name: 1}]}", "pod", 1 << 20).unwrap();
        let e = validate_value::<Pod>(docs.remove(0), "new-pod", "v1", "Pod").unwrap_err();
        assert!(e.to_string().contains("spec.containers[0].name"), "{e}");
        let mut unknown = Vec::new();
        let v: Value = serde_json::json!({"spec": {"bogus": 1, "containers": [{"name": 1}]}});
        assert!(decode_checked::<Pod>(&v, "pod", &Path::default(), &mut unknown).is_err());
        assert!(unknown.is_empty(), "{unknown:?}");
    }

    #[test]
    fn duplicate_keys_in_json_and_yaml() {
        let p = pod_problems(
            r#"{"metadata":{"name":"a","name":"b"},"spec":{"containers":[{"name":"x","image":"i","image":"j"}]}}"#,
        );
        assert_eq!(
            p,
            [
                r#"duplicate field "metadata.name""#,
                r#"duplicate field "spec.containers[0].image""#
            ]
        );
        let p = pod_problems("metadata:\n  labels: {app: a, app: b}\n");
        assert_eq!(p, [r#"duplicate field "metadata.labels.app""#]);
    }

    #[test]
    fn levels() {
        let problems = vec![FieldProblem {
            kind: ProblemKind::Unknown,
            path: Path::default().child("spec").child("x"),
        }];
        let e = enforce(FieldValidation::Strict, "new-pod", &problems).unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"new-pod: strict decoding error: unknown field "spec.x""#
        );
        assert_eq!(
            enforce(FieldValidation::Warn, "new-pod", &problems).unwrap(),
            [r#"unknown field "spec.x""#]
        );
        assert!(
            enforce(FieldValidation::Ignore, "new-pod", &problems)
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            "true".parse::<FieldValidation>().unwrap(),
            FieldValidation::Strict
        );
        assert!("maybe".parse::<FieldValidation>().is_err());
    }

    #[test]
    fn nodes_type_errors_and_streams() {
        let mut docs = parse_checked(
            "kind: Node\napiVersion: v1\nstatus: {allocatable: {cpu: 4}, capacty: {}}\n",
            "node",
            1 << 20,
        )
        .unwrap();
        let v: Validated<Node> = validate_value(docs.remove(0), "node", "v1", "Node").unwrap();
        assert_eq!(v.problems[0].to_string(), r#"unknown field "status.capacty""#);
        let mut docs = parse_checked("spec: {containers: [{name: 1}]}", "pod", 1 << 20).unwrap();
        let e = validate_value::<Pod>(docs.remove(0), "new-pod", "v1", "Pod").unwrap_err();
        assert!(e.to_string().contains("spec.containers[0].name"), "{e}");
        assert_eq!(parse_checked("a: 1\n---\nb: 2\n", "p", 1 << 20).unwrap().len(), 2);
        assert!(parse_checked("{\"a\": 1} x", "p", 1 << 20).is_err());
    }

    /// JSON text of `v` with every object's keys in reverse order (serde_json writes them sorted).
    fn reversed_json(v: &Value) -> String {
        match v {
            Value::Object(m) => {
                let parts: Vec<String> = m
                    .iter()
                    .rev()
                    .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), reversed_json(v)))
                    .collect();
                format!("{{{}}}", parts.join(","))
            }
            Value::Array(a) => format!("[{}]", a.iter().map(reversed_json).collect::<Vec<_>>().join(",")),
            other => other.to_string(),
        }
    }

    /// Every object in `v` with its path (JSON pointer).
    fn objects(v: &Value, at: &str, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                out.push(at.to_owned());
                for (k, v) in m {
                    objects(
                        v,
                        &format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                        out,
                    );
                }
            }
            Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    objects(v, &format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
    }

    /// The one-pass read gives the value path's object and problems, on every Pod of the
    /// conformance cases as JSON (keys sorted and reversed) and on variants of them with unknown
    /// fields, `null`s and a known field set to `null` at every object.
    #[test]
    fn the_tracked_read_agrees_with_the_value_path() {
        let pods = podmut_fixtures::pod_objects(&podmut_fixtures::cases_dir()).unwrap();
        let (mut compared, mut with_problems) = (0, 0);
        let mut check = |json: &str| {
            let Some(fast) = read_tracked::<Pod>(json) else {
                return;
            };
            let mut docs = parse_checked(json, "p", 1 << 22).unwrap();
            let slow: Validated<Pod> =
                validate_value(docs.remove(0), "p", "v1", "Pod").unwrap_or_else(|e| panic!("{json}: {e}"));
            assert_eq!(fast.object, slow.object, "{json}");
            assert_eq!(fast.problems, slow.problems, "{json}");
            compared += 1;
            with_problems += usize::from(!fast.problems.is_empty());
        };
        for pod in &pods {
            check(&pod.to_string());
            check(&reversed_json(pod));
            let mut places = Vec::new();
            objects(pod, "", &mut places);
            for (i, place) in places.iter().enumerate() {
                let mut v = pod.clone();
                let obj = v.pointer_mut(place).and_then(Value::as_object_mut).unwrap();
                if i % 2 == 0 {
                    obj.insert("zzBogus".into(), Value::String("s".into()));
                    obj.insert("aaBogus".into(), Value::Null);
                    obj.insert("mmBogus".into(), serde_json::json!({"x": [null, {"y": 1}]}));
                } else if let Some(first) = obj.values_mut().next() {
                    *first = Value::Null;
                }
                check(&v.to_string());
                check(&reversed_json(&v));
            }
        }
        assert!(
            pods.len() > 300 && compared > 5000 && with_problems > 2000,
            "{} {compared} {with_problems}",
            pods.len()
        );
    }
}
