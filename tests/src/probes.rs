//! `probes` cases: the kubelet's probe-worker plan for `old` -> `new` (with optional `settings`).
//!
//! Answer (both ways): `{"reconciled", "reason", "actions": [{"container", "containerList",
//! "probe", "action", "changedFields", "resetCounts", "cancelInFlight", "runPromptly", "nextRun",
//! "initialResult", "readyEffect", "startedEffect", "event", "notes"}]}`. A fixture's `expect` is
//! compared with it less `reason` and each action's `notes` (prose the kubelet does not publish).

use serde_json::{Value, json};

use crate::{Area, Case, component_error, json_text, native_input_error, runtime, settings_text};

/// The probes area.
pub const AREA: Area = Area { native, wasm, view };

/// One action of the answer: the fields in the WIT record's order.
struct Row<'a> {
    container: &'a str,
    list: &'a str,
    probe: &'a str,
    action: &'a str,
    changed: &'a [String],
    flags: (bool, bool, bool),
    next_run: &'a str,
    initial: Option<&'a str>,
    effects: (&'a str, &'a str),
    event: Option<&'a str>,
    notes: &'a [String],
}

impl Row<'_> {
    fn json(&self) -> Value {
        json!({
            "container": self.container,
            "containerList": self.list,
            "probe": self.probe,
            "action": self.action,
            "changedFields": self.changed,
            "resetCounts": self.flags.0,
            "cancelInFlight": self.flags.1,
            "runPromptly": self.flags.2,
            "nextRun": self.next_run,
            "initialResult": self.initial,
            "readyEffect": self.effects.0,
            "startedEffect": self.effects.1,
            "event": self.event,
            "notes": self.notes,
        })
    }
}

fn native(c: &Case) -> Value {
    native_answer(
        &json_text(c.old.as_ref()).unwrap_or_default(),
        &json_text(c.new.as_ref()).unwrap_or_default(),
        &settings_text(c),
    )
}

fn wasm(c: &Case) -> Value {
    wasm_answer(
        &json_text(c.old.as_ref()).unwrap_or_default(),
        &json_text(c.new.as_ref()).unwrap_or_default(),
        &settings_text(c),
    )
}

/// podmut-core's answer to `probe-plan(old, new, settings)`.
pub fn native_answer(old: &str, new: &str, settings: &str) -> Value {
    match podmut_core::probe_plan_documents(old, new, settings) {
        Ok(p) => native_reconciliation(&p),
        Err(e) => native_input_error(&e),
    }
}

/// podmut-core's probe plan as the answer (also a `plan` case's probes).
pub(crate) fn native_reconciliation(p: &podmut_core::ProbeReconciliation) -> Value {
    let podmut_core::ProbeReconciliation {
        reconciled,
        reason,
        actions,
    } = p;
    let actions: Vec<Value> = actions
        .iter()
        .map(|a| {
            let podmut_core::ProbeAction {
                container,
                container_list,
                probe,
                action,
                changed_fields,
                reset_counts,
                cancel_in_flight,
                run_promptly,
                next_run,
                initial_result,
                ready_effect,
                started_effect,
                event,
                notes,
            } = a;
            Row {
                container,
                list: container_list,
                probe: probe.as_str(),
                action: action.as_str(),
                changed: changed_fields,
                flags: (*reset_counts, *cancel_in_flight, *run_promptly),
                next_run,
                initial: initial_result.as_deref(),
                effects: (ready_effect, started_effect),
                event: event.as_deref(),
                notes,
            }
            .json()
        })
        .collect();
    json!({"reconciled": reconciled, "reason": reason, "actions": actions})
}

/// The component's answer to `probe-plan(old, new, settings)`.
pub fn wasm_answer(old: &str, new: &str, settings: &str) -> Value {
    match runtime().probe_plan(old, new, settings) {
        Ok(p) => wasm_reconciliation(&p),
        Err(e) => component_error(&e),
    }
}

/// The component's probe plan as the answer, in [`native_reconciliation`]'s shape.
pub(crate) fn wasm_reconciliation(
    p: &podmut::bindings::exports::podmut::policy::node::ProbeReconciliation,
) -> Value {
    use podmut::bindings::exports::podmut::policy::node;
    let node::ProbeReconciliation {
        reconciled,
        reason,
        actions,
    } = p;
    let actions: Vec<Value> = actions
        .iter()
        .map(|a| {
            let node::ProbeAction {
                container,
                container_list,
                probe,
                action,
                changed_fields,
                reset_counts,
                cancel_in_flight,
                run_promptly,
                next_run,
                initial_result,
                ready_effect,
                started_effect,
                event,
                notes,
            } = a;
            Row {
                container,
                list: container_list,
                probe,
                action,
                changed: changed_fields,
                flags: (*reset_counts, *cancel_in_flight, *run_promptly),
                next_run,
                initial: initial_result.as_deref(),
                effects: (ready_effect, started_effect),
                event: event.as_deref(),
                notes,
            }
            .json()
        })
        .collect();
    json!({"reconciled": reconciled, "reason": reason, "actions": actions})
}

/// The answer less `reason` and the actions' `notes`.
pub(crate) fn view(answer: &Value) -> Value {
    let mut v = answer.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("reason");
    }
    if let Some(actions) = v.get_mut("actions").and_then(Value::as_array_mut) {
        for a in actions {
            if let Some(o) = a.as_object_mut() {
                o.remove("notes");
            }
        }
    }
    v
}
