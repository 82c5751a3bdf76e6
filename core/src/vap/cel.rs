//! CEL for admission policies: the environment the API server compiles policy expressions in
//! (the `cel` crate's standard library, its strings, lists and math extensions, optional types,
//! and the Kubernetes libraries of [`super::library`]), compiling with errors that name the
//! column, and evaluating within the API server's cost limits ([`super::cost`]).
//!
//! Upstream: `k8s.io/apiserver/pkg/cel/environment/base.go` (the base environment) and
//! `k8s.io/apiserver/pkg/admission/plugin/cel/filter.go` (evaluation and its error wording).

use std::collections::HashMap;
use std::sync::Arc;

use cel::objects::{Key, Map};
use cel::{Context, Env, ExecutionError, Program, Value};
use serde_json::Value as Json;

use super::cost::{self, Sizes};
use super::library;

/// The CEL variable the offline evaluator cannot provide.
pub(crate) const AUTHORIZER: &str = "authorizer";

/// A compiled expression and the text it came from.
#[derive(Debug)]
pub(crate) struct Expr {
    /// The expression as written (trimmed for messages).
    pub(crate) source: String,
    pub(crate) program: Program,
}

/// Why an expression did not compile: the message and, when known, the 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CompileError {
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) message: String,
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "compilation error at line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

/// The environment every policy expression is compiled and run in.
pub(crate) struct Cel {
    env: Arc<Env>,
}

impl std::fmt::Debug for Cel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Cel")
    }
}

impl Cel {
    /// The API server's base environment, as far as the `cel` crate and [`library`] provide it.
    pub(crate) fn new() -> Self {
        let mut env = Env::stdlib();
        // The extensions the API server's base environment adds (cel-go's ext.Strings, ext.Lists
        // and ext.Math are the models of the crate's); registration fails only on a name clash,
        // which would be a bug caught by every test.
        for ext in [
            cel::extensions::strings as fn(&mut Env) -> Result<(), cel::DeclarationError>,
            cel::extensions::lists,
            cel::extensions::math,
        ] {
            let _ = ext(&mut env);
        }
        library::register_overloads(&mut env);
        super::net::register_overloads(&mut env);
        Self { env: Arc::new(env) }
    }

    /// Compile one expression.
    pub(crate) fn compile(&self, source: &str) -> Result<Expr, CompileError> {
        if source.trim().is_empty() {
            return Err(CompileError {
                line: 1,
                column: 1,
                message: "Required value: the expression is empty".to_owned(),
            });
        }
        // The crate's parser panics on no input we know of, but a panic here would take the whole
        // component down: catch it and report the expression instead.
        let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.env.compile(source)));
        match parsed {
            Ok(Ok(program)) => Ok(Expr {
                source: source.trim().to_owned(),
                program,
            }),
            Ok(Err(errors)) => {
                let first = errors.errors.first();
                Err(CompileError {
                    line: first.map_or(1, |e| usize::try_from(e.pos.0).unwrap_or(1).max(1)),
                    column: first.map_or(1, |e| usize::try_from(e.pos.1).unwrap_or(1).max(1)),
                    message: first.map_or_else(|| errors.to_string(), |e| e.msg.clone()),
                })
            }
            Err(_) => Err(CompileError {
                line: 1,
                column: 1,
                message: "the CEL parser failed on this expression".to_owned(),
            }),
        }
    }

    /// A context with the Kubernetes functions and the given variables.
    pub(crate) fn context<'v>(&self, vars: &[(&str, &Value)]) -> Context<'_, 'v> {
        let mut ctx = Context::with_env(Arc::clone(&self.env));
        library::register_functions(&mut ctx);
        super::net::register(&mut ctx);
        super::format::register(&mut ctx);
        super::urls::register(&mut ctx);
        super::semverlib::register(&mut ctx);
        for (name, value) in vars {
            ctx.add_variable_from_value(*name, (*value).clone());
        }
        ctx
    }
}

/// Why an evaluation failed.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum EvalError {
    /// The expression's estimated cost exceeds the per-expression limit.
    PerCallLimit { estimate: u64 },
    /// The estimated cost exceeds what is left of the policy's runtime budget.
    OutOfBudget,
    /// The expression uses `authorizer`, which needs the cluster's RBAC.
    NoAuthorizer,
    /// The CEL runtime failed (no such key, no such overload, division by zero, ...).
    Runtime(String),
}

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvalError::PerCallLimit { estimate } => write!(
                f,
                "operation cancelled: actual cost limit exceeded (podmut's upper bound for this input is {estimate}, the API server's per-expression limit is {})",
                cost::PER_CALL_LIMIT
            ),
            EvalError::OutOfBudget => f.write_str(
                "validation failed due to running out of cost budget, no further validation rules will be run",
            ),
            EvalError::NoAuthorizer => f.write_str(
                "authorizer is not available offline: podmut has no access to the cluster's RBAC, so authorizer checks cannot be evaluated",
            ),
            EvalError::Runtime(m) => f.write_str(m),
        }
    }
}

/// Run `expr` against `ctx`, charging its cost estimate for `sizes` to `budget` first.
pub(crate) fn run(
    expr: &Expr,
    ctx: &Context<'_, '_>,
    sizes: &Sizes,
    budget: &mut u64,
) -> Result<Value, EvalError> {
    if expr.program.references().has_variable(AUTHORIZER) {
        return Err(EvalError::NoAuthorizer);
    }
    let estimate = cost::estimate(expr.program.expression(), sizes);
    if estimate > cost::PER_CALL_LIMIT {
        return Err(EvalError::PerCallLimit { estimate });
    }
    if estimate > *budget {
        *budget = 0;
        return Err(EvalError::OutOfBudget);
    }
    *budget -= estimate;
    expr.program
        .execute(ctx)
        .map_err(|e| EvalError::Runtime(describe(&e)))
}

/// An execution error in words close to cel-go's.
fn describe(e: &ExecutionError) -> String {
    match e {
        ExecutionError::NoSuchKey(k) => format!("no such key: {k}"),
        ExecutionError::UndeclaredReference(r) => format!("undeclared reference to '{r}'"),
        other => other.to_string(),
    }
}

/// A JSON document as a CEL value (objects are maps with string keys, as the API server's
/// unstructured objects are).
pub(crate) fn from_json(v: &Json) -> Value {
    match v {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => n
            .as_i64()
            .map(Value::Int)
            .or_else(|| n.as_u64().map(Value::UInt))
            .unwrap_or_else(|| Value::Float(n.as_f64().unwrap_or_default())),
        Json::String(s) => Value::String(Arc::new(s.clone())),
        Json::Array(a) => Value::List(Arc::new(a.iter().map(from_json).collect())),
        Json::Object(o) => {
            let map: HashMap<Key, Value> = o
                .iter()
                .map(|(k, v)| (Key::String(Arc::new(k.clone())), from_json(v)))
                .collect();
            Value::Map(Map { map: Arc::new(map) })
        }
    }
}

/// A CEL map with string keys.
pub(crate) fn map_of(entries: Vec<(String, Value)>) -> Value {
    let map: HashMap<Key, Value> = entries
        .into_iter()
        .map(|(k, v)| (Key::String(Arc::new(k)), v))
        .collect();
    Value::Map(Map { map: Arc::new(map) })
}

/// The CEL type name of a value, as messages show it.
pub(crate) fn type_name(v: &Value) -> String {
    v.type_of().to_string()
}

/// Evaluate `expr` with no variables (the libraries' unit tests).
#[cfg(test)]
pub(crate) fn eval(expr: &str) -> Result<Value, String> {
    let env = Cel::new();
    let program = env.compile(expr).map_err(|e| e.to_string())?;
    let ctx = env.context(&[]);
    program.program.execute(&ctx).map_err(|e| e.to_string())
}
