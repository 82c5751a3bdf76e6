//! `coverage` cases: KEP-5972 fail-closed coverage of admission configuration for `pods/dynamic`.
//!
//! `request` holds the configuration objects (a list, or one object), or
//! `{configs: [...], scope: {namespaceLabels: {k: v}, podLabels: {k: v}, podName: name}}` to scope
//! the check to one Pod. Outcome: `{"dynamicAllowed", "handlers": [{"kind", "name", "binding"?,
//! "interceptsPods", "interceptsDynamic", "inScope", "blocksDynamic", "fix", "notes"}],
//! "ignored"}` or `{"inputError": text}`.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::{Area, Case, input_error, runtime};

/// The coverage area.
pub const AREA: Area = Area { native, wasm };

/// The configs document and the scope of a case.
fn split(c: &Case) -> (String, Option<Value>) {
    match &c.request {
        Some(Value::Object(o)) if o.contains_key("configs") => (
            o.get("configs").map(Value::to_string).unwrap_or_default(),
            o.get("scope").cloned(),
        ),
        Some(v) => (v.to_string(), None),
        None => (String::new(), None),
    }
}

fn labels(scope: Option<&Value>, key: &str) -> Option<BTreeMap<String, String>> {
    let obj = scope?.get(key)?.as_object()?;
    Some(
        obj.iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
            .collect(),
    )
}

fn pod_name(scope: Option<&Value>) -> Option<String> {
    scope?.get("podName")?.as_str().map(str::to_owned)
}

fn native(c: &Case) -> Value {
    let (configs, scope) = split(c);
    let scope = podmut_core::CoverageScope {
        namespace_labels: labels(scope.as_ref(), "namespaceLabels"),
        pod_labels: labels(scope.as_ref(), "podLabels"),
        pod_name: pod_name(scope.as_ref()),
    };
    match podmut_core::coverage(&configs, &scope) {
        Ok(r) => serde_json::to_value(&r).unwrap_or_else(|e| input_error(e.to_string())),
        Err(e) => input_error(e.to_string()),
    }
}

fn wasm(c: &Case) -> Value {
    let (configs, scope) = split(c);
    let to_list = |m: Option<BTreeMap<String, String>>| m.map(|m| m.into_iter().collect::<Vec<_>>());
    let wit_scope = scope.as_ref().map(|s| podmut::types::CoverageScope {
        namespace_labels: to_list(labels(Some(s), "namespaceLabels")),
        pod_labels: to_list(labels(Some(s), "podLabels")),
        pod_name: pod_name(Some(s)),
    });
    match runtime().coverage_scoped(&configs, wit_scope.as_ref()) {
        Ok(r) => {
            let handlers: Vec<Value> = r
                .handlers
                .iter()
                .map(|h| {
                    let mut v = json!({
                        "kind": h.kind,
                        "name": h.name,
                        "interceptsPods": h.intercepts_pods,
                        "interceptsDynamic": h.intercepts_dynamic,
                        "inScope": h.in_scope,
                        "blocksDynamic": h.blocks_dynamic,
                        "fix": h.fix,
                        "notes": h.notes,
                    });
                    if let (Some(b), Some(o)) = (&h.binding, v.as_object_mut()) {
                        o.insert("binding".into(), json!(b));
                    }
                    v
                })
                .collect();
            json!({"dynamicAllowed": r.dynamic_allowed, "handlers": handlers, "ignored": r.ignored})
        }
        Err(e) => input_error(e.to_string()),
    }
}
