//! Workloads: the objects that hold a Pod template (Deployment, ReplicaSet, StatefulSet,
//! DaemonSet, Job, CronJob, ReplicationController, PodTemplate), read into k8s-openapi's types.
//!
//! [`KINDS`] is the one table of the kinds podmut reads: each kind's `apiVersion`, its resource,
//! the group-qualified kind the API server names in its messages, and where its Pod template sits
//! (the field path the server reports template errors under).

use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::core::v1::{Pod, PodTemplate, PodTemplateSpec, ReplicationController};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde_json::Value;

use crate::document::InputError;
use crate::field::Path;
use crate::field_validation::{CheckedValue, Validated, validate_value};

/// A workload kind podmut reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkloadKind {
    /// `apps/v1` Deployment.
    Deployment,
    /// `apps/v1` ReplicaSet.
    ReplicaSet,
    /// `apps/v1` StatefulSet.
    StatefulSet,
    /// `apps/v1` DaemonSet.
    DaemonSet,
    /// `batch/v1` Job.
    Job,
    /// `batch/v1` CronJob.
    CronJob,
    /// `v1` ReplicationController.
    ReplicationController,
    /// `v1` PodTemplate.
    PodTemplate,
}

/// What podmut knows of one workload kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindInfo {
    /// The kind.
    pub kind: WorkloadKind,
    /// `kind` as documents spell it (`Deployment`).
    pub name: &'static str,
    /// `apiVersion` (`apps/v1`).
    pub api_version: &'static str,
    /// The resource in request paths (`deployments`).
    pub resource: &'static str,
    /// The kind as the API server's messages name it (`Deployment.apps`).
    pub qualified: &'static str,
    /// Where the Pod template sits (`spec.template`).
    pub template: &'static [&'static str],
}

/// Every workload kind podmut reads, in one place.
pub const KINDS: [KindInfo; 8] = [
    KindInfo {
        kind: WorkloadKind::Deployment,
        name: "Deployment",
        api_version: "apps/v1",
        resource: "deployments",
        qualified: "Deployment.apps",
        template: &["spec", "template"],
    },
    KindInfo {
        kind: WorkloadKind::ReplicaSet,
        name: "ReplicaSet",
        api_version: "apps/v1",
        resource: "replicasets",
        qualified: "ReplicaSet.apps",
        template: &["spec", "template"],
    },
    KindInfo {
        kind: WorkloadKind::StatefulSet,
        name: "StatefulSet",
        api_version: "apps/v1",
        resource: "statefulsets",
        qualified: "StatefulSet.apps",
        template: &["spec", "template"],
    },
    KindInfo {
        kind: WorkloadKind::DaemonSet,
        name: "DaemonSet",
        api_version: "apps/v1",
        resource: "daemonsets",
        qualified: "DaemonSet.apps",
        template: &["spec", "template"],
    },
    KindInfo {
        kind: WorkloadKind::Job,
        name: "Job",
        api_version: "batch/v1",
        resource: "jobs",
        qualified: "Job.batch",
        template: &["spec", "template"],
    },
    KindInfo {
        kind: WorkloadKind::CronJob,
        name: "CronJob",
        api_version: "batch/v1",
        resource: "cronjobs",
        qualified: "CronJob.batch",
        template: &["spec", "jobTemplate", "spec", "template"],
    },
    KindInfo {
        kind: WorkloadKind::ReplicationController,
        name: "ReplicationController",
        api_version: "v1",
        resource: "replicationcontrollers",
        qualified: "ReplicationController",
        template: &["spec", "template"],
    },
    KindInfo {
        kind: WorkloadKind::PodTemplate,
        name: "PodTemplate",
        api_version: "v1",
        resource: "podtemplates",
        qualified: "PodTemplate",
        template: &["template"],
    },
];

impl KindInfo {
    /// The API group (`apps` for `apps/v1`, `""` for `v1`).
    pub fn group(&self) -> &'static str {
        self.api_version.rsplit_once('/').map_or("", |(g, _)| g)
    }
}

impl WorkloadKind {
    /// The kind's row of [`KINDS`].
    pub fn info(self) -> &'static KindInfo {
        KINDS.iter().find(|k| k.kind == self).unwrap_or(&KINDS[0])
    }

    /// The workload kind a document's `kind` names, if it is one.
    pub fn from_name(kind: &str) -> Option<Self> {
        KINDS.iter().find(|k| k.name == kind).map(|k| k.kind)
    }

    /// The workload kind of a document (by its `kind`), if it is one.
    pub fn of_value(value: &Value) -> Option<Self> {
        value
            .get("kind")
            .and_then(Value::as_str)
            .and_then(Self::from_name)
    }

    /// The field path of the Pod template (`spec.jobTemplate.spec.template` for a CronJob).
    pub fn template_path(self) -> Path {
        let mut parts = self.info().template.iter();
        let first = parts.next().copied().unwrap_or("spec");
        parts.fold(Path::new(first), |p, s| p.child(*s))
    }
}

/// A workload, decoded into its k8s-openapi type.
#[derive(Clone, Debug, PartialEq)]
#[expect(
    clippy::large_enum_variant,
    reason = "one workload is read per check and moved at most twice; every variant is about 3 KB"
)]
pub enum Workload {
    /// A Deployment.
    Deployment(Deployment),
    /// A ReplicaSet.
    ReplicaSet(ReplicaSet),
    /// A StatefulSet.
    StatefulSet(StatefulSet),
    /// A DaemonSet.
    DaemonSet(DaemonSet),
    /// A Job.
    Job(Job),
    /// A CronJob.
    CronJob(CronJob),
    /// A ReplicationController.
    ReplicationController(ReplicationController),
    /// A PodTemplate.
    PodTemplate(PodTemplate),
}

impl Workload {
    /// Its kind.
    pub fn kind(&self) -> WorkloadKind {
        match self {
            Workload::Deployment(_) => WorkloadKind::Deployment,
            Workload::ReplicaSet(_) => WorkloadKind::ReplicaSet,
            Workload::StatefulSet(_) => WorkloadKind::StatefulSet,
            Workload::DaemonSet(_) => WorkloadKind::DaemonSet,
            Workload::Job(_) => WorkloadKind::Job,
            Workload::CronJob(_) => WorkloadKind::CronJob,
            Workload::ReplicationController(_) => WorkloadKind::ReplicationController,
            Workload::PodTemplate(_) => WorkloadKind::PodTemplate,
        }
    }

    /// Its metadata.
    pub fn metadata(&self) -> &ObjectMeta {
        match self {
            Workload::Deployment(o) => &o.metadata,
            Workload::ReplicaSet(o) => &o.metadata,
            Workload::StatefulSet(o) => &o.metadata,
            Workload::DaemonSet(o) => &o.metadata,
            Workload::Job(o) => &o.metadata,
            Workload::CronJob(o) => &o.metadata,
            Workload::ReplicationController(o) => &o.metadata,
            Workload::PodTemplate(o) => &o.metadata,
        }
    }

    /// `metadata.name` (empty when unset).
    pub fn name(&self) -> &str {
        self.metadata().name.as_deref().unwrap_or_default()
    }

    /// Its Pod template, when the document has one (a ReplicaSet's, a ReplicationController's, a
    /// PodTemplate's, a Job's spec and a CronJob's job spec are optional in the schema).
    pub fn template(&self) -> Option<&PodTemplateSpec> {
        match self {
            Workload::Deployment(o) => Some(&o.spec.template),
            Workload::ReplicaSet(o) => o.spec.template.as_ref(),
            Workload::StatefulSet(o) => Some(&o.spec.template),
            Workload::DaemonSet(o) => Some(&o.spec.template),
            Workload::Job(o) => o.spec.as_ref().map(|s| &s.template),
            Workload::CronJob(o) => o.spec.job_template.spec.as_ref().map(|s| &s.template),
            Workload::ReplicationController(o) => o.spec.as_ref().and_then(|s| s.template.as_ref()),
            Workload::PodTemplate(o) => o.template.as_ref(),
        }
    }

    /// Its Pod template, for defaulting.
    pub fn template_mut(&mut self) -> Option<&mut PodTemplateSpec> {
        match self {
            Workload::Deployment(o) => Some(&mut o.spec.template),
            Workload::ReplicaSet(o) => o.spec.template.as_mut(),
            Workload::StatefulSet(o) => Some(&mut o.spec.template),
            Workload::DaemonSet(o) => Some(&mut o.spec.template),
            Workload::Job(o) => o.spec.as_mut().map(|s| &mut s.template),
            Workload::CronJob(o) => o.spec.job_template.spec.as_mut().map(|s| &mut s.template),
            Workload::ReplicationController(o) => o.spec.as_mut().and_then(|s| s.template.as_mut()),
            Workload::PodTemplate(o) => o.template.as_mut(),
        }
    }

    /// The workload as JSON (its `apiVersion` and `kind` included).
    pub fn to_value(&self) -> serde_json::Result<Value> {
        match self {
            Workload::Deployment(o) => serde_json::to_value(o),
            Workload::ReplicaSet(o) => serde_json::to_value(o),
            Workload::StatefulSet(o) => serde_json::to_value(o),
            Workload::DaemonSet(o) => serde_json::to_value(o),
            Workload::Job(o) => serde_json::to_value(o),
            Workload::CronJob(o) => serde_json::to_value(o),
            Workload::ReplicationController(o) => serde_json::to_value(o),
            Workload::PodTemplate(o) => serde_json::to_value(o),
        }
    }

    /// Decode a document already parsed by
    /// [`parse_checked`](crate::field_validation::parse_checked) as the workload its `kind`
    /// names, with its unknown and duplicate fields; `None` when `kind` names no workload.
    pub fn validate_value(checked: CheckedValue, input: &str) -> Option<Result<Validated<Self>, InputError>> {
        let kind = WorkloadKind::of_value(&checked.value)?;
        let info = kind.info();
        Some(match kind {
            WorkloadKind::Deployment => read(checked, input, info, Workload::Deployment),
            WorkloadKind::ReplicaSet => read(checked, input, info, Workload::ReplicaSet),
            WorkloadKind::StatefulSet => read(checked, input, info, Workload::StatefulSet),
            WorkloadKind::DaemonSet => read(checked, input, info, Workload::DaemonSet),
            WorkloadKind::Job => read(checked, input, info, Workload::Job),
            WorkloadKind::CronJob => read(checked, input, info, Workload::CronJob),
            WorkloadKind::ReplicationController => {
                read(checked, input, info, Workload::ReplicationController)
            }
            WorkloadKind::PodTemplate => read(checked, input, info, Workload::PodTemplate),
        })
    }
}

/// The Pod a template makes: the template's metadata and spec, as a Pod (an absent template is an
/// empty Pod spec, which the Pod rules then refuse where the server does).
pub fn template_pod(t: Option<&PodTemplateSpec>) -> Pod {
    Pod {
        metadata: t.and_then(|t| t.metadata.clone()).unwrap_or_default(),
        spec: Some(t.and_then(|t| t.spec.clone()).unwrap_or_default()),
        status: None,
    }
}

/// One kind's [`Workload::validate_value`]: decoded as `T`, wrapped as a [`Workload`].
fn read<T: serde::de::DeserializeOwned>(
    checked: CheckedValue,
    input: &str,
    info: &KindInfo,
    wrap: fn(T) -> Workload,
) -> Result<Validated<Workload>, InputError> {
    let v = validate_value::<T>(checked, input, info.api_version, info.name)?;
    Ok(Validated {
        object: wrap(v.object),
        problems: v.problems,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field_validation::parse_checked;

    fn read(text: &str) -> Validated<Workload> {
        let doc = parse_checked(text, "w", 1 << 20).unwrap().remove(0);
        Workload::validate_value(doc, "w").unwrap().unwrap()
    }

    #[test]
    fn every_kind_has_one_row_and_its_template_path() {
        for info in &KINDS {
            assert_eq!(info.kind.info(), info);
            assert_eq!(WorkloadKind::from_name(info.name), Some(info.kind));
        }
        assert_eq!(
            WorkloadKind::CronJob.template_path().to_string(),
            "spec.jobTemplate.spec.template"
        );
        assert_eq!(WorkloadKind::PodTemplate.template_path().to_string(), "template");
        assert_eq!(
            WorkloadKind::Deployment.template_path().to_string(),
            "spec.template"
        );
        assert_eq!(WorkloadKind::from_name("Pod"), None);
    }

    #[test]
    fn a_cron_job_template_is_found_and_unknown_fields_are_named() {
        let v = read(
            "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\nspec:\n  schedule: '* * * * *'\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers: [{name: a, image: i, bogus: 1}]\n",
        );
        assert_eq!(v.object.kind(), WorkloadKind::CronJob);
        assert_eq!(v.object.name(), "c");
        let t = v.object.template().unwrap();
        assert_eq!(t.spec.as_ref().unwrap().containers[0].image.as_deref(), Some("i"));
        assert_eq!(
            v.problems[0].to_string(),
            r#"unknown field "spec.jobTemplate.spec.template.spec.containers[0].bogus""#
        );
    }

    #[test]
    fn a_wrong_api_version_is_refused_with_the_expected_one() {
        let doc = parse_checked(
            "apiVersion: extensions/v1beta1\nkind: Deployment\n",
            "new",
            1 << 20,
        )
        .unwrap()
        .remove(0);
        let e = Workload::validate_value(doc, "new").unwrap().unwrap_err();
        assert!(e.message().contains("apps/v1"), "{e}");
        let doc = parse_checked("kind: Pod\n", "new", 1 << 20).unwrap().remove(0);
        assert!(Workload::validate_value(doc, "new").is_none());
    }
}
