//! `podmut check --live` against a real API server (`cargo xtask oracle test`; CI).
//!
//! One control plane of the newest release podmut claims (token and client-certificate
//! authentication, RBAC) holds a Pod bound to a Node; each case runs the built `podmut` binary
//! with a kubeconfig, as a user would, and asserts its exit code and what it prints:
//!
//! - `live/token-auth`, `live/client-certificate`: the Pod is read with either credential, the
//!   release comes from the server's `/version`, the namespace from `-n` or the context;
//! - `live/resize-allowed-agrees`, `live/resize-denied-agrees`: a resize judged offline and by the
//!   server's dry run (`--server-dry-run`), side by side, in JSON and text;
//! - `live/replace-agrees`: a whole new Pod (`--new`), sent as a dry-run PUT;
//! - `live/missing-pod`, `live/rbac-denial`, `live/unreachable`, `live/bad-context`: exit 2 and a
//!   message naming the Pod, the forbidden verb and resource, the server URL, the context;
//! - `live/kubectl-plugin`: `kubectl podmut check --live ...` through kubectl's plugin mechanism,
//!   with `-n`, `--context` and `$KUBECONFIG`.
//!
//! Without the control-plane binaries, the podmut binary or kubectl, the cases are reported as
//! ignored, or fail under `PODMUT_REQUIRE_ORACLE=1` ([`podmut_oracle::prerequisite`]).

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex, PoisonError};

use libtest_mimic::{Arguments, Failed};
use podmut_oracle::api::Api;
use podmut_oracle::batch::NODE;
use podmut_oracle::control_plane::{self, Config, ControlPlane};
use podmut_oracle::prerequisite::Prerequisites;
use podmut_oracle::process::free_port;
use podmut_oracle::webhook::{kubectl, kubectl_binary, podmut_binary};
use podmut_oracle::{Pins, Release, exchange, runtime};
use serde_json::{Value, json};

type Case = fn(&Rig) -> Result<(), String>;

fn newest_claimed() -> Result<Release, String> {
    let pins = Pins::load().map_err(e)?;
    podmut_oracle::fixtures::claimed(&pins)
        .into_iter()
        .max()
        .ok_or_else(|| "podmut claims none of the pinned releases".to_owned())
}

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let missing = newest_claimed()
        .and_then(|r| control_plane::binaries(r).map(|_| ()).map_err(e))
        .and_then(|()| podmut_binary().map(|_| ()).map_err(e))
        .and_then(|()| kubectl_binary().map(|_| ()).map_err(e))
        .err();
    let cases: [(&str, Case); 10] = [
        ("live/token-auth", token_auth),
        ("live/client-certificate", client_certificate),
        ("live/resize-allowed-agrees", resize_allowed_agrees),
        ("live/resize-denied-agrees", resize_denied_agrees),
        ("live/replace-agrees", replace_agrees),
        ("live/missing-pod", missing_pod),
        ("live/rbac-denial", rbac_denial),
        ("live/unreachable", unreachable),
        ("live/bad-context", bad_context),
        ("live/kubectl-plugin", kubectl_plugin),
    ];
    let needs = Prerequisites::new(missing);
    let trials = cases
        .into_iter()
        .map(|(name, f)| needs.trial(name, "", move || with_rig(f).map_err(Failed::from)))
        .collect();
    let code = libtest_mimic::run(&args, trials).exit_code();
    // Stop the control plane (its API server, then etcd) before exiting.
    drop(RIG.lock().unwrap_or_else(PoisonError::into_inner).take());
    code
}

fn e(x: impl std::fmt::Display) -> String {
    x.to_string()
}

/// The control plane every case shares, started by the first case that runs.
static RIG: Mutex<Option<Result<Arc<Rig>, String>>> = Mutex::new(None);

fn with_rig(case: Case) -> Result<(), String> {
    let rig = {
        let mut slot = RIG.lock().unwrap_or_else(PoisonError::into_inner);
        slot.get_or_insert_with(|| Rig::new().map(Arc::new)).clone()?
    };
    case(&rig)
}

/// A control plane, its Node, and a kubeconfig with a context per way in.
struct Rig {
    plane: ControlPlane,
    api: Api,
    dir: tempfile::TempDir,
    /// The kubeconfig: contexts `admin` (token), `cert` (client certificate), `nobody` (a user
    /// with no role), `closed` (a loopback port nothing listens on); each context's namespace is
    /// `default`.
    kubeconfig: PathBuf,
    /// The API server's `https://127.0.0.1:<port>` of the `closed` context.
    closed_url: String,
}

impl Rig {
    fn new() -> Result<Self, String> {
        let config = Config::stock(newest_claimed()?);
        let plane = runtime().block_on(ControlPlane::start(&config)).map_err(e)?;
        let api = runtime().block_on(plane.client()).map_err(e)?;
        runtime().block_on(api.ensure_node(NODE)).map_err(e)?;
        let dir = tempfile::tempdir().map_err(e)?;
        let closed_url = format!("https://127.0.0.1:{}", free_port().map_err(e)?);
        let kubeconfig = dir.path().join("kubeconfig");
        std::fs::write(&kubeconfig, kubeconfig_yaml(&plane, &closed_url)).map_err(e)?;
        Ok(Self {
            plane,
            api,
            dir,
            kubeconfig,
            closed_url,
        })
    }

    /// A fresh namespace holding the Pod `web`, bound to the Node: one container, Guaranteed
    /// (cpu 100m, memory 64Mi).
    fn namespace_with_pod(&self) -> Result<String, String> {
        let ns = exchange::fresh_namespace();
        runtime().block_on(self.api.create_namespace(&ns)).map_err(e)?;
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": ns},
            "spec": {"nodeName": NODE, "containers": [{"name": "app", "image": "nginx:1.27",
                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"},
                              "limits": {"cpu": "100m", "memory": "64Mi"}}}]}});
        let reply = runtime().block_on(self.api.create_pod(&ns, &pod)).map_err(e)?;
        if !reply.ok() {
            return Err(format!(
                "cannot create the Pod: HTTP {}: {}",
                reply.code, reply.body
            ));
        }
        Ok(ns)
    }

    /// `podmut <words> [--patch <patch>]` (the words split at spaces) with this rig's kubeconfig
    /// as `$KUBECONFIG`.
    fn podmut(&self, words: &str, patch: Option<&str>) -> Result<Run, String> {
        let mut c = Command::new(podmut_binary().map_err(e)?);
        c.args(words.split_whitespace())
            .env("KUBECONFIG", &self.kubeconfig)
            .env("PODMUT_CACHE_DIR", self.dir.path().join("cache"));
        if let Some(p) = patch {
            c.args(["--patch", p]);
        }
        Run::of(c)
    }
}

/// A kubeconfig reaching `plane` in four ways, and a cluster nothing listens on.
fn kubeconfig_yaml(plane: &ControlPlane, closed_url: &str) -> String {
    use base64::Engine as _;
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s.as_bytes());
    let ca = b64(&plane.certs.ca_pem);
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n\
         - name: oracle\n  cluster:\n    server: {url}\n    certificate-authority-data: {ca}\n\
         - name: closed\n  cluster:\n    server: {closed_url}\n    certificate-authority-data: {ca}\n\
         users:\n\
         - name: admin\n  user:\n    token: {admin}\n\
         - name: nobody\n  user:\n    token: {user}\n\
         - name: cert\n  user:\n    client-certificate-data: {cert}\n    client-key-data: {key}\n\
         contexts:\n\
         - name: admin\n  context: {{cluster: oracle, user: admin, namespace: default}}\n\
         - name: cert\n  context: {{cluster: oracle, user: cert, namespace: default}}\n\
         - name: nobody\n  context: {{cluster: oracle, user: nobody, namespace: default}}\n\
         - name: closed\n  context: {{cluster: closed, user: admin, namespace: default}}\n\
         current-context: admin\n",
        url = plane.url,
        admin = plane.admin_token,
        user = plane.user_token,
        cert = b64(&plane.certs.admin_cert_pem),
        key = b64(&plane.certs.admin_key_pem),
    )
}

/// What a command did.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn of(mut c: Command) -> Result<Self, String> {
        let out = c.output().map_err(|x| format!("{c:?}: {x}"))?;
        Ok(Self {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        })
    }

    /// Exit code `code`, and each of `needles` in stdout (`out`) or stderr (`err`).
    fn expect(&self, code: i32, out: &[&str], err: &[&str]) -> Result<(), String> {
        let missing_out = out.iter().find(|n| !self.stdout.contains(**n));
        let missing_err = err.iter().find(|n| !self.stderr.contains(**n));
        if self.code == Some(code) && missing_out.is_none() && missing_err.is_none() {
            return Ok(());
        }
        Err(format!(
            "expected exit {code}{}{}; got {:?}\nstdout:\n{}\nstderr:\n{}",
            missing_out.map_or(String::new(), |n| format!(", stdout with {n:?}")),
            missing_err.map_or(String::new(), |n| format!(", stderr with {n:?}")),
            self.code,
            self.stdout,
            self.stderr
        ))
    }

    fn json(&self) -> Result<Value, String> {
        serde_json::from_str(&self.stdout).map_err(|x| format!("stdout is not JSON ({x}):\n{}", self.stdout))
    }
}

/// A resize the server allows: cpu 100m -> 200m (request and limit: still Guaranteed).
const RESIZE_UP: &str = r#"{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"200m"},"limits":{"cpu":"200m"}}}]}}"#;
/// A resize the server denies: a cpu limit below the request.
const RESIZE_BAD: &str = r#"{"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"50m"}}}]}}"#;

fn release_line(rig: &Rig) -> String {
    format!(
        "judged as Kubernetes {} (the cluster's {})",
        rig.plane.config.release.minor_name(),
        rig.plane.config.release
    )
}

fn token_auth(rig: &Rig) -> Result<(), String> {
    let ns = rig.namespace_with_pod()?;
    let run = rig.podmut(
        &format!("check --live {ns}/web --context admin --subresource resize"),
        Some(RESIZE_UP),
    )?;
    let pod_line = format!("pod {ns}/web on {}", rig.plane.url);
    run.expect(0, &[&pod_line, &release_line(rig), "\nallowed\n"], &[])
}

fn client_certificate(rig: &Rig) -> Result<(), String> {
    let ns = rig.namespace_with_pod()?;
    let run = rig.podmut(
        &format!("check --live web -n {ns} --context cert --subresource resize -o json"),
        Some(RESIZE_UP),
    )?;
    run.expect(0, &[], &[])?;
    let v = run.json()?;
    let want = json!({"pod": format!("{ns}/web"), "namespace": ns, "name": "web", "server": rig.plane.url,
        "kubernetesVersion": rig.plane.config.release.minor_name(), "kubernetesVersionSource": "cluster",
        "serverVersion": rig.plane.config.release.to_string()});
    if v["live"] != want || v["allowed"] != json!(true) {
        return Err(format!("expected allowed and live = {want}, got:\n{v:#}"));
    }
    Ok(())
}

fn resize_allowed_agrees(rig: &Rig) -> Result<(), String> {
    let ns = rig.namespace_with_pod()?;
    let run = rig.podmut(
        &format!("check --live {ns}/web --subresource resize --server-dry-run -o json"),
        Some(RESIZE_UP),
    )?;
    run.expect(0, &[], &[])?;
    let v = run.json()?;
    let server = &v["serverDryRun"];
    if v["allowed"] != json!(true) || server["allowed"] != json!(true) || v["agree"] != json!(true) {
        return Err(format!("expected both to allow, and agree:\n{v:#}"));
    }
    if server["code"] != json!(200) {
        return Err(format!("expected HTTP 200 from the dry run:\n{v:#}"));
    }
    Ok(())
}

fn resize_denied_agrees(rig: &Rig) -> Result<(), String> {
    let ns = rig.namespace_with_pod()?;
    let base = format!("check --live {ns}/web --subresource resize --server-dry-run");
    let json_run = rig.podmut(&format!("{base} -o json"), Some(RESIZE_BAD))?;
    json_run.expect(1, &[], &[])?;
    let v = json_run.json()?;
    let server = &v["serverDryRun"];
    let every = json!({"verdict": true, "causes": true, "message": true});
    let both_deny = v["allowed"] == json!(false) && server["allowed"] == json!(false);
    if !both_deny || v["agree"] != json!(true) || v["agreement"] != every {
        return Err(format!(
            "expected both to deny, and agree on every aspect:\n{v:#}"
        ));
    }
    let status = (&server["code"], &server["reason"]);
    if v["message"] != server["message"] || status != (&json!(422), &json!("Invalid")) {
        return Err(format!(
            "expected the server's 422 Invalid with podmut's message:\n{v:#}"
        ));
    }
    let message = server["message"].as_str().unwrap_or_default();
    let text = rig.podmut(&base, Some(RESIZE_BAD))?;
    let podmut_line = format!("podmut:         denied: {message}");
    let server_line = format!("server dry run: denied: {message}  (HTTP 422 Invalid)");
    let agree = "agree: the same verdict, causes and message";
    text.expect(1, &[&podmut_line, &server_line, agree], &[])
}

fn replace_agrees(rig: &Rig) -> Result<(), String> {
    let ns = rig.namespace_with_pod()?;
    let get = kubectl(&rig.plane, &["-n", &ns, "get", "pod", "web", "-o", "json"], None).map_err(e)?;
    let mut new: Value =
        serde_json::from_str(&get.stdout).map_err(|x| format!("kubectl get: {x}: {}", get.stdout))?;
    new["spec"]["containers"][0]["image"] = json!("nginx:1.28");
    new["metadata"]["labels"] = json!({"tier": "web"});
    let file = rig.dir.path().join(format!("{ns}-new.json"));
    std::fs::write(&file, new.to_string()).map_err(e)?;
    let command = format!("check --live {ns}/web --new {} --server-dry-run", file.display());
    let run = rig.podmut(&command, None)?;
    let agree = "agree: the same verdict, causes and message";
    run.expect(
        0,
        &["podmut:         allowed", "server dry run: allowed", agree],
        &[],
    )?;
    // A change no update may make: the server and podmut both refuse it.
    new["spec"]["containers"][0]["name"] = json!("renamed");
    std::fs::write(&file, new.to_string()).map_err(e)?;
    let run = rig.podmut(&command, None)?;
    run.expect(
        1,
        &["agree: the same verdict and causes", "(HTTP 422 Invalid)"],
        &[],
    )
}

fn missing_pod(rig: &Rig) -> Result<(), String> {
    let ns = rig.namespace_with_pod()?;
    let run = rig.podmut(&format!("check --live nope -n {ns}"), Some("{}"))?;
    let want = format!("podmut: --live: pods \"nope\" not found in namespace \"{ns}\"");
    run.expect(2, &[], &[&want])
}

fn rbac_denial(rig: &Rig) -> Result<(), String> {
    let ns = rig.namespace_with_pod()?;
    let run = rig.podmut(&format!("check --live web -n {ns} --context nobody"), Some("{}"))?;
    let want =
        format!("podmut: --live: forbidden: the server does not let you get pods in namespace \"{ns}\"");
    run.expect(
        2,
        &[],
        &[&want, "User \"podmut-user\" cannot get resource \"pods\""],
    )
}

fn unreachable(rig: &Rig) -> Result<(), String> {
    let command = "check --live default/web --context closed --request-timeout 5s";
    let run = rig.podmut(command, Some("{}"))?;
    let want = format!(
        "podmut: --live: cannot reach the API server at {}",
        rig.closed_url
    );
    run.expect(2, &[], &[&want])
}

fn bad_context(rig: &Rig) -> Result<(), String> {
    let run = rig.podmut("check --live default/web --context nope", Some("{}"))?;
    run.expect(2, &[], &["podmut: --live: KUBECONFIG=", "(context \"nope\")"])?;
    let run = rig.podmut(
        "check --live web --kubeconfig /nonexistent/kubeconfig",
        Some("{}"),
    )?;
    run.expect(2, &[], &["podmut: --live: --kubeconfig /nonexistent/kubeconfig"])
}

fn kubectl_plugin(rig: &Rig) -> Result<(), String> {
    let ns = rig.namespace_with_pod()?;
    let bin = rig.dir.path().join("bin");
    let link = bin.join("kubectl-podmut");
    if !link.exists() {
        std::fs::create_dir_all(&bin).map_err(e)?;
        std::os::unix::fs::symlink(podmut_binary().map_err(e)?, &link).map_err(e)?;
    }
    let dirs = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect::<Vec<_>>();
    let path = std::env::join_paths(std::iter::once(bin).chain(dirs)).map_err(e)?;
    let plugin = |words: &str, patch: &str| -> Result<Run, String> {
        let mut c = Command::new(kubectl_binary().map_err(e)?);
        c.arg("podmut")
            .args(words.split_whitespace())
            .args(["--patch", patch])
            .env("PATH", &path)
            .env("KUBECONFIG", &rig.kubeconfig)
            .env("PODMUT_CACHE_DIR", rig.dir.path().join("cache"));
        Run::of(c)
    };
    let words = format!("check --live web -n {ns} --context cert --subresource resize --server-dry-run");
    let run = plugin(&words, RESIZE_BAD)?;
    let pod_line = format!("pod {ns}/web on {}", rig.plane.url);
    run.expect(1, &[&pod_line, "agree: the same verdict"], &[])?;
    let run = plugin(&format!("check --live web -n {ns} --context nobody"), "{}")?;
    run.expect(2, &[], &["forbidden: the server does not let you get pods"])
}
