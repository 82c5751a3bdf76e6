//! One report of what a Pod change does end to end (`podmut plan`): the API server's verdict, the
//! QoS class before and after, the kubelet's allocation on a node, the probe-worker plan and the
//! container statuses right after.
//!
//! Every section comes from the same function the single-purpose commands run (`check`,
//! `allocate`, `probes`, `statuses`), fed the Pod the API server stores: on a subresource that is
//! the REST strategy's result, not the Pod as sent. A section that cannot be computed says why
//! (the change is denied, no node was given, the Pod has no status yet) instead of guessing.

use k8s_openapi::api::core::v1::Pod;
use serde_json::{Map, Value, json};

use podmut_kubelet::allocation::{AllocationDecision, Outcome};
use podmut_kubelet::probe_plan::ProbeReconciliation;
use podmut_model::defaults::apply_pod_defaults;
use podmut_model::document::{self, InputError};
use podmut_model::qos::{QosClass, compute_pod_qos};
use podmut_model::request_path::Subresource;
use podmut_model::settings::{Gate, Settings};
use podmut_validation::verdict::Verdict;

/// The documents a plan reads (JSON or YAML text).
#[derive(Clone, Copy, Debug)]
pub struct PlanInput<'a> {
    /// The Pod before the change.
    pub old: &'a str,
    /// The Pod after the change, as sent.
    pub new: &'a str,
    /// The request path.
    pub sub: Subresource,
    /// The v1 Node the Pod runs on, for the allocation.
    pub node: Option<&'a str>,
    /// The other Pods on the node (a stream, a list or a `List`), as allocated.
    pub pods: Option<&'a str>,
    /// The settings document (`""`: the defaults).
    pub settings: &'a str,
}

/// A section that was computed, or why not.
#[derive(Clone, Debug, PartialEq)]
pub enum Section<T> {
    /// Computed.
    Done(T),
    /// Not computed, and why.
    Skipped(String),
}

impl<T> Section<T> {
    /// The value, when computed.
    pub fn done(&self) -> Option<&T> {
        match self {
            Section::Done(v) => Some(v),
            Section::Skipped(_) => None,
        }
    }

    /// Why it was skipped (empty when computed).
    pub fn skipped(&self) -> &str {
        match self {
            Section::Done(_) => "",
            Section::Skipped(why) => why,
        }
    }
}

/// The QoS class before and after (computed from the specs, `ComputePodQOS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QosChange {
    /// The old Pod's class.
    pub before: QosClass,
    /// The stored new Pod's class.
    pub after: QosClass,
}

/// The whole report.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The API server's verdict on the change.
    pub admission: Verdict,
    /// QoS before and after.
    pub qos: QosChange,
    /// The kubelet's allocation of the stored Pod on the node.
    pub allocation: Section<AllocationDecision>,
    /// The probe-worker plan.
    pub probes: Section<ProbeReconciliation>,
    /// The container statuses right after (the `statuses` JSON report).
    pub statuses: Section<String>,
}

impl Plan {
    /// Whether the change goes through: admitted, and allocated when a node was given.
    pub fn applies(&self) -> bool {
        self.admission.allowed
            && self
                .allocation
                .done()
                .is_none_or(|d| d.outcome == Outcome::Allocated)
    }
}

/// The words a section skipped under a denial says.
pub(crate) const DENIED: &str = "the API server denies the change: nothing reaches the node";

/// Build the plan.
pub fn plan(input: &PlanInput<'_>) -> Result<Plan, InputError> {
    let settings = Settings::parse(input.settings)?
        .for_subresource(input.sub)
        .into_owned();
    let mut settings_value = settings_value(input.settings)?;
    if settings.gate(Gate::DynamicContainers) && input.sub == Subresource::Dynamic {
        // pods/dynamic implies its gate (Settings::for_subresource): every section sees it on.
        if let Some(doc) = settings_value.as_object_mut() {
            let gates = doc
                .entry("featureGates")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(gates) = gates.as_object_mut() {
                gates.insert(Gate::DynamicContainers.name().into(), Value::Bool(true));
            }
        }
    }
    if let (Some(node), Some(doc)) = (input.node, settings_value.as_object_mut())
        && !doc.contains_key("nodes")
    {
        // The Node given for the allocation is the one the admission plugins read too.
        let node = document::parse_text(node, "node", settings.max_input_bytes)?;
        doc.insert("nodes".into(), Value::Array(vec![node]));
    }
    let settings_text = settings_value.to_string();
    let admission = podmut_validation::validation::check_documents(
        Some(input.old),
        input.new,
        input.sub,
        &settings_text,
    )?;
    let limit = settings.max_input_bytes;
    let old = document::parse_pod(input.old, "old-pod", limit)?;
    let new = document::parse_pod(input.new, "new-pod", limit)?;
    let stored = stored_pod(&old, &new, input.sub, &settings);
    let qos = QosChange {
        before: qos_of(&old, &settings),
        after: qos_of(&stored, &settings),
    };
    if !admission.allowed {
        return Ok(Plan {
            admission,
            qos,
            allocation: Section::Skipped(DENIED.into()),
            probes: Section::Skipped(DENIED.into()),
            statuses: Section::Skipped(DENIED.into()),
        });
    }
    let old_value = to_value(&old)?;
    let stored_value = to_value(&stored)?;
    let allocation = match input.node {
        None => Section::Skipped(
            "no node given: pass the v1 Node the Pod runs on (--node FILE, with status.allocatable) and \
             the other Pods on it (--pods FILE) to see whether the kubelet allocates the change"
                .into(),
        ),
        Some(node) => Section::Done(allocate(
            node,
            input.pods,
            &old_value,
            &stored_value,
            &settings_value,
            limit,
        )?),
    };
    let probes = Section::Done(podmut_kubelet::probe_plan::probe_plan_documents(
        input.old,
        &stored_value.to_string(),
        &settings_text,
    )?);
    let statuses = statuses(&old, &stored, &allocation, &settings_value)?;
    Ok(Plan {
        admission,
        qos,
        allocation,
        probes,
        statuses,
    })
}

/// The Pod the API server stores: a subresource's REST strategy keeps only what that path may
/// change (the same step [`podmut_validation::validation::check`] runs before validating).
fn stored_pod(old: &Pod, new: &Pod, sub: Subresource, settings: &Settings) -> Pod {
    podmut_validation::validation::prepare_update(sub, new, old, settings).pod
}

fn qos_of(pod: &Pod, settings: &Settings) -> QosClass {
    let mut pod = pod.clone();
    if settings.apply_defaults {
        apply_pod_defaults(&mut pod, settings);
    }
    compute_pod_qos(&pod, settings)
}

fn to_value(pod: &Pod) -> Result<Value, InputError> {
    serde_json::to_value(pod)
        .map_err(|e| InputError::malformed("new-pod", format!("cannot encode the Pod: {e}")))
}

fn settings_value(text: &str) -> Result<Value, InputError> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    let v = document::parse_text(text, "settings", u64::MAX).map_err(|e| InputError::BadSettings {
        input: "settings".into(),
        message: e.message().to_owned(),
    })?;
    Ok(if v.is_null() { Value::Object(Map::new()) } else { v })
}

/// The `allocate` request for the change: the old Pod is what the kubelet has allocated, the stored
/// Pod is what it is asked to allocate.
fn allocate(
    node: &str,
    pods: Option<&str>,
    old: &Value,
    stored: &Value,
    settings: &Value,
    limit: u64,
) -> Result<AllocationDecision, InputError> {
    let node = document::parse_text(node, "node", limit)?;
    let others = match pods {
        Some(text) => document::parse_stream(text, "pods", limit)?,
        None => Vec::new(),
    };
    let request = json!({
        "node": node,
        "allocatedPods": others,
        "allocated": old,
        "desired": stored,
        "settings": settings,
    });
    podmut_kubelet::allocation::allocate_document(&request.to_string()).map_err(|e| rename_request_error(&e))
}

/// An error about the assembled request names the plan's own inputs (`node`, `pods`).
fn rename_request_error(e: &InputError) -> InputError {
    let message = e.message();
    for (field, input) in [
        ("node", "node"),
        ("allocatedPods", "pods"),
        ("settings", "settings"),
    ] {
        if let Some(rest) = message.strip_prefix(field) {
            let rest = rest.strip_prefix(": ").unwrap_or(rest);
            return InputError::malformed(input, rest.trim_start_matches('.'));
        }
    }
    e.clone()
}

/// The statuses the kubelet publishes right after: the last published status (the new Pod's, else
/// the old one's) against what is allocated then (with a node, the allocation's result; without,
/// the change is taken as allocated, and the report says so).
fn statuses(
    old: &Pod,
    stored: &Pod,
    allocation: &Section<AllocationDecision>,
    settings: &Value,
) -> Result<Section<String>, InputError> {
    let Some(status) = stored.status.clone().or_else(|| old.status.clone()) else {
        return Ok(Section::Skipped(
            "the Pod has no status yet: the kubelet has not published container statuses to start from"
                .into(),
        ));
    };
    let mut pod = stored.clone();
    pod.status = Some(status);
    let allocated = match allocation.done() {
        Some(d) => serde_json::to_value(&d.allocated_pod),
        None => serde_json::to_value(stored),
    }
    .map_err(|e| InputError::malformed("new-pod", format!("cannot encode the Pod: {e}")))?;
    let request = json!({"pod": to_value(&pod)?, "allocated": allocated, "settings": settings});
    let report = podmut_kubelet::statuses::container_statuses_document(&request.to_string())?;
    Ok(Section::Done(report))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: default, resourceVersion: '1', generation: 1}\nspec:\n  containers:\n  - name: app\n    image: nginx:1.25\n    resources: {requests: {cpu: 500m, memory: 256Mi}}\nstatus:\n  phase: Running\n  conditions:\n  - {type: Initialized, status: 'True'}\n  containerStatuses:\n  - {name: app, image: nginx:1.25, imageID: '', ready: true, started: true, restartCount: 0, state: {running: {}}}\n";
    const NODE: &str = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n";

    fn add_worker(cpu: &str) -> String {
        OLD.replace(
            "  - name: app\n    image: nginx:1.25\n    resources: {requests: {cpu: 500m, memory: 256Mi}}\n",
            &format!(
                "  - name: app\n    image: nginx:1.25\n    resources: {{requests: {{cpu: 500m, memory: 256Mi}}}}\n  - name: worker\n    image: busybox\n    resources: {{requests: {{cpu: {cpu}}}}}\n"
            ),
        )
    }

    fn input<'a>(new: &'a str, node: Option<&'a str>) -> PlanInput<'a> {
        PlanInput {
            old: OLD,
            new,
            sub: Subresource::Dynamic,
            node,
            pods: None,
            settings: "",
        }
    }

    #[test]
    fn an_admitted_change_is_allocated_and_probed() {
        let new = add_worker("500m");
        let p = plan(&input(&new, Some(NODE))).unwrap();
        assert!(p.admission.allowed, "{:?}", p.admission.errors);
        assert_eq!(p.qos.before, QosClass::Burstable);
        assert_eq!(p.allocation.done().unwrap().outcome, Outcome::Allocated);
        assert!(p.applies());
        let statuses: Value = serde_json::from_str(p.statuses.done().unwrap()).unwrap();
        assert!(
            statuses["containerStatuses"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["name"] == "worker")
        );
    }

    #[test]
    fn a_change_the_node_cannot_fit_does_not_apply() {
        let new = add_worker("8");
        let p = plan(&input(&new, Some(NODE))).unwrap();
        assert!(p.admission.allowed);
        assert_eq!(p.allocation.done().unwrap().outcome, Outcome::Infeasible);
        assert!(!p.applies());
        let statuses: Value = serde_json::from_str(p.statuses.done().unwrap()).unwrap();
        assert_eq!(statuses["unallocated"], json!(["worker"]));
    }

    #[test]
    fn denied_and_nodeless_plans_say_what_is_missing() {
        let new = add_worker("500m");
        let mut i = input(&new, None);
        i.sub = Subresource::None;
        let p = plan(&i).unwrap();
        assert!(!p.admission.allowed);
        assert_eq!(p.allocation.skipped(), DENIED);
        assert!(!p.applies());
        let p = plan(&input(&new, None)).unwrap();
        assert!(p.allocation.skipped().contains("--node"));
        assert!(p.applies(), "admitted, and nothing says it cannot be allocated");
        let e = plan(&input(&new, Some("kind: Node\n"))).unwrap_err();
        assert_eq!(e.input(), "node", "{e}");
    }
}
