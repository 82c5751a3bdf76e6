//! `cargo xtask lint`: the quick lint for a developer (check builds only): rustfmt, the dependency
//! policy (`cargo xtask deny`), then clippy `-D warnings` natively (every target) and for the two
//! wasm targets. `cargo xtask ci` lints through its real builds instead (see `pipeline.rs`), so CI
//! builds every crate once.

use crate::cmd::{Result, cargo, run};

/// `cargo fmt --all -- --check`.
pub(crate) fn fmt_check() -> Result {
    let mut fmt = cargo();
    fmt.args(["fmt", "--all", "--", "--check"]);
    run(fmt)
}

/// rustfmt, cargo-deny, then clippy natively and for both wasm targets.
pub(crate) fn lint() -> Result {
    fmt_check()?;
    crate::deny::deny()?;
    let mut clippy = cargo();
    clippy.args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]);
    run(clippy)?;
    let mut wasm = cargo();
    wasm.args([
        "clippy",
        "--package",
        "podmut-model",
        "--package",
        "podmut-validation",
        "--package",
        "podmut-kubelet",
        "--package",
        "podmut-admission",
        "--package",
        "podmut-vap",
        "--package",
        "podmut-core",
        "--package",
        "podmut-guest",
        "--package",
        "podmut-misbehave",
        "--target",
        "wasm32-wasip2",
        "--",
        "-D",
        "warnings",
    ]);
    run(wasm)?;
    let mut kubewarden = cargo();
    kubewarden.args([
        "clippy",
        "--package",
        "podmut-kubewarden",
        "--target",
        "wasm32-unknown-unknown",
        "--",
        "-D",
        "warnings",
    ]);
    run(kubewarden)
}
