//! The stock admission plugins that read the Pod's Node (from Kubernetes 1.36), on updates of a
//! bound Pod that change its spec (the generation moves), after validation passed:
//!
//! 1. `NodeDeclaredFeatureValidator` (`plugin/pkg/admission/nodedeclaredfeatures`, on `pods` and
//!    `pods/resize`): a change that needs a node feature — new pod-level resources
//!    (`InPlacePodLevelResourcesVerticalScaling`), new resources of a non-sidecar init container
//!    (`InPlacePodVerticalScalingInitContainers`) — needs the Node to declare it in
//!    `status.declaredFeatures`: `pod update requires features A, B which are not available on
//!    node "n"`;
//! 2. `PodResizeValidator` (`plugin/pkg/admission/podresize`, on `pods/resize`): the Node must be
//!    Linux (its `kubernetes.io/os` label, absent counts as Linux) and its `status.allocatable`
//!    cpu and memory must hold the Pod's requests (`PodRequests`: this Pod only, other Pods are the
//!    kubelet's business): `node didn't have enough allocatable resources: cpu, requested: <milli>,
//!    allocatable: <milli>; memory, ...`, with the reason-only cause `NodeCapacity`.
//!
//! podmut sees a Node only when the settings list it (`nodes`, `--node FILE`); without that list
//! the plugins are not emulated. A listed cluster without the Pod's node gives the plugins' `node
//! "n" not found`. An admission webhook runs after these plugins, so `review` never emulates them.

use k8s_openapi::api::core::v1::{Container, Node, Pod};

use crate::verdict::Verdict;
use podmut_model::field::{ErrorType, FieldError};
use podmut_model::gojson::go_quote;
use podmut_model::podutil::{init_containers, is_restartable_init, spec as spec_of};
use podmut_model::quantity::Quantity;
use podmut_model::request_path::Subresource;
use podmut_model::resource_helper::{PodResourcesOptions, parse_list, pod_requests};
use podmut_model::semantic::requirements_eq;
use podmut_model::settings::{Gate, Settings};

/// The first release whose kube-apiserver runs both plugins.
const SINCE: u8 = 36;

/// The plugins' refusal of the update of `old` to `new` (the Pod as the strategy prepared it), if
/// they refuse it.
pub(crate) fn admit(sub: Subresource, new: &Pod, old: &Pod, settings: &Settings) -> Option<Verdict> {
    let nodes = settings.nodes.as_deref()?;
    let release = settings.release();
    if release < SINCE || !matches!(sub, Subresource::None | Subresource::Resize) {
        return None;
    }
    let node_name = spec_of(new).node_name.clone().filter(|n| !n.is_empty())?;
    if podmut_model::semantic::specs_eq(&spec_of(new), &spec_of(old)) {
        return None;
    }
    let name = new.metadata.name.as_deref().unwrap_or_default();
    let forbidden = |why: String, cause: Option<ErrorType>| {
        let mut v = Verdict::refused(podmut_model::field::forbidden_message("pods", name, "", &why));
        v.errors.extend(cause.map(FieldError::cause));
        v
    };
    let node = nodes
        .iter()
        .find(|n| n.metadata.name.as_deref() == Some(node_name.as_str()));
    let not_found = || forbidden(format!("node {} not found", go_quote(&node_name)), None);
    if settings.gate(Gate::NodeDeclaredFeatures) {
        let required = required_features(new, old, settings);
        if !required.is_empty() {
            let Some(node) = node else {
                return Some(not_found());
            };
            let missing: Vec<&str> = required
                .into_iter()
                .filter(|f| !declared(node).any(|d| d == *f))
                .collect();
            if !missing.is_empty() {
                return Some(forbidden(
                    format!(
                        "pod update requires features {} which are not available on node {}",
                        missing.join(", "),
                        go_quote(&node_name)
                    ),
                    None,
                ));
            }
        }
    }
    if sub != Subresource::Resize {
        return None;
    }
    let Some(node) = node else {
        return Some(not_found());
    };
    if let Some(os) = node
        .metadata
        .labels
        .as_ref()
        .and_then(|l| l.get("kubernetes.io/os"))
        .filter(|os| *os != "linux")
    {
        return Some(forbidden(
            format!(
                "pod resize is only supported on linux nodes, node {} is {}",
                go_quote(&node_name),
                go_quote(os)
            ),
            Some(ErrorType::UnsupportedPlatform),
        ));
    }
    let short = over_allocatable(new, node)?;
    Some(forbidden(
        format!("node didn't have enough allocatable resources: {short}"),
        Some(ErrorType::NodeCapacity),
    ))
}

/// The node features the change needs (`InferForPodUpdate`), sorted by name.
fn required_features(new: &Pod, old: &Pod, settings: &Settings) -> Vec<&'static str> {
    let (ns, os) = (spec_of(new), spec_of(old));
    let mut features = Vec::new();
    let either = ns.resources.is_some() || os.resources.is_some();
    let pod_level = either && !requirements_eq(ns.resources.as_ref(), os.resources.as_ref());
    if pod_level && settings.gate(Gate::InPlacePodLevelResourcesVerticalScaling) {
        features.push(Gate::InPlacePodLevelResourcesVerticalScaling.name());
    }
    let init_changed = init_containers(&os)
        .iter()
        .zip(init_containers(&ns))
        .any(|(o, n): (&Container, &Container)| !is_restartable_init(o) && o.resources != n.resources);
    if init_changed && settings.gate(Gate::InPlacePodVerticalScalingInitContainers) {
        features.push(Gate::InPlacePodVerticalScalingInitContainers.name());
    }
    features.sort_unstable();
    features
}

/// The features a Node declares (`status.declaredFeatures`).
fn declared(node: &Node) -> impl Iterator<Item = &str> {
    node.status
        .iter()
        .flat_map(|s| s.declared_features.iter().flatten())
        .map(String::as_str)
}

/// What of cpu and memory the Pod requests beyond the Node's allocatable, worded as
/// `validateRequestsWithinAllocatable` words it; `None` when both fit.
fn over_allocatable(pod: &Pod, node: &Node) -> Option<String> {
    let allocatable = parse_list(node.status.as_ref().and_then(|s| s.allocatable.as_ref()));
    let requests = pod_requests(
        pod,
        PodResourcesOptions {
            pod_level: true,
            use_status: false,
        },
    );
    let zero = Quantity::ZERO;
    let cpu = (
        requests.get("cpu").unwrap_or(&zero),
        allocatable.get("cpu").unwrap_or(&zero),
    );
    let memory = (
        requests.get("memory").unwrap_or(&zero),
        allocatable.get("memory").unwrap_or(&zero),
    );
    let mut short = Vec::new();
    if cpu.0 > cpu.1 {
        short.push(format!(
            "cpu, requested: {}, allocatable: {}",
            cpu.0.go_milli_value(),
            cpu.1.go_milli_value()
        ));
    }
    if memory.0 > memory.1 {
        short.push(format!(
            "memory, requested: {}, allocatable: {}",
            memory.0.go_value(),
            memory.1.go_value()
        ));
    }
    (!short.is_empty()).then(|| short.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(yaml: &str) -> Pod {
        podmut_model::document::parse_pod(yaml, "p", 1 << 20).unwrap()
    }

    fn settings(nodes: &str) -> Settings {
        Settings::parse(&format!("kubernetesVersion: '1.37'\nnodes: {nodes}")).unwrap()
    }

    const NODE: &str = "[{metadata: {name: n1}, status: {allocatable: {cpu: '2', memory: 1Gi}}}]";

    fn web(cpu: &str, pod_level: &str) -> Pod {
        pod(&format!(
            "metadata: {{name: web}}\nspec:\n  nodeName: n1\n{pod_level}  containers: [{{name: a, image: x, resources: {{requests: {{cpu: '{cpu}', memory: 512Mi}}}}}}]\n"
        ))
    }

    #[test]
    fn a_resize_beyond_allocatable_is_refused_with_the_node_capacity_cause() {
        let s = settings(NODE);
        assert!(admit(Subresource::Resize, &web("1", ""), &web("500m", ""), &s).is_none());
        let v = admit(Subresource::Resize, &web("3", ""), &web("500m", ""), &s).unwrap();
        assert_eq!(
            v.message,
            "pods \"web\" is forbidden: node didn't have enough allocatable resources: cpu, requested: 3000, allocatable: 2000"
        );
        assert_eq!(v.errors[0].error_type, ErrorType::NodeCapacity);
        assert_eq!(v.errors[0].field.to_string(), "");
        assert!(admit(Subresource::None, &web("3", ""), &web("500m", ""), &s).is_none());
    }

    #[test]
    fn a_missing_node_non_linux_node_and_undeclared_feature_are_refused() {
        let v = admit(
            Subresource::Resize,
            &web("1", ""),
            &web("500m", ""),
            &settings("[]"),
        )
        .unwrap();
        assert_eq!(v.message, "pods \"web\" is forbidden: node \"n1\" not found");
        let win = "[{metadata: {name: n1, labels: {kubernetes.io/os: windows}}}]";
        let v = admit(
            Subresource::Resize,
            &web("1", ""),
            &web("500m", ""),
            &settings(win),
        )
        .unwrap();
        assert!(v.message.ends_with("node \"n1\" is \"windows\""), "{}", v.message);
        let pl = |cpu: &str| format!("  resources: {{requests: {{cpu: '{cpu}'}}}}\n");
        let v = admit(
            Subresource::Resize,
            &web("1", &pl("1")),
            &web("1", &pl("2")),
            &settings(NODE),
        )
        .unwrap();
        assert!(
            v.message.ends_with(
                "pod update requires features InPlacePodLevelResourcesVerticalScaling which are not available on node \"n1\""
            ),
            "{}",
            v.message
        );
        let declared = "[{metadata: {name: n1}, status: {allocatable: {cpu: '2', memory: 1Gi}, declaredFeatures: [InPlacePodLevelResourcesVerticalScaling]}}]";
        assert!(
            admit(
                Subresource::Resize,
                &web("1", &pl("1")),
                &web("1", &pl("2")),
                &settings(declared)
            )
            .is_none()
        );
    }

    #[test]
    fn without_nodes_or_before_1_36_nothing_is_emulated() {
        let none = Settings::parse("kubernetesVersion: '1.37'").unwrap();
        assert!(admit(Subresource::Resize, &web("3", ""), &web("500m", ""), &none).is_none());
        let v135 = Settings::parse(&format!("kubernetesVersion: '1.35'\nnodes: {NODE}")).unwrap();
        assert!(admit(Subresource::Resize, &web("3", ""), &web("500m", ""), &v135).is_none());
    }
}
