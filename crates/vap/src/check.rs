//! Type-checking policy expressions: a misspelled field is found before anything runs.
//!
//! Written by hand because the `cel` crate (cel-rust 0.15) parses and interprets CEL but has no
//! checker (cel-go's `checker` package has no Rust counterpart): this walks the parsed syntax tree
//! with a type environment, the way cel-go's checker does for the API server.
//!
//! The environment is the API server's (`k8s.io/apiserver/pkg/admission/plugin/cel/compile.go`
//! and `.../policy/validating/typechecking.go`):
//! - `object`/`oldObject` are the Pod (core/v1) of [`super::schema`] — generated from k8s-openapi —
//!   when the policy's `matchConstraints.resourceRules` can only match Pods (group `""`, resource
//!   `pods` or a Pod subresource whose object is the Pod); otherwise dyn. `params` is the
//!   ConfigMap or Secret of the same table when `paramKind` names one (and `object` is typed),
//!   otherwise dyn. Errors found through these are the type checker's *warnings* upstream
//!   (`status.typeChecking`: the API server still evaluates the policy).
//! - `request` and `namespaceObject` have the hand-made types of upstream's `BuildRequestType` and
//!   `BuildNamespaceType`, and `variables` the types of the policy's variables (each typed from its
//!   own expression, seeing the variables before it): the API server's compiler knows these, so
//!   an error through them, or an undeclared identifier, is a *compile* error upstream (the policy
//!   is refused when written).
//!
//! Comprehension macros (`all`, `exists`, `exists_one`, `map`, `filter`) bind the element type of
//! a typed list (the key type of a map; index and element, key and value with two variables);
//! `has()`, `?.`/optional values and indexing are typed; map-typed fields (labels, annotations,
//! resources.limits, ...) take any key. Unknown functions and anything else that cannot be typed
//! are dyn: the checker never reports an error the API server would not.

use std::collections::BTreeMap;
use std::rc::Rc;

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

use podmut_model::request_path::Subresource;

use super::cel::position;
use super::schema::OBJECTS;

/// The objects of upstream's `BuildRequestType` and `BuildNamespaceType` (same format as
/// [`OBJECTS`]). `UID` (not `uid`) is upstream's spelling in the namespace's metadata type.
static DECLARED: &[(&str, &[(&str, &str)])] = &[
    (
        "kubernetes.AdmissionRequest",
        &[
            ("dryRun", "b"),
            ("kind", "kubernetes.GroupVersionKind"),
            ("name", "s"),
            ("namespace", "s"),
            ("operation", "s"),
            ("options", "*"),
            ("requestKind", "kubernetes.GroupVersionKind"),
            ("requestResource", "kubernetes.GroupVersionResource"),
            ("requestSubResource", "s"),
            ("resource", "kubernetes.GroupVersionResource"),
            ("subResource", "s"),
            ("userInfo", "kubernetes.UserInfo"),
        ],
    ),
    (
        "kubernetes.GroupVersionKind",
        &[("group", "s"), ("kind", "s"), ("version", "s")],
    ),
    (
        "kubernetes.GroupVersionResource",
        &[("group", "s"), ("resource", "s"), ("version", "s")],
    ),
    (
        "kubernetes.Namespace",
        &[
            ("metadata", "kubernetes.NamespaceMetadata"),
            ("spec", "kubernetes.NamespaceSpec"),
            ("status", "kubernetes.NamespaceStatus"),
        ],
    ),
    (
        "kubernetes.NamespaceCondition",
        &[
            ("lastTransitionTime", "*"),
            ("message", "s"),
            ("reason", "s"),
            ("status", "s"),
            ("type", "s"),
        ],
    ),
    (
        "kubernetes.NamespaceMetadata",
        &[
            ("UID", "s"),
            ("annotations", "{s"),
            ("creationTimestamp", "*"),
            ("deletionGracePeriodSeconds", "i"),
            ("deletionTimestamp", "*"),
            ("finalizers", "[s"),
            ("generateName", "s"),
            ("generation", "i"),
            ("labels", "{s"),
            ("name", "s"),
            ("namespace", "s"),
            ("resourceVersion", "s"),
        ],
    ),
    ("kubernetes.NamespaceSpec", &[("finalizers", "[s")]),
    (
        "kubernetes.NamespaceStatus",
        &[("conditions", "[kubernetes.NamespaceCondition"), ("phase", "s")],
    ),
    (
        "kubernetes.UserInfo",
        &[
            ("extra", "{[s"),
            ("groups", "[s"),
            ("uid", "s"),
            ("username", "s"),
        ],
    ),
];

/// Whether a rule's resource is one whose request object is the Pod itself: a Pod request path
/// (`pods`, `pods/resize`, ...), or `pods/*`.
fn is_pod_resource(resource: &str) -> bool {
    resource == "pods/*" || Subresource::ALL.iter().any(|sub| sub.resource() == resource)
}

/// The namespaces of the environment's functions (`optional.of`, `lists.range`, `sets.contains`,
/// `strings.quote`, `cel.bind`, `ip.isCanonical`, `format.named`); another, `math.greatest`
/// (cel-go's ext.Math, which the API server's environment does not have) included, is an
/// undeclared name.
const NAMESPACES: &[&str] = &["cel", "format", "ip", "lists", "optional", "sets", "strings"];

/// Identifiers that name types (`type(x) == string`).
const TYPE_NAMES: &[&str] = &[
    "bool",
    "bytes",
    "double",
    "dyn",
    "int",
    "list",
    "map",
    "null_type",
    "string",
    "type",
    "uint",
    "optional_type",
];

/// Whose knowledge an object type is: the type checker's (a problem is a warning upstream) or
/// the compiler's (a problem is a compile error upstream).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// `object`, `oldObject`, `params`: typed from the schema by the type checker.
    Schema,
    /// `request`, `namespaceObject`, `variables` and the identifiers themselves.
    Declared,
}

/// An object type of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Object {
    fields: &'static [(&'static str, &'static str)],
    origin: Origin,
}

impl Object {
    fn named(name: &str, origin: Origin) -> Option<Object> {
        let table = match origin {
            Origin::Schema => OBJECTS,
            Origin::Declared => DECLARED,
        };
        table
            .binary_search_by(|(n, _)| (*n).cmp(name))
            .ok()
            .and_then(|i| table.get(i))
            .map(|(_, fields)| Object { fields, origin })
    }

    fn field(&self, name: &str) -> Option<Ty> {
        self.fields
            .binary_search_by(|(n, _)| (*n).cmp(name))
            .ok()
            .and_then(|i| self.fields.get(i))
            .map(|(_, t)| Ty::parse(t, self.origin))
    }
}

/// A CEL type, as far as the checker knows it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ty {
    /// cel-go's dyn: what is known to be untyped (a field of a dyn value, `dyn(x)`).
    Dyn,
    /// Not modelled here (the result of a function the checker does not know): cel-go may know
    /// a precise type, so nothing is concluded from it.
    Unknown,
    /// The element of an empty list literal (joins with anything).
    Empty,
    Bool,
    Int,
    Uint,
    Double,
    Str,
    Bytes,
    Null,
    /// A type value (`string`, `type(x)`).
    Type,
    Obj(Object),
    List(Rc<Ty>),
    /// A map with string keys.
    Map(Rc<Ty>),
    Opt(Rc<Ty>),
    /// `variables`: the type of each variable declared so far.
    Vars(Rc<BTreeMap<String, Ty>>),
}

impl Ty {
    /// A type of the tables: `s`, `i`, `b`, `d`, `y`, `*`, `[T`, `{T` or an object's name.
    fn parse(t: &str, origin: Origin) -> Ty {
        match t {
            "s" => Ty::Str,
            "i" => Ty::Int,
            "b" => Ty::Bool,
            "d" => Ty::Double,
            "y" => Ty::Bytes,
            _ => {
                if let Some(elem) = t.strip_prefix('[') {
                    Ty::List(Rc::new(Ty::parse(elem, origin)))
                } else if let Some(value) = t.strip_prefix('{') {
                    Ty::Map(Rc::new(Ty::parse(value, origin)))
                } else {
                    Object::named(t, origin).map_or(Ty::Dyn, Ty::Obj)
                }
            }
        }
    }

    fn list(elem: Ty) -> Ty {
        Ty::List(Rc::new(elem))
    }

    /// A type covering both (unknown when they differ: how cel-go unifies them is not modelled).
    fn join(&self, o: &Ty) -> Ty {
        match (self, o) {
            (Ty::Empty, x) | (x, Ty::Empty) => x.clone(),
            (Ty::List(a), Ty::List(b)) => Ty::list(a.join(b)),
            (Ty::Map(a), Ty::Map(b)) => Ty::Map(Rc::new(a.join(b))),
            (Ty::Opt(a), Ty::Opt(b)) => Ty::Opt(Rc::new(a.join(b))),
            (a, b) if a == b => a.clone(),
            _ => Ty::Unknown,
        }
    }

    /// The result of an arithmetic operator (cel-go's overload resolution for `_+_`, `_-_`, ...):
    /// the same type on both sides, or the typed side against a dyn one (its overload is the only
    /// one that applies: `'a' + dyn` is a string); dyn on both sides matches overloads of several
    /// result types, so dyn.
    fn arith(&self, o: &Ty) -> Ty {
        let concrete = |t: &Ty| {
            matches!(
                t,
                Ty::Int | Ty::Uint | Ty::Double | Ty::Str | Ty::Bytes | Ty::List(_)
            )
        };
        match (self, o) {
            (Ty::Dyn, Ty::Dyn) => Ty::Dyn,
            (Ty::Dyn, t) | (t, Ty::Dyn) if concrete(t) => t.clone(),
            (a, b) => a.join(b),
        }
    }

    /// Selecting into or indexing this type when the checker has nothing better: dyn stays dyn,
    /// anything else is not modelled.
    fn opaque(&self) -> Ty {
        match self {
            Ty::Dyn => Ty::Dyn,
            _ => Ty::Unknown,
        }
    }

    /// cel-go's name of the type (`Type.String()`), when the checker knows it fully.
    fn cel_name(&self) -> Option<String> {
        Some(match self {
            Ty::Dyn => "dyn".to_owned(),
            Ty::Bool => "bool".to_owned(),
            Ty::Int => "int".to_owned(),
            Ty::Uint => "uint".to_owned(),
            Ty::Double => "double".to_owned(),
            Ty::Str => "string".to_owned(),
            Ty::Bytes => "bytes".to_owned(),
            Ty::Null => "null_type".to_owned(),
            Ty::Type => "type".to_owned(),
            Ty::List(e) => format!("list({})", e.cel_name()?),
            Ty::Map(v) => format!("map(string, {})", v.cel_name()?),
            Ty::Opt(t) => format!("optional_type({})", t.cel_name()?),
            Ty::Unknown | Ty::Empty | Ty::Obj(_) | Ty::Vars(_) => return None,
        })
    }

    /// The type of an element (of a list) or a value (of a map).
    fn element(&self) -> Ty {
        match self {
            Ty::List(e) | Ty::Map(e) => (**e).clone(),
            other => other.opaque(),
        }
    }
}

/// One problem: where and what, in cel-go's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Issue {
    /// Byte offset in the expression.
    offset: usize,
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) message: String,
}

/// What checking one expression found.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    /// Compile errors upstream (request, namespaceObject, variables, undeclared names).
    pub(crate) errors: Vec<Issue>,
    /// The type checker's warnings upstream (object, oldObject, params).
    pub(crate) warnings: Vec<Issue>,
}

/// The variables an expression of one policy sees, and their types.
#[derive(Clone, Debug)]
pub(crate) struct Env {
    roots: BTreeMap<&'static str, Ty>,
    variables: BTreeMap<String, Ty>,
    /// What `object` is checked against, in upstream's words (`/v1, Kind=Pod`), when typed.
    pub(crate) gvk: Option<&'static str>,
}

/// The Pod's group/version/kind as upstream prints it.
const POD_GVK: &str = "/v1, Kind=Pod";

impl Env {
    /// The environment of a policy: `pod_only` when its rules can only match Pods; `param_kind`
    /// as `(apiVersion, kind)`.
    pub(crate) fn new(pod_only: bool, param_kind: Option<(&str, &str)>) -> Env {
        let declared = |name| Object::named(name, Origin::Declared).map_or(Ty::Dyn, Ty::Obj);
        let object = if pod_only {
            Object::named("Pod", Origin::Schema).map_or(Ty::Dyn, Ty::Obj)
        } else {
            Ty::Dyn
        };
        let params = match param_kind {
            Some(("v1", kind @ ("ConfigMap" | "Secret"))) if pod_only => {
                Object::named(kind, Origin::Schema).map_or(Ty::Dyn, Ty::Obj)
            }
            _ => Ty::Dyn,
        };
        let roots = podmut_model::order::map_from([
            ("object", object.clone()),
            ("oldObject", object),
            ("params", params),
            ("request", declared("kubernetes.AdmissionRequest")),
            ("namespaceObject", declared("kubernetes.Namespace")),
            ("authorizer", Ty::Unknown),
        ]);
        Env {
            roots,
            variables: BTreeMap::new(),
            gvk: pod_only.then_some(POD_GVK),
        }
    }

    /// Declare `variables.<name>` with the type its expression has.
    pub(crate) fn declare(&mut self, name: &str, ty: Ty) {
        self.variables.insert(name.to_owned(), ty);
    }

    /// Check one expression; also its type (for a variable's declaration).
    pub(crate) fn check(&self, expr: &super::cel::Expr) -> (Outcome, Ty) {
        let mut c = Checker {
            env: self,
            vars: Ty::Vars(Rc::new(self.variables.clone())),
            scope: Vec::new(),
            found: Vec::new(),
        };
        let ty = c.walk(&expr.ast);
        (place(expr, c.found), ty)
    }
}

/// The problems found (node, origin, message) placed in `expr`'s source, each list in source
/// order without repeats (a macro's expansion may hold a node twice). Positions are looked up
/// only when something was found.
fn place(expr: &super::cel::Expr, found: Vec<(u64, Origin, String)>) -> Outcome {
    let mut outcome = Outcome::default();
    if found.is_empty() {
        return outcome;
    }
    let places = expr.places();
    for (id, origin, message) in found {
        let offset = places.offset(id);
        let (line, column) = position(&expr.text, offset);
        let issue = Issue {
            offset,
            line,
            column,
            message,
        };
        match origin {
            Origin::Schema => outcome.warnings.push(issue),
            Origin::Declared => outcome.errors.push(issue),
        }
    }
    for list in [&mut outcome.errors, &mut outcome.warnings] {
        podmut_model::order::sort_by_key(list, |i| i.offset);
        list.dedup();
    }
    outcome
}

/// Whether a policy's `matchConstraints.resourceRules` (as `(apiGroups, resources)` of each rule)
/// can only match requests whose object is a Pod.
pub(crate) fn pod_only<'a>(rules: impl IntoIterator<Item = (&'a [String], &'a [String])>) -> bool {
    let mut any = false;
    for (groups, resources) in rules {
        any = true;
        let core_only = !groups.is_empty() && groups.iter().all(String::is_empty);
        let pods_only = !resources.is_empty() && resources.iter().all(|r| is_pod_resource(r));
        if !(core_only && pods_only) {
            return false;
        }
    }
    any
}

struct Checker<'a> {
    env: &'a Env,
    vars: Ty,
    /// Comprehension variables, innermost last.
    scope: Vec<(String, Ty)>,
    /// The problems found: node, origin, message.
    found: Vec<(u64, Origin, String)>,
}

impl Checker<'_> {
    fn report(&mut self, id: u64, origin: Origin, message: String) {
        self.found.push((id, origin, message));
    }

    fn lookup(&self, name: &str) -> Option<Ty> {
        if let Some((_, t)) = self.scope.iter().rev().find(|(n, _)| n == name) {
            return Some(t.clone());
        }
        if name == "variables" {
            return Some(self.vars.clone());
        }
        self.env.roots.get(name).cloned()
    }

    fn walk(&mut self, e: &IdedExpr) -> Ty {
        match &e.expr {
            Expr::Unspecified => Ty::Unknown,
            Expr::Literal(l) => match l {
                LiteralValue::Boolean(_) => Ty::Bool,
                LiteralValue::Bytes(_) => Ty::Bytes,
                LiteralValue::Double(_) => Ty::Double,
                LiteralValue::Int(_) => Ty::Int,
                LiteralValue::Null => Ty::Null,
                LiteralValue::String(_) => Ty::Str,
                LiteralValue::UInt(_) => Ty::Uint,
            },
            Expr::Ident(name) => self.ident(e.id, name),
            Expr::Select(s) => {
                let operand = self.walk(&s.operand);
                let field = self.select(e.id, &operand, &s.field);
                if s.test { Ty::Bool } else { field }
            }
            Expr::List(l) => {
                let mut elem = Ty::Empty;
                for el in &l.elements {
                    let t = self.walk(el);
                    elem = elem.join(&t);
                }
                Ty::list(elem)
            }
            Expr::Map(m) => self.entries(&m.entries),
            Expr::Struct(s) => {
                self.entries(&s.entries);
                Ty::Unknown
            }
            Expr::Call(c) => self.call(e.id, c),
            Expr::Comprehension(c) => self.comprehension(c),
        }
    }

    fn ident(&mut self, id: u64, name: &str) -> Ty {
        if let Some(t) = self.lookup(name) {
            return t;
        }
        if TYPE_NAMES.contains(&name) {
            return Ty::Type;
        }
        self.report(
            id,
            Origin::Declared,
            format!("undeclared reference to '{name}' (in container '')"),
        );
        Ty::Dyn
    }

    /// The type of `operand.field` (reporting an undefined field of a known object).
    fn select(&mut self, id: u64, operand: &Ty, field: &str) -> Ty {
        match operand {
            Ty::Obj(o) => o.field(field).unwrap_or_else(|| {
                self.report(id, o.origin, format!("undefined field '{field}'"));
                Ty::Dyn
            }),
            Ty::Vars(vars) => vars.get(field).cloned().unwrap_or_else(|| {
                self.report(id, Origin::Declared, format!("undefined field '{field}'"));
                Ty::Dyn
            }),
            Ty::Map(v) => (**v).clone(),
            Ty::Opt(inner) => Ty::Opt(Rc::new(self.select(id, inner, field))),
            other => other.opaque(),
        }
    }

    fn entries(&mut self, entries: &[cel::common::ast::IdedEntryExpr]) -> Ty {
        let mut value = Ty::Empty;
        for en in entries {
            let t = match &en.expr {
                EntryExpr::MapEntry(m) => {
                    self.walk(&m.key);
                    self.walk(&m.value)
                }
                EntryExpr::StructField(f) => self.walk(&f.value),
            };
            value = value.join(&t);
        }
        Ty::Map(Rc::new(value))
    }

    fn call(&mut self, id: u64, c: &cel::common::ast::CallExpr) -> Ty {
        // `lists.range(n)`, `optional.of(x)`: a call on a name that is no variable is a
        // namespaced function.
        let namespace = match c.target.as_deref().map(|t| &t.expr) {
            Some(Expr::Ident(ns)) if self.lookup(ns).is_none() => Some(ns.as_str()),
            _ => None,
        };
        let target = match (&c.target, namespace) {
            (Some(t), None) => Some(self.walk(t)),
            _ => None,
        };
        if let Some(range) = &target
            && let Some(ty) = self.two_variables(&c.func_name, range, &c.args)
        {
            return ty;
        }
        if let (Some("cel"), "bind") = (namespace, c.func_name.as_str())
            && let Some(ty) = self.bind(&c.args)
        {
            return ty;
        }
        let args: Vec<Ty> = c.args.iter().map(|a| self.walk(a)).collect();
        if let Some(ns) = namespace {
            if !NAMESPACES.contains(&ns)
                && let Some(t) = &c.target
            {
                self.report(
                    t.id,
                    Origin::Declared,
                    format!("undeclared reference to '{ns}' (in container '')"),
                );
            }
            return namespaced(ns, &c.func_name, &args);
        }
        let arg = |i: usize| args.get(i).cloned().unwrap_or(Ty::Dyn);
        match (c.func_name.as_str(), &target) {
            ("_?._", None) => {
                let field = match c.args.get(1).map(|a| &a.expr) {
                    Some(Expr::Literal(LiteralValue::String(s))) => Some(s.inner().to_string()),
                    _ => None,
                };
                let operand = arg(0);
                let operand = match &operand {
                    Ty::Opt(inner) => (**inner).clone(),
                    other => other.clone(),
                };
                let ty = field.map_or(Ty::Dyn, |f| self.select(id, &operand, &f));
                Ty::Opt(Rc::new(strip_opt(ty)))
            }
            ("_[_]", None) => index(&arg(0), c.args.get(1)),
            ("_[?_]", None) => Ty::Opt(Rc::new(strip_opt(index(&arg(0), c.args.get(1))))),
            ("_?_:_", None) => arg(1).join(&arg(2)),
            ("_+_" | "_-_" | "_*_" | "_/_" | "_%_", None) => arg(0).arith(&arg(1)),
            ("-_", None) => arg(0),
            (
                "_&&_"
                | "_||_"
                | "!_"
                | "_==_"
                | "_!=_"
                | "_<_"
                | "_<=_"
                | "_>_"
                | "_>=_"
                | "@in"
                | "@not_strictly_false",
                None,
            ) => Ty::Bool,
            ("size" | "int", _) => Ty::Int,
            ("string", None) => Ty::Str,
            ("uint", None) => Ty::Uint,
            ("double", None) => Ty::Double,
            ("bool", None) => Ty::Bool,
            ("bytes", None) => Ty::Bytes,
            ("type", None) => Ty::Type,
            ("dyn", None) => Ty::Dyn,
            ("matches" | "startsWith" | "endsWith" | "contains" | "hasValue" | "isSorted", Some(_)) => {
                Ty::Bool
            }
            ("value", Some(Ty::Opt(inner))) => (**inner).clone(),
            ("orValue", Some(Ty::Opt(inner))) => inner.join(&arg(0)),
            ("or", Some(t @ Ty::Opt(_))) => t.join(&arg(0)),
            ("lowerAscii" | "upperAscii" | "trim" | "join", Some(_)) => Ty::Str,
            ("split", Some(_)) => Ty::list(Ty::Str),
            ("indexOf" | "lastIndexOf", Some(_)) => Ty::Int,
            ("sort" | "distinct" | "slice" | "reverse", Some(t @ (Ty::List(_) | Ty::Str))) => t.clone(),
            ("sum" | "min" | "max", Some(t @ Ty::List(_))) => t.element(),
            _ => Ty::Unknown,
        }
    }

    /// Macros of cel-go the `cel` crate's parser leaves as calls: the two-variable comprehensions
    /// (`all(i, v, ...)`, `transformList(i, v, ...)`, ...: the index or key and the element or
    /// value are bound) and the optional library's `optMap(v, ...)`/`optFlatMap(v, ...)` (the
    /// optional's value is bound) — their variables are declared while the body is checked.
    fn two_variables(&mut self, func: &str, range: &Ty, args: &[IdedExpr]) -> Option<Ty> {
        const TWO_VARIABLE: &[&str] = &[
            "all",
            "exists",
            "existsOne",
            "exists_one",
            "transformList",
            "transformMap",
            "transformMapEntry",
        ];
        let ident = |i: usize| match args.get(i).map(|a| &a.expr) {
            Some(Expr::Ident(name)) => Some(name.clone()),
            _ => None,
        };
        let bound: Vec<(String, Ty)> = if matches!(func, "optMap" | "optFlatMap") && args.len() == 2 {
            let value = match range {
                Ty::Opt(inner) => (**inner).clone(),
                other => other.opaque(),
            };
            vec![(ident(0)?, value)]
        } else if TWO_VARIABLE.contains(&func) && args.len() >= 3 {
            let (k, v) = match range {
                Ty::List(e) => (Ty::Int, (**e).clone()),
                Ty::Map(e) => (Ty::Str, (**e).clone()),
                other => (other.opaque(), other.opaque()),
            };
            vec![(ident(0)?, k), (ident(1)?, v)]
        } else {
            return None;
        };
        let depth = self.scope.len();
        let body = bound.len();
        self.scope.extend(bound);
        for a in args.iter().skip(body) {
            self.walk(a);
        }
        self.scope.truncate(depth);
        Some(if matches!(func, "all" | "exists" | "existsOne" | "exists_one") {
            Ty::Bool
        } else {
            Ty::Unknown
        })
    }

    /// cel-go's `cel.bind(name, init, body)`: `name` has `init`'s type in `body`.
    fn bind(&mut self, args: &[IdedExpr]) -> Option<Ty> {
        let [name, init, body] = args else {
            return None;
        };
        let Expr::Ident(name) = &name.expr else {
            return None;
        };
        let ty = self.walk(init);
        let depth = self.scope.len();
        self.scope.push((name.clone(), ty));
        let out = self.walk(body);
        self.scope.truncate(depth);
        Some(out)
    }

    fn comprehension(&mut self, c: &cel::common::ast::ComprehensionExpr) -> Ty {
        let range = self.walk(&c.iter_range);
        let (first, second) = match (&range, c.iter_var2.is_some()) {
            (Ty::List(e), false) => ((**e).clone(), Ty::Dyn),
            (Ty::List(e), true) => (Ty::Int, (**e).clone()),
            (Ty::Map(v), _) => (Ty::Str, (**v).clone()),
            (other, _) => (other.opaque(), other.opaque()),
        };
        let init = self.walk(&c.accu_init);
        let depth = self.scope.len();
        self.scope.push((c.iter_var.clone(), first));
        if let Some(v2) = &c.iter_var2 {
            self.scope.push((v2.clone(), second));
        }
        self.scope.push((c.accu_var.clone(), init.clone()));
        self.walk(&c.loop_cond);
        let step = self.walk(&c.loop_step);
        if let Some(last) = self.scope.last_mut() {
            last.1 = init.join(&step);
        }
        let result = self.walk(&c.result);
        self.scope.truncate(depth);
        result
    }
}

/// `optional.of(x)` and friends; any other namespaced function is dyn.
fn namespaced(ns: &str, func: &str, args: &[Ty]) -> Ty {
    let arg = args.first().cloned().unwrap_or(Ty::Dyn);
    match (ns, func) {
        ("optional", "of" | "ofNonZeroValue") => Ty::Opt(Rc::new(strip_opt(arg))),
        ("optional", "none") => Ty::Opt(Rc::new(Ty::Dyn)),
        ("lists", "range") => Ty::list(Ty::Int),
        _ => Ty::Unknown,
    }
}

fn strip_opt(t: Ty) -> Ty {
    match t {
        Ty::Opt(inner) => (*inner).clone(),
        other => other,
    }
}

/// `operand[key]`: the element of a list, the value of a map (any key), a field of an object
/// when the key is a literal (not checked: cel-go does not index objects by name).
fn index(operand: &Ty, key: Option<&IdedExpr>) -> Ty {
    match operand {
        Ty::List(e) | Ty::Map(e) => (**e).clone(),
        Ty::Opt(inner) => Ty::Opt(Rc::new(strip_opt(index(inner, key)))),
        Ty::Obj(o) => match key.map(|k| &k.expr) {
            Some(Expr::Literal(LiteralValue::String(s))) => o.field(s.inner()).unwrap_or(Ty::Unknown),
            _ => Ty::Unknown,
        },
        other => other.opaque(),
    }
}

/// What an expression must evaluate to (upstream's `ReturnTypes` of each kind of expression).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Returns {
    /// A validation's expression or a matchCondition: `bool`.
    Bool,
    /// A messageExpression: `string`.
    Str,
    /// An audit annotation's valueExpression: `string` or `null_type`.
    StrOrNull,
}

/// Upstream `CompileCELExpression`'s refusal of an expression whose type is not exactly one of
/// those it must evaluate to (`must evaluate to bool but got dyn`), when the checker knows the
/// type; `None` when it is right or not known here.
pub(crate) fn return_type_error(ty: &Ty, want: Returns) -> Option<String> {
    let ok = match want {
        Returns::Bool => *ty == Ty::Bool,
        Returns::Str => *ty == Ty::Str,
        Returns::StrOrNull => matches!(ty, Ty::Str | Ty::Null),
    };
    if ok {
        return None;
    }
    let got = ty.cel_name()?;
    Some(match want {
        Returns::Bool => format!("must evaluate to bool but got {got}"),
        Returns::Str => format!("must evaluate to string but got {got}"),
        Returns::StrOrNull => format!("must evaluate to one of [string null_type] but got {got}"),
    })
}

/// The API server's text for the warnings of one expression: cel-go's `Issues.String()` behind
/// the kind it was checked against — `/v1, Kind=Pod: ERROR: <input>:1:12: undefined field
/// 'contaners'`, the line and a caret under the column.
pub(crate) fn warning_text(gvk: &str, source: &str, issues: &[Issue]) -> String {
    let shown: Vec<String> = issues
        .iter()
        .map(|i| {
            let mut s = format!("ERROR: <input>:{}:{}: {}", i.line, i.column, i.message);
            if let Some(line) = source.lines().nth(i.line.saturating_sub(1)) {
                let line = line.replace('\t', " ");
                let dots: String = line
                    .chars()
                    .take(i.column.saturating_sub(1))
                    .map(|c| if c.len_utf8() > 1 { '．' } else { '.' })
                    .collect();
                s.push_str(&format!("\n | {line}\n | {dots}^"));
            }
            s
        })
        .collect();
    format!("{gvk}: {}\n", shown.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cel::Cel;

    /// The errors and warnings of `source` in a Pod policy with ConfigMap params and the
    /// variables `containers` (`object.spec.containers`) and `n` (an int).
    fn check(source: &str) -> (Vec<String>, Vec<String>) {
        let cel = Cel::new();
        let mut env = Env::new(true, Some(("v1", "ConfigMap")));
        for (name, src) in [
            ("containers", "object.spec.containers"),
            ("n", "size(object.spec.containers)"),
        ] {
            let e = cel.compile(src).expect("compiles");
            let (found, ty) = env.check(&e);
            assert!(found.errors.is_empty() && found.warnings.is_empty(), "{src}");
            env.declare(name, ty);
        }
        let e = cel.compile(source).expect("compiles");
        let (found, _) = env.check(&e);
        let show = |v: &[Issue]| {
            v.iter()
                .map(|i| format!("{}:{}: {}", i.line, i.column, i.message))
                .collect::<Vec<_>>()
        };
        (show(&found.errors), show(&found.warnings))
    }

    fn clean(source: &str) {
        assert_eq!(check(source), (vec![], vec![]), "{source}");
    }

    fn warns(source: &str, want: &[&str]) {
        assert_eq!(
            check(source),
            (vec![], want.iter().map(|s| (*s).to_owned()).collect()),
            "{source}"
        );
    }

    fn fails(source: &str, want: &[&str]) {
        assert_eq!(
            check(source).0,
            want.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(),
            "{source}"
        );
    }

    #[test]
    fn a_misspelled_pod_field_is_found_at_every_depth() {
        warns("object.spex", &["1:7: undefined field 'spex'"]);
        warns(
            "object.spec.contaners.size() == 1",
            &["1:12: undefined field 'contaners'"],
        );
        warns(
            "object.spec.containers[0].securityContext.privilaged == true",
            &["1:42: undefined field 'privilaged'"],
        );
        warns("oldObject.metadata.nam == ''", &["1:19: undefined field 'nam'"]);
        warns(
            "object.status.containerStatuses[0].state.runing.startedAt != ''",
            &["1:41: undefined field 'runing'"],
        );
        // Two typos in one expression: both, in order.
        warns(
            "object.spec.nodeNam == '' || object.metadata.lables == {}",
            &[
                "1:12: undefined field 'nodeNam'",
                "1:45: undefined field 'lables'",
            ],
        );
    }

    #[test]
    fn every_real_field_passes() {
        clean("object.spec.containers.size() == 1");
        clean("object.metadata.name.startsWith('web') && object.spec.restartPolicy == 'Always'");
        clean("object.spec.containers[0].resources.limits.cpu == '1'");
        clean("object.spec.initContainers[0].restartPolicy == 'Always'");
        clean("object.spec.ephemeralContainers.all(e, e.targetContainerName != '')");
        clean("object.spec.volumes.exists(v, v.hostPath.path == '/')");
        clean("object.spec.containers.all(c, c.ports.all(p, p.containerPort > 1024))");
        clean("object.status.qosClass == 'Guaranteed'");
        clean("object.apiVersion == 'v1' && object.kind == 'Pod'");
    }

    #[test]
    fn macros_bind_the_element_type() {
        warns(
            "object.spec.containers.all(c, c.imagee != '')",
            &["1:32: undefined field 'imagee'"],
        );
        warns(
            "object.spec.containers.exists(c, c.ports.exists(p, p.hostPrt == 80))",
            &["1:53: undefined field 'hostPrt'"],
        );
        warns(
            "object.spec.containers.exists_one(c, c.nme == 'a')",
            &["1:39: undefined field 'nme'"],
        );
        warns(
            "object.spec.containers.map(c, c.imag).all(i, i != '')",
            &["1:32: undefined field 'imag'"],
        );
        warns(
            "object.spec.containers.filter(c, c.image != '').all(c, c.nam != '')",
            &["1:57: undefined field 'nam'"],
        );
        // The element type survives map and filter.
        warns(
            "object.spec.containers.filter(c, c.image != '').map(c, c.resources).all(r, r.limts.size() > 0)",
            &["1:77: undefined field 'limts'"],
        );
        // Two variables over a list: the index and the element; over a map: key and value.
        warns(
            "object.spec.containers.all(i, c, i >= 0 && c.nam != '')",
            &["1:45: undefined field 'nam'"],
        );
        clean("object.metadata.labels.all(k, v, k.startsWith('app') && v != '')");
        // Over a map: the key is a string.
        clean("object.metadata.labels.all(k, k.startsWith('app'))");
        // A shadowing comprehension variable is its own type.
        clean("object.spec.containers.all(object, object.name != '')");
        // cel-go macros the crate leaves as calls bind their variables too: never undeclared.
        warns(
            "cel.bind(cs, object.spec.containers, cs.all(c, c.nam != ''))",
            &["1:49: undefined field 'nam'"],
        );
        clean("cel.bind(n, object.metadata.name, n.startsWith('web') && n.size() > 0)");
        warns(
            "object.spec.?securityContext.optMap(s, s.runAsUsr).hasValue()",
            &["1:41: undefined field 'runAsUsr'"],
        );
        clean("object.spec.?securityContext.optFlatMap(s, s.?runAsUser).hasValue()");
        clean("object.metadata.labels.transformMap(k, v, v + k).size() > 0");
    }

    #[test]
    fn has_checks_the_field_it_tests() {
        warns(
            "has(object.spec.securityContext.runAsNonRot)",
            &["1:4: undefined field 'runAsNonRot'"],
        );
        clean("has(object.spec.securityContext.runAsNonRoot)");
        clean("object.spec.containers.all(c, !has(c.securityContext) || has(c.securityContext.privileged))");
    }

    #[test]
    fn map_typed_fields_take_any_key() {
        clean("object.metadata.labels.app == 'web'");
        clean("object.metadata.annotations['example.com/anything'] == 'x'");
        clean("has(object.metadata.labels.team)");
        clean("object.spec.containers[0].resources.limits['nvidia.com/gpu'] == '1'");
        clean("object.spec.containers.all(c, c.resources.requests.memory != '')");
        clean("object.spec.nodeSelector.anything == 'x'");
        clean("'app' in object.metadata.labels");
    }

    #[test]
    fn optional_fields_are_typed_and_checked() {
        clean("object.?spec.?containers.orValue([]).size() > 0");
        clean("object.spec.?securityContext.?runAsNonRoot.orValue(false)");
        warns(
            "object.spec.?securityContxt.?runAsNonRoot.orValue(false)",
            &["1:12: undefined field 'securityContxt'"],
        );
        warns(
            "object.spec.containers[?0].?imag.orValue('') != ''",
            &["1:27: undefined field 'imag'"],
        );
        clean("object.metadata.labels[?'app'].orValue('') == 'web'");
        clean("optional.of(object.spec).containers.size() > 0 || optional.none().hasValue()");
    }

    #[test]
    fn variables_params_request_and_namespace_are_typed() {
        warns(
            "variables.containers.all(c, c.nam != '')",
            &["1:30: undefined field 'nam'"],
        );
        clean("variables.n > 0 && variables.containers.all(c, c.name != '')");
        // An undefined variable, request field or namespace field is a compile error upstream.
        fails(
            "variables.containrs.size() > 0",
            &["1:10: undefined field 'containrs'"],
        );
        fails(
            "request.operaton == 'CREATE'",
            &["1:8: undefined field 'operaton'"],
        );
        fails(
            "request.userInfo.usrname == 'x'",
            &["1:17: undefined field 'usrname'"],
        );
        fails(
            "namespaceObject.metadata.lables.env == 'prod'",
            &["1:25: undefined field 'lables'"],
        );
        clean(
            "request.operation == 'CREATE' && request.subResource == 'dynamic' && request.userInfo.groups.exists(g, g == 'x')",
        );
        clean("namespaceObject.metadata.labels.env == 'prod' && namespaceObject.status.phase == 'Active'");
        // params: the ConfigMap.
        warns("params.dat.max == '1'", &["1:7: undefined field 'dat'"]);
        clean("params.data.max == '1' && params.metadata.name != ''");
    }

    #[test]
    fn undeclared_names_are_compile_errors_and_type_names_are_not() {
        fails(
            "objct.spec.containers.size() > 0",
            &["1:1: undeclared reference to 'objct' (in container '')"],
        );
        clean("type(object.metadata.name) == string && type(object.spec.priority) == int");
        clean("lists.range(3).all(i, i >= 0) && sets.contains([1], [1]) && strings.quote('a') != ''");
        clean("ip.isCanonical('::1') && format.named('dns1123Label').hasValue()");
        fails(
            "math.greatest(1, 2) == 2",
            &["1:1: undeclared reference to 'math' (in container '')"],
        );
        clean("authorizer.group('').resource('pods').check('get').allowed()");
    }

    #[test]
    fn what_cannot_be_typed_is_dyn() {
        // Unknown functions, dyn(), formats (quantity, int-or-string), untyped params kinds.
        clean("quantity(object.spec.containers[0].resources.limits.cpu).isGreaterThan(quantity('1'))");
        clean("dyn(object.spec).anything.goes");
        clean("object.spec.containers[0].livenessProbe.httpGet.port == 8080");
        clean("object.metadata.creationTimestamp != null");
        clean("[1, 'a'][0].foo == 1");
        let cel = Cel::new();
        for env in [
            Env::new(false, None),
            Env::new(true, Some(("example.com/v1", "Limits"))),
        ] {
            let e = cel
                .compile("object.spec.contaners.size() > 0 || params.anything")
                .expect("compiles");
            let (found, _) = env.check(&e);
            let typed = env.gvk.is_some();
            assert_eq!(found.warnings.len(), usize::from(typed), "{env:?}");
            assert!(found.errors.is_empty());
        }
    }

    #[test]
    fn only_rules_that_match_pods_alone_type_the_object() {
        let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        let (core, apps) = (s(&[""]), s(&["apps"]));
        let (pods, dynamic, deployments, all) = (
            s(&["pods"]),
            s(&["pods/dynamic", "pods/resize"]),
            s(&["pods", "deployments"]),
            s(&["*"]),
        );
        assert!(pod_only([(core.as_slice(), pods.as_slice())]));
        assert!(pod_only([
            (core.as_slice(), dynamic.as_slice()),
            (core.as_slice(), pods.as_slice())
        ]));
        assert!(!pod_only([(core.as_slice(), deployments.as_slice())]));
        assert!(!pod_only([(core.as_slice(), all.as_slice())]));
        assert!(!pod_only([(apps.as_slice(), pods.as_slice())]));
        assert!(!pod_only([
            (core.as_slice(), pods.as_slice()),
            (apps.as_slice(), pods.as_slice())
        ]));
        assert!(!pod_only(std::iter::empty::<(&[String], &[String])>()));
    }

    #[test]
    fn the_warning_is_the_api_servers_text() {
        let issues = [Issue {
            offset: 11,
            line: 1,
            column: 12,
            message: "undefined field 'contaners'".into(),
        }];
        assert_eq!(
            warning_text(POD_GVK, "object.spec.contaners.size() == 1", &issues),
            "/v1, Kind=Pod: ERROR: <input>:1:12: undefined field 'contaners'\n | object.spec.contaners.size() == 1\n | ...........^\n"
        );
        assert_eq!(position("a\n  b.c", 5), (2, 4));
    }

    #[test]
    fn the_schema_table_is_sorted_for_binary_search() {
        for table in [OBJECTS, DECLARED] {
            assert!(table.windows(2).all(|w| w[0].0 < w[1].0));
            for (name, fields) in table {
                assert!(fields.windows(2).all(|w| w[0].0 < w[1].0), "{name}");
                for (_, t) in *fields {
                    let base = t.trim_start_matches(['[', '{']);
                    assert!(
                        ["s", "i", "b", "d", "y", "*"].contains(&base)
                            || table.iter().any(|(n, _)| *n == base),
                        "{name}: {t}"
                    );
                }
            }
        }
    }
}
