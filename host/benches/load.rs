//! HTTP(S) load generator for the podmut webhook (and anything else answering `POST /validate`,
//! e.g. the component under `wasmtime serve`).
//!
//! ```sh
//! cargo bench -p podmut --bench load -- --url https://127.0.0.1:8443/validate --ca ca.pem \
//!     --concurrency 16 --duration 10s
//! cargo xtask load      # builds podmut, starts `podmut serve --self-signed`, runs this, stops it
//! ```
//!
//! N connections (keep-alive, HTTP/1.1, or HTTP/2 with `--http2`) each send the same
//! AdmissionReview back to back for a fixed duration after a warm-up; the report gives throughput,
//! latency percentiles and every non-200 or non-AdmissionReview answer as an error. The body is a
//! generated Pod update (an image change on the main resource, allowed) with `--containers` main
//! containers, or `--body FILE`. `--once` sends one request and prints the answer.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "a benchmark tool: failing loudly is fine"
)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// Load generator for `POST /validate`.
#[derive(Debug, Parser)]
#[command(name = "load", about)]
struct Args {
    /// Target URL (http:// or https://).
    #[arg(long, default_value = "https://127.0.0.1:8443/validate")]
    url: String,
    /// CA certificate (PEM) to trust for https://.
    #[arg(long)]
    ca: Option<PathBuf>,
    /// Concurrent connections.
    #[arg(short, long, default_value_t = 16)]
    concurrency: usize,
    /// Measured duration, e.g. 10s.
    #[arg(short, long, default_value = "10s", value_parser = parse_secs)]
    duration: Duration,
    /// Warm-up before measuring.
    #[arg(long, default_value = "2s", value_parser = parse_secs)]
    warmup: Duration,
    /// Request body (an AdmissionReview); default: a generated Pod update.
    #[arg(long)]
    body: Option<PathBuf>,
    /// Main containers per Pod in the generated review.
    #[arg(long, default_value_t = 8)]
    containers: usize,
    /// Build the review from this Pod (YAML or JSON) as the object after the change.
    #[arg(long, requires = "new")]
    old: Option<PathBuf>,
    /// The Pod after the change (without --old: a CREATE).
    #[arg(long)]
    new: Option<PathBuf>,
    /// With --new: the request path (none, dynamic, ephemeralcontainers, resize).
    #[arg(long, default_value = "none")]
    subresource: String,
    /// Use HTTP/2 (one stream at a time per connection).
    #[arg(long)]
    http2: bool,
    /// Send one request, print the answer, exit.
    #[arg(long)]
    once: bool,
    /// Wait (up to 60 s) until GET /readyz on the same host answers 200.
    #[arg(long)]
    wait_ready: bool,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
    /// Label for the result line.
    #[arg(long, default_value = "")]
    label: String,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
}

fn parse_secs(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let (n, mult) = if let Some(n) = t.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else {
        (t, 1.0)
    };
    n.parse::<f64>()
        .map(|v| Duration::from_secs_f64(v * mult))
        .map_err(|_| format!("{s:?} is not a duration (e.g. 10s, 500ms)"))
}

/// An AdmissionReview for an image update of a Pod with `n` containers (allowed on `pods`).
fn generated_review(n: usize) -> String {
    let pod = |tag: &str| {
        let containers: Vec<Value> = (0..n)
            .map(|i| {
                json!({
                    "name": format!("worker-{i}"),
                    "image": format!("registry.example.com/team/worker:{tag}"),
                    "command": ["/bin/worker", "--serve", "--port=8080"],
                    "env": [{"name": "MODE", "value": "production"}, {"name": "INDEX", "value": i.to_string()}],
                    "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                    "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}, "limits": {"cpu": "1", "memory": "512Mi"}},
                    "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 5},
                    "securityContext": {"runAsNonRoot": true, "allowPrivilegeEscalation": false},
                })
            })
            .collect();
        json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "bench", "namespace": "default", "uid": "5c1e0b8e-0000-4000-8000-000000000000", "labels": {"app": "bench"}},
            "spec": {"containers": containers, "restartPolicy": "Always", "nodeName": "node-1"},
        })
    };
    json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "resource": {"group": "", "version": "v1", "resource": "pods"},
            "subResource": "",
            "name": "bench",
            "namespace": "default",
            "operation": "UPDATE",
            "userInfo": {"username": "bench"},
            "object": pod("2"),
            "oldObject": pod("1"),
            "dryRun": false,
        }
    })
    .to_string()
}

/// An AdmissionReview for a change between two Pod files.
fn review_from_files(old: Option<&PathBuf>, new: &PathBuf, subresource: &str) -> String {
    let read = |p: &PathBuf| -> Value {
        let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()));
        serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    };
    let new = read(new);
    let old = old.map(read);
    let sub = if subresource == "none" { "" } else { subresource };
    let mut request = json!({
        "uid": "00000000-0000-4000-8000-00000000d3m0",
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "resource": {"group": "", "version": "v1", "resource": "pods"},
        "subResource": sub,
        "name": new.pointer("/metadata/name").cloned().unwrap_or(Value::Null),
        "namespace": new.pointer("/metadata/namespace").cloned().unwrap_or_else(|| json!("default")),
        "operation": if old.is_some() { "UPDATE" } else { "CREATE" },
        "userInfo": {"username": "demo"},
        "object": new,
    });
    if let (Some(old), Some(obj)) = (old, request.as_object_mut()) {
        obj.insert("oldObject".into(), old);
    }
    json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}).to_string()
}

struct Target {
    tls: Option<tokio_rustls::TlsConnector>,
    host: String,
    port: u16,
    path: String,
}

impl Target {
    fn parse(url: &str, ca: Option<&PathBuf>, http2: bool) -> Self {
        let (scheme, rest) = url.split_once("://").expect("URL with a scheme");
        let (authority, path) = rest
            .split_once('/')
            .map_or((rest, "/".to_owned()), |(a, p)| (a, format!("/{p}")));
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_owned(), p.parse().expect("port")),
            None => (authority.to_owned(), if scheme == "https" { 443 } else { 80 }),
        };
        let tls = (scheme == "https").then(|| {
            let mut roots = rustls::RootCertStore::empty();
            let ca = ca.expect("--ca FILE is needed for https://");
            let pem = std::fs::read(ca).expect("read --ca");
            for c in CertificateDer::pem_slice_iter(&pem) {
                roots.add(c.expect("PEM certificate")).expect("CA certificate");
            }
            let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
            config.alpn_protocols = vec![if http2 {
                b"h2".to_vec()
            } else {
                b"http/1.1".to_vec()
            }];
            tokio_rustls::TlsConnector::from(Arc::new(config))
        });
        Self {
            tls,
            host,
            port,
            path,
        }
    }
}

trait Io: AsyncRead + AsyncWrite + Unpin + Send + 'static {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + 'static> Io for T {}

enum Sender {
    H1(hyper::client::conn::http1::SendRequest<Full<Bytes>>),
    H2(hyper::client::conn::http2::SendRequest<Full<Bytes>>),
}

async fn connect(t: &Target, http2: bool) -> Result<Sender, String> {
    let tcp = TcpStream::connect((t.host.as_str(), t.port))
        .await
        .map_err(|e| e.to_string())?;
    tcp.set_nodelay(true).map_err(|e| e.to_string())?;
    let io: Box<dyn Io> = match &t.tls {
        Some(c) => {
            let name = ServerName::try_from(t.host.clone()).map_err(|e| e.to_string())?;
            Box::new(c.connect(name, tcp).await.map_err(|e| format!("TLS: {e}"))?)
        }
        None => Box::new(tcp),
    };
    let io = TokioIo::new(io);
    if http2 {
        let (s, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        Ok(Sender::H2(s))
    } else {
        let (s, conn) = hyper::client::conn::http1::handshake(io)
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        Ok(Sender::H1(s))
    }
}

async fn send(
    s: &mut Sender,
    t: &Target,
    method: &str,
    path: &str,
    body: Bytes,
) -> Result<(u16, Bytes), String> {
    let req = hyper::Request::builder()
        .method(method)
        .uri(path)
        .header(hyper::header::HOST, format!("{}:{}", t.host, t.port))
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .body(Full::new(body))
        .map_err(|e| e.to_string())?;
    let resp = match s {
        Sender::H1(s) => {
            s.ready().await.map_err(|e| e.to_string())?;
            s.send_request(req).await
        }
        Sender::H2(s) => {
            s.ready().await.map_err(|e| e.to_string())?;
            s.send_request(req).await
        }
    }
    .map_err(|e| e.to_string())?;
    let status = resp.status().as_u16();
    let bytes = resp
        .into_body()
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    Ok((status, bytes))
}

fn answered(status: u16, body: &[u8]) -> bool {
    status == 200
        && serde_json::from_slice::<Value>(body)
            .ok()
            .and_then(|v| v.pointer("/response/allowed").and_then(Value::as_bool))
            .is_some()
}

#[derive(Default)]
struct Tally {
    latencies_us: Vec<u32>,
    errors: u64,
    first_error: Option<String>,
}

async fn worker(t: Arc<Target>, http2: bool, body: Bytes, warm_until: Instant, stop_at: Instant) -> Tally {
    let mut tally = Tally::default();
    let mut sender = None;
    while Instant::now() < stop_at {
        if sender.is_none() {
            match connect(&t, http2).await {
                Ok(s) => sender = Some(s),
                Err(e) => {
                    tally.errors += 1;
                    tally.first_error.get_or_insert(e);
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            }
        }
        let Some(s) = sender.as_mut() else { continue };
        let started = Instant::now();
        let result = send(s, &t, "POST", &t.path, body.clone()).await;
        let elapsed = started.elapsed();
        let measuring = started >= warm_until;
        match result {
            Ok((status, bytes)) if answered(status, &bytes) => {
                if measuring {
                    tally
                        .latencies_us
                        .push(u32::try_from(elapsed.as_micros()).unwrap_or(u32::MAX));
                }
            }
            Ok((status, bytes)) => {
                if measuring {
                    tally.errors += 1;
                }
                tally
                    .first_error
                    .get_or_insert_with(|| format!("HTTP {status}: {}", String::from_utf8_lossy(&bytes)));
            }
            Err(e) => {
                if measuring {
                    tally.errors += 1;
                }
                tally.first_error.get_or_insert(e);
                sender = None;
            }
        }
    }
    tally
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * (sorted.len() as f64)).ceil() as usize;
    f64::from(sorted[rank.clamp(1, sorted.len()) - 1]) / 1000.0
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    let target = Arc::new(Target::parse(&args.url, args.ca.as_ref(), args.http2));
    let body = match (&args.body, &args.new) {
        (Some(p), _) => std::fs::read(p).expect("read --body"),
        (None, Some(new)) => review_from_files(args.old.as_ref(), new, &args.subresource).into_bytes(),
        (None, None) => generated_review(args.containers).into_bytes(),
    };
    let body = Bytes::from(body);
    if args.wait_ready {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let ok = match connect(&target, args.http2).await {
                Ok(mut s) => matches!(
                    send(&mut s, &target, "GET", "/readyz", Bytes::new()).await,
                    Ok((200, _))
                ),
                Err(_) => false,
            };
            if ok {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{} did not become ready within 60 s",
                args.url
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    if args.once {
        let mut s = connect(&target, args.http2).await.expect("connect");
        let (status, bytes) = send(&mut s, &target, "POST", &target.path, body)
            .await
            .expect("request");
        let text = String::from_utf8_lossy(&bytes);
        match serde_json::from_str::<Value>(&text) {
            Ok(v) => println!(
                "HTTP {status}\n{}",
                serde_json::to_string_pretty(&v).unwrap_or_default()
            ),
            Err(_) => println!("HTTP {status}\n{text}"),
        }
        return;
    }
    let start = Instant::now();
    let warm_until = start + args.warmup;
    let stop_at = warm_until + args.duration;
    let tasks: Vec<_> = (0..args.concurrency.max(1))
        .map(|_| {
            tokio::spawn(worker(
                target.clone(),
                args.http2,
                body.clone(),
                warm_until,
                stop_at,
            ))
        })
        .collect();
    let mut all = Tally::default();
    for t in tasks {
        let t = t.await.expect("worker");
        all.latencies_us.extend(t.latencies_us);
        all.errors += t.errors;
        if all.first_error.is_none() {
            all.first_error = t.first_error;
        }
    }
    all.latencies_us.sort_unstable();
    let n = all.latencies_us.len();
    let secs = args.duration.as_secs_f64();
    let result = json!({
        "label": args.label,
        "url": args.url,
        "protocol": if args.http2 { "h2" } else { "http/1.1" },
        "concurrency": args.concurrency,
        "durationSeconds": secs,
        "bodyBytes": body.len(),
        "requests": n,
        "errors": all.errors,
        "throughputPerSecond": (n as f64 / secs).round(),
        "p50Ms": percentile(&all.latencies_us, 50.0),
        "p90Ms": percentile(&all.latencies_us, 90.0),
        "p99Ms": percentile(&all.latencies_us, 99.0),
        "maxMs": percentile(&all.latencies_us, 100.0),
    });
    if args.json {
        println!("{result}");
    } else {
        println!(
            "{} {} c={} {:.0}s body={}B: {} req, {} errors, {:.0} req/s, p50 {:.3} ms, p90 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            if args.label.is_empty() {
                "load"
            } else {
                &args.label
            },
            args.url,
            args.concurrency,
            secs,
            body.len(),
            n,
            all.errors,
            n as f64 / secs,
            percentile(&all.latencies_us, 50.0),
            percentile(&all.latencies_us, 90.0),
            percentile(&all.latencies_us, 99.0),
            percentile(&all.latencies_us, 100.0),
        );
    }
    if let Some(e) = all.first_error {
        eprintln!("first error: {e}");
    }
}
