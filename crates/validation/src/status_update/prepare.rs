//! The REST layer's `PrepareForUpdate` for `pods/status` (`podStatusStrategy.PrepareForUpdate`,
//! `preserveOldObservedGeneration`, and the status part of `DropDisabledPodFields`,
//! `dropDisabledPodStatusFields`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{ContainerStatus, Pod, PodStatus};

use crate::strategy::Prepared;
use podmut_model::podutil::spec as spec_of;
use podmut_model::settings::{Gate, Settings};

/// The Pod `pods/status` validates: the request with the stored Pod's spec, deletion timestamp and
/// owner references; an empty `status.qosClass` and cleared `observedGeneration`s taken from the
/// stored status; the status fields of disabled gates dropped.
pub(crate) fn prepare_update(new: &Pod, old: &Pod, settings: &Settings) -> Prepared {
    let mut pod = new.clone();
    pod.spec.clone_from(&old.spec);
    pod.metadata
        .deletion_timestamp
        .clone_from(&old.metadata.deletion_timestamp);
    pod.metadata
        .owner_references
        .clone_from(&old.metadata.owner_references);
    let default_status = PodStatus::default();
    let os = old.status.as_ref().unwrap_or(&default_status);
    let status = pod.status.get_or_insert_with(Default::default);
    // the Pod QoS is immutable; old kubelets dropped it from rejected Pods
    if status.qos_class.as_deref().is_none_or(str::is_empty) {
        status.qos_class.clone_from(&os.qos_class);
    }
    preserve_old_observed_generation(status, os);
    drop_disabled_status_fields(status, os, old, settings);
    Prepared::applied(pod)
}

fn unset(generation: Option<i64>) -> bool {
    generation.is_none_or(|g| g == 0)
}

/// `preserveOldObservedGeneration`: a cleared `observedGeneration` keeps the stored one, in the
/// status and in each condition (matched by type, in order: a type may repeat).
fn preserve_old_observed_generation(status: &mut PodStatus, old: &PodStatus) {
    if unset(status.observed_generation) {
        status.observed_generation = old.observed_generation;
    }
    let mut old_by_type: BTreeMap<&str, Vec<Option<i64>>> = BTreeMap::new();
    for c in old.conditions.iter().flatten() {
        old_by_type
            .entry(c.type_.as_str())
            .or_default()
            .push(c.observed_generation);
    }
    for c in status.conditions.iter_mut().flatten() {
        let stored = old_by_type
            .get_mut(c.type_.as_str())
            .filter(|g| !g.is_empty())
            .and_then(|g| g.remove(0));
        if unset(c.observed_generation) {
            c.observed_generation = stored;
        }
    }
}

fn each_container_status(status: &mut PodStatus, f: impl Fn(&mut ContainerStatus)) {
    for list in [
        &mut status.container_statuses,
        &mut status.init_container_statuses,
        &mut status.ephemeral_container_statuses,
    ] {
        list.iter_mut().flatten().for_each(&f);
    }
}

/// `dropDisabledPodStatusFields`, for the gates podmut knows: what a disabled gate's field holds
/// is dropped, unless the stored Pod already uses it (except `ResourceHealthStatus`, dropped
/// always).
fn drop_disabled_status_fields(status: &mut PodStatus, old: &PodStatus, old_pod: &Pod, settings: &Settings) {
    if !settings.gate(Gate::InPlacePodLevelResourcesVerticalScaling)
        && old.resources.is_none()
        && old.allocated_resources.is_none()
    {
        status.resources = None;
        status.allocated_resources = None;
    }
    let resize_policy_in_use = {
        let spec = spec_of(old_pod);
        spec.containers
            .iter()
            .chain(spec.init_containers.iter().flatten())
            .any(|c| c.resize_policy.as_ref().is_some_and(|p| !p.is_empty()))
    };
    if !settings.gate(Gate::InPlacePodVerticalScaling) && !resize_policy_in_use {
        each_container_status(status, |c| {
            c.resources = None;
            c.allocated_resources = None;
        });
    }
    if !settings.gate(Gate::ResourceHealthStatus) {
        each_container_status(status, |c| c.allocated_resources_status = None);
    }
    let generation_in_use = !unset(old.observed_generation)
        || old
            .conditions
            .iter()
            .flatten()
            .any(|c| !unset(c.observed_generation));
    if !settings.gate(Gate::PodObservedGenerationTracking) && !generation_in_use {
        status.observed_generation = None;
        for c in status.conditions.iter_mut().flatten() {
            c.observed_generation = None;
        }
    }
}
