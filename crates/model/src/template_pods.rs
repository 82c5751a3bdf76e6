//! The Pods a workload's template makes, as the commands that look at a workload's Pods (`qos`,
//! `plan`) see them: defaulted as the API server defaults the workload.

use k8s_openapi::api::core::v1::Pod;
use serde_json::Value;

use crate::document::InputError;
use crate::field_validation::CheckedValue;
use crate::workload::{Workload, WorkloadKind, template_pod};

/// The Pod `w`'s template makes after the API server's defaulting, in the workload's namespace.
pub fn defaulted_template_pod(mut w: Workload) -> Pod {
    crate::workload_defaults::apply_workload_defaults(&mut w);
    let mut pod = template_pod(w.template());
    if pod.metadata.namespace.is_none() {
        pod.metadata.namespace = w.metadata().namespace.clone();
    }
    pod
}

/// A Pod document, or the Pod a workload document's template makes (in the workload's namespace),
/// for the commands that look at the Pods a workload runs (`qos`, `plan`). Workloads are defaulted
/// as the API server defaults them, which defaults their template's spec.
pub fn pod_or_template(value: Value, input: &str) -> Result<Pod, InputError> {
    if WorkloadKind::of_value(&value).is_none() {
        return crate::document::pod_from_value(value, input);
    }
    let checked = CheckedValue {
        value,
        duplicates: Vec::new(),
    };
    match Workload::validate_value(checked, input) {
        Some(read) => Ok(defaulted_template_pod(read?.object)),
        None => Err(InputError::wrong_kind(input, "expected a Pod or a workload")),
    }
}
