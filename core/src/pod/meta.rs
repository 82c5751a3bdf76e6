//! ObjectMeta rules for Pods: create (`ValidateObjectMeta` with `ValidatePodName`), update
//! (`ValidateObjectMetaUpdate`, apimachinery and core wrappers), the Pod annotations
//! (`ValidatePodSpecificAnnotations`) and their update rules (`ValidatePodSpecificAnnotationUpdates`).
//!
//! Upstream: `staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go`,
//! `pkg/apis/core/validation/validation.go`.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{PodSpec, Toleration};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ManagedFieldsEntry, ObjectMeta, OwnerReference, Time};

use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::pod::names::{self, invalid_each};
use crate::pod::scheduling::validate_tolerations;
use crate::pod::spec::PodValidationOptions;
use crate::pod::util::{opt_str, rendered};
use crate::pod::{MIRROR_POD_ANNOTATION, visit_containers};
use crate::settings::Settings;

/// `apimachineryvalidation.FieldImmutableErrorMsg`.
pub const FIELD_IMMUTABLE: &str = "field is immutable";
/// `apimachineryvalidation.IsNegativeErrorMsg`.
pub const IS_NEGATIVE: &str = "must be greater than or equal to 0";
/// `core.TolerationsAnnotationKey`.
pub const TOLERATIONS_ANNOTATION: &str = "scheduler.alpha.kubernetes.io/tolerations";
/// `core.PodDeletionCost`.
pub const POD_DELETION_COST_ANNOTATION: &str = "controller.kubernetes.io/pod-deletion-cost";
/// `core.SeccompPodAnnotationKey`.
pub const SECCOMP_POD_ANNOTATION: &str = "seccomp.security.alpha.kubernetes.io/pod";
/// `core.SeccompContainerAnnotationKeyPrefix`.
pub const SECCOMP_CONTAINER_ANNOTATION_PREFIX: &str = "container.seccomp.security.alpha.kubernetes.io/";
/// `v1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix`.
pub const APPARMOR_CONTAINER_ANNOTATION_PREFIX: &str = "container.apparmor.security.beta.kubernetes.io/";

/// `ValidateObjectMeta(meta, true, ValidatePodName, path)` plus the core wrapper's finalizer-name
/// check: what every Pod create and update requires of `metadata`.
///
/// `filled_by_request` models the API server's request handling before validation (podmut's
/// `applyDefaults`): an empty `metadata.namespace` is set from the request's namespace
/// (`EnsureObjectNamespaceMatchesRequestNamespace`) and an empty name with a `generateName` is
/// generated, so neither is reported as missing. Without it (upstream's unit tests) both are
/// `Required`.
pub fn validate_pod_object_meta(meta: &ObjectMeta, path: &Path, filled_by_request: bool) -> ErrorList {
    let mut errs = ErrorList::new();
    let generate_name = opt_str(&meta.generate_name);
    if !generate_name.is_empty() {
        errs.extend(invalid_each(
            &path.child("generateName"),
            generate_name,
            names::name_is_dns_subdomain(generate_name, true),
            "meta/generate-name",
        ));
    }
    let name = opt_str(&meta.name);
    if name.is_empty() && filled_by_request && !generate_name.is_empty() {
        // The API server generates the name before validating.
    } else if name.is_empty() {
        errs.push(
            FieldError::required(&path.child("name"), "name or generateName is required")
                .with_origin("meta/name-required"),
        );
    } else {
        errs.extend(invalid_each(
            &path.child("name"),
            name,
            names::name_is_dns_subdomain(name, false),
            "meta/name-format",
        ));
    }
    let namespace = opt_str(&meta.namespace);
    if namespace.is_empty() && filled_by_request {
        // Set from the request's namespace before validation.
    } else if namespace.is_empty() {
        errs.push(FieldError::required(&path.child("namespace"), "").with_origin("meta/namespace-required"));
    } else {
        errs.extend(invalid_each(
            &path.child("namespace"),
            namespace,
            names::name_is_dns_label(namespace, false),
            "meta/namespace-format",
        ));
    }
    if let Some(g) = meta.generation
        && g < 0
    {
        errs.push(
            FieldError::invalid(&path.child("generation"), g, IS_NEGATIVE).with_origin("meta/generation"),
        );
    }
    errs.extend(common_meta(meta, path));
    errs
}

/// Labels, annotations, owner references, finalizers and managed fields: the checks create and
/// update share.
fn common_meta(meta: &ObjectMeta, path: &Path) -> ErrorList {
    let mut errs = names::validate_labels(meta.labels.as_ref(), &path.child("labels"));
    errs.extend(names::validate_annotations(
        meta.annotations.as_ref(),
        &path.child("annotations"),
    ));
    errs.extend(validate_owner_references(
        meta.owner_references.as_deref().unwrap_or(&[]),
        &path.child("ownerReferences"),
    ));
    errs.extend(validate_finalizers(
        meta.finalizers.as_deref().unwrap_or(&[]),
        &path.child("finalizers"),
    ));
    errs.extend(validate_managed_fields(
        meta.managed_fields.as_deref().unwrap_or(&[]),
        &path.child("managedFields"),
    ));
    errs
}

/// `ValidateOwnerReferences`.
fn validate_owner_references(refs: &[OwnerReference], path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut first_controller: Option<String> = None;
    for r in refs {
        let version = match r.api_version.split_once('/') {
            Some((_, v)) => v,
            None => r.api_version.as_str(),
        };
        let group = r.api_version.split_once('/').map_or("", |(g, _)| g);
        if version.is_empty() {
            errs.push(
                FieldError::invalid(
                    &path.child("apiVersion"),
                    r.api_version.as_str(),
                    "version must not be empty",
                )
                .with_origin("meta/owner-reference"),
            );
        }
        if r.kind.is_empty() {
            errs.push(
                FieldError::invalid(&path.child("kind"), r.kind.as_str(), "must not be empty")
                    .with_origin("meta/owner-reference"),
            );
        }
        if r.name.is_empty() {
            errs.push(
                FieldError::invalid(&path.child("name"), r.name.as_str(), "must not be empty")
                    .with_origin("meta/owner-reference"),
            );
        }
        if r.uid.is_empty() {
            errs.push(
                FieldError::invalid(&path.child("uid"), r.uid.as_str(), "must not be empty")
                    .with_origin("meta/owner-reference"),
            );
        }
        if group.is_empty() && version == "v1" && r.kind == "Event" {
            errs.push(
                FieldError::invalid(
                    path,
                    rendered(r),
                    "/v1, Kind=Event is disallowed from being an owner",
                )
                .with_origin("meta/owner-reference"),
            );
        }
        if r.controller == Some(true) {
            let current = format!("{}/{}", r.kind, r.name);
            match &first_controller {
                Some(first) => errs.push(
                    FieldError::invalid(
                        path,
                        rendered(&refs),
                        format!(
                            "Only one reference can have Controller set to true. Found \"true\" in references for {first} and {current}"
                        ),
                    )
                    .with_origin("meta/owner-reference"),
                ),
                None => first_controller = Some(current),
            }
        }
    }
    errs
}

/// `ValidateFinalizers` (apimachinery) and the core `validateKubeFinalizerName` per entry.
fn validate_finalizers(finalizers: &[String], path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    for f in finalizers {
        errs.extend(invalid_each(
            path,
            f,
            names::is_qualified_name(f),
            "meta/finalizer-name",
        ));
    }
    if finalizers.iter().any(|f| f == "orphan") && finalizers.iter().any(|f| f == "foregroundDeletion") {
        errs.push(
            FieldError::invalid(
                path,
                rendered(&finalizers),
                "finalizer orphan and foregroundDeletion cannot be both set",
            )
            .with_origin("meta/finalizer-conflict"),
        );
    }
    errs.extend(validate_kube_finalizer_names(finalizers, path));
    errs
}

/// `validateKubeFinalizerName` for each finalizer (core wrapper of ValidateObjectMeta(Update)).
fn validate_kube_finalizer_names(finalizers: &[String], path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    for (i, f) in finalizers.iter().enumerate() {
        if !f.contains('/') && !matches!(f.as_str(), "kubernetes" | "orphan" | "foregroundDeletion") {
            errs.push(
                FieldError::invalid(
                    &path.index(i),
                    f.as_str(),
                    "name is neither a standard finalizer name nor is it fully qualified",
                )
                .with_origin("meta/finalizer-name"),
            );
        }
    }
    errs
}

/// `ValidateManagedFields`.
fn validate_managed_fields(entries: &[ManagedFieldsEntry], path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    for (i, e) in entries.iter().enumerate() {
        let p = path.index(i);
        let operation = opt_str(&e.operation);
        if operation != "Apply" && operation != "Update" {
            errs.push(
                FieldError::invalid(&p.child("operation"), operation, "must be `Apply` or `Update`")
                    .with_origin("meta/managed-fields"),
            );
        }
        let fields_type = opt_str(&e.fields_type);
        if !fields_type.is_empty() && fields_type != "FieldsV1" {
            errs.push(
                FieldError::invalid(&p.child("fieldsType"), fields_type, "must be `FieldsV1`")
                    .with_origin("meta/managed-fields"),
            );
        }
        let manager = opt_str(&e.manager);
        if manager.len() > 128 {
            errs.push(FieldError::too_long(&p.child("manager"), 128).with_origin("meta/managed-fields"));
        }
        for (pos, c) in manager.char_indices() {
            if c.is_control() {
                errs.push(
                    FieldError::invalid(
                        &p.child("manager"),
                        manager,
                        format!("invalid character U+{:04X} (at position {pos})", c as u32),
                    )
                    .with_origin("meta/managed-fields"),
                );
            }
        }
        if opt_str(&e.subresource).len() > 256 {
            errs.push(FieldError::too_long(&p.child("subresource"), 256).with_origin("meta/managed-fields"));
        }
    }
    errs
}

fn time_value(t: Option<&Time>) -> BadValue {
    t.map_or(BadValue::Null, rendered)
}

/// `ValidateObjectMetaUpdate(new, old, path)` (apimachinery, plus the core wrapper's finalizer-name
/// check): no new finalizers while deleting, generation never decreases, and name, namespace, uid,
/// creationTimestamp, deletionTimestamp and deletionGracePeriodSeconds are immutable (`Invalid`
/// "field is immutable" at each path).
///
/// The `metadata.resourceVersion` rule of the same upstream function is
/// [`validate_resource_version_for_update`], because whether it can fire depends on the settings:
/// the API server fills an empty resourceVersion on an unconditional Pod update before validation.
pub fn validate_object_meta_update(new: &ObjectMeta, old: &ObjectMeta, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    if old.deletion_timestamp.is_some() {
        let old_set: BTreeSet<&String> = old.finalizers.iter().flatten().collect();
        let extra: BTreeSet<&String> = new
            .finalizers
            .iter()
            .flatten()
            .filter(|f| !old_set.contains(f))
            .collect();
        if !extra.is_empty() {
            let list: Vec<String> = extra.iter().map(|f| crate::field::go_quote(f)).collect();
            errs.push(
                FieldError::forbidden(
                    &path.child("finalizers"),
                    format!(
                        "no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
                        list.join(", ")
                    ),
                )
                .with_origin("meta/no-new-finalizers"),
            );
        }
    }
    let (new_gen, old_gen) = (new.generation.unwrap_or(0), old.generation.unwrap_or(0));
    if new_gen < old_gen {
        errs.push(
            FieldError::invalid(&path.child("generation"), new_gen, "must not be decremented")
                .with_origin("meta/generation-decrement"),
        );
    }
    let immutable = |errs: &mut ErrorList, field: &str, changed: bool, value: BadValue| {
        if changed {
            errs.push(
                FieldError::invalid(&path.child(field), value, FIELD_IMMUTABLE).with_origin("meta/immutable"),
            );
        }
    };
    immutable(
        &mut errs,
        "name",
        opt_str(&new.name) != opt_str(&old.name),
        opt_str(&new.name).into(),
    );
    immutable(
        &mut errs,
        "namespace",
        opt_str(&new.namespace) != opt_str(&old.namespace),
        opt_str(&new.namespace).into(),
    );
    immutable(
        &mut errs,
        "uid",
        opt_str(&new.uid) != opt_str(&old.uid),
        opt_str(&new.uid).into(),
    );
    immutable(
        &mut errs,
        "creationTimestamp",
        new.creation_timestamp != old.creation_timestamp,
        time_value(new.creation_timestamp.as_ref()),
    );
    immutable(
        &mut errs,
        "deletionTimestamp",
        new.deletion_timestamp != old.deletion_timestamp,
        time_value(new.deletion_timestamp.as_ref()),
    );
    immutable(
        &mut errs,
        "deletionGracePeriodSeconds",
        new.deletion_grace_period_seconds != old.deletion_grace_period_seconds,
        new.deletion_grace_period_seconds.into(),
    );
    errs.extend(names::validate_labels(new.labels.as_ref(), &path.child("labels")));
    errs.extend(names::validate_annotations(
        new.annotations.as_ref(),
        &path.child("annotations"),
    ));
    errs.extend(validate_owner_references(
        new.owner_references.as_deref().unwrap_or(&[]),
        &path.child("ownerReferences"),
    ));
    errs.extend(validate_managed_fields(
        new.managed_fields.as_deref().unwrap_or(&[]),
        &path.child("managedFields"),
    ));
    errs.extend(validate_kube_finalizer_names(
        new.finalizers.as_deref().unwrap_or(&[]),
        &path.child("finalizers"),
    ));
    errs
}

/// The `metadata.resourceVersion` rule of `ValidateObjectMetaUpdate`: `Invalid` "must be
/// specified for an update" when the new object has none.
///
/// Pods allow unconditional updates, and the API server's registry fills an empty
/// resourceVersion from the stored object before validating (`Store.Update`), so a cluster never
/// reports this error for a Pod. With `applyDefaults` (podmut's model of the API server's
/// processing) the rule therefore never fires; with `--no-defaults` it runs exactly as in
/// upstream's unit tests, which set `resourceVersion: "1"` on both Pods.
pub fn validate_resource_version_for_update(new: &ObjectMeta, path: &Path, settings: &Settings) -> ErrorList {
    let rv = opt_str(&new.resource_version);
    if settings.apply_defaults || !rv.is_empty() {
        return ErrorList::new();
    }
    vec![
        FieldError::invalid(
            &path.child("resourceVersion"),
            rv,
            "must be specified for an update",
        )
        .with_origin("meta/resource-version"),
    ]
}

/// `GetDeletionCostFromPodAnnotations` succeeds: absent, or a 32-bit integer without a plus sign
/// or leading zeros.
pub fn valid_deletion_cost(annotations: Option<&BTreeMap<String, String>>) -> bool {
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
pub fn validate_pod_specific_annotations(
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
        match serde_json::from_str::<Vec<Toleration>>(value) {
            Ok(tolerations) => {
                errs.extend(validate_tolerations(
                    &tolerations,
                    &path.child(TOLERATIONS_ANNOTATION),
                ));
            }
            Err(e) => errs.push(
                FieldError::invalid(path, TOLERATIONS_ANNOTATION, e.to_string())
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
            errs.extend(validate_seccomp_annotation_value(p, &path.child(k)));
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
                    format!("invalid AppArmor profile name: {}", crate::field::go_quote(p)),
                )
                .with_origin("meta/apparmor-annotation"),
            );
        }
    }
    errs
}

/// `ValidatePodSpecificAnnotationUpdates`: the mirror-Pod annotation and the deprecated AppArmor
/// container annotations may not be added, removed or changed; then the new annotations are
/// validated.
pub fn validate_pod_specific_annotation_updates(
    new_meta: &ObjectMeta,
    new_spec: &PodSpec,
    old_meta: &ObjectMeta,
    path: &Path,
    opts: &PodValidationOptions,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let empty = BTreeMap::new();
    let new = new_meta.annotations.as_ref().unwrap_or(&empty);
    let old = old_meta.annotations.as_ref().unwrap_or(&empty);
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
        new_meta.annotations.as_ref(),
        new_spec,
        path,
        opts,
    ));
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::ErrorType;
    use crate::pod::util::Want;

    fn meta(yaml: &str) -> ObjectMeta {
        serde_yaml_ng::from_str(yaml).unwrap()
    }

    fn summary(errs: &ErrorList) -> Vec<(ErrorType, String, &'static str)> {
        errs.iter()
            .map(|e| (e.error_type, e.field.to_string(), e.origin))
            .collect()
    }

    #[test]
    fn create_meta_cases() {
        let p = Path::new("metadata");
        let cases: &[(&str, &str, &[Want])] = &[
            ("valid", "{name: web, namespace: default}", &[]),
            (
                "name required",
                "{namespace: default}",
                &[(ErrorType::Required, "metadata.name", "meta/name-required")],
            ),
            (
                "name not a subdomain",
                "{name: Web_1, namespace: default}",
                &[(ErrorType::Invalid, "metadata.name", "meta/name-format")],
            ),
            (
                "namespace required",
                "{name: web}",
                &[(
                    ErrorType::Required,
                    "metadata.namespace",
                    "meta/namespace-required",
                )],
            ),
            (
                "namespace must be a label",
                "{name: web, namespace: a.b}",
                &[(ErrorType::Invalid, "metadata.namespace", "meta/namespace-format")],
            ),
            (
                "bad label value",
                "{name: web, namespace: d, labels: {a: '-x'}}",
                &[(ErrorType::Invalid, "metadata.labels", "format/label-value")],
            ),
            (
                "bad annotation key",
                "{name: web, namespace: d, annotations: {'a b': x}}",
                &[(
                    ErrorType::Invalid,
                    "metadata.annotations",
                    "format/annotation-key",
                )],
            ),
            (
                "non-standard unqualified finalizer",
                "{name: web, namespace: d, finalizers: [custom]}",
                &[(
                    ErrorType::Invalid,
                    "metadata.finalizers[0]",
                    "meta/finalizer-name",
                )],
            ),
        ];
        for (name, yaml, want) in cases {
            let got = validate_pod_object_meta(&meta(yaml), &p, false);
            let want: Vec<(ErrorType, String, &str)> =
                want.iter().map(|(t, f, o)| (*t, (*f).to_owned(), *o)).collect();
            assert_eq!(summary(&got), want, "{name}");
        }
    }

    #[test]
    fn request_fills_namespace_and_generated_name() {
        let p = Path::new("metadata");
        assert!(validate_pod_object_meta(&meta("{generateName: web-}"), &p, true).is_empty());
        assert_eq!(
            validate_pod_object_meta(&meta("{generateName: web-}"), &p, false).len(),
            2
        );
    }

    #[test]
    fn update_meta_cases() {
        let p = Path::new("metadata");
        let cases: &[(&str, &str, &str, &[Want])] = &[
            ("same", "{name: a, namespace: d}", "{name: a, namespace: d}", &[]),
            (
                "rename",
                "{name: b, namespace: d}",
                "{name: a, namespace: d}",
                &[(ErrorType::Invalid, "metadata.name", "meta/immutable")],
            ),
            (
                "deletion timestamp added",
                "{name: a, deletionTimestamp: '2024-01-01T00:00:00Z'}",
                "{name: a}",
                &[(ErrorType::Invalid, "metadata.deletionTimestamp", "meta/immutable")],
            ),
            (
                "generation decremented",
                "{name: a, generation: 1}",
                "{name: a, generation: 2}",
                &[(
                    ErrorType::Invalid,
                    "metadata.generation",
                    "meta/generation-decrement",
                )],
            ),
            (
                "new finalizer while deleting",
                "{name: a, deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: [a.io/x]}",
                "{name: a, deletionTimestamp: '2024-01-01T00:00:00Z'}",
                &[(
                    ErrorType::Forbidden,
                    "metadata.finalizers",
                    "meta/no-new-finalizers",
                )],
            ),
            (
                "grace period changed",
                "{name: a, deletionGracePeriodSeconds: 30}",
                "{name: a, deletionGracePeriodSeconds: 31}",
                &[(
                    ErrorType::Invalid,
                    "metadata.deletionGracePeriodSeconds",
                    "meta/immutable",
                )],
            ),
        ];
        for (name, new, old, want) in cases {
            let got = validate_object_meta_update(&meta(new), &meta(old), &p);
            let want: Vec<(ErrorType, String, &str)> =
                want.iter().map(|(t, f, o)| (*t, (*f).to_owned(), *o)).collect();
            assert_eq!(summary(&got), want, "{name}");
        }
    }

    #[test]
    fn resource_version_only_without_defaulting() {
        let p = Path::new("metadata");
        let mut s = Settings::default();
        assert!(validate_resource_version_for_update(&meta("{name: a}"), &p, &s).is_empty());
        s.apply_defaults = false;
        let e = validate_resource_version_for_update(&meta("{name: a}"), &p, &s);
        assert_eq!(e[0].field.to_string(), "metadata.resourceVersion");
        assert!(
            validate_resource_version_for_update(&meta("{name: a, resourceVersion: '1'}"), &p, &s).is_empty()
        );
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
