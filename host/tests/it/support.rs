//! What the host's integration tests share: the built binary, the repository's example files,
//! scratch files, Pods and AdmissionReviews, the embedded component, and an HTTPS client.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, OnceLock};

use axum::http::{StatusCode, header};
use http_body_util::BodyExt;
use podmut::{CacheMode, ComponentSource, Runtime, RuntimeOptions};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use serde_json::{Value, json};
use tokio::net::TcpStream;

// ------------------------------------------------------------------------------------------
// The built binary

/// The built `podmut` binary, its compiled-component cache inside the test's target dir and no
/// `RUST_LOG` from the caller's environment (tests read its logs).
pub(crate) fn podmut() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_podmut"));
    c.env(
        "PODMUT_CACHE_DIR",
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("podmut-cache"),
    );
    c.env_remove("RUST_LOG");
    c
}

/// Run `podmut ARGS` to completion.
pub(crate) fn run(args: &[&str]) -> Output {
    podmut().args(args).output().expect("podmut runs")
}

/// Run `cmd` with `input` on its stdin, to completion (stdout and stderr captured).
pub(crate) fn output_with_stdin(mut cmd: Command, input: &[u8]) -> Output {
    use std::io::Write as _;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command starts");
    child
        .stdin
        .take()
        .expect("a piped stdin")
        .write_all(input)
        .expect("stdin takes the input");
    child.wait_with_output().expect("the command runs")
}

/// Stdout as text.
pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Stderr as text.
pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Stdout as JSON; the failure shows both streams.
pub(crate) fn json_of(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}\nstderr: {}", stdout(o), stderr(o)))
}

/// Assert a bad-input failure: exit code 2 and `needle` (the file and the problem) on stderr.
pub(crate) fn expect_bad_input(o: &Output, needle: &str) {
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(o));
    assert!(
        stderr(o).contains(needle),
        "stderr lacks {needle:?}: {}",
        stderr(o)
    );
}

/// Assert that `text` contains every one of `needles`.
pub(crate) fn assert_contains_all(text: &str, needles: &[&str]) {
    for n in needles {
        assert!(text.contains(n), "lacks {n:?}:\n{text}");
    }
}

// ------------------------------------------------------------------------------------------
// Tools outside cargo

/// The program `name` on PATH, for a test marked `#[ignore = "needs <name> ..."]` (see the crate
/// docs): it runs only when asked, so a missing program fails it, saying how to `install` it.
pub(crate) fn required_tool(name: &str, install: &str) -> PathBuf {
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(name))
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| panic!("this test needs `{name}` on PATH: {install}"))
}

// ------------------------------------------------------------------------------------------
// Files

/// The repository's `policies/` directory.
pub(crate) fn policies() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../policies")
}

/// `policies/examples/`: the `check` examples (`<name>/old.yaml`, `<name>/new.yaml`).
pub(crate) fn examples() -> PathBuf {
    policies().join("examples")
}

/// A node-side example file, `policies/examples/node/<name>`, as an argument.
pub(crate) fn node_example(name: &str) -> String {
    examples().join("node").join(name).to_string_lossy().into_owned()
}

/// Every document of a YAML stream (empty documents left out).
pub(crate) fn documents(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_yaml_ng::Deserializer::from_str(&text)
        .map(|d| {
            <Value as serde::Deserialize>::deserialize(d)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        })
        .filter(|v| !v.is_null())
        .collect()
}

/// A fresh scratch directory, removed when dropped.
pub(crate) fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a scratch directory")
}

/// Write `text` to `dir/name` and return the path.
pub(crate) fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    p
}

// ------------------------------------------------------------------------------------------
// Pods and reviews

/// A Pod `name` in namespace `default` with `(name, image)` containers.
pub(crate) fn pod(name: &str, containers: &[(&str, &str)]) -> Value {
    let containers: Vec<Value> = containers
        .iter()
        .map(|(n, image)| json!({"name": n, "image": image}))
        .collect();
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": {"containers": containers}})
}

/// An UPDATE AdmissionReview of `old` -> `new` on the path `sub` (`""` = the main resource).
pub(crate) fn review(uid: &str, sub: &str, old: &Value, new: &Value) -> Value {
    json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "resource": {"group": "", "version": "v1", "resource": "pods"},
            "subResource": sub,
            "name": new["metadata"]["name"],
            "namespace": "default",
            "operation": "UPDATE",
            "userInfo": {"username": "alice"},
            "object": new,
            "oldObject": old,
            "dryRun": false,
        }
    })
}

/// An update adding a container on the main resource: the API server forbids it
/// (`spec.containers: Forbidden`, 422).
pub(crate) fn denied_review(uid: &str) -> Value {
    review(
        uid,
        "",
        &pod("web", &[("app", "nginx")]),
        &pod("web", &[("app", "nginx"), ("extra", "busybox")]),
    )
}

/// An image update: allowed.
pub(crate) fn allowed_review(uid: &str) -> Value {
    review(
        uid,
        "",
        &pod("web", &[("app", "nginx:1")]),
        &pod("web", &[("app", "nginx:2")]),
    )
}

// ------------------------------------------------------------------------------------------
// The component

/// Runtime options for tests: no on-disk cache, no pooling allocator (many runtimes share the
/// process).
pub(crate) fn runtime_options() -> RuntimeOptions {
    RuntimeOptions {
        pooling: false,
        cache: CacheMode::Off,
        ..RuntimeOptions::default()
    }
}

/// The embedded component, compiled once for the whole test binary.
pub(crate) fn embedded() -> Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        Runtime::load(&ComponentSource::Embedded, runtime_options()).expect("the embedded component loads")
    })
    .clone()
}

// ------------------------------------------------------------------------------------------
// HTTPS client

/// The first certificate of a PEM text.
pub(crate) fn cert_der(pem: &str) -> CertificateDer<'static> {
    CertificateDer::pem_slice_iter(pem.as_bytes())
        .next()
        .expect("a certificate")
        .expect("PEM")
}

/// A rustls client trusting `cas`, offering the one ALPN protocol `alpn`, with an optional client
/// identity `(cert PEM, key PEM)`.
pub(crate) fn client_config(
    cas: &[&str],
    alpn: &[u8],
    identity: Option<(&str, &str)>,
) -> rustls::ClientConfig {
    let mut roots = rustls::RootCertStore::empty();
    for ca in cas {
        roots.add(cert_der(ca)).expect("a CA certificate");
    }
    let builder =
        rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("rustls defaults")
            .with_root_certificates(roots);
    let mut config = match identity {
        Some((cert, key)) => builder
            .with_client_auth_cert(
                CertificateDer::pem_slice_iter(cert.as_bytes())
                    .map(Result::unwrap)
                    .collect(),
                PrivateKeyDer::from_pem_slice(key.as_bytes()).expect("a private key"),
            )
            .expect("a client identity"),
        None => builder.with_no_client_auth(),
    };
    config.alpn_protocols = vec![alpn.to_vec()];
    config
}

/// One HTTPS exchange.
#[derive(Debug)]
pub(crate) struct Exchange {
    /// The response status.
    pub(crate) status: StatusCode,
    /// The body as JSON, or as a JSON string when it is not JSON.
    pub(crate) body: Value,
    /// The certificate the server presented.
    pub(crate) server_cert: CertificateDer<'static>,
}

/// A `podmut serve` process started by [`serve_json`], ready.
pub(crate) struct Served {
    /// The process.
    pub(crate) child: std::process::Child,
    /// Its log lines after "policy component ready".
    pub(crate) lines: std::io::Lines<std::io::BufReader<std::process::ChildStderr>>,
    /// The HTTPS address it listens on.
    pub(crate) addr: String,
    /// Its self-signed CA, PEM.
    pub(crate) ca_pem: String,
}

/// Start `podmut serve --self-signed --addr 127.0.0.1:0 --log-format json --workers 1
/// --ca-out CA` with `extra` arguments and wait until it is ready; every log line until then must
/// be JSON with a level and a timestamp.
pub(crate) fn serve_json(ca: &Path, extra: &[&std::ffi::OsStr]) -> Served {
    use std::io::BufRead as _;
    let mut child = podmut()
        .args(["serve", "--self-signed", "--addr", "127.0.0.1:0"])
        .args(["--log-format", "json", "--workers", "1"])
        .args(extra)
        .arg("--ca-out")
        .arg(ca)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let mut addr = None;
    let started = std::time::Instant::now();
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
            started.elapsed() < std::time::Duration::from_secs(120),
            "serve did not become ready"
        );
    }
    let addr = addr.expect("the log names the address");
    let ca_pem = std::fs::read_to_string(ca).unwrap();
    Served {
        child,
        lines,
        addr,
        ca_pem,
    }
}

/// `POST /validate` of `body` over HTTPS/1.1 to a `podmut serve` process at `addr` whose CA is
/// `ca_pem`, from a test that is not async.
pub(crate) fn post_validate_blocking(addr: &str, ca_pem: &str, body: &str) -> Exchange {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(https(
            addr.parse().unwrap(),
            client_config(&[ca_pem], b"http/1.1", None),
            "POST",
            "/validate",
            body,
        ))
        .unwrap()
}

/// One HTTPS request on a fresh connection to `addr` (server name `localhost`), over HTTP/2 when
/// the server accepts `h2` by ALPN, else HTTP/1.1. `Err` for a failed connection or handshake.
pub(crate) async fn https(
    addr: SocketAddr,
    config: rustls::ClientConfig,
    method: &str,
    path: &str,
    body: &str,
) -> Result<Exchange, String> {
    let tcp = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let tls = connector
        .connect(ServerName::try_from("localhost").expect("a server name"), tcp)
        .await
        .map_err(|e| format!("handshake: {e}"))?;
    let (_, conn) = tls.get_ref();
    let server_cert = conn.peer_certificates().expect("the server's certificate")[0]
        .clone()
        .into_owned();
    let h2 = conn.alpn_protocol() == Some(b"h2");
    let io = hyper_util::rt::TokioIo::new(tls);
    let req = hyper::Request::builder()
        .method(method)
        .uri(format!("https://localhost{path}"))
        .header(header::CONTENT_TYPE, "application/json")
        .body(http_body_util::Full::new(axum::body::Bytes::from(
            body.to_owned(),
        )))
        .expect("a request");
    let resp = if h2 {
        let (mut sender, conn) =
            hyper::client::conn::http2::handshake(hyper_util::rt::TokioExecutor::new(), io)
                .await
                .map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        sender.send_request(req).await.map_err(|e| e.to_string())?
    } else {
        let (mut sender, conn) = hyper::client::conn::http1::handshake(io)
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        sender.send_request(req).await.map_err(|e| e.to_string())?
    };
    let status = resp.status();
    let bytes = resp
        .into_body()
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
    Ok(Exchange {
        status,
        body,
        server_cert,
    })
}
