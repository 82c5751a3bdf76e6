//! The kubelet's probe-worker plan for an old -> new Pod: what `ReconcilePod` does to each
//! (container, probe type) worker under KEP-6318 (MutableContainerProbes), and the probe start/stop
//! KEP-5972 (Dynamic Containers) adds for containers that come and go.
//!
//! Upstream: `pkg/kubelet/prober/prober_manager.go` (`ReconcilePod`, `desiredProbeWorkers`,
//! `AddPod`) and `worker.go` (`applyConfig`, `initializeProbeLocked`). The KEP table ("The behavior
//! of individual changes is"):
//!
//! | Change | Consecutive result count | Published status | Next execution |
//! |---|---|---|---|
//! | `periodSeconds` | Preserved | Preserved | Recalculated from the previous completion time |
//! | `initialDelaySeconds` | Preserved | Preserved | Recalculated before the first probe |
//! | `terminationGracePeriodSeconds` | Preserved | Preserved | Used by a later probe-triggered termination |
//! | Success or failure threshold | Reset | Preserved | Continues on the current schedule |
//! | Handler or `timeoutSeconds` | Reset | Preserved | Old attempt invalidated, new config used immediately |
//! | Probe added or re-added | Initialized | Determined by probe type | New worker started / disabled worker re-enabled |
//! | Probe removed | Removed | Recomputed as if no probe were configured | Scheduling stops |
//!
//! "If multiple fields change together, the strongest applicable behavior in the table is used."
//! Only this module plans the kubelet's reaction; probe *validation* lives with the Pod rules.

use k8s_openapi::api::core::v1::{Container, ContainerStatus, Pod, Probe};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use podmut_model::defaults::apply_pod_defaults;
use podmut_model::document::{self, InputError};
use podmut_model::podutil::{
    init_containers, is_restartable_init, is_static_or_mirror, is_terminal, is_terminating, phase, spec,
};
use podmut_model::semantic::normalized;
use podmut_model::settings::{Gate, Settings};

/// The probe types, in the order upstream's `desiredProbeWorkers` visits them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProbeType {
    /// `startupProbe`.
    Startup,
    /// `readinessProbe`.
    Readiness,
    /// `livenessProbe`.
    Liveness,
}

impl ProbeType {
    /// All three, in reconciliation order.
    pub const ALL: [ProbeType; 3] = [ProbeType::Startup, ProbeType::Readiness, ProbeType::Liveness];

    /// `liveness`, `readiness`, `startup`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeType::Startup => "startup",
            ProbeType::Readiness => "readiness",
            ProbeType::Liveness => "liveness",
        }
    }

    /// Upstream `probeType.String()`: `Liveness`, `Readiness`, `Startup`.
    pub fn title(self) -> &'static str {
        match self {
            ProbeType::Startup => "Startup",
            ProbeType::Readiness => "Readiness",
            ProbeType::Liveness => "Liveness",
        }
    }

    fn of(self, c: &Container) -> Option<&Probe> {
        match self {
            ProbeType::Startup => c.startup_probe.as_ref(),
            ProbeType::Readiness => c.readiness_probe.as_ref(),
            ProbeType::Liveness => c.liveness_probe.as_ref(),
        }
    }

    /// The worker's initial result (`newWorker`): readiness Failure, liveness Success, startup Unknown.
    fn initial(self) -> &'static str {
        match self {
            ProbeType::Startup => "Unknown",
            ProbeType::Readiness => "Failure",
            ProbeType::Liveness => "Success",
        }
    }
}

/// What happens to one probe worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// A probe added to an existing container: a new worker (or a disabled one re-enabled).
    Add,
    /// An existing probe whose configuration changed: `applyConfig` on its worker.
    Update,
    /// A probe removed: its worker is disabled (kept for reuse) and its cached result removed.
    Remove,
    /// KEP-5972: a probe of an added container; its worker starts when the container starts.
    Start,
    /// KEP-5972: a probe of a removed container; its worker stops when the container terminates.
    Stop,
    /// Nothing changes for this worker.
    None,
}

impl Action {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Add => "add",
            Action::Update => "update",
            Action::Remove => "remove",
            Action::Start => "start",
            Action::Stop => "stop",
            Action::None => "none",
        }
    }
}

/// One probe worker's plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeAction {
    /// Container name.
    pub container: String,
    /// `containers` or `initContainers` (restartable init containers only).
    pub container_list: String,
    /// `startup`, `readiness` or `liveness`.
    pub probe: ProbeType,
    /// What happens to the worker.
    pub action: Action,
    /// The probe fields that changed (`httpGet`, `periodSeconds`, ...), in a fixed order.
    pub changed_fields: Vec<String>,
    /// Whether the consecutive success/failure count is reset.
    pub reset_counts: bool,
    /// Whether an attempt in flight is cancelled (and its late result discarded).
    pub cancel_in_flight: bool,
    /// Whether the probe runs promptly instead of waiting for its schedule.
    pub run_promptly: bool,
    /// `immediately`, `recalculated`, `before-first-probe`, `unchanged`, `on-container-start`,
    /// `stopped`.
    pub next_run: String,
    /// The result published when the worker is (re)initialized: `Success`, `Failure`, `Unknown`.
    pub initial_result: Option<String>,
    /// Effect on the container's Ready: `unready`, `ready`, `unchanged`.
    pub ready_effect: String,
    /// Effect on the container's Started: `started`, `unchanged`.
    pub started_effect: String,
    /// The message of the Normal `ContainerProbeChanged` event, when one is emitted.
    pub event: Option<String>,
    /// Why, citing the KEP or upstream.
    pub notes: Vec<String>,
}

/// The whole plan.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeReconciliation {
    /// Whether the probe manager reconciles this Pod's probes as mutable.
    pub reconciled: bool,
    /// Why not, when it does not (or how: `add-only` for the legacy path).
    pub reason: String,
    /// One entry per (container, probe type) that has a probe in the old or the new Pod.
    pub actions: Vec<ProbeAction>,
}

/// The event message: podmut's wording of the KEP's "The event message identifies the container,
/// probe type, and action", e.g. `Readiness probe of container "app" updated`.
pub(crate) fn event_message(kind: ProbeType, container: &str, action: Action) -> String {
    let verb = match action {
        Action::Add => "added",
        Action::Remove => "removed",
        _ => "updated",
    };
    format!("{} probe of container {container:?} {verb}", kind.title())
}

const HANDLERS: [&str; 4] = ["exec", "httpGet", "tcpSocket", "grpc"];
const FIELD_ORDER: [&str; 10] = [
    "exec",
    "httpGet",
    "tcpSocket",
    "grpc",
    "timeoutSeconds",
    "successThreshold",
    "failureThreshold",
    "periodSeconds",
    "initialDelaySeconds",
    "terminationGracePeriodSeconds",
];

/// The probe fields that differ (semantic equality), in [`FIELD_ORDER`].
fn changed_fields(old: &Probe, new: &Probe) -> Vec<String> {
    let (a, b) = (normalized(old), normalized(new));
    let get = |v: &Value, k: &str| v.get(k).cloned().unwrap_or(Value::Null);
    let mut out: Vec<String> = FIELD_ORDER
        .iter()
        .filter(|k| get(&a, k) != get(&b, k))
        .map(|k| (*k).to_owned())
        .collect();
    // Fields newer than podmut's list still count as changes.
    let mut extra: Vec<String> = a
        .as_object()
        .into_iter()
        .chain(b.as_object())
        .flat_map(|o| o.keys())
        .filter(|k| !FIELD_ORDER.contains(&k.as_str()) && get(&a, k) != get(&b, k))
        .cloned()
        .collect();
    podmut_model::order::sort(&mut extra);
    extra.dedup();
    out.extend(extra);
    out
}

struct Observed {
    running: bool,
    started: bool,
    /// The container (in the new Pod) has a readiness probe, so a readiness worker exists.
    readiness_probe: bool,
}

fn observe(pod: &Pod, name: &str) -> Observed {
    let status: Option<&ContainerStatus> = pod.status.as_ref().and_then(|s| {
        s.container_statuses
            .iter()
            .flatten()
            .chain(s.init_container_statuses.iter().flatten())
            .find(|c| c.name == name)
    });
    match status {
        // No status: assume a running, started container (the common case for a probe change).
        None => Observed {
            running: true,
            started: true,
            readiness_probe: false,
        },
        Some(s) => Observed {
            running: s.state.as_ref().is_some_and(|st| st.running.is_some()),
            started: s.started == Some(true),
            readiness_probe: false,
        },
    }
}

fn base(c: &str, list: &str, kind: ProbeType, action: Action) -> ProbeAction {
    ProbeAction {
        container: c.to_owned(),
        container_list: list.to_owned(),
        probe: kind,
        action,
        changed_fields: Vec::new(),
        reset_counts: false,
        cancel_in_flight: false,
        run_promptly: false,
        next_run: "unchanged".into(),
        initial_result: None,
        ready_effect: "unchanged".into(),
        started_effect: "unchanged".into(),
        event: None,
        notes: Vec::new(),
    }
}

/// A probe added to an existing container (`applyConfig` disabled -> enabled, or a new worker with
/// `initializeProbe`): "Adding a readiness probe to a running, started container uses the current
/// readiness semantics: the initial result is failure ... Adding a liveness probe starts with a
/// successful initial result ... Once Started is true for a container ID, adding or changing a
/// startup probe does not change it back to false."
fn added(mut a: ProbeAction, kind: ProbeType, obs: &Observed) -> ProbeAction {
    a.reset_counts = true;
    a.run_promptly = true;
    a.next_run = "immediately".into();
    a.notes
        .push("re-enabling a disabled worker reuses it, so it cannot overlap an earlier attempt".into());
    match kind {
        ProbeType::Readiness => {
            a.initial_result = Some("Failure".into());
            a.ready_effect = "unready".into();
            a.notes
                .push("initial result Failure: the container is not Ready until the probe reaches its success threshold".into());
        }
        ProbeType::Liveness => {
            a.initial_result = Some("Success".into());
            a.notes.push(
                "initial result Success: adding a liveness probe does not itself restart the container"
                    .into(),
            );
        }
        ProbeType::Startup if obs.running && obs.started => {
            a.initial_result = Some("Success".into());
            a.run_promptly = false;
            a.next_run = "on-container-restart".into();
            a.notes.push(
                "Started stays true for this container ID; the configuration is used if the container \
                 restarts with a new container ID"
                    .into(),
            );
        }
        ProbeType::Startup => {
            a.initial_result = Some("Unknown".into());
            a.notes
                .push("the container has not started: the startup worker is created and run normally".into());
        }
    }
    a
}

/// A probe removed (`applyConfig` enabled -> disabled).
fn removed(mut a: ProbeAction, kind: ProbeType, obs: &Observed) -> ProbeAction {
    a.reset_counts = true;
    a.cancel_in_flight = true;
    a.next_run = "stopped".into();
    a.notes.push(
        "cached and stale in-flight results are discarded; the disabled worker is kept for reuse".into(),
    );
    match kind {
        ProbeType::Readiness if obs.running && obs.started => {
            a.ready_effect = "ready".into();
            a.notes
                .push("removing a readiness probe makes a running, started container Ready".into());
        }
        ProbeType::Readiness => a
            .notes
            .push("the container is not running and started: Ready is unchanged".into()),
        ProbeType::Startup if obs.running => {
            a.started_effect = "started".into();
            a.notes.push(
                "removing a startup probe makes a running container Started; readiness and liveness \
                 probing proceed"
                    .into(),
            );
            // prober_manager.go UpdatePodStatus: a started, running container without a readiness
            // result is ready when no readiness worker exists ("no readinessProbe -> always ready").
            if !obs.readiness_probe {
                a.ready_effect = "ready".into();
                a.notes.push(
                    "the container has no readiness probe: once Started it is reported Ready \
                     (prober manager: no readiness worker means always ready)"
                        .into(),
                );
            }
        }
        ProbeType::Startup => a
            .notes
            .push("the container is not running: Started is unchanged".into()),
        ProbeType::Liveness => a
            .notes
            .push("removing a liveness probe does not change Ready or Started".into()),
    }
    a
}

/// An existing probe with a new configuration: the strongest applicable row of the KEP table.
fn updated(mut a: ProbeAction, kind: ProbeType, fields: Vec<String>, obs: &Observed) -> ProbeAction {
    let has = |f: &str| fields.iter().any(|x| x == f);
    let execution = HANDLERS.iter().any(|h| has(h)) || has("timeoutSeconds");
    let thresholds = has("successThreshold") || has("failureThreshold");
    let known = FIELD_ORDER.iter().any(|f| has(f));
    if execution {
        a.reset_counts = true;
        a.cancel_in_flight = true;
        a.run_promptly = true;
        a.next_run = "immediately".into();
        a.notes.push(
            "handler or timeoutSeconds changed: the old attempt is invalidated and the new configuration \
             is used immediately; the count is reset"
                .into(),
        );
    } else if thresholds {
        a.reset_counts = true;
        a.next_run = "unchanged".into();
        a.notes.push(
            "threshold changed: the count is reset and the schedule continues; a probe already in flight \
             may count as the first result under the new threshold"
                .into(),
        );
    }
    if has("periodSeconds") && !execution {
        a.next_run = "recalculated".into();
        a.notes.push(
            "periodSeconds changed: the next run is the previous completion time plus the new period, \
             promptly if that is already past; counts and Ready are preserved"
                .into(),
        );
    }
    if has("initialDelaySeconds") {
        if !execution && !has("periodSeconds") {
            a.next_run = "before-first-probe".into();
        }
        a.notes.push(
            "initialDelaySeconds changed: it only matters before the first probe of the current container"
                .into(),
        );
    }
    if has("terminationGracePeriodSeconds") {
        a.notes.push(
            "terminationGracePeriodSeconds changed: used by a later probe-triggered termination".into(),
        );
    }
    if !known {
        a.notes
            .push("only fields outside the KEP table changed: counts and schedule are preserved".into());
    }
    if kind == ProbeType::Startup && obs.running && obs.started {
        a.notes.push(
            "Started stays true for this container ID; a restarted container uses the new configuration"
                .into(),
        );
    }
    a.changed_fields = fields;
    a
}

struct Entry<'a> {
    container: &'a Container,
    list: &'static str,
}

fn probed(pod: &Pod) -> Vec<Entry<'_>> {
    let Some(s) = pod.spec.as_ref() else {
        return Vec::new();
    };
    let mut out: Vec<Entry<'_>> = s
        .containers
        .iter()
        .map(|c| Entry {
            container: c,
            list: "containers",
        })
        .collect();
    // `getRestartableInitContainers`: ordinary init and ephemeral containers have no probe workers.
    out.extend(
        init_containers(s)
            .iter()
            .filter(|c| is_restartable_init(c))
            .map(|c| Entry {
                container: c,
                list: "initContainers",
            }),
    );
    out
}

/// Plan the probe workers for `old` -> `new`, both defaulted first when the settings ask (what
/// [`probe_plan_documents`] does with the Pods it reads).
pub fn probe_plan(mut old: Pod, mut new: Pod, settings: &Settings) -> ProbeReconciliation {
    if settings.apply_defaults {
        apply_pod_defaults(&mut old, settings);
        apply_pod_defaults(&mut new, settings);
    }
    reconcile(&old, &new, settings)
}

/// Plan the probe workers for `old` -> `new` (both already defaulted when the settings ask).
pub(crate) fn reconcile(old: &Pod, new: &Pod, settings: &Settings) -> ProbeReconciliation {
    let gate = settings.gate(Gate::MutableContainerProbes);
    // ReconcilePod: "if pod.DeletionTimestamp != nil || phase Succeeded/Failed { return }" — and
    // "Pod termination takes precedence over probe reconciliation" (KEP-6318).
    let skipped = if is_terminating(new) {
        Some("the Pod is terminating: no workers are created or replaced after termination begins".to_owned())
    } else if is_terminal(new) {
        Some(format!(
            "the Pod is {}: terminal Pods are not reconciled",
            phase(new)
        ))
    } else {
        None
    };
    let mutable = gate && !is_static_or_mirror(new) && skipped.is_none();
    let mut plan = ProbeReconciliation {
        reconciled: mutable,
        reason: match (&skipped, gate) {
            (Some(r), _) => r.clone(),
            (None, false) => {
                "MutableContainerProbes is disabled: add-only (AddPod): new probes get workers, \
                              changed and removed probes keep their old workers"
                    .into()
            }
            (None, true) if !mutable => {
                "static and mirror Pods are not reconciled as mutable: new probes get \
                                         workers, existing workers are kept"
                    .into()
            }
            _ => String::new(),
        },
        actions: Vec::new(),
    };
    let old_entries = probed(old);
    let new_entries = probed(new);
    let old_spec = spec(old);
    for e in &new_entries {
        let c = e.container;
        let existed = old_spec
            .containers
            .iter()
            .chain(init_containers(&old_spec))
            .find(|o| o.name == c.name);
        let mut obs = observe(new, &c.name);
        obs.readiness_probe = c.readiness_probe.is_some();
        for kind in ProbeType::ALL {
            let before = existed.and_then(|o| kind.of(o));
            let after = kind.of(c);
            if before.is_none() && after.is_none() {
                continue;
            }
            let a = base(&c.name, e.list, kind, Action::None);
            let action = match (existed, before, after) {
                (None, _, Some(_)) => start(a, kind, skipped.is_some()),
                (Some(_), None, Some(_)) if skipped.is_some() => skip(a, &skipped),
                (Some(_), None, Some(_)) => {
                    let mut a = added(base(&c.name, e.list, kind, Action::Add), kind, &obs);
                    if mutable {
                        a.event = Some(event_message(kind, &c.name, Action::Add));
                    } else {
                        a.notes
                            .push("added by the add-only path (no ContainerProbeChanged event)".into());
                    }
                    a
                }
                (Some(_), Some(_), None) if !mutable => kept(a, &skipped, "removed"),
                (Some(_), Some(_), None) => {
                    let mut a = removed(base(&c.name, e.list, kind, Action::Remove), kind, &obs);
                    a.event = Some(event_message(kind, &c.name, Action::Remove));
                    a
                }
                (Some(_), Some(b), Some(n)) => {
                    let fields = changed_fields(b, n);
                    if fields.is_empty() {
                        a
                    } else if !mutable {
                        let mut a = kept(a, &skipped, "changed");
                        a.changed_fields = fields;
                        a
                    } else {
                        let mut a = updated(base(&c.name, e.list, kind, Action::Update), kind, fields, &obs);
                        a.event = Some(event_message(kind, &c.name, Action::Update));
                        a
                    }
                }
                _ => a,
            };
            plan.actions.push(action);
        }
    }
    for e in &old_entries {
        if new_entries.iter().any(|n| n.container.name == e.container.name) {
            continue;
        }
        for kind in ProbeType::ALL {
            if kind.of(e.container).is_some() {
                plan.actions
                    .push(stop(base(&e.container.name, e.list, kind, Action::Stop)));
            }
        }
    }
    if mutable {
        promote_readiness(&mut plan.actions);
    }
    plan
}

/// "Removing a startup probe makes a running container Started ...; an existing readiness probe is
/// scheduled promptly."
fn promote_readiness(actions: &mut [ProbeAction]) {
    let ungated: Vec<String> = actions
        .iter()
        .filter(|a| {
            a.probe == ProbeType::Startup && a.action == Action::Remove && a.started_effect == "started"
        })
        .map(|a| a.container.clone())
        .collect();
    for a in actions.iter_mut() {
        if a.probe == ProbeType::Readiness
            && ungated.contains(&a.container)
            && matches!(a.action, Action::None | Action::Update)
        {
            a.run_promptly = true;
            a.next_run = "immediately".into();
            a.notes
                .push("scheduled promptly: the container's startup probe was removed".into());
        }
    }
}

/// KEP-5972 "Add/start container probes when starting a container": the worker is created for the
/// added container and starts probing once it runs (after allocation).
fn start(mut a: ProbeAction, kind: ProbeType, skipped: bool) -> ProbeAction {
    if skipped {
        a.notes
            .push("the Pod is terminating or terminal: no worker is created".into());
        return a;
    }
    a.action = Action::Start;
    a.reset_counts = true;
    a.next_run = "on-container-start".into();
    a.initial_result = Some(kind.initial().into());
    a.notes.push(
        "KEP-5972: probes of an added container start when the container starts (after it is allocated)"
            .into(),
    );
    if kind == ProbeType::Readiness {
        a.ready_effect = "unready".into();
        a.notes.push(
            "adding a container with a readiness probe makes the Pod unready until that container is ready"
                .into(),
        );
    }
    a
}

/// KEP-5972 "remove/stop probes when a container is terminated".
fn stop(mut a: ProbeAction) -> ProbeAction {
    a.reset_counts = true;
    a.cancel_in_flight = true;
    a.next_run = "stopped".into();
    a.notes.push(
        "KEP-5972: probes of a removed container stop, and their results are removed, when it terminates"
            .into(),
    );
    a
}

fn skip(mut a: ProbeAction, why: &Option<String>) -> ProbeAction {
    if let Some(w) = why {
        a.notes.push(format!("not reconciled: {w}"));
    }
    a
}

fn kept(mut a: ProbeAction, why: &Option<String>, what: &str) -> ProbeAction {
    match why {
        Some(w) => a.notes.push(format!("not reconciled: {w}")),
        None => a.notes.push(format!(
            "probe {what}, but the existing worker keeps its old configuration until the Pod is recreated"
        )),
    }
    a
}

/// [`probe_plan`] on documents (`podmut probes --old --new`, WIT `node.probe-plan`).
pub fn probe_plan_documents(old: &str, new: &str, settings: &str) -> Result<ProbeReconciliation, InputError> {
    let settings = Settings::parse(settings)?;
    let limit = settings.max_input_bytes;
    let old = document::parse_pod(old, "old-pod", limit)?;
    let new = document::parse_pod(new, "new-pod", limit)?;
    Ok(probe_plan(old, new, &settings))
}

#[cfg(test)]
mod tests;
