//! Rendering component results for people (`-o text`) and programs (`-o json|yaml`).
//!
//! The JSON shapes here are podmut's public, documented CLI contract (docs/cli.md).

use serde::Serialize;
use serde_json::{Value, json};

use crate::types::{ErrorType, FieldError, QosClass, Subresource, Verdict};

/// The `metav1.CauseType` string of an error type.
pub fn cause_type(t: ErrorType) -> &'static str {
    match t {
        ErrorType::Required => "FieldValueRequired",
        ErrorType::Invalid => "FieldValueInvalid",
        ErrorType::Forbidden => "FieldValueForbidden",
        ErrorType::NotSupported => "FieldValueNotSupported",
        ErrorType::Duplicate => "FieldValueDuplicate",
        ErrorType::NotFound => "FieldValueNotFound",
        ErrorType::TooLong => "FieldValueTooLong",
        ErrorType::TooMany => "FieldValueTooMany",
        ErrorType::Internal => "InternalError",
        ErrorType::NodeCapacity => "NodeCapacity",
        ErrorType::UnsupportedPlatform => "UnsupportedPlatform",
    }
}

/// The API string of a QoS class.
pub fn qos_name(q: QosClass) -> &'static str {
    match q {
        QosClass::Guaranteed => "Guaranteed",
        QosClass::Burstable => "Burstable",
        QosClass::BestEffort => "BestEffort",
    }
}

/// Every request path (the WIT `subresource` enum's cases), in podmut-model's order: the host's
/// mirror of `podmut_model::request_path::Subresource`, which it does not link (a test holds
/// the two equal). Every name below derives from [`subresource_name`].
pub const SUBRESOURCES: [Subresource; 5] = [
    Subresource::None,
    Subresource::Dynamic,
    Subresource::EphemeralContainers,
    Subresource::Resize,
    Subresource::Status,
];

/// The CLI name of a subresource.
pub fn subresource_name(s: Subresource) -> &'static str {
    match s {
        Subresource::None => "none",
        Subresource::Dynamic => "dynamic",
        Subresource::EphemeralContainers => "ephemeralcontainers",
        Subresource::Resize => "resize",
        Subresource::Status => "status",
    }
}

/// The subresource's name in an AdmissionReview's `request.subResource` (`""` for `none`).
pub fn subresource_api_name(s: Subresource) -> &'static str {
    match s {
        Subresource::None => "",
        other => subresource_name(other),
    }
}

/// The resource admission rules name (`pods`, `pods/dynamic`, ...).
pub fn subresource_resource(s: Subresource) -> String {
    match s {
        Subresource::None => "pods".to_owned(),
        other => format!("pods/{}", subresource_name(other)),
    }
}

/// The subresource an AdmissionReview's `request.subResource` names (not the CLI's spellings).
pub fn subresource_from_api_name(name: &str) -> Option<Subresource> {
    SUBRESOURCES
        .into_iter()
        .find(|s| subresource_api_name(*s) == name)
}

/// Parse a CLI subresource name: the CLI name, the API name, or the WIT case name
/// `ephemeral-containers`.
pub fn parse_subresource(s: &str) -> Result<Subresource, String> {
    SUBRESOURCES
        .into_iter()
        .find(|sub| subresource_name(*sub) == s || subresource_api_name(*sub) == s)
        .or_else(|| (s == "ephemeral-containers").then_some(Subresource::EphemeralContainers))
        .ok_or_else(|| {
            let names: Vec<&str> = SUBRESOURCES.into_iter().map(subresource_name).collect();
            let (last, rest) = names.split_last().unwrap_or((&"", &[]));
            format!(
                "unknown subresource {s:?} (expected {} or {last})",
                rest.join(", ")
            )
        })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ErrorOut<'a> {
    #[serde(rename = "type")]
    error_type: &'static str,
    field: &'a str,
    detail: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    bad_value: Option<&'a str>,
    origin: &'a str,
    message: &'a str,
}

/// The `check -o json` object: `{"allowed", "errors": [{"type", "field", "detail", "badValue"?,
/// "origin", "message"}], "warnings", "message"}`.
pub fn verdict_json(v: &Verdict) -> Value {
    let errors: Vec<ErrorOut<'_>> = v
        .errors
        .iter()
        .map(|e: &FieldError| ErrorOut {
            error_type: cause_type(e.type_),
            field: &e.field,
            detail: &e.detail,
            bad_value: e.bad_value.as_deref(),
            origin: &e.origin,
            message: &e.message,
        })
        .collect();
    json!({
        "allowed": v.allowed,
        "errors": errors,
        "warnings": v.warnings,
        "message": v.message,
    })
}

/// The `check -o text` rendering: `allowed`, or `denied: <API message>` — with one error that
/// line says it all (its rule id appended); with several, one line per error follows
/// (`<field>: <body>  [origin]`). Warnings are not part of it: the CLI prints them on stderr, as
/// kubectl prints the API server's.
pub fn verdict_text(v: &Verdict) -> String {
    if v.allowed {
        return "allowed\n".to_owned();
    }
    let mut out = format!("denied: {}", v.message);
    if let [only] = v.errors.as_slice() {
        out.push_str(&format!("  [{}]\n", only.origin));
        return out;
    }
    out.push('\n');
    for e in &v.errors {
        out.push_str(&format!("  {}: {}  [{}]\n", e.field, e.message, e.origin));
    }
    out
}

/// Pretty JSON (a trailing newline included).
pub fn to_json_string(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".into());
    s.push('\n');
    s
}

/// YAML.
pub fn to_yaml_string(v: &Value) -> String {
    podmut_model::yaml::to_yaml(v)
}

// ---- Node-side commands (`allocate`, `probes`, `statuses`); schemas in docs/node.md.

use crate::bindings::exports::podmut::policy::node::{
    AllocationDecision, AllocationOutcome, ProbeReconciliation, RetryPlan,
};

/// The name of an allocation outcome.
pub fn outcome_name(o: AllocationOutcome) -> &'static str {
    match o {
        AllocationOutcome::Allocated => "Allocated",
        AllocationOutcome::Deferred => "Deferred",
        AllocationOutcome::Infeasible => "Infeasible",
        AllocationOutcome::Halted => "Halted",
    }
}

/// The `allocate -o json` object: `{"outcome", "reason", "message", "resizePending"?, "changes":
/// [{"kind", "container", "containerList", "detail"}], "notes", "allocatedPod"}`.
pub fn allocation_json(d: &AllocationDecision) -> Value {
    let changes: Vec<Value> = d
        .changes
        .iter()
        .map(|c| {
            json!({"kind": c.kind, "container": c.container, "containerList": c.container_list, "detail": c.detail})
        })
        .collect();
    let pending = d.resize_pending.as_ref().map(|c| {
        let mut v = json!({"type": c.type_, "status": c.status, "reason": c.reason, "message": c.message});
        if let (Some(g), Some(o)) = (c.observed_generation, v.as_object_mut()) {
            o.insert("observedGeneration".into(), json!(g));
        }
        v
    });
    let pod: Value = serde_json::from_str(&d.allocated_pod).unwrap_or(Value::Null);
    json!({
        "outcome": outcome_name(d.outcome),
        "reason": d.reason,
        "message": d.message,
        "resizePending": pending,
        "changes": changes,
        "notes": d.notes,
        "allocatedPod": pod,
    })
}

/// The `allocate -o text` rendering: `<Outcome>[: <message>]`, the condition, the changes (marked
/// actuated or not), the containers of the allocated Pod, and the notes.
pub fn allocation_text(d: &AllocationDecision) -> String {
    let mut out = String::from(outcome_name(d.outcome));
    if !d.message.is_empty() {
        out.push_str(": ");
        out.push_str(&d.message);
    }
    out.push('\n');
    if let Some(c) = &d.resize_pending {
        let generation = c
            .observed_generation
            .map_or(String::new(), |g| format!(" observedGeneration={g}"));
        out.push_str(&format!(
            "  condition {}={} reason={}{generation}\n",
            c.type_, c.status, c.reason
        ));
    }
    if !d.changes.is_empty() {
        let state = if matches!(d.outcome, AllocationOutcome::Allocated) {
            "actuated"
        } else {
            "not actuated"
        };
        out.push_str(&format!("  changes ({state}):\n"));
        for c in &d.changes {
            let who = if c.container.is_empty() {
                "pod".to_owned()
            } else {
                c.container.clone()
            };
            out.push_str(&format!("    {} {who}: {}\n", c.kind, c.detail));
        }
    }
    let pod: Value = serde_json::from_str(&d.allocated_pod).unwrap_or(Value::Null);
    if let Some(cs) = pod.pointer("/spec/containers").and_then(Value::as_array) {
        let list: Vec<String> = cs
            .iter()
            .map(|c| {
                format!(
                    "{} ({})",
                    c.get("name").and_then(Value::as_str).unwrap_or(""),
                    c.get("image").and_then(Value::as_str).unwrap_or("")
                )
            })
            .collect();
        out.push_str(&format!("  allocated containers: {}\n", list.join(", ")));
    }
    for n in &d.notes {
        out.push_str(&format!("  note: {n}\n"));
    }
    out
}

/// The `allocate --retry-order -o json` object: `{"order": [{"pod", "increasingRequests",
/// "priority", "guaranteed", "pendingSince"?}], "dropped": [...]}`.
pub fn retry_plan_json(p: &RetryPlan) -> Value {
    let order: Vec<Value> = p
        .order
        .iter()
        .map(|e| {
            let mut v = json!({"pod": e.pod, "increasingRequests": e.increasing_requests, "priority": e.priority, "guaranteed": e.guaranteed});
            if let (Some(t), Some(o)) = (&e.pending_since, v.as_object_mut()) {
                o.insert("pendingSince".into(), json!(t));
            }
            v
        })
        .collect();
    json!({"order": order, "dropped": p.dropped})
}

/// The `allocate --retry-order -o text` rendering: one numbered line per Pod.
pub fn retry_plan_text(p: &RetryPlan) -> String {
    let mut out = String::new();
    for (i, e) in p.order.iter().enumerate() {
        out.push_str(&format!(
            "{}. {}  increasing={} priority={} guaranteed={}{}\n",
            i + 1,
            e.pod,
            e.increasing_requests,
            e.priority,
            e.guaranteed,
            e.pending_since
                .as_ref()
                .map_or(String::new(), |t| format!(" pendingSince={t}"))
        ));
    }
    for d in &p.dropped {
        out.push_str(&format!("dropped (Infeasible): {d}\n"));
    }
    out
}

/// The `probes -o json` object: `{"reconciled", "reason", "actions": [{"container",
/// "containerList", "probe", "action", "changedFields", "resetCounts", "cancelInFlight",
/// "runPromptly", "nextRun", "initialResult"?, "readyEffect", "startedEffect", "event"?, "notes"}]}`.
pub fn probe_plan_json(p: &ProbeReconciliation) -> Value {
    let actions: Vec<Value> = p
        .actions
        .iter()
        .map(|a| {
            let mut v = json!({
                "container": a.container,
                "containerList": a.container_list,
                "probe": a.probe,
                "action": a.action,
                "changedFields": a.changed_fields,
                "resetCounts": a.reset_counts,
                "cancelInFlight": a.cancel_in_flight,
                "runPromptly": a.run_promptly,
                "nextRun": a.next_run,
                "readyEffect": a.ready_effect,
                "startedEffect": a.started_effect,
                "notes": a.notes,
            });
            if let Some(o) = v.as_object_mut() {
                if let Some(r) = &a.initial_result {
                    o.insert("initialResult".into(), json!(r));
                }
                if let Some(e) = &a.event {
                    o.insert(
                        "event".into(),
                        json!({"type": "Normal", "reason": "ContainerProbeChanged", "message": e}),
                    );
                }
            }
            v
        })
        .collect();
    json!({"reconciled": p.reconciled, "reason": p.reason, "actions": actions})
}

/// The `probes -o text` rendering: a header, then one line per worker and its notes.
pub fn probe_plan_text(p: &ProbeReconciliation) -> String {
    let mut out = if p.reconciled {
        String::from("reconciled\n")
    } else {
        format!("not reconciled as mutable: {}\n", p.reason)
    };
    for a in &p.actions {
        let mut flags = Vec::new();
        if !a.changed_fields.is_empty() {
            flags.push(format!("changed={}", a.changed_fields.join(",")));
        }
        if a.reset_counts {
            flags.push("reset-counts".into());
        }
        if a.cancel_in_flight {
            flags.push("cancel-in-flight".into());
        }
        flags.push(format!("next-run={}", a.next_run));
        if let Some(r) = &a.initial_result {
            flags.push(format!("initial={r}"));
        }
        if a.ready_effect != "unchanged" {
            flags.push(format!("ready->{}", a.ready_effect));
        }
        if a.started_effect != "unchanged" {
            flags.push(format!("started->{}", a.started_effect));
        }
        out.push_str(&format!(
            "{} {}/{} {}: {}\n",
            a.action,
            a.container_list,
            a.container,
            a.probe,
            flags.join(" ")
        ));
        if let Some(e) = &a.event {
            out.push_str(&format!("  event: Normal ContainerProbeChanged {e}\n"));
        }
        for n in &a.notes {
            out.push_str(&format!("  note: {n}\n"));
        }
    }
    out
}

/// The `statuses -o text` rendering of the component's JSON report: readiness, then one line per
/// container status (`name: state[ reason] ready=bool`) and the lists.
pub fn statuses_text(report: &Value) -> String {
    let ready = report.get("ready").and_then(Value::as_bool).unwrap_or(false);
    let mut out = format!("{}\n", if ready { "ready" } else { "not ready" });
    for c in report
        .get("conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let s = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("");
        let mut line = format!("  condition {}={}", s("type"), s("status"));
        if !s("reason").is_empty() {
            line.push_str(&format!(" reason={}", s("reason")));
        }
        if !s("message").is_empty() {
            line.push_str(&format!(" message={:?}", s("message")));
        }
        out.push_str(&line);
        out.push('\n');
    }
    for c in report
        .get("containerStatuses")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = c.get("name").and_then(Value::as_str).unwrap_or("");
        let state = c.get("state").and_then(Value::as_object);
        let (kind, reason) = state
            .and_then(|s| s.iter().next())
            .map(|(k, v)| (k.as_str(), v.get("reason").and_then(Value::as_str).unwrap_or("")))
            .unwrap_or(("unknown", ""));
        let ready = c.get("ready").and_then(Value::as_bool).unwrap_or(false);
        let reason = if reason.is_empty() {
            String::new()
        } else {
            format!(" {reason}")
        };
        out.push_str(&format!("  {name}: {kind}{reason} ready={ready}\n"));
    }
    for key in [
        "unallocated",
        "removalPending",
        "terminating",
        "removed",
        "garbageCollected",
    ] {
        let names: Vec<&str> = report
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if !names.is_empty() {
            out.push_str(&format!("  {key}: {}\n", names.join(", ")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host's request paths are podmut-model's: the same cases, in the same order, with the
    /// same names; the CLI reads back what the rules' `FromStr` reads.
    #[test]
    fn subresources_mirror_the_request_path_table() {
        assert_eq!(SUBRESOURCES.len(), podmut_core::Subresource::ALL.len());
        for (host, model) in SUBRESOURCES.into_iter().zip(podmut_core::Subresource::ALL) {
            assert_eq!(subresource_name(host), model.as_str());
            assert_eq!(subresource_api_name(host), model.api_name());
            assert_eq!(subresource_resource(host), model.resource());
            assert_eq!(
                subresource_from_api_name(model.api_name()).map(subresource_name),
                Some(model.as_str())
            );
        }
        for name in [
            "",
            "none",
            "dynamic",
            "ephemeralcontainers",
            "ephemeral-containers",
            "resize",
            "status",
            "bogus",
        ] {
            assert_eq!(
                parse_subresource(name).ok().map(subresource_name),
                name.parse::<podmut_core::Subresource>().ok().map(|s| s.as_str()),
                "{name}"
            );
        }
        assert_eq!(
            parse_subresource("bogus").unwrap_err(),
            r#"unknown subresource "bogus" (expected none, dynamic, ephemeralcontainers, resize or status)"#
        );
        assert_eq!(subresource_from_api_name("none").map(subresource_name), None);
    }
}
