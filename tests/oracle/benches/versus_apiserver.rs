//! The same Pod change judged three ways, by the same client, in one run: the real API server's
//! dry run (`PUT pods/web?dryRun=All`), podmut's webhook (`POST /validate` with the
//! AdmissionReview the API server would send), and `podmut check --old --new` as a user runs it.
//! One request in flight, rounds interleaved so that the machine's noise falls on all three.
//!
//! `cargo xtask oracle bench` (needs the control planes: `cargo xtask oracle build`). Prints the
//! latency percentiles and the ratios BENCHMARKS.md records.

#![expect(
    clippy::panic,
    reason = "a benchmark that cannot set up stops with the reason"
)]

use std::time::{Duration, Instant};

use podmut_oracle::api::{Api, PodPath};
use podmut_oracle::batch::NODE;
use podmut_oracle::certs::Certs;
use podmut_oracle::control_plane::{Config, ControlPlane};
use podmut_oracle::webhook::{Serve, ServeOptions, podmut_binary};
use podmut_oracle::{Pins, exchange};
use serde_json::{Value, json};

fn fail(what: &str, e: impl std::fmt::Display) -> ! {
    panic!("{what}: {e}")
}

/// Percentiles of a sample, in microseconds.
fn summary(name: &str, mut t: Vec<Duration>) -> f64 {
    t.sort_unstable();
    let at = |q: f64| t[((t.len() as f64 - 1.0) * q) as usize].as_secs_f64() * 1e6;
    println!(
        "  {name:<34} n={:<5} p50 {:>9.0} µs   p90 {:>9.0} µs   p99 {:>9.0} µs",
        t.len(),
        at(0.5),
        at(0.9),
        at(0.99)
    );
    at(0.5)
}

/// A client of podmut's webhook: the same kube-rs stack, through a kubeconfig naming its URL
/// and CA.
async fn webhook_client(dir: &std::path::Path, addr: &str, ca_pem: &str) -> Api {
    use base64::Engine as _;
    let ca = base64::engine::general_purpose::STANDARD.encode(ca_pem.as_bytes());
    let kubeconfig = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: podmut\n  cluster: {{server: 'https://{addr}', certificate-authority-data: {ca}}}\nusers:\n- name: none\n  user: {{}}\ncontexts:\n- name: podmut\n  context: {{cluster: podmut, user: none}}\ncurrent-context: podmut\n"
    );
    let path = dir.join("podmut-kubeconfig");
    std::fs::write(&path, kubeconfig).unwrap_or_else(|e| fail("kubeconfig", e));
    Api::from_kubeconfig(&path, None)
        .await
        .unwrap_or_else(|e| fail("webhook client", e))
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is read.
    let rounds: usize = std::env::var("PODMUT_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail("tokio", e));
    let pins = Pins::load().unwrap_or_else(|e| fail("pins", e));
    // The newest release podmut claims.
    let release = podmut_oracle::fixtures::claimed(&pins)
        .into_iter()
        .max()
        .unwrap_or_else(|| fail("podmut claims no pinned release", ""));
    let plane = rt
        .block_on(ControlPlane::start(&Config::stock(release)))
        .unwrap_or_else(|e| fail("control plane", e));
    let api = rt.block_on(plane.client()).unwrap_or_else(|e| fail("client", e));
    let ns = exchange::fresh_namespace();
    rt.block_on(api.create_namespace(&ns))
        .unwrap_or_else(|e| fail("namespace", e));
    rt.block_on(api.ensure_node(NODE))
        .unwrap_or_else(|e| fail("node", e));
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": ns, "labels": {"app": "web"}},
        "spec": {"nodeName": NODE, "containers": [{"name": "nginx", "image": "nginx:1.27",
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
            "readinessProbe": {"httpGet": {"path": "/", "port": 80}}}]}});
    let stored = rt
        .block_on(exchange::create_old(&api, &ns, &pod))
        .unwrap_or_else(|e| fail("create", e))
        .unwrap_or_else(|r| fail("create", podmut_oracle::fixtures::refusal(&r)));
    let mut changed = stored.clone();
    changed["spec"]["containers"][0]["image"] = json!("nginx:1.28");

    let dir = tempfile::tempdir().unwrap_or_else(|e| fail("tempdir", e));
    let certs = Certs::generate().unwrap_or_else(|e| fail("certs", e));
    let (cert, key) = certs.serving_cert().unwrap_or_else(|e| fail("certs", e));
    let tls = (dir.path().join("tls.crt"), dir.path().join("tls.key"));
    std::fs::write(&tls.0, cert).unwrap_or_else(|e| fail("write", e));
    std::fs::write(&tls.1, key).unwrap_or_else(|e| fail("write", e));
    let settings = format!("kubernetesVersion: '{}'\n", release.minor_name());
    let serve = Serve::start(&ServeOptions {
        tls,
        settings: Some(settings.clone()),
        dir: dir.path().to_path_buf(),
        port: 0,
    })
    .unwrap_or_else(|e| fail("podmut serve", e));
    let hook = rt.block_on(webhook_client(dir.path(), &serve.addr, &certs.ca_pem));
    let review = podmut_review(&stored, &changed);
    let old_file = dir.path().join("old.json");
    let new_file = dir.path().join("new.json");
    std::fs::write(&old_file, stored.to_string()).unwrap_or_else(|e| fail("write", e));
    std::fs::write(&new_file, changed.to_string()).unwrap_or_else(|e| fail("write", e));
    let settings_file = dir.path().join("settings.yaml");
    std::fs::write(&settings_file, &settings).unwrap_or_else(|e| fail("write", e));
    let podmut = podmut_binary().unwrap_or_else(|e| fail("podmut", e));

    let (mut server_t, mut hook_t, mut cli_t) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        for _ in 0..200 {
            let t = Instant::now();
            let r = rt
                .block_on(api.dry_run(&ns, "web", PodPath::Update, &changed, ""))
                .unwrap_or_else(|e| fail("dry run", e));
            server_t.push(t.elapsed());
            assert!(r.ok(), "the server refused the change: {:?}", r.body);
        }
        for _ in 0..200 {
            let t = Instant::now();
            let r = rt
                .block_on(hook.send(http::Method::POST, "/validate", Some(&review), "application/json"))
                .unwrap_or_else(|e| fail("review", e));
            hook_t.push(t.elapsed());
            assert!(
                r.body.pointer("/response/allowed") == Some(&Value::Bool(true)),
                "podmut refused: {:?}",
                r.body
            );
        }
        for _ in 0..20 {
            let t = Instant::now();
            let out = std::process::Command::new(&podmut)
                .arg("check")
                .arg("--old")
                .arg(&old_file)
                .arg("--new")
                .arg(&new_file)
                .arg("--settings")
                .arg(&settings_file)
                .output()
                .unwrap_or_else(|e| fail("podmut check", e));
            cli_t.push(t.elapsed());
            assert!(
                out.status.success(),
                "podmut check refused: {}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
    }
    println!("one image change of a stored Pod, Kubernetes {release}, one request in flight:");
    let s = summary("API server dry run (PUT ?dryRun=All)", server_t);
    let h = summary("podmut serve POST /validate", hook_t);
    let c = summary("podmut check --old --new (process)", cli_t);
    println!(
        "  ratios of medians: API server / webhook = {:.1}x, API server / check = {:.2}x",
        s / h,
        s / c
    );
    serve.kill();
}

/// The AdmissionReview the API server sends a validating webhook for this update.
fn podmut_review(old: &Value, new: &Value) -> Value {
    let name = new.pointer("/metadata/name").cloned().unwrap_or(Value::Null);
    let ns = new.pointer("/metadata/namespace").cloned().unwrap_or(Value::Null);
    json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
        "uid": "00000000-0000-4000-8000-000000000001",
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "resource": {"group": "", "version": "v1", "resource": "pods"},
        "requestKind": {"group": "", "version": "v1", "kind": "Pod"},
        "requestResource": {"group": "", "version": "v1", "resource": "pods"},
        "name": name, "namespace": ns, "operation": "UPDATE",
        "userInfo": {"username": "podmut-admin", "groups": ["system:masters", "system:authenticated"]},
        "object": new, "oldObject": old, "dryRun": true,
        "options": {"apiVersion": "meta.k8s.io/v1", "kind": "UpdateOptions"}}})
}
