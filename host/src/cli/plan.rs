//! `podmut plan`: one report of what a Pod change does end to end, from the component's
//! `report.plan` — the API server's verdict, QoS before and after, the kubelet's allocation, the
//! probe plan and the container statuses right after. The text reads like `terraform plan`.

use std::path::PathBuf;

use clap::Args;
use serde_json::{Value, json};

use super::check::SettingsArgs;
use super::inputs::{ValidateArgs, print_warnings, read_file};
use super::{Failure, OutputFormat, PolicyArgs, emit};
use crate::output::{
    allocation_json, outcome_name, parse_subresource, probe_plan_json, qos_name, statuses_text,
    to_json_string, to_yaml_string, verdict_json,
};
use crate::runtime::PlanRequest;
use crate::types::{AllocationOutcome, DocumentKind, Plan, Subresource};

/// Arguments of `podmut plan`.
#[derive(Debug, Args)]
pub(crate) struct PlanArgs {
    /// The Pod before the change (YAML or JSON; `-` for stdin).
    #[arg(long, value_name = "FILE")]
    old: PathBuf,
    /// The Pod after the change.
    #[arg(long, value_name = "FILE")]
    new: PathBuf,
    /// The request path: none, dynamic, ephemeralcontainers, resize, status.
    #[arg(long, default_value = "none", value_parser = parse_subresource, value_name = "SUBRESOURCE")]
    subresource: Subresource,
    /// The v1 Node the Pod runs on (with status.allocatable): adds the kubelet's allocation.
    #[arg(long, value_name = "FILE")]
    node: Option<PathBuf>,
    /// The other Pods on the node, as allocated (a list, a List or a multi-document stream).
    #[arg(long, value_name = "FILE", requires = "node")]
    pods: Option<PathBuf>,
    #[command(flatten)]
    settings: SettingsArgs,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    validate: ValidateArgs,
    #[command(flatten)]
    policy: PolicyArgs,
}

pub(crate) fn run(a: &PlanArgs) -> Result<u8, Failure> {
    let (settings, settings_source) = a.settings.document(false)?;
    let runtime = a.policy.runtime()?;
    let mut warnings = Vec::new();
    let mut one = |path: &PathBuf, flag: &str, input: &str, kind: DocumentKind| -> Result<String, Failure> {
        let (doc, w) = read_file(&runtime, path, flag, input, kind, a.validate)?.single()?;
        warnings.extend(w);
        Ok(doc.json)
    };
    let old = one(&a.old, "--old", "old-pod", DocumentKind::Pod)?;
    let new = one(&a.new, "--new", "new-pod", DocumentKind::Pod)?;
    let node = a
        .node
        .as_ref()
        .map(|p| one(p, "--node", "node", DocumentKind::Node))
        .transpose()?;
    let pods = match &a.pods {
        Some(p) => {
            let read = read_file(&runtime, p, "--pods", "pods", DocumentKind::Pod, a.validate)?;
            let mut items = Vec::new();
            for d in &read.docs {
                if let Some(e) = &d.error {
                    return Err(Failure::input(format!(
                        "{}: item {}: {e}",
                        read.file,
                        d.index.saturating_sub(1)
                    )));
                }
                warnings.extend(read.warnings_of(d));
                items.push(serde_json::from_str::<Value>(&d.json).unwrap_or(Value::Null));
            }
            Some(Value::Array(items).to_string())
        }
        None => None,
    };
    let request = PlanRequest {
        old: &old,
        new: &new,
        sub: a.subresource,
        node: node.as_deref(),
        pods: pods.as_deref(),
        settings: &settings,
    };
    let files = |p: &Option<PathBuf>, flag: &str| {
        p.as_ref()
            .map_or_else(|| flag.to_owned(), |p| p.display().to_string())
    };
    let plan = runtime.plan(&request).map_err(|e| {
        Failure::from_call(
            e,
            &[
                ("old-pod", &a.old.display().to_string()),
                ("new-pod", &a.new.display().to_string()),
                ("node", &files(&a.node, "--node")),
                ("pods", &files(&a.pods, "--pods")),
                ("settings", &settings_source),
            ],
        )
    })?;
    let applies = applies(&plan);
    match a.output {
        OutputFormat::Text => {
            emit(&plan_text(&plan, a.subresource));
            print_warnings(&plan.admission.warnings);
            print_warnings(&warnings);
        }
        OutputFormat::Json => emit(&to_json_string(&plan_json(&plan, &warnings))),
        OutputFormat::Yaml => emit(&to_yaml_string(&plan_json(&plan, &warnings))),
    }
    Ok(if applies { 0 } else { 1 })
}

/// Admitted, and allocated when a node was given.
fn applies(plan: &Plan) -> bool {
    plan.admission.allowed
        && plan
            .allocation
            .as_ref()
            .is_none_or(|d| matches!(d.outcome, AllocationOutcome::Allocated))
}

fn skipped(why: &str) -> Value {
    json!({ "skipped": why })
}

/// The `plan -o json` object: `{"admission", "qos", "allocation", "probes", "statuses", "applies"}`;
/// a section that was not computed is `{"skipped": "<why>"}`.
pub(crate) fn plan_json(plan: &Plan, field_warnings: &[String]) -> Value {
    let mut admission = verdict_json(&plan.admission);
    if let Some(w) = admission.get_mut("warnings").and_then(Value::as_array_mut) {
        w.extend(field_warnings.iter().map(|s| json!(s)));
    }
    let before = qos_name(plan.qos.before);
    let after = qos_name(plan.qos.after);
    json!({
        "admission": admission,
        "qos": {"before": before, "after": after, "changed": before != after},
        "allocation": plan.allocation.as_ref().map_or_else(|| skipped(&plan.allocation_skipped), allocation_json),
        "probes": plan.probes.as_ref().map_or_else(|| skipped(&plan.probes_skipped), probe_plan_json),
        "statuses": plan
            .statuses
            .as_ref()
            .and_then(|s| serde_json::from_str::<Value>(s).ok())
            .unwrap_or_else(|| skipped(&plan.statuses_skipped)),
        "applies": applies(plan),
    })
}

fn change_mark(kind: &str) -> char {
    match kind {
        "add-container" | "add" | "start" => '+',
        "remove-container" | "remove" | "stop" => '-',
        "none" => ' ',
        _ => '~',
    }
}

/// The `plan -o text` rendering, like `terraform plan`: one block per section with `+`/`~`/`-`
/// marks, then a one-line summary.
pub(crate) fn plan_text(plan: &Plan, sub: Subresource) -> String {
    let path = match sub {
        Subresource::None => "pods".to_owned(),
        other => format!("pods/{}", crate::output::subresource_name(other)),
    };
    let mut out = format!("podmut plan ({path}):\n\n");
    let v = &plan.admission;
    if v.allowed {
        out.push_str("  admission: allowed\n");
    } else {
        out.push_str(&format!("  admission: denied: {}\n", v.message));
        if v.errors.len() > 1 {
            for e in &v.errors {
                out.push_str(&format!("    ! {}: {}  [{}]\n", e.field, e.message, e.origin));
            }
        } else if let Some(e) = v.errors.first() {
            out.push_str(&format!("    ! [{}]\n", e.origin));
        }
    }
    let (before, after) = (qos_name(plan.qos.before), qos_name(plan.qos.after));
    if before == after {
        out.push_str(&format!("  qos: {after} (unchanged)\n"));
    } else {
        out.push_str(&format!("  qos: {before} -> {after}\n"));
    }
    match &plan.allocation {
        Some(d) => {
            out.push_str(&format!("  allocation: {}", outcome_name(d.outcome)));
            if !d.message.is_empty() {
                out.push_str(&format!(": {}", d.message));
            }
            out.push('\n');
            for c in &d.changes {
                let who = if c.container.is_empty() {
                    "pod"
                } else {
                    &c.container
                };
                out.push_str(&format!(
                    "    {} {} {who}: {}\n",
                    change_mark(&c.kind),
                    c.kind,
                    c.detail
                ));
            }
            for n in &d.notes {
                out.push_str(&format!("    note: {n}\n"));
            }
        }
        None => out.push_str(&format!(
            "  allocation: (not planned) {}\n",
            plan.allocation_skipped
        )),
    }
    match &plan.probes {
        Some(p) => {
            if p.reconciled {
                out.push_str("  probes: reconciled\n");
            } else {
                out.push_str(&format!("  probes: not reconciled as mutable: {}\n", p.reason));
            }
            for act in &p.actions {
                out.push_str(&format!(
                    "    {} {} {}/{} {}: next-run={}\n",
                    change_mark(&act.action),
                    act.action,
                    act.container_list,
                    act.container,
                    act.probe,
                    act.next_run
                ));
            }
        }
        None => out.push_str(&format!("  probes: (not planned) {}\n", plan.probes_skipped)),
    }
    match plan
        .statuses
        .as_ref()
        .and_then(|s| serde_json::from_str::<Value>(s).ok())
    {
        Some(report) => {
            out.push_str("  statuses right after: ");
            for line in statuses_text(&report).lines() {
                out.push_str(line.trim_start());
                out.push_str("\n    ");
            }
            out.truncate(out.trim_end().len());
            out.push('\n');
        }
        None => out.push_str(&format!(
            "  statuses right after: (not planned) {}\n",
            plan.statuses_skipped
        )),
    }
    out.push('\n');
    out.push_str(&summary(plan));
    out
}

fn summary(plan: &Plan) -> String {
    if !plan.admission.allowed {
        let n = plan.admission.errors.len();
        return format!(
            "Plan: the API server denies the change ({n} error{}).\n",
            if n == 1 { "" } else { "s" }
        );
    }
    let Some(d) = &plan.allocation else {
        return "Plan: the API server admits the change; give --node to see the kubelet's allocation.\n"
            .into();
    };
    let count = |kinds: &[&str]| {
        d.changes
            .iter()
            .filter(|c| kinds.contains(&c.kind.as_str()))
            .count()
    };
    let (add, change, remove) = (
        count(&["add-container"]),
        count(&["resize-container", "update-image", "resize-pod"]),
        count(&["remove-container"]),
    );
    let what = format!("{add} to add, {change} to change, {remove} to remove");
    match d.outcome {
        AllocationOutcome::Allocated => format!("Plan: admitted and allocated: {what}.\n"),
        other => format!(
            "Plan: admitted, but the kubelet does not allocate it ({}): {what} wait.\n",
            outcome_name(other)
        ),
    }
}
