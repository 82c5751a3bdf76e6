//! One control plane: an etcd and a kube-apiserver of one release on loopback, started the way
//! envtest starts them, stopped when dropped.
//!
//! No kubelet, scheduler or controller runs: nothing creates a namespace's `default`
//! ServiceAccount, binds a Pod or writes its status. The oracle's callers do what those would
//! ([`crate::api`]): they create the Nodes admission reads and write `pods/status` themselves.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::certs::Certs;
use crate::process::{Process, free_port};
use crate::releases::{self, Pins, Release};
use crate::{OracleError, api};

/// How to start a control plane.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Config {
    /// The Kubernetes release (a pinned one).
    pub release: Release,
    /// `--feature-gates`, by upstream name (empty: the release's defaults).
    pub feature_gates: BTreeMap<String, bool>,
    /// `--allow-privileged` (envtest sets `true`).
    pub allow_privileged: bool,
    /// Write an audit log of Pod writes (level Metadata: with the admission annotations) to
    /// `audit.log` in the control plane's directory ([`ControlPlane::audit_events`]).
    pub audit: bool,
}

impl Config {
    /// A stock control plane of `release`: its default gates, privileged containers allowed.
    pub fn stock(release: Release) -> Self {
        Self {
            release,
            feature_gates: BTreeMap::new(),
            allow_privileged: true,
            audit: false,
        }
    }

    /// `--feature-gates=A=true,B=false` (empty when none are set).
    pub fn gates_arg(&self) -> String {
        self.feature_gates
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// A short description (`v1.37.2`, `v1.37.2 --feature-gates=X=true --allow-privileged=false`).
    pub fn describe(&self) -> String {
        let mut s = self.release.to_string();
        if !self.feature_gates.is_empty() {
            s.push_str(&format!(" --feature-gates={}", self.gates_arg()));
        }
        if !self.allow_privileged {
            s.push_str(" --allow-privileged=false");
        }
        if self.audit {
            s.push_str(" (audit log)");
        }
        s
    }
}

/// Where a control plane keeps its files: a temporary directory removed with it, or a kept one
/// (`podmut-oracle start`).
#[derive(Debug)]
enum Dir {
    Temp(tempfile::TempDir),
    Kept(PathBuf),
}

impl Dir {
    fn path(&self) -> &Path {
        match self {
            Dir::Temp(t) => t.path(),
            Dir::Kept(p) => p,
        }
    }
}

/// A running control plane. Dropping it stops the API server, then etcd.
#[derive(Debug)]
pub struct ControlPlane {
    /// How it was started.
    pub config: Config,
    /// `https://127.0.0.1:<port>`.
    pub url: String,
    /// Its etcd's client URL (`http://127.0.0.1:<port>`).
    pub etcd_url: String,
    /// Its key material (the CA clients trust; client certificates for other users).
    pub certs: Certs,
    /// The administrator's bearer token (`system:masters`).
    pub admin_token: String,
    /// A bearer token of `podmut-user`, an authenticated user with no role bound.
    pub user_token: String,
    /// A kubeconfig for the administrator (token), context `oracle`; context `oracle-cert`
    /// authenticates with the administrator's client certificate.
    pub kubeconfig: PathBuf,
    // Field order is drop order: the API server stops before its etcd.
    apiserver: Process,
    etcd: Process,
    dir: Dir,
}

/// A random token: 32 hex digits from the OS's random source.
fn token() -> Result<String, OracleError> {
    let mut bytes = [0u8; 16];
    let mut f =
        std::fs::File::open("/dev/urandom").map_err(|e| OracleError::io(Path::new("/dev/urandom"), e))?;
    std::io::Read::read_exact(&mut f, &mut bytes)
        .map_err(|e| OracleError::io(Path::new("/dev/urandom"), e))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn write(path: &Path, text: &str) -> Result<(), OracleError> {
    std::fs::write(path, text).map_err(|e| OracleError::io(path, e))
}

/// The binaries of a release: an error naming the command that builds them when missing.
pub fn binaries(release: Release) -> Result<(PathBuf, PathBuf), OracleError> {
    let pins = Pins::load()?;
    if !pins.kubernetes.contains(&release) {
        return Err(OracleError::Start(format!(
            "Kubernetes {release} is not pinned in {}",
            releases::releases_file().display()
        )));
    }
    let apiserver = releases::apiserver_binary(release);
    let etcd = releases::etcd_binary(&pins.etcd);
    for b in [&apiserver, &etcd] {
        if !b.is_file() {
            return Err(OracleError::NotBuilt(b.clone()));
        }
    }
    Ok((apiserver, etcd))
}

impl ControlPlane {
    /// Start a control plane in a temporary directory and wait until the API server is ready.
    pub async fn start(config: &Config) -> Result<Self, OracleError> {
        let dir = tempfile::Builder::new()
            .prefix("podmut-oracle-")
            .tempdir()
            .map_err(|e| OracleError::io(&std::env::temp_dir(), e))?;
        Self::start_in(config, Dir::Temp(dir)).await
    }

    /// Start one whose files stay in `dir` after it stops (`podmut-oracle start`).
    pub async fn start_kept(config: &Config, dir: &Path) -> Result<Self, OracleError> {
        std::fs::create_dir_all(dir).map_err(|e| OracleError::io(dir, e))?;
        Self::start_in(config, Dir::Kept(dir.to_path_buf())).await
    }

    async fn start_in(config: &Config, dir: Dir) -> Result<Self, OracleError> {
        let (apiserver_bin, etcd_bin) = binaries(config.release)?;
        let root = dir.path().to_path_buf();
        let certs = Certs::generate()?;
        let admin_token = token()?;
        let user_token = token()?;
        let files = Files::write(&root, &certs, &admin_token, &user_token)?;

        let etcd = start_etcd(&etcd_bin, &root)?;
        let port = free_port()?;
        let url = format!("https://127.0.0.1:{port}");
        let mut args = apiserver_args(config, &files, &etcd.1, port);
        if config.audit {
            args.extend(audit_args(&root)?);
        }
        let apiserver = Process::start(
            "kube-apiserver",
            &apiserver_bin,
            &args,
            &root.join("kube-apiserver.log"),
        )?;
        let kubeconfig = root.join("kubeconfig");
        write(&kubeconfig, &kubeconfig_yaml(&url, &certs, &admin_token))?;
        let mut plane = Self {
            config: config.clone(),
            url,
            etcd_url: etcd.1.clone(),
            certs,
            admin_token,
            user_token,
            kubeconfig,
            apiserver,
            etcd: etcd.0,
            dir,
        };
        plane.wait_ready(Duration::from_secs(120)).await?;
        Ok(plane)
    }

    /// The directory holding the control plane's files (kubeconfig, logs, certificates).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The process ids (kube-apiserver, etcd).
    pub fn pids(&self) -> (u32, u32) {
        (self.apiserver.id(), self.etcd.id())
    }

    /// A client for the administrator, built from the kubeconfig as kubectl would read it (and
    /// able to write into this control plane's etcd).
    pub async fn client(&self) -> Result<api::Api, OracleError> {
        Ok(api::Api::from_kubeconfig(&self.kubeconfig, None)
            .await?
            .with_etcd(&self.etcd_url))
    }

    /// The audit log's events so far (with [`Config::audit`]), one JSON object each.
    pub fn audit_events(&self) -> Vec<serde_json::Value> {
        let text = std::fs::read_to_string(self.dir().join("audit.log")).unwrap_or_default();
        text.lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    async fn wait_ready(&mut self, timeout: Duration) -> Result<(), OracleError> {
        let deadline = Instant::now() + timeout;
        let client = self.client().await?;
        loop {
            for p in [&mut self.etcd, &mut self.apiserver] {
                if let Some(status) = p.exited() {
                    return Err(OracleError::Start(format!(
                        "{} exited ({status}) while starting {}; its log ends:\n{}",
                        p.name(),
                        self.config.describe(),
                        p.log_tail(30)
                    )));
                }
            }
            if client.get_status("/readyz").await.is_ok_and(|code| code == 200) {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(OracleError::Start(format!(
                    "kube-apiserver {} was not ready after {}s; its log ends:\n{}",
                    self.config.describe(),
                    timeout.as_secs(),
                    self.apiserver.log_tail(30)
                )));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// The files the API server reads.
struct Files {
    certs: PathBuf,
    tokens: PathBuf,
}

impl Files {
    fn write(root: &Path, certs: &Certs, admin: &str, user: &str) -> Result<Self, OracleError> {
        let dir = root.join("certs");
        std::fs::create_dir_all(&dir).map_err(|e| OracleError::io(&dir, e))?;
        for (name, text) in [
            ("ca.crt", &certs.ca_pem),
            ("apiserver.crt", &certs.serving_cert_pem),
            ("apiserver.key", &certs.serving_key_pem),
            ("sa.key", &certs.sa_key_pem),
            ("sa.pub", &certs.sa_pub_pem),
        ] {
            write(&dir.join(name), text)?;
        }
        let tokens = root.join("tokens.csv");
        write(
            &tokens,
            &format!(
                "{admin},podmut-admin,podmut-admin,\"system:masters\"\n{user},podmut-user,podmut-user\n"
            ),
        )?;
        Ok(Self { certs: dir, tokens })
    }
}

/// etcd on two free loopback ports, storing in `root/etcd`; its client URL.
fn start_etcd(bin: &Path, root: &Path) -> Result<(Process, String), OracleError> {
    let client = free_port()?;
    let peer = free_port()?;
    let client_url = format!("http://127.0.0.1:{client}");
    let peer_url = format!("http://127.0.0.1:{peer}");
    let args = [
        "--name=oracle".to_owned(),
        format!("--data-dir={}", root.join("etcd").display()),
        format!("--listen-client-urls={client_url}"),
        format!("--advertise-client-urls={client_url}"),
        format!("--listen-peer-urls={peer_url}"),
        format!("--initial-advertise-peer-urls={peer_url}"),
        format!("--initial-cluster=oracle={peer_url}"),
        // Nothing here must survive a crash; fsync only slows the tests (envtest sets it too).
        "--unsafe-no-fsync=true".to_owned(),
        "--log-level=warn".to_owned(),
    ];
    let mut etcd = Process::start("etcd", bin, &args, &root.join("etcd.log"))?;
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", client)).is_err() {
        if let Some(status) = etcd.exited() {
            return Err(OracleError::Start(format!(
                "etcd exited ({status}); its log ends:\n{}",
                etcd.log_tail(20)
            )));
        }
        if Instant::now() > deadline {
            return Err(OracleError::Start("etcd did not listen within 30s".into()));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok((etcd, client_url))
}

/// kube-apiserver's flags: envtest's, with a static token file beside the client CA.
fn apiserver_args(config: &Config, files: &Files, etcd_url: &str, port: u16) -> Vec<String> {
    let c = |name: &str| files.certs.join(name).display().to_string();
    let mut args = vec![
        format!("--etcd-servers={etcd_url}"),
        "--bind-address=127.0.0.1".to_owned(),
        "--advertise-address=127.0.0.1".to_owned(),
        format!("--secure-port={port}"),
        format!("--cert-dir={}", files.certs.display()),
        format!("--tls-cert-file={}", c("apiserver.crt")),
        format!("--tls-private-key-file={}", c("apiserver.key")),
        format!("--client-ca-file={}", c("ca.crt")),
        format!("--token-auth-file={}", files.tokens.display()),
        "--authorization-mode=RBAC".to_owned(),
        "--service-cluster-ip-range=10.0.0.0/24".to_owned(),
        format!("--service-account-issuer=https://127.0.0.1:{port}"),
        format!("--service-account-key-file={}", c("sa.pub")),
        format!("--service-account-signing-key-file={}", c("sa.key")),
        format!("--allow-privileged={}", config.allow_privileged),
        // No Service endpoints to reconcile on loopback (the default reconciler needs a
        // routable advertise address).
        "--endpoint-reconciler-type=none".to_owned(),
    ];
    if !config.feature_gates.is_empty() {
        args.push(format!("--feature-gates={}", config.gates_arg()));
    }
    args
}

/// The audit policy (Pod writes at level Metadata, which records admission annotations) and the
/// flags that log it as JSON lines to `root/audit.log`.
fn audit_args(root: &Path) -> Result<Vec<String>, OracleError> {
    let policy = root.join("audit-policy.yaml");
    write(
        &policy,
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n  resources:\n  - group: \"\"\n    resources: [pods, pods/status, pods/ephemeralcontainers, pods/resize]\n- level: None\n",
    )?;
    Ok(vec![
        format!("--audit-policy-file={}", policy.display()),
        format!("--audit-log-path={}", root.join("audit.log").display()),
        "--audit-log-format=json".to_owned(),
        "--audit-log-mode=blocking".to_owned(),
    ])
}

/// A kubeconfig for the administrator: context `oracle` (token), `oracle-cert` (certificate).
fn kubeconfig_yaml(url: &str, certs: &Certs, token: &str) -> String {
    use base64::Engine as _;
    use std::fmt::Write;
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s.as_bytes());
    let mut y = String::new();
    let _ = write!(
        y,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: oracle\n  cluster:\n    server: {url}\n    certificate-authority-data: {}\nusers:\n- name: podmut-admin\n  user:\n    token: {token}\n- name: podmut-admin-cert\n  user:\n    client-certificate-data: {}\n    client-key-data: {}\ncontexts:\n- name: oracle\n  context: {{cluster: oracle, user: podmut-admin, namespace: default}}\n- name: oracle-cert\n  context: {{cluster: oracle, user: podmut-admin-cert, namespace: default}}\ncurrent-context: oracle\n",
        b64(&certs.ca_pem),
        b64(&certs.admin_cert_pem),
        b64(&certs.admin_key_pem),
    );
    y
}
