//! The rollout report of a workload update in `podmut check` (and `plan`): what the running
//! Pods see, the template's changed Pod paths, and whether a running Pod would take the change
//! in place.

use serde_json::{Value, json};

use super::Failure;
use crate::runtime::Runtime;
use crate::types::{RolloutEffect, RolloutReport};

/// The report for `old` -> `new` when both are workloads; `None` for Pods, and with a component
/// that has no `workloads` interface.
pub(super) fn report(
    runtime: &Runtime,
    old: &str,
    new: &str,
    settings: &str,
    files: &[(&str, String)],
) -> Result<Option<RolloutReport>, Failure> {
    let files: Vec<(&str, &str)> = files.iter().map(|(i, f)| (*i, f.as_str())).collect();
    match runtime.rollout(old, new, settings) {
        None => Ok(None),
        Some(r) => r.map_err(|e| Failure::from_call(e, &files)),
    }
}

/// The effect's name in reports.
fn effect_name(e: RolloutEffect) -> &'static str {
    match e {
        RolloutEffect::Unchanged => "unchanged",
        RolloutEffect::Rollout => "rollout",
        RolloutEffect::OnDelete => "on-delete",
        RolloutEffect::NewPodsOnly => "new-pods-only",
        RolloutEffect::NextRun => "next-run",
        RolloutEffect::NoPods => "no-pods",
    }
}

/// The report as text lines after the verdict.
pub(super) fn text(r: &RolloutReport) -> String {
    let mut out = format!("{}: {}\n", effect_name(r.effect), r.summary);
    if !r.template_changes.is_empty() {
        out.push_str(&format!(
            "  template changes: {}\n",
            r.template_changes.join(", ")
        ));
    }
    if !r.other_changes.is_empty() {
        out.push_str(&format!("  other changes: {}\n", r.other_changes.join(", ")));
    }
    if r.in_place_judged {
        if r.in_place.is_empty() {
            out.push_str(&format!(
                "  in place: no; a running Pod would refuse it: {}\n",
                r.in_place_refused
            ));
        } else {
            out.push_str(&format!(
                "  in place: a running Pod would take it through {}\n",
                r.in_place.join(" then ")
            ));
        }
    }
    out
}

/// The report as the `rollout` key of `check -o json`.
pub(super) fn json(r: &RolloutReport) -> Value {
    let mut v = json!({
        "effect": effect_name(r.effect),
        "summary": r.summary,
        "templateChanges": r.template_changes,
        "otherChanges": r.other_changes,
    });
    if r.in_place_judged
        && let Some(o) = v.as_object_mut()
    {
        o.insert(
            "inPlace".into(),
            json!({ "paths": r.in_place, "refused": r.in_place_refused }),
        );
    }
    v
}
