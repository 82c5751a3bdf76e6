//! What differs between the allocated spec and the desired spec: the changes one allocation
//! attempt admits together or not at all (KEP-5972: "Allocation is an atomic operation, so if
//! multiple containers are added and removed together, the changes will only be allocated if ALL
//! of the changes can be allocated").

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Pod, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
use serde::{Deserialize, Serialize};

use podmut_model::podutil::{init_containers, is_restartable_init, spec};
use podmut_model::quantity::Quantity;
use podmut_model::semantic::semantic_eq;
use podmut_model::settings::{Gate, Settings};

/// The kind of one change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeKind {
    /// A container in the desired spec but not in the allocation (KEP-5972).
    AddContainer,
    /// A container in the allocation but not in the desired spec (KEP-5972).
    RemoveContainer,
    /// A resizable container whose resources differ (KEP-1287).
    ResizeContainer,
    /// A container whose image differs (gated by allocation under KEP-5972).
    UpdateImage,
    /// Pod-level `spec.resources` differ.
    ResizePod,
}

impl ChangeKind {
    /// The kebab-case name used in reports (`add-container`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::AddContainer => "add-container",
            ChangeKind::RemoveContainer => "remove-container",
            ChangeKind::ResizeContainer => "resize-container",
            ChangeKind::UpdateImage => "update-image",
            ChangeKind::ResizePod => "resize-pod",
        }
    }
}

/// One difference between the allocated and the desired spec.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    /// What changes.
    pub kind: ChangeKind,
    /// The container (empty for a pod-level resize).
    pub container: String,
    /// `containers` or `initContainers` (empty for a pod-level resize).
    pub container_list: String,
    /// Human-readable detail, e.g. `requests[cpu] 500m -> 1` or `nginx:1.25 -> nginx:1.27`.
    pub detail: String,
}

/// All changes of one spec generation, with the facts the feasibility rules need.
#[derive(Clone, Debug, Default)]
pub(crate) struct ChangeSet {
    pub(crate) changes: Vec<Change>,
}

impl ChangeSet {
    pub(crate) fn has(&self, kind: ChangeKind) -> bool {
        self.changes.iter().any(|c| c.kind == kind)
    }

    pub(crate) fn of(&self, kind: ChangeKind) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(move |c| c.kind == kind)
    }

    /// Adds or removes (KEP-5972 dynamic changes).
    pub(crate) fn is_dynamic(&self) -> bool {
        self.has(ChangeKind::AddContainer) || self.has(ChangeKind::RemoveContainer)
    }

    /// Anything that goes through the resize admission path: resources, adds or removes.
    pub(crate) fn needs_resize(&self) -> bool {
        self.is_dynamic() || self.has(ChangeKind::ResizeContainer) || self.has(ChangeKind::ResizePod)
    }
}

/// Upstream `IsResizableContainer`: regular containers; init containers when restartable, or any
/// init container with `InPlacePodVerticalScalingInitContainers`.
pub(crate) fn is_resizable(c: &Container, init: bool, settings: &Settings) -> bool {
    !init || is_restartable_init(c) || settings.gate(Gate::InPlacePodVerticalScalingInitContainers)
}

fn show(q: Option<&K8sQuantity>) -> String {
    q.map_or_else(|| "(none)".to_owned(), |q| q.0.clone())
}

fn list_diff(
    what: &str,
    old: Option<&BTreeMap<String, K8sQuantity>>,
    new: Option<&BTreeMap<String, K8sQuantity>>,
    out: &mut Vec<String>,
) {
    let mut names: Vec<&String> = old.into_iter().flatten().map(|(k, _)| k).collect();
    names.extend(new.into_iter().flatten().map(|(k, _)| k));
    podmut_model::order::sort(&mut names);
    names.dedup();
    for name in names {
        let a = old.and_then(|m| m.get(name));
        let b = new.and_then(|m| m.get(name));
        let same = match (a, b) {
            (Some(x), Some(y)) => match (Quantity::from_k8s(x), Quantity::from_k8s(y)) {
                (Ok(x), Ok(y)) => x == y,
                _ => x == y,
            },
            (None, None) => true,
            _ => false,
        };
        if !same {
            out.push(format!("{what}[{name}] {} -> {}", show(a), show(b)));
        }
    }
}

/// `requests[cpu] 500m -> 1, limits[memory] (none) -> 1Gi`; empty when semantically equal.
pub(crate) fn resources_detail(
    old: Option<&ResourceRequirements>,
    new: Option<&ResourceRequirements>,
) -> String {
    let mut parts = Vec::new();
    list_diff(
        "requests",
        old.and_then(|r| r.requests.as_ref()),
        new.and_then(|r| r.requests.as_ref()),
        &mut parts,
    );
    list_diff(
        "limits",
        old.and_then(|r| r.limits.as_ref()),
        new.and_then(|r| r.limits.as_ref()),
        &mut parts,
    );
    if parts.is_empty()
        && !semantic_eq(
            &old.cloned().unwrap_or_default(),
            &new.cloned().unwrap_or_default(),
        )
    {
        parts.push("resource claims".to_owned());
    }
    parts.join(", ")
}

fn diff_list(
    list: &str,
    allocated: &[Container],
    desired: &[Container],
    init: bool,
    settings: &Settings,
    out: &mut Vec<Change>,
) {
    let change = |kind, name: &str, detail: String| Change {
        kind,
        container: name.to_owned(),
        container_list: list.to_owned(),
        detail,
    };
    for d in desired {
        match allocated.iter().find(|a| a.name == d.name) {
            None => out.push(change(
                ChangeKind::AddContainer,
                &d.name,
                d.image.clone().unwrap_or_default(),
            )),
            Some(a) => {
                if is_resizable(d, init, settings) {
                    let detail = resources_detail(a.resources.as_ref(), d.resources.as_ref());
                    if !detail.is_empty() {
                        out.push(change(ChangeKind::ResizeContainer, &d.name, detail));
                    }
                }
                if a.image != d.image {
                    out.push(change(
                        ChangeKind::UpdateImage,
                        &d.name,
                        format!(
                            "{} -> {}",
                            a.image.as_deref().unwrap_or(""),
                            d.image.as_deref().unwrap_or("")
                        ),
                    ));
                }
            }
        }
    }
    for a in allocated {
        if !desired.iter().any(|d| d.name == a.name) {
            out.push(change(
                ChangeKind::RemoveContainer,
                &a.name,
                a.image.clone().unwrap_or_default(),
            ));
        }
    }
}

/// The changes from the allocated Pod to the desired Pod, containers in spec order (adds and
/// updates first, then removals), init containers next, the pod-level resize last.
pub(crate) fn diff(allocated: &Pod, desired: &Pod, settings: &Settings) -> ChangeSet {
    let (a, d) = (spec(allocated), spec(desired));
    let mut changes = Vec::new();
    diff_list(
        "containers",
        &a.containers,
        &d.containers,
        false,
        settings,
        &mut changes,
    );
    diff_list(
        "initContainers",
        init_containers(&a),
        init_containers(&d),
        true,
        settings,
        &mut changes,
    );
    let detail = resources_detail(a.resources.as_ref(), d.resources.as_ref());
    if !detail.is_empty() {
        changes.push(Change {
            kind: ChangeKind::ResizePod,
            container: String::new(),
            container_list: String::new(),
            detail,
        });
    }
    ChangeSet { changes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use podmut_model::document::parse_pod;

    fn pod(containers: &str) -> Pod {
        parse_pod(&format!("spec:\n  containers: {containers}\n"), "p", 1 << 20).unwrap()
    }

    #[test]
    fn adds_removes_resizes_and_images() {
        let a = pod(
            "[{name: app, image: 'nginx:1', resources: {requests: {cpu: 500m}}}, {name: old, image: busybox}]",
        );
        let d = pod(
            "[{name: app, image: 'nginx:2', resources: {requests: {cpu: '1'}}}, {name: new, image: worker}]",
        );
        let set = diff(&a, &d, &Settings::preview());
        let kinds: Vec<(ChangeKind, &str)> = set
            .changes
            .iter()
            .map(|c| (c.kind, c.container.as_str()))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (ChangeKind::ResizeContainer, "app"),
                (ChangeKind::UpdateImage, "app"),
                (ChangeKind::AddContainer, "new"),
                (ChangeKind::RemoveContainer, "old"),
            ]
        );
        assert_eq!(set.changes[0].detail, "requests[cpu] 500m -> 1");
        assert!(set.is_dynamic() && set.needs_resize());
    }

    #[test]
    fn equal_quantities_are_no_change() {
        let a = pod("[{name: app, image: x, resources: {limits: {memory: 1Gi}}}]");
        let d = pod("[{name: app, image: x, resources: {limits: {memory: 1024Mi}}}]");
        assert!(diff(&a, &d, &Settings::preview()).changes.is_empty());
    }

    #[test]
    fn ordinary_init_containers_are_not_resizable() {
        let a = parse_pod(
            "spec:\n  initContainers: [{name: i, image: x, resources: {requests: {cpu: 1}}}]\n  containers: []\n",
            "p",
            1 << 20,
        )
        .unwrap();
        let d = parse_pod(
            "spec:\n  initContainers: [{name: i, image: x, resources: {requests: {cpu: 2}}}]\n  containers: []\n",
            "p",
            1 << 20,
        )
        .unwrap();
        let v135 = Settings::parse("kubernetesVersion: '1.35'").unwrap();
        assert!(diff(&a, &d, &v135).changes.is_empty());
        assert_eq!(
            diff(&a, &d, &Settings::preview()).changes.len(),
            1,
            "on from 1.36"
        );
    }
}
