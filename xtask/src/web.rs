//! The browser playground's assets: jco output for exactly the component the host embeds.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cmd::{Result, has, run, workspace_root};

/// Transpile `component` into `web/pkg` with jco (npm packages installed into web/node_modules
/// from web/package-lock.json). Skipped when web/pkg already holds this component's output (so
/// the host, which embeds web/pkg, is not rebuilt for nothing). Returns false, loudly, when node
/// or npm is missing: `cargo build` and the Rust tests do not need them.
pub(crate) fn transpile(component: &Path) -> Result<bool> {
    if !has("node") || !has("npm") {
        eprintln!("\n!!! xtask: node/npm not found: the playground is built without the component !!!\n");
        return Ok(false);
    }
    let webdir = workspace_root().join("web");
    npm_ci(&webdir)?;
    let pkg = webdir.join("pkg");
    let bytes = std::fs::read(component).map_err(|e| format!("cannot read {}: {e}", component.display()))?;
    let current = std::fs::read(pkg.join("podmut.wasm")).ok();
    // The manifest is written last; besides the component, the script and the lock make web/pkg.
    let inputs = [
        webdir.join("scripts/transpile.mjs"),
        webdir.join("package-lock.json"),
    ];
    if current.as_deref() == Some(&bytes[..]) && newer_than(&pkg.join("manifest.json"), &inputs) {
        eprintln!("xtask: web/pkg is up to date for {}", component.display());
        return Ok(true);
    }
    let mut transpile = Command::new("node");
    transpile
        .current_dir(&webdir)
        .arg("scripts/transpile.mjs")
        .arg(component)
        .arg("pkg");
    run(transpile)?;
    Ok(true)
}

/// Whether `output` exists and was modified no earlier than each of `inputs` (all of which exist).
fn newer_than(output: &Path, inputs: &[PathBuf]) -> bool {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let Some(written) = modified(output) else {
        return false;
    };
    inputs
        .iter()
        .all(|input| modified(input).is_some_and(|m| m <= written))
}

/// `npm ci` unless web/node_modules is newer than the lock file.
pub(crate) fn npm_ci(webdir: &Path) -> Result {
    let lock = webdir.join("package-lock.json");
    let stamp = webdir.join("node_modules").join(".package-lock.json");
    if !newer_than(&stamp, &[lock]) {
        let mut npm = Command::new("npm");
        npm.current_dir(webdir).args(["ci", "--no-audit", "--no-fund"]);
        run(npm)?;
    }
    Ok(())
}

/// Where the browser tests look for Chromium (`web/tests/playground.test.mjs`; Debian's package).
fn chromium() -> PathBuf {
    env::var_os("PODMUT_CHROMIUM").map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

/// What the browser tests need, checked before `ci` spends time on the rest: node, npm, Chromium.
pub(crate) fn browser_tools() -> Result {
    if !has("node") || !has("npm") {
        return Err("node and npm are required for the playground and its browser tests (apt-get install -y nodejs npm)".into());
    }
    if !chromium().is_file() {
        return Err(format!(
            "Chromium is not at {} (the browser tests need it: apt-get install -y chromium, or set PODMUT_CHROMIUM)",
            chromium().display()
        ));
    }
    Ok(())
}

/// The playground in Debian's Chromium (playwright-core; no browser download), served by `bin`.
/// `required`: a missing Chromium fails the tests instead of skipping them.
pub(crate) fn browser_tests(bin: &Path, artifacts: &Path, required: bool) -> Result {
    let mut node = Command::new("node");
    node.current_dir(workspace_root().join("web"))
        .args(["--test", "--test-reporter=spec", "tests/"])
        .env("PODMUT_BIN", bin)
        .env("PODMUT_CHROMIUM", chromium())
        .env("PODMUT_ARTIFACTS_DIR", artifacts);
    if required {
        node.env("PODMUT_REQUIRE_BROWSER", "1");
    }
    run(node)
}
