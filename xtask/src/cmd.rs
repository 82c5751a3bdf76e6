//! Running programs: the workspace's paths, cargo, logging each command, timing each step.

use std::env;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Every task's result: an error is one message for stderr.
pub(crate) type Result<T = ()> = std::result::Result<T, String>;

/// The workspace root (xtask lives in `<root>/xtask`).
///
/// Read at run time (`cargo run`, which `cargo xtask` is, sets `CARGO_MANIFEST_DIR` for the
/// program), the compile-time value only as a fallback: cargo's fingerprints hold no absolute
/// paths, so in a target directory shared by two checkouts of the same sources (CI's clone, a
/// worktree) a checkout whose files are no newer than the other's build reuses the xtask binary
/// built there, and a compile-time path would name that checkout, or one that is gone.
pub(crate) fn workspace_root() -> PathBuf {
    let manifest_dir = env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    manifest_dir
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// `$CARGO_TARGET_DIR`, else `<root>/target`.
pub(crate) fn target_dir() -> PathBuf {
    env::var_os("CARGO_TARGET_DIR").map_or_else(|| workspace_root().join("target"), PathBuf::from)
}

/// The cargo that runs xtask, in the workspace root.
pub(crate) fn cargo() -> Command {
    let mut c = Command::new(env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.current_dir(workspace_root());
    c
}

/// Run `cmd` (echoed first), failing unless it exits 0.
pub(crate) fn run(mut cmd: Command) -> Result {
    eprintln!("$ {}", describe(&cmd));
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {}: {e}", describe(&cmd)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{}` failed ({status})", describe(&cmd)))
    }
}

/// Run `cmd` and return its stdout (stderr passes through), failing unless it exits 0.
pub(crate) fn stdout_of(mut cmd: Command) -> Result<String> {
    eprintln!("$ {}", describe(&cmd));
    let out = cmd
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", describe(&cmd)))?;
    if !out.status.success() {
        return Err(format!("`{}` failed ({})", describe(&cmd), out.status));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("`{}` printed non-UTF-8: {e}", describe(&cmd)))
}

/// The command line, for logs and errors.
pub(crate) fn describe(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// Whether a program runs (`prog --version`).
pub(crate) fn has(prog: impl AsRef<OsStr>) -> bool {
    Command::new(prog)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Run one step of a task and print how long it took (the CI log then shows where time goes).
pub(crate) fn step<T>(name: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let start = Instant::now();
    eprintln!("\n== xtask: {name}");
    let result = f();
    let secs = start.elapsed().as_secs();
    eprintln!(
        "== xtask: {name}: {} in {}m{:02}s",
        if result.is_ok() { "done" } else { "FAILED" },
        secs / 60,
        secs % 60
    );
    result
}

/// Value of `--name VALUE` in `args`.
pub(crate) fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

/// `dir`, created if missing.
pub(crate) fn ensure_dir(dir: &Path) -> Result<&Path> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir)
}

/// Write a file, naming it in the error.
pub(crate) fn write(path: &Path, bytes: impl AsRef<[u8]>) -> Result {
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
