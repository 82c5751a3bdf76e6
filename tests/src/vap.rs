//! `vap` cases: ValidatingAdmissionPolicies evaluated on one Pod request.
//!
//! `old`/`new` are the Pods and `subresource` the request path (as in check cases); `request`
//! holds `{policies: [ValidatingAdmissionPolicy | ValidatingAdmissionPolicyBinding, ...],
//! params?: [...], namespaceLabels?: {k: v}, user?: name, review?: AdmissionReview}`. The answer
//! (both ways) is `podmut vap -o json`'s: `{"allowed", "message", "decisions": [{"policy",
//! "binding", "action", "message", "expression"?, "reason"?}], "warnings", "auditAnnotations",
//! "evaluations", "notes"}`.

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

fn native(c: &Case) -> Value {
    native_answer(&request(c))
}

fn wasm(c: &Case) -> Value {
    wasm_answer(&request(c))
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
