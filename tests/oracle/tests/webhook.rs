//! podmut's webhook called by a real API server (`cargo xtask oracle test`; CI).
//!
//! Each case starts a control plane (audit log on) and `podmut serve`, registers the shipped
//! ValidatingWebhookConfiguration for Pod creates and updates on pods and its
//! `ephemeralcontainers`, `resize` and `status` subresources (`failurePolicy: Fail`), and drives
//! the API server with kubectl and with generated changes:
//!
//! - `webhook/admits-what-the-server-admits`: everyday kubectl commands and generated changes on
//!   every path; nothing the server admits is denied by podmut on its default settings, and podmut
//!   adds no warning of its own;
//! - `webhook/warn-and-audit`: `enforcement: warn` reaches kubectl as `Warning:` lines; `audit`
//!   only as the audit annotation `pod-changes.podmut.io/would-deny`;
//! - `webhook/fails-closed`: with podmut down, writes are refused; back up, admitted;
//! - `webhook/certificate-rotation`: the serving certificate replaced on disk while the API server
//!   keeps calling: no call fails;
//! - `webhook/load`: concurrent writes through the API server, none lost (podmut's counter equals
//!   the writes sent).
//!
//! Without the control-plane binaries (`cargo xtask oracle build`), the podmut binary or kubectl,
//! the cases are reported as ignored, or fail under `PODMUT_REQUIRE_ORACLE=1` (CI;
//! [`podmut_oracle::prerequisite`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use libtest_mimic::{Arguments, Failed};
use podmut_oracle::api::{Api, PodPath};
use podmut_oracle::batch::NODE;
use podmut_oracle::certs::Certs;
use podmut_oracle::control_plane::{self, Config, ControlPlane};
use podmut_oracle::prerequisite::Prerequisites;
use podmut_oracle::webhook::{Serve, ServeOptions, kubectl, register, webhook_configuration};
use podmut_oracle::{Pins, exchange, generate, runtime};
use serde_json::{Value, json};

type Case = fn() -> Result<(), String>;

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let missing = Pins::load()
        .map_err(|e| e.to_string())
        .and_then(|p| {
            let release = podmut_oracle::fixtures::claimed(&p)
                .into_iter()
                .max()
                .ok_or("podmut claims none of the pinned releases")?;
            control_plane::binaries(release)
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
        .and_then(|()| {
            podmut_oracle::webhook::podmut_binary()
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
        .and_then(|()| {
            podmut_oracle::webhook::kubectl_binary()
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
        .err();
    let cases: [(&str, Case); 5] = [
        (
            "webhook/admits-what-the-server-admits",
            admits_what_the_server_admits,
        ),
        ("webhook/warn-and-audit", warn_and_audit),
        ("webhook/fails-closed", fails_closed),
        ("webhook/certificate-rotation", certificate_rotation),
        ("webhook/load", load),
    ];
    let needs = Prerequisites::new(missing);
    let trials = cases
        .into_iter()
        .map(|(name, f)| needs.trial(name, "", move || f().map_err(Failed::from)))
        .collect();
    libtest_mimic::run(&args, trials).exit_code()
}

/// A control plane with podmut registered in front of it.
struct Rig {
    plane: ControlPlane,
    api: Api,
    certs: Certs,
    dir: tempfile::TempDir,
    tls: (std::path::PathBuf, std::path::PathBuf),
    ns: String,
}

fn e(x: impl std::fmt::Display) -> String {
    x.to_string()
}

impl Rig {
    /// A control plane of the newest pinned release podmut claims, the one its default settings
    /// follow (audit log on), a namespace with its ServiceAccount, the Node, and TLS material for
    /// podmut signed by a fresh CA.
    fn new() -> Result<Self, String> {
        let pins = Pins::load().map_err(e)?;
        let release = podmut_oracle::fixtures::claimed(&pins)
            .into_iter()
            .max()
            .ok_or("podmut claims none of the pinned releases")?;
        let mut config = Config::stock(release);
        config.audit = true;
        let plane = runtime().block_on(ControlPlane::start(&config)).map_err(e)?;
        let api = runtime().block_on(plane.client()).map_err(e)?;
        let ns = exchange::fresh_namespace();
        runtime().block_on(api.create_namespace(&ns)).map_err(e)?;
        runtime().block_on(api.ensure_node(NODE)).map_err(e)?;
        let certs = Certs::generate().map_err(e)?;
        let dir = tempfile::tempdir().map_err(e)?;
        let tls = (dir.path().join("tls.crt"), dir.path().join("tls.key"));
        let rig = Self {
            plane,
            api,
            certs,
            dir,
            tls,
            ns,
        };
        rig.write_serving_cert()?;
        Ok(rig)
    }

    /// A new serving certificate for podmut, from the same CA, written over the files.
    fn write_serving_cert(&self) -> Result<(), String> {
        let (cert, key) = self.certs.serving_cert().map_err(e)?;
        // Key first, then the certificate: podmut keeps the old pair until both files match.
        std::fs::write(&self.tls.1, key).map_err(e)?;
        std::fs::write(&self.tls.0, cert).map_err(e)
    }

    /// `podmut serve` with these settings, on `port` (0: any).
    fn serve(&self, settings: Option<&str>, port: u16) -> Result<Serve, String> {
        Serve::start(&ServeOptions {
            tls: self.tls.clone(),
            settings: settings.map(str::to_owned),
            dir: self.dir.path().to_path_buf(),
            port,
        })
        .map_err(e)
    }

    /// Register podmut at `serve` for creates and updates of pods, `pods/ephemeralcontainers`,
    /// `pods/resize` and `pods/status`, and wait until the API server calls it.
    fn register(&self, serve: &Serve) -> Result<(), String> {
        let url = format!("https://{}/validate", serve.addr);
        let config =
            webhook_configuration(&url, &self.certs.ca_pem, &["CREATE"], &["pods/status"]).map_err(e)?;
        runtime().block_on(register(&self.api, &config)).map_err(e)?;
        // The API server picks a new configuration up within a second or so: send dry-run
        // creates until podmut counts one.
        let deadline = Instant::now() + Duration::from_secs(30);
        let before = serve.requests(&[]).map_err(e)?;
        loop {
            let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe", "namespace": self.ns},
                "spec": {"containers": [{"name": "c", "image": "busybox"}]}});
            runtime()
                .block_on(self.api.dry_run(&self.ns, "probe", PodPath::Create, &pod, ""))
                .map_err(e)?;
            if serve.requests(&[]).map_err(e)? > before {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err("the API server did not call podmut within 30s of registering it".into());
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn kubectl(&self, args: &[&str], stdin: Option<&str>) -> Result<podmut_oracle::webhook::Kubectl, String> {
        let mut all = vec!["-n", self.ns.as_str()];
        all.extend_from_slice(args);
        kubectl(&self.plane, &all, stdin).map_err(e)
    }

    /// `kubectl ...` that must succeed without warnings.
    fn kubectl_ok(&self, args: &[&str], stdin: Option<&str>) -> Result<(), String> {
        let out = self.kubectl(args, stdin)?;
        if !out.ok {
            return Err(format!("kubectl {}: failed:\n{}", args.join(" "), out.stderr));
        }
        if !out.warnings().is_empty() {
            return Err(format!(
                "kubectl {}: unexpected warnings:\n{}",
                args.join(" "),
                out.stderr
            ));
        }
        Ok(())
    }
}

const WEB: &str = "apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  nodeName: oracle-node
  containers:
  - name: nginx
    image: nginx:1.27
    resources:
      requests: {cpu: 100m, memory: 128Mi}
      limits: {cpu: 200m, memory: 256Mi}
";

fn admits_what_the_server_admits() -> Result<(), String> {
    let rig = Rig::new()?;
    let serve = rig.serve(None, 0)?;
    rig.register(&serve)?;
    rig.kubectl_ok(&["apply", "-f", "-"], Some(WEB))?;
    // What a kubelet would report, so that resize is supported (running, with resources).
    rig.kubectl_ok(
        &["patch", "pod", "web", "--subresource", "status", "--type", "merge", "-p",
          r#"{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}],"containerStatuses":[{"name":"nginx","image":"nginx:1.27","imageID":"","ready":true,"restartCount":0,"state":{"running":{}},"resources":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"200m","memory":"256Mi"}}}]}}"#],
        None,
    )?;
    rig.kubectl_ok(&["set", "image", "pod/web", "nginx=nginx:1.28"], None)?;
    rig.kubectl_ok(&["label", "pod", "web", "tier=frontend"], None)?;
    rig.kubectl_ok(&["annotate", "pod", "web", "example.com/owner=team-a"], None)?;
    rig.kubectl_ok(
        &[
            "debug",
            "web",
            "--image=busybox:1.36",
            "--profile=general",
            "-c",
            "debugger",
            "--",
            "sleep",
            "3600",
        ],
        None,
    )?;
    rig.kubectl_ok(
        &["patch", "pod", "web", "--subresource", "resize", "-p",
          r#"{"spec":{"containers":[{"name":"nginx","resources":{"requests":{"cpu":"150m"},"limits":{"cpu":"300m"}}}]}}"#],
        None,
    )?;
    // Every write above reached podmut on its path: the create (apply), the image, label and
    // annotation updates, the status patch, the ephemeral container and the resize.
    let expected = [
        ("none", 4),
        ("status", 1),
        ("ephemeralcontainers", 1),
        ("resize", 1),
    ];
    let mut missing = Vec::new();
    for (sub, want) in expected {
        let label = format!("subresource=\"{sub}\"");
        let got = serve.requests(&[&label, "dry_run=\"false\""]).map_err(e)?;
        if got < want {
            missing.push(format!("{sub}: {got} of {want}"));
        }
    }
    if !missing.is_empty() {
        return Err(format!(
            "the API server did not call podmut for every write: {}",
            missing.join(", ")
        ));
    }
    // Generated changes on every path: whatever the server admits, podmut admitted.
    let bases = generate::bases().map_err(e)?;
    let mut denied_by_podmut = Vec::new();
    for path in PodPath::ALL {
        let ns = exchange::fresh_namespace();
        runtime().block_on(rig.api.create_namespace(&ns)).map_err(e)?;
        let mut starts = Vec::new();
        for b in &bases {
            let b = exchange::in_namespace(b, &ns);
            let start = if path == PodPath::Create {
                generate::create_form(&b)
            } else {
                runtime()
                    .block_on(exchange::create_old(&rig.api, &ns, &b))
                    .map_err(e)?
                    .map_err(|r| format!("base: {}", podmut_oracle::fixtures::refusal(&r)))?
            };
            starts.push(start);
        }
        for i in 0..60u64 {
            let start = &starts[usize::try_from(i).unwrap_or(0) % starts.len()];
            let g = generate::generate(path, 11, i, start);
            let name = start
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let reply = runtime()
                .block_on(rig.api.dry_run(&ns, name, path, &g.doc, "fieldValidation=Ignore"))
                .map_err(e)?;
            let message = reply
                .body
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if message.contains("admission webhook \"pod-changes.podmut.io\" denied") {
                denied_by_podmut.push(format!("{} {i} {:?}: {message}", path.name(), g.mutations));
            }
            if reply.warnings.iter().any(|w| w.contains("podmut")) {
                denied_by_podmut.push(format!(
                    "{} {i} {:?}: warned {:?}",
                    path.name(),
                    g.mutations,
                    reply.warnings
                ));
            }
        }
    }
    if denied_by_podmut.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the server admitted what podmut refused or warned about:\n{}",
            denied_by_podmut.join("\n")
        ))
    }
}

const PRIVILEGED: &str = "apiVersion: v1
kind: Pod
metadata: {name: NAME}
spec:
  containers:
  - name: tool
    image: busybox:1.36
    securityContext: {privileged: true}
";

fn warn_and_audit() -> Result<(), String> {
    let rig = Rig::new()?;
    // podmut told the cluster forbids privileged containers; this API server allows them.
    let serve = rig.serve(Some("enforcement: warn\nallowPrivileged: false\n"), 0)?;
    rig.register(&serve)?;
    let out = rig.kubectl(&["apply", "-f", "-"], Some(&PRIVILEGED.replace("NAME", "warned")))?;
    if !out.ok {
        return Err(format!("warn mode refused the write:\n{}", out.stderr));
    }
    let warned = out.warnings();
    if !warned
        .iter()
        .any(|w| w.contains("podmut would deny") && w.contains("privileged"))
    {
        return Err(format!("no podmut warning reached kubectl:\n{}", out.stderr));
    }
    let port = serve.port();
    serve.kill();
    let serve = rig.serve(Some("enforcement: audit\nallowPrivileged: false\n"), port)?;
    let out = rig.kubectl(
        &["apply", "-f", "-"],
        Some(&PRIVILEGED.replace("NAME", "audited")),
    )?;
    if !out.ok || !out.warnings().is_empty() {
        return Err(format!("audit mode must admit without warnings:\n{}", out.stderr));
    }
    let key = "pod-changes.podmut.io/would-deny";
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let events = rig.plane.audit_events();
        let annotated = |name: &str| {
            events.iter().any(|ev| {
                ev.pointer("/objectRef/name").and_then(Value::as_str) == Some(name)
                    && ev.pointer("/annotations").and_then(|a| a.get(key)).is_some()
            })
        };
        if annotated("audited") && annotated("warned") {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!(
                "no audit event carries {key} for both writes ({} events)",
                events.len()
            ));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let would = serve.requests(&["verdict=\"would-deny\""]).map_err(e)?;
    if would == 0 {
        return Err("podmut counted no would-deny".into());
    }
    Ok(())
}

fn fails_closed() -> Result<(), String> {
    let rig = Rig::new()?;
    let serve = rig.serve(None, 0)?;
    rig.register(&serve)?;
    rig.kubectl_ok(&["apply", "-f", "-"], Some(WEB))?;
    let port = serve.port();
    serve.kill();
    let out = rig.kubectl(&["label", "pod", "web", "down=yes"], None)?;
    if out.ok || !out.stderr.contains("failed calling webhook") {
        return Err(format!(
            "with podmut down the write must be refused (failurePolicy Fail):\n{}{}",
            out.stdout, out.stderr
        ));
    }
    let _serve = rig.serve(None, port)?;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let out = rig.kubectl(&["label", "pod", "web", "down=no", "--overwrite"], None)?;
        if out.ok {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!(
                "podmut back up, the write is still refused:\n{}",
                out.stderr
            ));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Dry-run label updates of `web` through the API server: (sent, failures).
async fn label_writes(api: &Api, ns: &str, count: usize, parallel: usize) -> (usize, Vec<String>) {
    let mut set = tokio::task::JoinSet::new();
    let mut sent = 0;
    let mut failures = Vec::new();
    while sent < count || !set.is_empty() {
        while sent < count && set.len() < parallel {
            let api = api.clone();
            let ns = ns.to_owned();
            let i = sent;
            set.spawn(async move {
                let patch = json!({"metadata": {"labels": {"run": format!("r{i}")}}});
                api.send(
                    http::Method::PATCH,
                    &format!("/api/v1/namespaces/{ns}/pods/web?dryRun=All"),
                    Some(&patch),
                    "application/merge-patch+json",
                )
                .await
            });
            sent += 1;
        }
        match set.join_next().await {
            Some(Ok(Ok(r))) if r.ok() => {}
            Some(Ok(Ok(r))) => failures.push(format!("HTTP {}: {}", r.code, r.body)),
            Some(Ok(Err(err))) => failures.push(err.to_string()),
            Some(Err(err)) => failures.push(err.to_string()),
            None => break,
        }
    }
    (sent, failures)
}

/// Set on drop: a case that ends early stops its background writes.
#[derive(Default)]
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Poll `probe` until it says yes, for at most `timeout`.
fn until(
    timeout: Duration,
    what: &str,
    mut probe: impl FnMut() -> Result<bool, String>,
) -> Result<(), String> {
    let deadline = Instant::now() + timeout;
    while !probe()? {
        if Instant::now() > deadline {
            return Err(format!("waited {}s for this: {what}", timeout.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

fn certificate_rotation() -> Result<(), String> {
    let rig = Rig::new()?;
    let serve = rig.serve(None, 0)?;
    rig.register(&serve)?;
    rig.kubectl_ok(&["apply", "-f", "-"], Some(WEB))?;
    let counted = || serve.requests(&["dry_run=\"true\""]).map_err(e);
    let before = counted()?;
    // Writes keep going until the rotation is over.
    let stop = StopOnDrop::default();
    let writes = {
        let (api, ns, stop) = (rig.api.clone(), rig.ns.clone(), stop.0.clone());
        runtime().spawn(async move {
            let (mut sent, mut failures) = (0, Vec::new());
            while !stop.load(Ordering::Relaxed) {
                let (n, f) = label_writes(&api, &ns, 20, 4).await;
                sent += n;
                failures.extend(f);
            }
            (sent, failures)
        })
    };
    until(Duration::from_secs(30), "podmut answers the first writes", || {
        Ok(counted()? > before)
    })?;
    rig.write_serving_cert()?;
    until(Duration::from_secs(10), "podmut reloads the certificate", || {
        Ok(serve.log().contains("TLS certificate reloaded"))
    })?;
    let reloaded = counted()?;
    until(
        Duration::from_secs(30),
        "writes answered after the reload",
        || Ok(counted()? >= reloaded + 20),
    )?;
    stop.0.store(true, Ordering::Relaxed);
    let (sent, failures) = runtime().block_on(writes).map_err(e)?;
    // After the reload, the API server's new connections get the new certificate.
    let (after_sent, after_failures) = runtime().block_on(label_writes(&rig.api, &rig.ns, 50, 4));
    if !failures.is_empty() || !after_failures.is_empty() {
        return Err(format!(
            "writes failed across the rotation: {failures:?} {after_failures:?}"
        ));
    }
    let answered = counted()? - before;
    let total = (sent + after_sent) as u64;
    if answered < total {
        return Err(format!("{total} writes, podmut counted {answered}"));
    }
    Ok(())
}

fn load() -> Result<(), String> {
    let rig = Rig::new()?;
    let serve = rig.serve(None, 0)?;
    rig.register(&serve)?;
    rig.kubectl_ok(&["apply", "-f", "-"], Some(WEB))?;
    let before = serve.requests(&["dry_run=\"true\""]).map_err(e)?;
    let (sent, failures) = runtime().block_on(label_writes(&rig.api, &rig.ns, 2000, 16));
    if !failures.is_empty() {
        return Err(format!(
            "{} of {sent} writes failed, first: {}",
            failures.len(),
            failures[0]
        ));
    }
    let counted = serve.requests(&["dry_run=\"true\""]).map_err(e)? - before;
    if counted != sent as u64 {
        return Err(format!(
            "{sent} writes through the API server, podmut answered {counted}"
        ));
    }
    Ok(())
}
