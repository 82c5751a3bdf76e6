//! `pods/ephemeralcontainers`: the request path that adds debug containers
//! (`ValidatePodEphemeralContainersUpdate`). The pipeline: the strategy step ([`prepare_update`]),
//! the options derived from the old Pod, the shared update prefix (metadata, full validation of
//! the new Pod — which includes `validateEphemeralContainers`, [`crate::pod::ephemeral`] — and the
//! annotation rules), then this path's own rules: a static Pod gets only `Forbidden []`, existing
//! ephemeral containers may be neither removed nor changed.
//!
//! Upstream: `pkg/apis/core/validation/validation.go` (`ValidatePodEphemeralContainersUpdate`) and
//! `pkg/registry/core/pod/strategy.go` (`dropNonEphemeralContainerUpdates`).
//!
//! # Changes outside `spec.ephemeralContainers`
//!
//! `ValidatePodEphemeralContainersUpdate` itself never checks that *only* ephemeral containers
//! changed: the REST layer has already copied everything else from the stored Pod
//! (`dropNonEphemeralContainerUpdates`: the spec except `ephemeralContainers`, the status, labels,
//! annotations, finalizers, owner references). A change to, say, an image sent to
//! `pods/ephemeralcontainers` is therefore silently ignored by the API server, not rejected.
//! [`prepare_update`] does the same, without a warning (the API server sends none); the verdict is the
//! API server's.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{EphemeralContainer, Pod};

use crate::pod::{PodValidationOptions, validate_update_prefix};
use crate::strategy::Prepared;
use podmut_model::field::{ErrorList, FieldError, Path};
use podmut_model::podutil::{is_mirror_pod, spec as spec_of};
use podmut_model::semantic::{diff_paths, ephemeral_containers_eq};
use podmut_model::settings::Settings;

/// `ValidatePodEphemeralContainersUpdate(new, old, opts)`: the update prefix; then a static
/// (mirror) Pod gets **only** `Forbidden` at `[]`; then existing ephemeral containers may be neither
/// removed nor changed (matched by name: patches do not keep the order).
///
/// Call it on the Pod [`prepare_update`] returns, as the API server does.
pub(crate) fn validate_ephemeral_containers_update(new: &Pod, old: &Pod, settings: &Settings) -> ErrorList {
    let opts = PodValidationOptions::for_update(new, old, settings);
    let mut errs = validate_update_prefix(new, old, &opts);

    // static pods don't support ephemeral containers (kubernetes#113935)
    if is_mirror_pod(old) {
        return vec![
            FieldError::forbidden(&Path::root(), "static pods do not support ephemeral containers")
                .with_origin("ephemeral/static-pod"),
        ];
    }

    let new_spec = spec_of(new);
    let old_spec = spec_of(old);
    let path = Path::new("spec").child("ephemeralContainers");
    // Like the Go map upstream builds: a later container of the same name wins.
    let index: BTreeMap<&str, &EphemeralContainer> = podmut_model::order::map_from(
        new_spec
            .ephemeral_containers
            .iter()
            .flatten()
            .map(|c| (c.name.as_str(), c)),
    );
    for old_c in old_spec.ephemeral_containers.iter().flatten() {
        let name = podmut_model::gojson::go_quote(&old_c.name);
        match index.get(old_c.name.as_str()) {
            None => errs.push(
                FieldError::forbidden(
                    &path,
                    format!("existing ephemeral containers {name} may not be removed\n"),
                )
                .with_origin("ephemeral/no-removal"),
            ),
            Some(new_c) if !ephemeral_containers_eq(old_c, new_c) => {
                let changed = diff_paths(old_c, *new_c).join(", ");
                errs.push(
                    FieldError::forbidden(
                        &path,
                        format!(
                            "existing ephemeral containers {name} may not be changed\n  changed: {changed}"
                        ),
                    )
                    .with_origin("ephemeral/no-change"),
                );
            }
            Some(_) => {}
        }
    }
    errs
}

/// The REST layer's `PrepareForUpdate` for `pods/ephemeralcontainers` (`dropNonEphemeralContainerUpdates`):
/// the stored Pod with the request's `spec.ephemeralContainers`, and the request's identity metadata.
pub(crate) fn prepare_update(new: &Pod, old: &Pod) -> Prepared {
    let mut spec = spec_of(old).into_owned();
    spec.ephemeral_containers = spec_of(new).ephemeral_containers.clone();
    Prepared::stored_with_spec(new, old, spec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use podmut_model::document::parse_pod;
    use podmut_model::field::ErrorType;

    const BASE: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: pod, namespace: ns, resourceVersion: '1'}\nspec:\n  restartPolicy: OnFailure\n  dnsPolicy: ClusterFirst\n  terminationGracePeriodSeconds: 30\n  volumes: [{name: vol, emptyDir: {}}]\n  initContainers: [{name: ictr, image: iimage, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File}]\n  containers: [{name: ctr, image: image, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File}]\n";

    fn pod(ephemeral: &str) -> Pod {
        parse_pod(
            &format!("{BASE}  ephemeralContainers: {ephemeral}\n"),
            "p",
            1 << 20,
        )
        .unwrap()
    }

    const OK: &str = "image: image, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File";

    fn update(new: &str, old: &str) -> ErrorList {
        validate_ephemeral_containers_update(&pod(new), &pod(old), &Settings::default())
    }

    #[test]
    fn adding_is_allowed_in_any_order() {
        let a = format!("{{name: debugger, {OK}}}");
        let b = format!("{{name: debugger2, {OK}}}");
        let c = format!("{{name: debugger3, {OK}}}");
        assert!(update(&format!("[{a}]"), "[]").is_empty());
        assert!(update(&format!("[{b}, {a}]"), &format!("[{a}, {b}]")).is_empty());
        assert!(update(&format!("[{c}, {b}, {a}]"), &format!("[{a}, {b}]")).is_empty());
    }

    #[test]
    fn existing_ones_may_not_be_removed_or_changed() {
        let a = format!("{{name: debugger, {OK}}}");
        let errs = update("[]", &format!("[{a}]"));
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field.to_string(), "spec.ephemeralContainers");
        assert_eq!(errs[0].origin, "ephemeral/no-removal");
        assert_eq!(
            errs[0].detail,
            "existing ephemeral containers \"debugger\" may not be removed\n"
        );
        let changed = a.replace("image: image", "image: debian");
        let errs = update(&format!("[{changed}]"), &format!("[{a}]"));
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].origin, "ephemeral/no-change");
        assert!(errs[0].detail.contains("may not be changed"));
        assert!(errs[0].detail.contains("image"), "{}", errs[0].detail);
    }

    #[test]
    fn static_pods_get_only_one_error_at_the_root() {
        let add = |s: &str| {
            s.replace(
                "resourceVersion: '1'}",
                "resourceVersion: '1', annotations: {kubernetes.io/config.mirror: foo}}",
            )
            .replace("  restartPolicy", "  nodeName: some-name\n  restartPolicy")
        };
        let old = parse_pod(&add(&format!("{BASE}  ephemeralContainers: []\n")), "p", 1 << 20).unwrap();
        let new = parse_pod(
            &add(&format!(
                "{BASE}  ephemeralContainers: [{{name: d, {OK}, ports: []}}]\n"
            )),
            "p",
            1 << 20,
        )
        .unwrap();
        let errs = validate_ephemeral_containers_update(&new, &old, &Settings::default());
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].field.to_string(), "[]");
        assert_eq!(errs[0].error_type, ErrorType::Forbidden);
        assert_eq!(errs[0].detail, "static pods do not support ephemeral containers");
    }

    #[test]
    fn prepare_keeps_only_ephemeral_containers() {
        let old = pod("[]");
        let mut new = pod(&format!("[{{name: d, {OK}}}]"));
        if let Some(s) = new.spec.as_mut() {
            s.containers[0].image = Some("other".into());
        }
        new.metadata.labels = Some([("a".to_owned(), "b".to_owned())].into());
        let p = prepare_update(&new, &old);
        let spec = spec_of(&p.pod);
        assert_eq!(spec.containers[0].image.as_deref(), Some("image"));
        assert_eq!(spec.ephemeral_containers.as_ref().map(Vec::len), Some(1));
        assert!(p.pod.metadata.labels.is_none());
        // silently, like the API server
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }
}
