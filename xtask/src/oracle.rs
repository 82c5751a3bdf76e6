//! `cargo xtask oracle build|start|stop|test`: the real control planes the oracle judges podmut
//! with (tests/oracle).
//!
//! `build` builds, from the Go module proxy, the kube-apiserver of every Kubernetes release and
//! the etcd pinned in `tests/oracle/releases.txt`, into `$PODMUT_ORACLE_DIR` (default
//! `~/.cache/podmut/oracle`): `bin/kube-apiserver-v1.37.2`, `bin/etcd-v3.6.17`. Each is a
//! generated Go module under `src/` that requires the upstream module and, for kube-apiserver,
//! replaces every staging module the upstream `go.mod` pins at `v0.0.0` by its `v0.<minor>.<patch>`
//! release. The version is stamped in with `-ldflags -X` as upstream's build does, so `/version`
//! says `v1.37.2`. A binary already built is kept when `--version` names the pinned release; Go's
//! own build cache (`go env GOCACHE`, under `$HOME`) makes the second and third releases cheaper.
//!
//! It builds the Helm CLI the chart's tests run (`helm v4.3.2` in the same file) the same way:
//! `bin/helm-v4.3.2`, from a generated module requiring `helm.sh/helm/v4`, its version stamped in
//! (`helm version` says `v4.3.2`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cmd::{Result, ensure_dir, run, step, write};
use crate::go_module::{Pin, apiserver_go_mod, cache_dir, go, pins, tidy};

/// `cargo xtask oracle <what>`.
pub(crate) fn oracle(args: &[String]) -> Result {
    match args.first().map(String::as_str) {
        Some("build") => build(),
        Some("start") => build().and_then(|()| control(&args[1..], "start")),
        Some("stop") => control(&args[1..], "stop"),
        Some("test") => build().and_then(|()| test(&args[1..], &[])),
        Some("long") => build().and_then(|()| long(&args[1..])),
        Some("bench") => build().and_then(|()| bench()),
        Some("layouts") => crate::layouts::layouts(&args[1..]),
        Some("diff") => crate::release_diff::diff(&args[1..]),
        _ => Err("usage: cargo xtask oracle build | start [--release 1.37] | stop [--release 1.37] | test [-- FILTER] | long [--cases N] | bench | layouts [--check] | diff --from 1.36 --to 1.37".into()),
    }
}

/// Build every pinned binary that is missing.
pub(crate) fn build() -> Result {
    build_where(|_| true)
}

/// Build what the test suites run (`cargo xtask ci`): the etcd and the pinned releases podmut
/// claims (the oracle judges no other; a release joins when podmut gains its profile), so CI does
/// not spend a cold build on servers nothing asks yet.
pub(crate) fn build_claimed() -> Result {
    let claimed: Vec<u32> = podmut_core::KubernetesVersion::SUPPORTED
        .iter()
        .map(|v| u32::from(v.minor()))
        .collect();
    build_where(|minor| claimed.contains(&minor))
}

/// Build the etcd and each pinned Kubernetes release whose minor `keep` accepts (and kubectl of
/// the newest of those when the machine has none), where missing.
fn build_where(keep: impl Fn(u32) -> bool) -> Result {
    let pins: Vec<Pin> = pins()?
        .into_iter()
        .filter(|p| match p {
            Pin::Kubernetes(minor, _) => keep(*minor),
            Pin::Etcd(_) | Pin::Helm(_) => true,
        })
        .collect();
    let bin_dir = cache_dir().join("bin");
    ensure_dir(&bin_dir)?;
    for pin in &pins {
        match pin {
            Pin::Etcd(v) => {
                let out = bin_dir.join(format!("etcd-{v}"));
                if reports(
                    &out,
                    &["--version"],
                    &format!("etcd Version: {}", v.trim_start_matches('v')),
                ) {
                    continue;
                }
                step(&format!("oracle: build etcd {v}"), || build_etcd(v, &out))?;
            }
            Pin::Kubernetes(minor, patch) => {
                let v = format!("v1.{minor}.{patch}");
                let out = bin_dir.join(format!("kube-apiserver-{v}"));
                if reports(&out, &["--version"], &format!("Kubernetes {v}")) {
                    continue;
                }
                step(&format!("oracle: build kube-apiserver {v}"), || {
                    build_apiserver(*minor, *patch, &out)
                })?;
            }
            Pin::Helm(v) => {
                let out = bin_dir.join(format!("helm-{v}"));
                if reports(&out, &["version", "--template", "{{.Version}}"], v) {
                    continue;
                }
                step(&format!("oracle: build helm {v}"), || build_helm(v, &out))?;
            }
        }
    }
    let newest = pins
        .iter()
        .filter_map(|p| match p {
            Pin::Kubernetes(minor, patch) => Some((*minor, *patch)),
            Pin::Etcd(_) | Pin::Helm(_) => None,
        })
        .max();
    if let Some((minor, patch)) = newest {
        let kubectl = bin_dir.join(format!("kubectl-v1.{minor}.{patch}"));
        if !has_kubectl() && !reports(&kubectl, &["version", "--client"], &format!("v1.{minor}.{patch}")) {
            step("oracle: build kubectl (none on PATH)", || {
                build_kubectl(minor, patch, &kubectl)
            })?;
        }
    }
    Ok(())
}

/// Whether `bin <args>` prints `expected` (the binary is there and is the pinned one).
fn reports(bin: &Path, args: &[&str], expected: &str) -> bool {
    Command::new(bin)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains(expected))
}

/// Write the generated module `src/<name>/go.mod` and resolve it (`go mod tidy`).
fn module(name: &str, go_mod: &str) -> Result<PathBuf> {
    let dir = cache_dir().join("src").join(name);
    ensure_dir(&dir)?;
    write(&dir.join("go.mod"), go_mod)?;
    tidy(&dir)?;
    Ok(dir)
}

/// `go build` of `package` into `out` (through a temporary name, so a half-built binary is never
/// taken for a built one).
fn go_build(dir: &Path, package: &str, ldflags: &str, out: &Path) -> Result {
    let mut tmp = out.as_os_str().to_owned();
    tmp.push(".building");
    let tmp = PathBuf::from(tmp);
    let mut c = go(dir);
    c.args(["build", "-trimpath", "-ldflags", ldflags, "-o"])
        .arg(&tmp)
        .arg(package);
    run(c)?;
    std::fs::rename(&tmp, out).map_err(|e| format!("cannot move {} to {}: {e}", tmp.display(), out.display()))
}

fn build_etcd(version: &str, out: &Path) -> Result {
    let dir = module(
        &format!("etcd-{version}"),
        &format!(
            "module podmut.local/oracle/etcd\n\ngo 1.25\n\nrequire go.etcd.io/etcd/server/v3 {version}\n\ntool go.etcd.io/etcd/server/v3\n"
        ),
    )?;
    go_build(&dir, "go.etcd.io/etcd/server/v3", "-s -w", out)
}

/// The Helm CLI: a generated module requiring `helm.sh/helm/v4` at the pinned version, built with
/// the version stamped in as upstream's Makefile does (`internal/version.version`).
fn build_helm(version: &str, out: &Path) -> Result {
    let dir = module(
        &format!("helm-{version}"),
        &format!(
            "module podmut.local/oracle/helm\n\ngo 1.26\n\nrequire helm.sh/helm/v4 {version}\n\ntool helm.sh/helm/v4/cmd/helm\n"
        ),
    )?;
    go_build(
        &dir,
        "helm.sh/helm/v4/cmd/helm",
        &format!("-s -w -X helm.sh/helm/v4/internal/version.version={version}"),
        out,
    )
}

/// The generated module that builds a release's commands: it requires `k8s.io/kubernetes` and
/// replaces every staging module upstream pins at `v0.0.0` by its release.
fn apiserver_module(minor: u32, patch: u32) -> Result<PathBuf> {
    let go_mod = apiserver_go_mod(
        "podmut.local/oracle/kube-apiserver",
        minor,
        patch,
        "\ntool (\n\tk8s.io/kubernetes/cmd/kube-apiserver\n\tk8s.io/kubernetes/cmd/kubectl\n)\n",
    )?;
    module(&format!("kube-apiserver-v1.{minor}.{patch}"), &go_mod)
}

fn build_apiserver(minor: u32, patch: u32, out: &Path) -> Result {
    let dir = apiserver_module(minor, patch)?;
    go_build(
        &dir,
        "k8s.io/kubernetes/cmd/kube-apiserver",
        &ldflags(minor, patch),
        out,
    )
}

/// kubectl of a release, from the same generated module as its kube-apiserver (most of its
/// packages are then built already): the webhook tests drive the API server with kubectl, and a
/// machine without one gets the newest release's.
fn build_kubectl(minor: u32, patch: u32, out: &Path) -> Result {
    let dir = apiserver_module(minor, patch)?;
    go_build(&dir, "k8s.io/kubernetes/cmd/kubectl", &ldflags(minor, patch), out)
}

/// `-ldflags` stamping a release's version in, as upstream's build does.
fn ldflags(minor: u32, patch: u32) -> String {
    let base = "k8s.io/component-base/version";
    format!(
        "-s -w -X {base}.gitVersion=v1.{minor}.{patch} -X {base}.gitMajor=1 -X {base}.gitMinor={minor} \
         -X {base}.gitTreeState=clean -X {base}.buildDate=1970-01-01T00:00:00Z"
    )
}

/// Whether `kubectl` on PATH runs.
fn has_kubectl() -> bool {
    Command::new("kubectl")
        .args(["version", "--client"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `podmut-oracle start|stop ...`: the oracle crate's binary, from the one release build.
fn control(args: &[String], what: &str) -> Result {
    host()?;
    let bin = crate::cmd::target_dir()
        .join(crate::setup::HOST_TARGET)
        .join("release")
        .join("podmut-oracle");
    let mut c = Command::new(bin);
    c.arg(what).args(args);
    run(c)
}

/// The one release build without lint (what `cargo xtask test` builds).
fn host() -> Result<crate::pipeline::Host> {
    let build = crate::pipeline::Build::new(false)?;
    let components = build.components()?;
    build.host(&components, false)
}

/// The oracle suite alone, on the one release build (CI runs it with every other test), with
/// `env` added.
fn test(args: &[String], env: &[(&str, String)]) -> Result {
    let host = host()?;
    let mut c = host.cargo("test");
    c.args(["--test", "oracle", "--"])
        .args(args.iter().filter(|a| *a != "--"))
        .env("PODMUT_REQUIRE_ORACLE", "1");
    for (k, v) in env {
        c.env(k, v);
    }
    step("oracle suite", || run(c))
}

/// `oracle long [--cases N]`: N (default 100,000) generated changes per request path and release,
/// printed as the Markdown table of agreement and throughput BENCHMARKS.md records.
fn long(args: &[String]) -> Result {
    let cases = crate::cmd::flag(args, "--cases").unwrap_or("100000").to_owned();
    test(
        &["generated/".to_owned()],
        &[
            ("PODMUT_ORACLE_CASES", cases),
            ("PODMUT_ORACLE_MARKDOWN", "1".to_owned()),
        ],
    )
}

/// `oracle bench`: the API server's dry run, podmut's webhook and `podmut check` on the same change
/// (tests/oracle/benches/versus_apiserver.rs).
fn bench() -> Result {
    let host = host()?;
    let mut c = host.cargo("bench");
    c.args(["--bench", "versus_apiserver"]);
    step("oracle bench", || run(c))
}
