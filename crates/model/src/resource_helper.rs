//! Upstream's `k8s.io/component-helpers/resource` (imported there as `resourcehelper`): reading
//! resource lists, the pod-level resource predicates, and a Pod's aggregated requests and limits.
//!
//! Defaulting (pod-level requests and limits), validation (pod-level consistency), QoS, the
//! kubelet's allocation and semantic equality all read resources through this module, so each
//! upstream helper has exactly one implementation here.
//!
//! One predicate is deliberately *not* here: `ValidatePodResize` (1.33) refuses a Pod whose
//! `spec.resources` has *any* request or limit with its own local `isPodLevelResourcesSet` closure,
//! while [`pod_level_resources_set`] (this module, like upstream's helper) counts only the
//! resources pod-level management supports. The resize rule lives with the resize rules
//! (`podmut_validation::pod::resize`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, ContainerStatus, Pod, PodSpec, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use crate::podutil::{init_containers, is_pod_resize_infeasible, is_restartable_init};
use crate::quantity::Quantity;

/// A resource list as written in a Pod (`core.ResourceList`).
pub type ResourceList = BTreeMap<String, K8sQuantity>;

/// Resource name -> parsed quantity.
pub type ResourceMap = BTreeMap<String, Quantity>;

/// `core.ResourceHugePagesPrefix`.
pub const HUGEPAGES_PREFIX: &str = "hugepages-";

/// `helper.IsHugePageResourceName`.
pub fn is_hugepage(name: &str) -> bool {
    name.starts_with(HUGEPAGES_PREFIX)
}

/// Parse a resource list, skipping values that do not parse (validation reports them; the
/// kubelet-side documents reject them up front).
pub fn parse_list(list: Option<&ResourceList>) -> ResourceMap {
    crate::order::map_from(
        list.into_iter()
            .flatten()
            .filter_map(|(k, v)| Quantity::from_k8s(v).ok().map(|q| (k.clone(), q))),
    )
}

/// The requests of a requirements block (absent when none).
pub fn requests(r: Option<&ResourceRequirements>) -> Option<&ResourceList> {
    r.and_then(|r| r.requests.as_ref())
}

/// The limits of a requirements block (absent when none).
pub fn limits(r: Option<&ResourceRequirements>) -> Option<&ResourceList> {
    r.and_then(|r| r.limits.as_ref())
}

/// A container's requests, parsed.
pub fn requests_of(r: Option<&ResourceRequirements>) -> ResourceMap {
    parse_list(requests(r))
}

/// A container's limits, parsed.
pub fn limits_of(r: Option<&ResourceRequirements>) -> ResourceMap {
    parse_list(limits(r))
}

/// `addResourceList`: the sum into `acc`; the first value of a resource keeps its own format
/// (`4Mi`, not `4194304`), as upstream's `DeepCopy` of it does.
pub(crate) fn add_resource_list(acc: &mut ResourceMap, list: &ResourceMap) {
    for (k, q) in list {
        match acc.get_mut(k) {
            Some(v) => *v = v.add(q),
            None => {
                acc.insert(k.clone(), q.clone());
            }
        }
    }
}

/// `maxResourceList`: the larger value of each resource into `acc`.
pub(crate) fn max_resource_list(acc: &mut ResourceMap, list: &ResourceMap) {
    for (k, q) in list {
        match acc.get_mut(k) {
            Some(v) if *q > *v => *v = q.clone(),
            Some(_) => {}
            None => {
                acc.insert(k.clone(), q.clone());
            }
        }
    }
}

/// `IsSupportedPodLevelResource`: cpu, memory and `hugepages-*`.
pub fn is_supported_pod_level_resource(name: &str) -> bool {
    name == "cpu" || name == "memory" || is_hugepage(name)
}

fn any_supported(list: Option<&ResourceList>) -> bool {
    list.is_some_and(|l| l.keys().any(|k| is_supported_pod_level_resource(k)))
}

/// The Pod's pod-level `spec.resources`.
pub fn pod_level(pod: &Pod) -> Option<&ResourceRequirements> {
    pod.spec.as_ref().and_then(|s| s.resources.as_ref())
}

/// `IsPodLevelRequestsSet`: a supported resource has a pod-level request.
pub fn pod_level_requests_set(r: Option<&ResourceRequirements>) -> bool {
    any_supported(requests(r))
}

/// `IsPodLevelLimitsSet`: a supported resource has a pod-level limit.
pub(crate) fn pod_level_limits_set(r: Option<&ResourceRequirements>) -> bool {
    any_supported(limits(r))
}

/// `IsPodLevelResourcesSet`: pod-level requests or limits of a supported resource.
pub fn pod_level_resources_set(r: Option<&ResourceRequirements>) -> bool {
    pod_level_requests_set(r) || pod_level_limits_set(r)
}

/// The aggregation shared by `AggregateContainerRequests` and `AggregateContainerLimits`: regular
/// containers and restartable init containers add up; an ordinary init container needs its own
/// resources plus those of the restartable init containers started before it; the Pod needs the
/// larger of the two. `of` gives each container's list.
pub(crate) fn aggregate_containers(
    spec: &PodSpec,
    mut of: impl FnMut(&Container) -> ResourceMap,
) -> ResourceMap {
    let mut total = ResourceMap::new();
    for c in &spec.containers {
        add_resource_list(&mut total, &of(c));
    }
    let mut sidecars = ResourceMap::new();
    let mut init_peak = ResourceMap::new();
    for c in init_containers(spec) {
        let own = of(c);
        if is_restartable_init(c) {
            add_resource_list(&mut total, &own);
            add_resource_list(&mut sidecars, &own);
            max_resource_list(&mut init_peak, &sidecars);
        } else {
            let mut with_sidecars = own;
            add_resource_list(&mut with_sidecars, &sidecars);
            max_resource_list(&mut init_peak, &with_sidecars);
        }
    }
    max_resource_list(&mut total, &init_peak);
    total
}

/// `AggregateContainerRequests` of a spec (without status resources).
pub fn aggregate_container_requests(spec: &PodSpec) -> ResourceMap {
    aggregate_containers(spec, |c| requests_of(c.resources.as_ref()))
}

/// `AggregateContainerLimits` of a spec.
pub(crate) fn aggregate_container_limits(spec: &PodSpec) -> ResourceMap {
    aggregate_containers(spec, |c| limits_of(c.resources.as_ref()))
}

/// Options of [`pod_requests`] (a subset of upstream `PodResourcesOptions`).
#[derive(Clone, Copy, Debug, Default)]
pub struct PodResourcesOptions {
    /// Honour pod-level `spec.resources` (`!SkipPodLevelResources`; the `PodLevelResources` gate).
    pub pod_level: bool,
    /// Take the larger of spec, allocated and actuated requests (`UseStatusResources`): how the
    /// scheduler framework counts Pods already on a node while `InPlacePodVerticalScaling` is on.
    pub use_status: bool,
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

/// The container aggregate with each container's requests taken by `getter` (from the status
/// when `use_status`).
fn aggregate_with(pod: &Pod, use_status: bool, getter: Getter) -> ResourceMap {
    let infeasible = use_status && is_pod_resize_infeasible(pod);
    let Some(spec) = pod.spec.as_ref() else {
        return ResourceMap::new();
    };
    aggregate_containers(spec, |c| {
        let status = if use_status {
            find_status(pod, &c.name)
        } else {
            None
        };
        getter(c, status, infeasible)
    })
}

/// Upstream `PodRequests`: container aggregate, pod-level requests replacing cpu/memory (and
/// hugepages) when set, plus `spec.overhead`.
pub fn pod_requests(pod: &Pod, opts: PodResourcesOptions) -> ResourceMap {
    let mut reqs = if opts.use_status {
        let spec = aggregate_with(pod, true, spec_requests);
        let allocated = aggregate_with(pod, true, allocated_requests);
        let actuated = aggregate_with(pod, true, actuated_requests);
        let mut out = ResourceMap::new();
        if !is_pod_resize_infeasible(pod) {
            max_resource_list(&mut out, &spec);
        }
        max_resource_list(&mut out, &actuated);
        max_resource_list(&mut out, &allocated);
        out
    } else {
        aggregate_with(pod, false, spec_requests)
    };
    if opts.pod_level && pod_level_requests_set(pod_level(pod)) {
        add_pod_level_requests(&mut reqs, pod);
    }
    add_resource_list(
        &mut reqs,
        &parse_list(pod.spec.as_ref().and_then(|s| s.overhead.as_ref())),
    );
    reqs
}

/// The pod-level requests of supported resources, replacing the container aggregate's.
pub fn add_pod_level_requests(reqs: &mut ResourceMap, pod: &Pod) {
    for (k, q) in requests_of(pod_level(pod)) {
        if is_supported_pod_level_resource(&k) {
            reqs.insert(k, q);
        }
    }
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
        let r = pod_requests(&p, PodResourcesOptions::default());
        assert_eq!(cpu_mem(&r), (2500, 1 << 30));
        // the aggregate alone (no overhead, no pod level) is the same here
        assert_eq!(
            cpu_mem(&aggregate_container_requests(&crate::podutil::spec(&p))),
            (2500, 1 << 30)
        );
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
            PodResourcesOptions {
                pod_level: true,
                use_status: false,
            },
        );
        assert_eq!(cpu_mem(&with), (3100, 1 << 30));
        let without = pod_requests(&p, PodResourcesOptions::default());
        assert_eq!(cpu_mem(&without), (1100, 1 << 30));
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
            PodResourcesOptions {
                pod_level: true,
                use_status: true,
            },
        );
        assert_eq!(cpu_mem(&r).0, 2000);
    }

    #[test]
    fn pod_level_predicates_count_only_supported_resources() {
        let with = |yaml: &str| pod(&format!("spec:\n  resources: {yaml}\n  containers: []\n"));
        assert!(pod_level_resources_set(pod_level(&with("{requests: {cpu: 1}}"))));
        assert!(pod_level_resources_set(pod_level(&with(
            "{limits: {hugepages-2Mi: 2Mi}}"
        ))));
        assert!(!pod_level_resources_set(pod_level(&with(
            "{requests: {ephemeral-storage: 1Gi}}"
        ))));
        assert!(!pod_level_requests_set(pod_level(&with(
            "{limits: {memory: 1Gi}}"
        ))));
        assert!(pod_level_limits_set(pod_level(&with("{limits: {memory: 1Gi}}"))));
    }

    #[test]
    fn aggregation_takes_the_init_peak() {
        let spec: PodSpec = serde_yaml_ng::from_str(
            "containers: [{name: a, resources: {requests: {cpu: '1'}}}]\ninitContainers:\n- {name: i, resources: {requests: {cpu: '5'}}}\n- {name: s, restartPolicy: Always, resources: {requests: {cpu: '2'}}}\n",
        )
        .unwrap();
        assert_eq!(
            aggregate_container_requests(&spec)["cpu"],
            Quantity::parse("5").unwrap()
        );
        let spec: PodSpec = serde_yaml_ng::from_str(
            "containers: [{name: a, resources: {requests: {cpu: '1'}}}]\ninitContainers:\n- {name: s, restartPolicy: Always, resources: {requests: {cpu: '2'}}}\n- {name: i, resources: {requests: {cpu: '2'}}}\n",
        )
        .unwrap();
        assert_eq!(
            aggregate_container_requests(&spec)["cpu"],
            Quantity::parse("4").unwrap()
        );
    }

    #[test]
    fn the_first_value_keeps_its_format() {
        let mut acc = ResourceMap::new();
        add_resource_list(
            &mut acc,
            &[("memory".to_owned(), Quantity::parse("4Mi").unwrap())].into(),
        );
        assert_eq!(acc["memory"].to_string(), "4Mi");
    }
}
