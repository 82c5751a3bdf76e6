//! Resource rules: container and pod-level `resources` (`validateResourceRequirements`,
//! `ValidateResourceQuantityValue`, resource names, hugepages, claim references), the Pod's
//! `resourceClaims`, `resizePolicy`, `overhead`, and the pod-level consistency rules.
//!
//! Upstream: `pkg/apis/core/validation/validation.go`, `pkg/apis/core/helper/helpers.go`,
//! `k8s.io/component-helpers/resource` (`AggregateContainerRequests`, pod-level resource names,
//! newest generation: cpu, memory and hugepages).
//!
//! A quantity the API server could not even decode (`1.5.5Gi`) is reported as `Invalid` at its
//! key with the parser's message (origin `resources/quantity-format`); the API server itself
//! rejects such a document before validation with a decoding error.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{
    ContainerResizePolicy, PodResourceClaim, PodSpec, ResourceClaim, ResourceRequirements,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use crate::pod::meta::IS_NEGATIVE;
use crate::pod::names::{self, invalid_each};
use crate::pod::options::PodValidationOptions;
use crate::pod::util::{items, opt_str};
use podmut_model::field::{BadValue, ErrorList, FieldError, Path};
use podmut_model::quantity::Quantity;
use podmut_model::resource_helper::{
    HUGEPAGES_PREFIX, aggregate_container_requests, is_hugepage, is_supported_pod_level_resource, limits_of,
    requests_of,
};

const STANDARD_RESOURCES: &[&str] = &[
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "storage",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers",
];

const INTEGER_RESOURCES: &[&str] = &[
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "services.nodeports",
    "services.loadbalancers",
];

/// `helper.IsNativeResource`: unprefixed or in `*kubernetes.io/`.
pub(crate) fn is_native(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// `helper.IsExtendedResourceName`.
pub(crate) fn is_extended(name: &str) -> bool {
    if is_native(name) || name.starts_with("requests.") {
        return false;
    }
    names::is_qualified_name(&format!("requests.{name}")).is_empty()
}

/// `helper.IsOvercommitAllowed`: native and not hugepages.
pub(crate) fn is_overcommit_allowed(name: &str) -> bool {
    is_native(name) && !is_hugepage(name)
}

fn is_standard_resource(name: &str) -> bool {
    STANDARD_RESOURCES.contains(&name) || is_hugepage(name) || name.starts_with("requests.hugepages-")
}

fn is_standard_container_resource(name: &str) -> bool {
    matches!(name, "cpu" | "memory" | "ephemeral-storage") || is_hugepage(name)
}

fn is_integer_resource(name: &str) -> bool {
    INTEGER_RESOURCES.contains(&name) || is_extended(name)
}

/// `validateResourceName`.
fn validate_resource_name(name: &str, path: &Path) -> ErrorList {
    let errs = invalid_each(path, name, names::is_qualified_name(name), "resources/name");
    if !errs.is_empty() {
        return errs;
    }
    if !name.contains('/') && !is_standard_resource(name) {
        return vec![
            FieldError::invalid(path, name, "must be a standard resource type or fully qualified")
                .with_origin("resources/name"),
        ];
    }
    errs
}

/// `validateContainerResourceName`.
fn validate_container_resource_name(name: &str, path: &Path) -> ErrorList {
    let mut errs = validate_resource_name(name, path);
    if !name.contains('/') {
        if !is_standard_container_resource(name) {
            errs.push(
                FieldError::invalid(path, name, "must be a standard resource for containers")
                    .with_origin("resources/name"),
            );
        }
    } else if !is_native(name) && !is_extended(name) {
        errs.push(
            FieldError::invalid(path, name, "doesn't follow extended resource name standard")
                .with_origin("resources/name"),
        );
    }
    errs
}

/// `validatePodResourceName`.
fn validate_pod_resource_name(name: &str, path: &Path) -> ErrorList {
    let errs = validate_resource_name(name, path);
    if !errs.is_empty() {
        return errs;
    }
    if !is_supported_pod_level_resource(name) {
        return vec![
            FieldError::not_supported(path, name, &["cpu", "hugepages-", "memory"])
                .with_origin("resources/pod-level-name"),
        ];
    }
    errs
}

/// `ValidateResourceQuantityValue`: non-negative; whole numbers for integer resources.
fn validate_quantity_value(name: &str, q: &Quantity, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    if q.sign() < 0 {
        errs.push(
            FieldError::invalid(path, q.to_string(), IS_NEGATIVE).with_origin("resources/non-negative"),
        );
    }
    if is_integer_resource(name) && q.milli_value() % 1000 != 0 {
        errs.push(
            FieldError::invalid(path, q.to_string(), "must be an integer").with_origin("resources/integer"),
        );
    }
    errs
}

/// `helper.IsHugePageResourceValueDivisible`.
pub(crate) fn hugepage_value_divisible(name: &str, q: &Quantity) -> bool {
    let Some(size) = name.strip_prefix(HUGEPAGES_PREFIX) else {
        return false;
    };
    let Ok(page) = Quantity::parse(size) else {
        return false;
    };
    if page.sign() <= 0 || page.milli_value() % 1000 != 0 {
        return false;
    }
    let page = page.value();
    page != 0 && q.value() % page == 0
}

/// Parse every quantity of a resource list; report the unparseable ones.
fn parse_checked<'a>(
    list: Option<&'a BTreeMap<String, K8sQuantity>>,
    path: &Path,
    errs: &mut ErrorList,
) -> Vec<(&'a str, Quantity)> {
    let mut out = Vec::with_capacity(list.map_or(0, BTreeMap::len));
    for (k, v) in list.into_iter().flatten() {
        match Quantity::from_k8s(v) {
            Ok(q) => out.push((k.as_str(), q)),
            Err(e) => errs.push(
                FieldError::invalid(&path.key(k), v.0.as_str(), e.to_string())
                    .with_origin("resources/quantity-format"),
            ),
        }
    }
    out
}

/// `cpu` or `memory` with a non-negative quantity: the name passes both levels' name rules and the
/// value `ValidateResourceQuantityValue` (neither is an integer resource), so the rules need not
/// run nor build the entry's path (the common case of every container; see the test
/// `the_cpu_and_memory_shortcut_agrees_with_the_rules`).
fn valid_cpu_or_memory(name: &str, q: &Quantity) -> bool {
    matches!(name, "cpu" | "memory") && q.sign() >= 0
}

/// Which resource-name rule applies.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Container,
    Pod,
}

/// `validateResourceRequirements`.
fn validate_requirements(
    r: &ResourceRequirements,
    level: Level,
    claim_names: &BTreeSet<String>,
    path: &Path,
    opts: &PodValidationOptions,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let lim_path = path.child("limits");
    let req_path = path.child("requests");
    let name_check = |name: &str, p: &Path| match level {
        Level::Container => validate_container_resource_name(name, p),
        Level::Pod => validate_pod_resource_name(name, p),
    };
    let hugepage_check = |name: &str, q: &Quantity, p: &Path| -> ErrorList {
        if is_hugepage(name)
            && !opts.allow_indivisible_huge_pages_values
            && !hugepage_value_divisible(name, q)
        {
            vec![
                FieldError::invalid(
                    p,
                    q.to_string(),
                    format!("{q} is not positive integer multiple of {name}"),
                )
                .with_origin("resources/hugepages-multiple"),
            ]
        } else {
            ErrorList::new()
        }
    };
    let limits = parse_checked(r.limits.as_ref(), &lim_path, &mut errs);
    let (mut lim_cpu_mem, mut req_cpu_mem, mut lim_huge, mut req_huge) = (false, false, false, false);
    for (name, q) in &limits {
        if !valid_cpu_or_memory(name, q) {
            let p = lim_path.key(name);
            errs.extend(name_check(name, &p));
            errs.extend(validate_quantity_value(name, q, &p));
            if is_hugepage(name) {
                lim_huge = true;
                errs.extend(hugepage_check(name, q, &p));
            }
        }
        lim_cpu_mem |= *name == "cpu" || *name == "memory";
    }
    let limit_of = |name: &str| limits.iter().find(|(n, _)| *n == name).map(|(_, q)| q.clone());
    let requests = parse_checked(r.requests.as_ref(), &req_path, &mut errs);
    for (name, q) in &requests {
        if !valid_cpu_or_memory(name, q) {
            let p = req_path.key(name);
            errs.extend(name_check(name, &p));
            errs.extend(validate_quantity_value(name, q, &p));
        }
        match limit_of(name) {
            Some(limit) => {
                if *q != limit && !is_overcommit_allowed(name) {
                    errs.push(
                        FieldError::invalid(
                            &req_path,
                            q.to_string(),
                            format!("must be equal to {name} limit of {limit}"),
                        )
                        .with_origin("resources/request-equals-limit"),
                    );
                } else if *q > limit {
                    errs.push(
                        FieldError::invalid(
                            &req_path,
                            q.to_string(),
                            format!("must be less than or equal to {name} limit of {limit}"),
                        )
                        .with_origin("resources/request-le-limit"),
                    );
                }
            }
            None => {
                if !is_overcommit_allowed(name) {
                    errs.push(
                        FieldError::required(&lim_path, "Limit must be set for non overcommitable resources")
                            .with_origin("resources/limit-required"),
                    );
                }
            }
        }
        if is_hugepage(name) {
            req_huge = true;
            errs.extend(hugepage_check(name, q, &req_path.key(name)));
        }
        req_cpu_mem |= *name == "cpu" || *name == "memory";
    }
    if !lim_cpu_mem && !req_cpu_mem && (req_huge || lim_huge) {
        errs.push(
            FieldError::forbidden(path, "HugePages require cpu or memory")
                .with_origin("resources/hugepages-need-cpu-memory"),
        );
    }
    errs.extend(validate_resource_claim_names(
        items(&r.claims),
        claim_names,
        &path.child("claims"),
    ));
    errs
}

/// `ValidateContainerResourceRequirements`.
pub(crate) fn validate_container_resources(
    r: Option<&ResourceRequirements>,
    claim_names: &BTreeSet<String>,
    path: &Path,
    opts: &PodValidationOptions,
) -> ErrorList {
    r.map(|r| validate_requirements(r, Level::Container, claim_names, path, opts))
        .unwrap_or_default()
}

/// `validateOverhead`: the overhead list validated as container limits.
pub(crate) fn validate_overhead(
    overhead: &BTreeMap<String, K8sQuantity>,
    path: &Path,
    opts: &PodValidationOptions,
) -> ErrorList {
    let r = ResourceRequirements {
        limits: Some(overhead.clone()),
        ..Default::default()
    };
    validate_requirements(&r, Level::Container, &BTreeSet::new(), path, opts)
}

/// `validateResourceClaimNames`: each name set, unique (per claim and per request) and one of
/// `spec.resourceClaims`.
fn validate_resource_claim_names(
    claims: &[ResourceClaim],
    pod_claims: &BTreeSet<String>,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut names_seen: BTreeSet<String> = BTreeSet::new();
    for (i, c) in claims.iter().enumerate() {
        let p = path.index(i);
        if c.name.is_empty() {
            errs.push(FieldError::required(&p, "").with_origin("resources/claim-name"));
            continue;
        }
        if names_seen.contains(&c.name) {
            errs.push(FieldError::duplicate(&p, c.name.as_str()).with_origin("resources/claim-duplicate"));
        } else {
            let request = opt_str(&c.request);
            let mut key = c.name.clone();
            if !request.is_empty() {
                errs.extend(names::validate_dns1123_label(request, &p.child("request")));
                key = format!("{key}/{request}");
            }
            if names_seen.contains(&key) {
                errs.push(FieldError::duplicate(&p, key.as_str()).with_origin("resources/claim-duplicate"));
            } else if request.is_empty() {
                for existing in &names_seen {
                    if existing.split_once('/').is_some_and(|(n, _)| n == c.name) {
                        errs.push(
                            FieldError::duplicate(&p, c.name.as_str())
                                .with_origin("resources/claim-duplicate"),
                        );
                    }
                }
            }
            names_seen.insert(key);
        }
        if !pod_claims.contains(&c.name) {
            let mut e = FieldError::not_found(&p, c.name.as_str()).with_origin("resources/claim-not-found");
            e.detail = if pod_claims.is_empty() {
                "must be one of the names in pod.spec.resourceClaims which is empty".to_owned()
            } else {
                let list: Vec<&str> = pod_claims.iter().map(String::as_str).collect();
                format!(
                    "must be one of the names in pod.spec.resourceClaims: {}",
                    list.join(", ")
                )
            };
            errs.push(e);
        }
    }
    errs
}

/// `gatherPodResourceClaimNames`.
pub(crate) fn pod_claim_names(claims: &[PodResourceClaim]) -> BTreeSet<String> {
    podmut_model::order::set_from(
        claims
            .iter()
            .filter(|c| !c.name.is_empty())
            .map(|c| c.name.clone()),
    )
}

/// `validatePodResourceClaims`.
pub(crate) fn validate_pod_resource_claims(claims: &[PodResourceClaim], path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut seen = BTreeSet::new();
    for (i, c) in claims.iter().enumerate() {
        let p = path.index(i);
        if c.name.is_empty() {
            errs.push(FieldError::required(&p.child("name"), "").with_origin("resources/pod-claim"));
        } else if seen.contains(c.name.as_str()) {
            errs.push(
                FieldError::duplicate(&p.child("name"), c.name.as_str()).with_origin("resources/pod-claim"),
            );
        } else {
            errs.extend(names::validate_dns1123_label(&c.name, &p.child("name")));
            seen.insert(c.name.as_str());
        }
        match (&c.resource_claim_name, &c.resource_claim_template_name) {
            (Some(_), Some(_)) => errs.push(
                FieldError::invalid(
                    &p,
                    BadValue::go(c, &podmut_model::gojson::layout::STRUCT_CORE_POD_RESOURCE_CLAIM),
                    "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified",
                )
                .with_origin("resources/pod-claim"),
            ),
            (None, None) => errs.push(
                FieldError::invalid(
                    &p,
                    BadValue::go(c, &podmut_model::gojson::layout::STRUCT_CORE_POD_RESOURCE_CLAIM),
                    "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`",
                )
                .with_origin("resources/pod-claim"),
            ),
            _ => {}
        }
        for (field, value) in [
            ("resourceClaimName", &c.resource_claim_name),
            ("resourceClaimTemplateName", &c.resource_claim_template_name),
        ] {
            if let Some(v) = value {
                errs.extend(invalid_each(
                    &p.child(field),
                    v,
                    names::name_is_dns_subdomain(v, false),
                    "resources/pod-claim",
                ));
            }
        }
    }
    errs
}

/// `validateResizePolicy`: cpu/memory only, once each, NotRequired/RestartContainer; a Pod with
/// `restartPolicy: Never` only allows `NotRequired`.
pub(crate) fn validate_resize_policy(
    policies: &[ContainerResizePolicy],
    path: &Path,
    pod_restart_policy: &str,
    release: u8,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut seen = BTreeSet::new();
    for (i, p) in policies.iter().enumerate() {
        if !seen.insert(p.resource_name.as_str()) {
            errs.push(
                FieldError::duplicate(&path.index(i), p.resource_name.as_str())
                    .with_origin("resources/resize-policy"),
            );
        }
        errs.extend(resize_policy_value(path, &p.resource_name, &["cpu", "memory"]));
        errs.extend(resize_policy_value(
            path,
            &p.restart_policy,
            &["NotRequired", "RestartContainer"],
        ));
        if pod_restart_policy == "Never" && p.restart_policy != "NotRequired" {
            errs.push(
                FieldError::invalid(
                    path,
                    p.restart_policy.as_str(),
                    if release >= 36 {
                        "must be 'NotRequired' when pod `restartPolicy` is 'Never'"
                    } else {
                        "must be 'NotRequired' when `restartPolicy` is 'Never'"
                    },
                )
                .with_origin("resources/resize-policy-restart-never"),
            );
        }
    }
    errs
}

/// One enum field of a resize policy (`resourceName`, `restartPolicy`): required, then one of
/// `allowed`. Upstream reports both at the list's path, not the item's.
fn resize_policy_value(path: &Path, value: &str, allowed: &[&str]) -> Option<FieldError> {
    if allowed.contains(&value) {
        return None;
    }
    let err = if value.is_empty() {
        FieldError::required(path, "")
    } else {
        FieldError::not_supported(path, value, allowed)
    };
    Some(err.with_origin("resources/resize-policy"))
}

/// `validatePodResources` (gate `PodLevelResources`): none on a Windows Pod (and then nothing
/// else about them), no claims at pod level, valid names and quantities, pod requests ≥
/// aggregated container requests, container limits ≤ pod limits.
pub(crate) fn validate_pod_resources(
    spec: &PodSpec,
    claim_names: &BTreeSet<String>,
    path: &Path,
    opts: &PodValidationOptions,
) -> ErrorList {
    let Some(r) = &spec.resources else {
        return ErrorList::new();
    };
    if spec.os.as_ref().is_some_and(|os| os.name == "windows") {
        return vec![
            FieldError::forbidden(path, "may not be set for a windows pod")
                .with_origin("resources/pod-level-windows"),
        ];
    }
    let mut errs = ErrorList::new();
    if r.claims.is_some() {
        errs.push(
            FieldError::forbidden(
                &path.child("claims"),
                "claims may not be set for Resources at pod-level",
            )
            .with_origin("resources/pod-level-claims"),
        );
    }
    errs.extend(validate_requirements(r, Level::Pod, claim_names, path, opts));
    // validatePodResourceConsistency
    let pod_requests = requests_of(Some(r));
    let req_path = path.child("requests");
    for (name, ctr) in aggregate_container_requests(spec) {
        // Upstream skips resources without a (non-zero) pod-level request.
        let Some(pod) = pod_requests.get(&name).cloned().filter(|q| *q != Quantity::ZERO) else {
            continue;
        };
        if ctr > pod {
            errs.push(
                FieldError::invalid(
                    &req_path.key(&name),
                    pod.to_string(),
                    format!("must be greater than or equal to aggregate container requests of {ctr}"),
                )
                .with_origin("resources/pod-level-requests"),
            );
        }
    }
    let pod_limits = limits_of(Some(r));
    for (i, c) in spec.containers.iter().enumerate() {
        for (name, limit) in limits_of(c.resources.as_ref()) {
            if let Some(pod) = pod_limits.get(&name)
                && limit > *pod
            {
                errs.push(
                    FieldError::invalid(
                        &path.child("containers").index(i).key(&name).child("limits"),
                        limit.to_string(),
                        format!("must be less than or equal to pod limits of {pod}"),
                    )
                    .with_origin("resources/pod-level-limits"),
                );
            }
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pod::util::{Want, summary, wanted};
    use podmut_model::field::ErrorType;

    #[test]
    fn the_cpu_and_memory_shortcut_agrees_with_the_rules() {
        let path = Path::new("resources");
        for name in ["cpu", "memory"] {
            for text in ["0", "1", "250m", "1.5", "512Mi", "1e3", "-1", "-250m"] {
                let q = Quantity::parse(text).unwrap();
                let rules_pass = validate_container_resource_name(name, &path).is_empty()
                    && validate_pod_resource_name(name, &path).is_empty()
                    && validate_quantity_value(name, &q, &path).is_empty()
                    && !is_hugepage(name);
                assert_eq!(valid_cpu_or_memory(name, &q), rules_pass, "{name}: {text}");
            }
        }
        let one = Quantity::parse("1").unwrap();
        assert!(!valid_cpu_or_memory("ephemeral-storage", &one));
        assert!(!valid_cpu_or_memory("hugepages-2Mi", &one));
    }

    fn req(yaml: &str) -> ResourceRequirements {
        serde_yaml_ng::from_str(yaml).unwrap()
    }

    #[test]
    fn container_resource_cases() {
        let p = Path::new("containers").index(0).child("resources");
        let opts = PodValidationOptions::default();
        let claims: BTreeSet<String> = ["db".to_owned()].into();
        let cases: &[(&str, &str, &[Want])] = &[
            (
                "valid",
                "{limits: {cpu: '10', memory: 10G, my.org/resource: '10'}}",
                &[],
            ),
            (
                "invalid compute resource (TestValidateContainers)",
                "{limits: {disk: 10G}}",
                &[
                    (
                        ErrorType::Invalid,
                        "containers[0].resources.limits[disk]",
                        "resources/name",
                    ),
                    (
                        ErrorType::Invalid,
                        "containers[0].resources.limits[disk]",
                        "resources/name",
                    ),
                ],
            ),
            (
                "negative cpu",
                "{limits: {cpu: '-10'}}",
                &[(
                    ErrorType::Invalid,
                    "containers[0].resources.limits[cpu]",
                    "resources/non-negative",
                )],
            ),
            (
                "request above limit",
                "{limits: {cpu: '5'}, requests: {cpu: '6'}}",
                &[(
                    ErrorType::Invalid,
                    "containers[0].resources.requests",
                    "resources/request-le-limit",
                )],
            ),
            (
                "extended request without limit",
                "{requests: {example.com/a: '2'}}",
                &[(
                    ErrorType::Required,
                    "containers[0].resources.limits",
                    "resources/limit-required",
                )],
            ),
            (
                "extended request differs from limit",
                "{requests: {example.com/a: '2'}, limits: {example.com/a: '1'}}",
                &[(
                    ErrorType::Invalid,
                    "containers[0].resources.requests",
                    "resources/request-equals-limit",
                )],
            ),
            (
                "fractional extended resource",
                "{requests: {example.com/a: 500m}, limits: {example.com/a: 500m}}",
                &[
                    (
                        ErrorType::Invalid,
                        "containers[0].resources.limits[example.com/a]",
                        "resources/integer",
                    ),
                    (
                        ErrorType::Invalid,
                        "containers[0].resources.requests[example.com/a]",
                        "resources/integer",
                    ),
                ],
            ),
            (
                "hugepages alone",
                "{limits: {hugepages-2Mi: 2Mi}, requests: {hugepages-2Mi: 2Mi}}",
                &[(
                    ErrorType::Forbidden,
                    "containers[0].resources",
                    "resources/hugepages-need-cpu-memory",
                )],
            ),
            (
                "hugepages not a multiple",
                "{limits: {hugepages-2Mi: 3Mi, cpu: '1'}, requests: {hugepages-2Mi: 3Mi}}",
                &[
                    (
                        ErrorType::Invalid,
                        "containers[0].resources.limits[hugepages-2Mi]",
                        "resources/hugepages-multiple",
                    ),
                    (
                        ErrorType::Invalid,
                        "containers[0].resources.requests[hugepages-2Mi]",
                        "resources/hugepages-multiple",
                    ),
                ],
            ),
            (
                "unknown claim",
                "{claims: [{name: db}, {name: other}]}",
                &[(
                    ErrorType::NotFound,
                    "containers[0].resources.claims[1]",
                    "resources/claim-not-found",
                )],
            ),
            (
                "bad quantity",
                "{limits: {cpu: 1.5.5}}",
                &[(
                    ErrorType::Invalid,
                    "containers[0].resources.limits[cpu]",
                    "resources/quantity-format",
                )],
            ),
        ];
        for (name, yaml, want) in cases {
            let got = summary(&validate_container_resources(
                Some(&req(yaml)),
                &claims,
                &p,
                &opts,
            ));
            let want = wanted(want);
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn resize_policy_cases() {
        let p = Path::new("c").child("resizePolicy");
        let pol = |y: &str| -> Vec<ContainerResizePolicy> { serde_yaml_ng::from_str(y).unwrap() };
        assert!(
            validate_resize_policy(
                &pol("[{resourceName: cpu, restartPolicy: NotRequired}]"),
                &p,
                "Always",
                37
            )
            .is_empty()
        );
        let e = validate_resize_policy(
            &pol("[{resourceName: cpu, restartPolicy: RestartNotRequired}]"),
            &p,
            "Always",
            37,
        );
        assert_eq!(
            (e[0].error_type, e[0].field.to_string()),
            (ErrorType::NotSupported, "c.resizePolicy".to_owned())
        );
        let e = validate_resize_policy(
            &pol(
                "[{resourceName: cpu, restartPolicy: NotRequired}, {resourceName: cpu, restartPolicy: NotRequired}]",
            ),
            &p,
            "Always",
            37,
        );
        assert_eq!(
            (e[0].error_type, e[0].field.to_string()),
            (ErrorType::Duplicate, "c.resizePolicy[1]".to_owned())
        );
        let e = validate_resize_policy(
            &pol("[{resourceName: memory, restartPolicy: RestartContainer}]"),
            &p,
            "Never",
            37,
        );
        assert_eq!(e[0].origin, "resources/resize-policy-restart-never");
    }
}
