//! Reading ValidatingAdmissionPolicies and their bindings: decoding, the checks the API server
//! makes when they are written (`pkg/apis/admissionregistration/validation`), and compiling every
//! expression, so that a policy the API server would refuse is bad input here (exit 2), with the
//! policy, the field and the column named.

use k8s_openapi::api::admissionregistration::v1 as ar;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde_json::Value;

use super::VapExpressionWarning;
use super::cel::{Cel, CompileError, Expr};
use super::check;
use podmut_admission::coverage::{Criteria, Ctx};
use podmut_model::document::{self, InputError};
use podmut_model::field::Path;

const GROUP: &str = "admissionregistration.k8s.io";

/// One validation of a policy.
#[derive(Debug)]
pub(crate) struct Validation {
    pub(crate) expr: Expr,
    pub(crate) message: Option<String>,
    pub(crate) message_expression: Option<Expr>,
    pub(crate) reason: Option<String>,
}

/// A ValidatingAdmissionPolicy, its expressions compiled.
#[derive(Debug)]
pub(crate) struct Policy {
    pub name: String,
    pub(crate) criteria: Criteria,
    /// `failurePolicy: Ignore` (the default is `Fail`).
    pub(crate) ignore_failures: bool,
    /// `paramKind` as `(apiVersion, kind)`.
    pub(crate) param_kind: Option<(String, String)>,
    pub(crate) match_conditions: Vec<(String, Expr)>,
    pub(crate) variables: Vec<(String, Expr)>,
    pub(crate) validations: Vec<Validation>,
    pub(crate) audit_annotations: Vec<(String, Expr)>,
    /// What type-checking against the Pod schema found (the API server's `status.typeChecking`).
    pub(crate) type_warnings: Vec<VapExpressionWarning>,
}

/// A binding's enforcement actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// `Deny`: the request is refused.
    Deny,
    /// `Warn`: a warning goes back to the client.
    Warn,
    /// `Audit`: the failure is recorded in the audit event.
    Audit,
}

impl Action {
    /// The API's name.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Action::Deny => "Deny",
            Action::Warn => "Warn",
            Action::Audit => "Audit",
        }
    }
}

/// A binding's `paramRef`.
#[derive(Debug)]
pub(crate) struct ParamRef {
    pub name: Option<String>,
    pub(crate) namespace: Option<String>,
    pub(crate) selector: Option<LabelSelector>,
    /// `parameterNotFoundAction: Allow` (otherwise `Deny`).
    pub(crate) allow_missing: bool,
}

/// A ValidatingAdmissionPolicyBinding.
#[derive(Debug)]
pub(crate) struct Binding {
    pub name: String,
    pub(crate) policy_name: String,
    pub(crate) criteria: Option<Criteria>,
    pub(crate) param_ref: Option<ParamRef>,
    pub(crate) actions: Vec<Action>,
}

/// Everything the policy inputs hold.
#[derive(Debug, Default)]
pub(crate) struct Policies {
    pub(crate) policies: Vec<Policy>,
    pub(crate) bindings: Vec<Binding>,
}

/// Largest policy input accepted.
const MAX_POLICY_BYTES: u64 = 16 * 1024 * 1024;

/// Read every input (`policy[i]` names the i-th in errors).
pub(crate) fn read(texts: &[String], cel: &Cel) -> Result<Policies, InputError> {
    let mut out = Policies::default();
    for (i, text) in texts.iter().enumerate() {
        let input = format!("policy[{i}]");
        for (j, item) in document::parse_stream(text, &input, MAX_POLICY_BYTES)?
            .into_iter()
            .enumerate()
        {
            read_item(item, j, &input, cel, &mut out)?;
        }
    }
    Ok(out)
}

fn read_item(
    mut item: Value,
    index: usize,
    input: &str,
    cel: &Cel,
    out: &mut Policies,
) -> Result<(), InputError> {
    let text = |p: &str| {
        item.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let (kind, api_version, name) = (text("/kind"), text("/apiVersion"), text("/metadata/name"));
    let what = format!("{kind} {name:?}");
    if !matches!(
        kind.as_str(),
        "ValidatingAdmissionPolicy" | "ValidatingAdmissionPolicyBinding"
    ) {
        return Err(InputError::wrong_kind(
            input,
            format!(
                "item {}: kind {kind:?}: expected ValidatingAdmissionPolicy or ValidatingAdmissionPolicyBinding ({GROUP}/v1)",
                index + 1
            ),
        ));
    }
    if !matches!(api_version.strip_prefix(GROUP), Some("/v1" | "/v1beta1")) {
        return Err(InputError::wrong_kind(
            input,
            format!("{what}: apiVersion {api_version:?} is not served (expected {GROUP}/v1)"),
        ));
    }
    // v1beta1 has the same fields as v1: read both as v1.
    if let Some(obj) = item.as_object_mut() {
        obj.insert("apiVersion".into(), Value::String(format!("{GROUP}/v1")));
    }
    let ctx = Reader {
        ctx: Ctx { input, what: &what },
        cel,
    };
    if name.is_empty() {
        return Err(ctx.err(
            &Path::new("metadata").child("name"),
            "Required value: name or generateName is required",
        ));
    }
    if kind == "ValidatingAdmissionPolicy" {
        let p: ar::ValidatingAdmissionPolicy = ctx.ctx.decode(&item)?;
        out.policies.push(ctx.policy(name, p.spec.unwrap_or_default())?);
    } else {
        let b: ar::ValidatingAdmissionPolicyBinding = ctx.ctx.decode(&item)?;
        out.bindings.push(ctx.binding(name, b.spec)?);
    }
    Ok(())
}

/// Decoding context: coverage's (the input and the object in every error) and the CEL
/// environment expressions are compiled in.
struct Reader<'a> {
    ctx: Ctx<'a>,
    cel: &'a Cel,
}

impl Reader<'_> {
    fn err(&self, field: &Path, message: impl std::fmt::Display) -> InputError {
        self.ctx.err(field, message)
    }

    fn compile(&self, field: &Path, source: &str) -> Result<Expr, InputError> {
        self.cel.compile(source).map_err(|e| self.err(field, e))
    }

    fn one_of(&self, field: &Path, value: &str, valid: &[&str]) -> Result<(), InputError> {
        if valid.contains(&value) {
            Ok(())
        } else {
            Err(self.ctx.unsupported(field, value, valid))
        }
    }

    fn named(
        &self,
        path: &Path,
        items: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Vec<(String, Expr)>, InputError> {
        let mut out: Vec<(String, Expr)> = Vec::new();
        for (i, (name, expression)) in items.into_iter().enumerate() {
            let p = path.index(i);
            if name.is_empty() {
                return Err(self.err(&p.child("name"), "Required value"));
            }
            if out.iter().any(|(n, _)| *n == name) {
                return Err(self.err(&p.child("name"), format!("Duplicate value: {name:?}")));
            }
            out.push((name, self.compile(&p.child("expression"), &expression)?));
        }
        Ok(out)
    }

    fn policy(&self, name: String, spec: ar::ValidatingAdmissionPolicySpec) -> Result<Policy, InputError> {
        let spec_path = Path::new("spec");
        let mc_path = spec_path.child("matchConstraints");
        let Some(mc) = spec.match_constraints else {
            return Err(self.err(&mc_path, "Required value"));
        };
        if mc.resource_rules.as_ref().is_none_or(Vec::is_empty) {
            return Err(self.err(&mc_path.child("resourceRules"), "Required value"));
        }
        let pod_only = check::pod_only(mc.resource_rules.iter().flatten().map(|r| {
            (
                r.api_groups.as_deref().unwrap_or_default(),
                r.resources.as_deref().unwrap_or_default(),
            )
        }));
        let criteria = self.ctx.criteria(&mc_path, mc)?;
        let fp = spec.failure_policy.as_deref().unwrap_or("Fail");
        self.one_of(&spec_path.child("failurePolicy"), fp, &["Fail", "Ignore"])?;
        let param_kind = spec
            .param_kind
            .map(|pk| (pk.api_version.unwrap_or_default(), pk.kind.unwrap_or_default()));
        let match_conditions = self.named(
            &spec_path.child("matchConditions"),
            spec.match_conditions
                .unwrap_or_default()
                .into_iter()
                .map(|m| (m.name, m.expression)),
        )?;
        let variables = self.named(
            &spec_path.child("variables"),
            spec.variables
                .unwrap_or_default()
                .into_iter()
                .map(|v| (v.name, v.expression)),
        )?;
        let mut validations = Vec::new();
        for (i, v) in spec.validations.unwrap_or_default().into_iter().enumerate() {
            let p = spec_path.child("validations").index(i);
            if let Some(r) = v.reason.as_deref() {
                // `supportedValidationPolicyReason` (pkg/apis/admissionregistration/validation).
                self.one_of(
                    &p.child("reason"),
                    r,
                    &["Forbidden", "Invalid", "RequestEntityTooLarge"],
                )?;
            }
            validations.push(Validation {
                expr: self.compile(&p.child("expression"), &v.expression)?,
                message: v.message,
                message_expression: v
                    .message_expression
                    .map(|m| self.compile(&p.child("messageExpression"), &m))
                    .transpose()?,
                reason: v.reason,
            });
        }
        let audit_annotations = self.named(
            &spec_path.child("auditAnnotations"),
            spec.audit_annotations
                .unwrap_or_default()
                .into_iter()
                .map(|a| (a.key, a.value_expression)),
        )?;
        if validations.is_empty() && audit_annotations.is_empty() {
            return Err(self.err(
                &spec_path.child("validations"),
                "Required value: validations or auditAnnotations must contain at least one item",
            ));
        }
        let mut policy = Policy {
            name,
            criteria,
            ignore_failures: fp == "Ignore",
            param_kind,
            match_conditions,
            variables,
            validations,
            audit_annotations,
            type_warnings: Vec::new(),
        };
        policy.type_warnings = self.type_check(&policy, pod_only)?;
        self.return_types(&policy)?;
        Ok(policy)
    }

    /// The return types the API server's compiler requires, checked in its environment (where
    /// `object`, `oldObject` and `params` are dyn): a validation or matchCondition typed other than
    /// bool, a messageExpression other than string, a valueExpression other than string or null
    /// is refused when the policy is written.
    fn return_types(&self, policy: &Policy) -> Result<(), InputError> {
        let spec = Path::new("spec");
        let mut env = check::Env::new(false, None);
        for (name, e) in &policy.variables {
            let (_, ty) = env.check(e);
            env.declare(name, ty);
        }
        let expect = |field: Path, e: &Expr, want: check::Returns| {
            let (_, ty) = env.check(e);
            check::return_type_error(&ty, want).map_or(Ok(()), |why| {
                Err(self.err(&field, format!("Invalid value: {:?}: {why}", e.text)))
            })
        };
        for (i, (_, e)) in policy.match_conditions.iter().enumerate() {
            let field = spec.child("matchConditions").index(i).child("expression");
            expect(field, e, check::Returns::Bool)?;
        }
        for (i, v) in policy.validations.iter().enumerate() {
            let p = spec.child("validations").index(i);
            expect(p.child("expression"), &v.expr, check::Returns::Bool)?;
            if let Some(m) = &v.message_expression {
                expect(p.child("messageExpression"), m, check::Returns::Str)?;
            }
        }
        for (i, (_, e)) in policy.audit_annotations.iter().enumerate() {
            let field = spec.child("auditAnnotations").index(i).child("valueExpression");
            expect(field, e, check::Returns::StrOrNull)?;
        }
        Ok(())
    }

    /// Type-check every expression of `policy` ([`check`]): an error the API server's compiler
    /// would report is bad input; the type checker's findings are returned as warnings.
    fn type_check(&self, policy: &Policy, pod_only: bool) -> Result<Vec<VapExpressionWarning>, InputError> {
        let spec = Path::new("spec");
        let mut env = check::Env::new(
            pod_only,
            policy.param_kind.as_ref().map(|(v, k)| (v.as_str(), k.as_str())),
        );
        let mut out = Vec::new();
        for (i, (name, e)) in policy.variables.iter().enumerate() {
            let field = spec.child("variables").index(i).child("expression");
            let ty = self.check_one(&env, &field, e, &mut out)?;
            env.declare(name, ty);
        }
        for (i, (_, e)) in policy.match_conditions.iter().enumerate() {
            let field = spec.child("matchConditions").index(i).child("expression");
            self.check_one(&env, &field, e, &mut out)?;
        }
        for (i, v) in policy.validations.iter().enumerate() {
            let p = spec.child("validations").index(i);
            self.check_one(&env, &p.child("expression"), &v.expr, &mut out)?;
            if let Some(m) = &v.message_expression {
                self.check_one(&env, &p.child("messageExpression"), m, &mut out)?;
            }
        }
        for (i, (_, e)) in policy.audit_annotations.iter().enumerate() {
            let field = spec.child("auditAnnotations").index(i).child("valueExpression");
            self.check_one(&env, &field, e, &mut out)?;
        }
        Ok(out)
    }

    fn check_one(
        &self,
        env: &check::Env,
        field: &Path,
        e: &Expr,
        out: &mut Vec<VapExpressionWarning>,
    ) -> Result<check::Ty, InputError> {
        let (found, ty) = env.check(e);
        if let Some(first) = found.errors.first() {
            return Err(self.err(
                field,
                CompileError {
                    line: first.line,
                    column: first.column,
                    message: first.message.clone(),
                },
            ));
        }
        if let (Some(first), Some(gvk)) = (found.warnings.first(), env.gvk) {
            out.push(VapExpressionWarning {
                field_ref: field.to_string(),
                warning: check::warning_text(gvk, &e.text, &found.warnings),
                error: self.err(
                    field,
                    format!(
                        "type checking error at line {}, column {}: {} (checked against {gvk}; the API server records this in the policy's status.typeChecking and evaluates anyway)",
                        first.line, first.column, first.message
                    ),
                ),
            });
        }
        Ok(ty)
    }

    fn binding(
        &self,
        name: String,
        spec: ar::ValidatingAdmissionPolicyBindingSpec,
    ) -> Result<Binding, InputError> {
        let spec_path = Path::new("spec");
        if spec.policy_name.is_empty() {
            return Err(self.err(&spec_path.child("policyName"), "Required value"));
        }
        let actions_path = spec_path.child("validationActions");
        if spec.validation_actions.is_empty() {
            return Err(self.err(&actions_path, "Required value"));
        }
        let mut actions = Vec::new();
        for (i, a) in spec.validation_actions.iter().enumerate() {
            let p = actions_path.index(i);
            self.one_of(&p, a, &["Deny", "Warn", "Audit"])?;
            let action = match a.as_str() {
                "Deny" => Action::Deny,
                "Warn" => Action::Warn,
                _ => Action::Audit,
            };
            if actions.contains(&action) {
                return Err(self.err(&p, format!("Duplicate value: {a:?}")));
            }
            actions.push(action);
        }
        if actions.contains(&Action::Deny) && actions.contains(&Action::Warn) {
            return Err(self.err(
                &actions_path,
                "Invalid value: [\"Deny\",\"Warn\"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
            ));
        }
        let criteria = spec
            .match_resources
            .map(|m| self.ctx.criteria(&spec_path.child("matchResources"), m))
            .transpose()?;
        let param_ref = spec.param_ref.map(|r| self.param_ref(r)).transpose()?;
        Ok(Binding {
            name,
            policy_name: spec.policy_name,
            criteria,
            param_ref,
            actions,
        })
    }

    fn param_ref(&self, r: ar::ParamRef) -> Result<ParamRef, InputError> {
        let p = Path::new("spec").child("paramRef");
        if r.name.is_some() && r.selector.is_some() {
            return Err(self.err(
                &p.child("name"),
                "Forbidden: name and selector are mutually exclusive",
            ));
        }
        if r.name.is_none() && r.selector.is_none() {
            return Err(self.err(&p, "Required value: one of name or selector must be specified"));
        }
        let action = r.parameter_not_found_action.as_deref().unwrap_or("");
        if action.is_empty() {
            return Err(self.err(&p.child("parameterNotFoundAction"), "Required value"));
        }
        self.one_of(&p.child("parameterNotFoundAction"), action, &["Allow", "Deny"])?;
        Ok(ParamRef {
            name: r.name,
            namespace: r.namespace,
            selector: r.selector,
            allow_missing: action == "Allow",
        })
    }
}
