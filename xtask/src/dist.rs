//! `cargo xtask dist [--out DIR]`: the release files (see `release/src/main.rs` for the list),
//! packaged by `podmut-release` from the one build (`pipeline.rs`): the binary dist ships is the
//! binary the tests ran.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cmd::{Result, flag, run, stdout_of, step, target_dir, workspace_root};
use crate::pipeline::{Build, Host};
use crate::setup::{self, HOST_TARGET};

pub(crate) fn dist(args: &[String]) -> Result {
    let out = flag(args, "--out").map_or_else(|| workspace_root().join("dist"), PathBuf::from);
    let out = if out.is_absolute() {
        out
    } else {
        std::env::current_dir()
            .map_err(|e| format!("cannot resolve --out: {e}"))?
            .join(out)
    };
    setup::targets()?;
    let build = Build::new(false)?.requiring_wasm_opt();
    let components = build.components()?;
    let host = build.host(&components, true)?;
    package(&host, &out)
}

/// Write the release files for `host` into `out`.
pub(crate) fn package(host: &Host, out: &Path) -> Result {
    step("package the release", || {
        let mut c = Command::new(release_tool());
        c.arg("--podmut")
            .arg(&host.bin)
            .arg("--kubewarden")
            .arg(&host.components.kubewarden)
            .arg("--workspace")
            .arg(workspace_root())
            .arg("--out")
            .arg(out)
            .arg("--source-date-epoch")
            .arg(source_date_epoch().to_string());
        run(c)
    })
}

/// The packaging tool, built with everything else (`release/`).
pub(crate) fn release_tool() -> PathBuf {
    target_dir()
        .join(HOST_TARGET)
        .join("release")
        .join("podmut-release")
}

/// `$SOURCE_DATE_EPOCH`, else the commit's time, else 0: the one timestamp in the release files.
pub(crate) fn source_date_epoch() -> u64 {
    if let Some(epoch) = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        return epoch;
    }
    let mut git = Command::new("git");
    git.current_dir(workspace_root())
        .args(["log", "-1", "--format=%ct"]);
    stdout_of(git)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0)
}
