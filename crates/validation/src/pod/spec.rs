//! Spec validation: `ValidatePodSpec`, `validatePodMetadataAndSpec` (what every create and every
//! update on any path runs on the new Pod) and `ValidatePodCreate`. The options come from
//! [`crate::pod::options`].
//!
//! Upstream: `pkg/apis/core/validation/validation.go`.

use k8s_openapi::api::core::v1::{Container, Pod, PodSpec, SeccompProfile};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::pod::annotations::{
    APPARMOR_CONTAINER_ANNOTATION_PREFIX, SECCOMP_CONTAINER_ANNOTATION_PREFIX, SECCOMP_POD_ANNOTATION,
    validate_pod_specific_annotations,
};
use crate::pod::container::{
    ContainerContext, validate_container_only_for_pod, validate_containers, validate_init_containers,
};
use crate::pod::ephemeral::validate_ephemeral_containers;
use crate::pod::meta::validate_pod_object_meta;
use crate::pod::names::{self, inclusive_range_error, invalid_each};
use crate::pod::options::PodValidationOptions;
use crate::pod::resources::{self, validate_overhead, validate_pod_resource_claims, validate_pod_resources};
use crate::pod::scheduling::{
    validate_affinity, validate_dns_policy, validate_host_aliases, validate_pod_dns_config,
    validate_preemption_policy, validate_readiness_gates, validate_restart_policy, validate_scheduling_gates,
    validate_tolerations, validate_topology_spread_constraints,
};
use crate::pod::security::{
    host_users, validate_host_network_deps, validate_host_users, validate_os, validate_pod_security_context,
    validate_windows_host_process_pod,
};
use crate::pod::util::{items, opt_str};
use crate::pod::volumes::{VolumeContext, validate_volumes};
use podmut_model::field::{ErrorList, FieldError, Path};
use podmut_model::podutil::{spec as spec_of, visit_containers};

/// `ValidatePodSpec`, in upstream's order: the containers and what they refer to, the
/// Pod-wide policies and scheduling, then the remaining fields.
pub(crate) fn validate_pod_spec(
    spec: &PodSpec,
    meta: &ObjectMeta,
    path: &Path,
    opts: &PodValidationOptions,
) -> ErrorList {
    let mut errs = validate_spec_containers(spec, meta, path, opts);
    errs.extend(validate_spec_policies(spec, path, opts));
    errs.extend(validate_spec_fields(spec, path, opts));
    errs
}

/// The first part of `ValidatePodSpec`: grace period, volumes, resource claims, containers (regular,
/// init, ephemeral) and pod-level resources.
fn validate_spec_containers(
    spec: &PodSpec,
    meta: &ObjectMeta,
    path: &Path,
    opts: &PodValidationOptions,
) -> ErrorList {
    let mut errs = ErrorList::new();
    if spec.termination_grace_period_seconds.is_none() {
        errs.push(
            FieldError::required(&path.child("terminationGracePeriodSeconds"), "")
                .with_origin("spec/grace-period-required"),
        );
    }
    let volumes = items(&spec.volumes);
    let volume_ctx = VolumeContext {
        pod_name: opt_str(&meta.name),
        opts,
    };
    let (vols, verrs) = validate_volumes(volumes, &volume_ctx, &path.child("volumes"));
    errs.extend(verrs);
    let claim_names = resources::pod_claim_names(items(&spec.resource_claims));
    errs.extend(validate_pod_resource_claims(
        items(&spec.resource_claims),
        &path.child("resourceClaims"),
    ));
    let restart_policy = opt_str(&spec.restart_policy);
    let ctx = ContainerContext {
        volumes: &vols,
        claim_names: &claim_names,
        grace_period: spec.termination_grace_period_seconds,
        pod_restart_policy: restart_policy,
        host_users: host_users(spec),
        opts,
    };
    errs.extend(validate_containers(
        &spec.containers,
        &ctx,
        &path.child("containers"),
    ));
    errs.extend(validate_init_containers(
        items(&spec.init_containers),
        &spec.containers,
        &ctx,
        opts.sidecar_containers_enabled,
        &path.child("initContainers"),
    ));
    errs.extend(validate_ephemeral_containers(
        spec,
        &ctx,
        &path.child("ephemeralContainers"),
    ));
    if opts.pod_level_resources_enabled {
        errs.extend(validate_pod_resources(
            spec,
            &claim_names,
            &path.child("resources"),
            opts,
        ));
    }
    errs
}

/// `ValidatePodSpec` continued: host network, restart and DNS policy, node selector, security
/// context, affinity, DNS config, readiness and scheduling gates, topology spread, Windows
/// HostProcess and user namespaces.
fn validate_spec_policies(spec: &PodSpec, path: &Path, opts: &PodValidationOptions) -> ErrorList {
    let mut errs = ErrorList::new();
    let dns_policy = opt_str(&spec.dns_policy);
    errs.extend(validate_host_network_deps(spec, path, !opts.template));
    errs.extend(validate_restart_policy(
        opt_str(&spec.restart_policy),
        &path.child("restartPolicy"),
    ));
    errs.extend(validate_dns_policy(dns_policy, &path.child("dnsPolicy")));
    errs.extend(names::validate_labels(
        spec.node_selector.as_ref(),
        &path.child("nodeSelector"),
    ));
    errs.extend(validate_pod_security_context(
        spec,
        &path.child("securityContext"),
        opts,
    ));
    if opts.release >= 37 {
        errs.extend(crate::pod::security::validate_share_process_namespace(
            spec,
            &path.child("shareProcessNamespace"),
        ));
    }
    errs.extend(validate_affinity(
        spec.affinity.as_ref(),
        opts,
        &path.child("affinity"),
    ));
    errs.extend(validate_pod_dns_config(
        spec.dns_config.as_ref(),
        dns_policy,
        opts.allow_relaxed_dns_search_validation,
        opts.strict_ip,
        &path.child("dnsConfig"),
    ));
    errs.extend(validate_readiness_gates(
        items(&spec.readiness_gates),
        &path.child("readinessGates"),
    ));
    errs.extend(validate_scheduling_gates(
        items(&spec.scheduling_gates),
        &path.child("schedulingGates"),
    ));
    errs.extend(validate_topology_spread_constraints(
        items(&spec.topology_spread_constraints),
        opts.allow_invalid_topology_spread_constraint_label_selector,
        &path.child("topologySpreadConstraints"),
    ));
    errs.extend(validate_windows_host_process_pod(spec, path, opts));
    errs.extend(validate_host_users(spec, path, opts));
    errs
}

/// The rest of `ValidatePodSpec`: names, activeDeadlineSeconds, hostname and subdomain,
/// tolerations, host aliases, priority and runtime class, preemption policy, overhead and OS.
fn validate_spec_fields(spec: &PodSpec, path: &Path, opts: &PodValidationOptions) -> ErrorList {
    let mut errs = ErrorList::new();
    for (field, value) in [
        ("serviceAccountName", opt_str(&spec.service_account_name)),
        ("nodeName", opt_str(&spec.node_name)),
    ] {
        if !value.is_empty() {
            errs.extend(invalid_each(
                &path.child(field),
                value,
                names::name_is_dns_subdomain(value, false),
                "spec/name-format",
            ));
        }
    }
    if let Some(ads) = spec.active_deadline_seconds
        && !(1..=i64::from(i32::MAX)).contains(&ads)
    {
        errs.push(
            FieldError::invalid(
                &path.child("activeDeadlineSeconds"),
                ads,
                inclusive_range_error(1, i64::from(i32::MAX)),
            )
            .with_origin("spec/active-deadline-range"),
        );
    }
    for (field, value) in [
        ("hostname", opt_str(&spec.hostname)),
        ("subdomain", opt_str(&spec.subdomain)),
    ] {
        if !value.is_empty() {
            errs.extend(names::validate_dns1123_label(value, &path.child(field)));
        }
    }
    let tolerations = items(&spec.tolerations);
    if !tolerations.is_empty() {
        errs.extend(validate_tolerations(tolerations, &path.child("tolerations")));
    }
    let aliases = items(&spec.host_aliases);
    if !aliases.is_empty() {
        errs.extend(validate_host_aliases(
            aliases,
            &path.child("hostAliases"),
            opts.strict_ip,
        ));
    }
    let priority_class = opt_str(&spec.priority_class_name);
    if !priority_class.is_empty() {
        errs.extend(invalid_each(
            &path.child("priorityClassName"),
            priority_class,
            names::name_is_dns_subdomain(priority_class, false),
            "spec/name-format",
        ));
    }
    if let Some(rc) = &spec.runtime_class_name {
        errs.extend(invalid_each(
            &path.child("runtimeClassName"),
            rc,
            names::name_is_dns_subdomain(rc, false),
            "spec/name-format",
        ));
    }
    if let Some(pp) = &spec.preemption_policy {
        errs.extend(validate_preemption_policy(pp, &path.child("preemptionPolicy")));
    }
    if let Some(overhead) = &spec.overhead {
        errs.extend(validate_overhead(overhead, &path.child("overhead"), opts));
    }
    errs.extend(validate_os(spec, path, opts.release));
    errs
}

/// `validatePodMetadataAndSpec(pod, opts)`: the full validation every create and every update (on
/// any path) runs on the new Pod: ObjectMeta, Pod annotations, `ValidatePodSpec` and the Pod-only
/// container checks.
pub(crate) fn validate_pod_metadata_and_spec(pod: &Pod, opts: &PodValidationOptions) -> ErrorList {
    let meta_path = Path::new("metadata");
    let spec_path = Path::new("spec");
    let spec = spec_of(pod);
    let mut errs = validate_pod_object_meta(
        &pod.metadata,
        &meta_path,
        opts.request_fills_metadata,
        opts.release,
    );
    errs.extend(validate_pod_specific_annotations(
        pod.metadata.annotations.as_ref(),
        &spec,
        &meta_path.child("annotations"),
        opts,
    ));
    errs.extend(validate_pod_spec(&spec, &pod.metadata, &spec_path, opts));
    if opt_str(&spec.service_account_name).is_empty() {
        for (vi, v) in items(&spec.volumes).iter().enumerate() {
            let Some(projected) = &v.projected else { continue };
            for (si, source) in items(&projected.sources).iter().enumerate() {
                if source.service_account_token.is_some() {
                    errs.push(
                        FieldError::forbidden(
                            &spec_path
                                .child("volumes")
                                .index(vi)
                                .child("projected")
                                .child("sources")
                                .index(si)
                                .child("serviceAccountToken"),
                            "must not be specified when serviceAccountName is not set",
                        )
                        .with_origin("volume/token-needs-service-account"),
                    );
                }
            }
        }
    }
    for (list, field) in [
        (&spec.containers[..], "containers"),
        (items(&spec.init_containers), "initContainers"),
    ] {
        for (i, c) in list.iter().enumerate() {
            errs.extend(validate_container_only_for_pod(
                c,
                &spec_path.child(field).index(i),
            ));
        }
    }
    errs
}

/// `validateSeccompAnnotationsAndFieldsMatch`.
fn seccomp_annotation_matches(annotation: &str, field: &SeccompProfile, path: &Path) -> Option<FieldError> {
    let mismatch_type = || {
        Some(
            FieldError::forbidden(
                &path.child("type"),
                "seccomp type in annotation and field must match",
            )
            .with_origin("create/seccomp-annotation-match"),
        )
    };
    match field.type_.as_str() {
        "Unconfined" if annotation != "unconfined" => mismatch_type(),
        "RuntimeDefault" if annotation != "runtime/default" && annotation != "docker/default" => {
            mismatch_type()
        }
        "Localhost" => match annotation.strip_prefix("localhost/") {
            None => mismatch_type(),
            Some(p) if field.localhost_profile.as_deref() != Some(p) => Some(
                FieldError::forbidden(
                    &path.child("localhostProfile"),
                    "seccomp profile in annotation and field must match",
                )
                .with_origin("create/seccomp-annotation-match"),
            ),
            Some(_) => None,
        },
        _ => None,
    }
}

/// `validateSeccompAnnotationsAndFields` and `validateAppArmorAnnotationsAndFieldsMatchOnCreate`.
fn validate_security_annotations_match_fields(pod: &Pod, spec: &PodSpec, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let empty = std::collections::BTreeMap::new();
    let annotations = pod.metadata.annotations.as_ref().unwrap_or(&empty);
    if let (Some(sp), Some(a)) = (
        spec.security_context
            .as_ref()
            .and_then(|s| s.seccomp_profile.as_ref()),
        annotations.get(SECCOMP_POD_ANNOTATION),
    ) {
        errs.extend(seccomp_annotation_matches(
            a,
            sp,
            &path.child("securityContext").child("seccompProfile"),
        ));
    }
    visit_containers(spec, path, |c: &Container, cp: &Path| {
        let Some(sp) = c
            .security_context
            .as_ref()
            .and_then(|s| s.seccomp_profile.as_ref())
        else {
            return;
        };
        if let Some(a) = annotations.get(&format!("{SECCOMP_CONTAINER_ANNOTATION_PREFIX}{}", c.name)) {
            errs.extend(seccomp_annotation_matches(
                a,
                sp,
                &cp.child("securityContext").child("seccompProfile"),
            ));
        }
    });
    if spec.os.as_ref().is_some_and(|o| o.name == "windows") {
        return errs;
    }
    let pod_profile = spec
        .security_context
        .as_ref()
        .and_then(|s| s.app_armor_profile.as_ref());
    visit_containers(spec, path, |c: &Container, cp: &Path| {
        let Some(profile) = c
            .security_context
            .as_ref()
            .and_then(|s| s.app_armor_profile.as_ref())
            .or(pod_profile)
        else {
            return;
        };
        let Some(a) = annotations.get(&format!("{APPARMOR_CONTAINER_ANNOTATION_PREFIX}{}", c.name)) else {
            return;
        };
        let ap = cp.child("securityContext").child("appArmorProfile");
        let type_mismatch = || {
            FieldError::forbidden(
                &ap.child("type"),
                "apparmor type in annotation and field must match",
            )
            .with_origin("create/apparmor-annotation-match")
        };
        match profile.type_.as_str() {
            "Unconfined" if a != "unconfined" => errs.push(type_mismatch()),
            "RuntimeDefault" if a != "runtime/default" => errs.push(type_mismatch()),
            "Localhost" => match a.strip_prefix("localhost/") {
                None => errs.push(type_mismatch()),
                Some(p) if profile.localhost_profile.as_deref() != Some(p) => errs.push(
                    FieldError::forbidden(
                        &ap.child("localhostProfile"),
                        "apparmor profile in annotation and field must match",
                    )
                    .with_origin("create/apparmor-annotation-match"),
                ),
                Some(_) => {}
            },
            _ => {}
        }
    });
    errs
}

/// `ValidatePodTemplateSpec`: a workload's Pod template at `path` (`spec.template`), given as the
/// Pod its metadata and spec make. Upstream reports the template's labels and annotations at
/// `path.labels` and `path.annotations` (not under `metadata`), and refuses ephemeral containers.
pub(crate) fn validate_pod_template_spec(
    template: &Pod,
    path: &Path,
    opts: &PodValidationOptions,
) -> ErrorList {
    let meta = &template.metadata;
    let spec = spec_of(template);
    let mut errs = names::validate_labels(meta.labels.as_ref(), &path.child("labels"));
    errs.extend(names::validate_annotations(
        meta.annotations.as_ref(),
        &path.child("annotations"),
    ));
    errs.extend(validate_pod_specific_annotations(
        meta.annotations.as_ref(),
        &spec,
        &path.child("annotations"),
        opts,
    ));
    let spec_path = path.child("spec");
    errs.extend(validate_pod_spec(&spec, &ObjectMeta::default(), &spec_path, opts));
    errs.extend(validate_security_annotations_match_fields(
        template, &spec, &spec_path,
    ));
    if !items(&spec.ephemeral_containers).is_empty() {
        errs.push(
            FieldError::forbidden(
                &spec_path.child("ephemeralContainers"),
                "ephemeral containers not allowed in pod template",
            )
            .with_origin("workload/template-ephemeral-containers"),
        );
    }
    errs
}

/// Validate a Pod create (`ValidatePodCreate`): the full metadata and spec validation, no
/// ephemeral containers, no `nodeName` while scheduling gates remain, and the deprecated seccomp /
/// AppArmor annotations must agree with the fields.
pub(crate) fn validate_pod_create(pod: &Pod, opts: &PodValidationOptions) -> ErrorList {
    let mut errs = validate_pod_metadata_and_spec(pod, opts);
    let spec = spec_of(pod);
    let spec_path = Path::new("spec");
    if spec.ephemeral_containers.as_ref().is_some_and(|e| !e.is_empty()) {
        errs.push(
            FieldError::forbidden(&spec_path.child("ephemeralContainers"), "cannot be set on create")
                .with_origin("create/no-ephemeral-containers"),
        );
    }
    if !opt_str(&spec.node_name).is_empty() && !items(&spec.scheduling_gates).is_empty() {
        errs.push(
            FieldError::forbidden(
                &spec_path.child("nodeName"),
                "cannot be set until all schedulingGates have been cleared",
            )
            .with_origin("create/node-name-gated"),
        );
    }
    errs.extend(validate_security_annotations_match_fields(pod, &spec, &spec_path));
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pod::util::{Want, summary, wanted};
    use podmut_model::document::parse_pod;
    use podmut_model::field::ErrorType;
    use podmut_model::settings::Settings;

    /// upstream `MakePod("pod")` (non-defaulted), with extra spec YAML merged in.
    fn make_pod(extra_spec: &str) -> Pod {
        let yaml = format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: pod, namespace: default}}\nspec:\n  dnsPolicy: ClusterFirst\n  restartPolicy: Always\n  terminationGracePeriodSeconds: 30\n  containers: [{{name: ctr, image: image, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File, terminationMessagePath: /dev/termination-log}}]\n{extra_spec}"
        );
        parse_pod(&yaml, "pod", 1 << 20).unwrap()
    }

    fn create(pod: &Pod) -> ErrorList {
        let mut settings = Settings::default();
        settings.apply_defaults = false;
        validate_pod_create(pod, &PodValidationOptions::for_create(pod, &settings))
    }

    #[test]
    fn make_pod_is_valid() {
        assert_eq!(summary(&create(&make_pod(""))), vec![]);
    }

    /// Cases translated from upstream `TestValidatePodSpec` / `TestValidatePod` error tables.
    #[test]
    fn pod_spec_cases() {
        let cases: &[(&str, &str, &[Want])] = &[
            (
                "bad active deadline seconds",
                "  activeDeadlineSeconds: 0\n",
                &[(
                    ErrorType::Invalid,
                    "spec.activeDeadlineSeconds",
                    "spec/active-deadline-range",
                )],
            ),
            (
                "bad restart policy",
                "  restartPolicy: UnknowPolicy\n",
                &[(
                    ErrorType::NotSupported,
                    "spec.restartPolicy",
                    "spec/restart-policy",
                )],
            ),
            (
                "bad dns policy",
                "  dnsPolicy: invalid\n",
                &[(ErrorType::NotSupported, "spec.dnsPolicy", "spec/dns-policy")],
            ),
            (
                "bad service account name",
                "  serviceAccountName: invalidName\n",
                &[(ErrorType::Invalid, "spec.serviceAccountName", "spec/name-format")],
            ),
            (
                "bad hostname",
                "  hostname: Bad.Host\n",
                &[(ErrorType::Invalid, "spec.hostname", "format/dns-label")],
            ),
            (
                "bad priority class name",
                "  priorityClassName: InvalidName\n",
                &[(ErrorType::Invalid, "spec.priorityClassName", "spec/name-format")],
            ),
            (
                "bad preemption policy",
                "  preemptionPolicy: Other\n",
                &[(
                    ErrorType::NotSupported,
                    "spec.preemptionPolicy",
                    "spec/preemption-policy",
                )],
            ),
            (
                "hostNetwork port mismatch",
                "  hostNetwork: true\n  containers: [{name: ctr, image: image, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File, ports: [{containerPort: 80, hostPort: 8080, protocol: TCP}]}]\n",
                &[(
                    ErrorType::Invalid,
                    "spec.containers[0].ports[0].hostPort",
                    "spec/host-network-ports",
                )],
            ),
            (
                "duplicate scheduling gates",
                "  schedulingGates: [{name: a}, {name: a}]\n",
                &[(
                    ErrorType::Duplicate,
                    "spec.schedulingGates[1]",
                    "scheduling/gate-duplicate",
                )],
            ),
            (
                "no containers",
                "  containers: []\n",
                &[(ErrorType::Required, "spec.containers", "spec/containers-required")],
            ),
        ];
        for (name, extra, want) in cases {
            let pod = override_spec(extra);
            let want = wanted(want);
            assert_eq!(summary(&create(&pod)), want, "{name}");
        }
    }

    fn override_spec(extra: &str) -> Pod {
        let mut base = serde_json::to_value(make_pod("")).unwrap();
        let dedented: Vec<&str> = extra.lines().map(|l| l.strip_prefix("  ").unwrap_or(l)).collect();
        let overrides: serde_json::Value = serde_yaml_ng::from_str(&dedented.join("\n")).unwrap();
        if let (Some(spec), Some(o)) = (
            base.pointer_mut("/spec").and_then(|s| s.as_object_mut()),
            overrides.as_object(),
        ) {
            for (k, v) in o {
                spec.insert(k.clone(), v.clone());
            }
        }
        serde_json::from_value(base).unwrap()
    }

    #[test]
    fn create_only_rules() {
        let pod = override_spec("  nodeName: node1\n  schedulingGates: [{name: foo}]\n");
        assert_eq!(
            summary(&create(&pod)),
            vec![(
                ErrorType::Forbidden,
                "spec.nodeName".to_owned(),
                "create/node-name-gated"
            )]
        );
    }
}
