//! `podmut allocate`, `podmut probes`, `podmut statuses`: the kubelet side.
//!
//! Exit codes: `allocate` 0 Allocated, 1 Deferred / Infeasible / Halted; `allocate --retry-order`,
//! `probes` and `statuses` 0 on an answer; every command 2 on bad input, 3 when the component fails.

use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{Map, Value};

use super::inputs::{ValidateArgs, print_warnings, read_file};
use super::{Failure, OutputFormat, PolicyArgs, emit, read_input};
use crate::bindings::exports::podmut::policy::node::AllocationOutcome;
use crate::output::{
    allocation_json, allocation_text, probe_plan_json, probe_plan_text, retry_plan_json, retry_plan_text,
    statuses_text, to_json_string, to_yaml_string,
};
use crate::runtime::Runtime;
use crate::types::DocumentKind;

/// Arguments of `podmut allocate`.
#[derive(Debug, Args)]
pub(crate) struct AllocateArgs {
    /// The allocation request `{node, nodeConfig?, allocatedPods?, allocated, desired, settings?}`
    /// (YAML or JSON; `-` for stdin). Or build it with --node, --allocated, --desired, --pods.
    #[arg(value_name = "REQUEST", required_unless_present_any = ["node", "desired"])]
    request: Option<PathBuf>,
    /// The v1 Node (with status.allocatable).
    #[arg(long, value_name = "FILE", conflicts_with = "request", requires_all = ["allocated", "desired"])]
    node: Option<PathBuf>,
    /// The Pod's allocated spec (what the kubelet has checkpointed).
    #[arg(long, value_name = "FILE", conflicts_with = "request")]
    allocated: Option<PathBuf>,
    /// The Pod as the API server has it.
    #[arg(long, value_name = "FILE", conflicts_with = "request")]
    desired: Option<PathBuf>,
    /// The other Pods on the node, as allocated (a list, a List object or a multi-document stream).
    #[arg(long, value_name = "FILE", conflicts_with = "request")]
    pods: Option<PathBuf>,
    /// Kubelet facts a Node does not carry: {cpuManagerPolicy, memoryManagerPolicy, swapBehavior,
    /// allocatableAbsolute}.
    #[arg(long, value_name = "FILE", conflicts_with = "request")]
    node_config: Option<PathBuf>,
    /// Settings profile (policies/default.yaml keys).
    #[arg(long, value_name = "FILE", conflicts_with = "request")]
    settings: Option<PathBuf>,
    /// REQUEST is a pending set `{pending: [{desired, allocated}], settings?}`: print the order the
    /// kubelet retries them in.
    #[arg(long, requires = "request")]
    retry_order: bool,
    /// The cluster's Kubernetes release (1.35, 1.36, 1.37, or preview; unset: 1.37): its feature-gate defaults; the
    /// request's own settings still override.
    #[arg(long, value_name = "VERSION", value_parser = super::check::kubernetes_version)]
    kubernetes_version: Option<String>,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    validate: ValidateArgs,
    #[command(flatten)]
    policy: PolicyArgs,
}

/// Arguments of `podmut probes`.
#[derive(Debug, Args)]
pub(crate) struct ProbesArgs {
    /// The Pod before the change.
    #[arg(long, value_name = "FILE")]
    old: PathBuf,
    /// The Pod after the change (its status tells whether containers run and have started).
    #[arg(long, value_name = "FILE")]
    new: PathBuf,
    /// Settings profile (policies/default.yaml keys), e.g. to turn MutableContainerProbes off.
    #[arg(long, value_name = "FILE")]
    settings: Option<PathBuf>,
    /// The cluster's Kubernetes release (1.35, 1.36, 1.37, or preview; unset: 1.37): its feature-gate defaults; the
    /// request's own settings still override.
    #[arg(long, value_name = "VERSION", value_parser = super::check::kubernetes_version)]
    kubernetes_version: Option<String>,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    validate: ValidateArgs,
    #[command(flatten)]
    policy: PolicyArgs,
}

/// Arguments of `podmut statuses`.
#[derive(Debug, Args)]
pub(crate) struct StatusesArgs {
    /// The request `{pod, allocated?, settings?}` (YAML or JSON; `-` for stdin). Or build it with
    /// --pod and --allocated.
    #[arg(value_name = "REQUEST", required_unless_present = "pod")]
    request: Option<PathBuf>,
    /// The Pod with its current status.
    #[arg(long, value_name = "FILE", conflicts_with = "request")]
    pod: Option<PathBuf>,
    /// The Pod's allocated spec (default: the Pod itself, everything allocated).
    #[arg(long, value_name = "FILE", conflicts_with = "request")]
    allocated: Option<PathBuf>,
    /// Settings profile (policies/default.yaml keys), e.g. removedStatusLimit.
    #[arg(long, value_name = "FILE", conflicts_with = "request")]
    settings: Option<PathBuf>,
    /// The cluster's Kubernetes release (1.35, 1.36, 1.37, or preview; unset: 1.37): its feature-gate defaults; the
    /// request's own settings still override.
    #[arg(long, value_name = "VERSION", value_parser = super::check::kubernetes_version)]
    kubernetes_version: Option<String>,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    validate: ValidateArgs,
    #[command(flatten)]
    policy: PolicyArgs,
}

/// Put `--kubernetes-version` into the `settings` of a request document (the request's own
/// `settings.kubernetesVersion`, if any, is replaced: the flag is the later word).
fn with_version(text: String, version: Option<&str>, what: &str) -> Result<String, Failure> {
    let Some(v) = version else {
        return Ok(text);
    };
    let mut doc: Value = super::inputs::yaml_value(&text, what)?;
    let Value::Object(obj) = &mut doc else {
        return Err(Failure::input(format!("{what}: a request is a mapping")));
    };
    let settings = obj.entry("settings").or_insert_with(|| Value::Object(Map::new()));
    if settings.is_null() {
        *settings = Value::Object(Map::new());
    }
    let Value::Object(settings) = settings else {
        return Err(Failure::input(format!("{what}: settings must be a mapping")));
    };
    settings.insert("kubernetesVersion".into(), Value::String(v.to_owned()));
    Ok(doc.to_string())
}

/// Read a file's one object of `kind` through the component (validated), as a JSON value.
fn read_document(
    runtime: &Runtime,
    path: &Path,
    flag: &str,
    kind: Option<DocumentKind>,
    validate: ValidateArgs,
    warnings: &mut Vec<String>,
) -> Result<Value, Failure> {
    let Some(kind) = kind else {
        // podmut's own documents (nodeConfig, settings): the judging function checks their keys.
        let text = read_input(path, flag)?;
        return super::inputs::yaml_value(&text, &path.display().to_string());
    };
    let (doc, w) = read_file(runtime, path, flag, flag, kind, validate)?.single()?;
    warnings.extend(w);
    serde_json::from_str(&doc.json)
        .map_err(|e| Failure::internal(format!("the component returned invalid JSON: {e}")))
}

/// Read a list of Pods: a YAML/JSON list, a `*List` object, or a multi-document stream.
fn read_list(
    runtime: &Runtime,
    path: &Path,
    flag: &str,
    validate: ValidateArgs,
    warnings: &mut Vec<String>,
) -> Result<Vec<Value>, Failure> {
    let read = read_file(runtime, path, flag, flag, DocumentKind::Pod, validate)?;
    let mut items = Vec::new();
    for doc in &read.docs {
        if let Some(e) = &doc.error {
            return Err(Failure::input(format!(
                "{}: item {}: {e}",
                read.file,
                doc.index.saturating_sub(1)
            )));
        }
        warnings.extend(read.warnings_of(doc));
        items.push(
            serde_json::from_str(&doc.json)
                .map_err(|e| Failure::internal(format!("the component returned invalid JSON: {e}")))?,
        );
    }
    Ok(items)
}

/// A request document assembled from files, plus which file each field came from.
struct Assembled {
    text: String,
    files: Vec<(String, String)>,
}

/// One field of an assembled request: its key, the flag, the file, and what it is read as.
type Part<'a> = (&'a str, &'a str, Option<&'a PathBuf>, Option<DocumentKind>);

fn assemble(
    runtime: &Runtime,
    fields: &[Part<'_>],
    lists: &[(&str, &str, Option<&PathBuf>)],
    validate: ValidateArgs,
) -> Result<Assembled, Failure> {
    let mut obj = Map::new();
    let mut files = Vec::new();
    let mut warnings = Vec::new();
    for (key, flag, path, kind) in fields {
        if let Some(p) = path {
            obj.insert(
                (*key).to_owned(),
                read_document(runtime, p, flag, *kind, validate, &mut warnings)?,
            );
            files.push(((*key).to_owned(), p.display().to_string()));
        }
    }
    for (key, flag, path) in lists {
        if let Some(p) = path {
            obj.insert(
                (*key).to_owned(),
                Value::Array(read_list(runtime, p, flag, validate, &mut warnings)?),
            );
            files.push(((*key).to_owned(), p.display().to_string()));
        }
    }
    print_warnings(&warnings);
    Ok(Assembled {
        text: Value::Object(obj).to_string(),
        files,
    })
}

/// Read a whole request file of `kind` (validated), printing its warnings.
fn read_request(
    runtime: &Runtime,
    path: &Path,
    kind: DocumentKind,
    validate: ValidateArgs,
) -> Result<(String, String), Failure> {
    let (doc, warnings) = read_file(runtime, path, "REQUEST", "request", kind, validate)?.single()?;
    print_warnings(&warnings);
    Ok((doc.json, path.display().to_string()))
}

/// Map a component error on an assembled request to the file its field came from
/// (`request: desired: spec...` -> `desired.yaml: spec...`).
fn blame(e: crate::error::CallError, assembled: &Assembled) -> Failure {
    if let crate::error::CallError::Input(ie) = &e {
        let text = crate::error::describe_input_error(ie);
        let body = text.strip_prefix("request: ").unwrap_or(&text);
        for (field, file) in &assembled.files {
            if let Some(rest) = body.strip_prefix(field.as_str()) {
                if let Some(r) = rest.strip_prefix(": ") {
                    return Failure::input(format!("{file}: {r}"));
                }
                if rest.starts_with('[') {
                    return Failure::input(format!("{file}: item {rest}"));
                }
            }
        }
        return Failure::input(text);
    }
    Failure::from_call(e, &[])
}

fn emit_value(format: OutputFormat, v: &Value, text: impl FnOnce() -> String) {
    match format {
        OutputFormat::Text => emit(&text()),
        OutputFormat::Json => emit(&to_json_string(v)),
        OutputFormat::Yaml => emit(&to_yaml_string(v)),
    }
}

pub(crate) fn run_allocate(a: &AllocateArgs) -> Result<u8, Failure> {
    let runtime = a.policy.runtime()?;
    if a.retry_order {
        let path = a
            .request
            .as_ref()
            .ok_or_else(|| Failure::input("--retry-order needs REQUEST"))?;
        let (text, file) = read_request(&runtime, path, DocumentKind::RetryRequest, a.validate)?;
        let text = with_version(text, a.kubernetes_version.as_deref(), &file)?;
        let plan = runtime
            .retry_order(&text)
            .map_err(|e| Failure::from_call(e, &[("request", &file)]))?;
        emit_value(a.output, &retry_plan_json(&plan), || retry_plan_text(&plan));
        return Ok(0);
    }
    let decision = match &a.request {
        Some(path) => {
            let (text, file) = read_request(&runtime, path, DocumentKind::AllocationRequest, a.validate)?;
            let text = with_version(text, a.kubernetes_version.as_deref(), &file)?;
            runtime
                .allocate(&text)
                .map_err(|e| Failure::from_call(e, &[("request", &file)]))?
        }
        None => {
            let assembled = assemble(
                &runtime,
                &[
                    ("node", "--node", a.node.as_ref(), Some(DocumentKind::Node)),
                    ("nodeConfig", "--node-config", a.node_config.as_ref(), None),
                    (
                        "allocated",
                        "--allocated",
                        a.allocated.as_ref(),
                        Some(DocumentKind::Pod),
                    ),
                    (
                        "desired",
                        "--desired",
                        a.desired.as_ref(),
                        Some(DocumentKind::Pod),
                    ),
                    ("settings", "--settings", a.settings.as_ref(), None),
                ],
                &[("allocatedPods", "--pods", a.pods.as_ref())],
                a.validate,
            )?;
            let text = with_version(assembled.text.clone(), a.kubernetes_version.as_deref(), "request")?;
            runtime.allocate(&text).map_err(|e| blame(e, &assembled))?
        }
    };
    emit_value(a.output, &allocation_json(&decision), || {
        allocation_text(&decision)
    });
    Ok(match decision.outcome {
        AllocationOutcome::Allocated => 0,
        _ => 1,
    })
}

/// A settings document (YAML or JSON); empty is `{}`.
fn settings_value(text: &str) -> Result<Value, Failure> {
    let v: Value = if text.trim().is_empty() {
        Value::Null
    } else {
        super::inputs::yaml_value(text, "--settings")?
    };
    Ok(if v.is_null() { Value::Object(Map::new()) } else { v })
}

pub(crate) fn run_probes(a: &ProbesArgs) -> Result<u8, Failure> {
    let runtime = a.policy.runtime()?;
    let mut warnings = Vec::new();
    let mut pod = |path: &Path, flag: &str, input: &str| -> Result<String, Failure> {
        let (doc, w) = read_file(&runtime, path, flag, input, DocumentKind::Pod, a.validate)?.single()?;
        warnings.extend(w);
        Ok(doc.json)
    };
    let old = pod(&a.old, "--old", "old-pod")?;
    let new = pod(&a.new, "--new", "new-pod")?;
    print_warnings(&warnings);
    let settings = a
        .settings
        .as_ref()
        .map(|p| read_input(p, "--settings"))
        .transpose()?
        .unwrap_or_default();
    let settings = match a.kubernetes_version.as_deref() {
        Some(v) => {
            let mut doc = settings_value(&settings)?;
            let Value::Object(obj) = &mut doc else {
                return Err(Failure::input("--settings: a settings profile is a mapping"));
            };
            obj.insert("kubernetesVersion".into(), Value::String(v.to_owned()));
            doc.to_string()
        }
        None => settings,
    };
    let (o, n) = (a.old.display().to_string(), a.new.display().to_string());
    let s = a
        .settings
        .as_ref()
        .map_or_else(|| "--settings".to_owned(), |p| p.display().to_string());
    let plan = runtime
        .probe_plan(&old, &new, &settings)
        .map_err(|e| Failure::from_call(e, &[("old-pod", &o), ("new-pod", &n), ("settings", &s)]))?;
    emit_value(a.output, &probe_plan_json(&plan), || probe_plan_text(&plan));
    Ok(0)
}

pub(crate) fn run_statuses(a: &StatusesArgs) -> Result<u8, Failure> {
    let runtime = a.policy.runtime()?;
    let json = match &a.request {
        Some(path) => {
            let (text, file) = read_request(&runtime, path, DocumentKind::StatusesRequest, a.validate)?;
            let text = with_version(text, a.kubernetes_version.as_deref(), &file)?;
            runtime
                .container_statuses(&text)
                .map_err(|e| Failure::from_call(e, &[("request", &file)]))?
        }
        None => {
            let assembled = assemble(
                &runtime,
                &[
                    ("pod", "--pod", a.pod.as_ref(), Some(DocumentKind::Pod)),
                    (
                        "allocated",
                        "--allocated",
                        a.allocated.as_ref(),
                        Some(DocumentKind::Pod),
                    ),
                    ("settings", "--settings", a.settings.as_ref(), None),
                ],
                &[],
                a.validate,
            )?;
            let text = with_version(assembled.text.clone(), a.kubernetes_version.as_deref(), "request")?;
            runtime
                .container_statuses(&text)
                .map_err(|e| blame(e, &assembled))?
        }
    };
    let report: Value = serde_json::from_str(&json)
        .map_err(|e| Failure::internal(format!("the component returned invalid JSON: {e}")))?;
    emit_value(a.output, &report, || statuses_text(&report));
    Ok(0)
}
