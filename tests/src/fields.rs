//! `fields` cases: reading documents as users have them — several objects per file, unknown and
//! duplicate fields under each `--validate` level.
//!
//! `request: {text: "<the document as written>", kind: pod|node|admission-review|
//! allocation-request|retry-request|statuses-request, validation: strict|warn|ignore}`. The text is
//! given verbatim so duplicate keys survive. Outcome: `{"documents": [{"namespace", "name",
//! "warnings", "error"}]}` (`error` null when readable) or `{"inputError": text}`.

use serde_json::{Value, json};

use crate::{Area, Case, component_error, native_input_error, runtime};

/// The fields area.
pub const AREA: Area = Area {
    native,
    wasm,
    view: Value::clone,
};

fn get<'a>(c: &'a Case, key: &str, default: &'a str) -> &'a str {
    c.request
        .as_ref()
        .and_then(|r| r.get(key))
        .and_then(Value::as_str)
        .unwrap_or(default)
}

fn doc(namespace: &str, name: &str, warnings: &[String], error: Option<&String>) -> Value {
    json!({"namespace": namespace, "name": name, "warnings": warnings, "error": error})
}

fn native(c: &Case) -> Value {
    use podmut_core::DocumentKind as K;
    use podmut_core::FieldValidation;
    let kind = match get(c, "kind", "pod") {
        "pod" => K::Pod,
        "node" => K::Node,
        "admission-review" => K::AdmissionReview,
        "allocation-request" => K::AllocationRequest,
        "retry-request" => K::RetryRequest,
        "statuses-request" => K::StatusesRequest,
        other => return json!({"caseError": format!("unknown kind {other}")}),
    };
    let level: FieldValidation = match get(c, "validation", "strict").parse() {
        Ok(l) => l,
        Err(e) => return json!({"caseError": e}),
    };
    match podmut_core::read_documents(get(c, "text", ""), "input", kind, level, 1 << 22) {
        Ok(docs) => {
            let docs: Vec<Value> = docs
                .iter()
                .map(|d| doc(&d.namespace, &d.name, &d.warnings, d.error.as_ref()))
                .collect();
            json!({ "documents": docs })
        }
        Err(e) => native_input_error(&e),
    }
}

fn wasm(c: &Case) -> Value {
    use podmut::types::{DocumentKind as K, FieldValidation as F};
    let kind = match get(c, "kind", "pod") {
        "pod" => K::Pod,
        "node" => K::Node,
        "admission-review" => K::AdmissionReview,
        "allocation-request" => K::AllocationRequest,
        "retry-request" => K::RetryRequest,
        "statuses-request" => K::StatusesRequest,
        other => return json!({"caseError": format!("unknown kind {other}")}),
    };
    let level = match get(c, "validation", "strict") {
        "strict" | "true" => F::Strict,
        "warn" => F::Warn,
        "ignore" | "false" => F::Ignore,
        other => return json!({"caseError": format!("unknown validation {other}")}),
    };
    match runtime().read_documents(get(c, "text", ""), "input", kind, level) {
        Ok(docs) => {
            let docs: Vec<Value> = docs
                .iter()
                .map(|d| doc(&d.namespace, &d.name, &d.warnings, d.error.as_ref()))
                .collect();
            json!({ "documents": docs })
        }
        Err(e) => component_error(&e),
    }
}
