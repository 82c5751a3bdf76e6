//! The strict profile (`securityContextEscalation: forbid`, `policies/strict.yaml`): KEP-5972's
//! "No SecurityContext escalations" for containers added through `pods/dynamic`.
//!
//! The KEP dropped this constraint from its main design ("Alternative design details": fail-closed
//! admission makes it unnecessary in the API server) and leaves it to admission — which is what
//! podmut is. An added container "can only add or allow permissions already granted to other
//! containers in the pod":
//!
//! | bullet | origin | error at the added container's |
//! |---|---|---|
//! | no capability that no existing container adds (`ALL` allows every name) | `strict/capabilities-add` | `securityContext.capabilities.add[j]` |
//! | drop every capability ALL existing containers drop (`ALL` covers every name) | `strict/capabilities-drop` | `securityContext.capabilities.drop` |
//! | privileged: never | `dynamic/no-privileged` (KEP-5972's own rule, in both profiles) | `securityContext.privileged` |
//! | seLinuxOptions, runAsUser, runAsGroup, seccompProfile, appArmorProfile: only values an existing container or the PodSecurityContext uses | `strict/se-linux-options`, `strict/run-as-user`, `strict/run-as-group`, `strict/seccomp-profile`, `strict/app-armor-profile` | `securityContext.<field>` |
//! | runAsNonRoot, readOnlyRootFilesystem: set when ALL existing containers set them | `strict/run-as-non-root`, `strict/read-only-root-filesystem` | `securityContext.<field>` |
//! | allowPrivilegeEscalation: false when ALL existing containers explicitly disable it | `strict/allow-privilege-escalation` | `securityContext.allowPrivilegeEscalation` |
//! | procMount `Unmasked` only if another container has an unmasked proc mount | `strict/proc-mount` | `securityContext.procMount` |
//!
//! Every error is `Forbidden`, and its detail names what the existing containers allow.
//!
//! Choices where the KEP is silent:
//! - **Existing containers** are the running Pod's (the old Pod's) main containers and restartable
//!   init containers (sidecars): the containers that run alongside the added one. Ordinary init
//!   containers have finished, and ephemeral containers are debugging sessions granted through
//!   `pods/ephemeralcontainers` — the KEP keeps that authorization boundary apart from
//!   `pods/dynamic` on purpose — so neither widens what an added container may do.
//! - **Effective values** (seLinuxOptions, runAsUser, runAsGroup, seccompProfile, appArmorProfile,
//!   runAsNonRoot) are the container's own, else the Pod's `securityContext` — what the kubelet
//!   runs the container with. An added container that leaves one unset (the image's user, the
//!   runtime's default profile) uses "unset", which is allowed only when an existing container
//!   runs with it unset too.
//! - **"Set"** for runAsNonRoot and readOnlyRootFilesystem means set to `true`: `false` grants
//!   nothing.
//! - Capability names compare without the `CAP_` prefix and case, as container runtimes read them.

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::{
    AppArmorProfile, Container, Pod, PodSecurityContext, SELinuxOptions, SeccompProfile, SecurityContext,
};

use podmut_model::field::{ErrorList, FieldError, Path};
use podmut_model::podutil::{is_restartable_init, spec as spec_of};

/// The capability name that stands for every capability.
const ALL: &str = "ALL";

/// Apply the strict profile's checks to the container added at `path` (`spec.containers[i]`) of
/// the new Pod; `old` is the running Pod.
pub(crate) fn check_added_container(c: &Container, path: &Path, new: &Pod, old: &Pod) -> ErrorList {
    let old_spec = spec_of(old);
    let new_spec = spec_of(new);
    let existing: Vec<&Container> = old_spec
        .containers
        .iter()
        .chain(
            old_spec
                .init_containers
                .iter()
                .flatten()
                .filter(|c| is_restartable_init(c)),
        )
        .collect();
    let ctx = Existing {
        containers: existing,
        pod: old_spec.security_context.as_ref(),
    };
    let added = Added {
        sc: c.security_context.as_ref(),
        pod: new_spec.security_context.as_ref(),
        path: path.child("securityContext"),
    };
    let mut errs = ErrorList::new();
    check_capabilities(&added, &ctx, &mut errs);
    check_identities(&added, &ctx, &mut errs);
    check_required_true(&added, &ctx, &mut errs);
    check_proc_mount(&added, &ctx, &mut errs);
    errs
}

/// The running Pod's containers the added one is compared with.
struct Existing<'a> {
    containers: Vec<&'a Container>,
    pod: Option<&'a PodSecurityContext>,
}

impl<'a> Existing<'a> {
    fn contexts(&self) -> impl Iterator<Item = Option<&'a SecurityContext>> + '_ {
        self.containers
            .iter()
            .copied()
            .map(|c| c.security_context.as_ref())
    }
}

/// The added container's security context and the new Pod's.
struct Added<'a> {
    sc: Option<&'a SecurityContext>,
    pod: Option<&'a PodSecurityContext>,
    /// `spec.containers[i].securityContext`.
    path: Path,
}

fn normalize_capability(name: &str) -> String {
    let upper = name.trim().to_ascii_uppercase();
    upper.strip_prefix("CAP_").map_or(upper.clone(), str::to_owned)
}

fn capability_list(sc: Option<&SecurityContext>, add: bool) -> Vec<String> {
    let caps = sc.and_then(|s| s.capabilities.as_ref());
    let list = caps.and_then(|c| if add { c.add.as_ref() } else { c.drop.as_ref() });
    list.into_iter()
        .flatten()
        .map(|n| normalize_capability(n))
        .collect()
}

fn names(set: &BTreeSet<String>) -> String {
    if set.is_empty() {
        "none".to_owned()
    } else {
        set.iter().cloned().collect::<Vec<_>>().join(", ")
    }
}

fn check_capabilities(added: &Added<'_>, ctx: &Existing<'_>, errs: &mut ErrorList) {
    let caps_path = added.path.child("capabilities");
    // Add: only what some existing container adds.
    let granted: BTreeSet<String> =
        podmut_model::order::set_from(ctx.contexts().flat_map(|sc| capability_list(sc, true)));
    let raw_add = added
        .sc
        .and_then(|s| s.capabilities.as_ref())
        .and_then(|c| c.add.as_ref());
    for (j, name) in raw_add.into_iter().flatten().enumerate() {
        let n = normalize_capability(name);
        if !granted.contains(ALL) && !granted.contains(&n) {
            errs.push(
                FieldError::forbidden(
                    &caps_path.child("add").index(j),
                    format!(
                        "containers added to a running pod may only add capabilities an existing container adds; {n} is not one (existing containers add: {})",
                        names(&granted)
                    ),
                )
                .with_origin("strict/capabilities-add"),
            );
        }
    }
    // Drop: everything every existing container drops (a container dropping ALL drops every name).
    let mut required: Option<BTreeSet<String>> = None;
    for sc in ctx.contexts() {
        let drops: BTreeSet<String> = podmut_model::order::set_from(capability_list(sc, false));
        required = Some(match required {
            None => drops,
            Some(r) if drops.contains(ALL) => r,
            Some(r) if r.contains(ALL) => drops,
            Some(r) => podmut_model::order::set_from(r.intersection(&drops).cloned()),
        });
    }
    let required = required.unwrap_or_default();
    let dropped: BTreeSet<String> = podmut_model::order::set_from(capability_list(added.sc, false));
    if dropped.contains(ALL) {
        return;
    }
    let missing: BTreeSet<String> = podmut_model::order::set_from(required.difference(&dropped).cloned());
    if !missing.is_empty() {
        errs.push(
            FieldError::forbidden(
                &caps_path.child("drop"),
                format!(
                    "containers added to a running pod must drop every capability all existing containers drop: {} (missing: {})",
                    names(&required),
                    names(&missing)
                ),
            )
            .with_origin("strict/capabilities-drop"),
        );
    }
}

/// The effective value of one identity field: the container's own, else the Pod's.
fn effective<T>(
    sc: Option<&SecurityContext>,
    pod: Option<&PodSecurityContext>,
    own: fn(&SecurityContext) -> Option<T>,
    inherited: fn(&PodSecurityContext) -> Option<T>,
) -> Option<T> {
    sc.and_then(own).or_else(|| pod.and_then(inherited))
}

/// One of the fields whose value must already be in use: its name, origin, and how to read and
/// render it.
struct Identity<T> {
    field: &'static str,
    origin: &'static str,
    own: fn(&SecurityContext) -> Option<T>,
    inherited: fn(&PodSecurityContext) -> Option<T>,
    render: fn(&T) -> String,
}

fn check_identity<T: Clone + Ord>(
    id: &Identity<T>,
    added: &Added<'_>,
    ctx: &Existing<'_>,
    errs: &mut ErrorList,
) {
    let mut allowed: BTreeSet<Option<T>> = podmut_model::order::set_from(
        ctx.contexts()
            .map(|sc| effective(sc, ctx.pod, id.own, id.inherited)),
    );
    if let Some(v) = ctx.pod.and_then(id.inherited) {
        allowed.insert(Some(v));
    }
    let value = effective(added.sc, added.pod, id.own, id.inherited);
    if allowed.contains(&value) {
        return;
    }
    let show = |v: &Option<T>| v.as_ref().map_or_else(|| "unset".to_owned(), id.render);
    let listed: Vec<String> = allowed.iter().map(show).collect();
    errs.push(
        FieldError::forbidden(
            &added.path.child(id.field),
            format!(
                "containers added to a running pod may only use the {} values an existing container or the pod's securityContext uses, not {} (in use: {})",
                id.field,
                show(&value),
                listed.join(", ")
            ),
        )
        .with_origin(id.origin),
    );
}

/// SELinux options as a comparable `user:role:type:level` (empty options are unset).
fn selinux(o: &SELinuxOptions) -> Option<[String; 4]> {
    let parts = [&o.user, &o.role, &o.type_, &o.level].map(|p| p.clone().unwrap_or_default());
    (!parts.iter().all(String::is_empty)).then_some(parts)
}

fn profile(type_: &str, localhost: Option<&String>) -> (String, String) {
    (type_.to_owned(), localhost.cloned().unwrap_or_default())
}

fn render_profile(p: &(String, String)) -> String {
    if p.1.is_empty() {
        p.0.clone()
    } else {
        format!("{}/{}", p.0, p.1)
    }
}

fn seccomp(p: &SeccompProfile) -> (String, String) {
    profile(&p.type_, p.localhost_profile.as_ref())
}

fn apparmor(p: &AppArmorProfile) -> (String, String) {
    profile(&p.type_, p.localhost_profile.as_ref())
}

fn check_identities(added: &Added<'_>, ctx: &Existing<'_>, errs: &mut ErrorList) {
    check_identity(
        &Identity {
            field: "seLinuxOptions",
            origin: "strict/se-linux-options",
            own: |s| s.se_linux_options.as_ref().and_then(selinux),
            inherited: |p| p.se_linux_options.as_ref().and_then(selinux),
            render: |p| p.join(":"),
        },
        added,
        ctx,
        errs,
    );
    check_identity(
        &Identity {
            field: "runAsUser",
            origin: "strict/run-as-user",
            own: |s| s.run_as_user,
            inherited: |p| p.run_as_user,
            render: i64::to_string,
        },
        added,
        ctx,
        errs,
    );
    check_identity(
        &Identity {
            field: "runAsGroup",
            origin: "strict/run-as-group",
            own: |s| s.run_as_group,
            inherited: |p| p.run_as_group,
            render: i64::to_string,
        },
        added,
        ctx,
        errs,
    );
    check_identity(
        &Identity {
            field: "seccompProfile",
            origin: "strict/seccomp-profile",
            own: |s| s.seccomp_profile.as_ref().map(seccomp),
            inherited: |p| p.seccomp_profile.as_ref().map(seccomp),
            render: render_profile,
        },
        added,
        ctx,
        errs,
    );
    check_identity(
        &Identity {
            field: "appArmorProfile",
            origin: "strict/app-armor-profile",
            own: |s| s.app_armor_profile.as_ref().map(apparmor),
            inherited: |p| p.app_armor_profile.as_ref().map(apparmor),
            render: render_profile,
        },
        added,
        ctx,
        errs,
    );
}

/// runAsNonRoot, readOnlyRootFilesystem (`true` when ALL existing containers have it) and
/// allowPrivilegeEscalation (`false` when ALL existing containers explicitly have it).
fn check_required_true(added: &Added<'_>, ctx: &Existing<'_>, errs: &mut ErrorList) {
    let non_root = |sc: Option<&SecurityContext>, pod: Option<&PodSecurityContext>| {
        effective(sc, pod, |s| s.run_as_non_root, |p| p.run_as_non_root) == Some(true)
    };
    if ctx.contexts().all(|sc| non_root(sc, ctx.pod)) && !non_root(added.sc, added.pod) {
        errs.push(
            FieldError::forbidden(
                &added.path.child("runAsNonRoot"),
                "containers added to a running pod must set runAsNonRoot: true (in its securityContext or the pod's): every existing container runs with it",
            )
            .with_origin("strict/run-as-non-root"),
        );
    }
    let read_only = |sc: Option<&SecurityContext>| sc.and_then(|s| s.read_only_root_filesystem) == Some(true);
    if ctx.contexts().all(read_only) && !read_only(added.sc) {
        errs.push(
            FieldError::forbidden(
                &added.path.child("readOnlyRootFilesystem"),
                "containers added to a running pod must set readOnlyRootFilesystem: true: every existing container sets it",
            )
            .with_origin("strict/read-only-root-filesystem"),
        );
    }
    let no_escalation =
        |sc: Option<&SecurityContext>| sc.and_then(|s| s.allow_privilege_escalation) == Some(false);
    if ctx.contexts().all(no_escalation) && !no_escalation(added.sc) {
        errs.push(
            FieldError::forbidden(
                &added.path.child("allowPrivilegeEscalation"),
                "containers added to a running pod must set allowPrivilegeEscalation: false (unset means true): every existing container sets it to false",
            )
            .with_origin("strict/allow-privilege-escalation"),
        );
    }
}

fn check_proc_mount(added: &Added<'_>, ctx: &Existing<'_>, errs: &mut ErrorList) {
    let unmasked =
        |sc: Option<&SecurityContext>| sc.and_then(|s| s.proc_mount.as_deref()) == Some("Unmasked");
    if unmasked(added.sc) && !ctx.contexts().any(unmasked) {
        errs.push(
            FieldError::forbidden(
                &added.path.child("procMount"),
                "containers added to a running pod may use procMount: Unmasked only when an existing container does; none does",
            )
            .with_origin("strict/proc-mount"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use podmut_model::document::parse_pod;
    use podmut_model::field::ErrorType;

    /// A running Pod whose `agent` container has `agent_sc`, and the same Pod with `tool` (with
    /// `tool_sc`) added.
    fn pods(pod_sc: &str, agent_sc: &str, tool_sc: &str) -> (Pod, Pod) {
        let base = format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: pool}}\nspec:\n  securityContext: {pod_sc}\n  containers:\n  - {{name: agent, image: a, securityContext: {agent_sc}}}\n"
        );
        let new = format!("{base}  - {{name: tool, image: t, securityContext: {tool_sc}}}\n");
        (
            parse_pod(&base, "old", 1 << 20).unwrap(),
            parse_pod(&new, "new", 1 << 20).unwrap(),
        )
    }

    fn check(pod_sc: &str, agent_sc: &str, tool_sc: &str) -> Vec<(String, &'static str)> {
        let (old, new) = pods(pod_sc, agent_sc, tool_sc);
        let tool = &new.spec.as_ref().unwrap().containers[1];
        check_added_container(tool, &Path::new("spec").child("containers").index(1), &new, &old)
            .into_iter()
            .inspect(|e| assert_eq!(e.error_type, ErrorType::Forbidden))
            .map(|e| (e.field.to_string(), e.origin))
            .collect()
    }

    #[test]
    fn capabilities_are_only_added_when_granted_and_dropped_when_all_drop() {
        assert_eq!(
            check(
                "{}",
                "{capabilities: {add: [NET_ADMIN]}}",
                "{capabilities: {add: [CAP_net_admin, SYS_ADMIN]}}"
            ),
            [(
                "spec.containers[1].securityContext.capabilities.add[1]".to_owned(),
                "strict/capabilities-add"
            )]
        );
        assert!(
            check(
                "{}",
                "{capabilities: {add: [ALL]}}",
                "{capabilities: {add: [SYS_ADMIN]}}"
            )
            .is_empty()
        );
        assert_eq!(
            check(
                "{}",
                "{capabilities: {drop: [NET_RAW, MKNOD]}}",
                "{capabilities: {drop: [NET_RAW]}}"
            ),
            [(
                "spec.containers[1].securityContext.capabilities.drop".to_owned(),
                "strict/capabilities-drop"
            )]
        );
        assert!(
            check(
                "{}",
                "{capabilities: {drop: [NET_RAW]}}",
                "{capabilities: {drop: [ALL]}}"
            )
            .is_empty()
        );
        assert_eq!(
            check(
                "{}",
                "{capabilities: {drop: [ALL]}}",
                "{capabilities: {drop: [NET_RAW]}}"
            )
            .len(),
            1
        );
    }

    #[test]
    fn identities_compare_effective_values() {
        // The tool inherits the pod's runAsUser: allowed, although the agent overrides it.
        assert!(check("{runAsUser: 1000}", "{runAsUser: 2000}", "{}").is_empty());
        assert!(check("{}", "{runAsUser: 2000}", "{runAsUser: 2000}").is_empty());
        assert_eq!(
            check("{}", "{runAsUser: 2000}", "{runAsUser: 0}"),
            [(
                "spec.containers[1].securityContext.runAsUser".to_owned(),
                "strict/run-as-user"
            )]
        );
        // Unset is a value of its own: not allowed when every existing container sets it.
        assert_eq!(check("{}", "{runAsUser: 2000}", "{}")[0].1, "strict/run-as-user");
        assert!(check("{}", "{}", "{}").is_empty());
        assert_eq!(
            check(
                "{}",
                "{seccompProfile: {type: RuntimeDefault}}",
                "{seccompProfile: {type: Unconfined}}"
            )[0]
            .1,
            "strict/seccomp-profile"
        );
        assert_eq!(
            check(
                "{}",
                "{seLinuxOptions: {type: container_t}}",
                "{seLinuxOptions: {type: spc_t}}"
            )[0]
            .1,
            "strict/se-linux-options"
        );
    }
}
