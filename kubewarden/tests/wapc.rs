//! The Kubewarden build loaded the way policy-server loads it: the `wasm32-unknown-unknown` module,
//! annotated with `kubewarden/metadata.yml`, instantiated in a waPC host and called through
//! `__guest_call`.
//!
//! The waPC host is written here on wasmtime 48's core-module API (~80 lines) instead of using the
//! `wapc` + `wasmtime-provider` crates: every published `wasmtime-provider` pins an older wasmtime
//! major, which would compile a second wasmtime into this workspace (minutes on this machine) and
//! does not build against the wasmtime 48 the rest of podmut uses. The protocol is small and
//! documented (wapc.io, `wapc-guest`'s `protocol.rs`): the host instantiates the module with the
//! `wapc` imports, calls `_start`/`wapc_init`, then `__guest_call(op_len, msg_len)`; the guest pulls
//! the operation and payload with `__guest_request` and answers with `__guest_response` or
//! `__guest_error`.
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code: failing loudly is the point"
)]

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};
use wasm_encoder::Section as _;
use wasmtime::{Caller, Engine, Extern, Linker, Module, Store};

/// The custom section Kubewarden reads its metadata from.
const METADATA_SECTION: &str = "io.kubewarden.metadata";

/// Build the policy for wasm32-unknown-unknown (or take `PODMUT_KUBEWARDEN_WASM`), like
/// `host/build.rs` builds the component: a nested cargo with its own target directory, because the
/// outer `cargo test` holds the lock on the outer one.
fn policy_module() -> Vec<u8> {
    if let Some(path) = std::env::var_os("PODMUT_KUBEWARDEN_WASM") {
        return std::fs::read(&path).unwrap();
    }
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let target_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("podmut-kubewarden");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(&workspace)
        .args([
            "build",
            "--package",
            "podmut-kubewarden",
            "--target",
            "wasm32-unknown-unknown",
            "--release",
        ])
        .env("CARGO_TARGET_DIR", &target_dir)
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .status()
        .unwrap();
    assert!(
        status.success(),
        "building the Kubewarden policy failed (is the target installed? `rustup target add wasm32-unknown-unknown`)"
    );
    std::fs::read(target_dir.join("wasm32-unknown-unknown/release/podmut_kubewarden.wasm")).unwrap()
}

/// What `kwctl annotate` does to the module: metadata.yml as JSON in a custom section at the end.
fn annotate(module: &[u8], metadata_yaml: &str) -> Vec<u8> {
    let metadata: Value = serde_yaml_ng::from_str(metadata_yaml).unwrap();
    let payload = serde_json::to_vec(&metadata).unwrap();
    let mut out = module.to_vec();
    wasm_encoder::CustomSection {
        name: METADATA_SECTION.into(),
        data: payload.into(),
    }
    .append_to(&mut out);
    out
}

/// Read the metadata section back, as policy-evaluator does.
fn read_metadata(module: &[u8]) -> Option<Value> {
    for payload in wasmparser::Parser::new(0).parse_all(module) {
        if let wasmparser::Payload::CustomSection(reader) = payload.unwrap()
            && reader.name() == METADATA_SECTION
        {
            return Some(serde_json::from_slice(reader.data()).unwrap());
        }
    }
    None
}

/// One waPC exchange in flight.
#[derive(Default)]
struct WapcState {
    operation: Vec<u8>,
    payload: Vec<u8>,
    response: Option<Vec<u8>>,
    error: Option<String>,
    console: Vec<String>,
}

fn memory(caller: &mut Caller<'_, WapcState>) -> wasmtime::Memory {
    match caller.get_export("memory") {
        Some(Extern::Memory(m)) => m,
        _ => panic!("the guest exports no memory"),
    }
}

fn read_guest(caller: &mut Caller<'_, WapcState>, ptr: i32, len: i32) -> Vec<u8> {
    let mem = memory(caller);
    let mut buf = vec![0; usize::try_from(len).unwrap()];
    mem.read(&caller, usize::try_from(ptr).unwrap(), &mut buf)
        .unwrap();
    buf
}

/// A waPC host for one module: instantiate, initialise, call.
struct WapcHost {
    store: Store<WapcState>,
    guest_call: wasmtime::TypedFunc<(i32, i32), i32>,
}

impl WapcHost {
    fn new(module_bytes: &[u8]) -> Self {
        let engine = Engine::default();
        let module = Module::new(&engine, module_bytes).unwrap();
        let mut linker: Linker<WapcState> = Linker::new(&engine);
        linker
            .func_wrap(
                "wapc",
                "__guest_request",
                |mut c: Caller<'_, WapcState>, op_ptr: i32, ptr: i32| {
                    let mem = memory(&mut c);
                    let (op, payload) = (c.data().operation.clone(), c.data().payload.clone());
                    mem.write(&mut c, usize::try_from(op_ptr).unwrap(), &op).unwrap();
                    mem.write(&mut c, usize::try_from(ptr).unwrap(), &payload)
                        .unwrap();
                },
            )
            .unwrap()
            .func_wrap(
                "wapc",
                "__guest_response",
                |mut c: Caller<'_, WapcState>, ptr: i32, len: i32| {
                    let bytes = read_guest(&mut c, ptr, len);
                    c.data_mut().response = Some(bytes);
                },
            )
            .unwrap()
            .func_wrap(
                "wapc",
                "__guest_error",
                |mut c: Caller<'_, WapcState>, ptr: i32, len: i32| {
                    let bytes = read_guest(&mut c, ptr, len);
                    c.data_mut().error = Some(String::from_utf8_lossy(&bytes).into_owned());
                },
            )
            .unwrap()
            .func_wrap(
                "wapc",
                "__console_log",
                |mut c: Caller<'_, WapcState>, ptr: i32, len: i32| {
                    let bytes = read_guest(&mut c, ptr, len);
                    c.data_mut()
                        .console
                        .push(String::from_utf8_lossy(&bytes).into_owned());
                },
            )
            .unwrap()
            // podmut makes no host calls (it is not context-aware); answer any with an error.
            .func_wrap(
                "wapc",
                "__host_call",
                |_: Caller<'_, WapcState>,
                 _: i32,
                 _: i32,
                 _: i32,
                 _: i32,
                 _: i32,
                 _: i32,
                 _: i32,
                 _: i32|
                 -> i32 { 0 },
            )
            .unwrap()
            .func_wrap("wapc", "__host_response", |_: Caller<'_, WapcState>, _: i32| {})
            .unwrap()
            .func_wrap("wapc", "__host_response_len", |_: Caller<'_, WapcState>| -> i32 {
                0
            })
            .unwrap()
            .func_wrap("wapc", "__host_error", |_: Caller<'_, WapcState>, _: i32| {})
            .unwrap()
            .func_wrap("wapc", "__host_error_len", |_: Caller<'_, WapcState>| -> i32 {
                0
            })
            .unwrap();
        let mut store = Store::new(&engine, WapcState::default());
        let instance = linker.instantiate(&mut store, &module).unwrap();
        for starter in ["_start", "wapc_init"] {
            if let Ok(f) = instance.get_typed_func::<(), ()>(&mut store, starter) {
                f.call(&mut store, ()).unwrap();
            }
        }
        let guest_call = instance
            .get_typed_func::<(i32, i32), i32>(&mut store, "__guest_call")
            .unwrap();
        Self { store, guest_call }
    }

    /// Call a registered function; `Err` carries the guest's `__guest_error` text.
    fn call(&mut self, operation: &str, payload: &[u8]) -> Result<Vec<u8>, String> {
        *self.store.data_mut() = WapcState {
            operation: operation.as_bytes().to_vec(),
            payload: payload.to_vec(),
            ..WapcState::default()
        };
        let op_len = i32::try_from(operation.len()).unwrap();
        let len = i32::try_from(payload.len()).unwrap();
        let ok = self.guest_call.call(&mut self.store, (op_len, len)).unwrap();
        let state = self.store.data_mut();
        if ok == 1 {
            Ok(state.response.take().expect("a successful call sets a response"))
        } else {
            Err(state.error.take().unwrap_or_default())
        }
    }
}

fn pod(containers: &[&str]) -> Value {
    let containers: Vec<Value> = containers
        .iter()
        .map(|n| json!({"name": n, "image": "busybox"}))
        .collect();
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default", "uid": "u1", "resourceVersion": "1"},
        "spec": {"containers": containers},
    })
}

/// Kubewarden's `validate` payload for an UPDATE on `sub`.
fn payload(sub: &str, old: &Value, new: &Value, settings: &Value) -> Vec<u8> {
    let request = json!({
        "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "resource": {"group": "", "version": "v1", "resource": "pods"},
        "subResource": sub,
        "name": "web", "namespace": "default", "operation": "UPDATE",
        "userInfo": {"username": "admin"},
        "object": new, "oldObject": old,
    });
    serde_json::to_vec(&json!({"request": request, "settings": settings})).unwrap()
}

#[test]
fn the_kubewarden_policy_runs_in_a_wapc_host() {
    let module = policy_module();
    let metadata_yaml =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/metadata.yml")).unwrap();
    let annotated = annotate(&module, &metadata_yaml);

    // The metadata Kubewarden reads.
    assert!(
        read_metadata(&module).is_none(),
        "the raw build carries no metadata"
    );
    let metadata = read_metadata(&annotated).expect("annotated module has io.kubewarden.metadata");
    assert_eq!(metadata["protocolVersion"], "v1");
    assert_eq!(metadata["executionMode"], "kubewarden-wapc");
    assert_eq!(metadata["mutating"], false);
    let resources = &metadata["rules"][0]["resources"];
    for r in ["pods", "pods/dynamic", "pods/ephemeralcontainers", "pods/resize"] {
        assert!(
            resources.as_array().unwrap().iter().any(|x| x == r),
            "rules miss {r}: {resources}"
        );
    }

    // A plain waPC module: it imports only the `wapc` host functions.
    let engine = Engine::default();
    let m = Module::new(&engine, &annotated).unwrap();
    for import in m.imports() {
        assert_eq!(
            import.module(),
            "wapc",
            "unexpected import {}::{}",
            import.module(),
            import.name()
        );
    }

    let mut host = WapcHost::new(&annotated);
    let version: Value = serde_json::from_slice(&host.call("protocol_version", b"").unwrap()).unwrap();
    assert_eq!(version, "v1");

    let valid: Value = serde_json::from_slice(&host.call("validate_settings", b"{}").unwrap()).unwrap();
    assert_eq!(valid["valid"], true);
    let invalid: Value = serde_json::from_slice(
        &host
            .call("validate_settings", br#"{"featureGates":{"Nope":true}}"#)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(invalid["valid"], false);
    assert!(invalid["message"].as_str().unwrap().contains("Nope"), "{invalid}");

    // Adding a container on the main resource is denied with the API server's message...
    let out = host
        .call(
            "validate",
            &payload("", &pod(&["a"]), &pod(&["a", "b"]), &json!({})),
        )
        .unwrap();
    let denied: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(denied["accepted"], false, "{denied}");
    assert_eq!(denied["code"], 422);
    assert!(
        denied["message"]
            .as_str()
            .unwrap()
            .starts_with("Pod \"web\" is invalid"),
        "{denied}"
    );

    // ...an unchanged update is accepted...
    let out = host
        .call("validate", &payload("", &pod(&["a"]), &pod(&["a"]), &json!({})))
        .unwrap();
    let accepted: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(accepted["accepted"], true, "{accepted}");

    // ...and an unreadable request is rejected with 400, not a trap.
    let out = host.call("validate", br#"{"request": {"kind": 3}}"#).unwrap();
    let bad: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(bad["accepted"], false);
    assert_eq!(bad["code"], 400);

    // An unknown operation is a waPC error.
    assert!(host.call("no_such_function", b"").is_err());
}

/// A file of the repository, read relative to the workspace root.
fn repo_file(path: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `policies/strict.yaml` as Kubewarden settings: the same escalation that the default profile
/// lets through on `pods/dynamic` is denied, with the strict rule's message.
#[test]
fn the_strict_profile_works_as_kubewarden_settings() {
    let strict: Value = serde_yaml_ng::from_str(&repo_file("policies/strict.yaml")).unwrap();
    let mut old: Value =
        serde_yaml_ng::from_str(&repo_file("tests/cases/bases/strict-running.yaml")).unwrap();
    old["metadata"] = json!({"name": "web", "namespace": "default", "uid": "u1", "resourceVersion": "7"});
    let mut new = old.clone();
    new["spec"]["containers"].as_array_mut().unwrap().push(json!({
        "name": "worker", "image": "worker:1.0",
        "securityContext": {
            "allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true,
            "capabilities": {"drop": ["ALL"], "add": ["NET_BIND_SERVICE", "SYS_ADMIN"]},
        },
    }));
    let mut host = WapcHost::new(&policy_module());

    let valid: Value = serde_json::from_slice(
        &host
            .call("validate_settings", &serde_json::to_vec(&strict).unwrap())
            .unwrap(),
    )
    .unwrap();
    assert_eq!(valid["valid"], true, "{valid}");

    let mut answer = |settings: &Value| -> Value {
        let out = host
            .call("validate", &payload("dynamic", &old, &new, settings))
            .unwrap();
        serde_json::from_slice(&out).unwrap()
    };
    let default = answer(&json!({}));
    assert_eq!(default["accepted"], true, "default profile: {default}");
    let denied = answer(&strict);
    assert_eq!(denied["accepted"], false, "strict profile: {denied}");
    let message = denied["message"].as_str().unwrap();
    assert!(
        message.contains("spec.containers[1].securityContext.capabilities.add[1]")
            && message.contains("SYS_ADMIN is not one"),
        "{denied}"
    );
}
