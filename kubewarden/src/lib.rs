//! podmut as a [Kubewarden](https://kubewarden.io) policy.
//!
//! Kubewarden's policy-server loads core WebAssembly modules, not components (its runtimes are waPC,
//! WASI preview 1 and OPA), so this crate builds the same rule crates a second time (`podmut-admission`, the
//! webhook's logic, and what it uses), for
//! `wasm32-unknown-unknown`, behind the waPC protocol of `kubewarden-policy-sdk`. It registers the
//! three waPC functions Kubewarden calls:
//!
//! - `validate`: payload `{"request": <AdmissionReview.request>, "settings": {...}}` → a Kubewarden
//!   `ValidationResponse`. The request is judged by [`podmut_admission::review_value`], exactly
//!   what the component's `admission.review` runs, routed by `request.subResource`;
//! - `validate_settings`: the settings document (podmut's own, see `policies/default.yaml`) →
//!   `{"valid": bool, "message"?}`;
//! - `protocol_version`: `"v1"`.
//!
//! Every Kubernetes decision stays in the rule crates; this crate is glue, like `guest/`.
//! The `io.kubewarden.metadata` section comes from `kubewarden/metadata.yml` (`kwctl annotate`, see
//! kubewarden/README.md).

use kubewarden_policy_sdk::response::ValidationResponse;
use kubewarden_policy_sdk::settings::SettingsValidationResponse;
use podmut_model::settings::Settings;
use serde::Deserialize;
use serde_json::{Value, json};

/// The HTTP code of a request podmut cannot read (Kubewarden puts it in the response `status.code`).
pub const BAD_REQUEST: u16 = 400;

/// Register the waPC functions. Called by the waPC host right after instantiation.
#[cfg(target_arch = "wasm32")]
#[expect(
    unsafe_code,
    reason = "waPC hosts find the init function by its unmangled export name"
)]
#[unsafe(no_mangle)]
pub extern "C" fn wapc_init() {
    use kubewarden_policy_sdk::wapc_guest::register_function;
    register_function("validate", validate);
    register_function("validate_settings", validate_settings);
    register_function("protocol_version", kubewarden_policy_sdk::protocol_version_guest);
}

/// The waPC `validate` function: a Kubewarden validation payload in, a `ValidationResponse` out.
pub fn validate(payload: &[u8]) -> kubewarden_policy_sdk::wapc_guest::CallResult {
    Ok(serde_json::to_vec(&evaluate(payload))?)
}

/// The waPC `validate_settings` function.
pub fn validate_settings(payload: &[u8]) -> kubewarden_policy_sdk::wapc_guest::CallResult {
    Ok(serde_json::to_vec(&check_settings(payload))?)
}

/// What Kubewarden sends to `validate`.
#[derive(Debug, Deserialize)]
struct Payload {
    /// The AdmissionReview's `request` (uid, kind, resource, subResource, operation, object,
    /// oldObject, ...).
    request: Value,
    /// The policy's settings as given in the ClusterAdmissionPolicy (`{}` when none).
    #[serde(default)]
    settings: Value,
}

/// Judge one validation payload.
///
/// Allowed → `accepted: true` with podmut's warnings; denied → `accepted: false`, `code: 422` and the
/// API server's own message (`Pod "x" is invalid: [...]`). A payload podmut cannot read is rejected
/// with code 400 and a message naming the input and the field.
pub fn evaluate(payload: &[u8]) -> ValidationResponse {
    let payload: Payload = match serde_json::from_slice(payload) {
        Ok(p) => p,
        Err(e) => {
            return reject(
                format!("podmut: the validation payload is not readable: {e}"),
                BAD_REQUEST,
            );
        }
    };
    let settings = match parse_settings(&payload.settings) {
        Ok(s) => s,
        Err(message) => return reject(format!("podmut: {message}"), BAD_REQUEST),
    };
    let review = json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": payload.request,
    });
    match podmut_admission::review_value(review, &settings) {
        Ok(response) => {
            let warnings = response.warnings.filter(|w| !w.is_empty());
            // `enforcement: warn|audit` records a would-be denial as an audit annotation.
            let audit_annotations = (!response.audit_annotations.is_empty())
                .then(|| response.audit_annotations.into_iter().collect());
            if response.allowed {
                ValidationResponse {
                    accepted: true,
                    message: None,
                    code: None,
                    mutated_object: None,
                    audit_annotations,
                    warnings,
                }
            } else {
                ValidationResponse {
                    accepted: false,
                    message: Some(response.result.message),
                    code: Some(response.result.code),
                    mutated_object: None,
                    audit_annotations,
                    warnings,
                }
            }
        }
        Err(e) => reject(format!("podmut: {e}"), BAD_REQUEST),
    }
}

/// Check a settings document as Kubewarden's `validate_settings` does at policy-server start.
pub fn check_settings(payload: &[u8]) -> SettingsValidationResponse {
    let parsed = serde_json::from_slice::<Value>(payload)
        .map_err(|e| format!("settings: not JSON: {e}"))
        .and_then(|v| parse_settings(&v));
    match parsed {
        Ok(_) => SettingsValidationResponse {
            valid: true,
            message: None,
        },
        Err(message) => SettingsValidationResponse {
            valid: false,
            message: Some(message),
        },
    }
}

/// podmut settings from Kubewarden's settings value (`null` and `{}` give the defaults).
fn parse_settings(value: &Value) -> Result<Settings, String> {
    if value.is_null() {
        return Ok(Settings::default());
    }
    Settings::parse(&value.to_string()).map_err(|e| e.to_string())
}

fn reject(message: String, code: u16) -> ValidationResponse {
    ValidationResponse {
        accepted: false,
        message: Some(message),
        code: Some(code),
        mutated_object: None,
        audit_annotations: None,
        warnings: None,
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    fn pod(containers: &[&str]) -> Value {
        let containers: Vec<Value> = containers
            .iter()
            .map(|n| json!({"name": n, "image": "busybox"}))
            .collect();
        json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web", "namespace": "default", "uid": "u1", "resourceVersion": "1"},
            "spec": {"containers": containers},
        })
    }

    fn request(sub: Option<&str>, old: &Value, new: &Value) -> Vec<u8> {
        request_with(sub, old, new, &json!({}))
    }

    fn request_with(sub: Option<&str>, old: &Value, new: &Value, settings: &Value) -> Vec<u8> {
        let mut req = json!({
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "resource": {"group": "", "version": "v1", "resource": "pods"},
            "name": "web", "namespace": "default", "operation": "UPDATE",
            "userInfo": {"username": "admin"},
            "object": new, "oldObject": old,
        });
        if let Some(sub) = sub {
            req["subResource"] = json!(sub);
        }
        serde_json::to_vec(&json!({"request": req, "settings": settings})).unwrap()
    }

    #[test]
    fn warn_and_audit_enforcement_accept_and_record_the_denial() {
        let (old, new) = (pod(&["a"]), pod(&["a", "b"]));
        let warn = evaluate(&request_with(None, &old, &new, &json!({"enforcement": "warn"})));
        assert!(warn.accepted);
        let w = warn.warnings.unwrap();
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with("podmut would deny: spec.containers: Forbidden"),
            "{w:?}"
        );
        let annotations = warn.audit_annotations.unwrap();
        assert!(annotations["would-deny"].starts_with("Pod \"web\" is invalid"));
        let audit = evaluate(&request_with(None, &old, &new, &json!({"enforcement": "audit"})));
        assert!(audit.accepted);
        assert!(audit.warnings.is_none());
        assert!(audit.audit_annotations.unwrap().contains_key("would-deny"));
    }

    #[test]
    fn adding_a_container_on_the_main_resource_is_rejected_with_the_api_servers_message() {
        let r = evaluate(&request(None, &pod(&["a"]), &pod(&["a", "b"])));
        assert!(!r.accepted);
        assert_eq!(r.code, Some(422));
        let msg = r.message.unwrap();
        assert!(msg.starts_with("Pod \"web\" is invalid"), "{msg}");
        assert!(msg.contains("spec.containers"), "{msg}");
    }

    #[test]
    fn an_unchanged_update_is_accepted() {
        let r = evaluate(&request(None, &pod(&["a"]), &pod(&["a"])));
        assert!(r.accepted, "{:?}", r.message);
        assert_eq!(r.code, None);
    }

    #[test]
    fn an_unreadable_payload_is_rejected_with_400_naming_the_problem() {
        let r = evaluate(b"{not json");
        assert!(!r.accepted);
        assert_eq!(r.code, Some(BAD_REQUEST));
        assert!(r.message.unwrap().contains("validation payload"));
    }

    #[test]
    fn settings_are_checked_by_podmut_model() {
        assert!(check_settings(b"{}").valid);
        assert!(check_settings(br#"{"featureGates": {"DynamicContainers": false}}"#).valid);
        let bad = check_settings(br#"{"featureGates": {"NoSuchGate": true}}"#);
        assert!(!bad.valid);
        assert!(bad.message.unwrap().contains("NoSuchGate"));
        let typo = check_settings(br#"{"applyDefault": true}"#);
        assert!(!typo.valid, "unknown fields are refused");
    }
}
