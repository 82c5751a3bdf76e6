//! `statuses` cases: the container statuses the kubelet would publish for a request document
//! `{pod, allocated?, settings?}`.
//!
//! Answer (both ways): the whole report as JSON. A fixture's `expect` is compared with a summary:
//! `{"ready", "statuses": [{"name", "state", "reason", "ready"}], "unallocated", "removalPending",
//! "terminating", "removed", "garbageCollected", "conditions": [{"type", "status", "reason",
//! "message"}]}`.

use serde_json::{Value, json};

use crate::{Area, Case, component_error, json_text, native_input_error, runtime};

/// The statuses area.
pub const AREA: Area = Area { native, wasm, view };

/// The report text both implementations return, as JSON.
pub(crate) fn parse(report: &str) -> Value {
    serde_json::from_str(report).unwrap_or_else(|e| json!({"notJson": e.to_string(), "text": report}))
}

fn native(c: &Case) -> Value {
    native_answer(&json_text(c.request.as_ref()).unwrap_or_default())
}

fn wasm(c: &Case) -> Value {
    wasm_answer(&json_text(c.request.as_ref()).unwrap_or_default())
}

/// podmut-core's answer to `container-statuses(request)`.
pub fn native_answer(request: &str) -> Value {
    match podmut_core::container_statuses_document(request) {
        Ok(r) => parse(&r),
        Err(e) => native_input_error(&e),
    }
}

/// The component's answer to `container-statuses(request)`.
pub fn wasm_answer(request: &str) -> Value {
    match runtime().container_statuses(request) {
        Ok(r) => parse(&r),
        Err(e) => component_error(&e),
    }
}

/// The fixture summary of a report.
pub(crate) fn view(r: &Value) -> Value {
    if r.get("notJson").is_some() {
        return r.clone();
    }
    let statuses: Vec<Value> = r
        .get("containerStatuses")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|s| {
            let state = s.get("state").and_then(Value::as_object);
            let (kind, reason) = state
                .and_then(|m| m.iter().next())
                .map(|(k, v)| (k.clone(), v.get("reason").cloned().unwrap_or(Value::Null)))
                .unwrap_or(("unknown".into(), Value::Null));
            json!({"name": s.get("name"), "state": kind, "reason": reason, "ready": s.get("ready")})
        })
        .collect();
    let conditions: Vec<Value> = r
        .get("conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| json!({"type": c.get("type"), "status": c.get("status"), "reason": c.get("reason"), "message": c.get("message")}))
        .collect();
    json!({
        "ready": r.get("ready"),
        "statuses": statuses,
        "unallocated": r.get("unallocated"),
        "removalPending": r.get("removalPending"),
        "terminating": r.get("terminating"),
        "removed": r.get("removed"),
        "garbageCollected": r.get("garbageCollected"),
        "conditions": conditions,
    })
}
