//! Workloads on the API server: a create or update of a Deployment, ReplicaSet, StatefulSet,
//! DaemonSet, Job, CronJob, ReplicationController or PodTemplate, judged as the server judges it.
//!
//! The request is defaulted as the server defaults it
//! ([`podmut_model::workload_defaults`]), a Job gets its generated selector (the Job strategy's
//! `PrepareForCreate`), then the workload's metadata, its kind's spec rules ([`spec`], [`batch`])
//! and its Pod template (`ValidatePodTemplateSpec`, the Pod-spec rules every Pod create runs) are
//! validated, and on an update the metadata update rules and the immutable selector.

pub(crate) mod batch;
pub(crate) mod spec;

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::pod::PodValidationOptions;
use crate::pod::meta::{FIELD_IMMUTABLE, validate_dns_label_object_meta, validate_pod_object_meta};
use crate::verdict::Verdict;
use podmut_model::document::InputError;
use podmut_model::field::{BadValue, ErrorList, FieldError, Path, invalid_message};
use podmut_model::field_validation::{CheckedValue, FieldProblem};
use podmut_model::settings::Settings;
use podmut_model::workload::{Workload, WorkloadKind};

/// `ValidateNonnegativeField`.
pub(crate) fn nonnegative(value: Option<i64>, path: &Path) -> ErrorList {
    match value {
        Some(v) if v < 0 => {
            vec![
                FieldError::invalid(path, v, crate::pod::meta::IS_NEGATIVE)
                    .with_origin("workload/non-negative"),
            ]
        }
        _ => ErrorList::new(),
    }
}

/// A workload as a document gave it.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadDocument {
    /// The workload.
    pub workload: Workload,
    /// Whether the document set `spec.selector` (k8s-openapi decodes a missing required selector
    /// as an empty one; the API server tells the two apart).
    pub selector_given: bool,
}

/// Read a document parsed by [`podmut_model::field_validation::parse_checked`] as the workload its
/// `kind` names, with its unknown and duplicate fields; `None` when it names no workload.
pub fn read_workload(
    checked: CheckedValue,
    input: &str,
) -> Option<Result<(WorkloadDocument, Vec<FieldProblem>), InputError>> {
    let selector_given = checked
        .value
        .pointer("/spec/selector")
        .is_some_and(|v| !v.is_null());
    Workload::validate_value(checked, input).map(|r| {
        r.map(|v| {
            (
                WorkloadDocument {
                    workload: v.object,
                    selector_given,
                },
                v.problems,
            )
        })
    })
}

/// Read one workload document (`text`, JSON or YAML) at field-validation `level`, as
/// [`podmut_model::field_validation::read_pod`] reads a Pod: the workload and its field warnings;
/// `None` when the text is not one document naming a workload kind.
pub fn read_workload_text(
    text: &str,
    input: &str,
    level: podmut_model::field_validation::FieldValidation,
    max_bytes: u64,
) -> Option<Result<(WorkloadDocument, Vec<String>), InputError>> {
    let mut docs = podmut_model::field_validation::parse_checked(text, input, max_bytes).ok()?;
    if docs.len() != 1 {
        return None;
    }
    read_workload(docs.remove(0), input).map(|r| {
        r.and_then(|(doc, problems)| {
            let warnings = podmut_model::field_validation::enforce(level, input, &problems)?;
            Ok((doc, warnings))
        })
    })
}

/// Judge a workload create (`old` is `None`) or update as the API server does.
///
/// An update of a workload of another kind than the old one is an input error.
pub fn check_workload(
    old: Option<WorkloadDocument>,
    new: WorkloadDocument,
    settings: &Settings,
) -> Result<Verdict, InputError> {
    if let Some(o) = &old
        && o.workload.kind() != new.workload.kind()
    {
        return Err(InputError::wrong_kind(
            "new-pod",
            format!(
                "expected a {} like the old object, found a {}",
                o.workload.kind().info().name,
                new.workload.kind().info().name
            ),
        ));
    }
    let prepare = |mut d: WorkloadDocument, create: bool| {
        if settings.apply_defaults {
            podmut_model::workload_defaults::apply_workload_defaults(&mut d.workload);
            if create {
                generate_job_selector(&mut d);
            }
        }
        d
    };
    let new = prepare(new, old.is_none());
    let old = old.map(|o| prepare(o, false));
    let template = spec::template_pod(new.workload.template());
    let mut opts = match &old {
        None => PodValidationOptions::for_create(&template, settings),
        Some(o) => {
            PodValidationOptions::for_update(&template, &spec::template_pod(o.workload.template()), settings)
        }
    };
    opts.template = true;
    let mut errors = match &old {
        None => validate_create_meta(&new.workload, &opts),
        Some(o) => crate::pod::validate_object_meta_update(
            new.workload.metadata(),
            o.workload.metadata(),
            &Path::new("metadata"),
            &opts,
        ),
    };
    let ctx = spec::Context {
        opts: &opts,
        selector_given: new.selector_given,
    };
    errors.extend(spec::validate_spec(&new.workload, &ctx));
    if let Some(o) = &old {
        errors.extend(immutable_selector(&o.workload, &new.workload));
    }
    let release = settings.release();
    podmut_model::field::resolve_go_values(&mut errors, release);
    if release >= 37 {
        // From 1.37 the server keeps identical errors once (a StatefulSet's template labels,
        // which its validation checks twice, are reported once, as the oracle shows).
        podmut_model::field::dedup_as_aggregate(&mut errors);
    }
    let kind = new.workload.kind().info().qualified;
    let name = new.workload.name();
    let mut verdict = Verdict::from_errors(name, ErrorList::new(), Vec::new());
    if !errors.is_empty() {
        verdict.allowed = false;
        verdict.message = invalid_message(kind, name, &errors);
        verdict.errors = errors;
    }
    Ok(verdict)
}

/// `ValidateObjectMeta` with the kind's name rule, and the CronJob's name length.
fn validate_create_meta(w: &Workload, opts: &PodValidationOptions) -> ErrorList {
    let path = Path::new("metadata");
    let meta = w.metadata();
    let mut errs = if w.kind() == WorkloadKind::StatefulSet {
        validate_dns_label_object_meta(meta, &path, opts.request_fills_metadata, opts.release)
    } else {
        validate_pod_object_meta(meta, &path, opts.request_fills_metadata, opts.release)
    };
    if w.kind() == WorkloadKind::CronJob && w.name().len() > 52 {
        errs.push(
            FieldError::invalid(
                &path.child("name"),
                w.name(),
                "must be no more than 52 characters",
            )
            .with_origin("workload/cron-job"),
        );
    }
    errs
}

/// The Job strategy's `PrepareForCreate` without `manualSelector`: the template gets the job-name
/// and controller-uid labels, the selector the controller-uid label (the UID the server fills in
/// is stood in for by a placeholder).
fn generate_job_selector(d: &mut WorkloadDocument) {
    const UID: &str = "00000000-0000-0000-0000-000000000000";
    let Workload::Job(job) = &mut d.workload else {
        return;
    };
    let name = job.metadata.name.clone().unwrap_or_default();
    let spec = job.spec.get_or_insert_with(Default::default);
    if spec.manual_selector == Some(true) {
        return;
    }
    let labels = spec
        .template
        .metadata
        .get_or_insert_with(Default::default)
        .labels
        .get_or_insert_with(BTreeMap::new);
    for key in ["job-name", "batch.kubernetes.io/job-name"] {
        labels.entry(key.to_owned()).or_insert_with(|| name.clone());
    }
    for key in ["controller-uid", "batch.kubernetes.io/controller-uid"] {
        labels.entry(key.to_owned()).or_insert_with(|| UID.to_owned());
    }
    let selector = spec.selector.get_or_insert_with(LabelSelector::default);
    selector
        .match_labels
        .get_or_insert_with(BTreeMap::new)
        .entry("batch.kubernetes.io/controller-uid".to_owned())
        .or_insert_with(|| UID.to_owned());
}

/// `ValidateImmutableField(new.Spec.Selector, old.Spec.Selector, spec.selector)` of the kinds
/// whose selector may not change.
fn immutable_selector(old: &Workload, new: &Workload) -> ErrorList {
    let selector = |w: &Workload| -> Option<serde_json::Value> {
        match w {
            Workload::Deployment(d) => serde_json::to_value(&d.spec.selector).ok(),
            Workload::ReplicaSet(r) => serde_json::to_value(&r.spec.selector).ok(),
            Workload::StatefulSet(s) => serde_json::to_value(&s.spec.selector).ok(),
            Workload::DaemonSet(d) => serde_json::to_value(&d.spec.selector).ok(),
            _ => None,
        }
    };
    match (selector(old), selector(new)) {
        (Some(o), Some(n)) if o != n => vec![
            FieldError::invalid(
                &Path::new("spec").child("selector"),
                BadValue::Omit,
                FIELD_IMMUTABLE,
            )
            .with_origin("workload/immutable-selector"),
        ],
        _ => ErrorList::new(),
    }
}

#[cfg(test)]
mod tests {
    use crate::validation::check_documents;
    use podmut_model::request_path::Subresource;

    const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: app, image: 'nginx:1.27'}]\n";

    fn pairs(old: Option<&str>, new: &str) -> (bool, Vec<(String, String)>, String) {
        let v = check_documents(old, new, Subresource::None, "").unwrap();
        let pairs = v
            .errors
            .iter()
            .map(|e| (e.error_type.cause_type().to_owned(), e.field.to_string()))
            .collect();
        (v.allowed, pairs, v.message)
    }

    #[test]
    fn a_valid_deployment_is_allowed() {
        let (allowed, errors, _) = pairs(None, DEPLOYMENT);
        assert!(allowed, "{errors:?}");
    }

    #[test]
    fn template_errors_carry_the_template_path_and_the_kind() {
        let bad = DEPLOYMENT
            .replace("image: 'nginx:1.27'", "image: ''")
            .replace("{labels: {app: web}}", "{labels: {app: other}}")
            + "      restartPolicy: Never\n      activeDeadlineSeconds: 5\n";
        let bad = bad.replace("  selector:", "  replicas: -1\n  selector:");
        let (allowed, errors, message) = pairs(None, &bad);
        assert!(!allowed);
        let want = [
            ("FieldValueInvalid", "spec.replicas"),
            ("FieldValueInvalid", "spec.template.metadata.labels"),
            ("FieldValueRequired", "spec.template.spec.containers[0].image"),
            ("FieldValueNotSupported", "spec.template.spec.restartPolicy"),
            ("FieldValueForbidden", "spec.template.spec.activeDeadlineSeconds"),
        ];
        for (t, f) in want {
            assert!(
                errors.contains(&(t.to_owned(), f.to_owned())),
                "{t} {f} in {errors:?}"
            );
        }
        assert!(
            message.starts_with("Deployment.apps \"web\" is invalid: "),
            "{message}"
        );
    }

    #[test]
    fn a_job_needs_a_restart_policy_and_a_cron_job_template_sits_deeper() {
        let job = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n      containers: [{name: a, image: busybox}]\n";
        let (allowed, errors, _) = pairs(None, job);
        assert!(!allowed);
        assert_eq!(
            errors,
            [(
                "FieldValueRequired".to_owned(),
                "spec.template.spec.restartPolicy".to_owned()
            )]
        );
        let ok = job.to_owned() + "      restartPolicy: Never\n";
        assert!(pairs(None, &ok).0, "{:?}", pairs(None, &ok).1);
        let cron = "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\nspec:\n  schedule: '*/5 * * * *'\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: Always\n          containers: [{name: a, image: busybox}]\n";
        let (_, errors, _) = pairs(None, cron);
        assert_eq!(
            errors,
            [(
                "FieldValueRequired".to_owned(),
                "spec.jobTemplate.spec.template.spec.restartPolicy".to_owned()
            )]
        );
    }

    #[test]
    fn an_update_may_not_change_the_selector() {
        let old = DEPLOYMENT.replace("namespace: default}", "namespace: default, resourceVersion: '1'}");
        let new = old.replace("app: web", "app: api");
        let (allowed, errors, _) = pairs(Some(&old), &new);
        assert!(!allowed);
        assert!(
            errors.contains(&("FieldValueInvalid".to_owned(), "spec.selector".to_owned())),
            "{errors:?}"
        );
        let scaled = old.replace("  selector:", "  replicas: 3\n  selector:");
        assert!(pairs(Some(&old), &scaled).0);
    }
}
