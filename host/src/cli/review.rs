//! `podmut review`: AdmissionReview v1 in, AdmissionReview v1 out.

use std::path::PathBuf;

use clap::Args;
use serde_json::Value;

use super::check::settings_document;
use super::{Failure, PolicyArgs, emit, read_input};
use crate::output::to_json_string;

/// Arguments of `podmut review`.
#[derive(Debug, Args)]
pub(crate) struct ReviewArgs {
    /// The AdmissionReview (JSON or YAML); `-` or nothing reads stdin.
    #[arg(value_name = "FILE", default_value = "-")]
    file: PathBuf,
    /// A settings profile (YAML or JSON; see policies/default.yaml).
    #[arg(long, value_name = "FILE")]
    settings: Option<PathBuf>,
    /// Feature gates, kube-apiserver syntax: Name=bool,Name=bool.
    #[arg(long, value_name = "NAME=BOOL,...")]
    feature_gates: Option<String>,
    #[command(flatten)]
    policy: PolicyArgs,
}

/// Prints the response review; exits 0 when the response allows the request, 1 when it denies.
pub(crate) fn run(a: &ReviewArgs) -> Result<u8, Failure> {
    let text = read_input(&a.file, "FILE")?;
    let (settings, settings_source) =
        settings_document(a.settings.as_ref(), a.feature_gates.as_deref(), false)?;
    let runtime = a.policy.runtime()?;
    let file = a.file.display().to_string();
    let out = runtime
        .review(&text, &settings)
        .map_err(|e| Failure::from_call(e, &[("admission-review", &file), ("settings", &settings_source)]))?;
    let value: Value = serde_json::from_str(&out)
        .map_err(|e| Failure::internal(format!("the component returned an unreadable review: {e}")))?;
    emit(&to_json_string(&value));
    let allowed = value
        .pointer("/response/allowed")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Ok(if allowed { 0 } else { 1 })
}
