//! The component's other two worlds, driven the way the wasmtime CLI drives them:
//! `wasi:cli/run` through wasmtime-wasi's own `Command` bindings (what `wasmtime run` uses) and
//! `wasi:http/incoming-handler` through wasmtime-wasi-http's `ProxyPre` (what `wasmtime serve`
//! uses). The last tests run the real `wasmtime` binary (ignored unless asked for: they need it on
//! PATH).

use std::io::Write as _;
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use podmut::runtime::{EMBEDDED_COMPONENT, HostState, add_to_linker};
use serde_json::Value;
use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine, Store};
use wasmtime_wasi::WasiCtx;
use wasmtime_wasi::p2::bindings::sync::Command as CliCommand;
use wasmtime_wasi::p2::pipe::{MemoryInputPipe, MemoryOutputPipe};
use wasmtime_wasi_http::WasiHttpView;
use wasmtime_wasi_http::p2::bindings::sync::ProxyPre;

const MEMORY: usize = 256 << 20;

/// A Pod `web` with busybox containers `names`, as the API server stores it (uid, resourceVersion).
fn pod(names: &[&str]) -> Value {
    let containers: Vec<(&str, &str)> = names.iter().map(|n| (*n, "busybox")).collect();
    let mut p = crate::support::pod("web", &containers);
    p["metadata"]["uid"] = "u1".into();
    p["metadata"]["resourceVersion"] = "1".into();
    p
}

/// An UPDATE review on the main resource: adding a container there is denied.
fn review(old: &[&str], new: &[&str]) -> String {
    crate::support::review("705ab4f5-6393-11e8-b7cc-42010a800002", "", &pod(old), &pod(new)).to_string()
}

/// One engine and one compiled component for every test (compiling takes seconds).
fn compiled() -> &'static (Engine, Component) {
    static COMPILED: OnceLock<(Engine, Component)> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let mut config = Config::new();
        config.wasm_component_model(true);
        let engine = Engine::new(&config).unwrap();
        let component = Component::new(&engine, EMBEDDED_COMPONENT).unwrap();
        (engine, component)
    })
}

fn linker(engine: &Engine) -> Linker<HostState> {
    let mut linker = Linker::new(engine);
    add_to_linker(&mut linker).unwrap();
    linker
}

struct RunOutcome {
    ok: bool,
    stdout: String,
    stderr: String,
}

/// `wasmtime run`: instantiate through `wasi:cli/command` bindings and call `run`.
fn run_command(stdin: &str) -> RunOutcome {
    run_command_with(stdin, None)
}

/// `wasmtime run --env PODMUT_SETTINGS=...`.
fn run_command_with(stdin: &str, settings: Option<&str>) -> RunOutcome {
    let (engine, component) = compiled();
    let stdout = MemoryOutputPipe::new(1 << 20);
    let stderr = MemoryOutputPipe::new(1 << 20);
    let mut builder = WasiCtx::builder();
    builder
        .stdin(MemoryInputPipe::new(stdin.to_owned()))
        .stdout(stdout.clone())
        .stderr(stderr.clone());
    if let Some(s) = settings {
        builder.env("PODMUT_SETTINGS", s);
    }
    let wasi = builder.build();
    let mut store = Store::new(engine, HostState::new(wasi, MEMORY));
    let command = CliCommand::instantiate(&mut store, component, &linker(engine)).unwrap();
    let ok = command.wasi_cli_run().call_run(&mut store).unwrap().is_ok();
    RunOutcome {
        ok,
        stdout: String::from_utf8(stdout.contents().to_vec()).unwrap(),
        stderr: String::from_utf8(stderr.contents().to_vec()).unwrap(),
    }
}

#[test]
fn cli_run_answers_a_denied_review_on_stdout_and_exits_zero() {
    let out = run_command(&review(&["a"], &["a", "b"]));
    assert!(
        out.ok,
        "run must succeed whatever the verdict; stderr: {}",
        out.stderr
    );
    let v: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(v["kind"], "AdmissionReview");
    assert_eq!(v["response"]["uid"], "705ab4f5-6393-11e8-b7cc-42010a800002");
    assert_eq!(v["response"]["allowed"], false);
    assert_eq!(v["response"]["status"]["code"], 422);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
}

#[test]
fn cli_run_allows_an_unchanged_pod() {
    let out = run_command(&review(&["a"], &["a"]));
    assert!(out.ok, "{}", out.stderr);
    let v: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(v["response"]["allowed"], true);
}

#[test]
fn cli_run_rejects_a_bad_review_on_stderr_with_a_failing_exit() {
    let out = run_command("{\"kind\": \"Deployment\", \"apiVersion\": \"apps/v1\"}");
    assert!(!out.ok, "a review podmut cannot read must fail the run");
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(
        out.stderr.starts_with("podmut: admission-review:"),
        "{}",
        out.stderr
    );
}

/// The same component also still answers through the `policy` world (our host's runtime).
#[test]
fn the_policy_world_and_the_cli_world_agree() {
    let rt = crate::support::embedded();
    let text = review(&["a"], &["a", "b"]);
    let via_policy: Value = serde_json::from_str(&rt.review(&text, "").unwrap()).unwrap();
    let via_cli: Value = serde_json::from_str(run_command(&text).stdout.trim()).unwrap();
    assert_eq!(via_policy, via_cli);
}

struct HttpReply {
    status: u16,
    content_type: String,
    body: String,
}

/// `wasmtime serve`: one fresh instance per request through `wasi:http/proxy` bindings.
fn serve_one(method: &str, path: &str, body: Vec<u8>, content_length: Option<usize>) -> HttpReply {
    serve_one_with(method, path, body, content_length, None)
}

/// `wasmtime serve --env PODMUT_SETTINGS=...`.
fn serve_one_with(
    method: &str,
    path: &str,
    body: Vec<u8>,
    content_length: Option<usize>,
    settings: Option<&str>,
) -> HttpReply {
    let (engine, component) = compiled();
    let pre = ProxyPre::new(linker(engine).instantiate_pre(component).unwrap()).unwrap();
    let mut wasi = WasiCtx::builder();
    if let Some(s) = settings {
        wasi.env("PODMUT_SETTINGS", s);
    }
    let mut store = Store::new(engine, HostState::new(wasi.build(), MEMORY));
    let mut builder = hyper::Request::builder()
        .method(method)
        .uri(format!("http://127.0.0.1{path}"));
    if let Some(n) = content_length {
        builder = builder.header("content-length", n.to_string());
    }
    let request = builder.body(Full::new(Bytes::from(body))).unwrap();
    let request = store
        .data_mut()
        .http()
        .new_incoming_request(
            wasmtime_wasi_http::p2::bindings::http::types::Scheme::Http,
            request,
        )
        .unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let out = store.data_mut().http().new_response_outparam(tx).unwrap();
    // The guest writes the body after handing over the response head, so the handler runs on its
    // own thread while this one reads, as `wasmtime serve` does with a task.
    let guest = std::thread::spawn(move || {
        let proxy = pre.instantiate(&mut store).unwrap();
        proxy
            .wasi_http_incoming_handler()
            .call_handle(&mut store, request, out)
            .unwrap();
    });
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let reply = rt.block_on(async {
        let response = rx
            .await
            .expect("the guest set a response")
            .expect("not an error code");
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        HttpReply {
            status,
            content_type,
            body: String::from_utf8(body.to_vec()).unwrap(),
        }
    });
    guest.join().unwrap();
    reply
}

#[test]
fn http_post_validate_answers_like_the_webhook() {
    let text = review(&["a"], &["a", "b"]);
    let n = text.len();
    let reply = serve_one("POST", "/validate", text.into_bytes(), Some(n));
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.content_type, "application/json");
    let v: Value = serde_json::from_str(&reply.body).unwrap();
    assert_eq!(v["response"]["allowed"], false);
    assert_eq!(v["response"]["status"]["reason"], "Invalid");

    let ok = review(&["a"], &["a"]);
    let reply = serve_one("POST", "/validate?timeout=10s", ok.into_bytes(), None);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let v: Value = serde_json::from_str(&reply.body).unwrap();
    assert_eq!(v["response"]["allowed"], true);
}

/// `enforcement` through the two WASI exports, from `PODMUT_SETTINGS`.
#[test]
fn both_wasi_exports_honour_enforcement_from_podmut_settings() {
    let denied = review(&["a"], &["a", "b"]);
    for (mode, warned) in [("warn", true), ("audit", false)] {
        let settings = format!(r#"{{"enforcement":"{mode}"}}"#);
        let out = run_command_with(&denied, Some(&settings));
        assert!(out.ok, "{}", out.stderr);
        let via_run: Value = serde_json::from_str(out.stdout.trim()).unwrap();
        let reply = serve_one_with(
            "POST",
            "/validate",
            denied.clone().into_bytes(),
            None,
            Some(&settings),
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        let via_http: Value = serde_json::from_str(&reply.body).unwrap();
        assert_eq!(via_run, via_http, "{mode}: both exports answer alike");
        let r = &via_run["response"];
        assert_eq!(r["allowed"], true, "{mode}: {via_run}");
        assert!(r["auditAnnotations"]["would-deny"].is_string(), "{via_run}");
        assert_eq!(
            r.get("warnings").is_some_and(|w| !w.is_null()),
            warned,
            "{via_run}"
        );
    }
    // A settings document the component refuses is an error, not a silent default.
    let out = run_command_with(&denied, Some(r#"{"enforcement":"dryrun"}"#));
    assert!(!out.ok);
    assert!(out.stderr.contains("enforcement"), "{}", out.stderr);
}

#[test]
fn http_other_paths_are_404_and_other_methods_405() {
    assert_eq!(serve_one("POST", "/", Vec::new(), None).status, 404);
    assert_eq!(serve_one("GET", "/metrics", Vec::new(), None).status, 404);
    assert_eq!(serve_one("GET", "/validate", Vec::new(), None).status, 405);
}

#[test]
fn http_bad_reviews_are_400_and_oversized_bodies_413() {
    let reply = serve_one("POST", "/validate", b"{not json".to_vec(), None);
    assert_eq!(reply.status, 400);
    assert!(
        reply.body.starts_with("podmut: admission-review:"),
        "{}",
        reply.body
    );

    // Over the default 3 MiB input limit: refused by its declared length before it is read...
    let big = vec![b' '; 3 * 1024 * 1024 + 1];
    let n = big.len();
    let reply = serve_one("POST", "/validate", big.clone(), Some(n));
    assert_eq!(reply.status, 413, "{}", reply.body);
    // ...and, without a declared length, while reading.
    assert_eq!(serve_one("POST", "/validate", big, None).status, 413);
}

#[test]
fn the_component_imports_wasi_http_types_but_nothing_outgoing() {
    let (engine, component) = compiled();
    let ty = component.component_type();
    let imports: Vec<String> = ty.imports(engine).map(|(n, _)| n.to_owned()).collect();
    let exports: Vec<String> = ty.exports(engine).map(|(n, _)| n.to_owned()).collect();
    assert!(
        imports.iter().any(|i| i.starts_with("wasi:http/types@0.2")),
        "{imports:?}"
    );
    for forbidden in ["wasi:http/outgoing-handler", "wasi:sockets", "wasi:filesystem"] {
        assert!(
            !imports.iter().any(|i| i.starts_with(forbidden)),
            "{forbidden}: {imports:?}"
        );
    }
    for e in [
        "wasi:cli/run@0.2",
        "wasi:http/incoming-handler@0.2",
        "podmut:policy/validate@",
    ] {
        assert!(
            exports.iter().any(|x| x.starts_with(e)),
            "missing export {e}: {exports:?}"
        );
    }
}

// ---- the real wasmtime CLI ------------------------------------------------------------------

/// The `wasmtime` binary on PATH (`cargo xtask ci` provides the 48 CLI).
fn wasmtime_cli() -> std::path::PathBuf {
    crate::support::required_tool(
        "wasmtime",
        "cargo install wasmtime-cli@48.0.8 --locked (cargo xtask ci installs it)",
    )
}

fn component_file() -> tempfile::TempPath {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(EMBEDDED_COMPONENT).unwrap();
    f.into_temp_path()
}

#[test]
#[ignore = "needs the wasmtime 48 CLI on PATH; run with --ignored (cargo xtask ci does)"]
fn real_wasmtime_run_answers_a_review() {
    let wasmtime = wasmtime_cli();
    let wasm = component_file();
    let mut cmd = Command::new(&wasmtime);
    cmd.args(["run", "-S", "http"]).arg(&*wasm);
    let out = crate::support::output_with_stdin(cmd, review(&["a"], &["a", "b"]).as_bytes());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["response"]["allowed"], false);
}

#[test]
#[ignore = "needs the wasmtime 48 CLI on PATH; run with --ignored (cargo xtask ci does)"]
fn real_wasmtime_serve_answers_post_validate() {
    let wasmtime = wasmtime_cli();
    let wasm = component_file();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let addr = format!("127.0.0.1:{port}");
    let mut child = Command::new(&wasmtime)
        .args(["serve", "-S", "cli", "--addr", &addr])
        .arg(&*wasm)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let reply = (|| {
        let deadline = Instant::now() + Duration::from_secs(60);
        let text = review(&["a"], &["a"]);
        loop {
            if let Ok(mut s) = TcpStream::connect(&addr) {
                write!(
                    s,
                    "POST /validate HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                    text.len()
                )
                .unwrap();
                let mut buf = String::new();
                std::io::Read::read_to_string(&mut s, &mut buf).unwrap();
                return buf;
            }
            if let Some(status) = child.try_wait().unwrap() {
                panic!("wasmtime serve exited ({status}) before listening on {addr}");
            }
            assert!(
                Instant::now() < deadline,
                "wasmtime serve did not listen on {addr}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    })();
    let _ = child.kill();
    let _ = child.wait();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    let body = reply.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or_default();
    let v: Value = serde_json::from_str(body.trim()).unwrap();
    assert_eq!(v["response"]["allowed"], true);
}
