//! What a fresh machine lacks: the Rust targets, and the wasmtime CLI the real-CLI tests run.

use std::env;
use std::path::PathBuf;
use std::process::Command;

use crate::cmd::{Result, cargo, run, target_dir};

/// The static release binary's target (musl, linked statically by the Rust toolchain).
pub(crate) const HOST_TARGET: &str = "x86_64-unknown-linux-musl";

/// Install the targets through rustup when they are missing: wasm32-wasip2 (the component),
/// wasm32-unknown-unknown (the Kubewarden waPC module) and the static host target.
pub(crate) fn targets() -> Result {
    let Ok(out) = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
    else {
        // No rustup: assume the toolchain was provisioned another way; the build says if not.
        return Ok(());
    };
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    for target in ["wasm32-wasip2", "wasm32-unknown-unknown", HOST_TARGET] {
        if !listed.lines().any(|l| l.trim() == target) {
            let mut c = Command::new("rustup");
            c.args(["target", "add", target]);
            run(c)?;
        }
    }
    Ok(())
}

/// The wasmtime release the component is tested with (the workspace's wasmtime crates).
pub(crate) const WASMTIME_CLI: &str = "48.0.8";

/// The wasmtime CLI features installed: `run` and `serve` (what the tests and the README run),
/// the compile cache (`-C cache=y`) and what those need. 48.0.8's `serve` does not build without
/// `component-model-async` (its code names `ProxyPre::P3` and the `futures` crate unconditionally;
/// found by the first install on an empty machine), so that stays in. Left out of the default
/// set: the interpreters and compilers the component does not use (winch, pulley), wasm proposals
/// it does not use (GC, threads, stack switching), and the tools and WASI proposals podmut never
/// touches (wast, objdump, explore, wizer, hot-blocks, profiling, wasi-nn, wasi-tls,
/// wasi-keyvalue, wasi-config). `run` and `serve` are the unmodified 48.0.8 code.
pub(crate) const WASMTIME_CLI_FEATURES: &str = "run,serve,cache,cranelift,parallel-compilation,pooling-allocator,component-model,component-model-async,wasi-http,wat,backtrace,demangle,logging";

/// The directory holding a `wasmtime` 48 CLI, for the tests that run the unmodified CLI on the
/// component: the one on PATH when it is 48.x, else one installed with
/// `cargo install wasmtime-cli@48.0.8 --locked --no-default-features --features ...` under the
/// target dir (once). A bare `--locked` install would pick a release this toolchain cannot build.
pub(crate) fn wasmtime_cli() -> Result<PathBuf> {
    let on_path = Command::new("wasmtime").arg("--version").output();
    if let Ok(out) = on_path
        && String::from_utf8_lossy(&out.stdout).starts_with("wasmtime 48.")
        && let Some(dir) = env::var_os("PATH")
            .and_then(|paths| env::split_paths(&paths).find(|d| d.join("wasmtime").is_file()))
    {
        return Ok(dir);
    }
    let root = target_dir().join("wasmtime-cli");
    let bin = root.join("bin");
    if !bin.join("wasmtime").is_file() {
        let mut c = cargo();
        c.args([
            "install",
            &format!("wasmtime-cli@{WASMTIME_CLI}"),
            "--locked",
            "--no-default-features",
            "--features",
            WASMTIME_CLI_FEATURES,
            "--root",
        ])
        .arg(&root)
        .env("CARGO_TARGET_DIR", target_dir().join("wasmtime-cli-build"));
        run(c)?;
    }
    Ok(bin)
}
