//! `pods/status`: what a status update (normally the kubelet's) may change, `ValidatePodStatusUpdate`.
//!
//! Upstream: `pkg/apis/core/validation/validation.go` (`ValidatePodStatusUpdate`,
//! `validatePodConditions`, the state transitions of [`transitions`],
//! `validatePodResourceClaimStatuses`, `validatePodIPs`, `validateHostIPs`,
//! `validateContainerStatusUsers`, `validateContainerStatusAllocatedResourcesStatus`,
//! `validateContainerStatusNoAllocatedResourcesStatus`), `pkg/registry/core/pod/strategy.go`
//! (`podStatusStrategy`: `PrepareForUpdate`, `WarningsOnUpdate`), `pkg/api/pod/util.go`
//! (`dropDisabledPodStatusFields`) and `pkg/apis/core/v1/conversion.go`
//! (`Convert_v1_PodStatus_To_core_PodStatus`: `podIP` and `podIPs`).
//!
//! The status strategy ignores spec changes: [`prepare_update`] takes the spec (and the deletion
//! timestamp and owner references) from the stored Pod, backfills an empty `status.qosClass` and
//! cleared `observedGeneration`s, and drops the status fields of disabled gates, as the API server
//! does; like the API server it says nothing about what it ignored.

mod prepare;
mod transitions;

use std::collections::BTreeSet;
use std::net::IpAddr;

use k8s_openapi::api::core::v1::{Container, ContainerStatus, Pod, PodCondition, PodSpec, PodStatus};

use crate::pod::names::{is_dns1123_subdomain, is_ipv6, is_qualified_name, parse_ip_sloppy};
use crate::pod::util::items;
use crate::pod::{
    PodValidationOptions, validate_object_meta_update, validate_pod_specific_annotation_updates,
};
use podmut_model::field::{BadValue, ErrorList, FieldError, Path};
use podmut_model::gojson::go_quote;
use podmut_model::podutil::{is_windows, spec as spec_of};
use podmut_model::settings::{Gate, Settings};
pub(crate) use prepare::prepare_update;
use transitions::Transitions;

/// `ValidatePodStatusUpdate(new, old, opts)`: the metadata update and the whole Pod-annotation
/// validation (`ValidatePodSpecificAnnotationUpdates`, which ends with
/// `ValidatePodSpecificAnnotations` of the new Pod), then the status rules.
///
/// Call it on the Pod [`prepare_update`] returns, as the API server does.
pub(crate) fn validate_pod_status_update(new: &Pod, old: &Pod, settings: &Settings) -> ErrorList {
    let opts = PodValidationOptions::for_update(new, old, settings);
    let meta = Path::new("metadata");
    let mut errs = validate_object_meta_update(&new.metadata, &old.metadata, &meta, &opts);
    errs.extend(validate_pod_specific_annotation_updates(
        new,
        old,
        &meta.child("annotations"),
        &opts,
    ));
    let default_status = PodStatus::default();
    let ns = new.status.as_ref().unwrap_or(&default_status);
    let os = old.status.as_ref().unwrap_or(&default_status);
    let status = Path::new("status");
    errs.extend(validate_pod_conditions(
        ns.conditions.as_deref().unwrap_or_default(),
        &status.child("conditions"),
    ));
    errs.extend(node_and_nomination(new, old, settings));
    if let Some(g) = ns.observed_generation.filter(|g| *g < 0) {
        errs.push(
            FieldError::invalid(&status.child("observedGeneration"), g, NON_NEGATIVE)
                .with_origin("status/observed-generation"),
        );
    }
    // Pod QoS is immutable
    let new_qos = ns.qos_class.as_deref().unwrap_or("");
    if new_qos != os.qos_class.as_deref().unwrap_or("") {
        errs.push(
            FieldError::invalid(&status.child("qosClass"), new_qos, "field is immutable")
                .with_origin("status/qos-class-immutable"),
        );
    }
    errs.extend(state_transitions(ns, os, &spec_of(old), settings));
    errs.extend(validate_resource_claim_statuses(
        new,
        &status.child("resourceClaimStatuses"),
        opts.release,
    ));
    let strict_ip = settings.gate(Gate::StrictIPCIDRValidation);
    errs.extend(validate_pod_ips(ns, os, strict_ip));
    errs.extend(validate_host_ips(ns, os, strict_ip));
    errs.extend(container_status_rules(new, ns, &status, opts.release));
    errs
}

const NON_NEGATIVE: &str = "must be a non-negative integer";

/// The node name may not change here; a new nominated node name must be a node name, and (with
/// `ClearingNominatedNodeNameAfterBinding`) may not be set once the Pod is bound.
fn node_and_nomination(new: &Pod, old: &Pod, settings: &Settings) -> ErrorList {
    let status = Path::new("status");
    let mut errs = ErrorList::new();
    let old_node = spec_of(old).node_name.clone().unwrap_or_default();
    if spec_of(new).node_name.as_deref().unwrap_or("") != old_node {
        errs.push(
            FieldError::forbidden(&status.child("nodeName"), "may not be changed directly")
                .with_origin("status/node-name"),
        );
    }
    let nominated = |p: &Pod| {
        p.status
            .as_ref()
            .and_then(|s| s.nominated_node_name.clone())
            .unwrap_or_default()
    };
    let (new_nominated, old_nominated) = (nominated(new), nominated(old));
    if new_nominated == old_nominated || new_nominated.is_empty() {
        return errs;
    }
    for msg in is_dns1123_subdomain(&new_nominated) {
        errs.push(
            FieldError::invalid(&status.child("nominatedNodeName"), new_nominated.as_str(), msg)
                .with_origin("status/nominated-node-name"),
        );
    }
    if settings.gate(Gate::ClearingNominatedNodeNameAfterBinding) && !old_node.is_empty() {
        errs.push(
            FieldError::forbidden(
                &status.child("nominatedNodeName"),
                "may not be set on pods that are already bound to a node",
            )
            .with_origin("status/nominated-node-bound"),
        );
    }
    errs
}

/// `validatePodConditions`: no negative `observedGeneration`; custom (non-system) condition types
/// must be qualified names.
fn validate_pod_conditions(conditions: &[PodCondition], path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    for (i, c) in conditions.iter().enumerate() {
        if let Some(g) = c.observed_generation.filter(|g| *g < 0) {
            errs.push(
                FieldError::invalid(&path.index(i).child("observedGeneration"), g, NON_NEGATIVE)
                    .with_origin("status/observed-generation"),
            );
        }
        if matches!(c.type_.as_str(), "PodScheduled" | "Ready" | "Initialized") {
            continue;
        }
        for msg in is_qualified_name(&c.type_) {
            errs.push(
                FieldError::invalid(&path.index(i).child("Type"), c.type_.as_str(), msg)
                    .with_origin("status/condition-type"),
            );
        }
    }
    errs
}

/// The three state-transition rules, judged against the stored spec.
fn state_transitions(ns: &PodStatus, os: &PodStatus, old_spec: &PodSpec, settings: &Settings) -> ErrorList {
    let status = Path::new("status");
    let t = Transitions::new(old_spec, settings);
    let mut errs = t.containers(
        items(&ns.container_statuses),
        items(&os.container_statuses),
        &status.child("containerStatuses"),
    );
    errs.extend(t.init_containers(
        items(&ns.init_container_statuses),
        items(&os.init_container_statuses),
        &status.child("initContainerStatuses"),
    ));
    errs.extend(transitions::ephemeral(
        items(&ns.ephemeral_container_statuses),
        items(&os.ephemeral_container_statuses),
        &status.child("ephemeralContainerStatuses"),
    ));
    errs
}

/// The users and allocated resources of every container status list.
fn container_status_rules(new: &Pod, ns: &PodStatus, status: &Path, release: u8) -> ErrorList {
    let empty = Vec::new();
    let new_spec = spec_of(new);
    let windows = is_windows(new);
    let mut errs = ErrorList::new();
    for (list, field) in [
        (&ns.container_statuses, "containerStatuses"),
        (&ns.init_container_statuses, "initContainerStatuses"),
        (&ns.ephemeral_container_statuses, "ephemeralContainerStatuses"),
    ] {
        errs.extend(validate_container_status_users(
            list.as_ref().unwrap_or(&empty),
            &status.child(field),
            windows,
            release,
        ));
    }
    errs.extend(validate_allocated_resources_status(
        ns.container_statuses.as_ref().unwrap_or(&empty),
        &status.child("containerStatuses"),
        &new_spec.containers,
    ));
    errs.extend(validate_allocated_resources_status(
        ns.init_container_statuses.as_ref().unwrap_or(&empty),
        &status.child("initContainerStatuses"),
        new_spec.init_containers.as_deref().unwrap_or_default(),
    ));
    // ephemeral containers are not allowed to have resources allocated
    for (i, s) in ns.ephemeral_container_statuses.iter().flatten().enumerate() {
        if s.allocated_resources_status
            .as_ref()
            .is_some_and(|a| !a.is_empty())
        {
            errs.push(
                FieldError::forbidden(
                    &status
                        .child("ephemeralContainerStatuses")
                        .index(i)
                        .child("allocatedResourcesStatus"),
                    "must not be specified in container status",
                )
                .with_origin("status/allocated-resources-status"),
            );
        }
    }
    errs
}

/// `validatePodResourceClaimStatuses`.
/// From 1.36 a claim name that is no DNS subdomain is reported at `.resourceClaimName`.
fn validate_resource_claim_statuses(pod: &Pod, path: &Path, release: u8) -> ErrorList {
    let mut errs = ErrorList::new();
    let spec = spec_of(pod);
    let claims: BTreeSet<&str> =
        podmut_model::order::set_from(spec.resource_claims.iter().flatten().map(|c| c.name.as_str()));
    let mut seen = BTreeSet::new();
    for (i, s) in pod
        .status
        .iter()
        .flat_map(|s| s.resource_claim_statuses.iter().flatten())
        .enumerate()
    {
        let name_path = path.index(i).child("name");
        if !claims.contains(s.name.as_str()) {
            errs.push(
                FieldError::invalid(
                    &name_path,
                    s.name.as_str(),
                    "must match the name of an entry in `spec.resourceClaims`",
                )
                .with_origin("status/resource-claim-statuses"),
            );
        }
        if !seen.insert(s.name.as_str()) {
            errs.push(
                FieldError::duplicate(&name_path, s.name.as_str())
                    .with_origin("status/resource-claim-statuses"),
            );
        }
        if let Some(claim) = s.resource_claim_name.as_deref() {
            let claim_path = if release >= 36 {
                path.index(i).child("resourceClaimName")
            } else {
                name_path.clone()
            };
            for msg in is_dns1123_subdomain(claim) {
                errs.push(
                    FieldError::invalid(&claim_path, claim, msg)
                        .with_origin("status/resource-claim-statuses"),
                );
            }
        }
    }
    errs
}

/// The `[]core.PodIP` / `[]core.HostIP` upstream reports, as the server prints it.
fn ip_list_value(type_name: &str, ips: &[&str]) -> BadValue {
    let list: Vec<serde_json::Value> = ips.iter().map(|ip| serde_json::json!({ "ip": ip })).collect();
    let ty = if type_name == "PodIP" {
        &podmut_model::gojson::layout::SLICE_STRUCT_CORE_POD_IP
    } else {
        &podmut_model::gojson::layout::SLICE_STRUCT_CORE_HOST_IP
    };
    BadValue::go(&list, ty)
}

/// The shared part of `validatePodIPs`/`validateHostIPs`: every address new to the list valid
/// (`IsValidIPForLegacyField`: one the old status already has is kept), and at most one per family.
fn validate_ip_list(
    ips: &[&str],
    old: &[&str],
    path: &Path,
    (type_name, origin): (&str, &'static str),
    strict: bool,
) -> ErrorList {
    let mut errs = ErrorList::new();
    for (i, ip) in ips.iter().enumerate() {
        if !old.contains(ip) {
            errs.extend(crate::pod::names::validate_ip_with_origin(
                &path.index(i),
                ip,
                strict,
                origin,
            ));
        }
    }
    if ips.len() > 1 {
        // `IsDualStackIPStrings`: every address parses, and both families are present
        let mut families = BTreeSet::new();
        for (i, ip) in ips.iter().enumerate() {
            match parse_ip_sloppy(ip) {
                Some(addr) => {
                    families.insert(is_ipv6(&addr));
                }
                None => {
                    errs.push(
                        FieldError::internal(
                            path,
                            format!("failed to check for dual stack with error:invalid IP[{i}]: {ip}"),
                        )
                        .with_origin(origin),
                    );
                    families.clear();
                    break;
                }
            }
        }
        if families.len() < 2 || ips.len() > 2 {
            errs.push(
                FieldError::invalid(
                    path,
                    ip_list_value(type_name, ips),
                    "may specify no more than one IP for each IP family",
                )
                .with_origin(origin),
            );
        }
    }
    errs
}

/// The internal `status.podIPs` of a v1 status (`Convert_v1_PodStatus_To_core_PodStatus`): `podIP`
/// alone when it is set and `podIPs` is empty or starts with another address, else `podIPs`.
fn pod_ips(status: &PodStatus) -> Vec<&str> {
    let listed: Vec<&str> = items(&status.pod_ips).iter().map(|p| p.ip.as_str()).collect();
    match status.pod_ip.as_deref().filter(|ip| !ip.is_empty()) {
        Some(single) if listed.first() != Some(&single) => vec![single],
        _ => listed,
    }
}

fn host_ips(status: &PodStatus) -> Vec<&str> {
    items(&status.host_ips).iter().map(|p| p.ip.as_str()).collect()
}

/// `validatePodIPs`.
fn validate_pod_ips(status: &PodStatus, old: &PodStatus, strict: bool) -> ErrorList {
    validate_ip_list(
        &pod_ips(status),
        &pod_ips(old),
        &Path::new("status").child("podIPs"),
        ("PodIP", "status/pod-ips"),
        strict,
    )
}

/// `validateHostIPs`: also `hostIPs[0]` must equal `hostIP`.
fn validate_host_ips(status: &PodStatus, old: &PodStatus, strict: bool) -> ErrorList {
    let ips = host_ips(status);
    let Some(first) = ips.first() else {
        return ErrorList::new();
    };
    let path = Path::new("status").child("hostIPs");
    let mut errs = ErrorList::new();
    if status.host_ip.as_deref().unwrap_or("") != *first {
        errs.push(
            FieldError::invalid(&path.index(0).child("ip"), *first, "must be equal to `hostIP`")
                .with_origin("status/host-ips"),
        );
    }
    errs.extend(validate_ip_list(
        &ips,
        &host_ips(old),
        &path,
        ("HostIP", "status/host-ips"),
        strict,
    ));
    errs
}

/// `GetWarningsForIP` of one address that validated: a non-standard form (leading zeros, an
/// IPv4-mapped IPv6 address) or a non-canonical IPv6 one.
fn ip_warning(path: &Path, value: &str, release: u8) -> Option<String> {
    let sloppy = parse_ip_sloppy(value)?;
    match value.parse::<IpAddr>() {
        Ok(IpAddr::V6(v6)) if v6.to_ipv4_mapped().is_none() => (v6.to_string() != value).then(|| {
            format!(
                "{path}: IPv6 address {} should be in RFC 5952 canonical format ({})",
                go_quote(value),
                go_quote(&v6.to_string())
            )
        }),
        Ok(IpAddr::V4(_)) => None,
        _ => {
            let preferred = match sloppy {
                IpAddr::V6(v6) => v6
                    .to_ipv4_mapped()
                    .map_or_else(|| v6.to_string(), |v4| v4.to_string()),
                IpAddr::V4(v4) => v4.to_string(),
            };
            // apimachinery v0.36 words it as the error strict validation gives.
            let verdict = if release >= 36 {
                "is invalid"
            } else {
                "will be considered invalid in a future Kubernetes release"
            };
            Some(format!(
                "{path}: non-standard IP address {} {verdict}: use {}",
                go_quote(value),
                go_quote(&preferred)
            ))
        }
    }
}

/// `podStatusStrategy.WarningsOnUpdate`: [`ip_warning`] of every pod and host IP.
pub(crate) fn warnings_on_update(pod: &Pod, release: u8) -> Vec<String> {
    let Some(status) = pod.status.as_ref() else {
        return Vec::new();
    };
    let status_path = Path::new("status");
    let pod_path = status_path.child("podIPs");
    let host_path = status_path.child("hostIPs");
    let pods = pod_ips(status)
        .into_iter()
        .enumerate()
        .map(|(i, ip)| (pod_path.index(i), ip));
    let hosts = host_ips(status)
        .into_iter()
        .enumerate()
        .map(|(i, ip)| (host_path.index(i), ip));
    pods.chain(hosts)
        .filter_map(|(p, ip)| ip_warning(&p.child("ip"), ip, release))
        .collect()
}

const MAX_ID: i64 = 2_147_483_647;
/// The largest container status uid from 1.37 (`math.MaxUint32`).
const MAX_UID_37: i64 = 4_294_967_295;

/// `validateContainerStatusUsers`.
fn validate_container_status_users(
    statuses: &[ContainerStatus],
    path: &Path,
    windows: bool,
    release: u8,
) -> ErrorList {
    let mut errs = ErrorList::new();
    for (i, s) in statuses.iter().enumerate() {
        let Some(user) = s.user.as_ref() else { continue };
        let linux_path = path.index(i).child("user").child("linux");
        if windows {
            if user.linux.is_some() {
                errs.push(
                    FieldError::forbidden(&linux_path, "cannot be set for a windows pod")
                        .with_origin("status/container-user"),
                );
            }
            continue;
        }
        let Some(linux) = user.linux.as_ref() else {
            continue;
        };
        let range = format!("must be between 0 and {MAX_ID}, inclusive");
        let max_uid = if release >= 37 { MAX_UID_37 } else { MAX_ID };
        if !(0..=max_uid).contains(&linux.uid) {
            errs.push(
                FieldError::invalid(
                    &linux_path.child("uid"),
                    linux.uid,
                    format!("must be between 0 and {max_uid}, inclusive"),
                )
                .with_origin("status/container-user"),
            );
        }
        if !(0..=MAX_ID).contains(&linux.gid) {
            errs.push(
                FieldError::invalid(&linux_path.child("gid"), linux.gid, range.as_str())
                    .with_origin("status/container-user"),
            );
        }
        for (g, gid) in linux.supplemental_groups.iter().flatten().enumerate() {
            if !(0..=MAX_ID).contains(gid) {
                errs.push(
                    FieldError::invalid(
                        &linux_path.child("supplementalGroups").index(g),
                        *gid,
                        range.as_str(),
                    )
                    .with_origin("status/container-user"),
                );
            }
        }
    }
    errs
}

/// `validateContainerStatusAllocatedResourcesStatus`: each entry names a resource the container
/// requests (or one of its claims, `claim:<name>[/<request>]`); health values are known; resource IDs
/// are unique.
fn validate_allocated_resources_status(
    statuses: &[ContainerStatus],
    path: &Path,
    containers: &[Container],
) -> ErrorList {
    let mut errs = ErrorList::new();
    for (i, s) in statuses.iter().enumerate() {
        let Some(allocated) = s.allocated_resources_status.as_ref() else {
            continue;
        };
        let container = containers.iter().find(|c| c.name == s.name);
        for (j, a) in allocated.iter().enumerate() {
            let a_path = path.index(i).child("allocatedResourcesStatus").index(j);
            // a missing container is ignored (kubernetes#124915)
            if let Some(c) = container {
                let res = c.resources.as_ref();
                let (found, detail) = if a.name.starts_with("claim:") {
                    let found = res
                        .and_then(|r| r.claims.as_ref())
                        .into_iter()
                        .flatten()
                        .any(|claim| {
                            let mut name = format!("claim:{}", claim.name);
                            if let Some(req) = claim.request.as_deref().filter(|r| !r.is_empty()) {
                                name.push('/');
                                name.push_str(req);
                            }
                            name == a.name
                        });
                    (
                        found,
                        "must match one of the container's resource claims in a format 'claim:<claimName>/<request>' or 'claim:<claimName>' if request is empty",
                    )
                } else {
                    let found = res
                        .and_then(|r| r.requests.as_ref())
                        .is_some_and(|r| r.contains_key(&a.name));
                    (found, "must match one of the container's resource requests")
                };
                if !found {
                    errs.push(
                        FieldError::invalid(&a_path.child("name"), a.name.as_str(), detail)
                            .with_origin("status/allocated-resources-status"),
                    );
                }
            }
            let mut ids = BTreeSet::new();
            for (k, r) in a.resources.iter().flatten().enumerate() {
                let r_path = a_path.child("resources").index(k);
                let health = r.health.as_deref().unwrap_or("");
                if !matches!(health, "Healthy" | "Unhealthy" | "Unknown") {
                    errs.push(
                        FieldError::not_supported(
                            &r_path.child("health"),
                            health,
                            &["Healthy", "Unhealthy", "Unknown"],
                        )
                        .with_origin("status/allocated-resources-status"),
                    );
                }
                if !ids.insert(r.resource_id.as_str()) {
                    errs.push(
                        FieldError::duplicate(&r_path.child("resourceID"), r.resource_id.as_str())
                            .with_origin("status/allocated-resources-status"),
                    );
                }
            }
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use podmut_model::document::parse_pod;
    use podmut_model::field::ErrorType;

    const BASE: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: foo, namespace: default, resourceVersion: '1'}\nspec:\n  dnsPolicy: ClusterFirst\n  restartPolicy: RP\n  terminationGracePeriodSeconds: 30\n  nodeName: node1\n  initContainers: [{name: init, image: image, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File}, {name: side, image: image, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File, restartPolicy: Always}]\n  containers: [{name: ctr, image: image, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File, resources: {requests: {cpu: '1'}}}]\n";

    fn pod(restart: &str, status: &str) -> Pod {
        parse_pod(
            &format!("{}status: {status}\n", BASE.replace("RP", restart)),
            "p",
            1 << 20,
        )
        .unwrap()
    }

    fn errs(new: &Pod, old: &Pod) -> crate::pod::util::Summary {
        crate::pod::util::summary(&validate_pod_status_update(new, old, &Settings::default()))
    }

    fn cs(name: &str, state: &str) -> String {
        format!("{{name: {name}, image: i, imageID: '', ready: false, restartCount: 0, state: {state}}}")
    }

    #[test]
    fn nominated_node_name_must_be_a_subdomain() {
        let unbound = |status: &str| {
            let mut p = pod("Always", status);
            if let Some(s) = p.spec.as_mut() {
                s.node_name = None;
            }
            p
        };
        let old = unbound("{}");
        assert!(errs(&unbound("{nominatedNodeName: node1}"), &old).is_empty());
        assert_eq!(
            errs(&unbound("{nominatedNodeName: Node1}"), &old),
            vec![(
                ErrorType::Invalid,
                "status.nominatedNodeName".into(),
                "status/nominated-node-name"
            )]
        );
        // removing it is fine
        assert!(errs(&old, &unbound("{nominatedNodeName: node1}")).is_empty());
    }

    #[test]
    fn nominated_node_name_not_on_a_bound_pod() {
        // BASE is bound to node1: ClearingNominatedNodeNameAfterBinding (on in 1.35) forbids it
        let old = pod("Always", "{}");
        let bound = vec![(
            ErrorType::Forbidden,
            "status.nominatedNodeName".into(),
            "status/nominated-node-bound",
        )];
        assert_eq!(errs(&pod("Always", "{nominatedNodeName: node1}"), &old), bound);
        // unchanged, or cleared, is fine
        let set = pod("Always", "{nominatedNodeName: node1}");
        assert!(errs(&set, &set).is_empty());
        assert!(errs(&old, &set).is_empty());
        let mut off = Settings::default();
        off.feature_gates
            .set(Gate::ClearingNominatedNodeNameAfterBinding, false);
        let e = validate_pod_status_update(&pod("Always", "{nominatedNodeName: node1}"), &old, &off);
        assert!(e.is_empty(), "{e:?}");
    }

    #[test]
    fn observed_generations_are_non_negative() {
        let old = pod("Always", "{}");
        assert_eq!(
            errs(
                &pod(
                    "Always",
                    "{observedGeneration: -1, conditions: [{type: Ready, status: 'True', observedGeneration: -2}]}"
                ),
                &old
            ),
            vec![
                (
                    ErrorType::Invalid,
                    "status.conditions[0].observedGeneration".into(),
                    "status/observed-generation"
                ),
                (
                    ErrorType::Invalid,
                    "status.observedGeneration".into(),
                    "status/observed-generation"
                ),
            ]
        );
        // a cleared value keeps the stored one (preserveOldObservedGeneration)
        let stored = pod(
            "Always",
            "{observedGeneration: 3, conditions: [{type: Ready, status: 'True', observedGeneration: 2}]}",
        );
        let cleared = pod("Always", "{conditions: [{type: Ready, status: 'False'}]}");
        let p = prepare_update(&cleared, &stored, &Settings::default()).pod;
        let status = p.status.unwrap_or_default();
        assert_eq!(status.observed_generation, Some(3));
        assert_eq!(
            status.conditions.unwrap_or_default()[0].observed_generation,
            Some(2)
        );
    }

    #[test]
    fn qos_class_is_immutable() {
        assert_eq!(
            errs(
                &pod("Always", "{qosClass: Burstable}"),
                &pod("Always", "{qosClass: Guaranteed}")
            ),
            vec![(
                ErrorType::Invalid,
                "status.qosClass".into(),
                "status/qos-class-immutable"
            )]
        );
        assert!(
            errs(
                &pod("Always", "{qosClass: Burstable}"),
                &pod("Always", "{qosClass: Burstable}")
            )
            .is_empty()
        );
    }

    #[test]
    fn node_name_is_not_changed_through_status() {
        let old = pod("Always", "{}");
        let mut new = old.clone();
        if let Some(s) = new.spec.as_mut() {
            s.node_name = Some("node2".into());
        }
        assert_eq!(
            errs(&new, &old),
            vec![(ErrorType::Forbidden, "status.nodeName".into(), "status/node-name")]
        );
        // the strategy step takes the spec from the stored Pod, so through check() it never fires
        assert!(errs(&prepare_update(&new, &old, &Settings::default()).pod, &old).is_empty());
    }

    #[test]
    fn terminated_containers_stay_terminated_unless_restarted_by_policy() {
        let term = "{terminated: {exitCode: 0}}";
        let failed = "{terminated: {exitCode: 1}}";
        let run = "{running: {}}";
        let status = |state: &str| format!("{{containerStatuses: [{}]}}", cs("ctr", state));
        for (policy, old_state, bad) in [
            ("Never", term, true),
            ("Never", failed, true),
            ("OnFailure", term, true),
            ("OnFailure", failed, false),
            ("Always", term, false),
        ] {
            let e = errs(&pod(policy, &status(run)), &pod(policy, &status(old_state)));
            if bad {
                assert_eq!(
                    e,
                    vec![(
                        ErrorType::Forbidden,
                        "status.containerStatuses[0].state".into(),
                        "status/state-transition"
                    )],
                    "{policy} {old_state}"
                );
            } else {
                assert!(e.is_empty(), "{policy} {old_state}: {e:?}");
            }
        }
    }

    #[test]
    fn init_and_ephemeral_transitions() {
        let term = "{terminated: {exitCode: 0}}";
        let run = "{running: {}}";
        let init = |a: &str, b: &str| {
            format!(
                "{{initContainerStatuses: [{}, {}]}}",
                cs("init", a),
                cs("side", b)
            )
        };
        // TestValidatePodStatusUpdate "init container cannot restart if RestartPolicyNever"
        assert_eq!(
            errs(&pod("Never", &init(run, run)), &pod("Never", &init(term, run))),
            vec![(
                ErrorType::Forbidden,
                "status.initContainerStatuses[0].state".into(),
                "status/state-transition"
            )]
        );
        // "restartable init container can restart if RestartPolicyNever"
        assert!(errs(&pod("Never", &init(term, run)), &pod("Never", &init(term, term))).is_empty());
        // ephemeral containers never restart, even with restartPolicy Always
        let eph = |s: &str| format!("{{ephemeralContainerStatuses: [{}]}}", cs("debug", s));
        assert_eq!(
            errs(&pod("Always", &eph(run)), &pod("Always", &eph(term)))[0].1,
            "status.ephemeralContainerStatuses[0].state"
        );
    }

    #[test]
    fn pod_and_host_ips() {
        let old = pod("Always", "{}");
        assert!(
            errs(
                &pod("Always", "{podIPs: [{ip: 10.0.0.1}, {ip: 'fd00::1'}]}"),
                &old
            )
            .is_empty()
        );
        let sloppy = pod("Always", "{podIPs: [{ip: 010.000.000.001}]}");
        let v135 = Settings::parse("kubernetesVersion: '1.35'").unwrap();
        assert!(
            validate_pod_status_update(&sloppy, &old, &v135).is_empty(),
            "sloppy IPv4 up to 1.35"
        );
        assert_eq!(
            errs(&sloppy, &old),
            vec![(ErrorType::Invalid, "status.podIPs[0]".into(), "status/pod-ips")],
            "StrictIPCIDRValidation from 1.36"
        );
        assert!(errs(&sloppy, &sloppy).is_empty(), "a stored address stays valid");
        assert_eq!(
            errs(&pod("Always", "{podIPs: [{ip: not-an-ip}]}"), &old),
            vec![(ErrorType::Invalid, "status.podIPs[0]".into(), "status/pod-ips")]
        );
        // no duplicate rule upstream: two of one family is the error
        assert_eq!(
            errs(&pod("Always", "{podIPs: [{ip: 10.0.0.1}, {ip: 10.0.0.1}]}"), &old),
            vec![(ErrorType::Invalid, "status.podIPs".into(), "status/pod-ips")]
        );
        // an invalid address the stored status already has is kept
        let bad = pod("Always", "{podIPs: [{ip: not-an-ip}]}");
        assert!(errs(&bad, &bad).is_empty());
        // podIP wins over a podIPs list it does not start (the v1 conversion)
        assert_eq!(
            errs(
                &pod("Always", "{podIP: 10.0.0.300, podIPs: [{ip: 10.0.0.1}]}"),
                &old
            ),
            vec![(ErrorType::Invalid, "status.podIPs[0]".into(), "status/pod-ips")]
        );
        assert_eq!(
            errs(
                &pod("Always", "{hostIP: 10.0.0.2, hostIPs: [{ip: 10.0.0.1}]}"),
                &old
            ),
            vec![(
                ErrorType::Invalid,
                "status.hostIPs[0].ip".into(),
                "status/host-ips"
            )]
        );
    }

    #[test]
    fn resource_claim_statuses() {
        let old = pod("Always", "{}");
        let e = errs(
            &pod(
                "Always",
                "{resourceClaimStatuses: [{name: no-such-claim, resourceClaimName: my-claim}]}",
            ),
            &old,
        );
        assert_eq!(
            e,
            vec![(
                ErrorType::Invalid,
                "status.resourceClaimStatuses[0].name".into(),
                "status/resource-claim-statuses"
            )]
        );
    }

    #[test]
    fn conditions_users_and_allocated_resources() {
        let old = pod("Always", "{}");
        assert_eq!(
            errs(
                &pod(
                    "Always",
                    "{conditions: [{type: 'bad type', status: 'True'}, {type: Ready, status: 'True'}, {type: example.com/Custom, status: 'True'}]}"
                ),
                &old
            ),
            vec![(
                ErrorType::Invalid,
                "status.conditions[0].Type".into(),
                "status/condition-type"
            )]
        );
        assert_eq!(
            errs(
                &pod(
                    "Always",
                    &format!(
                        "{{containerStatuses: [{}]}}",
                        cs("ctr", "{running: {}}").replace("}}}", "}}, user: {linux: {uid: -1, gid: 0}}}")
                    )
                ),
                &old
            ),
            vec![(
                ErrorType::Invalid,
                "status.containerStatuses[0].user.linux.uid".into(),
                "status/container-user"
            )]
        );
        let alloc = |name: &str| {
            format!(
                "{{containerStatuses: [{}]}}",
                cs("ctr", "{running: {}}").replace(
                    "}}}",
                    &format!("}}}}, allocatedResourcesStatus: [{{name: {name}, resources: [{{resourceID: a, health: Healthy}}, {{resourceID: a, health: Bogus}}]}}]}}")
                )
            )
        };
        assert_eq!(
            errs(&pod("Always", &alloc("memory")), &old),
            vec![
                (
                    ErrorType::Invalid,
                    "status.containerStatuses[0].allocatedResourcesStatus[0].name".into(),
                    "status/allocated-resources-status"
                ),
                (
                    ErrorType::NotSupported,
                    "status.containerStatuses[0].allocatedResourcesStatus[0].resources[1].health".into(),
                    "status/allocated-resources-status"
                ),
                (
                    ErrorType::Duplicate,
                    "status.containerStatuses[0].allocatedResourcesStatus[0].resources[1].resourceID".into(),
                    "status/allocated-resources-status"
                ),
            ]
        );
        assert_eq!(errs(&pod("Always", &alloc("cpu")), &old).len(), 2);
    }

    #[test]
    fn prepare_takes_spec_from_the_stored_pod_and_backfills_qos() {
        let old = pod("Always", "{qosClass: Burstable}");
        let mut new = pod("Always", "{}");
        if let Some(s) = new.spec.as_mut() {
            s.containers[0].image = Some("other".into());
        }
        let p = prepare_update(&new, &old, &Settings::default());
        assert_eq!(spec_of(&p.pod).containers[0].image.as_deref(), Some("image"));
        assert_eq!(
            p.pod.status.as_ref().and_then(|s| s.qos_class.as_deref()),
            Some("Burstable")
        );
        // ignored without a warning, as the API server does
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }
}
