//! ObjectMeta rules for Pods: create (`ValidateObjectMeta` with `ValidatePodName`) and update
//! (`ValidateObjectMetaUpdate`, apimachinery and core wrappers). The Pod annotations are
//! [`crate::pod::annotations`].
//!
//! Upstream: `staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go`,
//! `pkg/apis/core/validation/validation.go`.

use std::collections::BTreeSet;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ManagedFieldsEntry, ObjectMeta, OwnerReference, Time};

use crate::pod::names::{self, invalid_each};
use crate::pod::options::PodValidationOptions;
use crate::pod::util::opt_str;
use podmut_model::field::{BadValue, ErrorList, FieldError, Path};

/// `apimachineryvalidation.FieldImmutableErrorMsg`.
pub(crate) const FIELD_IMMUTABLE: &str = "field is immutable";
/// `apimachineryvalidation.IsNegativeErrorMsg`.
pub(crate) const IS_NEGATIVE: &str = "must be greater than or equal to 0";

/// `ValidateObjectMeta(meta, true, ValidatePodName, path)` plus the core wrapper's finalizer-name
/// check: what every Pod create and update requires of `metadata`.
///
/// `filled_by_request` models the API server's request handling before validation (podmut's
/// `applyDefaults`): an empty `metadata.namespace` is set from the request's namespace
/// (`EnsureObjectNamespaceMatchesRequestNamespace`) and an empty name with a `generateName` is
/// generated, so neither is reported as missing. Without it (upstream's unit tests) both are
/// `Required`.
pub(crate) fn validate_pod_object_meta(
    meta: &ObjectMeta,
    path: &Path,
    filled_by_request: bool,
    release: u8,
) -> ErrorList {
    let mut errs = validate_names(meta, path, filled_by_request, NameRule::Pod);
    errs.extend(namespace_and_generation(meta, path, filled_by_request));
    errs.extend(common_meta(meta, path, true, release));
    errs
}

/// `ValidateObjectMeta(meta, true, apimachineryvalidation.NameIsDNSLabel, path)` (a StatefulSet's
/// metadata: its name must be a DNS label), otherwise as [`validate_pod_object_meta`].
pub(crate) fn validate_dns_label_object_meta(
    meta: &ObjectMeta,
    path: &Path,
    filled_by_request: bool,
    release: u8,
) -> ErrorList {
    let mut errs = validate_names(meta, path, filled_by_request, NameRule::DnsLabel);
    errs.extend(namespace_and_generation(meta, path, filled_by_request));
    errs.extend(common_meta(meta, path, true, release));
    errs
}

/// `ValidateObjectMetaAccessor(meta, true, path.ValidatePathSegmentName, path)`: what the registry
/// requires of every object's metadata (on an update, before the strategy validates the Pod's).
pub(crate) fn validate_object_meta_accessor(meta: &ObjectMeta, path: &Path, release: u8) -> ErrorList {
    let mut errs = validate_names(meta, path, false, NameRule::PathSegment);
    errs.extend(namespace_and_generation(meta, path, false));
    errs.extend(common_meta(meta, path, false, release));
    errs
}

/// How a name is validated.
#[derive(Clone, Copy)]
enum NameRule {
    /// `ValidatePodName`: a DNS subdomain.
    Pod,
    /// `path.ValidatePathSegmentName`: not `.` or `..`, no `/` or `%`.
    PathSegment,
    /// `NameIsDNSLabel`.
    DnsLabel,
}

impl NameRule {
    fn check(self, name: &str, prefix: bool) -> Vec<String> {
        match self {
            NameRule::Pod => names::name_is_dns_subdomain(name, prefix),
            NameRule::PathSegment => path_segment_name(name, prefix),
            NameRule::DnsLabel => names::name_is_dns_label(name, prefix),
        }
    }
}

/// `path.ValidatePathSegmentName` (`IsValidPathSegmentPrefix` for a prefix).
fn path_segment_name(name: &str, prefix: bool) -> Vec<String> {
    if !prefix && let Some(bad) = [".", ".."].into_iter().find(|b| *b == name) {
        return vec![format!("may not be '{bad}'")];
    }
    ["/", "%"]
        .into_iter()
        .filter(|bad| name.contains(bad))
        .map(|bad| format!("may not contain '{bad}'"))
        .collect()
}

/// `generateName` and `name`.
fn validate_names(meta: &ObjectMeta, path: &Path, filled_by_request: bool, rule: NameRule) -> ErrorList {
    let mut errs = ErrorList::new();
    let generate_name = opt_str(&meta.generate_name);
    if !generate_name.is_empty() {
        errs.extend(invalid_each(
            &path.child("generateName"),
            generate_name,
            rule.check(generate_name, true),
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
            rule.check(name, false),
            "meta/name-format",
        ));
    }
    errs
}

/// The namespace (required, a DNS label) and a non-negative generation.
fn namespace_and_generation(meta: &ObjectMeta, path: &Path, filled_by_request: bool) -> ErrorList {
    let mut errs = ErrorList::new();
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
    errs
}

/// Labels, annotations, owner references, finalizers and managed fields: the checks create and
/// update share; `kube_finalizers` adds the core wrapper's finalizer-name check.
fn common_meta(meta: &ObjectMeta, path: &Path, kube_finalizers: bool, release: u8) -> ErrorList {
    let mut errs = names::validate_labels(meta.labels.as_ref(), &path.child("labels"));
    errs.extend(names::validate_annotations(
        meta.annotations.as_ref(),
        &path.child("annotations"),
    ));
    errs.extend(validate_owner_references(
        meta.owner_references.as_deref().unwrap_or(&[]),
        &path.child("ownerReferences"),
        release,
    ));
    errs.extend(validate_finalizers(
        meta.finalizers.as_deref().unwrap_or(&[]),
        &path.child("finalizers"),
        kube_finalizers,
    ));
    errs.extend(validate_managed_fields(
        meta.managed_fields.as_deref().unwrap_or(&[]),
        &path.child("managedFields"),
        release,
    ));
    errs
}

/// `ValidateOwnerReferences`; from 1.37 (apimachinery v0.37) each reference is reported at its
/// index, an empty field is `Required`, and an `apiVersion` that is not `<group>/<version>` or
/// `<version>` is `Invalid`.
fn validate_owner_references(refs: &[OwnerReference], path: &Path, release: u8) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut first_controller: Option<String> = None;
    for (i, r) in refs.iter().enumerate() {
        if release >= 37 {
            errs.extend(owner_reference_fields(r, &path.index(i)));
        }
        let version = match r.api_version.split_once('/') {
            Some((_, v)) => v,
            None => r.api_version.as_str(),
        };
        let group = r.api_version.split_once('/').map_or("", |(g, _)| g);
        let at = &if release >= 37 {
            path.index(i)
        } else {
            path.clone()
        };
        if release >= 37 {
            // reported by owner_reference_fields
        } else if version.is_empty() {
            errs.push(
                FieldError::invalid(
                    &at.child("apiVersion"),
                    r.api_version.as_str(),
                    "version must not be empty",
                )
                .with_origin("meta/owner-reference"),
            );
        }
        if release < 37 {
            for (field, value) in [("kind", &r.kind), ("name", &r.name), ("uid", &r.uid)] {
                if value.is_empty() {
                    errs.push(
                        FieldError::invalid(&at.child(field), value.as_str(), "must not be empty")
                            .with_origin("meta/owner-reference"),
                    );
                }
            }
        }
        if group.is_empty() && version == "v1" && r.kind == "Event" {
            errs.push(
                FieldError::invalid(
                    at,
                    BadValue::go(r, &podmut_model::gojson::layout::STRUCT_V1_OWNER_REFERENCE),
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
                        BadValue::go(refs, &podmut_model::gojson::layout::SLICE_STRUCT_V1_OWNER_REFERENCE),
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

/// apimachinery v0.37's `validateOwnerReference` field checks: `Required` for an empty field, and
/// an `apiVersion` that `schema.ParseGroupVersion` refuses or that has no version.
fn owner_reference_fields(r: &OwnerReference, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let origin = "meta/owner-reference";
    let av = r.api_version.as_str();
    let parsed_version = match av.split('/').collect::<Vec<_>>().as_slice() {
        [v] => Some(*v),
        [_, v] => Some(*v),
        _ => None,
    };
    if av.is_empty() {
        errs.push(FieldError::required(&path.child("apiVersion"), "must not be empty").with_origin(origin));
    } else if parsed_version.is_none_or(str::is_empty) {
        errs.push(
            FieldError::invalid(
                &path.child("apiVersion"),
                av,
                "must be <group>/<version> or <version>",
            )
            .with_origin(origin),
        );
    }
    for (field, value) in [("kind", &r.kind), ("name", &r.name), ("uid", &r.uid)] {
        if value.is_empty() {
            errs.push(FieldError::required(&path.child(field), "must not be empty").with_origin(origin));
        }
    }
    errs
}

/// `ValidateFinalizers` (apimachinery) and, with `kube`, the core `validateKubeFinalizerName` per
/// entry.
fn validate_finalizers(finalizers: &[String], path: &Path, kube: bool) -> ErrorList {
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
                BadValue::go(finalizers, &podmut_model::gojson::layout::SLICE_STRING),
                "finalizer orphan and foregroundDeletion cannot be both set",
            )
            .with_origin("meta/finalizer-conflict"),
        );
    }
    if kube {
        errs.extend(validate_kube_finalizer_names(finalizers, path));
    }
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
fn validate_managed_fields(entries: &[ManagedFieldsEntry], path: &Path, release: u8) -> ErrorList {
    let mut errs = ErrorList::new();
    for (i, e) in entries.iter().enumerate() {
        let p = path.index(i);
        let operation = opt_str(&e.operation);
        if release >= 37 && operation.is_empty() {
            errs.push(
                FieldError::required(&p.child("operation"), "must not be empty")
                    .with_origin("meta/managed-fields"),
            );
        } else if release >= 37 && operation != "Apply" && operation != "Update" {
            errs.push(
                FieldError::not_supported(&p.child("operation"), operation, &["Apply", "Update"])
                    .with_origin("meta/managed-fields"),
            );
        } else if operation != "Apply" && operation != "Update" {
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

/// `ValidateNoNewFinalizers`: a Pod being deleted may not gain finalizers.
fn validate_no_new_finalizers(new: &ObjectMeta, old: &ObjectMeta, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let old_set: BTreeSet<&String> = podmut_model::order::set_from(old.finalizers.iter().flatten());
    let extra: BTreeSet<&String> =
        podmut_model::order::set_from(new.finalizers.iter().flatten().filter(|f| !old_set.contains(f)));
    if !extra.is_empty() {
        let list: Vec<String> = extra.iter().map(|f| podmut_model::gojson::go_quote(f)).collect();
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
    errs
}

fn time_value(t: Option<&Time>) -> BadValue {
    BadValue::go(&t, &podmut_model::gojson::layout::PTR_TIME)
}

/// `ValidateObjectMetaUpdate(new, old, path)` (apimachinery, plus the core wrapper's finalizer-name
/// check): no new finalizers while deleting, a resourceVersion, generation never decreases, and
/// name, namespace, uid, creationTimestamp, deletionTimestamp and deletionGracePeriodSeconds are
/// immutable (`Invalid` "field is immutable" at each path).
///
/// The resourceVersion rule depends on the request handling: Pods allow unconditional updates, and
/// the API server's registry fills an empty resourceVersion from the stored object before
/// validating (`Store.Update`), so a cluster never reports it for a Pod. With `applyDefaults`
/// (podmut's model of that processing, [`PodValidationOptions::request_fills_metadata`]) the rule
/// therefore never fires; with `--no-defaults` it runs exactly as in upstream's unit tests, which
/// set `resourceVersion: "1"` on both Pods.
pub(crate) fn validate_object_meta_update(
    new: &ObjectMeta,
    old: &ObjectMeta,
    path: &Path,
    opts: &PodValidationOptions,
) -> ErrorList {
    let mut errs = accessor_update(new, old, path, opts.request_fills_metadata, opts.release);
    errs.extend(validate_kube_finalizer_names(
        new.finalizers.as_deref().unwrap_or(&[]),
        &path.child("finalizers"),
    ));
    errs
}

/// `ValidateObjectMetaAccessorUpdate` as the registry runs it on every update (the resourceVersion
/// is filled from the stored object by then).
pub(crate) fn validate_object_meta_accessor_update(
    new: &ObjectMeta,
    old: &ObjectMeta,
    path: &Path,
    release: u8,
) -> ErrorList {
    accessor_update(new, old, path, true, release)
}

/// `ValidateObjectMetaAccessorUpdate`; `rv_filled`: an empty resourceVersion was filled before.
fn accessor_update(
    new: &ObjectMeta,
    old: &ObjectMeta,
    path: &Path,
    rv_filled: bool,
    release: u8,
) -> ErrorList {
    let mut errs = ErrorList::new();
    if old.deletion_timestamp.is_some() {
        errs.extend(validate_no_new_finalizers(new, old, path));
    }
    let rv = opt_str(&new.resource_version);
    if rv.is_empty() && !rv_filled {
        errs.push(
            FieldError::invalid(
                &path.child("resourceVersion"),
                rv,
                "must be specified for an update",
            )
            .with_origin("meta/resource-version"),
        );
    }
    let (new_gen, old_gen) = (new.generation.unwrap_or(0), old.generation.unwrap_or(0));
    if new_gen < old_gen {
        errs.push(
            FieldError::invalid(&path.child("generation"), new_gen, "must not be decremented")
                .with_origin("meta/generation-decrement"),
        );
    }
    let immutable = |errs: &mut ErrorList, field: &'static str, changed: bool, value: BadValue| {
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
        release,
    ));
    errs.extend(validate_managed_fields(
        new.managed_fields.as_deref().unwrap_or(&[]),
        &path.child("managedFields"),
        release,
    ));
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pod::util::{Want, summary, wanted};
    use podmut_model::field::ErrorType;

    fn meta(yaml: &str) -> ObjectMeta {
        serde_yaml_ng::from_str(yaml).unwrap()
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
            let got = validate_pod_object_meta(&meta(yaml), &p, false, 35);
            let want = wanted(want);
            assert_eq!(summary(&got), want, "{name}");
        }
    }

    #[test]
    fn request_fills_namespace_and_generated_name() {
        let p = Path::new("metadata");
        assert!(validate_pod_object_meta(&meta("{generateName: web-}"), &p, true, 35).is_empty());
        assert_eq!(
            validate_pod_object_meta(&meta("{generateName: web-}"), &p, false, 35).len(),
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
            let filled = PodValidationOptions {
                request_fills_metadata: true,
                ..PodValidationOptions::default()
            };
            let got = validate_object_meta_update(&meta(new), &meta(old), &p, &filled);
            let want = wanted(want);
            assert_eq!(summary(&got), want, "{name}");
        }
    }

    #[test]
    fn resource_version_only_without_defaulting() {
        let p = Path::new("metadata");
        let filled = PodValidationOptions {
            request_fills_metadata: true,
            ..PodValidationOptions::default()
        };
        let unfilled = PodValidationOptions::default();
        let (a, b) = (meta("{name: a}"), meta("{name: a, resourceVersion: '1'}"));
        assert!(validate_object_meta_update(&a, &a, &p, &filled).is_empty());
        let e = validate_object_meta_update(&a, &a, &p, &unfilled);
        assert_eq!(e[0].field.to_string(), "metadata.resourceVersion");
        assert_eq!(e[0].origin, "meta/resource-version");
        assert!(validate_object_meta_update(&b, &a, &p, &unfilled).is_empty());
    }
}
