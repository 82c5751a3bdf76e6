//! `check` cases: validation of a Pod create or update on a request path.
//!
//! Answer (both ways): the `check -o json` object, `{"allowed", "errors": [{"type", "field",
//! "detail", "badValue"?, "origin", "message"}], "warnings", "message"}`. A fixture's `expect` is
//! compared with the answer less each error's `message` (upstream's `ErrorBody()`, which the type,
//! `badValue` and `detail` already spell out; the top-level `message` is kept).

use serde_json::{Value, json};

use crate::{Area, Case, component_error, json_text, native_input_error, runtime, settings_text};

/// The check area.
pub const AREA: Area = Area { native, wasm, view };

/// One error of the answer.
fn error(
    type_: &str,
    field: &str,
    detail: &str,
    bad_value: Option<&str>,
    origin: &str,
    message: &str,
) -> Value {
    let mut e =
        json!({"type": type_, "field": field, "detail": detail, "origin": origin, "message": message});
    if let (Some(v), Some(o)) = (bad_value, e.as_object_mut()) {
        o.insert("badValue".into(), json!(v));
    }
    e
}

fn answer(allowed: bool, errors: &[Value], warnings: &[String], message: &str) -> Value {
    json!({"allowed": allowed, "errors": errors, "warnings": warnings, "message": message})
}

fn native(c: &Case) -> Value {
    match c.subresource.parse::<podmut_core::Subresource>() {
        Ok(sub) => native_answer(
            json_text(c.old.as_ref()).as_deref(),
            &json_text(c.new.as_ref()).unwrap_or_default(),
            sub,
            &settings_text(c),
        ),
        Err(e) => json!({"caseError": e}),
    }
}

fn wasm(c: &Case) -> Value {
    match podmut::output::parse_subresource(&c.subresource) {
        Ok(sub) => wasm_answer(
            json_text(c.old.as_ref()).as_deref(),
            &json_text(c.new.as_ref()).unwrap_or_default(),
            sub,
            &settings_text(c),
        ),
        Err(e) => json!({"caseError": e}),
    }
}

/// podmut-core's answer to `check(old, new, sub, settings)` (documents as text).
pub fn native_answer(old: Option<&str>, new: &str, sub: podmut_core::Subresource, settings: &str) -> Value {
    match podmut_core::check_documents(old, new, sub, settings) {
        Ok(v) => native_verdict(&v),
        Err(e) => native_input_error(&e),
    }
}

/// podmut-core's verdict as the answer (also `patch` and `plan` cases' admission).
pub(crate) fn native_verdict(v: &podmut_core::Verdict) -> Value {
    let podmut_core::Verdict {
        allowed,
        errors,
        warnings,
        message,
    } = v;
    let errors: Vec<Value> = errors
        .iter()
        .map(|e| {
            let podmut_core::FieldError {
                error_type,
                field,
                bad_value: _,
                detail,
                origin,
            } = e;
            error(
                error_type.cause_type(),
                &field.to_string(),
                detail,
                e.rendered_bad_value().as_deref(),
                origin,
                &e.body(),
            )
        })
        .collect();
    answer(*allowed, &errors, warnings, message)
}

/// The component's answer to `check(old, new, sub, settings)`, in the same shape.
pub fn wasm_answer(old: Option<&str>, new: &str, sub: podmut::types::Subresource, settings: &str) -> Value {
    match runtime().check(old, new, sub, settings) {
        Ok(v) => wasm_verdict(&v),
        Err(e) => component_error(&e),
    }
}

/// The component's verdict as the answer, in [`native_verdict`]'s shape.
pub(crate) fn wasm_verdict(v: &podmut::types::Verdict) -> Value {
    let podmut::types::Verdict {
        allowed,
        errors,
        warnings,
        message,
    } = v;
    let errors: Vec<Value> = errors
        .iter()
        .map(|e| {
            let podmut::types::FieldError {
                field,
                type_,
                detail,
                bad_value,
                origin,
                message,
            } = e;
            error(
                podmut::output::cause_type(*type_),
                field,
                detail,
                bad_value.as_deref(),
                origin,
                message,
            )
        })
        .collect();
    answer(*allowed, &errors, warnings, message)
}

/// The answer less each error's `message`.
pub(crate) fn view(answer: &Value) -> Value {
    let mut v = answer.clone();
    if let Some(errors) = v.get_mut("errors").and_then(Value::as_array_mut) {
        for e in errors {
            if let Some(o) = e.as_object_mut() {
                o.remove("message");
            }
        }
    }
    v
}
