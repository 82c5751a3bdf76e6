//! Pod validation on the main resource: create-time spec validation (`ValidatePodCreate`,
//! `ValidatePodSpec`) and plain updates (`ValidatePodUpdate`, KEP-6318 mutable probes), laid out by
//! domain like upstream's `pkg/apis/core/validation`:
//!
//! - [`meta`] — ObjectMeta (create and update) and the Pod annotations;
//! - [`spec`] — `ValidatePodSpec`, `validatePodMetadataAndSpec`, `ValidatePodCreate`, the options;
//! - [`container`] — containers, init containers, ports, env, volume mounts and devices;
//! - [`probes`] — probes and lifecycle handlers;
//! - [`resources`] — resources, resource claims, resize policy, pod-level resources;
//! - [`security`] — security contexts, Windows/Linux OS rules, host namespaces;
//! - [`scheduling`] — tolerations, scheduling gates, affinity, topology spread, DNS;
//! - [`volumes`] — volumes and their sources;
//! - [`names`] — apimachinery's string formats (DNS labels, qualified names, ...);
//! - [`update`] — `ValidatePodUpdate`.

use k8s_openapi::api::core::v1::{Container, EphemeralContainer, Pod, PodSpec};

pub mod container;
pub mod meta;
pub mod names;
pub mod probes;
pub mod resources;
pub mod scheduling;
pub mod security;
pub mod spec;
pub mod update;
pub mod util;
pub mod volumes;

pub use meta::{
    validate_object_meta_update, validate_pod_specific_annotation_updates,
    validate_resource_version_for_update,
};
pub use spec::{
    PodValidationOptions, validate_pod_create, validate_pod_metadata_and_spec,
    validate_pod_metadata_and_spec_with,
};
pub use update::{munge_updatable_fields, validate_pod_update};

/// The annotation that marks a mirror (static) Pod.
pub const MIRROR_POD_ANNOTATION: &str = "kubernetes.io/config.mirror";

/// The spec, or an empty one.
pub fn spec_of(pod: &Pod) -> std::borrow::Cow<'_, PodSpec> {
    match pod.spec.as_ref() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(PodSpec::default()),
    }
}

/// Whether the Pod is a mirror (static) Pod.
pub fn is_static_pod(pod: &Pod) -> bool {
    pod.metadata
        .annotations
        .as_ref()
        .is_some_and(|a| a.contains_key(MIRROR_POD_ANNOTATION))
}

/// The Pod's name, or `""`.
pub fn pod_name(pod: &Pod) -> &str {
    pod.metadata.name.as_deref().unwrap_or("")
}

/// Visit every container of a spec with its path, in upstream's order
/// (`podshelper.VisitContainersWithPath`): init containers, containers, ephemeral containers
/// (viewed as containers).
pub fn visit_containers(
    spec: &PodSpec,
    spec_path: &crate::field::Path,
    mut visit: impl FnMut(&Container, &crate::field::Path),
) {
    let init = spec_path.child("initContainers");
    for (i, c) in spec.init_containers.iter().flatten().enumerate() {
        visit(c, &init.index(i));
    }
    let regular = spec_path.child("containers");
    for (i, c) in spec.containers.iter().enumerate() {
        visit(c, &regular.index(i));
    }
    let eph = spec_path.child("ephemeralContainers");
    for (i, c) in spec.ephemeral_containers.iter().flatten().enumerate() {
        visit(&ephemeral_as_container(c), &eph.index(i));
    }
}

/// An ephemeral container viewed as a container (upstream converts `EphemeralContainerCommon` to
/// `Container` the same way for the shared checks).
pub fn ephemeral_as_container(c: &EphemeralContainer) -> Container {
    Container {
        name: c.name.clone(),
        image: c.image.clone(),
        command: c.command.clone(),
        args: c.args.clone(),
        working_dir: c.working_dir.clone(),
        ports: c.ports.clone(),
        env_from: c.env_from.clone(),
        env: c.env.clone(),
        resources: c.resources.clone(),
        resize_policy: c.resize_policy.clone(),
        restart_policy: c.restart_policy.clone(),
        restart_policy_rules: c.restart_policy_rules.clone(),
        volume_mounts: c.volume_mounts.clone(),
        volume_devices: c.volume_devices.clone(),
        liveness_probe: c.liveness_probe.clone(),
        readiness_probe: c.readiness_probe.clone(),
        startup_probe: c.startup_probe.clone(),
        lifecycle: c.lifecycle.clone(),
        termination_message_path: c.termination_message_path.clone(),
        termination_message_policy: c.termination_message_policy.clone(),
        image_pull_policy: c.image_pull_policy.clone(),
        security_context: c.security_context.clone(),
        stdin: c.stdin,
        stdin_once: c.stdin_once,
        tty: c.tty,
    }
}
