//! Rendering component results for people (`-o text`) and programs (`-o json|yaml`).
//!
//! The JSON shapes here are podmut's public, documented CLI contract (README, design.md §4).

use serde::Serialize;
use serde_json::{Value, json};

use crate::types::{ErrorType, FieldError, QosClass, Subresource, Verdict};

/// The `metav1.CauseType` string of an error type.
pub fn cause_type(t: ErrorType) -> &'static str {
    match t {
        ErrorType::Required => "FieldValueRequired",
        ErrorType::Invalid => "FieldValueInvalid",
        ErrorType::Forbidden => "FieldValueForbidden",
        ErrorType::NotSupported => "FieldValueNotSupported",
        ErrorType::Duplicate => "FieldValueDuplicate",
        ErrorType::NotFound => "FieldValueNotFound",
        ErrorType::TooLong => "FieldValueTooLong",
        ErrorType::TooMany => "FieldValueTooMany",
        ErrorType::Internal => "InternalError",
    }
}

/// The API string of a QoS class.
pub fn qos_name(q: QosClass) -> &'static str {
    match q {
        QosClass::Guaranteed => "Guaranteed",
        QosClass::Burstable => "Burstable",
        QosClass::BestEffort => "BestEffort",
    }
}

/// The CLI name of a subresource.
pub fn subresource_name(s: Subresource) -> &'static str {
    match s {
        Subresource::None => "none",
        Subresource::Dynamic => "dynamic",
        Subresource::EphemeralContainers => "ephemeralcontainers",
        Subresource::Resize => "resize",
        Subresource::Status => "status",
    }
}

/// Parse a CLI subresource name.
pub fn parse_subresource(s: &str) -> Result<Subresource, String> {
    match s {
        "" | "none" => Ok(Subresource::None),
        "dynamic" => Ok(Subresource::Dynamic),
        "ephemeralcontainers" | "ephemeral-containers" => Ok(Subresource::EphemeralContainers),
        "resize" => Ok(Subresource::Resize),
        "status" => Ok(Subresource::Status),
        other => Err(format!(
            "unknown subresource {other:?} (expected none, dynamic, ephemeralcontainers, resize or status)"
        )),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ErrorOut<'a> {
    #[serde(rename = "type")]
    error_type: &'static str,
    field: &'a str,
    detail: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    bad_value: Option<&'a str>,
    origin: &'a str,
    message: &'a str,
}

/// The `check -o json` object: `{"allowed", "errors": [{"type", "field", "detail", "badValue"?,
/// "origin", "message"}], "warnings", "message"}`.
pub fn verdict_json(v: &Verdict) -> Value {
    let errors: Vec<ErrorOut<'_>> = v
        .errors
        .iter()
        .map(|e: &FieldError| ErrorOut {
            error_type: cause_type(e.type_),
            field: &e.field,
            detail: &e.detail,
            bad_value: e.bad_value.as_deref(),
            origin: &e.origin,
            message: &e.message,
        })
        .collect();
    json!({
        "allowed": v.allowed,
        "errors": errors,
        "warnings": v.warnings,
        "message": v.message,
    })
}

/// The `check -o text` rendering: a first line `allowed` or `denied: <API message>`, then one line
/// per error (`<field>: <body>  [origin]`) and per warning.
pub fn verdict_text(v: &Verdict) -> String {
    let mut out = String::new();
    if v.allowed {
        out.push_str("allowed\n");
    } else {
        out.push_str("denied: ");
        out.push_str(&v.message);
        out.push('\n');
        for e in &v.errors {
            out.push_str(&format!("  {}: {}  [{}]\n", e.field, e.message, e.origin));
        }
    }
    for w in &v.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out
}

/// Pretty JSON (a trailing newline included).
pub fn to_json_string(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".into());
    s.push('\n');
    s
}

/// YAML.
pub fn to_yaml_string(v: &Value) -> String {
    serde_yaml_ng::to_string(v).unwrap_or_else(|e| format!("# cannot render YAML: {e}\n"))
}
