//! `admission.review`: an AdmissionReview in, the AdmissionReview response out. No fixture area of
//! its own (`tests/tests/review_paths.rs` wraps the check fixtures); the fuzz smoke compares the
//! native and component answers.

use serde_json::{Value, json};

use crate::{component_error, native_input_error, runtime};

/// The response text as JSON (or `{"notJson": ...}`).
fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| json!({"notJson": e.to_string(), "text": text}))
}

/// podmut-core's answer to `review(admission-review, settings)`.
pub fn native_answer(review: &str, settings: &str) -> Value {
    match podmut_core::review(review, settings) {
        Ok(r) => parse(&r),
        Err(e) => native_input_error(&e),
    }
}

/// The component's answer to `review(admission-review, settings)`.
pub fn wasm_answer(review: &str, settings: &str) -> Value {
    match runtime().review(review, settings) {
        Ok(r) => parse(&r),
        Err(e) => component_error(&e),
    }
}
