//! Each workload kind's own rules around its Pod template, as the API server runs them on a
//! create and an update: `pkg/apis/apps/validation` (Deployment, ReplicaSet, StatefulSet,
//! DaemonSet), `pkg/apis/batch/validation` (Job, CronJob) and `pkg/apis/core/validation`
//! (ReplicationController, PodTemplate). The template itself is `ValidatePodTemplateSpec`
//! ([`crate::pod::validate_pod_template_spec`]).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::pod::PodValidationOptions;
use crate::pod::scheduling::validate_label_selector;
use crate::pod::util::opt_str;
use crate::selector;
use crate::workload::nonnegative;
use podmut_model::field::{BadValue, ErrorList, FieldError, Path};
use podmut_model::gojson::Ty;
use podmut_model::workload::{Workload, WorkloadKind};

/// The Pod a template makes (its metadata and spec), as the shared Pod rules read it.
pub(crate) use podmut_model::workload::template_pod;

/// A template's labels as upstream prints them (`map[string]string{...}`).
fn labels_value(labels: Option<&BTreeMap<String, String>>) -> BadValue {
    BadValue::go(&labels, &Ty::Map(&Ty::String))
}

/// `selector does not match template labels`, when the selector converts, is not empty and does
/// not select the template's labels.
fn selector_matches_template(sel: Option<&LabelSelector>, template: &Pod, path: &Path) -> ErrorList {
    let labels = template.metadata.labels.clone().unwrap_or_default();
    // `!selector.Empty() && !selector.Matches(labels)`: an empty selector is not compared.
    if !selector::converts(sel) || sel.is_some_and(selector::is_empty) || selector::selects(sel, &labels) {
        return ErrorList::new();
    }
    vec![
        FieldError::invalid(
            &path.child("metadata").child("labels"),
            labels_value(template.metadata.labels.as_ref()),
            "`selector` does not match template `labels`",
        )
        .with_origin("workload/selector-match"),
    ]
}

/// The selector of an apps/v1 kind: required, valid, not empty (`for_kind` names the kind in the
/// message, `deployment` for ReplicaSets too as upstream words it).
fn apps_selector(sel: Option<&LabelSelector>, path: &Path, for_kind: &str) -> ErrorList {
    let Some(s) = sel else {
        return vec![FieldError::required(path, "").with_origin("workload/selector-required")];
    };
    let mut errs = validate_label_selector(Some(s), false, path);
    if selector::is_empty(s) {
        errs.push(
            FieldError::invalid(
                path,
                BadValue::Omit,
                format!("empty selector is invalid for {for_kind}"),
            )
            .with_origin("workload/selector-empty"),
        );
    }
    errs
}

/// The template rules of a kind whose Pods always restart (`ValidatePodTemplateSpecForReplicaSet`
/// and its kin): restartPolicy `Always`, no activeDeadlineSeconds.
fn always_restarting(template: &Pod, path: &Path, kind: &str) -> ErrorList {
    let spec = podmut_model::podutil::spec(template);
    let mut errs = ErrorList::new();
    let policy = opt_str(&spec.restart_policy);
    if policy != "Always" {
        errs.push(
            FieldError::not_supported(&path.child("spec").child("restartPolicy"), policy, &["Always"])
                .with_origin("workload/restart-policy"),
        );
    }
    if spec.active_deadline_seconds.is_some() {
        errs.push(
            FieldError::forbidden(
                &path.child("spec").child("activeDeadlineSeconds"),
                format!("activeDeadlineSeconds in {kind} is not Supported"),
            )
            .with_origin("workload/active-deadline"),
        );
    }
    errs
}

/// What one workload's validation needs besides the workload.
pub(crate) struct Context<'a> {
    /// The template's Pod-validation options.
    pub(crate) opts: &'a PodValidationOptions,
    /// Whether the document gave `spec.selector` (k8s-openapi decodes a missing required selector
    /// as an empty one; upstream tells the two apart).
    pub(crate) selector_given: bool,
}

/// The spec rules of `w` (its template validated with `ctx.opts`).
pub(crate) fn validate_spec(w: &Workload, ctx: &Context<'_>) -> ErrorList {
    let spec = Path::new("spec");
    let template = template_pod(w.template());
    let tpath = w.kind().template_path();
    let opts = ctx.opts;
    let sel_given = |s: &LabelSelector| ctx.selector_given.then(|| s.clone());
    match w {
        Workload::Deployment(d) => {
            let s = &d.spec;
            let mut errs = nonnegative(s.replicas.map(i64::from), &spec.child("replicas"));
            let sel = sel_given(&s.selector);
            errs.extend(apps_selector(sel.as_ref(), &spec.child("selector"), "deployment"));
            errs.extend(replica_set_template(
                sel.as_ref(),
                &template,
                &tpath,
                opts,
                "Deployment",
            ));
            errs.extend(deployment_strategy(s.strategy.as_ref(), &spec.child("strategy")));
            errs.extend(nonnegative(
                s.min_ready_seconds.map(i64::from),
                &spec.child("minReadySeconds"),
            ));
            errs.extend(nonnegative(
                s.revision_history_limit.map(i64::from),
                &spec.child("revisionHistoryLimit"),
            ));
            if let Some(p) = s.progress_deadline_seconds {
                let at = spec.child("progressDeadlineSeconds");
                errs.extend(nonnegative(Some(i64::from(p)), &at));
                if p <= s.min_ready_seconds.unwrap_or(0) {
                    errs.push(
                        FieldError::invalid(&at, p, "must be greater than minReadySeconds")
                            .with_origin("workload/progress-deadline"),
                    );
                }
            }
            errs
        }
        Workload::ReplicaSet(r) => {
            let s = &r.spec;
            let mut errs = nonnegative(s.replicas.map(i64::from), &spec.child("replicas"));
            errs.extend(nonnegative(
                s.min_ready_seconds.map(i64::from),
                &spec.child("minReadySeconds"),
            ));
            let sel = sel_given(&s.selector);
            errs.extend(apps_selector(sel.as_ref(), &spec.child("selector"), "deployment"));
            errs.extend(replica_set_template(
                sel.as_ref(),
                &template,
                &tpath,
                opts,
                "ReplicaSet",
            ));
            errs
        }
        Workload::StatefulSet(st) => stateful_set(st, &template, ctx),
        Workload::DaemonSet(d) => {
            let s = &d.spec;
            let sel = sel_given(&s.selector);
            let mut errs = validate_label_selector(
                sel.as_ref(),
                opts.allow_invalid_label_value_in_selector,
                &spec.child("selector"),
            );
            if selector::converts(sel.as_ref()) {
                let labels = template.metadata.labels.clone().unwrap_or_default();
                if !selector::selects(sel.as_ref(), &labels) {
                    errs.push(
                        FieldError::invalid(
                            &tpath.child("metadata").child("labels"),
                            labels_value(template.metadata.labels.as_ref()),
                            "`selector` does not match template `labels`",
                        )
                        .with_origin("workload/selector-match"),
                    );
                }
            }
            if sel.as_ref().is_some_and(selector::is_empty) {
                errs.push(
                    FieldError::invalid(
                        &spec.child("selector"),
                        BadValue::Omit,
                        "empty selector is invalid for daemonset",
                    )
                    .with_origin("workload/selector-empty"),
                );
            }
            errs.extend(crate::pod::validate_pod_template_spec(&template, &tpath, opts));
            errs.extend(always_restarting(&template, &tpath, "DaemonSet"));
            errs.extend(nonnegative(
                s.min_ready_seconds.map(i64::from),
                &spec.child("minReadySeconds"),
            ));
            errs.extend(daemon_set_strategy(
                s.update_strategy.as_ref(),
                &spec.child("updateStrategy"),
            ));
            errs.extend(nonnegative(
                s.revision_history_limit.map(i64::from),
                &spec.child("revisionHistoryLimit"),
            ));
            errs
        }
        Workload::Job(j) => {
            let default = Default::default();
            let s = j.spec.as_ref().unwrap_or(&default);
            crate::workload::batch::validate_job_spec(s, &template, &spec, opts, true)
        }
        Workload::CronJob(c) => {
            crate::workload::batch::validate_cron_job_spec(&c.spec, &template, &spec, opts)
        }
        Workload::ReplicationController(r) => {
            let default = Default::default();
            let s = r.spec.as_ref().unwrap_or(&default);
            let mut errs = nonnegative(s.min_ready_seconds.map(i64::from), &spec.child("minReadySeconds"));
            let selector = s.selector.clone().unwrap_or_default();
            if selector.is_empty() {
                errs.push(
                    FieldError::required(&spec.child("selector"), "")
                        .with_origin("workload/selector-required"),
                );
            }
            match s.replicas {
                None => errs.push(
                    FieldError::required(&spec.child("replicas"), "").with_origin("workload/non-negative"),
                ),
                Some(n) => errs.extend(nonnegative(Some(i64::from(n)), &spec.child("replicas"))),
            }
            if s.template.is_none() {
                errs.push(FieldError::required(&tpath, "").with_origin("workload/template-required"));
                return errs;
            }
            let as_selector = LabelSelector {
                match_labels: Some(selector),
                match_expressions: None,
            };
            errs.extend(selector_matches_template(Some(&as_selector), &template, &tpath));
            errs.extend(crate::pod::validate_pod_template_spec(&template, &tpath, opts));
            errs.extend(always_restarting(&template, &tpath, "ReplicationController"));
            errs
        }
        Workload::PodTemplate(_) => crate::pod::validate_pod_template_spec(&template, &tpath, opts),
    }
}

/// `ValidatePodTemplateSpecForReplicaSet` (Deployments and ReplicaSets), run when the selector
/// converts.
fn replica_set_template(
    sel: Option<&LabelSelector>,
    template: &Pod,
    path: &Path,
    opts: &PodValidationOptions,
    kind: &str,
) -> ErrorList {
    if !selector::converts(sel) {
        return vec![
            FieldError::invalid(
                &Path::new("spec").child("selector"),
                BadValue::Omit,
                "invalid label selector",
            )
            .with_origin("workload/selector-invalid"),
        ];
    }
    let mut errs = selector_matches_template(sel, template, path);
    errs.extend(crate::pod::validate_pod_template_spec(template, path, opts));
    errs.extend(always_restarting(template, path, kind));
    errs
}

/// `ValidateDeploymentStrategy`: the type (the rolling-update numbers are not judged).
fn deployment_strategy(s: Option<&k8s_openapi::api::apps::v1::DeploymentStrategy>, path: &Path) -> ErrorList {
    let kind = s.and_then(|s| s.type_.as_deref()).unwrap_or_default();
    let rolling = s.is_some_and(|s| s.rolling_update.is_some());
    match kind {
        "Recreate" if rolling => vec![
            FieldError::forbidden(
                &path.child("rollingUpdate"),
                "may not be specified when strategy `type` is 'Recreate'",
            )
            .with_origin("workload/strategy"),
        ],
        "Recreate" | "RollingUpdate" => ErrorList::new(),
        other => vec![
            FieldError::not_supported(path, other, &["Recreate", "RollingUpdate"])
                .with_origin("workload/strategy"),
        ],
    }
}

/// `ValidateDaemonSetUpdateStrategy`: the type (the rolling-update numbers are not judged).
fn daemon_set_strategy(
    s: Option<&k8s_openapi::api::apps::v1::DaemonSetUpdateStrategy>,
    path: &Path,
) -> ErrorList {
    match s.and_then(|s| s.type_.as_deref()).unwrap_or_default() {
        "OnDelete" | "RollingUpdate" => ErrorList::new(),
        other => vec![
            FieldError::not_supported(path, other, &["RollingUpdate", "OnDelete"])
                .with_origin("workload/strategy"),
        ],
    }
}

/// `ValidateStatefulSetSpec`.
fn stateful_set(
    st: &k8s_openapi::api::apps::v1::StatefulSet,
    template: &Pod,
    ctx: &Context<'_>,
) -> ErrorList {
    let spec = Path::new("spec");
    let tpath = WorkloadKind::StatefulSet.template_path();
    let s = &st.spec;
    let mut errs = ErrorList::new();
    match s.pod_management_policy.as_deref().unwrap_or_default() {
        "" => errs.push(
            FieldError::required(&spec.child("podManagementPolicy"), "").with_origin("workload/strategy"),
        ),
        "OrderedReady" | "Parallel" => {}
        other => errs.push(
            FieldError::invalid(
                &spec.child("podManagementPolicy"),
                other,
                "must be 'OrderedReady' or 'Parallel'",
            )
            .with_origin("workload/strategy"),
        ),
    }
    match s
        .update_strategy
        .as_ref()
        .and_then(|u| u.type_.as_deref())
        .unwrap_or_default()
    {
        "" => errs
            .push(FieldError::required(&spec.child("updateStrategy"), "").with_origin("workload/strategy")),
        "OnDelete" | "RollingUpdate" => {}
        _ => errs.push(
            FieldError::invalid(
                &spec.child("updateStrategy"),
                BadValue::Omit,
                "must be 'RollingUpdate' or 'OnDelete'",
            )
            .with_origin("workload/strategy"),
        ),
    }
    errs.extend(nonnegative(s.replicas.map(i64::from), &spec.child("replicas")));
    errs.extend(nonnegative(
        s.min_ready_seconds.map(i64::from),
        &spec.child("minReadySeconds"),
    ));
    let service = opt_str(&s.service_name);
    if !service.is_empty() {
        errs.extend(crate::pod::names::validate_dns1123_label(
            service,
            &spec.child("serviceName"),
        ));
    }
    let sel = ctx.selector_given.then(|| s.selector.clone());
    errs.extend(apps_selector(
        sel.as_ref(),
        &spec.child("selector"),
        "statefulset",
    ));
    if selector::converts(sel.as_ref()) {
        let mut validated = template.clone();
        if let Some(ps) = validated.spec.as_mut() {
            ps.subdomain = None;
            ps.hostname = None;
            let claims: Vec<k8s_openapi::api::core::v1::Volume> = s
                .volume_claim_templates
                .iter()
                .flatten()
                .map(|c| {
                    let name = c.metadata.name.clone().unwrap_or_default();
                    k8s_openapi::api::core::v1::Volume {
                        persistent_volume_claim: Some(
                            k8s_openapi::api::core::v1::PersistentVolumeClaimVolumeSource {
                                claim_name: name.clone(),
                                read_only: None,
                            },
                        ),
                        name,
                        ..Default::default()
                    }
                })
                .collect();
            if !claims.is_empty() {
                let own = ps.volumes.take().unwrap_or_default();
                let mut volumes = claims.clone();
                volumes.extend(
                    own.into_iter()
                        .filter(|v| !claims.iter().any(|c| c.name == v.name)),
                );
                ps.volumes = Some(volumes);
            }
        }
        errs.extend(selector_matches_template(sel.as_ref(), &validated, &tpath));
        errs.extend(crate::pod::validate_pod_template_spec(
            &validated, &tpath, ctx.opts,
        ));
        let meta = &validated.metadata;
        errs.extend(crate::pod::names::validate_labels(
            meta.labels.as_ref(),
            &tpath.child("labels"),
        ));
        errs.extend(crate::pod::names::validate_annotations(
            meta.annotations.as_ref(),
            &tpath.child("annotations"),
        ));
        errs.extend(crate::pod::annotations::validate_pod_specific_annotations(
            meta.annotations.as_ref(),
            &podmut_model::podutil::spec(&validated),
            &tpath.child("annotations"),
            ctx.opts,
        ));
    } else {
        errs.push(
            FieldError::invalid(&spec.child("selector"), BadValue::Omit, "")
                .with_origin("workload/selector-invalid"),
        );
    }
    errs.extend(always_restarting(template, &tpath, "StatefulSet"));
    errs
}
