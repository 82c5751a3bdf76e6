//! `pods/status`: which terminated containers may leave the terminated state
//! (`ValidateContainerStateTransition`, `ValidateInitContainerStateTransition`,
//! `ValidateEphemeralContainerStateTransition`).
//!
//! Without container restart rules the pod's `restartPolicy` decides (`Always`: any container may
//! restart; `OnFailure`: one that failed may; restartable init containers always may). With them
//! (`AllowContainerRestartPolicyRules`) each container's own rules and policy decide
//! (`ContainerShouldRestart`, `pkg/api/v1/pod/util.go`), for init containers too, with the
//! `ContainerRestartRules` gate or when the old Pod already uses them.

use k8s_openapi::api::core::v1::{Container, ContainerStatus, PodSpec};

use podmut_model::field::{ErrorList, FieldError, Path};
use podmut_model::podutil::is_restartable_init;
use podmut_model::settings::{Gate, Settings};

/// The rule action that restarts the whole Pod (alpha `RestartAllContainersOnContainerExits`).
const RESTART_ALL: &str = "RestartAllContainers";

/// Which of the two upstream algorithms judges a status list.
#[derive(Clone, Copy)]
enum Judge<'a> {
    /// The pod's `restartPolicy`; `init` lists the init containers when the statuses are theirs
    /// (a restartable one may restart).
    Policy {
        policy: &'a str,
        init: Option<&'a [Container]>,
    },
    /// Each container's restart rules and policy, then the pod's; `containers` is the spec list
    /// the statuses belong to.
    Rules {
        containers: &'a [Container],
        pod_policy: &'a str,
    },
}

/// What the three state-transition validations need to know about a request.
pub(super) struct Transitions<'a> {
    spec: &'a PodSpec,
    rules: bool,
    rules_for_init: bool,
}

impl<'a> Transitions<'a> {
    /// The transitions of a status update of a Pod whose stored spec is `old_spec`.
    pub(super) fn new(old_spec: &'a PodSpec, settings: &Settings) -> Self {
        let rules = settings.gate(Gate::ContainerRestartRules) || restart_rules_in_use(old_spec);
        Self {
            spec: old_spec,
            rules,
            rules_for_init: rules,
        }
    }

    /// `ValidateContainerStateTransition` of `status.containerStatuses`.
    pub(super) fn containers(
        &self,
        new: &[ContainerStatus],
        old: &[ContainerStatus],
        path: &Path,
    ) -> ErrorList {
        if self.rules {
            if self.all_could_restart() {
                return ErrorList::new();
            }
            return judge(new, old, path, self.rules_judge(&self.spec.containers));
        }
        judge(
            new,
            old,
            path,
            Judge::Policy {
                policy: self.pod_policy(),
                init: None,
            },
        )
    }

    /// `ValidateInitContainerStateTransition` of `status.initContainerStatuses`.
    pub(super) fn init_containers(
        &self,
        new: &[ContainerStatus],
        old: &[ContainerStatus],
        path: &Path,
    ) -> ErrorList {
        let init = self.spec.init_containers.as_deref().unwrap_or_default();
        if self.rules_for_init {
            if self.all_could_restart() {
                return ErrorList::new();
            }
            return judge(new, old, path, self.rules_judge(init));
        }
        judge(
            new,
            old,
            path,
            Judge::Policy {
                policy: self.pod_policy(),
                init: Some(init),
            },
        )
    }

    fn pod_policy(&self) -> &'a str {
        self.spec.restart_policy.as_deref().unwrap_or("")
    }

    fn rules_judge(&self, containers: &'a [Container]) -> Judge<'a> {
        Judge::Rules {
            containers,
            pod_policy: self.pod_policy(),
        }
    }

    /// `AllowRestartAllContainers && AllContainersCouldRestart`: the alpha gate is not one podmut
    /// knows (off), so only an old Pod that already has such a rule allows it.
    fn all_could_restart(&self) -> bool {
        restart_all_in_use(self.spec) && all_containers_could_restart(self.spec)
    }
}

/// `ValidateEphemeralContainerStateTransition`: the kubelet never restarts an ephemeral container.
pub(super) fn ephemeral(new: &[ContainerStatus], old: &[ContainerStatus], path: &Path) -> ErrorList {
    judge(
        new,
        old,
        path,
        Judge::Policy {
            policy: "Never",
            init: None,
        },
    )
}

fn terminated_exit_code(s: &ContainerStatus) -> Option<i32> {
    s.state
        .as_ref()
        .and_then(|st| st.terminated.as_ref())
        .map(|t| t.exit_code)
}

fn running_again(old: &ContainerStatus, new: &ContainerStatus) -> bool {
    new.name == old.name && terminated_exit_code(new).is_none()
}

fn forbidden(path: &Path) -> FieldError {
    FieldError::forbidden(
        &path.child("state"),
        "may not be transitioned to non-terminated state",
    )
    .with_origin("status/state-transition")
}

/// The errors of one status list: each old terminated status (index `i`) that a new status of the
/// same name leaves the terminated state without being allowed to.
fn judge(new: &[ContainerStatus], old: &[ContainerStatus], path: &Path, how: Judge<'_>) -> ErrorList {
    if matches!(how, Judge::Policy { policy: "Always", .. }) {
        return ErrorList::new();
    }
    let mut errs = ErrorList::new();
    for (i, o) in old.iter().enumerate() {
        let Some(exit_code) = terminated_exit_code(o) else {
            continue;
        };
        match how {
            Judge::Policy { policy, init } => {
                if exit_code != 0 && policy == "OnFailure" {
                    continue;
                }
                if init.is_some_and(|init| restartable_init(init, o)) {
                    continue;
                }
                // every new status of that name counts, as upstream's loop does not stop
                let count = new.iter().filter(|n| running_again(o, n)).count();
                errs.extend(std::iter::repeat_with(|| forbidden(&path.index(i))).take(count));
            }
            Judge::Rules {
                containers,
                pod_policy,
            } => {
                if new.iter().any(|n| running_again(o, n))
                    && !rules_allow(containers, pod_policy, o, exit_code)
                {
                    errs.push(forbidden(&path.index(i)));
                }
            }
        }
    }
    errs
}

/// The first init container of the status's name is a restartable one.
fn restartable_init(init: &[Container], status: &ContainerStatus) -> bool {
    init.iter()
        .find(|c| c.name == status.name)
        .is_some_and(is_restartable_init)
}

/// `ContainerShouldRestart` of the container the status names (none: not allowed).
fn rules_allow(containers: &[Container], pod_policy: &str, status: &ContainerStatus, exit_code: i32) -> bool {
    containers
        .iter()
        .find(|c| c.name == status.name)
        .is_some_and(|c| container_should_restart(c, exit_code, pod_policy))
}

/// `ContainerShouldRestart(container, pod, exitCode)`: the first matching rule (`Restart`
/// restarts; `RestartAllContainers` only with its alpha gate, off here), else the container's
/// policy, else the pod's (`pod_policy`; anything else is read as the default, `Always`).
fn container_should_restart(c: &Container, exit_code: i32, pod_policy: &str) -> bool {
    if let Some(policy) = c.restart_policy.as_deref() {
        if matching_rule_action(c, exit_code) == Some("Restart") {
            return true;
        }
        match policy {
            "Always" => return true,
            "OnFailure" => return exit_code != 0,
            "Never" => return false,
            _ => {}
        }
    }
    match pod_policy {
        "OnFailure" => exit_code != 0,
        "Never" => false,
        _ => true,
    }
}

/// `FindMatchingContainerRestartRule`: the action of the first rule whose exit codes match.
fn matching_rule_action(c: &Container, exit_code: i32) -> Option<&str> {
    c.restart_policy_rules.iter().flatten().find_map(|r| {
        let codes = r.exit_codes.as_ref()?;
        let listed = codes.values.iter().flatten().any(|v| *v == exit_code);
        let hit = match codes.operator.as_str() {
            "In" => listed,
            "NotIn" => !listed,
            _ => false,
        };
        hit.then_some(r.action.as_str())
    })
}

/// `containerRestartRulesInUse`: a non-`Always` init policy, init rules, or any regular container
/// policy in the old spec.
fn restart_rules_in_use(spec: &PodSpec) -> bool {
    spec.init_containers.iter().flatten().any(|c| {
        c.restart_policy.as_deref().is_some_and(|p| p != "Always")
            || c.restart_policy_rules.as_ref().is_some_and(|r| !r.is_empty())
    }) || spec.containers.iter().any(|c| c.restart_policy.is_some())
}

fn has_restart_all(c: &Container) -> bool {
    c.restart_policy_rules
        .iter()
        .flatten()
        .any(|r| r.action == RESTART_ALL)
}

/// `restartAllContainersActionInUse`.
fn restart_all_in_use(spec: &PodSpec) -> bool {
    spec.containers.iter().any(has_restart_all)
        || spec.init_containers.iter().flatten().any(|c| {
            has_restart_all(c)
                || (is_restartable_init(c) && c.restart_policy_rules.as_ref().is_some_and(|r| !r.is_empty()))
        })
}

/// `AllContainersCouldRestart`.
fn all_containers_could_restart(spec: &PodSpec) -> bool {
    spec.init_containers
        .iter()
        .flatten()
        .chain(&spec.containers)
        .any(has_restart_all)
}
