//! A guest trap names the guest's functions although the component has none: tests/misbehave goes
//! through the same step as the shipped component (wasm-opt when installed, function names split
//! off into a names file, `podmut_splice`), and its `podmut-misbehave-panic` marker traps.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use podmut::{CallError, ComponentSource, HostError, Runtime, RuntimeOptions};

use crate::support::{Served, pod, post_validate_blocking, review, runtime_options, serve_json, tempdir};

/// Where the misbehaving component panics: a Rust function of the guest, in its name from the
/// names file (demangled). (Its `admission.review` export, into which wasm-opt inlines the
/// panicking `review`, is named too: [`EXPORT`].)
const PANICKING: &str = "core::panicking::panic_fmt";
const EXPORT: &str = "podmut_misbehave.wasm!podmut:policy/admission@0.1.0#review";

fn panicking_review() -> String {
    let p = pod("podmut-misbehave-panic", &[("app", "nginx")]);
    review("uid-trap", "", &p, &p).to_string()
}

fn options() -> RuntimeOptions {
    RuntimeOptions {
        memory_limit: 16 << 20,
        ..runtime_options()
    }
}

/// The trap's message (wasmtime's description, with the backtrace).
fn trap_of(runtime: &Runtime) -> String {
    match runtime.review(&panicking_review(), "") {
        Err(CallError::Host(HostError::Trap { message, stderr })) => {
            assert!(stderr.contains("deliberate panic"), "{stderr}");
            message
        }
        other => panic!("expected a trap, got {other:?}"),
    }
}

fn bytes() -> ComponentSource {
    ComponentSource::Bytes(Arc::new(podmut_misbehave::COMPONENT.to_vec()))
}

#[test]
fn the_component_has_no_function_names_so_wasmtime_alone_shows_indexes() {
    let runtime = Runtime::load(&bytes(), options()).unwrap();
    let message = trap_of(&runtime);
    assert!(message.contains("wasm backtrace"), "{message}");
    assert!(message.contains("<wasm function "), "{message}");
    assert!(!message.contains(PANICKING), "{message}");
}

#[test]
fn the_names_file_names_the_guest_functions_in_the_backtrace() {
    let names = podmut_misbehave::NAMES.to_owned();
    let runtime = Runtime::load_with_names(&bytes(), names, options()).unwrap();
    let message = trap_of(&runtime);
    assert!(message.contains("wasm backtrace"), "{message}");
    assert!(message.contains(PANICKING), "{message}");
    assert!(message.contains(EXPORT), "{message}");
    // Every frame of the guest's module is named (the shims wit-component adds have names).
    let unnamed: Vec<&str> = message
        .lines()
        .filter(|l| l.contains("<wasm function "))
        .collect();
    assert!(unnamed.is_empty(), "unnamed frames: {unnamed:?}\n{message}");
}

#[test]
fn names_of_another_component_are_not_used() {
    let names = podmut_misbehave::NAMES.replace("component sha256:", "component sha256:00");
    let runtime = Runtime::load_with_names(&bytes(), names, options()).unwrap();
    let message = trap_of(&runtime);
    assert!(message.contains("<wasm function "), "{message}");
    assert!(!message.contains(PANICKING), "{message}");
}

fn write_component(dir: &Path, with_names: bool) -> std::path::PathBuf {
    let wasm = dir.join("misbehave.wasm");
    std::fs::write(&wasm, podmut_misbehave::COMPONENT).unwrap();
    if with_names {
        std::fs::write(dir.join("misbehave.wasm.names"), podmut_misbehave::NAMES).unwrap();
    }
    wasm
}

/// `podmut serve --policy FILE.wasm` reads `FILE.wasm.names` beside it (as for dist's
/// `podmut.wasm` and `podmut.wasm.names`): the webhook's log of a trap names guest functions.
#[test]
fn the_webhook_log_names_guest_functions_from_the_file_beside_the_policy() {
    for with_names in [true, false] {
        let dir = tempdir();
        let wasm = write_component(dir.path(), with_names);
        let log = trap_log_of_serve(&wasm, dir.path());
        assert!(log.contains("trapped"), "{log}");
        assert_eq!(
            log.contains(PANICKING),
            with_names,
            "names beside: {with_names}\n{log}"
        );
        assert_eq!(log.contains("<wasm function "), !with_names, "{log}");
    }
}

/// Start `podmut serve --policy wasm` (JSON logs), send it the panicking review, stop it; its log.
fn trap_log_of_serve(wasm: &Path, dir: &Path) -> String {
    let Served {
        mut child,
        lines,
        addr,
        ca_pem,
    } = serve_json(
        &dir.join("ca.pem"),
        &["--no-cache".as_ref(), "--policy".as_ref(), wasm.as_os_str()],
    );
    let reply = post_validate_blocking(&addr, &ca_pem, &panicking_review());
    assert_eq!(reply.body["response"]["allowed"], false, "fails closed");
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    rest.join("\n")
}
