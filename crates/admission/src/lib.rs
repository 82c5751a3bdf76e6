//! podmut-admission: podmut as an admission webhook. AdmissionReview `admission.k8s.io/v1` in and
//! out, routed by `request.subResource`, with denials in the API server's own `Status` shape;
//! which request paths a webhook configuration covers and how its rules match a request
//! (`coverage`, shared with ValidatingAdmissionPolicy matching); the AdmissionReview the API
//! server would send for a change (`review_request`). It may use podmut-model and
//! podmut-validation.
//!
//! # Enforcement
//!
//! `settings.enforcement` decides what a request the rules would deny gets (see
//! [`Enforcement`]): `deny` (the default) denies it; `warn` allows it with one AdmissionReview
//! warning per error, each starting with [`WOULD_DENY_WARNING_PREFIX`], within the API server's
//! warning limits ([`limit_warnings`]); `audit` allows it without warnings. In `warn` and `audit`
//! the response carries the audit annotation [`WOULD_DENY_ANNOTATION`] with the denial message
//! (the API server records it in the audit log as `<webhook name>/would-deny`), which is also how
//! the webhook host tells a would-be denial from an allowed request. Requests podmut cannot read
//! are errors whatever the enforcement: the host fails closed on them.

use k8s_openapi::api::core::v1::Pod;
use kube_core::admission::{AdmissionRequest, AdmissionResponse, AdmissionReview, Operation};
use kube_core::response::{StatusCause, StatusDetails, StatusSummary};
use kube_core::{DynamicObject, Status};
use serde_json::Value;

use podmut_model::document::{self, InputError};
use podmut_model::field::{FieldError, invalid_message};
use podmut_model::request_path::Subresource;
use podmut_model::settings::{Enforcement, Settings, UnknownSubresource};
use podmut_validation::validation::{Arrival, check_arrived};
use podmut_validation::verdict::Verdict;

pub mod coverage;
pub mod review_request;
mod workload;

pub use coverage::{CoverageReport, HandlerCoverage, Scope, coverage};

/// Upstream's per-warning length once truncating (`truncateItemRunes`, in runes).
pub(crate) const MAX_WARNING_CHARS: usize = 256;
/// Upstream's total warning length before it starts truncating (`truncateAtTotalRunes`, in runes).
pub(crate) const MAX_WARNINGS_TOTAL_CHARS: usize = 4096;

/// The audit annotation (`response.auditAnnotations`) of a request that `warn` or `audit`
/// enforcement allowed although the rules deny it; its value is the denial message. The API server
/// prefixes the key with the webhook's name (`pod-changes.podmut.io/would-deny`).
pub(crate) const WOULD_DENY_ANNOTATION: &str = "would-deny";

/// How every warning that stands for an error begins under `enforcement: warn`.
pub(crate) const WOULD_DENY_WARNING_PREFIX: &str = "podmut would deny: ";

/// Answer an AdmissionReview (JSON or YAML text) with an AdmissionReview response (JSON text).
///
/// Errors are returned only for reviews that cannot be read at all (no request, no uid, a Pod that
/// does not decode); every judgeable request gets a response.
pub fn review(text: &str, settings_text: &str) -> Result<String, InputError> {
    let settings = Settings::parse(settings_text)?;
    let field_warnings = review_field_warnings(text, &settings)?;
    let mut response = match read_pod_review_directly(text, &settings) {
        Some(req) => judge_pod_request(req, &settings)?,
        None => review_value(
            document::parse_text(text, "admission-review", settings.max_input_bytes)?,
            &settings,
        )?,
    };
    if !field_warnings.is_empty() {
        let mut all = field_warnings;
        all.extend(response.warnings.take().unwrap_or_default());
        response.warnings = Some(limit_warnings(&all));
    }
    serde_json::to_string(&response.into_review())
        .map_err(|e| InputError::malformed("admission-review", format!("cannot encode the response: {e}")))
}

/// The review's unknown and duplicate fields under `settings.fieldValidation` (nothing under the
/// default `ignore`); under `strict` they make the review unreadable, as the API server's strict
/// decoding makes a request a 400.
fn review_field_warnings(text: &str, settings: &Settings) -> Result<Vec<String>, InputError> {
    use podmut_validation::inputs::{DocumentKind, read_documents};
    if settings.field_validation == podmut_model::field_validation::FieldValidation::Ignore {
        return Ok(Vec::new());
    }
    const INPUT: &str = "admission-review";
    let mut docs = read_documents(
        text,
        INPUT,
        DocumentKind::AdmissionReview,
        settings.field_validation,
        settings.max_input_bytes,
    )?;
    let doc = docs.remove(0);
    match doc.error {
        Some(e) => Err(InputError::malformed(INPUT, e)),
        None => Ok(doc.warnings),
    }
}

/// The common case in one pass: a JSON AdmissionReview of a Pod that decodes straight into the
/// typed review, without building a JSON value first (about half the parsing cost of a large Pod).
///
/// Anything else — YAML, numeric quantities, a hand-written review without `userInfo`, another
/// resource, any decoding error — returns `None` and takes the general path through
/// [`review_value`], which judges it the same way or names the problem.
pub fn read_pod_review_directly(text: &str, settings: &Settings) -> Option<AdmissionRequest<Pod>> {
    let review: AdmissionReview<Pod> = document::read_json_directly(text, settings.max_input_bytes)?;
    if review.types.api_version != "admission.k8s.io/v1" || review.types.kind != "AdmissionReview" {
        return None;
    }
    let req: AdmissionRequest<Pod> = review.try_into().ok()?;
    (req.kind.kind == "Pod" && req.resource.resource == "pods").then_some(req)
}

/// [`review`] on a parsed document, returning the kube-core response.
pub fn review_value(mut value: Value, settings: &Settings) -> Result<AdmissionResponse, InputError> {
    const INPUT: &str = "admission-review";
    document::expect_kind(&value, INPUT, "admission.k8s.io/v1", "AdmissionReview")?;
    let request = value
        .get_mut("request")
        .filter(|r| r.is_object())
        .ok_or_else(|| {
            InputError::malformed(
                INPUT,
                "request: missing: an AdmissionReview to judge has a request",
            )
        })?;
    // Hand-written reviews often omit userInfo; the API server always sends it and podmut never reads it.
    if let Some(obj) = request.as_object_mut() {
        obj.entry("userInfo")
            .or_insert_with(|| Value::Object(Default::default()));
    }
    if let Some(info) = workload::workload_of(request) {
        return workload::judge(&value, info, settings);
    }
    let is_pod = request.pointer("/kind/kind").and_then(Value::as_str) == Some("Pod")
        && request.pointer("/resource/resource").and_then(Value::as_str) == Some("pods");
    if !is_pod {
        let review: AdmissionReview<DynamicObject> = document::decode(&value, INPUT)?;
        let req: AdmissionRequest<DynamicObject> = review
            .try_into()
            .map_err(|_| InputError::malformed(INPUT, "request: missing"))?;
        let what = format!(
            "{}/{}",
            req.resource.resource,
            req.sub_resource.as_deref().unwrap_or("")
        );
        return Ok(unjudged(AdmissionResponse::from(&req), &what, settings));
    }
    for key in ["object", "oldObject"] {
        if let Some(obj) = request.get_mut(key) {
            document::normalize_quantities(obj);
        }
    }
    let review: AdmissionReview<Pod> = document::decode(&value, INPUT)?;
    let req: AdmissionRequest<Pod> = review
        .try_into()
        .map_err(|_| InputError::malformed(INPUT, "request: missing"))?;
    judge_pod_request(req, settings)
}

/// Judge a decoded Pod request: route by subresource and operation, then answer.
fn judge_pod_request(
    mut req: AdmissionRequest<Pod>,
    settings: &Settings,
) -> Result<AdmissionResponse, InputError> {
    const INPUT: &str = "admission-review";
    let response = AdmissionResponse::from(&req);
    let sub_name = req.sub_resource.as_deref().unwrap_or("");
    let Ok(sub) = sub_name.parse::<Subresource>() else {
        return Ok(unjudged(response, &format!("pods/{sub_name}"), settings));
    };
    let name = req
        .object
        .as_ref()
        .and_then(|p| p.metadata.name.clone())
        .unwrap_or_else(|| req.name.clone());
    let verdict = match req.operation {
        Operation::Create if sub == Subresource::None => {
            let object = req
                .object
                .take()
                .ok_or_else(|| InputError::malformed(INPUT, "request.object: required for CREATE"))?;
            check_arrived(None, object, sub, settings, Arrival::Admitted)?
        }
        Operation::Update => {
            let object = req
                .object
                .take()
                .ok_or_else(|| InputError::malformed(INPUT, "request.object: required for UPDATE"))?;
            let old = req
                .old_object
                .take()
                .ok_or_else(|| InputError::malformed(INPUT, "request.oldObject: required for UPDATE"))?;
            check_arrived(Some(old), object, sub, settings, Arrival::Admitted)?
        }
        // DELETE and CONNECT carry nothing podmut judges; CREATE on a subresource is not a Pod change.
        _ => return Ok(response),
    };
    Ok(respond(
        response,
        GroupKind::POD,
        &name,
        &verdict,
        settings.enforcement,
    ))
}

/// A request podmut does not judge: allowed with a warning, or denied, per settings.
fn unjudged(response: AdmissionResponse, what: &str, settings: &Settings) -> AdmissionResponse {
    match settings.unknown_subresource {
        UnknownSubresource::Allow => {
            let mut r = response;
            r.warnings = Some(vec![format!("podmut does not judge {what}; allowed")]);
            r
        }
        UnknownSubresource::Deny if settings.enforcement != Enforcement::Deny => would_deny(
            response,
            &format!("podmut does not judge {what} and unknownSubresource is deny"),
            vec![format!("podmut does not judge {what} (unknownSubresource: deny)")],
            settings.enforcement,
        ),
        UnknownSubresource::Deny => {
            let mut r = response.deny(format!("podmut does not judge {what}; denied by policy"));
            r.result.status = Some(StatusSummary::Failure);
            r.result.code = 403;
            r.result.reason = "Forbidden".into();
            r
        }
    }
}

/// The group and kind a denial's `Status` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GroupKind {
    /// The API group (`""` for core).
    pub(crate) group: &'static str,
    /// The kind.
    pub(crate) kind: &'static str,
}

impl GroupKind {
    /// A core Pod.
    pub(crate) const POD: GroupKind = GroupKind {
        group: "",
        kind: "Pod",
    };
}

/// Turn a verdict into the response the API server itself would give, under `enforcement`.
pub(crate) fn respond(
    response: AdmissionResponse,
    kind: GroupKind,
    name: &str,
    verdict: &Verdict,
    enforcement: Enforcement,
) -> AdmissionResponse {
    let mut response = response;
    if verdict.allowed {
        set_warnings(&mut response, &verdict.warnings);
        return response;
    }
    if enforcement != Enforcement::Deny {
        let reasons = verdict
            .errors
            .iter()
            .map(|e| format!("{}: {}", e.field, e.body()))
            .collect();
        let mut r = would_deny(response, &verdict.message, reasons, enforcement);
        let mut warnings = r.warnings.take().unwrap_or_default();
        warnings.extend(verdict.warnings.iter().cloned());
        set_warnings(&mut r, &warnings);
        return r;
    }
    set_warnings(&mut response, &verdict.warnings);
    response.allowed = false;
    response.result = invalid_status(kind, name, &verdict.errors);
    response
}

/// An allowed response for a request the rules deny (`warn` or `audit` enforcement): the audit
/// annotation with `message`, and under `warn` one warning per reason (podmut's prefix first, so a
/// user sees whose warning it is).
fn would_deny(
    mut response: AdmissionResponse,
    message: &str,
    reasons: Vec<String>,
    enforcement: Enforcement,
) -> AdmissionResponse {
    response.allowed = true;
    response
        .audit_annotations
        .insert(WOULD_DENY_ANNOTATION.to_owned(), message.to_owned());
    if enforcement == Enforcement::Warn {
        let warnings: Vec<String> = reasons
            .into_iter()
            .map(|r| format!("{WOULD_DENY_WARNING_PREFIX}{r}"))
            .collect();
        set_warnings(&mut response, &warnings);
    }
    response
}

/// Set `warnings` (cut to the API server's limits); none leaves the field out.
fn set_warnings(response: &mut AdmissionResponse, warnings: &[String]) {
    let warnings = limit_warnings(warnings);
    response.warnings = (!warnings.is_empty()).then_some(warnings);
}

/// `apierrors.NewInvalid(...)`'s `Status`: code 422, reason Invalid, one cause per error.
pub(crate) fn invalid_status(kind: GroupKind, name: &str, errors: &[FieldError]) -> Status {
    let qualified = match kind.group {
        "" => kind.kind.to_owned(),
        group => format!("{}.{group}", kind.kind),
    };
    let causes = errors
        .iter()
        .map(|e| StatusCause {
            reason: e.error_type.cause_type().into(),
            message: e.body(),
            field: e.field.to_string(),
        })
        .collect();
    Status {
        status: Some(StatusSummary::Failure),
        code: 422,
        message: invalid_message(&qualified, name, errors),
        metadata: None,
        reason: "Invalid".into(),
        details: Some(StatusDetails {
            name: name.into(),
            group: kind.group.into(),
            kind: kind.kind.into(),
            causes,
            uid: String::new(),
            retry_after_seconds: 0,
        }),
    }
}

/// The warnings a client receives, as the API server's warning recorder
/// (`k8s.io/apiserver/pkg/endpoints/filters/warning.go`) passes them on: empty and repeated warnings
/// are dropped, and so are warnings with control characters (`net.NewWarningHeader` refuses them);
/// while the total stays within [`MAX_WARNINGS_TOTAL_CHARS`] runes every warning is kept whole;
/// once it would not, every warning is cut to [`MAX_WARNING_CHARS`] runes and those past the
/// total are dropped.
pub(crate) fn limit_warnings(warnings: &[String]) -> Vec<String> {
    let runes = |s: &str| s.chars().count();
    let cut = |s: &str| -> String { s.chars().take(MAX_WARNING_CHARS).collect() };
    let valid = |s: &str| !s.chars().any(char::is_control);
    let mut seen = std::collections::BTreeSet::new();
    let mut ordered: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    let mut written = 0;
    let mut truncating = false;
    for w in warnings {
        if w.is_empty() {
            continue;
        }
        if truncating && written >= MAX_WARNINGS_TOTAL_CHARS {
            break;
        }
        if !seen.insert(w.as_str()) {
            continue;
        }
        ordered.push(w);
        let text = if truncating && runes(w) > MAX_WARNING_CHARS {
            cut(w)
        } else {
            w.clone()
        };
        if !valid(&text) {
            continue;
        }
        let len = runes(&text);
        if written + len <= MAX_WARNINGS_TOTAL_CHARS || truncating {
            written += len;
            out.push(text);
            continue;
        }
        // Over the limit: replay everything so far, truncated.
        truncating = true;
        written = 0;
        out.clear();
        for o in &ordered {
            let t = if runes(o) > MAX_WARNING_CHARS {
                cut(o)
            } else {
                (*o).to_owned()
            };
            if valid(&t) {
                written += runes(&t);
                out.push(t);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn review_json(op: &str, sub: &str, old_containers: &str, new_containers: &str) -> String {
        format!(
            r#"{{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{{"uid":"u-1","kind":{{"group":"","version":"v1","kind":"Pod"}},"resource":{{"group":"","version":"v1","resource":"pods"}},"subResource":"{sub}","name":"web","namespace":"default","operation":"{op}","userInfo":{{}},"object":{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"web"}},"spec":{{"containers":{new_containers}}}}},"oldObject":{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"web"}},"spec":{{"containers":{old_containers}}}}}}}}}"#
        )
    }

    #[test]
    fn deny_has_the_api_server_shape() {
        let text = review_json(
            "UPDATE",
            "",
            r#"[{"name":"a","image":"x"}]"#,
            r#"[{"name":"a","image":"x"},{"name":"b","image":"y"}]"#,
        );
        let out: Value = serde_json::from_str(&review(&text, "").unwrap()).unwrap();
        let r = &out["response"];
        assert_eq!(out["kind"], "AdmissionReview");
        assert_eq!(out["apiVersion"], "admission.k8s.io/v1");
        assert_eq!(r["uid"], "u-1");
        assert_eq!(r["allowed"], false);
        assert_eq!(r["status"]["code"], 422);
        assert_eq!(r["status"]["reason"], "Invalid");
        assert_eq!(
            r["status"]["message"],
            "Pod \"web\" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers"
        );
        assert_eq!(
            r["status"]["details"]["causes"][0]["reason"],
            "FieldValueForbidden"
        );
        assert_eq!(r["status"]["details"]["causes"][0]["field"], "spec.containers");
    }

    #[test]
    fn warn_and_audit_allow_what_deny_denies() {
        let text = review_json(
            "UPDATE",
            "",
            r#"[{"name":"a","image":"x"}]"#,
            r#"[{"name":"a","image":"x"},{"name":"b","image":"y"}]"#,
        );
        let message = "Pod \"web\" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers";
        let deny: Value = serde_json::from_str(&review(&text, "enforcement: deny").unwrap()).unwrap();
        assert_eq!(deny["response"]["allowed"], false);
        assert!(deny["response"].get("auditAnnotations").is_none(), "{deny}");
        let warn: Value = serde_json::from_str(&review(&text, "enforcement: warn").unwrap()).unwrap();
        let r = &warn["response"];
        assert_eq!(r["allowed"], true, "{warn}");
        assert_eq!(r["uid"], "u-1");
        assert!(
            r.get("status")
                .is_none_or(|s| s.get("code").is_none_or(|c| c != 422)),
            "{warn}"
        );
        assert_eq!(
            r["warnings"],
            json!([
                "podmut would deny: spec.containers: Forbidden: pod updates may not add or remove containers"
            ])
        );
        assert_eq!(r["auditAnnotations"][WOULD_DENY_ANNOTATION], message);
        let audit: Value = serde_json::from_str(&review(&text, "enforcement: audit").unwrap()).unwrap();
        let r = &audit["response"];
        assert_eq!(r["allowed"], true, "{audit}");
        assert!(r.get("warnings").is_none_or(Value::is_null), "{audit}");
        assert_eq!(r["auditAnnotations"][WOULD_DENY_ANNOTATION], message);
        // An allowed request carries no annotation in any mode.
        let ok = review_json(
            "UPDATE",
            "",
            r#"[{"name":"a","image":"x"}]"#,
            r#"[{"name":"a","image":"x2"}]"#,
        );
        for mode in ["deny", "warn", "audit"] {
            let v: Value =
                serde_json::from_str(&review(&ok, &format!("enforcement: {mode}")).unwrap()).unwrap();
            assert_eq!(v["response"]["allowed"], true);
            assert!(v["response"].get("auditAnnotations").is_none(), "{mode}: {v}");
        }
    }

    #[test]
    fn warn_keeps_many_errors_within_the_warning_limits() {
        use podmut_model::field::Path;
        let errors: Vec<FieldError> = (0..60)
            .map(|i| FieldError::forbidden(&Path::new("spec").child("containers").index(i), "x".repeat(200)))
            .collect();
        let verdict = Verdict::from_errors("web", errors, vec!["a strategy warning".into()]);
        let mut base = AdmissionResponse::invalid("");
        base.allowed = true;
        let r = respond(base, GroupKind::POD, "web", &verdict, Enforcement::Warn);
        assert!(r.allowed);
        let warnings = r.warnings.unwrap();
        let total: usize = warnings.iter().map(|w| w.chars().count()).sum();
        // The recorder stops once the total passes its limit (the last one may cross it).
        assert!(total <= MAX_WARNINGS_TOTAL_CHARS + MAX_WARNING_CHARS, "{total}");
        assert!(warnings.len() < 60 && warnings.len() >= MAX_WARNINGS_TOTAL_CHARS / MAX_WARNING_CHARS);
        assert!(warnings.iter().all(|w| w.chars().count() <= MAX_WARNING_CHARS));
        assert!(warnings[0].starts_with("podmut would deny: spec.containers[0]: Forbidden: xxx"));
        assert!(r.audit_annotations[WOULD_DENY_ANNOTATION].starts_with("Pod \"web\" is invalid: ["));
    }

    #[test]
    fn unjudged_denials_follow_enforcement_too() {
        let text = review_json("UPDATE", "binding", "[]", "[]");
        let v: Value =
            serde_json::from_str(&review(&text, "unknownSubresource: deny\nenforcement: warn").unwrap())
                .unwrap();
        assert_eq!(v["response"]["allowed"], true);
        assert!(
            v["response"]["warnings"][0]
                .as_str()
                .unwrap()
                .starts_with(WOULD_DENY_WARNING_PREFIX)
        );
        assert!(
            v["response"]["auditAnnotations"][WOULD_DENY_ANNOTATION]
                .as_str()
                .unwrap()
                .contains("pods/binding")
        );
    }

    #[test]
    fn allowed_update() {
        let text = review_json(
            "UPDATE",
            "",
            r#"[{"name":"a","image":"x"}]"#,
            r#"[{"name":"a","image":"x2"}]"#,
        );
        let out: Value = serde_json::from_str(&review(&text, "").unwrap()).unwrap();
        assert_eq!(out["response"]["allowed"], true);
        assert_eq!(out["response"]["uid"], "u-1");
    }

    #[test]
    fn unknown_subresource_follows_policy() {
        let text = review_json("UPDATE", "binding", "[]", "[]");
        let out: Value = serde_json::from_str(&review(&text, "").unwrap()).unwrap();
        assert_eq!(out["response"]["allowed"], true);
        assert!(
            out["response"]["warnings"][0]
                .as_str()
                .unwrap()
                .contains("pods/binding")
        );
        let out: Value = serde_json::from_str(&review(&text, "unknownSubresource: deny").unwrap()).unwrap();
        assert_eq!(out["response"]["allowed"], false);
    }

    #[test]
    fn unreadable_reviews_are_input_errors() {
        assert!(review("{}", "").is_err());
        assert!(
            review(
                r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}"#,
                ""
            )
            .is_err()
        );
        let missing_old = review_json("UPDATE", "", "[]", "[]").replace(r#","oldObject":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[]}}"#, "");
        let e = review(&missing_old, "").unwrap_err();
        assert!(e.to_string().contains("oldObject"), "{e}");
    }

    #[test]
    fn warnings_are_limited_like_the_api_servers_recorder() {
        // Within the total: kept whole, deduplicated, control characters dropped.
        let long = "w".repeat(1000);
        let out = limit_warnings(&[
            long.clone(),
            long.clone(),
            String::new(),
            "a\nb".into(),
            "ok".into(),
        ]);
        assert_eq!(out, vec![long, "ok".to_owned()]);
        // Over the total: every warning cut to 256 runes (on rune boundaries), later ones dropped.
        let many: Vec<String> = (0..40).map(|i| format!("{i:02}{}", "é".repeat(1000))).collect();
        let out = limit_warnings(&many);
        assert!(out.iter().all(|w| w.chars().count() == MAX_WARNING_CHARS));
        assert_eq!(out.len(), MAX_WARNINGS_TOTAL_CHARS / MAX_WARNING_CHARS);
        assert!(out[0].starts_with("00"));
        // Upstream's TestTruncation, with its limits scaled: 4096/256 = 16 items of 256 fit.
        let five: Vec<String> = (0..5).map(|i| format!("{i}{}", "x".repeat(299))).collect();
        let out = limit_warnings(&five);
        assert_eq!(out.len(), 5, "5 x 300 runes fit in 4096");
        assert!(out.iter().all(|w| w.len() == 300));
    }
}
