//! Security rules: the container `securityContext` (`ValidateSecurityContext`), the Pod's
//! (`validatePodSpecSecurityContext`, sysctls), Windows options and HostProcess Pods, user
//! namespaces (`validateHostUsers`), and the OS-specific rules (`validateOS`, `validateLinux`,
//! `validateWindows`).
//!
//! Upstream: `pkg/apis/core/validation/validation.go`. In the internal API the host namespace
//! flags (`hostNetwork`, `hostPID`, `hostIPC`, `hostUsers`, `shareProcessNamespace`) live in the
//! Pod security context; the v1 fields are read from the spec here and the error paths are
//! upstream's (`spec.hostPID`, but `spec.HostPID` for the user-namespace rule, as upstream writes).

use k8s_openapi::api::core::v1::{
    AppArmorProfile, Container, PodSecurityContext, PodSpec, SeccompProfile, SecurityContext,
    WindowsSecurityContextOptions,
};

use crate::pod::names::{self, invalid_each};
use crate::pod::options::PodValidationOptions;
use crate::pod::util::items;
use crate::pod::volumes::validate_local_descending_path;
use podmut_model::field::{BadValue, ErrorList, FieldError, Path};
use podmut_model::podutil::visit_containers;

const MAX_GMSA_SPEC_LENGTH: usize = 64 * 1024;
const SYSCTL_REGEX: &str = "^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$";

/// Whether the spec runs in the host user namespace (`hostUsers` unset or true).
pub(crate) fn host_users(spec: &PodSpec) -> bool {
    spec.host_users.unwrap_or(true)
}

fn id_errors(path: &Path, value: i64, msgs: Vec<String>) -> ErrorList {
    msgs.into_iter()
        .map(|m| FieldError::invalid(path, value, m).with_origin("security/id-range"))
        .collect()
}

/// `validateSeccompProfileField`.
pub(crate) fn validate_seccomp_profile(sp: Option<&SeccompProfile>, path: &Path) -> ErrorList {
    let Some(sp) = sp else {
        return ErrorList::new();
    };
    let mut errs = ErrorList::new();
    match sp.type_.as_str() {
        "Localhost" | "RuntimeDefault" | "Unconfined" => {}
        "" => errs.push(
            FieldError::required(&path.child("type"), "type is required when seccompProfile is set")
                .with_origin("security/seccomp"),
        ),
        other => errs.push(
            FieldError::not_supported(
                &path.child("type"),
                other,
                &["Localhost", "RuntimeDefault", "Unconfined"],
            )
            .with_origin("security/seccomp"),
        ),
    }
    if sp.type_ == "Localhost" {
        match &sp.localhost_profile {
            None => errs.push(
                FieldError::required(
                    &path.child("localhostProfile"),
                    "must be set when seccomp type is Localhost",
                )
                .with_origin("security/seccomp"),
            ),
            Some(p) => errs.extend(validate_local_descending_path(p, &path.child("localhostProfile"))),
        }
    } else if sp.localhost_profile.is_some() {
        errs.push(
            FieldError::invalid(
                &path.child("localhostProfile"),
                BadValue::go(sp, &podmut_model::gojson::layout::STRUCT_CORE_SECCOMP_PROFILE),
                "can only be set when seccomp type is Localhost",
            )
            .with_origin("security/seccomp"),
        );
    }
    errs
}

/// `ValidateAppArmorProfileField`.
pub(crate) fn validate_apparmor_profile(profile: Option<&AppArmorProfile>, path: &Path) -> ErrorList {
    let Some(p) = profile else {
        return ErrorList::new();
    };
    let mut errs = ErrorList::new();
    match p.type_.as_str() {
        "Localhost" => match &p.localhost_profile {
            None => errs.push(
                FieldError::required(
                    &path.child("localhostProfile"),
                    "must be set when AppArmor type is Localhost",
                )
                .with_origin("security/apparmor"),
            ),
            Some(lp) => {
                let trimmed = lp.trim();
                if trimmed != lp {
                    errs.push(
                        FieldError::invalid(
                            &path.child("localhostProfile"),
                            lp.as_str(),
                            "must not be padded with whitespace",
                        )
                        .with_origin("security/apparmor"),
                    );
                } else if trimmed.is_empty() {
                    errs.push(
                        FieldError::required(
                            &path.child("localhostProfile"),
                            "must be set when AppArmor type is Localhost",
                        )
                        .with_origin("security/apparmor"),
                    );
                }
                if lp.len() > 4095 {
                    errs.push(
                        FieldError::too_long(&path.child("localhostProfile"), 4095)
                            .with_origin("security/apparmor"),
                    );
                }
            }
        },
        "RuntimeDefault" | "Unconfined" => {
            if let Some(lp) = &p.localhost_profile {
                errs.push(
                    FieldError::invalid(
                        &path.child("localhostProfile"),
                        lp.as_str(),
                        "can only be set when AppArmor type is Localhost",
                    )
                    .with_origin("security/apparmor"),
                );
            }
        }
        "" => errs.push(
            FieldError::required(
                &path.child("type"),
                "type is required when appArmorProfile is set",
            )
            .with_origin("security/apparmor"),
        ),
        other => errs.push(
            FieldError::not_supported(
                &path.child("type"),
                other,
                &["Localhost", "RuntimeDefault", "Unconfined"],
            )
            .with_origin("security/apparmor"),
        ),
    }
    errs
}

fn valid_netbios_domain(d: &str) -> bool {
    let bad = |c: char| "\\/:*?\"<>|".contains(c);
    let mut chars = d.chars();
    match chars.next() {
        Some(first) if !bad(first) && first != '.' => {}
        _ => return false,
    }
    let rest: Vec<char> = chars.collect();
    rest.len() <= 14 && !rest.iter().any(|&c| bad(c))
}

fn valid_dns_domain(d: &str) -> bool {
    !d.is_empty()
        && d.split('.').all(|l| {
            let b = l.as_bytes();
            !b.is_empty()
                && b.len() <= 63
                && b.first().is_some_and(u8::is_ascii_alphanumeric)
                && b.last().is_some_and(u8::is_ascii_alphanumeric)
                && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
        })
}

/// `validateWindowsSecurityContextOptions`.
pub(crate) fn validate_windows_options(o: Option<&WindowsSecurityContextOptions>, path: &Path) -> ErrorList {
    let Some(o) = o else {
        return ErrorList::new();
    };
    let mut errs = ErrorList::new();
    if let Some(name) = &o.gmsa_credential_spec_name {
        errs.extend(invalid_each(
            &path.child("gmsaCredentialSpecName"),
            name,
            names::is_dns1123_subdomain(name),
            "security/windows-options",
        ));
    }
    if let Some(spec) = &o.gmsa_credential_spec {
        if spec.is_empty() {
            errs.push(
                FieldError::invalid(
                    &path.child("gmsaCredentialSpec"),
                    spec.as_str(),
                    "gmsaCredentialSpec cannot be an empty string",
                )
                .with_origin("security/windows-options"),
            );
        } else if spec.len() > MAX_GMSA_SPEC_LENGTH {
            errs.push(
                FieldError::invalid(
                    &path.child("gmsaCredentialSpec"),
                    "",
                    "gmsaCredentialSpec size must be under 64 KiB",
                )
                .with_origin("security/windows-options"),
            );
        }
    }
    if let Some(user) = &o.run_as_user_name {
        let p = path.child("runAsUserName");
        let invalid =
            |msg: &str| FieldError::invalid(&p, user.as_str(), msg).with_origin("security/windows-options");
        if user.is_empty() {
            errs.push(invalid("runAsUserName cannot be an empty string"));
        } else if user.chars().any(|c| c.is_control()) {
            errs.push(invalid("runAsUserName cannot contain control characters"));
        } else {
            let parts: Vec<&str> = user.split('\\').collect();
            if parts.len() > 2 {
                errs.push(invalid("runAsUserName cannot contain more than one backslash"));
            } else {
                let (domain, name) = match parts.as_slice() {
                    [d, u] => (Some(*d), *u),
                    _ => (None, user.as_str()),
                };
                if let Some(d) = domain {
                    if d.len() >= 256 {
                        errs.push(invalid(
                            "runAsUserName's Domain length must be under 256 characters",
                        ));
                    }
                    if !(valid_netbios_domain(d) || valid_dns_domain(d)) {
                        errs.push(invalid(
                            "runAsUserName's Domain doesn't match the NetBios nor the DNS format",
                        ));
                    }
                }
                if name.is_empty() {
                    errs.push(invalid("runAsUserName's User cannot be empty"));
                } else if name.len() > 104 {
                    errs.push(invalid(
                        "runAsUserName's User length must not be longer than 104 characters",
                    ));
                }
                if !name.is_empty() && name.chars().all(|c| c == '.' || c == ' ') {
                    errs.push(invalid(
                        "runAsUserName's User cannot contain only periods or spaces",
                    ));
                }
                if name.chars().any(|c| "\"/\\:;|=,+*?<>@[]".contains(c)) {
                    errs.push(invalid(
                        "runAsUserName's User cannot contain the following characters: \"/\\:;|=,+*?<>@[]",
                    ));
                }
            }
        }
    }
    errs
}

/// `runAsUser` and `runAsGroup`, which the container and the Pod security context check alike.
fn validate_run_as(user: Option<i64>, group: Option<i64>, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    if let Some(u) = user {
        errs.extend(id_errors(&path.child("runAsUser"), u, names::is_valid_user_id(u)));
    }
    if let Some(g) = group {
        errs.extend(id_errors(
            &path.child("runAsGroup"),
            g,
            names::is_valid_group_id(g),
        ));
    }
    errs
}

/// `windowsOptions` then `appArmorProfile`, the last checks both security contexts share.
fn validate_windows_and_apparmor(
    windows: Option<&WindowsSecurityContextOptions>,
    apparmor: Option<&AppArmorProfile>,
    path: &Path,
) -> ErrorList {
    let mut errs = validate_windows_options(windows, &path.child("windowsOptions"));
    errs.extend(validate_apparmor_profile(
        apparmor,
        &path.child("appArmorProfile"),
    ));
    errs
}

/// `ValidateSecurityContext` for one container.
pub(crate) fn validate_security_context(
    sc: Option<&SecurityContext>,
    path: &Path,
    host_users: bool,
    opts: &PodValidationOptions,
) -> ErrorList {
    let Some(sc) = sc else {
        return ErrorList::new();
    };
    let mut errs = ErrorList::new();
    if sc.privileged == Some(true) && !opts.allow_privileged {
        errs.push(
            FieldError::forbidden(&path.child("privileged"), "disallowed by cluster policy")
                .with_origin("security/privileged-disallowed"),
        );
    }
    errs.extend(validate_run_as(sc.run_as_user, sc.run_as_group, path));
    if let Some(pm) = &sc.proc_mount {
        if pm != "Default" && pm != "Unmasked" {
            errs.push(
                FieldError::not_supported(&path.child("procMount"), pm.as_str(), &["Default", "Unmasked"])
                    .with_origin("security/proc-mount"),
            );
        }
        if host_users && pm == "Unmasked" {
            errs.push(
                FieldError::invalid(
                    &path.child("procMount"),
                    pm.as_str(),
                    "`hostUsers` must be false to use `Unmasked`",
                )
                .with_origin("security/proc-mount-unmasked"),
            );
        }
    }
    errs.extend(validate_seccomp_profile(
        sc.seccomp_profile.as_ref(),
        &path.child("seccompProfile"),
    ));
    if sc.allow_privilege_escalation == Some(false) {
        if sc.privileged == Some(true) {
            errs.push(
                FieldError::invalid(
                    path,
                    BadValue::go(sc, &podmut_model::gojson::layout::STRUCT_CORE_SECURITY_CONTEXT),
                    "cannot set `allowPrivilegeEscalation` to false and `privileged` to true",
                )
                .with_origin("security/privilege-escalation"),
            );
        }
        if let Some(caps) = &sc.capabilities {
            for cap in items(&caps.add) {
                if cap == "CAP_SYS_ADMIN" {
                    errs.push(
                        FieldError::invalid(
                            path,
                            BadValue::go(sc, &podmut_model::gojson::layout::STRUCT_CORE_SECURITY_CONTEXT),
                            "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN",
                        )
                        .with_origin("security/privilege-escalation"),
                    );
                }
            }
        }
    }
    errs.extend(validate_windows_and_apparmor(
        sc.windows_options.as_ref(),
        sc.app_armor_profile.as_ref(),
        path,
    ));
    errs
}

/// `IsValidSysctlName`.
fn is_valid_sysctl_name(name: &str) -> bool {
    if name.len() > 253 {
        return false;
    }
    let segment_ok = |s: &str| {
        let b = s.as_bytes();
        b.first()
            .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            && b.last()
                .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            && b.iter()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-' || *c == b'_')
    };
    name.split(['.', '/']).all(segment_ok)
}

/// `utilsysctl.NormalizeName`: a name whose first separator is `/` uses `/` for `.`.
fn normalize_sysctl(name: &str) -> String {
    match name.find(['.', '/']) {
        Some(i) if name.as_bytes().get(i) == Some(&b'/') => name
            .chars()
            .map(|c| match c {
                '/' => '.',
                '.' => '/',
                other => other,
            })
            .collect(),
        _ => name.to_owned(),
    }
}

/// The kernel namespace of a sysctl (`utilsysctl.GetNamespace`): `net` or `ipc` (others irrelevant).
fn sysctl_namespace(name: &str) -> Option<&'static str> {
    let n = normalize_sysctl(name);
    if n == "kernel.sem"
        || n.starts_with("kernel.shm")
        || n.starts_with("kernel.msg")
        || n.starts_with("fs.mqueue.")
    {
        Some("ipc")
    } else if n.starts_with("net.") {
        Some("net")
    } else {
        None
    }
}

/// `ValidateHostSysctl`: a namespaced sysctl may not be set in a Pod that shares that namespace
/// with the host (`net.*` with `hostNetwork`, IPC sysctls with `hostIPC`).
pub(crate) fn validate_host_sysctl(name: &str, spec: &PodSpec, path: &Path) -> Option<FieldError> {
    let detail = match sysctl_namespace(name) {
        Some("net") if spec.host_network == Some(true) => "may not be specified when 'hostNetwork' is true",
        Some("ipc") if spec.host_ipc == Some(true) => "may not be specified when 'hostIPC' is true",
        _ => return None,
    };
    Some(FieldError::invalid(path, name, detail).with_origin("security/sysctl-host-namespace"))
}

/// `validatePodSpecSecurityContext`.
/// `ShareProcessNamespace and HostPID cannot both be enabled`: inside the Pod security context's
/// checks (`spec.securityContext.shareProcessNamespace`) up to 1.36, `validateShareProcessNamespace`
/// right after them (`spec.shareProcessNamespace`) from 1.37.
pub(crate) fn validate_share_process_namespace(spec: &PodSpec, path: &Path) -> ErrorList {
    if spec.share_process_namespace == Some(true) && spec.host_pid == Some(true) {
        vec![
            FieldError::invalid(
                path,
                true,
                "ShareProcessNamespace and HostPID cannot both be enabled",
            )
            .with_origin("security/share-process-namespace"),
        ]
    } else {
        ErrorList::new()
    }
}

pub(crate) fn validate_pod_security_context(
    spec: &PodSpec,
    path: &Path,
    opts: &PodValidationOptions,
) -> ErrorList {
    // The internal Pod security context always exists after conversion (it carries the host
    // namespace flags), so these checks run even without `spec.securityContext`.
    let default = PodSecurityContext::default();
    let sc = spec.security_context.as_ref().unwrap_or(&default);
    let mut errs = ErrorList::new();
    if let Some(g) = sc.fs_group {
        errs.extend(id_errors(&path.child("fsGroup"), g, names::is_valid_group_id(g)));
    }
    errs.extend(validate_run_as(sc.run_as_user, sc.run_as_group, path));
    for (i, g) in items(&sc.supplemental_groups).iter().enumerate() {
        errs.extend(id_errors(
            &path.child("supplementalGroups").index(i),
            *g,
            names::is_valid_group_id(*g),
        ));
    }
    if opts.release < 37 {
        errs.extend(validate_share_process_namespace(
            spec,
            &path.child("shareProcessNamespace"),
        ));
    }
    let sysctls = items(&sc.sysctls);
    if !sysctls.is_empty() {
        let sp = path.child("sysctls");
        let mut seen = std::collections::BTreeSet::new();
        for (i, s) in sysctls.iter().enumerate() {
            let np = sp.index(i).child("name");
            if s.name.is_empty() {
                errs.push(FieldError::required(&np, "").with_origin("security/sysctl"));
            } else if !is_valid_sysctl_name(&s.name) {
                errs.push(
                    FieldError::invalid(
                        &np,
                        s.name.as_str(),
                        format!("must have at most 253 characters and match regex {SYSCTL_REGEX}"),
                    )
                    .with_origin("security/sysctl"),
                );
            } else if seen.contains(s.name.as_str()) {
                errs.push(FieldError::duplicate(&np, s.name.as_str()).with_origin("security/sysctl"));
            }
            if !opts.allow_namespaced_sysctls_for_host_net_and_host_ipc {
                errs.extend(validate_host_sysctl(&s.name, spec, &np));
            }
            seen.insert(s.name.as_str());
        }
    }
    if let Some(p) = &sc.fs_group_change_policy
        && p != "Always"
        && p != "OnRootMismatch"
    {
        errs.push(
            FieldError::not_supported(
                &path.child("fsGroupChangePolicy"),
                p.as_str(),
                &["Always", "OnRootMismatch"],
            )
            .with_origin("security/fs-group-change-policy"),
        );
    }
    errs.extend(validate_seccomp_profile(
        sc.seccomp_profile.as_ref(),
        &path.child("seccompProfile"),
    ));
    errs.extend(validate_windows_and_apparmor(
        sc.windows_options.as_ref(),
        sc.app_armor_profile.as_ref(),
        path,
    ));
    if let Some(p) = &sc.supplemental_groups_policy
        && p != "Merge"
        && p != "Strict"
    {
        errs.push(
            FieldError::not_supported(
                &path.child("supplementalGroupsPolicy"),
                p.as_str(),
                &["Merge", "Strict"],
            )
            .with_origin("security/supplemental-groups-policy"),
        );
    }
    if let Some(p) = &sc.se_linux_change_policy {
        errs.extend(validate_selinux_change_policy(
            p,
            &path.child("seLinuxChangePolicy"),
            opts,
        ));
    }
    errs
}

/// `validateSELinuxChangePolicy`: with `AllowOnlyRecursiveSELinuxChangePolicy` (gate `SELinuxMount`
/// off and the old Pod sets no policy) only `Recursive`, else `MountOption` or `Recursive`.
fn validate_selinux_change_policy(policy: &str, path: &Path, opts: &PodValidationOptions) -> ErrorList {
    let valid: &[&str] = if opts.allow_only_recursive_selinux_change_policy {
        &["Recursive"]
    } else {
        &["MountOption", "Recursive"]
    };
    if valid.contains(&policy) {
        return ErrorList::new();
    }
    vec![FieldError::not_supported(path, policy, valid).with_origin("security/selinux-change-policy")]
}

/// `validateWindowsHostProcessPod`.
pub(crate) fn validate_windows_host_process_pod(
    spec: &PodSpec,
    path: &Path,
    opts: &PodValidationOptions,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let pod_hp = spec
        .security_context
        .as_ref()
        .and_then(|s| s.windows_options.as_ref())
        .and_then(|w| w.host_process);
    let (mut count, mut hp_count) = (0usize, 0usize);
    visit_containers(spec, path, |c: &Container, cp: &Path| {
        count += 1;
        let ctr_hp = c
            .security_context
            .as_ref()
            .and_then(|s| s.windows_options.as_ref())
            .and_then(|w| w.host_process);
        if let (Some(p), Some(cv)) = (pod_hp, ctr_hp)
            && p != cv
        {
            errs.push(
                FieldError::invalid(
                    &cp.child("securityContext")
                        .child("windowsOptions")
                        .child("hostProcess"),
                    cv,
                    format!("pod hostProcess value must be identical if both are specified, was {p}"),
                )
                .with_origin("security/host-process-identical"),
            );
        }
        if ctr_hp == Some(true) || (ctr_hp.is_none() && pod_hp == Some(true)) {
            hp_count += 1;
        }
    });
    if hp_count > 0 {
        if hp_count != count {
            errs.push(
                FieldError::invalid(path, "", "If pod contains any hostProcess containers then all containers must be HostProcess containers")
                    .with_origin("security/host-process-all"),
            );
        }
        if spec.host_network != Some(true) {
            errs.push(
                FieldError::invalid(
                    &path.child("hostNetwork"),
                    false,
                    "hostNetwork must be true if pod contains any hostProcess containers",
                )
                .with_origin("security/host-process-host-network"),
            );
        }
        if !opts.allow_privileged {
            errs.push(
                FieldError::forbidden(path, "hostProcess containers are disallowed by cluster policy")
                    .with_origin("security/host-process-disallowed"),
            );
        }
    }
    errs
}

/// `validateHostUsers`: a Pod with its own user namespace may not share the host's network
/// (unless `AllowUserNamespacesHostNetworkSupport`), PID or IPC namespace, and no container may
/// have volume devices (`AllowUserNamespacesWithVolumeDevices` is always false).
pub(crate) fn validate_host_users(spec: &PodSpec, path: &Path, opts: &PodValidationOptions) -> ErrorList {
    if spec.host_users != Some(false) {
        return ErrorList::new();
    }
    const DETAIL: &str = "when `hostUsers` is false";
    let forbidden = |p: &Path| FieldError::forbidden(p, DETAIL).with_origin("security/host-users");
    let mut errs = ErrorList::new();
    let host_network = spec.host_network == Some(true) && !opts.allow_user_namespaces_host_network_support;
    for (set, field) in [
        (host_network, "hostNetwork"),
        (spec.host_pid == Some(true), "HostPID"),
        (spec.host_ipc == Some(true), "HostIPC"),
    ] {
        if set {
            errs.push(forbidden(&path.child(field)));
        }
    }
    visit_containers(spec, path, |c, p| {
        if !items(&c.volume_devices).is_empty() {
            errs.push(forbidden(&p.child("volumeDevices")));
        }
    });
    errs
}

/// `validateOS` and, for a valid OS, `validateLinux` / `validateWindows`.
pub(crate) fn validate_os(spec: &PodSpec, path: &Path, release: u8) -> ErrorList {
    let Some(os) = &spec.os else {
        return ErrorList::new();
    };
    let os_path = path.child("os");
    if os.name.is_empty() {
        return vec![
            FieldError::required(&os_path.child("name"), "cannot be empty").with_origin("spec/os-name"),
        ];
    }
    match os.name.as_str() {
        "linux" => validate_linux(spec, path),
        "windows" => validate_windows(spec, path, release),
        other => vec![
            FieldError::not_supported(&os_path, other, &["linux", "windows"]).with_origin("spec/os-name"),
        ],
    }
}

fn validate_linux(spec: &PodSpec, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let msg = "windows options cannot be set for a linux pod";
    if spec
        .security_context
        .as_ref()
        .is_some_and(|s| s.windows_options.is_some())
    {
        errs.push(
            FieldError::forbidden(&path.child("securityContext").child("windowsOptions"), msg)
                .with_origin("spec/os-linux"),
        );
    }
    visit_containers(spec, path, |c, cp| {
        if c.security_context
            .as_ref()
            .is_some_and(|s| s.windows_options.is_some())
        {
            errs.push(
                FieldError::forbidden(&cp.child("securityContext").child("windowsOptions"), msg)
                    .with_origin("spec/os-linux"),
            );
        }
    });
    errs
}

/// `validateWindows`: up to 1.36 the host fields sit among the security context's, from 1.37 they
/// follow them.
fn validate_windows(spec: &PodSpec, path: &Path, release: u8) -> ErrorList {
    let mut errs = ErrorList::new();
    let msg = "cannot be set for a windows pod";
    let forbid = |errs: &mut ErrorList, p: Path| {
        errs.push(FieldError::forbidden(&p, msg).with_origin("spec/os-windows"));
    };
    let sc_path = path.child("securityContext");
    // The internal Pod security context always exists after conversion, so the host-namespace
    // fields are checked whether or not `spec.securityContext` was given.
    let sc: PodSecurityContext = spec.security_context.clone().unwrap_or_default();
    if sc.app_armor_profile.is_some() {
        forbid(&mut errs, sc_path.child("appArmorProfile"));
    }
    if sc.se_linux_options.is_some() {
        forbid(&mut errs, sc_path.child("seLinuxOptions"));
    }
    let hosts = |errs: &mut ErrorList| {
        if spec.host_users.is_some() {
            forbid(errs, path.child("hostUsers"));
        }
        if spec.host_pid == Some(true) {
            forbid(errs, path.child("hostPID"));
        }
        if spec.host_ipc == Some(true) {
            forbid(errs, path.child("hostIPC"));
        }
    };
    if release < 37 {
        hosts(&mut errs);
    }
    if sc.seccomp_profile.is_some() {
        forbid(&mut errs, sc_path.child("seccompProfile"));
    }
    if sc.fs_group.is_some() {
        forbid(&mut errs, sc_path.child("fsGroup"));
    }
    if sc.fs_group_change_policy.is_some() {
        forbid(&mut errs, sc_path.child("fsGroupChangePolicy"));
    }
    if !items(&sc.sysctls).is_empty() {
        forbid(&mut errs, sc_path.child("sysctls"));
    }
    if release < 37 && spec.share_process_namespace.is_some() {
        forbid(&mut errs, path.child("shareProcessNamespace"));
    }
    if sc.run_as_user.is_some() {
        forbid(&mut errs, sc_path.child("runAsUser"));
    }
    if sc.run_as_group.is_some() {
        forbid(&mut errs, sc_path.child("runAsGroup"));
    }
    if sc.supplemental_groups.is_some() {
        forbid(&mut errs, sc_path.child("supplementalGroups"));
    }
    if sc.supplemental_groups_policy.is_some() {
        forbid(&mut errs, sc_path.child("supplementalGroupsPolicy"));
    }
    if sc.se_linux_change_policy.is_some() {
        forbid(&mut errs, sc_path.child("seLinuxChangePolicy"));
    }
    if release >= 37 {
        hosts(&mut errs);
        if spec.share_process_namespace.is_some() {
            forbid(&mut errs, path.child("shareProcessNamespace"));
        }
    }
    visit_containers(spec, path, |c, cp| {
        let Some(sc) = &c.security_context else { return };
        let p = cp.child("securityContext");
        for (set, field) in [
            (sc.app_armor_profile.is_some(), "appArmorProfile"),
            (sc.se_linux_options.is_some(), "seLinuxOptions"),
            (sc.seccomp_profile.is_some(), "seccompProfile"),
            (sc.capabilities.is_some(), "capabilities"),
            (sc.read_only_root_filesystem.is_some(), "readOnlyRootFilesystem"),
            (sc.privileged.is_some(), "privileged"),
            (
                sc.allow_privilege_escalation.is_some(),
                "allowPrivilegeEscalation",
            ),
            (sc.proc_mount.is_some(), "procMount"),
            (sc.run_as_user.is_some(), "runAsUser"),
            (sc.run_as_group.is_some(), "runAsGroup"),
        ] {
            if set {
                forbid(&mut errs, p.child(field));
            }
        }
    });
    errs
}

/// `validatePodHostNetworkDeps` for a Pod (`ResourceIsPod`): with `hostNetwork`, each regular
/// container port's `hostPort` must equal its `containerPort`.
pub(crate) fn validate_host_network_deps(spec: &PodSpec, path: &Path, resource_is_pod: bool) -> ErrorList {
    let mut errs = ErrorList::new();
    if spec.host_network != Some(true) {
        return errs;
    }
    let cp = path.child("containers");
    for (i, c) in spec.containers.iter().enumerate() {
        for (j, port) in items(&c.ports).iter().enumerate() {
            let hp = port.host_port.unwrap_or(0);
            if (resource_is_pod || hp != 0) && hp != port.container_port {
                errs.push(
                    FieldError::invalid(
                        &cp.index(i).child("ports").index(j).child("hostPort"),
                        hp,
                        "must match `containerPort` when `hostNetwork` is true",
                    )
                    .with_origin("spec/host-network-ports"),
                );
            }
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use podmut_model::field::ErrorType;

    fn spec(yaml: &str) -> PodSpec {
        serde_yaml_ng::from_str(yaml).unwrap()
    }

    fn fields(errs: &ErrorList) -> Vec<(ErrorType, String)> {
        errs.iter().map(|e| (e.error_type, e.field.to_string())).collect()
    }

    #[test]
    fn container_security_context() {
        let p = Path::new("c").child("securityContext");
        let mut opts = PodValidationOptions::default();
        let sc: SecurityContext = serde_yaml_ng::from_str("{privileged: true}").unwrap();
        opts.allow_privileged = false;
        assert_eq!(
            fields(&validate_security_context(Some(&sc), &p, true, &opts)),
            vec![(ErrorType::Forbidden, "c.securityContext.privileged".to_owned())]
        );
        opts.allow_privileged = true;
        assert!(validate_security_context(Some(&sc), &p, true, &opts).is_empty());
        let sc: SecurityContext = serde_yaml_ng::from_str(
            "{runAsUser: -1, procMount: Unmasked, allowPrivilegeEscalation: false, privileged: true}",
        )
        .unwrap();
        assert_eq!(
            fields(&validate_security_context(Some(&sc), &p, true, &opts)),
            vec![
                (ErrorType::Invalid, "c.securityContext.runAsUser".to_owned()),
                (ErrorType::Invalid, "c.securityContext.procMount".to_owned()),
                (ErrorType::Invalid, "c.securityContext".to_owned()),
            ]
        );
    }

    #[test]
    fn windows_and_linux() {
        let p = Path::new("spec");
        let s = spec(
            "{os: {name: windows}, securityContext: {seLinuxOptions: {role: r}, runAsUser: 1}, containers: [{name: a, securityContext: {privileged: false}}]}",
        );
        assert_eq!(
            fields(&validate_os(&s, &p, 35)),
            vec![
                (
                    ErrorType::Forbidden,
                    "spec.securityContext.seLinuxOptions".to_owned()
                ),
                (ErrorType::Forbidden, "spec.securityContext.runAsUser".to_owned()),
                (
                    ErrorType::Forbidden,
                    "spec.containers[0].securityContext.privileged".to_owned()
                ),
            ]
        );
        let s = spec(
            "{os: {name: linux}, securityContext: {windowsOptions: {runAsUserName: u}}, containers: [{name: a}]}",
        );
        assert_eq!(
            fields(&validate_os(&s, &p, 35)),
            vec![(
                ErrorType::Forbidden,
                "spec.securityContext.windowsOptions".to_owned()
            )]
        );
        let s = spec("{os: {name: plan9}, containers: [{name: a}]}");
        assert_eq!(
            fields(&validate_os(&s, &p, 35)),
            vec![(ErrorType::NotSupported, "spec.os".to_owned())]
        );
    }

    #[test]
    fn host_users_and_sysctls() {
        let p = Path::new("spec");
        let s = spec("{hostUsers: false, hostNetwork: true, hostPID: true, containers: [{name: a}]}");
        assert_eq!(
            fields(&validate_host_users(&s, &p, &PodValidationOptions::default())),
            vec![
                (ErrorType::Forbidden, "spec.hostNetwork".to_owned()),
                (ErrorType::Forbidden, "spec.HostPID".to_owned())
            ]
        );
        let s = spec(
            "{hostNetwork: true, securityContext: {sysctls: [{name: net.core.somaxconn, value: '1'}, {name: Bad, value: x}]}, containers: [{name: a}]}",
        );
        assert_eq!(
            fields(&validate_pod_security_context(
                &s,
                &p.child("securityContext"),
                &PodValidationOptions::default()
            )),
            vec![
                (
                    ErrorType::Invalid,
                    "spec.securityContext.sysctls[0].name".to_owned()
                ),
                (
                    ErrorType::Invalid,
                    "spec.securityContext.sysctls[1].name".to_owned()
                ),
            ]
        );
        assert!(
            is_valid_sysctl_name("kernel.shm_rmid_forced") && is_valid_sysctl_name("net/ipv4/ip_forward")
        );
        assert_eq!(sysctl_namespace("net/ipv4/ip_forward"), Some("net"));
    }

    #[test]
    fn host_process() {
        let p = Path::new("spec");
        let s = spec("{securityContext: {windowsOptions: {hostProcess: true}}, containers: [{name: a}]}");
        assert_eq!(
            fields(&validate_windows_host_process_pod(
                &s,
                &p,
                &PodValidationOptions {
                    allow_privileged: true,
                    ..Default::default()
                }
            )),
            vec![(ErrorType::Invalid, "spec.hostNetwork".to_owned())]
        );
    }
}
