//! `check` cases: validation of a Pod create or update on a request path.
//!
//! Outcome: `{"allowed": bool, "errors": [{"type", "field", "origin"}]}` or `{"inputError": text}`.

use serde_json::{Value, json};

use crate::{Area, Case, input_error, json_text, runtime, settings_text};

/// The check area.
pub const AREA: Area = Area { native, wasm };

fn native(c: &Case) -> Value {
    let sub = match c.subresource.parse::<podmut_core::Subresource>() {
        Ok(s) => s,
        Err(e) => return input_error(e),
    };
    let new = json_text(c.new.as_ref()).unwrap_or_default();
    match podmut_core::check_documents(json_text(c.old.as_ref()).as_deref(), &new, sub, &settings_text(c)) {
        Ok(v) => {
            let errors: Vec<Value> = v
                .errors
                .iter()
                .map(|e| json!({"type": e.error_type.cause_type(), "field": e.field.to_string(), "origin": e.origin}))
                .collect();
            json!({"allowed": v.allowed, "errors": errors})
        }
        Err(e) => input_error(e.to_string()),
    }
}

fn wasm(c: &Case) -> Value {
    let sub = match podmut::output::parse_subresource(&c.subresource) {
        Ok(s) => s,
        Err(e) => return input_error(e),
    };
    let new = json_text(c.new.as_ref()).unwrap_or_default();
    match runtime().check(json_text(c.old.as_ref()).as_deref(), &new, sub, &settings_text(c)) {
        Ok(v) => {
            let errors: Vec<Value> = v
                .errors
                .iter()
                .map(|e| json!({"type": podmut::output::cause_type(e.type_), "field": e.field, "origin": e.origin}))
                .collect();
            json!({"allowed": v.allowed, "errors": errors})
        }
        Err(e) => input_error(e.to_string()),
    }
}
