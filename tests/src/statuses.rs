//! `statuses` cases: the container statuses the kubelet would publish for a request document
//! `{pod, allocated?, settings?}`.
//!
//! Outcome (a summary of the report): `{"ready", "statuses": [{"name", "state", "reason", "ready"}],
//! "unallocated", "removalPending", "terminating", "removed", "garbageCollected", "conditions":
//! [{"type", "status", "reason", "message"}]}` or `{"inputError": text}`.

use serde_json::{Value, json};

use crate::{Area, Case, input_error, json_text, runtime};

/// The statuses area.
pub const AREA: Area = Area { native, wasm };

/// The fixture summary of the report JSON both implementations return.
fn summarize(report: &str) -> Value {
    let Ok(r) = serde_json::from_str::<Value>(report) else {
        return input_error(format!("not JSON: {report}"));
    };
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

fn native(c: &Case) -> Value {
    let request = json_text(c.request.as_ref()).unwrap_or_default();
    match podmut_core::container_statuses_document(&request) {
        Ok(r) => summarize(&r),
        Err(e) => input_error(e.to_string()),
    }
}

fn wasm(c: &Case) -> Value {
    let request = json_text(c.request.as_ref()).unwrap_or_default();
    match runtime().container_statuses(&request) {
        Ok(r) => summarize(&r),
        Err(e) => input_error(e.to_string()),
    }
}
