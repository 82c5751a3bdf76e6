//! `allocate` cases: the kubelet's allocation decision for a request document
//! `{node, nodeConfig?, allocatedPods?, allocated, desired, settings?}`, or the retry order for a
//! pending set `{pending: [{desired, allocated}], settings?}`.
//!
//! Answer (both ways): the `allocate -o json` object `{"outcome", "reason", "message",
//! "resizePending", "changes": [{"kind", "container", "containerList", "detail"}], "notes",
//! "allocatedPod"}`, or `{"order": [{"pod", "increasingRequests", "priority", "guaranteed",
//! "pendingSince"}], "dropped"}` for the retry order. A fixture's `expect` is compared with a
//! summary: `{"outcome", "reason", "message", "resizePending", "changes": [{"kind", "container",
//! "detail"}], "allocatedContainers": [{"name", "image"}]}` or `{"retryOrder": [pod], "dropped"}`.

use serde_json::{Value, json};

use crate::{Area, Case, component_error, json_text, native_input_error, runtime};

/// The allocate area.
pub const AREA: Area = Area { native, wasm, view };

fn is_retry(c: &Case) -> bool {
    c.request.as_ref().is_some_and(|r| r.get("pending").is_some())
}

fn condition(type_: &str, status: &str, reason: &str, message: &str, generation: Option<i64>) -> Value {
    json!({"type": type_, "status": status, "reason": reason, "message": message, "observedGeneration": generation})
}

fn change(kind: &str, container: &str, list: &str, detail: &str) -> Value {
    json!({"kind": kind, "container": container, "containerList": list, "detail": detail})
}

fn entry(pod: &str, increasing: bool, priority: i32, guaranteed: bool, since: Option<&str>) -> Value {
    json!({"pod": pod, "increasingRequests": increasing, "priority": priority, "guaranteed": guaranteed, "pendingSince": since})
}

fn native(c: &Case) -> Value {
    let request = json_text(c.request.as_ref()).unwrap_or_default();
    if is_retry(c) {
        native_retry(&request)
    } else {
        native_allocate(&request)
    }
}

fn wasm(c: &Case) -> Value {
    let request = json_text(c.request.as_ref()).unwrap_or_default();
    if is_retry(c) {
        wasm_retry(&request)
    } else {
        wasm_allocate(&request)
    }
}

/// podmut-core's answer to `retry-order(pending)`.
pub fn native_retry(request: &str) -> Value {
    match podmut_core::retry_order_document(request) {
        Ok(p) => {
            let podmut_core::RetryPlan { order, dropped } = &p;
            let order: Vec<Value> = order
                .iter()
                .map(|e| {
                    let podmut_core::RetryEntry {
                        pod,
                        increasing_requests,
                        priority,
                        guaranteed,
                        pending_since,
                    } = e;
                    entry(
                        pod,
                        *increasing_requests,
                        *priority,
                        *guaranteed,
                        pending_since.as_deref(),
                    )
                })
                .collect();
            json!({"order": order, "dropped": dropped})
        }
        Err(e) => native_input_error(&e),
    }
}

/// podmut-core's answer to `allocate(request)`.
pub fn native_allocate(request: &str) -> Value {
    match podmut_core::allocate_document(request) {
        Ok(d) => native_decision(&d),
        Err(e) => native_input_error(&e),
    }
}

/// podmut-core's allocation decision as the answer (also a `plan` case's allocation).
pub(crate) fn native_decision(d: &podmut_core::AllocationDecision) -> Value {
    let podmut_core::AllocationDecision {
        outcome,
        reason,
        message,
        allocated_pod,
        resize_pending,
        changes,
        notes,
    } = d;
    let pending = resize_pending.as_ref().map(|p| {
        let podmut_core::PendingCondition {
            type_,
            status,
            reason,
            message,
            observed_generation,
        } = p;
        condition(type_, status, reason, message, *observed_generation)
    });
    let changes: Vec<Value> = changes
        .iter()
        .map(|c| {
            let podmut_core::Change {
                kind,
                container,
                container_list,
                detail,
            } = c;
            change(kind.as_str(), container, container_list, detail)
        })
        .collect();
    json!({
        "outcome": outcome.as_str(),
        "reason": reason,
        "message": message,
        "resizePending": pending,
        "changes": changes,
        "notes": notes,
        "allocatedPod": serde_json::to_value(allocated_pod).unwrap_or(Value::Null),
    })
}

/// The component's answer to `retry-order(pending)`.
pub fn wasm_retry(request: &str) -> Value {
    use podmut::bindings::exports::podmut::policy::node;
    match runtime().retry_order(request) {
        Ok(p) => {
            let node::RetryPlan { order, dropped } = &p;
            let order: Vec<Value> = order
                .iter()
                .map(|e| {
                    let node::RetryEntry {
                        pod,
                        increasing_requests,
                        priority,
                        guaranteed,
                        pending_since,
                    } = e;
                    entry(
                        pod,
                        *increasing_requests,
                        *priority,
                        *guaranteed,
                        pending_since.as_deref(),
                    )
                })
                .collect();
            json!({"order": order, "dropped": dropped})
        }
        Err(e) => component_error(&e),
    }
}

/// The component's answer to `allocate(request)`.
pub fn wasm_allocate(request: &str) -> Value {
    match runtime().allocate(request) {
        Ok(d) => wasm_decision(&d),
        Err(e) => component_error(&e),
    }
}

/// The component's allocation decision as the answer, in [`native_decision`]'s shape.
pub(crate) fn wasm_decision(
    d: &podmut::bindings::exports::podmut::policy::node::AllocationDecision,
) -> Value {
    use podmut::bindings::exports::podmut::policy::node;
    let node::AllocationDecision {
        outcome,
        reason,
        message,
        allocated_pod,
        resize_pending,
        changes,
        notes,
    } = d;
    let pending = resize_pending.as_ref().map(|p| {
        let node::PodCondition {
            type_,
            status,
            reason,
            message,
            observed_generation,
        } = p;
        condition(type_, status, reason, message, *observed_generation)
    });
    let changes: Vec<Value> = changes
        .iter()
        .map(|c| {
            let node::AllocationChange {
                kind,
                container,
                container_list,
                detail,
            } = c;
            change(kind, container, container_list, detail)
        })
        .collect();
    json!({
        "outcome": podmut::output::outcome_name(*outcome),
        "reason": reason,
        "message": message,
        "resizePending": pending,
        "changes": changes,
        "notes": notes,
        "allocatedPod": serde_json::from_str::<Value>(allocated_pod)
            .unwrap_or_else(|e| json!({"notJson": e.to_string()})),
    })
}

/// The fixture summary of an answer.
pub(crate) fn view(answer: &Value) -> Value {
    if let Some(order) = answer.get("order").and_then(Value::as_array) {
        let pods: Vec<Value> = order.iter().map(|e| e["pod"].clone()).collect();
        return json!({"retryOrder": pods, "dropped": answer["dropped"]});
    }
    let Some(changes) = answer.get("changes").and_then(Value::as_array) else {
        return answer.clone();
    };
    let changes: Vec<Value> = changes
        .iter()
        .map(|c| json!({"kind": c["kind"], "container": c["container"], "detail": c["detail"]}))
        .collect();
    let containers: Vec<Value> = answer
        .pointer("/allocatedPod/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| json!({"name": c.get("name"), "image": c.get("image")}))
        .collect();
    let mut pending = answer["resizePending"].clone();
    if let Some(o) = pending.as_object_mut() {
        o.retain(|k, v| k != "observedGeneration" || !v.is_null());
    }
    json!({
        "outcome": answer["outcome"],
        "reason": answer["reason"],
        "message": answer["message"],
        "resizePending": pending,
        "changes": changes,
        "allocatedContainers": containers,
    })
}
