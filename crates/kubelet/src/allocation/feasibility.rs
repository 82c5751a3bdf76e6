//! Can the node allocate the change, now or ever? The kubelet's resize admission
//! (`podResizesAdmitHandler.Admit`, `IsInPlacePodVerticalScalingAllowed`,
//! `disallowResizeForSwappableContainers`, the capacity check against
//! `GetNodeAllocatableAbsolute`) decides Infeasible; the general admission predicate
//! (`predicateAdmitHandler.Admit` -> the scheduler's `fitsRequest`) against the other Pods'
//! allocated resources decides Deferred.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Pod};

use super::changes::{ChangeKind, ChangeSet, is_resizable};
use super::node::NodeFacts;
use super::resources::{resource_request, scheduler_value};
use podmut_model::podutil::{init_containers, is_critical, is_static_or_mirror, is_terminal, same_pod, spec};
use podmut_model::qos::{QosClass, get_pod_qos};
use podmut_model::quantity::Quantity;
use podmut_model::resource_helper::{
    PodResourcesOptions, ResourceMap, parse_list, pod_requests, requests_of,
};
use podmut_model::settings::{Gate, Settings};

/// Upstream message: `IsInPlacePodVerticalScalingAllowed` with the gate off.
pub(crate) const MSG_GATE_OFF: &str = "InPlacePodVerticalScaling is disabled";
/// Upstream message: `IsInPlacePodVerticalScalingAllowed` for a static Pod.
pub(crate) const MSG_STATIC: &str = "In-place resize of static-pods is not supported";
/// Upstream message: `IsInPlacePodVerticalScalingAllowed` on Windows (`features_windows.go`).
pub(crate) const MSG_WINDOWS: &str = "In-place pod resize is not supported on Windows";
/// Upstream message: `disallowResizeForSwappableContainers`.
pub(crate) const MSG_SWAP: &str = "In-place resize of containers with swap is not supported.";
/// Upstream message: `IsInPlacePodLevelResourcesVerticalScalingAllowed` with the gate off.
pub(crate) const MSG_POD_LEVEL_GATE_OFF: &str = "InPlacePodLevelResourcesVerticalScaling is disabled";
/// podmut's message, in upstream's `<Gate> is disabled` form: a kubelet without DynamicContainers
/// does not allocate container additions or removals (KEP-5972: "blocking dynamic container
/// allocation will also block resize").
pub(crate) const MSG_DYNAMIC_GATE_OFF: &str = "DynamicContainers is disabled";

/// The Pod as the kubelet currently has it allocated: the desired Pod with the allocated parts of
/// the spec put back. Under KEP-5972 the allocation checkpoints whole containers, so the container
/// lists (old images, no added containers, removed containers still present) and the pod-level
/// resources come from the allocation; without DynamicContainers only the resources of resizable
/// containers do (upstream `updatePodFromAllocation`).
pub(crate) fn allocated_view(desired: &Pod, allocated: &Pod, settings: &Settings) -> Pod {
    let mut view = desired.clone();
    let alloc = spec(allocated);
    let Some(vspec) = view.spec.as_mut() else {
        return view;
    };
    if settings.gate(Gate::DynamicContainers) {
        vspec.containers = alloc.containers.clone();
        vspec.init_containers = alloc.init_containers.clone();
        vspec.resources = alloc.resources.clone();
        return view;
    }
    let take = |c: &mut Container, from: &[Container], init: bool| {
        if is_resizable(c, init, settings)
            && let Some(a) = from.iter().find(|a| a.name == c.name)
        {
            c.resources = a.resources.clone();
        }
    };
    for c in &mut vspec.containers {
        take(c, &alloc.containers, false);
    }
    for c in vspec.init_containers.iter_mut().flatten() {
        take(c, init_containers(&alloc), true);
    }
    if settings.gate(Gate::InPlacePodLevelResourcesVerticalScaling) {
        vspec.resources = alloc.resources.clone();
    }
    view
}

fn memory_request(c: &Container) -> Quantity {
    requests_of(c.resources.as_ref())
        .get("memory")
        .cloned()
        .unwrap_or(Quantity::ZERO)
}

/// Upstream `GetContainerSwapBehavior` (Linux): `LimitedSwap` only for a Burstable, non-critical Pod's
/// container that requests memory below its limit.
fn gets_swap(pod: &Pod, c: &Container, node: &NodeFacts, settings: &Settings) -> bool {
    if !node.limited_swap || is_critical(pod) || get_pod_qos(pod, settings) != QosClass::Burstable {
        return false;
    }
    let req = memory_request(c);
    let lim = parse_list(c.resources.as_ref().and_then(|r| r.limits.as_ref()))
        .get("memory")
        .cloned()
        .unwrap_or(Quantity::ZERO);
    !(req.is_zero() && lim.is_zero()) && req != lim
}

fn all_containers(pod: &Pod) -> Vec<Container> {
    let s = spec(pod);
    let mut v = s.containers.clone();
    v.extend(init_containers(&s).iter().cloned());
    v
}

/// Upstream `disallowResizeForSwappableContainers`, plus KEP-5972 ("swap enabled pods are not
/// supported"): a container add or remove is infeasible when any container of the Pod gets swap.
fn swap_blocks(
    desired: &Pod,
    view: &Pod,
    changes: &ChangeSet,
    node: &NodeFacts,
    settings: &Settings,
) -> bool {
    if !node.limited_swap {
        return false;
    }
    let allocated = all_containers(view);
    for d in all_containers(desired) {
        let Some(a) = allocated.iter().find(|a| a.name == d.name) else {
            continue;
        };
        let restart_on_memory = a
            .resize_policy
            .iter()
            .flatten()
            .find(|p| p.resource_name == "memory")
            .is_some_and(|p| p.restart_policy == "RestartContainer");
        if memory_request(&d) != memory_request(a)
            && !restart_on_memory
            && (gets_swap(desired, &d, node, settings) || gets_swap(view, a, node, settings))
        {
            return true;
        }
    }
    changes.is_dynamic()
        && (all_containers(desired)
            .iter()
            .any(|c| gets_swap(desired, c, node, settings))
            || allocated.iter().any(|c| gets_swap(view, c, node, settings)))
}

/// Upstream `guaranteedPodResourceResizeRequired`: a resizable container's request for `resource`
/// differs from its allocation (a container with no allocation counts as zero).
fn guaranteed_resize_required(desired: &Pod, view: &Pod, resource: &str, settings: &Settings) -> bool {
    let s = spec(desired);
    let v = spec(view);
    let list = s
        .containers
        .iter()
        .map(|c| (c, false))
        .chain(init_containers(&s).iter().map(|c| (c, true)));
    for (c, init) in list {
        if !is_resizable(c, init, settings) {
            continue;
        }
        let allocated = v
            .containers
            .iter()
            .chain(init_containers(&v))
            .find(|a| a.name == c.name);
        let want = requests_of(c.resources.as_ref())
            .get(resource)
            .cloned()
            .unwrap_or(Quantity::ZERO);
        let have = allocated
            .map(|a| requests_of(a.resources.as_ref()))
            .and_then(|r| r.get(resource).cloned())
            .unwrap_or(Quantity::ZERO);
        if want != have {
            return true;
        }
    }
    false
}

/// Why the resize admission handler rejects the change as Infeasible, in upstream's order; `None`
/// when it admits it.
pub(crate) fn infeasible(
    desired: &Pod,
    view: &Pod,
    changes: &ChangeSet,
    node: &NodeFacts,
    settings: &Settings,
) -> Option<String> {
    if !settings.gate(Gate::InPlacePodVerticalScaling) {
        return Some(MSG_GATE_OFF.to_owned());
    }
    if is_static_or_mirror(desired) {
        return Some(MSG_STATIC.to_owned());
    }
    if node.is_windows() {
        return Some(MSG_WINDOWS.to_owned());
    }
    if swap_blocks(desired, view, changes, node, settings) {
        return Some(MSG_SWAP.to_owned());
    }
    if changes.has(ChangeKind::ResizePod) && !settings.gate(Gate::InPlacePodLevelResourcesVerticalScaling) {
        return Some(MSG_POD_LEVEL_GATE_OFF.to_owned());
    }
    if get_pod_qos(desired, settings) == QosClass::Guaranteed {
        if !settings.gate(Gate::InPlacePodVerticalScalingExclusiveCPUs)
            && node.static_cpu_manager
            && guaranteed_resize_required(desired, view, "cpu", settings)
        {
            return Some(
                "Resize is infeasible for Guaranteed Pods alongside CPU Manager policy \"static\"".to_owned(),
            );
        }
        if !settings.gate(Gate::InPlacePodVerticalScalingExclusiveMemory)
            && node.static_memory_manager
            && guaranteed_resize_required(desired, view, "memory", settings)
        {
            return Some(
                "Resize is infeasible for Guaranteed Pods alongside Memory Manager policy \"Static\""
                    .to_owned(),
            );
        }
    }
    // The capacity check: total requests against GetNodeAllocatableAbsolute; memory is reported first.
    let pod_level = settings.gate(Gate::PodLevelResources);
    let cpu_req = resource_request(desired, "cpu", pod_level);
    let mem_req = resource_request(desired, "memory", pod_level);
    let cpu_cap = node
        .allocatable_absolute
        .get("cpu")
        .map_or(0, Quantity::milli_value);
    let mem_cap = node.allocatable_absolute.get("memory").map_or(0, Quantity::value);
    if mem_req > mem_cap {
        return Some(format!(
            "Node didn't have enough capacity: memory, requested: {mem_req}, capacity: {mem_cap}"
        ));
    }
    if cpu_req > cpu_cap {
        return Some(format!(
            "Node didn't have enough capacity: cpu, requested: {cpu_req}, capacity: {cpu_cap}"
        ));
    }
    None
}

/// `v1helper.IsExtendedResourceName`: a domain-prefixed name outside `kubernetes.io/`.
fn is_extended(name: &str) -> bool {
    name.contains('/') && !name.contains("kubernetes.io/") && !name.starts_with("requests.")
}

/// `schedutil.IsScalarResourceName`: extended, hugepages, prefixed native and attachable volumes.
fn is_scalar(name: &str) -> bool {
    is_extended(name)
        || name.starts_with("hugepages-")
        || name.contains("kubernetes.io/")
        || name.starts_with("attachable-volumes-")
}

fn value(map: &ResourceMap, name: &str) -> i64 {
    map.get(name).map_or(0, |q| scheduler_value(name, q))
}

/// The general admission predicate for the desired Pod against the other Pods on the node (upstream
/// `fitsRequest`, first failure wins): pod count, cpu, memory, ephemeral storage, then scalar
/// resources by name. `Some(message)` (upstream `InsufficientResourceError.Error()`) means Deferred.
///
/// Pods in a terminal phase are not active and do not count. A Node whose `status.allocatable` has
/// no `pods` entry is not limited in Pod count (podmut's choice for hand-written Nodes; the kubelet
/// always publishes one).
pub(crate) fn predicate(
    desired: &Pod,
    others: &[Pod],
    node: &NodeFacts,
    settings: &Settings,
) -> Option<String> {
    let others: Vec<&Pod> = others
        .iter()
        .filter(|p| !same_pod(p, desired) && !is_terminal(p))
        .collect();
    let used_pods = i64::try_from(others.len()).unwrap_or(i64::MAX);
    let insufficient = |name: &str, requested: i64, used: i64, capacity: i64| {
        format!(
            "Node didn't have enough resource: {name}, requested: {requested}, used: {used}, capacity: {capacity}"
        )
    };
    if let Some(allowed) = node.allocatable.get("pods").map(Quantity::value)
        && used_pods + 1 > allowed
    {
        return Some(insufficient("pods", 1, used_pods, allowed));
    }
    let pod_level = settings.gate(Gate::PodLevelResources);
    let mut request = pod_requests(
        desired,
        PodResourcesOptions {
            pod_level,
            use_status: false,
        },
    );
    // removeMissingExtendedResources: extended resources the node does not know are ignored.
    request.retain(|name, _| !is_extended(name) || node.allocatable.contains_key(name));
    // NodeInfo.Requested: each Pod's requests in scheduler units, summed.
    let mut used: BTreeMap<String, i64> = BTreeMap::new();
    for p in others {
        let r = pod_requests(
            p,
            PodResourcesOptions {
                pod_level,
                use_status: settings.gate(Gate::InPlacePodVerticalScaling),
            },
        );
        for (k, q) in r {
            let e = used.entry(k.clone()).or_insert(0);
            *e = e.saturating_add(scheduler_value(&k, &q));
        }
    }
    let relevant = |name: &str| matches!(name, "cpu" | "memory" | "ephemeral-storage") || is_scalar(name);
    if request
        .iter()
        .all(|(name, q)| !relevant(name) || scheduler_value(name, q) == 0)
    {
        return None;
    }
    let mut order: Vec<String> = vec!["cpu".into(), "memory".into(), "ephemeral-storage".into()];
    order.extend(request.keys().filter(|k| is_scalar(k)).cloned());
    for name in order {
        let req = value(&request, &name);
        let cap = value(&node.allocatable, &name);
        let in_use = used.get(&name).copied().unwrap_or(0);
        if req > 0 && req > cap.saturating_sub(in_use) {
            return Some(insufficient(&name, req, in_use, cap));
        }
    }
    None
}
