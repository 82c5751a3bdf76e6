//! The API server's defaulting of workloads before it validates them: the kind's own defaults
//! (`pkg/apis/apps/v1/defaults.go`, `pkg/apis/batch/v1/defaults.go`,
//! `SetDefaults_ReplicationController` and the declarative `replicas` default of `pkg/apis/core/v1`)
//! and the Pod template's spec ([`apply_pod_spec_defaults`]).

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{
    DaemonSetUpdateStrategy, DeploymentStrategy, RollingUpdateDaemonSet, RollingUpdateDeployment,
    RollingUpdateStatefulSetStrategy, StatefulSetPersistentVolumeClaimRetentionPolicy,
    StatefulSetUpdateStrategy,
};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::defaults::apply_pod_spec_defaults;
use crate::workload::Workload;

/// Apply the API server's defaulting to a workload in place.
pub fn apply_workload_defaults(w: &mut Workload) {
    match w {
        Workload::Deployment(d) => {
            let spec = &mut d.spec;
            spec.replicas.get_or_insert(1);
            default_deployment_strategy(spec.strategy.get_or_insert_with(Default::default));
            spec.revision_history_limit.get_or_insert(10);
            spec.progress_deadline_seconds.get_or_insert(600);
        }
        Workload::ReplicaSet(r) => {
            r.spec.replicas.get_or_insert(1);
        }
        Workload::StatefulSet(s) => {
            let spec = &mut s.spec;
            spec.pod_management_policy
                .get_or_insert_with(|| "OrderedReady".to_owned());
            default_stateful_set_strategy(spec.update_strategy.get_or_insert_with(Default::default));
            let retention = spec
                .persistent_volume_claim_retention_policy
                .get_or_insert_with(StatefulSetPersistentVolumeClaimRetentionPolicy::default);
            retention.when_deleted.get_or_insert_with(|| "Retain".to_owned());
            retention.when_scaled.get_or_insert_with(|| "Retain".to_owned());
            spec.replicas.get_or_insert(1);
            spec.revision_history_limit.get_or_insert(10);
        }
        Workload::DaemonSet(d) => {
            let spec = &mut d.spec;
            default_daemon_set_strategy(spec.update_strategy.get_or_insert_with(Default::default));
            spec.revision_history_limit.get_or_insert(10);
        }
        Workload::Job(j) => {
            let spec = j.spec.get_or_insert_with(Default::default);
            if spec.completions.is_none() && spec.parallelism.is_none() {
                spec.completions = Some(1);
            }
            spec.parallelism.get_or_insert(1);
            let per_index = spec.backoff_limit_per_index.is_some();
            spec.backoff_limit
                .get_or_insert(if per_index { i32::MAX } else { 6 });
            let labels = spec.template.metadata.as_ref().and_then(|m| m.labels.clone());
            if labels.is_some() && j.metadata.labels.as_ref().is_none_or(BTreeMap::is_empty) {
                j.metadata.labels = labels;
            }
            spec.completion_mode
                .get_or_insert_with(|| "NonIndexed".to_owned());
            spec.suspend.get_or_insert(false);
            let replacement = if spec.pod_failure_policy.is_some() {
                "Failed"
            } else {
                "TerminatingOrFailed"
            };
            spec.pod_replacement_policy
                .get_or_insert_with(|| replacement.to_owned());
            spec.manual_selector.get_or_insert(false);
        }
        Workload::CronJob(c) => {
            let spec = &mut c.spec;
            spec.concurrency_policy.get_or_insert_with(|| "Allow".to_owned());
            spec.suspend.get_or_insert(false);
            spec.successful_jobs_history_limit.get_or_insert(3);
            spec.failed_jobs_history_limit.get_or_insert(1);
        }
        Workload::ReplicationController(r) => {
            let spec = r.spec.get_or_insert_with(Default::default);
            let labels = spec
                .template
                .as_ref()
                .and_then(|t| t.metadata.as_ref()?.labels.clone());
            if let Some(labels) = labels {
                if spec.selector.as_ref().is_none_or(|s| s.is_empty()) {
                    spec.selector = Some(labels.clone());
                }
                if r.metadata.labels.as_ref().is_none_or(|l| l.is_empty()) {
                    r.metadata.labels = Some(labels);
                }
            }
            spec.replicas.get_or_insert(1);
        }
        Workload::PodTemplate(_) => {}
    }
    if let Some(t) = w.template_mut() {
        apply_pod_spec_defaults(t.spec.get_or_insert_with(Default::default));
    }
}

/// `SetDefaults_Deployment`'s strategy: `RollingUpdate` with 25 % surge and unavailability.
fn default_deployment_strategy(s: &mut DeploymentStrategy) {
    let kind = s.type_.get_or_insert_with(|| "RollingUpdate".to_owned());
    if kind == "RollingUpdate" {
        let r = s
            .rolling_update
            .get_or_insert_with(RollingUpdateDeployment::default);
        r.max_unavailable
            .get_or_insert_with(|| IntOrString::String("25%".to_owned()));
        r.max_surge
            .get_or_insert_with(|| IntOrString::String("25%".to_owned()));
    }
}

/// `SetDefaults_DaemonSet`'s strategy: `RollingUpdate`, one unavailable, no surge.
fn default_daemon_set_strategy(s: &mut DaemonSetUpdateStrategy) {
    let kind = s.type_.get_or_insert_with(|| "RollingUpdate".to_owned());
    if kind == "RollingUpdate" {
        let r = s
            .rolling_update
            .get_or_insert_with(RollingUpdateDaemonSet::default);
        r.max_unavailable.get_or_insert(IntOrString::Int(1));
        r.max_surge.get_or_insert(IntOrString::Int(0));
    }
}

/// `SetDefaults_StatefulSet`'s strategy: `RollingUpdate` from partition 0.
fn default_stateful_set_strategy(s: &mut StatefulSetUpdateStrategy) {
    if s.type_.is_none() {
        s.type_ = Some("RollingUpdate".to_owned());
        s.rolling_update
            .get_or_insert_with(RollingUpdateStatefulSetStrategy::default);
    }
    if s.type_.as_deref() == Some("RollingUpdate")
        && let Some(r) = s.rolling_update.as_mut()
    {
        r.partition.get_or_insert(0);
    }
}
