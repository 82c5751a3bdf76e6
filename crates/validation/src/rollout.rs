//! What the running Pods see of a workload update: a rollout of new Pods, Pods replaced only as
//! they are deleted, only Pods created from now on, the next run, or nothing; which Pod paths of
//! the template changed; and whether the same change, made to a running Pod, would be accepted in
//! place — as an update of `pods` or through `pods/resize` — by podmut's own Pod rules.
//!
//! The controllers' behaviour comes from `pkg/controller`: a Deployment's new template is a new
//! ReplicaSet (`pod-template-hash` over the whole template), a StatefulSet's or DaemonSet's a new
//! controller revision rolled out per `updateStrategy`; a ReplicaSet or ReplicationController
//! never touches the Pods it runs, a CronJob's template is read when it next creates a Job, and no
//! controller changes a running Pod in place.

use k8s_openapi::api::core::v1::Pod;

use crate::validation::check;
use podmut_model::document::InputError;
use podmut_model::request_path::Subresource;
use podmut_model::semantic::diff_paths;
use podmut_model::settings::Settings;
use podmut_model::workload::{Workload, template_pod};

/// What the Pods a workload runs see of an update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// The template did not change: the running Pods stay as they are (a scale still adds or
    /// removes Pods).
    Unchanged,
    /// New Pods replace the running ones, as the update strategy paces it.
    Rollout,
    /// Running Pods keep the old template until they are deleted (`updateStrategy: OnDelete`).
    OnDelete,
    /// Running Pods keep the old template; only Pods created from now on get the new one.
    NewPodsOnly,
    /// The template is read when the CronJob next creates a Job; running Jobs keep theirs.
    NextRun,
    /// The object runs no Pods (a PodTemplate).
    NoPods,
}

impl Effect {
    /// The name in reports (`rollout`, `on-delete`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Effect::Unchanged => "unchanged",
            Effect::Rollout => "rollout",
            Effect::OnDelete => "on-delete",
            Effect::NewPodsOnly => "new-pods-only",
            Effect::NextRun => "next-run",
            Effect::NoPods => "no-pods",
        }
    }
}

/// Whether a running Pod would accept the template's change in place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InPlace {
    /// As an update of the Pod (`PUT/PATCH pods/<name>`).
    Update,
    /// Through `pods/resize` alone.
    Resize,
    /// Through `pods/resize`, then an update for the rest.
    ResizeThenUpdate,
    /// Not in place: the API server refuses it on every path; the first error of the update and
    /// of the resize say why.
    No(String),
}

impl InPlace {
    /// The request paths that would carry the change (`pods`, `pods/resize`), none when it cannot
    /// be made in place.
    pub fn paths(&self) -> &'static [&'static str] {
        match self {
            InPlace::Update => &["pods"],
            InPlace::Resize => &["pods/resize"],
            InPlace::ResizeThenUpdate => &["pods/resize", "pods"],
            InPlace::No(_) => &[],
        }
    }
}

/// The report on a workload update.
#[derive(Clone, Debug, PartialEq)]
pub struct Rollout {
    /// What the Pods see.
    pub effect: Effect,
    /// One sentence for people: what happens and why (the strategy, a pause).
    pub summary: String,
    /// The Pod paths the template changes (`spec.containers[0].image`), at most 20.
    pub template_changes: Vec<String>,
    /// The workload's own paths that changed outside the template (`spec.replicas`), at most 20.
    pub other_changes: Vec<String>,
    /// Whether the template's change could be made to a running Pod in place (absent when the
    /// template did not change or no Pod runs it).
    pub in_place: Option<InPlace>,
}

/// What the running Pods see of a workload update, both read from text (JSON or YAML) as `check`
/// reads them and defaulted as the server defaults them; `None` when `new` is not one workload
/// document. An `old` of another kind is an input error.
pub fn rollout_texts(old: &str, new: &str, settings: &str) -> Result<Option<Rollout>, InputError> {
    let settings = Settings::parse(settings)?;
    let (limit, level) = (settings.max_input_bytes, settings.field_validation);
    let Some(new) = crate::workload::read_workload_text(new, "new-pod", level, limit) else {
        return Ok(None);
    };
    let (mut new, _) = new?;
    let Some(old) = crate::workload::read_workload_text(old, "old-pod", level, limit) else {
        return Err(InputError::wrong_kind(
            "old-pod",
            "expected a workload of the new object's kind",
        ));
    };
    let (mut old, _) = old?;
    if old.workload.kind() != new.workload.kind() {
        return Err(InputError::wrong_kind(
            "new-pod",
            format!(
                "expected a {} like the old object, found a {}",
                old.workload.kind().info().name,
                new.workload.kind().info().name
            ),
        ));
    }
    if settings.apply_defaults {
        podmut_model::workload_defaults::apply_workload_defaults(&mut old.workload);
        podmut_model::workload_defaults::apply_workload_defaults(&mut new.workload);
    }
    Ok(Some(rollout(&old.workload, &new.workload, &settings)))
}

/// The report for `old` -> `new` (both defaulted as the server defaults them; the caller checks
/// they are the same kind).
pub fn rollout(old: &Workload, new: &Workload, settings: &Settings) -> Rollout {
    let (old_pod, new_pod) = (template_pod(old.template()), template_pod(new.template()));
    let template_changes = diff_paths(&old_pod, &new_pod);
    let other_changes = other_changes(old, new);
    let effect = if template_changes.is_empty() {
        Effect::Unchanged
    } else {
        effect_of(new)
    };
    let in_place = match effect {
        Effect::Unchanged | Effect::NoPods => None,
        _ => Some(in_place(old_pod, new_pod, settings)),
    };
    Rollout {
        summary: summary(new, effect, &other_changes),
        effect,
        template_changes,
        other_changes,
        in_place,
    }
}

/// The paths that changed outside the Pod template (and outside `status` and `metadata`'s
/// server-managed fields, which an update does not set).
fn other_changes(old: &Workload, new: &Workload) -> Vec<String> {
    let strip = |w: &Workload| {
        let mut v = w.to_value().unwrap_or_default();
        let path = w.kind().info().template;
        if let Some((last, parents)) = path.split_last() {
            let parent = parents.iter().try_fold(&mut v, |v, k| v.get_mut(*k));
            if let Some(obj) = parent.and_then(serde_json::Value::as_object_mut) {
                obj.remove(*last);
            }
        }
        if let Some(obj) = v.as_object_mut() {
            obj.remove("status");
        }
        v
    };
    diff_paths(&strip(old), &strip(new))
}

/// What a template change does for this kind and its strategy.
fn effect_of(w: &Workload) -> Effect {
    let on_delete = |t: Option<&str>| t == Some("OnDelete");
    match w {
        Workload::Deployment(_) => Effect::Rollout,
        Workload::StatefulSet(s) => {
            let t = s.spec.update_strategy.as_ref().and_then(|u| u.type_.as_deref());
            if on_delete(t) {
                Effect::OnDelete
            } else {
                Effect::Rollout
            }
        }
        Workload::DaemonSet(d) => {
            let t = d.spec.update_strategy.as_ref().and_then(|u| u.type_.as_deref());
            if on_delete(t) {
                Effect::OnDelete
            } else {
                Effect::Rollout
            }
        }
        Workload::ReplicaSet(_) | Workload::ReplicationController(_) | Workload::Job(_) => {
            Effect::NewPodsOnly
        }
        Workload::CronJob(_) => Effect::NextRun,
        Workload::PodTemplate(_) => Effect::NoPods,
    }
}

/// The sentence of the report.
fn summary(w: &Workload, effect: Effect, other: &[String]) -> String {
    let kind = w.kind().info().name;
    let scaled = other.iter().any(|p| p == "spec.replicas");
    match effect {
        Effect::Unchanged if scaled => {
            format!(
                "the template is unchanged: the {kind} adds or removes Pods to match spec.replicas; running Pods stay as they are"
            )
        }
        Effect::Unchanged => format!("the template is unchanged: the {kind}'s running Pods stay as they are"),
        Effect::Rollout => rollout_sentence(w),
        Effect::OnDelete => format!(
            "the {kind} uses updateStrategy OnDelete: running Pods keep the old template until they are deleted; their replacements get the new one"
        ),
        Effect::NewPodsOnly => format!(
            "a {kind} does not replace its running Pods: they keep the old template; only Pods it creates from now on get the new one"
        ),
        Effect::NextRun => {
            "running Jobs keep their template: the CronJob's next Job gets the new one".to_owned()
        }
        Effect::NoPods => "a PodTemplate runs no Pods: nothing running changes".to_owned(),
    }
}

/// How a rollout is paced, as the strategy says.
fn rollout_sentence(w: &Workload) -> String {
    let int_or = |v: Option<&k8s_openapi::apimachinery::pkg::util::intstr::IntOrString>| {
        use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
        match v {
            Some(IntOrString::Int(i)) => i.to_string(),
            Some(IntOrString::String(s)) => s.clone(),
            None => "0".to_owned(),
        }
    };
    match w {
        Workload::Deployment(d) => {
            let paused = if d.spec.paused == Some(true) {
                " once the Deployment is resumed (spec.paused is true)"
            } else {
                ""
            };
            match d.spec.strategy.as_ref() {
                Some(s) if s.type_.as_deref() == Some("Recreate") => format!(
                    "a new ReplicaSet replaces every running Pod{paused}: strategy Recreate deletes them all before new ones start"
                ),
                s => {
                    let ru = s.and_then(|s| s.rolling_update.as_ref());
                    format!(
                        "a new ReplicaSet replaces the running Pods{paused}: RollingUpdate, maxSurge {}, maxUnavailable {}",
                        int_or(ru.and_then(|r| r.max_surge.as_ref())),
                        int_or(ru.and_then(|r| r.max_unavailable.as_ref()))
                    )
                }
            }
        }
        Workload::StatefulSet(s) => {
            let partition = s
                .spec
                .update_strategy
                .as_ref()
                .and_then(|u| u.rolling_update.as_ref())
                .and_then(|r| r.partition)
                .unwrap_or(0);
            if partition > 0 {
                format!(
                    "new Pods replace the running ones one at a time, from the highest ordinal down to ordinal {partition} (partition); lower ordinals keep the old template"
                )
            } else {
                "new Pods replace the running ones one at a time, from the highest ordinal down (RollingUpdate)".to_owned()
            }
        }
        Workload::DaemonSet(d) => {
            let ru = d
                .spec
                .update_strategy
                .as_ref()
                .and_then(|u| u.rolling_update.as_ref());
            format!(
                "new Pods replace the running one on each node: RollingUpdate, maxUnavailable {}, maxSurge {}",
                int_or(ru.and_then(|r| r.max_unavailable.as_ref())),
                int_or(ru.and_then(|r| r.max_surge.as_ref()))
            )
        }
        _ => "new Pods replace the running ones".to_owned(),
    }
}

/// Whether the template's change, made to a running Pod, passes podmut's Pod rules on `pods`, on
/// `pods/resize`, or on `pods/resize` then `pods`.
fn in_place(old: Pod, new: Pod, settings: &Settings) -> InPlace {
    let running = |mut p: Pod| {
        // A Pod the controller made: named, and bound to a node (so the update rules for a
        // scheduled Pod apply).
        p.metadata.name = Some("running".to_owned());
        p.metadata.namespace.get_or_insert_with(|| "default".to_owned());
        if let Some(spec) = p.spec.as_mut() {
            spec.node_name.get_or_insert_with(|| "node".to_owned());
        }
        p
    };
    let (old, new) = (running(old), running(new));
    let judge = |o: &Pod, n: &Pod, sub| check(Some(o.clone()), n.clone(), sub, settings);
    let first_error = |v: Result<crate::verdict::Verdict, _>| match v {
        Ok(v) => v.errors.first().map(|e| format!("{}: {}", e.field, e.body())),
        Err(e) => Some(format!("{e}")),
    };
    let update = judge(&old, &new, Subresource::None);
    if update.as_ref().is_ok_and(|v| v.allowed) {
        return InPlace::Update;
    }
    let resize = judge(&old, &new, Subresource::Resize);
    if resize.as_ref().is_ok_and(|v| v.allowed) {
        let resized = crate::validation::prepare_update(Subresource::Resize, &new, &old, settings).pod;
        if diff_paths(&resized, &new).is_empty() {
            return InPlace::Resize;
        }
        if judge(&resized, &new, Subresource::None).is_ok_and(|v| v.allowed) {
            return InPlace::ResizeThenUpdate;
        }
    }
    let why = |v| first_error(v).unwrap_or_default();
    InPlace::No(format!(
        "as an update: {}; through pods/resize: {}",
        why(update),
        why(resize)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: team}\nspec:\n  replicas: REPLICAS\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - {name: app, image: IMAGE, resources: {requests: {cpu: CPU, memory: 1Gi}, limits: {cpu: CPU, memory: 1Gi}}}\n";

    fn deployment(replicas: &str, image: &str, cpu: &str) -> String {
        DEPLOYMENT
            .replace("REPLICAS", replicas)
            .replace("IMAGE", image)
            .replace("CPU", cpu)
    }

    fn report(old: &str, new: &str) -> Rollout {
        rollout_texts(old, new, "").unwrap().unwrap()
    }

    #[test]
    fn an_image_change_rolls_out_and_would_be_an_update_in_place() {
        let r = report(
            &deployment("3", "nginx:1.25", "1"),
            &deployment("3", "nginx:1.27", "1"),
        );
        assert_eq!(r.effect, Effect::Rollout);
        assert_eq!(r.template_changes, ["spec.containers[0].image"]);
        assert!(r.other_changes.is_empty(), "{r:?}");
        assert_eq!(r.in_place, Some(InPlace::Update));
        assert!(
            r.summary
                .contains("RollingUpdate, maxSurge 25%, maxUnavailable 25%"),
            "{}",
            r.summary
        );
    }

    #[test]
    fn a_cpu_change_rolls_out_and_would_be_a_resize_in_place() {
        let r = report(&deployment("3", "nginx", "1"), &deployment("3", "nginx", "2"));
        assert_eq!(r.effect, Effect::Rollout);
        assert_eq!(r.in_place, Some(InPlace::Resize), "{r:?}");
        assert_eq!(r.in_place.as_ref().unwrap().paths(), ["pods/resize"]);
        let both = report(&deployment("3", "nginx:1", "1"), &deployment("3", "nginx:2", "2"));
        assert_eq!(both.in_place, Some(InPlace::ResizeThenUpdate), "{both:?}");
    }

    #[test]
    fn a_scale_leaves_the_running_pods_alone() {
        let r = report(&deployment("3", "nginx", "1"), &deployment("5", "nginx", "1"));
        assert_eq!(r.effect, Effect::Unchanged);
        assert_eq!(r.other_changes, ["spec.replicas"]);
        assert_eq!(r.in_place, None);
        assert!(r.summary.contains("spec.replicas"), "{}", r.summary);
    }

    #[test]
    fn an_added_container_cannot_be_made_in_place() {
        let old = deployment("1", "nginx", "1");
        let new = old.replace(
            "      containers:\n",
            "      containers:\n      - {name: side, image: busybox}\n",
        );
        let r = report(&old, &new);
        assert_eq!(r.effect, Effect::Rollout);
        match &r.in_place {
            Some(InPlace::No(why)) => assert!(why.contains("spec"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn each_kind_says_what_its_pods_see() {
        let sts = |strategy: &str| {
            format!(
                "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: db}}\nspec:\n  serviceName: db\n  selector: {{matchLabels: {{app: db}}}}\n  updateStrategy: {{type: {strategy}}}\n  template:\n    metadata: {{labels: {{app: db}}}}\n    spec: {{containers: [{{name: db, image: IMAGE}}]}}\n"
            )
        };
        let of = |doc: String| report(&doc.replace("IMAGE", "a"), &doc.replace("IMAGE", "b")).effect;
        assert_eq!(of(sts("OnDelete")), Effect::OnDelete);
        assert_eq!(of(sts("RollingUpdate")), Effect::Rollout);
        let rs = "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec: {containers: [{name: c, image: IMAGE}]}\n";
        assert_eq!(of(rs.to_owned()), Effect::NewPodsOnly);
        let cron = "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\nspec:\n  schedule: '@hourly'\n  jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: IMAGE}]}}}}\n";
        assert_eq!(of(cron.to_owned()), Effect::NextRun);
        let tmpl = "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: t}\ntemplate: {spec: {containers: [{name: c, image: IMAGE}]}}\n";
        assert_eq!(of(tmpl.to_owned()), Effect::NoPods);
    }

    #[test]
    fn pods_and_mismatched_kinds_are_named() {
        let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n";
        assert_eq!(rollout_texts(pod, pod, "").unwrap(), None);
        let e = rollout_texts(pod, &deployment("1", "a", "1"), "").unwrap_err();
        assert!(e.to_string().contains("old-pod"), "{e}");
    }
}
