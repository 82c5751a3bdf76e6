//! The guards: podmut's own policy rules for needs operators keep raising, each turned on by a
//! setting ([`podmut_model::settings`]) and each also a ValidatingAdmissionPolicy
//! (`podmut vap generate`, `policies/library`).
//!
//! | setting | path | origin | error at |
//! |---|---|---|---|
//! | `resizeLimits.maxCpu`, `maxMemory` | `pods/resize` | `guard/resize-ceiling` | `spec.containers[i].resources.<requests\|limits>[<cpu\|memory>]` |
//! | `resizeLimits.maxStep` | `pods/resize` | `guard/resize-step` | the same |
//! | `debugContainers.forbidEscalation` | `pods/ephemeralcontainers` | `guard/debug-privileged`, `guard/debug-capabilities` | `spec.ephemeralContainers[i].securityContext.<privileged\|capabilities.add>` |
//! | `freezeRunningPodMetadata` | `pods` (update) | `guard/frozen-labels`, `guard/frozen-annotations` | `metadata.<labels\|annotations>` |
//!
//! A guard runs where an admission policy would: after the path's validation and the stock
//! admission plugins have passed the request, on the Pod the path's strategy prepared. Every error
//! is `Forbidden`. Init containers (sidecars) are judged like containers; pod-level resources
//! (`spec.resources`) are not capped. Debug containers added earlier are not judged again.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Pod};

use podmut_model::field::{ErrorList, FieldError, Path};
use podmut_model::podutil::spec as spec_of;
use podmut_model::quantity::Quantity;
use podmut_model::request_path::Subresource;
use podmut_model::settings::{DebugContainers, ResizeLimits, Settings};

/// The guards' errors for an update on `sub` of `old` into the prepared `new`.
pub(crate) fn check(sub: Subresource, new: &Pod, old: &Pod, settings: &Settings) -> ErrorList {
    match sub {
        Subresource::Resize => settings
            .resize_limits
            .as_ref()
            .map(|limits| resize_limits(new, old, limits))
            .unwrap_or_default(),
        Subresource::EphemeralContainers if settings.debug_containers.forbid_escalation => {
            debug_escalation(new, old, &settings.debug_containers)
        }
        Subresource::None if settings.freeze_running_pod_metadata => frozen_metadata(new, old),
        _ => ErrorList::new(),
    }
}

const RESOURCES: [&str; 2] = ["cpu", "memory"];

fn resize_limits(new: &Pod, old: &Pod, limits: &ResizeLimits) -> ErrorList {
    let (ns, os) = (spec_of(new), spec_of(old));
    let mut errs = ErrorList::new();
    let none = Vec::new();
    let lists = [
        ("containers", &ns.containers, Some(&os.containers)),
        (
            "initContainers",
            ns.init_containers.as_ref().unwrap_or(&none),
            os.init_containers.as_ref(),
        ),
    ];
    for (list, containers, old_list) in lists {
        for (i, c) in containers.iter().enumerate() {
            let before = old_list.and_then(|l| l.iter().find(|o| o.name == c.name));
            let path = Path::new("spec").child(list).index(i).child("resources");
            container_limits(c, before, &path, limits, &mut errs);
        }
    }
    errs
}

/// A container's `requests` and `limits` of cpu and memory, against the ceilings and the step
/// from the same container before.
fn container_limits(
    c: &Container,
    before: Option<&Container>,
    path: &Path,
    limits: &ResizeLimits,
    errs: &mut ErrorList,
) {
    for kind in ["requests", "limits"] {
        for resource in RESOURCES {
            let Some(value) = amount(c, kind, resource) else {
                continue;
            };
            let field = path.child(kind).key(resource);
            if let Some(ceiling) = limits.ceiling(resource)
                && value > *ceiling.quantity()
            {
                errs.push(
                    FieldError::forbidden(
                        &field,
                        format!(
                            "a resize may not set {resource} above {} (resizeLimits.max{}): {value}",
                            ceiling.text(),
                            if resource == "cpu" { "Cpu" } else { "Memory" },
                        ),
                    )
                    .with_origin("guard/resize-ceiling"),
                );
            }
            let old = before.and_then(|b| amount(b, kind, resource));
            if let (Some(step), Some(old)) = (limits.max_step, old)
                && value > times(&old, step)
            {
                errs.push(
                    FieldError::forbidden(
                        &field,
                        format!(
                            "a resize may multiply {resource} by at most {step} (resizeLimits.maxStep): {old} to {value}"
                        ),
                    )
                    .with_origin("guard/resize-step"),
                );
            }
        }
    }
}

/// `q` added to itself until it is `n` times as large (what the generated policy computes).
fn times(q: &Quantity, n: u32) -> Quantity {
    (1..n).fold(q.clone(), |sum, _| sum.add(q))
}

/// A container's `resources.<kind>[resource]`, when it is set and a quantity.
fn amount(c: &Container, kind: &str, resource: &str) -> Option<Quantity> {
    let r = c.resources.as_ref()?;
    let map = if kind == "requests" {
        r.requests.as_ref()
    } else {
        r.limits.as_ref()
    }?;
    Quantity::from_k8s(map.get(resource)?).ok()
}

fn debug_escalation(new: &Pod, old: &Pod, debug: &DebugContainers) -> ErrorList {
    let broken = new
        .metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(&debug.break_glass_label))
        .is_some_and(|v| v == "true");
    if broken {
        return ErrorList::new();
    }
    let (ns, os) = (spec_of(new), spec_of(old));
    let before: Vec<&str> = os
        .ephemeral_containers
        .iter()
        .flatten()
        .map(|e| e.name.as_str())
        .collect();
    let need = format!("needs the Pod label {}=true", debug.break_glass_label);
    let mut errs = ErrorList::new();
    for (i, e) in ns.ephemeral_containers.iter().flatten().enumerate() {
        let Some(sc) = e
            .security_context
            .as_ref()
            .filter(|_| !before.contains(&e.name.as_str()))
        else {
            continue;
        };
        let path = Path::new("spec")
            .child("ephemeralContainers")
            .index(i)
            .child("securityContext");
        if sc.privileged == Some(true) {
            errs.push(
                FieldError::forbidden(
                    &path.child("privileged"),
                    format!("a privileged debug container {need}"),
                )
                .with_origin("guard/debug-privileged"),
            );
        }
        if sc
            .capabilities
            .as_ref()
            .and_then(|c| c.add.as_ref())
            .is_some_and(|a| !a.is_empty())
        {
            errs.push(
                FieldError::forbidden(
                    &path.child("capabilities").child("add"),
                    format!("a debug container that adds capabilities {need}"),
                )
                .with_origin("guard/debug-capabilities"),
            );
        }
    }
    errs
}

fn frozen_metadata(new: &Pod, old: &Pod) -> ErrorList {
    let running = old.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running");
    if !running {
        return ErrorList::new();
    }
    let empty = BTreeMap::new();
    let (nm, om) = (&new.metadata, &old.metadata);
    let mut errs = ErrorList::new();
    let pairs = [
        ("labels", &nm.labels, &om.labels, "guard/frozen-labels"),
        (
            "annotations",
            &nm.annotations,
            &om.annotations,
            "guard/frozen-annotations",
        ),
    ];
    for (field, after, before, origin) in pairs {
        if after.as_ref().unwrap_or(&empty) != before.as_ref().unwrap_or(&empty) {
            errs.push(
                FieldError::forbidden(
                    &Path::new("metadata").child(field),
                    format!("the {field} of a running Pod are frozen (freezeRunningPodMetadata)"),
                )
                .with_origin(origin),
            );
        }
    }
    errs
}
