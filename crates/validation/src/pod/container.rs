//! Container rules: `validateContainers`, `validateInitContainers`, `validateContainerCommon`
//! (name, image, termination message policy, ports, env, envFrom, volume mounts and devices,
//! pull policy, resources, resize policy, security context), host-port conflicts and the Pod-only
//! image whitespace check.
//!
//! Upstream: `pkg/apis/core/validation/validation.go`.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{
    Container, ContainerPort, EnvFromSource, EnvVar, VolumeDevice, VolumeMount,
};

use crate::pod::images::validate_pull_policy;
use crate::pod::names::{self, invalid_each};
use crate::pod::options::PodValidationOptions;
use crate::pod::probes::{ProbeKind, validate_lifecycle, validate_probe_of_kind};
use crate::pod::resources::{validate_container_resources, validate_resize_policy};
use crate::pod::restart_rules::{validate_init_container_restart_policy, validate_regular_restart_policy};
use crate::pod::security::validate_security_context;
use crate::pod::util::{items, opt_str};
use crate::pod::volumes::{
    ENV_FIELD_PATHS, VolumeMap, validate_container_resource_field_selector, validate_local_descending_path,
    validate_object_field_selector, validate_path_no_backsteps,
};
use podmut_model::field::{ErrorList, FieldError, Path};

/// The Pod-wide context every container check needs.
#[derive(Debug)]
pub(crate) struct ContainerContext<'a> {
    /// The volumes that validated, by name.
    pub(crate) volumes: &'a VolumeMap<'a>,
    /// `spec.resourceClaims` names.
    pub(crate) claim_names: &'a BTreeSet<String>,
    /// `spec.terminationGracePeriodSeconds`.
    pub(crate) grace_period: Option<i64>,
    /// `spec.restartPolicy`.
    pub(crate) pod_restart_policy: &'a str,
    /// `hostUsers` unset or true.
    pub(crate) host_users: bool,
    /// The validation options.
    pub(crate) opts: &'a PodValidationOptions,
}

/// `validateContainerPorts`.
fn validate_ports(ports: &[ContainerPort], path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut names_seen = BTreeSet::new();
    for (i, port) in ports.iter().enumerate() {
        let p = path.index(i);
        let name = opt_str(&port.name);
        if !name.is_empty() {
            let msgs = names::is_valid_port_name(name);
            if !msgs.is_empty() {
                errs.extend(invalid_each(&p.child("name"), name, msgs, "container/port-name"));
            } else if !names_seen.insert(name) {
                errs.push(FieldError::duplicate(&p.child("name"), name).with_origin("container/port-name"));
            }
        }
        if port.container_port == 0 {
            errs.push(
                FieldError::required(&p.child("containerPort"), "").with_origin("container/port-number"),
            );
        } else {
            for m in names::is_valid_port_num(i64::from(port.container_port)) {
                errs.push(
                    FieldError::invalid(&p.child("containerPort"), port.container_port, m)
                        .with_origin("container/port-number"),
                );
            }
        }
        let host_port = port.host_port.unwrap_or(0);
        if host_port != 0 {
            for m in names::is_valid_port_num(i64::from(host_port)) {
                errs.push(
                    FieldError::invalid(&p.child("hostPort"), host_port, m)
                        .with_origin("container/port-number"),
                );
            }
        }
        match opt_str(&port.protocol) {
            "" => errs
                .push(FieldError::required(&p.child("protocol"), "").with_origin("container/port-protocol")),
            "TCP" | "UDP" | "SCTP" => {}
            other => errs.push(
                FieldError::not_supported(&p.child("protocol"), other, &["SCTP", "TCP", "UDP"])
                    .with_origin("container/port-protocol"),
            ),
        }
    }
    errs
}

/// `AccumulateUniqueHostPorts` / `checkHostPortConflicts`: the same protocol/hostIP/hostPort
/// twice is `Duplicate` at the later `ports[j].hostPort`.
pub(crate) fn check_host_port_conflicts<'a>(
    containers: impl Iterator<Item = &'a Container>,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut seen = BTreeSet::new();
    for (ci, c) in containers.enumerate() {
        for (pi, port) in items(&c.ports).iter().enumerate() {
            let hp = port.host_port.unwrap_or(0);
            if hp == 0 {
                continue;
            }
            let key = format!("{}/{}/{hp}", opt_str(&port.protocol), opt_str(&port.host_ip));
            if seen.contains(&key) {
                errs.push(
                    FieldError::duplicate(&path.index(ci).child("ports").index(pi).child("hostPort"), key)
                        .with_origin("container/host-port-duplicate"),
                );
            } else {
                seen.insert(key);
            }
        }
    }
    errs
}

/// The env var name rule `AllowRelaxedEnvironmentVariableValidation` picks: any printable ASCII
/// except `=` when relaxed, else the C-identifier-like strict grammar.
fn env_var_name_errors(name: &str, relaxed: bool) -> Vec<String> {
    if relaxed {
        names::is_relaxed_env_var_name(name)
    } else {
        names::is_env_var_name(name)
    }
}

/// `ValidateEnv`; `relaxed` is `AllowRelaxedEnvironmentVariableValidation`.
fn validate_env(vars: &[EnvVar], relaxed: bool, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    for (i, ev) in vars.iter().enumerate() {
        let p = path.index(i);
        if ev.name.is_empty() {
            errs.push(FieldError::required(&p.child("name"), "").with_origin("container/env-name"));
        } else {
            errs.extend(invalid_each(
                &p.child("name"),
                &ev.name,
                env_var_name_errors(&ev.name, relaxed),
                "container/env-name",
            ));
        }
        errs.extend(validate_env_value_from(ev, &p.child("valueFrom")));
    }
    errs
}

/// `validateEnvVarValueFrom`: exactly one source, and not together with `value`.
fn validate_env_value_from(ev: &EnvVar, path: &Path) -> ErrorList {
    let Some(vf) = &ev.value_from else {
        return ErrorList::new();
    };
    let mut errs = ErrorList::new();
    let mut num = 0;
    if let Some(f) = &vf.field_ref {
        num += 1;
        errs.extend(validate_object_field_selector(
            f,
            ENV_FIELD_PATHS,
            &path.child("fieldRef"),
        ));
    }
    if let Some(r) = &vf.resource_field_ref {
        num += 1;
        errs.extend(validate_container_resource_field_selector(
            r,
            &path.child("resourceFieldRef"),
            false,
        ));
    }
    for (field, sel) in [
        (
            "configMapKeyRef",
            vf.config_map_key_ref.as_ref().map(|s| (&s.name, &s.key)),
        ),
        (
            "secretKeyRef",
            vf.secret_key_ref.as_ref().map(|s| (&s.name, &s.key)),
        ),
    ] {
        let Some((name, key)) = sel else { continue };
        num += 1;
        let p = path.child(field);
        errs.extend(invalid_each(
            &p.child("name"),
            name,
            names::name_is_dns_subdomain(name, false),
            "container/env-key-selector",
        ));
        if key.is_empty() {
            errs.push(FieldError::required(&p.child("key"), "").with_origin("container/env-key-selector"));
        } else {
            errs.extend(invalid_each(
                &p.child("key"),
                key,
                names::is_config_map_key(key),
                "container/env-key-selector",
            ));
        }
    }
    if num > 0 && !opt_str(&ev.value).is_empty() {
        errs.push(
            FieldError::invalid(path, "", "may not be specified when `value` is not empty")
                .with_origin("container/env-value-from"),
        );
    } else {
        errs.extend(exactly_one_source(
            num,
            path,
            "`fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
            "container/env-value-from",
        ));
    }
    errs
}

/// Exactly one of a set of source fields, given how many are set: "must specify one of: {fields}"
/// when none, "may not have more than one field specified at a time" when several (upstream's
/// `validateEnvVarValueFrom` and `ValidateEnvFrom` both report it at the item's parent path).
fn exactly_one_source(num: usize, path: &Path, fields: &str, origin: &'static str) -> Option<FieldError> {
    let detail = match num {
        0 => format!("must specify one of: {fields}"),
        1 => return None,
        _ => "may not have more than one field specified at a time".to_owned(),
    };
    Some(FieldError::invalid(path, "", detail).with_origin(origin))
}

/// `ValidateEnvFrom`; `relaxed` is `AllowRelaxedEnvironmentVariableValidation`.
fn validate_env_from(sources: &[EnvFromSource], relaxed: bool, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    for (i, ev) in sources.iter().enumerate() {
        let p = path.index(i);
        let prefix = opt_str(&ev.prefix);
        if !prefix.is_empty() {
            errs.extend(invalid_each(
                &p.child("prefix"),
                prefix,
                env_var_name_errors(prefix, relaxed),
                "container/env-from-prefix",
            ));
        }
        let mut num = 0;
        for (field, name) in [
            ("configMapRef", ev.config_map_ref.as_ref().map(|r| &r.name)),
            ("secretRef", ev.secret_ref.as_ref().map(|r| &r.name)),
        ] {
            let Some(name) = name else { continue };
            num += 1;
            let np = p.child(field).child("name");
            if name.is_empty() {
                errs.push(FieldError::required(&np, "").with_origin("container/env-from-name"));
            } else {
                errs.extend(invalid_each(
                    &np,
                    name,
                    names::name_is_dns_subdomain(name, true),
                    "container/env-from-name",
                ));
            }
        }
        errs.extend(exactly_one_source(
            num,
            path,
            "`configMapRef` or `secretRef`",
            "container/env-from-source",
        ));
    }
    errs
}

/// The rule both `ValidateVolumeMounts` and `ValidateVolumeDevices` apply from their side: a mount
/// and a device may not use the same volume, nor the same path. `item` is this side's (volume name,
/// path), `others` the other side's volume names and paths, `at` this item's path, the name of its
/// path field and the other list's name.
fn mount_device_overlap(
    (name, item_path): (&str, &str),
    others: &BTreeMap<&str, &str>,
    (at, path_field, other_list): (&Path, &'static str, &str),
    origin: &'static str,
) -> ErrorList {
    let mut errs = ErrorList::new();
    if others.contains_key(name) {
        errs.push(
            FieldError::invalid(
                &at.child("name"),
                name,
                format!("must not already exist in {other_list}"),
            )
            .with_origin(origin),
        );
    }
    if others.values().any(|o| *o == item_path) {
        errs.push(
            FieldError::invalid(
                &at.child(path_field),
                item_path,
                format!("must not already exist as a path in {other_list}"),
            )
            .with_origin(origin),
        );
    }
    errs
}

/// `ValidateVolumeMounts` (upstream reports subPath, subPathExpr, mountPropagation and
/// recursiveReadOnly problems at the un-indexed list path; kept).
fn validate_volume_mounts(
    mounts: &[VolumeMount],
    devices: &BTreeMap<&str, &str>,
    c: &Container,
    ctx: &ContainerContext<'_>,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut mount_points = BTreeSet::new();
    for (i, m) in mounts.iter().enumerate() {
        let p = path.index(i);
        if m.name.is_empty() {
            errs.push(FieldError::required(&p.child("name"), "").with_origin("container/volume-mount"));
        }
        let volume = ctx.volumes.get(m.name.as_str());
        if volume.is_none() {
            errs.push(
                FieldError::not_found(&p.child("name"), m.name.as_str())
                    .with_origin("container/volume-mount-not-found"),
            );
        }
        if m.mount_path.is_empty() {
            errs.push(FieldError::required(&p.child("mountPath"), "").with_origin("container/volume-mount"));
        }
        if !mount_points.insert(m.mount_path.as_str()) {
            errs.push(
                FieldError::invalid(&p.child("mountPath"), m.mount_path.as_str(), "must be unique")
                    .with_origin("container/volume-mount"),
            );
        }
        errs.extend(mount_device_overlap(
            (&m.name, &m.mount_path),
            devices,
            (&p, "mountPath", "volumeDevices"),
            "container/volume-mount",
        ));
        let sub_path = opt_str(&m.sub_path);
        let sub_path_expr = opt_str(&m.sub_path_expr);
        if volume.is_some_and(|v| v.image.is_some()) {
            for (field, value) in [("subPath", sub_path), ("subPathExpr", sub_path_expr)] {
                if !value.is_empty() {
                    errs.push(
                        FieldError::invalid(&p.child(field), value, "not allowed in image volume sources")
                            .with_origin("container/volume-mount"),
                    );
                }
            }
        }
        if !sub_path.is_empty() {
            errs.extend(validate_local_descending_path(sub_path, &path.child("subPath")));
        }
        if !sub_path_expr.is_empty() {
            if !sub_path.is_empty() {
                errs.push(
                    FieldError::invalid(
                        &p.child("subPathExpr"),
                        sub_path_expr,
                        "subPathExpr and subPath are mutually exclusive",
                    )
                    .with_origin("container/volume-mount"),
                );
            }
            errs.extend(validate_local_descending_path(
                sub_path_expr,
                &path.child("subPathExpr"),
            ));
        }
        if let Some(prop) = &m.mount_propagation {
            let pp = path.child("mountPropagation");
            if !matches!(prop.as_str(), "Bidirectional" | "HostToContainer" | "None") {
                errs.push(
                    FieldError::not_supported(
                        &pp,
                        prop.as_str(),
                        &["Bidirectional", "HostToContainer", "None"],
                    )
                    .with_origin("container/mount-propagation"),
                );
            }
            let privileged = c.security_context.as_ref().and_then(|s| s.privileged) == Some(true);
            if prop == "Bidirectional" && !privileged {
                errs.push(
                    FieldError::forbidden(
                        &pp,
                        "Bidirectional mount propagation is available only to privileged containers",
                    )
                    .with_origin("container/mount-propagation"),
                );
            }
        }
        if let Some(rro) = &m.recursive_read_only {
            let rp = path.child("recursiveReadOnly");
            match rro.as_str() {
                "Disabled" => {}
                "Enabled" | "IfPossible" => {
                    if m.read_only != Some(true) {
                        errs.push(
                            FieldError::forbidden(&rp, "may only be specified when readOnly is true")
                                .with_origin("container/recursive-read-only"),
                        );
                    }
                    if m.mount_propagation.as_deref().is_some_and(|p| p != "None") {
                        errs.push(
                            FieldError::forbidden(
                                &rp,
                                "may only be specified when mountPropagation is None or not specified",
                            )
                            .with_origin("container/recursive-read-only"),
                        );
                    }
                }
                other => errs.push(
                    FieldError::not_supported(&rp, other, &["Disabled", "Enabled", "IfPossible"])
                        .with_origin("container/recursive-read-only"),
                ),
            }
        }
    }
    errs
}

/// `ValidateVolumeDevices`: block devices come from PVC or generic ephemeral volumes.
fn validate_volume_devices(
    devices: &[VolumeDevice],
    mounts: &BTreeMap<&str, &str>,
    ctx: &ContainerContext<'_>,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut device_paths = BTreeSet::new();
    let mut device_names = BTreeSet::new();
    for (i, d) in devices.iter().enumerate() {
        let p = path.index(i);
        let volume = ctx.volumes.get(d.name.as_str());
        let is_pvc = volume.is_some_and(|v| v.persistent_volume_claim.is_some() || v.ephemeral.is_some());
        if d.name.is_empty() {
            errs.push(FieldError::required(&p.child("name"), "").with_origin("container/volume-device"));
        }
        if device_names.contains(d.name.as_str()) {
            errs.push(
                FieldError::invalid(&p.child("name"), d.name.as_str(), "must be unique")
                    .with_origin("container/volume-device"),
            );
        }
        if volume.is_some() && !is_pvc {
            errs.push(
                FieldError::invalid(
                    &p.child("name"),
                    d.name.as_str(),
                    "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode",
                )
                .with_origin("container/volume-device"),
            );
        }
        if volume.is_none() {
            errs.push(
                FieldError::not_found(&p.child("name"), d.name.as_str())
                    .with_origin("container/volume-device-not-found"),
            );
        }
        if d.device_path.is_empty() {
            errs.push(
                FieldError::required(&p.child("devicePath"), "").with_origin("container/volume-device"),
            );
        }
        if device_paths.contains(d.device_path.as_str()) {
            errs.push(
                FieldError::invalid(&p.child("devicePath"), d.device_path.as_str(), "must be unique")
                    .with_origin("container/volume-device"),
            );
        }
        if !d.device_path.is_empty()
            && !validate_path_no_backsteps(&d.device_path, &path.child("devicePath")).is_empty()
        {
            errs.push(
                FieldError::invalid(
                    &p.child("devicePath"),
                    d.device_path.as_str(),
                    "can not contain backsteps ('..')",
                )
                .with_origin("container/volume-device"),
            );
        } else {
            device_paths.insert(d.device_path.as_str());
        }
        errs.extend(mount_device_overlap(
            (&d.name, &d.device_path),
            mounts,
            (&p, "devicePath", "volumeMounts"),
            "container/volume-device",
        ));
        if !d.name.is_empty() {
            device_names.insert(d.name.as_str());
        }
    }
    errs
}

/// One list's (volume name, path) pairs, which only the other list's overlap checks look up: built
/// only when that list has items (`needed`), else empty without allocating.
fn overlap_map<'a>(
    needed: bool,
    pairs: impl Iterator<Item = (&'a str, &'a str)>,
) -> BTreeMap<&'a str, &'a str> {
    if needed {
        podmut_model::order::map_from(pairs)
    } else {
        BTreeMap::new()
    }
}

/// `validateContainerCommon`: what regular, init and ephemeral containers share.
pub(crate) fn validate_container_common(c: &Container, ctx: &ContainerContext<'_>, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let name_path = path.child("name");
    if c.name.is_empty() {
        errs.push(FieldError::required(&name_path, "").with_origin("container/name-required"));
    } else {
        errs.extend(invalid_each(
            &name_path,
            &c.name,
            names::is_dns1123_label(&c.name),
            "container/name-format",
        ));
    }
    if opt_str(&c.image).is_empty() {
        errs.push(FieldError::required(&path.child("image"), "").with_origin("container/image-required"));
    }
    match opt_str(&c.termination_message_policy) {
        "File" | "FallbackToLogsOnError" => {}
        "" => errs.push(
            FieldError::required(&path.child("terminationMessagePolicy"), "")
                .with_origin("container/termination-message-policy"),
        ),
        other => errs.push(
            FieldError::not_supported(
                &path.child("terminationMessagePolicy"),
                other,
                &["File", "FallbackToLogsOnError"],
            )
            .with_origin("container/termination-message-policy"),
        ),
    }
    let (mount_list, device_list) = (items(&c.volume_mounts), items(&c.volume_devices));
    let mounts = overlap_map(
        !device_list.is_empty(),
        mount_list
            .iter()
            .map(|m| (m.name.as_str(), m.mount_path.as_str())),
    );
    let devices = overlap_map(
        !mount_list.is_empty(),
        device_list
            .iter()
            .map(|d| (d.name.as_str(), d.device_path.as_str())),
    );
    errs.extend(validate_ports(items(&c.ports), &path.child("ports")));
    let relaxed = ctx.opts.allow_relaxed_environment_variable_validation;
    errs.extend(validate_env(items(&c.env), relaxed, &path.child("env")));
    errs.extend(validate_env_from(
        items(&c.env_from),
        relaxed,
        &path.child("envFrom"),
    ));
    errs.extend(validate_volume_mounts(
        mount_list,
        &devices,
        c,
        ctx,
        &path.child("volumeMounts"),
    ));
    errs.extend(validate_volume_devices(
        device_list,
        &mounts,
        ctx,
        &path.child("volumeDevices"),
    ));
    errs.extend(validate_pull_policy(
        opt_str(&c.image_pull_policy),
        &path.child("imagePullPolicy"),
    ));
    errs.extend(validate_container_resources(
        c.resources.as_ref(),
        ctx.claim_names,
        &path.child("resources"),
        ctx.opts,
    ));
    errs.extend(validate_resize_policy(
        items(&c.resize_policy),
        &path.child("resizePolicy"),
        ctx.pod_restart_policy,
        ctx.opts.release,
    ));
    errs.extend(validate_security_context(
        c.security_context.as_ref(),
        &path.child("securityContext"),
        ctx.host_users,
        ctx.opts,
    ));
    errs
}

/// `validateContainerOnlyForPod`: a Pod's container image may not have surrounding whitespace.
pub(crate) fn validate_container_only_for_pod(c: &Container, path: &Path) -> ErrorList {
    let image = opt_str(&c.image);
    if image.trim().len() == image.len() {
        return ErrorList::new();
    }
    vec![
        FieldError::invalid(
            &path.child("image"),
            image,
            "must not have leading or trailing whitespace",
        )
        .with_origin("container/image-whitespace"),
    ]
}

fn validate_probes_and_lifecycle(c: &Container, ctx: &ContainerContext<'_>, path: &Path) -> ErrorList {
    let grace = ctx.grace_period;
    let mut errs = ErrorList::new();
    if let Some(l) = &c.lifecycle {
        errs.extend(validate_lifecycle(
            l,
            grace,
            ctx.opts.allow_pod_lifecycle_sleep_action_zero_value,
            &path.child("lifecycle"),
        ));
    }
    for kind in ProbeKind::ALL {
        errs.extend(validate_probe_of_kind(
            kind,
            kind.of(c),
            grace,
            &path.child(kind.field()),
        ));
    }
    errs
}

/// `validateContainers`: the list is required; common checks; unique names; lifecycle and probes;
/// the container's restart policy and rules; host ports unique across the list.
pub(crate) fn validate_containers(
    containers: &[Container],
    ctx: &ContainerContext<'_>,
    path: &Path,
) -> ErrorList {
    if containers.is_empty() {
        return vec![FieldError::required(path, "").with_origin("spec/containers-required")];
    }
    let mut errs = ErrorList::new();
    let mut names_seen = BTreeSet::new();
    for (i, c) in containers.iter().enumerate() {
        let p = path.index(i);
        errs.extend(validate_container_common(c, ctx, &p));
        if !names_seen.insert(c.name.as_str()) {
            errs.push(
                FieldError::duplicate(&p.child("name"), c.name.as_str())
                    .with_origin("container/name-duplicate"),
            );
        }
        errs.extend(validate_probes_and_lifecycle(c, ctx, &p));
        errs.extend(validate_regular_restart_policy(c, &p, ctx.opts));
    }
    errs.extend(check_host_port_conflicts(containers.iter(), path));
    errs
}

/// `validateInitContainers`.
///
/// With the `SidecarContainers` gate off (it is locked on upstream since 1.33) the API server
/// would silently drop `restartPolicy` from init containers (`dropDisabledFields`); podmut reports
/// it instead as `Forbidden spec.initContainers[i].restartPolicy`, so the dropped field is not
/// silently accepted by a policy check.
pub(crate) fn validate_init_containers(
    init: &[Container],
    regular: &[Container],
    ctx: &ContainerContext<'_>,
    sidecars_enabled: bool,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut names_seen: BTreeSet<&str> =
        podmut_model::order::set_from(regular.iter().map(|c| c.name.as_str()));
    for (i, c) in init.iter().enumerate() {
        let p = path.index(i);
        errs.extend(validate_container_common(c, ctx, &p));
        if c.restart_policy.is_some() && !sidecars_enabled {
            errs.push(
                FieldError::forbidden(
                    &p.child("restartPolicy"),
                    "may not be set for init containers when the SidecarContainers feature gate is disabled",
                )
                .with_origin("container/init-restart-policy"),
            );
        } else {
            errs.extend(validate_init_container_restart_policy(c, &p, ctx.opts));
        }
        let restart_always = sidecars_enabled && c.restart_policy.as_deref() == Some("Always");
        if names_seen.contains(c.name.as_str()) {
            errs.push(
                FieldError::duplicate(&p.child("name"), c.name.as_str())
                    .with_origin("container/name-duplicate"),
            );
        } else if !c.name.is_empty() {
            names_seen.insert(c.name.as_str());
        }
        // Upstream checks each init container on its own with a one-element list, so the
        // reported path is always `initContainers[0].ports[j].hostPort`; kept.
        errs.extend(check_host_port_conflicts(std::iter::once(c), path));
        if restart_always {
            errs.extend(validate_probes_and_lifecycle(c, ctx, &p));
        } else {
            let msg = "may not be set for init containers without restartPolicy=Always";
            if c.lifecycle.is_some() {
                errs.push(
                    FieldError::forbidden(&p.child("lifecycle"), msg)
                        .with_origin("container/init-probes-forbidden"),
                );
            }
            for kind in ProbeKind::ALL {
                if kind.of(c).is_some() {
                    errs.push(
                        FieldError::forbidden(&p.child(kind.field()), msg)
                            .with_origin("container/init-probes-forbidden"),
                    );
                }
            }
        }
        if !ctx.opts.allow_sidecar_resize_policy && !items(&c.resize_policy).is_empty() {
            errs.push(
                FieldError::invalid(
                    &p.child("resizePolicy"),
                    podmut_model::field::BadValue::go(
                        &c.resize_policy,
                        &podmut_model::gojson::layout::SLICE_STRUCT_CORE_CONTAINER_RESIZE_POLICY,
                    ),
                    "must not be set for init containers",
                )
                .with_origin("container/init-resize-policy"),
            );
        }
        if !restart_always
            && ctx.opts.release >= 36
            && !ctx.opts.allow_existing_restart_container_for_non_sidecar_init
        {
            for (j, policy) in items(&c.resize_policy).iter().enumerate() {
                if policy.restart_policy == "RestartContainer" {
                    errs.push(
                        FieldError::invalid(
                            &p.child("resizePolicy").index(j).child("restartPolicy"),
                            policy.restart_policy.as_str(),
                            "must not be set to 'RestartContainer' for non-sidecar initContainers",
                        )
                        .with_origin("container/init-resize-policy-restart-container"),
                    );
                }
            }
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pod::util::{Summary, Want, summary, wanted};
    use podmut_model::field::ErrorType;

    fn containers(yaml: &str) -> Vec<Container> {
        serde_yaml_ng::from_str(yaml).unwrap()
    }

    fn run(yaml: &str, init: bool, allow_privileged: bool) -> Summary {
        let volumes = VolumeMap::new();
        let claims = BTreeSet::new();
        let opts = PodValidationOptions {
            allow_privileged,
            ..PodValidationOptions::default()
        };
        let ctx = ContainerContext {
            volumes: &volumes,
            claim_names: &claims,
            grace_period: Some(30),
            pod_restart_policy: "Always",
            host_users: true,
            opts: &opts,
        };
        let app = containers(
            "[{name: app, image: nginx, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File}]",
        );
        let errs = if init {
            validate_init_containers(&containers(yaml), &app, &ctx, true, &Path::new("initContainers"))
        } else {
            validate_containers(&containers(yaml), &ctx, &Path::new("containers"))
        };
        summary(&errs)
    }

    const BASE: &str = "imagePullPolicy: IfNotPresent, terminationMessagePolicy: File";

    /// Translated from upstream `TestValidateContainers` error cases.
    #[test]
    fn validate_containers_cases() {
        let cases: Vec<(&str, String, Vec<Want>)> = vec![
            ("zero-length name", format!("[{{name: '', image: image, {BASE}}}]"), vec![(ErrorType::Required, "containers[0].name", "container/name-required")]),
            ("zero-length image", format!("[{{name: abc, image: '', {BASE}}}]"), vec![(ErrorType::Required, "containers[0].image", "container/image-required")]),
            ("name > 63 characters", format!("[{{name: {}, image: image, {BASE}}}]", "a".repeat(64)), vec![(ErrorType::Invalid, "containers[0].name", "container/name-format")]),
            ("name not a DNS label", format!("[{{name: a.b.c, image: image, {BASE}}}]"), vec![(ErrorType::Invalid, "containers[0].name", "container/name-format")]),
            ("name not unique", format!("[{{name: abc, image: image, {BASE}}}, {{name: abc, image: image, {BASE}}}]"), vec![(ErrorType::Duplicate, "containers[1].name", "container/name-duplicate")]),
            (
                "host port not unique",
                format!("[{{name: abc, image: image, ports: [{{containerPort: 80, hostPort: 80, protocol: TCP}}], {BASE}}}, {{name: def, image: image, ports: [{{containerPort: 81, hostPort: 80, protocol: TCP}}], {BASE}}}]"),
                vec![(ErrorType::Duplicate, "containers[1].ports[0].hostPort", "container/host-port-duplicate")],
            ),
            ("unknown volume name", format!("[{{name: abc, image: image, volumeMounts: [{{name: anything, mountPath: /foo}}], {BASE}}}]"), vec![(ErrorType::NotFound, "containers[0].volumeMounts[0].name", "container/volume-mount-not-found")]),
            ("invalid lifecycle, no exec command", format!("[{{name: life-123, image: image, lifecycle: {{preStop: {{exec: {{}}}}}}, {BASE}}}]"), vec![(ErrorType::Required, "containers[0].lifecycle.preStop.exec.command", "probe/exec-command")]),
            ("invalid lifecycle, no action", format!("[{{name: life-123, image: image, lifecycle: {{preStop: {{}}}}, {BASE}}}]"), vec![(ErrorType::Required, "containers[0].lifecycle.preStop", "probe/handler-required")]),
            ("invalid message termination policy", "[{name: life-123, image: image, imagePullPolicy: IfNotPresent, terminationMessagePolicy: Unknown}]".to_owned(), vec![(ErrorType::NotSupported, "containers[0].terminationMessagePolicy", "container/termination-message-policy")]),
            ("empty message termination policy", "[{name: life-123, image: image, imagePullPolicy: IfNotPresent}]".to_owned(), vec![(ErrorType::Required, "containers[0].terminationMessagePolicy", "container/termination-message-policy")]),
            ("privilege disabled", format!("[{{name: abc, image: image, securityContext: {{privileged: true}}, {BASE}}}]"), vec![(ErrorType::Forbidden, "containers[0].securityContext.privileged", "security/privileged-disallowed")]),
            ("Unsupported resize policy for memory", format!("[{{name: abc, image: image, resizePolicy: [{{resourceName: memory, restartPolicy: RestartContainerrrr}}], {BASE}}}]"), vec![(ErrorType::NotSupported, "containers[0].resizePolicy", "resources/resize-policy")]),
            ("Forbidden RestartPolicy: Always", format!("[{{name: foo, image: image, restartPolicy: Always, {BASE}}}]"), vec![(ErrorType::Forbidden, "containers[0].restartPolicy", "container/restart-policy-forbidden")]),
            ("Invalid env from", format!("[{{name: env-from-source, image: image, envFrom: [{{configMapRef: {{name: '$%^&*#'}}}}], {BASE}}}]"), vec![(ErrorType::Invalid, "containers[0].envFrom[0].configMapRef.name", "container/env-from-name")]),
        ];
        for (name, yaml, want) in cases {
            let want = wanted(&want);
            assert_eq!(run(&yaml, false, false), want, "{name}");
        }
    }

    /// Translated from upstream `TestValidateInitContainers` error cases.
    #[test]
    fn validate_init_containers_cases() {
        let cases: Vec<(&str, String, Vec<Want>)> = vec![
            (
                "name collision with regular container",
                format!("[{{name: app, image: image, {BASE}}}]"),
                vec![(
                    ErrorType::Duplicate,
                    "initContainers[0].name",
                    "container/name-duplicate",
                )],
            ),
            (
                "duplicate names",
                format!("[{{name: init, image: image, {BASE}}}, {{name: init, image: image, {BASE}}}]"),
                vec![(
                    ErrorType::Duplicate,
                    "initContainers[1].name",
                    "container/name-duplicate",
                )],
            ),
            (
                "duplicate ports",
                format!(
                    "[{{name: abc, image: image, ports: [{{containerPort: 8080, hostPort: 8080, protocol: TCP}}, {{containerPort: 8080, hostPort: 8080, protocol: TCP}}], {BASE}}}]"
                ),
                vec![(
                    ErrorType::Duplicate,
                    "initContainers[0].ports[1].hostPort",
                    "container/host-port-duplicate",
                )],
            ),
            (
                "uses disallowed field: LivenessProbe",
                format!(
                    "[{{name: debug, image: image, livenessProbe: {{tcpSocket: {{port: 80}}, successThreshold: 1}}, {BASE}}}]"
                ),
                vec![(
                    ErrorType::Forbidden,
                    "initContainers[0].livenessProbe",
                    "container/init-probes-forbidden",
                )],
            ),
            (
                "disallowed field with other errors returns a single Forbidden",
                format!(
                    "[{{name: debug, image: image, startupProbe: {{tcpSocket: {{port: 80}}, initialDelaySeconds: -1, successThreshold: -1}}, {BASE}}}]"
                ),
                vec![(
                    ErrorType::Forbidden,
                    "initContainers[0].startupProbe",
                    "container/init-probes-forbidden",
                )],
            ),
            (
                "Not supported RestartPolicy: OnFailure",
                format!("[{{name: init, image: image, restartPolicy: OnFailure, {BASE}}}]"),
                vec![(
                    ErrorType::NotSupported,
                    "initContainers[0].restartPolicy",
                    "container/init-restart-policy",
                )],
            ),
            (
                "Not supported RestartPolicy: empty",
                format!("[{{name: init, image: image, restartPolicy: '', {BASE}}}]"),
                vec![(
                    ErrorType::NotSupported,
                    "initContainers[0].restartPolicy",
                    "container/init-restart-policy",
                )],
            ),
            (
                "invalid startup probe in restartable container, successThreshold != 1",
                format!(
                    "[{{name: restartable-init, image: image, restartPolicy: Always, startupProbe: {{tcpSocket: {{port: 80}}, successThreshold: 2}}, {BASE}}}]"
                ),
                vec![(
                    ErrorType::Invalid,
                    "initContainers[0].startupProbe.successThreshold",
                    "probe/success-threshold-one",
                )],
            ),
            (
                "Not supported ResizePolicy: invalid",
                format!(
                    "[{{name: init, image: image, resizePolicy: [{{resourceName: cpu, restartPolicy: NotRequired}}], {BASE}}}]"
                ),
                vec![(
                    ErrorType::Invalid,
                    "initContainers[0].resizePolicy",
                    "container/init-resize-policy",
                )],
            ),
        ];
        for (name, yaml, want) in cases {
            let want = wanted(&want);
            assert_eq!(run(&yaml, true, false), want, "{name}");
        }
    }

    #[test]
    fn ports_env_and_pod_only() {
        let p = Path::new("c");
        let ports: Vec<ContainerPort> = serde_yaml_ng::from_str(
            "[{containerPort: 0}, {containerPort: 70000, protocol: HTTP, name: '80'}]",
        )
        .unwrap();
        let got: Vec<(ErrorType, String)> = validate_ports(&ports, &p)
            .iter()
            .map(|e| (e.error_type, e.field.to_string()))
            .collect();
        assert_eq!(
            got,
            vec![
                (ErrorType::Required, "c[0].containerPort".to_owned()),
                (ErrorType::Required, "c[0].protocol".to_owned()),
                (ErrorType::Invalid, "c[1].name".to_owned()),
                (ErrorType::Invalid, "c[1].containerPort".to_owned()),
                (ErrorType::NotSupported, "c[1].protocol".to_owned()),
            ]
        );
        let env: Vec<EnvVar> = serde_yaml_ng::from_str("[{name: a, valueFrom: {}}, {name: b, value: x, valueFrom: {secretKeyRef: {name: s, key: k}}}, {name: 'a=b'}]").unwrap();
        let got: Vec<(ErrorType, String)> = validate_env(&env, true, &p)
            .iter()
            .map(|e| (e.error_type, e.field.to_string()))
            .collect();
        assert_eq!(
            got,
            vec![
                (ErrorType::Invalid, "c[0].valueFrom".to_owned()),
                (ErrorType::Invalid, "c[1].valueFrom".to_owned()),
                (ErrorType::Invalid, "c[2].name".to_owned()),
            ]
        );
        let c: Container = serde_yaml_ng::from_str("{name: a, image: ' nginx'}").unwrap();
        assert_eq!(
            validate_container_only_for_pod(&c, &p)[0].field.to_string(),
            "c.image"
        );
    }
}
