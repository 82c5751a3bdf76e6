//! The Kubernetes field-error model: paths, error types and error lists, rendered exactly like
//! upstream `k8s.io/apimachinery/pkg/util/validation/field`.
//!
//! Validation rules never return `Err`: they accumulate an [`ErrorList`] (data). Each
//! [`FieldError`] also carries a stable `origin` (the rule id), so tests match on
//! (type, field, origin) and never on message text.

use std::borrow::Cow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use crate::gojson::go_quote;

/// A path from the object root to a field, rendered like upstream `field.Path.String()`:
/// `spec.containers[0].resources.limits[memory]`.
///
/// Upstream quirk kept on purpose: the root path `field.NewPath("")`, used by a few whole-object
/// errors (static pods, pod-level resources on resize), renders as `[]`, so the API server reports
/// `[]: Forbidden: static pods do not support ephemeral containers`.
///
/// ```
/// use podmut_model::field::Path;
/// let p = Path::new("spec").child("containers").index(0).child("resources").child("limits").key("memory");
/// assert_eq!(p.to_string(), "spec.containers[0].resources.limits[memory]");
/// assert_eq!(Path::root().to_string(), "[]");
/// ```
///
/// It is also the path of a place in a document (field validation's unknown and duplicate fields,
/// a decoding error): the empty [`Path::default`] is the document's root, each object key a
/// [`child`](Path::child) and each list element an [`index`](Path::index), rendered by
/// [`Path::document_field`].
///
/// Like upstream's `*field.Path`, a path points at its parent: the elements before the last are
/// shared, so building the path of every field a rule visits stays cheap however deep it is (paths
/// are built for every field, errors only for a few). The last segment is kept inline and becomes a
/// shared element only when a child is first built from the path, once: the path of a field that
/// is checked but has no children checked (most of them) allocates nothing. The cache is a
/// `OnceLock`, so a path is `Send` and `Sync`.
#[derive(Clone, Debug, Default)]
pub struct Path {
    /// The elements before `last`.
    parent: Option<Arc<Element>>,
    /// The last segment (`None` only in the empty default path).
    last: Option<Segment>,
    /// `parent` and `last` as one element, made when the first child is built.
    shared: OnceLock<Arc<Element>>,
}

#[derive(Debug)]
struct Element {
    parent: Option<Arc<Element>>,
    segment: Segment,
}

/// One element; names are nearly always literals, so they are borrowed, and list indexes are kept
/// as numbers: a path allocates only the `Arc` of an element that has children.
#[derive(Clone, Debug)]
enum Segment {
    Name(Cow<'static, str>),
    Index(usize),
    Subscript(String),
}

impl Segment {
    /// A subscript as upstream renders it (`Index(0)` and `Key("0")` are the same element).
    fn subscript(&self) -> Option<Cow<'_, str>> {
        match self {
            Segment::Name(_) => None,
            Segment::Index(i) => Some(Cow::Owned(i.to_string())),
            Segment::Subscript(s) => Some(Cow::Borrowed(s)),
        }
    }
}

impl PartialEq for Segment {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Segment::Name(a), Segment::Name(b)) => a == b,
            (Segment::Index(a), Segment::Index(b)) => a == b,
            (Segment::Name(_), _) | (_, Segment::Name(_)) => false,
            _ => self.subscript() == other.subscript(),
        }
    }
}

impl Eq for Segment {}

impl Hash for Segment {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            Segment::Name(n) => (0u8, n.as_ref()).hash(state),
            _ => (1u8, self.subscript()).hash(state),
        }
    }
}

impl Path {
    /// A root path named `name` (upstream `field.NewPath(name)`).
    pub fn new(name: impl Into<Cow<'static, str>>) -> Self {
        Self::default().push(Segment::Name(name.into()))
    }

    /// The whole-object path `field.NewPath("")`, which upstream renders as `[]`.
    pub fn root() -> Self {
        Self::new("")
    }

    /// A child field (upstream `Child`).
    #[must_use]
    pub fn child(&self, name: impl Into<Cow<'static, str>>) -> Self {
        self.push(Segment::Name(name.into()))
    }

    /// A list subscript (upstream `Index`).
    #[must_use]
    pub fn index(&self, i: usize) -> Self {
        self.push(Segment::Index(i))
    }

    /// A map-key subscript (upstream `Key`).
    #[must_use]
    pub fn key(&self, k: &str) -> Self {
        self.push(Segment::Subscript(k.to_owned()))
    }

    /// This path followed by the elements of `rest`.
    #[must_use]
    pub fn join(&self, rest: &Path) -> Self {
        rest.segments()
            .into_iter()
            .fold(self.clone(), |path, segment| path.push(segment.clone()))
    }

    /// The elements after `prefix`, when this path starts with those of `prefix`.
    pub fn strip_prefix(&self, prefix: &Path) -> Option<Self> {
        let segments = self.segments();
        let rest = segments.strip_prefix(prefix.segments().as_slice())?;
        Some(
            rest.iter()
                .fold(Self::default(), |path, segment| path.push((*segment).clone())),
        )
    }

    /// The path as field validation names a field of a document (`unknown field
    /// "spec.containers[0].resource"`): as [`Display`](fmt::Display) writes it, except that an
    /// empty name is the document's empty key, written as nothing (not upstream's root `[]`).
    ///
    /// ```
    /// use podmut_model::field::Path;
    /// let p = Path::default().child("spec").child("containers").index(0).child("resource");
    /// assert_eq!(p.document_field(), "spec.containers[0].resource");
    /// assert_eq!(Path::default().index(2).child("").child("x").document_field(), "[2]..x");
    /// ```
    pub fn document_field(&self) -> String {
        let mut out = String::new();
        let _ = self.write(&mut out, true);
        out
    }

    /// Orders paths element by element (names by their text, then subscripts, then list indexes by
    /// number; a path before the longer ones it starts): for the keys of a document, the order in
    /// which a depth-first walk of sorted keys meets them.
    pub(crate) fn cmp_elements(&self, other: &Path) -> std::cmp::Ordering {
        fn rank(segment: &Segment) -> (u8, &str, usize) {
            match segment {
                Segment::Name(name) => (0, name, 0),
                Segment::Subscript(key) => (1, key, 0),
                Segment::Index(i) => (2, "", *i),
            }
        }
        self.segments()
            .into_iter()
            .map(rank)
            .cmp(other.segments().into_iter().map(rank))
    }

    /// Mirrors path.go String(): a named element after the first is preceded by a dot; an element
    /// with an empty name is printed as a subscript (which is how the root "" becomes "[]") —
    /// unless `document`, where it is an empty key, written as nothing after its dot.
    fn write(&self, f: &mut impl fmt::Write, document: bool) -> fmt::Result {
        let mut written = false;
        for seg in self.segments() {
            match seg {
                Segment::Name(name) if document || !name.is_empty() => {
                    if written {
                        f.write_char('.')?;
                    }
                    f.write_str(name)?;
                    written |= !name.is_empty();
                }
                Segment::Name(_) => {
                    f.write_str("[]")?;
                    written = true;
                }
                Segment::Index(i) => {
                    write!(f, "[{i}]")?;
                    written = true;
                }
                Segment::Subscript(s) => {
                    write!(f, "[{s}]")?;
                    written = true;
                }
            }
        }
        Ok(())
    }

    fn push(&self, segment: Segment) -> Self {
        Self {
            parent: self.as_parent(),
            last: Some(segment),
            shared: OnceLock::new(),
        }
    }

    /// This path as the parent of a child: its shared last element, made on the first call.
    fn as_parent(&self) -> Option<Arc<Element>> {
        let Some(segment) = &self.last else {
            return self.parent.clone();
        };
        let shared = self.shared.get_or_init(|| {
            Arc::new(Element {
                parent: self.parent.clone(),
                segment: segment.clone(),
            })
        });
        Some(Arc::clone(shared))
    }

    /// The segments from the root.
    fn segments(&self) -> Vec<&Segment> {
        let mut out = Vec::new();
        out.extend(self.last.as_ref());
        let mut at = self.parent.as_deref();
        while let Some(e) = at {
            out.push(&e.segment);
            at = e.parent.as_deref();
        }
        out.reverse();
        out
    }
}

impl PartialEq for Path {
    fn eq(&self, other: &Self) -> bool {
        self.segments() == other.segments()
    }
}

impl Eq for Path {}

impl Hash for Path {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.segments().hash(state);
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, false)
    }
}

/// The machine-readable error type; [`ErrorType::cause_type`] is the `metav1.CauseType` string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ErrorType {
    /// `FieldValueRequired`, "Required value".
    #[serde(rename = "FieldValueRequired")]
    Required,
    /// `FieldValueInvalid`, "Invalid value".
    #[serde(rename = "FieldValueInvalid")]
    Invalid,
    /// `FieldValueForbidden`, "Forbidden".
    #[serde(rename = "FieldValueForbidden")]
    Forbidden,
    /// `FieldValueNotSupported`, "Unsupported value".
    #[serde(rename = "FieldValueNotSupported")]
    NotSupported,
    /// `FieldValueDuplicate`, "Duplicate value".
    #[serde(rename = "FieldValueDuplicate")]
    Duplicate,
    /// `FieldValueNotFound`, "Not found".
    #[serde(rename = "FieldValueNotFound")]
    NotFound,
    /// `FieldValueTooLong`, "Too long".
    #[serde(rename = "FieldValueTooLong")]
    TooLong,
    /// `FieldValueTooMany`, "Too many".
    #[serde(rename = "FieldValueTooMany")]
    TooMany,
    /// `InternalError`, "Internal error".
    #[serde(rename = "InternalError")]
    Internal,
    /// `NodeCapacity`: the reason-only cause of the `PodResizeValidator` admission plugin's
    /// refusal of a resize the Pod's node cannot allocate (no field, no message).
    #[serde(rename = "NodeCapacity")]
    NodeCapacity,
    /// `UnsupportedPlatform`: the reason-only cause of the `PodResizeValidator` admission
    /// plugin's refusal of a resize on a node that is not Linux.
    #[serde(rename = "UnsupportedPlatform")]
    UnsupportedPlatform,
}

impl ErrorType {
    /// Every type, in declaration order.
    pub const ALL: [ErrorType; 11] = [
        ErrorType::Required,
        ErrorType::Invalid,
        ErrorType::Forbidden,
        ErrorType::NotSupported,
        ErrorType::Duplicate,
        ErrorType::NotFound,
        ErrorType::TooLong,
        ErrorType::TooMany,
        ErrorType::Internal,
        ErrorType::NodeCapacity,
        ErrorType::UnsupportedPlatform,
    ];

    /// The `metav1.CauseType` string, e.g. `FieldValueForbidden`.
    pub fn cause_type(self) -> &'static str {
        match self {
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::NotFound => "FieldValueNotFound",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::Internal => "InternalError",
            ErrorType::NodeCapacity => "NodeCapacity",
            ErrorType::UnsupportedPlatform => "UnsupportedPlatform",
        }
    }

    /// Parse a `metav1.CauseType` string.
    pub fn from_cause_type(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.cause_type() == s)
    }

    /// The human summary upstream prints (`ErrorType.String()`), e.g. "Required value".
    pub fn summary(self) -> &'static str {
        match self {
            ErrorType::Required => "Required value",
            ErrorType::Invalid => "Invalid value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::NotFound => "Not found",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
            ErrorType::Internal => "Internal error",
            ErrorType::NodeCapacity | ErrorType::UnsupportedPlatform => "",
        }
    }
}

/// The offending value of an error, kept in a form that renders like Go's `%v` / `%q`.
#[derive(Clone, Debug, PartialEq)]
pub enum BadValue {
    /// No value is shown (Required, Forbidden, TooLong, Internal).
    Omit,
    /// A nil value (`null`).
    Null,
    /// A string, printed quoted like Go `%q`.
    Str(String),
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// A value already rendered as upstream prints it.
    Rendered(String),
    /// A struct, list or map: `json.Marshal` of the internal Go type ([`crate::gojson`]), printed in
    /// the layout of the release [`resolve_go_values`] names (the newest supported one until then).
    Go(Box<crate::gojson::GoValue>),
}

impl BadValue {
    /// The rendering upstream would print after the type summary, or `None` when omitted.
    pub fn render(&self) -> Option<String> {
        match self {
            BadValue::Omit => None,
            BadValue::Null => Some("null".to_owned()),
            BadValue::Str(s) => Some(go_quote(s)),
            BadValue::Int(i) => Some(i.to_string()),
            BadValue::Bool(b) => Some(b.to_string()),
            BadValue::Rendered(s) => Some(s.clone()),
            BadValue::Go(v) => Some(v.render_newest()),
        }
    }

    /// A struct, list or map printed as the internal Go type `ty` prints (external `value`).
    pub fn go<T: Serialize + ?Sized>(value: &T, ty: &'static crate::gojson::Ty) -> Self {
        BadValue::Go(Box::new(crate::gojson::GoValue::new(value, ty)))
    }
}

/// Print every Go-typed bad value of `errs` in the layout of Kubernetes `1.<release>`.
pub fn resolve_go_values(errs: &mut [FieldError], release: u8) {
    for e in errs {
        if let BadValue::Go(v) = &e.bad_value {
            e.bad_value = BadValue::Rendered(v.render(release));
        }
    }
}

impl From<&str> for BadValue {
    fn from(s: &str) -> Self {
        BadValue::Str(s.to_owned())
    }
}
impl From<String> for BadValue {
    fn from(s: String) -> Self {
        BadValue::Str(s)
    }
}
impl From<i64> for BadValue {
    fn from(i: i64) -> Self {
        BadValue::Int(i)
    }
}
impl From<i32> for BadValue {
    fn from(i: i32) -> Self {
        BadValue::Int(i64::from(i))
    }
}
impl From<usize> for BadValue {
    fn from(i: usize) -> Self {
        BadValue::Int(i64::try_from(i).unwrap_or(i64::MAX))
    }
}
impl From<bool> for BadValue {
    fn from(b: bool) -> Self {
        BadValue::Bool(b)
    }
}
impl<T: Into<BadValue>> From<Option<T>> for BadValue {
    fn from(v: Option<T>) -> Self {
        v.map_or(BadValue::Null, Into::into)
    }
}

/// One field-level validation error (upstream `field.Error`, plus a stable origin).
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    /// The error type.
    pub error_type: ErrorType,
    /// Where the error is.
    pub field: Path,
    /// The offending value.
    pub bad_value: BadValue,
    /// Upstream's detail text.
    pub detail: String,
    /// Stable rule id, e.g. `update/container-list`.
    pub origin: &'static str,
}

impl FieldError {
    fn make(error_type: ErrorType, field: &Path, bad_value: BadValue, detail: String) -> Self {
        Self {
            error_type,
            field: field.clone(),
            bad_value,
            detail,
            origin: "",
        }
    }

    /// `field.Required(path, detail)`.
    pub fn required(field: &Path, detail: impl Into<String>) -> Self {
        Self::make(ErrorType::Required, field, BadValue::Omit, detail.into())
    }

    /// `field.Invalid(path, value, detail)`.
    pub fn invalid(field: &Path, value: impl Into<BadValue>, detail: impl Into<String>) -> Self {
        Self::make(ErrorType::Invalid, field, value.into(), detail.into())
    }

    /// `field.Forbidden(path, detail)`.
    pub fn forbidden(field: &Path, detail: impl Into<String>) -> Self {
        Self::make(ErrorType::Forbidden, field, BadValue::Omit, detail.into())
    }

    /// `field.NotSupported(path, value, validValues)`: the detail lists the quoted values.
    pub fn not_supported<S: AsRef<str>>(field: &Path, value: impl Into<BadValue>, valid: &[S]) -> Self {
        let detail = if valid.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = valid.iter().map(|v| go_quote(v.as_ref())).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        Self::make(ErrorType::NotSupported, field, value.into(), detail)
    }

    /// `field.Duplicate(path, value)`.
    pub fn duplicate(field: &Path, value: impl Into<BadValue>) -> Self {
        Self::make(ErrorType::Duplicate, field, value.into(), String::new())
    }

    /// `field.NotFound(path, value)`.
    pub fn not_found(field: &Path, value: impl Into<BadValue>) -> Self {
        Self::make(ErrorType::NotFound, field, value.into(), String::new())
    }

    /// `field.TooLong(path, value, maxLength)`: "may not be more than N bytes".
    pub fn too_long(field: &Path, max_len: usize) -> Self {
        let unit = if max_len == 1 { "byte" } else { "bytes" };
        Self::make(
            ErrorType::TooLong,
            field,
            BadValue::Omit,
            format!("may not be more than {max_len} {unit}"),
        )
    }

    /// `field.TooMany(path, actual, max)`.
    pub fn too_many(field: &Path, actual: usize, max: usize) -> Self {
        Self::make(
            ErrorType::TooMany,
            field,
            BadValue::from(actual),
            format!("must have at most {max} items"),
        )
    }

    /// A reason-only admission cause (`NodeCapacity`, `UnsupportedPlatform`): no field, no message.
    pub fn cause(error_type: ErrorType) -> Self {
        let origin = match error_type {
            ErrorType::UnsupportedPlatform => "admission/unsupported-platform",
            _ => "admission/node-capacity",
        };
        Self::make(error_type, &Path::default(), BadValue::Omit, String::new()).with_origin(origin)
    }

    /// `field.InternalError(path, err)`.
    pub fn internal(field: &Path, detail: impl Into<String>) -> Self {
        Self::make(ErrorType::Internal, field, BadValue::Omit, detail.into())
    }

    /// Set the stable rule id.
    #[must_use]
    pub fn with_origin(mut self, origin: &'static str) -> Self {
        self.origin = origin;
        self
    }

    /// Upstream `ErrorBody()`: `"<summary>[: <value>][: <detail>]"`, without the field.
    pub fn body(&self) -> String {
        let mut s = self.error_type.summary().to_owned();
        let shows_value = !matches!(
            self.error_type,
            ErrorType::Required
                | ErrorType::Forbidden
                | ErrorType::TooLong
                | ErrorType::Internal
                | ErrorType::NodeCapacity
                | ErrorType::UnsupportedPlatform
        );
        if shows_value && let Some(v) = self.bad_value.render() {
            s.push_str(": ");
            s.push_str(&v);
        }
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }

    /// The bad value as the API would render it, when the error type shows one.
    pub fn rendered_bad_value(&self) -> Option<String> {
        match self.error_type {
            ErrorType::Required
            | ErrorType::Forbidden
            | ErrorType::TooLong
            | ErrorType::Internal
            | ErrorType::NodeCapacity
            | ErrorType::UnsupportedPlatform => None,
            _ => self.bad_value.render(),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

impl std::error::Error for FieldError {}

/// A list of field errors; rules accumulate into one and never stop at the first.
pub type ErrorList = Vec<FieldError>;

/// Upstream `utilerrors.NewAggregate(errs.ToAggregate()).Error()`: duplicates (by message) are dropped;
/// one error prints bare, several print as `[e1, e2]`.
pub(crate) fn aggregate_message(errs: &[FieldError]) -> String {
    let mut seen: Vec<String> = Vec::with_capacity(errs.len());
    for e in errs {
        let msg = e.to_string();
        if !seen.contains(&msg) {
            seen.push(msg);
        }
    }
    match seen.len() {
        0 => String::new(),
        1 => seen.swap_remove(0),
        _ => format!("[{}]", seen.join(", ")),
    }
}

/// Keep the first of identical errors (same rendered text), as `ErrorList.ToAggregate` does.
pub fn dedup_as_aggregate(errs: &mut ErrorList) {
    let mut seen: Vec<String> = Vec::with_capacity(errs.len());
    errs.retain(|e| {
        let msg = e.to_string();
        let fresh = !seen.contains(&msg);
        if fresh {
            seen.push(msg);
        }
        fresh
    });
}

/// The API server's `StatusError` message for an invalid object (`apierrors.NewInvalid`):
/// `Pod "name" is invalid: <aggregate>`.
pub fn invalid_message(kind: &str, name: &str, errs: &[FieldError]) -> String {
    if errs.is_empty() {
        format!("{kind} {} is invalid", go_quote(name))
    } else {
        format!(
            "{kind} {} is invalid: {}",
            go_quote(name),
            aggregate_message(errs)
        )
    }
}

/// The API server's message for an admission refusal (`admission.NewForbidden`):
/// `pods "name" is forbidden: <why>`. An object without a name yet is named by its
/// `generateName`, else `Unknown`.
pub fn forbidden_message(resource: &str, name: &str, generate_name: &str, why: &str) -> String {
    let name = match (name, generate_name) {
        ("", "") => "Unknown",
        ("", generate) => generate,
        (name, _) => name,
    };
    format!("{resource} {} is forbidden: {why}", go_quote(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_the_object_its_generate_name_or_unknown() {
        assert_eq!(
            forbidden_message("pods", "web", "", "x"),
            "pods \"web\" is forbidden: x"
        );
        assert_eq!(
            forbidden_message("pods", "", "web-", "x"),
            "pods \"web-\" is forbidden: x"
        );
        assert_eq!(
            forbidden_message("deployments.apps", "", "", "x"),
            "deployments.apps \"Unknown\" is forbidden: x"
        );
    }

    #[test]
    fn paths_render_like_upstream() {
        let spec = Path::new("spec");
        assert_eq!(spec.to_string(), "spec");
        assert_eq!(
            spec.child("containers").index(3).child("image").to_string(),
            "spec.containers[3].image"
        );
        assert_eq!(
            Path::new("metadata").child("annotations").key("a/b").to_string(),
            "metadata.annotations[a/b]"
        );
        assert_eq!(Path::root().to_string(), "[]");
        assert_eq!(Path::root().child("x").to_string(), "[].x");
    }

    #[test]
    fn a_path_is_the_same_before_and_after_children_share_it() {
        use std::collections::hash_map::DefaultHasher;
        let hash = |p: &Path| {
            let mut h = DefaultHasher::new();
            p.hash(&mut h);
            h.finish()
        };
        let list = Path::new("spec").child("containers");
        let item = list.index(1);
        let untouched = item.clone();
        // Children built from `item` (its last element is shared from the first one on) ...
        let name = item.child("name");
        let env = item.child("env").key("A");
        assert_eq!(name.to_string(), "spec.containers[1].name");
        assert_eq!(env.to_string(), "spec.containers[1].env[A]");
        // ... leave it equal to its clone taken before, and to the same path built afresh.
        let fresh = Path::new("spec").child("containers").key("1");
        for p in [&item, &untouched, &fresh] {
            assert_eq!(p.to_string(), "spec.containers[1]");
            assert_eq!(*p, item);
            assert_eq!(hash(p), hash(&item));
        }
        assert_eq!(untouched.child("name"), name);
        assert_eq!(fresh.child("env").key("A"), env);
        assert_ne!(item.child("image"), name);
        assert_eq!(Path::default().to_string(), "");
        assert_eq!(Path::default().child("spec"), Path::new("spec"));
    }

    #[test]
    fn document_paths_join_strip_render_and_sort() {
        let root = Path::default();
        let item = root.child("items").index(1);
        let inner = root.child("spec").child("").child("x");
        let joined = item.join(&inner);
        assert_eq!(joined.document_field(), "items[1].spec..x");
        assert_eq!(
            joined,
            Path::new("items").index(1).child("spec").child("").child("x")
        );
        assert_eq!(joined.strip_prefix(&item), Some(inner));
        assert_eq!(joined.strip_prefix(&root), Some(joined.clone()));
        assert_eq!(joined.strip_prefix(&root.child("items").index(2)), None);
        assert_eq!(item.strip_prefix(&joined), None);
        assert_eq!(root.join(&root).document_field(), "");
        // The document rendering differs from upstream's only for an empty name.
        assert_eq!(root.child("").child("a").document_field(), "a");
        assert_eq!(root.child("").child("a").to_string(), "[].a");
        assert_eq!(item.document_field(), item.to_string());
        // Names before indexes, a path before the longer ones it starts.
        let mut paths = [
            root.child("b"),
            root.index(0),
            root.child("a").index(10),
            root.child("a").index(9),
            root.child("a"),
            root.child("a").child("z"),
        ];
        paths.sort_by(Path::cmp_elements);
        let rendered: Vec<String> = paths.iter().map(Path::document_field).collect();
        assert_eq!(rendered, ["a", "a.z", "a[9]", "a[10]", "b", "[0]"]);
    }

    #[test]
    fn paths_and_errors_are_send_and_sync() {
        // Checked when the test compiles: a path (and an error holding one) can be shared
        // between threads.
        const fn send_and_sync<T: Send + Sync>() {}
        const _: () = send_and_sync::<Path>();
        const _: () = send_and_sync::<FieldError>();
        let shared = std::sync::Arc::new(Path::new("spec").child("containers"));
        let child = std::thread::spawn({
            let shared = std::sync::Arc::clone(&shared);
            move || shared.index(0).to_string()
        });
        assert_eq!(child.join().unwrap(), "spec.containers[0]");
        assert_eq!(
            shared.index(1).child("name").to_string(),
            "spec.containers[1].name"
        );
    }

    #[test]
    fn bodies_render_like_error_body() {
        let p = Path::new("spec").child("containers");
        assert_eq!(FieldError::required(&p, "").body(), "Required value");
        assert_eq!(
            FieldError::forbidden(&p, "no").to_string(),
            "spec.containers: Forbidden: no"
        );
        assert_eq!(
            FieldError::invalid(&p.child("x"), "a\"b", "bad").to_string(),
            "spec.containers.x: Invalid value: \"a\\\"b\": bad"
        );
        assert_eq!(
            FieldError::invalid(&p, -5i64, "must be greater").body(),
            "Invalid value: -5: must be greater"
        );
        assert_eq!(
            FieldError::not_supported(&p, "Foo", &["Always", "Never"]).body(),
            "Unsupported value: \"Foo\": supported values: \"Always\", \"Never\""
        );
        assert_eq!(
            FieldError::duplicate(&p, "web").body(),
            "Duplicate value: \"web\""
        );
        assert_eq!(FieldError::not_found(&p, "vol").body(), "Not found: \"vol\"");
        assert_eq!(
            FieldError::invalid(&p, BadValue::Null, "x").body(),
            "Invalid value: null: x"
        );
    }

    #[test]
    fn aggregates_like_utilerrors() {
        let p = Path::new("spec");
        let a = FieldError::forbidden(&p, "a");
        let b = FieldError::forbidden(&p, "b");
        assert_eq!(aggregate_message(std::slice::from_ref(&a)), "spec: Forbidden: a");
        assert_eq!(
            aggregate_message(&[a.clone(), b, a]),
            "[spec: Forbidden: a, spec: Forbidden: b]"
        );
        assert_eq!(
            invalid_message("Pod", "x", &[FieldError::forbidden(&Path::root(), "static")]),
            "Pod \"x\" is invalid: []: Forbidden: static"
        );
    }

    #[test]
    fn cause_types_round_trip() {
        for t in ErrorType::ALL {
            assert_eq!(ErrorType::from_cause_type(t.cause_type()), Some(t));
            let json = serde_json::to_string(&t).unwrap();
            assert_eq!(json, format!("\"{}\"", t.cause_type()));
        }
    }
}
