//! The embedded component itself: what it imports and that its answers come through wasmtime.

use std::sync::Arc;

use podmut::types::{FieldValidation, QosOptions, Subresource};
use podmut::{ComponentSource, Runtime};

use crate::support::{embedded, expect_bad_input, pod, review, run, runtime_options, tempdir, write};

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
        "podmut:policy/documents@0.1.0",
    ] {
        assert!(exports.iter().any(|x| x == e), "missing export {e}: {exports:?}");
    }
}

#[test]
fn every_call_gets_a_fresh_instance_and_the_same_answer() {
    let rt = embedded();
    let old = "kind: Pod\napiVersion: v1\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: x}]\n";
    let new = "kind: Pod\napiVersion: v1\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: x}, {name: b, image: busybox}]\n";
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
    // The engine emits no native unwind info for guest code (host/src/engine.rs): wasmtime walks
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

/// A component built before `documents` was added (tests/misbehave stands for one) still loads,
/// and `podmut check` then reads its files with `inputs.read-documents` (which misbehave does not
/// implement) instead of `documents.read-and-check`.
#[test]
fn a_component_without_documents_is_read_with_read_documents() {
    let pod = r#"{"kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","image":"x"}]}}"#;
    let read =
        |rt: &Runtime| rt.read_and_check(Some(pod), pod, FieldValidation::Strict, Subresource::None, "");
    let verdict = read(&embedded()).expect("the embedded component exports documents");
    assert!(verdict.unwrap().verdict.unwrap().unwrap().allowed);
    let older = Runtime::load(
        &ComponentSource::Bytes(Arc::new(podmut_misbehave::COMPONENT.to_vec())),
        runtime_options(),
    )
    .unwrap();
    assert!(read(&older).is_none());
    let dir = tempdir();
    let (file, wasm) = (
        write(dir.path(), "p.json", pod),
        dir.path().join("misbehave.wasm"),
    );
    std::fs::write(&wasm, podmut_misbehave::COMPONENT).unwrap();
    let arg = |p: &std::path::Path| p.to_str().unwrap().to_owned();
    let out = run(&[
        "check",
        "--old",
        &arg(&file),
        "--new",
        &arg(&file),
        "--policy",
        &arg(&wasm),
        "--no-cache",
    ]);
    expect_bad_input(
        &out,
        "not implemented in this component: podmut-misbehave implements admission.review only",
    );
}
