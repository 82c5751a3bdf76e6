//! Resource arithmetic the kubelet does when it allocates: the quantities of a Pod checked up front
//! (a bad quantity is an input error naming the field), and the Pod's total requests the way
//! upstream computes them.
//!
//! Sources: `k8s.io/component-helpers/resource` `PodRequests` / `AggregateContainerRequests`
//! (sidecar formula, pod-level resources, overhead, `UseStatusResources`), and
//! `pkg/api/v1/resource` `GetResourceRequest` (the figure in "Node didn't have enough capacity").

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{ContainerStatus, Node, Pod, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use podmut_model::document::InputError;
use podmut_model::quantity::Quantity;
use podmut_model::resource_helper::{
    ResourceMap, add_pod_level_requests, aggregate_container_requests, parse_list, pod_level,
    pod_level_requests_set, pod_level_resources_set,
};

fn check_list(
    list: Option<&BTreeMap<String, K8sQuantity>>,
    input: &str,
    path: &str,
) -> Result<(), InputError> {
    for (name, q) in list.into_iter().flatten() {
        if let Err(e) = Quantity::from_k8s(q) {
            return Err(InputError::malformed(
                input,
                format!("{path}[{name}]: invalid quantity {:?}: {e}", q.0),
            ));
        }
    }
    Ok(())
}

fn check_requirements(r: Option<&ResourceRequirements>, input: &str, path: &str) -> Result<(), InputError> {
    if let Some(r) = r {
        check_list(r.requests.as_ref(), input, &format!("{path}.requests"))?;
        check_list(r.limits.as_ref(), input, &format!("{path}.limits"))?;
    }
    Ok(())
}

fn check_statuses(
    statuses: Option<&Vec<ContainerStatus>>,
    input: &str,
    path: &str,
) -> Result<(), InputError> {
    for (i, s) in statuses.into_iter().flatten().enumerate() {
        check_list(
            s.allocated_resources.as_ref(),
            input,
            &format!("{path}[{i}].allocatedResources"),
        )?;
        check_requirements(s.resources.as_ref(), input, &format!("{path}[{i}].resources"))?;
    }
    Ok(())
}

/// Check every quantity a kubelet-side rule reads from a Pod; the error names `input`, the document
/// field `prefix` and the path (e.g. `request: desired: spec.containers[0].resources.requests[cpu]:
/// invalid quantity "1.5.5": ...`).
pub(crate) fn check_pod_quantities(pod: &Pod, input: &str, prefix: &str) -> Result<(), InputError> {
    let p = |rest: &str| {
        if prefix.is_empty() {
            rest.to_owned()
        } else {
            format!("{prefix}: {rest}")
        }
    };
    if let Some(spec) = pod.spec.as_ref() {
        for (i, c) in spec.containers.iter().enumerate() {
            check_requirements(
                c.resources.as_ref(),
                input,
                &p(&format!("spec.containers[{i}].resources")),
            )?;
        }
        for (i, c) in spec.init_containers.iter().flatten().enumerate() {
            check_requirements(
                c.resources.as_ref(),
                input,
                &p(&format!("spec.initContainers[{i}].resources")),
            )?;
        }
        check_requirements(spec.resources.as_ref(), input, &p("spec.resources"))?;
        check_list(spec.overhead.as_ref(), input, &p("spec.overhead"))?;
    }
    if let Some(status) = pod.status.as_ref() {
        check_statuses(
            status.container_statuses.as_ref(),
            input,
            &p("status.containerStatuses"),
        )?;
        check_statuses(
            status.init_container_statuses.as_ref(),
            input,
            &p("status.initContainerStatuses"),
        )?;
    }
    Ok(())
}

/// Check a Node's `status.allocatable` and `status.capacity`.
pub(crate) fn check_node_quantities(node: &Node, input: &str, prefix: &str) -> Result<(), InputError> {
    if let Some(status) = node.status.as_ref() {
        check_list(
            status.allocatable.as_ref(),
            input,
            &format!("{prefix}: status.allocatable"),
        )?;
        check_list(
            status.capacity.as_ref(),
            input,
            &format!("{prefix}: status.capacity"),
        )?;
    }
    Ok(())
}

/// Upstream `GetResourceRequest`: the Pod's request for one resource as the kubelet reports it in
/// "Node didn't have enough capacity" (cpu in millicores, everything else in units). With pod-level
/// resources set, container-level requests are skipped; overhead is added only to a non-zero total.
pub(crate) fn resource_request(pod: &Pod, name: &str, pod_level_gate: bool) -> i64 {
    let has_pod_level = pod_level_gate && pod_level_resources_set(pod_level(pod));
    let mut reqs = if has_pod_level {
        ResourceMap::new()
    } else {
        aggregate_container_requests(&podmut_model::podutil::spec(pod))
    };
    if has_pod_level && pod_level_requests_set(pod_level(pod)) {
        add_pod_level_requests(&mut reqs, pod);
    }
    let mut q = reqs.get(name).cloned().unwrap_or(Quantity::ZERO);
    let overhead = parse_list(pod.spec.as_ref().and_then(|s| s.overhead.as_ref()));
    if let Some(o) = overhead.get(name)
        && !q.is_zero()
    {
        q = q.add(o);
    }
    scheduler_value(name, &q)
}

/// How the scheduler's `framework.Resource` holds a quantity: millicores for cpu, units (rounded up)
/// for everything else.
pub(crate) fn scheduler_value(name: &str, q: &Quantity) -> i64 {
    if name == "cpu" { q.milli_value() } else { q.value() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use podmut_model::document::parse_pod;

    fn pod(yaml: &str) -> Pod {
        parse_pod(yaml, "p", 1 << 20).unwrap()
    }

    #[test]
    fn get_resource_request_skips_containers_with_pod_level_resources() {
        let p = pod("spec:
  resources: {requests: {cpu: 3}}
  overhead: {cpu: 100m}
  containers:
  - {name: app, resources: {requests: {cpu: 1, memory: 1Gi}}}
");
        assert_eq!(resource_request(&p, "cpu", true), 3100);
        assert_eq!(resource_request(&p, "memory", true), 0);
        assert_eq!(resource_request(&p, "memory", false), 1 << 30);
    }

    #[test]
    fn bad_quantities_name_the_field() {
        let p = pod("spec:
  containers:
  - {name: app, resources: {requests: {cpu: 1.5.5}}}
");
        let e = check_pod_quantities(&p, "request", "desired").unwrap_err();
        assert_eq!(e.input(), "request");
        assert!(
            e.message().starts_with(
                "desired: spec.containers[0].resources.requests[cpu]: invalid quantity \"1.5.5\""
            ),
            "{e}"
        );
    }
}
