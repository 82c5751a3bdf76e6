//! A change replayed on a real API server: the old object created as the server accepts a
//! create (without the fields the server sets), then the change (`old` → `new`) applied to what the
//! server stored, as a client edits what it read. What the server adds on create (defaults, the
//! `default` ServiceAccount, the not-ready tolerations, `status.qosClass`) stays.
//!
//! Used by `podmut test --server-dry-run` and by the oracle tests.

use serde_json::{Value, json};

/// Put a document in namespace `ns` (`metadata.namespace`).
pub fn in_namespace(doc: &Value, ns: &str) -> Value {
    let mut d = doc.clone();
    if let Some(meta) = d.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("namespace".into(), Value::String(ns.to_owned()));
    } else if let Some(o) = d.as_object_mut() {
        o.insert("metadata".into(), json!({"namespace": ns}));
    }
    d
}

/// The fields of a Pod that the server sets itself (or that only a subresource writes), dropped
/// from the body of the create; `hold` adds this finalizer when the Pod has none (a Pod that
/// must stay while a deletion is pending).
pub fn creatable(old: &Value, hold: Option<&str>) -> Value {
    let mut pod = old.clone();
    if let Some(meta) = pod.get_mut("metadata").and_then(Value::as_object_mut) {
        for k in [
            "uid",
            "resourceVersion",
            "creationTimestamp",
            "generation",
            "managedFields",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "selfLink",
        ] {
            meta.remove(k);
        }
        if let Some(finalizer) = hold
            && meta
                .get("finalizers")
                .and_then(Value::as_array)
                .is_none_or(Vec::is_empty)
        {
            meta.insert("finalizers".into(), json!([finalizer]));
        }
    }
    if let Some(o) = pod.as_object_mut() {
        o.remove("status");
    }
    if let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) {
        spec.remove("ephemeralContainers");
    }
    pod
}

/// `new`'s difference from `old` (RFC 6902) applied to `stored`. An operation whose target the
/// server did not store is applied as an `add` (`replace`) or dropped (`remove`): the client's
/// intent, on the object as it is.
pub fn apply_change(stored: &Value, old: &Value, new: &Value) -> Result<Value, String> {
    let patch = json_patch::diff(old, new);
    let mut doc = stored.clone();
    for op in patch.0 {
        if json_patch::patch(&mut doc, std::slice::from_ref(&op)).is_ok() {
            continue;
        }
        let fallback = match &op {
            json_patch::PatchOperation::Replace(r) => {
                Some(json_patch::PatchOperation::Add(json_patch::AddOperation {
                    path: r.path.clone(),
                    value: r.value.clone(),
                }))
            }
            json_patch::PatchOperation::Add(_) => Some(op.clone()),
            json_patch::PatchOperation::Remove(_) => None,
            other => return Err(format!("cannot apply {other:?} to the stored Pod")),
        };
        if let Some(f) = fallback {
            add_with_parents(&mut doc, &f)?;
        }
    }
    Ok(doc)
}

/// Apply an `add`, creating missing parents on the way: a list where the next step is an index
/// (the server omits an empty list or map the fixture's old Pod spelled out), else an object.
fn add_with_parents(doc: &mut Value, op: &json_patch::PatchOperation) -> Result<(), String> {
    let json_patch::PatchOperation::Add(add) = op else {
        return Err(format!("not an add: {op:?}"));
    };
    let tokens: Vec<String> = add.path.tokens().map(|t| t.decoded().into_owned()).collect();
    let mut cur = &mut *doc;
    let parents = tokens.len().saturating_sub(1);
    for (i, t) in tokens.iter().take(parents).enumerate() {
        let next_is_index = tokens[i + 1] == "-" || tokens[i + 1].parse::<usize>().is_ok();
        cur = match cur {
            Value::Object(m) => m
                .entry(t.clone())
                .or_insert_with(|| if next_is_index { json!([]) } else { json!({}) }),
            Value::Array(a) => {
                let i: usize = t.parse().map_err(|_| format!("{}: not an index", add.path))?;
                a.get_mut(i)
                    .ok_or_else(|| format!("{}: no element {i}", add.path))?
            }
            _ => return Err(format!("{}: the parent is not an object", add.path)),
        };
    }
    json_patch::patch(doc, std::slice::from_ref(op)).map_err(|e| format!("{}: {e}", add.path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_change_lands_on_the_stored_pod() {
        let old = json!({"spec": {"containers": [{"name": "a", "image": "x"}]}});
        let new = json!({"spec": {"containers": [{"name": "a", "image": "y"}]}});
        let stored = json!({"spec": {"containers": [{"name": "a", "image": "x", "imagePullPolicy": "Always"}],
            "serviceAccountName": "default"}});
        let got = apply_change(&stored, &old, &new);
        assert_eq!(
            got,
            Ok(
                json!({"spec": {"containers": [{"name": "a", "image": "y", "imagePullPolicy": "Always"}],
                "serviceAccountName": "default"}})
            )
        );
    }

    #[test]
    fn a_replace_of_what_the_server_dropped_is_an_add() {
        let old = json!({"metadata": {"generation": 3}});
        let new = json!({"metadata": {"generation": 2}});
        let stored = json!({"metadata": {"name": "p"}});
        assert_eq!(
            apply_change(&stored, &old, &new),
            Ok(json!({"metadata": {"name": "p", "generation": 2}}))
        );
    }

    #[test]
    fn the_create_body_has_no_server_fields() {
        let old = json!({"metadata": {"name": "p", "resourceVersion": "4", "uid": "u", "deletionTimestamp": "t"},
            "spec": {"ephemeralContainers": [{"name": "e"}]}, "status": {"phase": "Running"}});
        assert_eq!(
            creatable(&old, Some("podmut.dev/oracle-hold")),
            json!({"metadata": {"name": "p", "finalizers": ["podmut.dev/oracle-hold"]}, "spec": {}})
        );
    }
}
