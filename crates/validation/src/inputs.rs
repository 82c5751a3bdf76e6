//! Documents as users have them: one file holding several Pods (a multi-document YAML stream, a
//! JSON array, `kubectl get pods -o yaml`'s `List`, a `PodList`), each checked for unknown and
//! duplicate fields ([`podmut_model::field_validation`]) and handed on as JSON the other functions read directly.
//!
//! A problem with one object (a wrong kind, a field of the wrong type, strict decoding) stays with
//! that object, so the others are still judged; only text that cannot be read at all is an error of
//! the whole input.

use std::fmt;

use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde_json::Value;

use crate::validation::{PodText, check_pod_texts};
use crate::verdict::Verdict;
use podmut_model::document::InputError;
use podmut_model::field::Path;
use podmut_model::field_validation::{self as fv, CheckedValue, FieldProblem, FieldValidation, Validated};
use podmut_model::request_path::Subresource;

/// What a document is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DocumentKind {
    /// Pods: a stream, a list, or one Pod.
    Pod,
    /// One v1 Node.
    Node,
    /// One `admission.k8s.io/v1` AdmissionReview (its Pods are checked as Pods).
    AdmissionReview,
    /// One `podmut allocate` request (`node`, `allocatedPods`, `allocated`, `desired`).
    AllocationRequest,
    /// One `podmut allocate --retry-order` request (`pending[].desired`, `pending[].allocated`).
    RetryRequest,
    /// One `podmut statuses` request (`pod`, `allocated`).
    StatusesRequest,
}

impl fmt::Display for DocumentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DocumentKind::Pod => "Pod",
            DocumentKind::Node => "Node",
            DocumentKind::AdmissionReview => "AdmissionReview",
            DocumentKind::AllocationRequest => "allocation request",
            DocumentKind::RetryRequest => "retry-order request",
            DocumentKind::StatusesRequest => "statuses request",
        })
    }
}

/// One object of an input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Document {
    /// Its position in the input, from 1 (after lists are unpacked).
    pub index: u32,
    /// `metadata.namespace` (empty when unset).
    pub namespace: String,
    /// `metadata.name` (empty when unset).
    pub name: String,
    /// The object as JSON text.
    pub json: String,
    /// Its unknown and duplicate fields under `warn` (`unknown field "spec.x"`).
    pub warnings: Vec<String>,
    /// Why it cannot be judged, when it cannot (`strict decoding error: ...` under `strict`).
    pub error: Option<String>,
}

impl Document {
    /// `namespace/name`, `name`, or `#index` for an unnamed object.
    pub fn display_name(&self) -> String {
        match (self.namespace.is_empty(), self.name.is_empty()) {
            (_, true) => format!("#{}", self.index),
            (true, false) => self.name.clone(),
            (false, false) => format!("{}/{}", self.namespace, self.name),
        }
    }
}

/// Read the objects of `text` (JSON or YAML) as `kind`, validating fields at `level`.
///
/// Pods may come as a stream, a JSON array or a `*List`; every other kind is one object. `input`
/// names the argument in errors (`new-pod`, `node`, ...).
///
/// ```
/// use podmut_validation::inputs::{DocumentKind, read_documents};
/// use podmut_model::field_validation::FieldValidation;
/// let text = "kind: Pod\nmetadata: {name: a}\n---\nkind: Pod\nmetadata: {name: b}\nspec: {containers: [{name: c, image: i, resource: {}}]}\n";
/// let docs = read_documents(text, "pods", DocumentKind::Pod, FieldValidation::Strict, 1 << 20).unwrap();
/// assert_eq!(docs.len(), 2);
/// assert!(docs[0].error.is_none());
/// assert_eq!(docs[1].error.as_deref(), Some(r#"strict decoding error: unknown field "spec.containers[0].resource""#));
/// ```
pub fn read_documents(
    text: &str,
    input: &str,
    kind: DocumentKind,
    level: FieldValidation,
    max_bytes: u64,
) -> Result<Vec<Document>, InputError> {
    read_input(text, input, kind, level, max_bytes).map(Read::into_documents)
}

/// What [`read_and_check`] read, and its verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedDocuments {
    /// The objects of the old input (none without one), as [`read_documents`] reads them.
    pub old: Vec<Document>,
    /// The objects of the new input.
    pub new: Vec<Document>,
    /// When each input holds one object and neither has an `error`: [`check_documents`] of the
    /// two, and their `json` is empty (the caller has the text). `None`: the caller pairs the
    /// objects and judges each pair with [`check_documents`].
    ///
    /// [`check_documents`]: crate::validation::check_documents
    pub verdict: Option<Result<Verdict, InputError>>,
}

/// `podmut check` on two inputs in one pass: [`read_documents`] of `old` (as `old-pod`) and `new`
/// (as `new-pod`), Pods at `level`, then — when each holds one object that can be judged —
/// [`check_documents`] of the pair, without decoding a JSON Pod a second time. The answer is
/// exactly what those calls give: an error of reading is this function's error, an error of
/// judging is the verdict's.
///
/// ```
/// use podmut_model::field_validation::FieldValidation;
/// use podmut_model::request_path::Subresource;
/// use podmut_validation::inputs::read_and_check;
/// let old = r#"{"kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"name":"c","image":"i"}]}}"#;
/// let new = old.replace(r#""image":"i""#, r#""image":"j""#);
/// let read = read_and_check(Some(old), &new, FieldValidation::Strict, Subresource::None, "", 1 << 20).unwrap();
/// assert_eq!(read.new[0].name, "a");
/// assert!(read.verdict.unwrap().unwrap().allowed);
/// ```
///
/// [`check_documents`]: crate::validation::check_documents
pub fn read_and_check(
    old: Option<&str>,
    new: &str,
    level: FieldValidation,
    sub: Subresource,
    settings: &str,
    max_bytes: u64,
) -> Result<CheckedDocuments, InputError> {
    let mut old = old
        .map(|t| read_input(t, "old-pod", DocumentKind::Pod, level, max_bytes))
        .transpose()?;
    let mut new = read_input(new, "new-pod", DocumentKind::Pod, level, max_bytes)?;
    if !(new.judgeable() && old.as_ref().is_none_or(Read::judgeable)) {
        return Ok(CheckedDocuments {
            old: old.map_or_else(Vec::new, Read::into_documents),
            new: new.into_documents(),
            verdict: None,
        });
    }
    let verdict = check_pod_texts(old.as_mut().map(Read::pod_text), new.pod_text(), sub, settings);
    let without_json = |r: Read<'_>| {
        let mut docs = r.docs;
        docs.iter_mut().for_each(|d| d.json = String::new());
        docs
    };
    Ok(CheckedDocuments {
        old: old.map_or_else(Vec::new, without_json),
        new: without_json(new),
        verdict: Some(verdict),
    })
}

/// The objects of one input as [`read_documents`] reads them, keeping the Pod of a JSON input
/// read in one pass for [`read_and_check`].
struct Read<'t> {
    /// The objects; the JSON of the one in `tracked` is not filled in yet.
    docs: Vec<Document>,
    /// One JSON Pod read in one pass: its text (its document's JSON) and the Pod.
    tracked: Option<(&'t str, Pod)>,
}

impl Read<'_> {
    /// Objects read the value path's way (nothing kept).
    fn values(docs: Vec<Document>) -> Self {
        Self { docs, tracked: None }
    }

    /// The documents, each with its JSON.
    fn into_documents(self) -> Vec<Document> {
        let Self { mut docs, tracked } = self;
        if let (Some((json, _)), Some(doc)) = (tracked, docs.first_mut()) {
            doc.json = json.to_owned();
        }
        docs
    }

    /// The one object, when it is the whole input and can be judged.
    fn judgeable(&self) -> bool {
        matches!(&self.docs[..], [doc] if doc.error.is_none())
    }

    /// The one object's Pod for judging: decoded already, or its JSON text.
    fn pod_text(&mut self) -> PodText<'_> {
        match self.tracked.take() {
            Some((json, pod)) => PodText::decoded(json, pod),
            None => PodText::text(self.docs.first().map_or("", |d| d.json.as_str())),
        }
    }
}

/// [`read_documents`], keeping a Pod read in one pass.
fn read_input<'t>(
    text: &'t str,
    input: &str,
    kind: DocumentKind,
    level: FieldValidation,
    max_bytes: u64,
) -> Result<Read<'t>, InputError> {
    if let Some(read) = read_tracked_document(text, input, kind, level, max_bytes)? {
        return Ok(read);
    }
    let docs = fv::parse_checked(text, input, max_bytes)?;
    let source = json_source(text, input, max_bytes)?;
    if kind == DocumentKind::Pod {
        let items = unpack(docs, source);
        if items.is_empty() {
            return Err(InputError::wrong_kind(
                input,
                "expected a Pod object, found no object",
            ));
        }
        return Ok(Read::values(
            items
                .into_iter()
                .enumerate()
                .map(|(i, item)| pod_document(item, input, level, index(i)))
                .collect(),
        ));
    }
    let mut docs: Vec<CheckedValue> = docs.into_iter().filter(|d| !d.value.is_null()).collect();
    if docs.len() != 1 {
        return Err(InputError::wrong_kind(
            input,
            format!("expected one {kind} object, found {}", docs.len()),
        ));
    }
    let doc = docs.remove(0);
    let source = source.filter(|_| doc.duplicates.is_empty());
    let mut out = Document {
        index: 1,
        json: json_text(source, &doc.value),
        ..Document::default()
    };
    let problems = match kind {
        DocumentKind::Node => fv::validate_value::<Node>(doc, input, "v1", "Node").map(|v| {
            name_from(&v.object.metadata, &mut out);
            v.problems
        }),
        DocumentKind::AdmissionReview => review_problems(doc, input),
        DocumentKind::AllocationRequest => nested_problems(doc, input, &ALLOCATION_REQUEST),
        DocumentKind::RetryRequest => nested_problems(doc, input, &RETRY_REQUEST),
        DocumentKind::StatusesRequest => nested_problems(doc, input, &STATUSES_REQUEST),
        DocumentKind::Pod => Ok(Vec::new()),
    };
    settle(&mut out, problems, level);
    Ok(Read::values(vec![out]))
}

/// A JSON input that is one Pod or Node, read in one pass with its unknown fields
/// ([`fv::read_tracked`]), keeping its own text as the document's JSON (and a Pod, for
/// [`read_and_check`]); `None` for anything else (YAML, a list, a repeated key, a numeric
/// quantity, an error to word …), which the value path reads.
fn read_tracked_document<'t>(
    text: &'t str,
    input: &str,
    kind: DocumentKind,
    level: FieldValidation,
    max_bytes: u64,
) -> Result<Option<Read<'t>>, InputError> {
    let podmut_model::document::Syntax::Json(json) = podmut_model::document::syntax(text, input, max_bytes)?
    else {
        return Ok(None);
    };
    let document = |meta: &ObjectMeta, problems: Vec<FieldProblem>| {
        let mut out = Document {
            index: 1,
            ..Document::default()
        };
        name_from(meta, &mut out);
        settle(&mut out, Ok(problems), level);
        out
    };
    Ok(match kind {
        DocumentKind::Pod => fv::read_tracked::<Pod>(json).map(|v| Read {
            docs: vec![document(&v.object.metadata, v.problems)],
            tracked: Some((json, v.object)),
        }),
        DocumentKind::Node => fv::read_tracked::<Node>(json).map(|v| {
            let mut doc = document(&v.object.metadata, v.problems);
            doc.json = json.to_owned();
            Read::values(vec![doc])
        }),
        _ => None,
    })
}

/// The JSON text of a JSON input (without leading blanks), `None` for YAML.
fn json_source<'t>(text: &'t str, input: &str, max_bytes: u64) -> Result<Option<&'t str>, InputError> {
    Ok(match podmut_model::document::syntax(text, input, max_bytes)? {
        podmut_model::document::Syntax::Json(json) => Some(json),
        podmut_model::document::Syntax::Yaml(_) => None,
    })
}

/// A document's JSON text: the input's own text when it is the whole document as read (JSON, no
/// repeated key: every reader decodes it exactly as the value written back), else the value
/// written back. Reading the text again costs less than writing the value out (a 700 KB Pod).
fn json_text(source: Option<&str>, value: &Value) -> String {
    source.map_or_else(|| value.to_string(), str::to_owned)
}

fn index(i: usize) -> u32 {
    u32::try_from(i + 1).unwrap_or(u32::MAX)
}

/// Record the outcome of validation on the document.
fn settle(out: &mut Document, problems: Result<Vec<FieldProblem>, InputError>, level: FieldValidation) {
    match problems {
        Err(e) => out.error = Some(e.message().to_owned()),
        Ok(problems) => match fv::enforce(level, "", &problems) {
            Ok(warnings) => out.warnings = warnings,
            Err(e) => out.error = Some(e.message().to_owned()),
        },
    }
}

/// One item of a Pod stream: the value, its duplicates, and where it sits in its document.
struct Item<'t> {
    value: Value,
    duplicates: Vec<FieldProblem>,
    /// The input's text when the item is the whole JSON input without a repeated key.
    text: Option<&'t str>,
}

/// Unpack documents into items: a JSON array or a `*List`'s `items` gives its elements, with their
/// duplicates re-rooted at the item; empty documents are dropped. `source` is the text of a JSON
/// input (one document), kept for an item that is that whole document.
fn unpack(docs: Vec<CheckedValue>, source: Option<&str>) -> Vec<Item<'_>> {
    let mut out = Vec::new();
    for doc in docs {
        let CheckedValue { value, duplicates } = doc;
        let is_list = value
            .get("kind")
            .and_then(Value::as_str)
            .is_some_and(|k| k.ends_with("List"))
            && value.get("items").is_some_and(Value::is_array);
        match value {
            Value::Null => {}
            Value::Array(items) => out.extend(split(items, &duplicates, &Path::default())),
            Value::Object(mut m) if is_list => {
                if let Some(Value::Array(items)) = m.remove("items") {
                    out.extend(split(items, &duplicates, &Path::new("items")));
                }
            }
            other => out.push(Item {
                text: source.filter(|_| duplicates.is_empty() && other.is_object()),
                value: other,
                duplicates,
            }),
        }
    }
    out
}

fn split<'t>(items: Vec<Value>, duplicates: &[FieldProblem], prefix: &Path) -> Vec<Item<'t>> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, value)| {
            let at = prefix.index(i);
            let duplicates = duplicates.iter().filter_map(|d| d.strip_prefix(&at)).collect();
            Item {
                value,
                duplicates,
                text: None,
            }
        })
        .collect()
}

fn pod_document(item: Item<'_>, input: &str, level: FieldValidation, index: u32) -> Document {
    let mut out = Document {
        index,
        json: json_text(item.text, &item.value),
        ..Document::default()
    };
    let meta = |k: &str| {
        item.value
            .pointer(&format!("/metadata/{k}"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    out.namespace = meta("namespace");
    out.name = meta("name");
    let checked = CheckedValue {
        value: item.value,
        duplicates: item.duplicates,
    };
    let workload = podmut_model::workload::WorkloadKind::of_value(&checked.value).is_some();
    let problems = match workload
        .then(|| crate::workload::read_workload(checked.clone(), input))
        .flatten()
    {
        Some(read) => read.map(|(_, problems)| problems),
        None => fv::validate_value::<Pod>(checked, input, "v1", "Pod").map(|v: Validated<Pod>| v.problems),
    };
    settle(&mut out, problems, level);
    out
}

fn name_from(meta: &ObjectMeta, out: &mut Document) {
    out.namespace = meta.namespace.clone().unwrap_or_default();
    out.name = meta.name.clone().unwrap_or_default();
}

/// Where a request document holds Pods and Nodes.
struct Nested {
    /// Keys holding one Pod.
    pods: &'static [&'static str],
    /// Keys holding a list of Pods.
    pod_lists: &'static [&'static str],
    /// Keys holding a list of objects whose keys hold Pods (`pending[].desired`).
    pod_pairs: &'static [(&'static str, &'static [&'static str])],
    /// Keys holding a Node.
    nodes: &'static [&'static str],
}

const ALLOCATION_REQUEST: Nested = Nested {
    pods: &["allocated", "desired"],
    pod_lists: &["allocatedPods"],
    pod_pairs: &[],
    nodes: &["node"],
};

const RETRY_REQUEST: Nested = Nested {
    pods: &[],
    pod_lists: &[],
    pod_pairs: &[("pending", &["desired", "allocated"])],
    nodes: &[],
};

const STATUSES_REQUEST: Nested = Nested {
    pods: &["pod", "allocated"],
    pod_lists: &[],
    pod_pairs: &[],
    nodes: &[],
};

/// The problems of the Pods and Nodes inside a request, with paths from the request's root
/// (`desired.spec.containers[0].resource`). The request's own keys are the judging function's to
/// check; a nested object that is not a Pod or Node is left to it too.
fn nested_problems(doc: CheckedValue, input: &str, nested: &Nested) -> Result<Vec<FieldProblem>, InputError> {
    let CheckedValue { value, duplicates } = doc;
    let mut problems = duplicates;
    let mut check = |v: &Value, at: Path, node: bool| -> Result<(), InputError> {
        if !v.is_object() {
            return Ok(());
        }
        let mut v = v.clone();
        podmut_model::document::normalize_quantities(&mut v);
        // A field of the wrong type is the judging function's to report, in its own words.
        let _decoded = if node {
            fv::decode_checked::<Node>(&v, input, &at, &mut problems).map(drop)
        } else {
            fv::decode_checked::<Pod>(&v, input, &at, &mut problems).map(drop)
        };
        Ok(())
    };
    for k in nested.pods {
        if let Some(v) = value.get(*k) {
            check(v, Path::new(*k), false)?;
        }
    }
    for k in nested.nodes {
        if let Some(v) = value.get(*k) {
            check(v, Path::new(*k), true)?;
        }
    }
    for k in nested.pod_lists {
        for (i, v) in value
            .get(*k)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            check(v, Path::new(*k).index(i), false)?;
        }
    }
    for (list, keys) in nested.pod_pairs {
        for (i, entry) in value
            .get(*list)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            for k in *keys {
                if let Some(v) = entry.get(*k) {
                    check(v, Path::new(*list).index(i).child(*k), false)?;
                }
            }
        }
    }
    Ok(problems)
}

/// The fields of an `admission.k8s.io/v1` AdmissionReview and its request (upstream
/// `k8s.io/api/admission/v1` types.go). kube-core's review type buffers its fields through
/// `#[serde(flatten)]` (its decoder keeps fields no type names), so the envelope is checked
/// against this list and the Pods in it are decoded as Pods.
const REVIEW_FIELDS: &[&str] = &["apiVersion", "kind", "request", "response"];
const REQUEST_FIELDS: &[&str] = &[
    "uid",
    "kind",
    "resource",
    "subResource",
    "requestKind",
    "requestResource",
    "requestSubResource",
    "name",
    "namespace",
    "operation",
    "userInfo",
    "object",
    "oldObject",
    "dryRun",
    "options",
];
const GVK_FIELDS: &[&str] = &["group", "version", "kind"];
const GVR_FIELDS: &[&str] = &["group", "version", "resource"];
const USER_FIELDS: &[&str] = &["username", "uid", "groups", "extra"];

fn review_problems(doc: CheckedValue, input: &str) -> Result<Vec<FieldProblem>, InputError> {
    let CheckedValue { value, duplicates } = doc;
    podmut_model::document::expect_kind(&value, input, "admission.k8s.io/v1", "AdmissionReview")?;
    let mut problems = duplicates;
    unknown_keys(&value, &Path::default(), REVIEW_FIELDS, &mut problems);
    let Some(request) = value.get("request") else {
        return Ok(problems);
    };
    let at = Path::new("request");
    unknown_keys(request, &at, REQUEST_FIELDS, &mut problems);
    for (k, fields) in [
        ("kind", GVK_FIELDS),
        ("requestKind", GVK_FIELDS),
        ("resource", GVR_FIELDS),
        ("requestResource", GVR_FIELDS),
        ("userInfo", USER_FIELDS),
    ] {
        if let Some(v) = request.get(k) {
            unknown_keys(v, &at.child(k), fields, &mut problems);
        }
    }
    let kind = request.pointer("/kind/kind").and_then(Value::as_str);
    if kind
        .and_then(podmut_model::workload::WorkloadKind::from_name)
        .is_some()
    {
        for k in ["object", "oldObject"] {
            if let Some(v) = request.get(k).filter(|v| v.is_object()) {
                let checked = CheckedValue {
                    value: v.clone(),
                    duplicates: Vec::new(),
                };
                // As for a Pod, a field of the wrong type is the review's to report.
                if let Some(Ok((_, found))) = crate::workload::read_workload(checked, input) {
                    let base = at.child(k);
                    problems.extend(found.into_iter().map(|p| FieldProblem {
                        path: base.join(&p.path),
                        ..p
                    }));
                }
            }
        }
    }
    if kind == Some("Pod") {
        for k in ["object", "oldObject"] {
            if let Some(v) = request.get(k).filter(|v| v.is_object()) {
                let mut v = v.clone();
                podmut_model::document::normalize_quantities(&mut v);
                // A field of the wrong type is the review's to report (a 400 answer, not an error).
                let _decoded = fv::decode_checked::<Pod>(&v, input, &at.child(k), &mut problems);
            }
        }
    }
    Ok(problems)
}

fn unknown_keys(v: &Value, at: &Path, known: &[&str], out: &mut Vec<FieldProblem>) {
    for k in v.as_object().into_iter().flat_map(|m| m.keys()) {
        if !known.contains(&k.as_str()) {
            out.push(FieldProblem {
                kind: fv::ProblemKind::Unknown,
                path: at.child(k.clone()),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, kind: DocumentKind, level: FieldValidation) -> Vec<Document> {
        read_documents(text, "in", kind, level, 1 << 20).unwrap()
    }

    #[test]
    fn streams_lists_and_arrays() {
        let stream =
            "kind: Pod\nmetadata: {name: a, namespace: x}\n---\n---\nkind: Pod\nmetadata: {name: b}\n";
        let docs = read(stream, DocumentKind::Pod, FieldValidation::Strict);
        let names: Vec<String> = docs.iter().map(Document::display_name).collect();
        assert_eq!(names, ["x/a", "b"]);
        let list = r#"{"apiVersion":"v1","kind":"List","items":[{"kind":"Pod","metadata":{"name":"a","name":"a2"}},{"kind":"Pod","spec":{"bogus":1}}]}"#;
        let docs = read(list, DocumentKind::Pod, FieldValidation::Warn);
        assert_eq!(docs[0].warnings, [r#"duplicate field "metadata.name""#]);
        assert_eq!(docs[1].warnings, [r#"unknown field "spec.bogus""#]);
        assert_eq!(docs[1].display_name(), "#2");
        let docs = read(
            r#"[{"kind":"Service"}]"#,
            DocumentKind::Pod,
            FieldValidation::Ignore,
        );
        assert!(docs[0].error.as_deref().unwrap().contains("Service"));
        assert!(read_documents("", "in", DocumentKind::Pod, FieldValidation::Ignore, 1 << 20).is_err());
    }

    #[test]
    fn a_json_document_keeps_its_text_unless_a_key_repeats() {
        let text = " {\"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"}}\n";
        let docs = read(text, DocumentKind::Pod, FieldValidation::Strict);
        assert_eq!(docs[0].json, text.trim_start());
        let text = r#"{"kind":"Pod","metadata":{"name":"a","name":"b"}}"#;
        let docs = read(text, DocumentKind::Pod, FieldValidation::Warn);
        assert_eq!(docs[0].json, r#"{"kind":"Pod","metadata":{"name":"b"}}"#);
        let docs = read(r#"[{"kind":"Pod"}]"#, DocumentKind::Pod, FieldValidation::Strict);
        assert_eq!(docs[0].json, r#"{"kind":"Pod"}"#);
        let docs = read("kind: Node\n", DocumentKind::Node, FieldValidation::Strict);
        assert_eq!(docs[0].json, r#"{"kind":"Node"}"#);
    }

    /// [`read_and_check`] by its definition: [`read_documents`] of each input, then — for one
    /// object each without an error — [`crate::validation::check_documents`] of their JSON.
    fn two_calls(
        old: Option<&str>,
        new: &str,
        level: FieldValidation,
        sub: Subresource,
        settings: &str,
    ) -> Result<CheckedDocuments, InputError> {
        let read = |text, input| read_documents(text, input, DocumentKind::Pod, level, 1 << 22);
        let old = old.map(|t| read(t, "old-pod")).transpose()?;
        let new = read(new, "new-pod")?;
        let one = |docs: &[Document]| matches!(docs, [d] if d.error.is_none());
        if !(one(&new) && old.as_deref().is_none_or(one)) {
            return Ok(CheckedDocuments {
                old: old.unwrap_or_default(),
                new,
                verdict: None,
            });
        }
        let json = |docs: &[Document]| docs[0].json.clone();
        let verdict = crate::validation::check_documents(
            old.as_deref().map(json).as_deref(),
            &json(&new),
            sub,
            settings,
        );
        let emptied = |mut docs: Vec<Document>| {
            docs[0].json.clear();
            docs
        };
        Ok(CheckedDocuments {
            old: old.map(emptied).unwrap_or_default(),
            new: emptied(new),
            verdict: Some(verdict),
        })
    }

    /// One pass gives the two calls' documents and verdict, on every Pod of the conformance cases
    /// as JSON, JSON with an unknown field and YAML, judged as a create and as an update to the
    /// next Pod, at every validation level, under settings that validate fields themselves or
    /// limit the size below the Pod's.
    #[test]
    fn reading_and_checking_in_one_pass_agrees_with_the_two_calls() {
        let pods = podmut_fixtures::pod_objects(&podmut_fixtures::cases_dir()).unwrap();
        let texts: Vec<String> = pods
            .iter()
            .flat_map(|p| {
                let mut unknown = p.clone();
                if let Some(m) = unknown.as_object_mut() {
                    m.insert("zzBogus".into(), Value::Bool(true));
                }
                [
                    format!("  {p}"),
                    unknown.to_string(),
                    serde_yaml_ng::to_string(p).unwrap_or_default(),
                ]
            })
            .collect();
        let others = [
            "kind: Pod\nmetadata: {name: a}\n---\nkind: Pod\nmetadata: {name: b}\n",
            r#"{"kind":"Pod","metadata":{"name":"a","name":"b"},"spec":{"containers":[{"name":"c","image":"i"}]}}"#,
            r#"[{"kind":"Pod","metadata":{"name":"a"}}]"#,
            r#"{"kind":"Deployment"}"#,
            "{",
        ];
        let texts: Vec<String> = others.iter().map(|t| (*t).to_owned()).chain(texts).collect();
        let settings = ["", r#"{"fieldValidation":"warn"}"#, r#"{"maxInputBytes":200}"#];
        let levels = [
            FieldValidation::Strict,
            FieldValidation::Warn,
            FieldValidation::Ignore,
        ];
        let (mut compared, mut judged) = (0, 0);
        for (i, new) in texts.iter().enumerate() {
            let old = texts.get(i + 3).map(String::as_str);
            let level = levels[i % 3];
            let sub = Subresource::ALL[i % 5];
            for (old, settings) in [(None, settings[i % 3]), (old, settings[(i + 1) % 3])] {
                let one = read_and_check(old, new, level, sub, settings, 1 << 22);
                assert_eq!(one, two_calls(old, new, level, sub, settings), "{old:?} -> {new}");
                compared += 1;
                judged += usize::from(one.is_ok_and(|c| c.verdict.is_some()));
            }
        }
        assert!(compared > 2000 && judged > 1000, "{compared} {judged}");
    }

    #[test]
    fn ignore_reports_nothing_but_type_errors() {
        let docs = read("spec: {bogus: 1}\n", DocumentKind::Pod, FieldValidation::Ignore);
        assert!(docs[0].warnings.is_empty() && docs[0].error.is_none());
        let docs = read(
            "spec: {containers: [{name: 1}]}\n",
            DocumentKind::Pod,
            FieldValidation::Ignore,
        );
        assert!(
            docs[0]
                .error
                .as_deref()
                .unwrap()
                .contains("spec.containers[0].name")
        );
    }

    #[test]
    fn requests_and_reviews_check_their_pods() {
        let req = "node: {kind: Node, status: {allocatable: {cpu: 1}, bogus: 1}}\ndesired: {spec: {containers: [{name: a, resource: {}}]}}\nallocatedPods: [{spec: {x: 1}}]\n";
        let docs = read(req, DocumentKind::AllocationRequest, FieldValidation::Warn);
        assert_eq!(
            docs[0].warnings,
            [
                r#"unknown field "desired.spec.containers[0].resource""#,
                r#"unknown field "node.status.bogus""#,
                r#"unknown field "allocatedPods[0].spec.x""#,
            ]
        );
        let review = r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"","version":"v1","kind":"Pod"},"subresource":"dynamic","object":{"spec":{"containerz":[]}}}}"#;
        let docs = read(review, DocumentKind::AdmissionReview, FieldValidation::Strict);
        assert_eq!(
            docs[0].error.as_deref(),
            Some(
                r#"strict decoding error: unknown field "request.subresource", unknown field "request.object.spec.containerz""#
            )
        );
        let docs = read(
            "kind: Node\nmetadata: {name: n1}\n",
            DocumentKind::Node,
            FieldValidation::Strict,
        );
        assert_eq!(docs[0].name, "n1");
        assert!(
            read_documents(
                "kind: Node\n---\nkind: Node\n",
                "node",
                DocumentKind::Node,
                FieldValidation::Strict,
                1 << 20
            )
            .is_err()
        );
    }
}
