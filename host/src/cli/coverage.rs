//! `podmut coverage`: KEP-5972 fail-closed coverage of admission configuration.
//!
//! Exit codes: 0 when `pods/dynamic` requests pass the fail-closed rule, 1 when some handler
//! blocks them, 2 for bad input.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use serde_json::{Value, json};

use super::{Failure, OutputFormat, PolicyArgs, emit, read_input};
use crate::output::{to_json_string, to_yaml_string};
use crate::types::{CoverageReport, CoverageScope};

/// Arguments of `podmut coverage`.
#[derive(Debug, Args)]
pub(crate) struct CoverageArgs {
    /// Admission configuration objects (YAML stream, JSON list or List object), e.g. the output of
    /// `kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations,
    /// validatingadmissionpolicies,validatingadmissionpolicybindings,mutatingadmissionpolicies,
    /// mutatingadmissionpolicybindings -o yaml`; `-` reads stdin.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Scope the check to Pods in this namespace (sets its `kubernetes.io/metadata.name` label).
    #[arg(long, value_name = "NAME")]
    namespace: Option<String>,
    /// The namespace's labels, for namespaceSelectors: k=v,k=v.
    #[arg(long, value_name = "K=V,...")]
    namespace_labels: Option<String>,
    /// The Pod's name (for policy rules with resourceNames).
    #[arg(long, value_name = "NAME")]
    pod_name: Option<String>,
    /// The Pod's labels, for objectSelectors: k=v,k=v.
    #[arg(long, value_name = "K=V,...")]
    pod_labels: Option<String>,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    policy: PolicyArgs,
}

pub(super) fn parse_labels(flag: &str, spec: &str) -> Result<Vec<(String, String)>, Failure> {
    spec.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
                .filter(|(k, _)| !k.is_empty())
                .ok_or_else(|| Failure::input(format!("{flag}: expected key=value, found {kv:?}")))
        })
        .collect()
}

fn scope(a: &CoverageArgs) -> Result<Option<CoverageScope>, Failure> {
    if a.namespace.is_none() && a.namespace_labels.is_none() && a.pod_name.is_none() && a.pod_labels.is_none()
    {
        return Ok(None);
    }
    let mut namespace_labels = a
        .namespace_labels
        .as_deref()
        .map(|s| parse_labels("--namespace-labels", s))
        .transpose()?;
    if let Some(ns) = &a.namespace {
        let labels = namespace_labels.get_or_insert_with(Vec::new);
        labels.retain(|(k, _)| k != "kubernetes.io/metadata.name");
        labels.push(("kubernetes.io/metadata.name".into(), ns.clone()));
    }
    Ok(Some(CoverageScope {
        namespace_labels,
        pod_labels: a
            .pod_labels
            .as_deref()
            .map(|s| parse_labels("--pod-labels", s))
            .transpose()?,
        pod_name: a.pod_name.clone(),
    }))
}

/// The `coverage -o json` object (the same shape as podmut-core's report).
pub(crate) fn report_json(r: &CoverageReport) -> Value {
    let handlers: Vec<Value> = r
        .handlers
        .iter()
        .map(|h| {
            let mut v = json!({
                "kind": h.kind,
                "name": h.name,
                "interceptsPods": h.intercepts_pods,
                "interceptsDynamic": h.intercepts_dynamic,
                "inScope": h.in_scope,
                "blocksDynamic": h.blocks_dynamic,
                "fix": h.fix,
                "notes": h.notes,
            });
            if let (Some(b), Some(obj)) = (&h.binding, v.as_object_mut()) {
                obj.insert("binding".into(), json!(b));
            }
            v
        })
        .collect();
    json!({
        "dynamicAllowed": r.dynamic_allowed,
        "handlers": handlers,
        "ignored": r.ignored,
    })
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn report_text(r: &CoverageReport) -> String {
    let mut s = String::new();
    let blocking = r.handlers.iter().filter(|h| h.blocks_dynamic).count();
    if r.dynamic_allowed {
        let _ = writeln!(
            s,
            "pods/dynamic: allowed by the fail-closed rule ({} handler{} examined)",
            r.handlers.len(),
            if r.handlers.len() == 1 { "" } else { "s" }
        );
    } else {
        let _ = writeln!(
            s,
            "pods/dynamic: REJECTED by the fail-closed rule: {blocking} of {} handler{} intercept Pod create/update but not pods/dynamic",
            r.handlers.len(),
            if r.handlers.len() == 1 { "" } else { "s" }
        );
    }
    for h in &r.handlers {
        let tag = if h.blocks_dynamic { "BLOCKS" } else { "ok" };
        let binding = h
            .binding
            .as_deref()
            .map(|b| format!(" (binding {b})"))
            .unwrap_or_default();
        let _ = writeln!(s, "\n{tag:<7}{} {}{binding}", h.kind, h.name);
        let _ = writeln!(
            s,
            "       intercepts pods: {}  pods/dynamic: {}  in scope: {}",
            yes(h.intercepts_pods),
            yes(h.intercepts_dynamic),
            yes(h.in_scope)
        );
        if !h.fix.is_empty() {
            let _ = writeln!(s, "       fix: {}", h.fix);
        }
        for n in &h.notes {
            let _ = writeln!(s, "       note: {n}");
        }
    }
    for i in &r.ignored {
        let _ = writeln!(s, "\nignored: {i}");
    }
    s
}

pub(crate) fn run(a: &CoverageArgs) -> Result<u8, Failure> {
    let configs = read_input(&a.file, "FILE")?;
    let scope = scope(a)?;
    let runtime = a.policy.runtime()?;
    let file = a.file.display().to_string();
    let report = runtime
        .coverage_scoped(&configs, scope.as_ref())
        .map_err(|e| Failure::from_call(e, &[("configs", &file)]))?;
    match a.output {
        OutputFormat::Text => emit(&report_text(&report)),
        OutputFormat::Json => emit(&to_json_string(&report_json(&report))),
        OutputFormat::Yaml => emit(&to_yaml_string(&report_json(&report))),
    }
    Ok(if report.dynamic_allowed { 0 } else { 1 })
}
