//! The AdmissionReview envelope as the host sees it: just enough to tell a review from garbage,
//! label metrics and logs, check the component's answer, and answer for the component when it
//! fails. Judging the request is the component's job.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};

/// `admission.k8s.io/v1`.
pub const API_VERSION: &str = "admission.k8s.io/v1";

/// The fields of a request review the host reads (everything else is skipped, not copied).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Envelope {
    api_version: Option<String>,
    kind: Option<String>,
    request: Option<RequestEnvelope>,
    #[expect(dead_code, reason = "present in some reviews; skipped without allocating")]
    response: Option<IgnoredAny>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RequestEnvelope {
    uid: Option<String>,
    #[serde(default)]
    resource: Option<GroupVersionResource>,
    #[serde(default)]
    sub_resource: Option<String>,
    #[serde(default)]
    operation: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    dry_run: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
struct GroupVersionResource {
    #[serde(default)]
    resource: String,
}

/// What the host knows about one review request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestInfo {
    /// `request.uid`, echoed in every answer.
    pub uid: String,
    /// `request.resource.resource`.
    pub resource: String,
    /// `request.subResource` (`""` for the main resource).
    pub subresource: String,
    /// `request.operation`.
    pub operation: String,
    /// `request.namespace`.
    pub namespace: String,
    /// `request.name`.
    pub name: String,
    /// `request.dryRun`.
    pub dry_run: bool,
}

/// Read the envelope of a request review; `Err` says, for a 400 answer, why it is not one.
pub fn read_request(body: &[u8]) -> Result<RequestInfo, String> {
    let env: Envelope =
        serde_json::from_slice(body).map_err(|e| format!("the body is not an AdmissionReview: {e}"))?;
    match (env.api_version.as_deref(), env.kind.as_deref()) {
        (Some(API_VERSION), Some("AdmissionReview")) => {}
        (v, k) => {
            return Err(format!(
                "expected apiVersion {API_VERSION:?} and kind \"AdmissionReview\", found apiVersion {:?} and kind {:?}",
                v.unwrap_or_default(),
                k.unwrap_or_default()
            ));
        }
    }
    let req = env
        .request
        .ok_or_else(|| "request: Required value: the AdmissionReview has no request to judge".to_owned())?;
    let uid = req
        .uid
        .filter(|u| !u.is_empty())
        .ok_or_else(|| "request.uid: Required value: every admission request has a uid".to_owned())?;
    Ok(RequestInfo {
        uid,
        resource: req.resource.unwrap_or_default().resource,
        subresource: req.sub_resource.unwrap_or_default(),
        operation: req.operation.unwrap_or_default(),
        namespace: req.namespace.unwrap_or_default(),
        name: req.name.unwrap_or_default(),
        dry_run: req.dry_run.unwrap_or(false),
    })
}

/// The audit annotation the component sets when `warn`/`audit` enforcement allowed a request its
/// rules deny (podmut-core's `WOULD_DENY_ANNOTATION`; the host does not link core).
pub const WOULD_DENY_ANNOTATION: &str = "would-deny";

/// The parts of the component's answer the host checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResponseInfo {
    /// `response.allowed`.
    pub allowed: bool,
    /// `response.auditAnnotations["would-deny"]`: allowed only because of `warn`/`audit`
    /// enforcement; the denial message.
    pub would_deny: Option<String>,
}

/// Check that the component's answer is a response review for `uid`.
pub fn read_response(text: &str, uid: &str) -> Result<ResponseInfo, String> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| format!("the component's answer is not JSON: {e}"))?;
    if v.get("apiVersion").and_then(Value::as_str) != Some(API_VERSION)
        || v.get("kind").and_then(Value::as_str) != Some("AdmissionReview")
    {
        return Err("the component's answer is not an admission.k8s.io/v1 AdmissionReview".into());
    }
    let got = v
        .pointer("/response/uid")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if got != uid {
        return Err(format!(
            "the component answered for uid {got:?}, not for this request's uid {uid:?}"
        ));
    }
    let allowed = v
        .pointer("/response/allowed")
        .and_then(Value::as_bool)
        .ok_or("the component's answer has no response.allowed")?;
    let would_deny = v
        .pointer("/response/auditAnnotations")
        .and_then(|a| a.get(WOULD_DENY_ANNOTATION))
        .and_then(Value::as_str)
        .map(str::to_owned);
    Ok(ResponseInfo { allowed, would_deny })
}

/// A denial written by the host (the component could not answer), in the API server's `Status`
/// shape: `{code, reason, message}`.
pub fn deny(uid: &str, code: u16, reason: &str, message: &str, retry_after_seconds: Option<u32>) -> String {
    let mut status = json!({
        "metadata": {},
        "status": "Failure",
        "code": code,
        "reason": reason,
        "message": message,
    });
    if let Some(s) = retry_after_seconds
        && let Some(obj) = status.as_object_mut()
    {
        obj.insert("details".into(), json!({ "retryAfterSeconds": s }));
    }
    json!({
        "apiVersion": API_VERSION,
        "kind": "AdmissionReview",
        "response": { "uid": uid, "allowed": false, "status": status },
    })
    .to_string()
}

/// The body of an HTTP-level error (no AdmissionReview could be answered): a `metav1.Status`.
pub fn http_status(code: u16, reason: &str, message: &str) -> String {
    json!({
        "apiVersion": "v1",
        "kind": "Status",
        "metadata": {},
        "status": "Failure",
        "code": code,
        "reason": reason,
        "message": message,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_envelope() {
        let info = read_request(
            br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","resource":{"group":"","version":"v1","resource":"pods"},"subResource":"dynamic","operation":"UPDATE","namespace":"ns","name":"web","dryRun":true,"object":{"big":[1,2,3]}}}"#,
        )
        .unwrap();
        assert_eq!(info.uid, "u");
        assert_eq!(info.subresource, "dynamic");
        assert!(info.dry_run);
    }

    #[test]
    fn explains_what_is_wrong() {
        assert!(
            read_request(b"nope")
                .unwrap_err()
                .contains("not an AdmissionReview")
        );
        assert!(
            read_request(br#"{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview"}"#)
                .unwrap_err()
                .contains("v1beta1")
        );
        assert!(
            read_request(br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}"#)
                .unwrap_err()
                .starts_with("request:")
        );
        assert!(
            read_request(br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}}"#)
                .unwrap_err()
                .starts_with("request.uid:")
        );
    }

    #[test]
    fn checks_the_answer() {
        let ok = r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true}}"#;
        assert_eq!(
            read_response(ok, "u"),
            Ok(ResponseInfo {
                allowed: true,
                would_deny: None
            })
        );
        let audited = r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true,"auditAnnotations":{"would-deny":"Pod \"web\" is invalid"}}}"#;
        assert_eq!(
            read_response(audited, "u").unwrap().would_deny.as_deref(),
            Some("Pod \"web\" is invalid")
        );
        assert!(read_response(ok, "v").unwrap_err().contains("uid"));
        assert!(read_response("garbage", "u").is_err());
        let d: Value = serde_json::from_str(&deny("u", 500, "InternalError", "boom", None)).unwrap();
        assert_eq!(d["response"]["status"]["code"], 500);
        assert_eq!(
            read_response(&d.to_string(), "u"),
            Ok(ResponseInfo {
                allowed: false,
                would_deny: None
            })
        );
    }
}
