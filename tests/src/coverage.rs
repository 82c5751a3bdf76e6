//! `coverage` cases: KEP-5972 fail-closed coverage of admission configuration for `pods/dynamic`.
//!
//! `request` holds the configuration objects (a list, or one object), or
//! `{configs: [...], scope: {namespaceLabels: {k: v}, podLabels: {k: v}, podName: name}}` to scope
//! the check to one Pod. Answer (both ways) and `expect`: `{"dynamicAllowed", "handlers":
//! [{"kind", "name", "binding", "interceptsPods", "interceptsDynamic", "inScope", "blocksDynamic",
//! "fix", "notes"}], "ignored"}`.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::{Area, Case, component_error, native_input_error, runtime};

/// The coverage area.
pub const AREA: Area = Area {
    native,
    wasm,
    view: Value::clone,
};

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

/// One handler of the answer: the fields in the WIT record's order.
#[expect(
    clippy::too_many_arguments,
    reason = "one flat row per handler keeps native and wasm answers identical"
)]
fn handler(
    kind: &str,
    name: &str,
    binding: Option<&str>,
    intercepts: (bool, bool),
    in_scope: bool,
    blocks: bool,
    fix: &str,
    notes: &[String],
) -> Value {
    let mut h = json!({
        "kind": kind, "name": name,
        "interceptsPods": intercepts.0, "interceptsDynamic": intercepts.1,
        "inScope": in_scope, "blocksDynamic": blocks, "fix": fix, "notes": notes,
    });
    // `binding` only where there is one, as `coverage -o json` prints it.
    if let (Some(b), Some(o)) = (binding, h.as_object_mut()) {
        o.insert("binding".into(), json!(b));
    }
    h
}

/// The configs text and the scope of a case.
fn configs_and_scope(c: &Case) -> (String, podmut_core::CoverageScope) {
    let (configs, scope) = split(c);
    let scope = podmut_core::CoverageScope {
        namespace_labels: labels(scope.as_ref(), "namespaceLabels"),
        pod_labels: labels(scope.as_ref(), "podLabels"),
        pod_name: pod_name(scope.as_ref()),
    };
    (configs, scope)
}

fn native(c: &Case) -> Value {
    let (configs, scope) = configs_and_scope(c);
    native_answer(&configs, &scope)
}

fn wasm(c: &Case) -> Value {
    let (configs, scope) = configs_and_scope(c);
    wasm_answer(&configs, &scope)
}

/// podmut-core's answer to `coverage(configs, scope)`.
pub fn native_answer(configs: &str, scope: &podmut_core::CoverageScope) -> Value {
    match podmut_core::coverage(configs, scope) {
        Ok(r) => {
            let podmut_core::CoverageReport {
                dynamic_allowed,
                handlers,
                ignored,
            } = &r;
            let handlers: Vec<Value> = handlers
                .iter()
                .map(|h| {
                    let podmut_core::HandlerCoverage {
                        kind,
                        name,
                        binding,
                        intercepts_pods,
                        intercepts_dynamic,
                        in_scope,
                        blocks_dynamic,
                        fix,
                        notes,
                    } = h;
                    handler(
                        kind,
                        name,
                        binding.as_deref(),
                        (*intercepts_pods, *intercepts_dynamic),
                        *in_scope,
                        *blocks_dynamic,
                        fix,
                        notes,
                    )
                })
                .collect();
            json!({"dynamicAllowed": dynamic_allowed, "handlers": handlers, "ignored": ignored})
        }
        Err(e) => native_input_error(&e),
    }
}

/// The component's answer to `coverage(configs, scope)` (the same scope, as the WIT record).
pub fn wasm_answer(configs: &str, scope: &podmut_core::CoverageScope) -> Value {
    use podmut::bindings::exports::podmut::policy::admission;
    let to_list = |m: &Option<BTreeMap<String, String>>| {
        m.as_ref()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect::<Vec<_>>())
    };
    let wit_scope = podmut::types::CoverageScope {
        namespace_labels: to_list(&scope.namespace_labels),
        pod_labels: to_list(&scope.pod_labels),
        pod_name: scope.pod_name.clone(),
    };
    match runtime().coverage_scoped(configs, Some(&wit_scope)) {
        Ok(r) => {
            let admission::CoverageReport {
                dynamic_allowed,
                handlers,
                ignored,
            } = &r;
            let handlers: Vec<Value> = handlers
                .iter()
                .map(|h| {
                    let admission::HandlerCoverage {
                        kind,
                        name,
                        binding,
                        intercepts_pods,
                        intercepts_dynamic,
                        in_scope,
                        blocks_dynamic,
                        fix,
                        notes,
                    } = h;
                    handler(
                        kind,
                        name,
                        binding.as_deref(),
                        (*intercepts_pods, *intercepts_dynamic),
                        *in_scope,
                        *blocks_dynamic,
                        fix,
                        notes,
                    )
                })
                .collect();
            json!({"dynamicAllowed": dynamic_allowed, "handlers": handlers, "ignored": ignored})
        }
        Err(e) => component_error(&e),
    }
}
