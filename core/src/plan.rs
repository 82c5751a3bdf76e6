//! One report of what a Pod change does end to end (`podmut plan`): the API server's verdict, the
//! QoS class before and after, the kubelet's allocation on a node, the probe-worker plan and the
//! container statuses right after.
//!
//! Every section comes from the same function the single-purpose commands run (`check`,
//! `allocate`, `probes`, `statuses`), fed the Pod the API server stores: on a subresource that is
//! the REST strategy's result, not the Pod as sent. A section that cannot be computed says why
//! (the change is denied, no node was given, the Pod has no status yet) instead of guessing.
//!
//! Each input is read once, at the edge: [`plan`] puts every text into an `Unread`, whose
//! readers take it by value, so the compiler refuses a second reading of the same text; the
//! sections get decoded Pods, the Node and the settings, never text.

use k8s_openapi::api::core::v1::Pod;
use serde_json::{Map, Value};

use podmut_kubelet::allocation::{AllocationDecision, AllocationRequest, Outcome};
use podmut_kubelet::probe_plan::ProbeReconciliation;
use podmut_model::defaults::apply_pod_defaults;
use podmut_model::document::{self, InputError};
use podmut_model::field_validation::read_pod;
use podmut_model::qos::{QosClass, compute_pod_qos};
use podmut_model::request_path::Subresource;
use podmut_model::settings::{Gate, Settings};
use podmut_validation::verdict::Verdict;
use podmut_validation::workload::WorkloadDocument;

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

/// One input document, not read yet. Its readers take it by value: a text is parsed at most once.
struct Unread<'a> {
    text: &'a str,
    /// What errors call the input (`old-pod`, `node`, ...).
    input: &'static str,
}

impl<'a> Unread<'a> {
    fn new(text: &'a str, input: &'static str) -> Self {
        Self { text, input }
    }

    /// One JSON or YAML document.
    fn value(self, limit: u64) -> Result<Value, InputError> {
        document::parse_text(self.text, self.input, limit)
    }

    /// The objects of a stream, a list or a `List`.
    fn items(self, limit: u64) -> Result<Vec<Value>, InputError> {
        document::parse_stream(self.text, self.input, limit)
    }

    /// A Pod, or a workload (read only when the text is not a Pod), with its field warnings at
    /// the settings' field validation.
    fn object(self, settings: &Settings) -> Result<Object, InputError> {
        let (level, limit) = (settings.field_validation, settings.max_input_bytes);
        match read_pod(self.text, self.input, level, limit) {
            Err(e @ InputError::WrongKind { .. }) => {
                match podmut_validation::workload::read_workload_text(self.text, self.input, level, limit) {
                    Some(read) => read.map(|(doc, warnings)| Object::Workload(doc, warnings)),
                    None => Err(e),
                }
            }
            read => read.map(|(pod, warnings)| Object::Pod(pod, warnings)),
        }
    }
}

/// A document read: a Pod or a workload, with its field warnings.
#[expect(
    clippy::large_enum_variant,
    reason = "two are read per plan and moved once; both variants are a few KB"
)]
enum Object {
    Pod(Pod, Vec<String>),
    Workload(WorkloadDocument, Vec<String>),
}

/// The Node given for the allocation: read before the admission check when the admission plugins
/// read it too, else only when the allocation is computed.
enum NodeInput<'a> {
    Unread(Unread<'a>),
    Read(Value),
}

/// Build the plan.
pub fn plan(input: &PlanInput<'_>) -> Result<Plan, InputError> {
    let PlanInput {
        old,
        new,
        sub,
        node,
        pods,
        settings,
    } = *input;
    // The edge: from here on, each text is reachable only through its `Unread`.
    let (old, new) = (Unread::new(old, "old-pod"), Unread::new(new, "new-pod"));
    let node = node.map(|text| NodeInput::Unread(Unread::new(text, "node")));
    let pods = pods.map(|text| Unread::new(text, "pods"));
    let (given, document) = Settings::read(settings)?;
    let given = given.for_subresource(sub).into_owned();
    let limit = given.max_input_bytes;
    let (settings, node) = plan_settings(document, &given, sub, node)?;
    let ((old, old_warnings), (new, new_warnings)) = match (old.object(&settings)?, new.object(&settings)?) {
        (Object::Pod(o, ow), Object::Pod(n, nw)) => ((o, ow), (n, nw)),
        (Object::Workload(o, ow), Object::Workload(n, nw)) => {
            return workload_plan((o, ow), (n, nw), sub, &settings);
        }
        (Object::Pod(..), Object::Workload(..)) => {
            return Err(InputError::wrong_kind(
                "old-pod",
                "expected a workload of the new object's kind",
            ));
        }
        (Object::Workload(..), Object::Pod(..)) => {
            return Err(InputError::wrong_kind(
                "new-pod",
                "expected a workload of the old object's kind",
            ));
        }
    };
    let admission = podmut_validation::validation::check_read(
        Some((old.clone(), old_warnings)),
        (new.clone(), new_warnings),
        sub,
        &settings,
    )?;
    let stored = stored_pod(&old, &new, sub, &given);
    let qos = QosChange {
        before: qos_of(&old, &given),
        after: qos_of(&stored, &given),
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
    let allocation = match node {
        None => Section::Skipped(
            "no node given: pass the v1 Node the Pod runs on (--node FILE, with status.allocatable) and \
             the other Pods on it (--pods FILE) to see whether the kubelet allocates the change"
                .into(),
        ),
        Some(node) => Section::Done(allocate(node, pods, &old, &stored, &settings, limit)?),
    };
    let probes = Section::Done(podmut_kubelet::probe_plan::probe_plan(
        old.clone(),
        stored.clone(),
        &settings,
    ));
    let statuses = statuses(&old, &stored, &allocation, &settings)?;
    Ok(Plan {
        admission,
        qos,
        allocation,
        probes,
        statuses,
    })
}

/// The plan of a workload update: the API server's verdict on the workload and the QoS class of
/// the Pods its old and new template make. No Pod changes in place (the rollout report says what
/// the running Pods see instead), so the node-side sections say so.
fn workload_plan(
    (old, old_warnings): (WorkloadDocument, Vec<String>),
    (new, mut warnings): (WorkloadDocument, Vec<String>),
    sub: Subresource,
    settings: &Settings,
) -> Result<Plan, InputError> {
    if sub != Subresource::None {
        return Err(InputError::wrong_kind(
            "new-pod",
            format!("a workload has no {sub} subresource podmut judges"),
        ));
    }
    let kind = new.workload.kind().info().name;
    let class = |d: &WorkloadDocument| {
        qos_of(
            &podmut_model::template_pods::defaulted_template_pod(d.workload.clone()),
            settings,
        )
    };
    let qos = QosChange {
        before: class(&old),
        after: class(&new),
    };
    let mut admission = podmut_validation::workload::check_workload(Some(old), new, settings)?;
    warnings.extend(old_warnings.into_iter().map(|w| format!("old object: {w}")));
    warnings.append(&mut admission.warnings);
    admission.warnings = warnings;
    let why = if admission.allowed {
        format!(
            "a {kind} update changes no running Pod in place: see the rollout report for what its Pods see"
        )
    } else {
        DENIED.to_owned()
    };
    Ok(Plan {
        admission,
        qos,
        allocation: Section::Skipped(why.clone()),
        probes: Section::Skipped(why.clone()),
        statuses: Section::Skipped(why),
    })
}

/// The settings every section runs with: the settings document (`given` is what it says on
/// `sub`) with what the plan implies added — on `pods/dynamic`, the `DynamicContainers` gate its
/// request turns on, so that every section sees it on; the Node given for the allocation, read
/// here, as the one the admission plugins read (unless the document names its `nodes`).
fn plan_settings<'a>(
    document: Value,
    given: &Settings,
    sub: Subresource,
    node: Option<NodeInput<'a>>,
) -> Result<(Settings, Option<NodeInput<'a>>), InputError> {
    let mut document = if document.is_null() {
        Value::Object(Map::new())
    } else {
        document
    };
    if given.gate(Gate::DynamicContainers)
        && sub == Subresource::Dynamic
        && let Some(doc) = document.as_object_mut()
    {
        let gates = doc
            .entry("featureGates")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(gates) = gates.as_object_mut() {
            gates.insert(Gate::DynamicContainers.name().into(), Value::Bool(true));
        }
    }
    let node = match (node, document.as_object_mut()) {
        (Some(NodeInput::Unread(text)), Some(doc)) if !doc.contains_key("nodes") => {
            let node = text.value(given.max_input_bytes)?;
            doc.insert("nodes".into(), Value::Array(vec![node.clone()]));
            Some(NodeInput::Read(node))
        }
        (node, _) => node,
    };
    Ok((Settings::from_value(&document)?, node))
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

/// The allocation of the change: the old Pod is what the kubelet has allocated, the stored Pod is
/// what it is asked to allocate, beside the other `pods` on the `node`. Errors name the plan's
/// inputs (`node`, `pods`) where `allocate` names its request's fields.
fn allocate(
    node: NodeInput<'_>,
    pods: Option<Unread<'_>>,
    old: &Pod,
    stored: &Pod,
    settings: &Settings,
    limit: u64,
) -> Result<AllocationDecision, InputError> {
    let node = match node {
        NodeInput::Read(node) => node,
        NodeInput::Unread(text) => text.value(limit)?,
    };
    let pods = match pods {
        Some(text) => text.items(limit)?,
        None => Vec::new(),
    };
    if node.is_null() {
        return Err(request_field_error(
            "node",
            "required: the v1 Node the Pod runs on",
        ));
    }
    let node =
        document::node_from_value(node, "node").map_err(|e| request_field_error("node", e.message()))?;
    // The other Pods, and where each is in `pods` (a null item is skipped, but counted).
    let mut others = Vec::new();
    let mut positions = Vec::new();
    for (i, item) in pods.into_iter().enumerate() {
        if item.is_null() {
            continue;
        }
        let pod = document::pod_from_value(item, "pods")
            .map_err(|e| request_field_error(&format!("allocatedPods[{i}]"), e.message()))?;
        others.push(pod);
        positions.push(i);
    }
    let request = AllocationRequest::new(node, others, old.clone(), stored.clone(), settings)
        .map_err(|e| rename_request_error(&at_positions(&e, &positions)))?;
    Ok(podmut_kubelet::allocation::allocate(&request, settings))
}

/// The error about `field` of an allocation request, named after the plan's input it came from.
fn request_field_error(field: &str, message: &str) -> InputError {
    rename_request_error(&InputError::malformed("request", format!("{field}: {message}")))
}

/// An error about `allocatedPods[k]` of a request built from the Pods at `positions` of the
/// `pods` input, about `allocatedPods[positions[k]]`.
fn at_positions(e: &InputError, positions: &[usize]) -> InputError {
    let renamed = e.message().strip_prefix("allocatedPods[").and_then(|rest| {
        let (k, rest) = rest.split_once(']')?;
        let position = positions.get(k.parse::<usize>().ok()?)?;
        Some(format!("allocatedPods[{position}]{rest}"))
    });
    match renamed {
        Some(message) => InputError::malformed(e.input(), message),
        None => e.clone(),
    }
}

/// An error about the allocation request names the plan's own inputs (`node`, `pods`).
fn rename_request_error(e: &InputError) -> InputError {
    let message = e.message();
    for (field, input) in [("node", "node"), ("allocatedPods", "pods")] {
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
    settings: &Settings,
) -> Result<Section<String>, InputError> {
    let Some(status) = stored.status.clone().or_else(|| old.status.clone()) else {
        return Ok(Section::Skipped(
            "the Pod has no status yet: the kubelet has not published container statuses to start from"
                .into(),
        ));
    };
    let mut pod = stored.clone();
    pod.status = Some(status);
    let allocated = allocation
        .done()
        .map_or_else(|| stored.clone(), |d| d.allocated_pod.clone());
    let report = podmut_kubelet::statuses::container_statuses(pod, Some(allocated), settings)?;
    Ok(Section::Done(report.to_json()?))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

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

    const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: LABEL}}\n    spec:\n      containers: [{name: app, image: nginx, resources: {limits: {cpu: CPU, memory: 1Gi}}}]\n";

    #[test]
    fn a_workload_update_is_judged_and_its_template_classed() {
        let d = |label: &str, cpu: &str| DEPLOYMENT.replace("LABEL", label).replace("CPU", cpu);
        let (old, new) = (d("web", "1"), d("web", "2"));
        let workload = |old: &str, new: &str| {
            plan(&PlanInput {
                old,
                new,
                sub: Subresource::None,
                node: Some(NODE),
                pods: None,
                settings: "",
            })
        };
        let p = workload(&old, &new).unwrap();
        assert!(p.admission.allowed, "{:?}", p.admission.errors);
        assert_eq!(
            (p.qos.before, p.qos.after),
            (QosClass::Guaranteed, QosClass::Guaranteed)
        );
        assert!(
            p.allocation.skipped().contains("rollout report"),
            "{}",
            p.allocation.skipped()
        );
        let denied = workload(&old, &d("other", "1")).unwrap();
        assert!(!denied.admission.allowed);
        assert_eq!(
            denied.admission.errors[0].field.to_string(),
            "spec.template.metadata.labels"
        );
        assert_eq!(denied.probes.skipped(), DENIED);
        let e = workload(OLD, &new).err().unwrap();
        assert_eq!(e.input(), "old-pod");
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
