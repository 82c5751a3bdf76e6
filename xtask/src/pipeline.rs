//! The one build everything else uses (tests, lint, dist): each artefact is built once and handed
//! to the next step by path.
//!
//! 1. The components: `podmut-guest` (the product) and `podmut-misbehave` (a test component) for
//!    wasm32-wasip2 with the size-first `guest` profile, `podmut-kubewarden` for
//!    wasm32-unknown-unknown with the `kubewarden` profile (release, fat LTO). Then the two components are made into what ships
//!    (`podmut_splice::optimise_file`): the core module through binaryen's `wasm-opt`, its
//!    function names split off into `podmut.wasm.names`; the Kubewarden core module the same
//!    way, before release/ annotates it. From here on every consumer — the host
//!    (`podmut component`, its digest, the precompiled code), `web/pkg`, dist — gets those bytes.
//! 2. The playground: `web/pkg` transpiled from exactly that component, so the host embeds it.
//! 3. The host and every test, benchmark and tool in ONE cargo invocation, release profile,
//!    static target (`x86_64-unknown-linux-musl`), with the components passed in
//!    (`PODMUT_GUEST_WASM`, `PODMUT_MISBEHAVE_WASM`): no nested cargo builds them again.
//! 4. `podmut precompile` on the result, then the same invocation again with
//!    `PODMUT_PRECOMPILED`: only the `podmut` binary is relinked (see `host/src/main.rs`).
//!
//! With `lint`, every cargo invocation runs rustc through `clippy-driver` for the workspace's own
//! crates (`RUSTC_WORKSPACE_WRAPPER` + `CLIPPY_ARGS=-D warnings`, what `cargo clippy` sets up), so
//! the real builds are also the lint: no separate check build of every dependency. The component
//! build lints core, guest and misbehave for wasm32-wasip2 and core and kubewarden for
//! wasm32-unknown-unknown; the host build lints every workspace crate natively, with all targets.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cmd::{Result, cargo, run, stdout_of, step, target_dir};
use crate::setup::HOST_TARGET;
use crate::web;

/// The built components.
#[derive(Debug, Clone)]
pub(crate) struct Components {
    /// The podmut component (`podmut component` writes exactly these bytes).
    pub(crate) guest: PathBuf,
    /// Its names file (`podmut component --names`).
    pub(crate) guest_names: PathBuf,
    /// The misbehaving test component (tests/misbehave; never shipped), made the same way.
    pub(crate) misbehave: PathBuf,
    /// Its names file.
    pub(crate) misbehave_names: PathBuf,
    /// The Kubewarden waPC module, through wasm-opt, names split off (not yet annotated).
    pub(crate) kubewarden: PathBuf,
}

/// How the build runs.
#[derive(Debug, Clone)]
pub(crate) struct Build {
    /// `RUSTC_WORKSPACE_WRAPPER` + `CLIPPY_ARGS`, when linting.
    wrapper: Option<(PathBuf, String)>,
    /// Fail when wasm-opt is missing (a release), instead of shipping the component unoptimised.
    require_wasm_opt: bool,
}

/// The built host.
#[derive(Debug, Clone)]
pub(crate) struct Host {
    /// The release `podmut` binary (static, playground and precompiled code embedded).
    pub(crate) bin: PathBuf,
    /// The components it was built with.
    pub(crate) components: Components,
    /// Whether `web/pkg` is embedded.
    pub(crate) web: bool,
    /// The environment every cargo invocation on the host used; tests must run with exactly this
    /// too, or cargo rebuilds.
    env: Vec<(&'static str, OsString)>,
    build: Build,
}

impl Build {
    /// A build that lints (`lint`) or only builds.
    pub(crate) fn new(lint: bool) -> Result<Self> {
        let wrapper = if lint {
            Some((
                clippy_driver()?,
                "-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__".to_owned(),
            ))
        } else {
            None
        };
        Ok(Self {
            wrapper,
            require_wasm_opt: false,
        })
    }

    /// A build whose components must be optimised (`ci`, `dist`): no wasm-opt is an error.
    pub(crate) fn requiring_wasm_opt(mut self) -> Self {
        self.require_wasm_opt = true;
        self
    }

    /// `cargo` with the lint wrapper when linting.
    fn cargo(&self) -> Command {
        let mut c = cargo();
        if let Some((driver, args)) = &self.wrapper {
            c.env("RUSTC_WORKSPACE_WRAPPER", driver).env("CLIPPY_ARGS", args);
        }
        c
    }

    /// The three components, each built once.
    pub(crate) fn components(&self) -> Result<Components> {
        step(
            "components (wasm32-wasip2, wasm32-unknown-unknown; wasm-opt)",
            || {
                let wasi_out = build_components(self.cargo(), &["podmut-guest", "podmut-misbehave"])?;
                let mut kubewarden = self.cargo();
                // Its own profile: release with fat LTO (BENCHMARKS.md, "Kubewarden").
                kubewarden.args([
                    "build",
                    "--profile",
                    "kubewarden",
                    "--target",
                    "wasm32-unknown-unknown",
                    "--package",
                    "podmut-kubewarden",
                ]);
                run(kubewarden)?;
                let guest = ship(
                    &wasi_out.join("podmut_guest.wasm"),
                    "podmut",
                    self.require_wasm_opt,
                )?;
                let misbehave = ship(
                    &wasi_out.join("podmut_misbehave.wasm"),
                    "podmut-misbehave",
                    self.require_wasm_opt,
                )?;
                // The waPC core module the same way (release/ adds its Kubewarden metadata after
                // wasm-opt; its names file stays here, the annotation changes the digest).
                let kubewarden = ship(
                    &target_dir()
                        .join("wasm32-unknown-unknown")
                        .join("kubewarden")
                        .join("podmut_kubewarden.wasm"),
                    "podmut-kubewarden",
                    self.require_wasm_opt,
                )?;
                Ok(Components {
                    guest: guest.component,
                    guest_names: guest.names,
                    misbehave: misbehave.component,
                    misbehave_names: misbehave.names,
                    kubewarden: kubewarden.component,
                })
            },
        )
    }

    /// The playground, then the host with every test target, precompiled.
    /// `require_web`: fail instead of building without the playground when npm is missing.
    pub(crate) fn host(&self, components: &Components, require_web: bool) -> Result<Host> {
        let web = step("playground (web/pkg)", || web::transpile(&components.guest))?;
        if !web && require_web {
            return Err("the release binary embeds the playground: install Node.js and npm".into());
        }
        let mut host = Host {
            bin: target_dir().join(HOST_TARGET).join("release").join("podmut"),
            components: components.clone(),
            web,
            env: vec![
                ("PODMUT_GUEST_WASM", components.guest.clone().into()),
                ("PODMUT_GUEST_NAMES", components.guest_names.clone().into()),
                ("PODMUT_MISBEHAVE_WASM", components.misbehave.clone().into()),
                (
                    "PODMUT_MISBEHAVE_NAMES",
                    components.misbehave_names.clone().into(),
                ),
                ("PODMUT_KUBEWARDEN_WASM", components.kubewarden.clone().into()),
            ],
            build: self.clone(),
        };
        step("host, tests, benches (release, static)", || {
            let mut c = host.cargo("build");
            c.arg("--all-targets");
            run(c)
        })?;
        let precompiled = target_dir().join("podmut-precompiled.cwasm");
        step("precompile the component, relink podmut", || {
            let mut c = Command::new(&host.bin);
            c.arg("precompile").arg("--output").arg(&precompiled);
            run(c)?;
            host.env.push(("PODMUT_PRECOMPILED", precompiled.clone().into()));
            let mut relink = host.cargo("build");
            relink.arg("--all-targets");
            run(relink)
        })?;
        Ok(host)
    }
}

impl Host {
    /// `cargo <subcommand>` over the whole native workspace, release, static target, with the
    /// build's environment (the same selection every time: cargo resolves features per
    /// invocation, so a narrower `-p podmut` would build the dependencies a second time).
    pub(crate) fn cargo(&self, subcommand: &str) -> Command {
        let mut c = self.build.cargo();
        c.args([
            subcommand,
            "--workspace",
            // Both are cdylibs for wasm32-wasip2 only (their component exports cannot be linked
            // natively); they are built and linted for wasm with the components.
            "--exclude",
            "podmut-guest",
            "--exclude",
            "podmut-misbehave",
            "--target",
            HOST_TARGET,
        ]);
        // `cargo bench` always builds with the bench profile (release) and refuses `--release`.
        if subcommand != "bench" {
            c.arg("--release");
        }
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c
    }
}

/// `cargo build` of these wasm32-wasip2 components with the size-first `guest` profile (the one
/// invocation the pipeline, `demo` and `load` share); the directory the `.wasm` files land in.
pub(crate) fn build_components(mut cargo: Command, packages: &[&str]) -> Result<PathBuf> {
    cargo.args(["build", "--profile", "guest", "--target", "wasm32-wasip2"]);
    for package in packages {
        cargo.args(["--package", package]);
    }
    run(cargo)?;
    Ok(target_dir().join("wasm32-wasip2").join("guest"))
}

/// The component as shipped, from cargo's `built` (see the module docs): `<stem>.wasm`
/// and `<stem>.wasm.names` beside it. Without wasm-opt: an error when `require_wasm_opt`, else
/// the component as cargo built it with the names split off (said loudly).
pub(crate) fn ship(built: &Path, stem: &str, require_wasm_opt: bool) -> Result<podmut_splice::Optimised> {
    let wasm_opt = podmut_splice::wasm_opt();
    if wasm_opt.is_none() {
        if require_wasm_opt {
            return Err("wasm-opt (binaryen) is required for a release build: apt-get install -y binaryen (or PODMUT_WASM_OPT=/path/to/wasm-opt)".into());
        }
        eprintln!(
            "\n!!! xtask: wasm-opt not found: {stem}.wasm is NOT optimised (names split off only) !!!\n"
        );
    }
    let out = built.parent().unwrap_or_else(|| Path::new("."));
    let shipped = podmut_splice::optimise_file(built, out, stem, wasm_opt.as_deref())
        .map_err(|e| format!("{}: {e}", built.display()))?;
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    eprintln!(
        "xtask: {} ({} B) -> {} ({} B; {})",
        built.display(),
        size(built),
        shipped.component.display(),
        size(&shipped.component),
        shipped.wasm_opt.as_deref().map_or_else(
            || "not optimised".to_owned(),
            |v| format!("{v} {}", podmut_splice::WASM_OPT_FLAGS.join(" "))
        )
    );
    Ok(shipped)
}

/// `clippy-driver` of the active toolchain (beside its rustc).
fn clippy_driver() -> Result<PathBuf> {
    let mut c = Command::new("rustc");
    c.args(["--print", "sysroot"]);
    let sysroot = stdout_of(c)?;
    let driver = Path::new(sysroot.trim()).join("bin").join("clippy-driver");
    if driver.is_file() {
        Ok(driver)
    } else {
        Err(format!(
            "{} not found (rustup component add clippy)",
            driver.display()
        ))
    }
}
