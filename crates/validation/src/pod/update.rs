//! `ValidatePodUpdate`: what a plain `PUT/PATCH pods/<name>` may change, plus KEP-6318
//! (MutableContainerProbes).
//!
//! Upstream: `pkg/apis/core/validation/validation.go` `ValidatePodUpdate`,
//! `ValidateContainerUpdates`; KEP-6318 "In-place Updates to Container Probes", section
//! "API Behavior" (no upstream validation code exists for it yet).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Affinity, Container, Pod, PodSpec};

use crate::pod::annotations::validate_pod_specific_annotation_updates;
use crate::pod::meta::validate_object_meta_update;
use crate::pod::names::inclusive_range_error;
use crate::pod::options::PodValidationOptions;
use crate::pod::probes::ProbeKind;
use crate::pod::scheduling::{
    validate_node_affinity_mutation, validate_node_selector_mutation, validate_only_added_tolerations,
    validate_only_deleted_scheduling_gates,
};
use crate::pod::spec::validate_pod_metadata_and_spec;
use crate::pod::util::items;
use podmut_model::field::{BadValue, ErrorList, FieldError, Path};
use podmut_model::podutil::{is_restartable_init, spec as spec_of};
use podmut_model::semantic::{diff_paths, semantic_eq};
use podmut_model::settings::{Gate, Settings};

/// The catch-all detail upstream reports at `spec` (followed there by a `cmp.Diff` of the specs).
pub(crate) const CATCH_ALL_DETAIL: &str = "pod updates may not change fields other than `spec.containers[*].image`,\
`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),\
`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/// What podmut appends to the catch-all list when `MutableContainerProbes` is on (KEP-6318 adds
/// these fields to the updatable set; upstream has no wording for it yet).
pub(crate) const MUTABLE_PROBES_DETAIL: &str = ",`spec.containers[*].livenessProbe`,`spec.containers[*].readinessProbe`,\
`spec.containers[*].startupProbe` (and those of init containers with restartPolicy Always)";

/// Validate a plain Pod update (`ValidatePodUpdate(newPod, oldPod, opts)`), in upstream's order:
/// the update prefix ([`validate_update_prefix`]), the container-list shape (stops on a length
/// change), then the spec-update step ([`validate_spec_update`]).
pub(crate) fn validate_pod_update(
    new: &Pod,
    old: &Pod,
    opts: &PodValidationOptions,
    settings: &Settings,
) -> ErrorList {
    let mut errs = validate_update_prefix(new, old, opts);
    let spec_path = Path::new("spec");
    let new_spec = spec_of(new);
    let old_spec = spec_of(old);
    for (list, new_list, old_list) in [
        ("containers", &new_spec.containers[..], &old_spec.containers[..]),
        (
            "initContainers",
            items(&new_spec.init_containers),
            items(&old_spec.init_containers),
        ),
    ] {
        let (container_errs, stop) = validate_container_updates(new_list, old_list, &spec_path.child(list));
        errs.extend(container_errs);
        if stop {
            return errs;
        }
    }
    errs.extend(validate_spec_update(new, old, settings));
    errs
}

/// The metadata and full-validation prefix every update that validates the new spec starts with
/// (`ValidatePodUpdate`, `ValidatePodEphemeralContainersUpdate`, and podmut's `pods/dynamic`):
/// `ValidateObjectMetaUpdate`, `validatePodMetadataAndSpec` of the new Pod, then
/// `ValidatePodSpecificAnnotationUpdates`.
pub(crate) fn validate_update_prefix(new: &Pod, old: &Pod, opts: &PodValidationOptions) -> ErrorList {
    let meta_path = Path::new("metadata");
    let mut errs = validate_object_meta_update(&new.metadata, &old.metadata, &meta_path, opts);
    errs.extend(validate_pod_metadata_and_spec(new, opts));
    errs.extend(validate_pod_specific_annotation_updates(
        new,
        old,
        &meta_path.child("annotations"),
        opts,
    ));
    errs
}

/// The spec-update step of `ValidatePodUpdate`, after the container lists were checked:
/// activeDeadlineSeconds (may stop), tolerations, scheduling gates, then — if the specs differ —
/// the KEP-6318 probe rules, the gated-Pod node-selection rules and the catch-all `Forbidden spec`.
///
/// `new` and `old` must have container lists of the same lengths (the step pairs them by index).
pub(crate) fn validate_spec_update(new: &Pod, old: &Pod, settings: &Settings) -> ErrorList {
    let spec_path = Path::new("spec");
    let new_spec = spec_of(new);
    let old_spec = spec_of(old);
    let mut errs = ErrorList::new();
    let ads_path = spec_path.child("activeDeadlineSeconds");
    match (new_spec.active_deadline_seconds, old_spec.active_deadline_seconds) {
        (Some(n), _) if !(0..=i64::from(i32::MAX)).contains(&n) => {
            errs.push(
                FieldError::invalid(&ads_path, n, inclusive_range_error(0, i64::from(i32::MAX)))
                    .with_origin("update/active-deadline-range"),
            );
            return errs;
        }
        (Some(n), Some(o)) if o < n => {
            errs.push(
                FieldError::invalid(&ads_path, n, "must be less than or equal to previous value")
                    .with_origin("update/active-deadline-increase"),
            );
            return errs;
        }
        (None, Some(_)) => errs.push(
            FieldError::invalid(
                &ads_path,
                BadValue::Null,
                "must not update from a positive integer to nil value",
            )
            .with_origin("update/active-deadline-unset"),
        ),
        _ => {}
    }

    errs.extend(validate_only_added_tolerations(
        items(&new_spec.tolerations),
        items(&old_spec.tolerations),
        &spec_path.child("tolerations"),
    ));
    errs.extend(validate_only_deleted_scheduling_gates(
        items(&new_spec.scheduling_gates),
        items(&old_spec.scheduling_gates),
        &spec_path.child("schedulingGates"),
    ));

    // A cheap exit for identical specs. Semantically equal but structurally different specs go
    // on: munging keeps them equal, so the catch-all below agrees without normalising them twice.
    if *new_spec == *old_spec {
        return errs;
    }
    if settings.gate(Gate::MutableContainerProbes) {
        errs.extend(validate_probe_update_phase(&new_spec, &old_spec, old, &spec_path));
    }
    let gated = !items(&old_spec.scheduling_gates).is_empty();
    if !gated && only_updatable_fields_differ(&new_spec, &old_spec, settings) {
        // The munged spec would equal the old one: no copy needed to know the catch-all passes.
        return errs;
    }
    let mut munged = munge_updatable_fields(&new_spec, &old_spec, settings);

    if gated {
        errs.extend(munge_gated_node_selection(&mut munged, &old_spec, &spec_path));
    }

    if !semantic_eq(&munged, &*old_spec) {
        let mut e = catch_all_error(&old_spec, &munged);
        if settings.gate(Gate::MutableContainerProbes) {
            e.detail = e.detail.replacen(
                CATCH_ALL_DETAIL,
                &format!("{CATCH_ALL_DETAIL}{MUTABLE_PROBES_DETAIL}"),
                1,
            );
        }
        errs.push(e);
    }
    errs
}

/// The gated-Pod rules of `ValidatePodUpdate`: while the old Pod has scheduling gates,
/// `spec.nodeSelector` may gain entries and required node-affinity terms may gain
/// matchExpressions/matchFields (`validateNodeSelectorMutation`, `validateNodeAffinityMutation`);
/// accepted changes are copied back from `old` into `munged` so the catch-all ignores them.
fn munge_gated_node_selection(munged: &mut PodSpec, old: &PodSpec, spec_path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let empty = BTreeMap::new();
    if munged.node_selector.as_ref().unwrap_or(&empty) != old.node_selector.as_ref().unwrap_or(&empty) {
        errs.extend(validate_node_selector_mutation(
            &spec_path.child("nodeSelector"),
            munged.node_selector.as_ref(),
            old.node_selector.as_ref(),
        ));
        munged.node_selector.clone_from(&old.node_selector);
    }
    let old_na = old.affinity.as_ref().and_then(|a| a.node_affinity.clone());
    let munged_na = munged.affinity.as_ref().and_then(|a| a.node_affinity.clone());
    if !semantic_eq(&old_na, &munged_na) {
        errs.extend(validate_node_affinity_mutation(
            &spec_path.child("affinity").child("nodeAffinity"),
            munged_na.as_ref(),
            old_na.as_ref(),
        ));
        match munged.affinity.as_mut() {
            None => {
                if old_na.is_some() {
                    munged.affinity = Some(Affinity {
                        node_affinity: old_na,
                        ..Affinity::default()
                    });
                }
            }
            Some(a)
                if old.affinity.is_none() && a.pod_affinity.is_none() && a.pod_anti_affinity.is_none() =>
            {
                munged.affinity = None;
            }
            Some(a) => a.node_affinity = old_na,
        }
    }
    errs
}

/// The catch-all `Forbidden spec` (upstream appends a `cmp.Diff`; podmut lists the changed paths).
pub(crate) fn catch_all_error(old: &PodSpec, munged: &PodSpec) -> FieldError {
    let changed = diff_paths(old, munged);
    let detail = if changed.is_empty() {
        CATCH_ALL_DETAIL.to_owned()
    } else {
        let listed: Vec<String> = changed.iter().map(|p| format!("spec.{p}")).collect();
        format!("{CATCH_ALL_DETAIL}\n  changed: {}", listed.join(", "))
    };
    FieldError::forbidden(&Path::new("spec"), detail).with_origin("update/immutable-spec")
}

/// Whether the KEP-6318 probe fields of this container may change: regular containers always,
/// init containers only with `restartPolicy: Always`.
fn probes_mutable(c: &Container, init: bool) -> bool {
    !init || is_restartable_init(c)
}

/// The containers whose probes a plain update may change, paired by index with their old
/// version (same name only, so a renamed container never borrows another's probes).
fn probe_pairs<'a>(
    new: &'a [Container],
    old: &'a [Container],
    init: bool,
) -> impl Iterator<Item = (usize, &'a Container, &'a Container)> + 'a {
    new.iter()
        .zip(old)
        .enumerate()
        .filter(move |(_, (n, o))| n.name == o.name && probes_mutable(n, init))
        .map(|(i, (n, o))| (i, n, o))
}

/// KEP-6318, "API Behavior": "Updates that change probes on Pods with a deletionTimestamp, or on
/// Pods in the Succeeded or Failed phase, are rejected."
///
/// podmut's rendering (the KEP names no field path or error type): one `Forbidden` at each
/// changed probe, e.g. `spec.containers[0].livenessProbe`, with origin `update/probes-terminal`.
/// The deletionTimestamp and phase are read from the old (stored) Pod: on the main resource the
/// API server keeps the stored status and metadata.deletionTimestamp is immutable.
fn validate_probe_update_phase(new: &PodSpec, old: &PodSpec, old_pod: &Pod, spec_path: &Path) -> ErrorList {
    let phase = old_pod
        .status
        .as_ref()
        .and_then(|s| s.phase.as_deref())
        .unwrap_or("");
    let reason = if old_pod.metadata.deletion_timestamp.is_some() {
        "probes may not be changed on a Pod that is being deleted (deletionTimestamp is set)".to_owned()
    } else if phase == "Succeeded" || phase == "Failed" {
        format!("probes may not be changed on a Pod in phase {phase}")
    } else {
        return ErrorList::new();
    };
    let mut errs = ErrorList::new();
    for (list, new_list, old_list, init) in [
        ("containers", &new.containers[..], &old.containers[..], false),
        (
            "initContainers",
            items(&new.init_containers),
            items(&old.init_containers),
            true,
        ),
    ] {
        for (i, n, o) in probe_pairs(new_list, old_list, init) {
            for kind in ProbeKind::ALL {
                if !semantic_eq(&kind.of(n).cloned(), &kind.of(o).cloned()) {
                    errs.push(
                        FieldError::forbidden(
                            &spec_path.child(list).index(i).child(kind.field()),
                            reason.clone(),
                        )
                        .with_origin("update/probes-terminal"),
                    );
                }
            }
        }
    }
    errs
}

/// Copy into a clone of `new` every field a plain update may change, taken from `old`, so that
/// anything still different is an immutable change: container and init-container images (by
/// index), activeDeadlineSeconds, schedulingGates, tolerations, a grace period going from negative
/// to exactly 1 and — with `MutableContainerProbes` (KEP-6318) — the liveness, readiness and
/// startup probes of regular containers and of init containers with `restartPolicy: Always`.
pub(crate) fn munge_updatable_fields(new: &PodSpec, old: &PodSpec, settings: &Settings) -> PodSpec {
    let mut m = new.clone();
    for (c, oc) in m.containers.iter_mut().zip(&old.containers) {
        c.image.clone_from(&oc.image);
    }
    if let (Some(ics), Some(oics)) = (m.init_containers.as_mut(), old.init_containers.as_ref()) {
        for (c, oc) in ics.iter_mut().zip(oics) {
            c.image.clone_from(&oc.image);
        }
    }
    if settings.gate(Gate::MutableContainerProbes) {
        munge_probes(&mut m.containers, &old.containers, false);
        if let (Some(ics), Some(oics)) = (m.init_containers.as_mut(), old.init_containers.as_ref()) {
            munge_probes(ics, oics, true);
        }
    }
    m.active_deadline_seconds = old.active_deadline_seconds;
    m.scheduling_gates.clone_from(&old.scheduling_gates);
    m.tolerations.clone_from(&old.tolerations);
    // terminationGracePeriodSeconds may go from a negative value to exactly 1.
    if old.termination_grace_period_seconds.is_some_and(|g| g < 0)
        && new.termination_grace_period_seconds == Some(1)
    {
        m.termination_grace_period_seconds = old.termination_grace_period_seconds;
    }
    m
}

/// Whether [`munge_updatable_fields`] of `new` would be structurally equal to `old`, decided
/// without building it: every field but the updatable ones compared in place. The common update
/// (an image, a probe) is answered without copying the spec (that copy and its drop were a tenth
/// of a review). The destructuring names every field, so a field added to k8s-openapi's types
/// fails to compile here instead of being skipped.
fn only_updatable_fields_differ(new: &PodSpec, old: &PodSpec, settings: &Settings) -> bool {
    let probes = settings.gate(Gate::MutableContainerProbes);
    let PodSpec {
        // Munged from the old spec.
        active_deadline_seconds: _,
        scheduling_gates: _,
        tolerations: _,
        termination_grace_period_seconds,
        containers,
        init_containers,
        affinity,
        automount_service_account_token,
        dns_config,
        dns_policy,
        enable_service_links,
        ephemeral_containers,
        eviction_responders,
        host_aliases,
        host_ipc,
        host_network,
        host_pid,
        host_users,
        hostname,
        hostname_override,
        image_pull_secrets,
        node_name,
        node_selector,
        os,
        overhead,
        preemption_policy,
        priority,
        priority_class_name,
        readiness_gates,
        resource_claims,
        resources,
        restart_policy,
        runtime_class_name,
        scheduler_name,
        scheduling_group,
        security_context,
        service_account,
        service_account_name,
        set_hostname_as_fqdn,
        share_process_namespace,
        subdomain,
        topology_spread_constraints,
        volumes,
    } = new;
    let grace_ok = *termination_grace_period_seconds == old.termination_grace_period_seconds
        || (old.termination_grace_period_seconds.is_some_and(|g| g < 0)
            && *termination_grace_period_seconds == Some(1));
    let inits_ok = match (init_containers, &old.init_containers) {
        (Some(n), Some(o)) => containers_equal_but_updatable(n, o, probes, true),
        (n, o) => n == o,
    };
    grace_ok
        && inits_ok
        && containers_equal_but_updatable(containers, &old.containers, probes, false)
        && *affinity == old.affinity
        && *automount_service_account_token == old.automount_service_account_token
        && *dns_config == old.dns_config
        && *dns_policy == old.dns_policy
        && *enable_service_links == old.enable_service_links
        && *ephemeral_containers == old.ephemeral_containers
        && *eviction_responders == old.eviction_responders
        && *host_aliases == old.host_aliases
        && *host_ipc == old.host_ipc
        && *host_network == old.host_network
        && *host_pid == old.host_pid
        && *host_users == old.host_users
        && *hostname == old.hostname
        && *hostname_override == old.hostname_override
        && *image_pull_secrets == old.image_pull_secrets
        && *node_name == old.node_name
        && *node_selector == old.node_selector
        && *os == old.os
        && *overhead == old.overhead
        && *preemption_policy == old.preemption_policy
        && *priority == old.priority
        && *priority_class_name == old.priority_class_name
        && *readiness_gates == old.readiness_gates
        && *resource_claims == old.resource_claims
        && *resources == old.resources
        && *restart_policy == old.restart_policy
        && *runtime_class_name == old.runtime_class_name
        && *scheduler_name == old.scheduler_name
        && *scheduling_group == old.scheduling_group
        && *security_context == old.security_context
        && *service_account == old.service_account
        && *service_account_name == old.service_account_name
        && *set_hostname_as_fqdn == old.set_hostname_as_fqdn
        && *share_process_namespace == old.share_process_namespace
        && *subdomain == old.subdomain
        && *topology_spread_constraints == old.topology_spread_constraints
        && *volumes == old.volumes
}

/// [`only_updatable_fields_differ`] for one container list: the image always munged, the probes
/// when `probes` (gate `MutableContainerProbes`) and [`munge_probes`] would copy them.
fn containers_equal_but_updatable(new: &[Container], old: &[Container], probes: bool, init: bool) -> bool {
    new.len() == old.len()
        && new.iter().zip(old).all(|(n, o)| {
            let probes_munged = probes && n.name == o.name && probes_mutable(n, init);
            container_equal_but_updatable(n, o, probes_munged)
        })
}

/// Two containers equal but for the image (and the probes when `probes_munged`).
fn container_equal_but_updatable(n: &Container, o: &Container, probes_munged: bool) -> bool {
    let Container {
        image: _,
        liveness_probe,
        readiness_probe,
        startup_probe,
        args,
        command,
        env,
        env_from,
        image_pull_policy,
        lifecycle,
        name,
        ports,
        resize_policy,
        resources,
        restart_policy,
        restart_policy_rules,
        security_context,
        stdin,
        stdin_once,
        termination_message_path,
        termination_message_policy,
        tty,
        volume_devices,
        volume_mounts,
        working_dir,
    } = n;
    (probes_munged
        || (*liveness_probe == o.liveness_probe
            && *readiness_probe == o.readiness_probe
            && *startup_probe == o.startup_probe))
        && *name == o.name
        && *args == o.args
        && *command == o.command
        && *env == o.env
        && *env_from == o.env_from
        && *image_pull_policy == o.image_pull_policy
        && *lifecycle == o.lifecycle
        && *ports == o.ports
        && *resize_policy == o.resize_policy
        && *resources == o.resources
        && *restart_policy == o.restart_policy
        && *restart_policy_rules == o.restart_policy_rules
        && *security_context == o.security_context
        && *stdin == o.stdin
        && *stdin_once == o.stdin_once
        && *termination_message_path == o.termination_message_path
        && *termination_message_policy == o.termination_message_policy
        && *tty == o.tty
        && *volume_devices == o.volume_devices
        && *volume_mounts == o.volume_mounts
        && *working_dir == o.working_dir
}

fn munge_probes(new: &mut [Container], old: &[Container], init: bool) {
    for (n, o) in new.iter_mut().zip(old) {
        if n.name != o.name || !probes_mutable(n, init) {
            continue;
        }
        for kind in ProbeKind::ALL {
            *kind.of_mut(n) = kind.of(o).cloned();
        }
    }
}

/// `ValidateContainerUpdates`: the list may not grow or shrink (validation stops there); images
/// must be present and free of surrounding whitespace.
pub(crate) fn validate_container_updates(
    new: &[Container],
    old: &[Container],
    path: &Path,
) -> (ErrorList, bool) {
    if new.len() != old.len() {
        return (
            vec![
                FieldError::forbidden(path, "pod updates may not add or remove containers")
                    .with_origin("update/container-list"),
            ],
            true,
        );
    }
    let mut errs = ErrorList::new();
    for (i, c) in new.iter().enumerate() {
        let image = c.image.as_deref().unwrap_or("");
        let p = path.index(i).child("image");
        if image.is_empty() {
            errs.push(FieldError::required(&p, "").with_origin("update/image-required"));
        }
        if image.trim().len() != image.len() {
            errs.push(
                FieldError::invalid(&p, image, "must not have leading or trailing whitespace")
                    .with_origin("update/image-whitespace"),
            );
        }
    }
    (errs, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pod::util::{Want, summary, wanted};
    use podmut_model::document::parse_pod;
    use podmut_model::field::ErrorType;

    /// upstream `MakePod("pod")` plus `resourceVersion: "1"` (what `TestValidatePodUpdate` sets),
    /// not defaulted; `extra` is YAML merged into the spec, `status` the Pod status.
    fn pod(extra: &str, meta_extra: &str, status: &str) -> Pod {
        let yaml = format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: pod, namespace: default, resourceVersion: '1'{meta_extra}}}\nstatus: {{{status}}}\nspec:\n  dnsPolicy: ClusterFirst\n  restartPolicy: Always\n  terminationGracePeriodSeconds: 30\n{extra}"
        );
        parse_pod(&yaml, "pod", 1 << 20).unwrap()
    }

    /// (name, MutableContainerProbes, new spec YAML, old spec YAML, extra metadata, status, want)
    type ProbeCase = (
        &'static str,
        bool,
        String,
        String,
        &'static str,
        &'static str,
        Vec<Want>,
    );
    /// (name, new spec YAML, old spec YAML, extra metadata, status, want)
    type UpdateCase = (
        &'static str,
        String,
        String,
        &'static str,
        &'static str,
        Vec<Want>,
    );

    const CTR: &str =
        "name: ctr, image: image, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File";
    const PROBE: &str = "{tcpSocket: {port: 80}, successThreshold: 1, timeoutSeconds: 1, periodSeconds: 10, failureThreshold: 3}";

    fn settings(probes: bool) -> Settings {
        let mut s = Settings::default();
        s.apply_defaults = false;
        s.feature_gates.set(Gate::MutableContainerProbes, probes);
        s
    }

    fn update(new: &Pod, old: &Pod, settings: &Settings) -> ErrorList {
        validate_pod_update(
            new,
            old,
            &PodValidationOptions::for_update(new, old, settings),
            settings,
        )
    }

    fn containers(extra: &str) -> String {
        format!("  containers: [{{{CTR}{extra}}}]\n")
    }

    #[test]
    fn probe_cases() {
        let with_liveness = containers(&format!(", livenessProbe: {PROBE}"));
        let changed_liveness = containers(&format!(
            ", livenessProbe: {}",
            PROBE.replace("periodSeconds: 10", "periodSeconds: 20")
        ));
        let plain = containers("");
        let sidecar = |p: &str| {
            format!(
                "{plain}  initContainers: [{{name: side, image: image, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File, restartPolicy: Always{p}}}]\n"
            )
        };
        let cases: Vec<ProbeCase> = vec![
            (
                "add liveness probe (gate on)",
                true,
                with_liveness.clone(),
                plain.clone(),
                "",
                "",
                vec![],
            ),
            (
                "remove liveness probe (gate on)",
                true,
                plain.clone(),
                with_liveness.clone(),
                "",
                "",
                vec![],
            ),
            (
                "change liveness probe (gate on)",
                true,
                changed_liveness.clone(),
                with_liveness.clone(),
                "",
                "",
                vec![],
            ),
            (
                "add probe with gate off hits the catch-all",
                false,
                with_liveness.clone(),
                plain.clone(),
                "",
                "",
                vec![(ErrorType::Forbidden, "spec", "update/immutable-spec")],
            ),
            (
                "sidecar readiness probe added",
                true,
                sidecar(&format!(", readinessProbe: {PROBE}")),
                sidecar(""),
                "",
                "",
                vec![],
            ),
            (
                "invalid new probe is validated first",
                true,
                containers(&format!(
                    ", livenessProbe: {}",
                    PROBE.replace("successThreshold: 1", "successThreshold: 2")
                )),
                plain.clone(),
                "",
                "",
                vec![(
                    ErrorType::Invalid,
                    "spec.containers[0].livenessProbe.successThreshold",
                    "probe/success-threshold-one",
                )],
            ),
            (
                "probe change on a terminating Pod",
                true,
                changed_liveness.clone(),
                with_liveness.clone(),
                ", deletionTimestamp: '2024-01-01T00:00:00Z'",
                "",
                vec![(
                    ErrorType::Forbidden,
                    "spec.containers[0].livenessProbe",
                    "update/probes-terminal",
                )],
            ),
            (
                "probe change on a Succeeded Pod",
                true,
                changed_liveness,
                with_liveness,
                "",
                "phase: Succeeded",
                vec![(
                    ErrorType::Forbidden,
                    "spec.containers[0].livenessProbe",
                    "update/probes-terminal",
                )],
            ),
            (
                "probe plus command change is rejected as a whole",
                true,
                containers(&format!(", command: [sh], livenessProbe: {PROBE}")),
                plain.clone(),
                "",
                "",
                vec![(ErrorType::Forbidden, "spec", "update/immutable-spec")],
            ),
            (
                "probe plus image change is allowed",
                true,
                containers(&format!(", livenessProbe: {PROBE}")).replace("image: image", "image: image2"),
                plain.clone(),
                "",
                "",
                vec![],
            ),
        ];
        for (name, gate, new, old, meta, status, want) in cases {
            let new_pod = pod(&new, meta, status);
            let old_pod = pod(&old, meta, status);
            let want = wanted(&want);
            assert_eq!(
                summary(&update(&new_pod, &old_pod, &settings(gate))),
                want,
                "{name}"
            );
        }
    }

    /// Cases translated from upstream `TestValidatePodUpdate`.
    #[test]
    fn upstream_update_cases() {
        let plain = containers("");
        let cases: Vec<UpdateCase> = vec![
            ("nothing", plain.clone(), plain.clone(), "", "", vec![]),
            (
                "activeDeadlineSeconds change to larger positive",
                format!("{plain}  activeDeadlineSeconds: 31\n"),
                format!("{plain}  activeDeadlineSeconds: 30\n"),
                "",
                "",
                vec![(
                    ErrorType::Invalid,
                    "spec.activeDeadlineSeconds",
                    "update/active-deadline-increase",
                )],
            ),
            (
                "activeDeadlineSeconds change to nil from positive",
                plain.clone(),
                format!("{plain}  activeDeadlineSeconds: 30\n"),
                "",
                "",
                vec![(
                    ErrorType::Invalid,
                    "spec.activeDeadlineSeconds",
                    "update/active-deadline-unset",
                )],
            ),
            (
                "activeDeadlineSeconds change to zero from positive",
                format!("{plain}  activeDeadlineSeconds: 0\n"),
                format!("{plain}  activeDeadlineSeconds: 30\n"),
                "",
                "",
                vec![(
                    ErrorType::Invalid,
                    "spec.activeDeadlineSeconds",
                    "spec/active-deadline-range",
                )],
            ),
            (
                "update pod spec schedulingGates: add new scheduling gate",
                format!("{plain}  schedulingGates: [{{name: foo}}]\n"),
                plain.clone(),
                "",
                "",
                vec![(
                    ErrorType::Forbidden,
                    "spec.schedulingGates[0].name",
                    "update/scheduling-gates-only-deleted",
                )],
            ),
            (
                "removing node selector is not allowed for gated pods",
                format!("{plain}  schedulingGates: [{{name: baz}}]\n"),
                format!("{plain}  nodeSelector: {{foo: bar}}\n  schedulingGates: [{{name: baz}}]\n"),
                "",
                "",
                vec![(
                    ErrorType::Invalid,
                    "spec.nodeSelector",
                    "update/gated-node-selector",
                )],
            ),
            (
                "adding node selector is allowed for gated pods",
                format!("{plain}  nodeSelector: {{foo: bar}}\n  schedulingGates: [{{name: baz}}]\n"),
                format!("{plain}  schedulingGates: [{{name: baz}}]\n"),
                "",
                "",
                vec![],
            ),
            (
                "adding node selector is not allowed for non-gated pods",
                format!("{plain}  nodeSelector: {{foo: bar, foo2: bar2}}\n"),
                format!("{plain}  nodeSelector: {{foo: bar}}\n"),
                "",
                "",
                vec![(ErrorType::Forbidden, "spec", "update/immutable-spec")],
            ),
        ];
        for (name, new, old, meta, status, want) in cases {
            let want = wanted(&want);
            let got = update(
                &pod(&new, meta, status),
                &pod(&old, meta, status),
                &settings(true),
            );
            assert_eq!(summary(&got), want, "{name}");
        }
        // "ids": renaming is an immutable metadata change.
        let new = parse_pod(
            &format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: foo, namespace: default, resourceVersion: '1'}}\nspec:\n  dnsPolicy: ClusterFirst\n  restartPolicy: Always\n  terminationGracePeriodSeconds: 30\n{plain}"),
            "p",
            1 << 20,
        )
        .unwrap();
        let old = pod(&plain, "", "");
        assert_eq!(
            summary(&update(&new, &old, &settings(true))),
            vec![(ErrorType::Invalid, "metadata.name".to_owned(), "meta/immutable")]
        );
        // "update termination grace period seconds": -1 -> 1 is allowed, -1 -> 0 is not.
        let g = |v: i64| {
            let mut p = pod(&plain, "", "");
            if let Some(s) = p.spec.as_mut() {
                s.termination_grace_period_seconds = Some(v);
            }
            p
        };
        assert!(update(&g(1), &g(-1), &settings(true)).is_empty());
        assert_eq!(
            summary(&update(&g(0), &g(-1), &settings(true))),
            vec![(ErrorType::Forbidden, "spec".to_owned(), "update/immutable-spec")]
        );
    }

    #[test]
    fn resource_version_is_required_without_defaulting() {
        let plain = containers("");
        let mut new = pod(&plain, "", "");
        new.metadata.resource_version = None;
        let old = pod(&plain, "", "");
        assert_eq!(
            summary(&update(&new, &old, &settings(true))),
            vec![(
                ErrorType::Invalid,
                "metadata.resourceVersion".to_owned(),
                "meta/resource-version"
            )]
        );
        let defaults = Settings::default();
        assert!(update(&new, &old, &defaults).is_empty());
    }
}
