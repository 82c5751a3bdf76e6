//! CEL for admission policies: the environment the API server compiles policy expressions in
//! (the `cel` crate's standard library, its strings and lists extensions, optional types,
//! and the Kubernetes libraries of [`super::library`]), compiling with errors that name the
//! column, and evaluating within the API server's cost limits ([`super::cost`]).
//!
//! Upstream: `k8s.io/apiserver/pkg/cel/environment/base.go` (the base environment) and
//! `k8s.io/apiserver/pkg/admission/plugin/cel/filter.go` (evaluation and its error wording).

use std::sync::Arc;

use cel::common::ast::{IdedExpr, SourceInfo};
use cel::parser::PrattParser;
use cel::{Context, Env, ExecutionError, Value};

use super::cost::{self, Sizes};
use super::{library, macros};

/// The CEL variable the offline evaluator cannot provide.
pub(crate) const AUTHORIZER: &str = "authorizer";

/// A compiled expression and the text it came from.
#[derive(Debug)]
pub(crate) struct Expr {
    /// The expression as written (trimmed for messages).
    pub(crate) source: String,
    /// The expression as parsed: node offsets count in it.
    pub(crate) text: String,
    /// The parsed expression, its macros expanded.
    pub(crate) ast: IdedExpr,
    /// The nodes [`macros::expand`] added, each with the call whose place it takes.
    added: Vec<(u64, u64)>,
}

impl Expr {
    /// Where each node of this expression was written.
    pub(crate) fn places(&self) -> Places<'_> {
        Places {
            text: &self.text,
            info: source_info(&self.text),
            added: &self.added,
        }
    }
}

/// Where the nodes of one expression were written ([`Expr::places`]).
pub(crate) struct Places<'a> {
    text: &'a str,
    info: Option<Arc<SourceInfo>>,
    added: &'a [(u64, u64)],
}

impl Places<'_> {
    /// The byte offset where cel-go places node `id` (0 when unknown).
    ///
    /// The hand-written parser places a global call (`size(x)`, and what a macro such as
    /// `has(x.y)` expands it to) at the function's name and a message (`Foo{a: 1}`) at its type's;
    /// cel-go, and so the API server's messages, at the opening parenthesis or brace.
    pub(crate) fn offset(&self, id: u64) -> usize {
        let id = self
            .added
            .iter()
            .find(|(added, _)| *added == id)
            .map_or(id, |(_, call)| *call);
        let Some((start, _)) = self.info.as_ref().and_then(|i| i.offset_for(id)) else {
            return 0;
        };
        let start = start as usize;
        let Some(rest) = self.text.get(start..) else {
            return start;
        };
        let name = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let after = rest[name..].trim_start();
        if name > 0 && after.starts_with(['(', '{']) {
            start + rest.len() - after.len()
        } else {
            start
        }
    }
}

/// The parser the API server's base environment compiles with: CEL's standard macros and the
/// optional syntax (`a.?b`, `a[?i]`, `[?x]`, `{?k: v}`), which the base environment enables.
///
/// The `cel` crate's hand-written parser, not its ANTLR one (`Env::compile`): the generated ANTLR
/// parser and its runtime were ~650 KB of the component's code. It parses the same language into
/// the same trees (node ids are numbered in another order) and words some syntax errors
/// differently (`expecting expression` where ANTLR lists every token an expression may start with).
fn parser() -> PrattParser {
    PrattParser::new().enable_optional_syntax(true)
}

/// Every node's offset in `text`, an expression that parses.
///
/// The hand-written parser records them while parsing but returns them only with its errors, so
/// this parses `text` once more with a closing parenthesis on a line of its own after it: the
/// expression parses exactly as before (a `)` continues no expression, as the end of the input
/// does not), then the parser stops at the `)` and reports it, with the offsets of every node it
/// made. Only wanted when a problem is reported, so a clean expression is parsed once.
fn source_info(text: &str) -> Option<Arc<SourceInfo>> {
    let guarded = format!("{text}\n)");
    let parsed = std::panic::catch_unwind(|| parser().parse(&guarded)).ok()?;
    parsed.err()?.errors.into_iter().find_map(|e| e.source_info)
}

/// The 1-based line and column (in characters) of byte `offset` of `source`.
pub(crate) fn position(source: &str, offset: usize) -> (usize, usize) {
    let mut line = 1;
    let mut start = 0;
    for (i, ch) in source.char_indices() {
        if i >= offset {
            break;
        }
        if ch == '\n' {
            line += 1;
            start = i + 1;
        }
    }
    let column = source
        .get(start..offset.min(source.len()))
        .map_or(0, |s| s.chars().count())
        + 1;
    (line, column)
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
        // The extensions the API server's base environment adds (cel-go's ext.Strings and
        // ext.Lists are the models of the crate's; it has no ext.Math); registration fails only on
        // a name clash, which would be a bug caught by every test.
        for ext in [
            cel::extensions::strings as fn(&mut Env) -> Result<(), cel::DeclarationError>,
            cel::extensions::lists,
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
        let parsed = std::panic::catch_unwind(|| parser().parse(source)).map_err(|_| CompileError {
            line: 1,
            column: 1,
            message: "the CEL parser failed on this expression".to_owned(),
        })?;
        let ast = parsed.map_err(|errors| {
            let first = errors.errors.first();
            CompileError {
                line: first.map_or(1, |e| usize::try_from(e.pos.0).unwrap_or(1).max(1)),
                column: first.map_or(1, |e| usize::try_from(e.pos.1).unwrap_or(1).max(1)),
                message: first.map_or_else(|| errors.to_string(), |e| e.msg.clone()),
            }
        })?;
        let (ast, added) = macros::expand(ast).map_err(|e| {
            let at = Places {
                text: source,
                info: source_info(source),
                added: &[],
            };
            let (line, column) = position(source, at.offset(e.id));
            CompileError {
                line,
                column,
                message: e.message,
            }
        })?;
        Ok(Expr {
            source: source.trim().to_owned(),
            text: source.to_owned(),
            ast,
            added,
        })
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
    /// The expression's estimated cost exceeds the per-expression limit (the API server cancels
    /// the evaluation once its actual cost does; podmut refuses on its upper bound).
    PerCallLimit,
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
            EvalError::PerCallLimit => f.write_str("operation cancelled: actual cost limit exceeded"),
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
    if expr.ast.references().has_variable(AUTHORIZER) {
        return Err(EvalError::NoAuthorizer);
    }
    let estimate = cost::estimate(&expr.ast, sizes);
    if estimate > cost::PER_CALL_LIMIT {
        return Err(EvalError::PerCallLimit);
    }
    if estimate > *budget {
        *budget = 0;
        return Err(EvalError::OutOfBudget);
    }
    *budget -= estimate;
    Value::resolve(&expr.ast, ctx).map_err(|e| EvalError::Runtime(describe(&e)))
}

/// An execution error in words close to cel-go's.
fn describe(e: &ExecutionError) -> String {
    match e {
        ExecutionError::NoSuchKey(k) => format!("no such key: {k}"),
        ExecutionError::UndeclaredReference(r) => format!("undeclared reference to '{r}'"),
        other => other.to_string(),
    }
}

/// Evaluate `expr` with no variables (the libraries' unit tests).
#[cfg(test)]
pub(crate) fn eval(expr: &str) -> Result<Value, String> {
    let env = Cel::new();
    let program = env.compile(expr).map_err(|e| e.to_string())?;
    let ctx = env.context(&[]);
    Value::resolve(&program.ast, &ctx).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use cel::common::ast::{EntryExpr, Expr as Node, IdedExpr};

    use super::*;

    /// Every node of `e` in a fixed order, entries' own ids included (as `(id, is a literal)`).
    fn nodes(e: &IdedExpr, out: &mut Vec<(u64, bool)>) {
        out.push((e.id, matches!(e.expr, Node::Literal(_))));
        let entries = |en: &[cel::common::ast::IdedEntryExpr], out: &mut Vec<(u64, bool)>| {
            for en in en {
                out.push((en.id, false));
                match &en.expr {
                    EntryExpr::MapEntry(m) => {
                        nodes(&m.key, out);
                        nodes(&m.value, out);
                    }
                    EntryExpr::StructField(f) => nodes(&f.value, out),
                }
            }
        };
        match &e.expr {
            Node::Select(s) => nodes(&s.operand, out),
            Node::List(l) => l.elements.iter().for_each(|x| nodes(x, out)),
            Node::Map(m) => entries(&m.entries, out),
            Node::Struct(s) => entries(&s.entries, out),
            Node::Call(c) => {
                c.target.iter().for_each(|t| nodes(t, out));
                c.args.iter().for_each(|x| nodes(x, out));
            }
            Node::Comprehension(c) => {
                for x in [&c.iter_range, &c.accu_init, &c.loop_cond, &c.loop_step, &c.result] {
                    nodes(x, out);
                }
            }
            Node::Unspecified | Node::Ident(_) | Node::Literal(_) => {}
        }
    }

    /// The tree without its ids (the two parsers number nodes in different orders).
    fn shape(e: &IdedExpr) -> String {
        let re = regex_lite::Regex::new(r"id: \d+").expect("a valid pattern");
        re.replace_all(&format!("{e:?}"), "id").into_owned()
    }

    /// The hand-written parser with [`macros::expand`] gives the tree the crate's ANTLR parser
    /// gives in the same environment (`Env::compile`, which expands the extensions' macros
    /// itself), each node placed where that parser places it (a negative number's literal
    /// aside: ANTLR places it at its digits, cel-go at its sign), and the same errors for the
    /// macros' misuse.
    #[test]
    fn the_tree_and_places_are_the_ones_the_ant_lr_parser_gives() {
        let cel = Cel::new();
        for source in [
            "[3, 1, 2].sortBy(x, -x) == [3, 2, 1]",
            "object.spec.containers.sortBy(c, c.name).map(c, c.name)",
            "optional.of(1).optMap(x, x + 1).value() == 2",
            "object.?spec.optFlatMap(s, s.?x)",
            "o.optMap(v, v.sortBy(e, e + 1))",
            "has(object.spec.securityContext.runAsNonRoot) && size(object.spec.containers) > 0",
            "object.spec.containers.all(c, c.name != '' && quantity('1').isLessThan(quantity('2')))",
            "[1, 2].exists_one(x, x > 1) || [1].filter(x, x > 0).map(x, x * 2, x).size() == 1",
            "cel.bind(x, {'a': [1]}, x.a.all(i, v, i >= 0 && v > 0))",
            "object.metadata.?labels[?'app'].orValue('') == 'web' && [?optional.none(), 1].size() == 1",
            "// a comment\n  object.metadata.name\n  .startsWith('a') ||\n  string(1) == '1'",
            "Foo{a: 1}.a == {'k': 2}.k",
        ] {
            let ours = cel.compile(source).unwrap_or_else(|e| panic!("{source}: {e}"));
            let theirs = cel.env.compile(source).expect("the ANTLR parser parses it");
            assert_eq!(shape(&ours.ast), shape(theirs.expression()), "{source}");
            let (mut a, mut b) = (Vec::new(), Vec::new());
            nodes(&ours.ast, &mut a);
            nodes(theirs.expression(), &mut b);
            let places = ours.places();
            for ((ours_id, literal), (theirs_id, _)) in a.into_iter().zip(b) {
                let want = theirs
                    .source_info()
                    .offset_for(theirs_id)
                    .map(|(s, _)| s as usize);
                if !literal {
                    assert_eq!(Some(places.offset(ours_id)), want, "{source}: node {ours_id}");
                }
            }
        }
        for source in ["1.sortBy(x, x)", "[1].sortBy(1, 1)", "o.optMap(x.y, 1)"] {
            let ours = cel.compile(source).expect_err(source);
            let theirs = cel.env.compile(source).expect_err(source);
            let first = &theirs.errors[0];
            let want = (first.pos.0 as usize, first.pos.1 as usize, first.msg.clone());
            assert_eq!((ours.line, ours.column, ours.message), want, "{source}");
        }
    }
}
