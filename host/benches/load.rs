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
//!
//! - `--rate R`: open loop instead: R requests per second on a fixed schedule spread over the
//!   connections; latency counts from each request's scheduled send time, so a server that falls
//!   behind shows in the percentiles (no coordinated omission); `sentLate` counts requests sent
//!   more than 1 ms after their slot (tokio's timer has 1 ms resolution, so a busy machine shows
//!   many), `notSent` the slots of the measured window never sent because every connection was
//!   still waiting for an answer: then the server's `/metrics` are the record.
//! - `--fault-share F --fault-kinds panic,loop`: that share of requests (evenly spread) carries a
//!   `podmut-misbehave-KIND` label, which makes the misbehaving test component (tests/misbehave)
//!   trap, spin past its deadline, ...; per class the report gives latency and every outcome. A
//!   fault request must be answered HTTP 200 + deny 500 `InternalError`, a good one with its
//!   verdict; anything else is an error.
//! - `--rss-pid PID [--sample-every 10s] [--samples-out FILE]`: sample the server's VmRSS over the
//!   measured window (soak), with the cumulative request and error counts at each sample.
//! - `--metrics-after`: report the server's `podmut_*` metrics after the run.
#![expect(
    clippy::expect_used,
    clippy::panic,
    reason = "a benchmark tool: failing loudly is fine"
)]

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
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
    /// Open loop: send this many requests per second in total, on a fixed schedule over the
    /// connections (latency counts from each request's scheduled time). Default: closed loop,
    /// every connection sends back to back.
    #[arg(long)]
    rate: Option<f64>,
    /// Share of requests (0..1) that carry a fault marker for the misbehaving test component
    /// (tests/misbehave): they must get HTTP 200 + deny 500 InternalError, the rest their verdict.
    #[arg(long, default_value_t = 0.0)]
    fault_share: f64,
    /// Fault kinds used in turn: panic, loop, oom, garbage (markers `podmut-misbehave-KIND`).
    #[arg(long, default_value = "panic")]
    fault_kinds: String,
    /// Sample this process's resident memory (VmRSS) during the measured window.
    #[arg(long)]
    rss_pid: Option<u32>,
    /// RSS sampling interval.
    #[arg(long, default_value = "10s", value_parser = parse_secs)]
    sample_every: Duration,
    /// Write the RSS samples (seconds, KiB, requests, errors; tab-separated) here.
    #[arg(long, requires = "rss_pid")]
    samples_out: Option<PathBuf>,
    /// After the run, fetch GET /metrics and report the podmut_* counters.
    #[arg(long)]
    metrics_after: bool,
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
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else {
        (t, 1.0)
    };
    n.parse::<f64>()
        .map(|v| Duration::from_secs_f64(v * mult))
        .map_err(|_| format!("{s:?} is not a duration (e.g. 10m, 10s, 500ms)"))
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

/// Which kind of request a ticket is: the plain review, or one carrying a fault marker.
#[derive(Clone)]
struct Mix {
    good: Bytes,
    /// `(marker, body)` per fault kind, used in turn.
    faults: Vec<(String, Bytes)>,
    share: f64,
}

impl Mix {
    /// Class index of ticket `i`: 0 = good, 1.. = `faults[k - 1]`. Exactly `share` of the tickets
    /// are faults, spread evenly (ticket i is a fault when floor((i+1)·share) > floor(i·share)).
    fn class(&self, i: u64) -> usize {
        if self.faults.is_empty() || self.share <= 0.0 {
            return 0;
        }
        let before = (i as f64 * self.share).floor();
        let after = ((i + 1) as f64 * self.share).floor();
        if after > before {
            1 + (before as usize) % self.faults.len()
        } else {
            0
        }
    }

    fn body(&self, class: usize) -> Bytes {
        match class {
            0 => self.good.clone(),
            k => self.faults[k - 1].1.clone(),
        }
    }

    fn names(&self) -> Vec<String> {
        std::iter::once("good".to_owned())
            .chain(self.faults.iter().map(|(m, _)| m.clone()))
            .collect()
    }
}

/// The review with `marker` as a label on the Pod (old and new, so it is no change): the
/// misbehaving test component (tests/misbehave) reacts to it; the real component ignores it.
fn with_marker(body: &[u8], marker: &str) -> Bytes {
    let mut v: Value = serde_json::from_slice(body).expect("--fault-share needs a JSON AdmissionReview body");
    for which in ["object", "oldObject"] {
        if let Some(meta) = v
            .pointer_mut(&format!("/request/{which}/metadata"))
            .and_then(Value::as_object_mut)
        {
            let labels = meta.entry("labels").or_insert_with(|| json!({}));
            if let Some(labels) = labels.as_object_mut() {
                labels.insert("podmut-fault".into(), json!(marker));
            }
        }
    }
    Bytes::from(v.to_string())
}

/// How one answer reads: `allowed`, `denied 422 Invalid`, `HTTP 503`, `transport: ...`.
fn outcome(status: u16, body: &[u8]) -> String {
    if status != 200 {
        return format!("HTTP {status}");
    }
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return "HTTP 200, not JSON".into();
    };
    match v.pointer("/response/allowed").and_then(Value::as_bool) {
        Some(true) => "allowed".into(),
        Some(false) => format!(
            "denied {} {}",
            v.pointer("/response/status/code")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            v.pointer("/response/status/reason")
                .and_then(Value::as_str)
                .unwrap_or("-")
        ),
        None => "HTTP 200, no response.allowed".into(),
    }
}

/// Whether `outcome` is what this class should get. Good requests: any verdict of the policy
/// (allowed, or a deny that is not a failure response); fault requests: the documented failure
/// response, HTTP 200 + deny 500 InternalError.
fn expected(class: usize, outcome: &str) -> bool {
    if class == 0 {
        outcome == "allowed"
            || (outcome.starts_with("denied ")
                && !outcome.starts_with("denied 500")
                && !outcome.starts_with("denied 429"))
    } else {
        outcome == "denied 500 InternalError"
    }
}

#[derive(Default)]
struct Tally {
    /// Per class: latencies of expected answers.
    latencies_us: Vec<Vec<u32>>,
    /// Per class: outcome → count (measured window only).
    outcomes: Vec<std::collections::BTreeMap<String, u64>>,
    errors: u64,
    first_error: Option<String>,
    /// Open loop: requests sent more than 1 ms after their scheduled time.
    late: u64,
}

impl Tally {
    fn new(classes: usize) -> Self {
        Self {
            latencies_us: vec![Vec::new(); classes],
            outcomes: vec![Default::default(); classes],
            ..Self::default()
        }
    }

    fn merge(&mut self, other: Self) {
        for (a, b) in self.latencies_us.iter_mut().zip(other.latencies_us) {
            a.extend(b);
        }
        for (a, b) in self.outcomes.iter_mut().zip(other.outcomes) {
            for (k, n) in b {
                *a.entry(k).or_default() += n;
            }
        }
        self.errors += other.errors;
        self.late += other.late;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }
}

/// Counters the RSS sampler reads while the run goes on.
#[derive(Default)]
struct Live {
    done: AtomicU64,
    errors: AtomicU64,
}

struct Plan {
    target: Arc<Target>,
    http2: bool,
    mix: Mix,
    warm_until: Instant,
    stop_at: Instant,
    /// Open loop: requests per second over all connections.
    rate: Option<f64>,
    start: Instant,
    tickets: AtomicU64,
    live: Live,
}

async fn worker(plan: Arc<Plan>) -> Tally {
    let classes = plan.mix.faults.len() + 1;
    let mut tally = Tally::new(classes);
    let mut sender = None;
    loop {
        let ticket = plan.tickets.fetch_add(1, Ordering::Relaxed);
        // Open loop: the ticket's slot on the schedule; latency counts from it, so a server that
        // falls behind shows up in the percentiles (no coordinated omission).
        let scheduled = match plan.rate {
            Some(r) => plan.start + Duration::from_secs_f64(ticket as f64 / r),
            None => Instant::now(),
        };
        if scheduled >= plan.stop_at || Instant::now() >= plan.stop_at {
            break;
        }
        tokio::time::sleep_until(scheduled.into()).await;
        let measuring = scheduled >= plan.warm_until;
        if plan.rate.is_some() && measuring && scheduled.elapsed() > Duration::from_millis(1) {
            tally.late += 1;
        }
        let class = plan.mix.class(ticket);
        if sender.is_none() {
            match connect(&plan.target, plan.http2).await {
                Ok(s) => sender = Some(s),
                Err(e) => {
                    if measuring {
                        tally.errors += 1;
                        plan.live.errors.fetch_add(1, Ordering::Relaxed);
                        *tally.outcomes[class].entry(format!("connect: {e}")).or_default() += 1;
                    }
                    tally.first_error.get_or_insert(e);
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            }
        }
        let Some(s) = sender.as_mut() else { continue };
        let result = send(s, &plan.target, "POST", &plan.target.path, plan.mix.body(class)).await;
        let elapsed = scheduled.elapsed();
        let got = match &result {
            Ok((status, bytes)) => outcome(*status, bytes),
            Err(e) => format!("transport: {e}"),
        };
        let ok = expected(class, &got);
        if result.is_err() {
            sender = None;
        }
        if !ok {
            let detail = match &result {
                Ok((status, bytes)) => format!("HTTP {status}: {}", String::from_utf8_lossy(bytes)),
                Err(e) => e.clone(),
            };
            tally.first_error.get_or_insert(detail);
        }
        if measuring {
            plan.live.done.fetch_add(1, Ordering::Relaxed);
            *tally.outcomes[class].entry(got).or_default() += 1;
            if ok {
                tally.latencies_us[class].push(u32::try_from(elapsed.as_micros()).unwrap_or(u32::MAX));
            } else {
                tally.errors += 1;
                plan.live.errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    tally
}

/// `VmRSS` of a process in KiB, from /proc/PID/status.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Every `every`: one line `seconds rss_kib requests errors` (cumulative, measured window) to
/// `out` and to the returned samples, until `stop_at`.
async fn sample_rss(
    plan: Arc<Plan>,
    pid: u32,
    every: Duration,
    out: Option<PathBuf>,
) -> Vec<(f64, u64, u64, u64)> {
    use std::io::Write as _;
    let mut file = out.map(|p| {
        let mut f = std::fs::File::create(&p).unwrap_or_else(|e| panic!("create {}: {e}", p.display()));
        writeln!(
            f,
            "# seconds\trss_kib\trequests\terrors\t(pid {pid}, every {every:?})"
        )
        .expect("write samples");
        f
    });
    let mut samples = Vec::new();
    let mut next = plan.warm_until;
    loop {
        tokio::time::sleep_until(next.into()).await;
        let Some(rss) = rss_kib(pid) else {
            eprintln!("load: process {pid} is gone");
            break;
        };
        let row = (
            next.duration_since(plan.warm_until).as_secs_f64(),
            rss,
            plan.live.done.load(Ordering::Relaxed),
            plan.live.errors.load(Ordering::Relaxed),
        );
        if let Some(f) = file.as_mut() {
            writeln!(f, "{:.0}\t{}\t{}\t{}", row.0, row.1, row.2, row.3).expect("write samples");
        }
        samples.push(row);
        if next >= plan.stop_at {
            break;
        }
        next = (next + every).min(plan.stop_at);
    }
    samples
}

/// The `podmut_*` lines of GET /metrics, without histogram buckets.
async fn metrics(target: &Target, http2: bool) -> Result<Vec<String>, String> {
    let mut s = connect(target, http2).await?;
    let (status, body) = send(&mut s, target, "GET", "/metrics", Bytes::new()).await?;
    if status != 200 {
        return Err(format!("GET /metrics: HTTP {status}"));
    }
    Ok(String::from_utf8_lossy(&body)
        .lines()
        .filter(|l| l.starts_with("podmut_") && !l.contains("_bucket{"))
        .map(str::to_owned)
        .collect())
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * (sorted.len() as f64)).ceil() as usize;
    f64::from(sorted[rank.clamp(1, sorted.len()) - 1]) / 1000.0
}

/// Percentiles (ms) of one class's latencies.
fn stats(lat: &mut [u32], secs: f64) -> Value {
    lat.sort_unstable();
    json!({
        "requests": lat.len(),
        "throughputPerSecond": (lat.len() as f64 / secs).round(),
        "p50Ms": percentile(lat, 50.0),
        "p90Ms": percentile(lat, 90.0),
        "p99Ms": percentile(lat, 99.0),
        "maxMs": percentile(lat, 100.0),
    })
}

/// The request mix: the good review and, with `--fault-share`, the misbehaving ones.
fn build_mix(args: &Args) -> Mix {
    let body = match (&args.body, &args.new) {
        (Some(p), _) => std::fs::read(p).expect("read --body"),
        (None, Some(new)) => review_from_files(args.old.as_ref(), new, &args.subresource).into_bytes(),
        (None, None) => generated_review(args.containers).into_bytes(),
    };
    let faults: Vec<(String, Bytes)> = if args.fault_share > 0.0 {
        args.fault_kinds
            .split(',')
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .map(|k| {
                let marker = if k.starts_with("podmut-misbehave-") {
                    k.to_owned()
                } else {
                    format!("podmut-misbehave-{k}")
                };
                let b = with_marker(&body, &marker);
                (marker, b)
            })
            .collect()
    } else {
        Vec::new()
    };
    Mix {
        good: Bytes::from(body),
        faults,
        share: args.fault_share.clamp(0.0, 1.0),
    }
}

/// Wait (at most 60 s) until the server answers `GET /readyz` with 200.
async fn wait_ready(target: &Target, args: &Args) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ok = match connect(target, args.http2).await {
            Ok(mut s) => matches!(
                send(&mut s, target, "GET", "/readyz", Bytes::new()).await,
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

/// `--once`: send one request and print the answer.
async fn run_once(target: &Target, args: &Args, mix: &Mix) {
    let mut s = connect(target, args.http2).await.expect("connect");
    let (status, bytes) = send(&mut s, target, "POST", &target.path, mix.body(mix.class(0)))
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
}

/// The text summary of a run.
fn print_text(
    args: &Args,
    result: &Value,
    all: &Tally,
    mix: &Mix,
    classes: &serde_json::Map<String, Value>,
    not_sent: Option<u64>,
) {
    let secs = args.duration.as_secs_f64();
    let total = result["answered"].as_u64().unwrap_or_default();
    let label = if args.label.is_empty() {
        "load"
    } else {
        &args.label
    };
    let mode = match args.rate {
        Some(r) => format!("rate={r}/s c={}", args.concurrency),
        None => format!("c={}", args.concurrency),
    };
    println!(
        "{label} {} {mode} {secs:.0}s body={}B: {total} answered, {} errors, {} req/s, p50 {} ms, p90 {} ms, p99 {} ms, max {} ms{}",
        args.url,
        mix.good.len(),
        all.errors,
        result["throughputPerSecond"],
        result["p50Ms"],
        result["p90Ms"],
        result["p99Ms"],
        result["maxMs"],
        if args.rate.is_some() {
            format!(
                ", {} sent >1 ms late, {} never sent (connections busy)",
                all.late,
                not_sent.unwrap_or(0)
            )
        } else {
            String::new()
        }
    );
    if !mix.faults.is_empty() {
        for (name, c) in classes {
            println!(
                "  {name:<26} {} ok ({} /s), p50 {} ms, p99 {} ms, max {} ms; outcomes {}",
                c["requests"], c["throughputPerSecond"], c["p50Ms"], c["p99Ms"], c["maxMs"], c["outcomes"]
            );
        }
    }
    if let Some(r) = result.get("rssKib") {
        println!(
            "  RSS (KiB) every {}s, {} samples: first {}, last {}, min {}, max {}",
            r["everySeconds"], r["samples"], r["first"], r["last"], r["min"], r["max"]
        );
    }
    if let Some(Value::Array(lines)) = result.get("metrics") {
        for l in lines {
            println!("  {}", l.as_str().unwrap_or_default());
        }
    }
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    let target = Arc::new(Target::parse(&args.url, args.ca.as_ref(), args.http2));
    let mix = build_mix(&args);
    if args.wait_ready {
        wait_ready(&target, &args).await;
    }
    if args.once {
        run_once(&target, &args, &mix).await;
        return;
    }
    let start = Instant::now();
    let warm_until = start + args.warmup;
    let stop_at = warm_until + args.duration;
    let plan = Arc::new(Plan {
        target: target.clone(),
        http2: args.http2,
        mix: mix.clone(),
        warm_until,
        stop_at,
        rate: args.rate.filter(|r| *r > 0.0),
        start,
        tickets: AtomicU64::new(0),
        live: Live::default(),
    });
    let sampler = args.rss_pid.map(|pid| {
        tokio::spawn(sample_rss(
            plan.clone(),
            pid,
            args.sample_every,
            args.samples_out.clone(),
        ))
    });
    let tasks: Vec<_> = (0..args.concurrency.max(1))
        .map(|_| tokio::spawn(worker(plan.clone())))
        .collect();
    let mut all = Tally::new(mix.faults.len() + 1);
    for t in tasks {
        all.merge(t.await.expect("worker"));
    }
    let samples = match sampler {
        Some(s) => s.await.expect("sampler"),
        None => Vec::new(),
    };
    let secs = args.duration.as_secs_f64();
    let names = mix.names();
    let total: u64 = all.outcomes.iter().flat_map(|m| m.values()).sum();
    let mut classes = serde_json::Map::new();
    for (i, name) in names.iter().enumerate() {
        let mut st = stats(&mut all.latencies_us[i], secs);
        st["outcomes"] = json!(all.outcomes[i]);
        classes.insert(name.clone(), st);
    }
    let mut overall: Vec<u32> = all.latencies_us.iter().flatten().copied().collect();
    let mut result = json!({
        "label": args.label,
        "url": args.url,
        "protocol": if args.http2 { "h2" } else { "http/1.1" },
        "concurrency": args.concurrency,
        "rate": args.rate,
        "durationSeconds": secs,
        "bodyBytes": mix.good.len(),
        "answered": total,
        "errors": all.errors,
        "sentLate": all.late,
    });
    // Open loop: requests whose slot fell in the measured window but that were never sent
    // because every connection was still busy when the run ended.
    let not_sent = args
        .rate
        .map(|r| ((r * secs).floor() as u64).saturating_sub(total));
    if let Some(n) = not_sent {
        result["notSent"] = json!(n);
    }
    if let (Some(r), Value::Object(o)) = (stats(&mut overall, secs).as_object(), &mut result) {
        for (k, v) in r {
            o.insert(k.clone(), v.clone());
        }
    }
    if mix.faults.is_empty() {
        result["outcomes"] = json!(all.outcomes[0]);
    } else {
        result["faultShare"] = json!(mix.share);
        result["classes"] = Value::Object(classes.clone());
    }
    if !samples.is_empty() {
        let rss: Vec<u64> = samples.iter().map(|s| s.1).collect();
        result["rssKib"] = json!({
            "samples": rss.len(),
            "first": rss.first(),
            "last": rss.last(),
            "min": rss.iter().min(),
            "max": rss.iter().max(),
            "everySeconds": args.sample_every.as_secs_f64(),
        });
    }
    if args.metrics_after {
        match metrics(&target, args.http2).await {
            Ok(lines) => result["metrics"] = json!(lines),
            Err(e) => eprintln!("load: {e}"),
        }
    }
    if args.json {
        println!("{result}");
    } else {
        print_text(&args, &result, &all, &mix, &classes, not_sent);
    }
    if let Some(e) = all.first_error {
        eprintln!("first unexpected answer: {e}");
    }
}
