//! Fail-closed coverage of a cluster's admission configuration for `pods/dynamic` (KEP-5972).
//!
//! KEP-5972 ("Fail-closed Admission Policy"): a request to the new `pods/dynamic` subresource is
//! rejected when an admission handler (validating or mutating webhook, validating or mutating
//! admission policy) *would have handled it had it been a create or update of the base `pods`
//! resource* but does not handle it on `pods/dynamic`. Scoping is honoured (rules, namespaceSelector,
//! objectSelector); matchConditions are not evaluated. There is no upstream implementation yet, so
//! this module follows the KEP text; the matching of one request against one handler follows
//! upstream exactly:
//!
//! - webhook rules: `k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules/rules.go`
//!   (`Matcher.Matches`: scope, operation, group, version, resource with the `res/sub` split, where
//!   `*` as the subresource half also matches the main resource, so `pods/*` matches `pods`);
//! - webhooks: `.../webhook/generic/webhook.go` (`ShouldCallHook`: namespaceSelector, then
//!   objectSelector, then rules, then the `Equivalent` pass over equivalent resources);
//! - policies and bindings: `.../policy/matching/matching.go` (`Matches`: selectors, then
//!   `excludeResourceRules`, then `resourceRules`, where an empty list matches everything, with
//!   `resourceNames`); a binding without `matchResources` does not constrain.
//!
//! Pods exist only as `core/v1` (`pods` in group `""`, version `v1`, namespaced), so the
//! `Equivalent` match policy finds no other resource to try: it is validated and honoured, and it
//! cannot change the answer for Pods. Selectors that are absent count as `{}` (select everything),
//! as the API server's defaulting makes them.
//!
//! Without a [`Scope`], the question is whether *some* Pod would be rejected: a handler counts when
//! its selectors can select anything at all (a policy's selectors and its binding's must hold
//! together) and for the Pod name that is worst (every `resourceNames` entry and any other name).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::admissionregistration::v1 as ar;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde::Serialize;
use serde_json::Value;

use podmut_model::document::{self, InputError};
use podmut_model::field::Path;
use podmut_model::request_path::Subresource;

/// The input name coverage errors blame.
const INPUT: &str = "configs";

/// Largest configuration document accepted (a whole cluster's admission configuration).
pub(crate) const MAX_CONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// The Pod a coverage check is scoped to; `None` parts are unknown (any value is considered).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    /// The namespace's labels (upstream sets `kubernetes.io/metadata.name` on every namespace).
    pub namespace_labels: Option<BTreeMap<String, String>>,
    /// The Pod's labels.
    pub pod_labels: Option<BTreeMap<String, String>>,
    /// The Pod's name.
    pub pod_name: Option<String>,
}

/// One handler's standing (the WIT `handler-coverage`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HandlerCoverage {
    /// Kind of the configuration object.
    pub kind: String,
    /// Object name, and for webhooks `/<webhook name>`.
    pub name: String,
    /// For policies: the binding that puts the policy into effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binding: Option<String>,
    /// Its rules intercept Pod CREATE or UPDATE on `pods`.
    pub intercepts_pods: bool,
    /// Its rules intercept UPDATE on `pods/dynamic`.
    pub intercepts_dynamic: bool,
    /// Its selectors can select the scoped Pod (without a scope: any Pod).
    pub in_scope: bool,
    /// The API server would reject `pods/dynamic` requests because of it.
    pub blocks_dynamic: bool,
    /// What to change (empty when fine).
    pub fix: String,
    /// Further remarks.
    pub notes: Vec<String>,
}

/// The whole report (the WIT `coverage-report`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CoverageReport {
    /// No handler blocks `pods/dynamic`.
    pub dynamic_allowed: bool,
    /// One entry per webhook, and per policy and binding.
    pub handlers: Vec<HandlerCoverage>,
    /// Input objects that are not admission configuration (`Kind/name: why`).
    pub ignored: Vec<String>,
}

/// Check admission configuration objects (JSON/YAML list, `List`, or multi-document stream).
pub fn coverage(configs: &str, scope: &Scope) -> Result<CoverageReport, InputError> {
    let items = document::parse_stream(configs, INPUT, MAX_CONFIG_BYTES)?;
    coverage_values(items, scope)
}

/// [`coverage`] on parsed objects.
pub(crate) fn coverage_values(items: Vec<Value>, scope: &Scope) -> Result<CoverageReport, InputError> {
    let mut objects = Vec::new();
    let mut ignored = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        match Object::decode(item, i)? {
            Decoded::Object(o) => objects.push(*o),
            Decoded::Ignored(what) => ignored.push(what),
        }
    }
    let mut handlers = Vec::new();
    for o in &objects {
        match o {
            Object::Webhooks { kind, name, webhooks } => {
                for (i, w) in webhooks.iter().enumerate() {
                    handlers.push(webhook_coverage(kind, name, i, w, scope));
                }
            }
            Object::Policy {
                kind,
                name,
                criteria,
                match_conditions,
            } => {
                let bindings: Vec<&Binding> = objects
                    .iter()
                    .filter_map(|b| match b {
                        Object::Binding(b) if b.policy_kind == *kind && b.policy_name == *name => Some(b),
                        _ => None,
                    })
                    .collect();
                let policy = PolicyRef {
                    kind,
                    name,
                    criteria,
                    match_conditions: *match_conditions,
                };
                if bindings.is_empty() {
                    handlers.push(policy_coverage(&policy, None, scope));
                }
                for b in bindings {
                    handlers.push(policy_coverage(&policy, Some(b), scope));
                }
            }
            Object::Binding(b) => {
                let found = objects.iter().any(|p| {
                    matches!(p, Object::Policy { kind, name, .. } if *kind == b.policy_kind && *name == b.policy_name)
                });
                if !found {
                    ignored.push(format!(
                        "{}/{}: its policy {} {:?} is not in the input",
                        b.kind, b.name, b.policy_kind, b.policy_name
                    ));
                }
            }
        }
    }
    Ok(CoverageReport {
        dynamic_allowed: !handlers.iter().any(|h| h.blocks_dynamic),
        handlers,
        ignored,
    })
}

// ---------------------------------------------------------------------------------------------
// Decoding and validation

/// One rule, webhook (`RuleWithOperations`) or policy (`NamedRuleWithOperations`) shaped.
#[derive(Clone, Debug, Default)]
struct Rule {
    operations: Vec<String>,
    api_groups: Vec<String>,
    api_versions: Vec<String>,
    resources: Vec<String>,
    scope: Option<String>,
    resource_names: Vec<String>,
    /// Where it is, e.g. `webhooks[0].rules[1]`.
    path: Path,
}

/// A webhook's or a policy's (or binding's) matching criteria.
#[derive(Clone, Debug, Default)]
pub struct Criteria {
    rules: Vec<Rule>,
    exclude: Vec<Rule>,
    /// Policies: an empty rule list matches everything. Webhooks: it matches nothing.
    empty_rules_match_all: bool,
    namespace_selector: Option<LabelSelector>,
    object_selector: Option<LabelSelector>,
    equivalent: bool,
    /// The path of the criteria, e.g. `spec.matchConstraints`.
    path: Path,
}

#[derive(Debug)]
struct Webhook {
    name: String,
    criteria: Criteria,
    match_conditions: usize,
    failure_policy_ignore: bool,
}

#[derive(Debug)]
struct Binding {
    kind: &'static str,
    name: String,
    policy_kind: &'static str,
    policy_name: String,
    /// `None`: no `matchResources`, which does not constrain.
    criteria: Option<Criteria>,
}

#[derive(Debug)]
enum Object {
    Webhooks {
        kind: &'static str,
        name: String,
        webhooks: Vec<Webhook>,
    },
    Policy {
        kind: &'static str,
        name: String,
        criteria: Criteria,
        match_conditions: usize,
    },
    Binding(Binding),
}

/// The webhooks of a `ValidatingWebhookConfiguration` or `MutatingWebhookConfiguration`: two
/// k8s-openapi types with the same matching fields, read the same way.
macro_rules! webhooks_of {
    ($ctx:expr, $config:expr) => {{
        let mut webhooks = Vec::new();
        for (i, w) in $config.webhooks.unwrap_or_default().into_iter().enumerate() {
            webhooks.push($ctx.webhook(
                &Path::new("webhooks").index(i),
                w.name,
                w.rules.unwrap_or_default(),
                w.namespace_selector,
                w.object_selector,
                w.match_policy.as_deref(),
                w.match_conditions.map_or(0, |m| m.len()),
                w.failure_policy.as_deref(),
            )?);
        }
        webhooks
    }};
}

enum Decoded {
    Object(Box<Object>),
    Ignored(String),
}

const GROUP: &str = "admissionregistration.k8s.io";

impl Object {
    fn decode(mut item: Value, index: usize) -> Result<Decoded, InputError> {
        let kind = item
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let api_version = item
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let name = item
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let what = if name.is_empty() {
            format!("{kind} (item {})", index + 1)
        } else {
            format!("{kind} {name:?}")
        };
        if kind.is_empty() {
            return Err(InputError::wrong_kind(
                INPUT,
                format!(
                    "item {}: kind: Required value: every object names its kind",
                    index + 1
                ),
            ));
        }
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version.as_str()));
        if group != GROUP {
            let label = if name.is_empty() {
                kind
            } else {
                format!("{kind}/{name}")
            };
            return Ok(Decoded::Ignored(format!("{label}: not admission configuration")));
        }
        let webhook_kind = matches!(
            kind.as_str(),
            "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration"
        );
        let supported = if webhook_kind {
            version == "v1"
        } else {
            matches!(version, "v1" | "v1beta1" | "v1alpha1")
        };
        let known = webhook_kind
            || matches!(
                kind.as_str(),
                "ValidatingAdmissionPolicy"
                    | "ValidatingAdmissionPolicyBinding"
                    | "MutatingAdmissionPolicy"
                    | "MutatingAdmissionPolicyBinding"
            );
        if !known {
            return Ok(Decoded::Ignored(format!(
                "{kind}/{name}: not an admission handler"
            )));
        }
        if !supported {
            return Err(InputError::wrong_kind(
                INPUT,
                format!("{what}: apiVersion {api_version:?} is not served (expected {GROUP}/v1)"),
            ));
        }
        // The policy kinds' matching fields are the same in v1alpha1, v1beta1 and v1: read them as v1.
        if let Some(obj) = item.as_object_mut() {
            obj.insert("apiVersion".into(), Value::String(format!("{GROUP}/v1")));
        }
        let ctx = Ctx {
            input: INPUT,
            what: &what,
        };
        let object = Self::decode_known(&kind, name, &item, &ctx)?;
        Ok(Decoded::Object(Box::new(object)))
    }

    /// Decode an admission handler of a known `kind` (read as v1).
    fn decode_known(kind: &str, name: String, item: &Value, ctx: &Ctx<'_>) -> Result<Object, InputError> {
        Ok(match kind {
            "ValidatingWebhookConfiguration" => {
                let c: ar::ValidatingWebhookConfiguration = ctx.decode(item)?;
                let webhooks = webhooks_of!(ctx, c);
                Object::Webhooks {
                    kind: "ValidatingWebhookConfiguration",
                    name,
                    webhooks,
                }
            }
            "MutatingWebhookConfiguration" => {
                let c: ar::MutatingWebhookConfiguration = ctx.decode(item)?;
                let webhooks = webhooks_of!(ctx, c);
                Object::Webhooks {
                    kind: "MutatingWebhookConfiguration",
                    name,
                    webhooks,
                }
            }
            "ValidatingAdmissionPolicy" => {
                let p: ar::ValidatingAdmissionPolicy = ctx.decode(item)?;
                let spec = p.spec.unwrap_or_default();
                let path = Path::new("spec").child("matchConstraints");
                let Some(mc) = spec.match_constraints else {
                    return Err(ctx.required(&path));
                };
                Object::Policy {
                    kind: "ValidatingAdmissionPolicy",
                    name,
                    criteria: ctx.criteria(&path, mc)?,
                    match_conditions: spec.match_conditions.map_or(0, |m| m.len()),
                }
            }
            "MutatingAdmissionPolicy" => {
                let p: ar::MutatingAdmissionPolicy = ctx.decode(item)?;
                let spec = p.spec.unwrap_or_default();
                let path = Path::new("spec").child("matchConstraints");
                let Some(mc) = spec.match_constraints else {
                    return Err(ctx.required(&path));
                };
                Object::Policy {
                    kind: "MutatingAdmissionPolicy",
                    name,
                    criteria: ctx.criteria(&path, mc)?,
                    match_conditions: spec.match_conditions.map_or(0, |m| m.len()),
                }
            }
            "ValidatingAdmissionPolicyBinding" => {
                let b: ar::ValidatingAdmissionPolicyBinding = ctx.decode(item)?;
                let spec = b.spec;
                let path = Path::new("spec").child("matchResources");
                Object::Binding(Binding {
                    kind: "ValidatingAdmissionPolicyBinding",
                    name,
                    policy_kind: "ValidatingAdmissionPolicy",
                    policy_name: spec.policy_name,
                    criteria: spec.match_resources.map(|m| ctx.criteria(&path, m)).transpose()?,
                })
            }
            _ => {
                // "MutatingAdmissionPolicyBinding", the only known kind left.
                let b: ar::MutatingAdmissionPolicyBinding = ctx.decode(item)?;
                let spec = b.spec.unwrap_or_default();
                let path = Path::new("spec").child("matchResources");
                Object::Binding(Binding {
                    kind: "MutatingAdmissionPolicyBinding",
                    name,
                    policy_kind: "MutatingAdmissionPolicy",
                    policy_name: spec.policy_name.unwrap_or_default(),
                    criteria: spec.match_resources.map(|m| ctx.criteria(&path, m)).transpose()?,
                })
            }
        })
    }
}

/// Decoding context: names the input and the object in every error (also `podmut_vap`'s, for
/// policies and bindings).
#[derive(Debug)]
pub struct Ctx<'a> {
    /// The argument errors blame (`configs` here; a policy input for `podmut_vap`).
    pub input: &'a str,
    /// The object, e.g. `ValidatingAdmissionPolicy "p"`.
    pub what: &'a str,
}

impl Ctx<'_> {
    /// Decode `value` as `T`, the error naming the object.
    pub fn decode<T: serde::de::DeserializeOwned>(&self, value: &Value) -> Result<T, InputError> {
        document::decode(value, self.input)
            .map_err(|e| InputError::malformed(self.input, format!("{}: {}", self.what, e.message())))
    }

    /// A malformed-input error about `field` of the object.
    pub fn err(&self, field: &Path, message: impl std::fmt::Display) -> InputError {
        InputError::malformed(self.input, format!("{}: {field}: {message}", self.what))
    }

    fn required(&self, field: &Path) -> InputError {
        self.err(field, "Required value")
    }

    /// Upstream's `Unsupported value` error.
    pub fn unsupported(&self, field: &Path, value: &str, valid: &[&str]) -> InputError {
        let valid: Vec<String> = valid.iter().map(|v| format!("{v:?}")).collect();
        self.err(
            field,
            format!(
                "Unsupported value: {value:?}: supported values: {}",
                valid.join(", ")
            ),
        )
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "the fields of the two webhook types, which share no trait"
    )]
    fn webhook(
        &self,
        path: &Path,
        name: String,
        rules: Vec<ar::RuleWithOperations>,
        namespace_selector: Option<LabelSelector>,
        object_selector: Option<LabelSelector>,
        match_policy: Option<&str>,
        match_conditions: usize,
        failure_policy: Option<&str>,
    ) -> Result<Webhook, InputError> {
        let mut out = Vec::new();
        for (j, r) in rules.into_iter().enumerate() {
            out.push(self.rule(
                path.child("rules").index(j),
                r.operations,
                r.api_groups,
                r.api_versions,
                r.resources,
                r.scope,
                None,
            )?);
        }
        let criteria = Criteria {
            rules: out,
            exclude: Vec::new(),
            empty_rules_match_all: false,
            namespace_selector: self.selector(&path.child("namespaceSelector"), namespace_selector)?,
            object_selector: self.selector(&path.child("objectSelector"), object_selector)?,
            equivalent: self.match_policy(&path.child("matchPolicy"), match_policy)?,
            path: path.clone(),
        };
        if let Some(fp) = failure_policy
            && !matches!(fp, "Fail" | "Ignore")
        {
            return Err(self.unsupported(&path.child("failurePolicy"), fp, &["Fail", "Ignore"]));
        }
        Ok(Webhook {
            name,
            criteria,
            match_conditions,
            failure_policy_ignore: failure_policy == Some("Ignore"),
        })
    }

    /// Decode and validate a policy's `matchConstraints` or a binding's `matchResources` at `path`.
    pub fn criteria(&self, path: &Path, m: ar::MatchResources) -> Result<Criteria, InputError> {
        let named = |field: &'static str,
                     rules: Option<Vec<ar::NamedRuleWithOperations>>|
         -> Result<Vec<Rule>, InputError> {
            let mut out = Vec::new();
            for (j, r) in rules.unwrap_or_default().into_iter().enumerate() {
                out.push(self.rule(
                    path.child(field).index(j),
                    r.operations,
                    r.api_groups,
                    r.api_versions,
                    r.resources,
                    r.scope,
                    r.resource_names,
                )?);
            }
            Ok(out)
        };
        Ok(Criteria {
            rules: named("resourceRules", m.resource_rules)?,
            exclude: named("excludeResourceRules", m.exclude_resource_rules)?,
            empty_rules_match_all: true,
            namespace_selector: self.selector(&path.child("namespaceSelector"), m.namespace_selector)?,
            object_selector: self.selector(&path.child("objectSelector"), m.object_selector)?,
            equivalent: self.match_policy(&path.child("matchPolicy"), m.match_policy.as_deref())?,
            path: path.clone(),
        })
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "the fields of the two rule types, which share no trait"
    )]
    fn rule(
        &self,
        path: Path,
        operations: Option<Vec<String>>,
        api_groups: Option<Vec<String>>,
        api_versions: Option<Vec<String>>,
        resources: Option<Vec<String>>,
        scope: Option<String>,
        resource_names: Option<Vec<String>>,
    ) -> Result<Rule, InputError> {
        let operations = operations.unwrap_or_default();
        for (k, op) in operations.iter().enumerate() {
            if !matches!(op.as_str(), "*" | "CREATE" | "UPDATE" | "DELETE" | "CONNECT") {
                return Err(self.unsupported(
                    &path.child("operations").index(k),
                    op,
                    &["*", "CONNECT", "CREATE", "DELETE", "UPDATE"],
                ));
            }
        }
        if let Some(s) = scope.as_deref()
            && !matches!(s, "*" | "Cluster" | "Namespaced")
        {
            return Err(self.unsupported(&path.child("scope"), s, &["*", "Cluster", "Namespaced"]));
        }
        Ok(Rule {
            operations,
            api_groups: api_groups.unwrap_or_default(),
            api_versions: api_versions.unwrap_or_default(),
            resources: resources.unwrap_or_default(),
            scope,
            resource_names: resource_names.unwrap_or_default(),
            path,
        })
    }

    fn match_policy(&self, path: &Path, policy: Option<&str>) -> Result<bool, InputError> {
        match policy {
            // The API server defaults matchPolicy to Equivalent.
            None | Some("Equivalent") => Ok(true),
            Some("Exact") => Ok(false),
            Some(other) => Err(self.unsupported(path, other, &["Equivalent", "Exact"])),
        }
    }

    /// Validate a selector like upstream's `ValidateLabelSelector`.
    fn selector(&self, path: &Path, sel: Option<LabelSelector>) -> Result<Option<LabelSelector>, InputError> {
        let Some(sel) = sel else { return Ok(None) };
        for (k, req) in sel.match_expressions.iter().flatten().enumerate() {
            let p = path.child("matchExpressions").index(k);
            let values = req.values.as_deref().unwrap_or_default();
            match req.operator.as_str() {
                "In" | "NotIn" => {
                    if values.is_empty() {
                        return Err(self.err(
                            &p.child("values"),
                            "Required value: must be specified when `operator` is 'In' or 'NotIn'",
                        ));
                    }
                }
                "Exists" | "DoesNotExist" => {
                    if !values.is_empty() {
                        return Err(self.err(
                            &p.child("values"),
                            "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                        ));
                    }
                }
                other => {
                    return Err(self.unsupported(
                        &p.child("operator"),
                        other,
                        &["DoesNotExist", "Exists", "In", "NotIn"],
                    ));
                }
            }
        }
        Ok(Some(sel))
    }
}

// ---------------------------------------------------------------------------------------------
// Matching one request against one rule (upstream `rules.Matcher`)

/// An admission operation. Coverage asks about hypothetical creates and updates of `pods` and
/// updates of `pods/dynamic`; `podmut_vap` matches the operation of a concrete request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `CREATE`.
    Create,
    /// `UPDATE`.
    Update,
    /// `DELETE`.
    Delete,
    /// `CONNECT`.
    Connect,
}

impl Op {
    /// The admission operation's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Create => "CREATE",
            Op::Update => "UPDATE",
            Op::Delete => "DELETE",
            Op::Connect => "CONNECT",
        }
    }

    /// The operation named `s` (`CREATE`, `UPDATE`, `DELETE`, `CONNECT`).
    pub fn parse(s: &str) -> Option<Op> {
        Some(match s {
            "CREATE" => Op::Create,
            "UPDATE" => Op::Update,
            "DELETE" => Op::Delete,
            "CONNECT" => Op::Connect,
            _ => return None,
        })
    }
}

#[derive(Clone, Copy, Debug)]
struct Request<'a> {
    /// The resource (Pods for every coverage question).
    resource: Resource<'a>,
    op: Op,
    /// `""` (the main resource) or `dynamic`.
    subresource: &'a str,
    name: &'a str,
}

/// The resource a request is on: its API group, version and main resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resource<'a> {
    /// The API group (`""` for core, `apps`, `batch`).
    pub group: &'a str,
    /// The version (`v1`).
    pub version: &'a str,
    /// The main resource (`pods`, `deployments`).
    pub resource: &'a str,
}

impl Resource<'static> {
    /// core/v1 pods.
    pub const POD: Resource<'static> = Resource {
        group: "",
        version: "v1",
        resource: "pods",
    };
}

/// The resources equivalent to core/v1 pods under `matchPolicy: Equivalent` (upstream
/// `EquivalentResourceMapper`), other than pods itself: none — Pods are served in one version of
/// one group only.
const POD_EQUIVALENTS: [(&str, &str); 0] = [];

fn exact_or_wildcard(items: &[String], requested: &str) -> bool {
    items.iter().any(|i| i == "*" || i == requested)
}

/// `rules.Matcher.Matches` for a namespaced request against `group/version`.
fn rule_matches_as(rule: &Rule, req: &Request<'_>, group: &str, version: &str) -> bool {
    let scope = matches!(rule.scope.as_deref(), None | Some("*" | "Namespaced"));
    let operation = rule.operations.iter().any(|o| o == "*" || o == req.op.as_str());
    let resource = rule.resources.iter().any(|r| {
        let (res, sub) = r.split_once('/').unwrap_or((r.as_str(), ""));
        (res == "*" || res == req.resource.resource) && (sub == "*" || sub == req.subresource)
    });
    scope
        && operation
        && exact_or_wildcard(&rule.api_groups, group)
        && exact_or_wildcard(&rule.api_versions, version)
        && resource
}

fn rule_matches(rule: &Rule, req: &Request<'_>) -> bool {
    rule_matches_as(rule, req, req.resource.group, req.resource.version)
}

/// Whether a rule matches, honouring `resourceNames` (empty: every name).
fn named_rule_matches(rule: &Rule, req: &Request<'_>) -> bool {
    rule_matches(rule, req)
        && (rule.resource_names.is_empty() || rule.resource_names.iter().any(|n| n == req.name))
}

/// The first rule matching `req` (exact pass, then the `Equivalent` pass), as upstream orders them.
fn first_match<'r>(rules: &'r [Rule], req: &Request<'_>, equivalent: bool) -> Option<&'r Rule> {
    if let Some(r) = rules.iter().find(|r| named_rule_matches(r, req)) {
        return Some(r);
    }
    if equivalent && req.resource == Resource::POD {
        for r in rules {
            for (group, version) in POD_EQUIVALENTS {
                if rule_matches_as(r, req, group, version)
                    && (r.resource_names.is_empty() || r.resource_names.iter().any(|n| n == req.name))
                {
                    return Some(r);
                }
            }
        }
    }
    None
}

/// Why a criteria set does not match a request.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Miss {
    /// An exclude rule matched.
    Excluded(Path),
    /// No rule matched.
    NoRule,
}

impl Criteria {
    /// The rule-level part of upstream's matching (selectors are judged apart: see [`Gate`]).
    fn matches(&self, req: &Request<'_>) -> Result<(), Miss> {
        if let Some(r) = first_match(&self.exclude, req, self.equivalent) {
            return Err(Miss::Excluded(r.path.clone()));
        }
        if self.rules.is_empty() && self.empty_rules_match_all {
            return Ok(());
        }
        first_match(&self.rules, req, self.equivalent)
            .map(|_| ())
            .ok_or(Miss::NoRule)
    }

    fn names(&self, out: &mut BTreeSet<String>) {
        for r in self.rules.iter().chain(&self.exclude) {
            out.extend(r.resource_names.iter().cloned());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Selectors

pub use podmut_validation::selector::selector_matches;

/// Whether some label set satisfies every selector at once (no library answers this: kube-core's
/// `Selector` matches one given label set).
fn satisfiable(selectors: &[&LabelSelector]) -> bool {
    #[derive(Default)]
    struct Key {
        allowed: Option<BTreeSet<String>>,
        forbidden: BTreeSet<String>,
        exists: bool,
        absent: bool,
    }
    let mut keys: BTreeMap<&str, Key> = BTreeMap::new();
    let allow = |k: &mut Key, values: BTreeSet<String>| {
        k.exists = true;
        k.allowed = Some(match k.allowed.take() {
            Some(a) => podmut_model::order::set_from(a.intersection(&values).cloned()),
            None => values,
        });
    };
    for sel in selectors {
        for (key, value) in sel.match_labels.iter().flatten() {
            allow(
                keys.entry(key).or_default(),
                podmut_model::order::set_from([value.clone()]),
            );
        }
        for req in sel.match_expressions.iter().flatten() {
            let values: BTreeSet<String> =
                podmut_model::order::set_from(req.values.iter().flatten().cloned());
            let k = keys.entry(&req.key).or_default();
            match req.operator.as_str() {
                "In" => allow(k, values),
                "NotIn" => k.forbidden.extend(values),
                "Exists" => k.exists = true,
                "DoesNotExist" => k.absent = true,
                _ => return false,
            }
        }
    }
    keys.values().all(|k| {
        if k.absent {
            return !k.exists;
        }
        match &k.allowed {
            Some(a) => a.iter().any(|v| !k.forbidden.contains(v)),
            None => true,
        }
    })
}

/// Whether a handler's selectors can select the Pod in scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Gate {
    /// They select it (or, for unknown labels, can select some).
    Open,
    /// They cannot.
    Closed,
}

fn gate(selectors: &[&LabelSelector], labels: Option<&BTreeMap<String, String>>) -> Gate {
    let open = match labels {
        Some(l) => selectors.iter().all(|s| selector_matches(s, l)),
        None => satisfiable(selectors),
    };
    if open { Gate::Open } else { Gate::Closed }
}

/// The namespace and object gates of a handler made of one or two criteria sets.
fn scope_gate(criteria: &[&Criteria], scope: &Scope, notes: &mut Vec<String>) -> bool {
    let ns: Vec<&LabelSelector> = criteria
        .iter()
        .filter_map(|c| c.namespace_selector.as_ref())
        .collect();
    let obj: Vec<&LabelSelector> = criteria
        .iter()
        .filter_map(|c| c.object_selector.as_ref())
        .collect();
    let is_set = |s: &&LabelSelector| {
        s.match_labels.as_ref().is_some_and(|m| !m.is_empty())
            || s.match_expressions.as_ref().is_some_and(|m| !m.is_empty())
    };
    let ns_gate = gate(&ns, scope.namespace_labels.as_ref());
    let obj_gate = gate(&obj, scope.pod_labels.as_ref());
    if ns_gate == Gate::Closed {
        notes.push(if scope.namespace_labels.is_some() {
            "its namespaceSelector does not select the scoped namespace".to_owned()
        } else {
            "its namespaceSelectors cannot select any namespace together".to_owned()
        });
    } else if scope.namespace_labels.is_none() && ns.iter().any(is_set) {
        notes.push("limited by a namespaceSelector: applies to Pods in the namespaces it selects".to_owned());
    }
    if obj_gate == Gate::Closed {
        notes.push(if scope.pod_labels.is_some() {
            "its objectSelector does not select the scoped Pod".to_owned()
        } else {
            "its objectSelectors cannot select any Pod together".to_owned()
        });
    } else if scope.pod_labels.is_none() && obj.iter().any(is_set) {
        notes.push("limited by an objectSelector: applies to the Pods it selects".to_owned());
    }
    ns_gate == Gate::Open && obj_gate == Gate::Open
}

// ---------------------------------------------------------------------------------------------
// Handlers

/// The request path coverage is about; the requests it is compared with are on the main resource.
const DYNAMIC: Subresource = Subresource::Dynamic;
const MAIN: Subresource = Subresource::None;

/// The rule that intercepts `pods/dynamic`.
fn dynamic_rule() -> String {
    format!(
        r#"{{apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["{}"]}}"#,
        DYNAMIC.resource()
    )
}

fn match_conditions_note(n: usize) -> Option<String> {
    (n > 0).then(|| {
        format!(
            "its matchConditions ({n}) are not evaluated by the fail-closed rule: it counts whenever its rules and selectors match"
        )
    })
}

/// The Pod names worth trying: the scoped one, or every named one plus any other.
fn candidate_names(criteria: &[&Criteria], scope: &Scope) -> Vec<String> {
    if let Some(n) = &scope.pod_name {
        return vec![n.clone()];
    }
    let mut names = BTreeSet::new();
    for c in criteria {
        c.names(&mut names);
    }
    let mut other = String::from("any-other-pod");
    while names.contains(&other) {
        other.push('-');
    }
    names.insert(other);
    names.into_iter().collect()
}

fn webhook_coverage(kind: &str, config: &str, index: usize, w: &Webhook, scope: &Scope) -> HandlerCoverage {
    let c = &w.criteria;
    let req = |op, subresource| Request {
        resource: Resource::POD,
        op,
        subresource,
        name: scope.pod_name.as_deref().unwrap_or_default(),
    };
    let create = c.matches(&req(Op::Create, MAIN.api_name())).is_ok();
    let update = c.matches(&req(Op::Update, MAIN.api_name())).is_ok();
    let dynamic = c.matches(&req(Op::Update, DYNAMIC.api_name())).is_ok();
    let mut notes = Vec::new();
    let in_scope = scope_gate(&[c], scope, &mut notes);
    let blocks = in_scope && (create || update) && !dynamic;
    let mut fix = String::new();
    if blocks {
        let path = Path::new("webhooks").index(index);
        fix = match c
            .rules
            .iter()
            .find(|r| rule_matches(r, &req(Op::Update, MAIN.api_name())))
        {
            Some(r) => format!("add {:?} to {}.resources", DYNAMIC.resource(), r.path),
            None => format!(
                "add to {path}.rules: {} (it intercepts Pod CREATE only; {} requests are UPDATEs)",
                dynamic_rule(),
                DYNAMIC.resource()
            ),
        };
        if w.failure_policy_ignore {
            notes.push("failurePolicy Ignore does not exempt it from the fail-closed rule".to_owned());
        }
    }
    notes.extend(match_conditions_note(w.match_conditions));
    HandlerCoverage {
        kind: kind.to_owned(),
        name: format!("{config}/{}", w.name),
        binding: None,
        intercepts_pods: create || update,
        intercepts_dynamic: dynamic,
        in_scope,
        blocks_dynamic: blocks,
        fix,
        notes,
    }
}

struct PolicyRef<'a> {
    kind: &'a str,
    name: &'a str,
    criteria: &'a Criteria,
    match_conditions: usize,
}

fn policy_coverage(p: &PolicyRef<'_>, binding: Option<&Binding>, scope: &Scope) -> HandlerCoverage {
    let mut sets: Vec<&Criteria> = vec![p.criteria];
    if let Some(c) = binding.and_then(|b| b.criteria.as_ref()) {
        sets.push(c);
    }
    let names = candidate_names(&sets, scope);
    let matches = |req: &Request<'_>| sets.iter().all(|c| c.matches(req).is_ok());
    let (mut pods_any, mut dyn_any) = (false, false);
    let mut blocked: Vec<&str> = Vec::new();
    for n in &names {
        let pods = matches(&Request {
            resource: Resource::POD,
            op: Op::Create,
            subresource: MAIN.api_name(),
            name: n,
        }) || matches(&Request {
            resource: Resource::POD,
            op: Op::Update,
            subresource: MAIN.api_name(),
            name: n,
        });
        let dynamic = matches(&Request {
            resource: Resource::POD,
            op: Op::Update,
            subresource: DYNAMIC.api_name(),
            name: n,
        });
        pods_any |= pods;
        dyn_any |= dynamic;
        if pods && !dynamic {
            blocked.push(n);
        }
    }
    let mut notes = Vec::new();
    let in_scope = scope_gate(&sets, scope, &mut notes);
    let would_block = in_scope && !blocked.is_empty();
    let blocks = would_block && binding.is_some();
    let mut fix = String::new();
    if would_block {
        let name = blocked.first().copied().unwrap_or_default();
        fix = policy_fix(p, binding, &sets, name);
        if binding.is_none() {
            fix = format!("before binding it: {fix}");
        }
        if scope.pod_name.is_none() && names.len() > 1 && blocked.len() < names.len() {
            let named: Vec<String> = names
                .iter()
                .filter(|n| !blocked.contains(&n.as_str()))
                .map(|n| format!("{n:?}"))
                .collect();
            notes.push(format!(
                "resourceNames: Pods named {} are covered; other Pods are not",
                named.join(", ")
            ));
        }
    }
    if binding.is_none() {
        notes.push(format!(
            "no binding names this policy: it has no effect{}",
            if would_block {
                format!(" yet, but would block {} once bound", DYNAMIC.resource())
            } else {
                String::new()
            }
        ));
    }
    notes.extend(match_conditions_note(p.match_conditions));
    HandlerCoverage {
        kind: p.kind.to_owned(),
        name: p.name.to_owned(),
        binding: binding.map(|b| b.name.clone()),
        intercepts_pods: pods_any,
        intercepts_dynamic: dyn_any,
        in_scope,
        blocks_dynamic: blocks,
        fix,
        notes,
    }
}

/// Where a policy (and binding) loses `pods/dynamic` for the Pod `name`, and what to change.
fn policy_fix(p: &PolicyRef<'_>, binding: Option<&Binding>, sets: &[&Criteria], name: &str) -> String {
    let dynamic = Request {
        resource: Resource::POD,
        op: Op::Update,
        subresource: DYNAMIC.api_name(),
        name,
    };
    let update = Request {
        resource: Resource::POD,
        op: Op::Update,
        subresource: MAIN.api_name(),
        name,
    };
    let create = Request {
        resource: Resource::POD,
        op: Op::Create,
        subresource: MAIN.api_name(),
        name,
    };
    let mut steps = Vec::new();
    for (i, c) in sets.iter().enumerate() {
        let owner = if i == 0 {
            format!("{} {:?}", p.kind, p.name)
        } else {
            let b = binding.map_or("", |b| b.name.as_str());
            let k = binding.map_or("", |b| b.kind);
            format!("{k} {b:?}")
        };
        match c.matches(&dynamic) {
            Ok(()) => {}
            Err(Miss::Excluded(path)) => {
                let exact = c
                    .exclude
                    .iter()
                    .find(|r| r.path == path)
                    .is_some_and(|r| r.resources.iter().any(|res| res == DYNAMIC.resource()));
                steps.push(if exact {
                    format!("remove {:?} from {path}.resources of {owner}", DYNAMIC.resource())
                } else {
                    format!(
                        "narrow {path} of {owner} so it no longer excludes {}",
                        DYNAMIC.resource()
                    )
                });
            }
            Err(Miss::NoRule) => {
                let base = c
                    .rules
                    .iter()
                    .find(|r| named_rule_matches(r, &update))
                    .or_else(|| {
                        c.rules
                            .iter()
                            .find(|r| named_rule_matches(r, &create))
                            .filter(|r| r.operations.iter().any(|o| o == "*" || o == "UPDATE"))
                    });
                steps.push(match base {
                    Some(r) => format!("add {:?} to {}.resources of {owner}", DYNAMIC.resource(), r.path),
                    None => format!("add to {}.resourceRules of {owner}: {}", c.path, dynamic_rule()),
                });
            }
        }
    }
    steps.join("; ")
}

// ---------------------------------------------------------------------------------------------
// One concrete request (ValidatingAdmissionPolicy evaluation, `podmut_vap`)

/// A concrete request: what upstream's `matching.Matcher.Matches` looks at.
#[derive(Clone, Copy, Debug)]
pub struct Concrete<'a> {
    /// The resource (Pods, or a workload's resource).
    pub resource: Resource<'a>,
    /// The operation.
    pub op: Op,
    /// `""` for the main resource, else e.g. `dynamic`, `resize`, `status`.
    pub subresource: &'a str,
    /// The Pod's name.
    pub name: &'a str,
    /// The namespace's labels.
    pub namespace_labels: &'a BTreeMap<String, String>,
    /// The labels of the new and the old object, where there is one.
    pub object_labels: [Option<&'a BTreeMap<String, String>>; 2],
}

impl Criteria {
    /// Upstream's `matching.Matcher.Matches` for a concrete request: the namespaceSelector, the
    /// objectSelector (the new or the old object: either may match; an absent one never does),
    /// then `excludeResourceRules`, then `resourceRules`. `Err` says why it does not match.
    pub fn select(&self, req: &Concrete<'_>) -> Result<(), String> {
        if let Some(sel) = &self.namespace_selector
            && !selector_matches(sel, req.namespace_labels)
        {
            return Err(format!(
                "{}.namespaceSelector does not select the namespace",
                self.path
            ));
        }
        if let Some(sel) = &self.object_selector
            && !req
                .object_labels
                .iter()
                .flatten()
                .any(|l| selector_matches(sel, l))
        {
            let what = if req.resource == Resource::POD {
                "Pod"
            } else {
                "object"
            };
            return Err(format!("{}.objectSelector does not select the {what}", self.path));
        }
        let rules_req = Request {
            resource: req.resource,
            op: req.op,
            subresource: req.subresource,
            name: req.name,
        };
        let resource = if req.subresource.is_empty() {
            req.resource.resource.to_owned()
        } else {
            format!("{}/{}", req.resource.resource, req.subresource)
        };
        self.matches(&rules_req).map_err(|miss| match miss {
            Miss::Excluded(path) => format!("{path} excludes {} {resource}", req.op.as_str()),
            Miss::NoRule => format!(
                "no rule of {}.resourceRules matches {} {resource}",
                self.path,
                req.op.as_str()
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(yaml: &str) -> CoverageReport {
        coverage(yaml, &Scope::default()).unwrap()
    }

    const WEBHOOK: &str = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: policy}
webhooks:
- name: pods.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig: {url: "https://example.invalid/validate"}
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
"#;

    #[test]
    fn create_only_webhook_blocks_dynamic() {
        let r = report(WEBHOOK);
        assert!(!r.dynamic_allowed);
        let h = &r.handlers[0];
        assert_eq!(h.name, "policy/pods.example.com");
        assert!(h.intercepts_pods && !h.intercepts_dynamic && h.blocks_dynamic);
        assert!(h.fix.contains("webhooks[0].rules"), "{}", h.fix);
    }

    #[test]
    fn pods_star_matches_main_resource_and_dynamic() {
        let r = report(&WEBHOOK.replace("[CREATE], resources: [pods]", "[UPDATE], resources: [\"pods/*\"]"));
        let h = &r.handlers[0];
        assert!(h.intercepts_pods && h.intercepts_dynamic && !h.blocks_dynamic);
        assert!(r.dynamic_allowed);
    }

    #[test]
    fn bare_star_does_not_match_subresources() {
        let r = report(&WEBHOOK.replace("[CREATE], resources: [pods]", "[\"*\"], resources: [\"*\"]"));
        let h = &r.handlers[0];
        assert!(h.intercepts_pods && !h.intercepts_dynamic && h.blocks_dynamic);
        assert_eq!(h.fix, "add \"pods/dynamic\" to webhooks[0].rules[0].resources");
    }

    #[test]
    fn cluster_scope_never_matches_pods() {
        let r = report(&WEBHOOK.replace("resources: [pods]}", "resources: [pods], scope: Cluster}"));
        assert!(!r.handlers[0].intercepts_pods);
        assert!(r.dynamic_allowed);
    }

    #[test]
    fn selectors() {
        let mut labels = BTreeMap::new();
        labels.insert("env".to_owned(), "prod".to_owned());
        let sel: LabelSelector = serde_json::from_str(
            r#"{"matchExpressions":[{"key":"env","operator":"In","values":["prod","dev"]}]}"#,
        )
        .unwrap();
        assert!(selector_matches(&sel, &labels));
        let not: LabelSelector = serde_json::from_str(
            r#"{"matchExpressions":[{"key":"env","operator":"NotIn","values":["prod"]}]}"#,
        )
        .unwrap();
        assert!(!selector_matches(&not, &labels));
        assert!(selector_matches(&not, &BTreeMap::new()));
        assert!(satisfiable(&[&sel, &not]));
        let only_prod: LabelSelector = serde_json::from_str(r#"{"matchLabels":{"env":"prod"}}"#).unwrap();
        assert!(!satisfiable(&[&only_prod, &not]));
        let absent: LabelSelector =
            serde_json::from_str(r#"{"matchExpressions":[{"key":"env","operator":"DoesNotExist"}]}"#)
                .unwrap();
        assert!(!satisfiable(&[&absent, &sel]));
        assert!(satisfiable(&[&absent, &not]));
    }

    /// The matcher `selector_matches` replaced, kept as the reference its answers are held to.
    fn hand_written(sel: &LabelSelector, labels: &BTreeMap<String, String>) -> bool {
        let by_labels = sel
            .match_labels
            .iter()
            .flatten()
            .all(|(k, v)| labels.get(k) == Some(v));
        let by_expressions = sel.match_expressions.iter().flatten().all(|req| {
            let values = req.values.as_deref().unwrap_or_default();
            let value = labels.get(&req.key);
            match req.operator.as_str() {
                "In" => value.is_some_and(|v| values.contains(v)),
                "NotIn" => value.is_none_or(|v| !values.contains(v)),
                "Exists" => value.is_some(),
                "DoesNotExist" => value.is_none(),
                _ => false,
            }
        });
        by_labels && by_expressions
    }

    /// kube-core's selector gives the hand-written matcher's answer for every selector of up to two
    /// requirements (every operator, a bogus one included, with absent, empty and one or two
    /// values) and optional matchLabels, on every label set over two keys and two values.
    #[test]
    fn kube_core_selectors_answer_as_the_hand_written_matcher() {
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;
        let keys = ["a", "b"];
        let values: [Option<Vec<String>>; 4] = [
            None,
            Some(vec![]),
            Some(vec!["x".into()]),
            Some(vec!["x".into(), "y".into()]),
        ];
        let mut requirements = vec![None];
        for key in keys {
            for op in ["In", "NotIn", "Exists", "DoesNotExist", "Bogus"] {
                for v in &values {
                    requirements.push(Some(LabelSelectorRequirement {
                        key: key.into(),
                        operator: op.into(),
                        values: v.clone(),
                    }));
                }
            }
        }
        let mut label_sets = vec![BTreeMap::new()];
        for key in keys {
            for value in ["x", "y", "z"] {
                for set in label_sets.clone() {
                    if !set.contains_key(key) {
                        let mut set = set;
                        set.insert(key.to_owned(), value.to_owned());
                        label_sets.push(set);
                    }
                }
            }
        }
        let match_labels = [
            None,
            Some(BTreeMap::new()),
            Some(BTreeMap::from([("a".to_owned(), "x".to_owned())])),
        ];
        let mut checked = 0;
        for first in &requirements {
            for second in &requirements {
                for (ml, listed) in match_labels.iter().flat_map(|ml| [(ml, false), (ml, true)]) {
                    let exprs: Vec<_> = [first, second].into_iter().flatten().cloned().collect();
                    let sel = LabelSelector {
                        match_labels: ml.clone(),
                        // An empty list and no list.
                        match_expressions: (listed || !exprs.is_empty()).then_some(exprs),
                    };
                    for labels in &label_sets {
                        assert_eq!(
                            selector_matches(&sel, labels),
                            hand_written(&sel, labels),
                            "{sel:?} on {labels:?}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 150_000, "{checked}");
    }

    #[test]
    fn bad_operation_names_the_field() {
        let e = coverage(&WEBHOOK.replace("[CREATE]", "[PATCH]"), &Scope::default()).unwrap_err();
        let s = e.to_string();
        assert!(
            s.contains("ValidatingWebhookConfiguration \"policy\": webhooks[0].rules[0].operations[0]: Unsupported value: \"PATCH\""),
            "{s}"
        );
    }

    #[test]
    fn other_kinds_are_ignored() {
        let r = report("apiVersion: v1\nkind: Namespace\nmetadata: {name: default}\n");
        assert!(r.dynamic_allowed && r.handlers.is_empty());
        assert_eq!(r.ignored, ["Namespace/default: not admission configuration"]);
    }
}
