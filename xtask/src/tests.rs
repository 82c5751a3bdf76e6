//! Running every test on the one build (`pipeline.rs`): `cargo test` with exactly the build's
//! selection and environment (so nothing is rebuilt), then the playground in Chromium.

use std::env;
use std::path::Path;

use crate::cmd::{Result, run, step, target_dir};
use crate::pipeline::Host;
use crate::web;

/// What the tests are given beyond the build.
#[derive(Debug, Default)]
pub(crate) struct Given<'a> {
    /// What the host's `#[ignore = "needs ..."]` tests need: given, they run too (`-- --ignored`),
    /// and a missing prerequisite fails them instead of leaving them ignored.
    pub(crate) tools: Option<Tools<'a>>,
    /// The browser tests must run (`PODMUT_REQUIRE_BROWSER=1`): a missing Chromium or node fails
    /// them instead of skipping.
    pub(crate) browser_required: bool,
    /// The oracle suite must run (`PODMUT_REQUIRE_ORACLE=1`): control planes that are not built
    /// fail it instead of showing its cases as ignored.
    pub(crate) oracle_required: bool,
}

/// The prerequisites of the host's ignored tests that `ci` provides (besides curl, docker-registry
/// and skopeo, which `.ci/run` installs).
#[derive(Debug)]
pub(crate) struct Tools<'a> {
    /// A directory holding the wasmtime 48 CLI (the real-CLI tests), put first on PATH.
    pub(crate) wasmtime: &'a Path,
    /// A `cargo xtask dist` output (`PODMUT_DIST_DIR`) for the dist tests; the browser tests drive
    /// its binary.
    pub(crate) dist: &'a Path,
}

/// Tests never rewrite fixtures: `PODMUT_BLESS` in the environment is refused (`cargo xtask bless`
/// is the one way to rewrite expectations, and it shows what it rewrites).
pub(crate) fn no_bless_env() -> Result {
    match env::var_os("PODMUT_BLESS") {
        Some(v) if !v.is_empty() => Err(format!(
            "PODMUT_BLESS={} is set: tests would rewrite the fixtures instead of checking them; \
             unset it (`cargo xtask bless` rewrites expectations and shows the diff)",
            v.to_string_lossy()
        )),
        _ => Ok(()),
    }
}

/// `cargo test` over the workspace, then (given their tools) the host's ignored tests, then the
/// browser tests.
pub(crate) fn run_all(host: &Host, extra: &[String], given: &Given<'_>) -> Result {
    // The same environment for every `cargo test` here, so nothing is rebuilt between them.
    let cargo_test = || -> Result<std::process::Command> {
        let mut c = host.cargo("test");
        // Every test binary runs even when one fails: one CI run reports every failure.
        c.arg("--no-fail-fast");
        if let Some(tools) = &given.tools {
            let paths = env::var_os("PATH").unwrap_or_default();
            let joined = env::join_paths(
                std::iter::once(tools.wasmtime.to_path_buf()).chain(env::split_paths(&paths)),
            )
            .map_err(|e| format!("cannot put {} on PATH: {e}", tools.wasmtime.display()))?;
            c.env("PATH", joined)
                .env("PODMUT_DIST_DIR", tools.dist)
                // For the reproducibility test, which packages the same inputs again.
                .env("PODMUT_RELEASE_TOOL", crate::dist::release_tool())
                .env(
                    "PODMUT_SOURCE_DATE_EPOCH",
                    crate::dist::source_date_epoch().to_string(),
                );
        }
        if given.oracle_required {
            c.env("PODMUT_REQUIRE_ORACLE", "1");
        }
        Ok(c)
    };
    let mut c = cargo_test()?;
    c.args(extra);
    let all = step("cargo test", || run(c));
    let ignored = if given.tools.is_some() {
        // The tests a plain `cargo test` reports as ignored for want of a tool; here every one of
        // them runs, and fails if what it needs is missing. Test filters given to `ci` apply.
        let filters = extra.iter().skip_while(|a| *a != "--").skip(1);
        let mut c = cargo_test()?;
        c.args(["--test", "it", "--", "--ignored"]).args(filters);
        step(
            "cargo test (the host's ignored tests: wasmtime CLI, dist, curl)",
            || run(c),
        )
    } else {
        Ok(())
    };
    // Both run even when the first fails: one CI run reports every failure.
    match (all, ignored) {
        (Ok(()), Ok(())) => {}
        (Err(e), Ok(())) | (Ok(()), Err(e)) => return Err(e),
        (Err(a), Err(b)) => return Err(format!("{a}; {b}")),
    }
    if !host.web {
        if given.browser_required {
            return Err("node and npm are required for the playground and its browser tests".into());
        }
        eprintln!("\n!!! xtask: SKIPPING the browser tests: node/npm are not installed !!!\n");
        return Ok(());
    }
    // The dist binary when there is one: its playground is what ships.
    let dist_bin = given.tools.as_ref().map(|t| t.dist.join("podmut"));
    let bin = dist_bin.as_deref().unwrap_or(&host.bin);
    step("browser tests (Chromium)", || {
        web::browser_tests(
            bin,
            &target_dir().join("web-test-results"),
            given.browser_required,
        )
    })
}
