//! Job and CronJob rules (`pkg/apis/batch/validation`): the counts, the completion mode, the
//! selector (generated unless `manualSelector`), the template's restart policy, and the CronJob's
//! schedule, concurrency policy and history limits.

use k8s_openapi::api::batch::v1::{CronJobSpec, JobSpec};
use k8s_openapi::api::core::v1::Pod;

use crate::pod::PodValidationOptions;
use crate::pod::scheduling::validate_label_selector;
use crate::pod::util::opt_str;
use crate::selector;
use crate::workload::nonnegative;
use podmut_model::field::{BadValue, ErrorList, FieldError, Path};

/// `ValidateJobSpec` (`with_selector`) or `validateJobSpec` (a CronJob's job template, without the
/// selector rules) on the spec at `path`; `template` is the spec's Pod template.
pub(crate) fn validate_job_spec(
    s: &JobSpec,
    template: &Pod,
    path: &Path,
    opts: &PodValidationOptions,
    with_selector: bool,
) -> ErrorList {
    let mut errs = ErrorList::new();
    for (value, field) in [
        (s.parallelism.map(i64::from), "parallelism"),
        (s.completions.map(i64::from), "completions"),
        (s.active_deadline_seconds, "activeDeadlineSeconds"),
        (s.backoff_limit.map(i64::from), "backoffLimit"),
        (
            s.ttl_seconds_after_finished.map(i64::from),
            "ttlSecondsAfterFinished",
        ),
        (s.backoff_limit_per_index.map(i64::from), "backoffLimitPerIndex"),
        (s.max_failed_indexes.map(i64::from), "maxFailedIndexes"),
    ] {
        errs.extend(nonnegative(value, &path.child(field)));
    }
    let mode = opt_str(&s.completion_mode);
    match mode {
        "" | "NonIndexed" => {}
        "Indexed" => {
            if s.completions.is_none() {
                errs.push(
                    FieldError::required(&path.child("completions"), "when completion mode is Indexed")
                        .with_origin("workload/job-completions"),
                );
            }
        }
        other => errs.push(
            FieldError::not_supported(&path.child("completionMode"), other, &["NonIndexed", "Indexed"])
                .with_origin("workload/job-completions"),
        ),
    }
    let tpath = path.child("template");
    errs.extend(crate::pod::validate_pod_template_spec(template, &tpath, opts));
    let restart = path.child("template").child("spec").child("restartPolicy");
    match opt_str(&podmut_model::podutil::spec(template).restart_policy) {
        "" | "Always" => errs.push(
            FieldError::required(&restart, "valid values: \"OnFailure\", \"Never\"")
                .with_origin("workload/restart-policy"),
        ),
        "OnFailure" | "Never" => {}
        other => errs.push(
            FieldError::not_supported(&restart, other, &["OnFailure", "Never"])
                .with_origin("workload/restart-policy"),
        ),
    }
    if with_selector {
        match s.selector.as_ref() {
            None => errs.push(
                FieldError::required(&path.child("selector"), "").with_origin("workload/selector-required"),
            ),
            Some(sel) => errs.extend(validate_label_selector(
                Some(sel),
                opts.allow_invalid_label_value_in_selector,
                &path.child("selector"),
            )),
        }
        if selector::converts(s.selector.as_ref()) {
            let labels = template.metadata.labels.clone().unwrap_or_default();
            if !selector::selects(s.selector.as_ref(), &labels) {
                errs.push(
                    FieldError::invalid(
                        &tpath.child("metadata").child("labels"),
                        BadValue::Omit,
                        "`selector` does not match template `labels`",
                    )
                    .with_origin("workload/selector-match"),
                );
            }
        }
    }
    errs
}

/// `validateCronJobSpec` on a create: the schedule is required (its syntax is not judged), the
/// concurrency policy, the deadlines and history limits, and the job template (whose selector the
/// controller generates).
pub(crate) fn validate_cron_job_spec(
    s: &CronJobSpec,
    template: &Pod,
    path: &Path,
    opts: &PodValidationOptions,
) -> ErrorList {
    let mut errs = ErrorList::new();
    if s.schedule.is_empty() {
        errs.push(FieldError::required(&path.child("schedule"), "").with_origin("workload/cron-job"));
    } else if s.schedule.contains("TZ") {
        errs.push(
            FieldError::invalid(
                &path.child("schedule"),
                s.schedule.as_str(),
                "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
            )
            .with_origin("workload/cron-job"),
        );
    }
    errs.extend(nonnegative(
        s.starting_deadline_seconds,
        &path.child("startingDeadlineSeconds"),
    ));
    let policy = path.child("concurrencyPolicy");
    match opt_str(&s.concurrency_policy) {
        "Allow" | "Forbid" | "Replace" => {}
        "" => errs.push(FieldError::required(&policy, "").with_origin("workload/cron-job")),
        other => errs.push(
            FieldError::not_supported(&policy, other, &["Allow", "Forbid", "Replace"])
                .with_origin("workload/cron-job"),
        ),
    }
    let job_path = path.child("jobTemplate").child("spec");
    let default = JobSpec::default();
    let job = s.job_template.spec.as_ref().unwrap_or(&default);
    errs.extend(validate_job_spec(job, template, &job_path, opts, false));
    if job.selector.is_some() {
        errs.push(
            FieldError::invalid(
                &job_path.child("selector"),
                BadValue::Omit,
                "`selector` will be auto-generated",
            )
            .with_origin("workload/cron-job"),
        );
    }
    if job.manual_selector == Some(true) {
        errs.push(
            FieldError::not_supported(&job_path.child("manualSelector"), true, &["nil", "false"])
                .with_origin("workload/cron-job"),
        );
    }
    errs.extend(nonnegative(
        s.successful_jobs_history_limit.map(i64::from),
        &path.child("successfulJobsHistoryLimit"),
    ));
    errs.extend(nonnegative(
        s.failed_jobs_history_limit.map(i64::from),
        &path.child("failedJobsHistoryLimit"),
    ));
    errs
}
