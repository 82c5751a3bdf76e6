//! Running the policies on one request: upstream's `dispatcher.Dispatch` (which policies and
//! bindings match, the params, the validation actions, the denial message) and
//! `validator.Validate` (matchConditions, variables, validations, messageExpression,
//! auditAnnotations, failurePolicy).

use std::collections::BTreeMap;

use cel::{Context, Value};

use super::cel::{Cel, EvalError, Expr, run};
use super::cost::{RUNTIME_BUDGET, Sizes};
use super::input::{Input, Param};
use super::policy::{Action, Binding, Policies, Policy};
use super::values::{map_of, type_name};
use super::{VapDecision, VapEvaluation, VapReport, VapValidation};
use podmut_admission::coverage::{Concrete, selector_matches};

/// `celconfig.MaxEvaluatedMessageExpressionSizeBytes`.
const MAX_MESSAGE_BYTES: usize = 5 * 1024;
/// Upstream's `maxAuditAnnotationValueLength`.
const MAX_AUDIT_VALUE_BYTES: usize = 10 * 1024;
/// The audit annotation a failed validation under `Audit` publishes.
const VALIDATION_FAILURE_ANNOTATION: &str = "validation.policy.admission.k8s.io/validation_failure";

/// A decision before the binding's validation actions apply (upstream `PolicyDecision`).
#[derive(Debug)]
struct Denial {
    message: String,
    expression: Option<String>,
    reason: Option<String>,
    /// Index in `spec.validations`, for the Audit annotation.
    index: usize,
}

/// What one policy evaluation (one binding, one params object) produced.
#[derive(Debug, Default)]
struct Outcome {
    evaluated: bool,
    detail: String,
    validations: Vec<VapValidation>,
    /// Denials subject to the binding's validation actions.
    denials: Vec<Denial>,
    /// Errors that deny whatever the actions (audit annotation errors under `Fail`).
    hard_denials: Vec<String>,
    annotations: Vec<(String, String)>,
}

/// Collects the report.
#[derive(Debug, Default)]
struct Report {
    out: VapReport,
    /// Audit annotation values per `policy/key`, distinct, in order.
    annotations: BTreeMap<String, Vec<String>>,
}

impl Report {
    fn deny(
        &mut self,
        policy: &str,
        binding: &str,
        message: String,
        expression: Option<String>,
        reason: Option<String>,
    ) {
        if self.out.message.is_empty() {
            self.out.message = if binding.is_empty() {
                format!("ValidatingAdmissionPolicy '{policy}' denied request: {message}")
            } else {
                format!(
                    "ValidatingAdmissionPolicy '{policy}' with binding '{binding}' denied request: {message}"
                )
            };
        }
        self.out.decisions.push(VapDecision {
            policy: policy.to_owned(),
            binding: binding.to_owned(),
            action: Action::Deny.as_str().to_owned(),
            message,
            expression,
            reason,
        });
    }

    /// A configuration error (upstream `addConfigError`): denies under `failurePolicy: Fail`.
    fn config_error(&mut self, policy: &Policy, binding: Option<&Binding>, error: &str) {
        if policy.ignore_failures {
            return;
        }
        let (name, message) = match binding {
            Some(b) => (b.name.as_str(), format!("failed to configure binding: {error}")),
            None => ("", format!("failed to configure policy: {error}")),
        };
        self.deny(&policy.name, name, message, None, None);
    }

    fn enforce(&mut self, policy: &Policy, binding: &Binding, d: &Denial) {
        for action in &binding.actions {
            match action {
                Action::Deny => self.deny(
                    &policy.name,
                    &binding.name,
                    d.message.clone(),
                    d.expression.clone(),
                    d.reason.clone(),
                ),
                Action::Warn => {
                    self.out.warnings.push(format!(
                        "Validation failed for ValidatingAdmissionPolicy '{}' with binding '{}': {}",
                        policy.name, binding.name, d.message
                    ));
                    self.push(policy, binding, Action::Warn, d);
                }
                Action::Audit => {
                    // Upstream (1.35) sets the key once: a later failure cannot overwrite it.
                    self.out
                        .audit_annotations
                        .entry(VALIDATION_FAILURE_ANNOTATION.to_owned())
                        .or_insert_with(|| validation_failure(binding, d));
                    self.push(policy, binding, Action::Audit, d);
                }
            }
        }
    }

    fn push(&mut self, policy: &Policy, binding: &Binding, action: Action, d: &Denial) {
        self.out.decisions.push(VapDecision {
            policy: policy.name.clone(),
            binding: binding.name.clone(),
            action: action.as_str().to_owned(),
            message: d.message.clone(),
            expression: d.expression.clone(),
            reason: d.reason.clone(),
        });
    }
}

/// The `validation_failure` annotation of one failure: upstream's `[]ValidationFailureValue` as
/// Go's `encoding/json` writes it (the struct's field order, HTML characters escaped).
fn validation_failure(binding: &Binding, d: &Denial) -> String {
    let actions: Vec<String> = binding.actions.iter().map(|a| go_json(a.as_str())).collect();
    format!(
        "[{{\"message\":{},\"policy\":{},\"binding\":{},\"expressionIndex\":{},\"validationActions\":[{}]}}]",
        go_json(&d.message),
        go_json(&binding.policy_name),
        go_json(&binding.name),
        d.index,
        actions.join(",")
    )
}

/// A JSON string as Go's `json.Marshal` writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped.
fn go_json(s: &str) -> String {
    let plain = serde_json::Value::from(s).to_string();
    let mut out = String::with_capacity(plain.len());
    for c in plain.chars() {
        match c {
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

/// Evaluate every policy on the request.
pub(crate) fn dispatch(cel: &Cel, policies: &Policies, input: &Input, params: &[Param]) -> VapReport {
    let mut report = Report::default();
    let concrete = Concrete {
        resource: input.resource,
        op: input.op,
        subresource: &input.subresource,
        name: &input.name,
        namespace_labels: &input.namespace_labels,
        object_labels: [input.labels[0].as_ref(), input.labels[1].as_ref()],
    };
    for b in &policies.bindings {
        if !policies.policies.iter().any(|p| p.name == b.policy_name) {
            report.out.notes.push(format!(
                "ValidatingAdmissionPolicyBinding {:?}: its policy {:?} is not in the input",
                b.name, b.policy_name
            ));
        }
    }
    for policy in &policies.policies {
        let bindings: Vec<&Binding> = policies
            .bindings
            .iter()
            .filter(|b| b.policy_name == policy.name)
            .collect();
        if bindings.is_empty() {
            report.out.notes.push(format!(
                "ValidatingAdmissionPolicy {:?} has no binding: it has no effect",
                policy.name
            ));
            continue;
        }
        if let Err(why) = policy.criteria.select(&concrete) {
            report.out.evaluations.push(VapEvaluation {
                policy: policy.name.clone(),
                detail: format!("not matched: {why}"),
                ..VapEvaluation::default()
            });
            continue;
        }
        for binding in bindings {
            evaluate_binding(cel, policy, binding, input, params, &concrete, &mut report);
        }
    }
    for (key, values) in std::mem::take(&mut report.annotations) {
        report.out.audit_annotations.insert(key, values.join(", "));
    }
    report.out.allowed = !report
        .out
        .decisions
        .iter()
        .any(|d| d.action == Action::Deny.as_str());
    report.out
}

fn evaluate_binding(
    cel: &Cel,
    policy: &Policy,
    binding: &Binding,
    input: &Input,
    params: &[Param],
    concrete: &Concrete<'_>,
    report: &mut Report,
) {
    let record = |report: &mut Report, param: Option<String>, outcome: Outcome| {
        report.out.evaluations.push(VapEvaluation {
            policy: policy.name.clone(),
            binding: Some(binding.name.clone()),
            params: param,
            evaluated: outcome.evaluated,
            detail: outcome.detail,
            validations: outcome.validations,
        });
    };
    if let Some(c) = &binding.criteria
        && let Err(why) = c.select(concrete)
    {
        record(
            report,
            None,
            Outcome {
                detail: format!("not matched: {why}"),
                ..Outcome::default()
            },
        );
        return;
    }
    let selected = match collect_params(policy, binding, params, &input.namespace) {
        Ok(p) => p,
        Err(e) => {
            report.config_error(policy, Some(binding), &e);
            record(
                report,
                None,
                Outcome {
                    detail: e,
                    ..Outcome::default()
                },
            );
            return;
        }
    };
    if selected.is_empty() {
        record(
            report,
            None,
            Outcome {
                detail: "no params object selected; parameterNotFoundAction is Allow".to_owned(),
                ..Outcome::default()
            },
        );
    }
    for param in selected {
        let label = param.map(|p| {
            if p.namespace.is_empty() {
                p.name.clone()
            } else {
                format!("{}/{}", p.namespace, p.name)
            }
        });
        let outcome = validate(cel, policy, input, param.map(|p| &p.value));
        for d in &outcome.denials {
            report.enforce(policy, binding, d);
        }
        for message in &outcome.hard_denials {
            report.deny(&policy.name, &binding.name, message.clone(), None, None);
        }
        for (key, value) in &outcome.annotations {
            let values = report
                .annotations
                .entry(format!("{}/{key}", policy.name))
                .or_default();
            if !values.contains(value) {
                values.push(value.clone());
            }
        }
        record(report, label, outcome);
    }
}

/// The params objects a binding selects (upstream `generic.CollectParams`): `[None]` for a policy
/// without `paramKind` or a binding without `paramRef`.
fn collect_params<'p>(
    policy: &Policy,
    binding: &Binding,
    params: &'p [Param],
    namespace: &str,
) -> Result<Vec<Option<&'p Param>>, String> {
    let Some((api_version, kind)) = &policy.param_kind else {
        return Ok(vec![None]);
    };
    // A binding without paramRef evaluates the policy once, with null params.
    let Some(r) = &binding.param_ref else {
        return Ok(vec![None]);
    };
    let of_kind: Vec<&Param> = params
        .iter()
        .filter(|p| p.kind == *kind && p.api_version == *api_version)
        .collect();
    // Namespaced params are looked up in paramRef.namespace, else in the request's namespace;
    // cluster-scoped ones (no namespace) wherever they are asked for.
    let in_namespace = |p: &Param| match &r.namespace {
        Some(ns) if !ns.is_empty() => p.namespace == *ns,
        _ => p.namespace.is_empty() || p.namespace == namespace,
    };
    let found: Vec<Option<&Param>> = of_kind
        .into_iter()
        .filter(|p| in_namespace(p))
        .filter(|p| match (&r.name, &r.selector) {
            (Some(n), _) => p.name == *n,
            (None, Some(sel)) => selector_matches(sel, &p.labels),
            (None, None) => false,
        })
        .map(Some)
        .collect();
    if found.is_empty() && !r.allow_missing {
        return Err("no params found for policy binding with `Deny` parameterNotFoundAction".to_owned());
    }
    Ok(found)
}

/// The evaluation scope: the variables and the budget left.
struct Scope<'c> {
    ctx: Context<'c, 'static>,
    sizes: Sizes,
    budget: u64,
    /// `variables.<name>` that failed, and why.
    failed_variables: BTreeMap<String, String>,
}

impl Scope<'_> {
    fn run(&mut self, expr: &Expr) -> Result<Value, EvalError> {
        let result = run(expr, &self.ctx, &self.sizes, &mut self.budget);
        // A failed variable surfaces where it is used, with its own error.
        if let Err(EvalError::Runtime(m)) = &result
            && let Some(name) = m.strip_prefix("no such key: ")
            && let Some(why) = self.failed_variables.get(name)
        {
            return Err(EvalError::Runtime(format!(
                "composited variable \"{name}\" fails to evaluate: {why}"
            )));
        }
        result
    }
}

fn resulted_in_error(expr: &Expr, e: &EvalError) -> String {
    match e {
        EvalError::OutOfBudget => e.to_string(),
        _ => format!("expression '{}' resulted in error: {e}", expr.source),
    }
}

/// Upstream `validator.Validate` for one params object.
fn validate(cel: &Cel, policy: &Policy, input: &Input, param: Option<&Value>) -> Outcome {
    let params = param.cloned().unwrap_or(Value::Null);
    let base = [
        ("object", &input.object),
        ("oldObject", &input.old_object),
        ("request", &input.request),
        ("params", &params),
        ("namespaceObject", &input.namespace_object),
    ];
    let mut sizes = Sizes::default();
    for (name, v) in &base {
        sizes.bind(name, v);
    }
    let mut scope = Scope {
        ctx: cel.context(&base),
        sizes,
        budget: RUNTIME_BUDGET,
        failed_variables: BTreeMap::new(),
    };
    let mut out = Outcome::default();
    let fail_denies = !policy.ignore_failures;
    // matchConditions (upstream `matcher.Match`): every one is evaluated; any false skips the
    // policy, even after an error; otherwise the errors, aggregated, follow failurePolicy.
    let mut errors: Vec<(String, &Expr)> = Vec::new();
    for (name, expr) in &policy.match_conditions {
        match scope.run(expr) {
            Ok(Value::Bool(true)) => {}
            Ok(Value::Bool(false)) => {
                out.detail = format!("not matched: matchCondition {name:?} is false");
                return out;
            }
            Ok(other) => errors.push((
                format!(
                    "expression '{}' resulted in error: expression must evaluate to bool, got {}",
                    expr.source,
                    type_name(&other)
                ),
                expr,
            )),
            Err(e) => errors.push((resulted_in_error(expr, &e), expr)),
        }
    }
    if let [(e, expr)] = errors.as_slice() {
        return error_outcome(out, e.clone(), Some(expr), fail_denies);
    }
    if !errors.is_empty() {
        let e = aggregate(errors.iter().map(|(e, _)| e.as_str()));
        return error_outcome(out, e, None, fail_denies);
    }
    out.evaluated = true;
    let mut variables: Vec<(String, Value)> = Vec::new();
    for (name, expr) in &policy.variables {
        let so_far = map_of(variables.clone());
        scope.sizes.bind("variables", &so_far);
        scope.ctx.add_variable_from_value("variables", so_far);
        match scope.run(expr) {
            Ok(v) => variables.push((name.clone(), v)),
            Err(e) => {
                // Upstream `variableAccessor.Callback`: the CEL error itself, not wrapped.
                scope.failed_variables.insert(name.clone(), e.to_string());
            }
        }
    }
    let all = map_of(variables);
    scope.sizes.bind("variables", &all);
    scope.ctx.add_variable_from_value("variables", all);
    for (index, v) in policy.validations.iter().enumerate() {
        let verdict = |outcome: &str, message: String| VapValidation {
            index: u32::try_from(index).unwrap_or(u32::MAX),
            expression: v.expr.source.clone(),
            outcome: outcome.to_owned(),
            message,
        };
        let result = scope.run(&v.expr);
        let error = match result {
            Ok(Value::Bool(true)) => {
                out.validations.push(verdict("admit", String::new()));
                continue;
            }
            Ok(Value::Bool(false)) => None,
            Ok(other) => Some(format!(
                "expression '{}' resulted in error: expression must evaluate to bool, got {}",
                v.expr.source,
                type_name(&other)
            )),
            Err(e) => Some(resulted_in_error(&v.expr, &e)),
        };
        if let Some(e) = error {
            out.validations.push(verdict("error", e.clone()));
            if fail_denies {
                out.denials.push(Denial {
                    message: e,
                    expression: Some(v.expr.source.clone()),
                    reason: None,
                    index,
                });
            }
            continue;
        }
        let message = failure_message(&mut scope, v);
        out.validations.push(verdict("deny", message.clone()));
        out.denials.push(Denial {
            message,
            expression: Some(v.expr.source.clone()),
            reason: Some(v.reason.clone().unwrap_or_else(|| "Invalid".to_owned())),
            index,
        });
    }
    for (key, expr) in &policy.audit_annotations {
        match scope.run(expr) {
            Ok(Value::String(s)) => {
                let value = s.trim();
                if !value.is_empty() {
                    let cut = floor_char_boundary(value, MAX_AUDIT_VALUE_BYTES);
                    out.annotations.push((key.clone(), cut.to_owned()));
                }
            }
            Ok(Value::Null) => {}
            Ok(other) => {
                if fail_denies {
                    out.hard_denials.push(format!(
                        "valueExpression '{}' resulted in unsupported return type: {}. Return type must be either string or null.",
                        expr.source,
                        type_name(&other)
                    ));
                }
            }
            Err(e) => {
                if fail_denies {
                    out.hard_denials.push(resulted_in_error(expr, &e));
                }
            }
        }
    }
    out
}

/// Several errors as one (`utilerrors.NewAggregate(...).Error()`): distinct messages joined with
/// `, ` in `[...]`, a single one as it is.
fn aggregate<'a>(errors: impl IntoIterator<Item = &'a str>) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for e in errors {
        if !seen.contains(&e) {
            seen.push(e);
        }
    }
    match seen.as_slice() {
        [one] => (*one).to_owned(),
        many => format!("[{}]", many.join(", ")),
    }
}

fn error_outcome(mut out: Outcome, message: String, expr: Option<&Expr>, fail_denies: bool) -> Outcome {
    out.detail = message.clone();
    if fail_denies {
        out.denials.push(Denial {
            message,
            expression: expr.map(|e| e.source.clone()),
            reason: None,
            index: 0,
        });
    }
    out
}

/// The message of a failed validation: its messageExpression's string if usable, else its message,
/// else `failed expression: <expression>`.
fn failure_message(scope: &mut Scope<'_>, v: &super::policy::Validation) -> String {
    let from_expression = v.message_expression.as_ref().and_then(|m| match scope.run(m) {
        Ok(Value::String(s)) => {
            let s = s.trim();
            (!s.is_empty() && s.len() <= MAX_MESSAGE_BYTES && !s.contains('\n')).then(|| s.to_owned())
        }
        _ => None,
    });
    from_expression
        .or_else(|| {
            v.message
                .as_deref()
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| format!("failed expression: {}", v.expr.source))
}

fn floor_char_boundary(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
