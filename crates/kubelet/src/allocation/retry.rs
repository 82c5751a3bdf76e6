//! The order the kubelet retries pending (Deferred) changes in: upstream `sortPendingResizes`.
//!
//! "sortPendingResizes sorts the list of pending resizes: First, prioritizing resizes that do not
//! increase requests. Second, based on the pod's PriorityClass. Third, based on the pod's QoS class.
//! Last, prioritizing resizes that have been in the deferred state the longest."
//!
//! Request document: `{pending: [{desired: Pod, allocated: Pod}, ...], settings?}`, each desired Pod
//! carrying its `PodResizePending` condition (its `lastTransitionTime` is the pending age).

use std::cmp::Ordering;

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{read_request, required_pod};
use podmut_model::document::InputError;
use podmut_model::podutil::{pod_key, resize_pending_reason};
use podmut_model::qos::{QosClass, get_pod_qos};
use podmut_model::quantity::Quantity;
use podmut_model::resource_helper::{PodResourcesOptions, ResourceMap, pod_requests};
use podmut_model::settings::{Gate, Settings};

const INPUT: &str = "request";

/// One pending Pod in retry order, with the facts the order comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RetryEntry {
    /// `namespace/name`.
    pub pod: String,
    /// Whether the change increases the Pod's cpu or memory requests (`isResizeIncreasingRequests`).
    pub increasing_requests: bool,
    /// `spec.priority` (0 when unset).
    pub priority: i32,
    /// Whether the Pod is Guaranteed (`GetPodQOS`).
    pub guaranteed: bool,
    /// The `PodResizePending` condition's `lastTransitionTime`, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_since: Option<String>,
}

/// The retry queue.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RetryPlan {
    /// Pending Pods in the order the kubelet re-evaluates them.
    pub order: Vec<RetryEntry>,
    /// Pods left out: their `PodResizePending` reason is `Infeasible`, and "Infeasible pods drop out
    /// of the queue" (`retryPendingResizes` keeps only Deferred ones).
    pub dropped: Vec<String>,
}

/// `isResizeIncreasingRequests`: the desired cpu or memory request is above the allocated one.
fn increasing(desired: &Pod, allocated: &Pod, settings: &Settings) -> bool {
    let opts = PodResourcesOptions {
        pod_level: settings.gate(Gate::PodLevelResources),
        use_status: false,
    };
    let (new, old) = (pod_requests(desired, opts), pod_requests(allocated, opts));
    let get = |m: &ResourceMap, k: &str| m.get(k).cloned().unwrap_or(Quantity::ZERO);
    get(&new, "memory") > get(&old, "memory") || get(&new, "cpu") > get(&old, "cpu")
}

fn pending_since(pod: &Pod) -> Option<Time> {
    pod.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "PodResizePending"))
        .and_then(|c| c.last_transition_time.clone())
}

/// The comparator of `sortPendingResizes`. Where upstream's answer depends on the unstable sort
/// (two resizes that do not increase requests; two without a pending condition; equal times), this
/// returns `Equal` and the stable sort keeps the input order.
fn compare(a: &(RetryEntry, Option<Time>), b: &(RetryEntry, Option<Time>)) -> Ordering {
    let (x, y) = (&a.0, &b.0);
    match (x.increasing_requests, y.increasing_requests) {
        (false, false) => return Ordering::Equal,
        (false, true) => return Ordering::Less,
        (true, false) => return Ordering::Greater,
        (true, true) => {}
    }
    y.priority
        .cmp(&x.priority)
        .then(y.guaranteed.cmp(&x.guaranteed))
        .then(match (&a.1, &b.1) {
            (Some(s), Some(t)) => s.cmp(t),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        })
}

/// Order the pending set: each item is `(desired, allocated)`.
pub(crate) fn retry_order(pending: &[(Pod, Pod)], settings: &Settings) -> RetryPlan {
    let mut plan = RetryPlan::default();
    let mut entries = Vec::new();
    for (desired, allocated) in pending {
        if resize_pending_reason(desired) == Some("Infeasible") {
            plan.dropped.push(pod_key(desired));
            continue;
        }
        let since = pending_since(desired);
        entries.push((
            RetryEntry {
                pod: pod_key(desired),
                increasing_requests: increasing(desired, allocated, settings),
                priority: desired.spec.as_ref().and_then(|s| s.priority).unwrap_or(0),
                guaranteed: get_pod_qos(desired, settings) == QosClass::Guaranteed,
                pending_since: since.as_ref().map(|t| t.0.to_string()),
            },
            since,
        ));
    }
    podmut_model::order::sort_by(&mut entries, compare);
    plan.order = entries.into_iter().map(|(e, _)| e).collect();
    plan
}

/// [`retry_order`] on a request document `{pending: [{desired, allocated}], settings?}`.
pub fn retry_order_document(text: &str) -> Result<RetryPlan, InputError> {
    let (obj, settings) = read_request(text, INPUT)?;
    for k in obj.keys() {
        if k != "pending" && k != "settings" {
            return Err(InputError::malformed(
                INPUT,
                format!("unknown field {k:?}, expected one of pending, settings"),
            ));
        }
    }
    let Some(Value::Array(items)) = obj.get("pending") else {
        return Err(InputError::malformed(
            INPUT,
            "pending: required: a list of {desired, allocated} Pod pairs",
        ));
    };
    let mut pending = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let field = format!("pending[{i}]");
        let Some(entry) = item.as_object() else {
            return Err(InputError::malformed(
                INPUT,
                format!("{field}: expected an object with desired and allocated"),
            ));
        };
        let mut named = serde_json::Map::new();
        for key in ["desired", "allocated"] {
            if let Some(v) = entry.get(key) {
                named.insert(format!("{field}.{key}"), v.clone());
            }
        }
        let desired = required_pod(
            &named,
            INPUT,
            &format!("{field}.desired"),
            "the Pod as the API server has it",
            &settings,
        )?;
        let allocated = required_pod(
            &named,
            INPUT,
            &format!("{field}.allocated"),
            "the Pod's allocated spec",
            &settings,
        )?;
        pending.push((desired, allocated));
    }
    Ok(retry_order(&pending, &settings))
}
