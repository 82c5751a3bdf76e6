//! `podmut plan`: one report of what a Pod change does end to end, from the component's
//! `report.plan` — the API server's verdict, QoS before and after, the kubelet's allocation, the
//! probe plan and the container statuses right after. The text reads like `terraform plan`.
//!
//! `--policy FILE` keeps naming the component, as in every command; plan also takes
//! ValidatingAdmissionPolicies there: each file is sniffed — the WebAssembly magic
//! `\0asm` (or a `.wasm` name) is the component, anything else holds policies and bindings, which
//! the component's `policies.evaluate` judges beside `report.plan` (the `vap` section).

use std::io::Read as _;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{Value, json};

use super::check::SettingsArgs;
use super::inputs::{ValidateArgs, print_warnings, read_file};
use super::vap::{
    ContextArgs, evaluate, report_json, report_text, type_check, type_checking_json, type_checking_text,
};
use super::{Failure, OutputFormat, PolicyArgs, emit, read_input};
use crate::output::{
    allocation_json, outcome_name, parse_subresource, probe_plan_json, qos_name, statuses_text,
    subresource_api_name, to_json_string, to_yaml_string, verdict_json,
};
use crate::runtime::{PlanRequest, Runtime};
use crate::types::{AllocationOutcome, DocumentKind, Plan, Subresource, VapReport, VapRequest, VapTypeCheck};

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
    /// The component (.wasm) to run instead of the embedded one, or a file of
    /// ValidatingAdmissionPolicies and bindings to evaluate on the change (repeatable; told apart
    /// by the WebAssembly magic). Without a .wasm, $PODMUT_POLICY names the component.
    #[arg(long, value_name = "FILE")]
    policy: Vec<PathBuf>,
    #[command(flatten)]
    context: ContextArgs,
    /// Directory for compiled components (default: $XDG_CACHE_HOME/podmut or ~/.cache/podmut).
    #[arg(long, value_name = "DIR", env = "PODMUT_CACHE_DIR")]
    cache_dir: Option<PathBuf>,
    /// Compile the component in memory every time.
    #[arg(long)]
    no_cache: bool,
}

/// What plan's `--policy` files hold: at most one component, and any number of policy files.
struct PolicyFiles {
    component: PolicyArgs,
    /// (path, text) of each file of ValidatingAdmissionPolicies and bindings.
    vaps: Vec<(PathBuf, String)>,
}

/// The WebAssembly binary magic every component starts with.
const WASM_MAGIC: &[u8; 4] = b"\0asm";

/// Whether `path` names a WebAssembly file: its first bytes are the magic, or (unreadable, or
/// not WebAssembly at all) it is called `*.wasm` — so a broken component still fails as one
/// (exit 3, "not a WebAssembly component"), not as a policy file that does not parse.
fn is_wasm(path: &Path) -> bool {
    if path == Path::new("-") {
        return false;
    }
    let mut head = [0u8; 4];
    let magic = std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == WASM_MAGIC);
    magic || path.extension().is_some_and(|e| e.eq_ignore_ascii_case("wasm"))
}

impl PlanArgs {
    /// Sort the `--policy` files into the component and the policy files (read here).
    fn policy_files(&self) -> Result<PolicyFiles, Failure> {
        let (wasm, vaps): (Vec<&PathBuf>, Vec<&PathBuf>) = self.policy.iter().partition(|p| is_wasm(p));
        let component = match wasm.as_slice() {
            [] => std::env::var_os("PODMUT_POLICY")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
            [one] => Some((*one).clone()),
            [a, b, ..] => {
                return Err(Failure::input(format!(
                    "--policy: at most one component (.wasm) runs the plan, got {} and {}",
                    a.display(),
                    b.display()
                )));
            }
        };
        let vaps = vaps
            .into_iter()
            .map(|p| Ok((p.clone(), read_input(p, "--policy")?)))
            .collect::<Result<_, Failure>>()?;
        Ok(PolicyFiles {
            component: PolicyArgs {
                policy: component,
                cache_dir: self.cache_dir.clone(),
                no_cache: self.no_cache,
            },
            vaps,
        })
    }
}

/// The `vap` section: evaluated, or why not.
enum VapSection {
    /// No policy files were given.
    NotAsked,
    /// Not evaluated (the API server's own validation denies first).
    Skipped(String),
    /// The report, and the type-checking warnings (`--type-check warn`).
    Evaluated(VapReport, Vec<VapTypeCheck>),
}

impl VapSection {
    fn denies(&self) -> bool {
        matches!(self, Self::Evaluated(r, _) if !r.allowed)
    }
}

/// Why validating admission is not reached when the API server's validation denies: the registry
/// validates the object (`rest.BeforeCreate`/`BeforeUpdate`) before it calls validating admission.
const VAP_AFTER_VALIDATION: &str = "the API server's validation denies the change, and \
ValidatingAdmissionPolicies run only after it (`podmut vap` evaluates them anyway)";

/// Type-check the policy files (as `podmut vap --type-check` does: under `error` a misspelled field
/// is bad input even when the API server denies first) and evaluate them on the change the plan
/// judged (its old and new Pods as read).
fn evaluate_vaps(
    a: &PlanArgs,
    runtime: &Runtime,
    vaps: &[(PathBuf, String)],
    (old, new): (&str, &str),
    admitted: bool,
) -> Result<VapSection, Failure> {
    if vaps.is_empty() {
        return Ok(VapSection::NotAsked);
    }
    let request = VapRequest {
        old_object: Some(old.to_owned()),
        object: Some(new.to_owned()),
        subresource: subresource_api_name(a.subresource).to_owned(),
        ..a.context
            .request(vaps.iter().map(|(_, text)| text.clone()).collect())?
    };
    let paths: Vec<PathBuf> = vaps.iter().map(|(p, _)| p.clone()).collect();
    let checks = type_check(runtime, &request, &paths, a.context.type_check)?;
    if !admitted {
        return Ok(VapSection::Skipped(VAP_AFTER_VALIDATION.to_owned()));
    }
    let report = evaluate(
        runtime,
        &request,
        &paths,
        &[
            ("old-pod", Some(&a.old)),
            ("new-pod", Some(&a.new)),
            ("params", a.context.params.as_ref()),
        ],
    )?;
    Ok(VapSection::Evaluated(report, checks))
}

/// Under a policy's denial nothing reaches the node: the node-side sections say so.
fn skip_node_side(plan: &mut Plan) {
    let why = "a ValidatingAdmissionPolicy denies the change: nothing reaches the node".to_owned();
    if plan.allocation.take().is_some() {
        plan.allocation_skipped.clone_from(&why);
    }
    if plan.probes.take().is_some() {
        plan.probes_skipped.clone_from(&why);
    }
    if plan.statuses.take().is_some() {
        plan.statuses_skipped = why;
    }
}

pub(crate) fn run(a: &PlanArgs) -> Result<u8, Failure> {
    let (settings, settings_source) = a.settings.document(false)?;
    let policy_files = a.policy_files()?;
    let runtime = policy_files.component.runtime()?;
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
    let mut plan = runtime.plan(&request).map_err(|e| {
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
    let vap = evaluate_vaps(
        a,
        &runtime,
        &policy_files.vaps,
        (&old, &new),
        plan.admission.allowed,
    )?;
    if vap.denies() {
        skip_node_side(&mut plan);
    }
    let rollout = if plan.admission.allowed {
        let files = [("settings", settings_source)];
        super::rollout::report(&runtime, &old, &new, &settings, &files)?
    } else {
        None
    };
    let applies = applies(&plan, &vap);
    match a.output {
        OutputFormat::Text => {
            emit(&plan_text(&plan, &vap, a.subresource));
            if let Some(r) = &rollout {
                emit(&format!("Pods: {}", super::rollout::text(r)));
            }
            print_warnings(&plan.admission.warnings);
            print_warnings(&warnings);
        }
        OutputFormat::Json | OutputFormat::Yaml => {
            let mut v = plan_json(&plan, &vap, &warnings);
            if let (Some(r), Some(o)) = (&rollout, v.as_object_mut()) {
                o.insert("rollout".into(), super::rollout::json(r));
            }
            if a.output == OutputFormat::Json {
                emit(&to_json_string(&v));
            } else {
                emit(&to_yaml_string(&v));
            }
        }
    }
    Ok(if applies { 0 } else { 1 })
}

/// Admitted (by the API server and every policy), and allocated when a node was given.
fn applies(plan: &Plan, vap: &VapSection) -> bool {
    plan.admission.allowed
        && !vap.denies()
        && plan
            .allocation
            .as_ref()
            .is_none_or(|d| matches!(d.outcome, AllocationOutcome::Allocated))
}

fn skipped(why: &str) -> Value {
    json!({ "skipped": why })
}

/// The `plan -o json` object: `{"admission", "vap", "qos", "allocation", "probes", "statuses",
/// "applies"}`; a section that was not computed is `{"skipped": "<why>"}`; `vap` is `podmut vap -o
/// json`'s object.
fn plan_json(plan: &Plan, vap_section: &VapSection, field_warnings: &[String]) -> Value {
    let mut admission = verdict_json(&plan.admission);
    if let Some(w) = admission.get_mut("warnings").and_then(Value::as_array_mut) {
        w.extend(field_warnings.iter().map(|s| json!(s)));
    }
    let before = qos_name(plan.qos.before);
    let after = qos_name(plan.qos.after);
    let vap = match vap_section {
        VapSection::NotAsked => {
            skipped("no ValidatingAdmissionPolicies given (--policy FILE with policies and bindings)")
        }
        VapSection::Skipped(why) => skipped(why),
        VapSection::Evaluated(r, checks) => {
            let mut v = report_json(r);
            if let Some(obj) = v.as_object_mut() {
                obj.insert("typeChecking".into(), type_checking_json(checks));
            }
            v
        }
    };
    json!({
        "admission": admission,
        "vap": vap,
        "qos": {"before": before, "after": after, "changed": before != after},
        "allocation": plan.allocation.as_ref().map_or_else(|| skipped(&plan.allocation_skipped), allocation_json),
        "probes": plan.probes.as_ref().map_or_else(|| skipped(&plan.probes_skipped), probe_plan_json),
        "statuses": plan
            .statuses
            .as_ref()
            .and_then(|s| serde_json::from_str::<Value>(s).ok())
            .unwrap_or_else(|| skipped(&plan.statuses_skipped)),
        "applies": applies(plan, vap_section),
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

/// The `vap` block of the text: the verdict, then `podmut vap`'s lines (policies, validations,
/// warnings, audit annotations) indented below it. Nothing when no policies were given.
fn vap_text(vap: &VapSection) -> String {
    match vap {
        VapSection::NotAsked => String::new(),
        VapSection::Skipped(why) => format!("  vap: (not evaluated) {why}\n"),
        VapSection::Evaluated(r, checks) => {
            let mut out = if r.allowed {
                "  vap: allowed\n".to_owned()
            } else {
                format!("  vap: denied: {}\n", r.message)
            };
            let text = type_checking_text(checks);
            let report = report_text(r);
            let lines = text.lines().chain(report.lines().skip(1));
            for line in lines.filter(|l| !l.trim().is_empty()) {
                out.push_str("    ");
                out.push_str(line);
                out.push('\n');
            }
            out
        }
    }
}

/// The `plan -o text` rendering, like `terraform plan`: one block per section with `+`/`~`/`-`
/// marks, then a one-line summary.
fn plan_text(plan: &Plan, vap: &VapSection, sub: Subresource) -> String {
    let path = crate::output::subresource_resource(sub);
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
    out.push_str(&vap_text(vap));
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
    out.push_str(&summary(plan, vap));
    out
}

fn summary(plan: &Plan, vap: &VapSection) -> String {
    if let VapSection::Evaluated(r, _) = vap
        && !r.allowed
    {
        let n = r.decisions.iter().filter(|d| d.action == "Deny").count();
        return format!(
            "Plan: the API server admits the change, but ValidatingAdmissionPolicies deny it ({n} decision{}).\n",
            if n == 1 { "" } else { "s" }
        );
    }
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
