//! The main resource's strategy step for gated fields: `dropDisabledPodFields`
//! (`pkg/api/pod/util.go`), which `podStrategy.PrepareForCreate` and `PrepareForUpdate` run before
//! validation. A field whose feature gate is off is removed from the new Pod unless the old Pod
//! already uses it, so the API server accepts the Pod without it instead of refusing it.
//!
//! podmut drops the same fields for the gates it models and, like the subresource strategies
//! ([`crate::strategy`]), reports what was dropped as a warning:
//!
//! | gate | dropped | kept when the old Pod has |
//! |---|---|---|
//! | `ContainerRestartRules` | `restartPolicy` of regular and ephemeral containers, an init container's `restartPolicy` other than `Always`, every `restartPolicyRules` | any of them (`containerRestartRulesInUse`) |
//! | `ClusterTrustBundleProjection` | projected `clusterTrustBundle` sources | one (`clusterTrustBundleProjectionInUse`) |

use k8s_openapi::api::core::v1::{Pod, PodSpec};

use crate::pod::util::items;
use crate::strategy::Prepared;
use podmut_model::settings::{Gate, Settings};

/// The new Pod with the fields of disabled gates dropped, as `PrepareForCreate` (`old` is `None`)
/// and `PrepareForUpdate` leave it, with a warning per gate that dropped something.
pub(crate) fn prepare(new: &Pod, old: Option<&Pod>, settings: &Settings) -> Prepared {
    let old_spec = old.and_then(|o| o.spec.as_ref());
    let mut pod = new.clone();
    let mut warnings = Vec::new();
    for (gate, in_use, drop) in DROPS {
        if settings.gate(gate) || old_spec.is_some_and(in_use) {
            continue;
        }
        let before = pod.clone();
        if let Some(spec) = pod.spec.as_mut() {
            drop(spec);
        }
        let step = Prepared::new(
            &before,
            pod.clone(),
            &format!("the {gate} feature gate is disabled"),
        );
        warnings.extend(step.warnings);
    }
    Prepared { pod, warnings }
}

/// Whether the old spec uses a gated field.
type InUse = fn(&PodSpec) -> bool;
/// Drop a gated field from the new spec.
type Drop = fn(&mut PodSpec);

/// Each modelled gate with its in-use test and its drop, in `dropDisabledPodFields`' order.
const DROPS: [(Gate, InUse, Drop); 2] = [
    (
        Gate::ClusterTrustBundleProjection,
        cluster_trust_bundle_projection_in_use,
        drop_cluster_trust_bundle_projection,
    ),
    (
        Gate::ContainerRestartRules,
        crate::pod::options_from::container_restart_rules_in_use,
        drop_container_restart_rules,
    ),
];

/// `clusterTrustBundleProjectionInUse`.
fn cluster_trust_bundle_projection_in_use(spec: &PodSpec) -> bool {
    items(&spec.volumes)
        .iter()
        .filter_map(|v| v.projected.as_ref())
        .flat_map(|p| items(&p.sources))
        .any(|s| s.cluster_trust_bundle.is_some())
}

/// `dropDisabledClusterTrustBundleProjection`: every projected `clusterTrustBundle` source.
fn drop_cluster_trust_bundle_projection(spec: &mut PodSpec) {
    let projected = spec
        .volumes
        .iter_mut()
        .flatten()
        .filter_map(|v| v.projected.as_mut());
    for source in projected.flat_map(|p| p.sources.iter_mut().flatten()) {
        source.cluster_trust_bundle = None;
    }
}

/// `dropContainerRestartRules`: an init container's policy other than `Always`, every other
/// container's policy, and every container's rules.
fn drop_container_restart_rules(spec: &mut PodSpec) {
    for c in spec.init_containers.iter_mut().flatten() {
        if c.restart_policy.as_deref() != Some("Always") {
            c.restart_policy = None;
        }
        c.restart_policy_rules = None;
    }
    for c in &mut spec.containers {
        c.restart_policy = None;
        c.restart_policy_rules = None;
    }
    for c in spec.ephemeral_containers.iter_mut().flatten() {
        c.restart_policy = None;
        c.restart_policy_rules = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use podmut_model::document::parse_pod;

    fn pod(spec: &str) -> Pod {
        parse_pod(&format!("metadata: {{name: p}}\nspec:\n{spec}"), "p", 1 << 20).unwrap()
    }

    fn gate_off(gate: Gate) -> Settings {
        let mut s = Settings::default();
        s.feature_gates.set(gate, false);
        s
    }

    #[test]
    fn restart_rules_are_dropped_with_the_gate_off_unless_in_use() {
        let new = pod(
            "  initContainers: [{name: i, image: x, restartPolicy: OnFailure}, {name: s, image: x, restartPolicy: Always}]\n  containers: [{name: a, image: x, restartPolicy: Never, restartPolicyRules: [{action: Restart}]}]\n",
        );
        let off = gate_off(Gate::ContainerRestartRules);
        let p = prepare(&new, None, &off);
        let spec = p.pod.spec.as_ref().unwrap();
        let init = spec.init_containers.as_ref().unwrap();
        assert_eq!(init[0].restart_policy, None);
        assert_eq!(init[1].restart_policy.as_deref(), Some("Always"));
        assert!(
            spec.containers[0].restart_policy.is_none() && spec.containers[0].restart_policy_rules.is_none()
        );
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
        assert!(
            p.warnings[0].contains("ContainerRestartRules"),
            "{:?}",
            p.warnings
        );
        assert_eq!(
            prepare(&new, Some(&new), &off).pod,
            new,
            "kept: the old Pod uses them"
        );
        assert_eq!(
            prepare(&new, None, &Settings::default()).pod,
            new,
            "the gate is on in 1.35"
        );
    }

    #[test]
    fn trust_bundles_are_dropped_while_their_gate_is_off() {
        let new = pod(
            "  containers: [{name: a, image: x}]\n  volumes: [{name: v, projected: {sources: [{clusterTrustBundle: {name: b, path: p}}]}}]\n",
        );
        let v135 = Settings::parse("kubernetesVersion: '1.35'").unwrap();
        let p = prepare(&new, None, &v135);
        let sources = p.pod.spec.as_ref().unwrap().volumes.as_ref().unwrap()[0]
            .projected
            .as_ref()
            .unwrap()
            .sources
            .clone()
            .unwrap();
        assert!(sources[0].cluster_trust_bundle.is_none());
        assert_eq!(prepare(&new, Some(&new), &v135).pod, new);
        assert_eq!(prepare(&new, None, &Settings::default()).pod, new, "GA in 1.37");
    }
}
