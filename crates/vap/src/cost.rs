//! The API server's CEL cost limits, applied before an expression runs.
//!
//! The API server measures each expression's *actual* cost while cel-go runs it and cancels it past
//! `PerCallLimit`; all the expressions of one policy evaluation share `RuntimeCELCostBudget`
//! (`k8s.io/apiserver/pkg/apis/cel/config.go`). The `cel` crate's interpreter has no cost hook, so
//! podmut cannot count while it runs. Instead it *estimates* the cost of the expression from its
//! syntax tree and the actual sizes of this request's inputs — like cel-go's static estimator
//! (`checker.Cost`), which bounds sizes by schema `maxLength`/`maxItems`, but with the sizes of the
//! data at hand — and refuses to run an expression whose estimate is over the limit. A hostile
//! expression (nested comprehensions over large lists, `lists.range` of a million) is therefore
//! stopped before it runs, in every host; the price is that an expression whose actual cost would
//! stay under the limit can be refused when its estimate does not.
//!
//! Costs follow cel-go's units: 1 per call, identifier, selection and comprehension iteration;
//! string operations 0.1 per character; list and map traversal 1 per element.

use std::collections::BTreeMap;
use std::sync::Arc;

use cel::Value;
use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

/// `celconfig.PerCallLimit`: the most one expression may cost.
pub(crate) const PER_CALL_LIMIT: u64 = 1_000_000;

/// `celconfig.RuntimeCELCostBudget`: what all expressions of one policy evaluation may cost.
pub(crate) const RUNTIME_BUDGET: u64 = 10_000_000;

/// The largest `lists.range(n)` the lists extension builds (cel-go's default).
const MAX_RANGE: u64 = 1_000_000;

/// Bounds on a value an expression can reach: its length, the values inside it, and — for data
/// from the request — the shapes of its fields and elements, so that `object.spec.containers`
/// is as long as the Pod's list is, not as long as its longest one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Entries of a list or map, characters of a string or bytes.
    len: u64,
    /// Values inside it, itself included.
    total: u64,
    /// The longest map key inside it (what a map comprehension's variable can be).
    key_chars: u64,
    /// A known map's fields.
    fields: Option<Arc<BTreeMap<String, Shape>>>,
    /// Any element of a list, any value of a map.
    elem: Option<Arc<Shape>>,
}

impl Shape {
    fn scalar() -> Shape {
        Shape {
            total: 1,
            ..Shape::default()
        }
    }

    fn text(len: u64) -> Shape {
        Shape {
            len,
            total: 1,
            ..Shape::default()
        }
    }

    /// The shape of any element (or value) of this one.
    fn element(&self) -> Shape {
        self.elem.as_deref().cloned().unwrap_or_default()
    }

    /// The shape of `.field`.
    fn field(&self, name: &str) -> Shape {
        self.fields
            .as_ref()
            .and_then(|f| f.get(name))
            .cloned()
            .unwrap_or_else(|| self.element())
    }

    /// A shape covering both.
    fn union(&self, o: &Shape) -> Shape {
        let fields = match (&self.fields, &o.fields) {
            (Some(a), Some(b)) => {
                let mut m = (**a).clone();
                for (k, v) in b.iter() {
                    let merged = m.get(k).map_or_else(|| v.clone(), |x| x.union(v));
                    m.insert(k.clone(), merged);
                }
                Some(Arc::new(m))
            }
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        let elem = match (&self.elem, &o.elem) {
            (Some(a), Some(b)) => Some(Arc::new(a.union(b))),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        Shape {
            len: self.len.max(o.len),
            total: self.total.max(o.total),
            key_chars: self.key_chars.max(o.key_chars),
            fields,
            elem,
        }
    }

    /// A list of `len` elements shaped like `elem`.
    fn list(len: u64, elem: Shape) -> Shape {
        Shape {
            len,
            total: len.saturating_mul(elem.total).saturating_add(1),
            key_chars: elem.key_chars,
            fields: None,
            elem: Some(Arc::new(elem)),
        }
    }

    /// The shape of a concrete value.
    pub(crate) fn of(v: &Value) -> Shape {
        match v {
            Value::List(l) => {
                let elem = l.iter().fold(None::<Shape>, |acc, x| {
                    let s = Shape::of(x);
                    Some(acc.map_or_else(|| s.clone(), |a| a.union(&s)))
                });
                let total = l.iter().fold(1u64, |t, x| t.saturating_add(Shape::of_total(x)));
                Shape {
                    len: l.len() as u64,
                    total,
                    key_chars: elem.as_ref().map_or(0, |e| e.key_chars),
                    fields: None,
                    elem: elem.map(Arc::new),
                }
            }
            Value::Map(m) => {
                let mut fields = BTreeMap::new();
                let mut elem: Option<Shape> = None;
                let mut key_chars = 0u64;
                let mut total = 1u64;
                for (k, v) in m.map.iter() {
                    let s = Shape::of(v);
                    total = total.saturating_add(s.total);
                    elem = Some(elem.map_or_else(|| s.clone(), |e| e.union(&s)));
                    key_chars = key_chars.max(s.key_chars);
                    if let cel::objects::Key::String(name) = k {
                        key_chars = key_chars.max(name.chars().count() as u64);
                        fields.insert((**name).clone(), s);
                    }
                }
                Shape {
                    len: m.map.len() as u64,
                    total,
                    key_chars,
                    fields: Some(Arc::new(fields)),
                    elem: elem.map(Arc::new),
                }
            }
            Value::String(s) => Shape::text(s.chars().count() as u64),
            Value::Bytes(b) => Shape::text(b.len() as u64),
            _ => Shape::scalar(),
        }
    }

    fn of_total(v: &Value) -> u64 {
        match v {
            Value::List(l) => l.iter().fold(1u64, |t, x| t.saturating_add(Shape::of_total(x))),
            Value::Map(m) => m
                .map
                .values()
                .fold(1u64, |t, x| t.saturating_add(Shape::of_total(x))),
            _ => 1,
        }
    }
}

/// What an expression costs and what it yields.
#[derive(Clone, Debug, Default)]
struct Est {
    cost: u64,
    shape: Shape,
}

/// The shapes of the variables the expressions see (`object`, `oldObject`, `params`, `request`,
/// `namespaceObject`, `variables`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Sizes {
    roots: BTreeMap<String, Shape>,
}

impl Sizes {
    /// Bind the variable `name` to the shape of `v`.
    pub(crate) fn bind(&mut self, name: &str, v: &Value) {
        self.roots.insert(name.to_owned(), Shape::of(v));
    }
}

/// The estimated cost of `expr` on inputs shaped like `sizes`.
pub(crate) fn estimate(expr: &IdedExpr, sizes: &Sizes) -> u64 {
    let mut scope = sizes.roots.clone();
    walk(expr, &mut scope).cost
}

/// A tenth of `n`, rounded up: cel-go charges string work at 0.1 per character.
fn tenth(n: u64) -> u64 {
    n.div_ceil(10)
}

fn est(cost: u64, shape: Shape) -> Est {
    Est { cost, shape }
}

fn walk(e: &IdedExpr, scope: &mut BTreeMap<String, Shape>) -> Est {
    match &e.expr {
        Expr::Unspecified => est(0, Shape::scalar()),
        Expr::Literal(l) => match l {
            LiteralValue::String(s) => est(0, Shape::text(s.inner().chars().count() as u64)),
            LiteralValue::Bytes(b) => est(0, Shape::text(b.inner().len() as u64)),
            _ => est(0, Shape::scalar()),
        },
        Expr::Ident(name) => est(1, scope.get(name).cloned().unwrap_or_default()),
        Expr::Select(s) => {
            let operand = walk(&s.operand, scope);
            let shape = if s.test {
                Shape::scalar()
            } else {
                operand.shape.field(&s.field)
            };
            est(operand.cost.saturating_add(1), shape)
        }
        Expr::List(l) => {
            let mut cost = 10u64;
            let mut elem: Option<Shape> = None;
            for el in &l.elements {
                let x = walk(el, scope);
                cost = cost.saturating_add(x.cost);
                elem = Some(elem.map_or_else(|| x.shape.clone(), |a| a.union(&x.shape)));
            }
            est(
                cost,
                Shape::list(l.elements.len() as u64, elem.unwrap_or_default()),
            )
        }
        Expr::Map(m) => entries(&m.entries, scope),
        Expr::Struct(s) => entries(&s.entries, scope),
        Expr::Call(c) => {
            // `lists.range(n)` parses as a call of `range` on the identifier `lists`: a namespaced
            // function, unless `lists` is a variable.
            let namespace = match c.target.as_deref().map(|t| &t.expr) {
                Some(Expr::Ident(ns)) if !scope.contains_key(ns) => Some(ns.as_str()),
                _ => None,
            };
            if let Some(ns) = namespace {
                let args: Vec<Est> = c.args.iter().map(|a| walk(a, scope)).collect();
                return call(&format!("{ns}.{}", c.func_name), &c.args, &args);
            }
            let mut args: Vec<Est> = Vec::with_capacity(c.args.len() + 1);
            if let Some(t) = &c.target {
                args.push(walk(t, scope));
            }
            for a in &c.args {
                args.push(walk(a, scope));
            }
            call(&c.func_name, &c.args, &args)
        }
        Expr::Comprehension(c) => comprehension(c, scope),
    }
}

fn comprehension(c: &cel::common::ast::ComprehensionExpr, scope: &mut BTreeMap<String, Shape>) -> Est {
    let range = walk(&c.iter_range, scope);
    let init = walk(&c.accu_init, scope);
    let n = range.shape.len;
    // Over a list the variable is an element; over a map, a key (and with two variables, the
    // value). For a string range (an error at run time) any shape will do.
    let is_map = range.shape.fields.is_some();
    let first = if is_map {
        Shape::text(range.shape.key_chars)
    } else {
        range.shape.element()
    };
    let second = range.shape.element();
    // The accumulator of map/filter grows by one element per iteration.
    let mut accu = init.shape.clone();
    accu.len = accu.len.saturating_add(n);
    if let Some(e) = range.shape.elem.as_deref() {
        accu = accu.union(&Shape::list(accu.len, e.clone()));
    }
    let names = [Some(&c.iter_var), c.iter_var2.as_ref(), Some(&c.accu_var)];
    let saved: Vec<(String, Option<Shape>)> = names
        .into_iter()
        .flatten()
        .map(|v| (v.clone(), scope.get(v).cloned()))
        .collect();
    scope.insert(c.iter_var.clone(), first);
    if let Some(v2) = &c.iter_var2 {
        scope.insert(v2.clone(), second);
    }
    scope.insert(c.accu_var.clone(), accu.clone());
    let cond = walk(&c.loop_cond, scope);
    let step = walk(&c.loop_step, scope);
    scope.insert(c.accu_var.clone(), accu.union(&step.shape));
    let result = walk(&c.result, scope);
    for (name, old) in saved {
        match old {
            Some(o) => scope.insert(name, o),
            None => scope.remove(&name),
        };
    }
    let per_iteration = cond.cost.saturating_add(step.cost).saturating_add(1);
    est(
        range
            .cost
            .saturating_add(init.cost)
            .saturating_add(n.saturating_mul(per_iteration))
            .saturating_add(result.cost),
        result.shape,
    )
}

fn entries(entries: &[cel::common::ast::IdedEntryExpr], scope: &mut BTreeMap<String, Shape>) -> Est {
    let mut cost = 30u64;
    let mut fields = BTreeMap::new();
    let mut elem: Option<Shape> = None;
    let mut total = 1u64;
    for en in entries {
        let (key, value) = match &en.expr {
            EntryExpr::MapEntry(m) => {
                let k = walk(&m.key, scope);
                cost = cost.saturating_add(k.cost);
                let name = match &m.key.expr {
                    Expr::Literal(LiteralValue::String(s)) => Some(s.inner().to_string()),
                    _ => None,
                };
                (name, walk(&m.value, scope))
            }
            EntryExpr::StructField(f) => (Some(f.field.clone()), walk(&f.value, scope)),
        };
        cost = cost.saturating_add(value.cost);
        total = total.saturating_add(value.shape.total);
        elem = Some(elem.map_or_else(|| value.shape.clone(), |e| e.union(&value.shape)));
        if let Some(k) = key {
            fields.insert(k, value.shape);
        }
    }
    est(
        cost,
        Shape {
            len: entries.len() as u64,
            total,
            key_chars: fields.keys().map(|k| k.chars().count() as u64).max().unwrap_or(0),
            fields: Some(Arc::new(fields)),
            elem: elem.map(Arc::new),
        },
    )
}

/// The cost and result shape of a call, from its arguments' (the receiver first).
fn call(name: &str, raw_args: &[IdedExpr], args: &[Est]) -> Est {
    let arg_cost = args.iter().fold(0u64, |c, a| c.saturating_add(a.cost));
    let shape = |i: usize| args.get(i).map(|a| a.shape.clone()).unwrap_or_default();
    let (first, second) = (shape(0), shape(1));
    let with = |own: u64, shape: Shape| est(arg_cost.saturating_add(own), shape);
    match name {
        // Short-circuiting operators: what their arguments cost.
        "_&&_" | "_||_" | "!_" | "-_" | "@not_strictly_false" => with(0, Shape::scalar()),
        "_?_:_" => {
            let (a, b) = (shape(1), shape(2));
            let branch = args
                .get(1)
                .map_or(0, |x| x.cost)
                .max(args.get(2).map_or(0, |x| x.cost));
            est(
                args.first().map_or(0, |c| c.cost).saturating_add(branch),
                a.union(&b),
            )
        }
        "_+_" => {
            let elem = first.element().union(&second.element());
            let mut out = Shape::list(first.len.saturating_add(second.len), elem);
            out.total = first.total.saturating_add(second.total);
            with(1 + tenth(out.len), out)
        }
        "_==_" | "_!=_" => with(
            first.total.min(second.total).max(1) + tenth(first.len.min(second.len)),
            Shape::scalar(),
        ),
        "_<_" | "_<=_" | "_>_" | "_>=_" => with(1 + tenth(first.len.min(second.len)), Shape::scalar()),
        // `x in list` walks the list; `k in map` is a lookup.
        "@in" => {
            let walk_cost = if second.fields.is_some() { 1 } else { second.len };
            with(1 + walk_cost + tenth(first.len), Shape::scalar())
        }
        "_[_]" | "_[?_]" => {
            let out = match raw_args.get(1).map(|a| &a.expr) {
                Some(Expr::Literal(LiteralValue::String(s))) => first.field(s.inner()),
                _ => first.element(),
            };
            with(1, out)
        }
        "size" | "has" | "type" | "int" | "uint" | "double" | "bool" | "dyn" | "duration" | "timestamp" => {
            with(1, if name == "dyn" { first } else { Shape::scalar() })
        }
        "string" | "bytes" => with(
            1 + tenth(first.total.saturating_mul(20)),
            Shape::text(first.total.saturating_mul(20)),
        ),
        // Regular expressions: linear in the string, times the pattern (RE2 is linear).
        "matches" | "find" | "findAll" => {
            let work = first.len.saturating_mul(second.len.max(1));
            let out = if name == "findAll" {
                Shape::list(first.len, Shape::text(first.len))
            } else {
                Shape::text(first.len)
            };
            with(1 + tenth(work), out)
        }
        "contains" | "startsWith" | "endsWith" | "indexOf" | "lastIndexOf" | "lowerAscii" | "upperAscii"
        | "trim" | "substring" | "charAt" | "reverse" | "quote" => {
            with(1 + tenth(first.len.saturating_add(second.len)), first)
        }
        "split" => with(
            1 + tenth(first.len),
            Shape::list(first.len.saturating_add(1), Shape::text(first.len)),
        ),
        "replace" => {
            let repl = shape(2);
            let grown = first
                .len
                .saturating_add(1)
                .saturating_mul(repl.len.saturating_add(1));
            with(1 + tenth(grown), Shape::text(grown))
        }
        "join" | "format" => {
            let chars = first
                .total
                .saturating_mul(first.element().len.saturating_add(second.len).saturating_add(20));
            with(1 + tenth(chars), Shape::text(chars))
        }
        "sort" | "distinct" | "flatten" | "slice" | "sum" | "min" | "max" | "isSorted" | "sortBy" => {
            let n = first.len.max(1);
            let work = if name == "distinct" {
                n.saturating_mul(n)
            } else {
                n.saturating_mul(u64::from(64 - n.leading_zeros()))
            };
            let out = if name == "flatten" {
                Shape::list(first.total, first.element().element().union(&first.element()))
            } else if matches!(name, "sum" | "min" | "max") {
                first.element()
            } else {
                first.clone()
            };
            with(1 + work.saturating_add(first.total), out)
        }
        "lists.range" => {
            let n = match raw_args.first().map(|a| &a.expr) {
                Some(Expr::Literal(LiteralValue::Int(i))) => u64::try_from(*i.inner()).unwrap_or(0),
                _ => MAX_RANGE,
            };
            with(1 + n, Shape::list(n, Shape::scalar()))
        }
        // URL and semver (upstream library/cost.go): parsing traverses the string; the value is as
        // long as its text, its getters are nominal. A part may be escaped to three times its
        // length; the query has at most one key per character, each no longer than the text.
        "url" | "isURL" | "semver" | "isSemver" => with(1 + tenth(first.len), Shape::text(first.len)),
        "getScheme" | "getHost" | "getHostname" | "getPort" | "getEscapedPath" => {
            with(1, Shape::text(first.len.saturating_mul(3)))
        }
        "getQuery" => {
            let values = Shape::list(first.len, Shape::text(first.len));
            let query = Shape {
                len: first.len,
                total: first.len.saturating_mul(values.total).saturating_add(1),
                key_chars: first.len,
                fields: Some(Arc::new(BTreeMap::new())),
                elem: Some(Arc::new(values)),
            };
            with(1 + tenth(first.len), query)
        }
        "major" | "minor" | "patch" => with(1, Shape::scalar()),
        // Parse, write back and compare: twice the traversal (upstream library/cost.go).
        "ip.isCanonical" => with(1 + tenth(first.len.saturating_mul(2)), Shape::scalar()),
        // Everything else (quantity, ip, cidr, format, optionals, ...): linear in the
        // text it reads; its result is no larger than its inputs.
        _ => {
            let out = args.iter().fold(Shape::scalar(), |acc, a| acc.union(&a.shape));
            with(1 + tenth(out.len), out)
        }
    }
}
