//! podmut-vap: offline ValidatingAdmissionPolicy evaluation. It may use podmut-model,
//! podmut-validation (the strategy step that prepares a request's object) and podmut-admission
//! (webhook-rule matching, which policies share).
//!
//! What the API server's `ValidatingAdmissionPolicy`
//! admission plugin decides for one Pod request, given the policies and bindings
//! (`admissionregistration.k8s.io/v1`), the old and new Pod (or an AdmissionReview), the params
//! objects and the namespace's labels.
//!
//! Upstream: `k8s.io/apiserver/pkg/admission/plugin/policy/validating` — `dispatcher.go` (policy
//! and binding matching, params, validation actions, the denial message), `validator.go`
//! (matchConditions, validations, messageExpression, auditAnnotations, failurePolicy) — and
//! `.../plugin/cel/filter.go` (evaluation, error wording, the cost budget).
//!
//! - `policy` reads and checks the policies and bindings and compiles every expression;
//! - `input` builds the CEL variables (`object`, `oldObject`, `request`, `namespaceObject`) and the
//!   request the rules match;
//! - `eval` runs one policy for one binding and one params object;
//! - `cel`, `library` and `cost`: the CEL environment, the Kubernetes libraries, the cost limits;
//!   `urls` and `semverlib`: the Kubernetes URL and semver libraries.
//!
//! - `check` type-checks every expression against the Pod schema (`schema`, generated from
//!   k8s-openapi): a misspelled field is found before anything runs ([`vap_type_check`]).
//!
//! Not available offline: `authorizer` (it needs the cluster's RBAC: an expression that uses it
//! is an evaluation error under the policy's failurePolicy, never silently true).

mod cel;
mod check;
mod cost;
mod eval;
mod format;
mod input;
mod library;
mod macros;
mod net;
mod policy;
mod schema;
mod semverlib;
mod urls;
mod values;

use std::collections::BTreeMap;

use serde::Serialize;

use podmut_model::document::InputError;

/// What to evaluate (the WIT `vap-request`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VapRequest {
    /// Policy inputs: each a JSON/YAML stream (or List) of ValidatingAdmissionPolicies and
    /// ValidatingAdmissionPolicyBindings. Errors name the i-th as `policy[i]`.
    pub policies: Vec<String>,
    /// The Pod before the change (absent: a CREATE).
    pub old_object: Option<String>,
    /// The Pod after the change.
    pub object: Option<String>,
    /// The subresource the request arrives on (`""`, `dynamic`, `resize`, `ephemeralcontainers`,
    /// `status`, ...).
    pub subresource: String,
    /// An `admission.k8s.io/v1` AdmissionReview instead of `old_object`/`object`.
    pub review: Option<String>,
    /// Params objects (JSON/YAML stream) for policies with `paramKind`.
    pub params: Option<String>,
    /// The namespace's labels (`kubernetes.io/metadata.name` is always set to its name).
    pub namespace_labels: Option<BTreeMap<String, String>>,
    /// The requesting user's name (`request.userInfo.username`).
    pub user: Option<String>,
}

/// One enforcement of a failed validation (or of an error under `failurePolicy: Fail`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VapDecision {
    /// The policy's name.
    pub policy: String,
    /// The binding's name (empty for an error of the policy itself).
    pub binding: String,
    /// `Deny`, `Warn` or `Audit`.
    pub action: String,
    /// The failure message (the validation's message, messageExpression, or the error).
    pub message: String,
    /// The expression that failed, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expression: Option<String>,
    /// The validation's reason (`Invalid` unless it says otherwise), for failed validations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The verdict of one validation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VapValidation {
    /// Its index in `spec.validations`.
    pub index: u32,
    /// The expression.
    pub expression: String,
    /// `admit`, `deny` or `error`.
    pub outcome: String,
    /// The failure message or the error (empty when admitted).
    pub message: String,
}

/// How one policy fared with one binding (and one params object).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VapEvaluation {
    /// The policy.
    pub policy: String,
    /// The binding (absent when the policy itself did not match or has no binding).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binding: Option<String>,
    /// The params object (`namespace/name`), for policies with `paramKind`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<String>,
    /// Whether the request was evaluated (matched by rules, selectors and matchConditions).
    pub evaluated: bool,
    /// Why not, or what went wrong before the validations (empty otherwise).
    pub detail: String,
    /// Each validation's verdict, when evaluated.
    pub validations: Vec<VapValidation>,
}

/// The whole answer (the WIT `vap-report`; `podmut vap -o json`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VapReport {
    /// No decision denies the request.
    pub allowed: bool,
    /// The API server's message for a denial, e.g. `ValidatingAdmissionPolicy 'p' with binding
    /// 'b' denied request: ...` (empty when allowed).
    pub message: String,
    /// Every Deny, Warn and Audit enforcement, in evaluation order.
    pub decisions: Vec<VapDecision>,
    /// The warnings the API server would send back (`Warn`).
    pub warnings: Vec<String>,
    /// The audit annotations the request's audit event would carry.
    pub audit_annotations: BTreeMap<String, String>,
    /// Each policy and binding examined.
    pub evaluations: Vec<VapEvaluation>,
    /// Policies without a binding, bindings without their policy.
    pub notes: Vec<String>,
}

/// A type-checking warning of one expression (the API server's `ExpressionWarning`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VapExpressionWarning {
    /// The expression's field, e.g. `spec.validations[0].expression`.
    pub field_ref: String,
    /// The API server's text: `/v1, Kind=Pod: ERROR: <input>:1:12: undefined field 'contaners'`,
    /// then the expression's line and a caret under the column.
    pub warning: String,
    /// The same finding as bad input, naming the policy input, the policy, the field and the
    /// line and column (what `podmut vap --type-check error` reports).
    #[serde(skip)]
    pub error: InputError,
}

/// One policy's type checking (the API server's `status.typeChecking`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VapTypeCheck {
    /// The policy.
    pub policy: String,
    /// Its expressions' warnings, in the order of the policy's fields.
    pub expression_warnings: Vec<VapExpressionWarning>,
}

/// Type-check the policies' expressions against the Pod schema (and `request`,
/// `namespaceObject`, `params`, `variables`): one entry per policy with warnings. Errors the API
/// server's compiler reports (an undefined field of `request`, an undeclared name, ...) are bad
/// input here as they are in [`vap_evaluate`].
pub fn vap_type_check(policies: &[String]) -> Result<Vec<VapTypeCheck>, InputError> {
    let env = cel::Cel::new();
    Ok(policy::read(policies, &env)?
        .policies
        .into_iter()
        .filter(|p| !p.type_warnings.is_empty())
        .map(|p| VapTypeCheck {
            policy: p.name,
            expression_warnings: p.type_warnings,
        })
        .collect())
}

/// Evaluate the policies on the request, as the API server's admission plugin would.
pub fn vap_evaluate(req: &VapRequest) -> Result<VapReport, InputError> {
    let env = cel::Cel::new();
    let policies = policy::read(&req.policies, &env)?;
    let input = input::Input::build(req)?;
    let params = input::read_params(req.params.as_deref())?;
    Ok(eval::dispatch(&env, &policies, &input, &params))
}

#[cfg(test)]
mod tests;
