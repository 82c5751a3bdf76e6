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
    native_answer(
        &json_text(c.pod.as_ref()).unwrap_or_default(),
        !c.no_defaults,
        always_compute(c),
    )
}

fn wasm(c: &Case) -> Value {
    wasm_answer(
        &json_text(c.pod.as_ref()).unwrap_or_default(),
        !c.no_defaults,
        always_compute(c),
    )
}

/// podmut-core's answer to `qos(pod, options)`.
pub fn native_answer(pod: &str, apply_defaults: bool, always_compute: bool) -> Value {
    match podmut_core::qos_document(pod, apply_defaults, always_compute) {
        Ok(q) => json!({"qosClass": q.as_str()}),
        Err(e) => native_input_error(&e),
    }
}

/// The component's answer to `qos(pod, options)`.
pub fn wasm_answer(pod: &str, apply_defaults: bool, always_compute: bool) -> Value {
    let opts = podmut::types::QosOptions {
        apply_defaults,
        always_compute,
    };
    match runtime().qos(pod, opts) {
        Ok(q) => json!({"qosClass": podmut::output::qos_name(q)}),
        Err(e) => component_error(&e),
    }
}
