//! `qos` cases: a Pod's QoS class. Answer (both ways) and `expect`: `{"qosClass": "..."}`.
//!
//! `request: {alwaysCompute: true}` asks for `ComputePodQOS` (ignore `status.qosClass`, the CLI's
//! `--compute`); by default `status.qosClass` wins (`GetPodQOS`).

use serde_json::{Value, json};

use crate::{Area, Case, component_error, json_text, native_input_error, runtime};

/// The qos area.
pub const AREA: Area = Area {
    native,
    wasm,
    view: Value::clone,
};

fn always_compute(c: &Case) -> bool {
    c.request
        .as_ref()
        .and_then(|r| r.get("alwaysCompute"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

fn native(c: &Case) -> Value {
    let pod = json_text(c.pod.as_ref()).unwrap_or_default();
    match podmut_core::qos_document(&pod, !c.no_defaults, always_compute(c)) {
        Ok(q) => json!({"qosClass": q.as_str()}),
        Err(e) => native_input_error(&e),
    }
}

fn wasm(c: &Case) -> Value {
    let pod = json_text(c.pod.as_ref()).unwrap_or_default();
    let opts = podmut::types::QosOptions {
        apply_defaults: !c.no_defaults,
        always_compute: always_compute(c),
    };
    match runtime().qos(&pod, opts) {
        Ok(q) => json!({"qosClass": podmut::output::qos_name(q)}),
        Err(e) => component_error(&e),
    }
}
