//! `podmut serve` as a process: flags, JSON logs, a review over HTTPS on 127.0.0.1, SIGTERM.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code: failing loudly is the point"
)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::BodyExt;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::{Value, json};

fn podmut() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_podmut"));
    c.env(
        "PODMUT_CACHE_DIR",
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("podmut-cache"),
    );
    c.env_remove("RUST_LOG");
    c
}

#[test]
fn serve_needs_a_certificate() {
    let o = podmut().arg("serve").output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--self-signed"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = podmut()
        .args([
            "serve",
            "--tls-cert",
            "/nonexistent/tls.crt",
            "--tls-key",
            "/nonexistent/tls.key",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/tls.crt"));
    let o = podmut()
        .args(["serve", "--self-signed", "--deadline", "soon"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

async fn post(addr: &str, ca_pem: &str, body: String) -> (u16, Value) {
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
        roots.add(c.unwrap()).unwrap();
    }
    let config =
        rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(ServerName::try_from("127.0.0.1").unwrap(), tcp)
        .await
        .unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tls))
        .await
        .unwrap();
    tokio::spawn(conn);
    let req = hyper::Request::post("/validate")
        .header("host", addr)
        .header("content-type", "application/json")
        .body(http_body_util::Full::new(axum::body::Bytes::from(body)))
        .unwrap();
    let resp = sender.send_request(req).await.unwrap();
    let status = resp.status().as_u16();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap())
}

#[test]
fn serve_answers_over_https_and_drains_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    let mut child = podmut()
        .args([
            "serve",
            "--self-signed",
            "--addr",
            "127.0.0.1:0",
            "--log-format",
            "json",
            "--workers",
            "1",
        ])
        .arg("--ca-out")
        .arg(&ca)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    // JSON log lines: find the address, then readiness.
    let mut addr = None;
    let started = Instant::now();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let v: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("not a JSON log line ({e}): {line}"));
        assert!(v["level"].is_string() && v["timestamp"].is_string(), "{line}");
        if v["message"] == "listening (HTTPS)" {
            addr = Some(v["addr"].as_str().unwrap().to_owned());
        }
        if v["message"] == "policy component ready" {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "serve did not become ready"
        );
    }
    let addr = addr.expect("the log names the address");
    let ca_pem = std::fs::read_to_string(&ca).unwrap();
    let review = json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "uid-process",
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "resource": {"group": "", "version": "v1", "resource": "pods"},
            "name": "web",
            "namespace": "default",
            "operation": "UPDATE",
            "userInfo": {},
            "object": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}},
            "oldObject": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": {"containers": [{"name": "a", "image": "x"}]}},
        }
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (status, v) = rt.block_on(post(&addr, &ca_pem, review.to_string()));
    assert_eq!(status, 200);
    assert_eq!(v["response"]["uid"], "uid-process");
    assert_eq!(v["response"]["status"]["code"], 422);

    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "graceful exit; log: {rest:?}");
    assert!(rest.iter().any(|l| l.contains("SIGTERM")), "{rest:?}");
    assert!(rest.iter().any(|l| l.contains("drained")), "{rest:?}");
}
