//! podmut's task runner. Run with `cargo xtask <task>`:
//!
//! - `setup`        install what a fresh machine lacks (the wasm targets and the static musl target)
//! - `build-guest`  build the component: `cargo build -p podmut-guest --target wasm32-wasip2 --profile guest`
//! - `web`          transpile the component for the browser playground (npm deps into web/node_modules)
//! - `kubewarden`   build the Kubewarden (waPC) policy module
//! - `lint`         a developer's quick lint: rustfmt check; the dependency policy (`deny`); clippy
//!   -D warnings natively and for wasm
//! - `deny`         the dependency policy in `deny.toml` with cargo-deny: licenses, bans, sources
//!   (must pass), advisories (where the RustSec database can be fetched)
//! - `test`         every test, on the one release build (`pipeline.rs`), then the playground in Chromium
//! - `dist`         the release files into `dist/` (or `--out DIR`): static binary, component,
//!   Kubewarden policy, OCI image layout, archive, krew manifest, SHA256SUMS
//! - `ci`           what `.ci/run` runs: setup (plus the wasmtime CLI), rustfmt, the dependency
//!   policy, the one build with clippy as the compiler driver (lint and build in one), dist, every
//!   test on it
//! - `demo`         build the CLI, check the example Pod changes in `policies/examples/`, then start
//!   the webhook with `--self-signed` and send it the same changes with `podmut review --server`
//! - `load`         webhook load test over HTTPS on loopback (BENCHMARKS.md)
//! - `bless`        rewrite conformance expectations from the native results
//! - `cycles`       check that no crate has an import cycle between its modules
//! - `oracle`       the real control planes podmut is judged by: `build` (kube-apiserver and etcd
//!   of each pinned release, and the Helm CLI the chart's tests run, from the Go module proxy),
//!   `start`/`stop` one on loopback, `test`,
//!   `layouts` (the internal Pod types' Go layout podmut renders bad values with)
//!
//! Only std and `podmut-splice` (wasmparser + wasm-encoder, for the component's wasm-opt step):
//! the task runner must build in seconds on a fresh machine (the release packaging, which needs
//! OCI, tar and gzip libraries, is the `podmut-release` crate, built with the rest).

mod cmd;
mod cycles;
mod demo;
mod deny;
mod dist;
mod go_module;
mod layouts;
mod lint;
mod load;
mod oracle;
mod pipeline;
mod release_diff;
mod server;
mod setup;
mod tests;
mod web;

use std::env;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::cmd::{Result, cargo, run, step, target_dir};
use crate::pipeline::Build;

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let task = args.first().map_or("help", String::as_str);
    let rest = &args[args.len().min(1)..];
    let result = match task {
        "setup" => setup::targets(),
        "build-guest" => Build::new(false)
            .and_then(|b| b.components())
            .map(|c| println!("{}", c.guest.display())),
        "web" => Build::new(false)
            .and_then(|b| b.components())
            .and_then(|c| web::transpile(&c.guest))
            .map(|_| ()),
        "kubewarden" => setup::targets()
            .and_then(|()| Build::new(false))
            .and_then(|b| b.components())
            .map(|c| println!("{}", c.kubewarden.display())),
        "lint" => setup::targets().and_then(|()| lint::lint()),
        "deny" => deny::deny(),
        "test" => tests::no_bless_env()
            .and_then(|()| setup::targets())
            .and_then(|()| test(rest)),
        "dist" => dist::dist(rest),
        "ci" => tests::no_bless_env().and_then(|()| ci(rest)),
        "demo" => setup::targets().and_then(|()| demo::demo(rest)),
        "load" => setup::targets().and_then(|()| load::load(rest)),
        "bless" => bless(rest),
        "oracle" => oracle::oracle(rest),
        "cycles" => cycles::cycles(),
        "help" | "-h" | "--help" => {
            print_help();
            Ok(())
        }
        other => Err(format!("unknown task {other:?}; run `cargo xtask help`")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn print_help() {
    println!(
        "cargo xtask <task>\n\n  setup        install the wasm32-wasip2, wasm32-unknown-unknown and x86_64-unknown-linux-musl targets if missing\n  build-guest  build the podmut component\n  web          transpile the component into web/pkg for the playground (needs node + npm)\n  kubewarden   build the Kubewarden policy module (wasm32-unknown-unknown)\n  lint         rustfmt + cargo deny + clippy (native and wasm; check builds)\n  deny         the dependency policy (deny.toml): licenses, bans, sources; advisories if fetchable\n  test         every test on the release build\n  dist         release files into dist/ (--out DIR): static binary, podmut.wasm, Kubewarden policy,\n               OCI image layout, archive, krew manifest, SHA256SUMS\n  ci           setup (+ the wasmtime 48 CLI) + rustfmt + cargo deny + the linted build + dist + every test (.ci/run)\n  demo         check the example Pod changes in policies/examples, then serve them over HTTPS\n  load         webhook load test, sweep, soak, fault injection (cargo xtask load --help)\n  bless        rewrite conformance expectations from native results\n  cycles       fail on an import cycle between the modules of any workspace crate\n  oracle       build | start [--release 1.37] | stop | test | layouts [--check]: real kube-apiservers (tests/oracle)"
    );
}

/// `cargo xtask test`: the one build without lint, every test on it (the host's tests that need
/// the wasmtime CLI, a dist output or curl are reported as ignored: `ci` provides those and runs
/// them).
fn test(extra: &[String]) -> Result {
    let build = Build::new(false)?;
    let components = build.components()?;
    let host = build.host(&components, false)?;
    tests::run_all(&host, extra, &tests::Given::default())
}

/// `cargo xtask ci`: what `.ci/run` runs. Nothing may skip: the browser tools are checked first,
/// the real-CLI, dist and browser tests are required (a missing tool fails them). The one check that can be left undone is
/// cargo-deny's advisories, which need the RustSec database from GitHub: then it says so loudly.
fn ci(extra: &[String]) -> Result {
    step("setup: browser tools", web::browser_tools)?;
    step("setup: Rust targets", setup::targets)?;
    let wasmtime = step("setup: the wasmtime 48 CLI", setup::wasmtime_cli)?;
    step("rustfmt", lint::fmt_check)?;
    step("import cycles", cycles::cycles)?;
    // The dependency policy before the long builds (cargo-deny is installed once, under $HOME).
    let cargo_deny = step("setup: cargo-deny", deny::cargo_deny)?;
    step("cargo deny: licenses, bans, sources", || deny::check(&cargo_deny))?;
    step("cargo deny: advisories", || deny::advisories(&cargo_deny))?;
    // The real control planes the oracle suite judges podmut with (cached under $HOME).
    oracle::build_claimed()?;
    let build = Build::new(true)?.requiring_wasm_opt();
    let components = build.components()?;
    let host = build.host(&components, true)?;
    let dist: PathBuf = target_dir().join("dist");
    dist::package(&host, &dist)?;
    tests::run_all(
        &host,
        extra,
        &tests::Given {
            tools: Some(tests::Tools {
                wasmtime: &wasmtime,
                dist: &dist,
            }),
            browser_required: true,
            oracle_required: true,
        },
    )
}

/// Rewrite each fixture's `expect:` from the native outcome (the runner prints a diff of every
/// rewrite; a case whose component and native outcomes disagree is not rewritten and fails).
/// `cargo xtask bless -- update/` blesses one area.
fn bless(extra: &[String]) -> Result {
    let mut c = cargo();
    c.args([
        "test",
        "--package",
        "podmut-conformance",
        "--test",
        "conformance",
        "--",
    ])
    .args(extra.iter().filter(|a| *a != "--"))
    .env("PODMUT_BLESS", "1");
    run(c).map_err(|e| format!("{e}: nothing was rewritten for the failing cases"))?;
    eprintln!("xtask: blessed; review the rewrites with `git diff tests/cases`");
    Ok(())
}
