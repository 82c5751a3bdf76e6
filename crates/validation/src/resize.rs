//! `pods/resize`: in-place changes of container cpu and memory (KEP-1287), `ValidatePodResize`.
//!
//! The pipeline: the strategy step ([`prepare_update`], `dropNonResizeUpdates`), the options derived
//! from the old Pod, the shared validation (`ValidateObjectMetaUpdate`, then
//! `validatePodMetadataAndSpec` of the new Pod), then this path's own rules, with the per-container
//! rules shared with `pods/dynamic` in [`crate::pod::resize`].
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
//!   `spec.resources` cannot be resized at all (`Forbidden []`). Up to 1.34 that refusal comes first
//!   and alone ("pods with pod-level resources cannot be resized"); from 1.35 it follows the static,
//!   Windows, QoS and node checks and joins the errors found so far ("resize of pods with pod-level
//!   resources is forbidden when InPlacePodLevelResourcesVerticalScalingEnabled feature gate is
//!   disabled"). With the gate (alpha, KEP-5419, whose API validation podmut could not read)
//!   pod-level cpu and memory resize like a container's: they may change or be added, not be
//!   removed, and nothing else at pod level may change.
//! - **Adding a non-cpu/memory resource to a container that had none** is rejected
//!   (kubernetes#135084; older releases let it through).
//! - **Container resource claims**: upstream's `dropCPUMemoryResourcesFromContainer` rebuilds the
//!   requirements from limits and requests only, so a container that uses a DRA claim cannot be
//!   resized at all ("only cpu and memory resources are mutable"; kubernetes#138641 proposes a fix).
//!   podmut reports what the API server does today.
//! - Containers and init containers may not be added, removed, renamed or reordered
//!   (`validatePodResizeContainerOrdering`; the REST layer passes such requests through unchanged):
//!   those errors end the validation (origin `resize/container-list`).
//!
//! With `InPlacePodVerticalScaling` off the subresource is not served: a single `Forbidden []`.

use k8s_openapi::api::core::v1::{Container, Pod, PodSpec};

use crate::pod::resize::{
    PodLevelOrigins, ResizeOrigins, drop_cpu_memory_resources_keeping, drop_pod_level_cpu_memory,
    node_supports_resize, pod_level_resize_enabled, pod_level_resources_present, qos_change_error,
    validate_container_resize, validate_pod_level_resize,
};
use crate::pod::{PodValidationOptions, validate_object_meta_update, validate_pod_metadata_and_spec};
use crate::strategy::{Prepared, not_served};
use podmut_model::field::{ErrorList, FieldError, Path};
use podmut_model::podutil::{
    init_containers, is_mirror_pod, is_restartable_init, is_windows, spec as spec_of,
};
use podmut_model::request_path::Subresource;
use podmut_model::semantic::{containers_eq, specs_eq};
use podmut_model::settings::{Gate, Settings};

/// The origins `pods/resize` reports.
const RESIZE_ORIGINS: ResizeOrigins = ResizeOrigins {
    requests_removed: "resize/requests-removed",
    limits_removed: "resize/limits-removed",
    memory_limit: "resize/memory-limit-decrease",
};

/// The origins of the pod-level checks `pods/resize` reports.
const POD_LEVEL_ORIGINS: PodLevelOrigins = PodLevelOrigins {
    removed: "resize/pod-level-removed",
    only_cpu_memory: "resize/pod-level-only-cpu-memory",
};

/// `ValidatePodResize(new, old, opts)` (newest behaviour; see the module documentation).
///
/// Call it on the Pod [`prepare_update`] returns, as the API server does.
pub(crate) fn validate_pod_resize(new: &Pod, old: &Pod, settings: &Settings) -> ErrorList {
    if let Some(refusal) = not_served(
        Subresource::Resize,
        Gate::InPlacePodVerticalScaling,
        "resize/gate-disabled",
        settings,
    ) {
        return refusal;
    }
    let opts = PodValidationOptions::for_update(new, old, settings);
    let mut errs = validate_object_meta_update(&new.metadata, &old.metadata, &Path::new("metadata"), &opts);
    errs.extend(validate_pod_metadata_and_spec(new, &opts));
    let pod_level = pod_level_resources_present(old) || pod_level_resources_present(new);
    if let Some(refusal) = static_or_windows(old) {
        return vec![refusal];
    }
    errs.extend(qos_and_node_support(new, old, settings));
    if pod_level && !pod_level_resize_enabled(settings) {
        errs.push(refuse(
            "resize of pods with pod-level resources is forbidden when InPlacePodLevelResourcesVerticalScalingEnabled feature gate is disabled",
            "resize/pod-level-resources",
        ));
        return errs;
    }
    let (ns, os) = (spec_of(new), spec_of(old));
    if pod_level {
        errs.extend(validate_pod_level_resize(
            ns.resources.as_ref(),
            os.resources.as_ref(),
            &POD_LEVEL_ORIGINS,
        ));
    }
    let ordering = container_ordering(&ns, &os);
    if !ordering.is_empty() {
        errs.extend(ordering);
        return errs;
    }
    let sidecars = settings.gate(Gate::SidecarContainers);
    errs.extend(removals(&ns, &os, sidecars, settings));
    only_cpu_memory_mutable(&ns, &os, sidecars, settings, errs)
}

/// A whole-Pod refusal: `Forbidden []`.
fn refuse(detail: &str, origin: &'static str) -> FieldError {
    FieldError::forbidden(&Path::root(), detail).with_origin(origin)
}

/// Static Pods and Windows Pods cannot be resized: their refusal is the only error.
fn static_or_windows(old: &Pod) -> Option<FieldError> {
    if is_mirror_pod(old) {
        return Some(refuse("static pods cannot be resized", "resize/static-pod"));
    }
    is_windows(old).then(|| refuse("windows pods cannot be resized", "resize/windows"))
}

/// `validatePodResizeContainerOrdering`: containers and init containers may be neither added,
/// removed, renamed nor reordered (the rest of the validation pairs them by index).
fn container_ordering(ns: &PodSpec, os: &PodSpec) -> ErrorList {
    let spec_path = Path::new("spec");
    let mut errs = ErrorList::new();
    for (field, new, old) in [
        ("containers", ns.containers.as_slice(), os.containers.as_slice()),
        ("initContainers", init_containers(ns), init_containers(os)),
    ] {
        let path = spec_path.child(field);
        if new.len() != old.len() {
            errs.push(
                FieldError::forbidden(&path, format!("{field} may not be added or removed on resize"))
                    .with_origin("resize/container-list"),
            );
            continue;
        }
        for (i, (n, o)) in new.iter().zip(old).enumerate() {
            if n.name != o.name {
                errs.push(
                    FieldError::forbidden(
                        &path.index(i).child("name"),
                        format!("{field} may not be renamed or reordered on resize"),
                    )
                    .with_origin("resize/container-list"),
                );
            }
        }
    }
    errs
}

/// The QoS class may not change; the node must support resize (the version-skew guard).
fn qos_and_node_support(new: &Pod, old: &Pod, settings: &Settings) -> ErrorList {
    let spec_path = Path::new("spec");
    let mut errs = ErrorList::new();
    errs.extend(qos_change_error(
        new,
        old,
        settings,
        "Pod QOS Class may not change as a result of resizing",
        "resize/qos-class",
    ));
    if !node_supports_resize(old) {
        errs.push(
            FieldError::forbidden(&spec_path, "Pod running on node without support for resize")
                .with_origin("resize/node-support"),
        );
    }
    errs
}

/// Removing requests/limits (and, legacy, decreasing memory limits), per sidecar and container.
fn removals(ns: &PodSpec, os: &PodSpec, sidecars: bool, settings: &Settings) -> ErrorList {
    let spec_path = Path::new("spec");
    let mut errs = ErrorList::new();
    let check = |nc: &Container, oc: &Container, path: Path| {
        validate_container_resize(
            nc.resources.as_ref(),
            oc.resources.as_ref(),
            nc.resize_policy.as_ref(),
            &path.child("resources"),
            settings.memory_limit_decrease,
            &RESIZE_ORIGINS,
        )
    };
    let init_resize = settings.gate(Gate::InPlacePodVerticalScalingInitContainers);
    if sidecars {
        for (ix, (oc, nc)) in init_containers(os).iter().zip(init_containers(ns)).enumerate() {
            if is_restartable_init(oc) || init_resize {
                errs.extend(check(nc, oc, spec_path.child("initContainers").index(ix)));
            }
        }
    }
    for (ix, (oc, nc)) in os.containers.iter().zip(&ns.containers).enumerate() {
        errs.extend(check(nc, oc, spec_path.child("containers").index(ix)));
    }
    errs
}

/// Only cpu and memory may change: per container and sidecar, then (only when nothing else was
/// reported, like upstream) the whole spec with cpu and memory taken from the old Pod.
fn only_cpu_memory_mutable(
    ns: &PodSpec,
    os: &PodSpec,
    sidecars: bool,
    settings: &Settings,
    mut errs: ErrorList,
) -> ErrorList {
    let spec_path = Path::new("spec");
    let release = settings.release();
    let keep_claims = release >= 37;
    let forbid = |errs: &mut ErrorList, detail: &str, origin: &'static str| {
        errs.push(FieldError::forbidden(&spec_path, detail).with_origin(origin));
    };
    let mut munged = ns.clone();
    for (ix, c) in munged.containers.iter_mut().enumerate() {
        let Some(oc) = os.containers.get(ix) else { continue };
        *c = drop_cpu_memory_resources_keeping(c, oc, keep_claims);
        if !containers_eq(c, oc) {
            forbid(
                &mut errs,
                "only cpu and memory resources are mutable",
                "resize/only-cpu-memory",
            );
        }
    }
    if sidecars {
        let old_init = init_containers(os);
        let init_resize = settings.gate(Gate::InPlacePodVerticalScalingInitContainers);
        for (ix, c) in munged.init_containers.iter_mut().flatten().enumerate() {
            let Some(oc) = old_init.get(ix) else { continue };
            let restartable = is_restartable_init(c);
            let modified = !containers_eq(c, oc);
            if restartable || init_resize {
                *c = drop_cpu_memory_resources_keeping(c, oc, keep_claims);
                let at = spec_path.child("initContainers").index(ix);
                if !containers_eq(c, oc) && release >= 36 {
                    errs.push(
                        FieldError::forbidden(
                            &at,
                            "only cpu and memory resources for init or sidecar containers are mutable",
                        )
                        .with_origin("resize/sidecar-only-cpu-memory"),
                    );
                } else if !containers_eq(c, oc) {
                    forbid(
                        &mut errs,
                        "only cpu and memory resources for sidecar containers are mutable",
                        "resize/sidecar-only-cpu-memory",
                    );
                }
                if modified && !restartable {
                    for policy in c.resize_policy.iter().flatten() {
                        if policy.restart_policy == "RestartContainer" {
                            errs.push(
                                FieldError::forbidden(
                                    &at,
                                    "non-sidecar init containers with a resize policy of RestartContainer cannot be resized",
                                )
                                .with_origin("resize/init-restart-container"),
                            );
                        }
                    }
                }
            } else if modified {
                forbid(
                    &mut errs,
                    "resources for non-sidecar init containers are immutable",
                    "resize/init-immutable",
                );
            }
        }
    }
    if pod_level_resize_enabled(settings) {
        munged.resources = drop_pod_level_cpu_memory(ns.resources.as_ref(), os.resources.as_ref());
    }
    if errs.is_empty() && !specs_eq(&munged, os) {
        forbid(
            &mut errs,
            "only cpu and memory resources are mutable",
            "resize/only-cpu-memory",
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
pub(crate) fn prepare_update(new: &Pod, old: &Pod, settings: &Settings) -> Prepared {
    let ns = spec_of(new);
    let os = spec_of(old);
    let new_init = init_containers(&ns);
    let old_init = init_containers(&os);
    if ns.containers.len() != os.containers.len() || new_init.len() != old_init.len() {
        return Prepared::unchanged(new);
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
    let mut prepared = Prepared::stored_with_spec(new, old, spec);
    if settings.gate(Gate::PodLevelResourcesFixDefaulting)
        && let Some(spec) = prepared.pod.spec.as_mut()
    {
        // 1.37: a request that drops pod-level resources keeps the stored ones, and the rest are
        // defaulted from the resized containers.
        if spec.resources.is_none() {
            spec.resources.clone_from(&os.resources);
        }
        podmut_model::defaults::default_pod_level_resources(spec, settings);
    }
    prepared
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ResourceRequirements;
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
    use podmut_model::document::parse_pod;
    use podmut_model::field::ErrorType;
    use podmut_model::settings::MemoryLimitDecrease;

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
        let mut s = Settings::default();
        s.apply_defaults = false;
        s
    }

    fn check(old: &Pod, new: &Pod, settings: &Settings) -> crate::pod::util::Summary {
        crate::pod::util::summary(&validate_pod_resize(new, old, settings))
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
        let mut legacy = no_defaults();
        legacy.memory_limit_decrease = MemoryLimitDecrease::Forbid;
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
        let mut v135 = Settings::parse("kubernetesVersion: '1.35'").unwrap();
        v135.apply_defaults = false;
        assert_eq!(
            check(
                &mk("{}", "{cpu: 100m}", "", pl),
                &mk("{}", "{cpu: 50m}", "", pl),
                &v135
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
                "resize/pod-level-removed"
            )
        );
        let hugepages = mk(
            "{}",
            "{cpu: 100m}",
            "",
            "  resources: {limits: {cpu: 200m, memory: 200Mi, hugepages-2Mi: 2Mi}}\n",
        );
        assert_eq!(
            check(&old, &hugepages, &s),
            one(ErrorType::Forbidden, "spec", "resize/pod-level-only-cpu-memory")
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
            podmut_model::resource_helper::limits(c.resources.as_ref())
                .and_then(|l| l.get("cpu"))
                .map(|q| q.0.as_str()),
            Some("200m")
        );
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }
}
