//! `ValidatePodUpdate`: what a plain `PUT/PATCH pods/<name>` may change.
//!
//! Upstream: `pkg/apis/core/validation/validation.go` `ValidatePodUpdate`, `ValidateContainerUpdates`.

use k8s_openapi::api::core::v1::{Container, Pod, PodSpec};

use crate::field::{ErrorList, FieldError, Path};
use crate::pod::spec_of;
use crate::semantic::{diff_paths, semantic_eq};
use crate::settings::Settings;

/// The catch-all detail upstream reports at `spec` (followed there by a `cmp.Diff` of the specs).
pub const CATCH_ALL_DETAIL: &str = "pod updates may not change fields other than `spec.containers[*].image`,\
`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),\
`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/// Validate a plain Pod update (`new` first, like upstream `ValidatePodUpdate(newPod, oldPod)`).
pub fn validate_pod_update(new: &Pod, old: &Pod, settings: &Settings) -> ErrorList {
    let mut errs = ErrorList::new();
    let spec_path = Path::new("spec");
    let new_spec = spec_of(new);
    let old_spec = spec_of(old);

    let (container_errs, stop) = validate_container_updates(
        &new_spec.containers,
        &old_spec.containers,
        &spec_path.child("containers"),
    );
    errs.extend(container_errs);
    if stop {
        return errs;
    }
    let empty = Vec::new();
    let (init_errs, stop) = validate_container_updates(
        new_spec.init_containers.as_ref().unwrap_or(&empty),
        old_spec.init_containers.as_ref().unwrap_or(&empty),
        &spec_path.child("initContainers"),
    );
    errs.extend(init_errs);
    if stop {
        return errs;
    }

    if semantic_eq(&*new_spec, &*old_spec) {
        return errs;
    }
    let munged = munge_updatable_fields(&new_spec, &old_spec, settings);
    if !semantic_eq(&munged, &*old_spec) {
        errs.push(catch_all_error(&old_spec, &munged));
    }
    errs
}

/// The `Forbidden spec` catch-all, with a short list of the fields that differ.
pub fn catch_all_error(old: &PodSpec, munged: &PodSpec) -> FieldError {
    let changed = diff_paths(old, munged);
    let detail = if changed.is_empty() {
        CATCH_ALL_DETAIL.to_owned()
    } else {
        let listed: Vec<String> = changed.iter().map(|p| format!("spec.{p}")).collect();
        format!("{CATCH_ALL_DETAIL}\n  changed: {}", listed.join(", "))
    };
    FieldError::forbidden(&Path::new("spec"), detail).with_origin("update/immutable-spec")
}

/// Copy into a clone of `new` every field a plain update may change, taken from `old`, so that
/// anything still different is an immutable change.
pub fn munge_updatable_fields(new: &PodSpec, old: &PodSpec, _settings: &Settings) -> PodSpec {
    let mut m = new.clone();
    for (c, oc) in m.containers.iter_mut().zip(&old.containers) {
        c.image.clone_from(&oc.image);
    }
    if let (Some(ics), Some(oics)) = (m.init_containers.as_mut(), old.init_containers.as_ref()) {
        for (c, oc) in ics.iter_mut().zip(oics) {
            c.image.clone_from(&oc.image);
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

/// `ValidateContainerUpdates`: the list may not grow or shrink (validation stops there); images
/// must be present and free of surrounding whitespace.
pub fn validate_container_updates(new: &[Container], old: &[Container], path: &Path) -> (ErrorList, bool) {
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
