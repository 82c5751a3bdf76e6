//! `vap` cases: ValidatingAdmissionPolicies evaluated on one Pod request.
//!
//! `old`/`new` are the Pods and `subresource` the request path (as in check cases); `request`
//! holds `{policies: [ValidatingAdmissionPolicy | ValidatingAdmissionPolicyBinding, ...],
//! params?: [...], namespaceLabels?: {k: v}, user?: name, review?: AdmissionReview}`. The answer
//! (both ways) is `podmut vap -o json`'s: `{"allowed", "message", "decisions": [{"policy",
//! "binding", "action", "message", "expression"?, "reason"?}], "warnings", "auditAnnotations",
//! "evaluations", "notes"}`, with `typeChecking` (`[{"policy", "expressionWarnings":
//! [{"fieldRef", "warning"}]}]`) when a policy has type-checking warnings. `request.typeCheck`
//! is `podmut vap --type-check`: `error` (the default) answers the first warning's input error,
//! `warn` evaluates anyway.

use serde_json::Value;

use crate::{Area, Case, component_error, native_input_error, runtime};

/// The vap area.
pub const AREA: Area = Area {
    native,
    wasm,
    view: Value::clone,
};

/// The request of a case, in podmut-core's shape.
pub fn request(c: &Case) -> podmut_core::VapRequest {
    let r = c.request.as_ref();
    let text = |key: &str| r.and_then(|r| r.get(key)).map(Value::to_string);
    podmut_core::VapRequest {
        policies: text("policies").into_iter().collect(),
        old_object: c.old.as_ref().map(Value::to_string),
        object: c.new.as_ref().map(Value::to_string),
        subresource: if c.subresource == "none" {
            String::new()
        } else {
            c.subresource.clone()
        },
        review: text("review"),
        params: text("params"),
        namespace_labels: r
            .and_then(|r| r.get("namespaceLabels"))
            .and_then(Value::as_object)
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                    .collect()
            }),
        user: r
            .and_then(|r| r.get("user"))
            .and_then(Value::as_str)
            .map(str::to_owned),
    }
}

/// Whether the case asks for `--type-check warn`.
fn warn_only(c: &Case) -> bool {
    c.request
        .as_ref()
        .and_then(|r| r.get("typeCheck"))
        .and_then(Value::as_str)
        == Some("warn")
}

/// One policy's type checking as `(policy, [(fieldRef, warning, error)])`, from either side.
type Checked<E> = (String, Vec<(String, String, E)>);

/// The answer of a case whose type checking gave `checks`: under `typeCheck: error` the first
/// warning's error (`error` renders it), otherwise `evaluate`'s answer with `typeChecking` added
/// when some policy has warnings.
fn answer<E>(
    c: &Case,
    checks: Vec<Checked<E>>,
    error: impl Fn(&E) -> Value,
    evaluate: impl FnOnce() -> Value,
) -> Value {
    if !warn_only(c)
        && let Some((_, _, e)) = checks.iter().flat_map(|(_, w)| w).next()
    {
        return error(e);
    }
    let mut answer = evaluate();
    if let (Some(obj), false) = (answer.as_object_mut(), checks.is_empty()) {
        let list: Vec<Value> = checks
            .into_iter()
            .map(|(policy, warnings)| {
                serde_json::json!({
                    "policy": policy,
                    "expressionWarnings": warnings.into_iter().map(|(field_ref, warning, _)| {
                        serde_json::json!({"fieldRef": field_ref, "warning": warning})
                    }).collect::<Vec<_>>(),
                })
            })
            .collect();
        obj.insert("typeChecking".into(), Value::Array(list));
    }
    answer
}

fn native(c: &Case) -> Value {
    let req = request(c);
    match podmut_core::vap_type_check(&req.policies) {
        Ok(checks) => {
            let checks = checks.into_iter().map(|c| {
                let w = c.expression_warnings.into_iter();
                (c.policy, w.map(|w| (w.field_ref, w.warning, w.error)).collect())
            });
            answer(c, checks.collect(), native_input_error, || native_answer(&req))
        }
        Err(e) => native_input_error(&e),
    }
}

fn wasm(c: &Case) -> Value {
    let req = request(c);
    match runtime().vap_type_check(&req.policies) {
        Ok(checks) => {
            let checks = checks.into_iter().map(|c| {
                let w = c.expression_warnings.into_iter();
                (c.policy, w.map(|w| (w.field_ref, w.warning, w.error)).collect())
            });
            let error = |e: &podmut::types::InputError| component_error(&podmut::CallError::Input(e.clone()));
            answer(c, checks.collect(), error, || wasm_answer(&req))
        }
        Err(e) => component_error(&e),
    }
}

/// podmut-core's answer.
pub fn native_answer(req: &podmut_core::VapRequest) -> Value {
    match podmut_core::vap_evaluate(req) {
        Ok(r) => serde_json::to_value(&r).unwrap_or(Value::Null),
        Err(e) => native_input_error(&e),
    }
}

/// The component's answer, in the same shape.
pub fn wasm_answer(req: &podmut_core::VapRequest) -> Value {
    let wit = podmut::types::VapRequest {
        policies: req.policies.clone(),
        old_object: req.old_object.clone(),
        object: req.object.clone(),
        subresource: req.subresource.clone(),
        review: req.review.clone(),
        params: req.params.clone(),
        namespace_labels: req
            .namespace_labels
            .as_ref()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
        user: req.user.clone(),
    };
    match runtime().vap(&wit) {
        Ok(r) => serde_json::to_value(from_wit(r)).unwrap_or(Value::Null),
        Err(e) => component_error(&e),
    }
}

/// The component's report as podmut-core's (field for field).
fn from_wit(r: podmut::types::VapReport) -> podmut_core::VapReport {
    podmut_core::VapReport {
        allowed: r.allowed,
        message: r.message,
        decisions: r
            .decisions
            .into_iter()
            .map(|d| podmut_core::VapDecision {
                policy: d.policy,
                binding: d.binding,
                action: d.action,
                message: d.message,
                expression: d.expression,
                reason: d.reason,
            })
            .collect(),
        warnings: r.warnings,
        audit_annotations: r.audit_annotations.into_iter().collect(),
        evaluations: r
            .evaluations
            .into_iter()
            .map(|e| podmut_core::VapEvaluation {
                policy: e.policy,
                binding: e.binding,
                params: e.params,
                evaluated: e.evaluated,
                detail: e.detail,
                validations: e
                    .validations
                    .into_iter()
                    .map(|v| podmut_core::VapValidation {
                        index: v.index,
                        expression: v.expression,
                        outcome: v.outcome,
                        message: v.message,
                    })
                    .collect(),
            })
            .collect(),
        notes: r.notes,
    }
}
