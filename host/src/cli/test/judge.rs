//! One case judged through the component: the rules' verdict on the change, the new Pod's QoS
//! class, and the policies' answer, combined as the API server answers (validation first, then
//! the ValidatingAdmissionPolicies).

use serde_json::{Map, Value};

use super::suite::{Case, Change, PatchType};
use crate::output::{cause_type, parse_subresource, qos_name};
use crate::runtime::Runtime;
use crate::types::{FieldValidation, QosOptions, VapReport, VapRequest, Verdict};

/// podmut's answer to one case.
#[derive(Clone, Debug)]
pub(crate) struct Answer {
    /// The server would store the change: the rules allow it and no policy denies it.
    pub(crate) allowed: bool,
    /// The server's message for a denial (the rules' when they deny, else the policies').
    pub(crate) message: String,
    /// The rules' errors.
    pub(crate) errors: Vec<Cause>,
    /// The rules' warnings, then the policies'.
    pub(crate) warnings: Vec<String>,
    /// The new object's QoS class, when the case asks for it.
    pub(crate) qos_class: Option<String>,
    /// The policies' answer, when the case has policies.
    pub(crate) vap: Option<VapReport>,
    /// The new object as judged (a patch applied).
    pub(crate) new: Value,
}

/// One error of the rules.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Cause {
    /// The `metav1.CauseType`.
    pub(crate) type_: String,
    /// The field.
    pub(crate) field: String,
    /// podmut's rule id.
    pub(crate) origin: String,
    /// The cause's message.
    pub(crate) message: String,
}

/// Judge `case`; an error when the component cannot (an input it refuses, a trap).
pub(crate) fn judge(runtime: &Runtime, case: &Case, validation: FieldValidation) -> Result<Answer, String> {
    let settings = settings_text(case, validation);
    let sub = parse_subresource(if case.subresource.is_empty() {
        "none"
    } else {
        &case.subresource
    })?;
    let old = case.old.as_ref().map(Value::to_string);
    let new_text = match &case.change {
        Change::New(v) => v.to_string(),
        Change::Patch(patch, kind) => {
            let base = old.as_deref().unwrap_or_default();
            runtime
                .apply_patch(base, patch, wit_patch(*kind))
                .map_err(|e| format!("patch: {}", call_text(e)))?
        }
    };
    let verdict = runtime
        .check(old.as_deref(), &new_text, sub, &settings)
        .map_err(call_text)?;
    let qos_class = match &case.expect.qos_class {
        Some(_) => Some(qos(runtime, case, &new_text)?),
        None => None,
    };
    let vap = if case.policies.is_empty() {
        None
    } else {
        Some(policies(runtime, case, old.as_deref(), &new_text)?)
    };
    let new = serde_json::from_str(&new_text).map_err(|e| format!("the new object: {e}"))?;
    Ok(combine(verdict, qos_class, vap, new))
}

/// Validation runs before admission: a change the rules refuse never reaches the policies.
fn combine(verdict: Verdict, qos_class: Option<String>, vap: Option<VapReport>, new: Value) -> Answer {
    let Verdict {
        allowed,
        errors,
        mut warnings,
        message,
    } = verdict;
    let vap_allows = vap.as_ref().is_none_or(|v| v.allowed);
    let message = match &vap {
        Some(v) if allowed && !v.allowed => forbidden(&new, &v.message),
        _ => message,
    };
    if allowed && let Some(v) = &vap {
        warnings.extend(v.warnings.iter().cloned());
    }
    Answer {
        allowed: allowed && vap_allows,
        message,
        errors: errors
            .into_iter()
            .map(|e| Cause {
                type_: cause_type(e.type_).to_owned(),
                field: e.field,
                origin: e.origin,
                message: e.message,
            })
            .collect(),
        warnings,
        qos_class,
        vap,
        new,
    }
}

/// The API server's message for an admission refusal (`admission.NewForbidden`):
/// `pods "web" is forbidden: <why>`, `deployments.apps "web" is forbidden: <why>`.
fn forbidden(object: &Value, why: &str) -> String {
    let text = |p: &str| object.pointer(p).and_then(Value::as_str).unwrap_or_default();
    let kind = text("/kind").to_ascii_lowercase();
    let resource = match text("/apiVersion").split_once('/') {
        Some((group, _)) => format!("{kind}s.{group}"),
        None => format!("{kind}s"),
    };
    podmut_model::field::forbidden_message(
        &resource,
        text("/metadata/name"),
        text("/metadata/generateName"),
        why,
    )
}

/// The settings document: the case's profile, its Nodes and the field validation.
fn settings_text(case: &Case, validation: FieldValidation) -> String {
    let mut s: Map<String, Value> = case.settings.clone();
    if !case.nodes.is_empty() {
        s.insert("nodes".into(), Value::Array(case.nodes.clone()));
    }
    let level = match validation {
        FieldValidation::Strict => "strict",
        FieldValidation::Warn => "warn",
        FieldValidation::Ignore => "ignore",
    };
    s.entry("fieldValidation")
        .or_insert_with(|| Value::String(level.into()));
    Value::Object(s).to_string()
}

/// The class of the Pods the new object makes, computed from its spec (`ComputePodQOS`).
fn qos(runtime: &Runtime, case: &Case, new: &str) -> Result<String, String> {
    let options = QosOptions {
        apply_defaults: case.settings.get("applyDefaults") != Some(&Value::Bool(false)),
        always_compute: true,
    };
    runtime
        .qos(new, options)
        .map(|q| qos_name(q).to_owned())
        .map_err(|e| format!("qos: {}", call_text(e)))
}

fn policies(runtime: &Runtime, case: &Case, old: Option<&str>, new: &str) -> Result<VapReport, String> {
    let request = VapRequest {
        policies: case.policies.iter().map(|(_, text)| text.clone()).collect(),
        old_object: old.map(str::to_owned),
        object: Some(new.to_owned()),
        subresource: case.subresource.clone(),
        review: None,
        params: None,
        namespace_labels: (!case.namespace_labels.is_empty()).then(|| case.namespace_labels.clone()),
        user: case.user.clone(),
    };
    runtime.vap(&request).map_err(|e| {
        let text = call_text(e);
        // The component names the i-th policy input `policy[i]`: say which file that is.
        let named = case
            .policies
            .iter()
            .enumerate()
            .fold(text, |t, (i, (source, _))| {
                t.replace(&format!("policy[{i}]"), source)
            });
        format!("policies: {named}")
    })
}

fn wit_patch(kind: PatchType) -> crate::types::PatchType {
    match kind {
        PatchType::Strategic => crate::types::PatchType::Strategic,
        PatchType::Merge => crate::types::PatchType::Merge,
        PatchType::Json => crate::types::PatchType::Json,
    }
}

fn call_text(e: crate::error::CallError) -> String {
    match e {
        crate::error::CallError::Input(ie) => crate::error::describe_input_error(&ie),
        crate::error::CallError::Host(h) => h.to_string(),
    }
}
