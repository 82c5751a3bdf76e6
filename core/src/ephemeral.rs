//! Ephemeral containers: the static rules every spec validation applies to
//! `spec.ephemeralContainers` (`validateEphemeralContainers`), and `pods/ephemeralcontainers`
//! updates (`ValidatePodEphemeralContainersUpdate`).
//!
//! Upstream: `pkg/apis/core/validation/validation.go` (`validateEphemeralContainers`,
//! `validateFieldAllowList`, `ValidatePodEphemeralContainersUpdate`) and
//! `pkg/registry/core/pod/strategy.go` (`dropNonEphemeralContainerUpdates`).
//!
//! # Changes outside `spec.ephemeralContainers`
//!
//! `ValidatePodEphemeralContainersUpdate` itself never checks that *only* ephemeral containers
//! changed: the REST layer has already copied everything else from the stored Pod
//! (`dropNonEphemeralContainerUpdates`: the spec except `ephemeralContainers`, the status, labels,
//! annotations, finalizers, owner references). A change to, say, an image sent to
//! `pods/ephemeralcontainers` is therefore silently ignored by the API server, not rejected.
//! [`prepare_update`] does the same and reports the ignored fields as a warning; the verdict is the
//! API server's.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{EphemeralContainer, Pod, PodSpec};

use crate::field::{ErrorList, FieldError, Path};
use crate::pod::{is_static_pod, spec_of};
use crate::semantic::{diff_paths, semantic_eq};
use crate::settings::Settings;
use crate::subresource::{Prepared, reset_object_meta_for_status, validate_update_basics};

/// The detail of every allow-list and subPath error.
pub const NOT_FOR_EPHEMERAL: &str = "cannot be set for an Ephemeral Container";

/// The fields of `EphemeralContainerCommon` upstream's allow-list does not allow, in Go struct order
/// (which is the order the errors are reported in), with a check of whether each is set (non-zero in
/// Go terms: a present pointer, or a present list, even an empty one).
///
/// Any field added to the type later is disallowed until upstream adds it to
/// `allowedEphemeralContainerFields`; `restartPolicyRules` is such a field.
fn disallowed_fields(c: &EphemeralContainer) -> [(&'static str, bool); 9] {
    let resources_set = c
        .resources
        .as_ref()
        .is_some_and(|r| r.limits.is_some() || r.requests.is_some() || r.claims.is_some());
    [
        ("ports", c.ports.is_some()),
        ("resources", resources_set),
        ("resizePolicy", c.resize_policy.is_some()),
        ("restartPolicy", c.restart_policy.is_some()),
        ("restartPolicyRules", c.restart_policy_rules.is_some()),
        ("livenessProbe", c.liveness_probe.is_some()),
        ("readinessProbe", c.readiness_probe.is_some()),
        ("startupProbe", c.startup_probe.is_some()),
        ("lifecycle", c.lifecycle.is_some()),
    ]
}

/// The ephemeral-container-specific checks of `validateEphemeralContainers`: names unique across all
/// containers, `targetContainerName` naming a regular or init container, the field allow-list and
/// the ban on `subPath`/`subPathExpr`. `path` is the list's path (`spec.ephemeralContainers`).
///
/// The checks shared with other containers (`validateContainerCommon`, `validateContainerOnlyForPod`)
/// belong to spec validation ([`crate::pod::validate_pod_metadata_and_spec`]), not here.
pub fn validate_ephemeral_containers(spec: &PodSpec, path: &Path, _settings: &Settings) -> ErrorList {
    let mut errs = ErrorList::new();
    let Some(ephemeral) = spec.ephemeral_containers.as_ref().filter(|e| !e.is_empty()) else {
        return errs;
    };
    let mut other_names = BTreeSet::new();
    for c in spec
        .containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
    {
        other_names.insert(c.name.as_str());
    }
    let mut all_names = other_names.clone();
    for (i, ec) in ephemeral.iter().enumerate() {
        let idx = path.index(i);
        if !all_names.insert(ec.name.as_str()) {
            errs.push(
                FieldError::duplicate(&idx.child("name"), ec.name.as_str())
                    .with_origin("ephemeral/duplicate-name"),
            );
        }
        let target = ec.target_container_name.as_deref().unwrap_or("");
        if !target.is_empty() && !other_names.contains(target) {
            errs.push(
                FieldError::not_found(&idx.child("targetContainerName"), target)
                    .with_origin("ephemeral/target-not-found"),
            );
        }
        for (field, set) in disallowed_fields(ec) {
            if set {
                errs.push(
                    FieldError::forbidden(&idx.child(field), NOT_FOR_EPHEMERAL)
                        .with_origin("ephemeral/disallowed-field"),
                );
            }
        }
        for (j, vm) in ec.volume_mounts.iter().flatten().enumerate() {
            let vm_path = idx.child("volumeMounts").index(j);
            if vm.sub_path.as_deref().is_some_and(|s| !s.is_empty()) {
                errs.push(
                    FieldError::forbidden(&vm_path.child("subPath"), NOT_FOR_EPHEMERAL)
                        .with_origin("ephemeral/no-subpath"),
                );
            }
            if vm.sub_path_expr.as_deref().is_some_and(|s| !s.is_empty()) {
                errs.push(
                    FieldError::forbidden(&vm_path.child("subPathExpr"), NOT_FOR_EPHEMERAL)
                        .with_origin("ephemeral/no-subpath"),
                );
            }
        }
    }
    errs
}

/// `ValidatePodEphemeralContainersUpdate(new, old)`: metadata update, full validation of the new
/// Pod and the annotation rules; then a static (mirror) Pod gets **only** `Forbidden` at `[]`; then
/// existing ephemeral containers may be neither removed nor changed (matched by name: patches do not
/// keep the order).
///
/// Call it on the Pod [`prepare_update`] returns, as the API server does.
pub fn validate_ephemeral_containers_update(new: &Pod, old: &Pod, settings: &Settings) -> ErrorList {
    let mut errs = validate_update_basics(new, old, settings, true);

    // static pods don't support ephemeral containers (kubernetes#113935)
    if is_static_pod(old) {
        return vec![
            FieldError::forbidden(&Path::root(), "static pods do not support ephemeral containers")
                .with_origin("ephemeral/static-pod"),
        ];
    }

    let new_spec = spec_of(new);
    let old_spec = spec_of(old);
    let path = Path::new("spec").child("ephemeralContainers");
    // Like the Go map upstream builds: a later container of the same name wins.
    let index: BTreeMap<&str, &EphemeralContainer> = new_spec
        .ephemeral_containers
        .iter()
        .flatten()
        .map(|c| (c.name.as_str(), c))
        .collect();
    for old_c in old_spec.ephemeral_containers.iter().flatten() {
        let name = crate::field::go_quote(&old_c.name);
        match index.get(old_c.name.as_str()) {
            None => errs.push(
                FieldError::forbidden(
                    &path,
                    format!("existing ephemeral containers {name} may not be removed\n"),
                )
                .with_origin("ephemeral/no-removal"),
            ),
            Some(new_c) if !semantic_eq(old_c, *new_c) => {
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
pub fn prepare_update(new: &Pod, old: &Pod) -> Prepared {
    let mut pod = new.clone();
    let mut spec = spec_of(old).into_owned();
    spec.ephemeral_containers = spec_of(new).ephemeral_containers.clone();
    pod.spec = Some(spec);
    pod.status.clone_from(&old.status);
    reset_object_meta_for_status(&mut pod.metadata, &old.metadata);
    Prepared::new(
        new,
        pod,
        "pods/ephemeralcontainers applies only spec.ephemeralContainers",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::parse_pod;
    use crate::field::ErrorType;

    const BASE: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: pod, namespace: ns, resourceVersion: '1'}\nspec:\n  restartPolicy: OnFailure\n  dnsPolicy: ClusterFirst\n  terminationGracePeriodSeconds: 30\n  volumes: [{name: vol, emptyDir: {}}]\n  initContainers: [{name: ictr, image: iimage, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File}]\n  containers: [{name: ctr, image: image, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File}]\n";

    fn pod(ephemeral: &str) -> Pod {
        parse_pod(
            &format!("{BASE}  ephemeralContainers: {ephemeral}\n"),
            "p",
            1 << 20,
        )
        .unwrap()
    }

    fn errs_of(ephemeral: &str) -> Vec<(ErrorType, String, &'static str)> {
        let p = pod(ephemeral);
        validate_ephemeral_containers(
            &spec_of(&p),
            &Path::new("spec").child("ephemeralContainers"),
            &Settings::default(),
        )
        .into_iter()
        .map(|e| (e.error_type, e.field.to_string(), e.origin))
        .collect()
    }

    const OK: &str = "image: image, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File";

    #[test]
    fn allowed_fields_pass() {
        // TestValidateEphemeralContainers "All allowed fields"
        let all = format!(
            "[{{name: debug, {OK}, command: [bash], args: [bash], workingDir: /, envFrom: [{{configMapRef: {{name: dummy, optional: true}}}}], env: [{{name: TEST, value: 'TRUE'}}], volumeMounts: [{{name: vol, mountPath: /vol}}], terminationMessagePath: /dev/termination-log, securityContext: {{capabilities: {{add: [SYS_ADMIN]}}}}, stdin: true, stdinOnce: true, tty: true, targetContainerName: ctr}}]"
        );
        assert!(errs_of(&all).is_empty(), "{:?}", errs_of(&all));
        assert!(errs_of("[]").is_empty());
        // resources: {} is the zero value in Go, so it is not "set"
        assert!(errs_of(&format!("[{{name: d, {OK}, resources: {{}}}}]")).is_empty());
    }

    #[test]
    fn names_are_unique_across_all_containers() {
        for (list, field) in [
            (
                format!("[{{name: ctr, {OK}}}, {{name: debug1, {OK}}}]"),
                "spec.ephemeralContainers[0].name",
            ),
            (
                format!("[{{name: ictr, {OK}}}]"),
                "spec.ephemeralContainers[0].name",
            ),
            (
                format!("[{{name: d, {OK}}}, {{name: d, {OK}}}]"),
                "spec.ephemeralContainers[1].name",
            ),
        ] {
            assert_eq!(
                errs_of(&list),
                vec![(ErrorType::Duplicate, field.to_owned(), "ephemeral/duplicate-name")]
            );
        }
    }

    #[test]
    fn target_must_be_a_regular_or_init_container() {
        assert_eq!(
            errs_of(&format!("[{{name: d, {OK}, targetContainerName: bogus}}]")),
            vec![(
                ErrorType::NotFound,
                "spec.ephemeralContainers[0].targetContainerName".to_owned(),
                "ephemeral/target-not-found"
            )]
        );
        // targeting another ephemeral container is not allowed either
        assert_eq!(
            errs_of(&format!(
                "[{{name: d, {OK}}}, {{name: e, {OK}, targetContainerName: d}}]"
            ))[0]
                .1,
            "spec.ephemeralContainers[1].targetContainerName"
        );
        assert!(errs_of(&format!("[{{name: d, {OK}, targetContainerName: ictr}}]")).is_empty());
    }

    #[test]
    fn disallowed_fields_are_forbidden_even_when_empty() {
        for (field, value) in [
            ("ports", "[]"),
            ("ports", "[{containerPort: 80, protocol: TCP}]"),
            ("resources", "{limits: {cpu: '10'}}"),
            ("resources", "{limits: {}}"),
            (
                "resizePolicy",
                "[{resourceName: cpu, restartPolicy: NotRequired}]",
            ),
            ("restartPolicy", "Always"),
            ("restartPolicy", "''"),
            ("restartPolicyRules", "[]"),
            ("livenessProbe", "{tcpSocket: {port: 80}}"),
            ("readinessProbe", "{tcpSocket: {port: 80}}"),
            ("startupProbe", "{tcpSocket: {port: 80}}"),
            // an invalid disallowed field yields only the Forbidden
            ("lifecycle", "{preStop: {exec: {command: []}}}"),
        ] {
            let errs = errs_of(&format!("[{{name: d, {OK}, {field}: {value}}}]"));
            assert_eq!(
                errs,
                vec![(
                    ErrorType::Forbidden,
                    format!("spec.ephemeralContainers[0].{field}"),
                    "ephemeral/disallowed-field"
                )],
                "{field}: {value}"
            );
        }
    }

    #[test]
    fn several_disallowed_fields_come_in_struct_order() {
        let errs = errs_of(&format!(
            "[{{name: d, {OK}, lifecycle: {{}}, ports: [], restartPolicy: Never}}]"
        ));
        let fields: Vec<&str> = errs.iter().map(|e| e.1.as_str()).collect();
        assert_eq!(
            fields,
            [
                "spec.ephemeralContainers[0].ports",
                "spec.ephemeralContainers[0].restartPolicy",
                "spec.ephemeralContainers[0].lifecycle"
            ]
        );
    }

    #[test]
    fn subpaths_are_forbidden() {
        assert_eq!(
            errs_of(&format!(
                "[{{name: d, {OK}, volumeMounts: [{{name: vol, mountPath: /vol}}, {{name: vol, mountPath: /s, subPath: foo}}, {{name: vol, mountPath: /e, subPathExpr: '$(POD_NAME)'}}]}}]"
            )),
            vec![
                (
                    ErrorType::Forbidden,
                    "spec.ephemeralContainers[0].volumeMounts[1].subPath".to_owned(),
                    "ephemeral/no-subpath"
                ),
                (
                    ErrorType::Forbidden,
                    "spec.ephemeralContainers[0].volumeMounts[2].subPathExpr".to_owned(),
                    "ephemeral/no-subpath"
                )
            ]
        );
    }

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
        assert_eq!(p.warnings.len(), 1);
        assert!(
            p.warnings[0].contains("spec.containers[0].image"),
            "{:?}",
            p.warnings
        );
        assert!(p.warnings[0].contains("metadata.labels"), "{:?}", p.warnings);
    }
}
