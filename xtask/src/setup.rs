//! What a fresh machine lacks: the Rust targets, and the wasmtime CLI the real-CLI tests run.
//! The toolchain itself is `rust-toolchain.toml`'s (`.ci/run` runs `rustup toolchain install`).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cmd::{Result, cargo, run, target_dir, workspace_root};

/// The static release binary's target (musl, linked statically by the Rust toolchain).
pub(crate) const HOST_TARGET: &str = "x86_64-unknown-linux-musl";

/// Install the targets `rust-toolchain.toml` lists through rustup when they are missing:
/// wasm32-wasip2 (the component), wasm32-unknown-unknown (the Kubewarden waPC module) and the
/// static host target.
pub(crate) fn targets() -> Result {
    let wanted = toolchain_targets(&workspace_root().join("rust-toolchain.toml"))?;
    let Ok(out) = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
    else {
        // No rustup: assume the toolchain was provisioned another way; the build says if not.
        return Ok(());
    };
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    for target in &wanted {
        if !listed.lines().any(|l| l.trim() == target) {
            let mut c = Command::new("rustup");
            c.args(["target", "add", target]);
            run(c)?;
        }
    }
    Ok(())
}

/// The `targets` of a `rust-toolchain.toml`.
fn toolchain_targets(file: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let targets = string_array(&text, "targets");
    if targets.is_empty() {
        return Err(format!("{} lists no `targets = [...]`", file.display()));
    }
    Ok(targets)
}

/// The strings of the one-line TOML array `key = ["a", "b"]` in `toml` (std only: no TOML parser
/// in xtask); empty when there is no such line.
fn string_array(toml: &str, key: &str) -> Vec<String> {
    toml.lines()
        .find_map(|line| line.trim().strip_prefix(key)?.trim_start().strip_prefix('='))
        .map(|value| value.split('"').skip(1).step_by(2).map(str::to_owned).collect())
        .unwrap_or_default()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The repository's `rust-toolchain.toml`.
    fn toolchain_file() -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rust-toolchain.toml");
        std::fs::read_to_string(path).expect("rust-toolchain.toml")
    }

    /// Its one-line `key = "value"`.
    fn string_value(toml: &str, key: &str) -> Option<String> {
        toml.lines()
            .find_map(|line| line.trim().strip_prefix(key)?.trim_start().strip_prefix('='))
            .map(|value| value.trim().trim_matches('"').to_owned())
    }

    #[test]
    fn toolchain_file_lists_the_targets_the_pipeline_builds_for() {
        let mut listed = string_array(&toolchain_file(), "targets");
        listed.sort();
        // pipeline.rs: the components (wasm32-wasip2), the Kubewarden module
        // (wasm32-unknown-unknown) and the static host.
        let mut built = vec!["wasm32-wasip2", "wasm32-unknown-unknown", HOST_TARGET];
        built.sort_unstable();
        assert_eq!(listed, built);
    }

    #[test]
    fn toolchain_file_pins_the_workspace_rust_version_with_rustfmt_and_clippy() {
        let toolchain = toolchain_file();
        let channel = string_value(&toolchain, "channel").expect("channel");
        let manifest = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml"))
            .expect("Cargo.toml");
        let rust_version = string_value(&manifest, "rust-version").expect("rust-version");
        // An exact release (1.95.0), of the minor version Cargo.toml's rust-version names (1.95).
        assert_eq!(
            channel.split('.').count(),
            3,
            "channel {channel:?} is not an exact release"
        );
        assert!(
            channel.starts_with(&format!("{rust_version}.")),
            "{channel} vs rust-version {rust_version}"
        );
        let components = string_array(&toolchain, "components");
        assert!(components.iter().any(|c| c == "rustfmt") && components.iter().any(|c| c == "clippy"));
    }

    #[test]
    fn string_array_reads_one_line_arrays_only() {
        let toml = "# targets = [\"commented\"]\ntargets_more = [\"no\"]\ntargets = [\"a\", \"b\"] # end\n";
        assert_eq!(string_array(toml, "targets"), ["a", "b"]);
        assert!(string_array(toml, "components").is_empty());
    }
}
