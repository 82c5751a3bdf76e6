//! `pods/status`: what a status update (normally the kubelet's) may change, `ValidatePodStatusUpdate`.
//!
//! Upstream: `pkg/apis/core/validation/validation.go` (`ValidatePodStatusUpdate`,
//! `validatePodConditions`, `ValidateContainerStateTransition`,
//! `ValidateInitContainerStateTransition`, `validatePodResourceClaimStatuses`, `validatePodIPs`,
//! `validateHostIPs`, `validateContainerStatusUsers`, `validateContainerStatusAllocatedResourcesStatus`,
//! `validateContainerStatusNoAllocatedResourcesStatus`) and `pkg/registry/core/pod/strategy.go`
//! (`podStatusStrategy.PrepareForUpdate`).
//!
//! The status strategy ignores spec changes: [`prepare_update`] takes the spec (and the deletion
//! timestamp and owner references) from the stored Pod and backfills an empty `status.qosClass`, as
//! the API server does, and reports what it ignored as a warning. Paths are upstream's, including its
//! quirks: custom condition types are reported at `metadata.conditions[i].Type`, container users at
//! `status.containerStatuses[i].linux`.

use std::collections::BTreeSet;
use std::net::IpAddr;

use k8s_openapi::api::core::v1::{Container, ContainerStatus, Pod, PodCondition, PodStatus};

use crate::field::{BadValue, ErrorList, FieldError, Path, go_quote};
use crate::pod::names::{
    is_dns1123_subdomain, is_ipv6, is_qualified_name, parse_ip_sloppy, validate_ip_with_origin,
};
use crate::pod::{
    PodValidationOptions, validate_object_meta_update, validate_pod_specific_annotation_updates,
};
use crate::podutil::{init_containers, is_restartable_init, is_windows, spec as spec_of};
use crate::settings::Settings;
use crate::strategy::Prepared;

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
    errs.extend(validate_pod_conditions(
        ns.conditions.as_deref().unwrap_or_default(),
        &meta.child("conditions"),
    ));

    let status = Path::new("status");
    let new_spec = spec_of(new);
    let old_spec = spec_of(old);
    if new_spec.node_name.as_deref().unwrap_or("") != old_spec.node_name.as_deref().unwrap_or("") {
        errs.push(
            FieldError::forbidden(&status.child("nodeName"), "may not be changed directly")
                .with_origin("status/node-name"),
        );
    }

    let nominated = ns.nominated_node_name.as_deref().unwrap_or("");
    if nominated != os.nominated_node_name.as_deref().unwrap_or("") && !nominated.is_empty() {
        for msg in is_dns1123_subdomain(nominated) {
            errs.push(
                FieldError::invalid(&status.child("nominatedNodeName"), nominated, msg)
                    .with_origin("status/nominated-node-name"),
            );
        }
    }

    // Pod QoS is immutable
    let new_qos = ns.qos_class.as_deref().unwrap_or("");
    if new_qos != os.qos_class.as_deref().unwrap_or("") {
        errs.push(
            FieldError::invalid(&status.child("qosClass"), new_qos, "field is immutable")
                .with_origin("status/qos-class-immutable"),
        );
    }

    let empty = Vec::new();
    let restart_policy = old_spec.restart_policy.as_deref().unwrap_or("");
    errs.extend(validate_container_state_transition(
        ns.container_statuses.as_ref().unwrap_or(&empty),
        os.container_statuses.as_ref().unwrap_or(&empty),
        &status.child("containerStatuses"),
        restart_policy,
    ));
    if restart_policy != "Always" {
        // ValidateInitContainerStateTransition: restartable init containers may restart.
        let restartable: BTreeSet<&str> = crate::order::set_from(
            init_containers(&old_spec)
                .iter()
                .filter(|c| is_restartable_init(c))
                .map(|c| c.name.as_str()),
        );
        for (i, s) in os.init_container_statuses.iter().flatten().enumerate() {
            if restartable.contains(s.name.as_str()) {
                continue;
            }
            errs.extend(transition_errors(
                s,
                ns.init_container_statuses.as_ref().unwrap_or(&empty),
                &status.child("initContainerStatuses").index(i),
                restart_policy,
            ));
        }
    }
    // The kubelet never restarts ephemeral containers: an implicit restartPolicy Never.
    errs.extend(validate_container_state_transition(
        ns.ephemeral_container_statuses.as_ref().unwrap_or(&empty),
        os.ephemeral_container_statuses.as_ref().unwrap_or(&empty),
        &status.child("ephemeralContainerStatuses"),
        "Never",
    ));
    errs.extend(validate_resource_claim_statuses(
        new,
        &status.child("resourceClaimStatuses"),
    ));
    errs.extend(validate_pod_ips(ns));
    errs.extend(validate_host_ips(ns));

    let windows = is_windows(new);
    for (list, field) in [
        (&ns.container_statuses, "containerStatuses"),
        (&ns.init_container_statuses, "initContainerStatuses"),
        (&ns.ephemeral_container_statuses, "ephemeralContainerStatuses"),
    ] {
        errs.extend(validate_container_status_users(
            list.as_ref().unwrap_or(&empty),
            &status.child(field),
            windows,
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

/// `validatePodConditions`: custom (non-system) condition types must be qualified names.
fn validate_pod_conditions(conditions: &[PodCondition], path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    for (i, c) in conditions.iter().enumerate() {
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

fn is_terminated(s: &ContainerStatus) -> bool {
    s.state.as_ref().is_some_and(|st| st.terminated.is_some())
}

/// The errors for one old terminated status `old`: any new status of the same name that is not
/// terminated.
fn transition_errors(old: &ContainerStatus, new: &[ContainerStatus], path: &Path, policy: &str) -> ErrorList {
    let mut errs = ErrorList::new();
    let Some(term) = old.state.as_ref().and_then(|s| s.terminated.as_ref()) else {
        return errs;
    };
    if term.exit_code != 0 && policy == "OnFailure" {
        return errs;
    }
    for n in new {
        if n.name == old.name && !is_terminated(n) {
            errs.push(
                FieldError::forbidden(
                    &path.child("state"),
                    "may not be transitioned to non-terminated state",
                )
                .with_origin("status/state-transition"),
            );
        }
    }
    errs
}

/// `ValidateContainerStateTransition`: unless the restart policy is `Always`, a terminated container
/// (that did not fail under `OnFailure`) may not become non-terminated.
fn validate_container_state_transition(
    new: &[ContainerStatus],
    old: &[ContainerStatus],
    path: &Path,
    policy: &str,
) -> ErrorList {
    if policy == "Always" {
        return ErrorList::new();
    }
    old.iter()
        .enumerate()
        .flat_map(|(i, o)| transition_errors(o, new, &path.index(i), policy))
        .collect()
}

/// `validatePodResourceClaimStatuses`.
fn validate_resource_claim_statuses(pod: &Pod, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let spec = spec_of(pod);
    let claims: BTreeSet<&str> =
        crate::order::set_from(spec.resource_claims.iter().flatten().map(|c| c.name.as_str()));
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
            for msg in is_dns1123_subdomain(claim) {
                errs.push(
                    FieldError::invalid(&name_path, claim, msg).with_origin("status/resource-claim-statuses"),
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
        &crate::gojson::layout::SLICE_STRUCT_CORE_POD_IP
    } else {
        &crate::gojson::layout::SLICE_STRUCT_CORE_HOST_IP
    };
    BadValue::go(&list, ty)
}

/// The shared part of `validatePodIPs`/`validateHostIPs`: every address valid, at most one per family,
/// no duplicates.
fn validate_ip_list(
    ips: &[&str],
    path: &Path,
    type_name: &str,
    origin: &'static str,
    duplicates_first: bool,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut dual = ErrorList::new();
    let mut dups = ErrorList::new();
    for (i, ip) in ips.iter().enumerate() {
        errs.extend(validate_ip_with_origin(&path.index(i), ip, origin));
    }
    if ips.len() > 1 {
        let parsed: Vec<Option<IpAddr>> = ips.iter().map(|ip| parse_ip_sloppy(ip)).collect();
        let dual_stack = if let Some(bad) = ips.iter().zip(&parsed).find(|(_, p)| p.is_none()) {
            dual.push(
                FieldError::internal(
                    path,
                    format!(
                        "failed to check for dual stack with error:failed to parse IP: {}",
                        go_quote(bad.0)
                    ),
                )
                .with_origin(origin),
            );
            false
        } else {
            let v6 = parsed.iter().flatten().filter(|ip| is_ipv6(ip)).count();
            v6 > 0 && v6 < parsed.len()
        };
        if !dual_stack || ips.len() > 2 {
            dual.push(
                FieldError::invalid(
                    path,
                    ip_list_value(type_name, ips),
                    "may specify no more than one IP for each IP family",
                )
                .with_origin(origin),
            );
        }
        let mut seen = BTreeSet::new();
        for (i, ip) in ips.iter().enumerate() {
            if !seen.insert(*ip) {
                dups.push(
                    FieldError::duplicate(
                        &path.index(i),
                        BadValue::Rendered(format!("core.{type_name}{{IP:{}}}", go_quote(ip))),
                    )
                    .with_origin(origin),
                );
            }
        }
    }
    if duplicates_first {
        errs.extend(dups);
        errs.extend(dual);
    } else {
        errs.extend(dual);
        errs.extend(dups);
    }
    errs
}

/// `validatePodIPs`.
fn validate_pod_ips(status: &PodStatus) -> ErrorList {
    let ips: Vec<&str> = status.pod_ips.iter().flatten().map(|p| p.ip.as_str()).collect();
    validate_ip_list(
        &ips,
        &Path::new("status").child("podIPs"),
        "PodIP",
        "status/pod-ips",
        false,
    )
}

/// `validateHostIPs`: also `hostIPs[0]` must equal `hostIP`.
fn validate_host_ips(status: &PodStatus) -> ErrorList {
    let ips: Vec<&str> = status.host_ips.iter().flatten().map(|p| p.ip.as_str()).collect();
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
    errs.extend(validate_ip_list(&ips, &path, "HostIP", "status/host-ips", true));
    errs
}

const MAX_ID: i64 = 2_147_483_647;

/// `validateContainerStatusUsers`.
fn validate_container_status_users(statuses: &[ContainerStatus], path: &Path, windows: bool) -> ErrorList {
    let mut errs = ErrorList::new();
    for (i, s) in statuses.iter().enumerate() {
        let Some(user) = s.user.as_ref() else { continue };
        let linux_path = path.index(i).child("linux");
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
        if !(0..=MAX_ID).contains(&linux.uid) {
            errs.push(
                FieldError::invalid(&linux_path.child("uid"), linux.uid, range.as_str())
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

/// The REST layer's `PrepareForUpdate` for `pods/status`: the request with the stored Pod's spec,
/// deletion timestamp and owner references, and `status.qosClass` backfilled when empty.
pub(crate) fn prepare_update(new: &Pod, old: &Pod) -> Prepared {
    let mut pod = new.clone();
    pod.spec.clone_from(&old.spec);
    pod.metadata
        .deletion_timestamp
        .clone_from(&old.metadata.deletion_timestamp);
    pod.metadata
        .owner_references
        .clone_from(&old.metadata.owner_references);
    let old_qos = old.status.as_ref().and_then(|s| s.qos_class.clone());
    if pod
        .status
        .as_ref()
        .and_then(|s| s.qos_class.as_deref())
        .is_none_or(str::is_empty)
        && old_qos.is_some()
    {
        pod.status.get_or_insert_with(Default::default).qos_class = old_qos;
    }
    Prepared::new(new, pod, "pods/status applies only the status and metadata")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::parse_pod;
    use crate::field::ErrorType;

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
        let old = pod("Always", "{}");
        assert!(errs(&pod("Always", "{nominatedNodeName: node1}"), &old).is_empty());
        assert_eq!(
            errs(&pod("Always", "{nominatedNodeName: Node1}"), &old),
            vec![(
                ErrorType::Invalid,
                "status.nominatedNodeName".into(),
                "status/nominated-node-name"
            )]
        );
        // removing it is fine
        assert!(errs(&old, &pod("Always", "{nominatedNodeName: node1}")).is_empty());
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
        assert!(errs(&prepare_update(&new, &old).pod, &old).is_empty());
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
        assert!(
            errs(&pod("Always", "{podIPs: [{ip: 010.000.000.001}]}"), &old).is_empty(),
            "sloppy IPv4"
        );
        assert_eq!(
            errs(&pod("Always", "{podIPs: [{ip: not-an-ip}]}"), &old),
            vec![(ErrorType::Invalid, "status.podIPs[0]".into(), "status/pod-ips")]
        );
        assert_eq!(
            errs(&pod("Always", "{podIPs: [{ip: 10.0.0.1}, {ip: 10.0.0.1}]}"), &old),
            vec![
                (ErrorType::Invalid, "status.podIPs".into(), "status/pod-ips"),
                (ErrorType::Duplicate, "status.podIPs[1]".into(), "status/pod-ips"),
            ]
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
                "metadata.conditions[0].Type".into(),
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
                "status.containerStatuses[0].linux.uid".into(),
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
        let p = prepare_update(&new, &old);
        assert_eq!(spec_of(&p.pod).containers[0].image.as_deref(), Some("image"));
        assert_eq!(
            p.pod.status.as_ref().and_then(|s| s.qos_class.as_deref()),
            Some("Burstable")
        );
        assert!(
            p.warnings[0].contains("spec.containers[0].image"),
            "{:?}",
            p.warnings
        );
    }
}
