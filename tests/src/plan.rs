//! `plan` cases: one report of what a change does end to end.
//!
//! `old`, `new`, `subresource`, `settings`, and `request: {node: <Node>, pods: [<Pod>...]}`
//! (both optional). Outcome: `{"admission": {"allowed", "errors": [{"type", "field", "origin"}]},
//! "qos": {"before", "after"}, "allocation": {"outcome", "changes": [{"kind", "container"}]} |
//! {"skipped": why}, "probes": {"reconciled", "actions": [{"container", "probe", "action"}]} |
//! {"skipped": why}, "statuses": <the statuses report> | {"skipped": why}, "applies"}` or
//! `{"inputError": text}`.

use serde_json::{Value, json};

use crate::{Area, Case, input_error, json_text, runtime, settings_text};

/// The plan area.
pub const AREA: Area = Area { native, wasm };

fn node(c: &Case) -> Option<String> {
    c.request
        .as_ref()
        .and_then(|r| r.get("node"))
        .map(Value::to_string)
}

fn pods(c: &Case) -> Option<String> {
    c.request
        .as_ref()
        .and_then(|r| r.get("pods"))
        .map(Value::to_string)
}

fn skipped(why: &str) -> Value {
    json!({ "skipped": why })
}

fn statuses(s: Option<&String>, why: &str) -> Value {
    s.and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or_else(|| skipped(why))
}

fn native(c: &Case) -> Value {
    use podmut_core::{PlanInput, Section};
    let Ok(sub) = c.subresource.parse::<podmut_core::Subresource>() else {
        return input_error("bad subresource");
    };
    let (old, new) = (
        json_text(c.old.as_ref()).unwrap_or_default(),
        json_text(c.new.as_ref()).unwrap_or_default(),
    );
    let (node, pods, settings) = (node(c), pods(c), settings_text(c));
    let input = PlanInput {
        old: &old,
        new: &new,
        sub,
        node: node.as_deref(),
        pods: pods.as_deref(),
        settings: &settings,
    };
    let p = match podmut_core::plan(&input) {
        Ok(p) => p,
        Err(e) => return input_error(e.to_string()),
    };
    let errors: Vec<Value> = p
        .admission
        .errors
        .iter()
        .map(|e| json!({"type": e.error_type.cause_type(), "field": e.field.to_string(), "origin": e.origin}))
        .collect();
    let allocation = match &p.allocation {
        Section::Done(d) => {
            let changes: Vec<Value> = d
                .changes
                .iter()
                .map(|ch| json!({"kind": ch.kind.as_str(), "container": ch.container}))
                .collect();
            json!({"outcome": d.outcome.as_str(), "changes": changes})
        }
        Section::Skipped(why) => skipped(why),
    };
    let probes = match &p.probes {
        Section::Done(r) => {
            let actions: Vec<Value> = r
                .actions
                .iter()
                .map(|a| json!({"container": a.container, "probe": a.probe.as_str(), "action": a.action.as_str()}))
                .collect();
            json!({"reconciled": r.reconciled, "actions": actions})
        }
        Section::Skipped(why) => skipped(why),
    };
    json!({
        "admission": {"allowed": p.admission.allowed, "errors": errors},
        "qos": {"before": p.qos.before.as_str(), "after": p.qos.after.as_str()},
        "allocation": allocation,
        "probes": probes,
        "statuses": statuses(p.statuses.done(), p.statuses.skipped()),
        "applies": p.applies(),
    })
}

fn wasm(c: &Case) -> Value {
    use podmut::output::{cause_type, outcome_name, parse_subresource, qos_name};
    let Ok(sub) = parse_subresource(&c.subresource) else {
        return input_error("bad subresource");
    };
    let (old, new) = (
        json_text(c.old.as_ref()).unwrap_or_default(),
        json_text(c.new.as_ref()).unwrap_or_default(),
    );
    let (node, pods, settings) = (node(c), pods(c), settings_text(c));
    let request = podmut::PlanRequest {
        old: &old,
        new: &new,
        sub,
        node: node.as_deref(),
        pods: pods.as_deref(),
        settings: &settings,
    };
    let p = match runtime().plan(&request) {
        Ok(p) => p,
        Err(e) => return input_error(e.to_string()),
    };
    let errors: Vec<Value> = p
        .admission
        .errors
        .iter()
        .map(|e| json!({"type": cause_type(e.type_), "field": e.field, "origin": e.origin}))
        .collect();
    let allocation = p.allocation.as_ref().map_or_else(
        || skipped(&p.allocation_skipped),
        |d| {
            let changes: Vec<Value> = d
                .changes
                .iter()
                .map(|ch| json!({"kind": ch.kind, "container": ch.container}))
                .collect();
            json!({"outcome": outcome_name(d.outcome), "changes": changes})
        },
    );
    let probes = p.probes.as_ref().map_or_else(
        || skipped(&p.probes_skipped),
        |r| {
            let actions: Vec<Value> = r
                .actions
                .iter()
                .map(|a| json!({"container": a.container, "probe": a.probe, "action": a.action}))
                .collect();
            json!({"reconciled": r.reconciled, "actions": actions})
        },
    );
    let applies = p.admission.allowed
        && p.allocation
            .as_ref()
            .is_none_or(|d| matches!(d.outcome, podmut::types::AllocationOutcome::Allocated));
    json!({
        "admission": {"allowed": p.admission.allowed, "errors": errors},
        "qos": {"before": qos_name(p.qos.before), "after": qos_name(p.qos.after)},
        "allocation": allocation,
        "probes": probes,
        "statuses": statuses(p.statuses.as_ref(), &p.statuses_skipped),
        "applies": applies,
    })
}
