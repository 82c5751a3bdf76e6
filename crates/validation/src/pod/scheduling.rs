//! Scheduling-related Pod spec rules: tolerations, scheduling gates, affinity, topology spread,
//! DNS, restart/preemption policy, host aliases and readiness gates, plus the update-time rules
//! for tolerations, gates and the node selection of gated Pods.
//!
//! Upstream: `pkg/apis/core/validation/validation.go` (`ValidateTolerations`,
//! `validateOnlyAddedTolerations`, `validateSchedulingGates`, `validateOnlyDeletedSchedulingGates`,
//! `validateAffinity`, `ValidateNodeSelector`, `validateTopologySpreadConstraints`,
//! `validatePodDNSConfig`, `validateNodeSelectorMutation`, `validateNodeAffinityMutation`) and
//! `apimachinery/pkg/apis/meta/v1/validation` (`ValidateLabelSelector`).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{
    Affinity, HostAlias, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm,
    PodAffinityTerm, PodDNSConfig, PodReadinessGate, PodSchedulingGate, PreferredSchedulingTerm, Toleration,
    TopologySpreadConstraint, WeightedPodAffinityTerm,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::pod::names::{self, invalid_each};
use crate::pod::options::PodValidationOptions;
use crate::pod::util::{items, opt_str};
use podmut_model::field::{BadValue, ErrorList, FieldError, Path};
use podmut_model::semantic::semantic_eq;

/// `MaxDNSNameservers`.
pub(crate) const MAX_DNS_NAMESERVERS: usize = 3;
/// `MaxDNSSearchPaths`.
pub(crate) const MAX_DNS_SEARCH_PATHS: usize = 32;
/// `MaxDNSSearchListChars`.
pub(crate) const MAX_DNS_SEARCH_LIST_CHARS: usize = 2048;

/// `validateTaintEffect(effect, allowEmpty=true)` for a non-empty effect.
fn validate_taint_effect(effect: &str, path: &Path) -> ErrorList {
    match effect {
        "NoSchedule" | "PreferNoSchedule" | "NoExecute" => ErrorList::new(),
        other => vec![
            FieldError::not_supported(path, other, &["NoSchedule", "PreferNoSchedule", "NoExecute"])
                .with_origin("scheduling/toleration-effect"),
        ],
    }
}

/// `ValidateTolerations`.
pub(crate) fn validate_tolerations(tolerations: &[Toleration], path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    for (i, t) in tolerations.iter().enumerate() {
        let p = path.index(i);
        let key = opt_str(&t.key);
        let operator = opt_str(&t.operator);
        let value = opt_str(&t.value);
        let effect = opt_str(&t.effect);
        if !key.is_empty() {
            errs.extend(names::validate_label_name(key, &p.child("key")));
        }
        if key.is_empty() && operator != "Exists" {
            errs.push(
                FieldError::invalid(
                    &p.child("operator"),
                    operator,
                    "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
                )
                .with_origin("scheduling/toleration-operator"),
            );
        }
        if t.toleration_seconds.is_some() && effect != "NoExecute" {
            errs.push(
                FieldError::invalid(
                    &p.child("effect"),
                    effect,
                    "effect must be 'NoExecute' when `tolerationSeconds` is set",
                )
                .with_origin("scheduling/toleration-seconds"),
            );
        }
        match operator {
            "Equal" | "" => {
                let msgs = names::is_valid_label_value(value);
                if !msgs.is_empty() {
                    errs.push(
                        FieldError::invalid(&p.child("operator"), value, msgs.join(";"))
                            .with_origin("scheduling/toleration-value"),
                    );
                }
            }
            "Exists" => {
                if !value.is_empty() {
                    errs.push(
                        FieldError::invalid(
                            &p.child("operator"),
                            value,
                            "value must be empty when `operator` is 'Exists'",
                        )
                        .with_origin("scheduling/toleration-value"),
                    );
                }
            }
            other => errs.push(
                FieldError::not_supported(&p.child("operator"), other, &["Equal", "Exists"])
                    .with_origin("scheduling/toleration-operator"),
            ),
        }
        if !effect.is_empty() {
            errs.extend(validate_taint_effect(effect, &p.child("effect")));
        }
    }
    errs
}

/// Upstream compares tolerations with `reflect.DeepEqual` on internal types, where an empty and an
/// absent string are the same.
fn same_toleration_ignoring_seconds(a: &Toleration, b: &Toleration) -> bool {
    opt_str(&a.key) == opt_str(&b.key)
        && opt_str(&a.operator) == opt_str(&b.operator)
        && opt_str(&a.value) == opt_str(&b.value)
        && opt_str(&a.effect) == opt_str(&b.effect)
}

/// `validateOnlyAddedTolerations`: every old toleration must still be present (its
/// `tolerationSeconds` may change); one `Forbidden spec.tolerations` and stop otherwise. Then the
/// new list is validated.
pub(crate) fn validate_only_added_tolerations(
    new: &[Toleration],
    old: &[Toleration],
    path: &Path,
) -> ErrorList {
    for o in old {
        if !new.iter().any(|n| same_toleration_ignoring_seconds(o, n)) {
            return vec![
                FieldError::forbidden(
                    path,
                    "existing toleration can not be modified except its tolerationSeconds",
                )
                .with_origin("update/tolerations-only-added"),
            ];
        }
    }
    validate_tolerations(new, path)
}

/// `validateSchedulingGates`: qualified names, no duplicates (both at `schedulingGates[i]`).
pub(crate) fn validate_scheduling_gates(gates: &[PodSchedulingGate], path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut seen = BTreeSet::new();
    for (i, g) in gates.iter().enumerate() {
        errs.extend(invalid_each(
            &path.index(i),
            &g.name,
            names::is_qualified_name(&g.name),
            "scheduling/gate-name",
        ));
        if !seen.insert(g.name.as_str()) {
            errs.push(
                FieldError::duplicate(&path.index(i), g.name.as_str())
                    .with_origin("scheduling/gate-duplicate"),
            );
        }
    }
    errs
}

/// `validateOnlyDeletedSchedulingGates`: a gate name not in the old list is `Forbidden` at
/// `schedulingGates[i].name` (reported in index order; upstream iterates a Go map).
pub(crate) fn validate_only_deleted_scheduling_gates(
    new: &[PodSchedulingGate],
    old: &[PodSchedulingGate],
    path: &Path,
) -> ErrorList {
    if new.is_empty() {
        return ErrorList::new();
    }
    let mut additional: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, g) in new.iter().enumerate() {
        additional.insert(g.name.as_str(), i);
    }
    for g in old {
        additional.remove(g.name.as_str());
    }
    // Each added name once, at its last index, in index order (no sort needed).
    new.iter()
        .enumerate()
        .filter(|(i, g)| additional.get(g.name.as_str()) == Some(i))
        .map(|(i, g)| (i, g.name.as_str()))
        .map(|(i, name)| {
            FieldError::forbidden(
                &path.index(i).child("name"),
                format!("only deletion is allowed, but found new scheduling gate '{name}'"),
            )
            .with_origin("update/scheduling-gates-only-deleted")
        })
        .collect()
}

/// `metav1validation.ValidateLabelSelector`; `allow_invalid_label_value` is
/// `LabelSelectorValidationOptions.AllowInvalidLabelValueInSelector` (values are then not checked).
pub(crate) fn validate_label_selector(
    selector: Option<&LabelSelector>,
    allow_invalid_label_value: bool,
    path: &Path,
) -> ErrorList {
    let Some(s) = selector else {
        return ErrorList::new();
    };
    let mut errs = names::validate_labels(s.match_labels.as_ref(), &path.child("matchLabels"));
    for (i, r) in items(&s.match_expressions).iter().enumerate() {
        let p = path.child("matchExpressions").index(i);
        let values = items(&r.values);
        match r.operator.as_str() {
            "In" | "NotIn" => {
                if values.is_empty() {
                    errs.push(
                        FieldError::required(
                            &p.child("values"),
                            "must be specified when `operator` is 'In' or 'NotIn'",
                        )
                        .with_origin("scheduling/label-selector"),
                    );
                }
            }
            "Exists" | "DoesNotExist" => {
                if !values.is_empty() {
                    errs.push(
                        FieldError::forbidden(
                            &p.child("values"),
                            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                        )
                        .with_origin("scheduling/label-selector"),
                    );
                }
            }
            other => errs.push(
                FieldError::invalid(&p.child("operator"), other, "not a valid selector operator")
                    .with_origin("scheduling/label-selector"),
            ),
        }
        errs.extend(names::validate_label_name(&r.key, &p.child("key")));
        if allow_invalid_label_value {
            continue;
        }
        for (j, v) in values.iter().enumerate() {
            errs.extend(invalid_each(
                &p.child("values").index(j),
                v,
                names::is_valid_label_value(v),
                "scheduling/label-selector",
            ));
        }
    }
    errs
}

/// `ValidateNodeSelectorRequirement`.
fn validate_node_selector_requirement(
    rq: &NodeSelectorRequirement,
    allow_invalid_label_value: bool,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let values = items(&rq.values);
    match rq.operator.as_str() {
        "In" | "NotIn" => {
            if values.is_empty() {
                errs.push(
                    FieldError::required(
                        &path.child("values"),
                        "must be specified when `operator` is 'In' or 'NotIn'",
                    )
                    .with_origin("scheduling/node-selector"),
                );
            }
        }
        "Exists" | "DoesNotExist" => {
            if !values.is_empty() {
                errs.push(
                    FieldError::forbidden(
                        &path.child("values"),
                        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    )
                    .with_origin("scheduling/node-selector"),
                );
            }
        }
        "Gt" | "Lt" => {
            if values.len() != 1 {
                errs.push(
                    FieldError::required(
                        &path.child("values"),
                        "must be specified single value when `operator` is 'Lt' or 'Gt'",
                    )
                    .with_origin("scheduling/node-selector"),
                );
            }
        }
        other => errs.push(
            FieldError::invalid(&path.child("operator"), other, "not a valid selector operator")
                .with_origin("scheduling/node-selector"),
        ),
    }
    errs.extend(names::validate_label_name(&rq.key, &path.child("key")));
    if !allow_invalid_label_value {
        for (i, v) in values.iter().enumerate() {
            errs.extend(invalid_each(
                &path.child("values").index(i),
                v,
                names::is_valid_label_value(v),
                "scheduling/node-selector",
            ));
        }
    }
    errs
}

/// `ValidateNodeFieldSelectorRequirement`: only `metadata.name`, with exactly one value for In/NotIn.
fn validate_node_field_selector_requirement(req: &NodeSelectorRequirement, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let values = items(&req.values);
    match req.operator.as_str() {
        "In" | "NotIn" => {
            if values.len() != 1 {
                errs.push(
                    FieldError::required(
                        &path.child("values"),
                        "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                    )
                    .with_origin("scheduling/node-field-selector"),
                );
            }
        }
        other => errs.push(
            FieldError::invalid(&path.child("operator"), other, "not a valid selector operator")
                .with_origin("scheduling/node-field-selector"),
        ),
    }
    if req.key == "metadata.name" {
        for (i, v) in values.iter().enumerate() {
            errs.extend(invalid_each(
                &path.child("values").index(i),
                v,
                names::name_is_dns_subdomain(v, false),
                "scheduling/node-field-selector",
            ));
        }
    } else {
        errs.push(
            FieldError::invalid(
                &path.child("key"),
                req.key.as_str(),
                "not a valid field selector key",
            )
            .with_origin("scheduling/node-field-selector"),
        );
    }
    errs
}

/// `ValidateNodeSelectorTerm`.
fn validate_node_selector_term(
    term: &NodeSelectorTerm,
    allow_invalid_label_value: bool,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    for (j, r) in items(&term.match_expressions).iter().enumerate() {
        errs.extend(validate_node_selector_requirement(
            r,
            allow_invalid_label_value,
            &path.child("matchExpressions").index(j),
        ));
    }
    for (j, r) in items(&term.match_fields).iter().enumerate() {
        errs.extend(validate_node_field_selector_requirement(
            r,
            &path.child("matchFields").index(j),
        ));
    }
    errs
}

/// `ValidateNodeSelector`.
fn validate_node_selector(sel: &NodeSelector, allow_invalid_label_value: bool, path: &Path) -> ErrorList {
    let terms_path = path.child("nodeSelectorTerms");
    if sel.node_selector_terms.is_empty() {
        return vec![
            FieldError::required(&terms_path, "must have at least one node selector term")
                .with_origin("scheduling/node-selector"),
        ];
    }
    let mut errs = ErrorList::new();
    for (i, t) in sel.node_selector_terms.iter().enumerate() {
        errs.extend(validate_node_selector_term(
            t,
            allow_invalid_label_value,
            &terms_path.index(i),
        ));
    }
    errs
}

/// `ValidatePreferredSchedulingTerms`.
fn validate_preferred_scheduling_terms(terms: &[PreferredSchedulingTerm], path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    for (i, t) in terms.iter().enumerate() {
        if t.weight <= 0 || t.weight > 100 {
            errs.push(
                FieldError::invalid(
                    &path.index(i).child("weight"),
                    t.weight,
                    "must be in the range 1-100",
                )
                .with_origin("scheduling/weight"),
            );
        }
        errs.extend(validate_node_selector_term(
            &t.preference,
            true,
            &path.index(i).child("preference"),
        ));
    }
    errs
}

fn selector_keys(sel: Option<&LabelSelector>) -> (BTreeSet<&str>, Vec<&str>) {
    let mut labels = BTreeSet::new();
    let mut exprs = Vec::new();
    if let Some(s) = sel {
        labels.extend(s.match_labels.iter().flatten().map(|(k, _)| k.as_str()));
        exprs.extend(items(&s.match_expressions).iter().map(|e| e.key.as_str()));
    }
    (labels, exprs)
}

/// `validateLabelKeys` for matchLabelKeys / mismatchLabelKeys.
fn validate_label_keys(path: &Path, keys: &[String], selector: Option<&LabelSelector>) -> ErrorList {
    if keys.is_empty() {
        return ErrorList::new();
    }
    if selector.is_none() {
        return vec![
            FieldError::forbidden(path, "must not be specified when labelSelector is not set")
                .with_origin("scheduling/match-label-keys"),
        ];
    }
    keys.iter()
        .enumerate()
        .flat_map(|(i, k)| names::validate_label_name(k, &path.index(i)))
        .collect()
}

/// `validateMatchLabelKeysAndMismatchLabelKeys`.
fn validate_match_and_mismatch_label_keys(
    path: &Path,
    match_keys: &[String],
    mismatch_keys: &[String],
    selector: Option<&LabelSelector>,
) -> ErrorList {
    let mut errs = validate_label_keys(&path.child("matchLabelKeys"), match_keys, selector);
    errs.extend(validate_label_keys(
        &path.child("mismatchLabelKeys"),
        mismatch_keys,
        selector,
    ));
    if selector.is_some() {
        let (mut label_keys, exprs) = selector_keys(selector);
        let index: BTreeMap<&str, usize> =
            podmut_model::order::map_from(match_keys.iter().enumerate().map(|(i, k)| (k.as_str(), i)));
        for key in exprs {
            if let Some(i) = index.get(key)
                && label_keys.contains(key)
            {
                errs.push(
                    FieldError::invalid(
                        &path.index(*i),
                        key,
                        "exists in both matchLabelKeys and labelSelector",
                    )
                    .with_origin("scheduling/match-label-keys"),
                );
            }
            label_keys.insert(key);
        }
    }
    let mismatch: BTreeSet<&str> = podmut_model::order::set_from(mismatch_keys.iter().map(String::as_str));
    for (i, k) in match_keys.iter().enumerate() {
        if mismatch.contains(k.as_str()) {
            errs.push(
                FieldError::invalid(
                    &path.child("matchLabelKeys").index(i),
                    k.as_str(),
                    "exists in both matchLabelKeys and mismatchLabelKeys",
                )
                .with_origin("scheduling/match-label-keys"),
            );
        }
    }
    errs
}

/// `ValidatePodAffinityTermSelector`: the term's label and namespace selectors.
pub(crate) fn validate_pod_affinity_term_selector(
    term: &PodAffinityTerm,
    allow_invalid_label_value: bool,
    path: &Path,
) -> ErrorList {
    let mut errs = validate_label_selector(
        term.label_selector.as_ref(),
        allow_invalid_label_value,
        &path.child("labelSelector"),
    );
    errs.extend(validate_label_selector(
        term.namespace_selector.as_ref(),
        allow_invalid_label_value,
        &path.child("namespaceSelector"),
    ));
    errs
}

/// `validatePodAffinityTerm`.
fn validate_pod_affinity_term(
    term: &PodAffinityTerm,
    allow_invalid_label_value: bool,
    path: &Path,
) -> ErrorList {
    let mut errs = validate_pod_affinity_term_selector(term, allow_invalid_label_value, path);
    for ns in items(&term.namespaces) {
        errs.extend(invalid_each(
            &path.child("namespace"),
            ns,
            names::name_is_dns_label(ns, false),
            "scheduling/pod-affinity-namespace",
        ));
    }
    errs.extend(validate_match_and_mismatch_label_keys(
        path,
        items(&term.match_label_keys),
        items(&term.mismatch_label_keys),
        term.label_selector.as_ref(),
    ));
    if term.topology_key.is_empty() {
        errs.push(
            FieldError::required(&path.child("topologyKey"), "can not be empty")
                .with_origin("scheduling/topology-key"),
        );
    }
    errs.extend(names::validate_label_name(
        &term.topology_key,
        &path.child("topologyKey"),
    ));
    errs
}

fn validate_pod_affinity_terms(
    required: &[PodAffinityTerm],
    preferred: &[WeightedPodAffinityTerm],
    allow_invalid_label_value: bool,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let rp = path.child("requiredDuringSchedulingIgnoredDuringExecution");
    for (i, t) in required.iter().enumerate() {
        errs.extend(validate_pod_affinity_term(
            t,
            allow_invalid_label_value,
            &rp.index(i),
        ));
    }
    let pp = path.child("preferredDuringSchedulingIgnoredDuringExecution");
    for (j, w) in preferred.iter().enumerate() {
        if w.weight <= 0 || w.weight > 100 {
            errs.push(
                FieldError::invalid(
                    &pp.index(j).child("weight"),
                    w.weight,
                    "must be in the range 1-100",
                )
                .with_origin("scheduling/weight"),
            );
        }
        errs.extend(validate_pod_affinity_term(
            &w.pod_affinity_term,
            allow_invalid_label_value,
            &pp.index(j).child("podAffinityTerm"),
        ));
    }
    errs
}

/// `validateAffinity`: `AllowInvalidLabelValueInRequiredNodeAffinity` applies to required node
/// affinity, `AllowInvalidLabelValueInSelector` to pod (anti-)affinity selectors.
pub(crate) fn validate_affinity(
    affinity: Option<&Affinity>,
    opts: &PodValidationOptions,
    path: &Path,
) -> ErrorList {
    let allow_invalid_required_label_value = opts.allow_invalid_label_value_in_required_node_affinity;
    let allow_invalid_selector_value = opts.allow_invalid_label_value_in_selector;
    let Some(a) = affinity else {
        return ErrorList::new();
    };
    let mut errs = ErrorList::new();
    if let Some(na) = &a.node_affinity {
        let p = path.child("nodeAffinity");
        if let Some(req) = &na.required_during_scheduling_ignored_during_execution {
            errs.extend(validate_node_selector(
                req,
                allow_invalid_required_label_value,
                &p.child("requiredDuringSchedulingIgnoredDuringExecution"),
            ));
        }
        let preferred = items(&na.preferred_during_scheduling_ignored_during_execution);
        if !preferred.is_empty() {
            errs.extend(validate_preferred_scheduling_terms(
                preferred,
                &p.child("preferredDuringSchedulingIgnoredDuringExecution"),
            ));
        }
    }
    if let Some(pa) = &a.pod_affinity {
        errs.extend(validate_pod_affinity_terms(
            items(&pa.required_during_scheduling_ignored_during_execution),
            items(&pa.preferred_during_scheduling_ignored_during_execution),
            allow_invalid_selector_value,
            &path.child("podAffinity"),
        ));
    }
    if let Some(pa) = &a.pod_anti_affinity {
        errs.extend(validate_pod_affinity_terms(
            items(&pa.required_during_scheduling_ignored_during_execution),
            items(&pa.preferred_during_scheduling_ignored_during_execution),
            allow_invalid_selector_value,
            &path.child("podAntiAffinity"),
        ));
    }
    errs
}

/// `validateTopologySpreadConstraints`; `allow_invalid_label_selector` is
/// `AllowInvalidTopologySpreadConstraintLabelSelector`.
pub(crate) fn validate_topology_spread_constraints(
    constraints: &[TopologySpreadConstraint],
    allow_invalid_label_selector: bool,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    for (i, c) in constraints.iter().enumerate() {
        let p = path.index(i);
        if c.max_skew <= 0 {
            errs.push(
                FieldError::invalid(&p.child("maxSkew"), c.max_skew, "must be greater than zero")
                    .with_origin("scheduling/topology-spread"),
            );
        }
        if c.topology_key.is_empty() {
            errs.push(
                FieldError::required(&p.child("topologyKey"), "can not be empty")
                    .with_origin("scheduling/topology-spread"),
            );
        }
        if !matches!(c.when_unsatisfiable.as_str(), "DoNotSchedule" | "ScheduleAnyway") {
            errs.push(
                FieldError::not_supported(
                    &p.child("whenUnsatisfiable"),
                    c.when_unsatisfiable.as_str(),
                    &["DoNotSchedule", "ScheduleAnyway"],
                )
                .with_origin("scheduling/topology-spread"),
            );
        }
        if let Some(dup) = constraints.get(i + 1..).and_then(|rest| {
            rest.iter()
                .find(|r| r.topology_key == c.topology_key && r.when_unsatisfiable == c.when_unsatisfiable)
        }) {
            errs.push(
                FieldError::duplicate(
                    &p.child("{topologyKey, whenUnsatisfiable}"),
                    format!("{{{}, {}}}", dup.topology_key, dup.when_unsatisfiable),
                )
                .with_origin("scheduling/topology-spread"),
            );
        }
        if let Some(min) = c.min_domains {
            if min <= 0 {
                errs.push(
                    FieldError::invalid(&p.child("minDomains"), min, "must be greater than zero")
                        .with_origin("scheduling/topology-spread"),
                );
            }
            if c.when_unsatisfiable != "DoNotSchedule" {
                errs.push(
                    FieldError::invalid(
                        &p.child("minDomains"),
                        min,
                        format!(
                            "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {}",
                            c.when_unsatisfiable
                        ),
                    )
                    .with_origin("scheduling/topology-spread"),
                );
            }
        }
        for (field, policy) in [
            ("nodeAffinityPolicy", &c.node_affinity_policy),
            ("nodeTaintsPolicy", &c.node_taints_policy),
        ] {
            if let Some(v) = policy
                && v != "Honor"
                && v != "Ignore"
            {
                errs.push(
                    FieldError::not_supported(&p.child(field), v.as_str(), &["Honor", "Ignore"])
                        .with_origin("scheduling/topology-spread"),
                );
            }
        }
        let keys = items(&c.match_label_keys);
        if !keys.is_empty() {
            let kp = p.child("matchLabelKeys");
            let (mut selector_keys_set, exprs) = selector_keys(c.label_selector.as_ref());
            selector_keys_set.extend(exprs);
            if c.label_selector.is_none() {
                errs.push(
                    FieldError::forbidden(&kp, "must not be specified when labelSelector is not set")
                        .with_origin("scheduling/match-label-keys"),
                );
            }
            for (j, k) in keys.iter().enumerate() {
                errs.extend(names::validate_label_name(k, &kp.index(j)));
                if selector_keys_set.contains(k.as_str()) {
                    errs.push(
                        FieldError::invalid(
                            &kp.index(j),
                            k.as_str(),
                            "exists in both matchLabelKeys and labelSelector",
                        )
                        .with_origin("scheduling/match-label-keys"),
                    );
                }
            }
        }
        errs.extend(validate_label_selector(
            c.label_selector.as_ref(),
            allow_invalid_label_selector,
            &p.child("labelSelector"),
        ));
    }
    errs
}

/// `validateRestartPolicy` (the Pod's).
pub(crate) fn validate_restart_policy(policy: &str, path: &Path) -> ErrorList {
    match policy {
        "Always" | "OnFailure" | "Never" => ErrorList::new(),
        "" => vec![FieldError::required(path, "").with_origin("spec/restart-policy")],
        other => vec![
            FieldError::not_supported(path, other, &["Always", "OnFailure", "Never"])
                .with_origin("spec/restart-policy"),
        ],
    }
}

/// `ValidatePreemptionPolicy`.
pub(crate) fn validate_preemption_policy(policy: &str, path: &Path) -> ErrorList {
    match policy {
        "PreemptLowerPriority" | "Never" => ErrorList::new(),
        "" => vec![FieldError::required(path, "").with_origin("spec/preemption-policy")],
        other => vec![
            FieldError::not_supported(path, other, &["PreemptLowerPriority", "Never"])
                .with_origin("spec/preemption-policy"),
        ],
    }
}

/// `validateDNSPolicy`.
pub(crate) fn validate_dns_policy(policy: &str, path: &Path) -> ErrorList {
    match policy {
        "ClusterFirstWithHostNet" | "ClusterFirst" | "Default" | "None" => ErrorList::new(),
        "" => vec![FieldError::required(path, "").with_origin("spec/dns-policy")],
        other => vec![
            FieldError::not_supported(
                path,
                other,
                &["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"],
            )
            .with_origin("spec/dns-policy"),
        ],
    }
}

/// `validatePodDNSConfig`; `relaxed_search` is `AllowRelaxedDNSSearchValidation` (gate
/// `RelaxedDNSSearchValidation`, or an old Pod already searching `.` or a name with `_`).
pub(crate) fn validate_pod_dns_config(
    config: Option<&PodDNSConfig>,
    policy: &str,
    relaxed_search: bool,
    strict_ip: bool,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    if policy == "None" {
        let Some(c) = config else {
            return vec![
                FieldError::required(path, "must provide `dnsConfig` when `dnsPolicy` is None")
                    .with_origin("spec/dns-config"),
            ];
        };
        if items(&c.nameservers).is_empty() {
            return vec![
                FieldError::required(
                    &path.child("nameservers"),
                    "must provide at least one DNS nameserver when `dnsPolicy` is None",
                )
                .with_origin("spec/dns-config"),
            ];
        }
    }
    let Some(c) = config else {
        return errs;
    };
    let nameservers = items(&c.nameservers);
    if nameservers.len() > MAX_DNS_NAMESERVERS {
        errs.push(
            FieldError::invalid(
                &path.child("nameservers"),
                BadValue::go(nameservers, &podmut_model::gojson::layout::SLICE_STRING),
                format!("must not have more than {MAX_DNS_NAMESERVERS} nameservers"),
            )
            .with_origin("spec/dns-config"),
        );
    }
    for (i, ns) in nameservers.iter().enumerate() {
        errs.extend(names::validate_ip(
            &path.child("nameservers").index(i),
            ns,
            strict_ip,
        ));
    }
    let searches = items(&c.searches);
    if searches.len() > MAX_DNS_SEARCH_PATHS {
        errs.push(
            FieldError::invalid(
                &path.child("searches"),
                BadValue::go(searches, &podmut_model::gojson::layout::SLICE_STRING),
                format!("must not have more than {MAX_DNS_SEARCH_PATHS} search paths"),
            )
            .with_origin("spec/dns-config"),
        );
    }
    if searches.join(" ").len() > MAX_DNS_SEARCH_LIST_CHARS {
        errs.push(
            FieldError::invalid(
                &path.child("searches"),
                BadValue::go(searches, &podmut_model::gojson::layout::SLICE_STRING),
                format!(
                    "must not have more than {MAX_DNS_SEARCH_LIST_CHARS} characters (including spaces) in the search list"
                ),
            )
            .with_origin("spec/dns-config"),
        );
    }
    for (i, s) in searches.iter().enumerate() {
        if relaxed_search && s == "." {
            continue;
        }
        let trimmed = s.strip_suffix('.').unwrap_or(s);
        let msgs = if relaxed_search {
            names::is_dns1123_subdomain_with_underscore(trimmed)
        } else {
            names::is_dns1123_subdomain(trimmed)
        };
        errs.extend(invalid_each(
            &path.child("searches").index(i),
            trimmed,
            msgs,
            "spec/dns-config",
        ));
    }
    for (i, o) in items(&c.options).iter().enumerate() {
        if opt_str(&o.name).is_empty() {
            errs.push(
                FieldError::required(&path.child("options").index(i), "must not be empty")
                    .with_origin("spec/dns-config"),
            );
        }
    }
    errs
}

/// `ValidateHostAliases`.
pub(crate) fn validate_host_aliases(aliases: &[HostAlias], path: &Path, strict_ip: bool) -> ErrorList {
    let mut errs = ErrorList::new();
    for (i, a) in aliases.iter().enumerate() {
        errs.extend(names::validate_ip(&path.index(i).child("ip"), &a.ip, strict_ip));
        for (j, h) in items(&a.hostnames).iter().enumerate() {
            errs.extend(names::validate_dns1123_subdomain(
                h,
                &path.index(i).child("hostnames").index(j),
            ));
        }
    }
    errs
}

/// `validateReadinessGates`.
pub(crate) fn validate_readiness_gates(gates: &[PodReadinessGate], path: &Path) -> ErrorList {
    gates
        .iter()
        .enumerate()
        .flat_map(|(i, g)| {
            names::validate_qualified_name(&g.condition_type, &path.index(i).child("conditionType"))
        })
        .collect()
}

/// `validateNodeSelectorMutation`: a gated Pod may only add to `spec.nodeSelector`.
pub(crate) fn validate_node_selector_mutation(
    path: &Path,
    new: Option<&BTreeMap<String, String>>,
    old: Option<&BTreeMap<String, String>>,
) -> ErrorList {
    for (k, v) in old.into_iter().flatten() {
        if new.and_then(|n| n.get(k)) != Some(v) {
            return vec![
                FieldError::invalid(
                    path,
                    BadValue::go(&new, &podmut_model::gojson::layout::MAP_STRING),
                    "only additions to spec.nodeSelector are allowed (no mutations or deletions)",
                )
                .with_origin("update/gated-node-selector"),
            ];
        }
    }
    ErrorList::new()
}

/// `validateNodeSelectorTermHasOnlyAdditions`.
fn term_has_only_additions(new: &NodeSelectorTerm, old: &NodeSelectorTerm) -> bool {
    let (oe, of) = (items(&old.match_expressions), items(&old.match_fields));
    let (ne, nf) = (items(&new.match_expressions), items(&new.match_fields));
    if oe.is_empty() && of.is_empty() && (!ne.is_empty() || !nf.is_empty()) {
        return false;
    }
    let prefix_kept = |n: &[NodeSelectorRequirement], o: &[NodeSelectorRequirement]| {
        o.is_empty()
            || n.get(..o.len())
                .is_some_and(|head| semantic_eq(&head.to_vec(), &o.to_vec()))
    };
    prefix_kept(ne, oe) && prefix_kept(nf, of)
}

/// `validateNodeAffinityMutation`: a gated Pod keeps the number of required node selector terms
/// and each term may only gain matchExpressions/matchFields.
pub(crate) fn validate_node_affinity_mutation(
    path: &Path,
    new: Option<&NodeAffinity>,
    old: Option<&NodeAffinity>,
) -> ErrorList {
    let Some(old_required) = old.and_then(|o| o.required_during_scheduling_ignored_during_execution.as_ref())
    else {
        return ErrorList::new();
    };
    let old_terms = &old_required.node_selector_terms;
    let empty = Vec::new();
    let new_required = new.and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref());
    let new_terms = new_required.map_or(&empty, |r| &r.node_selector_terms);
    // Upstream's `newTerms` is nil (printed `null`) when the new Pod has no required affinity.
    let new_terms_value = BadValue::go(
        &new_required.map(|r| &r.node_selector_terms),
        &podmut_model::gojson::layout::SLICE_STRUCT_CORE_NODE_SELECTOR_TERM,
    );
    let terms_path = path
        .child("requiredDuringSchedulingIgnoredDuringExecution")
        .child("nodeSelectorTerms");
    if !old_terms.is_empty() && old_terms.len() != new_terms.len() {
        return vec![
            FieldError::invalid(
                &terms_path,
                new_terms_value,
                "no additions/deletions to non-empty NodeSelectorTerms list are allowed",
            )
            .with_origin("update/gated-node-affinity"),
        ];
    }
    let mut errs = ErrorList::new();
    for (i, (o, n)) in old_terms.iter().zip(new_terms).enumerate() {
        if !term_has_only_additions(n, o) {
            errs.push(
                FieldError::invalid(
                    &terms_path.index(i),
                    BadValue::go(n, &podmut_model::gojson::layout::STRUCT_CORE_NODE_SELECTOR_TERM),
                    "only additions are allowed (no mutations or deletions)",
                )
                .with_origin("update/gated-node-affinity"),
            );
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pod::util::{Want, summary, wanted};
    use podmut_model::field::ErrorType;

    fn tol(yaml: &str) -> Vec<Toleration> {
        serde_yaml_ng::from_str(yaml).unwrap()
    }

    #[test]
    fn toleration_cases() {
        let p = Path::new("spec").child("tolerations");
        let cases: &[(&str, &str, &[Want])] = &[
            ("valid equal", "[{key: a, value: b, effect: NoSchedule}]", &[]),
            ("valid exists all", "[{operator: Exists}]", &[]),
            (
                "empty key needs Exists",
                "[{value: b}]",
                &[(
                    ErrorType::Invalid,
                    "spec.tolerations[0].operator",
                    "scheduling/toleration-operator",
                )],
            ),
            (
                "seconds need NoExecute",
                "[{key: a, operator: Exists, effect: NoSchedule, tolerationSeconds: 5}]",
                &[(
                    ErrorType::Invalid,
                    "spec.tolerations[0].effect",
                    "scheduling/toleration-seconds",
                )],
            ),
            (
                "Exists with a value",
                "[{key: a, operator: Exists, value: b}]",
                &[(
                    ErrorType::Invalid,
                    "spec.tolerations[0].operator",
                    "scheduling/toleration-value",
                )],
            ),
            (
                "unknown operator",
                "[{key: a, operator: Gt}]",
                &[(
                    ErrorType::NotSupported,
                    "spec.tolerations[0].operator",
                    "scheduling/toleration-operator",
                )],
            ),
            (
                "unknown effect",
                "[{key: a, effect: Bad}]",
                &[(
                    ErrorType::NotSupported,
                    "spec.tolerations[0].effect",
                    "scheduling/toleration-effect",
                )],
            ),
            (
                "bad key",
                "[{key: 'a b'}]",
                &[(ErrorType::Invalid, "spec.tolerations[0].key", "format/label-key")],
            ),
        ];
        for (name, yaml, want) in cases {
            let want = wanted(want);
            assert_eq!(summary(&validate_tolerations(&tol(yaml), &p)), want, "{name}");
        }
    }

    #[test]
    fn tolerations_only_added() {
        let p = Path::new("spec").child("tolerations");
        let old = tol("[{key: k, value: v, operator: Equal, effect: NoExecute, tolerationSeconds: 10}]");
        let seconds_changed =
            tol("[{key: k, value: v, operator: Equal, effect: NoExecute, tolerationSeconds: 20}]");
        assert!(validate_only_added_tolerations(&seconds_changed, &old, &p).is_empty());
        let value_changed = tol("[{key: k, value: w, operator: Equal, effect: NoExecute}]");
        assert_eq!(
            summary(&validate_only_added_tolerations(&value_changed, &old, &p)),
            vec![(
                ErrorType::Forbidden,
                "spec.tolerations".to_owned(),
                "update/tolerations-only-added"
            )]
        );
    }

    #[test]
    fn gates() {
        let p = Path::new("spec").child("schedulingGates");
        let g = |names: &[&str]| -> Vec<PodSchedulingGate> {
            names
                .iter()
                .map(|n| PodSchedulingGate {
                    name: (*n).to_owned(),
                })
                .collect()
        };
        assert_eq!(
            summary(&validate_scheduling_gates(&g(&["a", "a", "b c"]), &p)),
            vec![
                (
                    ErrorType::Duplicate,
                    "spec.schedulingGates[1]".to_owned(),
                    "scheduling/gate-duplicate"
                ),
                (
                    ErrorType::Invalid,
                    "spec.schedulingGates[2]".to_owned(),
                    "scheduling/gate-name"
                ),
            ]
        );
        assert!(validate_only_deleted_scheduling_gates(&g(&["a"]), &g(&["a", "b"]), &p).is_empty());
        assert_eq!(
            summary(&validate_only_deleted_scheduling_gates(
                &g(&["a", "z"]),
                &g(&["a"]),
                &p
            )),
            vec![(
                ErrorType::Forbidden,
                "spec.schedulingGates[1].name".to_owned(),
                "update/scheduling-gates-only-deleted"
            )]
        );
    }

    #[test]
    fn dns_config() {
        let p = Path::new("spec").child("dnsConfig");
        let c: PodDNSConfig = serde_yaml_ng::from_str("{searches: [custom]}").unwrap();
        assert_eq!(
            summary(&validate_pod_dns_config(Some(&c), "None", true, false, &p)),
            vec![(
                ErrorType::Required,
                "spec.dnsConfig.nameservers".to_owned(),
                "spec/dns-config"
            )]
        );
        let c: PodDNSConfig =
            serde_yaml_ng::from_str("{nameservers: [invalid], searches: ['custom?', '.', 'a_b.']}").unwrap();
        assert_eq!(
            summary(&validate_pod_dns_config(
                Some(&c),
                "ClusterFirst",
                true,
                false,
                &p
            )),
            vec![
                (
                    ErrorType::Invalid,
                    "spec.dnsConfig.nameservers[0]".to_owned(),
                    "format/ip"
                ),
                (
                    ErrorType::Invalid,
                    "spec.dnsConfig.searches[0]".to_owned(),
                    "spec/dns-config"
                ),
            ]
        );
    }
}
