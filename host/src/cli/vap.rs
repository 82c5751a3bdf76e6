//! `podmut vap`: evaluate ValidatingAdmissionPolicies (and their bindings) on one Pod change,
//! offline, as the API server's admission plugin would — inside the component.
//!
//! Exit codes: 0 allowed, 1 denied (some decision is `Deny`), 2 bad input (including a policy
//! whose CEL does not compile and, under `--type-check error` (the default), an expression that
//! does not type-check against the Pod schema: the message names the policy, the field and the
//! column).

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use serde_json::{Map, Value, json};

use super::coverage::parse_labels;
use super::{Failure, OutputFormat, PolicyArgs, emit, read_input};
use crate::error::CallError;
use crate::output::{parse_subresource, subresource_api_name, to_json_string, to_yaml_string};
use crate::runtime::Runtime;
use crate::types::{VapReport, VapRequest, VapTypeCheck};

mod cel;
mod generate;
mod guard_cel;

/// `podmut vap`'s subcommands.
#[derive(Debug, Subcommand)]
enum VapCommand {
    /// Print podmut's settings that CEL can express (the strict profile, allowPrivileged,
    /// memoryLimitDecrease) as ValidatingAdmissionPolicies and bindings, for kubectl apply.
    Generate(generate::GenerateArgs),
}

/// What a type-checking warning does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum TypeCheck {
    /// A misspelled field is bad input (exit 2), like a compile error.
    #[default]
    Error,
    /// The API server's behaviour: evaluate anyway and print the warnings (status.typeChecking).
    Warn,
}

/// Arguments of `podmut vap`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(crate) struct VapArgs {
    #[command(subcommand)]
    command: Option<VapCommand>,
    /// ValidatingAdmissionPolicies and ValidatingAdmissionPolicyBindings
    /// (admissionregistration.k8s.io/v1; YAML stream, JSON list or List); repeat for several files.
    #[arg(long = "policy", value_name = "FILE", required = true)]
    policies: Vec<PathBuf>,
    /// The Pod before the change (without it the request is a CREATE).
    #[arg(long, value_name = "FILE", conflicts_with = "review")]
    old: Option<PathBuf>,
    /// The object after the change: a Pod or a workload. Repeat it, name a directory (its .yaml,
    /// .yml and .json files), or give a stream or a List for many objects: each is then a CREATE,
    /// with a line per object and a summary.
    #[arg(
        long,
        value_name = "FILE|DIR",
        required_unless_present = "review",
        conflicts_with = "review"
    )]
    new: Vec<PathBuf>,
    /// With a directory in --new, also read its subdirectories (as kubectl -R).
    #[arg(short = 'R', long)]
    recursive: bool,
    /// The request path: none (the main resource), dynamic, ephemeralcontainers, resize, status.
    #[arg(
        long,
        value_name = "SUBRESOURCE",
        default_value = "none",
        value_parser = parse_request_path,
        conflicts_with = "review"
    )]
    subresource: String,
    /// An admission.k8s.io/v1 AdmissionReview instead of --old/--new (its operation, user and
    /// subresource are used).
    #[arg(long, value_name = "FILE")]
    review: Option<PathBuf>,
    #[command(flatten)]
    context: ContextArgs,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t)]
    output: OutputFormat,
    /// Run this component (.wasm) instead of the embedded one (`--policy` names the policies here).
    #[arg(long, value_name = "FILE.wasm", env = "PODMUT_POLICY")]
    component: Option<PathBuf>,
    /// Directory for compiled components (default: $XDG_CACHE_HOME/podmut or ~/.cache/podmut).
    #[arg(long, value_name = "DIR", env = "PODMUT_CACHE_DIR")]
    cache_dir: Option<PathBuf>,
    /// Compile the component in memory every time.
    #[arg(long)]
    no_cache: bool,
}

/// What the policies see besides the Pods: params, the namespace's labels, the user, and what a
/// type-checking warning does (`podmut vap` and `podmut plan --policy`).
#[derive(Debug, Args)]
pub(crate) struct ContextArgs {
    /// Params objects for policies with paramKind (YAML stream, JSON list or List).
    #[arg(long, value_name = "FILE")]
    pub(crate) params: Option<PathBuf>,
    /// The namespace's labels, for namespaceSelectors and namespaceObject: k=v,k=v
    /// (kubernetes.io/metadata.name is always set to the Pod's namespace).
    #[arg(long, value_name = "K=V,...")]
    namespace_labels: Option<String>,
    /// The requesting user (request.userInfo.username).
    #[arg(long, value_name = "NAME")]
    user: Option<String>,
    /// What an expression that does not type-check against the Pod schema (e.g. a misspelled
    /// field) does: error = bad input (exit 2); warn = evaluate anyway and report it under
    /// typeChecking, as the API server does.
    #[arg(long, value_enum, default_value_t)]
    pub(crate) type_check: TypeCheck,
}

impl ContextArgs {
    /// A request of `policies` on these params, labels and user; the Pods and subresource unset.
    pub(crate) fn request(&self, policies: Vec<String>) -> Result<VapRequest, Failure> {
        Ok(VapRequest {
            policies,
            old_object: None,
            object: None,
            subresource: String::new(),
            review: None,
            params: read_opt(self.params.as_ref(), "--params")?,
            namespace_labels: self
                .namespace_labels
                .as_deref()
                .map(|s| parse_labels("--namespace-labels", s))
                .transpose()?,
            user: self.user.clone(),
        })
    }
}

/// The `typeChecking` list of `vap -o json`: each policy with warnings, as its
/// `status.typeChecking` would be.
pub(crate) fn type_checking_json(checks: &[VapTypeCheck]) -> Value {
    Value::Array(
        checks
            .iter()
            .map(|c| {
                json!({
                    "policy": c.policy,
                    "expressionWarnings": c.expression_warnings.iter().map(|w| json!({
                        "fieldRef": w.field_ref,
                        "warning": w.warning,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

/// The type-checking warnings as text, one per expression.
pub(crate) fn type_checking_text(checks: &[VapTypeCheck]) -> String {
    let mut s = String::new();
    for c in checks {
        for w in &c.expression_warnings {
            let _ = writeln!(
                s,
                "type checking: policy {} {}: {}",
                c.policy,
                w.field_ref,
                w.warning.trim_end().replace('\n', "\n  ")
            );
        }
    }
    s
}

/// The `vap -o json` object.
pub(crate) fn report_json(r: &VapReport) -> Value {
    let decisions: Vec<Value> = r
        .decisions
        .iter()
        .map(|d| {
            let mut v = json!({
                "policy": d.policy,
                "binding": d.binding,
                "action": d.action,
                "message": d.message,
            });
            if let Some(obj) = v.as_object_mut() {
                if let Some(e) = &d.expression {
                    obj.insert("expression".into(), json!(e));
                }
                if let Some(reason) = &d.reason {
                    obj.insert("reason".into(), json!(reason));
                }
            }
            v
        })
        .collect();
    let evaluations: Vec<Value> = r
        .evaluations
        .iter()
        .map(|e| {
            let mut v = json!({
                "policy": e.policy,
                "evaluated": e.evaluated,
                "detail": e.detail,
                "validations": e.validations.iter().map(|v| json!({
                    "index": v.index,
                    "expression": v.expression,
                    "outcome": v.outcome,
                    "message": v.message,
                })).collect::<Vec<_>>(),
            });
            if let Some(obj) = v.as_object_mut() {
                if let Some(b) = &e.binding {
                    obj.insert("binding".into(), json!(b));
                }
                if let Some(p) = &e.params {
                    obj.insert("params".into(), json!(p));
                }
            }
            v
        })
        .collect();
    let annotations: Map<String, Value> = r
        .audit_annotations
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    json!({
        "allowed": r.allowed,
        "message": r.message,
        "decisions": decisions,
        "warnings": r.warnings,
        "auditAnnotations": annotations,
        "evaluations": evaluations,
        "notes": r.notes,
    })
}

pub(crate) fn report_text(r: &VapReport) -> String {
    let mut s = String::new();
    if r.allowed {
        let _ = writeln!(s, "ALLOWED");
    } else {
        let _ = writeln!(s, "DENIED: {}", r.message);
    }
    for e in &r.evaluations {
        let binding = e
            .binding
            .as_deref()
            .map(|b| format!(" binding {b}"))
            .unwrap_or_default();
        let params = e
            .params
            .as_deref()
            .map(|p| format!(" params {p}"))
            .unwrap_or_default();
        let state = if e.evaluated {
            "evaluated".to_owned()
        } else {
            e.detail.clone()
        };
        let _ = writeln!(s, "\npolicy {}{binding}{params}: {state}", e.policy);
        if e.evaluated && !e.detail.is_empty() {
            let _ = writeln!(s, "  {}", e.detail);
        }
        for v in &e.validations {
            let first_line = v.expression.lines().next().unwrap_or_default();
            let _ = writeln!(s, "  [{}] {:<5} {first_line}", v.index, v.outcome);
            if !v.message.is_empty() {
                let _ = writeln!(s, "            {}", v.message);
            }
        }
    }
    for d in r.decisions.iter().filter(|d| d.action != "Deny") {
        let _ = writeln!(
            s,
            "\n{}: {} ({}/{})",
            d.action.to_lowercase(),
            d.message,
            d.policy,
            d.binding
        );
    }
    for w in &r.warnings {
        let _ = writeln!(s, "warning: {w}");
    }
    for (k, v) in &r.audit_annotations {
        let _ = writeln!(s, "audit annotation: {k}={v}");
    }
    for n in &r.notes {
        let _ = writeln!(s, "note: {n}");
    }
    s
}

fn read_opt(path: Option<&PathBuf>, flag: &str) -> Result<Option<String>, Failure> {
    path.map(|p| read_input(p, flag)).transpose()
}

/// The input names errors blame (`policy[i]`, `old-pod`, `params`, ...) and their files.
fn file_names(policies: &[PathBuf], others: &[(&str, Option<&PathBuf>)]) -> Vec<(String, String)> {
    policies
        .iter()
        .enumerate()
        .map(|(i, p)| (format!("policy[{i}]"), p.display().to_string()))
        .chain(
            others
                .iter()
                .filter_map(|(n, p)| p.map(|p| ((*n).to_owned(), p.display().to_string()))),
        )
        .collect()
}

/// Call the component's `policies.evaluate`; an input error names the file it blames (the i-th
/// `--policy` file for `policy[i]`, the file given for `old-pod`, `params`, ...).
pub(crate) fn evaluate(
    runtime: &Runtime,
    request: &VapRequest,
    policies: &[PathBuf],
    others: &[(&str, Option<&PathBuf>)],
) -> Result<VapReport, Failure> {
    let names = file_names(policies, others);
    let files: Vec<(&str, &str)> = names.iter().map(|(n, f)| (n.as_str(), f.as_str())).collect();
    runtime.vap(request).map_err(|e| Failure::from_call(e, &files))
}

/// Call the component's `policies.type-check` on the request's policies; under
/// [`TypeCheck::Error`] the first warning is bad input naming its file, policy, field and column.
pub(crate) fn type_check(
    runtime: &Runtime,
    request: &VapRequest,
    policies: &[PathBuf],
    mode: TypeCheck,
) -> Result<Vec<VapTypeCheck>, Failure> {
    let names = file_names(policies, &[]);
    let files: Vec<(&str, &str)> = names.iter().map(|(n, f)| (n.as_str(), f.as_str())).collect();
    let checks = runtime
        .vap_type_check(&request.policies)
        .map_err(|e| Failure::from_call(e, &files))?;
    if mode == TypeCheck::Error
        && let Some(w) = checks.iter().flat_map(|c| &c.expression_warnings).next()
    {
        return Err(Failure::from_call(CallError::Input(w.error.clone()), &files));
    }
    Ok(checks)
}

/// `--subresource`: a name `check` accepts, as `request.subResource` has it (`""` for `none`).
fn parse_request_path(s: &str) -> Result<String, String> {
    parse_subresource(s).map(|sub| subresource_api_name(sub).to_owned())
}

pub(crate) fn run(a: &VapArgs) -> Result<u8, Failure> {
    if let Some(VapCommand::Generate(g)) = &a.command {
        return generate::run(g);
    }
    let policies = a
        .policies
        .iter()
        .map(|p| read_input(p, "--policy"))
        .collect::<Result<Vec<_>, _>>()?;
    let mut batch = None;
    let new = match a.new.as_slice() {
        [one] if !one.is_dir() => match super::batch::contents(one, &read_input(one, "--new")?)? {
            super::batch::Contents::One(text) => Some((one, text)),
            super::batch::Contents::Many(objects) => {
                batch = Some(objects);
                None
            }
        },
        _ => None,
    };
    let request = VapRequest {
        old_object: read_opt(a.old.as_ref(), "--old")?,
        object: new.as_ref().map(|(_, text)| text.clone()),
        subresource: a.subresource.clone(),
        review: read_opt(a.review.as_ref(), "--review")?,
        ..a.context.request(policies)?
    };
    let runtime = PolicyArgs {
        policy: a.component.clone(),
        cache_dir: a.cache_dir.clone(),
        no_cache: a.no_cache,
    }
    .runtime()?;
    let checks = type_check(&runtime, &request, &a.policies, a.context.type_check)?;
    if new.is_none() && batch.is_none() && a.review.is_none() {
        batch = Some(super::batch::objects(&a.new, a.recursive)?);
    }
    if let Some(objects) = batch {
        if a.old.is_some() {
            return Err(Failure::input(
                "--old is for one object: several objects in --new are each judged as a CREATE",
            ));
        }
        return run_batch(a, &runtime, &request, &checks, &objects);
    }
    let report = evaluate(
        &runtime,
        &request,
        &a.policies,
        &[
            ("old-pod", a.old.as_ref()),
            ("new-pod", new.as_ref().map(|(p, _)| *p)),
            ("admission-review", a.review.as_ref()),
            ("params", a.context.params.as_ref()),
        ],
    )?;
    let json = || {
        let mut v = report_json(&report);
        if let Some(obj) = v.as_object_mut() {
            obj.insert("typeChecking".into(), type_checking_json(&checks));
        }
        v
    };
    match a.output {
        OutputFormat::Text => emit(&(type_checking_text(&checks) + &report_text(&report))),
        OutputFormat::Json => emit(&to_json_string(&json())),
        OutputFormat::Yaml => emit(&to_yaml_string(&json())),
    }
    Ok(if report.allowed { 0 } else { 1 })
}

/// Several objects: each evaluated as a CREATE, a line (or an item) per object and a summary;
/// exit 1 when one is denied, 2 when one cannot be read (and none is denied).
fn run_batch(
    a: &VapArgs,
    runtime: &Runtime,
    base: &VapRequest,
    checks: &[VapTypeCheck],
    objects: &[super::batch::Object],
) -> Result<u8, Failure> {
    let mut items = Vec::with_capacity(objects.len());
    let mut text = type_checking_text(checks);
    let mut tally = super::batch::Tally::default();
    for o in objects {
        let request = VapRequest {
            object: Some(o.json.clone()),
            ..base.clone()
        };
        let names = [("new-pod", o.file.as_str())];
        let answer = match runtime.vap(&request) {
            Ok(r) => Ok(r),
            Err(e @ CallError::Host(_)) => return Err(Failure::from_call(e, &[])),
            Err(e) => Err(Failure::from_call(e, &names).message().to_owned()),
        };
        let mut item = match &answer {
            Ok(r) => {
                tally.judged(r.allowed);
                let verdict = if r.allowed {
                    "ALLOWED".to_owned()
                } else {
                    format!("DENIED: {}", r.message)
                };
                let _ = writeln!(text, "{}: {verdict}", o.name);
                for w in &r.warnings {
                    let _ = writeln!(text, "{}: warning: {w}", o.name);
                }
                report_json(r)
            }
            Err(e) => {
                tally.failed();
                let _ = writeln!(text, "{}: error: {e}", o.name);
                json!({ "error": e })
            }
        };
        if let Some(obj) = item.as_object_mut() {
            o.describe(obj);
        }
        items.push(item);
    }
    let _ = writeln!(text, "{}", tally.line());
    let v = json!({
        "items": items,
        "summary": tally.json(),
        "typeChecking": type_checking_json(checks),
    });
    match a.output {
        OutputFormat::Text => emit(&text),
        OutputFormat::Json => emit(&to_json_string(&v)),
        OutputFormat::Yaml => emit(&to_yaml_string(&v)),
    }
    Ok(tally.exit_code())
}
