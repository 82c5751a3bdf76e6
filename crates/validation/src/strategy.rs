//! The REST-layer "strategy" step every subresource request path starts with: which parts of a
//! request the path applies at all. Each path module has its own `prepare_update` (dispatched by
//! [`crate::validation::prepare_update`]); this module holds what they share.
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
//! Such changes are therefore silently ignored by the API server, not rejected, and without a
//! warning: podmut's upstream paths do the same (its `warnings` are the API server's). Only
//! `pods/dynamic`, which no release serves, reports what its step ignored as a warning. An
//! admission webhook already receives the prepared object, so the step is a no-op there.
//!
//! Before any of these, the registry's `rest.BeforeUpdate` ([`crate::rest::before_update`]) takes the
//! metadata no request may change from the stored Pod.

use k8s_openapi::api::core::v1::{Pod, PodSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use podmut_model::field::{ErrorList, FieldError, Path};
use podmut_model::request_path::Subresource;
use podmut_model::semantic::diff_paths;
use podmut_model::settings::{Gate, Settings};

/// The API server serves a gated subresource only with its gate on: `Some` single `Forbidden []`
/// (with `origin`) when `gate` is off, the answer for every request on `subresource`.
pub(crate) fn not_served(
    subresource: Subresource,
    gate: Gate,
    origin: &'static str,
    settings: &Settings,
) -> Option<ErrorList> {
    (!settings.gate(gate)).then(|| {
        vec![
            FieldError::forbidden(
                &Path::root(),
                format!(
                    "the {} subresource is not served: the {gate} feature gate is disabled",
                    subresource.resource()
                ),
            )
            .with_origin(origin),
        ]
    })
}

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
    pub(crate) fn new(sent: &Pod, pod: Pod, what: &str) -> Self {
        // The usual request changes only what its path applies: a typed comparison answers that
        // without serializing both Pods for the diff.
        if *sent == pod {
            return Self {
                pod,
                warnings: Vec::new(),
            };
        }
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

    /// The Pod an upstream path's step prepared: the API server does not say what it ignored.
    pub(crate) fn applied(pod: Pod) -> Self {
        Self {
            pod,
            warnings: Vec::new(),
        }
    }

    /// What `dropNonEphemeralContainerUpdates` and `dropNonResizeUpdates` share: `spec` (built from
    /// the stored one), the stored status, and the metadata `ResetObjectMetaForStatus` keeps.
    pub(crate) fn stored_with_spec(sent: &Pod, stored: &Pod, spec: PodSpec) -> Self {
        let mut pod = sent.clone();
        pod.spec = Some(spec);
        pod.status.clone_from(&stored.status);
        reset_object_meta_for_status(&mut pod.metadata, &stored.metadata);
        Self::applied(pod)
    }

    /// The request as sent (the path's strategy changes nothing).
    pub(crate) fn unchanged(sent: &Pod) -> Self {
        Self {
            pod: sent.clone(),
            warnings: Vec::new(),
        }
    }
}

/// `metav1.ResetObjectMetaForStatus`: the metadata a subresource may not change, copied from the
/// stored object (deletion timestamp, generation, self link, labels, annotations, finalizers, owner
/// references).
fn reset_object_meta_for_status(meta: &mut ObjectMeta, existing: &ObjectMeta) {
    meta.deletion_timestamp.clone_from(&existing.deletion_timestamp);
    meta.generation = existing.generation;
    meta.self_link.clone_from(&existing.self_link);
    meta.labels.clone_from(&existing.labels);
    meta.annotations.clone_from(&existing.annotations);
    meta.finalizers.clone_from(&existing.finalizers);
    meta.owner_references.clone_from(&existing.owner_references);
}

#[cfg(test)]
mod tests {
    use super::*;
    use podmut_model::document::parse_pod;

    #[test]
    fn prepared_names_the_dropped_fields() {
        let sent = parse_pod("spec: {containers: [{name: a, image: x}]}\n", "p", 1 << 20).unwrap();
        let kept = parse_pod("spec: {containers: [{name: a, image: busybox}]}\n", "p", 1 << 20).unwrap();
        let p = Prepared::new(&sent, kept.clone(), "pods/x applies only y");
        assert_eq!(p.warnings.len(), 1);
        assert!(
            p.warnings[0].contains("spec.containers[0].image"),
            "{:?}",
            p.warnings
        );
        assert!(Prepared::new(&kept, kept.clone(), "x").warnings.is_empty());
        assert!(Prepared::unchanged(&kept).warnings.is_empty());
    }
}
