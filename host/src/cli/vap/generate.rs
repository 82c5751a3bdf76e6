//! `podmut vap generate`: the settings that CEL can express, as ValidatingAdmissionPolicies and
//! bindings the API server enforces without a webhook (docs/vap.md, "Generating policies").

use clap::Args;
use podmut_model::settings::{Enforcement, MemoryLimitDecrease, SecurityContextEscalation, Settings};
use serde_json::{Value, json};

use super::{cel, guard_cel};
use crate::cli::check::SettingsArgs;
use crate::cli::{Failure, OutputFormat, emit};
use crate::output::{to_json_string, to_yaml_string};

/// Arguments of `podmut vap generate`.
#[derive(Debug, Args)]
pub(crate) struct GenerateArgs {
    #[command(flatten)]
    settings: SettingsArgs,
    /// The prefix of the generated objects' names.
    #[arg(long, value_name = "PREFIX", default_value = "podmut")]
    prefix: String,
    /// Output format: a YAML stream for `kubectl apply -f -` (yaml, the default here), or a JSON List.
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Yaml)]
    output: OutputFormat,
}

/// One generated policy: its name's suffix, the paths it matches, its match conditions,
/// variables and validations.
struct Generated {
    suffix: &'static str,
    /// The setting it expresses (`allowPrivileged: false`), for the header.
    setting: String,
    rules: Value,
    conditions: Option<Value>,
    variables: Option<Value>,
    validations: Vec<Value>,
}

/// The settings no policy can express, and why.
const NOT_EXPRESSIBLE: [(&str, &str); 8] = [
    (
        "kubernetesVersion, featureGates",
        "the API server's own release and --feature-gates decide them",
    ),
    ("applyDefaults", "the API server always defaults before admission"),
    (
        "fieldValidation",
        "the client's fieldValidation parameter decides it, before admission",
    ),
    (
        "maxInputBytes",
        "the API server's own request limit decides it (3 MiB)",
    ),
    (
        "nodes",
        "from 1.36 the API server reads the Pod's Node itself (PodResizeValidator)",
    ),
    (
        "removedStatusLimit",
        "the kubelet keeps removed-container statuses; no request carries it",
    ),
    (
        "unknownSubresource",
        "a policy sees only the resources it names; the API server judges the rest",
    ),
    (
        "rules podmut has that the API server lacks (pods/dynamic)",
        "KEP-5972's own checks belong to the API server that serves pods/dynamic",
    ),
];

fn pod_rule(operations: &[&str], resources: &[&str]) -> Value {
    json!({"apiGroups": [""], "apiVersions": ["v1"], "operations": operations, "resources": resources})
}

/// The policies `settings` asks for.
fn policies(settings: &Settings) -> Vec<Generated> {
    let mut out = Vec::new();
    if settings.security_context_escalation == SecurityContextEscalation::Forbid {
        out.push(Generated {
            suffix: "strict",
            setting: "securityContextEscalation: forbid (the strict profile)".into(),
            rules: json!([pod_rule(&["UPDATE"], &["pods/dynamic"])]),
            conditions: None,
            variables: Some(cel::strict_variables()),
            validations: cel::strict_validations(),
        });
    }
    if !settings.allow_privileged {
        out.push(Generated {
            suffix: "allow-privileged",
            setting: "allowPrivileged: false".into(),
            rules: json!([
                pod_rule(&["CREATE", "UPDATE"], &["pods"]),
                pod_rule(&["UPDATE"], &["pods/ephemeralcontainers", "pods/dynamic"]),
            ]),
            conditions: None,
            variables: None,
            validations: cel::privileged_validations(),
        });
    }
    if settings.memory_limit_decrease == MemoryLimitDecrease::Forbid {
        out.push(Generated {
            suffix: "memory-limit-decrease",
            setting: "memoryLimitDecrease: forbid".into(),
            rules: json!([pod_rule(&["UPDATE"], &["pods/resize", "pods/dynamic"])]),
            conditions: None,
            variables: None,
            validations: cel::memory_limit_validations(),
        });
    }
    out.extend(guards(settings));
    out
}

/// The policies of the guards the settings turn on (`crates/validation/src/guards.rs`).
fn guards(settings: &Settings) -> Vec<Generated> {
    let mut out = Vec::new();
    if let Some((variables, validations)) = settings.resize_limits.as_ref().and_then(guard_cel::resize_limits)
    {
        out.push(Generated {
            suffix: "resize-limits",
            setting: format!(
                "resizeLimits: {}",
                serde_json::to_string(&settings.resize_limits).unwrap_or_default()
            ),
            rules: json!([pod_rule(&["UPDATE"], &["pods/resize"])]),
            conditions: None,
            variables: Some(variables),
            validations,
        });
    }
    let debug = &settings.debug_containers;
    if debug.forbid_escalation {
        let (variables, validations) = guard_cel::debug_escalation(debug);
        out.push(Generated {
            suffix: "debug-containers",
            setting: format!(
                "debugContainers.forbidEscalation: true (break-glass label {})",
                debug.break_glass_label
            ),
            rules: json!([pod_rule(&["UPDATE"], &["pods/ephemeralcontainers"])]),
            conditions: None,
            variables: Some(variables),
            validations,
        });
    }
    if settings.freeze_running_pod_metadata {
        let (conditions, validations) = guard_cel::frozen_metadata();
        out.push(Generated {
            suffix: "freeze-metadata",
            setting: "freezeRunningPodMetadata: true".into(),
            rules: json!([pod_rule(&["UPDATE"], &["pods"])]),
            conditions: Some(conditions),
            variables: None,
            validations,
        });
    }
    out
}

/// `validationActions` for the settings' `enforcement`.
fn actions(enforcement: Enforcement) -> Value {
    match enforcement {
        Enforcement::Deny => json!(["Deny"]),
        Enforcement::Warn => json!(["Warn"]),
        Enforcement::Audit => json!(["Audit"]),
    }
}

/// The policy and binding objects.
fn objects(generated: &[Generated], prefix: &str, enforcement: Enforcement) -> Vec<Value> {
    let mut out = Vec::new();
    for g in generated {
        let name = format!("{prefix}-{}", g.suffix);
        let mut spec = json!({
            "failurePolicy": "Fail",
            "matchConstraints": {"resourceRules": g.rules},
            "validations": g.validations,
        });
        if let Some(v) = &g.variables {
            spec["variables"] = v.clone();
        }
        if let Some(c) = &g.conditions {
            spec["matchConditions"] = c.clone();
        }
        let labels = json!({"app.kubernetes.io/managed-by": "podmut"});
        out.push(json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name, "labels": labels},
            "spec": spec,
        }));
        out.push(json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": name, "labels": labels},
            "spec": {"policyName": name, "validationActions": actions(enforcement)},
        }));
    }
    out
}

/// The YAML stream's header: what was generated and what no policy can express.
fn header(generated: &[Generated]) -> String {
    let mut h = String::from(
        "# Generated by `podmut vap generate`: podmut's settings as ValidatingAdmissionPolicies.\n",
    );
    if generated.is_empty() {
        h.push_str("# These settings ask for nothing a policy can express.\n");
    }
    for g in generated {
        h.push_str(&format!("# - {}\n", g.setting));
    }
    h.push_str("# Not expressible as a policy:\n");
    for (what, why) in NOT_EXPRESSIBLE {
        h.push_str(&format!("# - {what}: {why}\n"));
    }
    h
}

/// Read the settings as the component reads them (the same model).
fn read_settings(a: &GenerateArgs) -> Result<(Settings, String), Failure> {
    let (doc, source) = a.settings.document(false)?;
    let settings: Settings =
        serde_json::from_str(&doc).map_err(|e| Failure::input(format!("{source}: {e}")))?;
    Ok((settings, source))
}

pub(crate) fn run(a: &GenerateArgs) -> Result<u8, Failure> {
    let (settings, _) = read_settings(a)?;
    let generated = policies(&settings);
    let objects = objects(&generated, &a.prefix, settings.enforcement);
    match a.output {
        OutputFormat::Json => emit(&to_json_string(
            &json!({"apiVersion": "v1", "kind": "List", "items": objects}),
        )),
        OutputFormat::Yaml | OutputFormat::Text => {
            let mut out = header(&generated);
            for o in &objects {
                out.push_str("---\n");
                out.push_str(&to_yaml_string(o));
            }
            emit(&out);
        }
    }
    Ok(0)
}
