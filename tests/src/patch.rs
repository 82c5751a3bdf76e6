//! `patch` cases: an old Pod and a patch (`kubectl patch`'s three types), judged on a request path.
//!
//! `request: {patch: <object, list or text>, type: strategic|merge|json}` (type defaults to
//! strategic). Outcome: `{"patched": <the patched Pod>, "allowed", "errors": [{"type", "field",
//! "origin"}]}` or `{"inputError": text}`.

use serde_json::{Value, json};

use crate::{Area, Case, input_error, json_text, runtime, settings_text};

/// The patch area.
pub const AREA: Area = Area { native, wasm };

fn patch_text(c: &Case) -> String {
    match c.request.as_ref().and_then(|r| r.get("patch")) {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    }
}

fn patch_type(c: &Case) -> String {
    c.request
        .as_ref()
        .and_then(|r| r.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("strategic")
        .to_owned()
}

fn outcome(patched: &str, allowed: bool, errors: &[Value]) -> Value {
    let patched: Value = serde_json::from_str(patched).unwrap_or(Value::Null);
    json!({"patched": patched, "allowed": allowed, "errors": errors})
}

fn native(c: &Case) -> Value {
    let old = json_text(c.old.as_ref()).unwrap_or_default();
    let (Ok(sub), Ok(kind)) = (
        c.subresource.parse::<podmut_core::Subresource>(),
        patch_type(c).parse::<podmut_core::PatchType>(),
    ) else {
        return input_error("bad subresource or patch type");
    };
    let patched = match podmut_core::apply_patch(&old, &patch_text(c), kind, 1 << 22) {
        Ok(v) => v.to_string(),
        Err(e) => return input_error(e.to_string()),
    };
    match podmut_core::check_documents(Some(&old), &patched, sub, &settings_text(c)) {
        Ok(v) => {
            let errors: Vec<Value> = v
                .errors
                .iter()
                .map(|e| json!({"type": e.error_type.cause_type(), "field": e.field.to_string(), "origin": e.origin}))
                .collect();
            outcome(&patched, v.allowed, &errors)
        }
        Err(e) => input_error(e.to_string()),
    }
}

fn wasm(c: &Case) -> Value {
    use podmut::types::PatchType;
    let old = json_text(c.old.as_ref()).unwrap_or_default();
    let Ok(sub) = podmut::output::parse_subresource(&c.subresource) else {
        return input_error("bad subresource or patch type");
    };
    let kind = match patch_type(c).as_str() {
        "strategic" => PatchType::Strategic,
        "merge" => PatchType::Merge,
        "json" => PatchType::Json,
        _ => return input_error("bad subresource or patch type"),
    };
    let patched = match runtime().apply_patch(&old, &patch_text(c), kind) {
        Ok(p) => p,
        Err(e) => return input_error(e.to_string()),
    };
    match runtime().check(Some(&old), &patched, sub, &settings_text(c)) {
        Ok(v) => {
            let errors: Vec<Value> = v
                .errors
                .iter()
                .map(|e| json!({"type": podmut::output::cause_type(e.type_), "field": e.field, "origin": e.origin}))
                .collect();
            outcome(&patched, v.allowed, &errors)
        }
        Err(e) => input_error(e.to_string()),
    }
}
