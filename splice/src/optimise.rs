//! The component as podmut ships it, from the one cargo built: its core module optimised by
//! binaryen's `wasm-opt` (when installed) and its function names split off into a names file.
//! One function for every place that makes it — the release pipeline (`cargo xtask`) and the
//! nested builds of host/build.rs and tests/misbehave/build.rs — so each makes the same bytes from
//! the same input.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{SpliceError, core_module, digest, replace_core_module, split_names};

/// The flags `wasm-opt` runs with. `-Oz`: the smallest of `-Oz`/`-Os`/`-O3` at the same per-call
/// speed (BENCHMARKS.md, "Size"). `-g` keeps the `name` section through the passes, so
/// [`split_names`] can move the optimised module's own function names into the names file.
/// No feature flags: binaryen reads the module's `target_features` section (`-all` would make
/// binaryen 108 write type encodings wasmtime 48 rejects).
pub const WASM_OPT_FLAGS: &[&str] = &["-Oz", "-g"];

/// The `wasm-opt` to run: `$PODMUT_WASM_OPT` (a path, e.g. npm's `binaryen` package), else
/// `wasm-opt` on `PATH` (Debian's `binaryen`); `None` when it does not run.
pub fn wasm_opt() -> Option<PathBuf> {
    let program =
        std::env::var_os("PODMUT_WASM_OPT").map_or_else(|| PathBuf::from("wasm-opt"), PathBuf::from);
    version_of(&program).ok().map(|_| program)
}

/// `wasm-opt --version`'s first line.
fn version_of(wasm_opt: &Path) -> Result<String, SpliceError> {
    let out = Command::new(wasm_opt)
        .arg("--version")
        .output()
        .map_err(|source| SpliceError::Io {
            what: format!("cannot run {}", wasm_opt.display()),
            source,
        })?;
    if !out.status.success() {
        return Err(SpliceError::WasmOpt {
            command: format!("{} --version", wasm_opt.display()),
            status: out.status,
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned())
}

/// What [`optimise_file`] wrote.
#[derive(Debug, Clone)]
pub struct Optimised {
    /// `<out>/<stem>.wasm`: the component (or the core module, when given one).
    pub component: PathBuf,
    /// `<out>/<stem>.wasm.names`: its core module's function names ([`crate::GuestNames`]).
    pub names: PathBuf,
    /// The wasm-opt (`--version`) that optimised it; `None`: only the names were split off.
    pub wasm_opt: Option<String>,
}

fn read(path: &Path) -> Result<Vec<u8>, SpliceError> {
    std::fs::read(path).map_err(|source| SpliceError::Io {
        what: format!("cannot read {}", path.display()),
        source,
    })
}

fn write(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), SpliceError> {
    std::fs::write(path, bytes).map_err(|source| SpliceError::Io {
        what: format!("cannot write {}", path.display()),
        source,
    })
}

/// Make the shipped component from cargo's `input`: its largest core module through `wasm_opt`
/// with [`WASM_OPT_FLAGS`] (skipped when `None`), the function names split off, spliced back.
/// A core module as `input` (the Kubewarden policy) goes the same way without the splice.
/// Writes `<stem>.wasm`, `<stem>.wasm.names` and a stamp into `out_dir`; when the stamp says they
/// were made from the same input by the same wasm-opt, they are kept (wasm-opt takes ~40 s of CPU).
///
/// # Errors
/// When a file cannot be read or written, the input is not a component, or wasm-opt fails.
pub fn optimise_file(
    input: &Path,
    out_dir: &Path,
    stem: &str,
    wasm_opt: Option<&Path>,
) -> Result<Optimised, SpliceError> {
    let raw = read(input)?;
    let version = wasm_opt.map(version_of).transpose()?;
    let stamp = format!(
        "input {}\nwasm-opt {}\n",
        digest(&raw),
        version.as_deref().map_or_else(
            || "none".to_owned(),
            |v| format!("{v} {}", WASM_OPT_FLAGS.join(" "))
        )
    );
    let done = Optimised {
        component: out_dir.join(format!("{stem}.wasm")),
        names: out_dir.join(format!("{stem}.wasm.names")),
        wasm_opt: version,
    };
    let stamp_path = out_dir.join(format!("{stem}.wasm.stamp"));
    if std::fs::read_to_string(&stamp_path).ok().as_deref() == Some(stamp.as_str())
        && done.component.is_file()
        && done.names.is_file()
    {
        return Ok(done);
    }
    let is_component = wasmparser::Parser::is_component(&raw);
    let module = if is_component {
        core_module(&raw)?
    } else {
        &raw[..]
    };
    let module = match wasm_opt {
        Some(wasm_opt) => run_wasm_opt(wasm_opt, module, out_dir, stem)?,
        None => module.to_vec(),
    };
    let (module, mut names) = split_names(&module)?;
    let component = if is_component {
        replace_core_module(&raw, &module)?
    } else {
        module
    };
    names.component = Some(digest(&component));
    write(&done.component, &component)?;
    write(&done.names, names.to_text())?;
    write(&stamp_path, stamp)?;
    Ok(done)
}

/// `wasm-opt WASM_OPT_FLAGS` on one core module, through files in `dir` (removed afterwards).
fn run_wasm_opt(wasm_opt: &Path, module: &[u8], dir: &Path, stem: &str) -> Result<Vec<u8>, SpliceError> {
    let input = dir.join(format!("{stem}.core.wasm"));
    let output = dir.join(format!("{stem}.core.opt.wasm"));
    write(&input, module)?;
    let mut cmd = Command::new(wasm_opt);
    cmd.args(WASM_OPT_FLAGS).arg(&input).arg("-o").arg(&output);
    let command = format!(
        "{} {} {} -o {}",
        wasm_opt.display(),
        WASM_OPT_FLAGS.join(" "),
        input.display(),
        output.display()
    );
    let status = cmd.status().map_err(|source| SpliceError::Io {
        what: format!("cannot run {command}"),
        source,
    })?;
    if !status.success() {
        return Err(SpliceError::WasmOpt { command, status });
    }
    let optimised = read(&output)?;
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
    Ok(optimised)
}
