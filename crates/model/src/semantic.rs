//! Upstream's `apiequality.Semantic.DeepEqual` for API objects held as k8s-openapi types.
//!
//! Semantic equality treats a nil and an empty slice or map as equal and compares quantities by
//! value (`1Gi` == `1024Mi`), but a nil pointer to a struct differs from a pointer to an empty
//! struct (`securityContext: {}` is not the same as no security context). Objects are compared in
//! a normalised JSON form: nulls and empty lists dropped, empty maps dropped only where the field is
//! a map in the Go type, and quantities rewritten to an exact canonical form.

use k8s_openapi::api::core::v1::{Container, EphemeralContainer, PodSpec, ResourceRequirements};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::quantity::Quantity;
use crate::quantity::{QUANTITY_KEYS, RESOURCE_LIST_KEYS};

/// JSON keys whose Go type is a map (so an empty value equals an absent one).
const MAP_KEYS: &[&str] = &[
    "labels",
    "annotations",
    "nodeSelector",
    "limits",
    "requests",
    "overhead",
    "volumeAttributes",
    "options",
    "data",
    "binaryData",
    "allocatedResources",
    "allocatable",
    "capacity",
    "parameters",
    "attributes",
];

/// The normalised JSON form used for semantic comparison.
pub fn normalized<T: Serialize>(value: &T) -> Value {
    let v = serde_json::to_value(value).unwrap_or(Value::Null);
    normalize(v, None)
}

/// `Semantic.DeepEqual(a, b)`.
///
/// Structurally equal values are semantically equal, so the typed comparison (no allocation)
/// answers the common case; only values that differ structurally are normalised and compared.
pub fn semantic_eq<T: Serialize + PartialEq>(a: &T, b: &T) -> bool {
    a == b || normalized(a) == normalized(b)
}

/// Requirements with nothing set are Go's zero value: `Container.Resources` is a struct, not a
/// pointer, so `resources: {}` and no resources are the same container.
pub fn normalize_requirements(r: Option<ResourceRequirements>) -> Option<ResourceRequirements> {
    r.filter(|r| {
        r.limits.as_ref().is_some_and(|l| !l.is_empty())
            || r.requests.as_ref().is_some_and(|l| !l.is_empty())
            || r.claims.as_ref().is_some_and(|l| !l.is_empty())
    })
}

fn normalized_container(c: &Container) -> Container {
    let mut c = c.clone();
    c.resources = normalize_requirements(c.resources.take());
    c
}

/// `Semantic.DeepEqual` of two containers, with Go's zero-valued requirements equal to none.
pub fn containers_eq(a: &Container, b: &Container) -> bool {
    a == b || semantic_eq(&normalized_container(a), &normalized_container(b))
}

/// `Semantic.DeepEqual` of two ephemeral containers, with Go's zero-valued requirements equal to
/// none (an ephemeral container's `Resources` is a struct too).
pub fn ephemeral_containers_eq(a: &EphemeralContainer, b: &EphemeralContainer) -> bool {
    let normalized = |c: &EphemeralContainer| {
        let mut c = c.clone();
        c.resources = normalize_requirements(c.resources.take());
        c
    };
    a == b || semantic_eq(&normalized(a), &normalized(b))
}

/// `Semantic.DeepEqual` of two specs, with every container normalised as in [`containers_eq`]
/// (and the pod-level requirements likewise: podmut treats `resources: {}` there as none too).
pub fn specs_eq(a: &PodSpec, b: &PodSpec) -> bool {
    if a == b {
        return true;
    }
    let normalized = |s: &PodSpec| {
        let mut s = s.clone();
        for c in s
            .containers
            .iter_mut()
            .chain(s.init_containers.iter_mut().flatten())
        {
            c.resources = normalize_requirements(c.resources.take());
        }
        s.resources = normalize_requirements(s.resources.take());
        s
    };
    semantic_eq(&normalized(a), &normalized(b))
}

/// Semantic equality of two requirements blocks (a container's or the pod level), with Go's
/// zero value equal to none.
pub fn requirements_eq(a: Option<&ResourceRequirements>, b: Option<&ResourceRequirements>) -> bool {
    a == b
        || semantic_eq(
            &normalize_requirements(a.cloned()),
            &normalize_requirements(b.cloned()),
        )
}

fn normalize(v: Value, key: Option<&str>) -> Value {
    match v {
        Value::Object(map) => {
            let quantity_map = key.is_some_and(|k| RESOURCE_LIST_KEYS.contains(&k));
            let mut out = Map::new();
            for (k, child) in map {
                let child = if quantity_map {
                    canonical_quantity(child)
                } else if QUANTITY_KEYS.contains(&k.as_str()) {
                    canonical_quantity(normalize(child, Some(&k)))
                } else {
                    normalize(child, Some(&k))
                };
                let drop = match &child {
                    Value::Null => true,
                    Value::Array(a) => a.is_empty(),
                    Value::Object(o) => o.is_empty() && MAP_KEYS.contains(&k.as_str()),
                    _ => false,
                };
                if !drop {
                    out.insert(k, child);
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(|i| normalize(i, None)).collect()),
        other => other,
    }
}

fn canonical_quantity(v: Value) -> Value {
    match &v {
        Value::String(s) => match Quantity::parse(s) {
            Ok(q) => Value::String(format!("{}n", q.nanos())),
            Err(_) => v,
        },
        _ => v,
    }
}

/// The paths (in field-path notation) where two normalised values differ; lists of different
/// lengths are reported at the list.
pub fn diff_paths<T: Serialize>(old: &T, new: &T) -> Vec<String> {
    let mut out = Vec::new();
    diff(&normalized(old), &normalized(new), String::new(), &mut out);
    out
}

fn diff(a: &Value, b: &Value, path: String, out: &mut Vec<String>) {
    if a == b || out.len() >= 20 {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            crate::order::sort(&mut keys);
            keys.dedup();
            for k in keys {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                diff(
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    p,
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (xa, ya)) in x.iter().zip(y).enumerate() {
                diff(xa, ya, format!("{path}[{i}]"), out);
            }
        }
        _ => out.push(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{decode, normalize_quantities, parse_text};

    fn spec(yaml: &str) -> k8s_openapi::api::core::v1::PodSpec {
        let mut v = parse_text(yaml, "p", 1 << 20).unwrap();
        normalize_quantities(&mut v);
        decode(&v, "p").unwrap()
    }

    #[test]
    fn nil_and_empty_lists_and_maps_are_equal() {
        let a = spec("containers: [{name: a, image: x}]\n");
        let b = spec(
            "containers: [{name: a, image: x, ports: [], env: []}]\nnodeSelector: {}\ntolerations: []\n",
        );
        assert!(semantic_eq(&a, &b));
    }

    #[test]
    fn empty_struct_differs_from_nil() {
        let a = spec("containers: [{name: a, image: x}]\n");
        let b = spec("containers: [{name: a, image: x, securityContext: {}}]\n");
        assert!(!semantic_eq(&a, &b));
        assert_eq!(
            diff_paths(&a, &b),
            vec!["containers[0].securityContext".to_owned()]
        );
    }

    #[test]
    fn quantities_compare_by_value() {
        let a = spec("containers: [{name: a, resources: {limits: {memory: 1Gi}}}]\n");
        let b = spec("containers: [{name: a, resources: {limits: {memory: 1024Mi}}}]\n");
        let c = spec("containers: [{name: a, resources: {limits: {memory: 1025Mi}}}]\n");
        assert!(semantic_eq(&a, &b));
        assert!(!semantic_eq(&a, &c));
    }
}
