//! `patch` cases: an old Pod and a patch (`kubectl patch`'s three types), judged on a request path.
//!
//! `request: {patch: <object, list or text>, type: strategic|merge|json}` (type defaults to
//! strategic). Answer (both ways): the `check` answer of the old Pod and the patched one (see
//! [`crate::check`]) plus `"patched": <the patched Pod>`, or an input error. A fixture's `expect`
//! is compared with it less each error's `message`, as in `check` cases.

use serde_json::{Value, json};

use crate::check::{native_verdict, view as verdict_view, wasm_verdict};
use crate::{Area, Case, component_error, json_text, native_input_error, runtime, settings_text};

/// The patch area.
pub const AREA: Area = Area {
    native,
    wasm,
    view: verdict_view,
};

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

fn answer(patched: &str, mut verdict: Value) -> Value {
    let patched: Value = serde_json::from_str(patched).unwrap_or_else(|e| json!({"notJson": e.to_string()}));
    if let Some(o) = verdict.as_object_mut() {
        o.insert("patched".into(), patched);
    }
    verdict
}

fn native(c: &Case) -> Value {
    let old = json_text(c.old.as_ref()).unwrap_or_default();
    let sub = match c.subresource.parse::<podmut_core::Subresource>() {
        Ok(s) => s,
        Err(e) => return json!({"caseError": e}),
    };
    let kind = match patch_type(c).parse::<podmut_core::PatchType>() {
        Ok(k) => k,
        Err(e) => return json!({"caseError": e}),
    };
    let patched = match podmut_core::apply_patch(&old, &patch_text(c), kind, 1 << 22) {
        Ok(v) => v.to_string(),
        Err(e) => return native_input_error(&e),
    };
    match podmut_core::check_documents(Some(&old), &patched, sub, &settings_text(c)) {
        Ok(v) => answer(&patched, native_verdict(&v)),
        Err(e) => native_input_error(&e),
    }
}

fn wasm(c: &Case) -> Value {
    use podmut::types::PatchType;
    let old = json_text(c.old.as_ref()).unwrap_or_default();
    let sub = match podmut::output::parse_subresource(&c.subresource) {
        Ok(s) => s,
        Err(e) => return json!({"caseError": e}),
    };
    let kind = match patch_type(c).as_str() {
        "strategic" => PatchType::Strategic,
        "merge" => PatchType::Merge,
        "json" => PatchType::Json,
        other => return json!({"caseError": format!("unknown patch type {other}")}),
    };
    let patched = match runtime().apply_patch(&old, &patch_text(c), kind) {
        Ok(p) => p,
        Err(e) => return component_error(&e),
    };
    match runtime().check(Some(&old), &patched, sub, &settings_text(c)) {
        Ok(v) => answer(&patched, wasm_verdict(&v)),
        Err(e) => component_error(&e),
    }
}
