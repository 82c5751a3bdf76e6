//! Pod validation on the main resource: create-time spec validation (`ValidatePodCreate`,
//! `ValidatePodSpec`) and plain updates (`ValidatePodUpdate`), laid out by domain like upstream's
//! `pkg/apis/core/validation`.

use k8s_openapi::api::core::v1::{Container, EphemeralContainer, Pod, PodSpec};

pub mod meta;
pub mod spec;
pub mod update;

pub use meta::validate_object_meta_update;
pub use spec::{validate_pod_create, validate_pod_metadata_and_spec};
pub use update::validate_pod_update;

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
