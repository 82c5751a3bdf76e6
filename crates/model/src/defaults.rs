//! Kubernetes defaulting for Pods (`SetObjectDefaults_Pod`): what the API server fills in before
//! validation, so podmut judges the same object the API server does.
//!
//! Source: `pkg/apis/core/v1/defaults.go` (`SetDefaults_Pod`, `SetDefaults_PodSpec`,
//! `SetDefaults_Container`, `SetDefaults_Probe`, `SetDefaults_HTTPGetAction`, volume sources,
//! `SetDefaults_ResourceList`) and the declarative `+default` markers (container port protocol).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Container, EphemeralContainer, LifecycleHandler, Pod, PodSecurityContext, PodSpec, Probe,
    ResourceRequirements, Volume,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use crate::quantity::Quantity;
use crate::resource_helper::{
    aggregate_container_limits, aggregate_container_requests, is_hugepage, is_supported_pod_level_resource,
};
use crate::settings::{Gate, Settings};

/// `v1.TerminationMessagePathDefault`.
pub(crate) const TERMINATION_MESSAGE_PATH: &str = "/dev/termination-log";
/// Secret, ConfigMap, DownwardAPI and projected volumes default to mode 0644.
const DEFAULT_MODE: i32 = 0o644;

/// Apply Kubernetes defaulting to a Pod in place.
pub fn apply_pod_defaults(pod: &mut Pod, settings: &Settings) {
    // The API server's `PodSpec` is a value, not a pointer: a Pod sent without `spec` is decoded
    // with an empty one and defaulted like any other, so it reports only what defaulting cannot fill
    // (`spec.containers: Required value`).
    let spec = pod.spec.get_or_insert_with(Default::default);
    set_defaults_pod(spec, settings);
    apply_pod_spec_defaults(spec);
}

/// Apply the defaulting of a Pod template's spec in place: what the API server's defaulters do
/// to the `PodSpec` of a workload (`SetDefaults_PodSpec`, the containers', volumes' and
/// quantities' defaults), without the Pod-only `SetDefaults_Pod` (requests from limits,
/// `enableServiceLinks`, host-network ports), which runs only when a Pod is created.
pub fn apply_pod_spec_defaults(spec: &mut PodSpec) {
    set_defaults_pod_spec(spec);
    for v in spec.volumes.iter_mut().flatten() {
        set_defaults_volume(v);
    }
    for c in spec
        .containers
        .iter_mut()
        .chain(spec.init_containers.iter_mut().flatten())
    {
        set_defaults_container(c);
    }
    for c in spec.ephemeral_containers.iter_mut().flatten() {
        set_defaults_ephemeral_container(c);
    }
    if let Some(overhead) = spec.overhead.as_mut() {
        round_up_resource_list(overhead);
    }
    if let Some(r) = spec.resources.as_mut() {
        round_up_requirements(r);
    }
}

/// `SetDefaults_Pod`: requests default to limits; pod-level hugepage limits and requests (PodLevelResources);
/// `enableServiceLinks`; host-network ports.
fn set_defaults_pod(spec: &mut PodSpec, settings: &Settings) {
    for c in spec
        .containers
        .iter_mut()
        .chain(spec.init_containers.iter_mut().flatten())
    {
        default_requests_to_limits(c.resources.get_or_insert_with(Default::default));
        if c.resources
            .as_ref()
            .is_some_and(|r| r.limits.is_none() && r.requests.is_none() && r.claims.is_none())
        {
            c.resources = None;
        }
    }
    if settings.gate(Gate::PodLevelResources) && !settings.gate(Gate::PodLevelResourcesFixDefaulting) {
        default_pod_level_hugepage_limits(spec);
        default_pod_level_requests(spec);
    }
    if spec.enable_service_links.is_none() {
        spec.enable_service_links = Some(true);
    }
    if spec.host_network == Some(true) {
        for c in spec
            .containers
            .iter_mut()
            .chain(spec.init_containers.iter_mut().flatten())
        {
            for p in c.ports.iter_mut().flatten() {
                if p.host_port.unwrap_or(0) == 0 {
                    p.host_port = Some(p.container_port);
                }
            }
        }
    }
}

fn default_requests_to_limits(r: &mut ResourceRequirements) {
    let Some(limits) = r.limits.as_ref() else { return };
    let requests = r.requests.get_or_insert_with(BTreeMap::new);
    for (k, v) in limits {
        // Looked up first: the key is copied only for a request that is missing.
        if !requests.contains_key(k) {
            requests.insert(k.clone(), v.clone());
        }
    }
}

/// `defaultHugePagePodLimits`: when pod-level resources are partly set, pod-level hugepage limits
/// default to the aggregated container hugepage limits (unless a pod-level hugepage request is
/// set for that size).
fn default_pod_level_hugepage_limits(spec: &mut PodSpec) {
    let Some(resources) = spec.resources.as_ref() else {
        return;
    };
    let empty = |l: &Option<BTreeMap<String, K8sQuantity>>| l.as_ref().is_none_or(BTreeMap::is_empty);
    if empty(&resources.limits) && empty(&resources.requests) {
        return;
    }
    let aggregated = aggregate_container_limits(spec);
    let Some(resources) = spec.resources.as_mut() else {
        return;
    };
    let mut limits = resources.limits.clone().unwrap_or_default();
    for (k, q) in aggregated {
        if !is_hugepage(&k) || resources.requests.as_ref().is_some_and(|r| r.contains_key(&k)) {
            continue;
        }
        limits.entry(k).or_insert_with(|| K8sQuantity(q.to_string()));
    }
    if !limits.is_empty() {
        resources.limits = Some(limits);
    }
}

/// `defaultPodRequests` (cpu/memory only: hugepages are not overcommittable).
fn default_pod_level_requests(spec: &mut PodSpec) {
    let Some(limits) = spec.resources.as_ref().and_then(|r| r.limits.clone()) else {
        return;
    };
    if limits.is_empty() {
        return;
    }
    let aggregated = aggregate_container_requests(spec);
    let Some(resources) = spec.resources.as_mut() else {
        return;
    };
    let reqs = resources.requests.get_or_insert_with(BTreeMap::new);
    for (k, q) in aggregated {
        if (k == "cpu" || k == "memory") && !reqs.contains_key(&k) {
            reqs.insert(k, K8sQuantity(q.to_string()));
        }
    }
    for (k, v) in limits {
        if is_supported_pod_level_resource(&k) && !reqs.contains_key(&k) {
            reqs.insert(k, v);
        }
    }
    if reqs.is_empty() {
        resources.requests = None;
    }
}

/// `DefaultPodLevelResources` (`pkg/api/pod/util.go`, with `PodLevelResourcesFixDefaulting`): what
/// the API server does to pod-level resources when it prepares a create or a resize (instead of at
/// decoding): hugepage limits and cpu/memory requests from the containers' aggregates (also when
/// only requests are set), requests from limits, and limits `max(request, aggregate limit)` for a
/// request whose resource every container limits.
pub fn default_pod_level_resources(spec: &mut PodSpec, settings: &Settings) {
    if !settings.gate(Gate::PodLevelResources) || !settings.gate(Gate::PodLevelResourcesFixDefaulting) {
        return;
    }
    let set = |r: &ResourceRequirements| {
        r.limits.as_ref().is_some_and(|l| !l.is_empty()) || r.requests.as_ref().is_some_and(|l| !l.is_empty())
    };
    if !spec.resources.as_ref().is_some_and(set) {
        return;
    }
    default_pod_level_hugepage_limits(spec);
    let aggregated_requests = aggregate_container_requests(spec);
    let Some(resources) = spec.resources.as_mut() else {
        return;
    };
    let mut reqs = resources.requests.clone().unwrap_or_default();
    for (k, q) in aggregated_requests {
        if (k == "cpu" || k == "memory") && !reqs.contains_key(&k) {
            reqs.insert(k, K8sQuantity(q.to_string()));
        }
    }
    for (k, v) in resources.limits.iter().flatten() {
        if is_supported_pod_level_resource(k) && !reqs.contains_key(k) {
            reqs.insert(k.clone(), v.clone());
        }
    }
    if !reqs.is_empty() {
        resources.requests = Some(reqs);
    }
    default_pod_level_limits(spec);
}

/// `defaultPodLevelLimits`: a supported pod-level request without a limit gets the limit
/// `max(request, aggregated container limit)` when every container (ephemeral ones included) limits
/// that resource.
fn default_pod_level_limits(spec: &mut PodSpec) {
    let Some(resources) = spec.resources.as_ref() else {
        return;
    };
    let limits = resources.limits.clone().unwrap_or_default();
    let mut candidates: Vec<String> = resources
        .requests
        .iter()
        .flatten()
        .map(|(k, _)| k.clone())
        .filter(|k| is_supported_pod_level_resource(k) && !limits.contains_key(k))
        .collect();
    let limited = |r: Option<&ResourceRequirements>, k: &str| {
        r.and_then(|r| r.limits.as_ref())
            .is_some_and(|l| l.contains_key(k))
    };
    for c in spec
        .containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
    {
        candidates.retain(|k| limited(c.resources.as_ref(), k));
    }
    for c in spec.ephemeral_containers.iter().flatten() {
        candidates.retain(|k| limited(c.resources.as_ref(), k));
    }
    if candidates.is_empty() {
        return;
    }
    let aggregated = aggregate_container_limits(spec);
    let Some(resources) = spec.resources.as_mut() else {
        return;
    };
    for k in candidates {
        let Some(aggregate) = aggregated.get(&k) else {
            continue;
        };
        let request = resources.requests.as_ref().and_then(|r| r.get(&k));
        let value = match request.and_then(|r| Quantity::from_k8s(r).ok()) {
            Some(req) if req > *aggregate => request.cloned().unwrap_or_default(),
            _ => K8sQuantity(aggregate.to_string()),
        };
        resources
            .limits
            .get_or_insert_with(BTreeMap::new)
            .insert(k, value);
    }
}

/// `SetDefaults_PodSpec`.
fn set_defaults_pod_spec(spec: &mut PodSpec) {
    if spec.dns_policy.as_deref().unwrap_or("").is_empty() {
        spec.dns_policy = Some("ClusterFirst".into());
    }
    if spec.restart_policy.as_deref().unwrap_or("").is_empty() {
        spec.restart_policy = Some("Always".into());
    }
    if spec.security_context.is_none() {
        spec.security_context = Some(PodSecurityContext::default());
    }
    if spec.termination_grace_period_seconds.is_none() {
        spec.termination_grace_period_seconds = Some(30);
    }
    if spec.scheduler_name.as_deref().unwrap_or("").is_empty() {
        spec.scheduler_name = Some("default-scheduler".into());
    }
}

/// `SetDefaults_Volume` and the per-source defaults.
fn set_defaults_volume(v: &mut Volume) {
    // Any field but the name set: compared without it (taken out and put back, not copied).
    let name = std::mem::take(&mut v.name);
    let has_source = *v != Volume::default();
    v.name = name;
    if !has_source {
        v.empty_dir = Some(Default::default());
    }
    if let Some(s) = v.secret.as_mut() {
        s.default_mode.get_or_insert(DEFAULT_MODE);
    }
    if let Some(s) = v.config_map.as_mut() {
        s.default_mode.get_or_insert(DEFAULT_MODE);
    }
    if let Some(s) = v.downward_api.as_mut() {
        s.default_mode.get_or_insert(DEFAULT_MODE);
        for item in s.items.iter_mut().flatten() {
            if let Some(f) = item.field_ref.as_mut()
                && f.api_version.as_deref().unwrap_or("").is_empty()
            {
                f.api_version = Some("v1".into());
            }
        }
    }
    if let Some(p) = v.projected.as_mut() {
        p.default_mode.get_or_insert(DEFAULT_MODE);
        for src in p.sources.iter_mut().flatten() {
            if let Some(t) = src.service_account_token.as_mut() {
                t.expiration_seconds.get_or_insert(3600);
            }
            for item in src
                .downward_api
                .iter_mut()
                .flat_map(|d| d.items.iter_mut().flatten())
            {
                if let Some(f) = item.field_ref.as_mut()
                    && f.api_version.as_deref().unwrap_or("").is_empty()
                {
                    f.api_version = Some("v1".into());
                }
            }
        }
    }
    // Declarative `+default` markers of the volume sources.
    if let Some(i) = v.iscsi.as_mut() {
        i.iscsi_interface.get_or_insert_with(|| "default".into());
    }
    if let Some(r) = v.rbd.as_mut() {
        r.pool.get_or_insert_with(|| "rbd".into());
        r.user.get_or_insert_with(|| "admin".into());
        r.keyring.get_or_insert_with(|| "/etc/ceph/keyring".into());
    }
    if let Some(a) = v.azure_disk.as_mut() {
        a.caching_mode.get_or_insert_with(|| "ReadWrite".into());
        a.fs_type.get_or_insert_with(|| "ext4".into());
        a.read_only.get_or_insert(false);
        a.kind.get_or_insert_with(|| "Shared".into());
    }
    if let Some(s) = v.scale_io.as_mut() {
        s.storage_mode.get_or_insert_with(|| "ThinProvisioned".into());
        s.fs_type.get_or_insert_with(|| "xfs".into());
    }
    if let Some(t) = v
        .ephemeral
        .as_mut()
        .and_then(|e| e.volume_claim_template.as_mut())
    {
        // SetDefaults_PersistentVolumeClaimSpec and the claim's resource lists.
        t.spec.volume_mode.get_or_insert_with(|| "Filesystem".into());
        if let Some(r) = t.spec.resources.as_mut() {
            for list in [r.limits.as_mut(), r.requests.as_mut()].into_iter().flatten() {
                round_up_resource_list(list);
            }
        }
    }
    if let Some(h) = v.host_path.as_mut() {
        h.type_.get_or_insert_with(String::new);
    }
    if let Some(iv) = v.image.as_mut()
        && iv.pull_policy.as_deref().unwrap_or("").is_empty()
    {
        iv.pull_policy = Some(default_pull_policy(iv.reference.as_deref().unwrap_or("")).into());
    }
}

/// The image tag as `parsers.ParseImageName` reports it (`latest` when neither tag nor digest is given).
pub(crate) fn image_tag(image: &str) -> &str {
    let (name, has_digest) = match image.split_once('@') {
        Some((n, _)) => (n, true),
        None => (image, false),
    };
    let last_segment_start = name.rfind('/').map_or(0, |i| i + 1);
    match name[last_segment_start..].rfind(':') {
        Some(i) => &name[last_segment_start + i + 1..],
        None if has_digest => "",
        None => "latest",
    }
}

/// `Always` for a `:latest` (or untagged) image, else `IfNotPresent` (also for an empty image,
/// which `ParseImageName` rejects, leaving the tag empty).
pub(crate) fn default_pull_policy(image: &str) -> &'static str {
    if !image.is_empty() && image_tag(image) == "latest" {
        "Always"
    } else {
        "IfNotPresent"
    }
}

/// `SetDefaults_Container` plus the container-nested defaults.
fn set_defaults_container(c: &mut Container) {
    if c.image_pull_policy.as_deref().unwrap_or("").is_empty() {
        c.image_pull_policy = Some(default_pull_policy(c.image.as_deref().unwrap_or("")).into());
    }
    if c.termination_message_path.as_deref().unwrap_or("").is_empty() {
        c.termination_message_path = Some(TERMINATION_MESSAGE_PATH.into());
    }
    if c.termination_message_policy.as_deref().unwrap_or("").is_empty() {
        c.termination_message_policy = Some("File".into());
    }
    for p in c.ports.iter_mut().flatten() {
        if p.protocol.as_deref().unwrap_or("").is_empty() {
            p.protocol = Some("TCP".into());
        }
    }
    for e in c.env.iter_mut().flatten() {
        if let Some(f) = e.value_from.as_mut().and_then(|vf| vf.field_ref.as_mut())
            && f.api_version.as_deref().unwrap_or("").is_empty()
        {
            f.api_version = Some("v1".into());
        }
    }
    if let Some(r) = c.resources.as_mut() {
        round_up_requirements(r);
    }
    for p in [
        &mut c.liveness_probe,
        &mut c.readiness_probe,
        &mut c.startup_probe,
    ]
    .into_iter()
    .flatten()
    {
        set_defaults_probe(p);
    }
    if let Some(l) = c.lifecycle.as_mut() {
        for h in [&mut l.post_start, &mut l.pre_stop].into_iter().flatten() {
            set_defaults_lifecycle_handler(h);
        }
    }
}

fn set_defaults_ephemeral_container(c: &mut EphemeralContainer) {
    let mut as_container = crate::podutil::ephemeral_as_container(c);
    set_defaults_container(&mut as_container);
    c.image_pull_policy = as_container.image_pull_policy;
    c.termination_message_path = as_container.termination_message_path;
    c.termination_message_policy = as_container.termination_message_policy;
    c.ports = as_container.ports;
    c.env = as_container.env;
    c.resources = as_container.resources;
    c.liveness_probe = as_container.liveness_probe;
    c.readiness_probe = as_container.readiness_probe;
    c.startup_probe = as_container.startup_probe;
    c.lifecycle = as_container.lifecycle;
}

/// `SetDefaults_Probe` and its handler defaults.
fn set_defaults_probe(p: &mut Probe) {
    for (field, default) in [
        (&mut p.timeout_seconds, 1),
        (&mut p.period_seconds, 10),
        (&mut p.success_threshold, 1),
        (&mut p.failure_threshold, 3),
    ] {
        if field.unwrap_or(0) == 0 {
            *field = Some(default);
        }
    }
    if let Some(h) = p.http_get.as_mut() {
        set_defaults_http_get(h);
    }
    if let Some(g) = p.grpc.as_mut() {
        g.service.get_or_insert_with(String::new);
    }
}

fn set_defaults_lifecycle_handler(h: &mut LifecycleHandler) {
    if let Some(g) = h.http_get.as_mut() {
        set_defaults_http_get(g);
    }
}

/// `SetDefaults_HTTPGetAction`.
fn set_defaults_http_get(h: &mut k8s_openapi::api::core::v1::HTTPGetAction) {
    if h.path.as_deref().unwrap_or("").is_empty() {
        h.path = Some("/".into());
    }
    if h.scheme.as_deref().unwrap_or("").is_empty() {
        h.scheme = Some("HTTP".into());
    }
}

fn round_up_requirements(r: &mut ResourceRequirements) {
    if let Some(l) = r.limits.as_mut() {
        round_up_resource_list(l);
    }
    if let Some(l) = r.requests.as_mut() {
        round_up_resource_list(l);
    }
}

/// `SetDefaults_ResourceList`: round every value up to milli precision (valid quantities only;
/// invalid ones are left for validation to report).
fn round_up_resource_list(list: &mut BTreeMap<String, K8sQuantity>) {
    for v in list.values_mut() {
        // Only a fraction, a nano/micro suffix or an exponent can be finer than a milli-unit:
        // every other value is left as written without parsing it.
        if !v.0.bytes().any(|b| matches!(b, b'.' | b'n' | b'u' | b'e' | b'E')) {
            continue;
        }
        if let Ok(q) = Quantity::from_k8s(v)
            && q.has_sub_milli_precision()
        {
            *v = K8sQuantity(q.round_up_milli().to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::parse_pod;

    fn defaulted(yaml: &str) -> Pod {
        let mut p = parse_pod(yaml, "p", 1 << 20).unwrap();
        apply_pod_defaults(&mut p, &Settings::default());
        p
    }

    /// Decoded as 1.36 decodes (pod-level resources defaulted then, not at create).
    fn defaulted_136(yaml: &str) -> Pod {
        let mut p = parse_pod(yaml, "p", 1 << 20).unwrap();
        apply_pod_defaults(&mut p, &Settings::parse("kubernetesVersion: '1.36'").unwrap());
        p
    }

    /// Decoded, then prepared for a create as 1.37 prepares it (`DefaultPodLevelResources`).
    fn created_137(yaml: &str) -> Pod {
        let mut p = defaulted(yaml);
        default_pod_level_resources(p.spec.as_mut().unwrap(), &Settings::default());
        p
    }

    #[test]
    fn pod_level_limits_default_from_containers_that_all_limit_from_1_37() {
        let yaml = "spec:\n  resources: {requests: {cpu: '2'}}\n  containers: [{name: a, image: x, resources: {limits: {cpu: '1', memory: 1Gi}}}]\n";
        let r = created_137(yaml).spec.unwrap().resources.unwrap();
        let (req, lim) = (r.requests.unwrap(), r.limits.unwrap());
        assert_eq!((req["cpu"].0.as_str(), req["memory"].0.as_str()), ("2", "1Gi"));
        assert_eq!(
            (lim["cpu"].0.as_str(), lim["memory"].0.as_str()),
            ("2", "1Gi"),
            "max(request, aggregate)"
        );
        let decoded = defaulted(yaml).spec.unwrap().resources.unwrap();
        assert!(decoded.limits.is_none(), "1.37 no longer defaults at decoding");
        let old = defaulted_136(yaml).spec.unwrap().resources.unwrap();
        assert!(
            !old.requests.unwrap().contains_key("memory"),
            "1.36: only with pod-level limits"
        );
    }

    #[test]
    fn pod_spec_and_container_defaults() {
        let p = defaulted(
            "spec:\n  containers:\n  - name: a\n    image: nginx\n    ports: [{containerPort: 80}]\n",
        );
        let s = p.spec.unwrap();
        assert_eq!(s.restart_policy.as_deref(), Some("Always"));
        assert_eq!(s.dns_policy.as_deref(), Some("ClusterFirst"));
        assert_eq!(s.termination_grace_period_seconds, Some(30));
        assert_eq!(s.scheduler_name.as_deref(), Some("default-scheduler"));
        assert_eq!(s.enable_service_links, Some(true));
        let c = &s.containers[0];
        assert_eq!(c.image_pull_policy.as_deref(), Some("Always"));
        assert_eq!(c.termination_message_policy.as_deref(), Some("File"));
        assert_eq!(c.ports.as_ref().unwrap()[0].protocol.as_deref(), Some("TCP"));
    }

    #[test]
    fn requests_default_to_limits() {
        let p = defaulted(
            "spec:\n  containers:\n  - name: a\n    image: nginx:1\n    resources: {limits: {cpu: 500m, memory: 1Gi}, requests: {cpu: 100m}}\n",
        );
        let c = &p.spec.unwrap().containers[0];
        let req = c.resources.as_ref().unwrap().requests.as_ref().unwrap();
        assert_eq!(req["cpu"].0, "100m");
        assert_eq!(req["memory"].0, "1Gi");
        assert_eq!(c.image_pull_policy.as_deref(), Some("IfNotPresent"));
    }

    #[test]
    fn probe_defaults() {
        let p = defaulted(
            "spec:\n  containers:\n  - name: a\n    image: x\n    readinessProbe: {httpGet: {port: 8080}}\n",
        );
        let r = p.spec.unwrap().containers[0].readiness_probe.clone().unwrap();
        assert_eq!(
            (
                r.timeout_seconds,
                r.period_seconds,
                r.success_threshold,
                r.failure_threshold
            ),
            (Some(1), Some(10), Some(1), Some(3))
        );
        let h = r.http_get.unwrap();
        assert_eq!(h.path.as_deref(), Some("/"));
        assert_eq!(h.scheme.as_deref(), Some("HTTP"));
    }

    #[test]
    fn image_tags() {
        assert_eq!(image_tag("nginx"), "latest");
        assert_eq!(image_tag("nginx:1.25"), "1.25");
        assert_eq!(image_tag("localhost:5000/nginx"), "latest");
        assert_eq!(image_tag("localhost:5000/nginx:v1"), "v1");
        assert_eq!(image_tag("nginx@sha256:abc"), "");
        assert_eq!(image_tag("nginx:latest"), "latest");
    }

    #[test]
    fn empty_volume_becomes_empty_dir() {
        let p = defaulted(
            "spec:\n  volumes: [{name: v}, {name: s, secret: {secretName: x}}]\n  containers: [{name: a, image: x}]\n",
        );
        let vols = p.spec.unwrap().volumes.unwrap();
        assert!(vols[0].empty_dir.is_some());
        assert_eq!(vols[1].secret.as_ref().unwrap().default_mode, Some(0o644));
    }

    #[test]
    fn pod_level_requests_use_the_init_peak() {
        // A 5-cpu init container runs before the 2-cpu sidecar: the peak is 5, the steady state 1+2.
        let p = defaulted_136(
            "spec:\n  resources: {limits: {cpu: '8'}}\n  initContainers:\n  - {name: i, image: x, resources: {requests: {cpu: '5'}}}\n  - {name: s, image: x, restartPolicy: Always, resources: {requests: {cpu: '2'}}}\n  containers: [{name: a, image: x, resources: {requests: {cpu: '1'}}}]\n",
        );
        let r = p.spec.unwrap().resources.unwrap();
        assert_eq!(r.requests.unwrap()["cpu"].0, "5");
    }

    #[test]
    fn pod_level_hugepage_limits_default_from_containers() {
        let p = defaulted_136(
            "spec:\n  resources: {requests: {cpu: '1'}}\n  containers: [{name: a, image: x, resources: {limits: {hugepages-2Mi: 4Mi, cpu: '1'}}}]\n",
        );
        let r = p.spec.unwrap().resources.unwrap();
        let limits = r.limits.unwrap();
        assert_eq!(limits["hugepages-2Mi"].0, "4Mi");
        // The hugepage limit counts as a pod-level limit, so cpu is not defaulted (defaultPodLimits).
        assert!(!limits.contains_key("cpu"));
    }

    #[test]
    fn declarative_volume_defaults() {
        let p = defaulted(
            "spec:\n  volumes:\n  - {name: p, projected: {sources: [{downwardAPI: {items: [{path: nm, fieldRef: {fieldPath: metadata.name}}]}}]}}\n  - {name: d, azureDisk: {diskName: d, diskURI: u}}\n  - {name: e, ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce]}}}}\n  containers: [{name: a, image: ''}]\n",
        );
        let s = p.spec.unwrap();
        let vols = s.volumes.unwrap();
        let src = &vols[0].projected.as_ref().unwrap().sources.as_ref().unwrap()[0];
        let item = &src.downward_api.as_ref().unwrap().items.as_ref().unwrap()[0];
        assert_eq!(
            item.field_ref.as_ref().unwrap().api_version.as_deref(),
            Some("v1")
        );
        let d = vols[1].azure_disk.as_ref().unwrap();
        assert_eq!(
            (d.kind.as_deref(), d.caching_mode.as_deref()),
            (Some("Shared"), Some("ReadWrite"))
        );
        let t = vols[2]
            .ephemeral
            .as_ref()
            .unwrap()
            .volume_claim_template
            .as_ref()
            .unwrap();
        assert_eq!(t.spec.volume_mode.as_deref(), Some("Filesystem"));
        assert_eq!(s.containers[0].image_pull_policy.as_deref(), Some("IfNotPresent"));
    }
}
