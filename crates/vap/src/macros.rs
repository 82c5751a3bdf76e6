//! The extension macros of the policy environment, expanded after parsing.
//!
//! Policy expressions are parsed with the `cel` crate's hand-written (Pratt) parser rather than
//! its ANTLR one (`Env::compile`), whose generated parser and runtime were ~650 KB of the
//! component's code. That parser expands CEL's standard macros (`has`, `all`, `exists`,
//! `exists_one`, `map`, `filter`, `cel.bind`, ...) but cannot take an `Env`'s own: the crate
//! offers no way to hand them over. The extensions the API server's base environment has (and
//! [`super::cel::Cel::new`] registers) add three, rewritten here into exactly the expressions the
//! crate's own expanders build — the same hidden functions, comprehension shapes and errors — so
//! evaluation, cost estimation ([`super::cost`]) and type checking ([`super::check`]) see what
//! they saw with `Env::compile`:
//!
//! - `list.sortBy(v, key)` (ext.Lists): `@sortByAssociatedKeys` of the list and its keys;
//! - `opt.optMap(v, e)` / `opt.optFlatMap(v, e)` (the optional library).
//!
//! Upstream models: `cel-go/ext/lists.go`, `cel-go/cel/library.go` (optMap), as the `cel` crate
//! implements them (`extensions/lists.rs`, `common/types/optional.rs`). cel-go's ext.Math
//! (`math.greatest`, ...) is not in the API server's environment (`k8s.io/apiserver/pkg/cel/
//! environment/base.go`): `math` is an undeclared name there, as here.

use cel::common::ast::{
    CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedExpr, ListExpr, LiteralValue, MapExpr, StructExpr,
    operators,
};

/// A macro call that cannot be expanded: the node to blame and why (the crate's wording).
#[derive(Debug, PartialEq)]
pub(crate) struct MacroError {
    pub(crate) id: u64,
    pub(crate) message: String,
}

/// `ast` with the extension macros expanded, and each node the expansions added with the call it
/// replaced (whose place in the source it takes, as the crate's `MacroExprHelper::next_expr`).
pub(crate) fn expand(mut ast: IdedExpr) -> Result<(IdedExpr, Vec<(u64, u64)>), MacroError> {
    let mut x = Expander {
        next: max_id(&mut ast) + 1,
        call: 0,
        added: Vec::new(),
    };
    x.walk(&mut ast)?;
    Ok((ast, x.added))
}

/// The sortBy expansion's binding of the list and the name of the crate's sorting function.
const SORT_BY_INPUT: &str = "@__sortBy_input__";
const SORT_BY_KEYS: &str = "@sortByAssociatedKeys";
/// The name the optMap expansion binds a target that is not an identifier to.
const OPT_TARGET: &str = "@target";

struct Expander {
    next: u64,
    /// The call being expanded.
    call: u64,
    added: Vec<(u64, u64)>,
}

impl Expander {
    /// Expand bottom-up, as the parser does (a call's arguments are parsed before the call).
    fn walk(&mut self, e: &mut IdedExpr) -> Result<(), MacroError> {
        for child in children(e) {
            self.walk(child)?;
        }
        let Expr::Call(call) = &mut e.expr else {
            return Ok(());
        };
        if call.target.is_none() {
            return Ok(());
        }
        let kind = match (call.func_name.as_str(), call.args.len()) {
            ("sortBy", 2) => Kind::SortBy,
            ("optMap", 2) => Kind::OptMap { wrap: true },
            ("optFlatMap", 2) => Kind::OptMap { wrap: false },
            _ => return Ok(()),
        };
        self.call = e.id;
        let target = call.target.take().map(|t| *t).unwrap_or_default();
        let args = std::mem::take(&mut call.args);
        *e = match kind {
            Kind::SortBy => self.sort_by(target, args)?,
            Kind::OptMap { wrap } => self.opt_map(target, args, wrap)?,
        };
        Ok(())
    }

    /// A new node placed where the call being expanded is.
    fn node(&mut self, expr: Expr) -> IdedExpr {
        let id = self.next;
        self.next += 1;
        self.added.push((id, self.call));
        IdedExpr { id, expr }
    }

    fn ident(&mut self, name: &str) -> IdedExpr {
        self.node(Expr::Ident(name.to_owned()))
    }

    fn call(&mut self, func: &str, target: Option<IdedExpr>, args: Vec<IdedExpr>) -> IdedExpr {
        self.node(Expr::Call(CallExpr {
            func_name: func.to_owned(),
            target: target.map(Box::new),
            args,
        }))
    }

    fn list(&mut self, elements: Vec<IdedExpr>) -> IdedExpr {
        self.node(Expr::List(ListExpr::new(elements)))
    }

    fn boolean(&mut self, b: bool) -> IdedExpr {
        self.node(Expr::Literal(LiteralValue::Boolean(b.into())))
    }

    /// `list.sortBy(v, key)`: the list bound to [`SORT_BY_INPUT`], sorted by the `map` of its
    /// keys.
    fn sort_by(&mut self, list: IdedExpr, args: Vec<IdedExpr>) -> Result<IdedExpr, MacroError> {
        if matches!(list.expr, Expr::Literal(_) | Expr::Map(_) | Expr::Struct(_)) {
            return Err(MacroError {
                id: list.id,
                message: "sortBy can only be applied to a list, identifier, comprehension, call or select expression".to_owned(),
            });
        }
        let [var, key] = two(args);
        let input = self.ident(SORT_BY_INPUT);
        let keys = self.map(input, var, key)?;
        let input = self.ident(SORT_BY_INPUT);
        let sorted = Expr::Call(CallExpr {
            func_name: SORT_BY_KEYS.to_owned(),
            target: Some(Box::new(input)),
            args: vec![keys],
        });
        let iter_range = self.list(Vec::new());
        let loop_cond = self.boolean(false);
        let loop_step = self.ident(SORT_BY_INPUT);
        let result = self.node(sorted);
        Ok(self.comprehension(ComprehensionExpr {
            iter_range,
            iter_var: "#unused".to_owned(),
            iter_var2: None,
            accu_var: SORT_BY_INPUT.to_owned(),
            accu_init: list,
            loop_cond,
            loop_step,
            result,
        }))
    }

    /// `range.map(var, value)` as the standard macro expands it.
    fn map(&mut self, range: IdedExpr, var: IdedExpr, value: IdedExpr) -> Result<IdedExpr, MacroError> {
        let var = simple_name(var)?;
        let accu_init = self.list(Vec::new());
        let loop_cond = self.boolean(true);
        let accu = self.ident("@result");
        let element = self.list(vec![value]);
        let loop_step = self.call(operators::ADD, None, vec![accu, element]);
        let result = self.ident("@result");
        Ok(self.comprehension(ComprehensionExpr {
            iter_range: range,
            iter_var: var,
            iter_var2: None,
            accu_var: "@result".to_owned(),
            accu_init,
            loop_cond,
            loop_step,
            result,
        }))
    }

    /// `t.optMap(v, e)`: `t.hasValue() ? optional.of(<e with v = t.value()>) : optional.none()`
    /// (`optFlatMap` without the `optional.of`), a target that is no identifier bound to
    /// [`OPT_TARGET`] first so it is evaluated once.
    fn opt_map(&mut self, target: IdedExpr, args: Vec<IdedExpr>, wrap: bool) -> Result<IdedExpr, MacroError> {
        let [var, mapping] = two(args);
        let var = simple_name(var)?;
        let (name, bound) = match &target.expr {
            Expr::Ident(name) => (name.clone(), None),
            _ => (OPT_TARGET.to_owned(), Some(target)),
        };
        let receiver = self.ident(&name);
        let has_value = self.call("hasValue", Some(receiver), Vec::new());
        let receiver = self.ident(&name);
        let value = self.call("value", Some(receiver), Vec::new());
        let mapped = self.bind(&var, value, mapping);
        let some = if wrap {
            let namespace = self.ident("optional");
            self.call("of", Some(namespace), vec![mapped])
        } else {
            mapped
        };
        let namespace = self.ident("optional");
        let none = self.call("none", Some(namespace), Vec::new());
        let result = self.call(operators::CONDITIONAL, None, vec![has_value, some, none]);
        Ok(match bound {
            Some(target) => self.bind(OPT_TARGET, target, result),
            None => result,
        })
    }

    /// `var` bound to `init` in `result`: a comprehension over no elements whose accumulator is
    /// `var`.
    fn bind(&mut self, var: &str, init: IdedExpr, result: IdedExpr) -> IdedExpr {
        let iter_range = self.list(Vec::new());
        let loop_cond = self.boolean(false);
        let loop_step = self.ident(var);
        self.comprehension(ComprehensionExpr {
            iter_range,
            iter_var: "#unused".to_owned(),
            iter_var2: None,
            accu_var: var.to_owned(),
            accu_init: init,
            loop_cond,
            loop_step,
            result,
        })
    }

    fn comprehension(&mut self, c: ComprehensionExpr) -> IdedExpr {
        self.node(Expr::Comprehension(Box::new(c)))
    }
}

enum Kind {
    SortBy,
    OptMap { wrap: bool },
}

/// The two arguments of a call matched on its argument count.
fn two(args: Vec<IdedExpr>) -> [IdedExpr; 2] {
    let mut args = args.into_iter();
    [args.next().unwrap_or_default(), args.next().unwrap_or_default()]
}

/// A macro's variable: an identifier.
fn simple_name(e: IdedExpr) -> Result<String, MacroError> {
    match e.expr {
        Expr::Ident(name) => Ok(name),
        _ => Err(MacroError {
            id: e.id,
            message: "argument must be a simple name".to_owned(),
        }),
    }
}

/// The direct subexpressions of `e`.
fn children(e: &mut IdedExpr) -> Vec<&mut IdedExpr> {
    match &mut e.expr {
        Expr::Unspecified | Expr::Ident(_) | Expr::Literal(_) => Vec::new(),
        Expr::Select(s) => vec![&mut *s.operand],
        Expr::List(l) => l.elements.iter_mut().collect(),
        Expr::Map(m) => m
            .entries
            .iter_mut()
            .flat_map(|en| entry_children(&mut en.expr))
            .collect(),
        Expr::Struct(s) => s
            .entries
            .iter_mut()
            .flat_map(|en| entry_children(&mut en.expr))
            .collect(),
        Expr::Call(c) => c
            .target
            .as_deref_mut()
            .into_iter()
            .chain(c.args.iter_mut())
            .collect(),
        Expr::Comprehension(c) => {
            let c = &mut **c;
            vec![
                &mut c.iter_range,
                &mut c.accu_init,
                &mut c.loop_cond,
                &mut c.loop_step,
                &mut c.result,
            ]
        }
    }
}

fn entry_children(e: &mut EntryExpr) -> Vec<&mut IdedExpr> {
    match e {
        EntryExpr::MapEntry(m) => vec![&mut m.key, &mut m.value],
        EntryExpr::StructField(f) => vec![&mut f.value],
    }
}

/// The largest id in `e` (map and struct entries have ids of their own).
fn max_id(e: &mut IdedExpr) -> u64 {
    let mut max = e.id;
    if let Expr::Map(MapExpr { entries }) | Expr::Struct(StructExpr { entries, .. }) = &e.expr {
        max = entries.iter().map(|en| en.id).fold(max, u64::max);
    }
    children(e).into_iter().map(max_id).fold(max, u64::max)
}
