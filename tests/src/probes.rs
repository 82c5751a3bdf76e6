//! `probes` cases: the kubelet's probe-worker plan for `old` -> `new` (with optional `settings`).
//!
//! Outcome: `{"reconciled", "actions": [{"container", "containerList", "probe", "action",
//! "changedFields", "resetCounts", "cancelInFlight", "runPromptly", "nextRun", "initialResult",
//! "readyEffect", "startedEffect", "event"}]}` or `{"inputError": text}`.

use serde_json::{Value, json};

use crate::{Area, Case, input_error, json_text, runtime, settings_text};

/// The probes area.
pub const AREA: Area = Area { native, wasm };

#[expect(
    clippy::too_many_arguments,
    reason = "one flat row per probe action keeps native and wasm summaries identical"
)]
fn row(
    container: &str,
    list: &str,
    probe: &str,
    action: &str,
    changed: &[String],
    flags: (bool, bool, bool),
    next_run: &str,
    initial: Option<&str>,
    effects: (&str, &str),
    event: Option<&str>,
) -> Value {
    json!({
        "container": container,
        "containerList": list,
        "probe": probe,
        "action": action,
        "changedFields": changed,
        "resetCounts": flags.0,
        "cancelInFlight": flags.1,
        "runPromptly": flags.2,
        "nextRun": next_run,
        "initialResult": initial,
        "readyEffect": effects.0,
        "startedEffect": effects.1,
        "event": event,
    })
}

fn native(c: &Case) -> Value {
    let old = json_text(c.old.as_ref()).unwrap_or_default();
    let new = json_text(c.new.as_ref()).unwrap_or_default();
    match podmut_core::probe_plan_documents(&old, &new, &settings_text(c)) {
        Ok(p) => {
            let actions: Vec<Value> = p
                .actions
                .iter()
                .map(|a| {
                    row(
                        &a.container,
                        &a.container_list,
                        a.probe.as_str(),
                        a.action.as_str(),
                        &a.changed_fields,
                        (a.reset_counts, a.cancel_in_flight, a.run_promptly),
                        &a.next_run,
                        a.initial_result.as_deref(),
                        (&a.ready_effect, &a.started_effect),
                        a.event.as_deref(),
                    )
                })
                .collect();
            json!({"reconciled": p.reconciled, "actions": actions})
        }
        Err(e) => input_error(e.to_string()),
    }
}

fn wasm(c: &Case) -> Value {
    let old = json_text(c.old.as_ref()).unwrap_or_default();
    let new = json_text(c.new.as_ref()).unwrap_or_default();
    match runtime().probe_plan(&old, &new, &settings_text(c)) {
        Ok(p) => {
            let actions: Vec<Value> = p
                .actions
                .iter()
                .map(|a| {
                    row(
                        &a.container,
                        &a.container_list,
                        &a.probe,
                        &a.action,
                        &a.changed_fields,
                        (a.reset_counts, a.cancel_in_flight, a.run_promptly),
                        &a.next_run,
                        a.initial_result.as_deref(),
                        (&a.ready_effect, &a.started_effect),
                        a.event.as_deref(),
                    )
                })
                .collect();
            json!({"reconciled": p.reconciled, "actions": actions})
        }
        Err(e) => input_error(e.to_string()),
    }
}
