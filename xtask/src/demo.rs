//! `cargo xtask demo`: the README's main command. Builds the CLI (the component made as a release
//! makes it, `pipeline::ship`), checks every example Pod change
//! in `policies/examples/<name>/` (`old.yaml`, `new.yaml`, optional `subresource`), printing each
//! verdict; then starts the webhook (`podmut serve --self-signed`) on the embedded component and
//! sends it the same changes as AdmissionReviews over HTTPS with `podmut review --server` — the
//! same binary, no other client to build. With a terminal (or `--serve`) the webhook keeps running
//! until Ctrl-C; otherwise (or with `--no-serve`) it is stopped with SIGTERM and drains.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cmd::{Result, cargo, ensure_dir, run, step, target_dir, write};
use crate::server::{free_addr, stop_gracefully, wait_for_file};

/// Build the release CLI (the component first, then the host with it embedded); its path.
pub(crate) fn build_cli() -> Result<PathBuf> {
    step("podmut (release)", || {
        let built = crate::pipeline::build_components(cargo(), &["podmut-guest"])?.join("podmut_guest.wasm");
        // The bytes a release ships (wasm-opt when installed; a fresh machine without binaryen
        // gets the component as cargo built it, names split off, and a note).
        let shipped = crate::pipeline::ship(&built, "podmut", false)?;
        let mut host = cargo();
        host.args(["build", "--release", "--package", "podmut", "--bin", "podmut"])
            .env("PODMUT_GUEST_WASM", &shipped.component)
            .env("PODMUT_GUEST_NAMES", &shipped.names);
        run(host)?;
        Ok(target_dir().join("release").join("podmut"))
    })
}

pub(crate) fn demo(extra: &[String]) -> Result {
    let keep_serving = if extra.iter().any(|a| a == "--no-serve") {
        false
    } else {
        extra.iter().any(|a| a == "--serve") || std::io::IsTerminal::is_terminal(&std::io::stdin())
    };
    let bin = build_cli()?;
    let examples = example_dirs()?;
    for dir in &examples {
        let sub = subresource_of(dir);
        println!("== {} (subresource {sub})", name_of(dir));
        let mut c = Command::new(&bin);
        c.arg("check");
        if dir.join("old.yaml").is_file() {
            c.arg("--old").arg(dir.join("old.yaml"));
        }
        c.arg("--new")
            .arg(dir.join("new.yaml"))
            .args(["--subresource", &sub]);
        let status = c
            .status()
            .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
        match status.code() {
            Some(0 | 1) => {}
            _ => return Err(format!("podmut check failed on {} ({status})", dir.display())),
        }
    }

    // The webhook, on the same component.
    let out = target_dir().join("podmut-demo");
    ensure_dir(&out)?;
    let ca = out.join("ca.pem");
    let _ = std::fs::remove_file(&ca);
    let addr = free_addr("127.0.0.1:8443");
    println!(
        "\n== webhook: podmut serve --self-signed --ca-out {} --addr {addr}",
        ca.display()
    );
    let mut server = Command::new(&bin)
        .args(["serve", "--self-signed", "--addr", &addr, "--ca-out"])
        .arg(&ca)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    let url = format!("https://{addr}/validate");
    let result = (|| -> Result {
        wait_for_file(&ca, &mut server)?;
        for (i, dir) in examples.iter().enumerate() {
            let sub = subresource_of(dir);
            println!(
                "\n== podmut review --server {url}: {} (subresource {sub})",
                name_of(dir)
            );
            let review = out.join(format!("{}.review.yaml", name_of(dir)));
            write(&review, admission_review(dir, &sub, i)?)?;
            let mut c = Command::new(&bin);
            c.args(["review", "--server", &url, "--ca"]).arg(&ca).arg(&review);
            let status = c
                .status()
                .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
            match status.code() {
                Some(0 | 1) => {}
                _ => {
                    return Err(format!(
                        "podmut review --server failed on {} ({status})",
                        review.display()
                    ));
                }
            }
        }
        Ok(())
    })();
    if result.is_ok() && keep_serving {
        println!(
            "\nThe webhook is serving {url} (CA: {}). Try:\n  {} review --server {url} --ca {} {}\n  curl --cacert {} https://{addr}/metrics\nCtrl-C stops it.",
            ca.display(),
            bin.display(),
            ca.display(),
            out.join("<example>.review.yaml").display(),
            ca.display(),
        );
        let _ = server.wait();
        return Ok(());
    }
    stop_gracefully(&mut server);
    result
}

/// The AdmissionReview (v1, YAML) the API server would send for an example change. The Pod files
/// are embedded as YAML blocks, indented under `object`/`oldObject` (this task runner has no YAML
/// library; `podmut review --server` sends YAML as JSON).
fn admission_review(dir: &Path, subresource: &str, index: usize) -> Result<String> {
    let block = |file: &str| -> Result<String> {
        let path = dir.join(file);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Ok(text
            .lines()
            .filter(|l| l.trim() != "---")
            .map(|l| format!("    {l}\n"))
            .collect())
    };
    let sub = if subresource == "none" { "" } else { subresource };
    let old = dir.join("old.yaml").is_file();
    let mut review = format!(
        "apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\nrequest:\n  uid: 00000000-0000-4000-8000-{index:012}\n  \
         kind: {{group: \"\", version: v1, kind: Pod}}\n  resource: {{group: \"\", version: v1, resource: pods}}\n  \
         subResource: \"{sub}\"\n  namespace: default\n  operation: {}\n  userInfo: {{username: demo}}\n  object:\n{}",
        if old { "UPDATE" } else { "CREATE" },
        block("new.yaml")?
    );
    if old {
        review.push_str("  oldObject:\n");
        review.push_str(&block("old.yaml")?);
    }
    Ok(review)
}

fn example_dirs() -> Result<Vec<PathBuf>> {
    let examples = crate::cmd::workspace_root().join("policies").join("examples");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&examples)
        .map_err(|e| format!("cannot list {}: {e}", examples.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        // Only check examples (old.yaml/new.yaml); `node/` holds the node-side command examples.
        .filter(|p| p.is_dir() && p.join("new.yaml").is_file())
        .collect();
    dirs.sort();
    Ok(dirs)
}

fn subresource_of(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("subresource"))
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|_| "none".into())
}

fn name_of(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
