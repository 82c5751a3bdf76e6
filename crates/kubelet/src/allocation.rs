//! The kubelet's allocation step: can a Pod's desired spec be allocated on its node now
//! (**Allocated**), later (**Deferred**), or not until the spec changes (**Infeasible**)?
//!
//! Upstream: `pkg/kubelet/allocation/allocation_manager.go` (`handlePodResourcesResize`,
//! `canAdmitPod`, `sortPendingResizes`, `isResizeIncreasingRequests`), `handlers.go`
//! (`podResizesAdmitHandler`), `features_{linux,windows}.go` and `pkg/kubelet/lifecycle/predicate.go`.
//! KEP-5972 (Dynamic Containers) makes container additions, removals and image updates go through
//! the same step, atomically: "Allocation is an atomic operation, so if multiple containers are
//! added and removed together, the changes will only be allocated if ALL of the changes can be
//! allocated", and "container image update will also be gated by the atomic allocation step".
//!
//! The request document (`podmut allocate REQUEST`, WIT `node.allocate`):
//!
//! ```yaml
//! node: {apiVersion: v1, kind: Node, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
//! nodeConfig: {cpuManagerPolicy: static}   # optional: see NodeConfig
//! allocatedPods: []                         # the other Pods on the node, as allocated
//! allocated: {kind: Pod, ...}               # this Pod's allocated spec (what /allocated returns now)
//! desired: {kind: Pod, ...}                 # this Pod as the API server has it
//! settings: {featureGates: {...}}           # optional settings profile
//! ```

use k8s_openapi::api::core::v1::{Node, Pod};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use podmut_model::defaults::apply_pod_defaults;
use podmut_model::document::{self, InputError};
use podmut_model::settings::{Gate, Settings};

mod changes;
mod feasibility;
mod node;
pub(crate) mod resources;
mod retry;

pub use changes::{Change, ChangeKind};
pub(crate) use node::NodeConfig;
pub use retry::{RetryEntry, RetryPlan, retry_order_document};

/// The input that the document is called in errors.
const INPUT: &str = "request";

/// The outcome of one allocation attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Outcome {
    /// The whole change is admitted and checkpointed; the kubelet actuates it at the next sync.
    Allocated,
    /// It fits the node's allocatable resources but not what the other Pods leave free; nothing is
    /// actuated and the kubelet retries.
    Deferred,
    /// It cannot be allocated until the desired spec changes; nothing is actuated.
    Infeasible,
    /// The Pod is terminating or terminal: "Allocation will be halted once a pod enters a
    /// terminating state" (KEP-5972). Nothing is actuated and no condition is published.
    Halted,
}

impl Outcome {
    /// The name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Allocated => "Allocated",
            Outcome::Deferred => "Deferred",
            Outcome::Infeasible => "Infeasible",
            Outcome::Halted => "Halted",
        }
    }
}

/// The `PodResizePending` condition the kubelet publishes for a pending change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingCondition {
    /// `PodResizePending`.
    #[serde(rename = "type")]
    pub type_: String,
    /// `True`.
    pub status: String,
    /// `Deferred` or `Infeasible`.
    pub reason: String,
    /// Upstream's message.
    pub message: String,
    /// The Pod generation the condition is about (`metadata.generation`), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

/// What the kubelet decides for one Pod.
#[derive(Clone, Debug, PartialEq)]
pub struct AllocationDecision {
    /// Allocated, Deferred, Infeasible or Halted.
    pub outcome: Outcome,
    /// Upstream reason (`Deferred`, `Infeasible`; empty otherwise).
    pub reason: String,
    /// Upstream message (empty when allocated).
    pub message: String,
    /// The allocated Pod, as `/allocated` would return it after this attempt.
    pub allocated_pod: Pod,
    /// The `PodResizePending` condition, when the change stays pending.
    pub resize_pending: Option<PendingCondition>,
    /// Every change of this spec generation (actuated only when allocated).
    pub changes: Vec<Change>,
    /// Consequences worth knowing (what waits, what the kubelet logs, when it retries).
    pub notes: Vec<String>,
}

impl AllocationDecision {
    /// Whether the changes are actuated.
    pub fn actuated(&self) -> bool {
        self.outcome == Outcome::Allocated
    }

    /// The allocated Pod as JSON (what `/allocated` returns).
    pub fn allocated_pod_json(&self) -> String {
        // Through a `Value`, whose serializer every other encoding of a Pod already uses: writing
        // the Pod straight to text would put a second serializer for every Pod type in the
        // component (~85 KB of code). The same text: k8s-openapi writes fields in key order, as a
        // `Value`'s map holds them. A k8s-openapi Pod always serializes; `{}` keeps this panic-free.
        serde_json::to_value(&self.allocated_pod).map_or_else(|_| "{}".to_owned(), |v| v.to_string())
    }
}

/// An allocation request, decoded and checked: what [`allocate`] decides on.
///
/// [`allocate_document`] reads one from a request document; [`AllocationRequest::new`] builds one
/// from Pods and a Node already decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct AllocationRequest {
    /// The node (needs `status.allocatable`).
    pub(crate) node: Node,
    /// Kubelet configuration the Node does not carry.
    pub(crate) node_config: NodeConfig,
    /// The other Pods on the node, with their allocated specs.
    pub(crate) allocated_pods: Vec<Pod>,
    /// This Pod's allocated spec.
    pub(crate) allocated: Pod,
    /// This Pod's desired spec.
    pub(crate) desired: Pod,
}

impl AllocationRequest {
    /// The request to allocate this Pod's `desired` spec where `allocated` is what the kubelet has
    /// checkpointed, on `node` beside the `allocated_pods`, under the kubelet's default
    /// configuration (a request document without `nodeConfig`).
    ///
    /// Everything is checked and defaulted as [`allocate_document`] checks and defaults a request
    /// document's fields, in the same order, and an error is the one that document would give
    /// (input `request`, naming the field: `node: status.allocatable: ...`,
    /// `allocatedPods[1]: ...`, `desired: ...`). `settings` are the settings the request is
    /// allocated with.
    pub fn new(
        node: Node,
        allocated_pods: Vec<Pod>,
        allocated: Pod,
        desired: Pod,
        settings: &Settings,
    ) -> Result<Self, InputError> {
        resources::check_node_quantities(&node, INPUT, "node")?;
        let node_config = NodeConfig::default();
        node::NodeFacts::read(&node, &node_config, INPUT)?;
        let allocated_pods = allocated_pods
            .into_iter()
            .enumerate()
            .map(|(i, pod)| checked_pod(pod, INPUT, &format!("allocatedPods[{i}]"), settings))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            node,
            node_config,
            allocated_pods,
            allocated: checked_pod(allocated, INPUT, "allocated", settings)?,
            desired: checked_pod(desired, INPUT, "desired", settings)?,
        })
    }
}

/// Decide the allocation outcome for `req.desired` against `req.allocated` on `req.node`.
///
/// Order of the rules, each from `handlePodResourcesResize` and its admit handlers:
/// 1. nothing differs -> Allocated (upstream clears `PodResizePending`);
/// 2. the Pod is terminating or terminal -> Halted (KEP-5972);
/// 3. container adds/removes without `DynamicContainers` -> Infeasible;
/// 4. resource, add or remove changes go through the resize admission: gate, static Pod, Windows,
///    swap, pod-level gate, static CPU/Memory manager for Guaranteed Pods, node capacity ->
///    Infeasible (an image-only change does not, podmut's reading of KEP-5972);
/// 5. the admission predicate against the other Pods -> Deferred;
/// 6. otherwise Allocated.
///
/// `settings` are the ones the request was checked and defaulted with.
pub fn allocate(req: &AllocationRequest, settings: &Settings) -> AllocationDecision {
    let (desired, allocated) = (&req.desired, &req.allocated);
    let dynamic = settings.gate(Gate::DynamicContainers);
    let set = changes::diff(allocated, desired, settings);
    let view = feasibility::allocated_view(desired, allocated, settings);
    let mut d = AllocationDecision {
        outcome: Outcome::Allocated,
        reason: String::new(),
        message: String::new(),
        allocated_pod: desired.clone(),
        resize_pending: None,
        changes: set.changes.clone(),
        notes: Vec::new(),
    };
    if set.changes.is_empty() {
        d.notes.push(
            "the desired spec equals the allocation: nothing to allocate (PodResizePending is cleared)"
                .into(),
        );
        return d;
    }
    let pending = |d: &mut AllocationDecision, outcome: Outcome, message: String| {
        d.outcome = outcome;
        d.reason = outcome.as_str().to_owned();
        d.resize_pending = Some(PendingCondition {
            type_: "PodResizePending".into(),
            status: "True".into(),
            reason: d.reason.clone(),
            message: message.clone(),
            observed_generation: desired.metadata.generation,
        });
        d.message = message;
    };
    let node = match node::NodeFacts::read(&req.node, &req.node_config, INPUT) {
        Ok(n) => n,
        // Checked when the request was read; a direct caller gets the same message as Infeasible.
        Err(e) => {
            pending(&mut d, Outcome::Infeasible, e.message().to_owned());
            d.allocated_pod = view;
            return d;
        }
    };
    if podmut_model::podutil::is_terminating(desired) || podmut_model::podutil::is_terminal(desired) {
        d.outcome = Outcome::Halted;
        d.message = if podmut_model::podutil::is_terminating(desired) {
            "allocation is halted: the Pod is terminating".into()
        } else {
            format!(
                "allocation is halted: the Pod is {}",
                podmut_model::podutil::phase(desired)
            )
        };
        d.allocated_pod = view;
        not_actuated_notes(&mut d, dynamic);
        return d;
    }
    let outcome = if !dynamic && set.is_dynamic() {
        Some((Outcome::Infeasible, feasibility::MSG_DYNAMIC_GATE_OFF.to_owned()))
    } else if !dynamic && !set.needs_resize() {
        // Without DynamicContainers an image update is not part of allocation: it is applied directly.
        None
    } else if let Some(m) = set
        .needs_resize()
        .then(|| feasibility::infeasible(desired, &view, &set, &node, settings))
        .flatten()
    {
        Some((Outcome::Infeasible, m))
    } else {
        feasibility::predicate(desired, &req.allocated_pods, &node, settings).map(|m| (Outcome::Deferred, m))
    };
    match outcome {
        Some((o, message)) => {
            pending(&mut d, o, message);
            d.allocated_pod = view;
            not_actuated_notes(&mut d, dynamic);
            d.notes.push(if o == Outcome::Deferred {
                "Deferred: retried when Pods are added, updated, resized, removed or terminated, \
                 and periodically (first after 30s, then every 3m); Warning event ResizeDeferred"
                    .into()
            } else {
                "Infeasible: not retried until the desired spec changes; Warning event ResizeInfeasible"
                    .into()
            });
        }
        None => actuated_notes(&mut d, &set, dynamic),
    }
    d
}

fn not_actuated_notes(d: &mut AllocationDecision, dynamic: bool) {
    let mut notes = Vec::new();
    for c in &d.changes {
        match c.kind {
            ChangeKind::AddContainer => notes.push(format!(
                "added container {} is not started: its status stays Waiting with reason Unallocated",
                c.container
            )),
            ChangeKind::RemoveContainer => notes.push(format!(
                "removed container {} keeps running until the change is allocated",
                c.container
            )),
            ChangeKind::UpdateImage if dynamic => notes.push(format!(
                "image update of container {} ({}) is not actuated until the whole change is allocated \
                 (KEP-5972; the kubelet logs it)",
                c.container, c.detail
            )),
            ChangeKind::UpdateImage => notes.push(format!(
                "image update of container {} ({}) is applied anyway: without DynamicContainers images are \
                 not gated by allocation",
                c.container, c.detail
            )),
            ChangeKind::ResizeContainer | ChangeKind::ResizePod => {}
        }
    }
    d.notes.extend(notes);
}

fn actuated_notes(d: &mut AllocationDecision, set: &changes::ChangeSet, dynamic: bool) {
    if set.needs_resize() {
        let generation = d
            .allocated_pod
            .metadata
            .generation
            .map_or(String::new(), |g| format!(" (observedGeneration {g})"));
        d.notes.push(format!(
            "allocation checkpointed: PodResizePending cleared, PodResizeInProgress set{generation}; \
             Normal event ResizeStarted"
        ));
    }
    for c in set.of(ChangeKind::AddContainer) {
        d.notes.push(format!(
            "container {} is started at the next pod sync",
            c.container
        ));
    }
    for c in set.of(ChangeKind::RemoveContainer) {
        d.notes.push(format!(
            "container {} is killed at the next pod sync (within its grace period); its status is kept \
             after termination",
            c.container
        ));
    }
    if !dynamic && set.has(ChangeKind::UpdateImage) {
        d.notes.push(
            "image updates are applied directly: without DynamicContainers they are not gated by allocation"
                .into(),
        );
    }
}

fn object<'a>(value: &'a Value, input: &str) -> Result<&'a Map<String, Value>, InputError> {
    value
        .as_object()
        .ok_or_else(|| InputError::wrong_kind(input, "expected a request object (a map of fields)"))
}

fn check_keys(obj: &Map<String, Value>, input: &str, known: &[&str]) -> Result<(), InputError> {
    for k in obj.keys() {
        if !known.contains(&k.as_str()) {
            return Err(InputError::malformed(
                input,
                format!("unknown field {k:?}, expected one of {}", known.join(", ")),
            ));
        }
    }
    Ok(())
}

fn prefixed(e: &InputError, input: &str, field: &str) -> InputError {
    let message = format!("{field}: {}", e.message());
    match e {
        InputError::WrongKind { .. } => InputError::wrong_kind(input, message),
        InputError::TooLarge { .. } => InputError::TooLarge {
            input: input.to_owned(),
            message,
        },
        _ => InputError::malformed(input, message),
    }
}

/// Decode the Pod in field `field` of a request (kind checked, quantities checked, defaults applied
/// when the settings ask), naming the field on error.
pub(crate) fn pod_field(
    value: Option<&Value>,
    input: &str,
    field: &str,
    settings: &Settings,
) -> Result<Option<Pod>, InputError> {
    let Some(v) = value.filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let pod = document::pod_from_value(v.clone(), input).map_err(|e| prefixed(&e, input, field))?;
    checked_pod(pod, input, field, settings).map(Some)
}

/// A decoded Pod of a request as the kubelet reads it: its quantities checked (an error names
/// `field`), then defaulted when the settings ask.
pub(crate) fn checked_pod(
    mut pod: Pod,
    input: &str,
    field: &str,
    settings: &Settings,
) -> Result<Pod, InputError> {
    resources::check_pod_quantities(&pod, input, field)?;
    if settings.apply_defaults {
        apply_pod_defaults(&mut pod, settings);
    }
    Ok(pod)
}

/// A required Pod field.
pub(crate) fn required_pod(
    obj: &Map<String, Value>,
    input: &str,
    field: &str,
    what: &str,
    settings: &Settings,
) -> Result<Pod, InputError> {
    pod_field(obj.get(field), input, field, settings)?
        .ok_or_else(|| InputError::malformed(input, format!("{field}: required: {what}")))
}

/// The optional `settings` field of a request document.
pub(crate) fn settings_field(obj: &Map<String, Value>, input: &str) -> Result<Settings, InputError> {
    match obj.get("settings") {
        None | Some(Value::Null) => Ok(Settings::default()),
        Some(v) => Settings::parse(&v.to_string()).map_err(|e| InputError::BadSettings {
            input: input.to_owned(),
            message: format!("settings: {}", e.message()),
        }),
    }
}

/// Parse a request document (JSON or YAML) into its object and settings.
pub(crate) fn read_request(text: &str, input: &str) -> Result<(Map<String, Value>, Settings), InputError> {
    let value = document::parse_text(text, input, Settings::default().max_input_bytes)?;
    let obj = object(&value, input)?.clone();
    let settings = settings_field(&obj, input)?;
    Ok((obj, settings))
}

/// Read an allocation request document; every error names the field (`request: desired: ...`).
pub(crate) fn parse_request(text: &str) -> Result<(AllocationRequest, Settings), InputError> {
    let (obj, settings) = read_request(text, INPUT)?;
    check_keys(
        &obj,
        INPUT,
        &[
            "node",
            "nodeConfig",
            "allocatedPods",
            "allocated",
            "desired",
            "settings",
        ],
    )?;
    let node_value = obj
        .get("node")
        .filter(|v| !v.is_null())
        .ok_or_else(|| InputError::malformed(INPUT, "node: required: the v1 Node the Pod runs on"))?;
    let node =
        document::node_from_value(node_value.clone(), INPUT).map_err(|e| prefixed(&e, INPUT, "node"))?;
    resources::check_node_quantities(&node, INPUT, "node")?;
    let node_config: NodeConfig = match obj.get("nodeConfig") {
        None | Some(Value::Null) => NodeConfig::default(),
        Some(v) => document::decode(v, INPUT).map_err(|e| prefixed(&e, INPUT, "nodeConfig"))?,
    };
    node::NodeFacts::read(&node, &node_config, INPUT)?;
    let mut allocated_pods = Vec::new();
    match obj.get("allocatedPods") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let field = format!("allocatedPods[{i}]");
                if let Some(p) = pod_field(Some(item), INPUT, &field, &settings)? {
                    allocated_pods.push(p);
                }
            }
        }
        Some(_) => {
            return Err(InputError::malformed(
                INPUT,
                "allocatedPods: expected a list of Pods",
            ));
        }
    }
    let allocated = required_pod(
        &obj,
        INPUT,
        "allocated",
        "the Pod's allocated spec (what the kubelet has checkpointed)",
        &settings,
    )?;
    let desired = required_pod(
        &obj,
        INPUT,
        "desired",
        "the Pod as the API server has it",
        &settings,
    )?;
    Ok((
        AllocationRequest {
            node,
            node_config,
            allocated_pods,
            allocated,
            desired,
        },
        settings,
    ))
}

/// [`allocate`] on a request document (`podmut allocate`, WIT `node.allocate`).
pub fn allocate_document(text: &str) -> Result<AllocationDecision, InputError> {
    let (req, settings) = parse_request(text)?;
    Ok(allocate(&req, &settings))
}

#[cfg(test)]
mod tests;
