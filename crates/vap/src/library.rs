//! The Kubernetes CEL libraries the API server adds to every policy environment
//! (`k8s.io/apiserver/pkg/cel/library`): lists (`isSorted`, `sum`, `min`, `max`, `indexOf`,
//! `lastIndexOf`), regex (`find`, `findAll`, and the standard `matches`) and quantity. Written here because no Rust crate
//! provides them; the `cel` crate's extensions cover cel-go's strings and lists libraries.
//!
//! Functions whose names the `cel` environment already declares (`indexOf`, `lastIndexOf` on
//! strings) are added as typed overloads of the environment; the others as context functions that
//! check their argument types themselves and fail with upstream's "no such overload" otherwise.

#![expect(
    clippy::needless_pass_by_value,
    reason = "the cel crate's function adapters hand arguments over by value"
)]

use std::cmp::Ordering;
use std::sync::Arc;

use cel::common::types::{DYN_TYPE, LIST_TYPE};
use cel::common::value::{CowVal, Val};
use cel::extractors::{Arguments, This};
use cel::objects::Opaque;
use cel::{Context, Env, ExecutionError, Value};

use podmut_model::quantity::Quantity as Q;

type Res = Result<Value, ExecutionError>;

fn no_overload(function: &str, args: &[&Value]) -> ExecutionError {
    ExecutionError::no_such_member_overload(function, args.iter().map(|a| a.type_of().to_string()).collect())
}

fn fail(function: &str, message: impl std::fmt::Display) -> ExecutionError {
    ExecutionError::function_error(function, message)
}

/// Add the overloads that share a name with the environment's own.
pub(crate) fn register_overloads(env: &mut Env) {
    // Registration fails only when a signature is declared twice, which every test would show.
    let _ = env.add_member_overload(
        "indexOf",
        "list_indexOf_dyn",
        LIST_TYPE,
        vec![DYN_TYPE],
        list_index_of,
    );
    let _ = env.add_member_overload(
        "lastIndexOf",
        "list_lastIndexOf_dyn",
        LIST_TYPE,
        vec![DYN_TYPE],
        list_last_index_of,
    );
}

/// Add the context functions.
pub(crate) fn register_functions(ctx: &mut Context<'_, '_>) {
    // As above: a clash with the environment is a bug every test shows, never an input's fault.
    let _ = ctx.add_function("isSorted", is_sorted);
    let _ = ctx.add_function("sum", sum);
    let _ = ctx.add_function("min", min);
    let _ = ctx.add_function("max", max);
    let _ = ctx.add_function("matches", re_matches);
    let _ = ctx.add_function("find", find);
    let _ = ctx.add_function("findAll", find_all);
    let _ = ctx.add_function("quantity", quantity);
    let _ = ctx.add_function("isQuantity", is_quantity);
    let _ = ctx.add_function("sign", q_sign);
    let _ = ctx.add_function("isInteger", q_is_integer);
    let _ = ctx.add_function("asInteger", q_as_integer);
    let _ = ctx.add_function("asApproximateFloat", q_as_float);
    let _ = ctx.add_function("add", q_add);
    let _ = ctx.add_function("sub", q_sub);
    let _ = ctx.add_function("isLessThan", q_less);
    let _ = ctx.add_function("isGreaterThan", q_greater);
    let _ = ctx.add_function("compareTo", q_compare);
    let _ = ctx.add_function("mul", q_mul);
    let _ = ctx.add_function("div", q_div);
    let _ = ctx.add_function("divInt", q_div_int);
}

// ---------------------------------------------------------------------------------------------
// Lists (`library/lists.go`)

fn list_arg<'a>(function: &str, v: &'a Value) -> Result<&'a [Value], ExecutionError> {
    match v {
        Value::List(l) => Ok(l.as_slice()),
        other => Err(no_overload(function, &[other])),
    }
}

/// Order two list elements of one comparable type (upstream requires `list(T)` with `T` comparable).
fn compare(function: &str, a: &Value, b: &Value) -> Result<Ordering, ExecutionError> {
    let same_kind = std::mem::discriminant(a) == std::mem::discriminant(b);
    let comparable = matches!(
        a,
        Value::Int(_)
            | Value::UInt(_)
            | Value::Float(_)
            | Value::String(_)
            | Value::Bool(_)
            | Value::Bytes(_)
    ) || matches!(a, Value::Opaque(o) if o.downcast_ref::<Quantity>().is_some());
    if !same_kind || !comparable {
        return Err(no_overload(function, &[a, b]));
    }
    if let (Value::Opaque(x), Value::Opaque(y)) = (a, b)
        && let (Some(x), Some(y)) = (x.downcast_ref::<Quantity>(), y.downcast_ref::<Quantity>())
    {
        return Ok(x.0.cmp(&y.0));
    }
    a.partial_cmp(b).ok_or_else(|| no_overload(function, &[a, b]))
}

fn is_sorted(This(this): This<Value>) -> Res {
    let l = list_arg("isSorted", &this)?;
    for w in l.windows(2) {
        if compare("isSorted", &w[0], &w[1])? == Ordering::Greater {
            return Ok(Value::Bool(false));
        }
    }
    Ok(Value::Bool(true))
}

fn sum(This(this): This<Value>) -> Res {
    let l = list_arg("sum", &this)?;
    let Some(first) = l.first() else {
        // Upstream returns the zero of the element type; an empty list's type is unknown at
        // runtime here, so int's zero, the common case.
        return Ok(Value::Int(0));
    };
    let mut acc = match first {
        Value::Int(_) => Value::Int(0),
        Value::UInt(_) => Value::UInt(0),
        Value::Float(_) => Value::Float(0.0),
        other => return Err(no_overload("sum", &[other])),
    };
    for v in l {
        acc = match (&acc, v) {
            (Value::Int(a), Value::Int(b)) => {
                Value::Int(a.checked_add(*b).ok_or_else(|| fail("sum", "integer overflow"))?)
            }
            (Value::UInt(a), Value::UInt(b)) => Value::UInt(
                a.checked_add(*b)
                    .ok_or_else(|| fail("sum", "unsigned integer overflow"))?,
            ),
            (Value::Float(a), Value::Float(b)) => Value::Float(a + b),
            (_, other) => return Err(no_overload("sum", &[&acc, other])),
        };
    }
    Ok(acc)
}

fn extreme(function: &str, this: &Value, want: Ordering) -> Res {
    let l = list_arg(function, this)?;
    let Some(mut best) = l.first() else {
        return Err(fail(function, format!("{function} called on an empty list")));
    };
    for v in &l[1..] {
        if compare(function, v, best)? == want {
            best = v;
        }
    }
    Ok(best.clone())
}

fn min(This(this): This<Value>) -> Res {
    extreme("min", &this, Ordering::Less)
}

fn max(This(this): This<Value>) -> Res {
    extreme("max", &this, Ordering::Greater)
}

/// Upstream `indexOf`/`lastIndexOf` on lists: the position of an equal element, or -1.
fn index_in(args: &[CowVal<'_, '_>], last: bool) -> Res {
    let [list, item] = args else {
        return Err(ExecutionError::invalid_argument_count(2, args.len()));
    };
    let list = Value::try_from(list.as_ref())?;
    let item = Value::try_from(item.as_ref())?;
    let l = list_arg(if last { "lastIndexOf" } else { "indexOf" }, &list)?;
    let pos = if last {
        l.iter().rposition(|v| *v == item)
    } else {
        l.iter().position(|v| *v == item)
    };
    Ok(Value::Int(
        pos.map_or(-1, |p| i64::try_from(p).unwrap_or(i64::MAX)),
    ))
}

/// A value as an environment overload returns it.
pub(crate) fn owned<'b, 'v>(v: Value) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let boxed: Box<dyn Val> = v.try_into()?;
    Ok(CowVal::Owned(boxed))
}

fn list_index_of<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    owned(index_in(&args, false)?)
}

fn list_last_index_of<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    owned(index_in(&args, true)?)
}

// ---------------------------------------------------------------------------------------------
// Regex (`library/regex.go`, and CEL's standard `matches`): RE2 syntax, as regex-lite implements
// it — linear time, ASCII `\d`, `\w`, `\s` like RE2; Unicode classes (`\pL`) are not supported
// and are reported as an invalid pattern.

fn regex_of(function: &str, pattern: &str) -> Result<regex_lite::Regex, ExecutionError> {
    regex_lite::Regex::new(pattern)
        .map_err(|e| fail(function, format!("invalid regular expression {pattern:?}: {e}")))
}

fn re_matches(This(this): This<Value>, pattern: Value) -> Res {
    let (Value::String(s), Value::String(p)) = (&this, &pattern) else {
        return Err(no_overload("matches", &[&this, &pattern]));
    };
    Ok(Value::Bool(regex_of("matches", p)?.is_match(s)))
}

fn find(This(this): This<Value>, pattern: Value) -> Res {
    let (Value::String(s), Value::String(p)) = (&this, &pattern) else {
        return Err(no_overload("find", &[&this, &pattern]));
    };
    let re = regex_of("find", p)?;
    Ok(Value::String(Arc::new(
        re.find(s).map_or_else(String::new, |m| m.as_str().to_owned()),
    )))
}

fn find_all(This(this): This<Value>, Arguments(args): Arguments) -> Res {
    // `Arguments` holds every argument, the receiver of a member call excluded.
    let (pattern, limit) = match args.as_slice() {
        [p] => (p, None),
        [p, Value::Int(n)] => (p, Some(*n)),
        other => return Err(no_overload("findAll", &other.iter().collect::<Vec<_>>())),
    };
    let (Value::String(s), Value::String(p)) = (&this, pattern) else {
        return Err(no_overload("findAll", &[&this, pattern]));
    };
    let re = regex_of("findAll", p)?;
    let limit = match limit {
        Some(n) if n >= 0 => usize::try_from(n).unwrap_or(usize::MAX),
        _ => usize::MAX,
    };
    let found: Vec<Value> = re
        .find_iter(s)
        .take(limit)
        .map(|m| Value::String(Arc::new(m.as_str().to_owned())))
        .collect();
    Ok(Value::List(Arc::new(found)))
}

// ---------------------------------------------------------------------------------------------
// Quantity (`library/quantity.go`)

/// A `kubernetes.Quantity` CEL value.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Quantity(pub(crate) Q);

impl Opaque for Quantity {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.Quantity"
    }
}

fn q_value(q: Q) -> Value {
    Value::Opaque(Arc::new(Quantity(q)))
}

fn as_quantity<'a>(function: &str, v: &'a Value) -> Result<&'a Q, ExecutionError> {
    match v {
        Value::Opaque(o) => o
            .downcast_ref::<Quantity>()
            .map(|q| &q.0)
            .ok_or_else(|| no_overload(function, &[v])),
        other => Err(no_overload(function, &[other])),
    }
}

fn quantity(s: Value) -> Res {
    let Value::String(text) = &s else {
        return Err(no_overload("quantity", &[&s]));
    };
    Q::parse(text).map(q_value).map_err(|e| fail("quantity", e))
}

fn is_quantity(s: Value) -> Res {
    let Value::String(text) = &s else {
        return Err(no_overload("isQuantity", &[&s]));
    };
    Ok(Value::Bool(Q::parse(text).is_ok()))
}

const NANO: i128 = 1_000_000_000;

fn q_sign(This(this): This<Value>) -> Res {
    Ok(Value::Int(i64::from(as_quantity("sign", &this)?.sign())))
}

/// Whether a quantity is a whole number that fits an int64. The parser caps values at int64's
/// largest (upstream keeps the exact decimal): a value at the cap is taken to have overflowed.
fn fits_int(q: &Q) -> Option<i64> {
    if q.nanos() % NANO != 0 {
        return None;
    }
    i64::try_from(q.nanos() / NANO)
        .ok()
        .filter(|v| v.unsigned_abs() < i64::MAX.unsigned_abs())
}

fn q_is_integer(This(this): This<Value>) -> Res {
    Ok(Value::Bool(fits_int(as_quantity("isInteger", &this)?).is_some()))
}

fn q_as_integer(This(this): This<Value>) -> Res {
    fits_int(as_quantity("asInteger", &this)?)
        .map(Value::Int)
        .ok_or_else(|| fail("asInteger", "cannot convert value to integer"))
}

#[expect(
    clippy::cast_precision_loss,
    reason = "asApproximateFloat is approximate by definition, as upstream's AsApproximateFloat64"
)]
fn q_as_float(This(this): This<Value>) -> Res {
    let q = as_quantity("asApproximateFloat", &this)?;
    Ok(Value::Float(q.nanos() as f64 / NANO as f64))
}

/// The quantity or integer operand of `add`/`sub`.
fn operand(function: &str, v: &Value) -> Result<Q, ExecutionError> {
    match v {
        Value::Int(i) => Q::parse(&i.to_string()).map_err(|e| fail(function, e)),
        other => as_quantity(function, other).cloned(),
    }
}

fn q_add(This(this): This<Value>, other: Value) -> Res {
    let a = as_quantity("add", &this)?;
    Ok(q_value(a.add(&operand("add", &other)?)))
}

fn q_sub(This(this): This<Value>, other: Value) -> Res {
    let a = as_quantity("sub", &this)?;
    Ok(q_value(a.add(&operand("sub", &other)?.negated())))
}

fn int_arg(function: &str, this: &Value, v: &Value) -> Result<i128, ExecutionError> {
    match v {
        Value::Int(i) => Ok(i128::from(*i)),
        other => Err(no_overload(function, &[this, other])),
    }
}

fn q_mul(This(this): This<Value>, by: Value) -> Res {
    let q = as_quantity("mul", &this)?;
    let n = int_arg("mul", &this, &by)?;
    let nanos = q
        .nanos()
        .checked_mul(n)
        .ok_or_else(|| fail("mul", "quantity overflow"))?;
    Ok(q_value(Q::from_nanos(nanos, q)))
}

/// `div`: the quotient, exact to a nano-unit (upstream divides decimals exactly).
fn q_div(This(this): This<Value>, by: Value) -> Res {
    let q = as_quantity("div", &this)?;
    let n = int_arg("div", &this, &by)?;
    if n == 0 {
        return Err(fail("div", "division by zero"));
    }
    Ok(q_value(Q::from_nanos(q.nanos() / n, q)))
}

/// `divInt`: the integer quotient of the value.
fn q_div_int(This(this): This<Value>, by: Value) -> Res {
    let q = as_quantity("divInt", &this)?;
    let n = int_arg("divInt", &this, &by)?;
    if n == 0 {
        return Err(fail("divInt", "division by zero"));
    }
    Ok(q_value(Q::from_nanos(q.nanos() / NANO / n * NANO, q)))
}

/// Order two quantities — or two semvers: the semver library shares these three names.
fn q_cmp(function: &str, this: &Value, other: &Value) -> Result<Ordering, ExecutionError> {
    if let Some(order) = super::semverlib::compare(function, this, other) {
        return order;
    }
    Ok(as_quantity(function, this)?.cmp(as_quantity(function, other)?))
}

fn q_less(This(this): This<Value>, other: Value) -> Res {
    Ok(Value::Bool(q_cmp("isLessThan", &this, &other)? == Ordering::Less))
}

fn q_greater(This(this): This<Value>, other: Value) -> Res {
    Ok(Value::Bool(
        q_cmp("isGreaterThan", &this, &other)? == Ordering::Greater,
    ))
}

fn q_compare(This(this): This<Value>, other: Value) -> Res {
    Ok(Value::Int(match q_cmp("compareTo", &this, &other)? {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }))
}

#[cfg(test)]
mod tests {
    use super::super::cel::eval;

    fn is_true(expr: &str) {
        assert_eq!(eval(expr), Ok(cel::Value::Bool(true)), "{expr}");
    }

    fn fails(expr: &str, want: &str) {
        let e = eval(expr).expect_err(expr);
        assert!(e.contains(want), "{expr}: {e}");
    }

    /// Upstream `library/quantity_test.go` TestQuantity.
    #[test]
    fn quantity() {
        fails(
            r#"quantity("10Mo")"#,
            "quantities must match the regular expression",
        );
        fails(r#"quantity("10Mm")"#, "unable to parse quantity's suffix");
        for (e, want) in [
            (r#"isQuantity("20")"#, true),
            (r#"isQuantity("20M")"#, true),
            (r#"isQuantity("20Mi")"#, true),
            (r#"isQuantity("20Mo")"#, false),
            (r#"isQuantity("10Mm")"#, false),
            (r#"quantity("200M") == quantity("200M")"#, true),
            (
                r#"quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")"#,
                true,
            ),
            (
                r#"quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")"#,
                true,
            ),
            (r#"quantity("200M") == quantity("0.3G")"#, false),
            (r#"quantity("50M").isLessThan(quantity("50Mi"))"#, true),
            (r#"quantity("50M").isLessThan(quantity("100M"))"#, true),
            (r#"quantity("100M").isLessThan(quantity("50M"))"#, false),
            (r#"quantity("50Mi").isGreaterThan(quantity("50M"))"#, true),
            (r#"quantity("150Mi").isGreaterThan(quantity("100Mi"))"#, true),
            (r#"quantity("50M").isGreaterThan(quantity("100M"))"#, false),
            (r#"quantity("200M").compareTo(quantity("0.2G")) == 0"#, true),
            (r#"quantity("50M").compareTo(quantity("50Mi")) == -1"#, true),
            (r#"quantity("50Mi").compareTo(quantity("50M")) == 1"#, true),
            (
                r#"quantity("50k").add(quantity("20")) == quantity("50.02k")"#,
                true,
            ),
            (r#"quantity("50k").add(20).isLessThan(quantity("50020"))"#, false),
            (
                r#"quantity("50k").sub(quantity("20")) == quantity("49.98k")"#,
                true,
            ),
            (r#"quantity("50k").sub(20) == quantity("49980")"#, true),
            (r#"quantity("50k").mul(2) == quantity("100000")"#, true),
            (r#"quantity("10k").div(2) == quantity("5000")"#, true),
            (r#"quantity("10000").divInt(3) == quantity("3333")"#, true),
            (
                r#"quantity("10000").div(3).asApproximateFloat() > 3333.3333 && quantity("10000").div(3).asApproximateFloat() < 3333.3334"#,
                true,
            ),
            (
                r#"quantity("50k").add(20).sub(quantity("100k")).asInteger() == -49980"#,
                true,
            ),
            (
                r#"quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() == 20"#,
                true,
            ),
            (r#"quantity("50k").asInteger() == 50000"#, true),
            (
                r#"quantity("9999999999999999999999999999999999999G").isInteger()"#,
                false,
            ),
            (r#"quantity("50").isInteger()"#, true),
            (r#"quantity("50.703k").asApproximateFloat() == 50703.0"#, true),
        ] {
            assert_eq!(eval(e), Ok(cel::Value::Bool(want)), "{e}");
        }
        fails(
            r#"quantity("9999999999999999999999999999999999999G").asInteger()"#,
            "cannot convert value to integer",
        );
        fails(
            "isQuantity([1, 2, 3])",
            "found no matching overload for 'isQuantity'",
        );
    }

    /// Upstream `library/lists.go` (its doc examples and `library_compatibility_test.go`).
    #[test]
    fn lists() {
        for e in [
            "[1, 2, 3].isSorted()",
            "['a', 'b', 'b', 'c'].isSorted()",
            "![2.0, 1.0].isSorted()",
            "[].isSorted()",
            "[1, 2, 3].sum() == 6",
            "[1.5, 2.5].sum() == 4.0",
            "[1u, 2u].sum() == 3u",
            "[].sum() == 0",
            "[1, 2, 3].min() == 1",
            "['d', 'a', 'b', 'c'].min() == 'a'",
            "[1, 2, 3].max() == 3",
            "['d', 'a', 'b', 'c'].max() == 'd'",
            "[1, 2, 2, 3].indexOf(2) == 1",
            "['a', 'b', 'b', 'c'].indexOf('a') == 0",
            "[1, 2].indexOf(3) == -1",
            "[1, 2, 2, 3].lastIndexOf(2) == 2",
            "['a', 'b', 'b', 'c'].lastIndexOf('b') == 2",
            "[1.0].lastIndexOf(1.1) == -1",
            // The strings extension keeps its own indexOf.
            "'hello mellow'.indexOf('ello') == 1",
            "'hello mellow'.lastIndexOf('ello') == 7",
        ] {
            is_true(e);
        }
        fails("[].min()", "empty list");
        fails("[1, 'a'].isSorted()", "no matching overload");
    }

    /// Upstream `library/regex.go` (its doc examples).
    #[test]
    fn regex() {
        for e in [
            "'abc 123'.find('[0-9]+') == '123'",
            "'abc 123'.find('xyz') == ''",
            "'123 abc 456'.findAll('[0-9]+') == ['123', '456']",
            "'123 abc 456'.findAll('[0-9]+', 1) == ['123']",
            "'123 abc 456'.findAll('xyz') == []",
            "'abc'.matches('^a.c$')",
            "matches('abc', 'b')",
            "!'abc'.matches('^b')",
            "'a1_'.matches('^\\\\w+$')",
        ] {
            is_true(e);
        }
        fails("'abc'.find('[')", "invalid regular expression");
    }

    /// The cel crate's strings extension and optional types, as the API server's environment has
    /// them (cel-go `ext.Strings`, `cel.OptionalTypes`).
    #[test]
    fn strings_and_optionals() {
        for e in [
            "'TacoCat'.lowerAscii() == 'tacocat'",
            "'a,b,c'.split(',') == ['a', 'b', 'c']",
            "['a', 'b'].join('-') == 'a-b'",
            "'  x '.trim() == 'x'",
            "'hello'.substring(1, 3) == 'el'",
            "'hello'.replace('l', 'L') == 'heLLo'",
            "{'a': 1}.?b.orValue(2) == 2",
            "optional.of(1).hasValue()",
        ] {
            is_true(e);
        }
    }
}
