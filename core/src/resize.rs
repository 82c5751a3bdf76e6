//! `pods/resize`: in-place changes of container cpu and memory (KEP-1287), `ValidatePodResize`.
//!
//! Upstream: `pkg/apis/core/validation/validation.go` (`ValidatePodResize`,
//! `validateContainerResize`, `resourcesRemoved`, `dropCPUMemoryResourcesFromContainer`,
//! `isPodResizeRequestSupported`) and `pkg/registry/core/pod/strategy.go` (`dropNonResizeUpdates`).
//! The newest behaviour is implemented; where upstream changed across releases the older behaviour
//! is a setting or a gate:
//!
//! - **Memory-limit decreases** with a `NotRequired` (or unset) memory resize policy: allowed since
//!   Kubernetes 1.34 (kubernetes#133012, KEP-1287 "Memory Limit Decreases": the kubelet makes a
//!   best-effort usage check instead). `settings.memoryLimitDecrease: forbid` restores 1.33's
//!   `Forbidden ...resources.limits[memory]` ("memory limits cannot be decreased / added unless
//!   resizePolicy is RestartContainer"; adding a limit is a decrease from "unlimited").
//! - **Pod-level resources**: without `InPlacePodLevelResourcesVerticalScaling` a Pod with pod-level
//!   `spec.resources` cannot be resized at all (`Forbidden []`). With the gate (alpha, KEP-5419, whose
//!   API validation podmut could not read) pod-level cpu and memory resize like a container's: they
//!   may change or be added, not be removed, and nothing else at pod level may change.
//! - **Adding a non-cpu/memory resource to a container that had none** is rejected
//!   (kubernetes#135084; older releases let it through).
//! - **Container resource claims**: upstream's `dropCPUMemoryResourcesFromContainer` rebuilds the
//!   requirements from limits and requests only, so a container that uses a DRA claim cannot be
//!   resized at all ("only cpu and memory resources are mutable"; kubernetes#138641 proposes a fix).
//!   podmut reports what the API server does today.
//! - A request that adds or removes containers would make upstream index out of range (the REST
//!   layer passes such requests through unchanged); podmut answers `Forbidden spec.containers`
//!   instead (origin `resize/container-list`).
//!
//! With `InPlacePodVerticalScaling` off the subresource is not served: a single `Forbidden []`.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, ContainerResizePolicy, Pod, PodSpec, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::pod::{is_static_pod, spec_of};
use crate::qos::{compute_pod_qos, get_pod_qos};
use crate::quantity::Quantity;
use crate::semantic::semantic_eq;
use crate::settings::{Gate, MemoryLimitDecrease, Settings};
use crate::subresource::{Prepared, is_windows, reset_object_meta_for_status, validate_update_basics};

type ResourceList = BTreeMap<String, K8sQuantity>;

/// The stable rule ids of the per-container resize checks, so `pods/dynamic` can reuse them under its
/// own names.
#[derive(Clone, Copy, Debug)]
pub struct ResizeOrigins {
    /// A request present before is gone.
    pub requests_removed: &'static str,
    /// A limit present before is gone.
    pub limits_removed: &'static str,
    /// Memory limit decreased or added without a `RestartContainer` policy (legacy setting).
    pub memory_limit: &'static str,
}

/// The origins `pods/resize` reports.
pub const RESIZE_ORIGINS: ResizeOrigins = ResizeOrigins {
    requests_removed: "resize/requests-removed",
    limits_removed: "resize/limits-removed",
    memory_limit: "resize/memory-limit-decrease",
};

fn requests(r: Option<&ResourceRequirements>) -> Option<&ResourceList> {
    r.and_then(|r| r.requests.as_ref())
}

fn limits(r: Option<&ResourceRequirements>) -> Option<&ResourceList> {
    r.and_then(|r| r.limits.as_ref())
}

/// `resourcesRemoved`: some resource named in `old` is missing from `new`.
fn resources_removed(new: Option<&ResourceList>, old: Option<&ResourceList>) -> bool {
    let empty = ResourceList::new();
    let new = new.unwrap_or(&empty);
    old.unwrap_or(&empty).keys().any(|k| !new.contains_key(k))
}

/// Whether an init container is a sidecar (`restartPolicy: Always`).
pub fn is_restartable(c: &Container) -> bool {
    c.restart_policy.as_deref() == Some("Always")
}

/// `validateContainerResize`: requests and limits may not be removed; with the legacy
/// [`MemoryLimitDecrease::Forbid`] setting, a memory limit may not be decreased or added unless the
/// memory resize policy is `RestartContainer`. `path` is `...resources`.
pub fn validate_container_resize(
    new: Option<&ResourceRequirements>,
    old: Option<&ResourceRequirements>,
    resize_policy: Option<&Vec<ContainerResizePolicy>>,
    path: &Path,
    settings: &Settings,
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
    if settings.memory_limit_decrease == MemoryLimitDecrease::Forbid {
        let memory_policy = resize_policy
            .into_iter()
            .flatten()
            .find(|p| p.resource_name == "memory")
            .map_or("", |p| p.restart_policy.as_str());
        if memory_policy != "RestartContainer" {
            let new_limit = limits(new).and_then(|l| l.get("memory"));
            let old_limit = limits(old).and_then(|l| l.get("memory"));
            let mem_path = path.child("limits").key("memory");
            match (new_limit, old_limit) {
                (Some(n), Some(o)) => {
                    if let (Ok(n), Ok(o)) = (Quantity::from_k8s(n), Quantity::from_k8s(o))
                        && n < o
                    {
                        errs.push(
                            FieldError::forbidden(
                                &mem_path,
                                "memory limits cannot be decreased unless resizePolicy is RestartContainer",
                            )
                            .with_origin(origins.memory_limit),
                        );
                    }
                }
                (Some(_), None) => errs.push(
                    FieldError::forbidden(
                        &mem_path,
                        "memory limits cannot be added unless resizePolicy is RestartContainer",
                    )
                    .with_origin(origins.memory_limit),
                ),
                _ => {}
            }
        }
    }
    errs
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

/// Requirements with nothing set are Go's zero value, the same as no requirements.
fn normalize_requirements(r: Option<ResourceRequirements>) -> Option<ResourceRequirements> {
    r.filter(|r| {
        r.limits.as_ref().is_some_and(|l| !l.is_empty())
            || r.requests.as_ref().is_some_and(|l| !l.is_empty())
            || r.claims.as_ref().is_some_and(|l| !l.is_empty())
    })
}

/// `dropCPUMemoryResourcesFromContainer`: `c` with its cpu and memory requests and limits taken from
/// `old`. Like upstream it rebuilds the requirements from limits and requests, so claims are dropped.
pub fn drop_cpu_memory_resources(c: &Container, old: &Container) -> Container {
    let mut m = c.clone();
    let lim = drop_cpu_memory_updates(limits(c.resources.as_ref()), limits(old.resources.as_ref()));
    let req = drop_cpu_memory_updates(requests(c.resources.as_ref()), requests(old.resources.as_ref()));
    m.resources = normalize_requirements(Some(ResourceRequirements {
        limits: lim,
        requests: req,
        claims: None,
    }));
    m
}

/// Pod-level cpu and memory taken from `old` (the pod-level analogue of
/// [`drop_cpu_memory_resources`]; claims are not allowed at pod level).
pub fn drop_pod_level_cpu_memory(
    new: Option<&ResourceRequirements>,
    old: Option<&ResourceRequirements>,
) -> Option<ResourceRequirements> {
    normalize_requirements(Some(ResourceRequirements {
        limits: drop_cpu_memory_updates(limits(new), limits(old)),
        requests: drop_cpu_memory_updates(requests(new), requests(old)),
        claims: new.and_then(|r| r.claims.clone()),
    }))
}

/// A container with Go's zero-valued requirements normalised to none, for comparisons.
pub fn normalized_container(c: &Container) -> Container {
    let mut c = c.clone();
    c.resources = normalize_requirements(c.resources.take());
    c
}

/// Semantic equality of two containers (`resources: {}` equals no resources, as in Go).
pub fn containers_eq(a: &Container, b: &Container) -> bool {
    semantic_eq(&normalized_container(a), &normalized_container(b))
}

/// Semantic equality of two specs, with containers normalised as in [`containers_eq`].
pub fn specs_eq(a: &PodSpec, b: &PodSpec) -> bool {
    semantic_eq(&normalized_spec(a), &normalized_spec(b))
}

fn normalized_spec(s: &PodSpec) -> PodSpec {
    let mut s = s.clone();
    for c in s
        .containers
        .iter_mut()
        .chain(s.init_containers.iter_mut().flatten())
    {
        c.resources = normalize_requirements(c.resources.take());
    }
    s.resources = normalize_requirements(s.resources.take());
    s
}

/// Whether pod-level requests or limits are set (`isPodLevelResourcesSet`).
pub fn pod_level_resources_set(pod: &Pod) -> bool {
    pod.spec
        .as_ref()
        .and_then(|s| s.resources.as_ref())
        .is_some_and(|r| {
            r.requests.as_ref().map_or(0, BTreeMap::len) + r.limits.as_ref().map_or(0, BTreeMap::len) > 0
        })
}

/// `isPodResizeRequestSupported`, the version-skew guard: when the first running container's status
/// has no `resources`, the node predates in-place resize. No running container: assume support.
pub fn node_supports_resize(old: &Pod) -> bool {
    for s in old
        .status
        .iter()
        .flat_map(|s| s.container_statuses.iter().flatten())
    {
        if s.state.as_ref().is_some_and(|st| st.running.is_some()) {
            return s.resources.is_some();
        }
    }
    true
}

/// Whether pod-level resources may be resized (`InPlacePodLevelResourcesVerticalScaling` with
/// `PodLevelResources`).
pub fn pod_level_resize_enabled(settings: &Settings) -> bool {
    settings.gate(Gate::InPlacePodLevelResourcesVerticalScaling) && settings.gate(Gate::PodLevelResources)
}

/// `ValidatePodResize(new, old)` (newest behaviour; see the module documentation).
///
/// Call it on the Pod [`prepare_update`] returns, as the API server does.
pub fn validate_pod_resize(new: &Pod, old: &Pod, settings: &Settings) -> ErrorList {
    if !settings.gate(Gate::InPlacePodVerticalScaling) {
        return vec![
            FieldError::forbidden(
                &Path::root(),
                "the pods/resize subresource is not served: the InPlacePodVerticalScaling feature gate is disabled",
            )
            .with_origin("resize/gate-disabled"),
        ];
    }
    let mut errs = validate_update_basics(new, old, settings, false);

    let pod_level = pod_level_resize_enabled(settings);
    if !pod_level && (pod_level_resources_set(old) || pod_level_resources_set(new)) {
        return vec![
            FieldError::forbidden(&Path::root(), "pods with pod-level resources cannot be resized")
                .with_origin("resize/pod-level-resources"),
        ];
    }
    if is_static_pod(old) {
        return vec![
            FieldError::forbidden(&Path::root(), "static pods cannot be resized")
                .with_origin("resize/static-pod"),
        ];
    }
    if is_windows(old) {
        return vec![
            FieldError::forbidden(&Path::root(), "windows pods cannot be resized")
                .with_origin("resize/windows"),
        ];
    }

    let spec_path = Path::new("spec");
    let ns = spec_of(new);
    let os = spec_of(old);
    let sidecars = settings.gate(Gate::SidecarContainers);
    let empty = Vec::new();
    let new_init = ns.init_containers.as_ref().unwrap_or(&empty);
    let old_init = os.init_containers.as_ref().unwrap_or(&empty);
    if ns.containers.len() != os.containers.len() || (sidecars && new_init.len() != old_init.len()) {
        let list = if ns.containers.len() != os.containers.len() {
            "containers"
        } else {
            "initContainers"
        };
        errs.push(
            FieldError::forbidden(
                &spec_path.child(list),
                "pod updates may not add or remove containers",
            )
            .with_origin("resize/container-list"),
        );
        return errs;
    }

    if get_pod_qos(old, settings) != compute_pod_qos(new, settings) {
        let qos = new
            .status
            .as_ref()
            .and_then(|s| s.qos_class.clone())
            .unwrap_or_default();
        errs.push(
            FieldError::invalid(
                &spec_path,
                BadValue::Str(qos),
                "Pod QOS Class may not change as a result of resizing",
            )
            .with_origin("resize/qos-class"),
        );
    }
    if !node_supports_resize(old) {
        errs.push(
            FieldError::forbidden(&spec_path, "Pod running on node without support for resize")
                .with_origin("resize/node-support"),
        );
    }

    // Removing requests/limits (and, legacy, decreasing memory limits).
    if sidecars {
        for (ix, (oc, nc)) in old_init.iter().zip(new_init).enumerate() {
            if !is_restartable(oc) {
                continue;
            }
            errs.extend(validate_container_resize(
                nc.resources.as_ref(),
                oc.resources.as_ref(),
                nc.resize_policy.as_ref(),
                &spec_path.child("initContainers").index(ix).child("resources"),
                settings,
                &RESIZE_ORIGINS,
            ));
        }
    }
    for (ix, (oc, nc)) in os.containers.iter().zip(&ns.containers).enumerate() {
        errs.extend(validate_container_resize(
            nc.resources.as_ref(),
            oc.resources.as_ref(),
            nc.resize_policy.as_ref(),
            &spec_path.child("containers").index(ix).child("resources"),
            settings,
            &RESIZE_ORIGINS,
        ));
    }
    if pod_level {
        errs.extend(validate_container_resize(
            ns.resources.as_ref(),
            os.resources.as_ref(),
            None,
            &spec_path.child("resources"),
            &Settings {
                // no resize policy exists at pod level; only removals are checked
                memory_limit_decrease: MemoryLimitDecrease::Allow,
                ..settings.clone()
            },
            &RESIZE_ORIGINS,
        ));
    }

    // Only cpu and memory may change.
    let mut munged = ns.clone().into_owned();
    for (ix, c) in munged.containers.iter_mut().enumerate() {
        let Some(oc) = os.containers.get(ix) else { continue };
        *c = drop_cpu_memory_resources(c, oc);
        if !containers_eq(c, oc) {
            errs.push(
                FieldError::forbidden(&spec_path, "only cpu and memory resources are mutable")
                    .with_origin("resize/only-cpu-memory"),
            );
        }
    }
    if sidecars {
        for (ix, c) in munged.init_containers.iter_mut().flatten().enumerate() {
            let Some(oc) = old_init.get(ix) else { continue };
            if is_restartable(c) {
                *c = drop_cpu_memory_resources(c, oc);
                if !containers_eq(c, oc) {
                    errs.push(
                        FieldError::forbidden(
                            &spec_path,
                            "only cpu and memory resources for sidecar containers are mutable",
                        )
                        .with_origin("resize/sidecar-only-cpu-memory"),
                    );
                }
            } else if !containers_eq(c, oc) {
                errs.push(
                    FieldError::forbidden(
                        &spec_path,
                        "resources for non-sidecar init containers are immutable",
                    )
                    .with_origin("resize/init-immutable"),
                );
            }
        }
    }
    if pod_level {
        munged.resources = drop_pod_level_cpu_memory(ns.resources.as_ref(), os.resources.as_ref());
    }
    if !errs.is_empty() {
        return errs;
    }
    if !specs_eq(&munged, &os) {
        errs.push(
            FieldError::forbidden(&spec_path, "only cpu and memory resources are mutable")
                .with_origin("resize/only-cpu-memory"),
        );
    }
    errs
}

/// `dropNonResizeUpdatesForContainers`: the old containers with the new `resources` and
/// `resizePolicy`; the new list unchanged when a container was renamed or reordered (validation
/// then rejects it).
fn drop_non_resize_updates_for_containers(new: &[Container], old: &[Container]) -> Vec<Container> {
    if new.is_empty() {
        return new.to_vec();
    }
    let mut merged = old.to_vec();
    for (m, n) in merged.iter_mut().zip(new) {
        if m.name != n.name {
            return new.to_vec();
        }
        m.resources.clone_from(&n.resources);
        m.resize_policy.clone_from(&n.resize_policy);
    }
    merged
}

/// The REST layer's `PrepareForUpdate` for `pods/resize` (`dropNonResizeUpdates`): the stored Pod
/// with the request's container `resources` and `resizePolicy` (init containers only with
/// `SidecarContainers`; pod-level `spec.resources` with `InPlacePodLevelResourcesVerticalScaling`, a
/// KEP-5419 extension). A request that adds or removes containers is passed through unchanged.
pub fn prepare_update(new: &Pod, old: &Pod, settings: &Settings) -> Prepared {
    let ns = spec_of(new);
    let os = spec_of(old);
    let empty = Vec::new();
    let new_init = ns.init_containers.as_ref().unwrap_or(&empty);
    let old_init = os.init_containers.as_ref().unwrap_or(&empty);
    if ns.containers.len() != os.containers.len() || new_init.len() != old_init.len() {
        return Prepared {
            pod: new.clone(),
            warnings: Vec::new(),
        };
    }
    let containers = drop_non_resize_updates_for_containers(&ns.containers, &os.containers);
    let init = drop_non_resize_updates_for_containers(new_init, old_init);
    let mut spec = os.clone().into_owned();
    spec.containers = containers;
    if settings.gate(Gate::SidecarContainers) && ns.init_containers.is_some() {
        spec.init_containers = Some(init);
    }
    if pod_level_resize_enabled(settings) {
        spec.resources.clone_from(&ns.resources);
    }
    let mut pod = new.clone();
    pod.spec = Some(spec);
    pod.status.clone_from(&old.status);
    reset_object_meta_for_status(&mut pod.metadata, &old.metadata);
    Prepared::new(
        new,
        pod,
        "pods/resize applies only container resources and resizePolicy",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::parse_pod;
    use crate::field::ErrorType;

    /// A MakePod-style Pod: container `container` with the given requests and limits.
    fn mk(req: &str, lim: &str, extra_container: &str, extra_spec: &str) -> Pod {
        parse_pod(
            &format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: pod, namespace: default, resourceVersion: '1'}}\nspec:\n  dnsPolicy: ClusterFirst\n  restartPolicy: Always\n  terminationGracePeriodSeconds: 30\n  containers:\n  - {{name: container, image: image, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File, terminationMessagePath: /dev/termination-log, resources: {{requests: {req}, limits: {lim}}}{extra_container}}}\n{extra_spec}"
            ),
            "p",
            1 << 20,
        )
        .unwrap()
    }

    fn no_defaults() -> Settings {
        Settings {
            apply_defaults: false,
            ..Settings::default()
        }
    }

    fn check(old: &Pod, new: &Pod, settings: &Settings) -> Vec<(ErrorType, String, &'static str)> {
        validate_pod_resize(new, old, settings)
            .into_iter()
            .map(|e| (e.error_type, e.field.to_string(), e.origin))
            .collect()
    }

    fn one(t: ErrorType, f: &str, o: &'static str) -> Vec<(ErrorType, String, &'static str)> {
        vec![(t, f.to_owned(), o)]
    }

    #[test]
    fn cpu_and_memory_changes_are_allowed() {
        let s = no_defaults();
        // TestValidatePodResize "cpu limit change", "memory limit increase", "cpu request change"
        assert!(
            check(
                &mk("{}", "{cpu: 100m, memory: '0', ephemeral-storage: 1Gi}", "", ""),
                &mk("{}", "{cpu: 200m, memory: '0', ephemeral-storage: 1Gi}", "", ""),
                &s
            )
            .is_empty()
        );
        assert!(
            check(
                &mk("{}", "{cpu: 100m, memory: 100Mi}", "", ""),
                &mk("{}", "{cpu: 100m, memory: 200Mi}", "", ""),
                &s
            )
            .is_empty()
        );
        assert!(
            check(
                &mk("{cpu: 200m, memory: '0'}", "{}", "", ""),
                &mk("{cpu: 100m, memory: '0'}", "{}", "", ""),
                &s
            )
            .is_empty()
        );
    }

    #[test]
    fn memory_limit_decrease_depends_on_the_setting() {
        let old = mk("{}", "{cpu: 100m, memory: 200Mi}", "", "");
        let new = mk("{}", "{cpu: 100m, memory: 100Mi}", "", "");
        assert!(check(&old, &new, &no_defaults()).is_empty(), "1.34+: allowed");
        let legacy = Settings {
            memory_limit_decrease: MemoryLimitDecrease::Forbid,
            ..no_defaults()
        };
        assert_eq!(
            check(&old, &new, &legacy),
            one(
                ErrorType::Forbidden,
                "spec.containers[0].resources.limits[memory]",
                "resize/memory-limit-decrease"
            )
        );
        // RestartContainer allows it even in legacy mode
        let rc = ", resizePolicy: [{resourceName: memory, restartPolicy: RestartContainer}]";
        let old = mk("{}", "{cpu: 100m, memory: 200Mi}", rc, "");
        let new = mk("{}", "{cpu: 100m, memory: 100Mi}", rc, "");
        assert!(check(&old, &new, &legacy).is_empty());
        // adding a memory limit counts as a decrease
        let old = mk("{cpu: 100m}", "{cpu: 200m}", "", "");
        let new = mk("{cpu: 100m}", "{cpu: 200m, memory: 1Gi}", "", "");
        assert_eq!(check(&old, &new, &legacy).len(), 1);
        assert!(check(&old, &new, &no_defaults()).is_empty());
    }

    #[test]
    fn only_cpu_and_memory_may_change() {
        let s = no_defaults();
        // "storage limit change"
        assert_eq!(
            check(
                &mk("{}", "{cpu: 100m, memory: 100Mi, ephemeral-storage: 2Gi}", "", ""),
                &mk("{}", "{cpu: 100m, memory: 100Mi, ephemeral-storage: 1Gi}", "", ""),
                &s
            ),
            one(ErrorType::Forbidden, "spec", "resize/only-cpu-memory")
        );
        // kubernetes#135084: adding a non-cpu/memory resource to a container without resources
        let bare = parse_pod(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: pod, namespace: default, resourceVersion: '1'}\nspec:\n  dnsPolicy: ClusterFirst\n  restartPolicy: Always\n  terminationGracePeriodSeconds: 30\n  containers: [{name: container, image: image, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File}]\n",
            "p",
            1 << 20,
        )
        .unwrap();
        let mut added = bare.clone();
        if let Some(s) = added.spec.as_mut() {
            s.containers[0].resources = Some(ResourceRequirements {
                requests: Some([("ephemeral-storage".to_owned(), K8sQuantity("1Gi".into()))].into()),
                ..Default::default()
            });
        }
        assert_eq!(
            check(&bare, &added, &s),
            one(ErrorType::Forbidden, "spec", "resize/only-cpu-memory")
        );
        // "change resize restart policy"
        assert_eq!(
            check(
                &mk(
                    "{cpu: 100m}",
                    "{}",
                    ", resizePolicy: [{resourceName: cpu, restartPolicy: NotRequired}]",
                    ""
                ),
                &mk(
                    "{cpu: 100m}",
                    "{}",
                    ", resizePolicy: [{resourceName: cpu, restartPolicy: RestartContainer}]",
                    ""
                ),
                &s
            ),
            one(ErrorType::Forbidden, "spec", "resize/only-cpu-memory")
        );
    }

    #[test]
    fn requests_and_limits_may_not_be_removed() {
        let s = no_defaults();
        assert_eq!(
            check(
                &mk("{}", "{cpu: 100m, memory: 100Mi}", "", ""),
                &mk("{}", "{memory: 100Mi}", "", ""),
                &s
            ),
            one(
                ErrorType::Forbidden,
                "spec.containers[0].resources.limits",
                "resize/limits-removed"
            )
        );
        assert_eq!(
            check(
                &mk("{cpu: 100m, memory: 100Mi}", "{}", "", ""),
                &mk("{memory: 100Mi}", "{}", "", ""),
                &s
            ),
            one(
                ErrorType::Forbidden,
                "spec.containers[0].resources.requests",
                "resize/requests-removed"
            )
        );
    }

    #[test]
    fn qos_class_may_not_change() {
        let s = no_defaults();
        // "Pod QoS change, guaranteed -> burstable"
        assert_eq!(
            check(
                &mk("{cpu: 100m, memory: 100Mi}", "{cpu: 100m, memory: 100Mi}", "", ""),
                &mk("{cpu: 100m, memory: 100Mi}", "{cpu: 200m, memory: 200Mi}", "", ""),
                &s
            ),
            one(ErrorType::Invalid, "spec", "resize/qos-class")
        );
    }

    #[test]
    fn whole_pod_refusals_are_alone_at_the_root() {
        let s = no_defaults();
        let win = "  os: {name: windows}\n";
        assert_eq!(
            check(
                &mk("{}", "{cpu: 100m}", "", win),
                &mk("{}", "{cpu: 200m}", "", win),
                &s
            ),
            one(ErrorType::Forbidden, "[]", "resize/windows")
        );
        let pl = "  resources: {limits: {cpu: 100m, memory: 200Mi}}\n";
        assert_eq!(
            check(
                &mk("{}", "{cpu: 100m}", "", pl),
                &mk("{}", "{cpu: 50m}", "", pl),
                &s
            ),
            one(ErrorType::Forbidden, "[]", "resize/pod-level-resources")
        );
        let mut gate = no_defaults();
        gate.feature_gates.set(Gate::InPlacePodVerticalScaling, false);
        assert_eq!(
            check(
                &mk("{}", "{cpu: 100m}", "", ""),
                &mk("{}", "{cpu: 100m}", "", ""),
                &gate
            ),
            one(ErrorType::Forbidden, "[]", "resize/gate-disabled")
        );
    }

    #[test]
    fn pod_level_resize_with_the_gate() {
        let mut s = no_defaults();
        s.feature_gates
            .set(Gate::InPlacePodLevelResourcesVerticalScaling, true);
        let old = mk(
            "{}",
            "{cpu: 100m}",
            "",
            "  resources: {limits: {cpu: 200m, memory: 200Mi}}\n",
        );
        let new = mk(
            "{}",
            "{cpu: 100m}",
            "",
            "  resources: {limits: {cpu: 400m, memory: 200Mi}}\n",
        );
        assert!(check(&old, &new, &s).is_empty());
        let removed = mk("{}", "{cpu: 100m}", "", "  resources: {limits: {cpu: 400m}}\n");
        assert_eq!(
            check(&old, &removed, &s),
            one(
                ErrorType::Forbidden,
                "spec.resources.limits",
                "resize/limits-removed"
            )
        );
    }

    #[test]
    fn skew_guard_needs_status_resources_of_the_first_running_container() {
        let s = no_defaults();
        let status = |res: &str| {
            format!(
                "status:\n  containerStatuses:\n  - {{name: container, image: image, imageID: '', ready: true, restartCount: 0, state: {{running: {{}}}}{res}}}\n"
            )
        };
        let old = mk("{}", "{cpu: 100m}", "", &status(""));
        let new = mk("{}", "{cpu: 200m}", "", "");
        assert_eq!(
            check(&old, &new, &s),
            one(ErrorType::Forbidden, "spec", "resize/node-support")
        );
        let old = mk("{}", "{cpu: 100m}", "", &status(", resources: {}"));
        assert!(check(&old, &new, &s).is_empty());
    }

    #[test]
    fn prepare_keeps_only_resources() {
        let old = mk("{}", "{cpu: 100m}", "", "");
        let mut new = mk("{}", "{cpu: 200m}", "", "");
        if let Some(s) = new.spec.as_mut() {
            s.containers[0].image = Some("other".into());
        }
        let p = prepare_update(&new, &old, &no_defaults());
        let c = &spec_of(&p.pod).containers[0];
        assert_eq!(c.image.as_deref(), Some("image"));
        assert_eq!(
            limits(c.resources.as_ref())
                .and_then(|l| l.get("cpu"))
                .map(|q| q.0.as_str()),
            Some("200m")
        );
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].contains("spec.containers[0].image"));
    }
}
