//! `validateEphemeralContainers`: what every spec validation checks of `spec.ephemeralContainers`
//! (on any request path), per container in upstream's order: the checks shared with other
//! containers (`validateContainerCommon`, `validateContainerOnlyForPod`), a name unique across all
//! containers, a `targetContainerName` naming a regular or init container, the field allow-list and
//! the ban on `subPath`/`subPathExpr`.
//!
//! What `pods/ephemeralcontainers` adds on top (existing ephemeral containers are immutable) is the
//! path module [`crate::ephemeral`].
//!
//! Upstream: `pkg/apis/core/validation/validation.go` (`validateEphemeralContainers`,
//! `validateFieldAllowList`).

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::{EphemeralContainer, PodSpec};

use crate::pod::container::{ContainerContext, validate_container_common, validate_container_only_for_pod};
use crate::pod::util::items;
use podmut_model::field::{ErrorList, FieldError, Path};
use podmut_model::podutil::{ephemeral_as_container, init_containers};

/// The detail of every allow-list and subPath error.
pub(crate) const NOT_FOR_EPHEMERAL: &str = "cannot be set for an Ephemeral Container";

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

/// `validateEphemeralContainers`; `path` is the list's path (`spec.ephemeralContainers`).
pub(crate) fn validate_ephemeral_containers(
    spec: &PodSpec,
    ctx: &ContainerContext<'_>,
    path: &Path,
) -> ErrorList {
    let ephemeral = items(&spec.ephemeral_containers);
    if ephemeral.is_empty() {
        // Nothing to check, nor any name set to build.
        return ErrorList::new();
    }
    let mut errs = ErrorList::new();
    let other_names: BTreeSet<&str> = podmut_model::order::set_from(
        spec.containers
            .iter()
            .chain(init_containers(spec))
            .map(|c| c.name.as_str()),
    );
    let mut all_names = other_names.clone();
    for (i, ec) in ephemeral.iter().enumerate() {
        let idx = path.index(i);
        let c = ephemeral_as_container(ec);
        errs.extend(validate_container_common(&c, ctx, &idx));
        errs.extend(validate_container_only_for_pod(&c, &idx));
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
        errs.extend(validate_field_allow_list(ec, &idx));
        errs.extend(validate_no_subpaths(ec, &idx));
    }
    errs
}

/// `validateFieldAllowList(ec, allowedEphemeralContainerFields, ...)`.
fn validate_field_allow_list(ec: &EphemeralContainer, path: &Path) -> ErrorList {
    disallowed_fields(ec)
        .into_iter()
        .filter(|(_, set)| *set)
        .map(|(field, _)| {
            FieldError::forbidden(&path.child(field), NOT_FOR_EPHEMERAL)
                .with_origin("ephemeral/disallowed-field")
        })
        .collect()
}

/// Volume-mount subpaths could make the container write to the host's filesystem: forbidden.
fn validate_no_subpaths(ec: &EphemeralContainer, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    for (j, vm) in items(&ec.volume_mounts).iter().enumerate() {
        let vm_path = path.child("volumeMounts").index(j);
        for (field, value) in [("subPath", &vm.sub_path), ("subPathExpr", &vm.sub_path_expr)] {
            if value.as_deref().is_some_and(|s| !s.is_empty()) {
                errs.push(
                    FieldError::forbidden(&vm_path.child(field), NOT_FOR_EPHEMERAL)
                        .with_origin("ephemeral/no-subpath"),
                );
            }
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use crate::pod::options::PodValidationOptions;
    use podmut_model::document::parse_pod;
    use podmut_model::field::ErrorType;
    use podmut_model::settings::Settings;

    const BASE: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: pod, namespace: ns, resourceVersion: '1'}\nspec:\n  restartPolicy: OnFailure\n  dnsPolicy: ClusterFirst\n  terminationGracePeriodSeconds: 30\n  volumes: [{name: vol, emptyDir: {}}]\n  initContainers: [{name: ictr, image: iimage, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File}]\n  containers: [{name: ctr, image: image, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File}]\n";

    /// The ephemeral-specific errors of the full spec validation of a Pod with these ephemeral
    /// containers (the shared container checks are tested with the containers).
    fn errs_of(ephemeral: &str) -> Vec<(ErrorType, String, &'static str)> {
        let p = parse_pod(
            &format!("{BASE}  ephemeralContainers: {ephemeral}\n"),
            "p",
            1 << 20,
        )
        .unwrap();
        let mut s = Settings::default();
        s.apply_defaults = false;
        crate::pod::validate_pod_metadata_and_spec(&p, &PodValidationOptions::for_create(&p, &s))
            .into_iter()
            .filter(|e| e.origin.starts_with("ephemeral/"))
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
}
