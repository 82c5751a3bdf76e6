//! Small facts about Pods every rule shares (upstream `pkg/api/v1/pod`, `pkg/kubelet/types`,
//! `podshelper`): the spec and its lists, static and mirror Pods, restartable init containers,
//! terminal and terminating Pods, the OS, and how a Pod is named in reports.
//!
//! One place for each fact, so the API-server rules and the kubelet rules cannot drift apart.

use k8s_openapi::api::core::v1::{Container, EphemeralContainer, Pod, PodSpec};

use crate::field::Path;

/// Annotation naming where the kubelet got a Pod from (`kubetypes.ConfigSourceAnnotationKey`).
pub(crate) const CONFIG_SOURCE_ANNOTATION: &str = "kubernetes.io/config.source";
/// Annotation a mirror Pod carries (`v1.MirrorPodAnnotationKey`).
pub const MIRROR_POD_ANNOTATION: &str = "kubernetes.io/config.mirror";
/// `scheduling.SystemCriticalPriority`: Pods at or above it are critical.
pub(crate) const SYSTEM_CRITICAL_PRIORITY: i32 = 2_000_000_000;

fn annotation<'a>(pod: &'a Pod, key: &str) -> Option<&'a str> {
    pod.metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(key))
        .map(String::as_str)
}

/// Upstream `kubetypes.IsStaticPod`: the config source is not the API server. Seen through the API,
/// a static Pod is its mirror Pod, so the mirror annotation counts as well (`IsMirrorPod`).
pub fn is_static_or_mirror(pod: &Pod) -> bool {
    annotation(pod, CONFIG_SOURCE_ANNOTATION).is_some_and(|s| s != "api")
        || annotation(pod, MIRROR_POD_ANNOTATION).is_some()
}

/// Upstream `kubetypes.IsCriticalPod`: static, mirror, or priority at least `system-cluster-critical`.
pub fn is_critical(pod: &Pod) -> bool {
    is_static_or_mirror(pod)
        || pod
            .spec
            .as_ref()
            .and_then(|s| s.priority)
            .is_some_and(|p| p >= SYSTEM_CRITICAL_PRIORITY)
}

/// Whether the Pod carries the mirror-Pod annotation: what the API server calls a static Pod
/// (`ValidatePodResize`, `ValidatePodEphemeralContainersUpdate`).
pub fn is_mirror_pod(pod: &Pod) -> bool {
    annotation(pod, MIRROR_POD_ANNOTATION).is_some()
}

/// Upstream `podutil.IsRestartableInitContainer`: `restartPolicy: Always` on an init container.
pub fn is_restartable_init(c: &Container) -> bool {
    c.restart_policy.as_deref() == Some("Always")
}

/// The Pod's phase, or `""`.
pub fn phase(pod: &Pod) -> &str {
    pod.status.as_ref().and_then(|s| s.phase.as_deref()).unwrap_or("")
}

/// Whether the Pod is in a terminal phase (`Succeeded` or `Failed`).
pub fn is_terminal(pod: &Pod) -> bool {
    matches!(phase(pod), "Succeeded" | "Failed")
}

/// Whether deletion has begun (`metadata.deletionTimestamp` is set).
pub fn is_terminating(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_some()
}

/// `namespace/name` (just `name` without a namespace), as podmut names Pods in reports.
pub fn pod_key(pod: &Pod) -> String {
    let name = pod.metadata.name.as_deref().unwrap_or("");
    match pod.metadata.namespace.as_deref() {
        Some(ns) if !ns.is_empty() => format!("{ns}/{name}"),
        _ => name.to_owned(),
    }
}

/// Whether two Pods are the same Pod: same UID when both have one, else the same `namespace/name`.
pub fn same_pod(a: &Pod, b: &Pod) -> bool {
    match (a.metadata.uid.as_deref(), b.metadata.uid.as_deref()) {
        (Some(x), Some(y)) if !x.is_empty() && !y.is_empty() => x == y,
        _ => pod_key(a) == pod_key(b),
    }
}

/// The Pod's name, or `""`.
pub fn pod_name(pod: &Pod) -> &str {
    pod.metadata.name.as_deref().unwrap_or("")
}

/// Whether the Pod's `spec.os.name` is `windows`.
pub fn is_windows(pod: &Pod) -> bool {
    pod.spec
        .as_ref()
        .and_then(|s| s.os.as_ref())
        .is_some_and(|os| os.name == "windows")
}

/// The Pod's spec, or an empty one.
pub fn spec(pod: &Pod) -> std::borrow::Cow<'_, PodSpec> {
    match pod.spec.as_ref() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(PodSpec::default()),
    }
}

/// The Pod's init containers (empty when none).
pub fn init_containers(spec: &PodSpec) -> &[Container] {
    spec.init_containers.as_deref().unwrap_or(&[])
}

/// Visit every container of a spec with its path, in upstream's order
/// (`podshelper.VisitContainersWithPath`): init containers, containers, ephemeral containers
/// (viewed as containers).
pub fn visit_containers(spec: &PodSpec, spec_path: &Path, mut visit: impl FnMut(&Container, &Path)) {
    let init = spec_path.child("initContainers");
    for (i, c) in init_containers(spec).iter().enumerate() {
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

/// The value of a `PodResizePending` condition's reason, if the Pod carries one.
pub fn resize_pending_reason(pod: &Pod) -> Option<&str> {
    pod.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "PodResizePending"))
        .map(|c| c.reason.as_deref().unwrap_or(""))
}

/// `resourcehelper.IsPodResizeInfeasible`: the Pod's `PodResizePending` condition says Infeasible.
pub(crate) fn is_pod_resize_infeasible(pod: &Pod) -> bool {
    resize_pending_reason(pod) == Some("Infeasible")
}

/// Whether the Pod has the condition `Initialized=True`.
pub fn is_initialized(pod: &Pod) -> bool {
    pod.status
        .iter()
        .flat_map(|s| s.conditions.iter().flatten())
        .any(|c| c.type_ == "Initialized" && c.status == "True")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::parse_pod;

    fn pod(yaml: &str) -> Pod {
        parse_pod(yaml, "p", 1 << 20).unwrap()
    }

    #[test]
    fn static_mirror_and_critical() {
        assert!(!is_static_or_mirror(&pod("metadata: {name: a}\n")));
        assert!(is_static_or_mirror(&pod(
            "metadata: {annotations: {kubernetes.io/config.source: file}}\n"
        )));
        assert!(!is_static_or_mirror(&pod(
            "metadata: {annotations: {kubernetes.io/config.source: api}}\n"
        )));
        assert!(is_static_or_mirror(&pod(
            "metadata: {annotations: {kubernetes.io/config.mirror: abc}}\n"
        )));
        assert!(is_critical(&pod(
            "spec: {priority: 2000001000, containers: []}\n"
        )));
        assert!(!is_critical(&pod("spec: {priority: 100, containers: []}\n")));
    }

    #[test]
    fn keys_and_identity() {
        let a = pod("metadata: {name: a, namespace: ns, uid: u1}\n");
        let b = pod("metadata: {name: b, namespace: ns, uid: u1}\n");
        let c = pod("metadata: {name: a, namespace: ns}\n");
        assert_eq!(pod_key(&a), "ns/a");
        assert!(same_pod(&a, &b));
        assert!(same_pod(&a, &c));
        assert!(!same_pod(&b, &c));
    }
}
