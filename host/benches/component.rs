//! Criterion benchmarks of one podmut call: natively in podmut-core, through the component with a
//! fresh instance per call (what `podmut review` and the webhook do) and with one reused instance;
//! the instantiation cost with and without the pooling allocator; the growth curve at 10 / 100 /
//! 1,000 containers per Pod; and the CLI one-shot wall time next to `wasmtime run` (when a
//! `wasmtime` binary is on PATH).
//!
//! ```sh
//! cargo bench -p podmut --bench component                 # everything (~2 minutes)
//! cargo bench -p podmut --bench component -- growth       # one group (criterion filter)
//! ```
//!
//! Input: the same UPDATE AdmissionReview as `web/bench/fixture.mjs` (old and new Pod with `n`
//! containers with probes, env, ports and resources; the new one changes one image: allowed).
//! Warm-up 1 s and measurement 3 s per benchmark (the machine is small and shared: compare ratios
//! within one run). Results and their reading: BENCHMARKS.md, "Per-call cost" and "Growth with Pod size".
#![expect(clippy::expect_used, reason = "a benchmark: failing loudly is fine")]

use std::hint::black_box;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use podmut::runtime::EMBEDDED_COMPONENT;
use podmut::types::Subresource;
use podmut::{ComponentSource, Runtime, RuntimeOptions};
use serde_json::{Value, json};

/// One Pod with `n` containers (the shape of `web/bench/fixture.mjs`).
fn pod(n: usize, image: &str) -> Value {
    let containers: Vec<Value> = (0..n)
        .map(|i| {
            let port = 8080 + i;
            json!({
                "name": format!("c{i}"),
                "image": if i == 0 { image.to_owned() } else { format!("registry.example/side-{i}:2.3") },
                "command": ["/bin/app", "--serve", format!("--port={port}")],
                "ports": [{"name": format!("http-{i}"), "containerPort": port, "protocol": "TCP"}],
                "env": [{"name": "MODE", "value": "production"}, {"name": "REPLICA", "value": i.to_string()}],
                "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}, "limits": {"cpu": "500m", "memory": "512Mi"}},
                "livenessProbe": {"httpGet": {"path": "/healthz", "port": port}, "periodSeconds": 10, "failureThreshold": 3},
                "readinessProbe": {"httpGet": {"path": "/ready", "port": port}, "periodSeconds": 5},
                "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "imagePullPolicy": "IfNotPresent",
            })
        })
        .collect();
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "bench", "namespace": "default", "uid": "b0", "resourceVersion": "7",
                     "labels": {"app": "bench", "tier": "web"}},
        "spec": {
            "nodeName": "node-1",
            "containers": containers,
            "volumes": [{"name": "data", "emptyDir": {}}],
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst",
            "schedulerName": "default-scheduler",
            "securityContext": {},
        },
        "status": {"phase": "Running", "qosClass": "Burstable"},
    })
}

/// `(old, new)` Pod JSON texts with `n` containers.
fn pods(n: usize) -> (String, String) {
    (
        pod(n, "registry.example/app:1.0").to_string(),
        pod(n, "registry.example/app:1.1").to_string(),
    )
}

/// The UPDATE AdmissionReview with `n` containers.
fn review(n: usize) -> String {
    json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "resource": {"group": "", "version": "v1", "resource": "pods"},
            "name": "bench", "namespace": "default", "operation": "UPDATE",
            "userInfo": {"username": "admin"},
            "object": pod(n, "registry.example/app:1.1"),
            "oldObject": pod(n, "registry.example/app:1.0"),
        },
    })
    .to_string()
}

fn runtime(pooling: bool) -> Runtime {
    let options = RuntimeOptions {
        pooling,
        ..RuntimeOptions::default()
    };
    Runtime::load(&ComponentSource::Embedded, options).expect("load the embedded component")
}

/// Every path must give the same, allowed answer before it is timed.
fn assert_allowed(response: &str) {
    let v: Value = serde_json::from_str(response).expect("response JSON");
    assert_eq!(
        v.pointer("/response/allowed"),
        Some(&Value::Bool(true)),
        "{response}"
    );
}

fn bench_review(c: &mut Criterion) {
    let text = review(5);
    let rt = runtime(true);
    let rt_ondemand = runtime(false);
    let mut inst = rt.instance().expect("instance");
    assert_allowed(&podmut_core::review(&text, "").expect("native"));
    assert_allowed(&rt.review(&text, "").expect("fresh"));
    assert_allowed(&inst.review(&text, "").expect("reused"));

    let mut g = c.benchmark_group("review");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("native", |b| {
        b.iter(|| podmut_core::review(black_box(&text), "").expect("native"));
    });
    g.bench_function("component-fresh-pooling", |b| {
        b.iter(|| rt.review(black_box(&text), "").expect("fresh"));
    });
    g.bench_function("component-fresh-ondemand", |b| {
        b.iter(|| rt_ondemand.review(black_box(&text), "").expect("fresh"));
    });
    g.bench_function("component-reused", |b| {
        b.iter(|| inst.review(black_box(&text), "").expect("reused"));
    });
    g.finish();
}

fn bench_check(c: &mut Criterion) {
    let (old, new) = pods(5);
    let rt = runtime(true);
    let mut inst = rt.instance().expect("instance");
    let v =
        podmut_core::check_documents(Some(&old), &new, podmut_core::Subresource::None, "").expect("native");
    assert!(v.allowed, "{:?}", v.errors);
    assert!(
        rt.check(Some(&old), &new, Subresource::None, "")
            .expect("fresh")
            .allowed
    );

    let mut g = c.benchmark_group("check");
    g.bench_function("native", |b| {
        b.iter(|| {
            podmut_core::check_documents(Some(black_box(&old)), &new, podmut_core::Subresource::None, "")
                .expect("native")
        });
    });
    g.bench_function("component-fresh-pooling", |b| {
        b.iter(|| {
            rt.check(Some(black_box(&old)), &new, Subresource::None, "")
                .expect("fresh")
        });
    });
    g.bench_function("component-reused", |b| {
        b.iter(|| {
            inst.check(Some(black_box(&old)), &new, Subresource::None, "")
                .expect("reused")
        });
    });
    g.finish();
}

/// The cost of field validation (`fieldValidation` / `--validate`): the same allowed update judged
/// with unknown and duplicate fields ignored (the one-pass typed read) and checked (the value
/// with duplicate detection, then the typed decoding compared with the object written back), at 5 and 100
/// containers; and `inputs.read-documents` alone (what the CLI adds per file).
fn bench_validation(c: &mut Criterion) {
    use podmut::types::{DocumentKind, FieldValidation};
    const STRICT: &str = r#"{"fieldValidation":"strict"}"#;
    let rt = runtime(true);
    let mut g = c.benchmark_group("validation");
    for n in [5usize, 100] {
        let (old, new) = pods(n);
        let review = review(n);
        for (name, settings) in [("ignore", ""), ("strict", STRICT)] {
            let v = podmut_core::check_documents(Some(&old), &new, podmut_core::Subresource::None, settings)
                .expect("native");
            assert!(v.allowed, "{:?}", v.errors);
            g.bench_function(BenchmarkId::new(format!("check-native-{name}"), n), |b| {
                b.iter(|| {
                    podmut_core::check_documents(
                        Some(black_box(&old)),
                        &new,
                        podmut_core::Subresource::None,
                        settings,
                    )
                    .expect("native")
                });
            });
            g.bench_function(BenchmarkId::new(format!("check-component-{name}"), n), |b| {
                b.iter(|| {
                    rt.check(Some(black_box(&old)), &new, Subresource::None, settings)
                        .expect("fresh")
                });
            });
            assert_allowed(&podmut_core::review(&review, settings).expect("native"));
            g.bench_function(BenchmarkId::new(format!("review-native-{name}"), n), |b| {
                b.iter(|| podmut_core::review(black_box(&review), settings).expect("native"));
            });
        }
        g.bench_function(BenchmarkId::new("read-documents-component-strict", n), |b| {
            b.iter(|| {
                rt.read_documents(
                    black_box(&new),
                    "new-pod",
                    DocumentKind::Pod,
                    FieldValidation::Strict,
                )
                .expect("read")
            });
        });
    }
    g.finish();
}

fn bench_instantiate(c: &mut Criterion) {
    let pooled = runtime(true);
    let ondemand = runtime(false);
    let mut g = c.benchmark_group("instantiate");
    g.bench_function("pooling", |b| b.iter(|| pooled.instance().expect("instance")));
    g.bench_function("ondemand", |b| b.iter(|| ondemand.instance().expect("instance")));
    g.finish();
}

fn bench_growth(c: &mut Criterion) {
    let rt = runtime(true);
    let mut g = c.benchmark_group("growth");
    for n in [10_usize, 100, 1000] {
        let text = review(n);
        assert_allowed(&podmut_core::review(&text, "").expect("native"));
        assert_allowed(&rt.review(&text, "").expect("fresh"));
        // Per-container time = reported time / n ("thrpt" in elements/s is n / time).
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("native", n), &text, |b, t| {
            b.iter(|| podmut_core::review(black_box(t), "").expect("native"));
        });
        g.bench_with_input(BenchmarkId::new("component-fresh", n), &text, |b, t| {
            b.iter(|| rt.review(black_box(t), "").expect("fresh"));
        });
    }
    g.finish();
}

/// The component as a file, for `wasmtime run` and `podmut review --policy`.
fn component_file(dir: &Path) -> PathBuf {
    let path = dir.join("podmut.wasm");
    std::fs::write(&path, EMBEDDED_COMPONENT).expect("write podmut.wasm");
    path
}

fn run_with_stdin(cmd: &mut Command, input: &[u8]) -> Vec<u8> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn wasmtime_on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("wasmtime"))
        .find(|p| p.is_file())
}

fn bench_cli(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("podmut-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let wasm = component_file(&dir);
    let text = review(5);
    let podmut = env!("CARGO_BIN_EXE_podmut");
    // Warm both compile caches once (podmut: its per-user cache; wasmtime: its default cache).
    assert_allowed(&String::from_utf8_lossy(&run_with_stdin(
        Command::new(podmut).args(["review", "-"]),
        text.as_bytes(),
    )));
    let mut g = c.benchmark_group("cli");
    g.sample_size(10);
    g.bench_function("podmut-review", |b| {
        b.iter(|| run_with_stdin(Command::new(podmut).args(["review", "-"]), text.as_bytes()));
    });
    match wasmtime_on_path() {
        Some(wasmtime) => {
            let cmd = || {
                let mut c = Command::new(&wasmtime);
                c.args(["run", "-C", "cache=y", "-S", "http"]).arg(&wasm);
                c
            };
            assert_allowed(&String::from_utf8_lossy(&run_with_stdin(
                &mut cmd(),
                text.as_bytes(),
            )));
            g.bench_function("wasmtime-run", |b| {
                b.iter(|| run_with_stdin(&mut cmd(), text.as_bytes()));
            });
        }
        None => eprintln!("cli/wasmtime-run: skipped, no `wasmtime` on PATH"),
    }
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args()
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_review, bench_check, bench_validation, bench_instantiate, bench_growth, bench_cli
}
criterion_main!(benches);
