//! Container-level restart policies and rules (KEP-5307, gate `ContainerRestartRules`: alpha in
//! 1.34, beta and on in 1.35): `validateContainerRestartPolicy` and
//! `validateInitContainerRestartPolicy`, and what `validateContainers` says about a regular
//! container's `restartPolicy`.
//!
//! Upstream: `pkg/apis/core/validation/validation.go`.

use k8s_openapi::api::core::v1::{Container, ContainerRestartRule};

use crate::pod::options::PodValidationOptions;
use crate::pod::util::items;
use podmut_model::field::{ErrorList, FieldError, Path};

/// `supportedContainerRestartPolicies`, sorted as `sets.List` sorts them.
const RESTART_POLICIES: [&str; 3] = ["Always", "Never", "OnFailure"];
/// `supportedContainerRestartPolicyOperators`, sorted.
const OPERATORS: [&str; 2] = ["In", "NotIn"];
/// The most rules a container may have.
const MAX_RULES: usize = 20;
/// The most exit codes a rule may list.
const MAX_EXIT_CODES: usize = 255;

/// `validateContainers`' part: with `AllowContainerRestartPolicyRules`, the policy and rules of a
/// regular container are checked; without it a `restartPolicy` is forbidden (upstream drops the
/// field first unless the old Pod uses it; podmut reports it rather than ignore it silently).
pub(crate) fn validate_regular_restart_policy(
    c: &Container,
    path: &Path,
    opts: &PodValidationOptions,
) -> ErrorList {
    if opts.allow_container_restart_policy_rules {
        return validate_container_restart_policy(c, path, opts);
    }
    if c.restart_policy.is_none() {
        return ErrorList::new();
    }
    vec![
        FieldError::forbidden(
            &path.child("restartPolicy"),
            "may not be set for non-init containers",
        )
        .with_origin("container/restart-policy-forbidden"),
    ]
}

/// `validateInitContainerRestartPolicy`: rules need a policy; with
/// `AllowContainerRestartPolicyRules` a sidecar (`Always`) may have rules only with
/// `AllowRestartAllContainers`, and any other policy is checked like a regular container's;
/// without it the only policy is `Always`.
pub(crate) fn validate_init_container_restart_policy(
    c: &Container,
    path: &Path,
    opts: &PodValidationOptions,
) -> ErrorList {
    let rules = items(&c.restart_policy_rules);
    let Some(policy) = c.restart_policy.as_deref() else {
        return if rules.is_empty() {
            ErrorList::new()
        } else {
            vec![policy_required(path)]
        };
    };
    if !opts.allow_container_restart_policy_rules {
        return if policy == "Always" {
            ErrorList::new()
        } else {
            vec![
                FieldError::not_supported(&path.child("restartPolicy"), policy, &["Always"])
                    .with_origin("container/init-restart-policy"),
            ]
        };
    }
    if policy != "Always" || opts.allow_restart_all_containers {
        return validate_container_restart_policy(c, path, opts);
    }
    if rules.is_empty() {
        return ErrorList::new();
    }
    vec![
        FieldError::forbidden(
            &path.child("restartPolicyRules"),
            "restartPolicyRules are not allowed for init containers with restart policy Always",
        )
        .with_origin("container/restart-policy-rules"),
    ]
}

/// `validateContainerRestartPolicy`: a supported policy (required when there are rules), at most
/// 20 rules, each with a supported action and an `exitCodes` of a supported operator and at most
/// 255 values.
fn validate_container_restart_policy(c: &Container, path: &Path, opts: &PodValidationOptions) -> ErrorList {
    let rules = items(&c.restart_policy_rules);
    let mut errs = ErrorList::new();
    match c.restart_policy.as_deref() {
        None if rules.is_empty() => return errs,
        None => errs.push(policy_required(path)),
        Some(p) if !RESTART_POLICIES.contains(&p) => errs.push(
            FieldError::not_supported(&path.child("restartPolicy"), p, &RESTART_POLICIES)
                .with_origin("container/restart-policy"),
        ),
        Some(_) => {}
    }
    let rules_path = path.child("restartPolicyRules");
    if rules.len() > MAX_RULES {
        errs.push(
            too_many(&rules_path, rules.len(), MAX_RULES, opts).with_origin("container/restart-policy-rules"),
        );
    }
    for (i, rule) in rules.iter().enumerate() {
        errs.extend(validate_rule(rule, &rules_path.index(i), opts));
    }
    errs
}

/// Too many rules or exit codes: `field.TooLong` in 1.35 ("may not be more than N bytes" as
/// podmut's `too_long` words it), `field.TooMany` from 1.36.
fn too_many(path: &Path, actual: usize, max: usize, opts: &PodValidationOptions) -> FieldError {
    if opts.release >= 36 {
        FieldError::too_many(path, actual, max)
    } else {
        FieldError::too_long(path, max)
    }
}

/// One rule: its action (`Restart`, and `RestartAllContainers` with `AllowRestartAllContainers`;
/// the message lists only `Restart` either way in 1.35, the allowed actions from 1.36) and its
/// `exitCodes`.
fn validate_rule(rule: &ContainerRestartRule, path: &Path, opts: &PodValidationOptions) -> ErrorList {
    let origin = "container/restart-policy-rules";
    let mut errs = ErrorList::new();
    let allowed = rule.action == "Restart"
        || (opts.allow_restart_all_containers && rule.action == "RestartAllContainers");
    if !allowed {
        let listed: &[&str] = if opts.release >= 36 && opts.allow_restart_all_containers {
            &["Restart", "RestartAllContainers"]
        } else {
            &["Restart"]
        };
        errs.push(
            FieldError::not_supported(&path.child("action"), rule.action.as_str(), listed)
                .with_origin(origin),
        );
    }
    let Some(codes) = &rule.exit_codes else {
        errs.push(FieldError::required(&path.child("exitCodes"), "must be specified").with_origin(origin));
        return errs;
    };
    let codes_path = path.child("exitCodes");
    if !OPERATORS.contains(&codes.operator.as_str()) {
        errs.push(
            FieldError::not_supported(&codes_path.child("operator"), codes.operator.as_str(), &OPERATORS)
                .with_origin(origin),
        );
    }
    let values = items(&codes.values).len();
    if values > MAX_EXIT_CODES {
        errs.push(too_many(&codes_path.child("values"), values, MAX_EXIT_CODES, opts).with_origin(origin));
    }
    errs
}

/// Rules without a restart policy.
fn policy_required(path: &Path) -> FieldError {
    FieldError::required(
        &path.child("restartPolicy"),
        "must specify restartPolicy when restart rules are used",
    )
    .with_origin("container/restart-policy")
}

#[cfg(test)]
mod tests {
    use super::*;
    use podmut_model::field::ErrorType;

    fn container(yaml: &str) -> Container {
        serde_yaml_ng::from_str(yaml).unwrap()
    }

    fn on() -> PodValidationOptions {
        PodValidationOptions {
            allow_container_restart_policy_rules: true,
            ..PodValidationOptions::default()
        }
    }

    fn fields(errs: &ErrorList) -> Vec<(ErrorType, String)> {
        errs.iter().map(|e| (e.error_type, e.field.to_string())).collect()
    }

    #[test]
    fn regular_containers_take_a_policy_with_the_gate() {
        let p = Path::new("spec").child("containers").index(0);
        let c = container("{name: a, restartPolicy: OnFailure}");
        assert!(validate_regular_restart_policy(&c, &p, &on()).is_empty());
        let off = validate_regular_restart_policy(&c, &p, &PodValidationOptions::default());
        assert_eq!(
            fields(&off),
            vec![(
                ErrorType::Forbidden,
                "spec.containers[0].restartPolicy".to_owned()
            )]
        );
        let bad = container("{name: a, restartPolicy: Sometimes}");
        assert_eq!(
            fields(&validate_regular_restart_policy(&bad, &p, &on())),
            vec![(
                ErrorType::NotSupported,
                "spec.containers[0].restartPolicy".to_owned()
            )]
        );
    }

    #[test]
    fn rules_are_checked() {
        let p = Path::new("spec").child("initContainers").index(0);
        let c = container(
            "{name: a, restartPolicyRules: [{action: Stop, exitCodes: {operator: Is, values: [1]}}, {action: Restart}]}",
        );
        assert_eq!(
            fields(&validate_init_container_restart_policy(&c, &p, &on())),
            vec![(
                ErrorType::Required,
                "spec.initContainers[0].restartPolicy".to_owned()
            )]
        );
        let c = container(
            "{name: a, restartPolicy: Never, restartPolicyRules: [{action: Stop, exitCodes: {operator: Is, values: [1]}}, {action: Restart}]}",
        );
        let rules = "spec.initContainers[0].restartPolicyRules";
        assert_eq!(
            fields(&validate_init_container_restart_policy(&c, &p, &on())),
            vec![
                (ErrorType::NotSupported, format!("{rules}[0].action")),
                (ErrorType::NotSupported, format!("{rules}[0].exitCodes.operator")),
                (ErrorType::Required, format!("{rules}[1].exitCodes")),
            ]
        );
        let sidecar = container("{name: a, restartPolicy: Always, restartPolicyRules: [{action: Restart}]}");
        assert_eq!(
            fields(&validate_init_container_restart_policy(&sidecar, &p, &on())),
            vec![(ErrorType::Forbidden, rules.to_owned())]
        );
        let on_failure = container("{name: a, restartPolicy: OnFailure}");
        assert!(validate_init_container_restart_policy(&on_failure, &p, &on()).is_empty());
        assert_eq!(
            fields(&validate_init_container_restart_policy(
                &on_failure,
                &p,
                &PodValidationOptions::default()
            )),
            vec![(
                ErrorType::NotSupported,
                "spec.initContainers[0].restartPolicy".to_owned()
            )]
        );
    }
}
