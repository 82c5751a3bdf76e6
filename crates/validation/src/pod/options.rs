//! The options Pod validation takes (upstream's `PodValidationOptions`): which rules a request
//! relaxes because the stored Pod already breaks them, and which gated rules apply.
//! [`super::options_from`] derives them from the request's Pods.

/// Upstream `PodValidationOptions` (the 1.33 fields; `ResourceIsPod` is `!template`) and podmut's own request facts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PodValidationOptions {
    /// `AllowInvalidPodDeletionCost`: gate `PodDeletionCost` off, or the old Pod's deletion cost
    /// is already invalid.
    pub(crate) allow_invalid_pod_deletion_cost: bool,
    /// `AllowInvalidLabelValueInSelector`: the old Pod's pod (anti-)affinity selectors already have
    /// an invalid label value.
    pub(crate) allow_invalid_label_value_in_selector: bool,
    /// `AllowIndivisibleHugePagesValues`: the old Pod already uses such values.
    pub(crate) allow_indivisible_huge_pages_values: bool,
    /// `AllowInvalidTopologySpreadConstraintLabelSelector`: the old Pod already has one.
    pub(crate) allow_invalid_topology_spread_constraint_label_selector: bool,
    /// `AllowNonLocalProjectedTokenPath`: the old Pod already has such a token path.
    pub(crate) allow_non_local_projected_token_path: bool,
    /// `AllowNamespacedSysctlsForHostNetAndHostIPC`: the old Pod already has such a sysctl.
    pub(crate) allow_namespaced_sysctls_for_host_net_and_host_ipc: bool,
    /// `AllowRelaxedEnvironmentVariableValidation`: gate `RelaxedEnvironmentVariableValidation`,
    /// or a relaxed-only name of the new Pod is already used by the old Pod.
    pub(crate) allow_relaxed_environment_variable_validation: bool,
    /// `AllowRelaxedDNSSearchValidation`: gate `RelaxedDNSSearchValidation`, or the old Pod
    /// already searches `.` or a name with `_`.
    pub(crate) allow_relaxed_dns_search_validation: bool,
    /// `AllowPodLifecycleSleepActionZeroValue`: gate `PodLifecycleSleepActionAllowZero`, or the
    /// old Pod already sleeps for 0 seconds.
    pub(crate) allow_pod_lifecycle_sleep_action_zero_value: bool,
    /// `AllowOnlyRecursiveSELinuxChangePolicy`: gate `SELinuxMount` off and no policy in the old
    /// Pod.
    pub(crate) allow_only_recursive_selinux_change_policy: bool,
    /// `PodLevelResourcesEnabled`: gate `PodLevelResources`.
    pub(crate) pod_level_resources_enabled: bool,
    /// `AllowSidecarResizePolicy`: gate `InPlacePodVerticalScaling`, or the old Pod already sets a
    /// resize policy on a restartable init container.
    pub(crate) allow_sidecar_resize_policy: bool,
    /// `AllowInvalidLabelValueInRequiredNodeAffinity`: the old Pod already has such a value.
    pub(crate) allow_invalid_label_value_in_required_node_affinity: bool,
    /// `AllowUserNamespacesHostNetworkSupport`: gate `UserNamespacesHostNetworkSupport` (alpha,
    /// off, not modelled) or the old Pod already has `hostNetwork` with `hostUsers: false`.
    pub(crate) allow_user_namespaces_host_network_support: bool,
    /// `AllowContainerRestartPolicyRules`: gate `ContainerRestartRules`, or the old Pod already
    /// uses container restart policies or rules (`containerRestartRulesInUse`).
    pub(crate) allow_container_restart_policy_rules: bool,
    /// `AllowRestartAllContainers`: gate `RestartAllContainersOnContainerExits` (beta, on from
    /// 1.36) or the old Pod already uses the `RestartAllContainers` action or rules on a
    /// restartable init container (`restartAllContainersActionInUse`).
    pub(crate) allow_restart_all_containers: bool,
    /// podmut: the cluster's `AllowPrivileged` capability (`--allow-privileged`).
    pub(crate) allow_privileged: bool,
    /// podmut: gate `SidecarContainers` (locked on upstream since 1.33), or the old Pod already
    /// has restartable init containers.
    pub(crate) sidecar_containers_enabled: bool,
    /// `AllowExistingRestartContainerForNonSidecarInitContainer` (1.36): a non-sidecar init
    /// container of the old Pod already has a `RestartContainer` resize policy.
    pub(crate) allow_existing_restart_container_for_non_sidecar_init: bool,
    /// podmut: gate `StrictIPCIDRValidation` (IP addresses of legacy fields parsed strictly).
    pub(crate) strict_ip: bool,
    /// podmut: the release whose rules apply (its minor version, `37` for 1.37).
    pub(crate) release: u8,
    /// podmut: the API server's request handling filled the metadata before validation
    /// (`applyDefaults`): the namespace from the request, a generated name, an unconditional
    /// update's resourceVersion.
    pub(crate) request_fills_metadata: bool,
    /// The spec is a workload's Pod template, not a Pod's (upstream `ResourceIsPod` false): a
    /// host-network port may leave `hostPort` unset.
    pub(crate) template: bool,
}
