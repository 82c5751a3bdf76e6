//! The Pod-specific annotations: `ValidatePodSpecificAnnotations` (mirror Pods need a node, the
//! tolerations annotation, the deletion cost, the deprecated seccomp and AppArmor annotations) and
//! `ValidatePodSpecificAnnotationUpdates` (the mirror-Pod and AppArmor annotations may not change).
//!
//! One module for every request path: creates and every update (`pods`, `pods/status`,
//! `pods/ephemeralcontainers`, `pods/dynamic`) call these functions, so a rule has one origin.
//!
//! Upstream: `pkg/apis/core/validation/validation.go`.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Pod, PodSpec};

use crate::pod::options::PodValidationOptions;
use crate::pod::scheduling::validate_tolerations;
use crate::pod::util::opt_str;
use podmut_model::field::{ErrorList, FieldError, Path};
use podmut_model::podutil::{MIRROR_POD_ANNOTATION, visit_containers};

/// `core.TolerationsAnnotationKey`.
pub(crate) const TOLERATIONS_ANNOTATION: &str = "scheduler.alpha.kubernetes.io/tolerations";
/// `core.PodDeletionCost`.
pub(crate) const POD_DELETION_COST_ANNOTATION: &str = "controller.kubernetes.io/pod-deletion-cost";
/// `core.SeccompPodAnnotationKey`.
pub(crate) const SECCOMP_POD_ANNOTATION: &str = "seccomp.security.alpha.kubernetes.io/pod";
/// `core.SeccompContainerAnnotationKeyPrefix`.
pub(crate) const SECCOMP_CONTAINER_ANNOTATION_PREFIX: &str =
    "container.seccomp.security.alpha.kubernetes.io/";
/// `v1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix`.
pub(crate) const APPARMOR_CONTAINER_ANNOTATION_PREFIX: &str =
    "container.apparmor.security.beta.kubernetes.io/";

/// `GetDeletionCostFromPodAnnotations` succeeds: absent, or a 32-bit integer without a plus sign
/// or leading zeros.
pub(crate) fn valid_deletion_cost(annotations: Option<&BTreeMap<String, String>>) -> bool {
    let Some(value) = annotations.and_then(|a| a.get(POD_DELETION_COST_ANNOTATION)) else {
        return true;
    };
    let first_ok = match value.as_bytes().first() {
        Some(b'-') => true,
        Some(b'0') => value == "0",
        Some(c) => c.is_ascii_digit(),
        None => false,
    };
    first_ok && value.parse::<i32>().is_ok()
}

/// `ValidateSeccompProfile` for the deprecated annotation values.
fn validate_seccomp_annotation_value(p: &str, path: &Path) -> ErrorList {
    if matches!(p, "runtime/default" | "docker/default" | "unconfined") {
        return ErrorList::new();
    }
    if let Some(rest) = p.strip_prefix("localhost/") {
        return crate::pod::volumes::validate_local_descending_path(rest, path);
    }
    vec![
        FieldError::invalid(path, p, "must be a valid seccomp profile")
            .with_origin("meta/seccomp-annotation"),
    ]
}

/// `ValidatePodSpecificAnnotations`: mirror Pods need a node, the tolerations annotation must hold
/// valid tolerations, the deletion cost must be a 32-bit integer, and the deprecated seccomp and
/// AppArmor annotations must be well formed.
pub(crate) fn validate_pod_specific_annotations(
    annotations: Option<&BTreeMap<String, String>>,
    spec: &PodSpec,
    path: &Path,
    opts: &PodValidationOptions,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let empty = BTreeMap::new();
    let annotations = annotations.unwrap_or(&empty);
    if let Some(value) = annotations.get(MIRROR_POD_ANNOTATION)
        && opt_str(&spec.node_name).is_empty()
    {
        errs.push(
            FieldError::invalid(
                &path.key(MIRROR_POD_ANNOTATION),
                value.as_str(),
                "must set spec.nodeName if mirror pod annotation is set",
            )
            .with_origin("meta/mirror-needs-node"),
        );
    }
    if let Some(value) = annotations.get(TOLERATIONS_ANNOTATION).filter(|v| !v.is_empty()) {
        match podmut_model::gojson::decode::tolerations(value) {
            Ok(tolerations) => {
                errs.extend(validate_tolerations(
                    &tolerations,
                    &path.child(TOLERATIONS_ANNOTATION),
                ));
            }
            Err(e) => errs.push(
                FieldError::invalid(path, TOLERATIONS_ANNOTATION, e)
                    .with_origin("meta/tolerations-annotation"),
            ),
        }
    }
    if !opts.allow_invalid_pod_deletion_cost && !valid_deletion_cost(Some(annotations)) {
        let value = annotations
            .get(POD_DELETION_COST_ANNOTATION)
            .map_or("", String::as_str);
        errs.push(
            FieldError::invalid(
                &path.key(POD_DELETION_COST_ANNOTATION),
                value,
                "must be a 32bit integer",
            )
            .with_origin("meta/pod-deletion-cost"),
        );
    }
    if let Some(p) = annotations.get(SECCOMP_POD_ANNOTATION) {
        errs.extend(validate_seccomp_annotation_value(
            p,
            &path.child(SECCOMP_POD_ANNOTATION),
        ));
    }
    for (k, p) in annotations {
        if k.starts_with(SECCOMP_CONTAINER_ANNOTATION_PREFIX) {
            errs.extend(validate_seccomp_annotation_value(p, &path.child(k.clone())));
        }
    }
    for (k, p) in annotations {
        let Some(container) = k.strip_prefix(APPARMOR_CONTAINER_ANNOTATION_PREFIX) else {
            continue;
        };
        let mut found = false;
        visit_containers(spec, &Path::new("spec"), |c, _| {
            if c.name == container {
                found = true;
            }
        });
        if !found {
            errs.push(
                FieldError::invalid(&path.key(k), container, "container not found")
                    .with_origin("meta/apparmor-annotation"),
            );
        }
        let well_formed =
            p.is_empty() || p == "runtime/default" || p == "unconfined" || p.starts_with("localhost/");
        if !well_formed {
            errs.push(
                FieldError::invalid(
                    &path.key(k),
                    p.as_str(),
                    format!(
                        "invalid AppArmor profile name: {}",
                        podmut_model::gojson::go_quote(p)
                    ),
                )
                .with_origin("meta/apparmor-annotation"),
            );
        }
    }
    errs
}

/// `ValidatePodSpecificAnnotationUpdates(new, old)`: the mirror-Pod annotation and the deprecated
/// AppArmor container annotations may not be added, removed or changed; then the new annotations
/// are validated (`ValidatePodSpecificAnnotations` with the new spec). `path` is
/// `metadata.annotations`.
pub(crate) fn validate_pod_specific_annotation_updates(
    new_pod: &Pod,
    old_pod: &Pod,
    path: &Path,
    opts: &PodValidationOptions,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let empty = BTreeMap::new();
    let new = new_pod.metadata.annotations.as_ref().unwrap_or(&empty);
    let old = old_pod.metadata.annotations.as_ref().unwrap_or(&empty);
    for (k, old_value) in old {
        if new.get(k) == Some(old_value) {
            continue;
        }
        if k.starts_with(APPARMOR_CONTAINER_ANNOTATION_PREFIX) {
            errs.push(
                FieldError::forbidden(&path.key(k), "may not remove or update AppArmor annotations")
                    .with_origin("meta/apparmor-annotation-update"),
            );
        }
        if k == MIRROR_POD_ANNOTATION {
            errs.push(
                FieldError::forbidden(&path.key(k), "may not remove or update mirror pod annotation")
                    .with_origin("meta/mirror-annotation-update"),
            );
        }
    }
    for k in new.keys() {
        if old.contains_key(k) {
            continue;
        }
        if k.starts_with(APPARMOR_CONTAINER_ANNOTATION_PREFIX) {
            errs.push(
                FieldError::forbidden(&path.key(k), "may not add AppArmor annotations")
                    .with_origin("meta/apparmor-annotation-update"),
            );
        }
        if k == MIRROR_POD_ANNOTATION {
            errs.push(
                FieldError::forbidden(&path.key(k), "may not add mirror pod annotation")
                    .with_origin("meta/mirror-annotation-update"),
            );
        }
    }
    errs.extend(validate_pod_specific_annotations(
        new_pod.metadata.annotations.as_ref(),
        &podmut_model::podutil::spec(new_pod),
        path,
        opts,
    ));
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use podmut_model::document::parse_pod;
    use podmut_model::field::ErrorType;

    fn pod(annotations: &str) -> Pod {
        parse_pod(
            &format!("metadata: {{name: p, annotations: {annotations}}}\nspec: {{nodeName: node1, containers: [{{name: app}}]}}\n"),
            "p",
            1 << 20,
        )
        .unwrap()
    }

    fn updates(new: &Pod, old: &Pod) -> ErrorList {
        let path = Path::new("metadata").child("annotations");
        validate_pod_specific_annotation_updates(new, old, &path, &PodValidationOptions::default())
    }

    #[test]
    fn mirror_annotation_may_not_be_added_changed_or_removed() {
        let none = pod("{}");
        let mirror = pod("{kubernetes.io/config.mirror: a}");
        let other = pod("{kubernetes.io/config.mirror: b}");
        for (new, old, detail) in [
            (&mirror, &none, "may not add mirror pod annotation"),
            (&none, &mirror, "may not remove or update mirror pod annotation"),
            (&other, &mirror, "may not remove or update mirror pod annotation"),
        ] {
            let errs = updates(new, old);
            assert_eq!(errs.len(), 1, "{errs:?}");
            assert_eq!(errs[0].error_type, ErrorType::Forbidden);
            assert_eq!(
                errs[0].field.to_string(),
                "metadata.annotations[kubernetes.io/config.mirror]"
            );
            assert_eq!(errs[0].detail, detail);
            assert_eq!(errs[0].origin, "meta/mirror-annotation-update");
        }
        assert!(updates(&mirror, &mirror).is_empty());
    }

    #[test]
    fn apparmor_container_annotations_are_immutable() {
        let none = pod("{}");
        let aa = pod("{container.apparmor.security.beta.kubernetes.io/app: runtime/default}");
        let errs = updates(&aa, &none);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].detail, "may not add AppArmor annotations");
        let errs = updates(&none, &aa);
        assert_eq!(errs[0].detail, "may not remove or update AppArmor annotations");
        assert_eq!(errs[0].origin, "meta/apparmor-annotation-update");
        // other annotations change freely
        assert!(updates(&pod("{x: '1'}"), &pod("{x: '2'}")).is_empty());
    }

    #[test]
    fn updates_validate_the_new_annotations_too() {
        let errs = updates(
            &pod("{controller.kubernetes.io/pod-deletion-cost: ten}"),
            &pod("{}"),
        );
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].origin, "meta/pod-deletion-cost");
        // an invalid cost already stored ratchets: the option comes from the old Pod
        let opts = PodValidationOptions {
            allow_invalid_pod_deletion_cost: true,
            ..PodValidationOptions::default()
        };
        let bad = pod("{controller.kubernetes.io/pod-deletion-cost: ten}");
        let path = Path::new("metadata").child("annotations");
        assert!(validate_pod_specific_annotation_updates(&bad, &bad, &path, &opts).is_empty());
    }

    #[test]
    fn deletion_cost() {
        for (v, ok) in [
            ("0", true),
            ("-5", true),
            ("10", true),
            ("008", false),
            ("+10", false),
            ("text", false),
            ("", false),
            ("99999999999", false),
        ] {
            let m: BTreeMap<String, String> =
                [(POD_DELETION_COST_ANNOTATION.to_owned(), v.to_owned())].into();
            assert_eq!(valid_deletion_cost(Some(&m)), ok, "{v}");
        }
    }
}
