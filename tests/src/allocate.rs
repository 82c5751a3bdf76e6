//! `allocate` cases: the kubelet's allocation decision for a request document
//! `{node, nodeConfig?, allocatedPods?, allocated, desired, settings?}`, or the retry order for a
//! pending set `{pending: [{desired, allocated}], settings?}`.
//!
//! Outcome: `{"outcome", "reason", "message", "resizePending", "changes": [{"kind", "container",
//! "detail"}], "allocatedContainers": [{"name", "image"}]}`, `{"retryOrder": [...], "dropped":
//! [...]}`, or `{"inputError": text}`.

use podmut::bindings::exports::podmut::policy::node::AllocationDecision;
use serde_json::{Value, json};

use crate::{Area, Case, input_error, json_text, runtime};

/// The allocate area.
pub const AREA: Area = Area { native, wasm };

fn is_retry(c: &Case) -> bool {
    c.request.as_ref().is_some_and(|r| r.get("pending").is_some())
}

fn containers(pod: &Value) -> Value {
    let list: Vec<Value> = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| json!({"name": c.get("name"), "image": c.get("image")}))
        .collect();
    Value::Array(list)
}

fn summary(
    outcome: &str,
    reason: &str,
    message: &str,
    pending: &Value,
    changes: &[Value],
    pod: &Value,
) -> Value {
    json!({
        "outcome": outcome,
        "reason": reason,
        "message": message,
        "resizePending": pending,
        "changes": changes,
        "allocatedContainers": containers(pod),
    })
}

fn native(c: &Case) -> Value {
    let request = json_text(c.request.as_ref()).unwrap_or_default();
    if is_retry(c) {
        return match podmut_core::retry_order_document(&request) {
            Ok(p) => json!({
                "retryOrder": p.order.iter().map(|e| e.pod.clone()).collect::<Vec<_>>(),
                "dropped": p.dropped,
            }),
            Err(e) => input_error(e.to_string()),
        };
    }
    match podmut_core::allocate_document(&request) {
        Ok(d) => {
            let pending = d
                .resize_pending
                .as_ref()
                .map_or(Value::Null, |p| serde_json::to_value(p).unwrap_or(Value::Null));
            let changes: Vec<Value> = d
                .changes
                .iter()
                .map(|c| json!({"kind": c.kind.as_str(), "container": c.container, "detail": c.detail}))
                .collect();
            let pod = serde_json::to_value(&d.allocated_pod).unwrap_or(Value::Null);
            summary(
                d.outcome.as_str(),
                &d.reason,
                &d.message,
                &pending,
                &changes,
                &pod,
            )
        }
        Err(e) => input_error(e.to_string()),
    }
}

fn wasm_summary(d: &AllocationDecision) -> Value {
    let pending = d.resize_pending.as_ref().map_or(Value::Null, |p| {
        let mut v = json!({"type": p.type_, "status": p.status, "reason": p.reason, "message": p.message});
        if let (Some(g), Some(o)) = (p.observed_generation, v.as_object_mut()) {
            o.insert("observedGeneration".into(), json!(g));
        }
        v
    });
    let changes: Vec<Value> = d
        .changes
        .iter()
        .map(|c| json!({"kind": c.kind, "container": c.container, "detail": c.detail}))
        .collect();
    let pod: Value = serde_json::from_str(&d.allocated_pod).unwrap_or(Value::Null);
    summary(
        podmut::output::outcome_name(d.outcome),
        &d.reason,
        &d.message,
        &pending,
        &changes,
        &pod,
    )
}

fn wasm(c: &Case) -> Value {
    let request = json_text(c.request.as_ref()).unwrap_or_default();
    if is_retry(c) {
        return match runtime().retry_order(&request) {
            Ok(p) => json!({
                "retryOrder": p.order.iter().map(|e| e.pod.clone()).collect::<Vec<_>>(),
                "dropped": p.dropped,
            }),
            Err(e) => input_error(e.to_string()),
        };
    }
    match runtime().allocate(&request) {
        Ok(d) => wasm_summary(&d),
        Err(e) => input_error(e.to_string()),
    }
}
