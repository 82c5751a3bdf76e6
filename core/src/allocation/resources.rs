//! Resource arithmetic the kubelet does when it allocates: the quantities of a Pod checked up front
//! (a bad quantity is an input error naming the field), and the Pod's total requests the way
//! upstream computes them.
//!
//! Sources: `k8s.io/component-helpers/resource` `PodRequests` / `AggregateContainerRequests`
//! (sidecar formula, pod-level resources, overhead, `UseStatusResources`), and
//! `pkg/api/v1/resource` `GetResourceRequest` (the figure in "Node didn't have enough capacity").

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, ContainerStatus, Node, Pod, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use super::pods::{is_restartable_init, resize_pending_reason};
use crate::document::InputError;
use crate::quantity::Quantity;

/// Resource name -> parsed quantity.
pub(crate) type ResourceMap = BTreeMap<String, Quantity>;

/// Parse a resource list, skipping values that do not parse (they were rejected up front by
/// [`check_pod_quantities`] / [`check_node_quantities`]).
pub(crate) fn parse_list(list: Option<&BTreeMap<String, K8sQuantity>>) -> ResourceMap {
    list.into_iter()
        .flatten()
        .filter_map(|(k, v)| Quantity::from_k8s(v).ok().map(|q| (k.clone(), q)))
        .collect()
}

/// A container's requests.
pub(crate) fn requests_of(r: Option<&ResourceRequirements>) -> ResourceMap {
    parse_list(r.and_then(|r| r.requests.as_ref()))
}

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

/// `resource.IsSupportedPodLevelResource`: cpu, memory and `hugepages-*`.
pub(crate) fn is_supported_pod_level(name: &str) -> bool {
    name == "cpu" || name == "memory" || name.starts_with("hugepages-")
}

/// `resource.IsPodLevelRequestsSet`.
pub(crate) fn pod_level_requests_set(pod: &Pod) -> bool {
    pod.spec
        .as_ref()
        .and_then(|s| s.resources.as_ref())
        .and_then(|r| r.requests.as_ref())
        .is_some_and(|r| r.keys().any(|k| is_supported_pod_level(k)))
}

/// `resource.IsPodLevelResourcesSet` (requests or limits).
pub(crate) fn pod_level_resources_set(pod: &Pod) -> bool {
    pod.spec
        .as_ref()
        .and_then(|s| s.resources.as_ref())
        .is_some_and(|r| {
            [r.requests.as_ref(), r.limits.as_ref()]
                .into_iter()
                .flatten()
                .any(|l| l.keys().any(|k| is_supported_pod_level(k)))
        })
}

fn add_into(acc: &mut ResourceMap, list: &ResourceMap) {
    for (k, q) in list {
        let e = acc.entry(k.clone()).or_insert(Quantity::ZERO);
        *e = e.add(q);
    }
}

fn max_into(acc: &mut ResourceMap, list: &ResourceMap) {
    for (k, q) in list {
        match acc.get(k) {
            Some(cur) if cur >= q => {}
            _ => {
                acc.insert(k.clone(), *q);
            }
        }
    }
}

/// Which requests a container contributes: its spec, or (for Pods already on the node) what the
/// kubelet allocated or actuated (`containerAllocatedRequests` / `containerActuatedRequests`).
type Getter = fn(&Container, Option<&ContainerStatus>, bool) -> ResourceMap;

fn spec_requests(c: &Container, _: Option<&ContainerStatus>, _: bool) -> ResourceMap {
    requests_of(c.resources.as_ref())
}

fn allocated_requests(c: &Container, s: Option<&ContainerStatus>, infeasible: bool) -> ResourceMap {
    if let Some(alloc) = s.and_then(|s| s.allocated_resources.as_ref()) {
        return parse_list(Some(alloc));
    }
    if infeasible {
        return ResourceMap::new();
    }
    spec_requests(c, s, infeasible)
}

fn actuated_requests(c: &Container, s: Option<&ContainerStatus>, infeasible: bool) -> ResourceMap {
    if let Some(r) = s
        .and_then(|s| s.resources.as_ref())
        .and_then(|r| r.requests.as_ref())
    {
        return parse_list(Some(r));
    }
    allocated_requests(c, s, infeasible)
}

fn find_status<'a>(pod: &'a Pod, name: &str) -> Option<&'a ContainerStatus> {
    let status = pod.status.as_ref()?;
    status
        .container_statuses
        .iter()
        .flatten()
        .chain(status.init_container_statuses.iter().flatten())
        .find(|s| s.name == name)
}

/// `aggregateContainerResourcesByFn`: regular containers and restartable init containers add up;
/// an ordinary init container needs its own requests plus the sidecars started before it; the
/// Pod needs the larger of the two.
fn aggregate(pod: &Pod, use_status: bool, getter: Getter) -> ResourceMap {
    let infeasible = use_status && resize_pending_reason(pod) == Some("Infeasible");
    let Some(spec) = pod.spec.as_ref() else {
        return ResourceMap::new();
    };
    let status_of = |c: &Container| {
        if use_status {
            find_status(pod, &c.name)
        } else {
            None
        }
    };
    let mut result = ResourceMap::new();
    for c in &spec.containers {
        add_into(&mut result, &getter(c, status_of(c), infeasible));
    }
    let mut sidecars = ResourceMap::new();
    let mut init_max = ResourceMap::new();
    for c in spec.init_containers.iter().flatten() {
        let own = getter(c, status_of(c), infeasible);
        if is_restartable_init(c) {
            add_into(&mut result, &own);
            add_into(&mut sidecars, &own);
            max_into(&mut init_max, &sidecars);
        } else {
            let mut combined = own;
            add_into(&mut combined, &sidecars);
            max_into(&mut init_max, &combined);
        }
    }
    max_into(&mut result, &init_max);
    result
}

/// Options of [`pod_requests`] (a subset of upstream `PodResourcesOptions`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RequestOptions {
    /// Honour pod-level `spec.resources` (`!SkipPodLevelResources`; the `PodLevelResources` gate).
    pub(crate) pod_level: bool,
    /// Take the larger of spec, allocated and actuated requests (`UseStatusResources`): how the
    /// scheduler framework counts Pods already on a node while `InPlacePodVerticalScaling` is on.
    pub(crate) use_status: bool,
}

/// Upstream `resource.PodRequests`: container aggregate, pod-level requests replacing cpu/memory
/// (and hugepages) when set, plus `spec.overhead`.
pub(crate) fn pod_requests(pod: &Pod, opts: RequestOptions) -> ResourceMap {
    let mut reqs = if opts.use_status {
        let spec = aggregate(pod, true, spec_requests);
        let allocated = aggregate(pod, true, allocated_requests);
        let actuated = aggregate(pod, true, actuated_requests);
        let mut out = ResourceMap::new();
        if resize_pending_reason(pod) != Some("Infeasible") {
            max_into(&mut out, &spec);
        }
        max_into(&mut out, &actuated);
        max_into(&mut out, &allocated);
        out
    } else {
        aggregate(pod, false, spec_requests)
    };
    if opts.pod_level && pod_level_requests_set(pod) {
        let level = requests_of(pod.spec.as_ref().and_then(|s| s.resources.as_ref()));
        for (k, q) in level {
            if is_supported_pod_level(&k) {
                reqs.insert(k, q);
            }
        }
    }
    let overhead = parse_list(pod.spec.as_ref().and_then(|s| s.overhead.as_ref()));
    add_into(&mut reqs, &overhead);
    reqs
}

/// Upstream `GetResourceRequest`: the Pod's request for one resource as the kubelet reports it in
/// "Node didn't have enough capacity" (cpu in millicores, everything else in units). With pod-level
/// resources set, container-level requests are skipped; overhead is added only to a non-zero total.
pub(crate) fn resource_request(pod: &Pod, name: &str, pod_level_gate: bool) -> i64 {
    let has_pod_level = pod_level_gate && pod_level_resources_set(pod);
    let mut reqs = if has_pod_level {
        ResourceMap::new()
    } else {
        aggregate(pod, false, spec_requests)
    };
    if has_pod_level && pod_level_requests_set(pod) {
        let level = requests_of(pod.spec.as_ref().and_then(|s| s.resources.as_ref()));
        for (k, q) in level {
            if is_supported_pod_level(&k) {
                reqs.insert(k, q);
            }
        }
    }
    let mut q = reqs.get(name).copied().unwrap_or(Quantity::ZERO);
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
    use crate::document::parse_pod;

    fn pod(yaml: &str) -> Pod {
        parse_pod(yaml, "p", 1 << 20).unwrap()
    }

    fn cpu_mem(m: &ResourceMap) -> (i64, i64) {
        (
            m.get("cpu").map_or(0, Quantity::milli_value),
            m.get("memory").map_or(0, Quantity::value),
        )
    }

    #[test]
    fn sidecar_formula() {
        // main 1 cpu; sidecar 500m started before an init container of 2 cpu: init phase needs 2.5.
        let p = pod("spec:
  initContainers:
  - {name: side, restartPolicy: Always, resources: {requests: {cpu: 500m}}}
  - {name: init, resources: {requests: {cpu: 2}}}
  containers:
  - {name: app, resources: {requests: {cpu: 1, memory: 1Gi}}}
");
        let r = pod_requests(&p, RequestOptions::default());
        assert_eq!(cpu_mem(&r), (2500, 1 << 30));
    }

    #[test]
    fn pod_level_and_overhead() {
        let p = pod("spec:
  resources: {requests: {cpu: 3}}
  overhead: {cpu: 100m}
  containers:
  - {name: app, resources: {requests: {cpu: 1, memory: 1Gi}}}
");
        let with = pod_requests(
            &p,
            RequestOptions {
                pod_level: true,
                use_status: false,
            },
        );
        assert_eq!(cpu_mem(&with), (3100, 1 << 30));
        let without = pod_requests(&p, RequestOptions::default());
        assert_eq!(cpu_mem(&without), (1100, 1 << 30));
        // GetResourceRequest skips container-level requests when pod-level resources are set.
        assert_eq!(resource_request(&p, "cpu", true), 3100);
        assert_eq!(resource_request(&p, "memory", true), 0);
        assert_eq!(resource_request(&p, "memory", false), 1 << 30);
    }

    #[test]
    fn status_resources_count_for_pods_on_the_node() {
        let p = pod("spec:
  containers:
  - {name: app, resources: {requests: {cpu: 1}}}
status:
  containerStatuses:
  - {name: app, image: x, imageID: '', ready: true, restartCount: 0, allocatedResources: {cpu: 2}, resources: {requests: {cpu: 1500m}}}
");
        let r = pod_requests(
            &p,
            RequestOptions {
                pod_level: true,
                use_status: true,
            },
        );
        assert_eq!(cpu_mem(&r).0, 2000);
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
