//! `review-request` cases: the AdmissionReview `podmut admission-review` builds, then judged by the
//! component's own `review` — so a generated review is answered like `check` answers the pair.
//!
//! `old`, `new` (either optional), `subresource`, and `request: {operation, dryRun, user, uid}`.
//! Answer (both ways): `{"request": <the review's request>, "response": <the whole
//! AdmissionReview response>}` or an input error. A fixture's `expect` is compared with
//! `{"request", "response": {"allowed", "code"}}`.

use serde_json::{Value, json};

use crate::{Area, Case, component_error, json_text, native_input_error, runtime};

/// The review-request area.
pub const AREA: Area = Area { native, wasm, view };

fn opt<'a>(c: &'a Case, key: &str) -> Option<&'a Value> {
    c.request.as_ref().and_then(|r| r.get(key))
}

fn text(c: &Case, key: &str, default: &str) -> String {
    opt(c, key).and_then(Value::as_str).unwrap_or(default).to_owned()
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| json!({"notJson": e.to_string(), "text": text}))
}

fn outcome(review: &str, response: &str) -> Value {
    let (review, response) = (parse(review), parse(response));
    json!({"request": review["request"], "response": response["response"]})
}

/// The request, and the response's verdict and code.
fn view(answer: &Value) -> Value {
    let response = &answer["response"];
    json!({
        "request": answer["request"],
        "response": {"allowed": response["allowed"], "code": response["status"]["code"]},
    })
}

fn native(c: &Case) -> Value {
    use podmut_core::{RequestOptions, admission_request};
    let (Ok(subresource), Ok(operation)) = (c.subresource.parse(), text(c, "operation", "UPDATE").parse())
    else {
        return json!({"caseError": "bad subresource or operation"});
    };
    let options = RequestOptions {
        operation,
        subresource,
        dry_run: opt(c, "dryRun").and_then(Value::as_bool).unwrap_or(false),
        user: text(c, "user", "kubernetes-admin"),
        uid: text(c, "uid", "uid-1"),
    };
    let (old, new) = (json_text(c.old.as_ref()), json_text(c.new.as_ref()));
    let review = match admission_request(old.as_deref(), new.as_deref(), &options, 1 << 22) {
        Ok(r) => r.to_string(),
        Err(e) => return native_input_error(&e),
    };
    match podmut_core::review(&review, "") {
        Ok(response) => outcome(&review, &response),
        Err(e) => native_input_error(&e),
    }
}

fn wasm(c: &Case) -> Value {
    use podmut::types::{Operation, RequestOptions};
    let Ok(sub) = podmut::output::parse_subresource(&c.subresource) else {
        return json!({"caseError": "bad subresource or operation"});
    };
    let operation = match text(c, "operation", "UPDATE").to_ascii_uppercase().as_str() {
        "CREATE" => Operation::Create,
        "UPDATE" => Operation::Update,
        "DELETE" => Operation::Delete,
        _ => return json!({"caseError": "bad subresource or operation"}),
    };
    let options = RequestOptions {
        operation,
        sub,
        dry_run: opt(c, "dryRun").and_then(Value::as_bool).unwrap_or(false),
        user: text(c, "user", "kubernetes-admin"),
        uid: text(c, "uid", "uid-1"),
    };
    let (old, new) = (json_text(c.old.as_ref()), json_text(c.new.as_ref()));
    let review = match runtime().admission_request(old.as_deref(), new.as_deref(), &options) {
        Ok(r) => r,
        Err(e) => return component_error(&e),
    };
    match runtime().review(&review, "") {
        Ok(response) => outcome(&review, &response),
        Err(e) => component_error(&e),
    }
}
