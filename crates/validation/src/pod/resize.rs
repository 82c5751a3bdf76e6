//! The in-place resize rules of `ValidatePodResize` that more than one request path applies
//! (`pods/resize`, and `pods/dynamic`, whose KEP says "container & pod resizes ... The same
//! validation rules apply"): `validateContainerResize`, `dropCPUMemoryResourcesFromContainer`,
//! `isPodResizeRequestSupported` and the pod-level refusal.
//!
//! Upstream: `pkg/apis/core/validation/validation.go`.

use k8s_openapi::api::core::v1::{Container, ContainerResizePolicy, Pod, ResourceRequirements};

use podmut_model::field::{BadValue, ErrorList, FieldError, Path};
use podmut_model::qos::{compute_pod_qos, get_pod_qos};
use podmut_model::quantity::Quantity;
use podmut_model::resource_helper::{ResourceList, limits, requests};
use podmut_model::semantic::normalize_requirements;
use podmut_model::settings::{Gate, MemoryLimitDecrease, Settings};

/// The stable rule ids of the per-container resize checks, so each path reports them under its
/// own names.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ResizeOrigins {
    /// A request present before is gone.
    pub(crate) requests_removed: &'static str,
    /// A limit present before is gone.
    pub(crate) limits_removed: &'static str,
    /// Memory limit decreased or added without a `RestartContainer` policy (legacy setting).
    pub(crate) memory_limit: &'static str,
}

/// `resourcesRemoved`: some resource named in `old` is missing from `new`.
fn resources_removed(new: Option<&ResourceList>, old: Option<&ResourceList>) -> bool {
    old.into_iter()
        .flatten()
        .any(|(k, _)| !new.is_some_and(|n| n.contains_key(k)))
}

/// `validateContainerResize`: requests and limits may not be removed; with the legacy
/// [`MemoryLimitDecrease::Forbid`], a memory limit may not be decreased or added unless the memory
/// resize policy is `RestartContainer`. `path` is `...resources`.
pub(crate) fn validate_container_resize(
    new: Option<&ResourceRequirements>,
    old: Option<&ResourceRequirements>,
    resize_policy: Option<&Vec<ContainerResizePolicy>>,
    path: &Path,
    memory_limit_decrease: MemoryLimitDecrease,
    origins: &ResizeOrigins,
) -> ErrorList {
    let mut errs = ErrorList::new();
    if resources_removed(requests(new), requests(old)) {
        errs.push(
            FieldError::forbidden(&path.child("requests"), "resource requests cannot be removed")
                .with_origin(origins.requests_removed),
        );
    }
    if resources_removed(limits(new), limits(old)) {
        errs.push(
            FieldError::forbidden(&path.child("limits"), "resource limits cannot be removed")
                .with_origin(origins.limits_removed),
        );
    }
    if memory_limit_decrease == MemoryLimitDecrease::Forbid {
        errs.extend(memory_limit_decrease_errors(
            new,
            old,
            resize_policy,
            path,
            origins,
        ));
    }
    errs
}

/// The origins of [`validate_pod_level_resize`]'s errors.
pub(crate) struct PodLevelOrigins {
    /// Pod-level resources, requests or limits present before are gone.
    pub(crate) removed: &'static str,
    /// Something but cpu and memory changed at pod level.
    pub(crate) only_cpu_memory: &'static str,
}

/// `validatePodLevelResourcesResize` (with the pod-level resize gate): [`pod_level_removals`], and
/// only cpu and memory may change at pod level.
pub(crate) fn validate_pod_level_resize(
    new: Option<&ResourceRequirements>,
    old: Option<&ResourceRequirements>,
    origins: &PodLevelOrigins,
) -> ErrorList {
    let mut errs = pod_level_removals(new, old, origins.removed);
    if old.is_some() && new.is_none() {
        return errs;
    }
    // Upstream masks only a block that is there (`dropCPUMemoryResourceRequirementsUpdates`).
    let masked = new.and_then(|n| drop_pod_level_cpu_memory(Some(n), old));
    if !podmut_model::semantic::requirements_eq(masked.as_ref(), old) {
        errs.push(
            FieldError::forbidden(
                &Path::new("spec"),
                "only cpu and memory resources are mutable at pod-level",
            )
            .with_origin(origins.only_cpu_memory),
        );
    }
    errs
}

/// Pod-level resources, their requests and their limits may not be removed by a resize.
pub(crate) fn pod_level_removals(
    new: Option<&ResourceRequirements>,
    old: Option<&ResourceRequirements>,
    origin: &'static str,
) -> ErrorList {
    let path = Path::new("spec").child("resources");
    let forbid = |path: &Path, detail: &str| FieldError::forbidden(path, detail).with_origin(origin);
    let Some(old) = old else {
        return ErrorList::new();
    };
    let Some(new) = new else {
        return vec![forbid(&path, "pod-level resources cannot be removed")];
    };
    let mut errs = ErrorList::new();
    if resources_removed(new.requests.as_ref(), old.requests.as_ref()) {
        errs.push(forbid(
            &path.child("requests"),
            "pod-level resource requests cannot be removed",
        ));
    }
    if resources_removed(new.limits.as_ref(), old.limits.as_ref()) {
        errs.push(forbid(
            &path.child("limits"),
            "pod-level resource limits cannot be removed",
        ));
    }
    errs
}

/// 1.33's special case: memory limits may not be decreased (or added: a decrease from
/// "unlimited") unless the memory resize policy is `RestartContainer`.
fn memory_limit_decrease_errors(
    new: Option<&ResourceRequirements>,
    old: Option<&ResourceRequirements>,
    resize_policy: Option<&Vec<ContainerResizePolicy>>,
    path: &Path,
    origins: &ResizeOrigins,
) -> ErrorList {
    let memory_policy = resize_policy
        .into_iter()
        .flatten()
        .find(|p| p.resource_name == "memory")
        .map_or("", |p| p.restart_policy.as_str());
    if memory_policy == "RestartContainer" {
        return ErrorList::new();
    }
    let new_limit = limits(new).and_then(|l| l.get("memory"));
    let old_limit = limits(old).and_then(|l| l.get("memory"));
    let mem_path = path.child("limits").key("memory");
    let detail = match (new_limit, old_limit) {
        (Some(n), Some(o)) => match (Quantity::from_k8s(n), Quantity::from_k8s(o)) {
            (Ok(n), Ok(o)) if n < o => {
                "memory limits cannot be decreased unless resizePolicy is RestartContainer"
            }
            _ => return ErrorList::new(),
        },
        (Some(_), None) => "memory limits cannot be added unless resizePolicy is RestartContainer",
        _ => return ErrorList::new(),
    };
    vec![FieldError::forbidden(&mem_path, detail).with_origin(origins.memory_limit)]
}

/// `dropCPUMemoryUpdates` (newest): the new list without cpu and memory, plus the old cpu and memory.
fn drop_cpu_memory_updates(new: Option<&ResourceList>, old: Option<&ResourceList>) -> Option<ResourceList> {
    let mut m = new.cloned().unwrap_or_default();
    m.remove("cpu");
    m.remove("memory");
    if let Some(old) = old {
        for k in ["cpu", "memory"] {
            if let Some(q) = old.get(k) {
                m.insert(k.to_owned(), q.clone());
            }
        }
    }
    if m.is_empty() && old.is_none() {
        None
    } else {
        Some(m)
    }
}

/// `dropCPUMemoryResourcesFromContainer`: `c` with its cpu and memory requests and limits taken from
/// `old`. Like upstream it rebuilds the requirements from limits and requests, so claims are dropped.
pub(crate) fn drop_cpu_memory_resources(c: &Container, old: &Container) -> Container {
    drop_cpu_memory_resources_keeping(c, old, false)
}

/// [`drop_cpu_memory_resources`]; `keep_claims`: the container's resource claims stay (1.37), where
/// up to 1.36 the copy loses them.
pub(crate) fn drop_cpu_memory_resources_keeping(
    c: &Container,
    old: &Container,
    keep_claims: bool,
) -> Container {
    let mut m = c.clone();
    m.resources = normalize_requirements(Some(ResourceRequirements {
        limits: drop_cpu_memory_updates(limits(c.resources.as_ref()), limits(old.resources.as_ref())),
        requests: drop_cpu_memory_updates(requests(c.resources.as_ref()), requests(old.resources.as_ref())),
        claims: if keep_claims {
            c.resources.as_ref().and_then(|r| r.claims.clone())
        } else {
            None
        },
    }));
    m
}

/// Pod-level cpu and memory taken from `old` (the pod-level analogue of
/// [`drop_cpu_memory_resources`]; claims are not allowed at pod level).
pub(crate) fn drop_pod_level_cpu_memory(
    new: Option<&ResourceRequirements>,
    old: Option<&ResourceRequirements>,
) -> Option<ResourceRequirements> {
    normalize_requirements(Some(ResourceRequirements {
        limits: drop_cpu_memory_updates(limits(new), limits(old)),
        requests: drop_cpu_memory_updates(requests(new), requests(old)),
        claims: new.and_then(|r| r.claims.clone()),
    }))
}

/// `ValidatePodResize`'s own `isPodLevelResourcesSet` closure (1.33): `spec.resources` has *any*
/// request or limit. Unlike `resourcehelper.IsPodLevelResourcesSet`
/// ([`podmut_model::resource_helper::pod_level_resources_set`]) an unsupported resource counts too.
pub(crate) fn pod_level_resources_present(pod: &Pod) -> bool {
    let r = pod.spec.as_ref().and_then(|s| s.resources.as_ref());
    requests(r).is_some_and(|l| !l.is_empty()) || limits(r).is_some_and(|l| !l.is_empty())
}

/// `isPodResizeRequestSupported`, the version-skew guard: when the first running container's status
/// has no `resources`, the node predates in-place resize. No running container: assume support.
pub(crate) fn node_supports_resize(old: &Pod) -> bool {
    old.status
        .iter()
        .flat_map(|s| s.container_statuses.iter().flatten())
        .find(|s| s.state.as_ref().is_some_and(|st| st.running.is_some()))
        .is_none_or(|s| s.resources.is_some())
}

/// Whether pod-level resources may be resized (`InPlacePodLevelResourcesVerticalScaling` with
/// `PodLevelResources`).
pub(crate) fn pod_level_resize_enabled(settings: &Settings) -> bool {
    settings.gate(Gate::InPlacePodLevelResourcesVerticalScaling) && settings.gate(Gate::PodLevelResources)
}

/// `ValidatePodResize`'s QoS rule: the class the old Pod has (`GetPodQOS`) must be the class the new
/// spec computes (`ComputePodQOS`); `Invalid spec` with the new Pod's `status.qosClass` as the value.
pub(crate) fn qos_change_error(
    new: &Pod,
    old: &Pod,
    settings: &Settings,
    detail: &str,
    origin: &'static str,
) -> Option<FieldError> {
    if get_pod_qos(old, settings) == compute_pod_qos(new, settings) {
        return None;
    }
    let qos = new
        .status
        .as_ref()
        .and_then(|s| s.qos_class.clone())
        .unwrap_or_default();
    Some(FieldError::invalid(&Path::new("spec"), BadValue::Str(qos), detail).with_origin(origin))
}
