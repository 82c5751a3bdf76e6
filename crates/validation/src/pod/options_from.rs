//! The validation options the API server derives for a Pod request
//! (`GetValidationOptionsFromPodSpecAndMeta`, `pkg/api/pod/util.go`).
//!
//! Upstream's rule: a value that was legal when the Pod was stored stays legal for every later
//! update of that Pod ("ratcheting"), while new Pods get the strict rule. Every strategy that
//! validates a Pod (create, update, `pods/status`, `pods/ephemeralcontainers`, `pods/resize`)
//! derives its options the same way and sets `ResourceIsPod`; podmut's `pods/dynamic` does the
//! same. docs/rules.md, "Validation options", lists every option.

use std::borrow::Cow;

use k8s_openapi::api::core::v1::{Container, Pod, PodSpec};

use crate::pod::annotations::valid_deletion_cost;
use crate::pod::names;
use crate::pod::options::PodValidationOptions;
use crate::pod::resources::hugepage_value_divisible;
use crate::pod::scheduling::{validate_label_selector, validate_pod_affinity_term_selector};
use crate::pod::security::validate_host_sysctl;
use crate::pod::util::items;
use podmut_model::field::Path;
use podmut_model::podutil::{ephemeral_as_container, init_containers, is_restartable_init};
use podmut_model::quantity::Quantity;
use podmut_model::resource_helper::is_hugepage;
use podmut_model::settings::{Gate, Settings};

impl PodValidationOptions {
    /// The options of a create: `GetValidationOptionsFromPodSpecAndMeta(new, nil, ...)`.
    pub(crate) fn for_create(new: &Pod, settings: &Settings) -> Self {
        Self::derive(new, None, settings)
    }

    /// The options of an update on any path: `GetValidationOptionsFromPodSpecAndMeta(new, old, ...)`.
    pub(crate) fn for_update(new: &Pod, old: &Pod, settings: &Settings) -> Self {
        Self::derive(new, Some(old), settings)
    }

    fn derive(new: &Pod, old: Option<&Pod>, settings: &Settings) -> Self {
        let old_spec = old.and_then(|o| o.spec.as_ref());
        let gate = |g: Gate| settings.gate(g);
        Self {
            allow_invalid_pod_deletion_cost: !gate(Gate::PodDeletionCost)
                || old.is_some_and(|o| !valid_deletion_cost(o.metadata.annotations.as_ref())),
            allow_invalid_label_value_in_selector: old_spec
                .is_some_and(has_invalid_label_value_in_affinity_selector),
            allow_indivisible_huge_pages_values: old_spec.is_some_and(uses_indivisible_huge_pages_values),
            allow_invalid_topology_spread_constraint_label_selector: old_spec
                .is_some_and(has_invalid_topology_spread_constraint_label_selector),
            allow_non_local_projected_token_path: old_spec.is_some_and(has_non_local_projected_token_path),
            allow_namespaced_sysctls_for_host_net_and_host_ipc: old_spec
                .is_some_and(has_host_namespaced_sysctl),
            allow_relaxed_environment_variable_validation: gate(Gate::RelaxedEnvironmentVariableValidation)
                || relaxed_env_var_names_in_use(new.spec.as_ref(), old_spec),
            allow_relaxed_dns_search_validation: gate(Gate::RelaxedDNSSearchValidation)
                || old_spec.is_some_and(has_dot_or_underscore_search),
            allow_pod_lifecycle_sleep_action_zero_value: gate(Gate::PodLifecycleSleepActionAllowZero)
                || old_spec.is_some_and(sleep_action_zero_value_in_use),
            allow_only_recursive_selinux_change_policy: !gate(Gate::SELinuxMount)
                && !old_spec.is_some_and(selinux_change_policy_in_use),
            pod_level_resources_enabled: gate(Gate::PodLevelResources),
            allow_sidecar_resize_policy: gate(Gate::InPlacePodVerticalScaling)
                || old_spec.is_some_and(has_restartable_init_container_resize_policy),
            allow_invalid_label_value_in_required_node_affinity: old_spec
                .is_some_and(has_invalid_label_value_in_required_node_affinity),
            allow_user_namespaces_host_network_support: old_spec
                .is_some_and(|s| s.host_network == Some(true) && s.host_users == Some(false)),
            allow_container_restart_policy_rules: gate(Gate::ContainerRestartRules)
                || old_spec.is_some_and(container_restart_rules_in_use),
            allow_restart_all_containers: gate(Gate::RestartAllContainersOnContainerExits)
                || old_spec.is_some_and(restart_all_containers_action_in_use),
            allow_privileged: settings.allow_privileged,
            sidecar_containers_enabled: gate(Gate::SidecarContainers)
                || old_spec.is_some_and(|s| init_containers(s).iter().any(is_restartable_init)),
            allow_existing_restart_container_for_non_sidecar_init: old_spec.is_some_and(|s| {
                init_containers(s).iter().any(|c| {
                    !is_restartable_init(c)
                        && items(&c.resize_policy)
                            .iter()
                            .any(|p| p.restart_policy == "RestartContainer")
                })
            }),
            strict_ip: gate(Gate::StrictIPCIDRValidation),
            request_fills_metadata: settings.apply_defaults,
            release: settings.release(),
            template: false,
        }
    }
}

/// Every container of a spec (init, regular, ephemeral viewed as containers), upstream's
/// `VisitContainers(AllContainers)`: the regular and init containers borrowed, only the (few)
/// ephemeral ones converted.
fn all_containers(spec: &PodSpec) -> impl Iterator<Item = Cow<'_, Container>> {
    init_containers(spec)
        .iter()
        .chain(&spec.containers)
        .map(Cow::Borrowed)
        .chain(
            items(&spec.ephemeral_containers)
                .iter()
                .map(|c| Cow::Owned(ephemeral_as_container(c))),
        )
}

/// `usesIndivisibleHugePagesValues`: a hugepages request or limit of any container, or a
/// hugepages overhead, that is not a multiple of its page size.
fn uses_indivisible_huge_pages_values(spec: &PodSpec) -> bool {
    // Only hugepages entries are parsed: this runs on every update, and most Pods have none.
    let indivisible = |list: Option<&podmut_model::resource_helper::ResourceList>| {
        list.into_iter().flatten().any(|(name, q)| {
            is_hugepage(name) && Quantity::from_k8s(q).is_ok_and(|q| !hugepage_value_divisible(name, &q))
        })
    };
    all_containers(spec).any(|c| {
        let r = c.resources.as_ref();
        indivisible(r.and_then(|r| r.limits.as_ref())) || indivisible(r.and_then(|r| r.requests.as_ref()))
    }) || indivisible(spec.overhead.as_ref())
}

/// `hasInvalidLabelValueInAffinitySelector`: a pod (anti-)affinity term's selectors, required or
/// preferred, fail with label values checked.
fn has_invalid_label_value_in_affinity_selector(spec: &PodSpec) -> bool {
    let Some(a) = spec.affinity.as_ref() else {
        return false;
    };
    let path = Path::root();
    let bad = |t: &k8s_openapi::api::core::v1::PodAffinityTerm| {
        !validate_pod_affinity_term_selector(t, false, &path).is_empty()
    };
    let terms =
        |required: &Option<Vec<k8s_openapi::api::core::v1::PodAffinityTerm>>,
         preferred: &Option<Vec<k8s_openapi::api::core::v1::WeightedPodAffinityTerm>>| {
            items(required).iter().any(bad) || items(preferred).iter().any(|w| bad(&w.pod_affinity_term))
        };
    a.pod_affinity.as_ref().is_some_and(|p| {
        terms(
            &p.required_during_scheduling_ignored_during_execution,
            &p.preferred_during_scheduling_ignored_during_execution,
        )
    }) || a.pod_anti_affinity.as_ref().is_some_and(|p| {
        terms(
            &p.required_during_scheduling_ignored_during_execution,
            &p.preferred_during_scheduling_ignored_during_execution,
        )
    })
}

/// `hasInvalidTopologySpreadConstraintLabelSelector`.
fn has_invalid_topology_spread_constraint_label_selector(spec: &PodSpec) -> bool {
    items(&spec.topology_spread_constraints)
        .iter()
        .any(|c| !validate_label_selector(c.label_selector.as_ref(), false, &Path::root()).is_empty())
}

/// `hasNonLocalProjectedTokenPath`.
fn has_non_local_projected_token_path(spec: &PodSpec) -> bool {
    items(&spec.volumes)
        .iter()
        .filter_map(|v| v.projected.as_ref())
        .flat_map(|p| items(&p.sources))
        .filter_map(|s| s.service_account_token.as_ref())
        .any(|t| !crate::pod::volumes::validate_local_non_reserved_path(&t.path, &Path::root()).is_empty())
}

/// The sysctl part of `GetValidationOptionsFromPodSpecAndMeta`: a sysctl `ValidateHostSysctl`
/// rejects.
fn has_host_namespaced_sysctl(spec: &PodSpec) -> bool {
    spec.security_context.as_ref().is_some_and(|sc| {
        items(&sc.sysctls)
            .iter()
            .any(|s| validate_host_sysctl(&s.name, spec, &Path::root()).is_some())
    })
}

/// `gatherPodEnvVarNames`: env var names and envFrom prefixes of every container.
fn env_var_names(spec: &PodSpec) -> std::collections::BTreeSet<String> {
    podmut_model::order::set_from(all_containers(spec).flat_map(|c| {
        items(&c.env)
            .iter()
            .map(|e| e.name.clone())
            .chain(
                items(&c.env_from)
                    .iter()
                    .map(|e| e.prefix.clone().unwrap_or_default()),
            )
            .collect::<Vec<_>>()
    }))
}

/// `useRelaxedEnvironmentVariableValidation` without the gate: a name of the new Pod that only the
/// relaxed rule allows is already in the old Pod (`relaxedEnvVarUsed`).
fn relaxed_env_var_names_in_use(new: Option<&PodSpec>, old: Option<&PodSpec>) -> bool {
    let (Some(new), Some(old)) = (new, old) else {
        return false;
    };
    let old_names = env_var_names(old);
    if old_names.is_empty() {
        return false;
    }
    env_var_names(new).iter().any(|name| {
        !names::is_env_var_name(name).is_empty()
            && names::is_relaxed_env_var_name(name).is_empty()
            && old_names.contains(name)
    })
}

/// `useRelaxedDNSSearchValidation` without the gate: the old Pod searches `.` or a name with `_`.
fn has_dot_or_underscore_search(spec: &PodSpec) -> bool {
    spec.dns_config
        .as_ref()
        .is_some_and(|c| items(&c.searches).iter().any(|s| s == "." || s.contains('_')))
}

/// `podLifecycleSleepActionZeroValueInUse`: a postStart or preStop sleep of 0 seconds.
fn sleep_action_zero_value_in_use(spec: &PodSpec) -> bool {
    all_containers(spec).any(|c| {
        c.lifecycle.as_ref().is_some_and(|l| {
            [&l.pre_stop, &l.post_start]
                .into_iter()
                .flatten()
                .any(|h| h.sleep.as_ref().is_some_and(|s| s.seconds == 0))
        })
    })
}

/// `seLinuxChangePolicyInUse`.
fn selinux_change_policy_in_use(spec: &PodSpec) -> bool {
    spec.security_context
        .as_ref()
        .is_some_and(|sc| sc.se_linux_change_policy.is_some())
}

/// `hasRestartableInitContainerResizePolicy`.
fn has_restartable_init_container_resize_policy(spec: &PodSpec) -> bool {
    init_containers(spec)
        .iter()
        .any(|c| is_restartable_init(c) && !items(&c.resize_policy).is_empty())
}

/// `containerRestartRulesInUse`: an init container with a restart policy other than `Always` or
/// with rules, or a regular container with a restart policy.
pub(crate) fn container_restart_rules_in_use(spec: &PodSpec) -> bool {
    init_containers(spec).iter().any(|c| {
        c.restart_policy.as_deref().is_some_and(|p| p != "Always")
            || !items(&c.restart_policy_rules).is_empty()
    }) || spec.containers.iter().any(|c| c.restart_policy.is_some())
}

/// `restartAllContainersActionInUse`: a `RestartAllContainers` rule on a regular or init
/// container, or rules on a restartable init container.
fn restart_all_containers_action_in_use(spec: &PodSpec) -> bool {
    let restart_all = |c: &Container| {
        items(&c.restart_policy_rules)
            .iter()
            .any(|r| r.action == "RestartAllContainers")
    };
    spec.containers.iter().any(restart_all)
        || init_containers(spec)
            .iter()
            .any(|c| restart_all(c) || (is_restartable_init(c) && !items(&c.restart_policy_rules).is_empty()))
}

/// `hasInvalidLabelValueInRequiredNodeAffinity` (`helper.HasInvalidLabelValueInNodeSelectorTerms`).
fn has_invalid_label_value_in_required_node_affinity(spec: &PodSpec) -> bool {
    spec.affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref())
        .is_some_and(|r| {
            r.node_selector_terms.iter().any(|t| {
                items(&t.match_expressions).iter().any(|e| {
                    items(&e.values)
                        .iter()
                        .any(|v| !names::is_valid_label_value(v).is_empty())
                })
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use podmut_model::document::parse_pod;

    fn pod(spec: &str) -> Pod {
        parse_pod(
            &format!("metadata: {{name: p}}\nspec:\n  containers: [{{name: c, image: i}}]\n{spec}"),
            "p",
            1 << 20,
        )
        .unwrap()
    }

    fn gates_off(gates: &[Gate]) -> Settings {
        let mut s = Settings::default();
        for g in gates {
            s.feature_gates.set(*g, false);
        }
        s
    }

    #[test]
    fn creates_get_the_gate_defaults() {
        let o = PodValidationOptions::for_create(&pod(""), &Settings::default());
        assert!(
            o.allow_sidecar_resize_policy && o.pod_level_resources_enabled && o.sidecar_containers_enabled
        );
        assert!(o.allow_relaxed_environment_variable_validation && o.allow_relaxed_dns_search_validation);
        assert!(o.allow_pod_lifecycle_sleep_action_zero_value);
        // SELinuxMount is GA (on) in 1.37; off in 1.36: only Recursive for new Pods
        assert!(!o.allow_only_recursive_selinux_change_policy);
        let v136 = Settings::parse("kubernetesVersion: '1.36'").unwrap();
        assert!(PodValidationOptions::for_create(&pod(""), &v136).allow_only_recursive_selinux_change_policy);
        assert!(!o.allow_invalid_pod_deletion_cost && !o.allow_invalid_label_value_in_selector);
    }

    #[test]
    fn old_values_ratchet() {
        let s = gates_off(&[
            Gate::InPlacePodVerticalScaling,
            Gate::RelaxedDNSSearchValidation,
            Gate::PodLifecycleSleepActionAllowZero,
        ]);
        let plain = pod("");
        let o = PodValidationOptions::for_update(&plain, &plain, &s);
        assert!(!o.allow_sidecar_resize_policy && !o.allow_relaxed_dns_search_validation);
        assert!(!o.allow_pod_lifecycle_sleep_action_zero_value && !o.allow_non_local_projected_token_path);
        let old = pod(
            "  initContainers: [{name: s, image: i, restartPolicy: Always, resizePolicy: [{resourceName: cpu, restartPolicy: NotRequired}], lifecycle: {preStop: {sleep: {seconds: 0}}}}]\n  dnsConfig: {searches: [a_b.example]}\n  volumes: [{name: t, projected: {sources: [{serviceAccountToken: {path: ../token}}]}}]\n  securityContext: {seLinuxChangePolicy: MountOption}\n",
        );
        let o = PodValidationOptions::for_update(&plain, &old, &s);
        assert!(o.allow_sidecar_resize_policy && o.allow_relaxed_dns_search_validation);
        assert!(o.allow_pod_lifecycle_sleep_action_zero_value && o.allow_non_local_projected_token_path);
        assert!(!o.allow_only_recursive_selinux_change_policy);
    }

    #[test]
    fn relaxed_env_names_ratchet_only_when_the_old_pod_has_the_name() {
        let s = gates_off(&[Gate::RelaxedEnvironmentVariableValidation]);
        let with = |name: &str| {
            pod(&format!(
                "  initContainers: [{{name: e, image: i, env: [{{name: '{name}', value: x}}]}}]\n"
            ))
        };
        let relaxed = with("1st");
        assert!(
            PodValidationOptions::for_update(&relaxed, &relaxed, &s)
                .allow_relaxed_environment_variable_validation
        );
        assert!(
            !PodValidationOptions::for_update(&relaxed, &with("FIRST"), &s)
                .allow_relaxed_environment_variable_validation
        );
        assert!(
            !PodValidationOptions::for_create(&relaxed, &s).allow_relaxed_environment_variable_validation
        );
    }
}
