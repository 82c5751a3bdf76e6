//! `podmut review`: AdmissionReview v1 in, AdmissionReview v1 out — judged by the embedded
//! component, or sent to a running webhook with `--server` (as the API server would send it).

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use serde_json::Value;

use super::check::settings_document;
use super::inputs::{Validate, ValidateArgs, print_warnings, read_text};
use super::{Failure, PolicyArgs, emit, read_input};
use crate::output::to_json_string;
use crate::types::DocumentKind;

/// Arguments of `podmut review`.
#[derive(Debug, Args)]
pub(crate) struct ReviewArgs {
    /// The AdmissionReview (JSON or YAML); `-` or nothing reads stdin.
    #[arg(value_name = "FILE", default_value = "-")]
    file: PathBuf,
    /// A settings profile (YAML or JSON; see policies/default.yaml).
    #[arg(long, value_name = "FILE", conflicts_with = "server")]
    settings: Option<PathBuf>,
    /// Feature gates, kube-apiserver syntax: Name=bool,Name=bool.
    #[arg(long, value_name = "NAME=BOOL,...", conflicts_with = "server")]
    feature_gates: Option<String>,
    /// The cluster's Kubernetes release (1.35, 1.36, 1.37, or preview; unset: 1.37): its feature-gate defaults and
    /// version-dependent rules; --feature-gates and --settings still override.
    #[arg(long, value_name = "VERSION", conflicts_with = "server")]
    kubernetes_version: Option<String>,
    /// Send the review to this webhook instead (`https://HOST:PORT[/PATH]`, default path
    /// `/validate`; `http://` for `wasmtime serve`) and print its answer; the webhook judges with
    /// its own component and settings.
    #[arg(long, value_name = "URL")]
    server: Option<String>,
    /// With --server: the CA bundle (PEM) to verify the webhook's certificate with.
    #[arg(long, value_name = "FILE", requires = "server")]
    ca: Option<PathBuf>,
    /// With --server: how long to keep trying (connection refused, HTTP 503 while the webhook
    /// starts) before giving up.
    #[arg(long, value_name = "DURATION", default_value = "30s", requires = "server",
          value_parser = crate::units::parse_duration)]
    request_timeout: Duration,
    #[command(flatten)]
    validate: ValidateArgs,
    #[command(flatten)]
    policy: PolicyArgs,
}

/// Prints the response review; exits 0 when the response allows the request, 1 when it denies.
pub(crate) fn run(a: &ReviewArgs) -> Result<u8, Failure> {
    let text = read_input(&a.file, "FILE")?;
    if let Some(url) = &a.server {
        return send(a, url, &text);
    }
    let (settings, settings_source) = settings_document(
        a.settings.as_ref(),
        a.feature_gates.as_deref(),
        a.kubernetes_version.as_deref(),
        false,
    )?;
    let runtime = a.policy.runtime()?;
    let file = super::inputs::display(&a.file, "FILE");
    // `--validate ignore` hands the review over exactly as given, as the webhook does.
    let text = if matches!(a.validate.validate, Validate::Ignore | Validate::False) {
        text
    } else {
        let read = read_text(
            &runtime,
            &text,
            &file,
            "admission-review",
            DocumentKind::AdmissionReview,
            a.validate,
        )?;
        let (doc, warnings) = read.single()?;
        print_warnings(&warnings);
        doc.json
    };
    let out = runtime
        .review(&text, &settings)
        .map_err(|e| Failure::from_call(e, &[("admission-review", &file), ("settings", &settings_source)]))?;
    let value: Value = serde_json::from_str(&out)
        .map_err(|e| Failure::internal(format!("the component returned an unreadable review: {e}")))?;
    Ok(print_verdict(&value))
}

/// `--server`: POST the review (YAML is sent as JSON, like kubectl does) and print the answer.
fn send(a: &ReviewArgs, url: &str, text: &str) -> Result<u8, Failure> {
    let review: Value = super::inputs::yaml_value(text, &a.file.display().to_string())?;
    let body =
        serde_json::to_vec(&review).map_err(|e| Failure::input(format!("{}: {e}", a.file.display())))?;
    let server =
        crate::client::Server::new(url, a.ca.as_deref()).map_err(|e| Failure::input(e.to_string()))?;
    let (status, answer) = server
        .post(&body, a.request_timeout)
        .map_err(|e| Failure::internal(e.to_string()))?;
    let value: Option<Value> = serde_json::from_slice(&answer).ok();
    match value {
        Some(v) if status == 200 && v.get("response").is_some() => Ok(print_verdict(&v)),
        _ => {
            let text = String::from_utf8_lossy(&answer);
            let code = if (400..500).contains(&status) { 2 } else { 3 };
            Err(Failure {
                code,
                message: format!("{url} answered HTTP {status}: {}", text.trim()),
            })
        }
    }
}

/// Print the response review; 0 when it allows the request, 1 when it denies.
fn print_verdict(value: &Value) -> u8 {
    emit(&to_json_string(value));
    let allowed = value
        .pointer("/response/allowed")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if allowed { 0 } else { 1 }
}
