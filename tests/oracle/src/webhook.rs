//! podmut's webhook behind a real API server: `podmut serve` started on loopback, registered with
//! the shipped ValidatingWebhookConfiguration (`policies/deploy/webhook.yaml`, its client config
//! pointed at the local URL), and kubectl driving the API server as a user would.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use http::Method;
use serde_json::{Value, json};

use crate::OracleError;
use crate::api::{Api, http_plain};
use crate::control_plane::ControlPlane;
use crate::process::{Process, free_port};

/// The `podmut` binary: `$PODMUT_BIN`, else the one built beside this test executable
/// (`target/<triple>/release/podmut` for `target/<triple>/release/deps/<test>`).
pub fn podmut_binary() -> Result<PathBuf, OracleError> {
    if let Some(b) = std::env::var_os("PODMUT_BIN").filter(|b| !b.is_empty()) {
        return Ok(PathBuf::from(b));
    }
    let exe = std::env::current_exe()
        .map_err(|e| OracleError::Start(format!("cannot find this executable: {e}")))?;
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .map(|d| d.join("podmut"))
        .filter(|b| b.is_file())
        .ok_or_else(|| OracleError::Start("no podmut binary beside this test (set PODMUT_BIN)".into()))?;
    Ok(bin)
}

/// `kubectl`: `$KUBECTL`, else the one on `PATH`, else the one `cargo xtask oracle build` builds
/// on a machine without one (`kubectl-v1.37.2` beside the API servers).
pub fn kubectl_binary() -> Result<PathBuf, OracleError> {
    let runs = |k: &Path| {
        Command::new(k)
            .args(["version", "--client"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if let Some(k) = std::env::var_os("KUBECTL").filter(|b| !b.is_empty()) {
        let k = PathBuf::from(k);
        return if runs(&k) {
            Ok(k)
        } else {
            Err(OracleError::Start(format!(
                "$KUBECTL {} does not run",
                k.display()
            )))
        };
    }
    let on_path = PathBuf::from("kubectl");
    if runs(&on_path) {
        return Ok(on_path);
    }
    let built = crate::releases::Pins::load()
        .ok()
        .map(|p| {
            crate::releases::cache_dir()
                .join("bin")
                .join(format!("kubectl-{}", p.newest()))
        })
        .filter(|k| runs(k));
    built.ok_or_else(|| {
        OracleError::Start(
            "no kubectl runs: none on PATH, none built by `cargo xtask oracle build` (set KUBECTL)".into(),
        )
    })
}

/// What a kubectl command printed.
#[derive(Clone, Debug)]
pub struct Kubectl {
    /// Exit status 0.
    pub ok: bool,
    /// Its stdout.
    pub stdout: String,
    /// Its stderr (where kubectl prints `Warning:` lines and errors).
    pub stderr: String,
}

impl Kubectl {
    /// The `Warning:` lines kubectl printed.
    pub fn warnings(&self) -> Vec<&str> {
        self.stderr
            .lines()
            .filter(|l| l.starts_with("Warning:"))
            .collect()
    }
}

/// Run kubectl against a control plane (its administrator kubeconfig), `stdin` piped in.
pub fn kubectl(plane: &ControlPlane, args: &[&str], stdin: Option<&str>) -> Result<Kubectl, OracleError> {
    use std::io::Write as _;
    let mut c = Command::new(kubectl_binary()?);
    c.arg("--kubeconfig").arg(&plane.kubeconfig).args(args);
    c.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c
        .spawn()
        .map_err(|e| OracleError::Start(format!("kubectl: {e}")))?;
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(stdin.unwrap_or_default().as_bytes());
    }
    let out = child
        .wait_with_output()
        .map_err(|e| OracleError::Start(format!("kubectl: {e}")))?;
    Ok(Kubectl {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// A running `podmut serve`.
#[derive(Debug)]
pub struct Serve {
    process: Process,
    /// `127.0.0.1:<port>` of the HTTPS webhook.
    pub addr: String,
    /// `127.0.0.1:<port>` of the plain-HTTP probes and metrics.
    pub probe: String,
    log: PathBuf,
}

/// How to start `podmut serve`.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The serving certificate chain and key files.
    pub tls: (PathBuf, PathBuf),
    /// A settings document (YAML), if any.
    pub settings: Option<String>,
    /// Where its files and log go.
    pub dir: PathBuf,
    /// The port (0: a free one).
    pub port: u16,
}

impl Serve {
    /// Start it and wait until `/readyz` answers 200.
    pub fn start(options: &ServeOptions) -> Result<Self, OracleError> {
        let port = if options.port == 0 {
            free_port()?
        } else {
            options.port
        };
        let probe_port = free_port()?;
        let addr = format!("127.0.0.1:{port}");
        let probe = format!("127.0.0.1:{probe_port}");
        let mut args = vec![
            "serve".to_owned(),
            "--addr".to_owned(),
            addr.clone(),
            "--probe-addr".to_owned(),
            probe.clone(),
            "--tls-cert".to_owned(),
            options.tls.0.display().to_string(),
            "--tls-key".to_owned(),
            options.tls.1.display().to_string(),
            "--tls-poll-interval".to_owned(),
            "1s".to_owned(),
            "--cache-dir".to_owned(),
            options.dir.join("cache").display().to_string(),
        ];
        if let Some(settings) = &options.settings {
            let file = options.dir.join(format!("settings-{port}.yaml"));
            std::fs::write(&file, settings).map_err(|e| OracleError::io(&file, e))?;
            args.push("--settings".to_owned());
            args.push(file.display().to_string());
        }
        let log = options.dir.join(format!("podmut-serve-{port}.log"));
        let mut process = Process::start("podmut serve", &podmut_binary()?, &args, &log)?;
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = process.exited() {
                return Err(OracleError::Start(format!(
                    "podmut serve exited ({status}):\n{}",
                    process.log_tail(20)
                )));
            }
            if http_plain(&probe, "GET", "/readyz", "").is_ok_and(|(code, _)| code == 200) {
                break;
            }
            if Instant::now() > deadline {
                return Err(OracleError::Start("podmut serve was not ready within 60s".into()));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(Self {
            process,
            addr,
            probe,
            log,
        })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.addr
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or(0)
    }

    /// Kill it (SIGKILL: as a crash would).
    pub fn kill(mut self) {
        self.process.stop(Duration::ZERO);
    }

    /// Its log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The sum of `podmut_admission_requests_total` samples whose labels contain every one of
    /// `labels` (e.g. `verdict="denied"`).
    pub fn requests(&self, labels: &[&str]) -> Result<u64, OracleError> {
        let (_, text) = http_plain(&self.probe, "GET", "/metrics", "").map_err(OracleError::Client)?;
        Ok(text
            .lines()
            .filter(|l| l.starts_with("podmut_admission_requests_total{"))
            .filter(|l| labels.iter().all(|want| l.contains(want)))
            .filter_map(|l| l.rsplit(' ').next().and_then(|v| v.parse::<f64>().ok()))
            .map(|v| v as u64)
            .sum())
    }
}

/// The shipped ValidatingWebhookConfiguration (`policies/deploy/webhook.yaml`), its client config
/// pointed at `url` with `ca_pem` as the bundle, and its rules also covering `extra_operations`
/// and `extra_resources`.
pub fn webhook_configuration(
    url: &str,
    ca_pem: &str,
    extra_operations: &[&str],
    extra_resources: &[&str],
) -> Result<Value, OracleError> {
    use base64::Engine as _;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../policies/deploy/webhook.yaml");
    let text = std::fs::read_to_string(&path).map_err(|e| OracleError::io(&path, e))?;
    let mut config = None;
    for doc in serde_yaml_ng::Deserializer::from_str(&text) {
        let v =
            Value::deserialize(doc).map_err(|e| OracleError::Server(format!("{}: {e}", path.display())))?;
        if v.get("kind").and_then(Value::as_str) == Some("ValidatingWebhookConfiguration") {
            config = Some(v);
        }
    }
    let mut config = config.ok_or_else(|| {
        OracleError::Server(format!("{}: no ValidatingWebhookConfiguration", path.display()))
    })?;
    if let Some(meta) = config.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("annotations");
    }
    let bundle = base64::engine::general_purpose::STANDARD.encode(ca_pem.as_bytes());
    for hook in config
        .get_mut("webhooks")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        hook["clientConfig"] = json!({"url": url, "caBundle": bundle});
        for rule in hook
            .get_mut("rules")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            for (key, extra) in [("operations", extra_operations), ("resources", extra_resources)] {
                if let Some(list) = rule.get_mut(key).and_then(Value::as_array_mut) {
                    for e in extra {
                        if !list.iter().any(|x| x == e) {
                            list.push(json!(e));
                        }
                    }
                }
            }
        }
    }
    Ok(config)
}

use serde::Deserialize as _;

/// Create (or replace) a ValidatingWebhookConfiguration.
pub async fn register(api: &Api, config: &Value) -> Result<(), OracleError> {
    let name = config
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let base = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
    let _ = api
        .send(
            Method::DELETE,
            &format!("{base}/{name}"),
            None,
            "application/json",
        )
        .await?;
    api.send(Method::POST, base, Some(config), "application/json")
        .await?
        .into_ok("create the ValidatingWebhookConfiguration")
        .map(|_| ())
}
