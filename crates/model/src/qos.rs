//! Pod quality-of-service class: upstream `pkg/apis/core/helper/qos/qos.go` (newest generation, with
//! pod-level resources and `PodLevelResourcesFixKubeletQOSClass`).

use std::collections::BTreeMap;
use std::fmt;

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
use serde::{Deserialize, Serialize};

use crate::quantity::Quantity;
use crate::resource_helper::{pod_level, pod_level_resources_set};
use crate::settings::{Gate, Settings};

/// A Pod's QoS class (`status.qosClass`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum QosClass {
    /// Every container (or the pod level) sets equal cpu and memory requests and limits.
    Guaranteed,
    /// Some cpu/memory requests or limits, but not Guaranteed.
    Burstable,
    /// No cpu or memory requests or limits.
    BestEffort,
}

impl QosClass {
    /// The API string.
    pub fn as_str(self) -> &'static str {
        match self {
            QosClass::Guaranteed => "Guaranteed",
            QosClass::Burstable => "Burstable",
            QosClass::BestEffort => "BestEffort",
        }
    }

    /// Parse the API string.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "Guaranteed" => Some(QosClass::Guaranteed),
            "Burstable" => Some(QosClass::Burstable),
            "BestEffort" => Some(QosClass::BestEffort),
            _ => None,
        }
    }
}

impl fmt::Display for QosClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Only cpu and memory decide QoS (`isSupportedQoSComputeResource`).
fn is_qos_resource(name: &str) -> bool {
    name == "cpu" || name == "memory"
}

/// Add the positive cpu/memory quantities of `list` into `acc`; return the names found.
fn accumulate(
    acc: &mut BTreeMap<String, Quantity>,
    list: Option<&BTreeMap<String, K8sQuantity>>,
) -> Vec<String> {
    let mut found = Vec::new();
    for (name, q) in list.into_iter().flatten() {
        if !is_qos_resource(name) {
            continue;
        }
        // Unparseable quantities are a validation error elsewhere; for QoS they count as absent.
        let Ok(q) = Quantity::from_k8s(q) else { continue };
        if q.sign() > 0 {
            found.push(name.clone());
            let e = acc.entry(name.clone()).or_insert(Quantity::ZERO);
            *e = e.add(&q);
        }
    }
    found
}

fn has_cpu_and_memory(found: &[String]) -> bool {
    found.iter().any(|n| n == "cpu") && found.iter().any(|n| n == "memory")
}

/// Whether the pod-level path applies: `PodLevelResources` on and `spec.resources` sets a supported
/// pod-level resource (upstream `isPodLevelResourcesSet`, the `PodLevelResourcesFixKubeletQOSClass`
/// refinement). A pod-level `hugepages-*` alone selects the pod-level path, where only cpu and memory
/// count, so such a Pod is BestEffort whatever its containers request.
pub(crate) fn uses_pod_level_resources(pod: &Pod, settings: &Settings) -> bool {
    settings.gate(Gate::PodLevelResources) && pod_level_resources_set(pod_level(pod))
}

/// Upstream `ComputePodQOS`: the class from the spec alone (ephemeral containers never count).
pub fn compute_pod_qos(pod: &Pod, settings: &Settings) -> QosClass {
    if settings.release() >= 37 {
        return compute_pod_qos_per_container(pod, settings);
    }
    compute_pod_qos_summed(pod, settings)
}

/// 1.37's `ComputePodQOS`: the pod-level requirements' class (with `PodLevelResources`, when
/// `spec.resources` is set — with `PodLevelResourcesFixKubeletQOSClass` only when it sets cpu,
/// memory or hugepages), else each init and regular container's class, combined.
fn compute_pod_qos_per_container(pod: &Pod, settings: &Settings) -> QosClass {
    let Some(spec) = pod.spec.as_ref() else {
        return QosClass::BestEffort;
    };
    if settings.gate(Gate::PodLevelResources)
        && spec.resources.is_some()
        && (!settings.gate(Gate::PodLevelResourcesFixKubeletQOSClass)
            || pod_level_resources_set(pod_level(pod)))
    {
        return requirements_qos(spec.resources.as_ref());
    }
    let mut pod_qos = None;
    for c in spec.init_containers.iter().flatten().chain(&spec.containers) {
        match (requirements_qos(c.resources.as_ref()), pod_qos) {
            (QosClass::Burstable, _) => return QosClass::Burstable,
            (q, None) => pod_qos = Some(q),
            (q, Some(p)) if q != p => return QosClass::Burstable,
            _ => {}
        }
    }
    pod_qos.unwrap_or(QosClass::BestEffort)
}

/// `requirementsQOS`: BestEffort without requests and limits, else cpu's and memory's classes
/// (`resourceQOS`: request != limit is Burstable, both zero BestEffort, else Guaranteed), Burstable
/// when they differ.
fn requirements_qos(r: Option<&k8s_openapi::api::core::v1::ResourceRequirements>) -> QosClass {
    let requests = r.and_then(|r| r.requests.as_ref());
    let limits = r.and_then(|r| r.limits.as_ref());
    if requests.is_none_or(|l| l.is_empty()) && limits.is_none_or(|l| l.is_empty()) {
        return QosClass::BestEffort;
    }
    let value = |list: Option<&BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>,
                 res: &str| {
        list.and_then(|l| l.get(res))
            .and_then(|q| Quantity::from_k8s(q).ok())
            .unwrap_or(Quantity::ZERO)
    };
    let mut qos = None;
    for res in ["cpu", "memory"] {
        let (req, lim) = (value(requests, res), value(limits, res));
        let class = if req != lim {
            QosClass::Burstable
        } else if req.is_zero() {
            QosClass::BestEffort
        } else {
            QosClass::Guaranteed
        };
        match (class, qos) {
            (QosClass::Burstable, _) => return QosClass::Burstable,
            (c, None) => qos = Some(c),
            (c, Some(q)) if c != q => return QosClass::Burstable,
            _ => {}
        }
    }
    qos.unwrap_or(QosClass::BestEffort)
}

/// Up to 1.36, `ComputePodQOS` sums the requests and limits of every container.
fn compute_pod_qos_summed(pod: &Pod, settings: &Settings) -> QosClass {
    let mut requests: BTreeMap<String, Quantity> = BTreeMap::new();
    let mut limits: BTreeMap<String, Quantity> = BTreeMap::new();
    let mut guaranteed = true;
    let Some(spec) = pod.spec.as_ref() else {
        return QosClass::BestEffort;
    };
    if uses_pod_level_resources(pod, settings) {
        if let Some(r) = spec.resources.as_ref() {
            accumulate(&mut requests, r.requests.as_ref());
            if r.limits.as_ref().is_some_and(|l| !l.is_empty()) {
                let found = accumulate(&mut limits, r.limits.as_ref());
                if !has_cpu_and_memory(&found) {
                    guaranteed = false;
                }
            }
        }
    } else {
        for c in spec
            .containers
            .iter()
            .chain(spec.init_containers.iter().flatten())
        {
            let r = c.resources.as_ref();
            accumulate(&mut requests, r.and_then(|r| r.requests.as_ref()));
            let found = accumulate(&mut limits, r.and_then(|r| r.limits.as_ref()));
            if !has_cpu_and_memory(&found) {
                guaranteed = false;
            }
        }
    }
    if requests.is_empty() && limits.is_empty() {
        return QosClass::BestEffort;
    }
    if guaranteed {
        guaranteed = requests
            .iter()
            .all(|(name, req)| limits.get(name).is_some_and(|lim| lim == req));
    }
    if guaranteed && requests.len() == limits.len() {
        QosClass::Guaranteed
    } else {
        QosClass::Burstable
    }
}

/// Upstream `GetPodQOS`: `status.qosClass` when set, else [`compute_pod_qos`].
pub fn get_pod_qos(pod: &Pod, settings: &Settings) -> QosClass {
    pod.status
        .as_ref()
        .and_then(|s| s.qos_class.as_deref())
        .and_then(QosClass::parse)
        .unwrap_or_else(|| compute_pod_qos(pod, settings))
}

/// Compute the QoS class of a Pod document (JSON or YAML), as `podmut qos` does. A workload
/// document (a Deployment, a Job, ...) gives the class of the Pods its template makes.
///
/// `apply_defaults` runs the API server's defaulting first (requests default to limits);
/// `always_compute` ignores `status.qosClass` (upstream `ComputePodQOS` instead of `GetPodQOS`).
pub fn qos_document(
    pod: &str,
    apply_defaults: bool,
    always_compute: bool,
) -> Result<QosClass, crate::document::InputError> {
    let settings = Settings::default();
    let mut pod = match crate::document::read_json_directly(pod, settings.max_input_bytes) {
        Some(pod) => pod,
        None => crate::template_pods::pod_or_template(
            crate::document::parse_text(pod, "pod", settings.max_input_bytes)?,
            "pod",
        )?,
    };
    if apply_defaults {
        crate::defaults::apply_pod_defaults(&mut pod, &settings);
        // What the API server's create then does to pod-level resources (1.37).
        if let Some(spec) = pod.spec.as_mut() {
            crate::defaults::default_pod_level_resources(spec, &settings);
        }
    }
    Ok(if always_compute {
        compute_pod_qos(&pod, &settings)
    } else {
        get_pod_qos(&pod, &settings)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::parse_pod;

    fn qos(containers: &str) -> QosClass {
        let p = parse_pod(&format!("spec:\n  containers: {containers}\n"), "p", 1 << 20).unwrap();
        compute_pod_qos(&p, &Settings::default())
    }

    #[test]
    fn a_workload_has_the_class_of_its_template() {
        let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers: [{name: a, image: i, resources: {limits: {cpu: 1, memory: 1Gi}}}]\n";
        assert_eq!(
            qos_document(deployment, true, false).unwrap(),
            QosClass::Guaranteed
        );
        let cron = "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\nspec:\n  schedule: '* * * * *'\n  jobTemplate: {spec: {template: {spec: {containers: [{name: a, image: i, resources: {requests: {cpu: 1}}}]}}}}\n";
        assert_eq!(qos_document(cron, true, false).unwrap(), QosClass::Burstable);
        let e = qos_document(
            "apiVersion: apps/v1\nkind: Deployment\nspec: {replicas: x}\n",
            true,
            false,
        )
        .unwrap_err();
        assert!(e.to_string().contains("spec.replicas"), "{e}");
    }

    #[test]
    fn classes() {
        assert_eq!(qos("[{name: a}]"), QosClass::BestEffort);
        assert_eq!(
            qos("[{name: a, resources: {requests: {cpu: 1, memory: 1Gi}, limits: {cpu: 1, memory: 1Gi}}}]"),
            QosClass::Guaranteed
        );
        assert_eq!(
            qos("[{name: a, resources: {requests: {cpu: 1}}}]"),
            QosClass::Burstable
        );
        // limits only, undefaulted: requests map is empty, so Burstable (upstream's unit-test behaviour)
        assert_eq!(
            qos("[{name: a, resources: {limits: {cpu: 1, memory: 1Gi}}}]"),
            QosClass::Burstable
        );
        // requests of zero are ignored
        assert_eq!(
            qos("[{name: a, resources: {requests: {cpu: 0}}}]"),
            QosClass::BestEffort
        );
        // extended resources do not count
        assert_eq!(
            qos("[{name: a, resources: {requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 1}}}]"),
            QosClass::BestEffort
        );
        // a BestEffort container next to a Guaranteed one gives Burstable
        assert_eq!(
            qos(
                "[{name: a, resources: {requests: {cpu: 1, memory: 1Gi}, limits: {cpu: 1, memory: 1Gi}}}, {name: b}]"
            ),
            QosClass::Burstable
        );
    }

    #[test]
    fn pod_level_resources_win() {
        let p = parse_pod(
            "spec:\n  resources: {requests: {cpu: 1, memory: 1Gi}, limits: {cpu: 1, memory: 1Gi}}\n  containers: [{name: a}]\n",
            "p",
            1 << 20,
        )
        .unwrap();
        assert_eq!(compute_pod_qos(&p, &Settings::default()), QosClass::Guaranteed);
        let mut s = Settings::default();
        s.feature_gates.set(Gate::PodLevelResources, false);
        assert_eq!(compute_pod_qos(&p, &s), QosClass::BestEffort);
    }

    #[test]
    fn pod_level_hugepages_select_the_pod_level_path() {
        let p = parse_pod(
            "spec:\n  resources: {limits: {hugepages-2Mi: 2Mi}}\n  containers: [{name: a, resources: {requests: {cpu: 1}}}]\n",
            "p",
            1 << 20,
        )
        .unwrap();
        assert_eq!(compute_pod_qos(&p, &Settings::default()), QosClass::BestEffort);
    }

    #[test]
    fn status_wins_in_get() {
        let p = parse_pod(
            "spec:\n  containers: [{name: a}]\nstatus: {qosClass: Burstable}\n",
            "p",
            1 << 20,
        )
        .unwrap();
        assert_eq!(get_pod_qos(&p, &Settings::default()), QosClass::Burstable);
        assert_eq!(compute_pod_qos(&p, &Settings::default()), QosClass::BestEffort);
    }
}
