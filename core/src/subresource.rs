//! Pieces shared by the subresource request paths (`pods/ephemeralcontainers`, `pods/resize`,
//! `pods/dynamic`, `pods/status`): the full validation every update runs on the new Pod, the
//! Pod-specific annotation update rules, and the REST-layer "strategy" step that decides which parts
//! of a request a subresource applies at all.
//!
//! # The strategy step
//!
//! The API server does not validate a subresource request as sent. The registry's
//! `PrepareForUpdate` (`pkg/registry/core/pod/strategy.go`) first copies everything the subresource
//! may not touch back from the stored Pod, and only then validates:
//!
//! | path | taken from the request | everything else |
//! |---|---|---|
//! | `pods/ephemeralcontainers` | `spec.ephemeralContainers` | from the stored Pod (`dropNonEphemeralContainerUpdates`) |
//! | `pods/resize` | `resources` and `resizePolicy` of containers (and of init containers with `SidecarContainers`) | from the stored Pod (`dropNonResizeUpdates`) |
//! | `pods/status` | `status` and most metadata | `spec`, `deletionTimestamp`, `ownerReferences` from the stored Pod |
//! | `pods/dynamic` (KEP-5972) | `spec` and metadata, like the main resource | `status` from the stored Pod (the main resource's strategy) |
//!
//! Such changes are therefore silently ignored by the API server, not rejected. podmut does the same
//! and reports what was ignored as a warning, so a user who edits a field on the wrong path learns
//! why it did not stick. An admission webhook already receives the prepared object, so the step is a
//! no-op there.

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::field::{ErrorList, FieldError, Path};
use crate::pod::{MIRROR_POD_ANNOTATION, spec_of};
use crate::semantic::diff_paths;
use crate::settings::Settings;

/// The prefix of the deprecated per-container AppArmor annotations
/// (`v1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix`).
pub const APPARMOR_CONTAINER_ANNOTATION_PREFIX: &str = "container.apparmor.security.beta.kubernetes.io/";

/// A request after the REST layer's `PrepareForUpdate`, with a warning per ignored change.
#[derive(Clone, Debug, PartialEq)]
pub struct Prepared {
    /// The Pod the API server validates.
    pub pod: Pod,
    /// What the strategy dropped from the request (empty when nothing was dropped).
    pub warnings: Vec<String>,
}

impl Prepared {
    /// The prepared Pod, with a warning naming every field of `sent` that differs from it.
    pub fn new(sent: &Pod, pod: Pod, what: &str) -> Self {
        let dropped = diff_paths(sent, &pod);
        let warnings = if dropped.is_empty() {
            Vec::new()
        } else {
            vec![format!(
                "{what}; the API server ignores these changes in the request: {}",
                dropped.join(", ")
            )]
        };
        Self { pod, warnings }
    }
}

/// The full validation every update runs on the new Pod (`validatePodMetadataAndSpec`), including the
/// ephemeral-container checks of `validateEphemeralContainers`.
///
/// The ephemeral checks live in [`crate::ephemeral`]; when spec validation already ran them, the same
/// errors are not reported twice.
pub fn validate_new_pod(pod: &Pod, settings: &Settings) -> ErrorList {
    let mut errs = crate::pod::validate_pod_metadata_and_spec(pod, settings);
    let spec = spec_of(pod);
    let path = Path::new("spec").child("ephemeralContainers");
    for e in crate::ephemeral::validate_ephemeral_containers(&spec, &path, settings) {
        if !errs.contains(&e) {
            errs.push(e);
        }
    }
    errs
}

/// `ValidatePodSpecificAnnotationUpdates`: the mirror-pod annotation and the deprecated AppArmor
/// container annotations may not be added, changed or removed by an update. `path` is
/// `metadata.annotations`.
///
/// Upstream ends with `ValidatePodSpecificAnnotations` on the new Pod, which the full validation of
/// the new Pod ([`validate_new_pod`]) runs as well; it is not repeated here.
pub fn validate_pod_specific_annotation_updates(
    new: &ObjectMeta,
    old: &ObjectMeta,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let empty = std::collections::BTreeMap::new();
    let new_annotations = new.annotations.as_ref().unwrap_or(&empty);
    let old_annotations = old.annotations.as_ref().unwrap_or(&empty);
    for (k, old_value) in old_annotations {
        if new_annotations.get(k) == Some(old_value) {
            continue;
        }
        if k.starts_with(APPARMOR_CONTAINER_ANNOTATION_PREFIX) {
            errs.push(
                FieldError::forbidden(&path.key(k), "may not remove or update AppArmor annotations")
                    .with_origin("annotations/apparmor-immutable"),
            );
        }
        if k == MIRROR_POD_ANNOTATION {
            errs.push(
                FieldError::forbidden(&path.key(k), "may not remove or update mirror pod annotation")
                    .with_origin("annotations/mirror-immutable"),
            );
        }
    }
    for k in new_annotations.keys() {
        if old_annotations.contains_key(k) {
            continue;
        }
        if k.starts_with(APPARMOR_CONTAINER_ANNOTATION_PREFIX) {
            errs.push(
                FieldError::forbidden(&path.key(k), "may not add AppArmor annotations")
                    .with_origin("annotations/apparmor-immutable"),
            );
        }
        if k == MIRROR_POD_ANNOTATION {
            errs.push(
                FieldError::forbidden(&path.key(k), "may not add mirror pod annotation")
                    .with_origin("annotations/mirror-immutable"),
            );
        }
    }
    errs
}

/// The metadata checks every subresource update starts with: `ValidateObjectMetaUpdate`, then the
/// full validation of the new Pod, then (when `annotations`) the Pod-specific annotation rules.
pub fn validate_update_basics(new: &Pod, old: &Pod, settings: &Settings, annotations: bool) -> ErrorList {
    let meta = Path::new("metadata");
    let mut errs = crate::pod::validate_object_meta_update(&new.metadata, &old.metadata, &meta);
    errs.extend(validate_new_pod(new, settings));
    if annotations {
        errs.extend(validate_pod_specific_annotation_updates(
            &new.metadata,
            &old.metadata,
            &meta.child("annotations"),
        ));
    }
    errs
}

/// `metav1.ResetObjectMetaForStatus`: the metadata a subresource may not change, copied from the
/// stored object (deletion timestamp, generation, self link, labels, annotations, finalizers, owner
/// references).
pub fn reset_object_meta_for_status(meta: &mut ObjectMeta, existing: &ObjectMeta) {
    meta.deletion_timestamp.clone_from(&existing.deletion_timestamp);
    meta.generation = existing.generation;
    meta.self_link.clone_from(&existing.self_link);
    meta.labels.clone_from(&existing.labels);
    meta.annotations.clone_from(&existing.annotations);
    meta.finalizers.clone_from(&existing.finalizers);
    meta.owner_references.clone_from(&existing.owner_references);
}

/// Whether the Pod's `spec.os.name` is `windows`.
pub fn is_windows(pod: &Pod) -> bool {
    pod.spec
        .as_ref()
        .and_then(|s| s.os.as_ref())
        .is_some_and(|os| os.name == "windows")
}

/// Remove from `errs` one occurrence of each error in `remove` (a multiset difference).
pub fn subtract(mut errs: ErrorList, remove: &[FieldError]) -> ErrorList {
    for r in remove {
        if let Some(pos) = errs.iter().position(|e| e == r) {
            errs.remove(pos);
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::parse_pod;
    use crate::field::ErrorType;

    fn meta(annotations: &str) -> ObjectMeta {
        parse_pod(
            &format!("metadata: {{name: p, annotations: {annotations}}}\n"),
            "p",
            1 << 20,
        )
        .unwrap()
        .metadata
    }

    #[test]
    fn mirror_annotation_may_not_be_added_changed_or_removed() {
        let path = Path::new("metadata").child("annotations");
        let none = meta("{}");
        let mirror = meta("{kubernetes.io/config.mirror: a}");
        let other = meta("{kubernetes.io/config.mirror: b}");
        for (new, old, detail) in [
            (&mirror, &none, "may not add mirror pod annotation"),
            (&none, &mirror, "may not remove or update mirror pod annotation"),
            (&other, &mirror, "may not remove or update mirror pod annotation"),
        ] {
            let errs = validate_pod_specific_annotation_updates(new, old, &path);
            assert_eq!(errs.len(), 1, "{errs:?}");
            assert_eq!(errs[0].error_type, ErrorType::Forbidden);
            assert_eq!(
                errs[0].field.to_string(),
                "metadata.annotations[kubernetes.io/config.mirror]"
            );
            assert_eq!(errs[0].detail, detail);
            assert_eq!(errs[0].origin, "annotations/mirror-immutable");
        }
        assert!(validate_pod_specific_annotation_updates(&mirror, &mirror, &path).is_empty());
    }

    #[test]
    fn apparmor_container_annotations_are_immutable() {
        let path = Path::new("metadata").child("annotations");
        let none = meta("{}");
        let aa = meta("{container.apparmor.security.beta.kubernetes.io/app: runtime/default}");
        let errs = validate_pod_specific_annotation_updates(&aa, &none, &path);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].detail, "may not add AppArmor annotations");
        let errs = validate_pod_specific_annotation_updates(&none, &aa, &path);
        assert_eq!(errs[0].detail, "may not remove or update AppArmor annotations");
        assert_eq!(errs[0].origin, "annotations/apparmor-immutable");
        // other annotations change freely
        let a = meta("{x: '1'}");
        let b = meta("{x: '2'}");
        assert!(validate_pod_specific_annotation_updates(&a, &b, &path).is_empty());
    }

    #[test]
    fn subtract_removes_one_occurrence_each() {
        let p = Path::new("spec");
        let a = FieldError::forbidden(&p, "a");
        let b = FieldError::forbidden(&p, "b");
        let left = subtract(vec![a.clone(), b.clone(), a.clone()], std::slice::from_ref(&a));
        assert_eq!(left, vec![b, a]);
    }

    #[test]
    fn prepared_names_the_dropped_fields() {
        let sent = parse_pod("spec: {containers: [{name: a, image: x}]}\n", "p", 1 << 20).unwrap();
        let kept = parse_pod("spec: {containers: [{name: a, image: y}]}\n", "p", 1 << 20).unwrap();
        let p = Prepared::new(&sent, kept.clone(), "pods/x applies only y");
        assert_eq!(p.warnings.len(), 1);
        assert!(
            p.warnings[0].contains("spec.containers[0].image"),
            "{:?}",
            p.warnings
        );
        assert!(Prepared::new(&kept, kept.clone(), "x").warnings.is_empty());
    }
}
