//! `review-request` cases: the AdmissionReview `podmut admission-review` builds, then judged by the
//! component's own `review` — so a generated review is answered like `check` answers the pair.
//!
//! `old`, `new` (either optional), `subresource`, and `request: {operation, dryRun, user, uid}`.
//! Outcome: `{"request": <the review's request>, "response": {"allowed", "code"}}` or
//! `{"inputError": text}`.

use serde_json::{Value, json};

use crate::{Area, Case, input_error, json_text, runtime};

/// The review-request area.
pub const AREA: Area = Area { native, wasm };

fn opt<'a>(c: &'a Case, key: &str) -> Option<&'a Value> {
    c.request.as_ref().and_then(|r| r.get(key))
}

fn text(c: &Case, key: &str, default: &str) -> String {
    opt(c, key).and_then(Value::as_str).unwrap_or(default).to_owned()
}

fn outcome(review: &str, response: &str) -> Value {
    let review: Value = serde_json::from_str(review).unwrap_or(Value::Null);
    let response: Value = serde_json::from_str(response).unwrap_or(Value::Null);
    json!({
        "request": review["request"],
        "response": {
            "allowed": response["response"]["allowed"],
            "code": response["response"]["status"]["code"],
        },
    })
}

fn native(c: &Case) -> Value {
    use podmut_core::{RequestOptions, admission_request};
    let (Ok(subresource), Ok(operation)) = (c.subresource.parse(), text(c, "operation", "UPDATE").parse())
    else {
        return input_error("bad subresource or operation");
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
        Err(e) => return input_error(e.to_string()),
    };
    match podmut_core::review(&review, "") {
        Ok(response) => outcome(&review, &response),
        Err(e) => input_error(e.to_string()),
    }
}

fn wasm(c: &Case) -> Value {
    use podmut::types::{Operation, RequestOptions};
    let Ok(sub) = podmut::output::parse_subresource(&c.subresource) else {
        return input_error("bad subresource or operation");
    };
    let operation = match text(c, "operation", "UPDATE").to_ascii_uppercase().as_str() {
        "CREATE" => Operation::Create,
        "UPDATE" => Operation::Update,
        "DELETE" => Operation::Delete,
        _ => return input_error("bad subresource or operation"),
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
        Err(e) => return input_error(e.to_string()),
    };
    match runtime().review(&review, "") {
        Ok(response) => outcome(&review, &response),
        Err(e) => input_error(e.to_string()),
    }
}
