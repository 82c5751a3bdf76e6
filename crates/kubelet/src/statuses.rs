//! The container statuses and readiness the kubelet publishes for a Pod whose containers change
//! (KEP-5972, "Container Status", "Readiness", "Container Termination").
//!
//! - "Containers that have been added but not allocated will generate a ContainerStatus with the
//!   Waiting state, and the reason Unallocated."
//! - "Containers that have been removed from the allocation will remain in the Running state until
//!   terminated. After termination, the container status will remain until garbage collected."
//! - "Keep up to N (for alpha, N=10) removed container statuses: After more than N removed container
//!   statuses have accrued, delete the oldest status." (N is `settings.removedStatusLimit`.)
//! - "waiting containers with the Unallocated reason are ignored when computing pod readiness", but
//!   "Once a container is allocated, it is still in the waiting state before it is started. When this
//!   happens, the container will cause the pod to become unready."
//!
//! Readiness follows upstream `pkg/kubelet/status/generate.go` (`GenerateContainersReadyCondition`,
//! `GeneratePodReadyCondition`): restartable init containers and regular containers count, messages
//! list names in Go's `[a b]` form, terminal phases give `PodCompleted` / `PodFailed`, and readiness
//! gates are honoured. Container statuses are sorted by name (`kubetypes.SortedContainerStatuses`).
//!
//! Request document: `{pod, allocated?, settings?}`: `pod` is the Pod as the API server has it, with
//! the statuses the kubelet published last (its `status` is required); `allocated` is the allocated
//! spec (default: `pod` itself, i.e. everything allocated).

use k8s_openapi::api::core::v1::{
    ContainerState, ContainerStateWaiting, ContainerStatus, Pod, PodCondition, PodSpec,
};
use serde::{Deserialize, Serialize};

use crate::allocation::{checked_pod, pod_field, read_request};
use podmut_model::document::InputError;
use podmut_model::podutil::{init_containers, is_restartable_init, spec};
use podmut_model::settings::{Gate, Settings};

const INPUT: &str = "request";

/// The waiting reason of an added container that is not allocated yet (KEP-5972).
pub(crate) const REASON_UNALLOCATED: &str = "Unallocated";
/// The kubelet's default waiting reason for an allocated container not created yet.
pub(crate) const REASON_CONTAINER_CREATING: &str = "ContainerCreating";
/// The kubelet's waiting reason while init containers have not completed.
pub(crate) const REASON_POD_INITIALIZING: &str = "PodInitializing";

/// What the kubelet would publish.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusReport {
    /// `status.containerStatuses`, sorted by name.
    pub container_statuses: Vec<ContainerStatus>,
    /// `status.initContainerStatuses`, as given.
    pub init_container_statuses: Vec<ContainerStatus>,
    /// Added containers waiting with reason `Unallocated`.
    pub unallocated: Vec<String>,
    /// Containers removed from the desired spec whose removal is not allocated yet: they keep running.
    pub removal_pending: Vec<String>,
    /// Containers removed from the allocation that have not terminated: the kubelet kills them; their
    /// status stays as it is until they terminate.
    pub terminating: Vec<String>,
    /// Terminated statuses of removed containers that are kept.
    pub removed: Vec<String>,
    /// Removed-container statuses dropped: the oldest beyond `removedStatusLimit`.
    pub garbage_collected: Vec<String>,
    /// `ContainersReady` and `Ready`.
    pub conditions: Vec<PodCondition>,
    /// Whether the Pod is Ready.
    pub ready: bool,
}

fn waiting(name: &str, image: &str, reason: &str) -> ContainerStatus {
    ContainerStatus {
        name: name.to_owned(),
        image: image.to_owned(),
        image_id: String::new(),
        ready: false,
        restart_count: 0,
        started: Some(false),
        state: Some(ContainerState {
            waiting: Some(ContainerStateWaiting {
                reason: Some(reason.to_owned()),
                message: None,
            }),
            ..ContainerState::default()
        }),
        ..ContainerStatus::default()
    }
}

fn waiting_reason(s: &ContainerStatus) -> Option<&str> {
    s.state
        .as_ref()
        .and_then(|st| st.waiting.as_ref())
        .and_then(|w| w.reason.as_deref())
}

fn is_terminated(s: &ContainerStatus) -> bool {
    s.state.as_ref().is_some_and(|st| st.terminated.is_some())
}

fn finished_at(s: &ContainerStatus) -> Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time> {
    s.state
        .as_ref()
        .and_then(|st| st.terminated.as_ref())
        .and_then(|t| t.finished_at.clone())
}

/// Go's `fmt.Sprintf("%s", []string{...})`: `[a b]`.
fn go_list(names: &[String]) -> String {
    format!("[{}]", names.join(" "))
}

fn initialized(pod: &Pod) -> bool {
    pod.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "Initialized"))
        .is_none_or(|c| c.status == "True")
}

fn condition(pod: &Pod, type_: &str, status: &str, reason: &str, message: &str) -> PodCondition {
    PodCondition {
        type_: type_.to_owned(),
        status: status.to_owned(),
        reason: (!reason.is_empty()).then(|| reason.to_owned()),
        message: (!message.is_empty()).then(|| message.to_owned()),
        observed_generation: pod.metadata.generation,
        ..PodCondition::default()
    }
}

/// `GenerateContainersReadyCondition`, ignoring `Unallocated` waiting containers (KEP-5972).
fn containers_ready(pod: &Pod, spec: &PodSpec, statuses: &[ContainerStatus], dynamic: bool) -> PodCondition {
    let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref()).unwrap_or("");
    let mut unknown = Vec::new();
    let mut unready = Vec::new();
    let restartable = init_containers(spec).iter().filter(|c| is_restartable_init(c));
    for c in restartable.chain(spec.containers.iter()) {
        match statuses.iter().find(|s| s.name == c.name) {
            Some(s) if dynamic && waiting_reason(s) == Some(REASON_UNALLOCATED) => {}
            Some(s) if !s.ready => unready.push(c.name.clone()),
            Some(_) => {}
            None => unknown.push(c.name.clone()),
        }
    }
    if (phase == "Succeeded" && unknown.is_empty()) || phase == "Failed" {
        let reason = if phase == "Failed" {
            "PodFailed"
        } else {
            "PodCompleted"
        };
        return condition(pod, "ContainersReady", "False", reason, "");
    }
    let mut messages = Vec::new();
    if !unknown.is_empty() {
        messages.push(format!("containers with unknown status: {}", go_list(&unknown)));
    }
    if !unready.is_empty() {
        messages.push(format!("containers with unready status: {}", go_list(&unready)));
    }
    if messages.is_empty() {
        condition(pod, "ContainersReady", "True", "", "")
    } else {
        condition(
            pod,
            "ContainersReady",
            "False",
            "ContainersNotReady",
            &messages.join(", "),
        )
    }
}

/// `GeneratePodReadyCondition`.
fn pod_ready(pod: &Pod, spec: &PodSpec, containers: &PodCondition) -> PodCondition {
    if containers.status != "True" {
        return PodCondition {
            type_: "Ready".into(),
            ..containers.clone()
        };
    }
    let conditions = pod
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or(&[]);
    let mut messages = Vec::new();
    for gate in spec.readiness_gates.iter().flatten() {
        match conditions.iter().find(|c| c.type_ == gate.condition_type) {
            None => messages.push(format!(
                "corresponding condition of pod readiness gate {:?} does not exist.",
                gate.condition_type
            )),
            Some(c) if c.status != "True" => messages.push(format!(
                "the status of pod readiness gate {:?} is not \"True\", but {}",
                gate.condition_type, c.status
            )),
            Some(_) => {}
        }
    }
    if messages.is_empty() {
        condition(pod, "Ready", "True", "", "")
    } else {
        condition(
            pod,
            "Ready",
            "False",
            "ReadinessGatesNotReady",
            &messages.join(", "),
        )
    }
}

impl StatusReport {
    /// The report as JSON (camelCase), the text [`container_statuses_document`] returns.
    pub fn to_json(&self) -> Result<String, InputError> {
        serde_json::to_string(self)
            .map_err(|e| InputError::malformed(INPUT, format!("cannot render the result: {e}")))
    }
}

/// The statuses the kubelet would publish for `pod`, with the statuses it published last (its
/// `status` is required), given its `allocated` spec (`None`: the Pod's own, everything allocated).
///
/// Both Pods are checked and defaulted as [`container_statuses_document`] checks and defaults a
/// request document's, in the same order, and an error is the one that document would give (input
/// `request`, naming the field: `pod: ...`, `allocated: ...`).
pub fn container_statuses(
    pod: Pod,
    allocated: Option<Pod>,
    settings: &Settings,
) -> Result<StatusReport, InputError> {
    let pod = checked_pod(pod, INPUT, "pod", settings)?;
    require_status(&pod)?;
    let allocated = allocated
        .map(|a| checked_pod(a, INPUT, "allocated", settings))
        .transpose()?;
    Ok(report(&pod, allocated.as_ref(), settings))
}

/// A request's Pod must carry the statuses the kubelet published last.
fn require_status(pod: &Pod) -> Result<(), InputError> {
    if pod.status.is_none() {
        return Err(InputError::malformed(
            INPUT,
            "pod: status: required: the Pod's current status (the container statuses the kubelet \
             published last; write `status: {}` for a Pod with none yet)",
        ));
    }
    Ok(())
}

/// The statuses the kubelet would publish for `pod`, given its `allocated` spec (both checked and
/// defaulted).
fn report(pod: &Pod, allocated: Option<&Pod>, settings: &Settings) -> StatusReport {
    let dynamic = settings.gate(Gate::DynamicContainers);
    let desired = spec(pod);
    let allocated_spec = allocated.map_or_else(|| desired.clone(), spec);
    let status = pod.status.clone().unwrap_or_default();
    let existing = status.container_statuses.unwrap_or_default();
    let mut report = StatusReport {
        init_container_statuses: status.init_container_statuses.unwrap_or_default(),
        ..StatusReport::default()
    };
    let default_reason = if !init_containers(&desired).is_empty() && !initialized(pod) {
        REASON_POD_INITIALIZING
    } else {
        REASON_CONTAINER_CREATING
    };
    let mut out: Vec<ContainerStatus> = Vec::new();
    for c in &desired.containers {
        let image = c.image.as_deref().unwrap_or("");
        if dynamic && !allocated_spec.containers.iter().any(|a| a.name == c.name) {
            out.push(waiting(&c.name, image, REASON_UNALLOCATED));
            report.unallocated.push(c.name.clone());
        } else if let Some(s) = existing.iter().find(|s| s.name == c.name) {
            out.push(s.clone());
        } else {
            out.push(waiting(&c.name, image, default_reason));
        }
    }
    let mut removed: Vec<ContainerStatus> = Vec::new();
    for s in existing
        .iter()
        .filter(|s| !desired.containers.iter().any(|c| c.name == s.name))
    {
        if !dynamic {
            // Without DynamicContainers the kubelet publishes statuses for spec containers only.
            report.garbage_collected.push(s.name.clone());
        } else if allocated_spec.containers.iter().any(|a| a.name == s.name) {
            report.removal_pending.push(s.name.clone());
            out.push(s.clone());
        } else if is_terminated(s) {
            removed.push(s.clone());
        } else {
            report.terminating.push(s.name.clone());
            out.push(s.clone());
        }
    }
    // Oldest first: by finishedAt (a status without one counts as oldest), then by list position.
    podmut_model::order::sort_by_key(&mut removed, finished_at);
    let limit = usize::try_from(settings.removed_status_limit).unwrap_or(usize::MAX);
    let excess = removed.len().saturating_sub(limit);
    for (i, s) in removed.into_iter().enumerate() {
        if i < excess {
            report.garbage_collected.push(s.name);
        } else {
            report.removed.push(s.name.clone());
            out.push(s);
        }
    }
    podmut_model::order::sort_by(&mut out, |a, b| a.name.cmp(&b.name));
    let mut all = report.init_container_statuses.clone();
    all.extend(out.iter().cloned());
    let containers = containers_ready(pod, &desired, &all, dynamic);
    let ready = pod_ready(pod, &desired, &containers);
    report.ready = ready.status == "True";
    report.conditions = vec![containers, ready];
    report.container_statuses = out;
    report
}

/// [`container_statuses`] on a request document `{pod, allocated?, settings?}`; the result as JSON
/// (the [`StatusReport`] shape, camelCase).
pub fn container_statuses_document(text: &str) -> Result<String, InputError> {
    let (obj, settings) = read_request(text, INPUT)?;
    for k in obj.keys() {
        if !matches!(k.as_str(), "pod" | "allocated" | "settings") {
            return Err(InputError::malformed(
                INPUT,
                format!("unknown field {k:?}, expected one of pod, allocated, settings"),
            ));
        }
    }
    // Each field decoded, then checked as [`container_statuses`] checks it, field by field: an error
    // is the first one in document order.
    let pod = pod_field(obj.get("pod"), INPUT, "pod", &settings)?
        .ok_or_else(|| InputError::malformed(INPUT, "pod: required: the Pod with its current status"))?;
    require_status(&pod)?;
    let allocated = pod_field(obj.get("allocated"), INPUT, "allocated", &settings)?;
    report(&pod, allocated.as_ref(), &settings).to_json()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The statuses of a request; without `settings`, in the `preview` profile (KEP-5972).
    fn run(yaml: &str) -> StatusReport {
        let yaml = if yaml.contains("settings:") {
            yaml.to_owned()
        } else {
            format!("{yaml}\nsettings: {{kubernetesVersion: preview}}\n")
        };
        let s = container_statuses_document(&yaml).unwrap();
        serde_json::from_str(&s).unwrap()
    }

    fn names(v: &[ContainerStatus]) -> Vec<&str> {
        v.iter().map(|s| s.name.as_str()).collect()
    }

    const RUNNING: &str =
        "{state: {running: {}}, ready: true, started: true, image: x, imageID: '', restartCount: 0}";

    #[test]
    fn added_but_unallocated_waits_and_is_ignored_for_readiness() {
        let r = run(&format!(
            "pod:
  metadata: {{name: p, generation: 3}}
  spec:
    containers: [{{name: app, image: x}}, {{name: worker, image: w}}]
  status:
    phase: Running
    containerStatuses: [{{name: app, {body}}}]
allocated:
  spec:
    containers: [{{name: app, image: x}}]
",
            body = &RUNNING[1..RUNNING.len() - 1]
        ));
        assert_eq!(r.unallocated, vec!["worker"]);
        let w = &r.container_statuses[1];
        assert_eq!(waiting_reason(w), Some("Unallocated"));
        assert!(!w.ready);
        assert!(r.ready, "{:?}", r.conditions);
        assert_eq!(r.conditions[1].observed_generation, Some(3));
    }

    #[test]
    fn allocated_not_started_makes_the_pod_unready() {
        let r = run(&format!(
            "pod:
  spec:
    containers: [{{name: app, image: x}}, {{name: worker, image: w}}]
  status:
    phase: Running
    containerStatuses: [{{name: app, {body}}}]
",
            body = &RUNNING[1..RUNNING.len() - 1]
        ));
        assert_eq!(
            waiting_reason(&r.container_statuses[1]),
            Some("ContainerCreating")
        );
        assert!(!r.ready);
        assert_eq!(
            r.conditions[0].message.as_deref(),
            Some("containers with unready status: [worker]")
        );
        assert_eq!(r.conditions[1].reason.as_deref(), Some("ContainersNotReady"));
    }

    #[test]
    fn removed_statuses_are_kept_then_collected_oldest_first() {
        let term = |name: &str, t: &str| {
            format!(
                "{{name: {name}, image: x, imageID: '', ready: false, restartCount: 0, state: {{terminated: {{exitCode: 0, finishedAt: '{t}'}}}}}}"
            )
        };
        let statuses = [
            term("a", "2024-01-01T00:00:03Z"),
            term("b", "2024-01-01T00:00:01Z"),
            term("c", "2024-01-01T00:00:02Z"),
        ]
        .join(", ");
        let r = run(&format!(
            "settings: {{removedStatusLimit: 2, kubernetesVersion: preview}}
pod:
  spec: {{containers: [{{name: app, image: x}}]}}
  status: {{phase: Running, containerStatuses: [{statuses}]}}
"
        ));
        assert_eq!(r.garbage_collected, vec!["b"]);
        assert_eq!(r.removed, vec!["c", "a"]);
        assert_eq!(names(&r.container_statuses), vec!["a", "app", "c"]);
    }

    #[test]
    fn running_removed_containers_are_terminating_or_pending() {
        let body = &RUNNING[1..RUNNING.len() - 1];
        let pod = format!(
            "pod:
  spec: {{containers: [{{name: app, image: x}}]}}
  status: {{phase: Running, containerStatuses: [{{name: app, {body}}}, {{name: old, {body}}}]}}
"
        );
        let r = run(&pod);
        assert_eq!(r.terminating, vec!["old"]);
        let r = run(&format!(
            "{pod}allocated:\n  spec: {{containers: [{{name: app, image: x}}, {{name: old, image: x}}]}}\n"
        ));
        assert_eq!(r.removal_pending, vec!["old"]);
        assert!(r.ready);
    }

    #[test]
    fn status_is_required() {
        let e = container_statuses_document("pod: {spec: {containers: []}}\n").unwrap_err();
        assert!(e.message().starts_with("pod: status: required"), "{e}");
    }
}
