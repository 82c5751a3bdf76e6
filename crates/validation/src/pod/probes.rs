//! Probe and lifecycle-handler validation: `validateLivenessProbe`, `validateReadinessProbe`,
//! `validateStartupProbe`, `validateProbe`, `validateHandler`, `validateLifecycle` and the
//! handler actions (exec, httpGet, tcpSocket, grpc, sleep).
//!
//! Upstream: `pkg/apis/core/validation/validation.go`. Unset numeric probe fields are Go zero
//! values there (the API server defaults them before validation; with `--no-defaults` a probe
//! without `successThreshold` therefore fails "must be 1" for liveness and startup probes, exactly
//! as in upstream's unit tests).

use k8s_openapi::api::core::v1::{
    ExecAction, GRPCAction, HTTPGetAction, Lifecycle, LifecycleHandler, Probe, SleepAction, TCPSocketAction,
};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::pod::meta::IS_NEGATIVE;
use crate::pod::names::{self, invalid_each};
use crate::pod::util::{items, opt_str};
use podmut_model::field::{ErrorList, FieldError, Path};

/// Which probe of a container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProbeKind {
    /// `livenessProbe`.
    Liveness,
    /// `readinessProbe`.
    Readiness,
    /// `startupProbe`.
    Startup,
}

impl ProbeKind {
    /// All three, in upstream's validation order.
    pub(crate) const ALL: [ProbeKind; 3] = [ProbeKind::Liveness, ProbeKind::Readiness, ProbeKind::Startup];

    /// The JSON field name.
    pub(crate) fn field(self) -> &'static str {
        match self {
            ProbeKind::Liveness => "livenessProbe",
            ProbeKind::Readiness => "readinessProbe",
            ProbeKind::Startup => "startupProbe",
        }
    }

    /// The probe of this kind on a container.
    pub(crate) fn of(self, c: &k8s_openapi::api::core::v1::Container) -> Option<&Probe> {
        match self {
            ProbeKind::Liveness => c.liveness_probe.as_ref(),
            ProbeKind::Readiness => c.readiness_probe.as_ref(),
            ProbeKind::Startup => c.startup_probe.as_ref(),
        }
    }

    /// The probe of this kind on a container, mutably.
    pub(crate) fn of_mut(self, c: &mut k8s_openapi::api::core::v1::Container) -> &mut Option<Probe> {
        match self {
            ProbeKind::Liveness => &mut c.liveness_probe,
            ProbeKind::Readiness => &mut c.readiness_probe,
            ProbeKind::Startup => &mut c.startup_probe,
        }
    }
}

/// Upstream's `commonHandler`: the actions a probe or lifecycle handler may name.
#[derive(Default)]
struct CommonHandler<'a> {
    exec: Option<&'a ExecAction>,
    http_get: Option<&'a HTTPGetAction>,
    tcp_socket: Option<&'a TCPSocketAction>,
    grpc: Option<&'a GRPCAction>,
    sleep: Option<&'a SleepAction>,
}

/// Validate the probe of `kind` at `path` (`validateLivenessProbe` / `validateReadinessProbe` /
/// `validateStartupProbe`): the common probe checks, then liveness and startup probes need
/// `successThreshold` 1 and readiness probes may not set `terminationGracePeriodSeconds`.
pub(crate) fn validate_probe_of_kind(
    kind: ProbeKind,
    probe: Option<&Probe>,
    grace_period: Option<i64>,
    path: &Path,
) -> ErrorList {
    let Some(probe) = probe else {
        return ErrorList::new();
    };
    let mut errs = validate_probe(probe, grace_period, path);
    match kind {
        ProbeKind::Liveness | ProbeKind::Startup => {
            let st = probe.success_threshold.unwrap_or(0);
            if st != 1 {
                errs.push(
                    FieldError::invalid(&path.child("successThreshold"), st, "must be 1")
                        .with_origin("probe/success-threshold-one"),
                );
            }
        }
        ProbeKind::Readiness => {
            if let Some(tgps) = probe.termination_grace_period_seconds {
                errs.push(
                    FieldError::invalid(
                        &path.child("terminationGracePeriodSeconds"),
                        tgps,
                        "must not be set for readinessProbes",
                    )
                    .with_origin("probe/readiness-no-grace-period"),
                );
            }
        }
    }
    errs
}

/// `validateProbe`: exactly one handler, non-negative numbers, a positive probe-level grace period.
pub(crate) fn validate_probe(probe: &Probe, grace_period: Option<i64>, path: &Path) -> ErrorList {
    let handler = CommonHandler {
        exec: probe.exec.as_ref(),
        http_get: probe.http_get.as_ref(),
        tcp_socket: probe.tcp_socket.as_ref(),
        grpc: probe.grpc.as_ref(),
        sleep: None,
    };
    // Probe handlers have no sleep action, so the sleep option does not matter here.
    let mut errs = validate_handler(&handler, grace_period, true, path);
    for (field, value) in [
        ("initialDelaySeconds", probe.initial_delay_seconds),
        ("timeoutSeconds", probe.timeout_seconds),
        ("periodSeconds", probe.period_seconds),
        ("successThreshold", probe.success_threshold),
        ("failureThreshold", probe.failure_threshold),
    ] {
        let v = value.unwrap_or(0);
        if v < 0 {
            errs.push(
                FieldError::invalid(&path.child(field), v, IS_NEGATIVE).with_origin("probe/non-negative"),
            );
        }
    }
    if let Some(t) = probe.termination_grace_period_seconds
        && t <= 0
    {
        errs.push(
            FieldError::invalid(
                &path.child("terminationGracePeriodSeconds"),
                t,
                "must be greater than 0",
            )
            .with_origin("probe/grace-period-positive"),
        );
    }
    errs
}

/// `validateLifecycle`: each of postStart / preStop is a handler (exec, httpGet, tcpSocket or sleep).
///
/// `allow_sleep_zero` is `AllowPodLifecycleSleepActionZeroValue`.
pub(crate) fn validate_lifecycle(
    lifecycle: &Lifecycle,
    grace_period: Option<i64>,
    allow_sleep_zero: bool,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    for (field, h) in [
        ("postStart", &lifecycle.post_start),
        ("preStop", &lifecycle.pre_stop),
    ] {
        if let Some(h) = h {
            errs.extend(validate_handler(
                &handler_from_lifecycle(h),
                grace_period,
                allow_sleep_zero,
                &path.child(field),
            ));
        }
    }
    errs
}

fn handler_from_lifecycle(h: &LifecycleHandler) -> CommonHandler<'_> {
    CommonHandler {
        exec: h.exec.as_ref(),
        http_get: h.http_get.as_ref(),
        tcp_socket: h.tcp_socket.as_ref(),
        grpc: None,
        sleep: h.sleep.as_ref(),
    }
}

/// `validateHandler`: exactly one handler type (`Forbidden` on each extra one, `Required` when none).
fn validate_handler(
    h: &CommonHandler<'_>,
    grace_period: Option<i64>,
    allow_sleep_zero: bool,
    path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut count = 0;
    let mut one =
        |errs: &mut ErrorList, field: &'static str, present: bool, check: &dyn Fn(&Path) -> ErrorList| {
            if !present {
                return;
            }
            let p = path.child(field);
            if count > 0 {
                errs.push(
                    FieldError::forbidden(&p, "may not specify more than 1 handler type")
                        .with_origin("probe/one-handler"),
                );
            } else {
                count += 1;
                errs.extend(check(&p));
            }
        };
    one(&mut errs, "exec", h.exec.is_some(), &|p| {
        h.exec.map(|e| validate_exec(e, p)).unwrap_or_default()
    });
    one(&mut errs, "httpGet", h.http_get.is_some(), &|p| {
        h.http_get.map(|g| validate_http_get(g, p)).unwrap_or_default()
    });
    one(&mut errs, "tcpSocket", h.tcp_socket.is_some(), &|p| {
        h.tcp_socket
            .map(|t| validate_port_num_or_name(&t.port, &p.child("port")))
            .unwrap_or_default()
    });
    one(&mut errs, "grpc", h.grpc.is_some(), &|p| {
        // validateGRPCAction: ValidatePortNumOrName(intstr.FromInt32(port)).
        h.grpc
            .map(|g| validate_port_num_or_name(&IntOrString::Int(g.port), &p.child("port")))
            .unwrap_or_default()
    });
    one(&mut errs, "sleep", h.sleep.is_some(), &|p| {
        h.sleep
            .map(|s| validate_sleep(s, grace_period, allow_sleep_zero, p))
            .unwrap_or_default()
    });
    if count == 0 {
        errs.push(
            FieldError::required(path, "must specify a handler type").with_origin("probe/handler-required"),
        );
    }
    errs
}

fn validate_exec(exec: &ExecAction, path: &Path) -> ErrorList {
    if items(&exec.command).is_empty() {
        vec![FieldError::required(&path.child("command"), "").with_origin("probe/exec-command")]
    } else {
        ErrorList::new()
    }
}

fn validate_http_get(h: &HTTPGetAction, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    if opt_str(&h.path).is_empty() {
        errs.push(FieldError::required(&path.child("path"), "").with_origin("probe/http-path"));
    }
    errs.extend(validate_port_num_or_name(&h.port, &path.child("port")));
    let scheme = opt_str(&h.scheme);
    if scheme != "HTTP" && scheme != "HTTPS" {
        errs.push(
            FieldError::not_supported(&path.child("scheme"), scheme, &["HTTP", "HTTPS"])
                .with_origin("probe/http-scheme"),
        );
    }
    for header in items(&h.http_headers) {
        errs.extend(invalid_each(
            &path.child("httpHeaders"),
            &header.name,
            names::is_http_header_name(&header.name),
            "probe/http-header",
        ));
    }
    errs
}

/// `validateSleepAction`: with `AllowPodLifecycleSleepActionZeroValue` (gate
/// `PodLifecycleSleepActionAllowZero`, or a zero sleep already in the old Pod) 0 ≤ seconds ≤ grace
/// period, else 0 < seconds ≤ grace period.
fn validate_sleep(
    sleep: &SleepAction,
    grace_period: Option<i64>,
    allow_zero: bool,
    path: &Path,
) -> ErrorList {
    let Some(g) = grace_period else {
        return ErrorList::new();
    };
    let detail = if allow_zero && (sleep.seconds < 0 || sleep.seconds > g) {
        format!("must be non-negative and less than terminationGracePeriodSeconds ({g})")
    } else if !allow_zero && (sleep.seconds <= 0 || sleep.seconds > g) {
        format!(
            "must be greater than 0 and less than terminationGracePeriodSeconds ({g}). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep."
        )
    } else {
        return ErrorList::new();
    };
    vec![FieldError::invalid(path, sleep.seconds, detail).with_origin("probe/sleep-seconds")]
}

/// `ValidatePortNumOrName`.
pub(crate) fn validate_port_num_or_name(port: &IntOrString, path: &Path) -> ErrorList {
    match port {
        IntOrString::Int(n) => names::is_valid_port_num(i64::from(*n))
            .into_iter()
            .map(|m| FieldError::invalid(path, *n, m).with_origin("probe/port"))
            .collect(),
        IntOrString::String(s) => invalid_each(path, s, names::is_valid_port_name(s), "probe/port"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pod::util::{Want, summary, wanted};
    use podmut_model::field::ErrorType;

    fn probe(yaml: &str) -> Probe {
        serde_yaml_ng::from_str(yaml).unwrap()
    }

    #[test]
    fn probe_cases() {
        let p = Path::new("p");
        let cases: &[(&str, ProbeKind, &str, &[Want])] = &[
            (
                "valid tcp liveness",
                ProbeKind::Liveness,
                "{tcpSocket: {port: 80}, successThreshold: 1}",
                &[],
            ),
            (
                "no handler",
                ProbeKind::Readiness,
                "{periodSeconds: 1}",
                &[(ErrorType::Required, "p", "probe/handler-required")],
            ),
            (
                "two handlers",
                ProbeKind::Readiness,
                "{exec: {command: [a]}, tcpSocket: {port: 80}}",
                &[(ErrorType::Forbidden, "p.tcpSocket", "probe/one-handler")],
            ),
            (
                "liveness success threshold",
                ProbeKind::Liveness,
                "{tcpSocket: {port: 80}, successThreshold: 2}",
                &[(
                    ErrorType::Invalid,
                    "p.successThreshold",
                    "probe/success-threshold-one",
                )],
            ),
            (
                "startup success threshold unset (not defaulted)",
                ProbeKind::Startup,
                "{tcpSocket: {port: 80}}",
                &[(
                    ErrorType::Invalid,
                    "p.successThreshold",
                    "probe/success-threshold-one",
                )],
            ),
            (
                "readiness grace period",
                ProbeKind::Readiness,
                "{tcpSocket: {port: 80}, terminationGracePeriodSeconds: 10}",
                &[(
                    ErrorType::Invalid,
                    "p.terminationGracePeriodSeconds",
                    "probe/readiness-no-grace-period",
                )],
            ),
            (
                "http without path and scheme",
                ProbeKind::Readiness,
                "{httpGet: {port: 0}}",
                &[
                    (ErrorType::Required, "p.httpGet.path", "probe/http-path"),
                    (ErrorType::Invalid, "p.httpGet.port", "probe/port"),
                    (ErrorType::NotSupported, "p.httpGet.scheme", "probe/http-scheme"),
                ],
            ),
            (
                "named port must be a port name",
                ProbeKind::Readiness,
                "{tcpSocket: {port: '80x!'}}",
                &[(ErrorType::Invalid, "p.tcpSocket.port", "probe/port")],
            ),
            (
                "grpc port out of range",
                ProbeKind::Readiness,
                "{grpc: {port: 70000}}",
                &[(ErrorType::Invalid, "p.grpc.port", "probe/port")],
            ),
        ];
        for (name, kind, yaml, want) in cases {
            let got = summary(&validate_probe_of_kind(*kind, Some(&probe(yaml)), Some(30), &p));
            let want = wanted(want);
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn negative_numbers_match_upstream_order() {
        let p = Path::new("containers").index(0).child("readinessProbe");
        let pr = probe(
            "{tcpSocket: {port: 80}, initialDelaySeconds: -1, timeoutSeconds: -1, periodSeconds: -1, successThreshold: -1, failureThreshold: -1, terminationGracePeriodSeconds: -1}",
        );
        let got: Vec<String> = validate_probe_of_kind(ProbeKind::Readiness, Some(&pr), Some(30), &p)
            .iter()
            .map(|e| e.field.to_string())
            .collect();
        let base = "containers[0].readinessProbe.";
        let want: Vec<String> = [
            "initialDelaySeconds",
            "timeoutSeconds",
            "periodSeconds",
            "successThreshold",
            "failureThreshold",
            "terminationGracePeriodSeconds",
            "terminationGracePeriodSeconds",
        ]
        .iter()
        .map(|f| format!("{base}{f}"))
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn lifecycle_sleep() {
        let l: Lifecycle =
            serde_yaml_ng::from_str("{preStop: {sleep: {seconds: 40}}, postStart: {sleep: {seconds: 0}}}")
                .unwrap();
        let errs = validate_lifecycle(&l, Some(30), true, &Path::new("l"));
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field.to_string(), "l.preStop.sleep");
        assert_eq!(errs[0].origin, "probe/sleep-seconds");
    }
}
