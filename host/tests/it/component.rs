//! The embedded component itself: what it imports and that its answers come through wasmtime.

use std::sync::Arc;

use podmut::types::{QosOptions, Subresource};
use podmut::{ComponentSource, Runtime};

use crate::support::{embedded, pod, review, runtime_options};

#[test]
fn imports_only_cli_io_and_the_standard_library_needs() {
    let rt = embedded();
    let engine = rt.engine();
    let component = wasmtime::component::Component::new(engine, podmut::runtime::EMBEDDED_COMPONENT).unwrap();
    let imports: Vec<String> = component
        .component_type()
        .imports(engine)
        .map(|(name, _)| name.to_owned())
        .collect();
    for forbidden in ["wasi:filesystem", "wasi:sockets", "wasi:http/outgoing-handler"] {
        assert!(
            !imports.iter().any(|i| i.starts_with(forbidden)),
            "component imports {forbidden}: {imports:?}"
        );
    }
    let exports: Vec<String> = component
        .component_type()
        .exports(engine)
        .map(|(name, _)| name.to_owned())
        .collect();
    for e in [
        "podmut:policy/validate@0.1.0",
        "podmut:policy/node@0.1.0",
        "podmut:policy/admission@0.1.0",
        "podmut:policy/inputs@0.1.0",
        "podmut:policy/report@0.1.0",
    ] {
        assert!(exports.iter().any(|x| x == e), "missing export {e}: {exports:?}");
    }
}

#[test]
fn every_call_gets_a_fresh_instance_and_the_same_answer() {
    let rt = embedded();
    let old = "kind: Pod\napiVersion: v1\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: x}]\n";
    let new = "kind: Pod\napiVersion: v1\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: x}, {name: b, image: y}]\n";
    for _ in 0..3 {
        let v = rt.check(Some(old), new, Subresource::None, "").unwrap();
        assert!(!v.allowed);
        assert_eq!(v.errors[0].field, "spec.containers");
        assert_eq!(
            v.errors[0].message,
            "Forbidden: pod updates may not add or remove containers"
        );
    }
    let q = rt
        .qos(
            old,
            QosOptions {
                apply_defaults: true,
                always_compute: false,
            },
        )
        .unwrap();
    assert_eq!(podmut::output::qos_name(q), "BestEffort");
}

#[test]
fn node_functions_name_what_is_missing_through_the_component() {
    // Every node function is implemented in the component: bad input gets an input error that
    // names the missing piece, never "not implemented" and never a fabricated answer.
    let rt = embedded();
    let cases = [
        ("allocate", rt.allocate("{}").err().map(|e| e.to_string()), "node"),
        (
            "container-statuses",
            rt.container_statuses("{}").err().map(|e| e.to_string()),
            "pod",
        ),
        (
            "retry-order",
            rt.retry_order("[]").err().map(|e| e.to_string()),
            "request object",
        ),
    ];
    for (name, err, needle) in cases {
        let e = err.unwrap_or_else(|| panic!("{name}: expected an input error"));
        assert!(!e.contains("not implemented"), "{name}: {e}");
        assert!(e.contains(needle), "{name}: error does not name `{needle}`: {e}");
    }
}

#[test]
fn a_trap_names_the_guest_functions_it_went_through() {
    // The engine emits no native unwind info for guest code (host/src/runtime.rs): wasmtime walks
    // the guest's frames by frame pointer, so a trap still says where in the guest it happened.
    // The component has no function names (split off as for the shipped one): its names file.
    let rt = Runtime::load_with_names(
        &ComponentSource::Bytes(Arc::new(podmut_misbehave::COMPONENT.to_vec())),
        podmut_misbehave::NAMES.to_owned(),
        runtime_options(),
    )
    .unwrap();
    let p = pod("podmut-misbehave-panic", &[("app", "nginx")]);
    let err = rt
        .review(&review("uid-trap", "", &p, &p).to_string(), "")
        .expect_err("the misbehaving component panics on this marker");
    let message = err.to_string();
    assert!(message.contains("the component trapped"), "{message}");
    assert!(message.contains("deliberate panic"), "guest stderr: {message}");
    let frames: Vec<&str> = message
        .lines()
        .filter(|l| l.contains("podmut_misbehave"))
        .collect();
    assert!(
        frames.iter().any(|f| f.contains("review")),
        "the backtrace names the guest's review function: {message}"
    );
}
