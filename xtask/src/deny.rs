//! The dependency policy (`deny.toml`), checked with cargo-deny: licenses, duplicate versions
//! and wildcards (bans), and sources. The advisories check needs the RustSec database, which
//! cargo-deny clones with git from GitHub; where that fails, it is reported as not checked.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cmd::{Result, cargo, run, target_dir, workspace_root};

/// The cargo-deny release the policy is checked with.
pub(crate) const CARGO_DENY: &str = "0.20.2";

/// `cargo xtask deny`: the checks that need only crates.io must pass; then the advisories, when
/// the database can be fetched.
pub(crate) fn deny() -> Result {
    let bin = cargo_deny()?;
    check(&bin)?;
    advisories(&bin)
}

/// `cargo deny check licenses bans sources`. `-D warnings`: a skip entry, allowed license or
/// exception that no longer matches anything fails too, so `deny.toml` stays exact.
pub(crate) fn check(bin: &Path) -> Result {
    run(deny_command(
        bin,
        &["check", "-D", "warnings", "licenses", "bans", "sources"],
    ))
}

/// `cargo deny check advisories` when `cargo deny fetch db` succeeds; otherwise said loudly, with
/// the reason (cargo-deny's own error is printed above it): not checked, which is not passed.
pub(crate) fn advisories(bin: &Path) -> Result {
    if let Err(e) = run(deny_command(bin, &["fetch", "db"])) {
        eprintln!(
            "\n!!! xtask: advisories NOT checked: the RustSec advisory database could not be fetched \
             ({e}; cargo-deny clones it with git from GitHub, its error is above). Licenses, bans \
             and sources were checked; `cargo xtask deny` checks advisories where GitHub is \
             reachable. !!!\n"
        );
        return Ok(());
    }
    run(deny_command(bin, &["check", "-D", "warnings", "advisories"]))
}

/// `bin` with `args`, in the workspace root, never updating `Cargo.lock` (cargo-deny runs the
/// `cargo` in `$CARGO`, the one running xtask).
fn deny_command(bin: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(bin);
    c.current_dir(workspace_root()).arg("--locked").args(args);
    c
}

/// The cargo-deny binary: the one on PATH when it is this release, else one installed with
/// `cargo install cargo-deny@0.20.2 --locked` under the target dir (once; CI's target dir is under
/// `$HOME`, so later runs reuse it). The install's build directory is removed afterwards.
pub(crate) fn cargo_deny() -> Result<PathBuf> {
    if let Some(bin) = on_path() {
        return Ok(bin);
    }
    let root = target_dir().join("cargo-deny");
    let bin = root.join("bin").join("cargo-deny");
    if !is_release(&bin) {
        let build = target_dir().join("cargo-deny-build");
        let mut c = cargo();
        c.args([
            "install",
            &format!("cargo-deny@{CARGO_DENY}"),
            "--locked",
            "--root",
        ])
        .arg(&root)
        .env("CARGO_TARGET_DIR", &build);
        run(c)?;
        std::fs::remove_dir_all(&build).map_err(|e| format!("cannot remove {}: {e}", build.display()))?;
    }
    Ok(bin)
}

/// `cargo-deny` on PATH, when it is [`CARGO_DENY`].
fn on_path() -> Option<PathBuf> {
    let paths = env::var_os("PATH")?;
    env::split_paths(&paths)
        .map(|dir| dir.join("cargo-deny"))
        .find(|bin| bin.is_file())
        .filter(|bin| is_release(bin))
}

/// Whether `bin` runs and is cargo-deny [`CARGO_DENY`].
fn is_release(bin: &Path) -> bool {
    Command::new(bin)
        .arg("--version")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == format!("cargo-deny {CARGO_DENY}"))
}
