//! Create-time Pod validation (`ValidatePodCreate` / `ValidatePodSpec`).

use k8s_openapi::api::core::v1::Pod;

use crate::field::{ErrorList, FieldError, Path};
use crate::pod::spec_of;
use crate::settings::Settings;

/// Validate a Pod create.
pub fn validate_pod_create(pod: &Pod, settings: &Settings) -> ErrorList {
    let mut errs = validate_pod_spec_basics(pod, settings);
    let spec = spec_of(pod);
    if spec.ephemeral_containers.as_ref().is_some_and(|e| !e.is_empty()) {
        errs.push(
            FieldError::forbidden(
                &Path::new("spec").child("ephemeralContainers"),
                "cannot be set on create",
            )
            .with_origin("create/no-ephemeral-containers"),
        );
    }
    errs
}

/// The spec checks every create and update runs on the new Pod.
pub fn validate_pod_spec_basics(pod: &Pod, _settings: &Settings) -> ErrorList {
    let mut errs = ErrorList::new();
    let spec = spec_of(pod);
    if spec.containers.is_empty() {
        errs.push(
            FieldError::required(&Path::new("spec").child("containers"), "")
                .with_origin("spec/containers-required"),
        );
    }
    errs
}
