//! `podmut check`: validate a Pod create or update on a request path.

use std::path::PathBuf;

use clap::Args;
use serde_json::{Map, Value};

use super::{Failure, OutputFormat, PolicyArgs, emit, read_input};
use crate::output::{parse_subresource, to_json_string, to_yaml_string, verdict_json, verdict_text};

/// Arguments of `podmut check`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The Pod before the change (YAML or JSON; `-` for stdin). Without it, a create is validated.
    #[arg(long, value_name = "FILE")]
    old: Option<PathBuf>,
    /// The Pod after the change (YAML or JSON; `-` for stdin).
    #[arg(long, value_name = "FILE")]
    new: PathBuf,
    /// The request path: none (the main resource), dynamic, ephemeralcontainers, resize, status.
    #[arg(long, default_value = "none", value_parser = parse_subresource, value_name = "SUBRESOURCE")]
    subresource: crate::types::Subresource,
    #[command(flatten)]
    settings: SettingsArgs,
    /// Validate exactly what is given: skip Kubernetes defaulting.
    #[arg(long)]
    no_defaults: bool,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    policy: PolicyArgs,
}

/// The flags every command that judges a Pod change turns into its settings document.
#[derive(Debug, Args)]
pub(crate) struct SettingsArgs {
    /// A settings profile (YAML or JSON; see policies/default.yaml, policies/strict.yaml).
    #[arg(long, value_name = "FILE")]
    pub(crate) settings: Option<PathBuf>,
    /// Feature gates, kube-apiserver syntax: Name=bool,Name=bool.
    #[arg(long, value_name = "NAME=BOOL,...")]
    pub(crate) feature_gates: Option<String>,
    /// The cluster's Kubernetes release (1.33, 1.34, 1.35): its feature-gate defaults and
    /// version-dependent rules; --feature-gates and --settings still override.
    #[arg(long, value_name = "VERSION")]
    pub(crate) kubernetes_version: Option<String>,
}

impl SettingsArgs {
    /// The settings document and the name errors in it are reported under.
    pub(crate) fn document(&self, no_defaults: bool) -> Result<(String, String), Failure> {
        settings_document(
            self.settings.as_ref(),
            self.feature_gates.as_deref(),
            self.kubernetes_version.as_deref(),
            no_defaults,
        )
    }
}

/// Build the settings document the component receives from a profile file and flags.
pub(crate) fn settings_document(
    file: Option<&PathBuf>,
    feature_gates: Option<&str>,
    kubernetes_version: Option<&str>,
    no_defaults: bool,
) -> Result<(String, String), Failure> {
    let (mut doc, source) = match file {
        Some(path) => {
            let text = read_input(path, "--settings")?;
            let v: Value = serde_yaml_ng::from_str(&text)
                .map_err(|e| Failure::input(format!("{}: invalid YAML: {e}", path.display())))?;
            (v, path.display().to_string())
        }
        None => (Value::Object(Map::new()), "settings".to_owned()),
    };
    if doc.is_null() {
        doc = Value::Object(Map::new());
    }
    let Value::Object(obj) = &mut doc else {
        return Err(Failure::input(format!(
            "{source}: a settings profile is a mapping"
        )));
    };
    if let Some(spec) = feature_gates {
        let gates = obj
            .entry("featureGates")
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(gates) = gates else {
            return Err(Failure::input(format!(
                "{source}: featureGates must be a mapping"
            )));
        };
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| Failure::input(format!("--feature-gates: missing =true/false in {item:?}")))?;
            let on = match value.trim() {
                "true" | "True" | "1" => true,
                "false" | "False" | "0" => false,
                other => {
                    return Err(Failure::input(format!(
                        "--feature-gates: {name}={other} is not true or false"
                    )));
                }
            };
            gates.insert(name.trim().to_owned(), Value::Bool(on));
        }
    }
    if no_defaults {
        obj.insert("applyDefaults".into(), Value::Bool(false));
    }
    if let Some(v) = kubernetes_version {
        // The component checks it (and lists the supported releases when it is not one).
        obj.insert("kubernetesVersion".into(), Value::String(v.to_owned()));
    }
    Ok((doc.to_string(), source))
}

pub(crate) fn run(a: &CheckArgs) -> Result<u8, Failure> {
    let new = read_input(&a.new, "--new")?;
    let old = a.old.as_ref().map(|p| read_input(p, "--old")).transpose()?;
    let (settings, settings_source) = a.settings.document(a.no_defaults)?;
    let runtime = a.policy.runtime()?;
    let old_name = a
        .old
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let new_name = a.new.display().to_string();
    let verdict = runtime
        .check(old.as_deref(), &new, a.subresource, &settings)
        .map_err(|e| {
            Failure::from_call(
                e,
                &[
                    ("old-pod", &old_name),
                    ("new-pod", &new_name),
                    ("settings", &settings_source),
                ],
            )
        })?;
    match a.output {
        OutputFormat::Text => emit(&verdict_text(&verdict)),
        OutputFormat::Json => emit(&to_json_string(&verdict_json(&verdict))),
        OutputFormat::Yaml => emit(&to_yaml_string(&verdict_json(&verdict))),
    }
    Ok(if verdict.allowed { 0 } else { 1 })
}
