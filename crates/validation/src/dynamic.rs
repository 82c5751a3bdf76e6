//! `pods/dynamic` (KEP-5972 Dynamic Containers): add and remove main containers of a running Pod.
//!
//! No upstream code exists yet (the KEP is a draft targeting 1.38); every rule here follows the KEP
//! text ("Dynamic Subresource", "Limitations", "Allocation") and reuses the upstream rules it points
//! to: "standard pod validation applies to the updated pod", and the subresource allows "updates
//! allowed on the main pod resource" and "container & pod resizes ... The same validation rules
//! apply".
//!
//! # How a request is judged
//!
//! 1. With `DynamicContainers` off the subresource is not served: a single `Forbidden []`
//!    (`dynamic/gate-disabled`); the KEP: "Disabling it will cause the API server to reject
//!    subsequent structural changes to .spec.containers".
//! 2. The update prefix every update shares (`ValidateObjectMetaUpdate`, full validation of the new
//!    Pod — names unique among all containers, volume mounts and claims that exist, resources,
//!    probes, ... — and the annotation rules), with the options derived from the old Pod.
//! 3. Main containers are matched **by name**: a name only in the new Pod is an added container, a
//!    name only in the old Pod a removed one; the others are existing containers.
//! 4. The KEP-5972 limitations (below), and the in-place resize rules (`pods/resize`) for existing
//!    containers whose resources change.
//! 5. The spec-update step of the plain update (`ValidatePodUpdate` after its prefix:
//!    activeDeadlineSeconds, tolerations, scheduling gates, gated-Pod node affinity, the
//!    `Forbidden spec` catch-all for everything else) on a *projection* of the request onto the old
//!    container list: added containers left out, removed ones put back, resized cpu/memory (and,
//!    with `MutableContainerProbes`, probes) taken from the old Pod. Only that step runs on the
//!    projection — step 2 already validated the real Pod — so every error appears once and at the
//!    real Pod's paths.
//!
//! # Rules and field paths
//!
//! Field paths are those upstream reports for the same rule on the main resource; where a rule
//! exists only here, podmut reports at the most specific field:
//!
//! | rule (origin) | error | KEP-5972 |
//! |---|---|---|
//! | `dynamic/gate-disabled` | `Forbidden []` | Feature Enablement |
//! | `dynamic/windows` | `Forbidden []`, only error | "Windows is not supported" (as `pods/resize`) |
//! | `dynamic/static-pod` | `Forbidden []`, only error | as `pods/resize` (static Pods follow their manifest) |
//! | `dynamic/pod-level-resources` | `Forbidden []`, only error | as `pods/resize` without pod-level resize |
//! | `dynamic/deletion-timestamp` | `Forbidden spec.containers` | "cannot be made once a DeletionTimestamp is set" |
//! | `dynamic/pod-running` | `Forbidden spec.containers` | "must be in the Running phase" |
//! | `dynamic/pod-initialized` | `Forbidden spec.containers` | "must be in an initialized state" |
//! | `dynamic/init-containers` | `Forbidden spec.initContainers` | "Only main containers can be added or removed" |
//! | `dynamic/name-in-status` | `Duplicate spec.containers[i].name` | "unique among all containers AND all container statuses" |
//! | `dynamic/no-privileged` | `Forbidden spec.containers[i].securityContext.privileged` | "Privileged containers cannot be added" |
//! | `dynamic/no-host-ports` | `Forbidden spec.containers[i].ports[j].hostPort` | "HostPorts cannot be used by newly added containers" |
//! | `dynamic/resources-supported` | `Forbidden spec.containers[i].resources.{requests,limits}[name]` | "only request resources that are supported by in-place resize" |
//! | `dynamic/existing-volumes` | `NotFound spec.containers[i].volumeMounts[j].name` (also `volumeDevices`) | "only mount volumes ... already mounted/claimed by the pod" |
//! | `dynamic/existing-claims` | `NotFound spec.containers[i].resources.claims[j]` | "name ResourceClaims already ... claimed by the pod" |
//! | `dynamic/container-mutation` | `Forbidden spec.containers[i]` | "does not allow for general container mutation" |
//! | `dynamic/probes-terminating` | `Forbidden spec.containers[i].<probe>` | KEP-6318 "API Behavior" (as on the main resource) |
//! | `dynamic/qos-class` | `Invalid spec` | "cannot change the QOS class of the pod" |
//! | `dynamic/node-support` | `Forbidden spec` | `pods/resize` version-skew guard, for resizes |
//! | `dynamic/resize-*` | as `pods/resize` | "container & pod resizes ... The same validation rules apply" |
//! | `strict/*` (with `securityContextEscalation: forbid`) | `Forbidden spec.containers[i].securityContext.<field>` | "No SecurityContext escalations" ([`crate::strict`]) |
//!
//! `spec.containers` may not become empty: full validation already reports `Required
//! spec.containers`, so no second error is added. The added-container checks apply only where full
//! validation is silent: a volume, device or claim missing from the new Pod too is already `NotFound`
//! there; one that the request adds to the Pod is reported here (and the Pod-level change is also
//! rejected by the plain-update catch-all, since volumes and claims are immutable). On a `hostNetwork`
//! Pod defaulting sets every port's `hostPort`, so added containers there may not declare ports.
//! Deletion, phase and initialization guard **adding and removing** containers: image changes and
//! resizes through `pods/dynamic` stay as allowed as on the main resource and `pods/resize` (the KEP:
//! "Allocation will be halted once a pod enters a terminating state", "Resizing pods in a graceful
//! shutdown state is permitted"). Swap is only known to the kubelet (allocation is `Infeasible`).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{Container, Pod, PodSpec};

use crate::pod::probes::ProbeKind;
use crate::pod::resize::{
    ResizeOrigins, drop_cpu_memory_resources, drop_pod_level_cpu_memory, node_supports_resize,
    pod_level_removals, pod_level_resize_enabled, pod_level_resources_present, qos_change_error,
    validate_container_resize,
};
use crate::pod::{PodValidationOptions, validate_spec_update, validate_update_prefix};
use crate::strategy::{Prepared, not_served};
use podmut_model::field::{ErrorList, FieldError, Path};
use podmut_model::podutil::{
    init_containers, is_initialized, is_mirror_pod, is_restartable_init, is_windows, phase, spec as spec_of,
};
use podmut_model::request_path::Subresource;
use podmut_model::semantic::{containers_eq, diff_paths, requirements_eq, semantic_eq};
use podmut_model::settings::{Gate, SecurityContextEscalation, Settings};

/// The resize origins `pods/dynamic` reports.
const DYNAMIC_RESIZE_ORIGINS: ResizeOrigins = ResizeOrigins {
    requests_removed: "dynamic/resize-requests-removed",
    limits_removed: "dynamic/resize-limits-removed",
    memory_limit: "dynamic/resize-memory-limit-decrease",
};

/// The detail of `dynamic/container-mutation`.
const MUTATION_DETAIL: &str = "pods/dynamic may not change an existing container except its image, its cpu and memory resources and (with MutableContainerProbes) its probes; remove it and add a container with another name instead";

/// The liveness, readiness and startup probes of `from`, copied into `into`.
fn copy_probes(into: &mut Container, from: &Container) {
    for kind in ProbeKind::ALL {
        kind.of_mut(into).clone_from(&kind.of(from).cloned());
    }
}

/// KEP-6318: probe changes are rejected on Pods with a deletionTimestamp or in a terminal phase.
fn probes_frozen(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_some() || matches!(phase(pod), "Succeeded" | "Failed")
}

/// KEP-6318's restriction for one existing container (main or sidecar): no probe changes on a
/// deleting or terminated Pod.
fn check_probe_changes(new: &Container, old: &Container, path: &Path, frozen: bool, errs: &mut ErrorList) {
    for kind in ProbeKind::ALL {
        if frozen && !semantic_eq(&kind.of(new).cloned(), &kind.of(old).cloned()) {
            errs.push(
                FieldError::forbidden(
                    &path.child(kind.field()),
                    "probes may not be changed on a pod that has a deletionTimestamp or has terminated",
                )
                .with_origin("dynamic/probes-terminating"),
            );
        }
    }
}

/// The names of every container status of the old Pod (main, init and ephemeral).
fn status_names(pod: &Pod) -> BTreeSet<&str> {
    podmut_model::order::set_from(
        pod.status
            .iter()
            .flat_map(|s| {
                s.container_statuses
                    .iter()
                    .chain(&s.init_container_statuses)
                    .chain(&s.ephemeral_container_statuses)
                    .flatten()
            })
            .map(|s| s.name.as_str()),
    )
}

/// The KEP-5972 checks of one added container at `path` (`spec.containers[i]`).
fn check_added_container(
    c: &Container,
    path: &Path,
    old: &Pod,
    new: &Pod,
    statuses: &BTreeSet<&str>,
    errs: &mut ErrorList,
) {
    let ns = spec_of(new);
    let os = spec_of(old);
    if statuses.contains(c.name.as_str()) {
        errs.push(
            FieldError::duplicate(&path.child("name"), c.name.as_str()).with_origin("dynamic/name-in-status"),
        );
    }
    if c.security_context.as_ref().and_then(|s| s.privileged) == Some(true) {
        errs.push(
            FieldError::forbidden(
                &path.child("securityContext").child("privileged"),
                "privileged containers may not be added to a running pod",
            )
            .with_origin("dynamic/no-privileged"),
        );
    }
    for (j, p) in c.ports.iter().flatten().enumerate() {
        if p.host_port.is_some_and(|h| h != 0) {
            errs.push(
                FieldError::forbidden(
                    &path.child("ports").index(j).child("hostPort"),
                    "host ports may not be used by containers added to a running pod",
                )
                .with_origin("dynamic/no-host-ports"),
            );
        }
    }
    if let Some(r) = c.resources.as_ref() {
        for (list, field) in [(&r.requests, "requests"), (&r.limits, "limits")] {
            for name in list.iter().flat_map(BTreeMap::keys) {
                if name != "cpu" && name != "memory" {
                    errs.push(
                        FieldError::forbidden(
                            &path.child("resources").child(field).key(name),
                            "containers added to a running pod may only set cpu and memory, the resources in-place resize supports",
                        )
                        .with_origin("dynamic/resources-supported"),
                    );
                }
            }
        }
    }
    let volumes = |s: &k8s_openapi::api::core::v1::PodSpec| -> BTreeSet<String> {
        podmut_model::order::set_from(s.volumes.iter().flatten().map(|v| v.name.clone()))
    };
    let (old_volumes, new_volumes) = (volumes(&os), volumes(&ns));
    let mounts = c.volume_mounts.iter().flatten().map(|m| m.name.as_str());
    let devices = c.volume_devices.iter().flatten().map(|d| d.name.as_str());
    for (field, names) in [
        ("volumeMounts", mounts.collect::<Vec<_>>()),
        ("volumeDevices", devices.collect::<Vec<_>>()),
    ] {
        for (j, name) in names.into_iter().enumerate() {
            if new_volumes.contains(name) && !old_volumes.contains(name) {
                errs.push(
                    FieldError::not_found(&path.child(field).index(j).child("name"), name)
                        .with_origin("dynamic/existing-volumes"),
                );
            }
        }
    }
    let claims = |s: &k8s_openapi::api::core::v1::PodSpec| -> BTreeSet<String> {
        podmut_model::order::set_from(s.resource_claims.iter().flatten().map(|c| c.name.clone()))
    };
    let (old_claims, new_claims) = (claims(&os), claims(&ns));
    for (j, claim) in c
        .resources
        .iter()
        .flat_map(|r| r.claims.iter().flatten())
        .enumerate()
    {
        if new_claims.contains(&claim.name) && !old_claims.contains(&claim.name) {
            let mut e = FieldError::not_found(
                &path.child("resources").child("claims").index(j),
                claim.name.as_str(),
            )
            .with_origin("dynamic/existing-claims");
            let known: Vec<&str> = old_claims.iter().map(String::as_str).collect();
            e.detail = if known.is_empty() {
                "must be one of the names in the running pod's spec.resourceClaims which is empty".to_owned()
            } else {
                format!(
                    "must be one of the names in the running pod's spec.resourceClaims: {}",
                    known.join(", ")
                )
            };
            errs.push(e);
        }
    }
}

/// Validate a `pods/dynamic` update (KEP-5972; see the module documentation for every rule).
///
/// Call it on the Pod [`prepare_update`] returns, as the API server would.
pub(crate) fn validate_dynamic_update(new: &Pod, old: &Pod, settings: &Settings) -> ErrorList {
    if let Some(refusal) = not_served(
        Subresource::Dynamic,
        Gate::DynamicContainers,
        "dynamic/gate-disabled",
        settings,
    ) {
        return refusal;
    }
    let opts = PodValidationOptions::for_update(new, old, settings);
    let mut errs = validate_update_prefix(new, old, &opts);
    let change = DynamicChange::of(new, old, settings);
    if let Some(refusal) = change.whole_pod_refusal() {
        return vec![refusal];
    }
    errs.extend(change.structural_guards());
    let statuses = status_names(old);
    let strict = settings.security_context_escalation == SecurityContextEscalation::Forbid;
    for &i in &change.added {
        check_added_container(
            &change.new_spec.containers[i],
            &Path::new("spec").child("containers").index(i),
            old,
            new,
            &statuses,
            &mut errs,
        );
        if strict {
            errs.extend(crate::strict::check_added_container(
                &change.new_spec.containers[i],
                &Path::new("spec").child("containers").index(i),
                new,
                old,
            ));
        }
    }
    let mut projection = Projection::of_old(&change.old_spec);
    change.check_existing_containers(&mut projection, &mut errs);
    change.check_sidecars(&mut projection, &mut errs);
    change.check_pod_level(&mut projection, &mut errs);
    errs.extend(change.qos_and_node_support(projection.resized));

    // Everything else as on the main resource: only the spec-update step, on the projection.
    let mut projected = new.clone();
    projected.metadata = old.metadata.clone();
    projected.spec = Some(projection.into_spec(&change.new_spec, &change.old_spec));
    projected.status.clone_from(&old.status);
    errs.extend(validate_spec_update(&projected, old, settings));
    errs
}

/// A `pods/dynamic` request seen as KEP-5972 sees it: main containers matched **by name** into
/// added, removed and existing ones, and whether anything is resized.
struct DynamicChange<'a> {
    new: &'a Pod,
    old: &'a Pod,
    new_spec: std::borrow::Cow<'a, PodSpec>,
    old_spec: std::borrow::Cow<'a, PodSpec>,
    settings: &'a Settings,
    /// (new index, old index) of each existing container.
    existing: Vec<(usize, usize)>,
    /// New indexes of added containers.
    added: Vec<usize>,
    /// Containers are added or removed.
    structural: bool,
    /// The init containers keep their names and order.
    init_names_eq: bool,
    /// The pod-level requirements change.
    pod_level_changed: bool,
    /// Some requirements (container, sidecar or pod level) change.
    resized: bool,
}

impl<'a> DynamicChange<'a> {
    fn of(new: &'a Pod, old: &'a Pod, settings: &'a Settings) -> Self {
        let (new_spec, old_spec) = (spec_of(new), spec_of(old));
        let mut old_index: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, c) in old_spec.containers.iter().enumerate() {
            old_index.entry(c.name.as_str()).or_insert(i);
        }
        let mut matched = BTreeSet::new();
        let mut existing = Vec::new();
        let mut added = Vec::new();
        for (i, c) in new_spec.containers.iter().enumerate() {
            match old_index.get(c.name.as_str()) {
                Some(&o) if matched.insert(o) => existing.push((i, o)),
                _ => added.push(i),
            }
        }
        let removed = (0..old_spec.containers.len()).any(|o| !matched.contains(&o));
        let (new_init, old_init) = (init_containers(&new_spec), init_containers(&old_spec));
        let init_names_eq =
            new_init.len() == old_init.len() && new_init.iter().zip(old_init).all(|(n, o)| n.name == o.name);
        let pod_level_changed = !requirements_eq(new_spec.resources.as_ref(), old_spec.resources.as_ref());
        let resized = pod_level_changed
            || existing
                .iter()
                .any(|&(n, o)| !container_requirements_eq(&new_spec.containers[n], &old_spec.containers[o]))
            || (init_names_eq
                && new_init
                    .iter()
                    .zip(old_init)
                    .any(|(n, o)| !container_requirements_eq(n, o)));
        Self {
            new,
            old,
            settings,
            structural: !added.is_empty() || removed,
            existing,
            added,
            init_names_eq,
            pod_level_changed,
            resized,
            new_spec,
            old_spec,
        }
    }

    fn gate(&self, gate: Gate) -> bool {
        self.settings.gate(gate)
    }

    /// Whole-Pod refusals, alone at the root like `pods/resize`.
    fn whole_pod_refusal(&self) -> Option<FieldError> {
        let refuse = |detail: &str, origin: &'static str| {
            Some(FieldError::forbidden(&Path::root(), detail).with_origin(origin))
        };
        if self.structural || self.resized {
            if is_windows(self.old) {
                return refuse(
                    "windows pods do not support dynamic containers or in-place resize",
                    "dynamic/windows",
                );
            }
            if is_mirror_pod(self.old) {
                return refuse(
                    "static pods do not support dynamic containers or in-place resize",
                    "dynamic/static-pod",
                );
            }
        }
        if self.resized
            && !pod_level_resize_enabled(self.settings)
            && (pod_level_resources_present(self.old) || pod_level_resources_present(self.new))
        {
            return refuse(
                "pods with pod-level resources cannot be resized",
                "dynamic/pod-level-resources",
            );
        }
        None
    }

    /// Deletion, phase and initialization guard adding and removing containers; init containers
    /// are never added, removed, renamed or reordered.
    fn structural_guards(&self) -> ErrorList {
        let mut errs = ErrorList::new();
        let containers_path = Path::new("spec").child("containers");
        let forbid = |errs: &mut ErrorList, detail: String, origin: &'static str| {
            errs.push(FieldError::forbidden(&containers_path, detail).with_origin(origin));
        };
        if self.structural {
            let old = self.old;
            if old.metadata.deletion_timestamp.is_some() || self.new.metadata.deletion_timestamp.is_some() {
                forbid(
                    &mut errs,
                    "containers may not be added or removed once the pod has a deletionTimestamp".to_owned(),
                    "dynamic/deletion-timestamp",
                );
            }
            if phase(old) != "Running" {
                let shown = if phase(old).is_empty() {
                    "unset"
                } else {
                    phase(old)
                };
                forbid(
                    &mut errs,
                    format!(
                        "containers may only be added or removed while the pod is Running (phase: {shown})"
                    ),
                    "dynamic/pod-running",
                );
            }
            if !is_initialized(old) {
                forbid(
                    &mut errs,
                    "containers may only be added or removed once the pod is initialized (condition Initialized=True)"
                        .to_owned(),
                    "dynamic/pod-initialized",
                );
            }
        }
        if !self.init_names_eq {
            errs.push(
                FieldError::forbidden(
                    &Path::new("spec").child("initContainers"),
                    "pods/dynamic may not add, remove, rename or reorder init containers",
                )
                .with_origin("dynamic/init-containers"),
            );
        }
        errs
    }

    /// Existing containers: image, cpu/memory and probes only.
    fn check_existing_containers(&self, projection: &mut Projection, errs: &mut ErrorList) {
        let containers_path = Path::new("spec").child("containers");
        let (ippr, mcp) = (
            self.gate(Gate::InPlacePodVerticalScaling),
            self.gate(Gate::MutableContainerProbes),
        );
        let frozen = probes_frozen(self.old) || probes_frozen(self.new);
        for &(n, o) in &self.existing {
            let (nc, oc) = (&self.new_spec.containers[n], &self.old_spec.containers[o]);
            let path = containers_path.index(n);
            if let Some(e) = mutation_error(nc, oc, ippr, mcp, &path) {
                errs.push(e);
                continue;
            }
            if !container_requirements_eq(nc, oc) {
                projection.resized = true;
                errs.extend(self.container_resize(nc, oc, &path.child("resources")));
            }
            if mcp {
                check_probe_changes(nc, oc, &path, frozen, errs);
            }
            if let Some(slot) = projection.containers.get_mut(o) {
                let mut p = nc.clone();
                p.resources.clone_from(&oc.resources);
                if mcp {
                    copy_probes(&mut p, oc);
                }
                *slot = p;
            }
        }
    }

    /// Sidecars resize (and change probes) as on `pods/resize` and the main resource.
    fn check_sidecars(&self, projection: &mut Projection, errs: &mut ErrorList) {
        if !self.init_names_eq {
            return;
        }
        let (ippr, mcp) = (
            self.gate(Gate::InPlacePodVerticalScaling),
            self.gate(Gate::MutableContainerProbes),
        );
        let frozen = probes_frozen(self.old) || probes_frozen(self.new);
        let init_path = Path::new("spec").child("initContainers");
        let old_init = init_containers(&self.old_spec);
        for (ix, (nc, oc)) in init_containers(&self.new_spec).iter().zip(old_init).enumerate() {
            let mut p = nc.clone();
            if is_restartable_init(oc) && self.gate(Gate::SidecarContainers) {
                if ippr && !container_requirements_eq(nc, oc) {
                    projection.resized = true;
                    errs.extend(self.container_resize(nc, oc, &init_path.index(ix).child("resources")));
                    p.resources = drop_cpu_memory_resources(nc, oc).resources;
                }
                if mcp {
                    check_probe_changes(nc, oc, &init_path.index(ix), frozen, errs);
                    copy_probes(&mut p, oc);
                }
            }
            if let Some(slot) = projection.init_containers.get_mut(ix) {
                *slot = p;
            }
        }
    }

    /// Pod-level cpu and memory resize like a container's (with the pod-level resize gate).
    fn check_pod_level(&self, projection: &mut Projection, errs: &mut ErrorList) {
        if !(pod_level_resize_enabled(self.settings) && self.pod_level_changed) {
            return;
        }
        let (new, old) = (self.new_spec.resources.as_ref(), self.old_spec.resources.as_ref());
        errs.extend(pod_level_removals(new, old, "dynamic/resize-pod-level-removed"));
        projection.pod_level = Some(drop_pod_level_cpu_memory(new, old));
        projection.resized = true;
    }

    fn container_resize(&self, new: &Container, old: &Container, path: &Path) -> ErrorList {
        validate_container_resize(
            new.resources.as_ref(),
            old.resources.as_ref(),
            new.resize_policy.as_ref(),
            path,
            self.settings.memory_limit_decrease,
            &DYNAMIC_RESIZE_ORIGINS,
        )
    }

    /// The QoS class may not change; a resize needs a node that supports it.
    fn qos_and_node_support(&self, resized_existing: bool) -> ErrorList {
        let spec_path = Path::new("spec");
        let mut errs = ErrorList::new();
        errs.extend(qos_change_error(
            self.new,
            self.old,
            self.settings,
            "Pod QOS Class may not change as a result of adding, removing or resizing containers",
            "dynamic/qos-class",
        ));
        if resized_existing && !node_supports_resize(self.old) {
            errs.push(
                FieldError::forbidden(&spec_path, "Pod running on node without support for resize")
                    .with_origin("dynamic/node-support"),
            );
        }
        errs
    }
}

/// `dynamic/container-mutation`: an existing container changed in more than its image, its cpu and
/// memory (with `InPlacePodVerticalScaling`) and its probes (with `MutableContainerProbes`).
fn mutation_error(nc: &Container, oc: &Container, ippr: bool, mcp: bool, path: &Path) -> Option<FieldError> {
    let mut munged = nc.clone();
    munged.image.clone_from(&oc.image);
    if ippr {
        let claims = nc.resources.as_ref().and_then(|r| r.claims.clone());
        munged = drop_cpu_memory_resources(&munged, oc);
        // Unlike upstream's resize munging, keep the claims: they are compared, not dropped.
        if claims.is_some() {
            munged.resources.get_or_insert_with(Default::default).claims = claims;
        }
    }
    if mcp {
        copy_probes(&mut munged, oc);
    }
    if containers_eq(&munged, oc) {
        return None;
    }
    let changed: Vec<String> = diff_paths(oc, &munged);
    Some(
        FieldError::forbidden(
            path,
            format!("{MUTATION_DETAIL}\n  changed: {}", changed.join(", ")),
        )
        .with_origin("dynamic/container-mutation"),
    )
}

/// The request projected onto the old container lists, for the plain-update step: added
/// containers left out, removed ones put back, and what `pods/dynamic` may change taken from the
/// old Pod.
struct Projection {
    containers: Vec<Container>,
    init_containers: Vec<Container>,
    /// The projected pod-level requirements, when pod-level resources are resized.
    pod_level: Option<Option<k8s_openapi::api::core::v1::ResourceRequirements>>,
    /// Some existing container, sidecar or the pod level is resized.
    resized: bool,
}

impl Projection {
    fn of_old(old: &PodSpec) -> Self {
        Self {
            containers: old.containers.clone(),
            init_containers: init_containers(old).to_vec(),
            pod_level: None,
            resized: false,
        }
    }

    fn into_spec(self, new: &PodSpec, old: &PodSpec) -> PodSpec {
        let mut spec = new.clone();
        spec.containers = self.containers;
        if new.init_containers.is_some() || old.init_containers.is_some() {
            spec.init_containers = Some(self.init_containers);
        }
        if let Some(r) = self.pod_level {
            spec.resources = r;
        }
        spec
    }
}

/// Whether two containers' requirements are semantically equal (Go's zero value equals none).
fn container_requirements_eq(a: &Container, b: &Container) -> bool {
    requirements_eq(a.resources.as_ref(), b.resources.as_ref())
}

/// The REST layer's `PrepareForUpdate` a `pods/dynamic` strategy would have, like the main
/// resource's: the request with the stored Pod's status.
pub(crate) fn prepare_update(new: &Pod, old: &Pod) -> Prepared {
    let mut pod = new.clone();
    pod.status.clone_from(&old.status);
    Prepared::new(new, pod, "pods/dynamic does not change the status")
}

#[cfg(test)]
mod tests {
    use super::*;
    use podmut_model::document::parse_pod;
    use podmut_model::field::ErrorType;

    const OLD: &str = r#"
apiVersion: v1
kind: Pod
metadata: {name: pool, namespace: default, resourceVersion: "1"}
spec:
  dnsPolicy: ClusterFirst
  restartPolicy: Always
  terminationGracePeriodSeconds: 30
  volumes: [{name: work, emptyDir: {}}]
  initContainers: [{name: prep, image: busybox, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File}]
  containers:
  - {name: agent, image: agent:1, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File, resources: {requests: {cpu: 100m, memory: 64Mi}}}
status:
  phase: Running
  conditions: [{type: Initialized, status: "True"}]
  containerStatuses:
  - {name: agent, image: agent:1, imageID: "", ready: true, restartCount: 0, state: {running: {}}, resources: {}}
  - {name: gone, image: tool:1, imageID: "", ready: false, restartCount: 0, state: {terminated: {exitCode: 0}}}
"#;

    const TOOL: &str = "  - {name: tool, image: tool:1, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File, resources: {requests: {cpu: 50m}}}\n";

    fn pods(edit: impl Fn(&str) -> String) -> (Pod, Pod) {
        let old = parse_pod(OLD, "old", 1 << 20).unwrap();
        let new = parse_pod(&edit(OLD), "new", 1 << 20).unwrap();
        (old, new)
    }

    fn add(extra: &str) -> impl Fn(&str) -> String {
        move |s: &str| s.replace("status:\n", &format!("{extra}status:\n"))
    }

    fn errs(old: &Pod, new: &Pod, settings: &Settings) -> crate::pod::util::Summary {
        crate::pod::util::summary(&validate_dynamic_update(new, old, settings))
    }

    fn origins(old: &Pod, new: &Pod) -> Vec<&'static str> {
        errs(old, new, &Settings::preview())
            .into_iter()
            .map(|e| e.2)
            .collect()
    }

    #[test]
    fn adding_a_worker_to_a_running_pod_is_allowed() {
        let (old, new) = pods(add(TOOL));
        assert!(
            origins(&old, &new).is_empty(),
            "{:?}",
            errs(&old, &new, &Settings::preview())
        );
    }

    #[test]
    fn gate_off_means_no_subresource() {
        let (old, new) = pods(add(TOOL));
        let mut s = Settings::preview();
        s.feature_gates.set(Gate::DynamicContainers, false);
        assert_eq!(
            errs(&old, &new, &s),
            vec![(ErrorType::Forbidden, "[]".into(), "dynamic/gate-disabled")]
        );
    }

    #[test]
    fn pod_must_be_running_initialized_and_not_deleting() {
        let (old, new) = pods(add(TOOL));
        let mut pending = old.clone();
        if let Some(st) = pending.status.as_mut() {
            st.phase = Some("Pending".into());
            st.conditions = None;
        }
        assert_eq!(
            origins(&pending, &new),
            ["dynamic/pod-running", "dynamic/pod-initialized"]
        );
        // The REST strategy copies the stored deletionTimestamp into the new object; do the same.
        let stamp = Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
            Default::default(),
        ));
        let mut deleting = old;
        deleting.metadata.deletion_timestamp.clone_from(&stamp);
        let mut new = new;
        new.metadata.deletion_timestamp = stamp;
        assert_eq!(origins(&deleting, &new), ["dynamic/deletion-timestamp"]);
    }

    #[test]
    fn names_of_removed_containers_stay_taken_while_their_status_exists() {
        let (old, new) = pods(add(&TOOL.replace("name: tool", "name: gone")));
        assert_eq!(
            errs(&old, &new, &Settings::preview()),
            vec![(
                ErrorType::Duplicate,
                "spec.containers[1].name".into(),
                "dynamic/name-in-status"
            )]
        );
    }

    #[test]
    fn added_containers_are_not_privileged_use_no_host_ports_and_only_cpu_memory() {
        let c = "  - {name: tool, image: tool:1, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File, securityContext: {privileged: true}, ports: [{containerPort: 80, hostPort: 8080, protocol: TCP}], resources: {requests: {cpu: 50m, ephemeral-storage: 1Gi}, limits: {ephemeral-storage: 1Gi}}}\n";
        let (old, new) = pods(add(c));
        assert_eq!(
            errs(&old, &new, &Settings::preview()),
            vec![
                (
                    ErrorType::Forbidden,
                    "spec.containers[1].securityContext.privileged".into(),
                    "dynamic/no-privileged"
                ),
                (
                    ErrorType::Forbidden,
                    "spec.containers[1].ports[0].hostPort".into(),
                    "dynamic/no-host-ports"
                ),
                (
                    ErrorType::Forbidden,
                    "spec.containers[1].resources.requests[ephemeral-storage]".into(),
                    "dynamic/resources-supported"
                ),
                (
                    ErrorType::Forbidden,
                    "spec.containers[1].resources.limits[ephemeral-storage]".into(),
                    "dynamic/resources-supported"
                ),
            ]
        );
    }

    #[test]
    fn added_containers_use_only_existing_volumes() {
        let c = "  - {name: tool, image: tool:1, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File, resources: {requests: {cpu: 50m}}, volumeMounts: [{name: work, mountPath: /w}, {name: extra, mountPath: /e}]}\n";
        let (old, new) = pods(|s| {
            add(c)(s).replace(
                "volumes: [{name: work, emptyDir: {}}]",
                "volumes: [{name: work, emptyDir: {}}, {name: extra, emptyDir: {}}]",
            )
        });
        assert_eq!(
            errs(&old, &new, &Settings::preview()),
            vec![
                (
                    ErrorType::NotFound,
                    "spec.containers[1].volumeMounts[1].name".into(),
                    "dynamic/existing-volumes"
                ),
                (ErrorType::Forbidden, "spec".into(), "update/immutable-spec"),
            ]
        );
    }

    #[test]
    fn existing_containers_change_only_image_resources_and_probes() {
        let (old, new) = pods(|s| {
            s.replace(
                "image: agent:1, imagePullPolicy",
                "image: agent:2, imagePullPolicy",
            )
        });
        assert!(origins(&old, &new).is_empty());
        let (old, new) = pods(|s| {
            s.replace(
                "image: agent:1, imagePullPolicy",
                "image: agent:1, command: [sh], imagePullPolicy",
            )
        });
        assert_eq!(
            errs(&old, &new, &Settings::preview()),
            vec![(
                ErrorType::Forbidden,
                "spec.containers[0]".into(),
                "dynamic/container-mutation"
            )]
        );
        let (old, new) = pods(|s| s.replace("cpu: 100m, memory: 64Mi", "cpu: 200m, memory: 64Mi"));
        assert!(origins(&old, &new).is_empty());
        let (old, new) = pods(|s| {
            s.replace("terminationMessagePolicy: File, resources: {requests: {cpu: 100m", "terminationMessagePolicy: File, readinessProbe: {tcpSocket: {port: 80}, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3}, resources: {requests: {cpu: 100m")
        });
        assert!(origins(&old, &new).is_empty());
        let mut no_mcp = Settings::preview();
        no_mcp.feature_gates.set(Gate::MutableContainerProbes, false);
        assert_eq!(errs(&old, &new, &no_mcp)[0].2, "dynamic/container-mutation");
    }

    #[test]
    fn removing_every_container_is_left_to_spec_validation() {
        let (old, new) = pods(|s| {
            s.replace(
                "  - {name: agent, image: agent:1, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File, resources: {requests: {cpu: 100m, memory: 64Mi}}}\n",
                "  []\n",
            )
            .replace("containers:\n  []", "containers: []")
        });
        let e = errs(&old, &new, &Settings::preview());
        assert!(
            e.iter()
                .any(|x| x.1 == "spec.containers" && x.0 == ErrorType::Required),
            "{e:?}"
        );
        // no second error for the empty list (the QoS class does change: Burstable -> BestEffort)
        assert_eq!(e.iter().filter(|x| x.1 == "spec.containers").count(), 1, "{e:?}");
    }

    #[test]
    fn qos_class_is_preserved() {
        // KEP: "containers added to a best-effort pod cannot specify resource requirements"
        let best_effort = |s: &str| {
            s.replace(
                "resources: {requests: {cpu: 100m, memory: 64Mi}}",
                "resources: {}",
            )
        };
        let old = parse_pod(&best_effort(OLD), "o", 1 << 20).unwrap();
        let new = parse_pod(&add(TOOL)(&best_effort(OLD)), "n", 1 << 20).unwrap();
        assert_eq!(
            errs(&old, &new, &Settings::preview()),
            vec![(ErrorType::Invalid, "spec".into(), "dynamic/qos-class")]
        );
        let plain = TOOL.replace(", resources: {requests: {cpu: 50m}}", "");
        let new = parse_pod(&add(&plain)(&best_effort(OLD)), "n", 1 << 20).unwrap();
        assert!(errs(&old, &new, &Settings::preview()).is_empty());
    }

    #[test]
    fn init_containers_are_not_added_or_removed() {
        let (old, new) = pods(|s| {
            s.replace(
                "initContainers: [{name: prep,",
                "initContainers: [{name: more, image: busybox, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File}, {name: prep,",
            )
        });
        assert_eq!(origins(&old, &new), ["dynamic/init-containers"]);
    }

    #[test]
    fn windows_pods_are_refused_alone() {
        let win = |s: &str| s.replace("  dnsPolicy", "  os: {name: windows}\n  dnsPolicy");
        let old = parse_pod(&win(OLD), "o", 1 << 20).unwrap();
        let new = parse_pod(&add(TOOL)(&win(OLD)), "n", 1 << 20).unwrap();
        assert_eq!(
            errs(&old, &new, &Settings::preview()),
            vec![(ErrorType::Forbidden, "[]".into(), "dynamic/windows")]
        );
    }

    #[test]
    fn prepare_keeps_the_stored_status() {
        let (old, mut new) = pods(add(TOOL));
        new.status = None;
        let p = prepare_update(&new, &old);
        assert_eq!(p.pod.status, old.status);
        assert!(p.warnings[0].contains("status"), "{:?}", p.warnings);
    }
}
