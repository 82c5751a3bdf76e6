//! `plan` cases: one report of what a change does end to end.
//!
//! `old`, `new`, `subresource`, `settings`, and `request: {node: <Node>, pods: [<Pod>...]}`
//! (both optional). Answer (both ways): `{"admission": <the check answer>, "qos": {"before",
//! "after"}, "allocation": <the allocate answer> | {"skipped": why}, "probes": <the probes
//! answer> | {"skipped": why}, "statuses": <the statuses report> | {"skipped": why}, "applies"}`
//! or an input error. A fixture's `expect` is compared with each section through its own area's
//! view ([`crate::check`], [`crate::allocate`], [`crate::probes`], [`crate::statuses`]).

use serde_json::{Value, json};

use crate::{
    Area, Case, allocate, check, component_error, json_text, native_input_error, probes, runtime,
    settings_text, statuses,
};

/// The plan area.
pub const AREA: Area = Area { native, wasm, view };

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

fn native(c: &Case) -> Value {
    use podmut_core::{PlanInput, Section};
    let sub = match c.subresource.parse::<podmut_core::Subresource>() {
        Ok(s) => s,
        Err(e) => return json!({"caseError": e}),
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
        Err(e) => return native_input_error(&e),
    };
    let allocation = match &p.allocation {
        Section::Done(d) => allocate::native_decision(d),
        Section::Skipped(why) => skipped(why),
    };
    let probes = match &p.probes {
        Section::Done(r) => probes::native_reconciliation(r),
        Section::Skipped(why) => skipped(why),
    };
    let statuses = match &p.statuses {
        Section::Done(s) => statuses::parse(s),
        Section::Skipped(why) => skipped(why),
    };
    json!({
        "admission": check::native_verdict(&p.admission),
        "qos": {"before": p.qos.before.as_str(), "after": p.qos.after.as_str()},
        "allocation": allocation,
        "probes": probes,
        "statuses": statuses,
        "applies": p.applies(),
    })
}

fn wasm(c: &Case) -> Value {
    use podmut::output::{parse_subresource, qos_name};
    let sub = match parse_subresource(&c.subresource) {
        Ok(s) => s,
        Err(e) => return json!({"caseError": e}),
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
        Err(e) => return component_error(&e),
    };
    let allocation = p
        .allocation
        .as_ref()
        .map_or_else(|| skipped(&p.allocation_skipped), allocate::wasm_decision);
    let probes = p
        .probes
        .as_ref()
        .map_or_else(|| skipped(&p.probes_skipped), probes::wasm_reconciliation);
    let statuses = p
        .statuses
        .as_deref()
        .map_or_else(|| skipped(&p.statuses_skipped), statuses::parse);
    let applies = p.admission.allowed
        && p.allocation
            .as_ref()
            .is_none_or(|d| matches!(d.outcome, podmut::types::AllocationOutcome::Allocated));
    json!({
        "admission": check::wasm_verdict(&p.admission),
        "qos": {"before": qos_name(p.qos.before), "after": qos_name(p.qos.after)},
        "allocation": allocation,
        "probes": probes,
        "statuses": statuses,
        "applies": applies,
    })
}

/// An area's view of its answer.
type View = fn(&Value) -> Value;

/// Each section through its area's view (a skipped section as it is).
fn view(answer: &Value) -> Value {
    let mut v = answer.clone();
    let sections: [(&str, View); 4] = [
        ("admission", check::view),
        ("allocation", allocate::view),
        ("probes", probes::view),
        ("statuses", statuses::view),
    ];
    for (key, section_view) in sections {
        if let Some(s) = v.get_mut(key).filter(|s| s.get("skipped").is_none()) {
            *s = section_view(s);
        }
    }
    v
}
